/*
 * Tests for lib/ingest/jsonstream.c: the units handed out for a document
 * fed line by line, whatever the place of strings, escapes and brackets
 * relative to the 16-byte blocks the scanner reads at once.
 *
 * The expected units come from the document itself: each element is
 * written by the test, so its text (line breaks read as one blank) is
 * known without the scanner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/jsonstream.h"

/* Elements with the bytes that change the scanner's state at many offsets. */
static const char *const elems[] = {
	"{\"a\": \"x\\\"]}\\\\\", \"b\": [1, {\"c\": \"\\\\\\\\\"}]}",
	"{\"name\": \"void k<{[(int)]}>(float*, \\\"q\\\\\\\")\", \"args\": {\"grid\": [1, 2, 3]}}",
	"[\"]\", \"[\", \"{\", \"}\", [[[]]], {\"\\\\\": \"\\\\\"}]",
	"\"a string unit with \\\"quotes\\\" and \\\\ and ] and }\"",
	"{}",
	"{\"deep\": {\"x\": {\"y\": {\"z\": [\"\\u005d\", \"\\/\"]}}}}",
};

#define N_ELEMS (sizeof(elems) / sizeof(elems[0]))

/*
 * Feeds the document {"traceEvents": [pad elem, pad elem, ...]} as lines:
 * each element alone on a line after `pad` blanks, or (split) cut into two
 * lines at byte `cut` of the element when that is outside a string.
 * Checks each unit against the element's text.
 */
static void run(size_t pad, size_t cut)
{
	struct gl_jstream js;
	char line[512], want[512];
	size_t got = 0;

	gl_jstream_init(&js, 1 << 16);
	for (int part = 0; part < 3; part++) {
		size_t off = 0, len;
		enum gl_jstream_ret r;

		snprintf(line, sizeof(line), "%s", part == 0 ? "{\"traceEvents\": [" : part == 1 ? "" : "]}");
		if (part == 1) {
			for (size_t e = 0; e < N_ELEMS; e++) {
				const char *el = elems[e];
				size_t el_len = strlen(el), k;
				int in_str = 0, esc = 0, ok = 1;
				char first[256], second[256];

				/* cut only outside strings: a line break inside one is an error */
				for (k = 0; k < el_len && k < cut; k++) {
					if (esc)
						esc = 0;
					else if (in_str && el[k] == '\\')
						esc = 1;
					else if (el[k] == '"')
						in_str = !in_str;
				}
				if (cut == 0 || cut >= el_len || in_str || el[0] == '"')
					ok = 0;
				memset(line, ' ', pad);
				if (ok) {
					snprintf(first, sizeof(first), "%.*s", (int)cut, el);
					snprintf(second, sizeof(second), "%s%s", el + cut,
						 e + 1 < N_ELEMS ? "," : "");
					snprintf(want, sizeof(want), "%.*s %s", (int)cut, el, el + cut);
				} else {
					snprintf(first, sizeof(first), "%s%s", el, e + 1 < N_ELEMS ? "," : "");
					second[0] = '\0';
					snprintf(want, sizeof(want), "%s", el);
				}
				for (int l = 0; l < (ok ? 2 : 1); l++) {
					const char *t = l == 0 ? first : second;

					memset(line, ' ', pad);
					snprintf(line + (l == 0 ? pad : 0), sizeof(line) - pad, "%s", t);
					len = strlen(line);
					off = 0;
					while ((r = gl_jstream_feed(&js, line, len, &off)) != GL_JS_MORE) {
						if (r != GL_JS_UNIT)
							fail_msg("pad %zu cut %zu element %zu: %d (%s)", pad, cut,
								 e, r, js.err ? js.err : "");
						assert_int_equal(js.len, strlen(want));
						assert_memory_equal(js.buf, want, js.len);
						assert_int_equal(js.buf[js.len], '\0');
						assert_string_equal(js.key, "traceEvents");
						got++;
					}
				}
			}
			continue;
		}
		len = strlen(line);
		while ((r = gl_jstream_feed(&js, line, len, &off)) != GL_JS_MORE)
			assert_int_equal(r, part == 2 ? GL_JS_END : GL_JS_UNIT);
	}
	assert_int_equal(got, N_ELEMS);
	assert_true(js.ended);
	gl_jstream_release(&js);
}

static void test_units_at_every_offset(void **state)
{
	(void)state;
	for (size_t pad = 0; pad < 40; pad++)
		for (size_t cut = 0; cut < 70; cut++)
			run(pad, cut);
}

/* A line break inside a string breaks the stream; so does one in an escape. */
static void test_break_in_string(void **state)
{
	static const char *const tails[] = {"{\"a\": \"long enough to be read sixteen at a time",
					    "{\"a\": \"long enough to be read sixteen at a \\"};
	(void)state;
	for (size_t t = 0; t < 2; t++) {
		struct gl_jstream js;
		size_t off = 0;
		const char *head = "{\"traceEvents\": [";

		gl_jstream_init(&js, 1 << 16);
		assert_int_equal(gl_jstream_feed(&js, head, strlen(head), &off), GL_JS_MORE);
		off = 0;
		assert_int_equal(gl_jstream_feed(&js, tails[t], strlen(tails[t]), &off), GL_JS_ERROR);
		assert_string_equal(js.err, "line break inside a string");
		gl_jstream_release(&js);
	}
}

/* A unit of exactly the cap is handed out; one byte more is too big. */
static void test_cap(void **state)
{
	char line[300];
	const char *head = "{\"traceEvents\": [";

	(void)state;
	for (int extra = 0; extra < 2; extra++) {
		struct gl_jstream js;
		size_t off = 0, n = 200 + (size_t)extra;

		gl_jstream_init(&js, 200);
		assert_int_equal(gl_jstream_feed(&js, head, strlen(head), &off), GL_JS_MORE);
		line[0] = '"';
		memset(line + 1, 'x', n - 2);
		line[n - 1] = '"';
		line[n] = '\0';
		off = 0;
		assert_int_equal(gl_jstream_feed(&js, line, n, &off), extra ? GL_JS_TOOBIG : GL_JS_UNIT);
		if (!extra) {
			assert_int_equal(js.len, 200);
			assert_int_equal(js.buf[200], '\0');
		}
		gl_jstream_release(&js);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_at_every_offset),
		cmocka_unit_test(test_break_in_string),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
