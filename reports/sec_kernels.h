/*
 * sec_kernels.h - what the kernels section (sec_kernels.c) keeps in its own
 * state: its results (the listed kernels' durations), read by the sections
 * that follow it (anomalies, trends, baseline, alerts, summary) and tests
 * through gl_kernels_result; and its charts' data, read by its chart
 * functions and by the sections that chart kernels too (trends).
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

struct gl_section;
extern const struct gl_section gl_sec_kernels;

#define GL_PNG_TIMELINE "kernel_performance_timeline.png"
#define GL_PNG_DISTRIBUTION "kernel_performance_distribution.png"
#define GL_KERNELS_HIST_BINS 48

/* One kernel's durations in the window (events.dur_us). */
struct gl_report_kernel {
	char *kernel;			/* as logged */
	char *display;			/* the name a person reads (kname.h); NULL in a hand-made model */
	int64_t kernel_id;		/* names.id; 0 in a hand-made model */
	uint64_t count;
	double min_us, max_us, mean_us;
	double stddev_us;		/* sample (n - 1); NAN for one sample */
	double p50_us, p90_us, p95_us, p99_us;	/* linear interpolation */
	double total_us;
	uint64_t flagged;		/* samples the logs flagged performance_anomaly */
	double mean_mem_mib;		/* mean events.mem_mb of its events; NAN: none */
	/* From profiler traces (kernel_trace.h); NAN / NULL when no timing carried them. */
	double launch_overhead_us, queue_us, occupancy;	/* means */
	char *device;			/* devices seen, comma-separated ("0,1") */
	char *source;			/* sources seen: "gpufl", "kineto", "gpufl,kineto" */
	char *hot_stack;		/* most frequent call stack ("train.py:88|model.py:41") */
	char *hot_scope;		/* the scope of that (stack, scope) pair */
	uint64_t hot_count;		/* timings with that pair; 0: no stack or scope */
};

struct gl_kernels_result {
	/*
	 * By total_us, largest first: the first max(--top, --chart-top) kernels
	 * of n_kernels_total (emitters list at most top of them).
	 */
	struct gl_report_kernel *kernels;
	size_t n_kernels;
	size_t n_kernels_total;		/* kernels with timings in the window */
};

/* The section's results in rep; none when rep holds no kernels state. The result comes
 * first in the state (a hand-made model's to fill). Valid while rep lives. */
const struct gl_kernels_result *gl_kernels_result(const struct gl_report *rep);

/*
 * The least-squares sums of listed kernel r's durations (rank r of
 * gl_kernels_result's kernels) against days since the window's start, as
 * the backend computed them with its figures (gl_query_kernel_stats); NULL
 * when the backend did not describe the kernel. Valid while rep lives.
 */
struct gl_fit_acc;
const struct gl_fit_acc *gl_kernels_server_fit(const struct gl_report *rep, size_t r);

/* k's display name: k->display, else k->kernel. */
static inline const char *gl_report_kernel_name(const struct gl_report_kernel *k)
{
	return k->display ? k->display : k->kernel;
}

/*
 * The display name of kernel: the kernels section's for a listed kernel (told
 * apart from another of the same display name), else gl_kname_display's into
 * buf (GL_KNAME_BUF bytes). Valid while rep's results are, or buf is.
 */
const char *gl_kernels_display(const struct gl_report *rep, const char *kernel, char *buf,
			       size_t n);

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
