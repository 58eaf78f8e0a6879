/*
 * test_json_slow.c - the jansson path of the json format on its own.
 * (The differential test in test_fmt_json.c compares it with the fast path.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "ingest/format.h"
#include "ingest/json_slow.h"

/*
 * Metadata of many short reals: jansson writes each with 17 digits, so its
 * text is several times the line's length, beyond the scratch reserve. It
 * must still be kept, equal in value to the source's.
 */
static void test_metadata_longer_than_line(void **state)
{
	char line[8192];
	size_t n = 0;
	struct gl_parse_ctx ctx;
	struct gl_rec rec;
	json_t *want, *got;
	json_error_t e;

	(void)state;
	n += (size_t)snprintf(line + n, sizeof(line) - n,
			      "{\"timestamp\":\"2025-11-16T00:00:00Z\",\"metadata\":{\"v\":[");
	for (int i = 0; i < 600; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s0.1", i ? "," : "");
	n += (size_t)snprintf(line + n, sizeof(line) - n, "]}}");

	gl_parse_ctx_init(&ctx);
	assert_int_equal(gl_ctx_begin_line(&ctx, n), 0);
	gl_json_slow_parse(&ctx, line, n, 0, NULL, 0, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_non_null(rec.ev.metadata.p);
	assert_true(rec.ev.metadata.len > n);	/* longer than the whole line */

	want = json_loads("{\"v\":[0.1", 0, NULL);
	assert_null(want);	/* (sanity: a broken text does not parse) */
	got = json_loadb(rec.ev.metadata.p, rec.ev.metadata.len, 0, &e);
	assert_non_null(got);
	want = json_loadb(strstr(line, "{\"v\""), n - (size_t)(strstr(line, "{\"v\"") - line) - 1, 0,
			  &e);
	assert_non_null(want);
	assert_true(json_equal(want, got));
	json_decref(want);
	json_decref(got);
	gl_parse_ctx_release(&ctx);
}

/* The reason names jansson's complaint, its column and the field. */
static void test_reject_reason(void **state)
{
	static const char line[] = "{\"timestamp\": \"2025-11-16T00:00:00Z\", \"exec\": NaN}";
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	(void)state;
	gl_parse_ctx_init(&ctx);
	assert_int_equal(gl_ctx_begin_line(&ctx, sizeof(line) - 1), 0);
	gl_json_slow_parse(&ctx, line, sizeof(line) - 1, 0, "exec", 4, &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "invalid JSON"));
	assert_non_null(strstr(rec.reason, "NaN"));
	assert_non_null(strstr(rec.reason, "\"exec\""));
	gl_parse_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_longer_than_line),
		cmocka_unit_test(test_reject_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
