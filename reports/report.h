/*
 * report.h - the report model of gpulog-report, and the emitters.
 *
 * Stage: the sections (reports/sections.c) read the database through
 * lib/store/query.h, compute statistics through lib/stats/stats.h and fill
 * one struct gl_report; the emitters (json, csv, text, and later png/html)
 * only read it. An emitter never queries the database and never computes a
 * statistic: everything it prints is a field below.
 *
 * Undefined statistics are NAN in the model (a standard deviation of one
 * sample, a regression over identical values, a change against zero). Every
 * emitter turns NAN and infinities into "no value": null in JSON, an empty
 * cell in CSV, "-" in text. Times are int64 µs UTC; GL_TS_NONE means "none".
 *
 * Ownership: a struct gl_report owns every string and array it points to;
 * gl_report_release() frees them all. Strings are UTF-8 as stored in the
 * database (kernel names may hold commas, quotes, '<' '>' and any unicode).
 */
#ifndef GL_REPORT_H
#define GL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpulog.h"

/* One named count ("dataloader": 12). */
struct gl_report_count {
	char *name;		/* "" when the events carry no component */
	uint64_t count;
};

struct gl_report_window {
	int64_t since_us;	/* inclusive */
	int64_t until_us;	/* exclusive */
	double days;		/* (until_us - since_us) / 1 day */
	/*
	 * The data's own span: the first and last event of the window (after
	 * filters, duplicates left out); GL_TS_NONE when the window is empty.
	 * Rates per hour and the charts' time axes use this span.
	 */
	int64_t data_first_ts_us, data_last_ts_us;
	/*
	 * The retention horizon (gpulog-ingest --keep-days): rows before it
	 * were deleted; GL_TS_NONE when nothing was ever pruned. A window that
	 * starts before it holds only what is left.
	 */
	int64_t retained_since_us;
};

struct gl_report_summary {
	uint64_t events;			/* events in the window (after filters) */
	struct gl_report_count *by_component;	/* sorted by name */
	size_t n_by_component;
	uint64_t by_level[GL_LEVEL_CRITICAL + 1];	/* index: enum gl_level */
	int64_t first_ts_us;		/* GL_TS_NONE when the window is empty */
	int64_t last_ts_us;
	uint64_t rejected_lines;	/* rejects in the window (schema 1: all rejects) */
	uint64_t files;			/* rows of table files, whole database */
	uint64_t duplicates;		/* mirrored records left out of every count (dup_of set) */
};

/* One kernel's durations in the window (events.dur_us). */
struct gl_report_kernel {
	char *kernel;
	int64_t kernel_id;		/* names.id; 0 in a hand-made model */
	uint64_t count;
	double min_us, max_us, mean_us;
	double stddev_us;		/* sample (n - 1); NAN for one sample */
	double p50_us, p90_us, p95_us, p99_us;	/* linear interpolation */
	double total_us;
	uint64_t anomalies;		/* samples found anomalous (see anomalies) */
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

/*
 * One operation: records with an execution time and no kernel, named by
 * metadata.operation, else by the message ("Operation layout_step completed
 * in 2.38ms"), else by the component.
 */
struct gl_report_operation {
	char *operation;
	char *component;		/* of its first record; "" when none */
	uint64_t count;
	double min_ms, max_ms, mean_ms;
	double stddev_ms;		/* sample (n - 1); NAN for one sample */
	double p50_ms, p95_ms, p99_ms;	/* linear interpolation */
	double total_ms;
	double mean_throughput;		/* mean metadata.throughput; NAN when none */
	uint64_t throughput_n;		/* records with metadata.throughput */
};

enum gl_trend_series {
	GL_TREND_KERNEL,	/* duration of one kernel, µs */
	GL_TREND_MEMORY,	/* events.mem_mb, MiB */
	GL_TREND_ERRORS,	/* ERROR and CRITICAL events per hour */
	GL_TREND_OPERATION,	/* duration of one operation, ms */
	GL_TREND_METRIC,	/* one metric series (samples), in the metric's unit */
	GL_TREND_SCOPE,		/* duration of one scope path (spans), ms */
	GL_TREND_INFERENCE,	/* one inference quantity (sec_inference.c), its unit */
};

enum gl_verdict {
	GL_VERDICT_STABLE,
	GL_VERDICT_DEGRADING,
	GL_VERDICT_IMPROVING,
	GL_VERDICT_LEAK,	/* memory only: significant rise, not released */
};

/* A least-squares line y = intercept + slope * t, t in days since window start. */
struct gl_report_trend {
	enum gl_trend_series series;
	char *kernel;			/* the kernel (GL_TREND_KERNEL), operation or metric; else NULL */
	char *device, *host;		/* GL_TREND_METRIC: the series' device and host;
					 * GL_TREND_SCOPE: the spans' device or NULL; else NULL */
	const char *unit;		/* "us", "MiB", "errors/h" (static) */
	uint64_t n;			/* points fitted */
	double slope_per_day;		/* unit per day; NAN when all t are equal */
	double intercept;		/* fitted value at the window start */
	double r2;			/* NAN when all y are equal */
	double p_value;			/* two-sided t-test of the slope; NAN: n < 3 or no spread */
	/*
	 * fit(last sample) against fit(first sample), %: the change over the
	 * series' own span, never extrapolated to the window's edges. NAN when
	 * fit(first) <= 0 or the slope is undefined.
	 */
	double change_pct;
	double span_s;			/* last sample - first sample, seconds */
	int64_t first_ts_us, last_ts_us;	/* first and last sample; GL_TS_NONE: none */
	enum gl_verdict verdict;
	bool unlisted;			/* GL_TREND_METRIC: its series is not listed (top_series) */
};

/* One anomalous sample. */
struct gl_report_anomaly {
	int64_t ts_us;
	const char *kernel;		/* borrowed from the kernels array */
	double value_us;
	double mean_us;			/* stddev method: mean; mad method: median */
	double stddev_us;		/* stddev method: stddev; mad method: 1.4826 * MAD */
	double z;			/* (value - mean) / stddev */
};

enum gl_anomaly_method {
	GL_ANOMALY_STDDEV,	/* mean and sample standard deviation */
	GL_ANOMALY_MAD,		/* median and scaled median absolute deviation */
};

struct gl_report_anomalies {
	enum gl_anomaly_method method;
	double k;			/* threshold in standard deviations */
	unsigned window;		/* previous samples considered */
	unsigned min_samples;		/* fewer previous samples: not judged */
	uint64_t total;			/* anomalous samples, all kernels */
	uint64_t judged;		/* samples that had enough history */
	uint64_t flagged_by_logs;	/* events with events.anomaly = 1 */
	struct gl_report_anomaly *items;	/* the largest z first, at most top */
	size_t n_items;
};

/* An RMM allocation still outstanding at the window's end. */
struct gl_report_leak {
	int64_t ts_us;			/* when it was allocated */
	uint64_t ptr;
	uint64_t size_bytes;
};

/* Power-of-two bucket: sizes in [lo_bytes, 2 * lo_bytes); lo_bytes 0 holds size 0. */
struct gl_report_bucket {
	uint64_t lo_bytes;
	uint64_t count;
};

#define GL_REPORT_SIZE_BUCKETS 65

/* RAPIDS RMM allocations replayed over the window (table mem_events). */
struct gl_report_rmm {
	uint64_t events;		/* mem_events rows in the window */
	uint64_t allocations;
	uint64_t frees;
	uint64_t allocation_failures;
	uint64_t unmatched_frees;	/* frees of a pointer not allocated in the window */
	uint64_t peak_outstanding_bytes;
	int64_t peak_ts_us;		/* GL_TS_NONE when nothing was allocated */
	uint64_t leaked_allocations;	/* outstanding at the window's end */
	uint64_t leaked_bytes;
	struct gl_report_leak *leaks;	/* largest first, at most top */
	size_t n_leaks;
	double size_min_bytes, size_p50_bytes, size_p90_bytes, size_p99_bytes, size_max_bytes;
	struct gl_report_bucket *histogram;	/* non-empty buckets, ascending */
	size_t n_histogram;
};

struct gl_report_memory {
	uint64_t samples;		/* events with mem_mb in the window */
	double peak_mib;		/* NAN when no samples */
	int64_t peak_ts_us;
	double last_mib;
	int64_t last_ts_us;
	enum gl_verdict verdict;	/* from the memory trend */
	struct gl_report_rmm rmm;
};

/* Messages of one shape: "cudaMalloc failed for <size> at <hex>". */
struct gl_report_shape {
	char *shape;
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

enum gl_severity {
	GL_SEVERITY_INFO,
	GL_SEVERITY_WARNING,
	GL_SEVERITY_CRITICAL,
};

/*
 * An alert: gpulog's own (a rule of the configuration crossed; source
 * "gpulog") or one a log wrote (the performance monitor's alert documents;
 * source "log": rule is the document's metric, else "log", subject its
 * component, value and threshold as written, NAN when absent, at ts_us).
 */
struct gl_report_alert {
	enum gl_severity severity;
	char *rule;			/* rule name from the config; log: the metric or "log" */
	char *subject;			/* kernel, component, or "memory" / "rmm" */
	double value;
	double threshold;		/* the threshold of severity that was crossed */
	char *message;
	const char *source;		/* "gpulog" or "log" (static); NULL: "gpulog" */
	int64_t ts_us;			/* log: when it was written; gpulog: GL_TS_NONE */
};

enum gl_baseline_verdict {
	GL_BASELINE_UNCHANGED,
	GL_BASELINE_REGRESSION,
	GL_BASELINE_IMPROVEMENT,
};

/* One kernel present in both windows. */
struct gl_report_baseline_kernel {
	char *kernel;
	uint64_t count_before, count;
	double mean_before_us, mean_us;
	double p95_before_us, p95_us;
	double mean_change_pct;		/* NAN when mean_before_us is 0 */
	double p95_change_pct;
	double p_value;			/* Welch's t-test; NAN when undefined */
	enum gl_baseline_verdict verdict;
};

struct gl_report_baseline {
	int64_t since_us;		/* preceding window of equal length */
	int64_t until_us;		/* = window.since_us */
	uint64_t samples;		/* kernel samples in the preceding window */
	struct gl_report_baseline_kernel *kernels;	/* the listed kernels (report.kernels) in both windows, by name */
	size_t n_kernels;
	char **new_kernels;		/* in this window only, sorted; at most top */
	size_t n_new_kernels;
	size_t n_new_kernels_total;
	char **vanished_kernels;	/* in the preceding window only, sorted; at most top */
	size_t n_vanished_kernels;
	size_t n_vanished_kernels_total;
};

/*
 * One metric series in the window (tables series and samples): its samples'
 * statistics in the metric's unit. Percentiles as for the kernels
 * (gl_stats_describe, linear interpolation).
 */
struct gl_report_metric {
	char *metric;			/* canonical name, "gpu.power_w" */
	const char *unit;		/* "%", "MiB", "W", ... ; "" when unknown (static) */
	char *device;			/* GPU index as text, else uuid or name; "" when none */
	char *device_name;		/* labels.name ("NVIDIA A100-SXM4-80GB"); "" when none */
	char *host;			/* "" when none */
	char *source;			/* format that read it ("nvidia-smi-csv") */
	char *labels;			/* JSON object text; "{}" when none */
	uint64_t count;
	double min, max, mean;
	double p50, p95, p99;
	double last;			/* value of the last sample */
	int64_t first_ts_us, last_ts_us;
	bool unlisted;			/* beyond top_series by relevance: counted, not listed */
};

/* The samples of one inference quantity in the window; NAN figures when count is 0. */
struct gl_report_dist {
	uint64_t count;
	double mean, p50, p95, p99, min, max;
};

/* A Prometheus counter series (name ending _total): its increase over the window. */
struct gl_report_prom_counter {
	char *metric;			/* "vllm:generation_tokens_total" */
	char *host;			/* "" when none */
	char *labels;			/* JSON object text, "{}" when none */
	uint64_t samples;		/* scrapes in the window */
	uint64_t resets;		/* times the value fell (a restart) */
	double increase;		/* NAN with fewer than 2 samples */
	double last;
};

/* A Prometheus histogram (the _bucket series sharing a name and labels but le). */
struct gl_report_prom_histogram {
	char *metric;			/* the family, "vllm:time_to_first_token_seconds" */
	char *host;
	char *labels;			/* without le */
	bool cumulative;		/* buckets as last scraped (one scrape), not the increase */
	size_t buckets;			/* bucket series, +Inf included */
	double count;			/* observations: the +Inf bucket */
	double p50, p95, p99;		/* histogram_quantile; NAN when not defined */
};

/*
 * The inference section (sec_inference.c): requests and tokens of the
 * window from BitNet-rs records, vLLM logs and Prometheus scrapes.
 */
struct gl_report_inference {
	double requests, failed;	/* NAN: unknown */
	double failed_pct;		/* failed per 100 requests; NAN: unknown */
	const char *failed_from;	/* "counters", "access_lines" (static); NULL: failed unknown */
	struct gl_report_dist tokens_generated, tokens_per_second, ttft_ms, latency_ms,
		token_latency_ms;
	struct gl_report_prom_counter *counters;	/* by metric, host, labels */
	size_t n_counters;
	struct gl_report_prom_histogram *histograms;	/* by metric, host, labels */
	size_t n_histograms;
};

struct gl_section_list;

struct gl_report {
	const char *generator;		/* "gpulog-report" (static) */
	const char *version;		/* GL_VERSION (static) */
	struct gl_report_window window;
	size_t top;			/* cap on listed items */
	size_t top_series;		/* cap on listed metric series and their trends */
	struct gl_report_summary summary;
	/*
	 * By total_us, largest first: the first max(--top, --chart-top) kernels
	 * of n_kernels_total (emitters list at most top of them).
	 */
	struct gl_report_kernel *kernels;
	size_t n_kernels;
	size_t n_kernels_total;		/* kernels with timings in the window */
	size_t n_scopes_total;		/* scope rows (scope, device) in the window; listed: at most top */
	struct gl_report_operation *operations;	/* by total_ms, largest first */
	size_t n_operations;
	struct gl_report_trend *trends;	/* kernels (by name), memory, errors, operations (by name) */
	size_t n_trends;
	struct gl_report_anomalies anomalies;
	struct gl_report_memory memory;
	struct gl_report_errors errors;
	struct gl_report_alert *alerts;	/* critical first, then warning, info */
	size_t n_alerts;
	struct gl_report_baseline baseline;
	struct gl_report_metric *metrics;	/* by host, device (GPU index numerically), metric */
	size_t n_metrics;		/* every series; listed: n_metrics_listed (top_series) */
	size_t n_metrics_listed;
	size_t n_metric_trends;		/* trends of metric series; listed as their series */
	uint64_t metric_samples;	/* samples in the window (after --metric and --host) */
	struct gl_report_inference inference;
	/* The sections (section.h): NULL means the default table. */
	const struct gl_section_list *sections;
	void **sec_state;		/* per section, owned; NULL when not built */
};

/* Frees everything rep owns and zeroes it. rep may be NULL. */
void gl_report_release(struct gl_report *rep);

/* Static names: "stable", "degrading", ...; "info", "warning", "critical". */
const char *gl_verdict_name(enum gl_verdict v);
const char *gl_baseline_verdict_name(enum gl_baseline_verdict v);
const char *gl_severity_name(enum gl_severity s);
const char *gl_trend_series_name(enum gl_trend_series s);
const char *gl_anomaly_method_name(enum gl_anomaly_method m);

/* ---------------------------------------------------------------------
 * Emitters. All share one signature [GoAccess]: the report, where to
 * write, and the error. An emitter writes either files into out->dir (each
 * through a temporary file renamed over any same-named file, so a reader
 * never sees half a file) or, when out->dir is NULL, one document to
 * out->fp. A multi-file emitter (csv) needs out->dir.
 * ------------------------------------------------------------------- */

struct gl_output {
	const char *dir;	/* borrowed; NULL: write to fp */
	FILE *fp;		/* borrowed; used when dir is NULL */
	char **paths;		/* files written so far ("dir/report.json"), owned */
	size_t n_paths;
};

typedef int (*gl_emit_fn)(const struct gl_report *rep, struct gl_output *out,
			  struct gl_err *err);

int gl_emit_json(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);
int gl_emit_csv(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);
int gl_emit_text(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);

/* The trend of series (and name for kernels and operations), or NULL. */
const struct gl_report_trend *gl_report_trend_of(const struct gl_report *rep,
						 enum gl_trend_series series, const char *name);

/* Frees out->paths. */
void gl_output_release(struct gl_output *out);

/*
 * For emitters: opens name for writing. With out->dir, creates a
 * uniquely named "dir/.name.<suffix>" and returns it (then gl_output_commit renames it to
 * dir/name and records the path); without, returns out->fp. On failure
 * returns NULL with err filled.
 */
FILE *gl_output_open(struct gl_output *out, const char *name, char **tmp_path,
		     struct gl_err *err);

/*
 * Finishes what gl_output_open began: flushes fp, closes and renames the
 * temporary file (or only flushes out->fp). ok false: removes the temporary
 * file. Frees *tmp_path. Returns GL_OK or GL_EIO.
 */
int gl_output_commit(struct gl_output *out, const char *name, FILE *fp, char **tmp_path,
		     bool ok, struct gl_err *err);

#endif
