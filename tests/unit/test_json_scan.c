/*
 * Tests for lib/ingest/json_scan.c: the validating JSON scanner.
 *
 * Inputs are copied into buffers of exactly their length, so a read past
 * the end shows up under `make check` (ASan). Numbers are checked against
 * strtod, strings against hand-encoded UTF-8.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/json_scan.h"

/* Scans s[0..n) as one value followed by the end; returns 0 or -1. */
static int scan_n(const char *s, size_t n, struct gl_json_val *v, const char **err)
{
	char *buf = malloc(n ? n : 1);
	struct gl_json_scan sc;
	struct gl_json_val tmp;
	int rc;

	assert_non_null(buf);
	memcpy(buf, s, n);
	gl_json_scan_init(&sc, buf, n);
	rc = gl_json_scan_value(&sc, 1, &tmp);
	if (rc == 0)
		rc = gl_json_scan_end(&sc);
	if (err)
		*err = sc.err;
	if (v) {
		*v = tmp;
		/* point into s, not into buf, which is freed below */
		if (rc == 0)
			v->p = s + (tmp.p - buf);
	}
	free(buf);
	return rc;
}

static int scan(const char *s)
{
	return scan_n(s, strlen(s), NULL, NULL);
}

static void test_scalars(void **state)
{
	struct gl_json_val v;

	(void)state;
	assert_int_equal(scan_n(" null ", 6, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_NULL);
	assert_int_equal(v.len, 4);
	assert_int_equal(scan_n("true", 4, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_TRUE);
	assert_int_equal(scan_n("false", 5, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_FALSE);
	assert_int_equal(scan_n("-12", 3, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_INT);
	assert_int_equal(scan_n("1.5e3", 5, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_REAL);
	assert_int_equal(scan_n("\"ab\"", 4, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_STRING);
	assert_int_equal(v.len, 2);
	assert_memory_equal(v.p, "ab", 2);
	assert_int_equal(v.flags, 0);
	assert_int_equal(scan("tru"), -1);
	assert_int_equal(scan("truex"), -1);
	assert_int_equal(scan("nul"), -1);
	assert_int_equal(scan("NaN"), -1);
	assert_int_equal(scan("Infinity"), -1);
	assert_int_equal(scan("-Infinity"), -1);
	assert_int_equal(scan(""), -1);
	assert_int_equal(scan("   "), -1);
	assert_int_equal(scan("1 2"), -1);
}

static void test_number_grammar(void **state)
{
	static const char *const good[] = {
		"0", "-0", "7", "-7", "10", "0.5", "-0.5", "1e5", "1E5", "1e+5", "1e-5",
		"1.25e-3", "0e0", "123456789012345678", "9223372036854775807",
		"-9223372036854775808", "1e-400", "1.7976931348623157e308",
		"-1.7976931348623157e308", "179769313486231570000e288",
	};
	static const char *const bad[] = {
		"01", "-01", "00", "+1", "-", ".5", "1.", "1.e5", "1e", "1e+", "1e-", "--1",
		"0x10", "1.5.5", "9223372036854775808", "-9223372036854775809",
		"99999999999999999999", "1e400", "-1e400", "1.8e308", "1797693134862315808e290",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (scan(good[i]) != 0)
			fail_msg("rejected good number %s", good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (scan(bad[i]) != -1)
			fail_msg("accepted bad number %s", bad[i]);
	}
}

/* The decoded value of every number equals strtod's (or the integer's). */
static void test_number_values(void **state)
{
	static const char *const nums[] = {
		"512.34", "0.51234", "1024.5", "85.2", "0.1", "0.3", "2.5e-3", "-7.25E2",
		"123456789.123456789", "9007199254740993", "9007199254740993.0",
		"1e22", "1e23", "4.9e-324", "1e-400", "-0.0", "0.0000000000000000000000001",
		"3.141592653589793238462643383279", "1797693134862315708e290", "-0",
		"12345678901234567890123456789e-10", "18446744073709551616.5",
	};
	struct gl_json_val v;
	int64_t i;
	double d;

	(void)state;
	for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++) {
		double want = strtod(nums[k], NULL);

		assert_int_equal(scan_n(nums[k], strlen(nums[k]), &v, NULL), 0);
		assert_int_equal(gl_json_number(&v, &i, &d), 0);
		if (memcmp(&d, &want, sizeof(d)) != 0 && !(v.type == GL_JSON_INT && d == want))
			fail_msg("%s: got %.17g want %.17g", nums[k], d, want);
	}
	assert_int_equal(scan_n("-9223372036854775808", 20, &v, NULL), 0);
	assert_int_equal(gl_json_number(&v, &i, &d), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(scan_n("9223372036854775807", 19, &v, NULL), 0);
	assert_int_equal(gl_json_number(&v, &i, &d), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(scan_n("-0", 2, &v, NULL), 0);
	assert_int_equal(gl_json_number(&v, &i, &d), 0);
	assert_true(i == 0 && !signbit(d));
}

/* Random decimal texts: the fast decoder and strtod agree bit for bit. */
static void test_number_random(void **state)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	char buf[64];
	struct gl_json_val v;
	int64_t i;
	double d, want;

	(void)state;
	for (int k = 0; k < 200000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int nd = 1 + (int)(x % 18), fd = (int)((x >> 8) % 10), e = (int)((x >> 16) % 61) - 30;
		uint64_t y = x >> 20;
		size_t n = 0;

		buf[n++] = '1' + (char)(y % 9);
		for (int j = 1; j < nd; j++, y /= 7)
			buf[n++] = '0' + (char)(y % 10);
		if (fd) {
			buf[n++] = '.';
			for (int j = 0; j < fd; j++, y /= 3)
				buf[n++] = '0' + (char)((y + (uint64_t)j) % 10);
		}
		if (k % 3 == 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "e%d", e);
		buf[n] = '\0';
		want = strtod(buf, NULL);
		assert_int_equal(scan_n(buf, n, &v, NULL), 0);
		assert_int_equal(gl_json_number(&v, &i, &d), 0);
		if (d != want)
			fail_msg("%s: got %.17g want %.17g", buf, d, want);
	}
}

static void test_strings(void **state)
{
	/* every escape; U+00E9, U+20AC, U+1F600 as a surrogate pair */
	const char *in = "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u00e9\\u20AC\\ud83d\\ude00\"";
	const char want[] = "a\"b\\c/d\be\ff\ng\rh\ti\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	struct gl_json_val v;
	char out[128];
	size_t n;

	(void)state;
	assert_int_equal(scan_n(in, strlen(in), &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_STRING);
	assert_true(v.flags & GL_JSON_F_ESCAPES);
	n = gl_json_unescape(v.p, v.len, out);
	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(out, want, n);
	/* raw UTF-8 of 2, 3 and 4 bytes passes unchanged */
	assert_int_equal(scan("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xce\xbcs\""), 0);
	/* U+FFFF and U+10FFFF are fine */
	assert_int_equal(scan("\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\""), 0);
	assert_int_equal(scan("\"\\uFFFF\\udbff\\udfff\""), 0);
}

static void test_bad_strings(void **state)
{
	static const char *const bad[] = {
		"\"abc",		/* unterminated */
		"\"a\\\"",		/* escaped quote, still unterminated */
		"\"\\x\"",		/* unknown escape */
		"\"\\u12\"",		/* short \u */
		"\"\\u12g4\"",
		"\"\\u0000\"",		/* jansson refuses NUL */
		"\"\\ud800\"",		/* lone high surrogate */
		"\"\\ud800\\u0041\"",	/* high surrogate + non-low */
		"\"\\udc00\"",		/* lone low surrogate */
		"\"a\tb\"",		/* raw control character */
		"\"\x01\"",
		"\"\xc0\xaf\"",		/* overlong '/' */
		"\"\xe0\x80\xaf\"",	/* overlong */
		"\"\xed\xa0\x80\"",	/* UTF-8 encoded surrogate */
		"\"\xf4\x90\x80\x80\"",	/* > U+10FFFF */
		"\"\xf5\x80\x80\x80\"",
		"\"\x80\"",		/* lone continuation */
		"\"\xc3\"",		/* truncated sequence */
		"\"\xe2\x82\"",
		"\"\xff\"",
		"\xc3\xa9",		/* UTF-8 outside a string */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (scan(bad[i]) != -1)
			fail_msg("accepted bad string #%zu", i);
	}
	/* a NUL byte inside a string is a control character */
	assert_int_equal(scan_n("\"a\0b\"", 5, NULL, NULL), -1);
}

/*
 * Strings are scanned 16 bytes at a time (SSE2), then 8, then byte by
 * byte: a byte that needs a look (the closing quote, an escape, a control
 * byte, a byte >= 0x80) is found at every position 0..47 of strings of
 * every length up to 48, and a string that ends at the input's end is
 * still refused for what it holds. gl_json_plain_run stops at the same
 * bytes.
 */
static void test_string_chunks(void **state)
{
	static const struct {
		const char *b;	/* the byte(s) placed at position k */
		int ok;		/* the string is valid */
		char dec;	/* its decoded byte (valid ones) */
	} special[] = {
		{"\\n", 1, '\n'}, {"\\\"", 1, '"'}, {"\x01", 0, 0}, {"\x1f", 0, 0}, {"\x7f", 1, 0x7f},
		{"\x80", 0, 0},	{"\xff", 0, 0},     {"\xce\xbc", 1, 0}, {"\t", 0, 0},
	};
	char in[128], out[128];
	struct gl_json_val v;

	(void)state;
	for (size_t len = 1; len <= 48; len++)
		for (size_t k = 0; k < len; k++)
			for (size_t c = 0; c < sizeof(special) / sizeof(special[0]); c++) {
				size_t sl = strlen(special[c].b), n = 0;

				in[n++] = '"';
				memset(in + n, 'a', k);
				n += k;
				memcpy(in + n, special[c].b, sl);
				n += sl;
				memset(in + n, 'b', len - k - 1);
				n += len - k - 1;
				in[n++] = '"';
				if (scan_n(in, n, &v, NULL) != (special[c].ok ? 0 : -1))
					fail_msg("string of %zu with byte class %zu at %zu: %s", len, c,
						 k, special[c].ok ? "refused" : "accepted");
				if (!special[c].ok)
					continue;
				assert_int_equal(v.len, n - 2);
				if (special[c].dec) {
					size_t m = gl_json_unescape(v.p, v.len, out);

					assert_int_equal(m, len);
					assert_int_equal(out[k], special[c].dec);
					assert_int_equal(out[m - 1], k == len - 1 ? special[c].dec : 'b');
				}
				/* the closing quote at position k: the string ends there */
				in[1 + k] = '"';
				assert_int_equal(gl_json_plain_run(in + 1, n - 1), k);
			}
	/* no special byte at all: the whole run */
	memset(in, 'x', 64);
	for (size_t n = 0; n <= 64; n++)
		assert_int_equal(gl_json_plain_run(in, n), n);
}

static void test_containers(void **state)
{
	struct gl_json_val v;
	char out[64];
	size_t n;

	(void)state;
	assert_int_equal(scan("{}"), 0);
	assert_int_equal(scan("[]"), 0);
	assert_int_equal(scan("{\"a\":[1,{\"b\":null}],\"c\":\"d\"}"), 0);
	assert_int_equal(scan_n("{ \"a\" : [ 1 ,\t2 ]\r\n}", 20, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_OBJECT);
	assert_true(v.flags & GL_JSON_F_SPACE);
	n = gl_json_compact(&v, out);
	assert_int_equal(n, strlen("{\"a\":[1,2]}"));
	assert_memory_equal(out, "{\"a\":[1,2]}", n);
	/* whitespace inside strings stays */
	assert_int_equal(scan_n("{\"a b\": \" \\\" x\"}", 16, &v, NULL), 0);
	n = gl_json_compact(&v, out);
	assert_memory_equal(out, "{\"a b\":\" \\\" x\"}", n);
	assert_int_equal(n, 15);
	assert_int_equal(scan_n("[1,2]", 5, &v, NULL), 0);
	assert_int_equal(v.flags & GL_JSON_F_SPACE, 0);

	static const char *const bad[] = {
		"{", "}", "[", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "{,}",
		"{\"a\" 1}", "{1:2}", "{\"a\":1 \"b\":2}", "[1 2]", "{\"a\":1]", "[1}", "{'a':1}",
		"{\"a\":1}}", "[[]", "{\"a\":[}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (scan(bad[i]) != -1)
			fail_msg("accepted bad container %s", bad[i]);
	}
}

/* jansson's limit: the top-level value is depth 1, a value deeper than 2048 fails. */
static void test_depth(void **state)
{
	size_t cap = 5 * GL_JSON_MAX_DEPTH + 16, n;
	char *buf = malloc(cap);
	struct gl_json_val v;

	(void)state;
	assert_non_null(buf);
	/* 2047 arrays around a scalar: the scalar is at depth 2048 */
	n = 0;
	for (int i = 0; i < GL_JSON_MAX_DEPTH - 1; i++)
		buf[n++] = '[';
	buf[n++] = '1';
	for (int i = 0; i < GL_JSON_MAX_DEPTH - 1; i++)
		buf[n++] = ']';
	assert_int_equal(scan_n(buf, n, &v, NULL), 0);
	assert_int_equal(v.type, GL_JSON_ARRAY);
	/* one more level: the scalar is at depth 2049 */
	n = 0;
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++)
		buf[n++] = '[';
	buf[n++] = '1';
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++)
		buf[n++] = ']';
	assert_int_equal(scan_n(buf, n, NULL, NULL), -1);
	/* 2048 empty arrays nest to exactly the limit */
	n = 0;
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++)
		buf[n++] = '[';
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++)
		buf[n++] = ']';
	assert_int_equal(scan_n(buf, n, NULL, NULL), 0);
	/* objects count the same way */
	n = 0;
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++) {
		memcpy(buf + n, "{\"\":", 4);
		n += 4;
	}
	buf[n++] = '0';
	for (int i = 0; i < GL_JSON_MAX_DEPTH; i++)
		buf[n++] = '}';
	assert_int_equal(scan_n(buf, n, NULL, NULL), -1);
	free(buf);
}

/* Every proper prefix of a valid object is refused, and never read past. */
static void test_prefixes(void **state)
{
	const char *line = "{\"timestamp\": \"2025-09-09T14:30:22Z\", \"m\": \"\\u00e9\\ud83d\\ude00"
			   "\xc3\xa9\", \"n\": [-1.5e-3, 0, true, false, null, {}], \"o\": {\"p\": 12}}";
	size_t len = strlen(line);

	(void)state;
	assert_int_equal(scan_n(line, len, NULL, NULL), 0);
	for (size_t k = 0; k < len; k++) {
		if (scan_n(line, k, NULL, NULL) != -1)
			fail_msg("accepted prefix of %zu bytes", k);
	}
}

static void test_object_walk(void **state)
{
	const char *s = "{\"a\": 1, \"b\\u0063\": \"x\", \"a\": [2]} ";
	struct gl_json_scan sc;
	struct gl_json_val k, v;
	char kb[16];

	(void)state;
	gl_json_scan_init(&sc, s, strlen(s));
	assert_int_equal(gl_json_object_begin(&sc), 0);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), 1);
	assert_int_equal(k.len, 1);
	assert_memory_equal(k.p, "a", 1);
	assert_int_equal(v.type, GL_JSON_INT);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), 1);
	assert_true(k.flags & GL_JSON_F_ESCAPES);
	assert_int_equal(gl_json_unescape(k.p, k.len, kb), 2);
	assert_memory_equal(kb, "bc", 2);
	assert_int_equal(v.type, GL_JSON_STRING);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), 1);
	assert_int_equal(v.type, GL_JSON_ARRAY);
	assert_int_equal(v.len, 3);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), 0);
	assert_int_equal(gl_json_scan_end(&sc), 0);

	/* a failure inside a value still tells the key */
	s = "{\"ok\": 1, \"execution_time_ms\": NaN}";
	gl_json_scan_init(&sc, s, strlen(s));
	assert_int_equal(gl_json_object_begin(&sc), 0);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), 1);
	assert_int_equal(gl_json_object_next(&sc, 2, &k, &v), -1);
	assert_int_equal(k.len, strlen("execution_time_ms"));
	assert_memory_equal(k.p, "execution_time_ms", k.len);
	assert_non_null(sc.err);
	assert_int_equal(sc.err_pos, strlen("{\"ok\": 1, \"execution_time_ms\": "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_number_grammar),
		cmocka_unit_test(test_number_values),
		cmocka_unit_test(test_number_random),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_bad_strings),
		cmocka_unit_test(test_string_chunks),
		cmocka_unit_test(test_containers),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_object_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
