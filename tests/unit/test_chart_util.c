/*
 * test_chart_util.c - the chart layer's pure parts: time columns,
 * histograms, log-axis decision, a time panel's y range (spikes clipped),
 * UTC tick steps, label shortening.
 * Expected values are worked out by hand in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/chart.h"

#define S 1000000LL
/* 2025-09-09T00:00:00Z = 20340 days since the epoch. */
#define DAY0 (20340LL * 86400 * S)

/* Equal to a value worked out by hand, within rounding. */
#define assert_near(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9)

static void test_cols_reduce(void **state)
{
	struct gl_chart_cols c;
	struct gl_err err;

	(void)state;
	/* 10 columns of 1 s over [0, 10 s]. */
	assert_int_equal(gl_chart_cols_init(&c, 0, 10 * S, 10, &err), GL_OK);
	gl_chart_cols_add(&c, 0, 5.0, 0);		/* column 0 */
	gl_chart_cols_add(&c, S / 2, 1.0, 1);		/* column 0, anomaly */
	gl_chart_cols_add(&c, S - 1, 3.0, 0);		/* column 0 */
	gl_chart_cols_add(&c, S, 7.0, 0);		/* column 1 */
	gl_chart_cols_add(&c, 10 * S, 2.0, 0);		/* the end: last column */
	gl_chart_cols_add(&c, 10 * S + 1, 2.0, 0);	/* outside: dropped */
	gl_chart_cols_add(&c, -1, 2.0, 0);		/* outside: dropped */
	gl_chart_cols_add(&c, 3 * S, NAN, 0);		/* not finite: dropped */
	assert_int_equal(c.col[0].n, 3);
	assert_true(c.col[0].min == 1.0 && c.col[0].max == 5.0);
	assert_true(fabs(c.col[0].sum / 3 - 3.0) < 1e-12);
	assert_int_equal(c.col[0].n_anomaly, 1);
	assert_true(c.col[0].anomaly_max == 1.0);
	assert_int_equal(c.col[1].n, 1);
	assert_int_equal(c.col[9].n, 1);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.dropped, 3);
	/* Column 2 centre: 2.5 s. */
	assert_true(fabs(gl_chart_cols_center_s(&c, 2) - 2.5) < 1e-9);
	gl_chart_cols_release(&c);
	gl_chart_cols_release(&c);
}

static void test_cols_long_window(void **state)
{
	struct gl_chart_cols c;
	struct gl_err err;
	int64_t t0 = DAY0, t1 = DAY0 + 365 * 86400 * S;

	(void)state;
	/* A year in 1000 columns: the middle lands in column 500, no overflow. */
	assert_int_equal(gl_chart_cols_init(&c, t0, t1, 1000, &err), GL_OK);
	assert_int_equal(gl_chart_cols_index(&c, t0 + (t1 - t0) / 2), 500);
	assert_int_equal(gl_chart_cols_index(&c, t1), 999);
	gl_chart_cols_release(&c);
	/* Empty range widened to a second; zero columns refused. */
	assert_int_equal(gl_chart_cols_init(&c, 5, 5, 4, &err), GL_OK);
	assert_true(c.t1_us == 5 + S);
	gl_chart_cols_release(&c);
	assert_int_equal(gl_chart_cols_init(&c, 0, S, 0, &err), GL_EUSAGE);
}

static void test_want_log(void **state)
{
	(void)state;
	assert_false(gl_chart_want_log(1, 100));	/* exactly two decades */
	assert_true(gl_chart_want_log(1, 100.5));
	assert_false(gl_chart_want_log(0, 1e9));	/* zero: no log axis */
	assert_false(gl_chart_want_log(-1, 1e9));
	assert_false(gl_chart_want_log(1, INFINITY));
}

static void test_hist_linear_and_log(void **state)
{
	struct gl_chart_hist h;
	struct gl_err err;

	(void)state;
	/* [0, 10] in 5 bins of 2: 0 and 1.9 in bin 0, 10 in bin 4. */
	assert_int_equal(gl_chart_hist_init(&h, 0, 10, 5, &err), GL_OK);
	assert_false(h.log_bins);
	gl_chart_hist_add(&h, 0);
	gl_chart_hist_add(&h, 1.9);
	gl_chart_hist_add(&h, 4.0);
	gl_chart_hist_add(&h, 10);
	gl_chart_hist_add(&h, 10.5);	/* above */
	gl_chart_hist_add(&h, -1);	/* below */
	gl_chart_hist_add(&h, NAN);	/* ignored */
	assert_int_equal(h.count[0], 2);
	assert_int_equal(h.count[2], 1);
	assert_int_equal(h.count[4], 1);
	assert_int_equal(h.n, 4);
	assert_int_equal(h.n_above, 1);
	assert_int_equal(h.n_below, 1);
	assert_true(fabs(gl_chart_hist_edge(&h, 3) - 6.0) < 1e-12);
	gl_chart_hist_release(&h);

	/* [1, 10000]: four decades, 4 bins, one per decade. */
	assert_int_equal(gl_chart_hist_init(&h, 1, 10000, 4, &err), GL_OK);
	assert_true(h.log_bins);
	assert_true(fabs(gl_chart_hist_edge(&h, 2) - 100.0) < 1e-9);
	gl_chart_hist_add(&h, 5);	/* decade 0 */
	gl_chart_hist_add(&h, 50);	/* decade 1 */
	gl_chart_hist_add(&h, 5000);	/* decade 3 */
	assert_int_equal(h.count[0], 1);
	assert_int_equal(h.count[1], 1);
	assert_int_equal(h.count[3], 1);
	gl_chart_hist_release(&h);

	assert_int_equal(gl_chart_hist_init(&h, 2, 1, 4, &err), GL_EUSAGE);
	assert_int_equal(gl_chart_hist_init(&h, 0, NAN, 4, &err), GL_EUSAGE);
	/* One value: the range is widened around it. */
	assert_int_equal(gl_chart_hist_init(&h, 10, 10, 4, &err), GL_OK);
	assert_true(h.lo == 9 && h.hi == 11);
	gl_chart_hist_release(&h);
}

static void test_hist_from_values(void **state)
{
	double v[101];
	struct gl_chart_hist h;
	struct gl_err err;

	(void)state;
	/* 0..100: p50 = 50, p95 = 95 (index 95 exactly), p99 = 99. */
	for (int i = 0; i <= 100; i++)
		v[100 - i] = i;
	assert_int_equal(gl_chart_hist_from_values(&h, v, 101, 10, &err), GL_OK);
	assert_true(fabs(h.p50 - 50) < 1e-12 && fabs(h.p95 - 95) < 1e-12);
	assert_int_equal(h.n, 101);
	assert_true(h.lo == 0 && h.hi == 100);
	gl_chart_hist_release(&h);

	/* 4 values 1,2,3,4: p50 = 2.5, p95 = 3 + 0.85 = 3.85. */
	double w[4] = {4, 1, 3, 2};

	assert_int_equal(gl_chart_hist_from_values(&h, w, 4, 3, &err), GL_OK);
	assert_true(fabs(h.p50 - 2.5) < 1e-12 && fabs(h.p95 - 3.85) < 1e-12);
	gl_chart_hist_release(&h);

	/*
	 * 1..97 and three spikes of 1000: p95 at index 94.05 of the sorted 100
	 * is 95 + 0.05 = 95.05; 1000 > 3 x 95.05, so the bins end at 1.5 x
	 * 95.05 = 142.575 and the three spikes are counted above.
	 */
	double sp[100];

	for (int i = 0; i < 97; i++)
		sp[i] = i + 1;
	sp[97] = sp[98] = sp[99] = 1000;
	assert_int_equal(gl_chart_hist_from_values(&h, sp, 100, 10, &err), GL_OK);
	assert_true(fabs(h.p95 - 95.05) < 1e-9);
	assert_true(h.lo == 1 && fabs(h.hi - 142.575) < 1e-9);
	assert_int_equal(h.n, 97);
	assert_int_equal(h.n_above, 3);
	gl_chart_hist_release(&h);

	double none[2] = {NAN, INFINITY};

	assert_int_equal(gl_chart_hist_from_values(&h, none, 2, 3, &err), GL_EUSAGE);
	gl_chart_hist_release(&h);
}

static void test_hist_range(void **state)
{
	double lo, hi;

	(void)state;
	gl_chart_hist_range(1, 10, 20, &lo, &hi);	/* max <= 3 x p95: kept */
	assert_true(lo == 1 && hi == 20);
	gl_chart_hist_range(1, 10, 30, &lo, &hi);	/* exactly 3 x p95: kept */
	assert_true(lo == 1 && hi == 30);
	gl_chart_hist_range(1, 10, 1000, &lo, &hi);	/* outliers: 1.5 x p95 */
	assert_true(lo == 1 && hi == 15);
	gl_chart_hist_range(-5, 10, 1000, &lo, &hi);	/* negative data: kept */
	assert_true(lo == -5 && hi == 1000);
}

static void test_time_step(void **state)
{
	char fmt[16];
	double step;

	(void)state;
	/*
	 * One day on 1100 px: "%H:%M" labels are 5 + 3 characters of 16 px,
	 * so at most 8.6 ticks: 3 h gives 8, 2 h would give 12.
	 */
	step = gl_chart_time_step_s(DAY0, DAY0 + 86400 * S, 1100, fmt);
	assert_true(step == 10800);
	assert_string_equal(fmt, "%H:%M");
	/* Two minutes: "%H:%M:%S" is 8 + 3 chars, 6.25 ticks max: 15 s gives 8, 30 s gives 4. */
	step = gl_chart_time_step_s(DAY0, DAY0 + 120 * S, 1100, fmt);
	assert_true(step == 30);
	assert_string_equal(fmt, "%H:%M:%S");
	/* Thirty days: dates, 10 + 3 chars, 5.3 ticks max: 7 days gives 4.3. */
	step = gl_chart_time_step_s(DAY0, DAY0 + 30 * 86400 * S, 1100, fmt);
	assert_true(step == 604800);
	assert_string_equal(fmt, "%Y-%m-%d");
	/* 18:00 to 06:00 next day: dates with times, 12 h span, 14 chars: 4.9 max: 3 h. */
	step = gl_chart_time_step_s(DAY0 + 18 * 3600 * S, DAY0 + 30 * 3600 * S, 1100, fmt);
	assert_true(step == 10800);
	assert_string_equal(fmt, "%m-%d %H:%M");
	/* Empty span: the smallest step, no crash. */
	step = gl_chart_time_step_s(DAY0, DAY0, 1100, fmt);
	assert_true(step == 1);
}

static void test_nice_step(void **state)
{
	(void)state;
	assert_true(gl_chart_nice_step(100, 5) == 20);
	assert_true(gl_chart_nice_step(100, 10) == 10);
	assert_true(gl_chart_nice_step(7, 4) == 2);
	assert_true(fabs(gl_chart_nice_step(0.3, 3) - 0.1) < 1e-12);
	assert_true(gl_chart_nice_step(0, 3) == 1);
}

static void test_label_short_names_kept(void **state)
{
	char out[256];

	(void)state;
	assert_string_equal(gl_chart_label("matmul_fp16", 48, out, sizeof(out)), "matmul_fp16");
	assert_string_equal(gl_chart_label("gemm<float, 128>", 48, out, sizeof(out)),
			    "gemm<float, 128>");
	assert_string_equal(gl_chart_label("  padded  ", 48, out, sizeof(out)), "padded");
	assert_string_equal(gl_chart_label(NULL, 48, out, sizeof(out)), "");
}

static void test_label_cpp(void **state)
{
	char out[256];
	const char *torch = "void at::native::vectorized_elementwise_kernel<4, "
		"at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
		"at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
	const char *cutlass = "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<"
		"cutlass::gemm::threadblock::MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32>,"
		" float> > >(cutlass::gemm::kernel::GemmUniversal<float>::Params)";

	(void)state;
	/* Return type and parameters dropped, template arguments elided. */
	assert_string_equal(gl_chart_label(torch, 48, out, sizeof(out)),
			    "at::native::vectorized_elementwise_kernel<\xE2\x80\xA6>");
	assert_string_equal(gl_chart_label(cutlass, 48, out, sizeof(out)),
			    "cutlass::Kernel<\xE2\x80\xA6>");
	/* Still too long: leading scopes go. */
	assert_string_equal(gl_chart_label(torch, 40, out, sizeof(out)),
			    "\xE2\x80\xA6::vectorized_elementwise_kernel<\xE2\x80\xA6>");
	/* Prose with a parenthesis is not a signature: only cut at the end. */
	assert_string_equal(gl_chart_label("memory in use (mean; band: min-max)", 30, out,
					   sizeof(out)),
			    "memory in use (mean; band: mi\xE2\x80\xA6");	/* 29 + 1 */
	/* Not a signature unless it ends with the parameter list. */
	assert_string_equal(gl_chart_label("<script>alert('k')</script> & \"co\"", 30, out,
					   sizeof(out)),
			    "<script>alert('k')</script> &\xE2\x80\xA6");
	assert_string_equal(gl_chart_label("void ns::kern<int, float>(int*, float) const", 30,
					   out, sizeof(out)), "ns::kern<int, float>");
	/* Anonymous namespace is not a parameter list. */
	assert_string_equal(gl_chart_label("(anonymous namespace)::reduce_kernel<float, 512, "
					   "true, false, 16>(float const*, float*, int)", 40,
					   out, sizeof(out)),
			    "(anonymous namespace)::reduce_kernel<\xE2\x80\xA6>");
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

static void test_label_cut_and_clean(void **state)
{
	char out[256], big[3000];

	(void)state;
	/* A plain long name is cut at max chars with "…" as the last one. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	gl_chart_label(big, 20, out, sizeof(out));
	assert_int_equal(utf8_chars(out), 20);
	assert_memory_equal(out + 19, "\xE2\x80\xA6", 4);
	/* Unicode is counted in characters and never split. */
	gl_chart_label("\xC3\xBC\xC3\xBC\xC3\xBC\xC3\xBC\xC3\xBC\xC3\xBC", 4, out, sizeof(out));
	assert_string_equal(out, "\xC3\xBC\xC3\xBC\xC3\xBC\xE2\x80\xA6");
	/* Invalid UTF-8 and control characters become '?'; a tab a space. */
	gl_chart_label("a\xFF" "b\x01" "c\td\xC3", 48, out, sizeof(out));
	assert_string_equal(out, "a?b?c d?");
	/* A small output buffer: cut on a character boundary. */
	gl_chart_label("\xC3\xBC\xC3\xBC\xC3\xBC", 48, out, 4);
	assert_string_equal(out, "\xC3\xBC");
	/* Special characters are kept as text. */
	gl_chart_label("<script>alert(\"x\")</script> #1 & 100%", 60, out, sizeof(out));
	assert_string_equal(out, "<script>alert(\"x\")</script> #1 & 100%");
}

static void test_window_text(void **state)
{
	char buf[64];

	(void)state;
	gl_chart_window_text(DAY0, DAY0 + 86400 * S + 90 * 60 * S, buf, sizeof(buf));
	assert_string_equal(buf, "2025-09-09 00:00 \xE2\x80\x93 2025-09-10 01:30 UTC");
	/* Before the epoch: 1969-12-31 23:00. */
	gl_chart_window_text(-3600 * S, 0, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31 23:00 \xE2\x80\x93 1970-01-01 00:00 UTC");
}

/* Fit lines clipped to the data's range, by hand: y = 100 - t / 10 s over t 0..2000 s. */
static void test_fit_clip(void **state)
{
	struct gl_chart_fit f = {NULL, 0, 2000 * S, 100, -100, 0};

	(void)state;
	/* data 5..100: the line meets 5 at t = 950 s */
	assert_int_equal(gl_chart_fit_clip(&f, 5, 100), 1);
	assert_true(f.t0_us == 0 && f.y0 == 100);
	assert_true(f.t1_us == 950 * S && f.y1 == 5);
	/* rising past the top: 0 + t / 20 s over 0..400 s, data 0..10: ends at 200 s */
	f = (struct gl_chart_fit){NULL, 0, 400 * S, 0, 20, 0};
	assert_int_equal(gl_chart_fit_clip(&f, 0, 10), 1);
	assert_true(f.t1_us == 200 * S && f.y1 == 10);
	/* wholly below the data: nothing to draw */
	f = (struct gl_chart_fit){NULL, 0, 400 * S, -3, -1, 0};
	assert_int_equal(gl_chart_fit_clip(&f, 0, 10), 0);
	/* inside: unchanged */
	f = (struct gl_chart_fit){NULL, 10 * S, 400 * S, 3, 7, 0};
	assert_int_equal(gl_chart_fit_clip(&f, 0, 10), 1);
	assert_true(f.t0_us == 10 * S && f.t1_us == 400 * S && f.y0 == 3 && f.y1 == 7);
}

static void test_label_keeps_kname_tag(void **state)
{
	char out[256];

	(void)state;
	/* a display name (kname.h) cut to 30 characters keeps its #xxxx: 24 kept, "…", the tag */
	assert_string_equal(gl_chart_label("native::vectorized_elementwise_kernel<\xE2\x80\xA6>#fffe", 30,
					   out, sizeof(out)),
			    "vectorized_elementwise_k\xE2\x80\xA6#fffe");
}

static void test_window_text_one_day(void **state)
{
	char buf[64];

	(void)state;
	/* one date when both ends fall on it: the span drawn of a 3-minute run */
	gl_chart_window_text(DAY0 + (15 * 3600 + 45 * 60) * S, DAY0 + (15 * 3600 + 48 * 60) * S, buf,
			     sizeof(buf));
	assert_string_equal(buf, "2025-09-09 15:45 \xE2\x80\x93 15:48 UTC");
}

static void test_palette_is_okabe_ito(void **state)
{
	/* The eight Okabe-Ito colours, each once. */
	static const uint32_t ok[8] = {0x000000, 0xE69F00, 0x56B4E9, 0x009E73,
				       0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7};
	int seen[8] = {0};

	(void)state;
	for (int i = 0; i < GL_CHART_NCOLORS; i++) {
		uint32_t c = (uint32_t)gl_chart_palette[i][0] << 16 |
			     (uint32_t)gl_chart_palette[i][1] << 8 | gl_chart_palette[i][2];
		int found = 0;

		for (int k = 0; k < 8; k++)
			if (ok[k] == c) {
				seen[k]++;
				found = 1;
			}
		assert_true(found);
	}
	for (int k = 0; k < 8; k++)
		assert_int_equal(seen[k], 1);
}

/* One sample per column of 1 s: col[i] = v[i]. */
static void cols_of(struct gl_chart_cols *c, const double *v, size_t n)
{
	struct gl_err err;

	assert_int_equal(gl_chart_cols_init(c, 0, (int64_t)n * S, n, &err), GL_OK);
	for (size_t i = 0; i < n; i++)
		gl_chart_cols_add(c, (int64_t)i * S + S / 2, v[i], 0);
}

static void test_yrange_spike_clipped(void **state)
{
	struct gl_chart_cols c;
	struct gl_chart_series s = {"k", &c, GL_CHART_LINE, -1};
	struct gl_chart_panel p = {NULL, "y", &s, 1, NULL, 0, 1, 0, 0, 0};
	struct gl_chart_fit fit[2] = {{NULL, 0, 40 * S, 100, 500, -1}, {NULL, 0, 40 * S, 100, 400, -1}};
	struct gl_chart_yrange r;
	struct gl_err err;
	double v[40];

	(void)state;
	/* 100 + i over 40 columns, column 10 a spike of 2000. */
	for (int i = 0; i < 40; i++)
		v[i] = i == 10 ? 2000 : 100 + i;
	cols_of(&c, v, 40);
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	/*
	 * Sorted means: 100..109, 111..139, 2000. p95 at h = 39 x 0.95 = 37.05:
	 * s[37] = 138, s[38] = 139, 138.05. The p80 of the maxima (the same
	 * values), h = 31.2: 132 + 0.2 = 132.2 < 3 x 138.05 = 414.15, the cap.
	 */
	assert_near(r.level, 138.05);
	assert_near(r.cap, 414.15);
	assert_int_equal(r.n_above, 1);
	assert_true(r.above_max == 2000);
	assert_true(r.any && r.lo == 100 && r.hi == 139);
	assert_false(r.log);
	/* Fits are drawn within the data's range (gl_chart_fit_clip): one ending
	 * above the cap or below it widens nothing (issue 30: fit lines past the data). */
	p.fits = fit;
	p.nfits = 1;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_true(r.lo == 100 && r.hi == 139);
	p.fits = &fit[1];
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_true(r.lo == 100 && r.hi == 139);
	/* A linear panel (amounts) is never clipped. */
	p.nfits = 0;
	p.linear = 1;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.level, 138.05);
	assert_true(isinf(r.cap) && r.n_above == 0 && r.hi == 2000);
	gl_chart_cols_release(&c);
}

static void test_yrange_wide_band_kept(void **state)
{
	struct gl_chart_cols c;
	struct gl_chart_series s = {"k", &c, GL_CHART_LINE, -1};
	struct gl_chart_panel p = {NULL, "y", &s, 1, NULL, 0, 1, 0, 0, 0};
	struct gl_chart_yrange r;
	struct gl_err err;

	(void)state;
	/* Every column: nine 10s and one 500 (mean 59, max 500); column 39 also 5000. */
	assert_int_equal(gl_chart_cols_init(&c, 0, 40 * S, 40, &err), GL_OK);
	for (int i = 0; i < 40; i++) {
		for (int k = 0; k < 9; k++)
			gl_chart_cols_add(&c, i * S, 10, 0);
		gl_chart_cols_add(&c, i * S, 500, 0);
		if (i == 39)
			gl_chart_cols_add(&c, i * S, 5000, 1);
	}
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	/*
	 * Means: 59 x 39 and 5590 / 11: p95 (h = 37.05) is 59, 3 x 59 = 177;
	 * but the p80 of the maxima (500 x 39, 5000) is 500: the band of every
	 * column stays whole, only the 5000 is clipped.
	 */
	assert_near(r.level, 59);
	assert_near(r.cap, 500);
	assert_int_equal(r.n_above, 1);
	assert_true(r.above_max == 5000);
	assert_true(r.lo == 10 && r.hi == 500);
	gl_chart_cols_release(&c);
}

static void test_yrange_log_on_kept_values(void **state)
{
	struct gl_chart_cols c[2];
	struct gl_chart_series s[2] = {{"a", &c[0], GL_CHART_LINE, -1},
				       {"b", &c[1], GL_CHART_LINE, -1}};
	struct gl_chart_panel p = {NULL, "y", s, 1, NULL, 0, 1, 0, 0, 0};
	struct gl_chart_yrange r;
	struct gl_err err;
	double a[40], b[40];

	(void)state;
	/* 10 and 20 alternating, column 3 a spike of 10000. */
	for (int i = 0; i < 40; i++) {
		a[i] = i == 3 ? 10000 : i % 2 ? 20 : 10;
		b[i] = i == 5 ? 1e5 : 2000;
	}
	cols_of(&c[0], a, 40);
	cols_of(&c[1], b, 40);
	/*
	 * 10 .. 10000 is three decades (the spike alone would make it a log
	 * axis); sorted means 10 x 20, 20 x 19, 10000: p95 20, cap 60, kept
	 * 10 .. 20: linear.
	 */
	assert_true(gl_chart_want_log(10, 10000));
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.cap, 60);
	assert_true(r.n_above == 1 && r.lo == 10 && r.hi == 20);
	assert_false(r.log);
	/* With a series at 2000 (spike 1e5): level 2000, cap 6000, kept 10 .. 2000 (200 x): log. */
	p.nseries = 2;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.level, 2000);
	assert_near(r.cap, 6000);
	assert_int_equal(r.n_above, 2);		/* 10000 and 1e5 */
	assert_true(r.above_max == 1e5);
	assert_true(r.lo == 10 && r.hi == 2000);
	assert_true(r.log);
	gl_chart_cols_release(&c[0]);
	gl_chart_cols_release(&c[1]);
}

static void test_yrange_styles(void **state)
{
	struct gl_chart_cols c;
	struct gl_chart_series s = {"k", &c, GL_CHART_MAXLINE, -1};
	struct gl_chart_panel p = {NULL, "y", &s, 1, NULL, 0, 1, 0, 0, 0};
	struct gl_chart_yrange r;
	struct gl_err err;

	(void)state;
	/* Every column 1 and 100 (mean 50.5); column 0 1 and 250 (mean 125.5). */
	assert_int_equal(gl_chart_cols_init(&c, 0, 40 * S, 40, &err), GL_OK);
	for (int i = 0; i < 40; i++) {
		gl_chart_cols_add(&c, i * S, 1, 0);
		gl_chart_cols_add(&c, i * S, i == 0 ? 250 : 100, 0);
	}
	/* A line of maxima: level 100 (p95 of 100 x 39, 250), cap 300, nothing above. */
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.level, 100);
	assert_int_equal(r.n_above, 0);
	assert_true(r.lo == 100 && r.hi == 250);
	/* A mean line with its band: level 50.5, cap max(151.5, p80 of maxima 100); 250 clipped. */
	s.style = GL_CHART_LINE;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.level, 50.5);
	assert_near(r.cap, 151.5);
	assert_int_equal(r.n_above, 1);
	assert_true(r.lo == 1 && r.hi == 100);
	/* Points: means only, 125.5 <= 151.5 is kept. */
	s.style = GL_CHART_POINTS;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_int_equal(r.n_above, 0);
	assert_true(r.lo == 50.5 && r.hi == 125.5);
	gl_chart_cols_release(&c);
}

static void test_yrange_empty_and_negative(void **state)
{
	struct gl_chart_cols c;
	struct gl_chart_series s = {"k", &c, GL_CHART_LINE, -1};
	struct gl_chart_panel p = {NULL, "y", &s, 1, NULL, 0, 1, 0, 0, 0};
	struct gl_chart_yrange r;
	struct gl_err err;
	double v[40];

	(void)state;
	/* No series, and a series without samples: nothing kept, nothing clipped. */
	p.nseries = 0;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_true(!r.any && isnan(r.level) && isinf(r.cap) && r.n_above == 0 && !r.log);
	assert_int_equal(gl_chart_cols_init(&c, 0, 10 * S, 10, &err), GL_OK);
	p.nseries = 1;
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_true(!r.any && isnan(r.level) && isinf(r.cap) && r.n_above == 0);
	gl_chart_cols_release(&c);
	/* Negative level (-5, a 100 among them): no factor of it means anything, kept. */
	for (int i = 0; i < 40; i++)
		v[i] = i == 7 ? 100 : -5;
	cols_of(&c, v, 40);
	assert_int_equal(gl_chart_panel_yrange(&p, &r, &err), GL_OK);
	assert_near(r.level, -5);
	assert_true(isinf(r.cap) && r.n_above == 0 && r.lo == -5 && r.hi == 100 && !r.log);
	gl_chart_cols_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cols_reduce),
		cmocka_unit_test(test_cols_long_window),
		cmocka_unit_test(test_want_log),
		cmocka_unit_test(test_hist_linear_and_log),
		cmocka_unit_test(test_hist_from_values),
		cmocka_unit_test(test_hist_range),
		cmocka_unit_test(test_yrange_spike_clipped),
		cmocka_unit_test(test_yrange_wide_band_kept),
		cmocka_unit_test(test_yrange_log_on_kept_values),
		cmocka_unit_test(test_yrange_styles),
		cmocka_unit_test(test_yrange_empty_and_negative),
		cmocka_unit_test(test_time_step),
		cmocka_unit_test(test_nice_step),
		cmocka_unit_test(test_label_short_names_kept),
		cmocka_unit_test(test_label_cpp),
		cmocka_unit_test(test_label_cut_and_clean),
		cmocka_unit_test(test_window_text),
		cmocka_unit_test(test_window_text_one_day),
		cmocka_unit_test(test_label_keeps_kname_tag),
		cmocka_unit_test(test_fit_clip),
		cmocka_unit_test(test_palette_is_okabe_ito),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
