/*
 * test_sec_baseline.c - reports/sec_baseline.c on a small database written
 * by hand (support/sec_db.h), its result read through its getter
 * (sec_baseline.h): the listed kernels compared with the preceding window of
 * the same length (means, p95, Welch's t-test, verdict), the kernels new in
 * this window and those gone from it. Expected figures by hand:
 *   before 10, 12, 14 us (mean 12, variance 4, p95 at rank 1.9: 13.8);
 *   now 20, 22, 24 us (mean 22, p95 23.8): mean +83.3 %, p95 +72.5 %;
 *   Welch: t = 10 / sqrt(4/3 + 4/3) = 6.1237, 4 degrees of freedom; two-sided
 *   p = 1 - t (t² + 6) / (t² + 4)^1.5 = 0.0036022326 (the closed form for 4
 *   degrees of freedom, checked by a numerical integral of the density).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_baseline.h"

#define H(h) (SEC_T0 + (int64_t)(h) * 3600 * SEC_S_US)
#define DAY (86400 * SEC_S_US)

static void timing(struct sec_db *d, int64_t ts, int kernel, double us)
{
	static int line;

	sec_db_exec(d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
		       " VALUES (%lld, 3, %d, %g, 1, %d);", (long long)ts, kernel, us, ++line);
}

static void test_regression_new_and_gone(void **state)
{
	static const char *const names[] = {"slower", "fresh", "gone", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	/* the window is day 1; the preceding one day 0 */
	for (int i = 0; i < 3; i++) {
		timing(&d, H(2 + i), 1, 10 + 2 * i);
		timing(&d, H(24 + 2 + i), 1, 20 + 2 * i);
	}
	timing(&d, H(5), 3, 7);
	timing(&d, H(30), 2, 9);
	sec_db_build(&d, SEC_T0 + DAY, SEC_T0 + 2 * DAY, 20);

	const struct gl_report_baseline *b = gl_baseline_result(&d.rep);

	assert_non_null(b);
	assert_int_equal(b->since_us, SEC_T0);
	assert_int_equal(b->until_us, SEC_T0 + DAY);
	assert_int_equal(b->samples, 4);	/* slower 3, gone 1 */
	assert_int_equal(b->n_kernels, 1);

	const struct gl_report_baseline_kernel *k = &b->kernels[0];

	assert_string_equal(k->kernel, "slower");
	assert_int_equal(k->count_before, 3);
	assert_int_equal(k->count, 3);
	sec_near(k->mean_before_us, 12);
	sec_near(k->mean_us, 22);
	sec_near(k->p95_before_us, 13.8);
	sec_near(k->p95_us, 23.8);
	sec_near(k->mean_change_pct, 10.0 / 12 * 100);
	sec_near(k->p95_change_pct, 10.0 / 13.8 * 100);
	if (!(fabs(k->p_value - 0.0036022326091) < 1e-9))
		fail_msg("p %.17g", k->p_value);
	assert_int_equal(k->verdict, GL_BASELINE_REGRESSION);

	assert_int_equal(b->n_new_kernels_total, 1);
	assert_string_equal(b->new_kernels[0], "fresh");
	assert_int_equal(b->n_vanished_kernels_total, 1);
	assert_string_equal(b->vanished_kernels[0], "gone");
	sec_db_close(&d);
}

static void test_same_timings_unchanged(void **state)
{
	static const char *const names[] = {"same", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	/* 10, 11, 12 before and after: no change, p = 1 */
	for (int i = 0; i < 3; i++) {
		timing(&d, H(2 + i), 1, 10 + i);
		timing(&d, H(24 + 2 + i), 1, 10 + i);
	}
	sec_db_build(&d, SEC_T0 + DAY, SEC_T0 + 2 * DAY, 20);

	const struct gl_report_baseline *b = gl_baseline_result(&d.rep);

	assert_int_equal(b->n_kernels, 1);
	sec_near(b->kernels[0].mean_change_pct, 0);
	sec_near(b->kernels[0].p_value, 1);
	assert_int_equal(b->kernels[0].verdict, GL_BASELINE_UNCHANGED);
	assert_int_equal(b->n_new_kernels_total, 0);
	assert_int_equal(b->n_vanished_kernels_total, 0);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regression_new_and_gone),
		cmocka_unit_test(test_same_timings_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
