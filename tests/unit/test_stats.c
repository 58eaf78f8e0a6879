/*
 * test_stats.c - lib/stats/stats.c against hand-computed values and against
 * independent methods: a plain sort and interpolation for quantiles, a
 * two-pass sum for the mean, the direct regression formula, a direct loop
 * over the previous samples for the moving-window anomalies.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_statistics_double.h>

#include "stats/stats.h"

static void near(double a, double b, double tol)
{
	assert_true(fabs(a - b) <= tol * (1 + fabs(b)));
}
#define NEAR(a, b, tol) near((a), (b), (tol))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double plain_quantile(const double *sorted, size_t n, double f)
{
	double h = (double)(n - 1) * f;
	size_t lo = (size_t)floor(h);

	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* Pseudo-random, reproducible, no libc rand(). */
static double lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0;
}

static void test_describe_hand(void **state)
{
	(void)state;
	/* 1 2 3 4 10: mean 4, deviations -3 -2 -1 0 6, squares 9+4+1+0+36=50, var 50/4 */
	double x[] = {10, 3, 1, 4, 2};
	struct gl_stats_desc d;

	gl_stats_describe(x, 5, &d);
	assert_int_equal(d.n, 5);
	NEAR(d.mean, 4.0, 1e-15);
	NEAR(d.var, 12.5, 1e-15);
	NEAR(d.sd, sqrt(12.5), 1e-15);
	NEAR(d.sum, 20.0, 0);
	NEAR(d.min, 1, 0);
	NEAR(d.max, 10, 0);
	NEAR(d.p50, 3, 1e-15);
	/* p90: h = 4 * 0.9 = 3.6 -> 4 + 0.6 * (10 - 4) = 7.6 */
	NEAR(d.p90, 7.6, 1e-12);
	/* p95: h = 3.8 -> 4 + 0.8 * 6 = 8.8 */
	NEAR(d.p95, 8.8, 1e-12);
	NEAR(d.p99, 4 + 0.96 * 6, 1e-12);
	/* reordered, not changed */
	assert_true(x[0] + x[1] + x[2] + x[3] + x[4] == 20);
}

static void test_describe_edges(void **state)
{
	(void)state;
	double one[] = {42};
	double same[] = {7, 7, 7, 7};
	struct gl_stats_desc d;

	gl_stats_describe(one, 1, &d);
	NEAR(d.mean, 42, 0);
	assert_true(isnan(d.sd) && isnan(d.var));
	NEAR(d.p99, 42, 0);
	NEAR(d.p50, 42, 0);

	gl_stats_describe(same, 4, &d);
	assert_true(d.sd == 0.0);
	NEAR(d.p95, 7, 0);

	gl_stats_describe(NULL, 0, &d);
	assert_int_equal(d.n, 0);
	assert_true(isnan(d.mean) && isnan(d.p50) && isnan(d.min));
	assert_true(isnan(gl_stats_quantile_sorted(NULL, 0, 0.5)));
}

static void test_describe_large(void **state)
{
	(void)state;
	size_t n = 10007;
	double *x = malloc(n * sizeof(*x)), *ref = malloc(n * sizeof(*ref));
	uint64_t s = 7;
	struct gl_stats_desc d;

	for (size_t i = 0; i < n; i++)
		x[i] = ref[i] = 100 + 1000 * lcg(&s) * lcg(&s);
	qsort(ref, n, sizeof(*ref), cmp_double);
	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += ref[i];
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (ref[i] - mean) * (ref[i] - mean);
	gl_stats_describe(x, n, &d);
	NEAR(d.mean, mean, 1e-12);
	NEAR(d.sd, sqrt(ss / (double)(n - 1)), 1e-12);
	NEAR(d.p50, plain_quantile(ref, n, 0.5), 1e-12);
	NEAR(d.p90, plain_quantile(ref, n, 0.9), 1e-12);
	NEAR(d.p95, plain_quantile(ref, n, 0.95), 1e-12);
	NEAR(d.p99, plain_quantile(ref, n, 0.99), 1e-12);
	NEAR(d.sum, sum, 1e-12);
	free(x);
	free(ref);
}

/* Same bits: a == b, or both NaN; a failure names the line of the call. */
static void same_bits_at(double a, double b, int line)
{
	if (isnan(b) ? !isnan(a) : memcmp(&a, &b, sizeof(a)) != 0)
		fail_msg("line %d: %.17g, expected %.17g", line, a, b);
}
#define same_bits(a, b) same_bits_at((a), (b), __LINE__)

/* d against GSL's own functions over orig (the values in their first order), sorted a copy. */
static void check_with_gsl(const struct gl_stats_desc *d, const double *orig, double *sorted,
			   size_t n)
{
	double mn = NAN, mx = NAN, mean = NAN, sum = 0;

	assert_int_equal(d->n, n);
	for (size_t i = 0; i < n; i++)
		sum += orig[i];
	same_bits(d->sum, sum);
	if (n == 0) {
		assert_true(isnan(d->mean) && isnan(d->min) && isnan(d->p50));
		return;
	}
	memcpy(sorted, orig, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	mean = gsl_stats_mean(orig, 1, n);
	gsl_stats_minmax(&mn, &mx, orig, 1, n);
	same_bits(d->mean, mean);
	same_bits(d->min, mn);
	same_bits(d->max, mx);
	same_bits(d->var, n >= 2 ? gsl_stats_variance_m(orig, 1, n, mean) : NAN);
	same_bits(d->sd, n >= 2 ? sqrt(gsl_stats_variance_m(orig, 1, n, mean)) : NAN);
	same_bits(d->p50, gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.5));
	same_bits(d->p90, gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.9));
	same_bits(d->p95, gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.95));
	same_bits(d->p99, gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.99));
	/* and close to the plain interpolation, as a check of the check */
	NEAR(d->p95, plain_quantile(sorted, n, 0.95), 1e-12);
}

/*
 * gl_stats_describe and gl_stats_describe_many (four arrays side by side,
 * the longer ones finished alone) against GSL's own functions over the
 * values in their original order and GSL's quantile over a qsort-sorted
 * copy: every figure with the same bits, on data with many duplicates and
 * without, n 0, 1, 2, 3 and even and odd sizes, in groups of every shape.
 */
static void test_describe_same_as_gsl(void **state)
{
	(void)state;
	const size_t sizes[] = {1,    2,    3,    4,    5,    6, 7,    10,  11,
				100,  101,  1000, 4097, 0,    1000, 999,
				5000, 5001, 4999, 5000, 4000};
	const size_t k = sizeof(sizes) / sizeof(sizes[0]);
	uint64_t s = 11;

	for (int dup = 0; dup < 2; dup++) {
		double *x[sizeof(sizes) / sizeof(sizes[0])], *orig[sizeof(sizes) / sizeof(sizes[0])];
		double *sorted = malloc(5001 * sizeof(double)), *one = malloc(5001 * sizeof(double));
		struct gl_stats_desc d[sizeof(sizes) / sizeof(sizes[0])], d1;

		for (size_t j = 0; j < k; j++) {
			x[j] = malloc((sizes[j] ? sizes[j] : 1) * sizeof(double));
			orig[j] = malloc((sizes[j] ? sizes[j] : 1) * sizeof(double));
			for (size_t i = 0; i < sizes[j]; i++)
				/* dup: a power reading in watts, 12 levels; else anything */
				x[j][i] = orig[j][i] = dup ? 60 + 10.25 * floor(12 * lcg(&s))
							   : 1e3 * (lcg(&s) - 0.3) * lcg(&s);
		}
		/* every group shape: fours of unequal and of near-equal lengths, then 1; and 3, 2, 1 */
		gl_stats_describe_many(x, sizes, k, d);
		for (size_t j = 0; j < k; j++) {
			check_with_gsl(&d[j], orig[j], sorted, sizes[j]);
			memcpy(x[j], orig[j], sizes[j] * sizeof(double));
		}
		for (size_t g = 1; g <= 3; g++) {
			gl_stats_describe_many(x + 9, sizes + 9, g, d);
			for (size_t j = 0; j < g; j++) {
				check_with_gsl(&d[j], orig[9 + j], sorted, sizes[9 + j]);
				memcpy(x[9 + j], orig[9 + j], sizes[9 + j] * sizeof(double));
			}
		}
		for (size_t j = 0; j < k; j++) {
			if (sizes[j])
				memcpy(one, orig[j], sizes[j] * sizeof(double));
			gl_stats_describe(one, sizes[j], &d1);
			check_with_gsl(&d1, orig[j], sorted, sizes[j]);
			free(x[j]);
			free(orig[j]);
		}
		free(sorted);
		free(one);
	}
}

/*
 * gl_stats_describe_tenths: int32 tenths t give the figures of the doubles
 * t / 10.0 with the same bits as GSL's functions over those doubles (as
 * test_describe_same_as_gsl checks gl_stats_describe_many): lengths around
 * its chunk of 2,048, n 0, 1, 2, negative tenths, many duplicates (a
 * utilisation in % to one decimal) and few, in groups of every shape.
 */
static void test_describe_tenths_same_as_gsl(void **state)
{
	(void)state;
	const size_t sizes[] = {2047,  2048,  2049,   6000,  0,     1,     2,      3,
				4096,  4095,  9000,   5,     65535, 65536, 100001, 70000};
	const size_t k = sizeof(sizes) / sizeof(sizes[0]);
	uint64_t s = 23;

	for (int dup = 0; dup < 2; dup++) {
		int32_t *t[sizeof(sizes) / sizeof(sizes[0])], *keep[sizeof(sizes) / sizeof(sizes[0])];
		double *orig = malloc(100001 * sizeof(double));
		double *sorted = malloc(100001 * sizeof(double));
		struct gl_stats_desc d[sizeof(sizes) / sizeof(sizes[0])];

		for (size_t j = 0; j < k; j++) {
			t[j] = malloc((sizes[j] ? sizes[j] : 1) * sizeof(int32_t));
			keep[j] = malloc((sizes[j] ? sizes[j] : 1) * sizeof(int32_t));
			/* dup: 0.0 .. 100.0 %; else -5000.0 .. 15000.0, or for every
			 * other array -1e6 .. 1e6 (past the range counted: 65,536
			 * values or more are counted where the range is narrow) */
			const double span = dup ? 1001 : j % 2 ? 2e7 : 200000;
			const int32_t low = dup ? 0 : j % 2 ? -10000000 : -50000;

			for (size_t i = 0; i < sizes[j]; i++)
				t[j][i] = keep[j][i] = (int32_t)floor(span * lcg(&s)) + low;
		}
		/* groups: four, four, four; then 3, 2, 1 of the first ones */
		gl_stats_describe_tenths(t, sizes, k, d);
		for (size_t j = 0; j < k; j++) {
			for (size_t i = 0; i < sizes[j]; i++)
				orig[i] = (double)keep[j][i] / 10.0;
			check_with_gsl(&d[j], orig, sorted, sizes[j]);
			memcpy(t[j], keep[j], sizes[j] * sizeof(int32_t));
		}
		for (size_t g = 1; g <= 3; g++) {
			gl_stats_describe_tenths(t, sizes, g, d);
			for (size_t j = 0; j < g; j++) {
				for (size_t i = 0; i < sizes[j]; i++)
					orig[i] = (double)keep[j][i] / 10.0;
				check_with_gsl(&d[j], orig, sorted, sizes[j]);
				memcpy(t[j], keep[j], sizes[j] * sizeof(int32_t));
			}
		}
		for (size_t j = 0; j < k; j++) {
			free(t[j]);
			free(keep[j]);
		}
		free(orig);
		free(sorted);
	}
}

/* min and max keep gsl_stats_minmax's rules: the first of equal values, NaN wins. */
static void test_minmax_rules(void **state)
{
	(void)state;
	double zeros[] = {0.0, -0.0, 1};
	double neg_first[] = {-0.0, 0.0, -1};
	double with_nan[] = {3, 1, NAN, 0, 9};
	double *x[] = {zeros, neg_first, with_nan};
	const size_t n[] = {3, 3, 5};
	struct gl_stats_desc d[3];

	gl_stats_describe_many(x, n, 3, d);
	assert_false(signbit(d[0].min));	/* 0.0 came first; -0.0 is not smaller */
	same_bits(d[0].max, 1);
	assert_true(signbit(d[1].max));	/* -0.0 came first and stays the max */
	same_bits(d[1].min, -1);
	assert_true(isnan(d[2].min) && isnan(d[2].max));
}

/* Direct formula: slope = sum((x-mx)(y-my)) / sum((x-mx)^2), two passes. */
static void direct_fit(const double *x, const double *y, size_t n, double *slope,
		       double *icpt, double *r2, double *t)
{
	double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	*slope = sxy / sxx;
	*icpt = my - *slope * mx;
	*r2 = sxy * sxy / (sxx * syy);
	double sse = 0;
	for (size_t i = 0; i < n; i++) {
		double e = y[i] - *icpt - *slope * x[i];
		sse += e * e;
	}
	*t = *slope / sqrt(sse / (double)(n - 2) / sxx);
}

static void test_fit_hand(void **state)
{
	(void)state;
	/*
	 * x 0 1 2 3, y 1 3 2 5: mx 1.5, my 2.75, sxx 5, sxy = (-1.5)(-1.75) +
	 * (-.5)(.25) + (.5)(-.75) + (1.5)(2.25) = 2.625 - .125 - .375 + 3.375 = 5.5
	 * slope 1.1, intercept 2.75 - 1.65 = 1.1; syy = 3.0625+.0625+.5625+5.0625
	 * = 8.75; r2 = 30.25 / 43.75; sse = 8.75 - 6.05 = 2.7; se = sqrt(2.7/2/5)
	 * t = 1.1 / sqrt(0.27) = 2.1169...; p (2 df) = 1 - t/sqrt(2+t^2)
	 */
	double x[] = {0, 1, 2, 3}, y[] = {1, 3, 2, 5};
	struct gl_fit f, g;
	struct gl_fit_acc acc;
	double t = 1.1 / sqrt(0.27);
	double p = 1 - t / sqrt(2 + t * t);

	gl_fit_acc_init(&acc);
	for (int i = 0; i < 4; i++)
		gl_fit_acc_add(&acc, x[i], y[i]);
	gl_fit_acc_finish(&acc, &f);
	gl_stats_fit_linear(x, y, 4, &g);
	NEAR(f.slope, 1.1, 1e-12);
	NEAR(f.intercept, 1.1, 1e-12);
	NEAR(f.r2, 30.25 / 43.75, 1e-12);
	NEAR(f.p_value, p, 1e-9);
	NEAR(g.slope, 1.1, 1e-12);
	NEAR(g.intercept, 1.1, 1e-12);
	NEAR(g.r2, 30.25 / 43.75, 1e-12);
	NEAR(g.p_value, p, 1e-9);
}

static void test_fit_large_against_gsl_and_direct(void **state)
{
	(void)state;
	size_t n = 5000;
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
	uint64_t s = 3;
	struct gl_fit_acc acc;
	struct gl_fit f, g;
	double slope, icpt, r2, t;

	gl_fit_acc_init(&acc);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i / 500.0;
		y[i] = 1e6 + 3.0 * x[i] + 50 * (lcg(&s) - 0.5);
		gl_fit_acc_add(&acc, x[i], y[i]);
	}
	gl_fit_acc_finish(&acc, &f);
	gl_stats_fit_linear(x, y, n, &g);
	direct_fit(x, y, n, &slope, &icpt, &r2, &t);
	NEAR(f.slope, slope, 1e-7);
	NEAR(g.slope, slope, 1e-7);
	NEAR(f.intercept, icpt, 1e-12);
	NEAR(f.r2, r2, 1e-7);
	NEAR(g.r2, r2, 1e-7);
	NEAR(f.p_value, g.p_value, 1e-6);
	assert_true(f.p_value < 1e-10);
	free(x);
	free(y);
}

static void test_fit_edges(void **state)
{
	(void)state;
	struct gl_fit_acc acc;
	struct gl_fit f;
	double x[] = {0, 1, 2}, y[] = {5, 5, 5}, xs[] = {1, 1, 1};

	/* identical y: flat line, r2 and p undefined */
	gl_stats_fit_linear(x, y, 3, &f);
	assert_true(f.slope == 0 && isnan(f.r2) && isnan(f.p_value));
	gl_fit_acc_init(&acc);
	for (int i = 0; i < 3; i++)
		gl_fit_acc_add(&acc, x[i], y[i]);
	gl_fit_acc_finish(&acc, &f);
	assert_true(f.slope == 0 && isnan(f.r2) && isnan(f.p_value));
	/* identical x: no line */
	gl_stats_fit_linear(xs, x, 3, &f);
	assert_true(isnan(f.slope) && isnan(f.intercept));
	/* one point */
	gl_fit_acc_init(&acc);
	gl_fit_acc_add(&acc, 1, 2);
	gl_fit_acc_finish(&acc, &f);
	assert_true(isnan(f.slope) && f.n == 1);
	/* two points: a line, no test */
	gl_fit_acc_add(&acc, 2, 4);
	gl_fit_acc_finish(&acc, &f);
	NEAR(f.slope, 2, 1e-15);
	assert_true(isnan(f.p_value));
	/* perfect line with 3 points: p 0 */
	gl_fit_acc_add(&acc, 3, 6);
	gl_fit_acc_finish(&acc, &f);
	assert_true(f.p_value == 0.0);
}

static void test_welch(void **state)
{
	(void)state;
	/*
	 * a: 1 2 3 4 5 (mean 3, var 2.5), b: 2 4 6 8 10 (mean 6, var 10).
	 * se2 = .5 + 2 = 2.5, t = 3 / sqrt(2.5) = 1.8974; df = 6.25 / (.25/4 + 4/4)
	 * = 5.882352941. p = 2 * (0.5 - integral of the t density from 0 to t),
	 * integrated by Simpson's rule (200000 steps) outside this program:
	 * 0.1075312.
	 */
	double p = gl_stats_welch_p(3, 2.5, 5, 6, 10, 5);

	NEAR(p, 0.1075312, 1e-6);
	assert_true(isnan(gl_stats_welch_p(3, NAN, 1, 4, 1, 5)));
	assert_true(isnan(gl_stats_welch_p(3, 0, 5, 3, 0, 5)));
	assert_true(gl_stats_welch_p(3, 0, 5, 4, 0, 5) == 0.0);
}

struct found {
	size_t idx[64];
	double centre[64], spread[64];
	size_t n;
};

/* Pushes x[0..n) through one detector; records the anomalies. */
static int run_detector(const double *x, size_t n, const struct gl_anomaly_params *p,
			struct found *f, uint64_t *judged)
{
	struct gl_anomaly *a = gl_anomaly_new(p);

	if (!a)
		return -1;
	*judged = 0;
	for (size_t i = 0; i < n; i++) {
		double c, s, z;
		int v = gl_anomaly_push(a, x[i], &c, &s, &z);

		if (v >= 0)
			(*judged)++;
		if (v == 1) {
			if (f->n < 64) {
				f->idx[f->n] = i;
				f->centre[f->n] = c;
				f->spread[f->n] = s;
			}
			f->n++;
			assert_true(fabs(z - (x[i] - c) / s) < 1e-12);
		}
	}
	gl_anomaly_free(a);
	return 0;
}

/* Direct: mean and sd of x[i-w..i-1] by two passes. */
static size_t direct_anomalies(const double *x, size_t n, size_t w, size_t min, double k,
			       size_t *idx)
{
	size_t m = 0;

	for (size_t i = 1; i < n; i++) {
		size_t prev = i < w ? i : w;
		double mean = 0, ss = 0;

		if (prev < min)
			continue;
		for (size_t j = i - prev; j < i; j++)
			mean += x[j];
		mean /= (double)prev;
		for (size_t j = i - prev; j < i; j++)
			ss += (x[j] - mean) * (x[j] - mean);
		double sd = prev > 1 ? sqrt(ss / (double)(prev - 1)) : 0;
		if (sd > 0 && x[i] - mean > k * sd) {
			if (m < 64)
				idx[m] = i;
			m++;
		}
	}
	return m;
}

static void test_anomalies_against_direct(void **state)
{
	(void)state;
	size_t n = 150000;
	double *x = malloc(n * sizeof(*x));
	uint64_t s = 11;
	size_t idx[64];
	struct found f = {0};
	struct gl_anomaly_params p = {.robust = false, .k = 3, .window = 100, .min_samples = 10};
	uint64_t judged;

	for (size_t i = 0; i < n; i++)
		x[i] = 100 + 10 * lcg(&s);
	/* spikes, some in a row so that they enter each other's windows */
	size_t spikes[] = {5, 50, 1000, 65535, 65536, 65537, 131072, 149999};
	for (size_t i = 0; i < sizeof(spikes) / sizeof(spikes[0]); i++)
		x[spikes[i]] = 200;
	size_t m = direct_anomalies(x, n, 100, 10, 3, idx);
	assert_int_equal(run_detector(x, n, &p, &f, &judged), 0);
	assert_int_equal(judged, n - 10);
	assert_int_equal(f.n, m);
	for (size_t i = 0; i < m && i < 64; i++)
		assert_int_equal(f.idx[i], idx[i]);
	/* x[5] has only 5 previous samples: not judged */
	assert_int_not_equal(f.idx[0], 5);
	free(x);
}

static void test_anomalies_hand(void **state)
{
	(void)state;
	/* ten samples 10,12 alternating: mean 11, sd sqrt(10/9); 20 is z = 9/1.054 */
	double x[12] = {10, 12, 10, 12, 10, 12, 10, 12, 10, 12, 20, 11};
	struct found f = {0};
	struct gl_anomaly_params p = {.robust = false, .k = 3, .window = 100, .min_samples = 10};
	uint64_t judged;

	assert_int_equal(run_detector(x, 12, &p, &f, &judged), 0);
	assert_int_equal(judged, 2);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.idx[0], 10);
	NEAR(f.centre[0], 11, 1e-12);
	NEAR(f.spread[0], sqrt(10.0 / 9.0), 1e-12);

	/* robust: median 11, MAD 1 -> spread 1.4826; 20 - 11 = 9 > 3 * 1.4826 */
	struct found r = {0};
	p.robust = true;
	assert_int_equal(run_detector(x, 12, &p, &r, &judged), 0);
	assert_int_equal(r.n, 1);
	NEAR(r.centre[0], 11, 1e-12);
	NEAR(r.spread[0], 1.482602218505602, 1e-9);

	/* identical history: spread 0, never anomalous */
	double same[12] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9, 5};
	struct found z = {0};
	p.robust = false;
	assert_int_equal(run_detector(same, 12, &p, &z, &judged), 0);
	assert_int_equal(z.n, 0);
	/* one sample: nothing judged */
	assert_int_equal(run_detector(same, 1, &p, &z, &judged), 0);
	assert_int_equal(judged, 0);
}

/*
 * histogram_quantile by hand. Buckets le 1, 2, 4, +Inf with cumulative
 * counts 2, 6, 8, 10: q 0.5 -> rank 5 in (1, 2]: 1 + 1 * (5 - 2) / 4 = 1.75;
 * q 0.1 -> rank 1 in [0, 1]: 0 + 1 * 1 / 2 = 0.5; q 0.7 -> rank 7 in (2, 4]:
 * 2 + 2 * (7 - 6) / 2 = 3; q 0.9 -> rank 9 in +Inf: the largest finite bound 4.
 */
static void test_histogram_quantile(void **state)
{
	const double le[] = {1, 2, 4, INFINITY};
	const double counts[] = {2, 6, 8, 10};
	const double q[] = {0.5, 0.1, 0.7, 0.9}, want[] = {1.75, 0.5, 3, 4};
	double c[4];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		memcpy(c, counts, sizeof(c));
		near(gl_stats_histogram_quantile(q[i], le, c, 4), want[i], 1e-12);
	}
	/* a count that falls (buckets scraped at different moments) is raised, as Prometheus
	 * does: 2, 6, 5, 10 -> 2, 6, 6, 10; q 0.7 -> rank 7 in +Inf -> 4 */
	const double bad[] = {2, 6, 5, 10};
	memcpy(c, bad, sizeof(c));
	near(gl_stats_histogram_quantile(0.7, le, c, 4), 4, 1e-12);
	/* a first bucket with a bound <= 0 gives its bound */
	const double le0[] = {-1, INFINITY};
	double c0[] = {5, 10};
	near(gl_stats_histogram_quantile(0.2, le0, c0, 2), -1, 1e-12);
	/* no +Inf bucket, no observations, a single bucket, q out of range: NAN */
	const double fin[] = {1, 2};
	double cf[] = {1, 2}, cz[] = {0, 0, 0, 0}, c1[] = {3};
	assert_true(isnan(gl_stats_histogram_quantile(0.5, fin, cf, 2)));
	assert_true(isnan(gl_stats_histogram_quantile(0.5, le, cz, 4)));
	assert_true(isnan(gl_stats_histogram_quantile(0.5, le + 3, c1, 1)));
	memcpy(c, counts, sizeof(c));
	assert_true(isnan(gl_stats_histogram_quantile(1.5, le, c, 4)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe_hand),
		cmocka_unit_test(test_describe_edges),
		cmocka_unit_test(test_describe_large),
		cmocka_unit_test(test_describe_same_as_gsl),
		cmocka_unit_test(test_describe_tenths_same_as_gsl),
		cmocka_unit_test(test_minmax_rules),
		cmocka_unit_test(test_fit_hand),
		cmocka_unit_test(test_fit_large_against_gsl_and_direct),
		cmocka_unit_test(test_fit_edges),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_anomalies_against_direct),
		cmocka_unit_test(test_anomalies_hand),
		cmocka_unit_test(test_histogram_quantile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
