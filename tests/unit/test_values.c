/*
 * Tests for lib/util/values.c: whatever is pushed comes back from
 * gl_values_get bit for bit and in order (compared with a plain double copy
 * kept by the test), through each widening (int16 -> float or tenths ->
 * double), at the type boundaries (32767/32768, -0.0, 2^24 + 1, FLT_MAX,
 * subnormals, NaN payload, one decimal), across the move from the heap to a mapping (64 KiB) and past
 * the part of the mapping made ready ahead (256 KiB at a time).
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/values.h"

/* Pushes x[0..n) into vs, then checks every value's bits against x. */
static void push_all(struct gl_values *vs, const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gl_values_push(vs, x[i], NULL), GL_OK);
}

static void check_same(const struct gl_values *vs, const double *x, size_t n)
{
	double *got = malloc((n ? n : 1) * sizeof(*got));

	assert_non_null(got);
	assert_int_equal(vs->n, n);
	gl_values_get(vs, got);
	if (n)
		assert_memory_equal(got, x, n * sizeof(*x));
	free(got);
}

static void test_kind_of_one(void **state)
{
	(void)state;
	const struct {
		double x;
		enum gl_values_kind kind;
	} cases[] = {
		{0, GL_VALUES_I16},	     {45, GL_VALUES_I16},	   {32767, GL_VALUES_I16},
		{-32768, GL_VALUES_I16},     {32768, GL_VALUES_F32},	   {-32769, GL_VALUES_F32},
		{81559, GL_VALUES_F32},	     {0.5, GL_VALUES_F32},	   {-0.0, GL_VALUES_F32},
		{16777216, GL_VALUES_F32},   {16777217, GL_VALUES_T32},   {70.77, GL_VALUES_F64},
		{85.2, GL_VALUES_T32},	     {2295.7, GL_VALUES_T32},	   {-0.1, GL_VALUES_T32},
		{214748364.7, GL_VALUES_T32}, {214748364.8, GL_VALUES_F64}, {1e-300, GL_VALUES_F64},
		{0.05, GL_VALUES_F64},	     {4294967297.0, GL_VALUES_F64},
		{FLT_MAX, GL_VALUES_F32},    {1e39, GL_VALUES_F64},	   {INFINITY, GL_VALUES_F64},
		{1e-45, GL_VALUES_F64},	     {0x1p-149, GL_VALUES_F32},   {NAN, GL_VALUES_F64},
		{32767.5, GL_VALUES_F32},    {-32768.5, GL_VALUES_F32},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gl_values vs = {0};

		push_all(&vs, &cases[i].x, 1);
		assert_int_equal(vs.kind, cases[i].kind);
		check_same(&vs, &cases[i].x, 1);
		assert_true((gl_values_doubles(&vs) != NULL) == (cases[i].kind == GL_VALUES_F64));
		gl_values_release(&vs);
		assert_null(vs.p);
	}
}

/* A nvidia-smi run: temperatures, then memory in MiB, then a power reading. */
static void test_widen_in_order(void **state)
{
	(void)state;
	double x[] = {55, 56, -0.0, 57, 0, 45459, 62050, 81559, 393.38, 56, 0.25, -3};
	struct gl_values vs = {0};

	push_all(&vs, x, 2);
	assert_int_equal(vs.kind, GL_VALUES_I16);
	push_all(&vs, x + 2, 1);	/* -0.0: its sign needs a float */
	assert_int_equal(vs.kind, GL_VALUES_F32);
	push_all(&vs, x + 3, 5);
	assert_int_equal(vs.kind, GL_VALUES_F32);
	check_same(&vs, x, 8);
	push_all(&vs, x + 8, 4);
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, x, 12);
	double *d = gl_values_doubles(&vs);
	assert_non_null(d);
	assert_memory_equal(d, x, sizeof(x));
	gl_values_release(&vs);
	gl_values_release(&vs);	/* twice: a no-op */
}

/* A service's JSON figures with one decimal: int16, then tenths, then double. */
static void test_widen_tenths(void **state)
{
	(void)state;
	double x[] = {256, -12, 85.2, 300.5, 0, 2295.7, -0.3, 32767, 0.25, 85.2};
	double y[] = {0.5, 85.2, 1};
	struct gl_values vs = {0};

	push_all(&vs, x, 2);
	assert_int_equal(vs.kind, GL_VALUES_I16);
	push_all(&vs, x + 2, 1);	/* 85.2: no float keeps it, tenths do */
	assert_int_equal(vs.kind, GL_VALUES_T32);
	push_all(&vs, x + 3, 5);
	assert_int_equal(vs.kind, GL_VALUES_T32);
	check_same(&vs, x, 8);
	push_all(&vs, x + 8, 2);	/* 0.25: two decimals, a double */
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, x, 10);
	gl_values_release(&vs);
	/* float first: tenths then go to double */
	push_all(&vs, y, 1);
	assert_int_equal(vs.kind, GL_VALUES_F32);
	push_all(&vs, y + 1, 2);
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, y, 3);
	gl_values_release(&vs);
	/* -0.0 is not tenths: its sign would be lost */
	double z[] = {0.1, -0.0};
	push_all(&vs, z, 2);
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, z, 2);
	gl_values_release(&vs);
}

/* NaN keeps its payload (a double, never narrowed). */
static void test_nan_payload(void **state)
{
	(void)state;
	uint64_t bits = 0x7ff8000000012345ULL;
	double x[3] = {1, 0, 2};
	struct gl_values vs = {0};

	memcpy(&x[1], &bits, sizeof(bits));
	push_all(&vs, x, 3);
	check_same(&vs, x, 3);
	gl_values_release(&vs);
}

/*
 * 1.5M int16 values (3 MB: past the heap, into a mapping grown by
 * mremap), then a float widens the mapped array, then a double; every
 * value checked. And 700k pseudo-random values of all three kinds mixed.
 * The ready part never passes the capacity and covers the values.
 */
static void test_large(void **state)
{
	(void)state;
	size_t n = 1500002;
	double *x = malloc(n * sizeof(*x));
	struct gl_values vs = {0};
	uint64_t s = 3;

	assert_non_null(x);
	for (size_t i = 0; i < n - 2; i++)
		x[i] = (double)(int)(i % 65536) - 32768;
	x[n - 2] = 1e6 + 0.5;
	x[n - 1] = 0.1;
	push_all(&vs, x, n - 2);
	assert_int_equal(vs.kind, GL_VALUES_I16);
	assert_true(vs.mapped);
	assert_true(vs.ready_bytes <= vs.cap_bytes && vs.ready_bytes >= vs.n * sizeof(int16_t));
	assert_true(vs.ready_bytes < vs.cap_bytes);	/* 3 MB of a 4 MiB mapping */
	check_same(&vs, x, n - 2);
	push_all(&vs, x + n - 2, 1);
	assert_int_equal(vs.kind, GL_VALUES_F32);
	push_all(&vs, x + n - 1, 1);
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, x, n);
	gl_values_release(&vs);

	n = 700000;
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t r = s >> 33;

		x[i] = r % 3 == 0   ? (double)(r % 200) - 100
		       : r % 3 == 1 ? (double)(float)((double)r / 7.0)
				    : (double)r / 3.0;
		if (i < n / 2 && r % 3 == 2)
			x[i] = (double)(r % 100);	/* the first half narrow */
	}
	push_all(&vs, x, n);
	assert_int_equal(vs.kind, GL_VALUES_F64);
	check_same(&vs, x, n);
	gl_values_release(&vs);
	free(x);
}

/* Scratch doubles: writable whole, and n 0 is refused. */
static void test_new_doubles(void **state)
{
	(void)state;
	size_t n = 300000;
	double *d = gl_values_new_doubles(n);

	assert_non_null(d);
	for (size_t i = 0; i < n; i++)
		d[i] = (double)i / 3;
	assert_true(d[n - 1] == (double)(n - 1) / 3 && d[0] == 0);
	gl_values_free_doubles(d, n);
	assert_null(gl_values_new_doubles(0));
	gl_values_free_doubles(NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_of_one),
		cmocka_unit_test(test_widen_in_order),
		cmocka_unit_test(test_widen_tenths),
		cmocka_unit_test(test_nan_payload),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_new_doubles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
