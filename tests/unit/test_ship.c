/*
 * Tests for lib/ship/ship.c without a server: the TSV and string-literal
 * escaping every row and query goes through, and the failures found
 * before anything is sent (not a gpulog database, a bad node name, a
 * server nobody listens on, tried again the number of times asked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gpulog.h"
#include "net/chttp.h"
#include "ship/ship.h"
#include "store/store.h"
#include "support/tmpdir.h"

static void test_tsv_escapes(void **state)
{
	struct gl_buf b = {0};
	/* a tab, newline, CR, backslash and NUL: each as ClickHouse's
	 * TabSeparated escape, the rest as is (bytes, not UTF-8 checked) */
	static const char in[] = "a\tb\nc\rd\\e\0f\xff";

	(void)state;
	assert_int_equal(gl_ship_tsv_text(&b, in, sizeof(in) - 1), GL_OK);
	assert_int_equal(b.len, strlen("a\\tb\\nc\\rd\\\\e\\0f\xff"));
	assert_memory_equal(b.data, "a\\tb\\nc\\rd\\\\e\\0f\xff", b.len);
	b.len = 0;
	assert_int_equal(gl_ship_tsv_text(&b, "", 0), GL_OK);
	assert_int_equal(b.len, 0);
	assert_int_equal(gl_ship_tsv_text(&b, "plain", 5), GL_OK);
	assert_string_equal(b.data, "plain");
	gl_buf_release(&b);
}

static void test_quote(void **state)
{
	char out[16];

	(void)state;
	assert_string_equal(gl_ship_quote("it's a\\b", out, sizeof(out)), "it\\'s a\\\\b");
	/* cut before an escape pair would be split */
	assert_string_equal(gl_ship_quote("abcdefghijklmnopqrstuvwxyz", out, sizeof(out)),
			    "abcdefghijklm");
	assert_true(strlen(out) < sizeof(out));
}

static void test_not_gpulog(void **state)
{
	char dir[256], path[300];
	struct gl_ship_opts o = {.url = "http://127.0.0.1:1/", .node = "n"};
	struct gl_ship_stats st;
	struct gl_err err;

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "ship");
	snprintf(path, sizeof(path), "%s/x.db", dir);
	gl_test_write(path, "not a database at all, just text that is long enough\n", 54);
	o.db_path = path;
	assert_int_equal(gl_ship_run(&o, &st, &err), GL_ENOTGPULOG);
	o.node = "";
	assert_int_equal(gl_ship_run(&o, &st, &err), GL_EUSAGE);
	gl_test_rmtree(dir);
}

/* A gpulog database (created by the store), a server that is not there:
 * GL_EUNAVAIL after 1 + retries tries, with the waits doubling. */
static void test_unreachable(void **state)
{
	char dir[256], path[300];
	struct gl_store *s = NULL;
	struct gl_ship_opts o = {.url = "http://127.0.0.1:1/", .node = "n", .retries = 2,
				 .retry_wait_ms = 50};
	struct gl_ship_stats st;
	struct gl_err err;
	struct timespec t0, t1;

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "ship");
	snprintf(path, sizeof(path), "%s/g.db", dir);
	assert_int_equal(gl_store_open(&s, path, 0, NULL, NULL, &err), GL_OK);
	gl_store_close(s);
	o.db_path = path;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(gl_ship_run(&o, &st, &err), GL_EUNAVAIL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(st.tries_failed, 2);
	assert_string_equal(err.msg, "cannot reach the server");
	/* 50 + 100 ms of waiting */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 150);
	o.url = "ftp://127.0.0.1/";
	assert_int_equal(gl_ship_run(&o, &st, &err), GL_EUSAGE);
	gl_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsv_escapes),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_not_gpulog),
		cmocka_unit_test(test_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
