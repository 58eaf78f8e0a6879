/* Tests for lib/ingest/textts.c: timestamps near the start of a text line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/textts.h"

#define DAY_US 86400000000LL
#define US(h, m, s, us) ((((int64_t)(h) * 60 + (m)) * 60 + (s)) * 1000000LL + (us))

static struct gl_textts scan(const char *s, size_t max_start, int want)
{
	struct gl_textts t;

	assert_int_equal(gl_textts_scan(s, strlen(s), max_start, &t), want);
	return t;
}

static void test_iso(void **state)
{
	struct gl_textts t;

	(void)state;
	/* 2026-11-26 is day 20783 (`date -ud 2026-11-26 +%s` / 86400) */
	t = scan("2026-11-26T14:02:09.5Z msg", 0, 1);
	assert_int_equal(t.kind, GL_TEXTTS_ISO);
	assert_true(t.has_zone);
	assert_true(t.naive_us == 20783 * DAY_US + US(14, 2, 9, 500000));
	assert_int_equal(t.end, 22);
	/* +02:00 is two hours ahead of UTC */
	t = scan("2026-11-26 14:02:09,123+02:00", 0, 1);
	assert_true(t.naive_us == 20783 * DAY_US + US(12, 2, 9, 123000));
	/* torchrun's error file time "2024-08-20_11:37:36" */
	t = scan("  time      : 2024-08-20_11:37:36", 20, 1);
	assert_int_equal(t.start, 14);
	/* not at a word start: a version number is no date */
	scan("v12026-11-26 14:02:09", 4, 0);
}

static void test_no_year(void **state)
{
	struct gl_textts t;

	(void)state;
	t = scan("Nov  6 04:01:04 host kernel: x", 0, 1);
	assert_int_equal(t.kind, GL_TEXTTS_NOYEAR);
	assert_int_equal(t.a, 11);
	assert_int_equal(t.b, 6);
	/* 2026-11-06 is day 20763 */
	assert_true(gl_textts_in_year(&t, 2026) == 20763 * DAY_US + US(4, 1, 4, 0));
	t = scan("E0602 11:18:53.865680143 ProcessGroupNCCL.cpp:684] x", 0, 1);
	assert_int_equal(t.glog_level, 'E');
	assert_true(t.naive_us == US(11, 18, 53, 865680));
	t = scan("INFO 09-15 14:42:21 [executor_base.py:188] x", 8, 1);
	assert_int_equal(t.a, 9);
	assert_int_equal(t.b, 15);
}

static void test_brackets(void **state)
{
	struct gl_textts t;

	(void)state;
	t = scan("[ 1843.308145] NVRM: x", 0, 1);
	assert_int_equal(t.kind, GL_TEXTTS_BOOT);
	assert_true(t.naive_us == 1843308145LL);
	assert_int_equal(t.end, 14);
	/* dmesg -T; 2026-04-26 is day 20569 */
	t = scan("[Sun Apr 26 23:12:26 2026] NVRM: x", 0, 1);
	assert_int_equal(t.kind, GL_TEXTTS_ISO);
	assert_true(t.naive_us == 20569 * DAY_US + US(23, 12, 26, 0));
	/* a pasted line number is no time */
	scan("[1860] frame #1", 0, 0);
}

static void test_slash(void **state)
{
	struct gl_textts t;

	(void)state;
	t = scan("03/22/2024 09:51:20 - INFO", 0, 1);
	assert_int_equal(t.kind, GL_TEXTTS_SLASH);
	/* 2024-03-22 is day 19804; read as day/month it is impossible */
	assert_true(gl_textts_slash(&t, 0) == 19804 * DAY_US + US(9, 51, 20, 0));
	assert_true(gl_textts_slash(&t, 1) == -1);
	scan("13/13/2024 09:51:20", 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iso),
		cmocka_unit_test(test_no_year),
		cmocka_unit_test(test_brackets),
		cmocka_unit_test(test_slash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
