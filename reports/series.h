/*
 * series.h - the per-sample series the charts need and the report model
 * does not carry: durations of the top kernels over time, their
 * histograms, the trend kernels' points, memory in use, RMM outstanding
 * bytes, and errors per time bucket by component.
 *
 * They are collected during the report's own passes over the window
 * (sections.c calls the hooks below when gl_report_params.series is set):
 * memory, RMM and errors in the event passes, the listed kernels' timings
 * in the kernel pass (section.h); the charts read nothing more. In: each event and
 * RMM row as the report sees it (after the filters). Out: a struct
 * gl_series of reduced data (time columns, histograms, counts).
 *
 * Memory is bounded, not by the number of events: every listed kernel
 * keeps GL_CHART_COLUMNS columns (48 KB; filled in the kernel pass, once
 * the listed kernels are known), every component with errors one count
 * per bucket, and the histograms are built at the end from the durations
 * the percentiles keep anyway.
 */
#ifndef GL_SERIES_H
#define GL_SERIES_H

#include <stdbool.h>

#include "chart.h"
#include "report.h"
#include "store/query.h"

#define GL_SERIES_TOP_DEFAULT 8
#define GL_SERIES_TOP_MAX 12
#define GL_SERIES_TREND_COLUMNS 100	/* points per trend kernel; divides GL_CHART_COLUMNS */
#define GL_SERIES_HIST_BINS 48
#define GL_SERIES_ERROR_GROUPS 8	/* components with most errors; the rest is "other" */

struct gl_series {
	int64_t since_us, until_us;	/* the window (the charts' titles name it) */
	/*
	 * The charts' time axis: the data's span (events and RMM rows of the
	 * window) with a margin of 2% (at least 1 s) on each side, within the
	 * window; the whole window when it holds no data.
	 */
	int64_t t0_us, t1_us;
	size_t top_max;			/* top kernels wanted (gl_series_init) */

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
	int64_t rmm_first_us, rmm_last_us;	/* earliest and latest RMM row seen */
	/*
	 * The same, in finer columns over [rmm_first_us, rmm_first_us + window
	 * / 5], while every row falls in there: a few hours of RMM activity in
	 * a 7-day window get their own time axis (the window's columns would
	 * give them a handful). Released (col NULL) once a row falls outside.
	 */
	struct gl_chart_cols rmm_zoom;

	/* Errors (ERROR and CRITICAL) per bucket: count[g * n_buckets + b]. */
	/* a second, minute, hour or day: the largest giving the span at most ~200 buckets */
	int64_t bucket_us;
	int64_t bucket0_us;		/* start of bucket 0: t0_us down to a whole bucket (UTC) */
	size_t n_buckets;
	size_t n_groups;
	char *group[GL_SERIES_ERROR_GROUPS];	/* component names, owned */
	uint64_t *count;

	/* Collection state (series.c only): per name id, NULL/empty until used. */
	size_t n_ids;
	struct gl_chart_cols *kcols;	/* per kernel id; columns only for listed kernels */
	uint64_t **err_rows;		/* per component id: n_buckets counts */
	int64_t top_id[GL_SERIES_TOP_MAX];
};

/* Zeroes s and sets the number of top kernels to chart (0: 8; at most 12). */
void gl_series_init(struct gl_series *s, size_t top);

/*
 * Before the pass: the window [since_us, until_us), the first and last time
 * of its data (GL_TS_NONE: none; gl_query_events_span) and the name id
 * slots. The time axis and the error buckets follow from the data's span.
 */
int gl_series_begin_span(struct gl_series *s, int64_t since_us, int64_t until_us,
			 int64_t data_first_us, int64_t data_last_us, size_t n_ids,
			 struct gl_err *err);

/* The same without data times: the axis spans the window. */
int gl_series_begin(struct gl_series *s, int64_t since_us, int64_t until_us, size_t n_ids,
		    struct gl_err *err);

/* One event of the window that passed the filters (memory, errors). */
int gl_series_event(struct gl_series *s, const struct gl_query_event *ev, struct gl_err *err);

/*
 * One timing of a listed kernel, from the kernel pass (section.h): only the
 * kernels the report lists get time columns.
 */
int gl_series_kernel_sample(struct gl_series *s, const struct gl_query_event *ev,
			    struct gl_err *err);

/* One RMM row; outstanding_bytes: allocated and not freed after it. */
void gl_series_rmm(struct gl_series *s, int64_t ts_us, uint64_t outstanding_bytes);

/*
 * After the pass, for rank < top_max: rep->kernels[rank] is rk, whose id is
 * kernel_id and whose durations are dur[0..n) (any order). Builds its
 * histogram. rk must outlive s (its name is borrowed).
 */
int gl_series_top_kernel(struct gl_series *s, size_t rank, int64_t kernel_id,
			 const struct gl_report_kernel *rk, const double *dur, size_t n,
			 struct gl_err *err);

/*
 * After the report is built: keeps the columns of the top and trend
 * kernels, folds the error counts into groups (names from q) and frees the
 * collection state. rep must outlive s.
 */
int gl_series_finish(struct gl_series *s, struct gl_query *q, const struct gl_report *rep,
		     struct gl_err *err);

/* Frees what s owns; s may be zeroed or released already. */
void gl_series_release(struct gl_series *s);

#endif
