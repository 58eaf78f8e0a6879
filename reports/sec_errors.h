/*
 * sec_errors.h - what the errors section (sec_errors.c) keeps in its own
 * state: its results (WARN and above, rates, message shapes, counters),
 * read by the other sections (alerts), the HTML page and tests through
 * gl_errors_result; and, when charts are asked for, its chart data: ERROR
 * and CRITICAL events per time bucket, by component (the components with
 * most errors, the rest "other").
 */
#ifndef GL_SEC_ERRORS_H
#define GL_SEC_ERRORS_H

#include "report.h"

#define GL_PNG_ERRORS "error_rate.png"
#define GL_ERRORS_CHART_GROUPS 8	/* components with most errors; the rest is "other" */

/* Messages of one shape: "cudaMalloc failed for <size> at <hex>". */
struct gl_report_shape {
	char *shape;
	int level;			/* enum gl_level of its records: one shape per level */
	uint64_t count;
	int64_t first_ts_us;
	int64_t last_ts_us;
	char *sample;			/* the first message of this shape, up to 512 bytes */
};

struct gl_report_errors {
	uint64_t errors;		/* ERROR + CRITICAL events */
	uint64_t warnings;		/* WARN events */
	struct gl_report_count *by_component;	/* WARN and above, sorted by name */
	size_t n_by_component;
	uint64_t by_level[GL_LEVEL_CRITICAL + 1];	/* only WARN.. filled */
	double per_1000_events;		/* errors per 1,000 events; NAN when no events */
	double per_hour;		/* errors per hour of window */
	struct gl_report_shape *top_messages;	/* most frequent first, at most top */
	size_t n_top_messages;
	uint64_t shapes;		/* distinct shapes counted */
	uint64_t shapes_overflow;	/* messages not counted by shape: table full */
	uint64_t mirrored;		/* mirrored ERROR+ records left out (see summary.duplicates) */
	/*
	 * gpu_metrics.error_count and recovery_attempts are running totals of
	 * the logging process, copied into every line: their increase over the
	 * window is summed over the sources (a component on a host within one
	 * log stream), never the values. A
	 * value below the previous one of its source is a restart: a new run
	 * whose value counts in full (Prometheus' increase(), no extrapolation).
	 */
	uint64_t recovery_attempts;	/* increase over the window, all sources */
	uint64_t recovery_attempts_max;	/* largest value seen */
	uint64_t error_count;		/* increase over the window, all sources */
	uint64_t error_count_max;	/* largest value seen */
	uint64_t counter_sources;	/* sources that carried either counter */
	uint64_t counter_restarts;	/* drops seen (a new run each) */
	uint64_t sink_components;	/* components whose records were all ERROR+ */
};

/* The section's results in rep; none (no events) when rep holds no errors state. The
 * result comes first in the state (a hand-made model's to fill). */
const struct gl_report_errors *gl_errors_result(const struct gl_report *rep);

struct gl_errors_chart {
	/* a second, minute, hour or day: the largest giving the axis at most ~200 buckets */
	int64_t bucket_us;
	int64_t bucket0_us;		/* start of bucket 0: the axis' start down to a whole bucket (UTC) */
	size_t n_buckets;
	size_t n_groups;		/* after the build */
	char *group[GL_ERRORS_CHART_GROUPS];	/* component names, owned */
	uint64_t *count;		/* count[g * n_buckets + b] */
	/* while the build runs: per component id (n_ids), n_buckets counts or NULL */
	uint64_t **rows;
	size_t n_ids;
};

/* Buckets over the time axis [t0_us, t1_us), rows for n_ids component ids. */
int gl_errors_chart_begin(struct gl_errors_chart *c, int64_t t0_us, int64_t t1_us, size_t n_ids,
			  struct gl_err *err);

void gl_errors_chart_release(struct gl_errors_chart *c);

/* The errors section's chart data in rep; NULL when it holds none. */
const struct gl_errors_chart *gl_errors_chart(const struct gl_report *rep);

#endif
