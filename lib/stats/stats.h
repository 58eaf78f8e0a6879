/*
 * stats.h - the statistics of gpulog-report, and the only code that uses
 * GSL. In: arrays of doubles or a stream of (x, y) points. Out: plain
 * numbers. An undefined statistic (the standard deviation of one sample, a
 * regression over identical values) is NAN, never a made-up number; the
 * emitters print NAN as null.
 */
#ifndef GL_STATS_H
#define GL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Descriptive statistics of one sample. */
struct gl_stats_desc {
	size_t n;
	double min, max;
	double mean;
	double sd;			/* sample standard deviation (n - 1); NAN for n < 2 */
	double var;			/* sample variance (n - 1); NAN for n < 2 */
	double p50, p90, p95, p99;	/* gsl_stats_quantile_from_sorted_data */
	double sum;
};

/*
 * Describes x[0..n), reordering it (quantiles by selection, O(n), not by a
 * full sort). n 0: every field NAN except n and sum (0).
 */
void gl_stats_describe(double *x, size_t n, struct gl_stats_desc *d);

/*
 * gl_stats_describe of x[j][0..n[j]) into d[j] for j < k, the same figures
 * bit for bit, in less time: the running mean and variance (GSL's
 * recurrences, chains of divisions) of four arrays run side by side. Give
 * arrays of similar lengths together: side by side goes as far as the
 * shortest of each four.
 */
void gl_stats_describe_many(double *const *x, const size_t *n, size_t k, struct gl_stats_desc *d);

/*
 * gl_stats_describe_many of the doubles t[j][i] / 10.0 (i < n[j]), the same
 * figures bit for bit, from the int32 tenths as util/values keeps one-decimal
 * figures: no array of doubles is made (a chunk at a time is), and the
 * quantiles are selected among the tenths, reordering t[j].
 */
void gl_stats_describe_tenths(int32_t *const *t, const size_t *n, size_t k,
			      struct gl_stats_desc *d);

/*
 * Quantile f (0..1) of sorted x by linear interpolation between order
 * statistics: x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)]),
 * h = (n - 1) f. NAN for n 0.
 */
double gl_stats_quantile_sorted(const double *x, size_t n, double f);

/*
 * Quantile q (0..1) of a Prometheus histogram as histogram_quantile() does:
 * upper[0..n) the buckets' upper bounds (le), ascending, the last +Inf;
 * cum[0..n) their cumulative counts (made monotonic first, as Prometheus
 * does). The rank q * cum[n-1] falls in the first bucket whose count
 * reaches it, and the value is interpolated linearly inside that bucket
 * (from 0 for the first bucket when its bound is positive); a rank in the
 * +Inf bucket gives the largest finite bound. NAN when n < 2, the last
 * bound is not +Inf, there are no observations or q is outside [0, 1].
 * cum is modified.
 */
double gl_stats_histogram_quantile(double q, const double *upper, double *cum, size_t n);

/* A least-squares line y = intercept + slope * x. */
struct gl_fit {
	uint64_t n;
	double slope;			/* NAN when n < 2 or all x are equal */
	double intercept;
	double r2;			/* NAN when all y (or all x) are equal */
	double p_value;			/* two-sided t-test of slope = 0, n - 2 df; NAN if n < 3 */
};

/*
 * Streaming least squares: the sums of a fit, updated one point at a time
 * with centred co-moments (Welford), so that a fit over millions of points
 * keeps no arrays and loses no precision. gl_fit_acc_finish gives the same
 * line as gsl_fit_linear over the same points (the unit tests check it).
 */
struct gl_fit_acc {
	uint64_t n;
	double mean_x, mean_y;
	double sxx, syy, sxy;		/* sums of centred squares and products */
};

void gl_fit_acc_init(struct gl_fit_acc *acc);
/* Inline: a report adds one point per metric sample, tens of millions. */
static inline void gl_fit_acc_add(struct gl_fit_acc *acc, double x, double y)
{
	double dx = x - acc->mean_x, dy = y - acc->mean_y;

	acc->n++;
	acc->mean_x += dx / (double)acc->n;
	acc->mean_y += dy / (double)acc->n;
	acc->sxx += dx * (x - acc->mean_x);
	acc->syy += dy * (y - acc->mean_y);
	acc->sxy += dx * (y - acc->mean_y);
}
void gl_fit_acc_finish(const struct gl_fit_acc *acc, struct gl_fit *fit);

/* Least squares over arrays through gsl_fit_linear, same conventions. */
void gl_stats_fit_linear(const double *x, const double *y, size_t n, struct gl_fit *fit);

/*
 * Welch's unequal-variance t-test of mean a = mean b from the summaries of
 * two samples (variances n - 1). Two-sided p-value; NAN when either n < 2,
 * or when both variances are 0 and the means are equal; 0 when both
 * variances are 0 and the means differ.
 */
double gl_stats_welch_p(double mean_a, double var_a, uint64_t n_a,
			double mean_b, double var_b, uint64_t n_b);

/* Anomalies: a sample against the samples before it. */
struct gl_anomaly_params {
	bool robust;		/* false: mean and sd; true: median and 1.4826 * MAD */
	double k;		/* anomalous when x - centre > k * spread */
	size_t window;		/* previous samples considered (w >= 1) */
	size_t min_samples;	/* fewer previous samples: not judged */
};

/*
 * A streaming detector for one series (one kernel): each sample is judged
 * against the window of samples before it, then joins the window. Uses the
 * gsl_movstat accumulators (mean and sd, or median and MAD), so memory is
 * O(window) per series and time O(1) (O(window) for MAD) per sample.
 */
struct gl_anomaly;

/* NULL when out of memory. p is copied. */
struct gl_anomaly *gl_anomaly_new(const struct gl_anomaly_params *p);
void gl_anomaly_free(struct gl_anomaly *a);

/*
 * Judges x, then adds it to the window. Returns 1 when x is anomalous
 * (centre, spread and z filled: z = (x - centre) / spread), 0 when it is
 * not, -1 when it was not judged (fewer than min_samples before it).
 * x is anomalous when, over the min(seen, window) samples before it,
 * spread > 0 and x - centre > k * spread.
 */
int gl_anomaly_push(struct gl_anomaly *a, double x, double *centre, double *spread,
		    double *z);

/* Change points (change.c). */
enum gl_change_kind {
	GL_CHANGE_NONE = 0,
	GL_CHANGE_WINDOW,	/* went up (or down) and came back */
	GL_CHANGE_STEP,		/* went up (or down) and stayed until the end */
	GL_CHANGE_TREND,	/* moved steadily over the whole series */
};

struct gl_change_params {
	double min_change_pct;	/* smallest change of the medians that counts (20) */
	double p_value;		/* a split is kept below this p-value (0.001) */
	size_t min_points;	/* fewest points either side of a split (3) */
	double trend_r2;	/* a line must explain this share of the variance (0.6) */
};

void gl_stats_change_params_default(struct gl_change_params *p);

/* The main change of a series; points [start, end) changed. */
struct gl_change {
	enum gl_change_kind kind;
	size_t start, end;
	double before;		/* median of the points outside [start, end) (step: before it;
				   trend: of the first tenth) */
	double during;		/* median of [start, end) (trend: of the last tenth) */
	double change_pct;	/* during vs before */
	double p_value;		/* Welch's t-test (log values when all > 0) inside vs outside;
				   trend: the slope's t-test */
};

/*
 * The main change of x[0..n), a series of medians over consecutive time
 * buckets (empty buckets left out), by binary segmentation with a
 * significance test and a minimum effect; a steady trend is told first by a
 * line that fits better than any single step. kind GL_CHANGE_NONE: none
 * (fewer than 3 x min_points points, no significant split as large as
 * min_change_pct). Returns 0, or -1 when out of memory.
 */
int gl_stats_change_find(const double *x, size_t n, const struct gl_change_params *p,
			 struct gl_change *c);

#endif
