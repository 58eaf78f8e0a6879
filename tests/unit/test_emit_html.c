/*
 * test_emit_html.c - index.html: escaping (a kernel named "<script>" stays
 * text), a valid page structure, nothing fetched from outside, and every
 * image inlined as a PNG that decodes and is the chart file byte for byte.
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
#include "../../reports/emit_util.h"
#include "../../reports/sections.h"
#include "../../reports/telemetry.h"
#include "support/chart_fixture.h"
#include "support/png_read.h"

static char dir[64], db[128];

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
	return fix_rmdir(dir);
}

static void test_escape(void **state)
{
	char buf[128];

	(void)state;
	gl_html_escape("<script>alert('x')</script> & \"q\"", buf, sizeof(buf));
	assert_string_equal(buf, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
	gl_html_escape("\xC3\xBC\x01z", buf, sizeof(buf));
	assert_string_equal(buf, "\xC3\xBC\xEF\xBF\xBDz");
	/* Never a cut entity: "&amp;" does not fit in 5 bytes with the NUL. */
	assert_int_equal(gl_html_escape("a&b", buf, 5), 1);
	assert_string_equal(buf, "a");
}

static int b64val(int c)
{
	const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(t, c) : NULL;

	return p ? (int)(p - t) : -1;
}

/* Decodes base64 s[0..n) (a second implementation, for the test). */
static uint8_t *unbase64(const char *s, size_t n, size_t *out_n)
{
	uint8_t *o = malloc(n / 4 * 3 + 3);
	size_t w = 0;

	assert_int_equal(n % 4, 0);
	for (size_t i = 0; i < n; i += 4) {
		int v[4];

		for (int k = 0; k < 4; k++)
			v[k] = s[i + k] == '=' ? 0 : b64val(s[i + k]);
		assert_true(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0);
		uint32_t x = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
			     (uint32_t)v[3];

		o[w++] = (uint8_t)(x >> 16);
		if (s[i + 2] != '=')
			o[w++] = (uint8_t)(x >> 8);
		if (s[i + 3] != '=')
			o[w++] = (uint8_t)x;
	}
	*out_n = w;
	return o;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *page(const char *sub, int no_charts)
{
	struct gl_report_config cfg = {0};
	struct gl_report rep = {0};
	struct gl_query *q = NULL;
	struct gl_output out = {0};
	struct gl_err err;
	struct gl_report_params p = {.since_us = FIX_DAY0_US,
				     .until_us = FIX_DAY0_US + FIX_DAY_US, .top = 20};
	char path[256];
	uint8_t *html;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
	out.dir = path;
	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(db, &q, &err), GL_OK);
	p.charts = !no_charts;
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);
	/* without charts: the page alone, over a directory with no PNG */
	if (no_charts)
		assert_int_equal(gl_emit_html(&rep, &out, &err), GL_OK);
	else
	{
		assert_int_equal(gl_emit_png(&rep, &out, &err), GL_OK);
		assert_int_equal(gl_emit_html(&rep, &out, &err), GL_OK);
	}
	gl_output_release(&out);
	gl_report_release(&rep);
	gl_query_close(q);
	gl_config_release(&cfg);
	snprintf(path, sizeof(path), "%s/%s/index.html", dir, sub);
	assert_int_equal(png_slurp(path, &html, &n), 0);
	html[n] = '\0';
	return (char *)html;
}

static void test_page(void **state)
{
	char *h = page("p", 0);
	char path[512];

	(void)state;
	/* Structure. */
	assert_true(strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	assert_int_equal(count(h, "<html"), 1);
	assert_int_equal(count(h, "</html>"), 1);
	assert_int_equal(count(h, "<head>"), 1);
	assert_int_equal(count(h, "<body>"), 1);
	assert_int_equal(count(h, "</body>"), 1);
	assert_int_equal(count(h, "<table>"), count(h, "</table>"));
	assert_int_equal(count(h, "<tr>"), count(h, "</tr>"));
	assert_int_equal(count(h, "<ul>"), count(h, "</ul>"));
	assert_true(strstr(h, "</html>\n") == h + strlen(h) - 8);
	/*
	 * A section or chart jumped to (the nav's links, #gpu_telemetry) starts
	 * below the sticky nav: in Chromium the demo page's nav is 2.25em tall
	 * on one line (1800 px wide) and 3.79em on two (760 to 1400 px), so the
	 * margin is at least that; on a phone (the 700 px query) the nav is one
	 * line that scrolls.
	 */
	{
		static const char rule[] = "section,h2,figure{scroll-margin-top:";
		const char *m = strstr(h, rule);
		const char *ph = strstr(h, "@media (max-width:700px){");

		assert_non_null(m);
		assert_true(strtod(m + strlen(rule), NULL) >= 3.8);
		assert_non_null(ph);
		m = strstr(ph, rule);
		assert_non_null(m);
		assert_true(strtod(m + strlen(rule), NULL) >= 2.25);
	}
	/* Self-contained: no script, nothing fetched. */
	assert_int_equal(count(h, "<script"), 0);
	assert_int_equal(count(h, "http://"), 0);
	assert_int_equal(count(h, "https://"), 0);
	assert_int_equal(count(h, "<link"), 0);
	/* Log text escaped: the kernel, the component, the message. */
	assert_non_null(strstr(h, "&lt;script&gt;alert(&#39;k&#39;)&lt;/script&gt; &amp; "
				  "&quot;co&quot;"));
	assert_non_null(strstr(h, "&lt;b&gt;data&lt;/b&gt;"));
	assert_int_equal(count(h, "<b>data</b>"), 0);
	assert_non_null(strstr(h, "softmax_\xC3\xBCnic\xC3\xB8" "de_\xE6\x97\xA5\xE6\x9C\xAC"));
	/* Eleven images, each a data: URI of the PNG next to the page, byte for byte. */
	/* in the order of the sections, each next to its table; the finding (gemm's step
	 * at noon) first */
	static const char *const files[11] = {
		"finding_1.png", GL_PNG_TIMELINE, GL_PNG_DISTRIBUTION, "kernel_trends.png",
		GL_PNG_MEMORY, GL_PNG_ERRORS, GL_PNG_TELEMETRY, "scopes.png", "training_loss.png",
		"training_iteration.png", "baseline_comparison.png",
	};
	const char *p = h;

	assert_int_equal(count(h, "<img "), 11);
	/* scopes.png's figure is not given its section's id twice */
	assert_int_equal(count(h, " id=\"scopes\""), 1);
	assert_int_equal(count(h, "<figure id=\"chart-scopes\">"), 1);
	for (int i = 0; i < 11; i++) {
		const char *src = strstr(p, "src=\"data:image/png;base64,");
		struct png_image img;
		const char *why;
		uint8_t *bytes, *file;
		size_t n, nf;

		assert_non_null(src);
		src += strlen("src=\"data:image/png;base64,");
		const char *end = strchr(src, '"');

		bytes = unbase64(src, (size_t)(end - src), &n);
		if (png_decode(bytes, n, &img, &why) != 0)
			fail_msg("image %d: %s", i, why);
		assert_int_equal(img.width, 1600);
		png_release(&img);
		snprintf(path, sizeof(path), "%s/p/%s", dir, files[i]);
		assert_int_equal(png_slurp(path, &file, &nf), 0);
		assert_int_equal(n, nf);
		assert_memory_equal(bytes, file, n);
		free(bytes);
		free(file);
		p = end;
	}
	free(h);
}

static void test_page_without_charts(void **state)
{
	char *h = page("nc", 1);

	(void)state;
	assert_int_equal(count(h, "<img "), 0);
	assert_non_null(strstr(h, "No charts were written"));
	free(h);
}

/* Table numbers: never an exponent for large values (by hand). */
static void test_num(void **state)
{
	static const struct {
		double v;
		enum gl_html_num k;
		const char *want;
	} c[] = {
		{20820.4, GL_HTML_G4, "20820"},		/* was 2.082e+04 */
		{1510.2, GL_HTML_G4, "1510"},
		{1510.2, GL_HTML_G3, "1510"},		/* was 1.51e+03 */
		{999.4, GL_HTML_G3, "999"},
		{0.000123, GL_HTML_G3, "0.000123"},
		{3.3e-63, GL_HTML_G3, "3.3e-63"},	/* a p-value keeps its exponent */
		{-21830000, GL_HTML_SIGNED_G4, "-21830000"},
		{12.5, GL_HTML_SIGNED_G4, "+12.5"},
		{NAN, GL_HTML_G4, "&ndash;"},
	};
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		gl_html_num(f, c[i].v, c[i].k);
		fclose(f);
		assert_string_equal(buf, c[i].want);
		free(buf);
		buf = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_page_without_charts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
