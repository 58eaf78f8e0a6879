/*
 * test_sec_findings.c - reports/sec_findings.c (and findings_evidence.c, which it calls) on a
 * small database made by hand, its result read through its getter (sec_findings.h).
 *
 * 240 s of data, one kernel launch and one sample of each series a second, so that each of
 * the section's 240 buckets holds one second (the data span from T0 to T0 + 240 s - 1 us).
 * Kernel k_slow (its full name a C++ one, "void ns::k_slow<float, 128>(float const*, int)": the
 * finding names it as the kernels' table does, ns::k_slow<float, 128>, and keeps the full
 * name beside it) takes 100 us, 300 us from 100 s to 140 s; k_flat 50 us throughout. GPU 1
 * (uuid GPU-aaa) draws 400 W, 650 W in that interval; GPU 0 300 W throughout. Optional
 * causes on GPU 1 in the interval: its clocks event reasons 0x60 (SW and HW thermal
 * slowdown), its ECC counter 0 -> 2 from 100 s on, a process compute-apps lists only then
 * (burn, pid 777, by the uuid), a pmon process there all along that goes from 5% to 60%.
 * Expected values by hand: the interval [100 s, 140 s), the medians 100 and 300 us (+200%),
 * the evidence over those 40 buckets against the 8 before them (the change's length capped
 * at 8): power 400 -> 650 W (+62.5%), and the causes as made.
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
#include "../../reports/findings_state.h"
#include "../../reports/sec_findings.h"
#include "../../reports/section.h"
#include "../../reports/sections.h"
#include "store/query.h"
#include "store/sblock_db.h"
#include "util/timeutil.h"

#define T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */
#define S_US 1000000LL

enum { C_THROTTLE = 1, C_ECC = 2, C_APP = 4, C_PMON = 8 };

#define K_SLOW "void ns::k_slow<float, 128>(float const*, int)"

static void near(double a, double b)
{
	if (!(fabs(a - b) <= 1e-9 * (1 + fabs(b))))
		fail_msg("%.17g != %.17g", a, b);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static void kernel(sqlite3 *db, int64_t ts, double dur_us, const char *name)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO events(ts_us, level, kernel_id, dur_us, source, stream_id, line, kind)"
		 " VALUES (%lld, 1, (SELECT id FROM names WHERE name = '%s'), %.17g, 'gpufl', 1, 1, 1);",
		 (long long)ts, name, dur_us);
	exec(db, sql);
}

static int in_window(int s)
{
	return s >= 100 && s < 140;
}

/* The database of the header, with the causes in `causes`; its path in path. */
static void make_db(char *path, int causes)
{
	int fd = mkstemp(path);
	sqlite3 *db;
	struct gl_sbw *w;
	struct gl_err err;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, gl_schema_sql);
	exec(db, "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
		 "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		 " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		 "INSERT INTO names(name) VALUES ('void ns::k_slow<float, 128>(float const*, int)'), ('k_flat'), ('gpu.power_w'),"
		 " ('nvidia_smi.clocks_event_reasons.active'), ('gpu.ecc_errors'),"
		 " ('compute_apps.memory_used_mib'), ('pmon.utilization_pct');"
		 "INSERT OR IGNORE INTO event_kinds(kind) VALUES (1);"
		 "INSERT INTO series(id, metric_id, device, source, labels) VALUES"
		 " (1, (SELECT id FROM names WHERE name = 'gpu.power_w'), '0', 'nvsmi',"
		 "  '{\"uuid\":\"GPU-zzz\"}'),"
		 " (2, (SELECT id FROM names WHERE name = 'gpu.power_w'), '1', 'nvsmi',"
		 "  '{\"uuid\":\"GPU-aaa\"}'),"
		 " (3, (SELECT id FROM names WHERE name = 'nvidia_smi.clocks_event_reasons.active'),"
		 "  '1', 'nvsmi', '{\"uuid\":\"GPU-aaa\"}'),"
		 " (4, (SELECT id FROM names WHERE name = 'gpu.ecc_errors'), '1', 'nvsmi',"
		 "  '{\"uuid\":\"GPU-aaa\"}'),"
		 " (5, (SELECT id FROM names WHERE name = 'compute_apps.memory_used_mib'), 'GPU-aaa',"
		 "  'nvsmi', '{\"uuid\":\"GPU-aaa\",\"pid\":\"777\",\"command\":\"burn\"}'),"
		 " (6, (SELECT id FROM names WHERE name = 'pmon.utilization_pct'), '1', 'pmon',"
		 "  '{\"pid\":\"555\",\"type\":\"C\",\"command\":\"helper\"}');"
		 "BEGIN");
	for (int s = 0; s < 240; s++) {
		kernel(db, T0 + s * S_US + S_US / 2, in_window(s) ? 300 : 100, K_SLOW);
		kernel(db, T0 + s * S_US + S_US / 2 + 10, 50, "k_flat");
	}
	/* the data's last time: T0 + 240 s - 1 us, so a bucket is one second */
	kernel(db, T0 + 240 * S_US - 1, 50, "k_flat");
	w = gl_sbw_open(db, path, &err);
	assert_non_null(w);
	for (int s = 0; s < 240; s++) {
		int64_t ts = T0 + s * S_US;

		assert_int_equal(gl_sbw_add(w, 1, 1, 0, 0, 0, ts, 300, 1, &err), GL_OK);
		assert_int_equal(gl_sbw_add(w, 2, 1, 0, 0, 0, ts, in_window(s) ? 650 : 400, 1, &err),
				 GL_OK);
		if (causes & C_THROTTLE)
			assert_int_equal(gl_sbw_add(w, 3, 1, 0, 0, 0, ts, in_window(s) ? 0x60 : 0, 1,
						    &err), GL_OK);
		if (causes & C_ECC)
			assert_int_equal(gl_sbw_add(w, 4, 1, 0, 0, 0, ts, s >= 100 ? 2 : 0, 1, &err),
					 GL_OK);
		if ((causes & C_APP) && in_window(s))
			assert_int_equal(gl_sbw_add(w, 5, 1, 0, 0, 0, ts, 20000, 1, &err), GL_OK);
		if (causes & C_PMON)
			assert_int_equal(gl_sbw_add(w, 6, 1, 0, 0, 0, ts, in_window(s) ? 60 : 5, 1,
						    &err), GL_OK);
	}
	assert_int_equal(gl_sbw_flush(w, &err), GL_OK);
	gl_sbw_close(w);
	exec(db, "COMMIT");
	sqlite3_close(db);
}

static const struct gl_finding_evidence *ev(const struct gl_finding *fd, const char *m)
{
	for (size_t i = 0; i < fd->n_evidence; i++)
		if (!strcmp(fd->evidence[i].metric, m))
			return &fd->evidence[i];
	return NULL;
}

struct built {
	struct gl_report_config cfg;
	struct gl_report rep;
	struct gl_query *q;
	char path[64];
};

static const struct gl_findings_result *build(struct built *b, int causes)
{
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20};

	snprintf(b->path, sizeof(b->path), "/tmp/test_sec_findings.XXXXXX");
	make_db(b->path, causes);
	b->q = NULL;
	assert_int_equal(gl_config_defaults(&b->cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(b->path, &b->q, &err), GL_OK);
	assert_int_equal(gl_report_build(b->q, &p, &b->cfg, &b->rep, &err), GL_OK);
	return gl_findings_result(&b->rep);
}

static void unbuild(struct built *b)
{
	gl_report_release(&b->rep);
	gl_query_close(b->q);
	gl_config_release(&b->cfg);
	unlink(b->path);
}

/* The finding itself, and every cause as evidence of GPU 1 */
static void test_window_and_evidence(void **state)
{
	struct built b;
	const struct gl_findings_result *r = build(&b, C_THROTTLE | C_ECC | C_APP | C_PMON);
	const struct gl_finding *fd;
	const struct gl_finding_evidence *e;

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->tested, 2);
	assert_int_equal(r->n, 1);
	fd = &r->items[0];
	assert_string_equal(fd->series, "ns::k_slow<float, 128>");
	assert_string_equal(fd->kernel, K_SLOW);
	assert_string_equal(fd->source, "kernel");
	assert_string_equal(fd->kind, "window");
	assert_true(fd->start_us == T0 + 100 * S_US);
	assert_true(fd->end_us == T0 + 140 * S_US);
	near(fd->before, 100);
	near(fd->during, 300);
	near(fd->change_pct, 200);
	assert_true(fd->p_value < 1e-6);
	assert_int_equal(fd->worse, 1);
	/* |ln 3| x 40 s */
	near(fd->score, log(3) * 40);
	assert_string_equal(fd->device, "1");
	assert_string_equal(fd->attributed_by, "telemetry");
	assert_string_equal(fd->confidence, "high");
	assert_int_equal(fd->unchanged, 1);

	e = ev(fd, "gpu.power_w");
	assert_non_null(e);
	assert_string_equal(e->device, "1");
	near(e->before, 400);
	near(e->during, 650);
	near(e->change_pct, 62.5);
	assert_int_equal(e->implicated, 1);
	/* GPU 0 stayed at 300 W: no evidence of it */
	for (size_t i = 0; i < fd->n_evidence; i++)
		assert_string_not_equal(fd->evidence[i].device, "0");

	e = ev(fd, "throttle");
	assert_non_null(e);
	assert_string_equal(e->device, "1");
	assert_string_equal(e->detail, "sw_thermal_slowdown, hw_thermal_slowdown");
	near(e->before, 0);
	near(e->during, 1);
	assert_int_equal(e->event, 1);

	e = ev(fd, "ecc");
	assert_non_null(e);
	assert_string_equal(e->device, "1");
	assert_string_equal(e->detail, "gpu.ecc_errors");
	near(e->before, 0);
	near(e->during, 2);

	/* compute-apps names GPU-aaa, GPU 1's uuid */
	e = ev(fd, "process");
	assert_non_null(e);
	assert_string_equal(e->device, "1");
	assert_string_equal(e->detail, "burn pid 777");
	near(e->before, 0);
	near(e->during, 1);

	e = ev(fd, "process_busier");
	assert_non_null(e);
	assert_string_equal(e->device, "1");
	assert_string_equal(e->detail, "helper pid 555");
	near(e->before, 5);
	near(e->during, 60);
	near(e->change_pct, 1100);

	/* a new process comes first among the causes */
	assert_non_null(strstr(fd->sentence, "ns::k_slow<float, 128> ran 3.0\xC3\x97 slower (100 \xC2\xB5s \xE2\x86\x92 "
					     "300 \xC2\xB5s) from 00:01:40 to 00:02:20 on GPU 1"));
	assert_non_null(strstr(fd->sentence, "a new process on the GPU (burn pid 777)"));
	assert_non_null(strstr(fd->sentence, "the other kernel did not change."));
	unbuild(&b);
}

/* One cause at a time: the sentence names it */
static void test_causes_in_the_sentence(void **state)
{
	static const struct {
		int causes;
		const char *says;
	} c[] = {
		{C_THROTTLE, "the GPU's clocks were held back (sw_thermal_slowdown, hw_thermal_slowdown)"},
		{C_ECC, "the GPU reported ECC errors (0 \xE2\x86\x92 2)"},
		{C_PMON, "a process on the GPU got busier (helper pid 555, 5% \xE2\x86\x92 60% of the SMs)"},
		{0, "another load on the GPU"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct built b;
		const struct gl_findings_result *r = build(&b, c[i].causes);

		assert_int_equal(r->n, 1);
		if (!strstr(r->items[0].sentence, c[i].says))
			fail_msg("%s: not in '%s'", c[i].says, r->items[0].sentence);
		assert_string_equal(r->items[0].device, "1");
		/* only the cause made: no throttle, ECC or process evidence otherwise */
		assert_true(!ev(&r->items[0], "throttle") == !(c[i].causes & C_THROTTLE));
		assert_true(!ev(&r->items[0], "ecc") == !(c[i].causes & C_ECC));
		assert_true(!ev(&r->items[0], "process_busier") == !(c[i].causes & C_PMON));
		assert_null(ev(&r->items[0], "process"));
		unbuild(&b);
	}
}

/*
 * bucket_at (a row's bucket, kept with the times it spans) gives what
 * bucket_of gives, for every time: spans from 1 us to 100 years, each time
 * from before the data to after it at and beside every bucket's first time
 * (bucket_start) in order, then the same times in a shuffled order; and, on
 * spans where the double arithmetic is exact, the integer bucket
 * floor((ts - t0) * 240 / (t1 - t0 + 1)), counted here without bucket_of.
 */
static void test_bucket_at(void **state)
{
	(void)state;
	static const int64_t spans[] = {1, 2, 239, 240, 241, 1000, 86400000000LL,
					7 * 86400000000LL + 12345, 36500LL * 86400000000LL};
	uint64_t s = 99;

	for (size_t k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
		struct findings f;
		int64_t *t = malloc((FB_N * 5 + 10) * sizeof(*t));
		size_t n = 0;

		assert_non_null(t);
		memset(&f, 0, sizeof(f));
		f.t0_us = T0;
		f.t1_us = T0 + spans[k];
		for (int64_t d = -3; d <= 3; d++) {
			t[n++] = f.t0_us + d;
			t[n++] = f.t1_us + d;
		}
		for (size_t b = 1; b < FB_N; b++)
			for (int64_t d = -2; d <= 2; d++)
				t[n++] = bucket_start(&f, b) + d;
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 0) {
				for (size_t i = 1; i < n; i++)	/* in order */
					for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
						int64_t x = t[j];

						t[j] = t[j - 1];
						t[j - 1] = x;
					}
			} else {
				for (size_t i = n - 1; i > 0; i--) {
					s = s * 6364136223846793005ULL + 1442695040888963407ULL;
					size_t j = (size_t)((s >> 33) % (i + 1));
					int64_t x = t[i];

					t[i] = t[j];
					t[j] = x;
				}
			}
			for (size_t i = 0; i < n; i++) {
				size_t want = bucket_of(&f, t[i]);

				if (bucket_at(&f, t[i]) != want)
					fail_msg("span %lld, time t0%+lld: bucket_at %zu, bucket_of %zu",
						 (long long)spans[k], (long long)(t[i] - f.t0_us),
						 bucket_at(&f, t[i]), want);
				if (spans[k] < 1000000000LL) {
					int64_t r = t[i] - f.t0_us;
					size_t ib = r <= 0 ? 0 : t[i] >= f.t1_us ? FB_N - 1
						  : (size_t)(r * FB_N / (spans[k] + 1));

					assert_int_equal(want, ib);
				}
			}
		}
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_and_evidence),
		cmocka_unit_test(test_bucket_at),
		cmocka_unit_test(test_causes_in_the_sentence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
