/*
 * test_sec_metrics.c - reports/sec_metrics.c on a small database made by
 * hand (two series of metric samples in blocks), its result read through
 * its getter (sec_metrics.h): one row per series, ordered by host, device
 * (GPU index numerically) and metric, with count, extremes, mean,
 * percentiles (linear between the order statistics), last value and span;
 * the samples of the window and nothing outside it. Expected figures by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "schema_sql.h"
#include "../../reports/config.h"
#include "../../reports/sec_metrics.h"
#include "../../reports/section.h"
#include "../../reports/sections.h"
#include "store/query.h"
#include "util/timeutil.h"

#define T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */
#define S_US 1000000LL

static void near(double a, double b)
{
	if (!(fabs(a - b) <= 1e-12 * (1 + fabs(b))))
		fail_msg("%.17g != %.17g", a, b);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* A block of series sid starting at t0 (data: [[dt_us, value, dline], ...]). */
static void block(sqlite3 *db, int id, int sid, int64_t t0, int64_t t1, int n, const char *data)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO sample_blocks(id, series_id, t0_us, t1_us, n, stream_id, line0, line1,"
		 " data) VALUES (%d, %d, %lld, %lld, %d, 1, 1, %d, '%s');",
		 id, sid, (long long)t0, (long long)t1, n, n, data);
	exec(db, sql);
}

static void test_series_rows(void **state)
{
	char path[] = "/tmp/test_sec_metrics.XXXXXX";
	int fd = mkstemp(path);
	sqlite3 *db;
	struct gl_report_config cfg;
	struct gl_report rep;
	struct gl_query *q = NULL;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20,
				     .top_series = 500};

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, gl_schema_sql);
	exec(db, "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
		 "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		 " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		 "INSERT INTO names(id, name) VALUES (1, 'gpu.utilization_pct'), (2, 'gpu.power_w');"
		 /* GPU 10 sorts after GPU 2 (numerically, not as text) */
		 "INSERT INTO series(id, metric_id, device, source) VALUES"
		 " (1, 1, '10', 'nvidia-smi-csv'), (2, 2, '2', 'nvidia-smi-csv');");
	/* GPU 2's power: 100, 200, 300, 400 W at 0, 10, 20, 30 s */
	block(db, 1, 2, T0, T0 + 30 * S_US, 4,
	      "[[0,100,0],[10000000,200,1],[20000000,300,2],[30000000,400,3]]");
	/* GPU 10's utilisation: 50 % at 5 s and 70 % at 15 s; 90 % a day later, outside */
	block(db, 2, 1, T0 + 5 * S_US, T0 + 15 * S_US, 2, "[[0,50,0],[10000000,70,1]]");
	block(db, 3, 1, T0 + GL_US_PER_DAY + S_US, T0 + GL_US_PER_DAY + S_US, 1, "[[0,90,0]]");
	sqlite3_close(db);

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);

	const struct gl_metrics_result *r = gl_metrics_result(&rep);

	assert_int_equal(r->samples, 6);
	assert_int_equal(r->n_metrics, 2);
	assert_int_equal(r->n_unlisted, 0);

	const struct gl_report_metric *pw = &r->metrics[0], *ut = &r->metrics[1];

	assert_string_equal(pw->metric, "gpu.power_w");
	assert_string_equal(pw->device, "2");
	assert_string_equal(pw->source, "nvidia-smi-csv");
	assert_string_equal(pw->unit, "W");
	assert_int_equal(pw->count, 4);
	near(pw->min, 100);
	near(pw->max, 400);
	near(pw->mean, 250);
	near(pw->p50, 250);		/* rank 1.5: halfway from 200 to 300 */
	near(pw->p95, 385);		/* rank 2.85: 300 + 0.85 x 100 */
	near(pw->p99, 397);		/* rank 2.97 */
	near(pw->last, 400);
	assert_int_equal(pw->first_ts_us, T0);
	assert_int_equal(pw->last_ts_us, T0 + 30 * S_US);

	assert_string_equal(ut->metric, "gpu.utilization_pct");
	assert_string_equal(ut->device, "10");
	assert_string_equal(ut->unit, "%");
	assert_int_equal(ut->count, 2);
	near(ut->min, 50);
	near(ut->max, 70);
	near(ut->mean, 60);
	near(ut->p50, 60);
	near(ut->last, 70);
	assert_int_equal(ut->first_ts_us, T0 + 5 * S_US);
	assert_int_equal(ut->last_ts_us, T0 + 15 * S_US);
	gl_report_release(&rep);
	gl_query_close(q);
	gl_config_release(&cfg);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
