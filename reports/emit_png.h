/*
 * emit_png.h - the chart emitter (emit_png.c) and the HTML index
 * (emit_html.c) of gpulog-report.
 *
 * The charts need per-sample series that the report model does not carry:
 * the caller collects them during the report's pass (series.h) and passes
 * them here. The HTML index only reads the report and the PNG files already in
 * out->dir, so it has the emitters' common signature.
 */
#ifndef GL_EMIT_PNG_H
#define GL_EMIT_PNG_H

#include "chart.h"
#include "report.h"
#include "series.h"

#define GL_PNG_TIMELINE "kernel_performance_timeline.png"
#define GL_PNG_DISTRIBUTION "kernel_performance_distribution.png"
#define GL_PNG_MEMORY "memory_usage_trend.png"
#define GL_PNG_ERRORS "error_rate.png"
#define GL_PNG_TRENDS "kernel_trends.png"
#define GL_PNG_BASELINE "baseline_comparison.png"
#define GL_HTML_INDEX "index.html"

struct gl_emit_png_opts {
	struct gl_chart_opts chart;	/* size; zeroed: 1600 x 900 */
	int procs;			/* processes drawing (chart_procs.h): 0 two, 1 this one */
};

/*
 * Writes the charts of every section of rep's table (section.h) into
 * out->dir (required) and records their paths in out, in table order. opts
 * may be NULL. Two processes draw them (chart_procs.h) unless opts->procs
 * is 1; the files, paths and errors are the same either way. Stops at the
 * first chart that fails.
 */
int gl_emit_png(const struct gl_report *rep, const struct gl_series *s, struct gl_output *out,
		const struct gl_emit_png_opts *opts, struct gl_err *err);

/* Draws the chart named name (one of GL_PNG_*) into out->dir; for the sections. */
int gl_png_draw(const char *name, const struct gl_report *rep, const struct gl_series *s,
		struct gl_output *out, const struct gl_emit_png_opts *opts, struct gl_err *err);

/*
 * For a section drawing a chart of its own data: calls draw(tmp, arg) to
 * draw into a temporary file, renames it to out->dir/name and records the
 * path; on failure removes it.
 */
int gl_png_draw_fn(const char *name, struct gl_output *out,
		   int (*draw)(const char *path, const void *arg, struct gl_err *err),
		   const void *arg, struct gl_err *err);

/*
 * Writes out->dir/index.html: one self-contained page (no external asset,
 * no script) with the window, summary, top kernels, alerts, trends, memory,
 * errors and baseline, and every chart found in out->dir inlined as a
 * data: URI. All log-derived text is HTML-escaped.
 */
int gl_emit_html(const struct gl_report *rep, struct gl_output *out, struct gl_err *err);

/*
 * The hook for gl_report_run after the report is built (with s collected
 * in the same pass) and its json/csv/text emitter ran: writes the six
 * charts, then index.html, into out->dir (required).
 */
int gl_report_charts(const struct gl_report *rep, const struct gl_series *s,
		     struct gl_output *out, struct gl_err *err);

#endif
