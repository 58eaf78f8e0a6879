/* Tests for lib/ingest/textfmt.c: scanners and the JSON object writer. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/textfmt.h"

static int u64(const char *s, uint64_t *v)
{
	return gl_textfmt_u64(s, strlen(s), v);
}

static void test_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(u64("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(u64("18446744073709551616", &v), -1);
	assert_int_equal(u64("", &v), -1);
	assert_int_equal(u64("12a", &v), -1);
	assert_int_equal(u64("-1", &v), -1);
	assert_int_equal(u64(" 1", &v), -1);
}

static void test_hex(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(gl_textfmt_hex("0x7f141ba00000", 14, &v), 0);
	assert_true(v == 0x7f141ba00000ULL);
	assert_int_equal(gl_textfmt_hex("0XFFFFFFFFFFFFFFFF", 18, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(gl_textfmt_hex("0x1FFFFFFFFFFFFFFFF", 19, &v), -1);
	assert_int_equal(gl_textfmt_hex("0x", 2, &v), -1);
	assert_int_equal(gl_textfmt_hex("7f", 2, &v), -1);
	assert_int_equal(gl_textfmt_hex("0xg1", 4, &v), -1);
}

static void test_tod(void **state)
{
	int64_t t = 0;

	(void)state;
	assert_int_equal(gl_textfmt_tod("20:13:10:522999", 15, ':', &t), 0);
	assert_true(t == (20 * 3600 + 13 * 60 + 10) * 1000000LL + 522999);
	assert_int_equal(gl_textfmt_tod("22:30:49.650739", 15, '.', &t), 0);
	assert_true(t == (22 * 3600 + 30 * 60 + 49) * 1000000LL + 650739);
	assert_int_equal(gl_textfmt_tod("00:00:00.5", 10, '.', &t), 0);
	assert_true(t == 500000);
	assert_int_equal(gl_textfmt_tod("00:00:01.123456789", 18, '.', &t), 0);
	assert_true(t == 1123456);
	assert_int_equal(gl_textfmt_tod("23:59:59", 8, '.', &t), 0);
	assert_true(t == 86399000000LL);
	assert_int_equal(gl_textfmt_tod("24:00:00", 8, '.', &t), -1);
	assert_int_equal(gl_textfmt_tod("12:60:00", 8, '.', &t), -1);
	assert_int_equal(gl_textfmt_tod("12:00:00:1", 10, '.', &t), -1);
	assert_int_equal(gl_textfmt_tod("12:00:00.", 9, '.', &t), -1);
	assert_int_equal(gl_textfmt_tod("12:00:00.1234567890", 19, '.', &t), -1);
	assert_int_equal(gl_textfmt_tod("1:00:00", 7, '.', &t), -1);
}

static void test_trim(void **state)
{
	struct gl_str s = gl_textfmt_trim(" \t ab c \t", 9);

	(void)state;
	assert_int_equal(s.len, 4);
	assert_memory_equal(s.p, "ab c", 4);
	s = gl_textfmt_trim("   ", 3);
	assert_int_equal(s.len, 0);
}

static void build(struct gl_jsonw *w, char *buf, size_t cap)
{
	gl_jsonw_begin(w, buf, cap);
	gl_jsonw_int(w, "i", -42);
	gl_jsonw_uint(w, "u", 25000000000ULL);
	gl_jsonw_str(w, "s", "a\"b\\c\n\x01\x7f\xce\xbc", 10);
	gl_jsonw_bool(w, "t", 1);
	gl_jsonw_bool(w, "f", 0);
}

static void test_jsonw(void **state)
{
	static const char want[] = "{\"i\":-42,\"u\":25000000000,"
				   "\"s\":\"a\\\"b\\\\c\\n\\u0001\\u007f\xce\xbc\","
				   "\"t\":true,\"f\":false}";
	struct gl_jsonw w;
	char buf[256];
	json_t *j;
	json_error_t e;

	(void)state;
	build(&w, NULL, 0);
	assert_int_equal(gl_jsonw_end(&w), 0);
	assert_int_equal(w.len, strlen(want));
	build(&w, buf, w.len);
	assert_int_equal(gl_jsonw_end(&w), 1);
	assert_memory_equal(buf, want, w.len);
	/* jansson reads it back to the same values */
	j = json_loadb(buf, w.len, 0, &e);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "i")), -42);
	assert_true(json_integer_value(json_object_get(j, "u")) == 25000000000LL);
	assert_string_equal(json_string_value(json_object_get(j, "s")), "a\"b\\c\n\x01\x7f\xce\xbc");
	json_decref(j);
	/* too small: never writes past cap, reports it */
	memset(buf, 'Z', sizeof(buf));
	build(&w, buf, 10);
	assert_int_equal(gl_jsonw_end(&w), 0);
	assert_int_equal(buf[10], 'Z');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),  cmocka_unit_test(test_hex),   cmocka_unit_test(test_tod),
		cmocka_unit_test(test_trim), cmocka_unit_test(test_jsonw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
