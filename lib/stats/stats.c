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
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_vector.h>

void gl_stats_describe(double *x, size_t n, struct gl_stats_desc *d)
{
	d->n = n;
	d->sum = 0;
	d->min = d->max = d->mean = d->sd = d->var = NAN;
	d->p50 = d->p90 = d->p95 = d->p99 = NAN;
	if (n == 0)
		return;
	gsl_sort(x, 1, n);
	for (size_t i = 0; i < n; i++)
		d->sum += x[i];
	d->min = x[0];
	d->max = x[n - 1];
	d->mean = gsl_stats_mean(x, 1, n);
	if (n >= 2) {
		d->var = gsl_stats_variance_m(x, 1, n, d->mean);
		d->sd = sqrt(d->var);
	}
	d->p50 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50);
	d->p90 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.90);
	d->p95 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
	d->p99 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99);
}

double gl_stats_quantile_sorted(const double *x, size_t n, double f)
{
	return n ? gsl_stats_quantile_from_sorted_data(x, 1, n, f) : NAN;
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

#define ANOMALY_BLOCK 65536

int gl_stats_anomalies(const double *x, size_t n, const struct gl_anomaly_params *p,
		       gl_anomaly_fn fn, void *arg, uint64_t *judged)
{
	size_t w = p->window ? p->window : 1;
	size_t cap = ANOMALY_BLOCK + w;
	gsl_movstat_workspace *ws = NULL;
	gsl_vector *centre = NULL, *spread = NULL;
	int rc = -1;

	gsl_set_error_handler_off();	/* GSL's default handler aborts */
	*judged = 0;
	if (n < 2)
		return 0;
	ws = gsl_movstat_alloc2(w - 1, 0);
	centre = gsl_vector_alloc(cap);
	spread = gsl_vector_alloc(cap);
	if (!ws || !centre || !spread)
		goto out;
	/*
	 * x[i] is judged against the window that ends at x[i - 1]. A block
	 * judges x[a..b) and runs movstat over x[s..b-1), where s starts w - 1
	 * samples before a - 1 so that every window used is complete (or
	 * truncated at x[0], exactly as over the whole array).
	 */
	for (size_t a = 1; a < n; a += ANOMALY_BLOCK) {
		size_t b = a + ANOMALY_BLOCK < n ? a + ANOMALY_BLOCK : n;
		size_t s = a - 1 >= w - 1 ? a - 1 - (w - 1) : 0;
		size_t len = b - 1 - s;
		gsl_vector_const_view in = gsl_vector_const_view_array(x + s, len);
		gsl_vector_view c = gsl_vector_subvector(centre, 0, len);
		gsl_vector_view sp = gsl_vector_subvector(spread, 0, len);

		if (p->robust) {
			gsl_movstat_mad(GSL_MOVSTAT_END_TRUNCATE, &in.vector, &c.vector,
					&sp.vector, ws);
		} else {
			gsl_movstat_mean(GSL_MOVSTAT_END_TRUNCATE, &in.vector, &c.vector, ws);
			gsl_movstat_sd(GSL_MOVSTAT_END_TRUNCATE, &in.vector, &sp.vector, ws);
		}
		for (size_t i = a; i < b; i++) {
			size_t prev = i < w ? i : w;
			size_t j = i - 1 - s;
			double m = gsl_vector_get(&c.vector, j), sd = gsl_vector_get(&sp.vector, j);

			if (prev < p->min_samples)
				continue;
			(*judged)++;
			if (sd > 0 && x[i] - m > p->k * sd)
				fn(arg, i, x[i], m, sd, (x[i] - m) / sd);
		}
	}
	rc = 0;
out:
	gsl_vector_free(centre);
	gsl_vector_free(spread);
	if (ws)
		gsl_movstat_free(ws);
	return rc;
}
