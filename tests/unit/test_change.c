/*
 * test_change.c - lib/stats/change.c on series built with a known change:
 * its kind, its points (intersection over union with the truth) and its
 * medians, and no change on stable noisy series (false positives).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/stats.h"

#define N 200

/* A small LCG and Box-Muller: the same noise on every platform. */
static uint64_t rng_state;

static double uniform(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static double iou(size_t a0, size_t a1, size_t b0, size_t b1)
{
	size_t i0 = a0 > b0 ? a0 : b0, i1 = a1 < b1 ? a1 : b1;
	size_t u0 = a0 < b0 ? a0 : b0, u1 = a1 > b1 ? a1 : b1;

	return i1 > i0 ? (double)(i1 - i0) / (double)(u1 - u0) : 0;
}

static void test_window(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	rng_state = 1;
	/* 1,910 us, 2.8x from point 80 to 120, 3% noise */
	for (size_t i = 0; i < N; i++)
		x[i] = (i >= 80 && i < 120 ? 5348.0 : 1910.0) * (1 + 0.03 * gauss());
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_WINDOW);
	assert_true(iou(c.start, c.end, 80, 120) >= 0.9);
	assert_true(fabs(c.before / 1910.0 - 1) < 0.03);
	assert_true(fabs(c.during / 5348.0 - 1) < 0.03);
	assert_true(fabs(c.change_pct - 180) < 10);
	assert_true(c.p_value < 1e-6);
}

static void test_step_down(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	rng_state = 2;
	/* tokens/s: 120, then 70 from point 150 to the end */
	for (size_t i = 0; i < N; i++)
		x[i] = (i >= 150 ? 70.0 : 120.0) * (1 + 0.05 * gauss());
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_STEP);
	assert_true(iou(c.start, c.end, 150, N) >= 0.9);
	assert_true(c.change_pct < -35 && c.change_pct > -48);
}

static void test_trend(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	rng_state = 3;
	/* grows x35 over the series, linearly */
	for (size_t i = 0; i < N; i++)
		x[i] = (100.0 + 3400.0 * (double)i / (N - 1)) * (1 + 0.04 * gauss());
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_TREND);
	assert_int_equal(c.start, 0);
	assert_int_equal(c.end, N);
	assert_true(c.change_pct > 1000);
}

/*
 * A window of a fifth of the series in its middle, 59% up (a training job's 37 -> 59 ms):
 * no single split moves a side's mean by the minimum effect (the side with the window
 * holds more outside it: +16% and +19%), so the window is found as one, both edges.
 */
static void test_window_diluted(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	rng_state = 3;
	for (size_t i = 0; i < N; i++)
		x[i] = (i >= 70 && i < 110 ? 59.0 : 37.0) * (1 + 0.03 * gauss());
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_WINDOW);
	assert_true(iou(c.start, c.end, 70, 110) >= 0.9);
	assert_true(fabs(c.change_pct - (59.0 / 37.0 - 1) * 100) < 5);
}

/*
 * A window longer than either side of it (the real run's training job: 21 ms, 45 ms for
 * 60 of 170 s in its middle, 21 ms): the sides together are the level, the window the
 * change (the longest segment as the level made it a step back down to 21 ms).
 */
static void test_window_longer_than_its_sides(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	rng_state = 5;
	for (size_t i = 0; i < N; i++)
		x[i] = (i >= 65 && i < 135 ? 45.0 : 21.0) * (1 + 0.03 * gauss());
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_WINDOW);
	assert_true(iou(c.start, c.end, 65, 135) >= 0.9);
	assert_true(fabs(c.before / 21.0 - 1) < 0.03);
	assert_true(fabs(c.during / 45.0 - 1) < 0.03);
}

/*
 * A bimodal kernel (the demo's integrate_kernel: 60% of launches about 180 us, 40% about
 * 420 us), its 109 bucket medians of up to 7 launches: the segments cut one by one (a
 * window, then a split) add up to a "step" of p 0.15, which is no change.
 */
static void test_bimodal_no_change(void **state)
{
	static const double x[] = {
		321, 183, 422, 386, 409, 178, 180, 177, 180, 422, 181, 186, 440, 179, 184, 179, 395,
		186, 176, 304, 174, 293, 427, 413, 297, 185, 176, 182, 185, 421, 184, 176, 176, 407,
		179, 180, 183, 413, 185, 415, 178, 183, 300, 302, 183, 417, 171, 176, 176, 179, 392,
		404, 178, 176, 174, 176, 308, 426, 415, 418, 192, 410, 301, 296, 186, 179, 420, 304,
		173, 429, 302, 432, 179, 176, 394, 180, 175, 176, 179, 178, 179, 178, 179, 183, 168,
		295, 178, 172, 180, 185, 407, 436, 435, 172, 185, 311, 396, 413, 291, 178, 418, 423,
		173, 176, 175, 312, 421, 182, 173
	};
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, sizeof(x) / sizeof(x[0]), &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_NONE);
}

/* Stable series with noise of several kinds: no change, 200 seeds each. */
static void test_stable(void **state)
{
	double x[N];
	struct gl_change_params p;
	struct gl_change c;
	int found = 0;

	(void)state;
	gl_stats_change_params_default(&p);
	for (uint64_t seed = 10; seed < 210; seed++) {
		rng_state = seed;
		for (size_t i = 0; i < N; i++)
			x[i] = 800 * (1 + 0.06 * gauss());
		assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
		found += c.kind != GL_CHANGE_NONE;
		/* rare spikes (a median of a bucket caught by one) */
		for (size_t i = 0; i < N; i++)
			x[i] = 800 * (1 + 0.04 * gauss()) * (uniform() < 0.02 ? 3 : 1);
		assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
		found += c.kind != GL_CHANGE_NONE;
		/* a slow drift of 8%: under the minimum effect */
		for (size_t i = 0; i < N; i++)
			x[i] = 800 * (1 + 0.08 * (double)i / N) * (1 + 0.03 * gauss());
		assert_int_equal(gl_stats_change_find(x, N, &p, &c), 0);
		found += c.kind != GL_CHANGE_NONE;
	}
	assert_int_equal(found, 0);
}

static void test_short(void **state)
{
	double x[5] = {1, 1, 9, 9, 9};
	struct gl_change_params p;
	struct gl_change c;

	(void)state;
	gl_stats_change_params_default(&p);
	assert_int_equal(gl_stats_change_find(x, 5, &p, &c), 0);
	assert_int_equal(c.kind, GL_CHANGE_NONE);
	assert_true(isnan(c.change_pct));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_step_down),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_window_diluted),
		cmocka_unit_test(test_window_longer_than_its_sides),
		cmocka_unit_test(test_bimodal_no_change),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
