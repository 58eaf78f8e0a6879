/*
 * Tests for lib/store/query_ch.c without a server: opening a URL that is
 * not http(s), and one where nobody listens, fail with the codes the
 * report turns into exit statuses, and leave no query behind.
 * (With a server: tests/cli/t_report_clickhouse.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpulog.h"
#include "store/query.h"

static void test_open_bad_url(void **state)
{
	struct gl_query *q = (struct gl_query *)&q;
	struct gl_err err;

	(void)state;
	assert_int_equal(gl_query_open_clickhouse("file:///tmp/x", &q, &err), GL_EUSAGE);
	assert_null(q);
}

static void test_open_unreachable(void **state)
{
	struct gl_query *q = (struct gl_query *)&q;
	struct gl_err err;

	(void)state;
	/* port 1: nobody listens; user:password never shows in the message */
	assert_int_equal(gl_query_open_clickhouse("http://u:secret@127.0.0.1:1/", &q, &err),
			 GL_EUNAVAIL);
	assert_null(q);
	assert_string_equal(err.msg, "cannot reach the server");
	assert_string_equal(err.path, "http://127.0.0.1:1/");
	assert_null(strstr(err.cause, "secret"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_bad_url),
		cmocka_unit_test(test_open_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
