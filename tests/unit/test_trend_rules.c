/*
 * test_trend_rules.c - reports/trend_rules.c: the robust change when the
 * fitted line leaves the data's range, never below -100%, the direction
 * table, the slope unit of the span, series not trended. Expected values by
 * hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/trend_rules.h"

static void test_ends(void **state)
{
	(void)state;
	/* 20 values: first tenth {5, 1} -> median 3; last tenth {40, 50} -> 45 */
	double v[20];
	struct gl_trend_ends e;

	for (int i = 0; i < 20; i++)
		v[i] = 10 + i;
	v[0] = 5, v[1] = 1, v[18] = 40, v[19] = 50;
	gl_trend_ends_of(v, 20, &e);
	assert_true(e.first_med == 3 && e.last_med == 45 && e.lo == 1 && e.hi == 50);
	gl_trend_ends_of(v, 0, &e);
	assert_true(isnan(e.first_med) && isnan(e.lo));
}

/* The median by a plain insertion sort, written apart from the code under test. */
static double median_by_sort(const double *v, size_t n)
{
	double t[400];

	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j > 0 && t[j - 1] > v[i]) {
			t[j] = t[j - 1];
			j--;
		}
		t[j] = v[i];
	}
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static void test_ends_medians(void **state)
{
	(void)state;
	/* the first and last tenth of 10..4000 values: 1..400 of them, odd and
	 * even counts, few distinct values (many ties), sorted, reversed */
	static double v[4000];
	uint64_t x = 88172645463325252ULL;
	struct gl_trend_ends e;

	for (int round = 0; round < 400; round++) {
		size_t n = 10 + (size_t)round * 10, k = n / 10;
		int distinct = round % 3 == 0 ? 3 : round % 3 == 1 ? 50 : 1000000;

		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = round % 7 == 5   ? (double)i
			       : round % 7 == 6 ? (double)(n - i)
						: (double)(int)(x % (uint64_t)distinct) - distinct / 2 + 0.25;
		}
		gl_trend_ends_of(v, n, &e);
		assert_true(e.first_med == median_by_sort(v, k));
		assert_true(e.last_med == median_by_sort(v + n - k, k));
	}
	/* signed zeros: the sort's answer, sign included (-0.0 == 0.0 in C) */
	double z[20] = {-0.0, 0.0};
	for (int i = 2; i < 20; i++)
		z[i] = i;
	gl_trend_ends_of(z, 20, &e);
	assert_true(e.first_med == 0 && signbit(e.first_med) == signbit((z[0] + z[1]) / 2));
	double z3[30] = {0.0, -0.0, 5};
	for (int i = 3; i < 30; i++)
		z3[i] = i;
	gl_trend_ends_of(z3, 30, &e);
	/* the middle of {0.0, -0.0, 5}: a zero */
	assert_true(e.first_med == 0);
}

static void test_robust_change(void **state)
{
	(void)state;
	/* a kernel slowing x35 on a curve: the line starts below zero, change NAN */
	struct gl_report_trend t = {.series = GL_TREND_KERNEL, .kernel = "gemm", .n = 100,
				    .slope_per_day = 1e6, .change_pct = NAN, .fit_first = -300,
				    .fit_last = 4000, .span_s = 150, .verdict = GL_VERDICT_DEGRADING};
	struct gl_trend_ends e = {129, 4515, 100, 4600};

	gl_trend_judge(&t, &e, 10);
	assert_true(fabs(t.change_pct - (4515.0 - 129) / 129 * 100) < 1e-9);
	assert_string_equal(t.change_from, "ends");
	assert_int_equal(t.verdict, GL_VERDICT_DEGRADING);
	/* 150 s: a minute is more than a third of it, so per second: 1e6 per day / 86400 */
	assert_string_equal(t.slope_unit, "s");
	assert_true(fabs(t.slope - 1e6 / 86400) < 1e-9);

	/* a fall the line carries below zero (-104%), no ends: clamped at -100% */
	struct gl_report_trend u = {.series = GL_TREND_METRIC, .kernel = "gpu.memory_used_mib",
				    .n = 50, .slope_per_day = -5, .change_pct = -104,
				    .fit_first = 100, .fit_last = -4, .span_s = 30 * 86400.0,
				    .verdict = GL_VERDICT_IMPROVING};

	gl_trend_judge(&u, NULL, 10);
	assert_true(u.change_pct == -100);
	assert_string_equal(u.slope_unit, "day");
}

static void test_direction(void **state)
{
	(void)state;
	struct gl_report_trend t = {.series = GL_TREND_INFERENCE, .kernel = "tokens_per_second",
				    .n = 10, .slope_per_day = -1, .change_pct = -31,
				    .fit_first = 153, .fit_last = 106, .span_s = 300,
				    .verdict = GL_VERDICT_IMPROVING};

	/* falling tokens/s is a degradation */
	gl_trend_judge(&t, NULL, 10);
	assert_int_equal(t.verdict, GL_VERDICT_DEGRADING);
	/* rising utilisation is neither: rising */
	struct gl_report_trend u = {.series = GL_TREND_METRIC, .kernel = "gpu.utilization_pct",
				    .n = 10, .slope_per_day = 1, .change_pct = 40,
				    .fit_first = 50, .fit_last = 70, .span_s = 300,
				    .verdict = GL_VERDICT_DEGRADING};

	gl_trend_judge(&u, NULL, 10);
	assert_int_equal(u.verdict, GL_VERDICT_RISING);
	assert_string_equal(gl_verdict_name(u.verdict), "rising");
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "gpu.power_w"), GL_DIR_NEUTRAL);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "gpu.temperature_c"), GL_DIR_UP_BAD);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "vllm.generation_throughput_tps"),
			 GL_DIR_UP_GOOD);
	assert_int_equal(gl_trend_direction(GL_TREND_INFERENCE, "ttft_ms"), GL_DIR_UP_BAD);
	/* a training job: loss and iteration time up bad, speed up good, the optimiser's
	 * learning rate and gradient norm only rise or fall */
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.loss"), GL_DIR_UP_BAD);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.iteration_ms"), GL_DIR_UP_BAD);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.it_per_s"), GL_DIR_UP_GOOD);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.tokens_per_s"),
			 GL_DIR_UP_GOOD);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.learning_rate"),
			 GL_DIR_NEUTRAL);
	assert_int_equal(gl_trend_direction(GL_TREND_METRIC, "train.grad_norm"), GL_DIR_NEUTRAL);
	/* a change the robust ends find too small: stable */
	struct gl_report_trend w = {.series = GL_TREND_KERNEL, .kernel = "k", .n = 10,
				    .slope_per_day = 1, .change_pct = NAN, .fit_first = -1,
				    .fit_last = 10, .span_s = 60, .verdict = GL_VERDICT_DEGRADING};
	struct gl_trend_ends e = {100, 104, 90, 110};

	gl_trend_judge(&w, &e, 10);
	assert_int_equal(w.verdict, GL_VERDICT_STABLE);
	assert_string_equal(w.slope_unit, "s");
}

static void test_hidden(void **state)
{
	(void)state;
	assert_true(gl_trend_hidden_metric("bitnet_requests_total"));
	assert_true(gl_trend_hidden_metric("vllm:time_to_first_token_seconds_bucket"));
	assert_true(gl_trend_hidden_metric("vllm:e2e_request_latency_seconds_sum"));
	assert_true(gl_trend_hidden_metric("vllm:e2e_request_latency_seconds_count"));
	assert_true(gl_trend_hidden_metric("bitnet_requests_created"));
	assert_false(gl_trend_hidden_metric("gpu.utilization_pct"));
	assert_true(gl_trend_hidden_metric("train.step"));
	assert_true(gl_trend_hidden_metric("train.epoch"));
	assert_true(gl_trend_hidden_metric("train.progress_steps"));
	assert_false(gl_trend_hidden_metric("train.loss"));
	assert_false(gl_trend_hidden_metric("vllm:num_requests_running"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ends),
		cmocka_unit_test(test_ends_medians),
		cmocka_unit_test(test_robust_change),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
