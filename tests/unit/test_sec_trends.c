/*
 * test_sec_trends.c - reports/sec_trends.c on a small database written by
 * hand (support/sec_db.h), its result read through its getters
 * (sec_trends.h): a listed kernel's timings fitted by least squares against
 * days since the window's start, its change over its own span, r², the
 * slope's two-sided p-value and the verdict; a kernel with one timing gets
 * no slope. The expected figures were worked out by hand:
 *   t = 0, 0.25, 0.5, 0.75 days; y = 100, 112, 118, 130 us
 *   Sxx = 0.3125, Sxy = 12: slope 38.4 us/day, intercept 115 - 38.4 x 0.375 = 100.6
 *   fit 100.6 .. 129.4: change 28.8 / 100.6 = 28.63 %; SSE 7.2, SST 468: r² = 460.8 / 468
 *   t = 38.4 / sqrt(7.2 / 2 / 0.3125) = sqrt(128); with 2 degrees of freedom the
 *   two-sided p is 1 - t / sqrt(t² + 2) = 1 - sqrt(64 / 65).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_trends.h"

#define H(h) (SEC_T0 + (int64_t)(h) * 3600 * SEC_S_US)
#define DAY (86400 * SEC_S_US)

static void near_tol(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol))
		fail_msg("%.17g != %.17g (tolerance %g)", a, b, tol);
}

static void test_kernel_line(void **state)
{
	static const char *const names[] = {"grows", "once", NULL};
	static const double y[] = {100, 112, 118, 130};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	for (int i = 0; i < 4; i++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
				" VALUES (%lld, 3, 1, %g, 1, %d);", (long long)H(6 * i), y[i], i + 1);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
			" VALUES (%lld, 3, 2, 5, 1, 9);", (long long)H(3));
	sec_db_build(&d, SEC_T0, SEC_T0 + DAY, 20);

	const struct gl_report_trend *g = gl_trends_of(&d.rep, GL_TREND_KERNEL, "grows");

	assert_non_null(g);
	assert_string_equal(g->unit, "us");
	assert_int_equal(g->n, 4);
	sec_near(g->slope_per_day, 38.4);
	sec_near(g->intercept, 100.6);
	sec_near(g->r2, 460.8 / 468);
	sec_near(g->fit_first, 100.6);
	sec_near(g->fit_last, 129.4);
	sec_near(g->change_pct, 28.8 / 100.6 * 100);
	assert_string_equal(g->change_from, "fit");
	near_tol(g->p_value, 1 - sqrt(64.0 / 65), 1e-9);
	assert_int_equal(g->first_ts_us, H(0));
	assert_int_equal(g->last_ts_us, H(18));
	sec_near(g->span_s, 18 * 3600);
	assert_int_equal(g->verdict, GL_VERDICT_DEGRADING);

	const struct gl_report_trend *o = gl_trends_of(&d.rep, GL_TREND_KERNEL, "once");

	/* one timing: no slope, no p-value, nothing to judge */
	assert_non_null(o);
	assert_int_equal(o->n, 1);
	assert_true(isnan(o->slope_per_day));
	assert_true(isnan(o->p_value));
	assert_int_equal(o->verdict, GL_VERDICT_STABLE);
	sec_db_close(&d);
}

static void test_falling_is_improving(void **state)
{
	static const char *const names[] = {"faster", NULL};
	static const double y[] = {130, 118, 112, 100};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	for (int i = 0; i < 4; i++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
				" VALUES (%lld, 3, 1, %g, 1, %d);", (long long)H(6 * i), y[i], i + 1);
	sec_db_build(&d, SEC_T0, SEC_T0 + DAY, 20);

	const struct gl_report_trend *f = gl_trends_of(&d.rep, GL_TREND_KERNEL, "faster");

	assert_non_null(f);
	/* the mirror image: slope -38.4, fit 129.4 .. 100.6 */
	sec_near(f->slope_per_day, -38.4);
	sec_near(f->change_pct, -28.8 / 129.4 * 100);
	assert_int_equal(f->verdict, GL_VERDICT_IMPROVING);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_line),
		cmocka_unit_test(test_falling_is_improving),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
