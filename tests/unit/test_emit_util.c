/*
 * Tests for reports/emit_util.c: log text written into CSV cells and text
 * columns never carries a character that acts on a terminal or a viewer
 * (ESC, BS, DEL, a bidirectional override such as U+202E): each is '?'
 * (issue 28). Expected strings written by hand.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/emit_util.h"

static char *csv(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	assert_non_null(fp);
	gl_csv_text(fp, s);
	fclose(fp);
	return buf;
}

static char *cell(const char *s, size_t w)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	assert_non_null(fp);
	gl_text_cell(fp, s, w);
	fclose(fp);
	return buf;
}

static void test_csv_controls(void **state)
{
	/* "k\x1b[2Jx": ESC would clear a terminal that shows the CSV; "a\bb":
	 * BS; "\xe2\x80\xae" U+202E; "\xe2\x81\xa6" U+2066; tab and LF stay
	 * (quoted), as does a plain "é" (\xc3\xa9) */
	static const struct {
		const char *in, *want;
	} c[] = {
		{"k\x1b[2Jx", "k?[2Jx"},
		{"a\bb\x7f", "a?b?"},
		{"gemm\xe2\x80\xae" "dcba", "gemm?dcba"},
		{"x\xe2\x81\xa6y\xe2\x81\xa9", "x?y?"},
		{"t\tu\nv", "\"t\tu\nv\""},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *got = csv(c[i].in);

		assert_string_equal(got, c[i].want);
		free(got);
	}
}

static void test_text_controls(void **state)
{
	char *got;

	(void)state;
	/* 10 columns: "ab?cd" and 5 spaces; U+202E is one column, one '?' */
	got = cell("ab\xe2\x80\xae" "cd", 10);
	assert_string_equal(got, "ab?cd     ");
	free(got);
	got = cell("k\x1b[0m", 6);
	assert_string_equal(got, "k?[0m ");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_controls),
		cmocka_unit_test(test_text_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
