/*
 * Tests for lib/record/operation.c: the operation timing a record holds
 * (name, time, throughput), with the expected values worked out by hand
 * from each case's text.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/operation.h"

static void test_parse_message(void **state)
{
	char name[64];
	double ms;
	const char *m1 = "Operation x completed in 12 ms";
	const char *m2 = "Operation y completed in 462.72\xCE\xBCs";
	const char *m3 = "Operation z completed in 1.5s.";
	const char *m4 = "Operation w completed in 7 parsecs";

	(void)state;
	assert_true(gl_operation_parse_message(m1, strlen(m1), name, sizeof(name), &ms));
	assert_string_equal(name, "x");
	assert_true(ms == 12);
	assert_true(gl_operation_parse_message(m2, strlen(m2), name, sizeof(name), &ms));
	assert_string_equal(name, "y");
	assert_true(fabs(ms - 0.46272) < 1e-15);
	assert_true(gl_operation_parse_message(m3, strlen(m3), name, sizeof(name), &ms));
	assert_true(ms == 1500);
	/* a unit that is not one: named, no time */
	assert_true(gl_operation_parse_message(m4, strlen(m4), name, sizeof(name), &ms));
	assert_string_equal(name, "w");
	assert_true(isnan(ms));
	assert_false(gl_operation_parse_message("Operations done", 15, name, sizeof(name), &ms));
	/* a name that does not fit */
	assert_false(gl_operation_parse_message(m1, strlen(m1), name, 1, &ms));
}

static bool of(const char *msg, const char *meta, double exec_ms, struct gl_operation *op)
{
	return gl_operation_of(msg, msg ? strlen(msg) : 0, meta, meta ? strlen(meta) : 0, exec_ms,
			       op);
}

static void test_operation_of(void **state)
{
	struct gl_operation op;
	const char *meta = "{\"operation\": \"layout_step\", \"duration_ms\": 2.38, \"throughput\": 412.5}";

	(void)state;
	/* the service's JSON line: metadata names it, execution_time_ms times it */
	assert_true(of("Operation layout_step completed in 2.38ms", meta, 2.5, &op));
	assert_string_equal(op.name, "layout_step");
	assert_true(op.ms == 2.5 && op.throughput == 412.5);
	/* metadata first, the message's name second */
	assert_true(of("Operation other completed in 9ms", "{\"operation\": \"first\"}", 3, &op));
	assert_string_equal(op.name, "first");
	assert_true(op.ms == 3 && isnan(op.throughput));
	/* an escaped key is still the key */
	assert_true(of(NULL, "{\"oper\\u0061tion\": \"esc\"}", 1, &op));
	assert_string_equal(op.name, "esc");
	/* a text line: the message's name and time */
	assert_true(of("Operation decode completed in 350us", NULL, NAN, &op));
	assert_string_equal(op.name, "decode");
	assert_true(op.ms == 0.35 && isnan(op.throughput));
	/* without an execution time the metadata is not read: duration_ms never times it */
	assert_false(of("checkpoint saved", meta, NAN, &op));
	assert_true(isnan(op.ms) && op.name[0] == '\0');
	/* an execution time alone: an operation without a name */
	assert_true(of("step done", "{\"device\": \"cuda:0\"}", 4, &op));
	assert_string_equal(op.name, "");
	assert_true(op.ms == 4);
	/* an empty or non-string operation names nothing; malformed metadata is left */
	assert_true(of(NULL, "{\"operation\": \"\", \"throughput\": 2}", 1, &op));
	assert_true(op.name[0] == '\0' && op.throughput == 2);
	assert_true(of("Operation m completed in 1 ms", "{\"operation\": 7}", 5, &op));
	assert_string_equal(op.name, "m");
	assert_true(of(NULL, "{\"operation\": \"x\"", 6, &op));
	assert_true(op.name[0] == '\0' && op.ms == 6);
	/* no text at all, or no finite time: none */
	assert_false(of(NULL, NULL, 5, &op));
	assert_false(of("Operation q completed in", NULL, NAN, &op));
	assert_false(of("Operation q completed in 5 ms", NULL, INFINITY, &op));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_message),
		cmocka_unit_test(test_operation_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
