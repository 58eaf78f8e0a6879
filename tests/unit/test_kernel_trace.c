/*
 * test_kernel_trace.c - reports/kernel_trace.c: the per-kernel trace
 * accumulator (means
 * over the timings that carry a value, devices in order of first sight and
 * capped, sources, the (stack, scope) pairs capped). Names of the hotspot
 * pair are resolved through a database; t_report_traces.sh checks them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/kernel_trace.h"

static struct gl_query_event ev(const char *source, const char *device, double ov, double qu,
				double occ, int64_t stack, int64_t scope)
{
	struct gl_query_event e = {.dur_us = 1, .launch_overhead_us = ov, .queue_us = qu,
				   .occupancy = occ, .device = device, .source = source,
				   .stack_id = stack, .scope_id = scope};
	return e;
}

static void test_accumulate(void **state)
{
	struct gl_ktrace t = {0};
	struct gl_report_kernel rk = {0};
	struct gl_err err = {0};
	struct gl_query_event e;

	(void)state;
	/* a log line: no trace fields */
	e = ev(NULL, NULL, NAN, NAN, NAN, 0, 0);
	assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	e = ev("gpufl", "1", 5, 1, 0.5, 0, 0);
	assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	e = ev("kineto", "0", 7, NAN, NAN, 0, 0);	/* no queue, no occupancy */
	assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	e = ev("kineto", "1", NAN, 3, 1.0, 0, 0);
	assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	assert_int_equal(gl_ktrace_finish(&t, NULL, &rk, &err), GL_OK);
	assert_true(fabs(rk.launch_overhead_us - 6.0) < 1e-12);	/* (5 + 7) / 2 */
	assert_true(fabs(rk.queue_us - 2.0) < 1e-12);		/* (1 + 3) / 2 */
	assert_true(fabs(rk.occupancy - 0.75) < 1e-12);		/* (0.5 + 1) / 2 */
	assert_string_equal(rk.device, "1,0");			/* first sight */
	assert_string_equal(rk.source, "gpufl,kineto,log");
	assert_null(rk.hot_stack);
	assert_int_equal(rk.hot_count, 0);
	free(rk.device);
	free(rk.source);
	gl_ktrace_release(&t);

	/* log lines only: no source; nothing else either */
	memset(&rk, 0, sizeof(rk));
	e = ev(NULL, NULL, NAN, NAN, NAN, 0, 0);
	assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	assert_int_equal(gl_ktrace_finish(&t, NULL, &rk, &err), GL_OK);
	assert_null(rk.source);
	assert_null(rk.device);
	assert_true(isnan(rk.launch_overhead_us) && isnan(rk.queue_us) && isnan(rk.occupancy));
	gl_ktrace_release(&t);
}

static void test_caps(void **state)
{
	struct gl_ktrace t = {0};
	struct gl_report_kernel rk = {0};
	struct gl_err err = {0};
	char dev[16];

	(void)state;
	/* 10 devices: 8 kept, then ",..." */
	for (int i = 0; i < 10; i++) {
		snprintf(dev, sizeof(dev), "%d", i);
		struct gl_query_event e = ev("nsys", dev, NAN, NAN, NAN, 0, 0);

		assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	}
	/* pairs: (1,2) twice, (3,4) three times, (1,0) three times: (3,4) came first of the 3s */
	const int64_t p[][2] = {{1, 2}, {3, 4}, {1, 2}, {3, 4}, {1, 0}, {1, 0}, {3, 4}, {1, 0}};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		struct gl_query_event e = ev("nsys", "0", NAN, NAN, NAN, p[i][0], p[i][1]);

		assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	}
	assert_int_equal(t.n_pairs, 3);
	assert_int_equal(t.pairs[0].n, 2);
	assert_int_equal(t.pairs[1].n, 3);
	assert_int_equal(t.pairs[2].n, 3);
	/* past GL_KTRACE_PAIRS distinct pairs: counted apart, memory bounded */
	for (int64_t i = 0; i < GL_KTRACE_PAIRS + 10; i++) {
		struct gl_query_event e = ev("nsys", "0", NAN, NAN, NAN, 100 + i, 0);

		assert_int_equal(gl_ktrace_add(&t, &e, &err), GL_OK);
	}
	assert_int_equal(t.n_pairs, GL_KTRACE_PAIRS);
	assert_int_equal(t.other_n, 3 + 10);
	assert_true(t.cap_pairs <= 2 * GL_KTRACE_PAIRS);
	rk = (struct gl_report_kernel){0};
	/* finish without names: only the fields that need none */
	struct gl_ktrace only = t;

	only.n_pairs = 0;
	assert_int_equal(gl_ktrace_finish(&only, NULL, &rk, &err), GL_OK);
	assert_string_equal(rk.device, "0,1,2,3,4,5,6,7,...");
	assert_string_equal(rk.source, "nsys");
	free(rk.device);
	free(rk.source);
	gl_ktrace_release(&t);
}

/*
 * The state is kept per distinct kernel (1,000,000 in the issue-28 bench):
 * 7 sums and counts of 8 bytes, 2 pointers, 4 32-bit counts and the
 * sources' bits with 2 one-byte fields: 56 + 16 + 16 + 6, padded to 96. The
 * devices inline (8 pointers) made it 176.
 */
static void test_size(void **state)
{
	(void)state;
	assert_true(sizeof(struct gl_ktrace) <= 96);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accumulate),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
