/*
 * chart.h - the chart layer of gpulog-report: data in, PNG files out.
 *
 * It knows nothing about SQL or the report model. A caller reduces its
 * samples into the small structures below (time columns, histograms, bar
 * rows) and asks for a chart; the chart functions draw it with PLplot's
 * cairo PNG device ("pngcairo") at a fixed size on a white background with
 * the Okabe-Ito palette. PLplot is used by chart_plot.c only.
 *
 * Names passed in (kernels, components) are log-derived text: the chart
 * layer shortens them for labels (gl_chart_label) and escapes PLplot's
 * text escape character itself; callers pass them as they are.
 *
 * Times are ts_us (µs since 1970-01-01 UTC). All chart functions write the
 * file at path (replacing it), or return a negative gl_code with err
 * filled; they are not thread-safe (PLplot keeps global state), and each
 * one opens and ends its own PLplot stream.
 */
#ifndef GL_CHART_H
#define GL_CHART_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulog.h"

#define GL_CHART_WIDTH_PX 1600
#define GL_CHART_HEIGHT_PX 900

/* Time columns a series is reduced to: about one per pixel of plot width. */
#define GL_CHART_COLUMNS 1000

/* Longest label drawn for a name, in characters (code points). */
#define GL_CHART_LABEL_MAX 48

/* Okabe-Ito colours (Wong, Nature Methods 2011), ordered for a white page. */
#define GL_CHART_NCOLORS 8
extern const uint8_t gl_chart_palette[GL_CHART_NCOLORS][3];

struct gl_chart_opts {
	int width_px;		/* 0: GL_CHART_WIDTH_PX */
	int height_px;		/* 0: GL_CHART_HEIGHT_PX */
	int stacked;		/* timeline panels one above the other, not a grid */
};

/* ---------------------------------------------------------------------
 * Reducing samples: a time series kept as min/mean/max per time column.
 * ------------------------------------------------------------------- */

struct gl_chart_col {
	uint64_t n;		/* samples in the column */
	uint64_t n_anomaly;	/* of which flagged as anomalies */
	double min, max, sum;	/* of the samples' values */
	double anomaly_max;	/* largest flagged value (when n_anomaly) */
};

/*
 * ncols columns of equal width covering [t0_us, t1_us]. A sample at t1_us
 * belongs to the last column; samples outside the range are dropped
 * (counted in dropped), as are non-finite values.
 */
struct gl_chart_cols {
	int64_t t0_us, t1_us;
	size_t ncols;
	struct gl_chart_col *col;	/* ncols entries, owned */
	uint64_t n;			/* samples kept */
	uint64_t dropped;		/* samples outside the range or not finite */
};

/* Allocates the columns; t1_us <= t0_us is widened to one second. */
int gl_chart_cols_init(struct gl_chart_cols *c, int64_t t0_us, int64_t t1_us,
		       size_t ncols, struct gl_err *err);
void gl_chart_cols_add(struct gl_chart_cols *c, int64_t ts_us, double y, int anomaly);
/*
 * The same with the column already known: i from gl_chart_cols_index (-1:
 * dropped), for a caller that adds many samples of one time to columns
 * with the same range. Inline: once per metric sample.
 */
static inline void gl_chart_cols_add_at(struct gl_chart_cols *c, long i, double y, int anomaly)
{
	if (i < 0 || !isfinite(y)) {
		c->dropped++;
		return;
	}
	struct gl_chart_col *k = &c->col[i];

	if (k->n == 0 || y < k->min)
		k->min = y;
	if (k->n == 0 || y > k->max)
		k->max = y;
	k->sum += y;
	k->n++;
	if (anomaly) {
		if (k->n_anomaly == 0 || y > k->anomaly_max)
			k->anomaly_max = y;
		k->n_anomaly++;
	}
	c->n++;
}
/* Frees the columns; c may be zeroed or released already. */
void gl_chart_cols_release(struct gl_chart_cols *c);
/* Column of ts_us, or -1 when outside. */
long gl_chart_cols_index(const struct gl_chart_cols *c, int64_t ts_us);
/* Centre of column i, in seconds since the epoch (the charts' x unit). */
double gl_chart_cols_center_s(const struct gl_chart_cols *c, size_t i);

/* ---------------------------------------------------------------------
 * Reducing samples: a histogram with linear or log-spaced bins.
 * ------------------------------------------------------------------- */

struct gl_chart_hist {
	double lo, hi;		/* bin range */
	int log_bins;		/* 1: bins are equal in log10 */
	size_t nbins;
	uint64_t *count;	/* nbins entries, owned */
	uint64_t n;		/* samples in the bins */
	uint64_t n_below;	/* samples < lo, not in the bins (told on the chart) */
	uint64_t n_above;	/* samples > hi, likewise */
	double p50, p95;	/* marked on the chart; NAN: not marked */
};

/*
 * Bins over [lo, hi] (the samples' min and max): log-spaced when
 * gl_chart_want_log(lo, hi). lo == hi is widened around the value.
 */
int gl_chart_hist_init(struct gl_chart_hist *h, double lo, double hi, size_t nbins,
		       struct gl_err *err);
void gl_chart_hist_add(struct gl_chart_hist *h, double v);
void gl_chart_hist_release(struct gl_chart_hist *h);
/* Lower edge of bin i (i == nbins: the upper edge of the last bin). */
double gl_chart_hist_edge(const struct gl_chart_hist *h, size_t i);

/*
 * The range to bin a sample over, from its min, p95 and max: up to max,
 * unless outliers lie past 3 x p95 (positive data), then up to 1.5 x p95,
 * so that the bulk of the distribution is not squeezed into a few bins;
 * the outliers are counted in n_above and said on the chart. p95, not p99:
 * with 130 samples two spikes already move p99 up among them (seen on the
 * sample logs: reduce_sum_kernel's 1,200 us bulk drawn as one bar).
 */
void gl_chart_hist_range(double min, double p95, double max, double *lo, double *hi);

/*
 * Builds a histogram of v[0..n) with the range of gl_chart_hist_range, p50
 * and p95 (linear interpolation between order statistics, as numpy's
 * default). For tests and small data; the report has its own quantiles.
 */
int gl_chart_hist_from_values(struct gl_chart_hist *h, const double *v, size_t n,
			      size_t nbins, struct gl_err *err);

/* ---------------------------------------------------------------------
 * Decisions shared by all charts (pure functions, tested on their own).
 * ------------------------------------------------------------------- */

/* 1 when the positive range [lo, hi] spans more than two decades. */
int gl_chart_want_log(double lo, double hi);

/*
 * Tick spacing for a UTC time axis over [t0_us, t1_us]: a calendar-friendly
 * step (1 s ... 30 days) and a strftime format for PLplot's time labels,
 * "%H:%M:%S", "%H:%M", "%m-%d %H:%M" or "%Y-%m-%d", few enough ticks that
 * the labels do not overlap on a plot of plot_px pixels. fmt holds 16 bytes.
 */
double gl_chart_time_step_s(int64_t t0_us, int64_t t1_us, int plot_px, char *fmt);

/* A tick step of 1, 2 or 5 x 10^k giving at most max_ticks over span (> 0). */
double gl_chart_nice_step(double span, int max_ticks);

/*
 * Shortens a (C++) name for a label into out (n bytes): drops a leading
 * return type and the parameter list, replaces template arguments by "<…>"
 * when the name is longer than max_chars, keeps the last scope components
 * when still too long ("…::Kernel<…>"), and cuts at max_chars code points
 * with "…". Invalid UTF-8 and control characters become '?'. Returns out.
 */
char *gl_chart_label(const char *name, size_t max_chars, char *out, size_t n);

/* "2025-09-09 00:00 – 2025-09-10 00:00 UTC" for titles; buf >= 64 bytes. */
char *gl_chart_window_text(int64_t t0_us, int64_t t1_us, char *buf, size_t n);

/* ---------------------------------------------------------------------
 * Charts.
 * ------------------------------------------------------------------- */

enum gl_chart_style {
	GL_CHART_LINE = 0,	/* mean line, min..max band, anomalies marked */
	GL_CHART_POINTS = 1,	/* column means as markers */
	GL_CHART_MAXLINE = 2,	/* column maxima as a line (peaks, levels) */
};

struct gl_chart_series {
	const char *name;		/* legend text, log-derived */
	const struct gl_chart_cols *cols;
	int style;			/* enum gl_chart_style */
	int color;			/* palette index; -1: by position */
};

/* A straight fitted line from (t0_us, y0) to (t1_us, y1), dashed. */
struct gl_chart_fit {
	const char *name;		/* legend text, or NULL for none */
	int64_t t0_us, t1_us;
	double y0, y1;
	int color;			/* palette index; -1: by position */
};

/*
 * Clips fit f to the values lo..hi (the data's range: a line fitted to
 * durations never drawn below the smallest one, so never below zero): the
 * ends outside are moved along the line to where it crosses lo or hi.
 * Returns 0 when no part of the line lies in the range (then draw none).
 */
int gl_chart_fit_clip(struct gl_chart_fit *f, double lo, double hi);

struct gl_chart_panel {
	const char *title;		/* panel title, log-derived; NULL: none */
	const char *y_label;		/* with its unit: "duration (µs)" */
	const struct gl_chart_series *series;
	size_t nseries;
	const struct gl_chart_fit *fits;
	size_t nfits;
	int legend;			/* 1: legend at the right of the panel */
	int linear;			/* 1: linear y axis whatever the span (amounts from 0),
					   never clipped: an amount's peak is the point */
	int64_t t0_us, t1_us;		/* the panel's own time range when t1_us > t0_us
					   (say so in its title); else the chart's */
	int64_t shade_t0_us, shade_t1_us;	/* an interval shaded behind the series when
						   shade_t1_us > shade_t0_us (a finding's window) */
};

/* Anomaly rings drawn in one panel at most: the worst, the rest counted in the legend. */
#define GL_CHART_ANOMALY_MARKS 20

/* Values above GL_CHART_SPIKE_FACTOR x a panel's level are clipped (see below). */
#define GL_CHART_SPIKE_FACTOR 3.0

/*
 * A time panel's y range, robust to rare spikes. The level of a series is
 * the p95 of the values its line is drawn through, one per non-empty
 * column (the column means; the maxima for GL_CHART_MAXLINE), the panel's
 * level the largest of its series' levels. A value (column maximum, or
 * mean for GL_CHART_POINTS) above cap = GL_CHART_SPIKE_FACTOR x level is
 * clipped: drawn at the top edge with a marker, counted in n_above, and not
 * part of [lo, hi]. Means, not maxima: one spike moves a column's maximum
 * all the way but its mean by 1/n, and with many samples per column most
 * columns hold a spike somewhere (report_bench: 1 in 5,000 samples 10 x,
 * 450 per column). Only rare values are clipped: cap is at least the p80
 * of each series' column maxima (a wide band in most columns stays whole).
 * Linear panels (amounts) are not clipped: cap = INFINITY. Fits count when
 * not above cap (a line above it leaves the frame). log: the kept range
 * spans more than two decades (gl_chart_want_log) and the panel is not
 * linear. Values are as quantile_sorted in chart_util.c: numpy's default
 * interpolation between order statistics.
 */
struct gl_chart_yrange {
	int any;		/* 0: nothing kept (no samples); lo, hi undefined */
	double lo, hi;		/* kept values */
	double level;		/* NAN when no series has a column */
	double cap;		/* INFINITY: nothing clipped */
	uint64_t n_above;	/* clipped values: one per series and column */
	double above_max;	/* the largest clipped value (when n_above) */
	int log;
};
int gl_chart_panel_yrange(const struct gl_chart_panel *p, struct gl_chart_yrange *r,
			  struct gl_err *err);

/*
 * Time charts over [t0_us, t1_us]: one panel, or a grid of panels (small
 * multiples, up to 12) sharing the time range unless a panel has its own.
 * A panel's y range is gl_chart_panel_yrange's: clipped values are drawn
 * as triangles at the top edge (an anomaly among them as a ring there) and
 * counted in the legend ("▲ 12 above the range, max 20931") or, without a
 * legend, in the y label. The y axis is logarithmic when the kept values
 * span more than two decades, unless the panel asks for a linear one. A
 * panel without samples says so inside its frame. A span under a
 * millisecond (one sample's) is drawn as one second around its middle.
 */
int gl_chart_timeline(const char *path, const char *title, int64_t t0_us, int64_t t1_us,
		      const struct gl_chart_panel *panels, size_t npanels,
		      const struct gl_chart_opts *opts, struct gl_err *err);

/* One histogram per entry (small multiples, up to 12), p50 and p95 marked. */
int gl_chart_histograms(const char *path, const char *title, const char *x_label,
			const char *const *names, const struct gl_chart_hist *h, size_t n,
			const struct gl_chart_opts *opts, struct gl_err *err);

/*
 * Grouped horizontal bars: one row per name, one bar per value (nvalues <=
 * 4, each with its legend text), a zero line; NAN draws no bar and writes
 * "n/a" (a kernel new in this window has no previous value). Each bar
 * carries its value as text, "%+.1f" then value_suffix (" %").
 */
struct gl_chart_bar_row {
	const char *name;	/* log-derived */
	double value[4];
};
int gl_chart_bars(const char *path, const char *title, const char *x_label,
		  const char *value_suffix, const char *const *value_names, size_t nvalues,
		  const struct gl_chart_bar_row *rows, size_t nrows,
		  const struct gl_chart_opts *opts, struct gl_err *err);
/*
 * The same with the value text's format: "%+.1f" (changes, as above) or
 * "%.4g" (amounts: 4 significant digits, whole numbers from 10^4 to 10^9);
 * amounts all above 0 spanning more than two decades (gl_chart_want_log)
 * get a log axis, bars starting at the power of 10 below the least.
 */
int gl_chart_bars_fmt(const char *path, const char *title, const char *x_label,
		      const char *value_fmt, const char *value_suffix,
		      const char *const *value_names, size_t nvalues,
		      const struct gl_chart_bar_row *rows, size_t nrows,
		      const struct gl_chart_opts *opts, struct gl_err *err);

/*
 * Stacked bars over time: nbuckets buckets of bucket_us from t0_us, one
 * layer per group (count[g * nbuckets + b]), a legend with group names.
 */
int gl_chart_time_bars(const char *path, const char *title, const char *y_label,
		       int64_t t0_us, int64_t bucket_us, size_t nbuckets,
		       const char *const *groups, size_t ngroups, const uint64_t *count,
		       const struct gl_chart_opts *opts, struct gl_err *err);

/*
 * Lines over a numeric x axis (a training step, not a time): one line per
 * entry, x ascending, with its legend text; a linear y axis, logarithmic
 * when the values span more than two decades (gl_chart_want_log).
 */
struct gl_chart_xy_line {
	const char *name;		/* legend text, log-derived */
	double *x, *y;			/* n points */
	size_t n;
};

int gl_chart_xy_lines(const char *path, const char *title, const char *x_label,
		      const char *y_label, const struct gl_chart_xy_line *lines, size_t nlines,
		      const struct gl_chart_opts *opts, struct gl_err *err);

/* A chart that says why there is nothing to show: title, then message. */
int gl_chart_nodata(const char *path, const char *title, const char *message,
		    const struct gl_chart_opts *opts, struct gl_err *err);

#endif /* GL_CHART_H */
