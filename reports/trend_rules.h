/*
 * trend_rules.h - what a trend means. In: a fitted line (struct
 * gl_report_trend, from gl_section_trend) and, where the section kept them,
 * the data's own values in time order. Out: the trend's change, verdict and
 * slope as a reader needs them:
 *
 * - The change is from the fitted line's value at the first point to its
 *   value at the last, unless the line leaves the data's range (a kernel
 *   slowing x35 on a curve: the line starts below zero, and the change was
 *   null; a fall that the line carries below zero: -104%). Then it is taken
 *   from the data's own start and end, robustly: the medians of its first
 *   and last tenth. It is never below -100%, and a significant verdict
 *   always carries it.
 * - The direction: a rise of throughput or tokens/s is good (improving); of
 *   latency, durations, errors, memory or temperature bad (degrading); of
 *   utilisation or power neither (rising, falling).
 * - The slope in the unit of the data's own span: per second, minute, hour
 *   or day, not per day extrapolated from five minutes.
 * - Series that are no quantity over time are not trended: a Prometheus
 *   counter's raw running total (*_total), a histogram's parts (_bucket,
 *   _count, _sum), _created (a Unix time).
 */
#ifndef GL_TREND_RULES_H
#define GL_TREND_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"

/* The data's own start and end: NAN fields when unknown. */
struct gl_trend_ends {
	double first_med, last_med;	/* medians of the first and the last tenth (>= 1 value) */
	double lo, hi;			/* the smallest and largest value */
};

/* From v[0..n) in time order. All NAN when n is 0. */
void gl_trend_ends_of(const double *v, size_t n, struct gl_trend_ends *e);

enum gl_trend_dir {
	GL_DIR_UP_BAD,		/* latency, duration, errors, memory, temperature */
	GL_DIR_UP_GOOD,		/* throughput, tokens/s */
	GL_DIR_NEUTRAL,		/* utilisation, power: rising or falling */
};

/* The direction of a quantity, by its series and name (metric, kernel, ...). */
enum gl_trend_dir gl_trend_direction(enum gl_trend_series s, const char *name);

/* Is this metric no quantity to trend (counter totals, histogram parts, _created)? */
bool gl_trend_hidden_metric(const char *metric);

/*
 * Completes t (after gl_section_trend, with t->series and t->kernel set):
 * the change (robust from e when the fitted line leaves [e->lo, e->hi] or
 * gives none; e may be NULL), clamped at -100%; a verdict that the change
 * is below min_change_pct in size made stable; the verdict's word from the
 * direction (LEAK kept); slope and slope_unit from the span.
 */
void gl_trend_judge(struct gl_report_trend *t, const struct gl_trend_ends *e,
		    double min_change_pct);

#endif /* GL_TREND_RULES_H */
