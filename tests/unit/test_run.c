/*
 * test_run.c - reports/run.c: gl_report_run's errors (unknown format, bad
 * config, missing database), the dated default directory, the alert
 * counts by severity, and the result's files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "gpulog.h"
#include "schema_sql.h"

#define T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */

static void make_db(const char *path)
{
	sqlite3 *db;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(
		sqlite3_exec(db,
			     "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
			     "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes,"
			     " head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);"
			     "INSERT INTO names(id, name) VALUES (1, 'k');"
			     "INSERT INTO events(ts_us, kernel_id, dur_us, stream_id, line) VALUES"
			     " (1735689600000000, 1, 500, 1, 1), (1735689660000000, 1, 700, 1, 2);",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
}

static void test_run(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_run.XXXXXX", db[128], cfg[128], want[256];
	struct gl_report_opts o = {.since_us = T0, .until_us = T0 + 86400000000LL,
				   .format = "json"};
	struct gl_report_result res;
	struct gl_err err;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/g.db", dir);
	snprintf(cfg, sizeof(cfg), "%s/c.json", dir);
	make_db(db);
	o.db_path = db;

	o.format = "xml";
	assert_int_equal(gl_report_run(&o, &res, &err), GL_EUSAGE);
	gl_report_result_release(&res);
	o.format = "json";

	o.db_path = "/nonexistent.db";
	assert_int_equal(gl_report_run(&o, &res, &err), GL_EIO);
	gl_report_result_release(&res);
	o.db_path = db;

	fp = fopen(cfg, "w");
	fputs("{\"alerts\": [{\"rule\": \"kernel_p95_us\", \"warning\": 600, \"critical\": 1e9}]}",
	      fp);
	fclose(fp);
	o.config_path = cfg;
	o.reports_root = dir;
	assert_int_equal(gl_report_run(&o, &res, &err), GL_OK);
	assert_int_equal(res.events, 2);
	/* p95 of 500, 700 = 690 >= 600: one warning */
	assert_int_equal(res.alerts[1], 1);
	assert_int_equal(res.alerts[2], 0);
	/* report.json, then the nine charts in the order of the sections (no
	 * baseline_comparison.png: the preceding day holds no kernel to compare),
	 * index.html, then the history (history.h): the verdict beside them,
	 * the index of past reports above them, and the "latest" link */
	static const char *const files[12] = {
		"report.json", "kernel_performance_timeline.png",
		"kernel_performance_distribution.png", "kernel_trends.png", "memory_usage_trend.png",
		"error_rate.png", "gpu_telemetry.png", "scopes.png", "training_loss.png",
		"training_iteration.png", "index.html", "verdict.txt",
	};
	assert_int_equal(res.n_paths, 13);
	for (int i = 0; i < 12; i++) {
		snprintf(want, sizeof(want), "%s/2025-01-02/%s", dir, files[i]);
		assert_string_equal(res.paths[i], want);
		assert_int_equal(unlink(want), 0);
	}
	snprintf(want, sizeof(want), "%s/index.html", dir);
	assert_string_equal(res.paths[12], want);
	snprintf(want, sizeof(want), "%s/2025-01-02/index.html", dir);
	assert_string_equal(res.index_path, want);
	gl_report_result_release(&res);
	snprintf(want, sizeof(want), "%s/latest", dir);
	char link[64] = "";
	assert_int_equal(readlink(want, link, sizeof(link) - 1), 10);
	assert_string_equal(link, "2025-01-02");
	/* --no-charts: the json alone, and the history */
	o.no_charts = 1;
	assert_int_equal(gl_report_run(&o, &res, &err), GL_OK);
	assert_int_equal(res.n_paths, 3);
	assert_null(res.index_path);
	snprintf(want, sizeof(want), "%s/2025-01-02/report.json", dir);
	assert_string_equal(res.paths[0], want);
	for (size_t i = 0; i < res.n_paths; i++)
		unlink(res.paths[i]);
	gl_report_result_release(&res);
	snprintf(want, sizeof(want), "%s/latest", dir);
	assert_int_equal(unlink(want), 0);
	snprintf(want, sizeof(want), "%s/2025-01-02", dir);
	assert_int_equal(rmdir(want), 0);
	/* text to a stream: no directory, no charts, no file */
	o.no_charts = 0;
	o.format = "text";
	o.fp = tmpfile();
	assert_non_null(o.fp);
	assert_int_equal(gl_report_run(&o, &res, &err), GL_OK);
	assert_int_equal(res.n_paths, 0);
	assert_true(ftell(o.fp) > 0);
	fclose(o.fp);
	o.fp = NULL;
	o.format = "json";
	assert_int_equal(rmdir(want), -1);

	fp = fopen(cfg, "w");
	fputs("{\"alerts\": 3}", fp);
	fclose(fp);
	assert_int_equal(gl_report_run(&o, &res, &err), GL_ECONFIG);
	gl_report_result_release(&res);
	unlink(cfg);
	unlink(db);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
