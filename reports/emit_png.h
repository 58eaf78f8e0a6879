/*
 * emit_png.h - the chart emitter of gpulog-report (emit_png.c) and what the
 * sections' chart functions share.
 *
 * Each section owns its charts (section.h: charts[], one draw function
 * each) and the data they draw, kept in its own state. The emitter only
 * walks the table: it draws every chart through its draw function into a
 * temporary file, checks the image is whole and renames it into out->dir.
 */
#ifndef GL_EMIT_PNG_H
#define GL_EMIT_PNG_H

#include "chart.h"
#include "report.h"

#define GL_PNG_TITLE_MAX 512

struct gl_emit_png_opts {
	struct gl_chart_opts chart;	/* size; zeroed: 1600 x 900 */
	int procs;			/* processes drawing (chart_procs.h): 0 two, 1 this one */
};

/*
 * Writes the charts of every section of rep's table (section.h) into
 * out->dir (required) and records their paths in out, in table order. opts
 * may be NULL. Two processes draw them (chart_procs.h) unless opts->procs
 * is 1; the files, paths and errors are the same either way. Stops at the
 * first chart that fails. gl_emit_png (report.h) is this with opts NULL.
 */
int gl_emit_png_with(const struct gl_report *rep, struct gl_output *out,
		     const struct gl_emit_png_opts *opts, struct gl_err *err);

/* "<what> · <window>": a chart's title (GL_PNG_TITLE_MAX bytes). */
void gl_png_title(char *buf, const char *what, const struct gl_report *rep);

/*
 * A trend's fitted line over its own points only (first to last sample),
 * never across the empty parts of the window.
 */
void gl_png_fit(const struct gl_report_trend *tr, const struct gl_report *rep,
		struct gl_chart_fit *f);

#endif
