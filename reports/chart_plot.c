/*
 * chart_plot.c - draws the charts with PLplot's cairo PNG device: time panels,
 * histograms, bars, stacked bars over time, lines over x. With chart_frame.c
 * (the stream, text, axes and legends every chart shares) the only files in
 * the tree that call PLplot.
 *
 * In: reduced data (time columns, histograms, bar rows) from chart.h.
 * Out: one PNG file per call, GL_CHART_WIDTH_PX x GL_CHART_HEIGHT_PX.
 *
 * PLplot keeps global state: every chart makes its own stream with
 * plmkstrm, draws, ends it with plend1 and goes back to the stream that
 * was current before, so charts never see each other's settings. PLplot
 * calls exit() on a fatal error (plexit), so everything that could make it
 * fail is checked before: the output file must be writable, ranges finite,
 * arrays non-empty. Its recoverable complaints (plabort) are silenced: the
 * library does not print.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <plplot.h>

#include "chart.h"
#include "chart_frame.h"
#include "util/timeutil.h"
#include "util/utf8.h"

/* ---------------------------------------------------------------------
 * Time panels.
 * ------------------------------------------------------------------- */

struct yrange {
	double lo, hi;
	int any;
};

static void yr_add(struct yrange *r, double v)
{
	if (!isfinite(v))
		return;
	if (!r->any || v < r->lo)
		r->lo = v;
	if (!r->any || v > r->hi)
		r->hi = v;
	r->any = 1;
}

static double col_mean(const struct gl_chart_col *k)
{
	return k->sum / (double)k->n;
}

struct yaxis {
	int log;
	double lo;	/* axis bottom, in data units */
	double cap;	/* values above are clipped (gl_chart_panel_yrange) */
	double top;	/* the frame's top edge, in plot units (log10 on a log axis) */
	double mark;	/* where clipped values' markers go, just under top */
};

/* A value in plot units, past the frame if so (PLplot clips lines there). */
static double ymap_raw(const struct yaxis *ax, double v)
{
	if (!ax->log)
		return v;
	return log10(v > ax->lo ? v : ax->lo);
}

/* A value in plot units; a clipped one on the top edge. */
static double ymap(const struct yaxis *ax, double v)
{
	return v > ax->cap ? ax->top : ymap_raw(ax, v);
}

/* Polyline through points (x[i], y[i]); NAN in y breaks it. */
static void broken_line(const PLFLT *x, const PLFLT *y, size_t n)
{
	size_t start = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i == n || isnan(y[i])) {
			if (i - start >= 2)
				plline((PLINT)(i - start), x + start, y + start);
			start = i + 1;
		}
	}
}

/* A gap of more than this many empty columns breaks a line. */
#define GAP_COLS 20
/* Fewer non-empty columns than this: also draw each as a dot. */
#define DOTS_BELOW 200

/*
 * Phase 0 draws the min..max band (alpha alpha), phase 1 the line, dots and
 * anomaly rings: all bands go under all lines, so no band hides a line.
 */
/*
 * Anomaly marks: a ring per flagged column buries a timeline of a real run
 * (hundreds of them), so a panel marks only its worst GL_CHART_ANOMALY_MARKS
 * and its legend counts the rest. Worst: the largest flagged value against
 * its series' mean, so that series of unlike scales compare.
 */
struct anomaly_marks {
	double min_score;	/* a column scoring below it is not marked */
	size_t left;		/* marks still to draw (ties at min_score) */
	size_t drawn, total;	/* columns marked; columns with a flagged sample */
};

static double series_mean(const struct gl_chart_cols *c)
{
	double sum = 0;
	uint64_t n = 0;

	for (size_t i = 0; i < c->ncols; i++) {
		sum += c->col[i].sum;
		n += c->col[i].n;
	}
	return n ? sum / (double)n : NAN;
}

static double anomaly_score(const struct gl_chart_col *k, double mean)
{
	return mean > 0 && isfinite(mean) ? k->anomaly_max / mean : k->anomaly_max;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static void anomaly_marks_plan(const struct gl_chart_panel *p, struct anomaly_marks *am)
{
	double *score = NULL;
	size_t n = 0;

	memset(am, 0, sizeof(*am));
	am->min_score = -INFINITY;
	am->left = SIZE_MAX;
	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 0; p->series[s].cols && p->series[s].cols->col &&
				   i < p->series[s].cols->ncols; i++)
			am->total += p->series[s].cols->col[i].n_anomaly > 0;
	if (am->total <= GL_CHART_ANOMALY_MARKS || !(score = malloc(sizeof(*score) * am->total)))
		return;
	for (size_t s = 0; s < p->nseries; s++) {
		const struct gl_chart_cols *c = p->series[s].cols;
		double mean = c && c->col ? series_mean(c) : NAN;

		for (size_t i = 0; c && c->col && i < c->ncols; i++)
			if (c->col[i].n_anomaly > 0)
				score[n++] = anomaly_score(&c->col[i], mean);
	}
	qsort(score, n, sizeof(*score), cmp_desc);
	am->min_score = score[GL_CHART_ANOMALY_MARKS - 1];
	am->left = GL_CHART_ANOMALY_MARKS;
	free(score);
}

static void draw_series(const struct gl_chart_series *s, size_t pos, const struct yaxis *ax,
			struct anomaly_marks *am, int phase, double alpha)
{
	const struct gl_chart_cols *c = s->cols;
	size_t n = c->ncols, nonempty = 0, m = 0, last = 0;
	int color = gl_plot_palette_index(s->color, pos);
	PLFLT *x = malloc(sizeof(PLFLT) * (2 * n + 2));
	PLFLT *y = malloc(sizeof(PLFLT) * (2 * n + 2));
	PLFLT *bx = malloc(sizeof(PLFLT) * (2 * n + 2));
	PLFLT *by = malloc(sizeof(PLFLT) * (2 * n + 2));

	if (!x || !y || !bx || !by)
		goto out;
	for (size_t i = 0; i < n; i++)
		nonempty += c->col[i].n > 0;

	/* The min..max band, one polygon per run of adjacent columns. */
	if (phase == 0) {
		const uint8_t *rgb = gl_chart_palette[color - COL_PALETTE];

		if (s->style != GL_CHART_LINE)
			goto out;
		plscol0a(COL_BAND, rgb[0], rgb[1], rgb[2], alpha);
		gl_plot_set_color(COL_BAND);
		for (size_t i = 0; i < n;) {
			size_t j = i, k = 0;

			while (j < n && c->col[j].n > 0)
				j++;
			for (size_t q = i; q < j; q++) {
				bx[k] = gl_chart_cols_center_s(c, q);
				by[k++] = ymap(ax, c->col[q].max);
			}
			for (size_t q = j; q > i; q--) {
				bx[k] = gl_chart_cols_center_s(c, q - 1);
				by[k++] = ymap(ax, c->col[q - 1].min);
			}
			if (j - i >= 2)
				plfill((PLINT)k, bx, by);
			else if (j - i == 1)
				plline(2, bx, by);
			i = j > i ? j : i + 1;
		}
		goto out;
	}

	/* The line (means, or maxima), broken at long gaps. */
	for (size_t i = 0; i < n; i++) {
		const struct gl_chart_col *k = &c->col[i];

		if (k->n == 0)
			continue;
		if (m > 0 && i - last > GAP_COLS) {
			x[m] = x[m - 1];
			y[m++] = NAN;
		}
		x[m] = gl_chart_cols_center_s(c, i);
		y[m++] = ymap(ax, s->style == GL_CHART_MAXLINE ? k->max : col_mean(k));
		last = i;
	}
	gl_plot_set_color(color);
	if (s->style != GL_CHART_POINTS) {
		plwidth(2);
		broken_line(x, y, m);
		plwidth(1);
	}
	if (s->style == GL_CHART_POINTS || nonempty < DOTS_BELOW) {
		size_t k = 0;

		/* a clipped value gets its triangle below, not a dot on the edge */
		for (size_t i = 0; i < m; i++)
			if (!isnan(y[i]) && y[i] != ax->top) {
				bx[k] = x[i];
				by[k++] = y[i];
			}
		PLFLT ht = gl_plot_text_scale(s->style == GL_CHART_POINTS ? 1.0 : 0.7);

		plstring((PLINT)k, bx, by, GLYPH_DOT);
		gl_plot_text_restore(ht);
	}

	/* Clipped values: a triangle in the series' colour just under the top edge. */
	m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gl_chart_col *k = &c->col[i];

		if (k->n > 0 && (s->style == GL_CHART_POINTS ? col_mean(k) : k->max) > ax->cap) {
			x[m] = gl_chart_cols_center_s(c, i);
			y[m++] = ax->mark;
		}
	}
	if (m > 0) {
		PLFLT ht = gl_plot_text_scale(0.8);

		plstring((PLINT)m, x, y, GLYPH_UP);
		gl_plot_text_restore(ht);
	}

	/* Anomalies: a black ring at the largest flagged value of the column. */
	m = 0;
	double mean = series_mean(c);

	for (size_t i = 0; i < n; i++)
		if (c->col[i].n_anomaly > 0 && am->left > 0 &&
		    anomaly_score(&c->col[i], mean) >= am->min_score) {
			am->left--;
			x[m] = gl_chart_cols_center_s(c, i);
			y[m++] = c->col[i].anomaly_max > ax->cap ? ax->mark
				: ymap(ax, c->col[i].anomaly_max);
		}
	if (m > 0) {
		gl_plot_set_color(COL_FG);
		PLFLT ht = gl_plot_text_scale(1.1);

		plstring((PLINT)m, x, y, GLYPH_RING);
		gl_plot_text_restore(ht);
		am->drawn += m;
	}
out:
	free(x);
	free(y);
	free(bx);
	free(by);
}

static void draw_fit(const struct gl_chart_fit *f, size_t pos, const struct yaxis *ax)
{
	PLFLT x[2] = {(double)f->t0_us / 1e6, (double)f->t1_us / 1e6};
	PLFLT y[2] = {ymap_raw(ax, f->y0), ymap_raw(ax, f->y1)};

	if (!isfinite(f->y0) || !isfinite(f->y1))
		return;
	gl_plot_set_color(gl_plot_palette_index(f->color, pos));
	pllsty(2);
	plwidth(2.5);
	plline(2, x, y);
	plwidth(1);
	pllsty(1);
}

/* "12 above the range, max 20931": what clipping left out of the frame. */
static void above_text(const struct gl_chart_yrange *r, char *buf, size_t n)
{
	char v[32];

	gl_plot_fmt_value(r->above_max, v, sizeof(v));
	snprintf(buf, n, "%llu above the range, max %s", (unsigned long long)r->n_above, v);
}

static void draw_legend(const struct gl_chart_panel *p, const struct gl_chart_yrange *r,
			const struct anomaly_marks *am, size_t max_chars, const PLFLT vp[4])
{
	struct legend_entry e[LEGEND_MAX];
	size_t n = 0;

	for (size_t s = 0; s < p->nseries && n < LEGEND_MAX - 2; s++, n++) {
		e[n].kind = p->series[s].style == GL_CHART_POINTS ? LEG_DOT : LEG_LINE;
		e[n].color = gl_plot_palette_index(p->series[s].color, s);
		gl_plot_name_text(p->series[s].name ? p->series[s].name : "", max_chars, e[n].text,
			  sizeof(e[n].text));
	}
	for (size_t f = 0; f < p->nfits && n < LEGEND_MAX - 2; f++) {
		if (!p->fits[f].name)
			continue;
		e[n].kind = LEG_DASH;
		e[n].color = gl_plot_palette_index(p->fits[f].color, f);
		gl_plot_name_text(p->fits[f].name, max_chars, e[n].text, sizeof(e[n].text));
		n++;
	}
	if (am->drawn > 0) {
		e[n].kind = LEG_RING;
		e[n].color = COL_FG;
		if (am->drawn < am->total)
			snprintf(e[n].text, sizeof(e[n].text), "flagged anomaly: worst %zu of %zu",
				 am->drawn, am->total);
		else
			snprintf(e[n].text, sizeof(e[n].text), "flagged anomaly");
		n++;
	}
	if (r->n_above > 0) {
		e[n].kind = LEG_UP;
		e[n].color = COL_FG;
		above_text(r, e[n].text, sizeof(e[n].text));
		n++;
	}
	gl_plot_legend_draw(e, n, vp);
}

/*
 * How far left of the frame the y label goes: clear of the tick labels,
 * which PLplot writes horizontally, so a 5-digit value ("60000" MiB of
 * memory in use) is wider than the default gap and the label ran over it.
 */
static double label_disp(const struct yaxis *ax, double bottom, int small)
{
	double big = fmax(fabs(bottom), fabs(ax->top)), disp = small ? 4.6 : 5.6;
	int digits = 1;

	if (ax->log || !isfinite(big))
		return disp;
	while (big >= 10 && digits < 12)
		big /= 10, digits++;
	return digits > 4 ? disp + 0.75 * (digits - 4) : disp;
}

static int draw_time_panel(const struct gl_chart_panel *p, int64_t t0_us, int64_t t1_us,
			   const double vp[4], int page_w_px, int small, int time_title,
			   struct gl_err *err)
{
	struct gl_chart_yrange r;
	struct yaxis ax = {0};
	struct anomaly_marks am;
	size_t nsamples = 0;
	int64_t day_us;
	double bottom;
	int rc = gl_chart_panel_yrange(p, &r, err);

	if (rc != GL_OK)
		return rc;
	if (p->t1_us > p->t0_us) {
		t0_us = p->t0_us;
		t1_us = p->t1_us;
	}
	/*
	 * A span under a millisecond is widened to one second around its
	 * middle. One sample's span is [t, t + 1 us]: PLplot draws no tick, no
	 * label and no point on an axis whose span is the last digits of its
	 * times (an empty frame), and a lone sample then sits in the middle of
	 * the axis, not cut in half by its edge. (From 1 ms up PLplot draws the
	 * points; a trace of a few hundred ms keeps its own span.)
	 */
	if (t1_us <= t0_us || (uint64_t)t1_us - (uint64_t)t0_us < (uint64_t)GL_US_PER_S / 1000) {
		int64_t mid = t1_us > t0_us ? t0_us + (int64_t)(((uint64_t)t1_us - (uint64_t)t0_us) / 2)
					    : t0_us;

		if (mid < INT64_MIN + GL_US_PER_S)
			mid = INT64_MIN + GL_US_PER_S;
		else if (mid > INT64_MAX - GL_US_PER_S)
			mid = INT64_MAX - GL_US_PER_S;
		t0_us = mid - GL_US_PER_S / 2;
		t1_us = t0_us + GL_US_PER_S;
	}
	plvpor(vp[0], vp[1], vp[2], vp[3]);
	for (size_t s = 0; s < p->nseries; s++)
		nsamples += p->series[s].cols ? p->series[s].cols->n : 0;
	if (!r.any) {
		r.lo = 0;
		r.hi = 1;
	}
	ax.log = r.log;
	ax.cap = r.cap;
	if (ax.log) {
		double pad = (log10(r.hi) - log10(r.lo)) * 0.04;

		ax.lo = pow(10, log10(r.lo) - pad);
		bottom = log10(ax.lo);
		ax.top = log10(r.hi) + pad;
	} else {
		double pad = (r.hi - r.lo) * 0.06;

		if (pad == 0)
			pad = r.hi != 0 ? fabs(r.hi) * 0.1 : 1;
		bottom = r.lo - pad;
		if (r.lo >= 0 && bottom < 0)
			bottom = 0;
		ax.top = r.hi + pad;
	}
	ax.mark = ax.top - (ax.top - bottom) * 0.025;
	plwind((double)t0_us / 1e6, (double)t1_us / 1e6, bottom, ax.top);
	if (small)
		plschr(0, TEXT_SCALE * 0.85);
	gl_plot_time_box(t0_us, t1_us, (int)((vp[1] - vp[0]) * page_w_px), ax.log ? "bcnstvl" : "bcnstv",
		 &day_us);
	if (p->shade_t1_us > p->shade_t0_us) {
		double sx0 = (double)(p->shade_t0_us > t0_us ? p->shade_t0_us : t0_us) / 1e6;
		double sx1 = (double)(p->shade_t1_us < t1_us ? p->shade_t1_us : t1_us) / 1e6;
		PLFLT bx[4] = {sx0, sx1, sx1, sx0}, by[4] = {bottom, bottom, ax.top, ax.top};

		plscol0a(COL_BAND, 0xE6, 0x9F, 0x00, 0.18);
		gl_plot_set_color(COL_BAND);
		if (sx1 > sx0)
			plfill(4, bx, by);
	}
	anomaly_marks_plan(p, &am);
	/* Overlapping bands of many series turn grey: fainter the more there are. */
	double alpha = p->nseries <= 2 ? 0.28 : p->nseries <= 4 ? 0.16 : 0.09;

	for (int phase = 0; phase < 2; phase++)
		for (size_t s = 0; s < p->nseries; s++)
			if (p->series[s].cols && p->series[s].cols->col)
				draw_series(&p->series[s], s, &ax, &am, phase, alpha);
	/* the fits within the data's range (the columns' min and max) */
	double dlo = INFINITY, dhi = -INFINITY;

	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 0; p->series[s].cols && p->series[s].cols->col &&
				   i < p->series[s].cols->ncols; i++) {
			const struct gl_chart_col *k = &p->series[s].cols->col[i];

			if (k->n && k->min < dlo)
				dlo = k->min;
			if (k->n && k->max > dhi)
				dhi = k->max;
		}
	for (size_t f = 0; f < p->nfits; f++) {
		struct gl_chart_fit fit = p->fits[f];

		if (dlo <= dhi ? gl_chart_fit_clip(&fit, dlo, dhi) : 1)
			draw_fit(&fit, f, &ax);
	}
	gl_plot_set_color(COL_FG);
	if (time_title)
		gl_plot_time_label(day_us, small ? 3.0 : 3.2);
	if (r.n_above > 0 && !p->legend) {
		char yl[TEXT_MAX / 2], a[128];

		above_text(&r, a, sizeof(a));
		snprintf(yl, sizeof(yl), "%s \xC2\xB7 " GLYPH_UP " %s", p->y_label ? p->y_label : "",
			 a);
		gl_plot_y_label(yl, small ? 4.6 : 5.6);
	} else {
		gl_plot_y_label(p->y_label, label_disp(&ax, bottom, small));
	}
	gl_plot_panel_title(p->title, small ? 40 : 90);
	if (nsamples == 0)
		gl_plot_message_in_viewport("no samples in this window");
	if (p->legend)
		draw_legend(p, &r, &am, 30, vp);
	plschr(0, TEXT_SCALE);
	return GL_OK;
}

int gl_chart_timeline(const char *path, const char *title, int64_t t0_us, int64_t t1_us,
		      const struct gl_chart_panel *panels, size_t npanels,
		      const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct chart c;
	int cols, rows, rc, legend = 0;

	if (npanels == 0 || npanels > 12)
		return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
				  "a timeline has 1 to 12 panels, not %zu", npanels);
	for (size_t k = 0; k < npanels; k++)
		legend |= panels[k].legend;
	rc = gl_plot_chart_begin(&c, path, opts, err);
	if (rc != GL_OK)
		return rc;
	gl_plot_grid_shape(npanels, &cols, &rows);
	if (opts && opts->stacked) {
		cols = 1;
		rows = (int)npanels;
	}
	for (size_t k = 0; k < npanels; k++) {
		double vp[4];

		/* without a legend, room for half of the last time label */
		gl_plot_cell_viewport(k, cols, rows, legend ? 0.245 : 0.05, vp);
		/*
		 * Stacked panels share one time axis: its title under the last
		 * panel only, and the room of the others' given to their plots
		 * (four telemetry panels were thin strips in a third-empty image).
		 */
		if (opts && opts->stacked && rows > 1) {
			double ch = 0.88 / rows;

			vp[2] = 0.02 + ch * (rows - 1 - (int)k) + (k + 1 == npanels ? 0.06 : 0.03);
			vp[3] = 0.02 + ch * (rows - (int)k) - 0.025;
		}
		rc = draw_time_panel(&panels[k], t0_us, t1_us, vp, c.width_px, npanels > 1,
				     !(opts && opts->stacked) || k + 1 == npanels, err);
		if (rc != GL_OK)
			break;
	}
	gl_plot_draw_title(title);
	if (rc != GL_OK) {
		plend1();
		plsstrm(c.prev_strm);
		remove(path);
		return rc;
	}
	return gl_plot_chart_end(&c, path, err);
}

/* ---------------------------------------------------------------------
 * Histograms.
 * ------------------------------------------------------------------- */

static double hmap(const struct gl_chart_hist *h, double v)
{
	return h->log_bins ? log10(v > 0 ? v : h->lo) : v;
}

/*
 * A quantile's line and label. The label sits right of the line, or left of
 * it in the right 40 % of the panel; p50 and p95 labels are at different
 * heights so that close quantiles do not write over each other.
 */
static void draw_quantile(const struct gl_chart_hist *h, double q, const char *name, int style,
			  double ymax, double ypos)
{
	double x_lo = hmap(h, h->lo), x_hi = hmap(h, h->hi), just;

	PLFLT x[2], y[2] = {0, ymax};
	char v[32], t[64];

	if (!isfinite(q))
		return;
	x[0] = x[1] = hmap(h, q);
	gl_plot_set_color(COL_FG);
	pllsty(style);
	plwidth(2);
	plline(2, x, y);
	plwidth(1);
	pllsty(1);
	gl_plot_fmt_value(q, v, sizeof(v));
	/* " p95 1774" is about a third of a small panel wide: past 60 % it goes left */
	just = (x[0] - x_lo) > 0.6 * (x_hi - x_lo) ? 1.0 : 0.0;
	snprintf(t, sizeof(t), just > 0.5 ? "%s %s " : " %s %s", name, v);
	plptex(x[0], ymax * ypos, 1, 0, just, t);
}

static void draw_hist_panel(const char *name, const struct gl_chart_hist *h, size_t pos,
			    const char *x_label, const double vp[4], int small)
{
	uint64_t cmax = 0;
	char t[TEXT_MAX];

	plvpor(vp[0], vp[1], vp[2], vp[3]);
	if (small)
		plschr(0, TEXT_SCALE * 0.85);
	for (size_t i = 0; h->count && i < h->nbins; i++)
		if (h->count[i] > cmax)
			cmax = h->count[i];
	if (h->n == 0 || !h->count) {
		plwind(0, 1, 0, 1);
		gl_plot_set_color(COL_FG);
		plbox("bc", 0, 0, "bc", 0, 0);
		gl_plot_panel_title(name, small ? 40 : 90);
		gl_plot_message_in_viewport("no samples");
		plschr(0, TEXT_SCALE);
		return;
	}
	double ymax = (double)cmax * 1.15;

	plwind(hmap(h, h->lo), hmap(h, h->hi), 0, ymax);
	gl_plot_set_color(COL_GRID);
	plbox(h->log_bins ? "gl" : "g", 0, 0, "g", 0, 0);
	gl_plot_set_color(gl_plot_palette_index(-1, pos));
	for (size_t i = 0; i < h->nbins; i++) {
		PLFLT x0 = hmap(h, gl_chart_hist_edge(h, i));
		PLFLT x1 = hmap(h, gl_chart_hist_edge(h, i + 1));
		PLFLT bx[4] = {x0, x0, x1, x1};
		PLFLT by[4] = {0, (double)h->count[i], (double)h->count[i], 0};

		if (h->count[i] > 0)
			plfill(4, bx, by);
	}
	gl_plot_set_color(COL_FG);
	plbox(h->log_bins ? "bcnstl" : "bcnst",
	      h->log_bins ? 0 : gl_chart_nice_step(h->hi - h->lo, small ? 4 : 8), 0,
	      "bcnstv", gl_chart_nice_step(ymax, small ? 5 : 8), 0);
	draw_quantile(h, h->p50, "p50", 2, ymax, 0.93);
	draw_quantile(h, h->p95, "p95", 3, ymax, 0.84);
	{
		char xl[TEXT_MAX], lo[32], hi[32];

		gl_plot_fmt_value(h->lo, lo, sizeof(lo));
		gl_plot_fmt_value(h->hi, hi, sizeof(hi));
		/* Samples outside the bins are said, shortly: "9 > 24.7 not drawn". */
		snprintf(xl, sizeof(xl), "%s", x_label ? x_label : "");
		if (h->n_below > 0)
			snprintf(xl + strlen(xl), sizeof(xl) - strlen(xl), " \xC2\xB7 %llu < %s",
				 (unsigned long long)h->n_below, lo);
		if (h->n_above > 0)
			snprintf(xl + strlen(xl), sizeof(xl) - strlen(xl), " \xC2\xB7 %llu > %s",
				 (unsigned long long)h->n_above, hi);
		if (h->n_below + h->n_above > 0)
			snprintf(xl + strlen(xl), sizeof(xl) - strlen(xl), " not drawn");
		gl_plot_set_color(COL_FG);
		plmtex("b", small ? 3.0 : 3.4, 0.5, 0.5, gl_plot_esc_text(xl, t, sizeof(t)));
	}
	gl_plot_y_label("count", small ? 5.2 : 5.6);
	{
		char lab[TEXT_MAX / 2], full[TEXT_MAX];

		gl_chart_label(name ? name : "", small ? 26 : 80, lab, sizeof(lab));
		snprintf(full, sizeof(full), "%s (n=%llu)", lab,
			 (unsigned long long)(h->n + h->n_below + h->n_above));
		gl_plot_set_color(COL_FG);
		plmtex("t", 1.1, 0.5, 0.5, gl_plot_esc_text(full, t, sizeof(t)));
	}
	plschr(0, TEXT_SCALE);
}

int gl_chart_histograms(const char *path, const char *title, const char *x_label,
			const char *const *names, const struct gl_chart_hist *h, size_t n,
			const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct chart c;
	int cols, rows, rc;

	if (n == 0 || n > 12)
		return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
				  "histograms: 1 to 12 panels, not %zu", n);
	for (size_t k = 0; k < n; k++)
		if (h[k].count && (!isfinite(h[k].lo) || !isfinite(h[k].hi) ||
				   h[k].hi <= h[k].lo || (h[k].log_bins && h[k].lo <= 0)))
			return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
					  "histogram %zu has a bad range", k);
	rc = gl_plot_chart_begin(&c, path, opts, err);
	if (rc != GL_OK)
		return rc;
	gl_plot_grid_shape(n, &cols, &rows);
	for (size_t k = 0; k < n; k++) {
		double vp[4];

		gl_plot_cell_viewport(k, cols, rows, 0.02, vp);
		draw_hist_panel(names ? names[k] : NULL, &h[k], k, x_label, vp, n > 1);
	}
	gl_plot_draw_title(title);
	return gl_plot_chart_end(&c, path, err);
}

/* ---------------------------------------------------------------------
 * Horizontal grouped bars.
 * ------------------------------------------------------------------- */

int gl_chart_bars(const char *path, const char *title, const char *x_label,
		  const char *value_suffix, const char *const *value_names, size_t nvalues,
		  const struct gl_chart_bar_row *rows, size_t nrows,
		  const struct gl_chart_opts *opts, struct gl_err *err)
{
	return gl_chart_bars_fmt(path, title, x_label, "%+.1f", value_suffix, value_names,
				 nvalues, rows, nrows, opts, err);
}

int gl_chart_bars_fmt(const char *path, const char *title, const char *x_label,
		      const char *value_fmt, const char *value_suffix,
		      const char *const *value_names, size_t nvalues,
		      const struct gl_chart_bar_row *rows, size_t nrows,
		      const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct chart c;
	struct yrange r = {0};
	char t[TEXT_MAX];
	int rc;

	if (nvalues == 0 || nvalues > 4 || nrows == 0 || nrows > 40)
		return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
				  "bars: 1 to 4 values and 1 to 40 rows, not %zu and %zu",
				  nvalues, nrows);
	rc = gl_plot_chart_begin(&c, path, opts, err);
	if (rc != GL_OK)
		return rc;
	const int changes = !strcmp(value_fmt, "%+.1f");
	double vmin = INFINITY, vmax = -INFINITY;

	for (size_t i = 0; i < nrows; i++)
		for (size_t v = 0; v < nvalues; v++)
			if (isfinite(rows[i].value[v])) {
				vmin = fmin(vmin, rows[i].value[v]);
				vmax = fmax(vmax, rows[i].value[v]);
			}
	/* Amounts over more than two decades: a log axis, bars from a power of 10 below the least. */
	const int logx = !changes && vmin > 0 && gl_chart_want_log(vmin, vmax);
	const double base = logx ? floor(log10(vmin)) : 0;

	if (!logx)
		yr_add(&r, 0);
	for (size_t i = 0; i < nrows; i++)
		for (size_t v = 0; v < nvalues; v++)
			yr_add(&r, logx && rows[i].value[v] > 0 ? log10(rows[i].value[v])
								: rows[i].value[v]);
	if (logx)
		r.lo = base;
	double span = r.hi - r.lo > 0 ? r.hi - r.lo : 1;
	/* Room for the value text at both ends. */
	double lo = r.lo - (r.lo < 0 && !logx ? span * 0.2 : 0), hi = r.hi + span * 0.2;

	if (r.lo == 0 && r.hi == 0) {
		lo = -1;
		hi = 1;
	}
	const PLFLT vp[4] = {0.32, 0.80, 0.10, 0.88};

	plvpor(vp[0], vp[1], vp[2], vp[3]);
	plwind(lo, hi, 0, (double)nrows);
	gl_plot_set_color(COL_GRID);
	plbox(logx ? "gl" : "g", 0, 0, "", 0, 0);
	double band = 0.8 / (double)nvalues;

	plschr(0, TEXT_SCALE * (nrows > 20 ? 0.75 : 0.95));
	for (size_t i = 0; i < nrows; i++) {
		double ytop = (double)(nrows - i) - 0.1;

		for (size_t v = 0; v < nvalues; v++) {
			double val = rows[i].value[v];
			double y0 = ytop - band * (double)(v + 1), y1 = ytop - band * (double)v;
			char num[64];

			if (!isfinite(val)) {
				gl_plot_set_color(COL_MUTED);
				plptex(0, (y0 + y1) / 2, 1, 0, -0.1, " n/a");
				continue;
			}
			double x = logx ? log10(val) : val;
			PLFLT bx[4] = {base, base, x, x}, by[4] = {y0, y1, y1, y0};

			gl_plot_set_color(gl_plot_palette_index((int)v, v));
			plfill(4, bx, by);
			/* -0.04 rounds to "-0.0": say 0.0 */
			if (!strcmp(value_fmt, "%+.1f"))
				snprintf(num, sizeof(num), "%+.1f%s", fabs(val) < 0.05 ? 0.0 : val,
					 value_suffix ? value_suffix : "");
			else	/* amounts: 4 significant digits, no exponent below 10^9 */
				snprintf(num, sizeof(num), fabs(val) >= 1e4 && fabs(val) < 1e9 ? "%.0f%s"
							   : "%.4g%s", val,
					 value_suffix ? value_suffix : "");
			gl_plot_set_color(COL_FG);
			plptex(x, (y0 + y1) / 2 - band * 0.15, 1, 0, val < 0 ? 1.05 : -0.05,
			       gl_plot_esc_text(num, t, sizeof(t)));
		}
		gl_plot_set_color(COL_FG);
		plmtex("lv", 0.8, ((double)(nrows - i) - 0.5) / (double)nrows, 1.0,
		       gl_plot_name_text(rows[i].name ? rows[i].name : "", 48, t, sizeof(t)));
	}
	plschr(0, TEXT_SCALE);
	PLFLT zx[2] = {base, base}, zy[2] = {0, (double)nrows};

	gl_plot_set_color(COL_FG);
	plwidth(1.5);
	plline(2, zx, zy);
	plwidth(1);
	plbox(logx ? "bcnstl" : "bcnst", 0, 0, "bc", 0, 0);
	char xl[TEXT_MAX];

	snprintf(xl, sizeof(xl), "%s%s", x_label ? x_label : "", logx ? ", log scale" : "");
	plmtex("b", 3.2, 0.5, 0.5, gl_plot_esc_text(xl, t, sizeof(t)));
	gl_plot_legend_boxes(value_names, nvalues, vp);
	gl_plot_draw_title(title);
	return gl_plot_chart_end(&c, path, err);
}

/* ---------------------------------------------------------------------
 * Stacked bars over time.
 * ------------------------------------------------------------------- */

int gl_chart_time_bars(const char *path, const char *title, const char *y_label_text,
		       int64_t t0_us, int64_t bucket_us, size_t nbuckets,
		       const char *const *groups, size_t ngroups, const uint64_t *count,
		       const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct chart c;
	uint64_t total = 0, top = 0;
	int64_t t1_us, day_us;
	int rc;

	if (nbuckets == 0 || nbuckets > 100000 || bucket_us <= 0 || ngroups == 0 ||
	    ngroups > LEGEND_MAX - 1)
		return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
				  "time bars: bad shape (%zu buckets, %zu groups)", nbuckets, ngroups);
	for (size_t b = 0; b < nbuckets; b++) {
		uint64_t sum = 0;

		for (size_t g = 0; g < ngroups; g++)
			sum += count[g * nbuckets + b];
		total += sum;
		if (sum > top)
			top = sum;
	}
	t1_us = t0_us + bucket_us * (int64_t)nbuckets;
	rc = gl_plot_chart_begin(&c, path, opts, err);
	if (rc != GL_OK)
		return rc;
	const PLFLT vp[4] = {0.075, 0.755, 0.10, 0.90};

	plvpor(vp[0], vp[1], vp[2], vp[3]);
	plwind((double)t0_us / 1e6, (double)t1_us / 1e6, 0, top > 0 ? (double)top * 1.1 : 1);
	gl_plot_time_box(t0_us, t1_us, (int)(0.68 * c.width_px), "bcnstv", &day_us);
	double gap = nbuckets <= 200 ? 0.1 : 0;

	for (size_t b = 0; b < nbuckets; b++) {
		double base = 0;
		double x0 = (double)(t0_us + bucket_us * (int64_t)b) / 1e6;
		double w = (double)bucket_us / 1e6;

		for (size_t g = 0; g < ngroups; g++) {
			double v = (double)count[g * nbuckets + b];

			if (v <= 0)
				continue;
			PLFLT bx[4] = {x0 + w * gap / 2, x0 + w * gap / 2, x0 + w * (1 - gap / 2),
				       x0 + w * (1 - gap / 2)};
			PLFLT by[4] = {base, base + v, base + v, base};

			gl_plot_set_color(gl_plot_palette_index((int)g, g));
			plfill(4, bx, by);
			base += v;
		}
	}
	gl_plot_set_color(COL_FG);
	plbox("bc", 0, 0, "bc", 0, 0);
	gl_plot_time_label(day_us, 3.2);
	gl_plot_y_label(y_label_text, 5.6);
	if (total == 0)
		gl_plot_message_in_viewport("no errors in this window");
	gl_plot_legend_boxes(groups, ngroups, vp);
	gl_plot_draw_title(title);
	return gl_plot_chart_end(&c, path, err);
}

int gl_chart_nodata(const char *path, const char *title, const char *message,
		    const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct chart c;
	int rc = gl_plot_chart_begin(&c, path, opts, err);

	if (rc != GL_OK)
		return rc;
	plvpor(0.075, 0.975, 0.10, 0.88);
	plwind(0, 1, 0, 1);
	gl_plot_set_color(COL_GRID);
	plbox("bc", 0, 0, "bc", 0, 0);
	gl_plot_message_in_viewport(message ? message : "no data in this window");
	gl_plot_draw_title(title);
	return gl_plot_chart_end(&c, path, err);
}

/* ---------------------------------------------------------------------
 * Lines over a numeric x axis.
 * ------------------------------------------------------------------- */

int gl_chart_xy_lines(const char *path, const char *title, const char *x_label,
		      const char *y_label, const struct gl_chart_xy_line *lines, size_t nlines,
		      const struct gl_chart_opts *opts, struct gl_err *err)
{
	struct legend_entry e[LEGEND_MAX];
	double x0 = NAN, x1 = NAN, y0 = NAN, y1 = NAN;
	const PLFLT vp[4] = {0.09, 0.74, 0.12, 0.88};
	char t[TEXT_MAX];
	struct chart c;
	int rc, logy;

	for (size_t i = 0; i < nlines; i++)
		for (size_t k = 0; k < lines[i].n; k++) {
			double x = lines[i].x[k], y = lines[i].y[k];

			if (!isfinite(x) || !isfinite(y))
				continue;
			x0 = isnan(x0) || x < x0 ? x : x0;
			x1 = isnan(x1) || x > x1 ? x : x1;
			y0 = isnan(y0) || y < y0 ? y : y0;
			y1 = isnan(y1) || y > y1 ? y : y1;
		}
	if (isnan(x0))
		return gl_chart_nodata(path, title, "no values", opts, err);
	logy = y0 > 0 && gl_chart_want_log(y0, y1);
	if (x1 == x0) {
		x0 -= 1;
		x1 += 1;
	}
	if (y1 == y0) {
		y0 = logy ? y0 / 2 : y0 - 1;
		y1 = logy ? y1 * 2 : y1 + 1;
	} else if (!logy) {
		double pad = (y1 - y0) * 0.05;

		y0 -= pad;
		y1 += pad;
	}
	rc = gl_plot_chart_begin(&c, path, opts, err);
	if (rc != GL_OK)
		return rc;
	plvpor(vp[0], vp[1], vp[2], vp[3]);
	plwind(x0, x1, logy ? log10(y0) : y0, logy ? log10(y1) : y1);
	gl_plot_set_color(COL_GRID);
	plbox("g", 0, 0, "g", 0, 0);
	gl_plot_set_color(COL_FG);
	plbox("bcnst", 0, 0, logy ? "bcnstvl" : "bcnstv", 0, 0);
	plmtex("b", 3.0, 0.5, 0.5, gl_plot_esc_text(x_label, t, sizeof(t)));
	plmtex("l", 5.0, 0.5, 0.5, gl_plot_esc_text(y_label, t, sizeof(t)));
	for (size_t i = 0; i < nlines && i < LEGEND_MAX; i++) {
		PLFLT *px = malloc((lines[i].n + 1) * sizeof(*px)), *py = malloc((lines[i].n + 1) * sizeof(*py));
		size_t m = 0;

		if (!px || !py) {
			free(px);
			free(py);
			break;
		}
		for (size_t k = 0; k < lines[i].n; k++) {
			if (!isfinite(lines[i].x[k]) || !isfinite(lines[i].y[k]) || (logy && lines[i].y[k] <= 0))
				continue;
			px[m] = lines[i].x[k];
			py[m] = logy ? log10(lines[i].y[k]) : lines[i].y[k];
			m++;
		}
		gl_plot_set_color(gl_plot_palette_index(-1, i));
		plwidth(2);
		if (m > 1)
			plline((PLINT)m, px, py);
		plwidth(1);
		/* a point of its own where the line is short or has one point */
		if (m && m <= 40) {
			PLFLT ht = gl_plot_text_scale(0.5);

			plstring((PLINT)m, px, py, GLYPH_DOT);
			gl_plot_text_restore(ht);
		}
		e[i].kind = LEG_LINE;
		e[i].color = gl_plot_palette_index(-1, i);
		gl_plot_name_text(lines[i].name ? lines[i].name : "", 34, e[i].text, sizeof(e[i].text));
		free(px);
		free(py);
	}
	gl_plot_legend_draw(e, nlines < LEGEND_MAX ? nlines : LEGEND_MAX, vp);
	gl_plot_draw_title(title);
	return gl_plot_chart_end(&c, path, err);
}
