/*
 * series.h - the per-sample series the charts need and the report model
 * does not carry: durations of the top kernels over time, their
 * histograms, the trend kernels' points, memory in use, RMM outstanding
 * bytes, and errors per time bucket by component.
 *
 * In: an open query handle (read-only), the same window and filters as the
 * report, and the built report (it names the top kernels, their quantiles
 * and the trend verdicts). Out: a struct gl_series of reduced data (time
 * columns, histograms, counts): one pass over the window's events and one
 * over its RMM rows; no sample array is kept.
 */
#ifndef GL_SERIES_H
#define GL_SERIES_H

#include "chart.h"
#include "report.h"
#include "sections.h"
#include "store/query.h"

#define GL_SERIES_TOP_DEFAULT 8
#define GL_SERIES_TOP_MAX 12
#define GL_SERIES_TREND_COLUMNS 96	/* points per trend kernel */
#define GL_SERIES_HIST_BINS 48
#define GL_SERIES_ERROR_GROUPS 8	/* components with most errors; the rest is "other" */

struct gl_series {
	int64_t since_us, until_us;

	/* Top kernels by total time, as rep->kernels orders them. */
	size_t n_top;
	const char *top_name[GL_SERIES_TOP_MAX];	/* borrowed from the report */
	struct gl_chart_cols top_cols[GL_SERIES_TOP_MAX];	/* dur_us, anomaly = logs' flag */
	struct gl_chart_hist top_hist[GL_SERIES_TOP_MAX];	/* dur_us, p50/p95 of the report */

	/* Kernels whose trend verdict is degrading or improving. */
	size_t n_trend;
	const struct gl_report_trend *trend[GL_SERIES_TOP_MAX];	/* borrowed */
	struct gl_chart_cols trend_cols[GL_SERIES_TOP_MAX];

	struct gl_chart_cols mem;	/* events.mem_mb, MiB */
	struct gl_chart_cols rmm;	/* RMM outstanding bytes after each row, MiB */
	uint64_t rmm_rows;

	/* Errors (ERROR and CRITICAL) per bucket: count[g * n_buckets + b]. */
	int64_t bucket_us;		/* one hour, or one day for windows over 3 days */
	size_t n_buckets;
	size_t n_groups;
	char *group[GL_SERIES_ERROR_GROUPS];	/* component names, owned */
	uint64_t *count;
};

/*
 * Fills s from the database. top is the number of top kernels to chart
 * (0: GL_SERIES_TOP_DEFAULT; at most GL_SERIES_TOP_MAX). On failure s is
 * released.
 */
int gl_series_load(struct gl_query *q, const struct gl_report_params *p,
		   const struct gl_report *rep, size_t top, struct gl_series *s,
		   struct gl_err *err);

/* Frees what s owns; s may be zeroed or released already. */
void gl_series_release(struct gl_series *s);

#endif
