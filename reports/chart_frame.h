/*
 * chart_frame.h - what the two PLplot files share (chart_frame.c,
 * chart_plot.c): the colour map, the chart's stream, its text, viewports,
 * time axes and legends. Only those two files include it; the rest of the
 * tree draws through chart.h.
 */
#ifndef GL_CHART_FRAME_H
#define GL_CHART_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <plplot.h>

#include "chart.h"

/* cmap0 indexes. */
enum {
	COL_BG = 0, COL_FG = 1, COL_GRID = 2, COL_MUTED = 3, COL_BAND = 4,
	COL_PALETTE = 5,	/* GL_CHART_NCOLORS entries from here */
	NCOL0 = COL_PALETTE + GL_CHART_NCOLORS,
};

#define TEXT_MAX 1024

/* Character height relative to PLplot's default, which is large at 1600x900. */
#define TEXT_SCALE 0.62

struct chart {
	PLINT prev_strm;
	int width_px, height_px;
};

/* Marker glyphs (UTF-8) of the charts and their legends. */
#define GLYPH_DOT "\xE2\x97\x8F"
#define GLYPH_RING "\xE2\x97\x8B"
#define GLYPH_UP "\xE2\x96\xB2"

#define LEGEND_MAX 24

enum legend_kind { LEG_LINE, LEG_DASH, LEG_DOT, LEG_RING, LEG_UP, LEG_BOX };

struct legend_entry {
	int kind;		/* enum legend_kind */
	int color;		/* cmap0 index */
	char text[256];		/* escaped for PLplot */
};

const char *gl_plot_esc_text(const char *s, char *out, size_t n);
const char *gl_plot_name_text(const char *name, size_t max_chars, char *out, size_t n);
PLFLT gl_plot_text_scale(double rel);
void gl_plot_text_restore(PLFLT ht);
void gl_plot_set_color(int idx);
int gl_plot_palette_index(int color, size_t pos);
int gl_plot_chart_begin(struct chart *c, const char *path, const struct gl_chart_opts *opts,
		       struct gl_err *err);
int gl_plot_chart_end(struct chart *c, const char *path, struct gl_err *err);
void gl_plot_draw_title(const char *title);
void gl_plot_grid_shape(size_t n, int *cols, int *rows);
void gl_plot_cell_viewport(size_t k, int cols, int rows, double right_margin,
			  double vp[4]);
void gl_plot_time_box(int64_t t0_us, int64_t t1_us, int vp_w_px, const char *yopt,
		     int64_t *day_us);
void gl_plot_time_label(int64_t day_us, double disp);
void gl_plot_y_label(const char *label, double disp);
void gl_plot_panel_title(const char *title, size_t max_chars);
void gl_plot_message_in_viewport(const char *msg);
void gl_plot_fmt_value(double v, char *buf, size_t n);
void gl_plot_legend_draw(const struct legend_entry *e, size_t n, const PLFLT vp[4]);
void gl_plot_legend_boxes(const char *const *names, size_t n, const PLFLT vp[4]);

#endif
