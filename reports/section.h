/*
 * section.h - one report section behind one interface. Each section
 * (summary, kernels, trends, ...) lives in its own file reports/sec_<name>.c
 * and is one entry of a table (gl_sections in sections.c). The driver
 * (gl_report_build) and every emitter loop over that table:
 *
 *   build    begin -> collect_span (each trace span, one ordered pass)
 *            -> collect (each event of the window, one ordered pass; a
 *               mirrored record goes to collect_mirrored instead)
 *            -> collect_mem (each RMM row, one ordered pass) -> plan
 *            -> collect_kernel (each kernel timing again, kernel by kernel)
 *               beside collect_samples (the metric samples in blocks, one
 *               ordered pass), on two threads: see "Kernels" below
 *            -> finish
 *   emit     json: the key <name>; csv: the file <name>.csv; text: a block;
 *            html: <section id="<name>"> with the section's charts next to its
 *            table; png: each entry of charts[] drawn by its draw()
 *
 * Adding a section is its file pair: sec_<name>.c defining a `const struct
 * gl_section gl_sec_<name>`, sec_<name>.h declaring it, its results and
 * their getter, and one entry in the table (sections.c: the line and the
 * #include of its header). Adding a chart is one
 * draw function and its line in the section's charts[]. Rows are best
 * described once (table.h), so that the four renderings follow.
 *
 * Row sources. The driver makes one ordered pass per row source and hands
 * each row to every section that has the hook for that source: events
 * (collect), RMM rows (collect_mem). A later row source (metric samples of
 * table samples, trace spans) hooks in the same way: a function in
 * lib/store/query.h streaming that table's rows of the window in time order,
 * a `collect_<source>` member below, and one more pass in gl_report_build()
 * that calls it for each section that has it; sections without the hook are
 * not touched and no other section changes.
 *
 * Kernels. Per kernel, a section keeps only a small fixed state in the
 * event pass (counts, sums, a fit): a trace may name hundreds of thousands
 * of kernels. What needs a kernel's samples (percentiles, the moving-window
 * anomaly test, histograms) is done in the kernel pass, which the driver
 * makes when a section has collect_kernel: after plan (where the kernels
 * section picks the kernels it lists), the window's kernel timings come
 * again ordered by (kernel, time), filters applied as in the event pass
 * (from memory, kernel_cache.h, or past its bound from the database),
 * and a section keeps the samples of the kernels it needs, or none.
 * Memory: O(kernels x small constant) + O(samples of the listed kernels).
 * Replayed from memory, the kernel pass runs on a thread of its own while
 * the samples pass runs on the driver's: so no section has both
 * collect_kernel and collect_samples (the driver runs the two passes one
 * after the other if one has), and a collect_kernel hook reads nothing but
 * its own state, its event and what cx holds for reading (cfg, p, rep's
 * window and axis, kernel_n, another section's result of plan); it neither
 * reads the database nor calls the filters (gl_section_*_ok: they cache).
 * Its cx is a copy of the driver's, with an error of its own.
 *
 * Where results live. Each section keeps its results, and its charts' data,
 * in its own state (state_size bytes, zeroed by the driver), the result
 * first; struct gl_report holds only what they share (the window, the
 * options, the charts' time axis). The state stays with the report until
 * gl_report_release() and is handed to the section's emitters and charts as
 * st. No section writes another's results: one that needs another's figures
 * reads them through that section's getter (sec_<name>.h:
 * gl_<name>_result(rep)). A getter of a report without that state (a
 * hand-made model, a table without the section) gives a result with nothing
 * in it; a test makes a hand-made model with gl_report_model_init
 * (sections.h) and fills the states through the getters.
 *
 * Order. finish() runs in table order, so a section may read what earlier
 * sections finished (trends reads the kernels); finish_last sections run
 * after all others (alerts judges every section). Output follows table order.
 */
#ifndef GL_SECTION_H
#define GL_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "report.h"
#include "store/query.h"
#include "util/timeutil.h"

struct json_t;			/* jansson's json_t */
struct gl_chart_opts;
struct gl_report_params;
struct gl_devices_result;

/* What a chart's draw returns when it has nothing to show: no file is written, and one of
 * that name left in the output directory by an earlier report is removed. */
#define GL_CHART_NONE 1

/*
 * One chart of a section: draw() draws it from the section's own state st
 * (NULL for a hand-made model: "no data") into path, a temporary file the
 * PNG emitter renames to <output dir>/file once whole. Returns GL_OK,
 * GL_CHART_NONE, or an enum gl_code with err set.
 */
struct gl_chart_def {
	const char *file;		/* "memory_usage_trend.png" */
	const char *alt;		/* its description, for <img alt> */
	int (*draw)(const struct gl_report *rep, const void *st, const char *path,
		    const struct gl_chart_opts *o, struct gl_err *err);
};

/* What the driver shares with every section while the report is built. */
struct gl_section_ctx {
	struct gl_query *q;
	const struct gl_report_params *p;
	int64_t since_us;		/* p->since_us (gl_section_days) */
	const struct gl_report_config *cfg;
	struct gl_report *rep;
	struct gl_err *err;
	size_t n_ids;			/* name ids run from 0 to n_ids - 1 */
	/* The current event: a kernel timing the kernel filter (--kernel) keeps. */
	bool kernel_sample;
	uint64_t *kernel_n;		/* per id: kernel timings in the window (event pass) */
	signed char *kern_ok, *comp_ok, *host_ok;	/* per id: 0 unknown, 1 kept, -1 not */
	/*
	 * Nothing is stored before the window (no event, RMM row or metric
	 * sample): the processes that logged started in it, so a running
	 * total counts from zero at its series' start (counter.h).
	 */
	bool data_starts_in_window;
	/*
	 * The current event is an alert the performance monitor wrote (a
	 * WARN or worse record of a jsondoc stream: alert_<ts>.json, the
	 * "alerts" of metrics_history.json): an alert for the alerts section,
	 * not a log error. The errors section and the error-rate rules leave
	 * it out: no rule fires on the monitor's own alerts.
	 */
	bool log_alert;
	/* The current event's kernel timing repeats its kernel's previous one (launch_once.h). */
	bool launch_copy;
	/* The phrases of the current event's message (gl_section_phrases), found
	 * at the first ask: phrases_known is false at each event. */
	bool phrases_known;
	unsigned phrases;
	int64_t *alert_streams;		/* jsondoc stream ids, ascending */
	size_t n_alert_streams;
};

/* Does a metric name pass the --metric globs? */
bool gl_section_metric_ok(const struct gl_section_ctx *cx, const char *metric);

/* Does host id pass the --host globs (cached)? */
bool gl_section_host_ok(struct gl_section_ctx *cx, int64_t host_id);

/* Does component id pass the --component globs (cached)? */
bool gl_section_component_ok(struct gl_section_ctx *cx, int64_t component_id);

/*
 * The --host and --component filters as the name ids they keep, for a
 * backend's aggregate (gl_query_keep: NULL lists where no filter is set).
 * GL_OK or GL_ENOMEM; free with gl_section_keep_release.
 */
int gl_section_keep(struct gl_section_ctx *cx, struct gl_query_keep *keep);
void gl_section_keep_release(struct gl_query_keep *keep);

struct gl_section {
	const char *name;		/* JSON key, <name>.csv, HTML id */
	const char *title;		/* heading of the text block and the HTML section */
	size_t state_size;		/* bytes of state (0: none) */
	bool finish_last;		/* finish after every other section */
	/* Build; each hook optional; returns GL_OK or an enum gl_code with cx->err set. */
	int (*begin)(struct gl_section_ctx *cx, void *st);
	int (*collect)(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev);
	/* Each mirrored record of the window (events.dup_of set, after the filters), which
	 * collect never sees: for the sections that count them. */
	int (*collect_mirrored)(struct gl_section_ctx *cx, void *st,
				const struct gl_query_event *ev);
	int (*collect_mem)(struct gl_section_ctx *cx, void *st, const struct gl_query_mem *m);
	/* The metric samples of the window (table samples), in time order, s[0..n) a block of
	 * them (a call per block, not per sample: there are tens of millions); after
	 * collect_mem. s is valid for the call. */
	int (*collect_samples)(struct gl_section_ctx *cx, void *st, const struct gl_query_sample *s,
			       size_t n);
	/* Each span (table spans) starting in the window, in start order; BEFORE collect, so
	 * that a section can place each kernel within the spans it has read. */
	int (*collect_span)(struct gl_section_ctx *cx, void *st, const struct gl_query_span *sp);
	/* After the event passes, before the kernel pass. */
	int (*plan)(struct gl_section_ctx *cx, void *st);
	/* Each kernel timing, by (kernel_id, ts_us, id); first: the kernel's first. Only
	 * ts_us, kernel_id, dur_us and anomaly (1 or 0) are set: the pass is replayed from
	 * what the event pass kept (kernel_cache.h), filters already applied. */
	int (*collect_kernel)(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			      bool first);
	int (*finish)(struct gl_section_ctx *cx, void *st);
	void (*release)(void *st);	/* frees what st points to (the driver frees st) */
	/* Optional: the trend lines the section found (st's own list), which the trends
	 * section shows after its own, in table order; valid after its finish. */
	const struct gl_trend_list *(*trend_list)(const void *st);
	/* Optional: the anomalous timings the section found of kernel kernel_id (names.id),
	 * which the kernels table shows (gl_report_kernel_anomalies); valid after its finish. */
	uint64_t (*kernel_anomalies)(const void *st, int64_t kernel_id);
	/* Optional: the GPU inventory the section holds (gpu_inventory.h), to which other
	 * sections join their telemetry series (gl_report_inventory); valid after its finish. */
	const struct gl_devices_result *(*inventory)(const void *st);
	/* Output; st may be NULL (see above). json: a new reference, NULL when out of memory. */
	struct json_t *(*emit_json)(const struct gl_report *rep, const void *st);
	void (*emit_csv)(const struct gl_report *rep, const void *st, FILE *fp);
	void (*emit_text)(const struct gl_report *rep, const void *st, FILE *fp);
	void (*emit_html)(const struct gl_report *rep, const void *st, FILE *fp);
	/* The section's charts, in order, ending with a NULL file; NULL: none. */
	const struct gl_chart_def *charts;
};

/* The sections of a report; rep->sections, or the default table when NULL. */
struct gl_section_list {
	const struct gl_section *const *items;
	size_t n;
};

/* The default table: summary, kernels, operations, trends, anomalies, memory, errors,
 * metrics, inference, scopes, alerts, baseline. */
extern const struct gl_section_list gl_sections;

/* The sections of rep (its own list, else gl_sections) and the state of the i-th. */
const struct gl_section_list *gl_report_sections(const struct gl_report *rep);
const void *gl_report_section_state(const struct gl_report *rep, size_t i);

/* The state of section sec in rep; NULL when rep was not built with it (a hand-made
 * model). For the getters of sec_<name>.h. */
const void *gl_report_state_of(const struct gl_report *rep, const struct gl_section *sec);

/*
 * What one section found, asked for by another without naming the section
 * (its hook above says what it offers; the table's order says that it
 * finished first): the anomalous timings of kernel kernel_id (0: none, or no
 * section counts them) and the GPU inventory (NULL: none).
 */
uint64_t gl_report_kernel_anomalies(const struct gl_report *rep, int64_t kernel_id);
const struct gl_devices_result *gl_report_inventory(const struct gl_report *rep);

/* ---- for section files ----------------------------------------------- */

/* GL_ENOMEM with "out of memory". */
int gl_section_oom(struct gl_err *err);

/* The name of id ("" for id 0 or an unknown id); valid until the query closes. */
const char *gl_section_name(const struct gl_section_ctx *cx, int64_t id);

/* Does ev pass the --component and --host globs (cached)? */
bool gl_section_event_ok(struct gl_section_ctx *cx, const struct gl_query_event *ev);

/* Does kernel id pass the --kernel globs (cached)? */
bool gl_section_kernel_ok(struct gl_section_ctx *cx, int64_t kernel_id);

/* Days from the window's start to ts_us (inline: a call per event and per sample). */
static inline double gl_section_days(const struct gl_section_ctx *cx, int64_t ts_us)
{
	return (double)(ts_us - cx->since_us) / (double)GL_US_PER_DAY;
}

/*
 * The phrases the current event's message holds, anywhere in it (as strstr
 * finds them), a bit each: looked for once per event, in one scan, for
 * every section that asks (findings and training ask of every message at
 * WARN and above: 1.1M of 10M events, seven strstr calls each).
 */
#define GL_PHRASE_OOM_TEXT 1u		/* "out of memory" */
#define GL_PHRASE_OOM_CAMEL 2u		/* "OutOfMemory" */
#define GL_PHRASE_OOM_ERROR 4u		/* "OutOfMemoryError" */
#define GL_PHRASE_XID 8u		/* "Xid" */
#define GL_PHRASE_TRACEBACK 16u		/* "Traceback (most recent call last)" */
#define GL_PHRASE_WATCHDOG 32u		/* "Watchdog caught collective operation timeout" */
unsigned gl_section_phrases(struct gl_section_ctx *cx, const struct gl_query_event *ev);

/* Counts per component id (cx->n_ids of them) -> named counts sorted by name. */
int gl_section_component_counts(struct gl_section_ctx *cx, const uint64_t *counts,
				struct gl_report_count **out, size_t *n_out);

/*
 * A trend from a least-squares accumulator over (days since the window's
 * start, value), whose first and last points were at first_ts_us and
 * last_ts_us: slope, fit, change between the fitted values at the first and
 * the last point (never extrapolated), span and verdict.
 */
struct gl_fit_acc;
void gl_section_trend(const struct gl_section_ctx *cx, const struct gl_fit_acc *acc,
		      int64_t first_ts_us, int64_t last_ts_us, struct gl_report_trend *t);

/*
 * The trend of values that share one time (records without a time, placed
 * at one estimated instant), fitted against their order: acc holds (rank,
 * value) points; the slope is per record (slope_unit "record"),
 * slope_per_day NAN, the change from the fitted first to the last record.
 */
void gl_section_trend_by_order(const struct gl_section_ctx *cx, const struct gl_fit_acc *acc,
			       int64_t ts_us, struct gl_report_trend *t);

/*
 * The series table (table series) of the database, loaded once by a section
 * that reads metric samples, with an index from a sample's series_id to its
 * row. Rows whose metric fails the --metric globs, whose host fails the
 * --host globs, or that have no metric name are not indexed.
 */
struct gl_section_series {
	struct gl_query_series *qs;	/* owned, ordered by id */
	size_t n_qs;
	const char **metric;		/* per qs row: its metric name, borrowed from the query */
	uint32_t *by_id;		/* series id -> row + 1 (0: none or filtered out) */
	size_t n_by_id;
};

int gl_section_series_load(struct gl_section_ctx *cx, struct gl_section_series *ss);

/* The row of ss->qs that series_id names, or -1 when none or filtered out. */
static inline long gl_section_series_row(const struct gl_section_series *ss, int64_t series_id)
{
	if (series_id < 0 || (uint64_t)series_id >= ss->n_by_id || !ss->by_id[series_id])
		return -1;
	return (long)ss->by_id[series_id] - 1;
}

void gl_section_series_release(struct gl_section_series *ss);

/* A section's own trend lines (section.h: trend_list). */
struct gl_trend_list {
	struct gl_report_trend *items;	/* owned, and their strings */
	size_t n;
};

/* Appends n zeroed trends to l; returns the first, NULL when out of memory. */
struct gl_report_trend *gl_trend_list_add(struct gl_trend_list *l, size_t n);
void gl_trend_list_release(struct gl_trend_list *l);

#endif
