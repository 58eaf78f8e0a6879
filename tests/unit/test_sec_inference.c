/*
 * test_sec_inference.c - reports/sec_inference.c on a small database made
 * by hand (BitNet-rs records as metric samples in blocks), its result read
 * through its getter (sec_inference.h): each quantity's distribution
 * (percentiles linear between the order statistics), and the requests
 * counted by the records when no counter counts them. Expected figures by
 * hand.
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
#include "../../reports/sec_inference.h"
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

static void test_records(void **state)
{
	char path[] = "/tmp/test_sec_inference.XXXXXX";
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
		 "INSERT INTO names(id, name) VALUES (1, 'inference.tokens_per_second'),"
		 " (2, 'inference.ttft_ms');"
		 "INSERT INTO series(id, metric_id, source) VALUES (1, 1, 'bitnet'), (2, 2, 'bitnet');");
	/* three records: 10, 20 and 60 tokens/s; two of them wrote a TTFT, 100 and 300 ms */
	block(db, 1, 1, T0, T0 + 20 * S_US, 3, "[[0,10,0],[10000000,20,1],[20000000,60,2]]");
	block(db, 2, 2, T0, T0 + 10 * S_US, 2, "[[0,100,0],[10000000,300,1]]");
	sqlite3_close(db);

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);

	const struct gl_report_inference *r = gl_inference_result(&rep);
	const struct gl_report_dist *tps = &r->tokens_per_second, *ttft = &r->ttft_ms;

	assert_int_equal(tps->count, 3);
	near(tps->mean, 30);
	near(tps->min, 10);
	near(tps->max, 60);
	near(tps->p50, 20);
	near(tps->p95, 56);		/* rank 1.9: 20 + 0.9 x 40 */
	near(tps->p99, 59.2);		/* rank 1.98 */
	assert_int_equal(ttft->count, 2);
	near(ttft->mean, 200);
	near(ttft->p50, 200);
	near(ttft->p95, 290);		/* 100 + 0.95 x 200 */
	assert_int_equal(r->latency_ms.count, 0);
	/* the most samples of any one series of the host: 3 records, no counter */
	near(r->requests, 3);
	assert_string_equal(r->requests_from, "records");
	near(r->server_requests[0], 3);
	assert_string_equal(r->server_from[0], "records");
	/* no counter and no access line tells of failures */
	assert_true(isnan(r->failed));
	assert_null(r->failed_from);
	assert_true(isnan(r->failed_pct));
	assert_int_equal(r->n_counters, 0);
	assert_int_equal(r->n_histograms, 0);
	gl_report_release(&rep);
	gl_query_close(q);
	gl_config_release(&cfg);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
