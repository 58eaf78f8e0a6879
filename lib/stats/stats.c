/*
 * stats.c - descriptive statistics, quantiles, least squares, Welch's test
 * and moving-window anomalies, all on top of GSL. In: doubles. Out: plain
 * numbers, NAN for what is undefined.
 */
#include "stats/stats.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_movstat.h>
#include <gsl/gsl_statistics_double.h>

/*
 * Quantile f of x[lo..n) by selection, the same value as
 * gsl_stats_quantile_from_sorted_data over the sorted array: with h =
 * (n - 1) f, x(floor h) + (h - floor h) (x(floor h + 1) - x(floor h)).
 * gsl_stats_select partitions x around the order statistic it returns, so
 * x[k+1..n) holds the larger values: their minimum is the next one, and
 * the next, larger quantile can search that part only. *from gets k + 1.
 */
static double quantile_select(double *x, size_t n, double f, size_t *from)
{
	double h = (double)(n - 1) * f;
	size_t k = (size_t)floor(h);
	double delta = h - (double)k, lo, hi;

	if (k + 1 == *from) {
		lo = x[k];	/* selected for the previous quantile */
	} else {
		lo = gsl_stats_select(x + *from, 1, n - *from, k - *from);
		*from = k + 1;
	}
	if (k + 1 >= n || delta == 0)
		return lo;
	hi = gsl_stats_min(x + k + 1, 1, n - k - 1);
	return (1 - delta) * lo + delta * hi;
}

/*
 * The passes over the values are GSL's own recurrences, step for step, so
 * that the figures keep their last bit: gsl_stats_mean
 * (statistics/mean_source.c) keeps its running mean in a long double,
 * mean += (x - mean) / (i + 1); gsl_stats_variance_m (variance_source.c)
 * takes the difference to the (double) mean in double, its square and the
 * running variance in long double, var += (delta * delta - var) / (i + 1),
 * then times n / (n - 1) in double; gsl_stats_minmax starts from the first
 * value, takes a smaller (larger) one as it comes and stops at the first
 * NaN, which becomes both; the sum is plain double addition in order.
 *
 * Each running mean or variance is a chain of long-double divisions, each
 * waiting for the last (some 9 ns a value on the benchmark machine). Four
 * arrays' chains run side by side in one loop in nearly the time of one,
 * so gl_stats_describe_many takes the arrays four at a time, up to the
 * shortest one's length, and finishes the longer ones alone.
 */
struct run {
	long double mean, var;
	double sum, min, max;
	bool nan;
};

static inline void minmax_step(struct run *r, double x)
{
	if (r->nan)
		return;
	if (x < r->min)
		r->min = x;
	if (x > r->max)
		r->max = x;
	if (isnan(x)) {
		r->min = r->max = x;
		r->nan = true;
	}
}

/*
 * The passes take value i of an array at x[i - base]: base 0 for a whole
 * array, from for a chunk of it (gl_stats_describe_tenths); the divisor is
 * i + 1 either way.
 */

/* sum, min, max, mean of x[from..to) for one array, continuing r */
static void pass1_one(const double *x, size_t base, size_t from, size_t to, struct run *r)
{
	long double m = r->mean;
	double s = r->sum;

	for (size_t i = from; i < to; i++) {
		const double xi = x[i - base];

		s += xi;
		m += (xi - m) / (long double)(i + 1);
		minmax_step(r, xi);
	}
	r->mean = m;
	r->sum = s;
}

/* the same for four arrays at once, all at least to long */
static void pass1_four(const double *const x[4], size_t base, size_t from, size_t to,
		       struct run r[4])
{
	long double m0 = r[0].mean, m1 = r[1].mean, m2 = r[2].mean, m3 = r[3].mean;
	double s0 = r[0].sum, s1 = r[1].sum, s2 = r[2].sum, s3 = r[3].sum;

	for (size_t i = from; i < to; i++) {
		const long double k = (long double)(i + 1);
		const double x0 = x[0][i - base], x1 = x[1][i - base];
		const double x2 = x[2][i - base], x3 = x[3][i - base];

		s0 += x0;
		s1 += x1;
		s2 += x2;
		s3 += x3;
		m0 += (x0 - m0) / k;
		m1 += (x1 - m1) / k;
		m2 += (x2 - m2) / k;
		m3 += (x3 - m3) / k;
		minmax_step(&r[0], x0);
		minmax_step(&r[1], x1);
		minmax_step(&r[2], x2);
		minmax_step(&r[3], x3);
	}
	r[0].mean = m0, r[1].mean = m1, r[2].mean = m2, r[3].mean = m3;
	r[0].sum = s0, r[1].sum = s1, r[2].sum = s2, r[3].sum = s3;
}

/* the running variance of x[from..to) around mean, continuing *var */
static void pass2_one(const double *x, size_t base, size_t from, size_t to, double mean,
		      long double *var)
{
	long double v = *var;

	for (size_t i = from; i < to; i++) {
		const long double delta = x[i - base] - mean;

		v += (delta * delta - v) / (long double)(i + 1);
	}
	*var = v;
}

static void pass2_four(const double *const x[4], size_t base, size_t from, size_t to,
		       const double mean[4], struct run r[4])
{
	long double v0 = r[0].var, v1 = r[1].var, v2 = r[2].var, v3 = r[3].var;

	for (size_t i = from; i < to; i++) {
		const long double k = (long double)(i + 1);
		const long double d0 = x[0][i - base] - mean[0], d1 = x[1][i - base] - mean[1];
		const long double d2 = x[2][i - base] - mean[2], d3 = x[3][i - base] - mean[3];

		v0 += (d0 * d0 - v0) / k;
		v1 += (d1 * d1 - v1) / k;
		v2 += (d2 * d2 - v2) / k;
		v3 += (d3 * d3 - v3) / k;
	}
	r[0].var = v0, r[1].var = v1, r[2].var = v2, r[3].var = v3;
}

/* The figures of the passes of n values; false for n 0 (the quantiles NAN too). */
static bool desc_fill(struct gl_stats_desc *d, const struct run *r, size_t n, double mean)
{
	d->n = n;
	d->sum = 0;
	d->min = d->max = d->mean = d->sd = d->var = NAN;
	d->p50 = d->p90 = d->p95 = d->p99 = NAN;
	if (n == 0)
		return false;
	d->sum = r->sum;
	d->min = r->min;
	d->max = r->max;
	d->mean = mean;
	if (n >= 2) {
		d->var = (double)r->var * ((double)n / (double)(n - 1));
		d->sd = sqrt(d->var);
	}
	return true;
}

/* Up to four arrays (k 1..4): the passes, then each one's quantiles. */
static void describe_group(double *const *x, const size_t *n, size_t k, struct gl_stats_desc *d)
{
	struct run r[4] = {{0}};
	const double *xs[4];
	double mean[4];
	size_t common = SIZE_MAX;

	for (size_t j = 0; j < 4; j++) {
		size_t src = j < k ? j : 0;	/* a short group repeats its first array */

		xs[j] = x[src];
		if (n[src] < common)
			common = n[src];
		if (n[src])
			r[j].min = r[j].max = x[src][0];
	}
	if (k > 1)
		pass1_four(xs, 0, 0, common, r);
	else
		common = 0;
	for (size_t j = 0; j < k; j++) {
		pass1_one(xs[j], 0, common, n[j], &r[j]);
		mean[j] = (double)r[j].mean;
	}
	for (size_t j = k; j < 4; j++)
		mean[j] = mean[0];
	if (k > 1)
		pass2_four(xs, 0, 0, common, mean, r);
	for (size_t j = 0; j < k; j++) {
		size_t from = 0;

		pass2_one(xs[j], 0, common, n[j], mean[j], &r[j].var);
		if (!desc_fill(&d[j], &r[j], n[j], mean[j]))
			continue;
		/* ascending quantiles, each selecting in what is left above the last */
		d[j].p50 = quantile_select(x[j], n[j], 0.50, &from);
		d[j].p90 = quantile_select(x[j], n[j], 0.90, &from);
		d[j].p95 = quantile_select(x[j], n[j], 0.95, &from);
		d[j].p99 = quantile_select(x[j], n[j], 0.99, &from);
	}
}

/*
 * The k-th smallest of a[0..n) (k < n), a reordered as gsl_stats_select
 * leaves its array: a[k] is it, a[0..k) holds no larger value and a(k..n)
 * no smaller one. Quickselect, median of three, Hoare's partition (runs of
 * equal values split evenly: a series of tenths has few distinct values).
 */
static int32_t select_i32(int32_t *a, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;

	while (hi > lo) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		int32_t p, t;

		if (a[mid] < a[lo])
			t = a[mid], a[mid] = a[lo], a[lo] = t;
		if (a[hi] < a[lo])
			t = a[hi], a[hi] = a[lo], a[lo] = t;
		if (a[hi] < a[mid])
			t = a[hi], a[hi] = a[mid], a[mid] = t;
		p = a[mid];
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				t = a[i], a[i] = a[j], a[j] = t;
				i++;
				j--;
			}
		}
		/* a[lo..j] <= p, a(j..i) == p, a[i..hi] >= p */
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break;
	}
	return a[want];
}

/* quantile_select for an array of tenths (the values x[i] / 10.0) */
static double quantile_select_tenths(int32_t *x, size_t n, double f, size_t *from)
{
	double h = (double)(n - 1) * f;
	size_t k = (size_t)floor(h);
	double delta = h - (double)k, lo, hi;
	int32_t m;

	if (k + 1 == *from) {
		lo = (double)x[k] / 10.0;	/* selected for the previous quantile */
	} else {
		lo = (double)select_i32(x + *from, n - *from, k - *from) / 10.0;
		*from = k + 1;
	}
	if (k + 1 >= n || delta == 0)
		return lo;
	m = x[k + 1];
	for (size_t i = k + 2; i < n; i++)
		if (x[i] < m)
			m = x[i];
	hi = (double)m / 10.0;
	return (1 - delta) * lo + delta * hi;
}

/*
 * The quantiles of tenths by counting, where their range is narrow (a
 * utilisation, a size in MiB): one pass of increments instead of
 * selections, the same order statistics. c counts the values lo + v;
 * rank and the count below v (cum) move up only, as the quantiles do.
 */
#define TENTHS_COUNTED_RANGE ((int64_t)1 << 20)	/* 4 MiB of counts */
#define TENTHS_COUNTED_MIN 65536		/* fewer values: selection */

struct counted {
	const uint32_t *c;
	int32_t lo;
	size_t v;	/* the value lo + v holds ranks cum .. cum + c[v] - 1 */
	uint64_t cum;
};

/* The value of rank r (0-based; r at or past the last one asked) as a double. */
static double counted_rank(struct counted *q, uint64_t r)
{
	while (q->cum + q->c[q->v] <= r)
		q->cum += q->c[q->v++];
	return (double)(q->lo + (int32_t)q->v) / 10.0;
}

/* quantile_select's value by counted ranks */
static double quantile_counted(struct counted *q, size_t n, double f)
{
	double h = (double)(n - 1) * f;
	size_t k = (size_t)floor(h);
	double delta = h - (double)k, lo, hi;

	lo = counted_rank(q, k);
	if (k + 1 >= n || delta == 0)
		return lo;
	hi = counted_rank(q, k + 1);
	return (1 - delta) * lo + delta * hi;
}

/* The four quantiles of t[0..n) (n > 0, min and max in d) by counting;
 * false when the range is wide or the counts cannot be had. */
static bool quantiles_counted(const int32_t *t, size_t n, struct gl_stats_desc *d)
{
	const int32_t lo = (int32_t)lround(d->min * 10.0), hi = (int32_t)lround(d->max * 10.0);
	const int64_t range = (int64_t)hi - lo + 1;
	uint32_t *c;

	if (n < TENTHS_COUNTED_MIN || n > UINT32_MAX || range > TENTHS_COUNTED_RANGE ||
	    !(c = calloc((size_t)range, sizeof(*c))))
		return false;
	for (size_t i = 0; i < n; i++)
		c[t[i] - lo]++;
	struct counted q = {.c = c, .lo = lo};

	d->p50 = quantile_counted(&q, n, 0.50);
	d->p90 = quantile_counted(&q, n, 0.90);
	d->p95 = quantile_counted(&q, n, 0.95);
	d->p99 = quantile_counted(&q, n, 0.99);
	free(c);
	return true;
}

/* The doubles t[from..to) / 10.0 into out[0..to - from). */
static void tenths_chunk(const int32_t *t, size_t from, size_t to, double *out)
{
	for (size_t i = from; i < to; i++)
		out[i - from] = (double)t[i] / 10.0;
}

#define TENTHS_CHUNK 2048	/* values made doubles at a time, per array */

/* describe_group for arrays of tenths: the same passes over their doubles,
 * made a chunk at a time, and the quantiles selected among the tenths */
static void describe_group_tenths(int32_t *const *t, const size_t *n, size_t k,
				  struct gl_stats_desc *d)
{
	struct run r[4] = {{0}};
	double buf[4][TENTHS_CHUNK];
	const double *xs[4];
	double mean[4];
	size_t common = SIZE_MAX, to;

	for (size_t j = 0; j < 4; j++) {
		size_t src = j < k ? j : 0;	/* a short group repeats its first array */

		xs[j] = buf[src];
		if (n[src] < common)
			common = n[src];
		if (n[src])
			r[j].min = r[j].max = (double)t[src][0] / 10.0;
	}
	if (k > 1) {
		for (size_t from = 0; from < common; from = to) {
			to = common - from < TENTHS_CHUNK ? common : from + TENTHS_CHUNK;
			for (size_t j = 0; j < k; j++)
				tenths_chunk(t[j], from, to, buf[j]);
			pass1_four(xs, from, from, to, r);
		}
	} else {
		common = 0;
	}
	for (size_t j = 0; j < k; j++) {
		for (size_t from = common; from < n[j]; from = to) {
			to = n[j] - from < TENTHS_CHUNK ? n[j] : from + TENTHS_CHUNK;
			tenths_chunk(t[j], from, to, buf[0]);
			pass1_one(buf[0], from, from, to, &r[j]);
		}
		mean[j] = (double)r[j].mean;
	}
	for (size_t j = k; j < 4; j++)
		mean[j] = mean[0];
	if (k > 1) {
		for (size_t from = 0; from < common; from = to) {
			to = common - from < TENTHS_CHUNK ? common : from + TENTHS_CHUNK;
			for (size_t j = 0; j < k; j++)
				tenths_chunk(t[j], from, to, buf[j]);
			pass2_four(xs, from, from, to, mean, r);
		}
	}
	for (size_t j = 0; j < k; j++) {
		size_t from = 0;

		for (size_t at = common; at < n[j]; at = to) {
			to = n[j] - at < TENTHS_CHUNK ? n[j] : at + TENTHS_CHUNK;
			tenths_chunk(t[j], at, to, buf[0]);
			pass2_one(buf[0], at, at, to, mean[j], &r[j].var);
		}
		if (!desc_fill(&d[j], &r[j], n[j], mean[j]) || quantiles_counted(t[j], n[j], &d[j]))
			continue;
		d[j].p50 = quantile_select_tenths(t[j], n[j], 0.50, &from);
		d[j].p90 = quantile_select_tenths(t[j], n[j], 0.90, &from);
		d[j].p95 = quantile_select_tenths(t[j], n[j], 0.95, &from);
		d[j].p99 = quantile_select_tenths(t[j], n[j], 0.99, &from);
	}
}

void gl_stats_describe_tenths(int32_t *const *t, const size_t *n, size_t k,
			      struct gl_stats_desc *d)
{
	for (size_t i = 0; i < k; i += 4)
		describe_group_tenths(t + i, n + i, k - i < 4 ? k - i : 4, d + i);
}

/* GSL's default error handler aborts; its setting is one global, set once here. */
static pthread_once_t gsl_quiet_once = PTHREAD_ONCE_INIT;

static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

void gl_stats_describe_many(double *const *x, const size_t *n, size_t k, struct gl_stats_desc *d)
{
	pthread_once(&gsl_quiet_once, gsl_quiet);	/* the report's threads call this at once */
	for (size_t i = 0; i < k; i += 4)
		describe_group(x + i, n + i, k - i < 4 ? k - i : 4, d + i);
}

void gl_stats_describe(double *x, size_t n, struct gl_stats_desc *d)
{
	gl_stats_describe_many(&x, &n, 1, d);
}

double gl_stats_quantile_sorted(const double *x, size_t n, double f)
{
	return n ? gsl_stats_quantile_from_sorted_data(x, 1, n, f) : NAN;
}

double gl_stats_histogram_quantile(double q, const double *upper, double *cum, size_t n)
{
	double rank, start, count;
	size_t b = 0;

	if (n < 2 || !isinf(upper[n - 1]) || upper[n - 1] < 0 || isnan(q) || q < 0 || q > 1)
		return NAN;
	for (size_t i = 1; i < n; i++)
		if (cum[i] < cum[i - 1])
			cum[i] = cum[i - 1];
	if (!(cum[n - 1] > 0))
		return NAN;
	rank = q * cum[n - 1];
	while (b < n - 1 && cum[b] < rank)
		b++;
	if (b == n - 1)
		return upper[n - 2];
	if (b == 0 && upper[0] <= 0)
		return upper[0];
	start = b ? upper[b - 1] : 0;
	count = cum[b];
	if (b) {
		count -= cum[b - 1];
		rank -= cum[b - 1];
	}
	return count > 0 ? start + (upper[b] - start) * (rank / count) : upper[b];
}

void gl_fit_acc_init(struct gl_fit_acc *acc)
{
	*acc = (struct gl_fit_acc){0};
}

/* slope, r2 and the t-test from the centred sums. */
static void fit_from_sums(uint64_t n, double mean_x, double mean_y, double sxx,
			  double syy, double sxy, struct gl_fit *fit)
{
	fit->n = n;
	fit->slope = fit->intercept = fit->r2 = fit->p_value = NAN;
	if (n < 2 || !(sxx > 0))
		return;
	fit->slope = sxy / sxx;
	fit->intercept = mean_y - fit->slope * mean_x;
	if (!(syy > 0))
		return;
	fit->r2 = sxy * sxy / (sxx * syy);
	if (fit->r2 > 1)
		fit->r2 = 1;
	if (n < 3)
		return;
	double sse = syy - sxy * sxy / sxx;
	if (sse <= 0) {
		fit->p_value = 0;
		return;
	}
	double se = sqrt(sse / (double)(n - 2) / sxx);
	double t = fabs(fit->slope / se);
	fit->p_value = 2 * gsl_cdf_tdist_Q(t, (double)(n - 2));
}

void gl_fit_acc_finish(const struct gl_fit_acc *acc, struct gl_fit *fit)
{
	fit_from_sums(acc->n, acc->mean_x, acc->mean_y, acc->sxx, acc->syy, acc->sxy, fit);
}

void gl_stats_fit_linear(const double *x, const double *y, size_t n, struct gl_fit *fit)
{
	double c0, c1, cov00, cov01, cov11, sumsq;

	pthread_once(&gsl_quiet_once, gsl_quiet);
	fit->n = n;
	fit->slope = fit->intercept = fit->r2 = fit->p_value = NAN;
	if (n < 2)
		return;
	double mx = gsl_stats_mean(x, 1, n), my = gsl_stats_mean(y, 1, n);
	double sxx = gsl_stats_tss_m(x, 1, n, mx), syy = gsl_stats_tss_m(y, 1, n, my);
	if (!(sxx > 0))
		return;
	gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	fit->slope = c1;
	fit->intercept = c0;
	if (!(syy > 0))
		return;
	fit->r2 = 1 - sumsq / syy;
	if (fit->r2 < 0)
		fit->r2 = 0;
	if (n < 3)
		return;
	if (!(cov11 > 0)) {
		fit->p_value = 0;
		return;
	}
	fit->p_value = 2 * gsl_cdf_tdist_Q(fabs(c1 / sqrt(cov11)), (double)(n - 2));
}

double gl_stats_welch_p(double mean_a, double var_a, uint64_t n_a,
			double mean_b, double var_b, uint64_t n_b)
{
	if (n_a < 2 || n_b < 2 || isnan(var_a) || isnan(var_b))
		return NAN;
	double qa = var_a / (double)n_a, qb = var_b / (double)n_b;
	double se2 = qa + qb;
	if (!(se2 > 0))
		return mean_a == mean_b ? NAN : 0;
	double t = fabs(mean_a - mean_b) / sqrt(se2);
	double df = se2 * se2 / (qa * qa / (double)(n_a - 1) + qb * qb / (double)(n_b - 1));
	return 2 * gsl_cdf_tdist_Q(t, df);
}

struct gl_anomaly {
	struct gl_anomaly_params p;
	size_t seen;			/* samples in the window so far (<= window) */
	const gsl_movstat_accum *centre_acc, *spread_acc;
	void *centre_state, *spread_state;
};

struct gl_anomaly *gl_anomaly_new(const struct gl_anomaly_params *p)
{
	struct gl_anomaly *a = calloc(1, sizeof(*a));
	size_t w = p->window ? p->window : 1;

	if (!a)
		return NULL;
	a->p = *p;
	a->p.window = w;
	/* mad: one accumulator gives both the median and the scaled MAD */
	a->centre_acc = p->robust ? gsl_movstat_accum_mad : gsl_movstat_accum_mean;
	a->spread_acc = p->robust ? NULL : gsl_movstat_accum_sd;
	a->centre_state = malloc(a->centre_acc->size(w));
	if (a->spread_acc)
		a->spread_state = malloc(a->spread_acc->size(w));
	if (!a->centre_state || (a->spread_acc && !a->spread_state)) {
		gl_anomaly_free(a);
		return NULL;
	}
	a->centre_acc->init(w, a->centre_state);
	if (a->spread_acc)
		a->spread_acc->init(w, a->spread_state);
	return a;
}

void gl_anomaly_free(struct gl_anomaly *a)
{
	if (!a)
		return;
	free(a->centre_state);
	free(a->spread_state);
	free(a);
}

int gl_anomaly_push(struct gl_anomaly *a, double x, double *centre, double *spread,
		    double *z)
{
	int verdict = -1;

	if (a->seen >= a->p.min_samples && a->seen > 0) {
		double r[2] = {NAN, NAN}, sd = NAN;
		double scale = 1.482602218505602;	/* MAD -> sigma of a normal */

		a->centre_acc->get(&scale, r, a->centre_state);
		if (a->spread_acc)
			a->spread_acc->get(NULL, &sd, a->spread_state);
		else
			sd = r[1];
		verdict = 0;
		if (sd > 0 && x - r[0] > a->p.k * sd) {
			*centre = r[0];
			*spread = sd;
			*z = (x - r[0]) / sd;
			verdict = 1;
		}
	}
	a->centre_acc->insert(x, a->centre_state);
	if (a->spread_acc)
		a->spread_acc->insert(x, a->spread_state);
	if (a->seen < a->p.window)
		a->seen++;
	return verdict;
}
