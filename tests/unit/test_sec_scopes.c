/*
 * test_sec_scopes.c - reports/sec_scopes.c on a small database made by
 * hand, its result read through its getter (sec_scopes.h): rows per scope
 * path by total time, their duration statistics, and the kernels inside by
 * their scope path ("step" holds "step|forward", not "stepper"). Expected
 * figures by hand.
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
#include "../../reports/sec_scopes.h"
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

static void span(sqlite3 *db, int64_t start, double dur_us, const char *scope, int depth)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO names(name) VALUES ('%s');"
		 "INSERT INTO spans(start_us, dur_us, name_id, scope_id, depth, source, stream_id, line)"
		 " SELECT %lld, %.17g, id, id, %d, 'gpufl', 1, 1 FROM names WHERE name = '%s';",
		 scope, (long long)start, dur_us, depth, scope);
	exec(db, sql);
}

static void kernel(sqlite3 *db, int64_t ts, double dur_us, const char *name, const char *scope)
{
	char sql[640];

	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO names(name) VALUES ('%s'), ('%s');"
		 "INSERT INTO events(ts_us, level, kernel_id, dur_us, scope_id, source, stream_id, line)"
		 " VALUES (%lld, 1, (SELECT id FROM names WHERE name = '%s'), %.17g,"
		 " (SELECT id FROM names WHERE name = '%s'), 'gpufl', 1, 1);",
		 name, scope, (long long)ts, name, dur_us, scope);
	exec(db, sql);
}

static void test_rows_and_kernels_inside(void **state)
{
	char path[] = "/tmp/test_sec_scopes.XXXXXX";
	int fd = mkstemp(path);
	sqlite3 *db;
	struct gl_report_config cfg;
	struct gl_report rep;
	struct gl_query *q = NULL;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20};

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, gl_schema_sql);
	exec(db, "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
		 "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		 " VALUES (1, 'f', 0, 0, 0, 0, 0);");
	span(db, T0, 10000, "step", 0);				/* 10 ms */
	span(db, T0 + 60 * S_US, 30000, "step", 0);		/* 30 ms */
	span(db, T0 + S_US, 4000, "step|forward", 1);		/* 4 ms */
	span(db, T0 + 120 * S_US, 2000, "stepper", 0);		/* 2 ms */
	kernel(db, T0 + S_US + 100, 100, "k1", "step|forward");
	kernel(db, T0 + 60 * S_US + 5000, 300, "k2", "step");
	sqlite3_close(db);

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);

	const struct gl_scopes_result *r = gl_scopes_result(&rep);

	assert_non_null(r);
	assert_int_equal(r->spans, 4);
	assert_int_equal(r->n, 3);
	/* by total time: step 40 ms, step|forward 4 ms, stepper 2 ms */
	assert_string_equal(r->rows[0].scope, "step");
	assert_null(r->rows[0].device);
	assert_int_equal(r->rows[0].count, 2);
	near(r->rows[0].total_ms, 40);
	near(r->rows[0].mean_ms, 20);
	near(r->rows[0].p50_ms, 20);		/* between 10 and 30 */
	near(r->rows[0].p95_ms, 29);		/* 10 + 0.95 x 20 */
	near(r->rows[0].max_ms, 30);
	/* k2 in "step" itself, k1 in "step|forward" below it */
	assert_int_equal(r->rows[0].kernels, 2);
	near(r->rows[0].gpu_ms, 0.4);
	assert_string_equal(r->rows[1].scope, "step|forward");
	assert_int_equal(r->rows[1].count, 1);
	near(r->rows[1].total_ms, 4);
	assert_int_equal(r->rows[1].kernels, 1);
	near(r->rows[1].gpu_ms, 0.1);
	/* "stepper" begins with "step" but is not below it: no kernel */
	assert_string_equal(r->rows[2].scope, "stepper");
	near(r->rows[2].total_ms, 2);
	assert_int_equal(r->rows[2].kernels, 0);
	near(r->rows[2].gpu_ms, 0);
	/* one trend line per row, with the trends section's */
	const struct gl_report_trend *t = gl_report_trend_of(&rep, GL_TREND_SCOPE, "step");

	assert_non_null(t);
	assert_int_equal(t->n, 2);
	gl_report_release(&rep);
	gl_query_close(q);
	gl_config_release(&cfg);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_kernels_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
