/*
 * stats.c - descriptive statistics, quantiles, least squares, Welch's test
 * and moving-window anomalies, all on top of GSL. In: doubles. Out: plain
 * numbers, NAN for what is undefined.
 */
#include "stats/stats.h"

#include <math.h>
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

void gl_stats_run_init(struct gl_stats_run *r)
{
	*r = (struct gl_stats_run){0};
}

/*
 * GSL's own recurrences, step for step, so that the figures keep their
 * last bit: gsl_stats_mean (statistics/mean_source.c) keeps its running
 * mean in a long double, mean += (x - mean) / (i + 1); gsl_stats_minmax
 * starts from the first value, takes a smaller (larger) one as it comes
 * and stops at the first NaN, which becomes both; the sum is plain double
 * addition in order.
 */
void gl_stats_run_add(struct gl_stats_run *r, double x)
{
	if (r->n == 0)
		r->min = r->max = x;
	r->n++;
	r->sum += x;
	r->mean += (x - r->mean) / (long double)r->n;
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
 * gsl_stats_variance_m (statistics/variance_source.c): the difference to
 * the mean in double, its square and the running variance in long double,
 * variance += (delta * delta - variance) / (i + 1), then times n / (n - 1)
 * in double.
 */
static double variance_m(const double *x, size_t n, double mean)
{
	long double var = 0;

	for (size_t i = 0; i < n; i++) {
		const long double delta = x[i] - mean;

		var += (delta * delta - var) / (long double)(i + 1);
	}
	return (double)var * ((double)n / (double)(n - 1));
}

void gl_stats_describe_run(double *x, size_t n, const struct gl_stats_run *r,
			   struct gl_stats_desc *d)
{
	size_t from = 0;

	d->n = n;
	d->sum = 0;
	d->min = d->max = d->mean = d->sd = d->var = NAN;
	d->p50 = d->p90 = d->p95 = d->p99 = NAN;
	if (n == 0)
		return;
	gsl_set_error_handler_off();	/* GSL's default handler aborts */
	d->sum = r->sum;
	d->min = r->min;
	d->max = r->max;
	d->mean = (double)r->mean;
	if (n >= 2) {
		d->var = variance_m(x, n, d->mean);
		d->sd = sqrt(d->var);
	}
	/* ascending quantiles, each selecting in what is left above the last */
	d->p50 = quantile_select(x, n, 0.50, &from);
	d->p90 = quantile_select(x, n, 0.90, &from);
	d->p95 = quantile_select(x, n, 0.95, &from);
	d->p99 = quantile_select(x, n, 0.99, &from);
}

void gl_stats_describe(double *x, size_t n, struct gl_stats_desc *d)
{
	struct gl_stats_run r;

	gl_stats_run_init(&r);
	for (size_t i = 0; i < n; i++)
		gl_stats_run_add(&r, x[i]);
	gl_stats_describe_run(x, n, &r, d);
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

void gl_fit_acc_add(struct gl_fit_acc *acc, double x, double y)
{
	double dx = x - acc->mean_x, dy = y - acc->mean_y;

	acc->n++;
	acc->mean_x += dx / (double)acc->n;
	acc->mean_y += dy / (double)acc->n;
	acc->sxx += dx * (x - acc->mean_x);
	acc->syy += dy * (y - acc->mean_y);
	acc->sxy += dx * (y - acc->mean_y);
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

	gsl_set_error_handler_off();	/* GSL's default handler aborts */
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
