/*
 * sec_errors.h - the chart data the errors section (sec_errors.c) keeps in
 * its own state when charts are asked for: ERROR and CRITICAL events per
 * time bucket, by component (the components with most errors, the rest
 * "other"). For its chart and for tests.
 */
#ifndef GL_SEC_ERRORS_H
#define GL_SEC_ERRORS_H

#include "report.h"

#define GL_PNG_ERRORS "error_rate.png"
#define GL_ERRORS_CHART_GROUPS 8	/* components with most errors; the rest is "other" */

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
