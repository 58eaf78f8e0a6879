/*
 * trend_rules.c - what a trend means (trend_rules.h): robust change,
 * direction, slope unit, series not trended.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trend_rules.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Puts the k-th smallest of a[0..n) (k < n) at a[k], the smaller ones
 * before it and the larger after it (quickselect, median of three): the
 * value qsort would leave at a[k], in linear time instead of n log n
 * (the trends' ends of long series: a tenth of a 10M-event report's
 * samples). NaN has no order: none may be in a.
 */
static void select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		double t;

#define SWAP(i, j) (t = a[i], a[i] = a[j], a[j] = t)
		if (a[mid] < a[lo])
			SWAP(mid, lo);
		if (a[hi] < a[lo])
			SWAP(hi, lo);
		if (a[hi] < a[mid])
			SWAP(hi, mid);
		if (hi - lo < 3)
			break;		/* the three are in order: done */
		double pivot = a[mid];
		size_t i = lo, j = hi;

		/* Hoare's partition: a[lo] <= pivot <= a[hi] stop both scans */
		for (;;) {
			while (a[++i] < pivot)
				;
			while (pivot < a[--j])
				;
			if (i >= j)
				break;
			SWAP(i, j);
		}
#undef SWAP
		/* a[lo..j] <= pivot <= a[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

/*
 * The median of v[0..n), n >= 1, through a copy in tmp. By selection: a
 * value of a total order is the same whichever way it is found. Not so
 * for a zero (-0.0 equals 0.0, and which one is the median then depends
 * on the sort) nor with a NaN (no order): those through the sort as ever.
 */
static double median(const double *v, size_t n, double *tmp)
{
	double m;
	size_t k = n / 2;

	memcpy(tmp, v, n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (isnan(tmp[i]))
			goto sort;
	select_kth(tmp, n, k);
	m = tmp[k];
	if (n % 2 == 0) {
		double below = tmp[0];		/* the largest of tmp[0..k) */

		for (size_t i = 1; i < k; i++)
			if (tmp[i] > below)
				below = tmp[i];
		if (below == 0 || m == 0)
			goto sort;
		return (below + m) / 2;
	}
	if (m != 0)
		return m;
sort:
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

void gl_trend_ends_of(const double *v, size_t n, struct gl_trend_ends *e)
{
	size_t k = n / 10 ? n / 10 : 1;
	double *tmp;

	*e = (struct gl_trend_ends){NAN, NAN, NAN, NAN};
	if (n == 0)
		return;
	e->lo = e->hi = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < e->lo)
			e->lo = v[i];
		if (v[i] > e->hi)
			e->hi = v[i];
	}
	if (!(tmp = malloc(k * sizeof(*tmp))))
		return;
	e->first_med = median(v, k, tmp);
	e->last_med = median(v + n - k, k, tmp);
	free(tmp);
}

/*
 * Directions by name, first match wins; globs on the metric, kernel or
 * quantity name, lower case as the sources write them.
 */
static const struct {
	const char *glob;
	enum gl_trend_dir dir;
} dir_table[] = {
	/* counters as rates ("<metric> <labels> rate", sec_inference.c) */
	{"*fail*_total* rate", GL_DIR_UP_BAD},
	{"*error*_total* rate", GL_DIR_UP_BAD},
	{"*token*_total* rate", GL_DIR_UP_GOOD},
	{"*_total* rate", GL_DIR_NEUTRAL},
	/* a training job: loss and iteration time up are bad (the default), its
	 * speed up is good, its optimiser's own figures only move */
	{"train.it_per_s", GL_DIR_UP_GOOD},
	{"train.*tokens_per_s", GL_DIR_UP_GOOD},
	{"train.*samples_per_s", GL_DIR_UP_GOOD},
	{"train.learning_rate", GL_DIR_NEUTRAL},
	{"train.grad_norm", GL_DIR_NEUTRAL},
	{"*tokens_per_second*", GL_DIR_UP_GOOD},
	{"*throughput*", GL_DIR_UP_GOOD},
	{"*_tps", GL_DIR_UP_GOOD},
	{"*tokens/s*", GL_DIR_UP_GOOD},
	{"*cache_hit*", GL_DIR_UP_GOOD},
	{"*util*", GL_DIR_NEUTRAL},
	{"*power*", GL_DIR_NEUTRAL},
	{"*clock*", GL_DIR_NEUTRAL},
	{"*_mhz", GL_DIR_NEUTRAL},
	{"*cpu_pct", GL_DIR_NEUTRAL},
	{"*cpu_usage*", GL_DIR_NEUTRAL},
	{"*fan*", GL_DIR_NEUTRAL},
	{"*pcie*", GL_DIR_NEUTRAL},
	{"*_bytes_per_s*", GL_DIR_NEUTRAL},
	{"*running*", GL_DIR_NEUTRAL},
	{"*kv_cache*", GL_DIR_NEUTRAL},
	{"*tokens_generated*", GL_DIR_NEUTRAL},
};

enum gl_trend_dir gl_trend_direction(enum gl_trend_series s, const char *name)
{
	switch (s) {
	case GL_TREND_KERNEL:
	case GL_TREND_MEMORY:
	case GL_TREND_ERRORS:
	case GL_TREND_OPERATION:
	case GL_TREND_SCOPE:
		return GL_DIR_UP_BAD;	/* durations, memory, errors */
	case GL_TREND_METRIC:
	case GL_TREND_INFERENCE:
		break;
	}
	if (!name)
		return GL_DIR_UP_BAD;
	for (size_t i = 0; i < sizeof(dir_table) / sizeof(dir_table[0]); i++)
		if (!fnmatch(dir_table[i].glob, name, FNM_CASEFOLD))
			return dir_table[i].dir;
	return GL_DIR_UP_BAD;	/* latency, memory, temperature, errors, ... */
}

bool gl_trend_hidden_metric(const char *metric)
{
	/* counters and histogram parts (trended as rates elsewhere), and a
	 * training job's progress (step, epoch: they only count up) */
	static const char *const globs[] = {"*_total", "*_bucket", "*_count", "*_sum", "*_created",
					    "*_total{*", "train.step", "train.epoch",
					    "train.progress_steps"};

	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (!fnmatch(globs[i], metric, 0))
			return true;
	return false;
}

static void slope_unit(struct gl_report_trend *t)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"day", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	size_t u = 0;

	if (t->slope_unit && !strcmp(t->slope_unit, "record"))
		return;	/* fitted against the records' order */
	/* the largest unit that is at most a third of the span */
	while (u + 1 < sizeof(units) / sizeof(units[0]) &&
	       !(isfinite(t->span_s) && units[u].s * 3 <= t->span_s))
		u++;
	t->slope_unit = units[u].unit;
	t->slope = t->slope_per_day * units[u].s / 86400.0;
}

void gl_trend_judge(struct gl_report_trend *t, const struct gl_trend_ends *e,
		    double min_change_pct)
{
	bool have_ends = e && !isnan(e->first_med) && !isnan(e->last_med);
	/* rounding aside: an exact line through its points touches lo and hi */
	double eps = have_ends ? 1e-9 * fmax(fabs(e->hi), fabs(e->lo)) : 0;
	bool leaves = isnan(t->fit_first) || isnan(t->fit_last) ||
		      (have_ends && (t->fit_first < e->lo - eps || t->fit_first > e->hi + eps ||
				     t->fit_last < e->lo - eps || t->fit_last > e->hi + eps));

	if (have_ends && (leaves || isnan(t->change_pct)) && e->first_med > 0) {
		t->change_pct = (e->last_med - e->first_med) / e->first_med * 100;
		t->change_from = "ends";
	}
	if (!isnan(t->change_pct) && t->change_pct < -100)
		t->change_pct = -100;
	if (isnan(t->change_pct))
		t->change_from = NULL;
	slope_unit(t);
	if (t->verdict == GL_VERDICT_STABLE || t->verdict == GL_VERDICT_LEAK)
		return;
	/* the robust change may say the move is too small to tell */
	if (!isnan(t->change_pct) && fabs(t->change_pct) < min_change_pct) {
		t->verdict = GL_VERDICT_STABLE;
		return;
	}
	/* no change in % (a start at 0): the slope's sign */
	bool up = isnan(t->change_pct) ? t->slope_per_day > 0 : t->change_pct > 0;

	switch (gl_trend_direction(t->series, t->kernel)) {
	case GL_DIR_UP_BAD:
		t->verdict = up ? GL_VERDICT_DEGRADING : GL_VERDICT_IMPROVING;
		break;
	case GL_DIR_UP_GOOD:
		t->verdict = up ? GL_VERDICT_IMPROVING : GL_VERDICT_DEGRADING;
		break;
	case GL_DIR_NEUTRAL:
		t->verdict = up ? GL_VERDICT_RISING : GL_VERDICT_FALLING;
		break;
	}
}
