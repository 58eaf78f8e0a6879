/* Tests for lib/ingest/kernel_text.c: "Kernel X executed in N<unit>". */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"

static int parse(const char *msg, struct gl_str *k, double *dur_us)
{
	return gl_kernel_from_text(msg, strlen(msg), k, dur_us);
}

static void assert_kernel(const char *msg, const char *name, double want_us)
{
	struct gl_str k = { 0 };
	double d = NAN;

	assert_int_equal(parse(msg, &k, &d), 1);
	assert_int_equal(k.len, strlen(name));
	assert_memory_equal(k.p, name, k.len);
	/* the slice points into msg */
	assert_true(k.p >= msg && k.p + k.len <= msg + strlen(msg));
	assert_true(fabs(d - want_us) <= 1e-9 * (fabs(want_us) + 1));
}

static void test_greek_mu(void **state)
{
	(void)state;
	assert_kernel("Kernel force_pass_kernel executed in 512.34\xce\xbcs", "force_pass_kernel",
		      512.34);
}

static void test_micro_sign(void **state)
{
	(void)state;
	assert_kernel("Kernel force_pass_kernel executed in 512.34\xc2\xb5s", "force_pass_kernel",
		      512.34);
}

static void test_units(void **state)
{
	(void)state;
	assert_kernel("Kernel a executed in 7us", "a", 7.0);
	assert_kernel("Kernel a executed in 1500ns", "a", 1.5);
	assert_kernel("Kernel a executed in 2.5ms", "a", 2500.0);
	assert_kernel("Kernel a executed in 0.25s", "a", 250000.0);
	assert_kernel("Kernel a executed in 3 ms", "a", 3000.0);
	assert_kernel("Kernel a executed in 1e3us", "a", 1000.0);
	assert_kernel("Kernel a executed in .5ms", "a", 500.0);
}

static void test_inside_message(void **state)
{
	(void)state;
	assert_kernel("[stream 3] Kernel reduce_sum executed in 1.2 ms (slow path)", "reduce_sum",
		      1200.0);
	assert_kernel("GPU kernel gemm<float> executed in 10us.", "gemm<float>", 10.0);
	/* a first "Kernel" that does not match does not hide a later one */
	assert_kernel("Kernel launch ok; Kernel b executed in 4us", "b", 4.0);
}

static void test_no_match(void **state)
{
	struct gl_str k = { 0 };
	double d = 0;

	(void)state;
	assert_int_equal(parse("", &k, &d), 0);
	assert_int_equal(parse("Kernel", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in fast", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in 5", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in 5 parsecs", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in 5msec", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in -5us", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in nanus", &k, &d), 0);
	assert_int_equal(parse("Kernel x executed in infus", &k, &d), 0);
	assert_int_equal(parse("Kernel executed in 5us", &k, &d), 0);
	assert_int_equal(parse("Kernelx y executed in 5us", &k, &d), 0);
	assert_int_equal(parse("subKernel y executed in 5us", &k, &d), 0);
	assert_int_equal(parse("Kernel y finished in 5us", &k, &d), 0);
	assert_int_equal(gl_kernel_from_text(NULL, 0, &k, &d), 0);
}

static void test_length_bound(void **state)
{
	/* The length argument is honoured: the unit lies beyond len. */
	const char *msg = "Kernel a executed in 5us";
	struct gl_str k = { 0 };
	double d = 0;

	(void)state;
	assert_int_equal(gl_kernel_from_text(msg, strlen(msg) - 2, &k, &d), 0);
	assert_int_equal(gl_kernel_from_text(msg, strlen(msg), &k, &d), 1);
}

static void test_huge_number(void **state)
{
	struct gl_str k = { 0 };
	double d = 0;
	char msg[200] = "Kernel a executed in ";

	(void)state;
	/* 80 digits: longer than any real timing, refused rather than truncated */
	for (int i = 0; i < 80; i++)
		strcat(msg, "9");
	strcat(msg, "us");
	assert_int_equal(parse(msg, &k, &d), 0);
	assert_int_equal(parse("Kernel a executed in 1e999us", &k, &d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_greek_mu),     cmocka_unit_test(test_micro_sign),
		cmocka_unit_test(test_units),	     cmocka_unit_test(test_inside_message),
		cmocka_unit_test(test_no_match),     cmocka_unit_test(test_length_bound),
		cmocka_unit_test(test_huge_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
