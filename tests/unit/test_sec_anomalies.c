/*
 * test_sec_anomalies.c - reports/sec_anomalies.c on a small database written
 * by hand (support/sec_db.h): each kernel timing judged against the timings
 * of the same kernel before it (mean and sample standard deviation over the
 * window of previous timings, at least min_samples of them), the result read
 * through its getters (sec_anomalies.h) and the count per kernel the kernels
 * table shows (section.h: gl_report_kernel_anomalies). Expected figures by
 * hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_anomalies.h"
#include "../../reports/section.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void timings(struct sec_db *d, int kernel, const double *us, int n, int line0)
{
	for (int i = 0; i < n; i++)
		sec_db_exec(d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
			       " VALUES (%lld, 3, %d, %.17g, 1, %d);",
			    (long long)T(line0 + i), kernel, us[i], line0 + i);
}

static void test_stddev_judged_after_min_samples(void **state)
{
	static const char *const names[] = {"steady", "short", NULL};
	/* steady: six timings alternating 10 and 11 us, then 100 us */
	static const double steady[] = {10, 11, 10, 11, 10, 11, 100};
	/* short: four timings, one of them far off, never judged (min_samples 5) */
	static const double shrt[] = {5, 5, 5, 500};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	d.cfg.anomaly_method = GL_ANOMALY_STDDEV;
	d.cfg.anomaly_k = 3;
	d.cfg.anomaly_window = 10;
	d.cfg.anomaly_min_samples = 5;
	timings(&d, 1, steady, 7, 1);
	timings(&d, 2, shrt, 4, 100);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_anomalies *a = gl_anomalies_result(&d.rep);

	assert_non_null(a);
	/*
	 * steady's 6th timing (11) has 5 before it: mean 10.4, sd sqrt(1.2 / 4),
	 * z = 1.10: judged, not anomalous. Its 7th (100) has 6 before it: mean
	 * 10.5, sd sqrt(1.5 / 5), z = 89.5 / 0.5477 = 163.4: anomalous. short
	 * never has 5 timings before one.
	 */
	assert_int_equal(a->judged, 2);
	assert_int_equal(a->total, 1);
	assert_int_equal(a->n_items, 1);
	assert_string_equal(a->items[0].kernel, "steady");
	assert_int_equal(a->items[0].ts_us, T(7));
	sec_near(a->items[0].value_us, 100);
	sec_near(a->items[0].mean_us, 10.5);
	sec_near(a->items[0].stddev_us, sqrt(0.3));
	sec_near(a->items[0].z, 89.5 / sqrt(0.3));
	assert_int_equal(gl_report_kernel_anomalies(&d.rep, 1), 1);
	assert_int_equal(gl_report_kernel_anomalies(&d.rep, 2), 0);
	/* an id no kernel has */
	assert_int_equal(gl_report_kernel_anomalies(&d.rep, 99), 0);
	sec_db_close(&d);
}

static void test_k_is_the_threshold(void **state)
{
	static const char *const names[] = {"k", NULL};
	/* 0, 2, 0, 2, 0 (mean 0.8, sd sqrt(4.8 / 4) = 1.0954), then 3.9:
	 * z = 3.1 / 1.0954 = 2.83: anomalous at k 2.5, not at k 3 */
	static const double us[] = {0, 2, 0, 2, 0, 3.9};
	uint64_t at[2];
	double k[2] = {2.5, 3};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct sec_db d;

		sec_db_open(&d, names);
		d.cfg.anomaly_method = GL_ANOMALY_STDDEV;
		d.cfg.anomaly_k = k[i];
		d.cfg.anomaly_window = 10;
		d.cfg.anomaly_min_samples = 5;
		timings(&d, 1, us, 6, 1);
		sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);
		assert_int_equal(gl_anomalies_result(&d.rep)->judged, 1);
		at[i] = gl_anomalies_result(&d.rep)->total;
		sec_db_close(&d);
	}
	assert_int_equal(at[0], 1);
	assert_int_equal(at[1], 0);
}

static void test_empty_window(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);
	assert_int_equal(gl_anomalies_result(&d.rep)->total, 0);
	assert_int_equal(gl_anomalies_result(&d.rep)->judged, 0);
	assert_int_equal(gl_anomalies_result(&d.rep)->n_items, 0);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stddev_judged_after_min_samples),
		cmocka_unit_test(test_k_is_the_threshold),
		cmocka_unit_test(test_empty_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
