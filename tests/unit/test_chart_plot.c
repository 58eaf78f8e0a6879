/*
 * test_chart_plot.c - every chart function writes a PNG that a second,
 * independent decoder (support/png_read.c) reads: signature, IHDR size as
 * configured, pixels that are not all the same, a white background, the
 * series colours present, and the same bytes for the same input.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../reports/chart.h"
#include "support/png_read.h"

#define S 1000000LL
#define DAY0 (20340LL * 86400 * S)	/* 2025-09-09T00:00:00Z */

static char tmpdir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gl_chart_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp(const char *name, char *buf)
{
	snprintf(buf, 256, "%s/%s", tmpdir, name);
	return buf;
}

/* Decodes path and checks what every chart must be. */
static void check_png(const char *path, uint32_t w, uint32_t h, struct png_image *img)
{
	const char *why = NULL;
	uint8_t rgb[3];

	if (png_read_file(path, img, &why) != 0)
		fail_msg("%s: %s", path, why);
	assert_int_equal(img->width, w);
	assert_int_equal(img->height, h);
	assert_true(png_variance(img) > 1.0);
	/* White background: the four corners. */
	png_rgb(img, 0, 0, rgb);
	assert_true(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255);
	png_rgb(img, w - 1, h - 1, rgb);
	assert_true(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255);
}

/* Pixels within tol of colour c. */
static size_t count_colour(const struct png_image *img, const uint8_t c[3], int tol)
{
	size_t n = 0;
	uint8_t rgb[3];

	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++) {
			png_rgb(img, x, y, rgb);
			if (abs(rgb[0] - c[0]) <= tol && abs(rgb[1] - c[1]) <= tol &&
			    abs(rgb[2] - c[2]) <= tol)
				n++;
		}
	return n;
}

static void same_bytes(const char *a, const char *b)
{
	uint8_t *x, *y;
	size_t nx, ny;

	assert_int_equal(png_slurp(a, &x, &nx), 0);
	assert_int_equal(png_slurp(b, &y, &ny), 0);
	assert_int_equal(nx, ny);
	assert_memory_equal(x, y, nx);
	free(x);
	free(y);
}

static const char *names[3] = {
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
	"at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>)",
	"<script>alert('x')</script> #1 ##(225) \xC3\xBCnic\xC3\xB8" "de \xE6\x97\xA5\xE6\x9C\xAC",
	"matmul_fp16",
};

/* Three kernels over a day: 10 µs, 1 ms (with anomalies), 100 ms. */
static void fill_series(struct gl_chart_cols *c, struct gl_chart_series *s)
{
	struct gl_err err;

	for (int k = 0; k < 3; k++) {
		assert_int_equal(gl_chart_cols_init(&c[k], DAY0, DAY0 + 86400 * S,
						    GL_CHART_COLUMNS, &err), GL_OK);
		for (int i = 0; i < 20000; i++) {
			int64_t t = DAY0 + (int64_t)i * 86400 / 20000 * S;
			double y = pow(100, k) * 10 * (1 + 0.2 * sin(i * 0.37));

			gl_chart_cols_add(&c[k], t, y, k == 1 && i % 5000 == 17);
		}
		s[k].name = names[k];
		s[k].cols = &c[k];
		s[k].style = GL_CHART_LINE;
		s[k].color = -1;
	}
}

static void test_timeline(void **state)
{
	struct gl_chart_cols c[3];
	struct gl_chart_series s[3];
	struct gl_chart_panel p = {NULL, "duration (\xC2\xB5s)", s, 3, NULL, 0, 1};
	struct png_image img;
	struct gl_err err;
	char a[256], b[256];

	(void)state;
	fill_series(c, s);
	assert_int_equal(gl_chart_timeline(tmp("tl1.png", a), "Kernel durations", DAY0,
					   DAY0 + 86400 * S, &p, 1, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	/* Each series drawn in its palette colour (first three). */
	for (int k = 0; k < 3; k++)
		assert_true(count_colour(&img, gl_chart_palette[k], 12) > 200);
	png_release(&img);
	/* Same input, same bytes. */
	assert_int_equal(gl_chart_timeline(tmp("tl2.png", b), "Kernel durations", DAY0,
					   DAY0 + 86400 * S, &p, 1, NULL, &err), GL_OK);
	same_bytes(a, b);
	/* Another size, as configured. */
	struct gl_chart_opts o = {800, 450};

	assert_int_equal(gl_chart_timeline(tmp("tl3.png", a), "small", DAY0, DAY0 + 86400 * S,
					   &p, 1, &o, &err), GL_OK);
	check_png(a, 800, 450, &img);
	png_release(&img);
	for (int k = 0; k < 3; k++)
		gl_chart_cols_release(&c[k]);
}

static void test_timeline_panels_and_empty(void **state)
{
	struct gl_chart_cols c[3], empty;
	struct gl_chart_series s[3], e = {"idle", &empty, GL_CHART_POINTS, 0};
	struct gl_chart_fit fit = {"fit", DAY0, DAY0 + 86400 * S, 10, 14, 3};
	struct gl_chart_panel p[4] = {
		{names[0], "duration (\xC2\xB5s)", &s[0], 1, &fit, 1, 0},
		{names[1], "duration (\xC2\xB5s)", &s[1], 1, NULL, 0, 0},
		{names[2], "duration (\xC2\xB5s)", &s[2], 1, NULL, 0, 0},
		{"nothing here", "MiB", &e, 1, NULL, 0, 0},
	};
	struct png_image img;
	struct gl_err err;
	char a[256];

	(void)state;
	fill_series(c, s);
	assert_int_equal(gl_chart_cols_init(&empty, DAY0, DAY0 + 86400 * S, 100, &err), GL_OK);
	assert_int_equal(gl_chart_timeline(tmp("tp.png", a), "Trends", DAY0, DAY0 + 86400 * S,
					   p, 4, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	/* The fit's colour (palette 3, vermillion) is drawn. */
	assert_true(count_colour(&img, gl_chart_palette[3], 12) > 50);
	png_release(&img);
	/* A single panel without any sample still makes a readable chart. */
	assert_int_equal(gl_chart_timeline(tmp("te.png", a), "Empty", DAY0, DAY0, &p[3], 1,
					   NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	png_release(&img);
	/* 0 or 13 panels: refused, nothing drawn. */
	assert_int_equal(gl_chart_timeline(tmp("tz.png", a), "x", DAY0, DAY0 + S, p, 0, NULL,
					   &err), GL_EUSAGE);
	assert_int_equal(gl_chart_timeline(tmp("tz.png", a), "x", DAY0, DAY0 + S, p, 13, NULL,
					   &err), GL_EUSAGE);
	gl_chart_cols_release(&empty);
	for (int k = 0; k < 3; k++)
		gl_chart_cols_release(&c[k]);
}

/* Pixels within tol of colour c in x [x0, x1), y [y0, y1). */
static size_t count_colour_in(const struct png_image *img, const uint8_t c[3], int tol,
			      uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1)
{
	size_t n = 0;
	uint8_t rgb[3];

	for (uint32_t y = y0; y < y1 && y < img->height; y++)
		for (uint32_t x = x0; x < x1 && x < img->width; x++) {
			png_rgb(img, x, y, rgb);
			if (abs(rgb[0] - c[0]) <= tol && abs(rgb[1] - c[1]) <= tol &&
			    abs(rgb[2] - c[2]) <= tol)
				n++;
		}
	return n;
}

/*
 * One series rising from 100 to 140 over a day, one column a spike of
 * 10000: the spike is clipped and the rise fills the frame. The frame is
 * rows 90..810 (viewport 0.10..0.90 of 900 px) and columns 120..1184
 * (0.075..0.74 of 1600 px with a legend). In the left quarter (x 130..400)
 * the line holds 100..110: with clipping (axis about 97.6..142.4) it lies
 * between rows 610 and 790; drawn to 10000 (a linear panel, not clipped)
 * it lies on the frame's bottom, below row 790.
 */
static void test_timeline_spike_clipped(void **state)
{
	struct gl_chart_cols c;
	struct gl_chart_series s = {"rising", &c, GL_CHART_LINE, 0};
	struct gl_chart_panel p = {NULL, "duration (\xC2\xB5s)", &s, 1, NULL, 0, 1, 0, 0, 0};
	struct png_image img;
	struct gl_err err;
	char a[256], b[256];
	size_t clipped, whole;

	(void)state;
	assert_int_equal(gl_chart_cols_init(&c, DAY0, DAY0 + 86400 * S, GL_CHART_COLUMNS, &err),
			 GL_OK);
	for (int i = 0; i < GL_CHART_COLUMNS; i++) {
		int64_t t = DAY0 + (int64_t)i * 86400 * S / GL_CHART_COLUMNS + S;

		gl_chart_cols_add(&c, t, i == 500 ? 10000 : 100 + 40.0 * i / GL_CHART_COLUMNS,
				  i == 500);
	}
	assert_int_equal(gl_chart_timeline(tmp("sc1.png", a), "Spike", DAY0, DAY0 + 86400 * S,
					   &p, 1, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	clipped = count_colour_in(&img, gl_chart_palette[0], 12, 130, 400, 300, 785);
	png_release(&img);
	p.linear = 1;
	assert_int_equal(gl_chart_timeline(tmp("sc2.png", b), "Spike", DAY0, DAY0 + 86400 * S,
					   &p, 1, NULL, &err), GL_OK);
	check_png(b, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	whole = count_colour_in(&img, gl_chart_palette[0], 12, 130, 400, 300, 785);
	png_release(&img);
	/* a 2 px line over 270 px of width, against none */
	assert_true(clipped > 200);
	assert_true(whole < 10);
	gl_chart_cols_release(&c);
}

/*
 * One sample (a node's first nvidia-smi scrape), with the span the
 * telemetry chart gives it, [t, t + 1 us]: the axis is one second around
 * it, so its dot is drawn in the middle third of the frame (columns
 * 120..1184: 475..830) and nothing of its colour nearer the edges (the
 * legend's line is right of 1192). The frame was empty before: PLplot drew
 * no point and no tick on an axis 1 us wide at these times.
 */
static void test_timeline_one_sample(void **state)
{
	const int64_t t = DAY0 + 7 * 3600 * S + 117000;
	struct gl_chart_cols c;
	struct gl_chart_series s = {"GPU 0", &c, GL_CHART_LINE, 0};
	struct gl_chart_panel p = {NULL, "utilisation (%)", &s, 1, NULL, 0, 1, 1, 0, 0};
	struct png_image img;
	struct gl_err err;
	char a[256];

	(void)state;
	assert_int_equal(gl_chart_cols_init(&c, t, t + 1, GL_CHART_COLUMNS, &err), GL_OK);
	gl_chart_cols_add(&c, t, 34, 0);
	assert_int_equal(gl_chart_timeline(tmp("one.png", a), "One scrape", t, t + 1, &p, 1, NULL,
					   &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	assert_true(count_colour_in(&img, gl_chart_palette[0], 12, 475, 830, 90, 810) > 20);
	assert_int_equal(count_colour_in(&img, gl_chart_palette[0], 12, 120, 475, 90, 810), 0);
	assert_int_equal(count_colour_in(&img, gl_chart_palette[0], 12, 830, 1184, 90, 810), 0);
	png_release(&img);
	gl_chart_cols_release(&c);
}

/*
 * Four stacked panels of 8 series each (the telemetry chart of 8 GPUs):
 * every series is in its panel's legend, right of the frames (x from
 * 1192 px, past the lines' 1184). The legend rows did not fit the short
 * panels and the last two were cut off: palette colours 6 and 7 (drawn by
 * series 6 and 7 only) were nowhere in the legend column.
 */
static void test_stacked_legend_fits(void **state)
{
	enum { NS = 8, NP = 4 };
	struct gl_chart_cols c[NS];
	struct gl_chart_series s[NS];
	struct gl_chart_panel p[NP];
	const struct gl_chart_opts o = {0, 1400, 1};
	static const char *const gpu[NS] = {"GPU 0", "GPU 1", "GPU 2", "GPU 3",
					    "GPU 4", "GPU 5", "GPU 6", "GPU 7"};
	struct png_image img;
	struct gl_err err;
	char a[256];

	(void)state;
	for (int k = 0; k < NS; k++) {
		assert_int_equal(gl_chart_cols_init(&c[k], DAY0, DAY0 + 86400 * S,
						    GL_CHART_COLUMNS, &err), GL_OK);
		for (int i = 0; i < 2000; i++)
			gl_chart_cols_add(&c[k], DAY0 + (int64_t)i * 43 * S, 10 + k + sin(i * 0.1), 0);
		s[k] = (struct gl_chart_series){gpu[k], &c[k], GL_CHART_LINE, k};
	}
	for (int q = 0; q < NP; q++)
		p[q] = (struct gl_chart_panel){names[0], "memory (MiB)", s, NS, NULL, 0, 1, 1, 0, 0};
	assert_int_equal(gl_chart_timeline(tmp("stk.png", a), "8 GPUs", DAY0, DAY0 + 86400 * S,
					   p, NP, &o, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, 1400, &img);
	for (int k = 0; k < NS; k++)
		if (count_colour_in(&img, gl_chart_palette[k], 12, 1192, GL_CHART_WIDTH_PX, 0, 1400) <
		    NP * 20)
			fail_msg("series %d (palette %d) missing from the legends", k, k);
	png_release(&img);
	for (int k = 0; k < NS; k++)
		gl_chart_cols_release(&c[k]);
}

static void test_histograms(void **state)
{
	struct gl_chart_hist h[3];
	struct png_image img;
	struct gl_err err;
	double v[3000];
	char a[256], b[256];

	(void)state;
	/* A bimodal kernel, a wide one (log bins), and one with no samples. */
	for (int i = 0; i < 3000; i++)
		v[i] = (i % 3 ? 100 : 180) + (i % 17);
	assert_int_equal(gl_chart_hist_from_values(&h[0], v, 3000, 40, &err), GL_OK);
	for (int i = 0; i < 3000; i++)
		v[i] = pow(10, 1 + 4.0 * i / 3000);
	assert_int_equal(gl_chart_hist_from_values(&h[1], v, 3000, 40, &err), GL_OK);
	assert_true(h[1].log_bins);
	assert_int_equal(gl_chart_hist_init(&h[2], 1, 2, 10, &err), GL_OK);
	assert_int_equal(gl_chart_histograms(tmp("h1.png", a), "Distributions",
					     "duration (\xC2\xB5s)", names, h, 3, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	assert_true(count_colour(&img, gl_chart_palette[0], 8) > 1000);
	assert_true(count_colour(&img, gl_chart_palette[1], 8) > 1000);
	png_release(&img);
	assert_int_equal(gl_chart_histograms(tmp("h2.png", b), "Distributions",
					     "duration (\xC2\xB5s)", names, h, 3, NULL, &err), GL_OK);
	same_bytes(a, b);
	/* A log histogram whose range includes 0 is refused, not drawn. */
	h[2].log_bins = 1;
	h[2].lo = 0;
	assert_int_equal(gl_chart_histograms(tmp("h3.png", a), "x", "x", names, h, 3, NULL,
					     &err), GL_EUSAGE);
	for (int k = 0; k < 3; k++)
		gl_chart_hist_release(&h[k]);
}

static void test_bars(void **state)
{
	struct gl_chart_bar_row rows[3] = {
		{names[0], {12.5, 30}},
		{names[1], {-5, NAN}},
		{names[2], {NAN, NAN}},
	};
	const char *vn[2] = {"mean", "p95"};
	struct png_image img;
	struct gl_err err;
	char a[256], b[256];

	(void)state;
	assert_int_equal(gl_chart_bars(tmp("b1.png", a), "Baseline", "change (%)", " %", vn, 2,
				       rows, 3, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	assert_true(count_colour(&img, gl_chart_palette[0], 4) > 500);
	assert_true(count_colour(&img, gl_chart_palette[1], 4) > 500);
	png_release(&img);
	assert_int_equal(gl_chart_bars(tmp("b2.png", b), "Baseline", "change (%)", " %", vn, 2,
				       rows, 3, NULL, &err), GL_OK);
	same_bytes(a, b);
	assert_int_equal(gl_chart_bars(a, "x", "x", "", vn, 5, rows, 3, NULL, &err), GL_EUSAGE);
}

static void test_time_bars(void **state)
{
	const char *groups[2] = {"training", "<b>inference</b>"};
	uint64_t count[2 * 24];
	struct png_image img;
	struct gl_err err;
	char a[256];

	(void)state;
	for (int i = 0; i < 48; i++)
		count[i] = (uint64_t)(i % 7);
	assert_int_equal(gl_chart_time_bars(tmp("e1.png", a), "Errors", "errors per hour", DAY0,
					    3600 * S, 24, groups, 2, count, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	assert_true(count_colour(&img, gl_chart_palette[0], 4) > 2000);
	assert_true(count_colour(&img, gl_chart_palette[1], 4) > 2000);
	png_release(&img);
	/* All zero: a chart that says so. */
	memset(count, 0, sizeof(count));
	assert_int_equal(gl_chart_time_bars(tmp("e2.png", a), "Errors", "errors per hour", DAY0,
					    3600 * S, 24, groups, 2, count, NULL, &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	png_release(&img);
	assert_int_equal(gl_chart_time_bars(a, "x", "x", DAY0, 0, 24, groups, 2, count, NULL,
					    &err), GL_EUSAGE);
}

static void test_nodata(void **state)
{
	struct png_image img;
	struct gl_err err;
	char a[256], b[256];

	(void)state;
	assert_int_equal(gl_chart_nodata(tmp("n1.png", a), "Memory", "no memory samples", NULL,
					 &err), GL_OK);
	check_png(a, GL_CHART_WIDTH_PX, GL_CHART_HEIGHT_PX, &img);
	/* Text is drawn: dark pixels in the middle third of the page. */
	size_t dark = 0;
	uint8_t rgb[3];

	for (uint32_t y = img.height / 3; y < 2 * img.height / 3; y++)
		for (uint32_t x = 0; x < img.width; x++) {
			png_rgb(&img, x, y, rgb);
			dark += rgb[0] < 160;
		}
	assert_true(dark > 100);
	png_release(&img);
	assert_int_equal(gl_chart_nodata(tmp("n2.png", b), "Memory", "no memory samples", NULL,
					 &err), GL_OK);
	same_bytes(a, b);
}

static void test_unwritable_path(void **state)
{
	struct gl_err err;
	struct gl_chart_opts bad = {50, 50};
	char a[256];

	(void)state;
	/* PLplot would exit the process; the chart layer returns GL_EIO first. */
	assert_int_equal(gl_chart_nodata("/nonexistent-dir/x.png", "t", "m", NULL, &err), GL_EIO);
	assert_string_equal(err.path, "/nonexistent-dir/x.png");
	assert_int_equal(gl_chart_nodata(tmp("small.png", a), "t", "m", &bad, &err), GL_EUSAGE);
}

static void test_png_reader_rejects(void **state)
{
	struct png_image img;
	const char *why;
	uint8_t junk[64] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13};
	uint8_t *buf;
	size_t n;
	char a[256];
	struct gl_err err;

	(void)state;
	assert_int_equal(png_decode((const uint8_t *)"not a png", 9, &img, &why), -1);
	assert_int_equal(png_decode(junk, sizeof(junk), &img, &why), -1);
	/* A real chart with one flipped byte in IDAT fails its CRC. */
	assert_int_equal(gl_chart_nodata(tmp("crc.png", a), "t", "m", NULL, &err), GL_OK);
	assert_int_equal(png_slurp(a, &buf, &n), 0);
	buf[n / 2] ^= 0x40;
	assert_int_equal(png_decode(buf, n, &img, &why), -1);
	/* Truncated: no IEND. */
	buf[n / 2] ^= 0x40;
	assert_int_equal(png_decode(buf, n - 12, &img, &why), -1);
	assert_int_equal(png_decode(buf, n, &img, &why), 0);
	png_release(&img);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_panels_and_empty),
		cmocka_unit_test(test_timeline_spike_clipped),
		cmocka_unit_test(test_timeline_one_sample),
		cmocka_unit_test(test_stacked_legend_fits),
		cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_time_bars),
		cmocka_unit_test(test_nodata),
		cmocka_unit_test(test_unwritable_path),
		cmocka_unit_test(test_png_reader_rejects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
