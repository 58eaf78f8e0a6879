/*
 * test_emit_png.c - the chart emitter end to end on a fixture database:
 * the report is built by gl_report_build, the sections collecting their
 * charts' data (read here through their getters: sec_kernels.h,
 * sec_memory.h, sec_errors.h), and the six PNGs checked with the
 * independent decoder:
 * size as configured, not blank, same bytes for the same input; the empty
 * window; --no-charts (no_charts) writes none.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../../reports/emit_png.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_trends.h"
#include "../../reports/section.h"
#include "../../reports/sections.h"
#include "../../reports/sec_trends.h"
#include "support/chart_fixture.h"
#include "support/png_read.h"

static char dir[64], db[128];
/* The report kept by run(), with its sections' chart data. */
static struct gl_report kept;

static const char *const pngs[6] = {
	GL_PNG_TIMELINE, GL_PNG_DISTRIBUTION, GL_PNG_MEMORY,
	GL_PNG_ERRORS, "kernel_trends.png", "baseline_comparison.png",
};

static int setup(void **state)
{
	(void)state;
	if (fix_tmpdir(dir) != 0)
		return -1;
	snprintf(db, sizeof(db), "%s/gpulog.db", dir);
	return fix_make_db(db);
}

static int teardown(void **state)
{
	(void)state;
	gl_report_release(&kept);
	return fix_rmdir(dir);
}

/*
 * Builds the report for [since, until), the sections collecting their chart
 * data in the same pass unless no_charts, and runs the chart and HTML
 * emitters into sub, as gl_report_run does. keep: the report is kept in
 * kept (until the next run or the teardown).
 */
static int run(int64_t since, int64_t until, int no_charts, const char *sub,
	       struct gl_output *out, int keep)
{
	struct gl_report_config cfg = {0};
	struct gl_report rep = {0};
	struct gl_query *q = NULL;
	struct gl_err err;
	struct gl_report_params p = {.since_us = since, .until_us = until, .top = 20};
	static char path[256];
	int rc = GL_OK;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	memset(out, 0, sizeof(*out));
	out->dir = path;
	p.charts = !no_charts;
	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(db, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);
	if (!no_charts)
		rc = gl_emit_png(&rep, out, &err);
	if (rc == GL_OK && !no_charts)
		rc = gl_emit_html(&rep, out, &err);
	if (rc != GL_OK)
		print_error("%s\n", err.msg);
	if (keep) {
		gl_report_release(&kept);
		kept = rep;
	} else {
		gl_report_release(&rep);
	}
	gl_query_close(q);
	gl_config_release(&cfg);
	return rc;
}

/*
 * expect_png: the six charts drawn; but baseline_comparison.png only when
 * expect_baseline (a window whose preceding one holds none of its kernels
 * has nothing to compare: no chart, a sentence on the page).
 */
static void check_dir(const char *d, int expect_png, int expect_baseline)
{
	char path[512];
	struct png_image img;
	const char *why;

	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", d, pngs[i]);
		if (!expect_png || (i == 5 && !expect_baseline)) {
			struct stat st;

			assert_int_not_equal(stat(path, &st), 0);
			continue;
		}
		if (png_read_file(path, &img, &why) != 0)
			fail_msg("%s: %s", path, why);
		assert_int_equal(img.width, 1600);
		assert_int_equal(img.height, 900);
		assert_true(png_variance(&img) > 1.0);
		png_release(&img);
	}
}

static void test_six_charts_deterministic(void **state)
{
	struct gl_output a, b;
	char pa[512], pb[512];

	(void)state;
	assert_int_equal(run(FIX_DAY0_US, FIX_DAY0_US + FIX_DAY_US, 0, "a", &a, 1), GL_OK);
	/* the finding's chart, 6 PNGs, gpu_telemetry.png, scopes.png and the two training
	 * charts (no samples, no spans, no train records: "no data") and index.html,
	 * recorded in out. */
	assert_int_equal(a.n_paths, 12);
	check_dir(a.dir, 1, 1);
	/* The sections' chart data hold what the fixture holds (counted by hand). */
	const struct gl_kernels_chart *kc = gl_kernels_chart(&kept);
	const struct gl_memory_chart *mc = gl_memory_chart(&kept);
	const struct gl_errors_chart *ec = gl_errors_chart(&kept);

	assert_non_null(kc);
	assert_non_null(mc);
	assert_non_null(ec);
	assert_int_equal(kc->n_top, 4);
	uint64_t n = 0;

	for (size_t k = 0; k < kc->n_top; k++)
		n += kc->top_cols[k]->n;
	assert_int_equal(n, 4 * 2400);
	assert_int_equal(mc->mem.n, 2400);
	/* 240 allocations; frees for i = 300..2390 (210), less the 30 kept (i - 300 = 0, 70, .., 2030). */
	assert_int_equal(mc->rmm_rows, 240 + 210 - 30);
	/* RMM rows over the whole day, more than a fifth of it: no zoom columns. */
	assert_null(mc->rmm_zoom.col);
	assert_int_equal(ec->n_buckets, 24);
	assert_int_equal(ec->n_groups, 3);		/* training, inference, <b>data</b> */
	uint64_t errs = 0;

	for (size_t i = 0; i < ec->n_groups * ec->n_buckets; i++)
		errs += ec->count[i];
	assert_int_equal(errs, 60);			/* i % 40 == 3 over 2400 */
	/* gemm slows down at noon: a degrading trend kernel, with its columns. */
	const struct gl_report_trend *gemm = NULL;

	for (size_t i = 0; i < gl_trends_n(&kept); i++)
		if (gl_trends_at(&kept, i)->series == GL_TREND_KERNEL &&
		    gl_trends_at(&kept, i)->verdict == GL_VERDICT_DEGRADING)
			gemm = gl_trends_at(&kept, i);
	assert_non_null(gemm);
	assert_non_null(gl_kernels_columns(&kept, gemm->kernel));
	assert_int_equal(gl_kernels_columns(&kept, gemm->kernel)->n, 2400);

	assert_int_equal(run(FIX_DAY0_US, FIX_DAY0_US + FIX_DAY_US, 0, "b", &b, 0), GL_OK);
	for (int i = 0; i < 6; i++) {
		uint8_t *x, *y;
		size_t nx, ny;

		snprintf(pa, sizeof(pa), "%s/%s", dir, "a");
		snprintf(pa + strlen(pa), sizeof(pa) - strlen(pa), "/%s", pngs[i]);
		snprintf(pb, sizeof(pb), "%s/b/%s", dir, pngs[i]);
		assert_int_equal(png_slurp(pa, &x, &nx), 0);
		assert_int_equal(png_slurp(pb, &y, &ny), 0);
		assert_int_equal(nx, ny);
		assert_memory_equal(x, y, nx);
		free(x);
		free(y);
	}
	gl_output_release(&a);
	gl_output_release(&b);
}

/*
 * Drawn by one process or by two (chart_procs.c), the charts are the same
 * files with the same bytes, recorded in the same order.
 */
static void test_one_or_two_processes(void **state)
{
	struct gl_output a, o[2];
	struct gl_err err;
	char d[2][512];

	(void)state;
	assert_int_equal(run(FIX_DAY0_US, FIX_DAY0_US + FIX_DAY_US, 0, "p", &a, 1), GL_OK);
	for (int i = 0; i < 2; i++) {
		struct gl_emit_png_opts opts = {.procs = i + 1};

		snprintf(d[i], sizeof(d[i]), "%s/procs%d", dir, i + 1);
		mkdir(d[i], 0755);
		o[i] = (struct gl_output){.dir = d[i]};
		assert_int_equal(gl_emit_png_with(&kept, &o[i], &opts, &err), GL_OK);
	}
	/* the 11 charts of the sections (index.html is written by gl_emit_html) */
	assert_int_equal(o[0].n_paths, 11);
	assert_int_equal(o[1].n_paths, o[0].n_paths);
	for (size_t k = 0; k < o[0].n_paths; k++) {
		const char *n0 = o[0].paths[k] + strlen(d[0]), *n1 = o[1].paths[k] + strlen(d[1]);
		uint8_t *x, *y;
		size_t nx, ny;

		assert_string_equal(n0, n1);
		assert_int_equal(png_slurp(o[0].paths[k], &x, &nx), 0);
		assert_int_equal(png_slurp(o[1].paths[k], &y, &ny), 0);
		assert_int_equal(nx, ny);
		assert_memory_equal(x, y, nx);
		free(x);
		free(y);
	}
	gl_output_release(&o[0]);
	gl_output_release(&o[1]);
	gl_output_release(&a);
}

static void test_empty_window(void **state)
{
	struct gl_output o;

	(void)state;
	/* A year later: nothing in the window, every chart says so. */
	assert_int_equal(run(FIX_DAY0_US + 365 * FIX_DAY_US, FIX_DAY0_US + 366 * FIX_DAY_US, 0,
			     "empty", &o, 0), GL_OK);
	check_dir(o.dir, 1, 0);
	gl_output_release(&o);
}

/*
 * The first and last row of the fixture: day -1 00:00:00 and day 0, sample
 * 2399 (86,364 s) of kernel 4 (+3 ms); RMM rows end earlier.
 */
#define FIX_FIRST_US (FIX_DAY0_US - FIX_DAY_US)
#define FIX_LAST_US (FIX_DAY0_US + 86364LL * 1000000 + 3000)

/*
 * A window much longer than its data: the time axis and the error buckets
 * follow the data (issue 7), not the window. By hand: span 172,764.003 s,
 * margin span / 50 = 3,455.28006 s; hours (span <= 3 days); bucket 0 at day
 * -1 minus one hour; the axis ends at day 0 + 89,819.28306 s, so
 * ceil(179,819.28306 / 3600) = 50 buckets.
 */
static void check_data_span(const struct gl_report *rep)
{
	int64_t m = (FIX_LAST_US - FIX_FIRST_US) / 50;
	const struct gl_report_axis *s = &rep->axis;
	const struct gl_memory_chart *mc = gl_memory_chart(rep);
	const struct gl_kernels_chart *kc = gl_kernels_chart(rep);
	const struct gl_errors_chart *ec = gl_errors_chart(rep);

	assert_true(m == 3455280060LL);
	assert_true(s->t0_us == FIX_FIRST_US - m);
	assert_true(s->t1_us == FIX_LAST_US + m);
	assert_true(mc->mem.t0_us == s->t0_us && mc->mem.t1_us == s->t1_us);
	assert_true(kc->top_cols[0]->t0_us == s->t0_us && kc->top_cols[0]->t1_us == s->t1_us);
	assert_int_equal(ec->bucket_us, 3600LL * 1000000);
	assert_true(ec->bucket0_us == FIX_FIRST_US - 3600LL * 1000000);
	assert_int_equal(ec->n_buckets, 50);
}

static void test_long_window_data_span(void **state)
{
	struct gl_output o;

	(void)state;
	/* Ten days around the two days of data. */
	assert_int_equal(run(FIX_DAY0_US - 5 * FIX_DAY_US, FIX_DAY0_US + 5 * FIX_DAY_US, 0,
			     "long", &o, 1), GL_OK);
	check_data_span(&kept);
	/* the window kept (the charts' titles name the span drawn) */
	assert_true(kept.window.since_us == FIX_DAY0_US - 5 * FIX_DAY_US);
	assert_true(kept.window.until_us == FIX_DAY0_US + 5 * FIX_DAY_US);
	check_dir(o.dir, 1, 0);
	gl_output_release(&o);
	/* 36,500 days (1970-12-07 .. 2070-11-12): the same axis; charted, not refused */
	assert_int_equal(run(FIX_DAY0_US - 20000 * FIX_DAY_US, FIX_DAY0_US + 16500 * FIX_DAY_US,
			     0, "century", &o, 1), GL_OK);
	check_data_span(&kept);
	check_dir(o.dir, 1, 0);
	gl_output_release(&o);
}

/* The time axis and the errors' bucket units from the data's span, counted by hand. */
static void axis_buckets(int64_t w0, int64_t w1, int64_t first, int64_t last,
			 struct gl_report_axis *a, struct gl_errors_chart *c)
{
	struct gl_err err;

	memset(a, 0, sizeof(*a));
	memset(c, 0, sizeof(*c));
	gl_report_axis_init(a, w0, w1, first, last);
	assert_int_equal(gl_errors_chart_begin(c, a->t0_us, a->t1_us, 4, &err), GL_OK);
}

static void test_bucket_units(void **state)
{
	struct gl_report_axis a;
	struct gl_errors_chart s;
	int64_t sec = 1000000, w0 = FIX_DAY0_US - 20000 * FIX_DAY_US;
	int64_t w1 = FIX_DAY0_US + 16500 * FIX_DAY_US;

	(void)state;
	/* 100 s of data: margin 2 s, seconds from day0 + 8 s to + 112 s: 104 */
	axis_buckets(w0, w1, FIX_DAY0_US + 10 * sec, FIX_DAY0_US + 110 * sec, &a, &s);
	assert_int_equal(s.bucket_us, sec);
	assert_true(s.bucket0_us == FIX_DAY0_US + 8 * sec);
	assert_int_equal(s.n_buckets, 104);
	gl_errors_chart_release(&s);
	/*
	 * 10 days less 1 s: margin 17,279.98 s; days from day0 - 1 day; the axis
	 * ends at day0 + 881,278.98 s: ceil(11.2) = 12
	 */
	axis_buckets(w0, w1, FIX_DAY0_US, FIX_DAY0_US + 10 * FIX_DAY_US - sec, &a, &s);
	assert_int_equal(s.bucket_us, FIX_DAY_US);
	assert_true(s.bucket0_us == FIX_DAY0_US - FIX_DAY_US);
	assert_int_equal(s.n_buckets, 12);
	gl_errors_chart_release(&s);
	/* data at the window's start: the margin stays inside the window */
	axis_buckets(FIX_DAY0_US, FIX_DAY0_US + FIX_DAY_US, FIX_DAY0_US, FIX_DAY0_US + 3600 * sec,
		     &a, &s);
	assert_true(a.t0_us == FIX_DAY0_US);
	assert_true(a.t1_us == FIX_DAY0_US + 3600 * sec + 72 * sec);
	assert_int_equal(s.bucket_us, 60 * sec);
	assert_int_equal(s.n_buckets, 62);	/* ceil(3672 / 60) */
	gl_errors_chart_release(&s);
}

static void test_no_charts(void **state)
{
	struct gl_output o;

	(void)state;
	assert_int_equal(run(FIX_DAY0_US, FIX_DAY0_US + FIX_DAY_US, 1, "none", &o, 0), GL_OK);
	check_dir(o.dir, 0, 0);
	assert_int_equal(o.n_paths, 0);
	gl_output_release(&o);
}

static void test_unwritable_dir(void **state)
{
	struct gl_report rep = {0};
	struct gl_output o = {.dir = "/nonexistent-gpulog-dir"};
	struct gl_err err;

	(void)state;
	rep.window.since_us = FIX_DAY0_US;
	rep.window.until_us = FIX_DAY0_US + FIX_DAY_US;
	assert_int_equal(gl_emit_png(&rep, &o, &err), GL_EIO);
	assert_int_equal(o.n_paths, 0);
	o.dir = NULL;
	assert_int_equal(gl_emit_png(&rep, &o, &err), GL_EUSAGE);
}

static void test_rmm_zoom(void **state)
{
	struct gl_memory_chart s = {0};
	struct gl_err err;
	int64_t t0 = FIX_DAY0_US, h = 3600LL * 1000000;

	(void)state;
	/* Seven days; RMM rows from day 6 10:00 to 13:00, every 10 minutes: 19 rows. */
	assert_int_equal(gl_memory_chart_init(&s, t0, t0 + 7 * FIX_DAY_US, &err), GL_OK);
	for (int i = 0; i <= 18; i++)
		gl_memory_chart_rmm(&s, t0 + 6 * FIX_DAY_US + 10 * h + i * h / 6, (uint64_t)i << 20);
	assert_int_equal(s.rmm_rows, 19);
	assert_true(s.rmm_first_us == t0 + 6 * FIX_DAY_US + 10 * h);
	assert_true(s.rmm_last_us == t0 + 6 * FIX_DAY_US + 13 * h);
	/* Zoom columns from the first row over 7 / 5 days: 3 h of 33.6 h, 1000 columns. */
	assert_non_null(s.rmm_zoom.col);
	assert_int_equal(s.rmm_zoom.n, 19);
	assert_true(s.rmm_zoom.t0_us == s.rmm_first_us);
	assert_true(s.rmm_zoom.t1_us == s.rmm_first_us + 7 * FIX_DAY_US / 5);
	/* the last row, 18 MiB, in column floor(3 / 33.6 x 1000) = 89 */
	assert_true(s.rmm_zoom.col[89].n == 1 && s.rmm_zoom.col[89].max == 18);
	/* A row on day 1: the activity spans more than a fifth, no zoom. */
	gl_memory_chart_rmm(&s, t0 + FIX_DAY_US, 0);
	assert_null(s.rmm_zoom.col);
	assert_true(s.rmm_first_us == t0 + FIX_DAY_US);
	assert_int_equal(s.rmm.n, 20);
	gl_memory_chart_release(&s);
	gl_memory_chart_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_six_charts_deterministic),
		cmocka_unit_test(test_one_or_two_processes),
		cmocka_unit_test(test_empty_window),
		cmocka_unit_test(test_long_window_data_span),
		cmocka_unit_test(test_bucket_units),
		cmocka_unit_test(test_no_charts),
		cmocka_unit_test(test_unwritable_dir),
		cmocka_unit_test(test_rmm_zoom),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
