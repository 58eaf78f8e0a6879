/*
 * test_counter.c - reports/counter.c: rises, restarts, the first value as
 * a base or counted from zero. Expected values by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../reports/counter.h"
#include "util/timeutil.h"

static void test_rises_and_restart(void **state)
{
	(void)state;
	struct gl_counter c;
	const double v[] = {3, 5, 5, 9, 2, 4};	/* 3 -> 9: +6; restart: +2; +2 */

	gl_counter_init(&c);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		gl_counter_add(&c, v[i]);
	assert_true(gl_counter_increase(&c, false) == 10);
	/* from zero: the first 3 counted too */
	assert_true(gl_counter_increase(&c, true) == 13);
	assert_int_equal(c.resets, 1);
	assert_true(c.max == 9);
	assert_int_equal(c.n, 6);
}

static void test_first_scrape_holds_a_failure(void **state)
{
	(void)state;
	struct gl_counter c;

	/* 4 failures: the first scrape already held one, then 1, 3, 4 */
	gl_counter_init(&c);
	gl_counter_add(&c, 1);
	gl_counter_add(&c, 1);
	gl_counter_add(&c, 3);
	gl_counter_add(&c, 4);
	assert_true(gl_counter_increase(&c, true) == 4);
	assert_true(gl_counter_increase(&c, false) == 3);
}

static void test_one_or_none(void **state)
{
	(void)state;
	struct gl_counter c;

	gl_counter_init(&c);
	assert_true(isnan(gl_counter_increase(&c, true)));
	gl_counter_add(&c, NAN);
	gl_counter_add(&c, -1);
	assert_int_equal(c.n, 0);
	gl_counter_add(&c, 7);
	assert_true(isnan(gl_counter_increase(&c, false)));
	assert_true(gl_counter_increase(&c, true) == 7);
}

/*
 * When the first value counts from zero: the window starts at 1000 s, the
 * counter is scraped every 60 s (times in us: S = 1e6).
 */
static void test_from_zero(void **state)
{
	(void)state;
	const int64_t S = 1000000, since = 1000 * S, iv = 60 * S, N = GL_TS_NONE;

	/* a sample before the window: a base, whatever is known */
	assert_false(gl_counter_from_zero(true, 1010 * S, iv, since, N, N));
	assert_false(gl_counter_from_zero(true, 1010 * S, iv, since, 1005 * S, N));
	/* nothing known: from zero (the series starts in the window) */
	assert_true(gl_counter_from_zero(false, 1010 * S, iv, since, N, N));
	/* _created in the window: yes; before it: no (the process's start aside) */
	assert_true(gl_counter_from_zero(false, 1010 * S, iv, since, 1005 * S, 10 * S));
	assert_false(gl_counter_from_zero(false, 1010 * S, iv, since, 900 * S, 1005 * S));
	/* the process started in the window: yes, at or long before the first sample */
	assert_true(gl_counter_from_zero(false, 1900 * S, iv, since, N, 1005 * S));
	/* started before the window: the first value is a base ... */
	assert_false(gl_counter_from_zero(false, 1600 * S, iv, since, N, 10 * S));
	/* ... unless the series starts with it (first sample within one interval) */
	assert_true(gl_counter_from_zero(false, 1030 * S, iv, since, N, 990 * S));
	/* a start after the first sample is a later process's: from zero */
	assert_true(gl_counter_from_zero(false, 1010 * S, iv, since, N, 1500 * S));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rises_and_restart),
		cmocka_unit_test(test_first_scrape_holds_a_failure),
		cmocka_unit_test(test_one_or_none),
		cmocka_unit_test(test_from_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
