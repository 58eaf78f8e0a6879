/*
 * test_sec_kernels.c - reports/sec_kernels.c on a small database written by
 * hand (support/sec_db.h), its result read through its getter
 * (sec_kernels.h): per kernel the count, extremes, mean, sample standard
 * deviation, percentiles (linear between order statistics), total, the
 * logs' own anomaly flags and mean memory; kernels by total, largest first;
 * a timing before the window left out; the WARN copy of an INFO launch
 * (same start, same duration) counted once. Expected figures by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_summary.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void test_kernel_rows(void **state)
{
	static const char *const names[] = {"gemm_a", "conv_b", "svc", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	/* gemm_a: 10, 20, 30, 40 us in the window (one flagged by the log; memory 100
	 * and 200 MiB on two of them), 1000 us the second before the window */
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, kernel_id, dur_us, anomaly,"
			" mem_mb, stream_id, line) VALUES"
			" (%lld, 3, 3, 1, 1000, 0, NULL, 1, 1),"
			" (%lld, 3, 3, 1, 10, 0, 100, 1, 2), (%lld, 3, 3, 1, 40, 1, 200, 1, 3),"
			" (%lld, 3, 3, 1, 20, 0, NULL, 1, 4), (%lld, 3, 3, 1, 30, 0, NULL, 1, 5);",
		    (long long)T(-1), (long long)T(1), (long long)T(2), (long long)T(3),
		    (long long)T(4));
	/* conv_b: five timings of 100 us, and the WARN copy of the third */
	for (int i = 0; i < 5; i++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, kernel_id, dur_us,"
				" stream_id, line) VALUES (%lld, 3, 3, 2, 100, 1, %d);",
			    (long long)T(10 + i), 10 + i);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, kernel_id, dur_us, stream_id,"
			" line) VALUES (%lld, 4, 3, 2, 100, 1, 20);", (long long)T(12));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_kernels_result *r = gl_kernels_result(&d.rep);

	assert_non_null(r);
	assert_int_equal(r->n_kernels_total, 2);
	assert_int_equal(r->n_kernels, 2);

	/* conv_b's total (500 us) is larger than gemm_a's (100 us): it comes first */
	const struct gl_report_kernel *b = &r->kernels[0], *a = &r->kernels[1];

	assert_string_equal(b->kernel, "conv_b");
	assert_int_equal(b->count, 5);
	sec_near(b->total_us, 500);
	sec_near(b->mean_us, 100);
	sec_near(b->stddev_us, 0);
	assert_int_equal(b->flagged, 0);
	assert_true(isnan(b->mean_mem_mib));

	assert_string_equal(a->kernel, "gemm_a");
	assert_int_equal(a->count, 4);
	sec_near(a->min_us, 10);
	sec_near(a->max_us, 40);
	sec_near(a->mean_us, 25);
	sec_near(a->stddev_us, sqrt(500.0 / 3));	/* (225 + 25 + 25 + 225) / 3 */
	sec_near(a->p50_us, 25);			/* rank 1.5 of 10, 20, 30, 40 */
	sec_near(a->p90_us, 37);			/* rank 2.7: 30 + 0.7 x 10 */
	sec_near(a->p95_us, 38.5);			/* rank 2.85 */
	sec_near(a->p99_us, 39.7);			/* rank 2.97 */
	sec_near(a->total_us, 100);
	assert_int_equal(a->flagged, 1);
	sec_near(a->mean_mem_mib, 150);

	/* the WARN copy is counted as an event, not as a timing */
	const struct gl_report_summary *s = gl_summary_result(&d.rep);

	assert_int_equal(s->events, 10);
	assert_int_equal(s->launch_copies, 1);
	sec_db_close(&d);
}

static void test_empty_window(void **state)
{
	static const char *const names[] = {"gemm_a", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
			" VALUES (%lld, 3, 1, 10, 1, 1);", (long long)T(-10));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_kernels_result *r = gl_kernels_result(&d.rep);

	assert_non_null(r);
	assert_int_equal(r->n_kernels_total, 0);
	assert_int_equal(r->n_kernels, 0);
	sec_db_close(&d);
}

static void test_single_timing(void **state)
{
	static const char *const names[] = {"only", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
			" VALUES (%lld, 3, 1, 7.5, 1, 1);", (long long)T(5));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_kernel *k = &gl_kernels_result(&d.rep)->kernels[0];

	assert_int_equal(gl_kernels_result(&d.rep)->n_kernels_total, 1);
	assert_int_equal(k->count, 1);
	sec_near(k->p50_us, 7.5);
	sec_near(k->p99_us, 7.5);
	/* the sample standard deviation of one timing is undefined */
	assert_true(isnan(k->stddev_us));
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_rows),
		cmocka_unit_test(test_empty_window),
		cmocka_unit_test(test_single_timing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
