/*
 * report.h - the report of gpulog-report: what its sections share, the
 * types several of them use, and the emitters.
 *
 * Stage: the sections (reports/sec_*.c, driven by sections.c) read the
 * database through lib/store/query.h, compute statistics through
 * lib/stats/stats.h and keep their results in their own states
 * (section.h; each section's results and getter in its sec_<name>.h).
 * struct gl_report holds what they share: the window, the options, the
 * charts' time axis and the states. The emitters (json, csv, text, png,
 * html) only read it. An emitter never queries the database and never
 * computes a statistic.
 *
 * Undefined statistics are NAN in the model (a standard deviation of one
 * sample, a regression over identical values, a change against zero). Every
 * emitter turns NAN and infinities into "no value": null in JSON, an empty
 * cell in CSV, "-" in text. Times are int64 µs UTC; GL_TS_NONE means "none".
 *
 * Ownership: a struct gl_report owns its sections' states and, through
 * them, every string and array of their results; gl_report_release() frees
 * them all. Strings are UTF-8 as stored in the
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
	GL_VERDICT_RISING,	/* a neutral quantity (utilisation, power) rose */
	GL_VERDICT_FALLING,	/* ... fell */
};

/* A least-squares line y = intercept + slope * t, t in days since window start. */
struct gl_report_trend {
	enum gl_trend_series series;
	char *kernel;			/* the kernel (GL_TREND_KERNEL), operation or metric; else NULL */
	char *display;			/* GL_TREND_KERNEL: the kernel's display name (kname.h); else NULL */
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
	double fit_first, fit_last;	/* the fitted line at the first and last sample */
	/* change_pct's source: "fit" (the fitted line), "ends" (the medians of the
	 * first and last tenth of the data: the line left the data's range) (static) */
	const char *change_from;
	/* the slope per slope_unit ("s", "min", "h", "day": the largest unit that
	 * is at most a third of the span; static), the unit of the data's own span */
	double slope;
	const char *slope_unit;
	bool unlisted;			/* GL_TREND_METRIC: its series is not listed (top_series) */
};

/* The name a person reads for t's series: the display name of a kernel, else t->kernel. */
static inline const char *gl_trend_name(const struct gl_report_trend *t)
{
	return t->display ? t->display : t->kernel;
}

enum gl_anomaly_method {
	GL_ANOMALY_STDDEV,	/* mean and sample standard deviation */
	GL_ANOMALY_MAD,		/* median and scaled median absolute deviation */
};

enum gl_severity {
	GL_SEVERITY_INFO,
	GL_SEVERITY_WARNING,
	GL_SEVERITY_CRITICAL,
};

enum gl_baseline_verdict {
	GL_BASELINE_UNCHANGED,
	GL_BASELINE_REGRESSION,
	GL_BASELINE_IMPROVEMENT,
};
struct gl_section_list;

#define GL_CHART_TOP_DEFAULT 8	/* kernels charted when gl_report_params.chart_top is 0 */
#define GL_CHART_TOP_MAX 12

/*
 * The charts' time axis, shared by the sections that collect chart data
 * (only when charts are asked for): the data's span (events and RMM rows of
 * the window) with a margin of 2% (at least 1 s) on each side, within the
 * window; the whole window when it holds no data.
 */
struct gl_report_axis {
	bool charts;			/* charts asked for: the sections collect their data */
	size_t chart_top;		/* kernels charted, 1..GL_CHART_TOP_MAX */
	int64_t t0_us, t1_us;
};

struct gl_report {
	const char *generator;		/* "gpulog-report" (static) */
	const char *version;		/* GL_VERSION (static) */
	struct gl_report_window window;
	size_t top;			/* cap on listed items */
	size_t top_series;		/* cap on listed metric series and their trends */
	struct gl_report_axis axis;
	/* The sections (section.h): NULL means the default table. */
	const struct gl_section_list *sections;
	void **sec_state;		/* per section, owned; NULL when not built */
	void (*free_states)(struct gl_report *rep);	/* set with sec_state (sections.c) */
};

/* Frees c[0..n) and their names. */
void gl_report_counts_free(struct gl_report_count *c, size_t n);

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
/* The charts of every section into out->dir (emit_png.h), then index.html (emit_html.c),
 * which shows the charts it finds there: both need out->dir. */
int gl_emit_png(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);
/* The HTML page's name in the report's directory. */
#define GL_HTML_INDEX "index.html"
int gl_emit_html(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);


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
