/*
 * Tests for lib/util/utf8.c: well-formed UTF-8 after RFC 3629 (the byte
 * ranges of table 3-7 in the Unicode standard, written out below by hand)
 * and the repair of invalid bytes with U+FFFD.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/utf8.h"

static void test_seq(void **state)
{
	(void)state;
	assert_int_equal(gl_utf8_seq("a"), 1);
	assert_int_equal(gl_utf8_seq("\xC3\xA9"), 2);		/* é U+00E9 */
	assert_int_equal(gl_utf8_seq("\xE2\x82\xAC"), 3);	/* € U+20AC */
	assert_int_equal(gl_utf8_seq("\xF0\x9F\x98\x80"), 4);	/* U+1F600 */
	assert_int_equal(gl_utf8_seq("\xF4\x8F\xBF\xBF"), 4);	/* U+10FFFF, the last */
	assert_int_equal(gl_utf8_seq("\xE9"), 0);		/* Latin-1 é alone */
	assert_int_equal(gl_utf8_seq("\xE9t"), 0);		/* lead byte, no continuation */
	assert_int_equal(gl_utf8_seq("\x80"), 0);		/* a lone continuation byte */
	assert_int_equal(gl_utf8_seq("\xC0\xAF"), 0);		/* overlong '/' */
	assert_int_equal(gl_utf8_seq("\xE0\x80\xAF"), 0);	/* overlong, 3 bytes */
	assert_int_equal(gl_utf8_seq("\xED\xA0\x80"), 0);	/* surrogate U+D800 */
	assert_int_equal(gl_utf8_seq("\xF4\x90\x80\x80"), 0);	/* U+110000 */
	assert_int_equal(gl_utf8_seq("\xF5\x80\x80\x80"), 0);
	assert_int_equal(gl_utf8_seq("\xE2\x82"), 0);		/* cut before the NUL */
	assert_true(gl_utf8_valid("caf\xC3\xA9 \xE2\x82\xAC"));
	assert_false(gl_utf8_valid("caf\xE9"));
}

static void test_clean(void **state)
{
	char *owned;
	const char *s = "valid \xC3\xA9";

	(void)state;
	assert_ptr_equal(gl_utf8_clean(s, &owned), s);
	assert_null(owned);
	assert_null(gl_utf8_clean(NULL, &owned));
	assert_string_equal(gl_utf8_clean("caf\xE9.log", &owned), "caf\xEF\xBF\xBD.log");
	free(owned);
	/* one U+FFFD per invalid byte; the valid é after them stays */
	assert_string_equal(gl_utf8_clean("\xFF\xFE\xC3\xA9\xE2\x82", &owned),
			    "\xEF\xBF\xBD\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
	free(owned);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_clean),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
