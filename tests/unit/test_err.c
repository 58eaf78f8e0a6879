/*
 * Tests for lib/util/err.c: recording errors, formatting them for a user
 * (with every truncation length), and level names in every spelling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "gpulog.h"

static void test_set_fields(void **state)
{
	struct gl_err e;
	int rc;

	(void)state;
	memset(&e, 0x5a, sizeof(e));
	rc = gl_err_set(&e, GL_EIO, "logs/gpu.log", 0, "Permission denied", "cannot open");
	assert_int_equal(rc, GL_EIO);
	assert_int_equal(e.code, GL_EIO);
	assert_true(e.line == 0);
	assert_string_equal(e.path, "logs/gpu.log");
	assert_string_equal(e.cause, "Permission denied");
	assert_string_equal(e.msg, "cannot open");

	rc = gl_err_set(&e, GL_ECONFIG, "x.conf", 3, NULL, "bad value for '%s' (%d)", "top", -2);
	assert_int_equal(rc, GL_ECONFIG);
	assert_true(e.line == 3);
	assert_string_equal(e.msg, "bad value for 'top' (-2)");
	/* fields of the previous error are gone */
	assert_string_equal(e.cause, "");

	rc = gl_err_set(&e, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	assert_string_equal(e.path, "");
	assert_string_equal(e.cause, "");

	/* a NULL err still returns the code */
	assert_int_equal(gl_err_set(NULL, GL_EBUSY, "db", 1, "x", "busy"), GL_EBUSY);

	gl_err_clear(&e);
	assert_int_equal(e.code, GL_OK);
	assert_true(e.line == 0);
	assert_string_equal(e.path, "");
	assert_string_equal(e.msg, "");
	assert_string_equal(e.cause, "");
	gl_err_clear(NULL);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_set_truncates(void **state)
{
	struct gl_err e;
	char *path = repeat('p', 5000), *cause = repeat('c', 5000), *msg = repeat('m', 5000);

	(void)state;
	path[0] = '/';
	gl_err_set(&e, GL_EIO, path, 7, cause, "%s and more", msg);
	assert_int_equal(strlen(e.path), sizeof(e.path) - 1);
	assert_int_equal(strlen(e.cause), sizeof(e.cause) - 1);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	assert_memory_equal(e.path, path, sizeof(e.path) - 1);
	assert_memory_equal(e.cause, cause, sizeof(e.cause) - 1);
	assert_memory_equal(e.msg, msg, sizeof(e.msg) - 1);
	/* exactly fitting strings are kept whole */
	path[sizeof(e.path) - 1] = '\0';
	gl_err_set(&e, GL_EIO, path, 0, NULL, "x");
	assert_string_equal(e.path, path);
	free(path);
	free(cause);
	free(msg);
}

/* Formats into a heap buffer of exactly n bytes (ASan guards the edge). */
static char *format_n(const struct gl_err *e, size_t n)
{
	char *buf = malloc(n ? n : 1);

	assert_non_null(buf);
	memset(buf, '#', n ? n : 1);
	assert_ptr_equal(gl_err_format(e, buf, n), buf);
	return buf;
}

static void check_format(const struct gl_err *e, const char *want)
{
	size_t len = strlen(want);
	char *full = format_n(e, len + 1);

	assert_string_equal(full, want);
	free(full);
	/* every shorter buffer holds the longest prefix that fits */
	for (size_t n = 1; n <= len + 1; n++) {
		char *buf = format_n(e, n);

		assert_int_equal(strlen(buf), n - 1);
		assert_memory_equal(buf, want, n - 1);
		free(buf);
	}
	/* n == 0 writes nothing */
	char guard = '#';

	gl_err_format(e, &guard, 0);
	assert_int_equal(guard, '#');
}

static void test_format(void **state)
{
	struct gl_err e;

	(void)state;
	gl_err_set(&e, GL_EIO, "logs/gpu.log", 0, "Permission denied", "cannot open");
	check_format(&e, "cannot open 'logs/gpu.log': Permission denied");

	gl_err_set(&e, GL_ECONFIG, "x.conf", 3, "expected a number", "bad value at");
	check_format(&e, "bad value at 'x.conf' line 3: expected a number");

	gl_err_set(&e, GL_EFORMAT, "a.gz", 18446744073709551615ULL, NULL, "damaged");
	check_format(&e, "damaged 'a.gz' line 18446744073709551615");

	gl_err_set(&e, GL_EUSAGE, NULL, 0, NULL, "unknown option --x");
	check_format(&e, "unknown option --x");

	gl_err_set(&e, GL_EDB, NULL, 0, "disk I/O error", "cannot store");
	check_format(&e, "cannot store: disk I/O error");

	gl_err_set(&e, GL_EDB, NULL, 12, NULL, "%s", "");
	check_format(&e, "error line 12");

	gl_err_clear(&e);
	check_format(&e, "error");
}

static void test_format_long_fields(void **state)
{
	struct gl_err e;
	char *path = repeat('p', 2000), *cause = repeat('c', 2000), *msg = repeat('m', 2000);
	char want[4096];

	(void)state;
	gl_err_set(&e, GL_EIO, path, 123456789, cause, "%s", msg);
	/* built by hand from the stored (truncated) fields */
	snprintf(want, sizeof(want), "%.255s '%.1023s' line 123456789: %.255s", msg, path, cause);
	assert_int_equal(strlen(want), 255 + 2 + 1023 + 1 + 15 + 2 + 255);
	check_format(&e, want);
	free(path);
	free(cause);
	free(msg);
}

static void test_level_parse(void **state)
{
	static const struct {
		const char *s;
		enum gl_level want;
	} cases[] = {
		{"trace", GL_LEVEL_TRACE},	{"TRACE", GL_LEVEL_TRACE},
		{"Trace", GL_LEVEL_TRACE},	{"debug", GL_LEVEL_DEBUG},
		{"DEBUG", GL_LEVEL_DEBUG},	{"dEbUg", GL_LEVEL_DEBUG},
		{"info", GL_LEVEL_INFO},	{"INFO", GL_LEVEL_INFO},
		{"Info", GL_LEVEL_INFO},	{"warn", GL_LEVEL_WARN},
		{"WARN", GL_LEVEL_WARN},	{"warning", GL_LEVEL_WARN},
		{"WARNING", GL_LEVEL_WARN},	{"Warning", GL_LEVEL_WARN},
		{"error", GL_LEVEL_ERROR},	{"ERROR", GL_LEVEL_ERROR},
		{"err", GL_LEVEL_ERROR},	{"ERR", GL_LEVEL_ERROR},
		{"critical", GL_LEVEL_CRITICAL}, {"CRITICAL", GL_LEVEL_CRITICAL},
		{"crit", GL_LEVEL_CRITICAL},	{"CRIT", GL_LEVEL_CRITICAL},
		{"fatal", GL_LEVEL_CRITICAL},	{"FATAL", GL_LEVEL_CRITICAL},
		{"Fatal", GL_LEVEL_CRITICAL},
		/* unknown */
		{"", GL_LEVEL_NONE},		{"verbose", GL_LEVEL_NONE},
		{"VERBOSE", GL_LEVEL_NONE},	{"notice", GL_LEVEL_NONE},
		{"inf", GL_LEVEL_NONE},		{"informational", GL_LEVEL_NONE},
		{"warn ", GL_LEVEL_NONE},	{" warn", GL_LEVEL_NONE},
		{"errors", GL_LEVEL_NONE},	{"warnings", GL_LEVEL_NONE},
		{"e", GL_LEVEL_NONE},		{"w", GL_LEVEL_NONE},
		{"0", GL_LEVEL_NONE},		{"3", GL_LEVEL_NONE},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].s);
		/* exactly len bytes, no NUL: the parser must stay inside */
		char *copy = malloc(len ? len : 1);
		enum gl_level got;

		assert_non_null(copy);
		memcpy(copy, cases[i].s, len);
		got = gl_level_parse(copy, len);
		free(copy);
		if (got != cases[i].want)
			fail_msg("'%s': %d, want %d", cases[i].s, (int)got, (int)cases[i].want);
	}
}

/* The level by a plain strncasecmp against each name, as the reference. */
static enum gl_level level_ref(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum gl_level level;
	} names[] = {
		{"trace", GL_LEVEL_TRACE}, {"debug", GL_LEVEL_DEBUG},	   {"info", GL_LEVEL_INFO},
		{"warn", GL_LEVEL_WARN},   {"warning", GL_LEVEL_WARN},	   {"error", GL_LEVEL_ERROR},
		{"err", GL_LEVEL_ERROR},   {"critical", GL_LEVEL_CRITICAL}, {"crit", GL_LEVEL_CRITICAL},
		{"fatal", GL_LEVEL_CRITICAL},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len && strncasecmp(names[i].name, s, len) == 0)
			return names[i].level;
	return GL_LEVEL_NONE;
}

/*
 * Every name in every mix of cases, each with every byte changed to each
 * of the 256 values, and every prefix: the same level as the reference,
 * never a read past len.
 */
static void test_level_parse_exhaustive(void **state)
{
	static const char *const names[] = {"trace", "debug", "info",	  "warn", "warning",
					    "error", "err",   "critical", "crit", "fatal"};

	(void)state;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		size_t n = strlen(names[k]);
		char *b = malloc(n);

		assert_non_null(b);
		for (unsigned mask = 0; mask < 1u << n; mask++) {
			for (size_t i = 0; i < n; i++)
				b[i] = (char)(mask >> i & 1 ? names[k][i] - 32 : names[k][i]);
			assert_int_equal(gl_level_parse(b, n), level_ref(b, n));
			assert_true(gl_level_parse(b, n) != GL_LEVEL_NONE);
			for (size_t len = 0; len < n; len++)
				assert_int_equal(gl_level_parse(b, len), level_ref(b, len));
		}
		for (size_t i = 0; i < n; i++)
			for (unsigned o = 0; o < 256; o++) {
				memcpy(b, names[k], n);
				b[i] = (char)o;
				assert_int_equal(gl_level_parse(b, n), level_ref(b, n));
			}
		free(b);
	}
}

static void test_level_parse_uses_len(void **state)
{
	(void)state;
	/* a level inside a longer line: "WARNING - cpu_usage ..." */
	assert_int_equal(gl_level_parse("WARNING - cpu_usage", 7), GL_LEVEL_WARN);
	assert_int_equal(gl_level_parse("warning", 4), GL_LEVEL_WARN);
	assert_int_equal(gl_level_parse("error", 3), GL_LEVEL_ERROR);
	assert_int_equal(gl_level_parse("critical", 4), GL_LEVEL_CRITICAL);
	assert_int_equal(gl_level_parse("info]", 4), GL_LEVEL_INFO);
	assert_int_equal(gl_level_parse("info", 0), GL_LEVEL_NONE);
	assert_int_equal(gl_level_parse("info", 3), GL_LEVEL_NONE);
}

static void test_level_name(void **state)
{
	static const char *const want[] = {"", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"};

	(void)state;
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++) {
		const char *name = gl_level_name((enum gl_level)l);

		assert_string_equal(name, want[l]);
		/* every name parses back to its level */
		if (l != GL_LEVEL_NONE)
			assert_int_equal(gl_level_parse(name, strlen(name)), l);
	}
	/* the order of the enum is the order of severity */
	assert_true(GL_LEVEL_TRACE < GL_LEVEL_DEBUG && GL_LEVEL_DEBUG < GL_LEVEL_INFO &&
		    GL_LEVEL_INFO < GL_LEVEL_WARN && GL_LEVEL_WARN < GL_LEVEL_ERROR &&
		    GL_LEVEL_ERROR < GL_LEVEL_CRITICAL);
	/* out of range: empty, never a crash */
	assert_string_equal(gl_level_name((enum gl_level)7), "");
	assert_string_equal(gl_level_name((enum gl_level)1000), "");
	assert_string_equal(gl_level_name((enum gl_level)-1), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_fields),
		cmocka_unit_test(test_set_truncates),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_long_fields),
		cmocka_unit_test(test_level_parse),
		cmocka_unit_test(test_level_parse_uses_len),
		cmocka_unit_test(test_level_parse_exhaustive),
		cmocka_unit_test(test_level_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
