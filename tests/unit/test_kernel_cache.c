/*
 * test_kernel_cache.c - reports/kernel_cache.c: timings handed back kernel
 * by kernel in ascending id, each kernel's in the order added, across block
 * boundaries (2, 4, ... 8192, 8192); the anomaly flag; the bound and
 * what happens past it; a stop from the callback.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../reports/kernel_cache.h"

struct seen {
	size_t n, cap;
	struct gl_query_event *ev;
	size_t stop_at;		/* 0: never */
};

static int on_ev(void *arg, const struct gl_query_event *ev)
{
	struct seen *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		assert_non_null(s->ev);
	}
	s->ev[s->n++] = *ev;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

static void test_order_and_fields(void **state)
{
	(void)state;
	enum { N = 40000, KERNELS = 5 };
	static int64_t ts[N];
	static double dur[N];
	static int kid[N], flag[N];
	struct gl_kcache *c = gl_kcache_new(10, N);
	struct seen s = {0};
	uint64_t r = 99;

	assert_non_null(c);
	/* kernel ids 9, 2, 5, 7, 3 interleaved at random, times increasing */
	static const int ids[KERNELS] = {9, 2, 5, 7, 3};
	for (int i = 0; i < N; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		kid[i] = ids[(r >> 33) % KERNELS];
		ts[i] = 1735689600000000LL + i * 7;
		dur[i] = (double)(r >> 11) / 9007199254740992.0 * 1000;
		flag[i] = (r >> 7) % 13 == 0;
		gl_kcache_add(c, kid[i], ts[i], dur[i], flag[i]);
	}
	assert_true(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), N);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 0);
	assert_int_equal(s.n, N);
	assert_int_equal(gl_kcache_count(c), 0);
	/* expected: a stable pass over the input for each id in ascending order */
	size_t j = 0;
	for (int id = 0; id < 10; id++)
		for (int i = 0; i < N; i++) {
			if (kid[i] != id)
				continue;
			const struct gl_query_event *e = &s.ev[j++];
			assert_int_equal(e->kernel_id, id);
			assert_true(e->ts_us == ts[i]);
			assert_true(e->dur_us == dur[i]);
			assert_int_equal(e->anomaly, flag[i]);
			assert_int_equal(e->dup_of, 0);
			assert_true(isnan(e->mem_mb) && isnan(e->exec_ms));
			assert_true(e->recovery_attempts == -1 && e->error_count == -1);
			assert_null(e->message);
			assert_null(e->source);
		}
	assert_int_equal(j, N);
	free(s.ev);
	gl_kcache_free(c);
}

static void test_bound_drops(void **state)
{
	(void)state;
	struct gl_kcache *c = gl_kcache_new(4, 100);
	struct seen s = {0};

	assert_non_null(c);
	for (int i = 0; i < 100; i++)
		gl_kcache_add(c, 1 + i % 3, i, i, false);
	assert_true(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 100);
	gl_kcache_add(c, 1, 100, 100, false);	/* the 101st */
	assert_false(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 0);
	gl_kcache_add(c, 1, 101, 101, false);	/* stays dropped */
	assert_false(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 0);
	gl_kcache_free(c);
	/* an id outside the table, or a negative time, cannot be kept: dropped */
	c = gl_kcache_new(4, 100);
	gl_kcache_add(c, 4, 1, 1, false);
	assert_false(gl_kcache_ok(c));
	gl_kcache_free(c);
	c = gl_kcache_new(4, 100);
	gl_kcache_add(c, 1, -1, 1, false);
	assert_false(gl_kcache_ok(c));
	gl_kcache_free(c);
	/* empty: nothing handed out */
	c = gl_kcache_new(4, 100);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 0);
	assert_int_equal(s.n, 0);
	gl_kcache_free(c);
	assert_false(gl_kcache_ok(NULL));
}

static void test_stop(void **state)
{
	(void)state;
	struct gl_kcache *c = gl_kcache_new(3, 1000);
	struct seen s = {.stop_at = 50};

	for (int i = 0; i < 300; i++)
		gl_kcache_add(c, 1 + i % 2, i, i, i == 4);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 7);
	assert_int_equal(s.n, 50);
	/* kernel 1's timings are the even i: 0, 2, 4 (flagged), ... */
	for (size_t i = 0; i < 50; i++) {
		assert_int_equal(s.ev[i].kernel_id, 1);
		assert_true(s.ev[i].ts_us == (int64_t)(2 * i));
		assert_int_equal(s.ev[i].anomaly, i == 2);
	}
	free(s.ev);
	gl_kcache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_fields),
		cmocka_unit_test(test_bound_drops),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
