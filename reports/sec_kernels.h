/*
 * sec_kernels.h - what the kernels section (sec_kernels.c) keeps in its own
 * state for its charts, read by its chart functions and by the sections
 * that chart kernels too (trends), through the getters below.
 *
 * Memory is bounded, not by the number of timings: when charts are asked
 * for, every listed kernel keeps GL_CHART_COLUMNS columns of its timings
 * (48 KB; filled in the kernel pass), and the charted ones a histogram of
 * GL_KERNELS_HIST_BINS bins built from the durations the percentiles keep
 * anyway.
 */
#ifndef GL_SEC_KERNELS_H
#define GL_SEC_KERNELS_H

#include "chart.h"
#include "report.h"

#define GL_PNG_TIMELINE "kernel_performance_timeline.png"
#define GL_PNG_DISTRIBUTION "kernel_performance_distribution.png"
#define GL_KERNELS_HIST_BINS 48

/* The charted kernels: the first rep->axis.chart_top of rep->kernels. */
struct gl_kernels_chart {
	size_t n_top;
	const char *top_name[GL_CHART_TOP_MAX];		/* borrowed from rep->kernels */
	const struct gl_chart_cols *top_cols[GL_CHART_TOP_MAX];	/* dur_us, anomaly = logs' flag */
	struct gl_chart_hist top_hist[GL_CHART_TOP_MAX];	/* dur_us, p50/p95 of the report */
};

/* The kernels' chart data in rep; NULL when rep holds no kernels state or no charts. */
const struct gl_kernels_chart *gl_kernels_chart(const struct gl_report *rep);

/* The time columns (rep->axis) of the listed kernel named kernel; NULL when it is not
 * listed or no charts were asked for. Valid while rep lives. */
const struct gl_chart_cols *gl_kernels_columns(const struct gl_report *rep, const char *kernel);

#endif
