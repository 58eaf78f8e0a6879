/*
 * chart_frame.c - the frame every chart is drawn in (chart_frame.h): a
 * PLplot stream of its own per chart, checked before PLplot could exit;
 * text escaped and cut for PLplot, colours by palette position, the grid
 * of viewports, time axes and their labels, the hand-drawn legend.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chart_frame.h"
#include "util/timeutil.h"
#include "util/utf8.h"

static void quiet_abort(PLCHAR_VECTOR msg)
{
	(void)msg;
}

/*
 * Text for PLplot: '#' starts an escape sequence ("#u" superscript, "#(225)"
 * a Hershey glyph), so a literal '#' is written "##".
 */
const char *gl_plot_esc_text(const char *s, char *out, size_t n)
{
	size_t w = 0;

	/* invalid UTF-8 (a Latin-1 file name) becomes U+FFFD; sequences are never cut */
	while (s && *s) {
		size_t k = gl_utf8_seq(s);
		const char *src = k ? s : GL_UTF8_REPLACEMENT;
		size_t len = k ? k : 3;

		if (w + len + 2 > n)
			break;
		if (*s == '#')
			out[w++] = '#';
		memcpy(out + w, src, len);
		w += len;
		s += k ? k : 1;
	}
	out[w] = '\0';
	return out;
}

/* A log-derived name as a label: shortened, then escaped. */
const char *gl_plot_name_text(const char *name, size_t max_chars, char *out, size_t n)
{
	char tmp[TEXT_MAX / 2];

	gl_chart_label(name, max_chars, tmp, sizeof(tmp));
	return gl_plot_esc_text(tmp, out, n);
}

/*
 * Scales the text relative to its current size; returns the size to give
 * back to text_restore. Panels shrink text and helpers scale from there.
 */
PLFLT gl_plot_text_scale(double rel)
{
	PLFLT def, ht;

	plgchr(&def, &ht);
	plschr(0, ht * rel / def);
	return ht;
}

void gl_plot_text_restore(PLFLT ht)
{
	PLFLT def, cur;

	plgchr(&def, &cur);
	plschr(0, ht / def);
}

void gl_plot_set_color(int idx)
{
	plcol0(idx);
}

int gl_plot_palette_index(int color, size_t pos)
{
	int c = color >= 0 ? color : (int)pos;

	return COL_PALETTE + c % GL_CHART_NCOLORS;
}

int gl_plot_chart_begin(struct chart *c, const char *path, const struct gl_chart_opts *opts,
		       struct gl_err *err)
{
	FILE *f;

	c->width_px = opts && opts->width_px > 0 ? opts->width_px : GL_CHART_WIDTH_PX;
	c->height_px = opts && opts->height_px > 0 ? opts->height_px : GL_CHART_HEIGHT_PX;
	if (c->width_px < 200 || c->height_px < 150 || c->width_px > 10000 ||
	    c->height_px > 10000)
		return gl_err_set(err, GL_EUSAGE, path, 0, NULL,
				  "chart size %dx%d out of range", c->width_px, c->height_px);
	/* PLplot exits the process when it cannot open its output: check first. */
	f = fopen(path, "wb");
	if (!f)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot write");
	fclose(f);

	plgstrm(&c->prev_strm);
	PLINT strm;

	plmkstrm(&strm);
	plsabort(quiet_abort);
	plsdev("pngcairo");
	plsfnam(path);
	plspage(0, 0, c->width_px, c->height_px, 0, 0);
	plscmap0n(NCOL0);
	plscol0(COL_BG, 255, 255, 255);
	plscol0(COL_FG, 0, 0, 0);
	plscol0(COL_GRID, 0xDD, 0xDD, 0xDD);
	plscol0(COL_MUTED, 0x66, 0x66, 0x66);
	for (int i = 0; i < GL_CHART_NCOLORS; i++)
		plscol0(COL_PALETTE + i, gl_chart_palette[i][0], gl_chart_palette[i][1],
			gl_chart_palette[i][2]);
	plscolbg(255, 255, 255);
	plinit();
	/* Plain numbers up to 9 digits: "50000", not "5" and a "(x10^4)" apart. */
	plsxax(9, 0);
	plsyax(9, 0);
	pladv(0);
	plschr(0, TEXT_SCALE);
	return GL_OK;
}

int gl_plot_chart_end(struct chart *c, const char *path, struct gl_err *err)
{
	struct stat st;

	plend1();
	plsstrm(c->prev_strm);
	if (stat(path, &st) != 0 || st.st_size == 0)
		return gl_err_set(err, GL_EIO, path, 0, NULL, "PLplot wrote no image to");
	return GL_OK;
}

/* The chart's title, across the top of the page. */
void gl_plot_draw_title(const char *title)
{
	char t[TEXT_MAX];

	plvpor(0, 1, 0, 1);
	plwind(0, 1, 0, 1);
	gl_plot_set_color(COL_FG);
	PLFLT ht = gl_plot_text_scale(1.3);

	plptex(0.5, 0.955, 1, 0, 0.5, gl_plot_esc_text(title ? title : "", t, sizeof(t)));
	gl_plot_text_restore(ht);
}

/* A grid of cells for n small multiples on a 16:9 page. */
void gl_plot_grid_shape(size_t n, int *cols, int *rows)
{
	static const int shape[13][2] = {
		{1, 1}, {1, 1}, {2, 1}, {3, 1}, {2, 2}, {3, 2}, {3, 2},
		{4, 2}, {4, 2}, {4, 3}, {4, 3}, {4, 3}, {4, 3},
	};

	*cols = shape[n < 13 ? n : 12][0];
	*rows = shape[n < 13 ? n : 12][1];
}

/* Viewport of cell k: normalized page coordinates with room for labels. */
void gl_plot_cell_viewport(size_t k, int cols, int rows, double right_margin,
			  double vp[4])
{
	double x0 = 0.075, x1 = 1.0 - right_margin, y0 = 0.02, y1 = 0.90;
	double cw = (x1 - x0) / cols, ch = (y1 - y0) / rows;
	int cx = (int)(k % (size_t)cols), cy = (int)(k / (size_t)cols);
	double left = rows * cols > 1 ? 0.06 : 0.0;

	vp[0] = x0 + cw * cx + left;
	vp[1] = x0 + cw * (cx + 1) - 0.015;
	vp[2] = y0 + ch * (rows - 1 - cy) + (rows > 1 ? 0.085 : 0.08);
	vp[3] = y0 + ch * (rows - cy) - (rows > 1 ? 0.045 : 0.0);
}

/* Time axis box for [t0, t1] on a viewport of vp_w_px pixels. */
void gl_plot_time_box(int64_t t0_us, int64_t t1_us, int vp_w_px, const char *yopt,
		     int64_t *day_us)
{
	char fmt[16];
	double step = gl_chart_time_step_s(t0_us, t1_us, vp_w_px, fmt);
	char xopt[16];

	pltimefmt(fmt);
	gl_plot_set_color(COL_GRID);
	plwidth(1);
	snprintf(xopt, sizeof(xopt), "g");
	plbox(xopt, step, 0, strchr(yopt, 'l') ? "gl" : "g", 0, 0);
	gl_plot_set_color(COL_FG);
	plbox("bcnstd", step, 0, yopt, 0, 0);
	*day_us = fmt[1] == 'H' ? t0_us - (t0_us % GL_US_PER_DAY + GL_US_PER_DAY) % GL_US_PER_DAY
		: GL_TS_NONE;
}

/* "time (UTC)", with the date when the ticks show times of one day only. */
void gl_plot_time_label(int64_t day_us, double disp)
{
	char buf[64];

	if (day_us != GL_TS_NONE) {
		char d[32];

		gl_time_format(day_us, d);
		d[10] = '\0';
		snprintf(buf, sizeof(buf), "time (UTC), %s", d);
	} else {
		snprintf(buf, sizeof(buf), "time (UTC)");
	}
	gl_plot_set_color(COL_FG);
	plmtex("b", disp, 0.5, 0.5, buf);
}

void gl_plot_y_label(const char *label, double disp)
{
	char t[TEXT_MAX];

	gl_plot_set_color(COL_FG);
	plmtex("l", disp, 0.5, 0.5, gl_plot_esc_text(label ? label : "", t, sizeof(t)));
}

void gl_plot_panel_title(const char *title, size_t max_chars)
{
	char t[TEXT_MAX];

	if (!title)
		return;
	gl_plot_set_color(COL_FG);
	plmtex("t", 0.8, 0.5, 0.5, gl_plot_name_text(title, max_chars, t, sizeof(t)));
}

void gl_plot_message_in_viewport(const char *msg)
{
	char t[TEXT_MAX];

	plwind(0, 1, 0, 1);
	gl_plot_set_color(COL_MUTED);
	PLFLT ht = gl_plot_text_scale(1.2);

	plptex(0.5, 0.5, 1, 0, 0.5, gl_plot_esc_text(msg, t, sizeof(t)));
	gl_plot_text_restore(ht);
}


void gl_plot_fmt_value(double v, char *buf, size_t n)
{
	if (fabs(v) >= 1e5 || (fabs(v) < 0.01 && v != 0))
		snprintf(buf, n, "%.3g", v);
	else if (fabs(v) >= 100)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/*
 * A legend drawn by hand in the column right of the viewport vp (PLplot's
 * pllegend places an outside legend above the viewport and cannot shrink
 * its rows to fit). Rows from the top, at most LEGEND_MAX.
 */
void gl_plot_legend_draw(const struct legend_entry *e, size_t n, const PLFLT vp[4])
{
	double dy;

	if (n == 0)
		return;
	plvpor(vp[1] + 0.012, 0.995, vp[2], vp[3]);
	plwind(0, 1, 0, 1);
	PLFLT ht = gl_plot_text_scale(n > 12 ? 0.8 : 0.9);
	PLFLT sx0, sx1, sy0, sy1, chr_def, chr_mm;

	/*
	 * Rows a twelfth of the panel apart, but never closer than 1.5 text
	 * heights: a short panel (the four stacked telemetry panels) had its
	 * legend rows drawn over each other.
	 */
	dy = 1.0 / (double)(n > 12 ? n : 12);
	plgspa(&sx0, &sx1, &sy0, &sy1);
	plgchr(&chr_def, &chr_mm);
	if ((vp[3] - vp[2]) * (sy1 - sy0) > 0) {
		double min_dy = 1.5 * chr_mm / ((vp[3] - vp[2]) * (sy1 - sy0));

		if (dy < min_dy)
			dy = min_dy;
	}

	/*
	 * Rows that do not fit go in a second (third) column: 8 GPUs in a
	 * stacked telemetry panel showed 6, the rest cut off below it.
	 */
	size_t ncols = 1, rows = n;

	if (dy * (double)n > 1.0) {
		size_t fit = dy < 1.0 ? (size_t)(1.0 / dy) : 1;

		ncols = (n + fit - 1) / fit;
		if (ncols > 3)
			ncols = 3;
		rows = (n + ncols - 1) / ncols;
	}
	double mk = ncols > 1 ? 0.06 : 0.085, tx = ncols > 1 ? 0.08 : 0.11;

	for (size_t i = 0; i < n; i++) {
		double x0 = (double)(i / rows) / (double)ncols;
		double y = 1.0 - dy * ((double)(i % rows) + 0.5);
		PLFLT lx[2] = {x0, x0 + mk}, ly[2] = {y, y};

		gl_plot_set_color(e[i].color);
		switch (e[i].kind) {
		case LEG_LINE:
		case LEG_DASH:
			pllsty(e[i].kind == LEG_DASH ? 2 : 1);
			plwidth(3);
			plline(2, lx, ly);
			plwidth(1);
			pllsty(1);
			break;
		case LEG_DOT:
		case LEG_RING:
		case LEG_UP: {
			PLFLT sx = x0 + mk / 2;

			plstring(1, &sx, &ly[0], e[i].kind == LEG_DOT ? GLYPH_DOT
				 : e[i].kind == LEG_RING ? GLYPH_RING : GLYPH_UP);
			break;
		}
		default: {
			PLFLT bx[4] = {x0, x0, x0 + mk, x0 + mk};
			PLFLT by[4] = {y - dy * 0.3, y + dy * 0.3, y + dy * 0.3, y - dy * 0.3};

			plfill(4, bx, by);
			break;
		}
		}
		gl_plot_set_color(COL_FG);
		plptex(x0 + tx, y, 1, 0, 0.0, e[i].text);
	}
	gl_plot_text_restore(ht);
}

/* A legend of colour boxes, palette by position, right of the viewport. */
void gl_plot_legend_boxes(const char *const *names, size_t n, const PLFLT vp[4])
{
	struct legend_entry e[LEGEND_MAX];

	if (n > LEGEND_MAX)
		n = LEGEND_MAX;
	for (size_t g = 0; g < n; g++) {
		e[g].kind = LEG_BOX;
		e[g].color = gl_plot_palette_index((int)g, g);
		gl_plot_name_text(names && names[g] ? names[g] : "", 34, e[g].text, sizeof(e[g].text));
	}
	gl_plot_legend_draw(e, n, vp);
}
