/*
 * test_sections.c - reports/sections.c on small databases built here from
 * the schema: hand-computed statistics, window boundaries, edge cases
 * (one sample, identical samples, empty window), baseline, alerts, RMM
 * replay (also on the real RMM sample), message shapes, and a larger
 * random fixture checked by independent methods.
 */
#include <math.h>
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

#include "schema_sql.h"
#include "../../reports/config.h"
#include "../../reports/sections.h"
#include "../../reports/sec_alerts.h"
#include "../../reports/sec_anomalies.h"
#include "../../reports/sec_baseline.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_operations.h"
#include "../../reports/section.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sec_trends.h"
#include "store/operations.h"
#include "store/query.h"
#include "util/timeutil.h"

#define T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */
#define MIN_US (60LL * 1000000)

static void near(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol * (1 + fabs(b))))
		fail_msg("%.17g != %.17g", a, b);
}

struct fx {
	char path[64];
	sqlite3 *db;
};

static void fx_open(struct fx *f)
{
	int fd;

	strcpy(f->path, "/tmp/test_sections.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(f->path, &f->db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(f->db, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(f->db,
				      "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
				      "INSERT INTO streams(id, first_path, bytes, lines, hash,"
				      " head_bytes, head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);"
				      "BEGIN;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
}

static int64_t name_id(struct fx *f, const char *name)
{
	sqlite3_stmt *st;
	int64_t id;

	sqlite3_prepare_v2(f->db, "INSERT OR IGNORE INTO names(name) VALUES (?1)", -1, &st, NULL);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_step(st);
	sqlite3_finalize(st);
	sqlite3_prepare_v2(f->db, "SELECT id FROM names WHERE name = ?1", -1, &st, NULL);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* dur_us / mem_mb: NAN for NULL; kernel/component/msg: NULL for none. */
static void ev(struct fx *f, int64_t ts, int level, const char *comp, const char *kernel,
	       double dur, double mem, const char *msg)
{
	sqlite3_stmt *st;

	sqlite3_prepare_v2(f->db,
			   "INSERT INTO events(ts_us, level, component_id, kernel_id, dur_us, mem_mb,"
			   " message, stream_id, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, 1)",
			   -1, &st, NULL);
	sqlite3_bind_int64(st, 1, ts);
	sqlite3_bind_int(st, 2, level);
	if (comp)
		sqlite3_bind_int64(st, 3, name_id(f, comp));
	if (kernel)
		sqlite3_bind_int64(st, 4, name_id(f, kernel));
	if (!isnan(dur))
		sqlite3_bind_double(st, 5, dur);
	if (!isnan(mem))
		sqlite3_bind_double(st, 6, mem);
	if (msg)
		sqlite3_bind_text(st, 7, msg, -1, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void mem_ev(struct fx *f, int64_t ts, int action, uint64_t ptr, uint64_t size)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
		 " VALUES (%lld, %d, %lld, %llu, 1, 1)",
		 (long long)ts, action, (long long)ptr, (unsigned long long)size);
	assert_int_equal(sqlite3_exec(f->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/* Commits, builds the report over [since, until) with cfg (NULL: defaults). */
static void fx_report(struct fx *f, int64_t since, int64_t until, struct gl_report_config *cfg,
		      struct gl_report *rep)
{
	struct gl_query *q = NULL;
	struct gl_report_config def;
	struct gl_err err;
	struct gl_report_params p = {.since_us = since, .until_us = until, .top = 20};

	sqlite3_exec(f->db, "COMMIT", NULL, NULL, NULL);
	/* the operations the ingest would have stored with the rows written here */
	assert_int_equal(gl_store_fill_operations(f->db, f->path, &err), GL_OK);
	if (!cfg) {
		assert_int_equal(gl_config_defaults(&def, &err), GL_OK);
		cfg = &def;
	}
	assert_int_equal(gl_query_open(f->path, &q, &err), GL_OK);
	int rc = gl_report_build(q, &p, cfg, rep, &err);
	if (rc != GL_OK)
		fail_msg("build: %s / %s", err.msg, err.cause);
	gl_query_close(q);
	if (cfg == &def)
		gl_config_release(&def);
}

static void fx_close(struct fx *f)
{
	sqlite3_close(f->db);
	unlink(f->path);
}

static const struct gl_report_kernel *kernel(const struct gl_report *r, const char *name)
{
	const struct gl_kernels_result *ks = gl_kernels_result(r);

	for (size_t i = 0; i < ks->n_kernels; i++)
		if (!strcmp(ks->kernels[i].kernel, name))
			return &ks->kernels[i];
	fail_msg("no kernel %s", name);
	return NULL;
}

static const struct gl_report_trend *trend(const struct gl_report *r, int series,
					   const char *name)
{
	for (size_t i = 0; i < gl_trends_n(r); i++)
		if ((int)gl_trends_at(r, i)->series == series &&
		    (!name || (gl_trends_at(r, i)->kernel &&
			       !strcmp(gl_trends_at(r, i)->kernel, name))))
			return gl_trends_at(r, i);
	fail_msg("no trend");
	return NULL;
}

static void test_hand_fixture_and_boundaries(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* at since: in; at until: out; before since: in the baseline window */
	ev(&f, T0, 3, "trainer", "gemm", 10, 100, NULL);
	ev(&f, T0 + 1 * MIN_US, 3, "trainer", "gemm", 20, 200, NULL);
	ev(&f, T0 + 2 * MIN_US, 5, "loader", "gemm", 30, NAN, "read failed: /data/x.bin");
	ev(&f, T0 + 3 * MIN_US, 4, "loader", "gemm", 40, NAN, "slow read 12 ms");
	ev(&f, T0 + 4 * MIN_US, 3, NULL, NULL, NAN, NAN, NULL);
	ev(&f, T0 + GL_US_PER_DAY, 6, "trainer", "gemm", 1000, NAN, "out");
	ev(&f, T0 - 1, 3, "trainer", "gemm", 99, NAN, NULL);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);

	assert_int_equal(gl_summary_result(&r)->events, 5);
	assert_int_equal(gl_summary_result(&r)->by_level[3], 3);
	assert_int_equal(gl_summary_result(&r)->by_level[4], 1);
	assert_int_equal(gl_summary_result(&r)->by_level[5], 1);
	assert_int_equal(gl_summary_result(&r)->by_level[6], 0);
	assert_true(gl_summary_result(&r)->first_ts_us == T0);
	assert_true(gl_summary_result(&r)->last_ts_us == T0 + 4 * MIN_US);
	/* by_component sorted by name: "" (none), loader, trainer */
	assert_int_equal(gl_summary_result(&r)->n_by_component, 3);
	assert_string_equal(gl_summary_result(&r)->by_component[0].name, "");
	assert_string_equal(gl_summary_result(&r)->by_component[1].name, "loader");
	assert_int_equal(gl_summary_result(&r)->by_component[1].count, 2);
	assert_int_equal(gl_summary_result(&r)->by_component[2].count, 2);

	/* 10 20 30 40: mean 25, var (225+25+25+225)/3, p50 25, p90 h=2.7 -> 37, p95 h=2.85 -> 38.5 */
	const struct gl_report_kernel *k = kernel(&r, "gemm");
	assert_int_equal(k->count, 4);
	near(k->min_us, 10, 0);
	near(k->max_us, 40, 0);
	near(k->mean_us, 25, 1e-15);
	near(k->stddev_us, sqrt(500.0 / 3), 1e-14);
	near(k->p50_us, 25, 1e-15);
	near(k->p90_us, 37, 1e-14);
	near(k->p95_us, 38.5, 1e-14);
	near(k->p99_us, 39.7, 1e-14);
	near(k->total_us, 100, 0);
	near(k->mean_mem_mib, 150, 0);

	/* durations rise 10 us per minute = 14400 us/day, exactly on a line */
	const struct gl_report_trend *t = trend(&r, GL_TREND_KERNEL, "gemm");
	near(t->slope_per_day, 14400, 1e-9);
	near(t->intercept, 10, 1e-9);
	near(t->r2, 1, 1e-12);
	assert_true(t->p_value == 0);
	assert_int_equal(t->verdict, GL_VERDICT_DEGRADING);
	/* the change over the series' own span (0 to 3 min: 10 -> 40 us), not the window's */
	near(t->change_pct, (40.0 - 10) / 10 * 100, 1e-9);
	near(t->span_s, 180, 0);
	assert_true(t->first_ts_us == T0 && t->last_ts_us == T0 + 3 * MIN_US);
	assert_true(r.window.data_first_ts_us == T0);
	assert_true(r.window.data_last_ts_us == T0 + 4 * MIN_US);

	/* memory: 100 at t=0, 200 at 1 min; peak 200 */
	near(gl_memory_result(&r)->peak_mib, 200, 0);
	assert_true(gl_memory_result(&r)->peak_ts_us == T0 + MIN_US);
	assert_int_equal(gl_memory_result(&r)->samples, 2);

	assert_int_equal(gl_errors_result(&r)->errors, 1);
	assert_int_equal(gl_errors_result(&r)->warnings, 1);
	near(gl_errors_result(&r)->per_1000_events, 200, 0);
	/* one error in the data's span of 4 minutes: 15 per hour (not 1/24 of the day) */
	near(gl_errors_result(&r)->per_hour, 15, 1e-12);
	assert_int_equal(gl_errors_result(&r)->n_top_messages, 2);

	/* the baseline window holds one sample of gemm (99) */
	assert_int_equal(gl_baseline_result(&r)->samples, 1);
	assert_int_equal(gl_baseline_result(&r)->n_kernels, 1);
	near(gl_baseline_result(&r)->kernels[0].mean_before_us, 99, 0);
	near(gl_baseline_result(&r)->kernels[0].mean_change_pct, (25.0 - 99) / 99 * 100, 1e-12);
	assert_true(isnan(gl_baseline_result(&r)->kernels[0].p_value));	/* one sample before */
	assert_int_equal(gl_baseline_result(&r)->kernels[0].verdict, GL_BASELINE_UNCHANGED);
	gl_report_release(&r);
	fx_close(&f);
}

static void test_edges(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	ev(&f, T0 + 5, 3, NULL, "once", 7, NAN, NULL);
	for (int i = 0; i < 5; i++)
		ev(&f, T0 + i * MIN_US, 3, NULL, "same", 50, 10, NULL);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	const struct gl_report_kernel *one = kernel(&r, "once");
	assert_true(isnan(one->stddev_us));
	near(one->p99_us, 7, 0);
	const struct gl_report_trend *t1 = trend(&r, GL_TREND_KERNEL, "once");
	assert_true(isnan(t1->slope_per_day) && isnan(t1->r2) && isnan(t1->p_value));
	assert_int_equal(t1->verdict, GL_VERDICT_STABLE);
	const struct gl_report_kernel *same = kernel(&r, "same");
	assert_true(same->stddev_us == 0);
	const struct gl_report_trend *t = trend(&r, GL_TREND_KERNEL, "same");
	assert_true(t->slope_per_day == 0);
	assert_true(isnan(t->r2) && isnan(t->p_value));
	assert_int_equal(t->verdict, GL_VERDICT_STABLE);
	const struct gl_report_trend *m = trend(&r, GL_TREND_MEMORY, NULL);
	assert_true(isnan(m->r2));
	assert_int_equal(m->verdict, GL_VERDICT_STABLE);
	gl_report_release(&r);

	/* an empty window: a valid, empty report */
	fx_report(&f, T0 + 10 * GL_US_PER_DAY, T0 + 11 * GL_US_PER_DAY, NULL, &r);
	assert_int_equal(gl_summary_result(&r)->events, 0);
	assert_int_equal(gl_kernels_result(&r)->n_kernels, 0);
	assert_true(gl_summary_result(&r)->first_ts_us == GL_TS_NONE);
	assert_true(isnan(gl_memory_result(&r)->peak_mib));
	assert_true(isnan(gl_errors_result(&r)->per_1000_events));
	assert_int_equal(gl_alerts_result(&r)->n_alerts, 0);
	gl_report_release(&r);
	fx_close(&f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void test_random_against_independent(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	enum { N = 3000 };
	static double d[N], ts[N];
	uint64_t s = 12345;

	fx_open(&f);
	for (int i = 0; i < N; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		d[i] = 50 + (double)(s >> 40) / 16777216.0 * 100 + i * 0.01;
		ts[i] = (double)i * 20 * 1000000;	/* every 20 s */
		ev(&f, T0 + (int64_t)ts[i], 3, "c", "k", d[i], NAN, NULL);
	}
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	const struct gl_report_kernel *k = kernel(&r, "k");
	/* two-pass mean, and a direct regression in days */
	double sum = 0, mx = 0, my = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < N; i++) {
		sum += d[i];
		mx += ts[i] / 86400e6;
	}
	my = sum / N;
	mx /= N;
	for (int i = 0; i < N; i++) {
		sxx += (ts[i] / 86400e6 - mx) * (ts[i] / 86400e6 - mx);
		sxy += (ts[i] / 86400e6 - mx) * (d[i] - my);
	}
	near(k->mean_us, my, 1e-12);
	near(trend(&r, GL_TREND_KERNEL, "k")->slope_per_day, sxy / sxx, 1e-9);
	/* a plain sort and interpolation */
	qsort(d, N, sizeof(double), cmp_double);
	double fr[] = {0.5, 0.9, 0.95, 0.99};
	double got[] = {k->p50_us, k->p90_us, k->p95_us, k->p99_us};
	for (int j = 0; j < 4; j++) {
		double h = (N - 1) * fr[j];
		int lo = (int)h;
		near(got[j], d[lo] + (h - lo) * (d[lo + 1] - d[lo]), 1e-12);
	}
	gl_report_release(&r);
	fx_close(&f);
}

static void test_baseline_and_alerts(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	struct gl_report_config cfg;
	struct gl_err err;

	fx_open(&f);
	/* before: 100 +- 1, now: 150 +- 1, 30 samples each; "old" only before */
	for (int i = 0; i < 30; i++) {
		ev(&f, T0 - GL_US_PER_DAY + i * MIN_US, 3, NULL, "k", 100 + (i % 3) - 1, NAN, NULL);
		ev(&f, T0 + i * MIN_US, 3, NULL, "k", 150 + (i % 3) - 1, NAN, NULL);
		ev(&f, T0 - GL_US_PER_DAY + i * MIN_US, 3, NULL, "old", 5, NAN, NULL);
	}
	ev(&f, T0, 3, NULL, "fresh", 5, NAN, NULL);
	assert_int_equal(gl_config_parse("{\"alerts\": [{\"rule\": \"kernel_p95_us\", \"match\": \"k\","
					 " \"warning\": 140, \"critical\": 1000},"
					 " {\"rule\": \"kernel_mean_change_pct\", \"warning\": 10,"
					 " \"critical\": 40}]}",
					 "t", &cfg, &err),
			 GL_OK);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, &cfg, &r);
	assert_int_equal(gl_baseline_result(&r)->n_kernels, 1);
	const struct gl_report_baseline_kernel *b = &gl_baseline_result(&r)->kernels[0];
	near(b->mean_before_us, 100, 1e-12);
	near(b->mean_us, 150, 1e-12);
	near(b->mean_change_pct, 50, 1e-12);
	near(b->p95_change_pct, (151.0 - 101) / 101 * 100, 1e-12);	/* p95 101 -> 151 */
	assert_true(b->p_value < 1e-10);
	assert_int_equal(b->verdict, GL_BASELINE_REGRESSION);
	assert_int_equal(gl_baseline_result(&r)->n_new_kernels, 1);
	assert_string_equal(gl_baseline_result(&r)->new_kernels[0], "fresh");
	assert_int_equal(gl_baseline_result(&r)->n_vanished_kernels, 1);
	assert_string_equal(gl_baseline_result(&r)->vanished_kernels[0], "old");
	/* critical (mean change 50 >= 40) first, then warning p95 151 >= 140 */
	assert_int_equal(gl_alerts_result(&r)->n_alerts, 2);
	assert_int_equal(gl_alerts_result(&r)->alerts[0].severity, GL_SEVERITY_CRITICAL);
	assert_string_equal(gl_alerts_result(&r)->alerts[0].rule, "kernel_mean_change_pct");
	near(gl_alerts_result(&r)->alerts[0].threshold, 40, 0);
	assert_int_equal(gl_alerts_result(&r)->alerts[1].severity, GL_SEVERITY_WARNING);
	assert_string_equal(gl_alerts_result(&r)->alerts[1].subject, "k");
	near(gl_alerts_result(&r)->alerts[1].value, 151, 1e-12);
	/* messages a reader reads: one decimal for percentages, the unit after values */
	assert_string_equal(gl_alerts_result(&r)->alerts[0].message,
			    "k: mean duration against the preceding window 50.0% (critical at 40.0%)");
	assert_string_equal(gl_alerts_result(&r)->alerts[1].message, "k: p95 duration 151 us (warning at 140 us)");
	gl_report_release(&r);
	gl_config_release(&cfg);
	fx_close(&f);
}

/*
 * error_rate_per_1000 needs errors.min_events_for_rate events in the
 * component (default 50): "tiny" has 3 errors in 4 events (750 per 1,000),
 * "big" 20 in 100 (200). RMM leaked bytes are said in binary units:
 * 128 MiB = 134217728 bytes left allocated.
 */
static void test_alert_minimum_and_units(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	struct gl_report_config cfg;
	struct gl_err err;
#define RULES "{\"alerts\": [{\"rule\": \"error_rate_per_1000\", \"warning\": 10}," \
	      " {\"rule\": \"rmm_leaked_bytes\", \"warning\": 1}]%s}"
	char text[512];

	fx_open(&f);
	for (int i = 0; i < 4; i++)
		ev(&f, T0 + i * MIN_US, i < 3 ? 5 : 3, "tiny", NULL, NAN, NAN, "boom");
	for (int i = 0; i < 100; i++)
		ev(&f, T0 + i * MIN_US, i % 5 == 0 ? 5 : 3, "big", NULL, NAN, NAN, "boom");
	mem_ev(&f, T0 + MIN_US, 0, 0x7f0000001000, 128ULL << 20);
	snprintf(text, sizeof(text), RULES, "");
	assert_int_equal(gl_config_parse(text, "t", &cfg, &err), GL_OK);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, &cfg, &r);
	/* warnings sorted by rule name: error_rate_per_1000, then rmm_leaked_bytes */
	assert_int_equal(gl_alerts_result(&r)->n_alerts, 2);
	assert_string_equal(gl_alerts_result(&r)->alerts[0].subject, "big");
	near(gl_alerts_result(&r)->alerts[0].value, 200, 1e-12);
	assert_string_equal(gl_alerts_result(&r)->alerts[0].message,
			    "big: errors per 1,000 events 200 (warning at 10)");
	assert_string_equal(gl_alerts_result(&r)->alerts[1].message,
			    "rmm: still allocated at the window's end: 128.0 MiB (warning at 1 B)");
	gl_report_release(&r);
	gl_config_release(&cfg);

	/* 0: every component is judged, "tiny" too */
	snprintf(text, sizeof(text), RULES, ", \"errors\": {\"min_events_for_rate\": 0}");
#undef RULES
	assert_int_equal(gl_config_parse(text, "t", &cfg, &err), GL_OK);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, &cfg, &r);
	assert_int_equal(gl_alerts_result(&r)->n_alerts, 3);
	assert_string_equal(gl_alerts_result(&r)->alerts[1].subject, "tiny");
	near(gl_alerts_result(&r)->alerts[1].value, 750, 1e-12);
	gl_report_release(&r);
	gl_config_release(&cfg);
	fx_close(&f);
}

static void test_rmm_replay(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* a 100, b 300 (peak 400), free a, c 50, free unknown, failure; left: b 300, c 50 */
	mem_ev(&f, T0 + 1, 0, 0xa, 100);
	mem_ev(&f, T0 + 2, 0, 0xb, 300);
	mem_ev(&f, T0 + 3, 1, 0xa, 100);
	mem_ev(&f, T0 + 4, 0, 0xc, 50);
	mem_ev(&f, T0 + 5, 1, 0xdead, 8);
	mem_ev(&f, T0 + 6, 2, 0, 1 << 30);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	const struct gl_report_rmm *m = &gl_memory_result(&r)->rmm;
	assert_int_equal(m->allocations, 3);
	assert_int_equal(m->frees, 2);
	assert_int_equal(m->unmatched_frees, 1);
	assert_int_equal(m->allocation_failures, 1);
	assert_int_equal(m->peak_outstanding_bytes, 400);
	assert_true(m->peak_ts_us == T0 + 2);
	assert_int_equal(m->leaked_allocations, 2);
	assert_int_equal(m->leaked_bytes, 350);
	assert_int_equal(m->n_leaks, 2);
	assert_int_equal(m->leaks[0].ptr, 0xb);
	near(m->size_p50_bytes, 100, 0);
	/* 50 in [32, 64), 100 in [64, 128), 300 in [256, 512) */
	assert_int_equal(m->n_histogram, 3);
	assert_int_equal(m->histogram[0].lo_bytes, 32);
	assert_int_equal(m->histogram[2].lo_bytes, 256);
	gl_report_release(&r);
	fx_close(&f);
}

/* The real RMM log: allocate then free 1024 bytes of 0x7f141ba00000. */
static void test_rmm_real_sample(void **state)
{
	(void)state;
	const char *root = getenv("GL_REALDATA");
	char path[1024], line[256];
	struct stat sb;
	struct fx f;
	struct gl_report r;
	FILE *fp;
	int rows = 0;

	snprintf(path, sizeof(path), "%s/rmm/rapidsai+rmm/rmm_adaptor_test_log.txt",
		 root && *root ? root : "../shared/realdata");
	if (stat(path, &sb) != 0 || !(fp = fopen(path, "r")))
		skip();
	/* as ingest does: the file's mtime date (UTC) + the time of day */
	int64_t day_us = (int64_t)sb.st_mtime / 86400 * GL_US_PER_DAY;
	fx_open(&f);
	while (fgets(line, sizeof(line), fp)) {
		unsigned hh, mm, ss, us;
		char action[32];
		unsigned long long ptr, size;

		if (sscanf(line, "%*d,%u:%u:%u.%u,%31[a-z ],%llx,%llu", &hh, &mm, &ss, &us, action,
			   &ptr, &size) != 7)
			continue;
		int64_t ts = day_us + ((hh * 60 + mm) * 60 + ss) * GL_US_PER_S + us;
		mem_ev(&f, ts, !strcmp(action, "free") ? 1 : 0, ptr, size);
		rows++;
	}
	fclose(fp);
	assert_int_equal(rows, 2);
	fx_report(&f, day_us, day_us + GL_US_PER_DAY, NULL, &r);
	const struct gl_report_rmm *m = &gl_memory_result(&r)->rmm;
	/* by hand: peak 1024 bytes at 22:30:49.650739, nothing left */
	assert_int_equal(m->allocations, 1);
	assert_int_equal(m->frees, 1);
	assert_int_equal(m->peak_outstanding_bytes, 1024);
	assert_true(m->peak_ts_us == day_us + ((22 * 60 + 30) * 60 + 49) * GL_US_PER_S + 650739);
	assert_int_equal(m->leaked_allocations, 0);
	assert_int_equal(m->leaked_bytes, 0);
	assert_int_equal(m->unmatched_frees, 0);
	gl_report_release(&r);
	fx_close(&f);
}

static void test_anomalies_in_report(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* 20 samples alternating 100/102 (mean 101, sd ~1.026), then 130 */
	for (int i = 0; i < 20; i++)
		ev(&f, T0 + i * MIN_US, 3, NULL, "k", 100 + 2 * (i % 2), NAN, NULL);
	ev(&f, T0 + 20 * MIN_US, 3, NULL, "k", 130, NAN, NULL);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	assert_int_equal(gl_anomalies_result(&r)->total, 1);
	assert_int_equal(gl_anomalies_result(&r)->judged, 11);	/* samples 10..20 */
	assert_int_equal(gl_anomalies_result(&r)->n_items, 1);
	assert_true(gl_anomalies_result(&r)->items[0].ts_us == T0 + 20 * MIN_US);
	near(gl_anomalies_result(&r)->items[0].mean_us, 101, 1e-12);
	/* sd of ten 100s and ten 102s: sqrt(20 / 19) */
	near(gl_anomalies_result(&r)->items[0].stddev_us, sqrt(20.0 / 19), 1e-9);
	near(gl_anomalies_result(&r)->items[0].z, 29 / sqrt(20.0 / 19), 1e-9);
	assert_ptr_equal(gl_anomalies_result(&r)->items[0].kernel, kernel(&r, "k")->kernel);
	gl_report_release(&r);
	fx_close(&f);
}

static void test_filters(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	struct gl_report_config cfg;
	struct gl_query *q;
	struct gl_err err;
	const char *comps[] = {"train*"}, *kerns[] = {"gemm*", "conv[12]"};

	fx_open(&f);
	ev(&f, T0, 5, "trainer", "gemm_a", 10, NAN, "boom");
	ev(&f, T0 + 1, 3, "trainer", "conv1", 20, NAN, NULL);
	ev(&f, T0 + 2, 3, "trainer", "conv3", 30, NAN, NULL);
	ev(&f, T0 + 3, 5, "loader", "gemm_b", 40, NAN, "boom");
	ev(&f, T0 + 4, 3, NULL, NULL, NAN, NAN, NULL);
	sqlite3_exec(f.db, "COMMIT", NULL, NULL, NULL);
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20,
				     .components = comps, .ncomponents = 1,
				     .kernels = kerns, .nkernels = 2};
	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(f.path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &r, &err), GL_OK);
	/* component filter: 3 trainer events; kernel filter: gemm_a and conv1 only */
	assert_int_equal(gl_summary_result(&r)->events, 3);
	assert_int_equal(gl_errors_result(&r)->errors, 1);
	assert_int_equal(gl_kernels_result(&r)->n_kernels, 2);
	kernel(&r, "gemm_a");
	kernel(&r, "conv1");
	gl_report_release(&r);
	gl_query_close(q);
	gl_config_release(&cfg);
	fx_close(&f);
}

/*
 * Every unit the shapes know, after a number: at the end of the text,
 * before punctuation, glued to the number; the class each belongs to
 * (size, duration, other) written out here from the list, not taken from
 * the code. "MB/s" and "GB/s" are read as a size and "/s" (the size units
 * are tried first and "/" ends a word). A unit followed by a letter is
 * not one.
 */
static void test_message_shape_every_unit(void **state)
{
	(void)state;
	static const struct {
		const char *unit, *shape;
	} units[] = {
		{"bytes", "<size>"}, {"byte", "<size>"}, {"KiB", "<size>"}, {"MiB", "<size>"},
		{"GiB", "<size>"}, {"TiB", "<size>"}, {"kB", "<size>"}, {"KB", "<size>"},
		{"MB", "<size>"}, {"GB", "<size>"}, {"TB", "<size>"}, {"B", "<size>"},
		{"seconds", "<dur>"}, {"second", "<dur>"}, {"secs", "<dur>"}, {"sec", "<dur>"},
		{"\xCE\xBCs", "<dur>"}, {"\xC2\xB5s", "<dur>"}, {"us", "<dur>"}, {"ns", "<dur>"},
		{"ms", "<dur>"}, {"minutes", "<dur>"}, {"min", "<dur>"}, {"hours", "<dur>"},
		{"s", "<dur>"}, {"h", "<dur>"},
		{"tokens/s", "<num>"}, {"tok/s", "<num>"}, {"it/s", "<num>"}, {"req/s", "<num>"},
		{"fps", "<num>"}, {"GHz", "<num>"}, {"MHz", "<num>"}, {"kHz", "<num>"},
		{"Hz", "<num>"}, {"GB/s", "<size>/s"}, {"MB/s", "<size>/s"},
		{"\xC2\xB0" "C", "<num>"}, {"%", "<num>"}, {"W", "<num>"}, {"V", "<num>"},
		{"C", "<num>"}, {"x", "<num>"},
	};
	char in[64], want[64], out[256];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		/* before the unit, after it in the text, after the shape */
		static const char *const forms[][3] = {
			{"took 12 ", "", ""}, {"took 1.5 ", ".", "."}, {"took 7", "; again", "; again"},
		};

		for (size_t f = 0; f < 3; f++) {
			snprintf(in, sizeof(in), "%s%s%s", forms[f][0], units[i].unit, forms[f][1]);
			snprintf(want, sizeof(want), "took %s%s", units[i].shape, forms[f][2]);
			gl_message_shape(in, strlen(in), out, sizeof(out));
			if (strcmp(out, want) != 0)
				fail_msg("\"%s\": \"%s\", expected \"%s\"", in, out, want);
		}
	}
	/* followed by a letter: no unit, the number alone */
	gl_message_shape("took 12 MiBs", 12, out, sizeof(out));
	assert_string_equal(out, "took <num> MiBs");
	gl_message_shape("took 12 hz", 10, out, sizeof(out));
	assert_string_equal(out, "took <num> hz");
	/* a unit that ends in a non-word character may be followed by one */
	gl_message_shape("took 12 %x", 10, out, sizeof(out));
	assert_string_equal(out, "took <num>x");
	/* the text ends inside a unit: not that unit */
	gl_message_shape("took 12 Mi", 10, out, sizeof(out));
	assert_string_equal(out, "took <num> Mi");
}

static void test_message_shape(void **state)
{
	(void)state;
	char out[256];
	static const char *const cases[][2] = {
		{"CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total)",
		 "CUDA out of memory. Tried to allocate <size> (GPU <num>; <size> total)"},
		{"cudaFree(0x7f3a2c000000) failed", "cudaFree(<hex>) failed"},
		{"cannot open /data/shard-17.bin: No such file",
		 "cannot open <path> No such file"},
		{"conv2d layer 3 took 12 ms", "conv2d layer <num> took <dur>"},
		{"batch 12,345 done\nTraceback line 2", "batch <num> done"},
		{"alloc 512MB", "alloc <size>"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gl_message_shape(cases[i][0], strlen(cases[i][0]), out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
	/* output bounded */
	gl_message_shape("0123456789", 10, out, 4);
	assert_true(strlen(out) <= 3);
	/* a run of plain bytes cut at the bound, and at the first line break of either kind */
	gl_message_shape("abcdefgh", 8, out, 4);
	assert_string_equal(out, "abc");
	gl_message_shape("step 4 ok\r\nnext 5\n", 19, out, sizeof(out));
	assert_string_equal(out, "step <num> ok");
	gl_message_shape("rank 1 lost\nthen\r", 17, out, sizeof(out));
	assert_string_equal(out, "rank <num> lost");
	gl_message_shape("no break", 5, out, sizeof(out));
	assert_string_equal(out, "no br");
}

/* Sets columns of the row inserted last ("error_count = 3, exec_ms = 2.5"). */
static void set_last(struct fx *f, const char *assignments)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "UPDATE events SET %s WHERE id = (SELECT max(id) FROM events)",
		 assignments);
	assert_int_equal(sqlite3_exec(f->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/*
 * One launch, one timing: the service's anomaly WARN copy of an INFO launch
 * (same kernel, same time, same duration) is a warning, not a second timing.
 * By hand: k at 10, 20 and 400 us, the 400 logged twice: 3 timings, mean
 * 430 / 3, max 400; one warning.
 */
static void test_launch_copies_once(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	ev(&f, T0 + 1 * MIN_US, 3, "gpu", "k", 10, NAN, "Kernel k executed in 10us");
	ev(&f, T0 + 2 * MIN_US, 3, "gpu", "k", 20, NAN, "Kernel k executed in 20us");
	ev(&f, T0 + 3 * MIN_US, 3, "gpu", "k", 400, NAN, "Kernel k executed in 400us");
	ev(&f, T0 + 3 * MIN_US, 4, "gpu", "k", 400, NAN, "Performance anomaly detected: k 400us");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	assert_int_equal(kernel(&r, "k")->count, 3);
	near(kernel(&r, "k")->mean_us, 430.0 / 3, 1e-12);
	near(kernel(&r, "k")->max_us, 400, 0);
	assert_int_equal(gl_summary_result(&r)->launch_copies, 1);
	assert_int_equal(gl_errors_result(&r)->warnings, 1);
	assert_int_equal(gl_summary_result(&r)->events, 4);
	gl_report_release(&r);
	fx_close(&f);
}

/*
 * Error shapes before warning shapes: 5 "performance anomaly" WARNs, 2 OOM
 * ERRORs and 1 CRITICAL; the same text at two levels is two shapes. Order by
 * hand: CRITICAL (1), ERROR (2), WARN anomaly (5), WARN OOM (1).
 */
static void test_error_shapes_by_level(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	for (int i = 0; i < 5; i++)
		ev(&f, T0 + i * MIN_US, 4, "gpu", NULL, NAN, NAN, "Performance anomaly detected: 9 us");
	ev(&f, T0 + 10 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 2.00 GiB");
	ev(&f, T0 + 11 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 1.00 GiB");
	ev(&f, T0 + 12 * MIN_US, 4, "gpu", NULL, NAN, NAN, "CUDA out of memory 1.00 GiB");
	ev(&f, T0 + 13 * MIN_US, 6, "gpu", NULL, NAN, NAN, "GPU has fallen off the bus");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	assert_int_equal(gl_errors_result(&r)->n_top_messages, 4);
	assert_int_equal(gl_errors_result(&r)->top_messages[0].level, GL_LEVEL_CRITICAL);
	assert_int_equal(gl_errors_result(&r)->top_messages[0].count, 1);
	assert_int_equal(gl_errors_result(&r)->top_messages[1].level, GL_LEVEL_ERROR);
	assert_int_equal(gl_errors_result(&r)->top_messages[1].count, 2);
	assert_int_equal(gl_errors_result(&r)->top_messages[2].level, GL_LEVEL_WARN);
	assert_int_equal(gl_errors_result(&r)->top_messages[2].count, 5);
	assert_int_equal(gl_errors_result(&r)->top_messages[3].level, GL_LEVEL_WARN);
	assert_int_equal(gl_errors_result(&r)->top_messages[3].count, 1);
	assert_string_equal(gl_errors_result(&r)->top_messages[3].shape, gl_errors_result(&r)->top_messages[1].shape);
	gl_report_release(&r);
	fx_close(&f);
}

/*
 * Schema 3: the same GPU error in gpu.log and error.log is one event; the
 * mirror (dup_of set) is in no count, rate or statistic.
 */
static void test_mirrored_records_once(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);	/* schema 3: events.dup_of, set by hand below */
	/* 3 originals: INFO kernel, ERROR, ERROR; mirrors of both errors and of the kernel line */
	ev(&f, T0 + 1 * MIN_US, 3, "gpu", "k", 10, NAN, NULL);
	ev(&f, T0 + 2 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 2.00 GiB");
	ev(&f, T0 + 2 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 2.00 GiB");
	set_last(&f, "dup_of = 2");
	ev(&f, T0 + 3 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 1.00 GiB");
	ev(&f, T0 + 3 * MIN_US, 5, "gpu", NULL, NAN, NAN, "CUDA out of memory 1.00 GiB");
	set_last(&f, "dup_of = 4");
	ev(&f, T0 + 1 * MIN_US, 3, "gpu", "k", 1000, NAN, NULL);
	set_last(&f, "dup_of = 1");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	assert_int_equal(gl_summary_result(&r)->events, 3);
	assert_int_equal(gl_summary_result(&r)->duplicates, 3);
	assert_int_equal(gl_errors_result(&r)->errors, 2);
	assert_int_equal(gl_errors_result(&r)->mirrored, 2);
	assert_int_equal(gl_errors_result(&r)->n_by_component, 1);
	assert_int_equal(gl_errors_result(&r)->by_component[0].count, 2);
	assert_int_equal(gl_errors_result(&r)->n_top_messages, 1);
	assert_int_equal(gl_errors_result(&r)->top_messages[0].count, 2);
	/* the mirrored kernel line (1000 us) is not a timing */
	assert_int_equal(kernel(&r, "k")->count, 1);
	near(kernel(&r, "k")->max_us, 10, 0);
	/* 2 errors over the data's span of 2 minutes: 60 per hour */
	near(gl_errors_result(&r)->per_hour, 60, 1e-12);
	near(gl_errors_result(&r)->per_1000_events, 2000.0 / 3, 1e-12);
	gl_report_release(&r);
	fx_close(&f);
}

static void same_double(double a, double b)
{
	if (memcmp(&a, &b, sizeof(a)) != 0)
		fail_msg("%.17g and %.17g differ", a, b);
}

static void build_with_cache(struct fx *f, size_t cache_max, const char *const *comps,
			     size_t ncomps, struct gl_report *r)
{
	struct gl_report_config cfg;
	struct gl_query *q;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 3,
				     .components = comps, .ncomponents = ncomps,
				     .kernel_cache_max = cache_max};

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(f->path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, r, &err), GL_OK);
	gl_query_close(q);
	gl_config_release(&cfg);
}

/*
 * The kernel pass replayed from the event pass (kernel_cache.h) and read
 * from the database (a cache bound of 1 timing drops it at the second; the
 * pass then reads each kernel alone, or groups of kernels under bounds of
 * 300 and 700) give the same kernels and anomalies, bit for bit: 5 kernels interleaved
 * at random, spikes, flagged rows, mirrored rows, rows outside the window,
 * a component filter, fewer listed kernels (top 3) than kernels.
 */
static void test_kernel_pass_cached_equals_db(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report a, b;
	const char *comps[] = {"c[12]"};
	uint64_t s = 777;

	fx_open(&f);
	for (int i = 0; i < 4000; i++) {
		char kname[8], cname[8];

		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(kname, sizeof(kname), "k%d", (int)((s >> 33) % 5));
		snprintf(cname, sizeof(cname), "c%d", (int)((s >> 40) % 3));
		double d = 100 + (double)((s >> 20) % 1000) / 10 + ((s >> 50) % 97 == 0 ? 900 : 0);
		ev(&f, T0 - 5 * MIN_US + i * 30 * 1000000LL, 3, cname, kname, d, NAN, NULL);
		if ((s >> 45) % 11 == 0)
			set_last(&f, "anomaly = 1");
		if (i % 101 == 50) {
			ev(&f, T0 - 5 * MIN_US + i * 30 * 1000000LL, 3, cname, kname, 5000, NAN, NULL);
			set_last(&f, "dup_of = 1");
		}
	}
	sqlite3_exec(f.db, "COMMIT", NULL, NULL, NULL);
	/* bounds: 1 (each kernel read alone), 300 and 700 (groups of kernels) */
	static const size_t bounds[] = {1, 300, 700};
	for (int run = 0; run < 6; run++) {
		int filt = run % 2;

		build_with_cache(&f, 0, comps, (size_t)filt, &a);
		build_with_cache(&f, bounds[run / 2], comps, (size_t)filt, &b);
		assert_int_equal(gl_kernels_result(&a)->n_kernels, 3);
		assert_int_equal(gl_kernels_result(&a)->n_kernels, gl_kernels_result(&b)->n_kernels);
		assert_true(gl_anomalies_result(&a)->total > 0);
		for (size_t i = 0; i < gl_kernels_result(&a)->n_kernels; i++) {
			const struct gl_report_kernel *x = &gl_kernels_result(&a)->kernels[i], *y = &gl_kernels_result(&b)->kernels[i];

			assert_string_equal(x->kernel, y->kernel);
			assert_int_equal(x->count, y->count);
			assert_int_equal(gl_anomalies_of_kernel(&a, x->kernel_id),
					 gl_anomalies_of_kernel(&b, y->kernel_id));
			assert_int_equal(x->flagged, y->flagged);
			same_double(x->min_us, y->min_us);
			same_double(x->max_us, y->max_us);
			same_double(x->mean_us, y->mean_us);
			same_double(x->stddev_us, y->stddev_us);
			same_double(x->p50_us, y->p50_us);
			same_double(x->p90_us, y->p90_us);
			same_double(x->p95_us, y->p95_us);
			same_double(x->p99_us, y->p99_us);
			same_double(x->total_us, y->total_us);
		}
		assert_int_equal(gl_anomalies_result(&a)->total, gl_anomalies_result(&b)->total);
		assert_int_equal(gl_anomalies_result(&a)->judged, gl_anomalies_result(&b)->judged);
		assert_int_equal(gl_anomalies_result(&a)->n_items, gl_anomalies_result(&b)->n_items);
		for (size_t i = 0; i < gl_anomalies_result(&a)->n_items; i++) {
			const struct gl_report_anomaly *x = &gl_anomalies_result(&a)->items[i],
						       *y = &gl_anomalies_result(&b)->items[i];

			assert_true(x->ts_us == y->ts_us);
			assert_string_equal(x->kernel ? x->kernel : "-", y->kernel ? y->kernel : "-");
			same_double(x->value_us, y->value_us);
			same_double(x->mean_us, y->mean_us);
			same_double(x->stddev_us, y->stddev_us);
			same_double(x->z, y->z);
		}
		gl_report_release(&a);
		gl_report_release(&b);
	}
	fx_close(&f);
}

/*
 * error_count and recovery_attempts are running totals: the increase per
 * source (a component on a host in one log stream), a drop is a restart whose
 * value counts in full.
 */
static void test_counters_with_restart(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	/*
	 * One process counter per component and host, its files one series:
	 * gpu.log (stream 1) at 0..5 min and the process's error.log (stream 2)
	 * at 150 s and 170 s. Time order, by hand:
	 *   error_count 5 6 6 [7 8] 9 0 2: a 0 tells nothing (the service's kernel
	 *   records carry 0); 9 -> 2 a restart. Nothing is stored before the
	 *   window, so the series counts from zero: 5 + 1 + 0 + 1 + 1 + 1 + 2 = 11.
	 *   recovery_attempts 100 100 101 101 1 1: 100 + 1 + 1 = 102.
	 * perf (its own process): 40 41 -> 41; 7 8 -> 8.
	 * Read per file, the error.log's 7 -> 8 would be counted a second time.
	 */
	const int gpu_err[] = {5, 6, 6, 9, 0, 2};
	const int gpu_rec[] = {100, 100, 101, 101, 1, 1};
	char set[128];

	fx_open(&f);
	for (int i = 0; i < 6; i++) {
		ev(&f, T0 + i * MIN_US, 3, "gpu", "k", 10 + i, NAN, NULL);
		snprintf(set, sizeof(set), "error_count = %d, recovery_attempts = %d", gpu_err[i],
			 gpu_rec[i]);
		set_last(&f, set);
	}
	ev(&f, T0 + 30 * 1000000LL, 3, "perf", NULL, NAN, NAN, NULL);
	set_last(&f, "error_count = 40, recovery_attempts = 7");
	ev(&f, T0 + 90 * 1000000LL, 3, "perf", NULL, NAN, NAN, NULL);
	set_last(&f, "error_count = 41, recovery_attempts = 8");
	/* NULL counters are not zeros: no restart */
	ev(&f, T0 + 100 * 1000000LL, 3, "gpu", NULL, NAN, NAN, NULL);
	assert_int_equal(sqlite3_exec(f.db, "INSERT INTO streams(id, first_path, bytes, lines, hash,"
					    " head_bytes, head_hash) VALUES (2, 'e', 0, 0, 0, 0, 0)",
				      NULL, NULL, NULL), SQLITE_OK);
	ev(&f, T0 + 150 * 1000000LL, 4, "gpu", NULL, NAN, NAN, "ecc");
	set_last(&f, "error_count = 7, stream_id = 2");
	ev(&f, T0 + 170 * 1000000LL, 4, "gpu", NULL, NAN, NAN, "ecc");
	set_last(&f, "error_count = 8, stream_id = 2");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	assert_int_equal(gl_errors_result(&r)->error_count, 11 + 41);
	assert_int_equal(gl_errors_result(&r)->error_count_max, 41);
	assert_int_equal(gl_errors_result(&r)->recovery_attempts, 102 + 8);
	assert_int_equal(gl_errors_result(&r)->recovery_attempts_max, 101);
	assert_int_equal(gl_errors_result(&r)->counter_sources, 2);
	assert_int_equal(gl_errors_result(&r)->counter_restarts, 2);	/* 9 -> 2 and 101 -> 1 */
	gl_report_release(&r);
	/* a window from 30 s on: data before it, so each first value is a base */
	fx_report(&f, T0 + 30 * 1000000LL, T0 + GL_US_PER_DAY, NULL, &r);
	/* gpu 6 6 7 8 9 2: 3 + 2 = 5; perf 40 41: 1 */
	assert_int_equal(gl_errors_result(&r)->error_count, 5 + 1);
	gl_report_release(&r);
	fx_close(&f);
}

/* Metadata keys spelled with escapes are the same keys; metadata without them names nothing. */
static void test_operations_escaped_keys(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* "operation" and "throughput" with \u escapes (in JSON the same keys) */
	ev(&f, T0 + 1 * MIN_US, 3, "performance", NULL, NAN, NAN, "step done");
	set_last(&f, "exec_ms = 7, metadata = '{\"\\u006fperation\": \"esc_op\","
		     " \"thr\\u006fughput\": 5}'");
	/* the keys only inside a nested object or a value: not the record's */
	ev(&f, T0 + 2 * MIN_US, 3, "server", NULL, NAN, NAN, "GET / 200");
	set_last(&f, "exec_ms = 1.5, metadata = '{\"x\": {\"operation\": \"inner\"},"
		     " \"note\": \"throughput\"}'");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);

	assert_int_equal(gl_operations_result(&r)->n_operations, 2);
	assert_string_equal(gl_operations_result(&r)->operations[0].operation, "esc_op");
	near(gl_operations_result(&r)->operations[0].total_ms, 7, 0);
	near(gl_operations_result(&r)->operations[0].mean_throughput, 5, 0);
	assert_string_equal(gl_operations_result(&r)->operations[1].operation, "server");
	near(gl_operations_result(&r)->operations[1].total_ms, 1.5, 0);
	assert_true(isnan(gl_operations_result(&r)->operations[1].mean_throughput));
	gl_report_release(&r);
	fx_close(&f);
}

/* Operations from a JSON line (metadata.operation), a text line (message) and the component. */
static void test_operations(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* JSON: metadata.operation, execution_time_ms, throughput */
	ev(&f, T0 + 1 * MIN_US, 3, "performance", NULL, NAN, NAN,
	   "Operation layout_step completed in 2.38ms");
	set_last(&f, "exec_ms = 2.38, metadata = '{\"operation\": \"layout_step\","
		     " \"duration_ms\": 2.38, \"throughput\": 400}'");
	ev(&f, T0 + 2 * MIN_US, 3, "performance", NULL, NAN, NAN,
	   "Operation layout_step completed in 3.62ms");
	set_last(&f, "exec_ms = 3.62, metadata = '{\"operation\": \"layout_step\","
		     " \"throughput\": 300}'");
	/* pylog / envlog: only the message; seconds and microseconds */
	ev(&f, T0 + 3 * MIN_US, 3, "performance", NULL, NAN, NAN,
	   "Operation layout_step completed in 0.004 s");
	ev(&f, T0 + 4 * MIN_US, 3, "performance", NULL, NAN, NAN,
	   "Operation solve completed in 1500us");
	/* a server request: execution time, no name -> the component */
	ev(&f, T0 + 5 * MIN_US, 3, "server", NULL, NAN, NAN, "GET /api/v1/analyze 200 9.8 ms");
	set_last(&f, "exec_ms = 9.8, metadata = '{\"route\": \"/api/v1/analyze\"}'");
	/* a kernel line with an execution time is not an operation */
	ev(&f, T0 + 6 * MIN_US, 3, "gpu", "k", 580, NAN, "Kernel k executed in 580us");
	set_last(&f, "exec_ms = 0.58");
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);

	assert_int_equal(gl_operations_result(&r)->n_operations, 3);
	/* by total: server 9.8, layout_step 2.38 + 3.62 + 4 = 10, solve 1.5 */
	assert_string_equal(gl_operations_result(&r)->operations[0].operation, "layout_step");
	assert_string_equal(gl_operations_result(&r)->operations[0].component, "performance");
	assert_int_equal(gl_operations_result(&r)->operations[0].count, 3);
	near(gl_operations_result(&r)->operations[0].total_ms, 10, 1e-12);
	near(gl_operations_result(&r)->operations[0].mean_ms, 10.0 / 3, 1e-12);
	near(gl_operations_result(&r)->operations[0].min_ms, 2.38, 1e-12);
	near(gl_operations_result(&r)->operations[0].max_ms, 4, 1e-12);
	near(gl_operations_result(&r)->operations[0].p50_ms, 3.62, 1e-12);
	/* sorted 2.38 3.62 4: p95 h = 1.9 -> 3.62 + 0.9 * 0.38 */
	near(gl_operations_result(&r)->operations[0].p95_ms, 3.62 + 0.9 * 0.38, 1e-12);
	/* sd of 2.38 3.62 4: mean 3.3333, squares 0.9093 0.0821 0.4444 -> sqrt(1.43573/2) */
	near(gl_operations_result(&r)->operations[0].stddev_ms,
	     sqrt((pow(2.38 - 10.0 / 3, 2) + pow(3.62 - 10.0 / 3, 2) + pow(4 - 10.0 / 3, 2)) / 2),
	     1e-12);
	near(gl_operations_result(&r)->operations[0].mean_throughput, 350, 0);
	assert_string_equal(gl_operations_result(&r)->operations[1].operation, "server");
	near(gl_operations_result(&r)->operations[1].total_ms, 9.8, 0);
	assert_true(isnan(gl_operations_result(&r)->operations[1].mean_throughput));
	assert_string_equal(gl_operations_result(&r)->operations[2].operation, "solve");
	near(gl_operations_result(&r)->operations[2].total_ms, 1.5, 1e-12);
	/* one trend per operation; layout_step 2.38 -> 4 over 2 minutes is on no line */
	const struct gl_report_trend *t = trend(&r, GL_TREND_OPERATION, "layout_step");
	assert_int_equal(t->n, 3);
	near(t->span_s, 120, 0);
	assert_string_equal(t->unit, "ms");
	gl_report_release(&r);
	fx_close(&f);
}

/*
 * A component whose records are all ERROR+ (a service's error.log under its
 * own name) gets no per-component rate alert; its errors count overall.
 */
static void test_error_sink(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	struct gl_report_config cfg;
	struct gl_err err;

	fx_open(&f);
	for (int i = 0; i < 60; i++)
		ev(&f, T0 + i * MIN_US, 5, "errsink", NULL, NAN, NAN, "failure");
	for (int i = 0; i < 60; i++)
		ev(&f, T0 + i * MIN_US + 1, i < 30 ? 5 : 3, "worker", NULL, NAN, NAN,
		   i < 30 ? "failure" : NULL);
	assert_int_equal(gl_config_parse("{\"errors\": {\"min_events_for_rate\": 10},"
					 " \"alerts\": [{\"rule\": \"error_rate_per_1000\","
					 " \"warning\": 100}]}", "t", &cfg, &err), GL_OK);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, &cfg, &r);
	assert_int_equal(gl_errors_result(&r)->errors, 90);
	assert_int_equal(gl_errors_result(&r)->sink_components, 1);
	/* worker: 30 of 60 -> 500 per 1,000: one alert, on worker only */
	assert_int_equal(gl_alerts_result(&r)->n_alerts, 1);
	assert_string_equal(gl_alerts_result(&r)->alerts[0].subject, "worker");
	near(gl_alerts_result(&r)->alerts[0].value, 500, 0);
	gl_report_release(&r);
	gl_config_release(&cfg);
	fx_close(&f);
}

/* A 5-minute run in a one-day window: the trend over the run, the rate per hour of the run. */
static void test_short_run_in_long_window(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;

	fx_open(&f);
	/* a stable kernel with noise +-1 around 100 us, every 10 s from 10:00 to 10:05 */
	for (int i = 0; i <= 30; i++)
		ev(&f, T0 + 10 * 3600 * 1000000LL + i * 10 * 1000000LL, i % 10 == 0 ? 5 : 3, "svc",
		   "stable", 100 + (i % 2 ? 1 : -1), NAN, i % 10 == 0 ? "boom" : NULL);
	fx_report(&f, T0, T0 + GL_US_PER_DAY, NULL, &r);
	const struct gl_report_trend *t = trend(&r, GL_TREND_KERNEL, "stable");
	near(t->span_s, 300, 0);
	/* fit over the run: |change| stays tiny (the old extrapolation gave hundreds of %) */
	assert_true(fabs(t->change_pct) < 2);
	assert_int_equal(t->verdict, GL_VERDICT_STABLE);
	/* 4 errors (i = 0, 10, 20, 30) in 300 s: 48 per hour */
	assert_int_equal(gl_errors_result(&r)->errors, 4);
	near(gl_errors_result(&r)->per_hour, 48, 1e-12);
	near((double)(r.window.data_last_ts_us - r.window.data_first_ts_us), 300e6, 0);
	gl_report_release(&r);
	fx_close(&f);
}

/*
 * The same 5-minute run with the chart series: the time axis is the data's
 * span (10:00:00 .. 10:05:00) with a margin of 300 s / 50 = 6 s, not the
 * day, and the error buckets are minutes. By hand: bucket 0 starts at
 * 09:59:00 (09:59:54 down to the minute); the axis ends at 10:05:06:
 * ceil(366 / 60) = 7 buckets; the errors at 10:00:00, 10:01:40, 10:03:20 and
 * 10:05:00 fall in buckets 1, 2, 4 and 6.
 */
static void test_short_run_chart_axis(void **state)
{
	(void)state;
	struct fx f;
	struct gl_report r;
	struct gl_query *q = NULL;
	struct gl_report_config cfg;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20,
				     .charts = true};
	int64_t ten = T0 + 10 * 3600 * 1000000LL, sec = 1000000;
	static const uint64_t want[7] = {0, 1, 1, 0, 1, 0, 1};

	fx_open(&f);
	for (int i = 0; i <= 30; i++)
		ev(&f, ten + i * 10 * sec, i % 10 == 0 ? 5 : 3, "svc", "stable",
		   100 + (i % 2 ? 1 : -1), NAN, i % 10 == 0 ? "boom" : NULL);
	sqlite3_exec(f.db, "COMMIT", NULL, NULL, NULL);
	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(f.path, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &r, &err), GL_OK);
	assert_true(r.axis.t0_us == ten - 6 * sec);
	assert_true(r.axis.t1_us == ten + 306 * sec);
	const struct gl_kernels_chart *kc = gl_kernels_chart(&r);
	const struct gl_errors_chart *ec = gl_errors_chart(&r);

	assert_non_null(kc);
	assert_non_null(ec);
	assert_true(kc->n_top == 1);
	assert_true(kc->top_cols[0]->t0_us == r.axis.t0_us &&
		    kc->top_cols[0]->t1_us == r.axis.t1_us);
	assert_int_equal(kc->top_cols[0]->n, 31);
	assert_int_equal(ec->bucket_us, 60 * sec);
	assert_true(ec->bucket0_us == ten - 60 * sec);
	assert_int_equal(ec->n_buckets, 7);
	assert_int_equal(ec->n_groups, 1);
	for (size_t b = 0; b < 7; b++)
		assert_int_equal(ec->count[b], want[b]);
	/* the window is still the day */
	assert_true(r.window.since_us == T0 && r.window.until_us == T0 + GL_US_PER_DAY);
	gl_report_release(&r);
	gl_query_close(q);
	gl_config_release(&cfg);
	fx_close(&f);
}

static void test_message_shape_units(void **state)
{
	(void)state;
	char out[256];
	/* real lines of the GPU analytics service and of nvidia-smi / inference logs */
	static const char *const cases[][2] = {
		{"performance anomaly in reduce_sum_64M: 109.6us",
		 "performance anomaly in reduce_sum_64M: <dur>"},
		{"Kernel spring_kernel executed in 462.72\xCE\xBCs",
		 "Kernel spring_kernel executed in <dur>"},
		{"Kernel spring_kernel executed in 93.80\xC2\xB5s",
		 "Kernel spring_kernel executed in <dur>"},
		{"Operation layout_step completed in 2.38ms",
		 "Operation layout_step completed in <dur>"},
		{"job finished after 1h2m3s", "job finished after <dur>"},
		{"retry in 2m30s (attempt 3)", "retry in <dur> (attempt <num>)"},
		{"GPU utilization 45 % at 70.77 W, 1410 MHz",
		 "GPU utilization <num> at <num>, <num>"},
		{"temperature 71C", "temperature <num>"},
		{"allocated 1.5GiB", "allocated <size>"},
		{"Avg generation throughput: 1024 tokens/s", "Avg generation throughput: <num>"},
		{"speedup 2.5x over baseline", "speedup <num> over baseline"},
		{"timeout after 30 s", "timeout after <dur>"},
		/* words that start with digits stay words */
		{"3rd pass on 2d grid", "3rd pass on 2d grid"},
		{"reduce_sum_64M done", "reduce_sum_64M done"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gl_message_shape(cases[i][0], strlen(cases[i][0]), out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
}

/*
 * gl_section_phrases finds each phrase where strstr does: messages built at
 * random from pieces of the phrases, whole phrases and bytes around them
 * (a phrase cut short, one inside another, one right after a piece of
 * itself, at the start and at the end), each checked against strstr; and
 * the phrases of one event are kept until the next (phrases_known).
 */
static void test_phrases(void **state)
{
	(void)state;
	static const char *const phrase[] = {
		"out of memory", "OutOfMemory", "OutOfMemoryError", "Xid",
		"Traceback (most recent call last)", "Watchdog caught collective operation timeout",
	};
	static const unsigned bit[] = {GL_PHRASE_OOM_TEXT, GL_PHRASE_OOM_CAMEL, GL_PHRASE_OOM_ERROR,
				       GL_PHRASE_XID, GL_PHRASE_TRACEBACK, GL_PHRASE_WATCHDOG};
	static const char *const piece[] = {
		"out of memor", "out of memory", "OutOfMem", "OutOfMemory", "OutOfMemoryErr",
		"OutOfMemoryError", "X", "Xi", "Xid", "XXid", "Traceback (most recent call",
		"Traceback (most recent call last)", "Watchdog caught", "Watchdog caught collective "
		"operation timeout", "o", "O", "T", "W", " ", "CUDA error: ", "ooo", "OOut",
	};
	struct gl_section_ctx cx;
	struct gl_query_event ev;
	char msg[512];
	uint64_t s = 4242;
	size_t found[6] = {0};

	memset(&ev, 0, sizeof(ev));
	for (int n = 0; n < 20000; n++) {
		size_t len = 0;
		int k = (int)(n % 6);

		msg[0] = '\0';
		for (int j = 0; j < k; j++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			const char *p = piece[(s >> 33) % (sizeof(piece) / sizeof(piece[0]))];

			memcpy(msg + len, p, strlen(p) + 1);
			len += strlen(p);
		}
		unsigned want = 0;

		for (size_t i = 0; i < 6; i++)
			if (strstr(msg, phrase[i])) {
				want |= bit[i];
				found[i]++;
			}
		memset(&cx, 0, sizeof(cx));
		ev.message = msg;
		assert_int_equal(gl_section_phrases(&cx, &ev), want);
		ev.message = "Xid 79";	/* the same event: kept */
		assert_int_equal(gl_section_phrases(&cx, &ev), want);
	}
	for (size_t i = 0; i < 6; i++)	/* each phrase was met, and missed */
		assert_true(found[i] > 100 && found[i] < 20000);
	memset(&cx, 0, sizeof(cx));
	ev.message = NULL;
	assert_int_equal(gl_section_phrases(&cx, &ev), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_fixture_and_boundaries),
		cmocka_unit_test(test_phrases),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random_against_independent),
		cmocka_unit_test(test_baseline_and_alerts),
		cmocka_unit_test(test_alert_minimum_and_units),
		cmocka_unit_test(test_rmm_replay),
		cmocka_unit_test(test_rmm_real_sample),
		cmocka_unit_test(test_anomalies_in_report),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_message_shape),
		cmocka_unit_test(test_error_shapes_by_level),
		cmocka_unit_test(test_launch_copies_once),
		cmocka_unit_test(test_message_shape_units),
		cmocka_unit_test(test_message_shape_every_unit),
		cmocka_unit_test(test_mirrored_records_once),
		cmocka_unit_test(test_kernel_pass_cached_equals_db),
		cmocka_unit_test(test_counters_with_restart),
		cmocka_unit_test(test_operations),
		cmocka_unit_test(test_operations_escaped_keys),
		cmocka_unit_test(test_error_sink),
		cmocka_unit_test(test_short_run_in_long_window),
		cmocka_unit_test(test_short_run_chart_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
