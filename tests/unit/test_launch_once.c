/*
 * test_launch_once.c - reports/launch_once.c: a timing equal in kernel,
 * start and duration to the kernel's previous one is a copy; another
 * kernel, another start or another duration is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gpulog.h"
#include "../../reports/launch_once.h"

static void test_copies(void **state)
{
	(void)state;
	struct gl_launch_once l;

	assert_int_equal(gl_launch_once_init(&l, 4), GL_OK);
	assert_false(gl_launch_once_copy(&l, 1, 1000, 129.5, false));
	/* the anomaly WARN of the same launch */
	assert_true(gl_launch_once_copy(&l, 1, 1000, 129.5, true));
	/* another kernel at the same time and duration */
	assert_false(gl_launch_once_copy(&l, 2, 1000, 129.5, false));
	/* the next launch of kernel 1: same duration, 1 us later */
	assert_false(gl_launch_once_copy(&l, 1, 1001, 129.5, false));
	/* same start, another duration */
	assert_false(gl_launch_once_copy(&l, 1, 1001, 130.0, false));
	/* an id past the table */
	assert_false(gl_launch_once_copy(&l, 9, 1001, 130.0, false));
	assert_false(gl_launch_once_copy(&l, 9, 1001, 130.0, false));
	assert_int_equal(l.copies, 1);
	gl_launch_once_release(&l);
	gl_launch_once_release(&l);
}

/*
 * The WARN copy stamped apart from its INFO: at millisecond resolution
 * ("...:04.125Z" for "...:04.125431Z": 431 us before) or by a later logging
 * call (37 us after); never two INFO launches, never one record twice.
 */
static void test_copies_tolerant(void **state)
{
	(void)state;
	struct gl_launch_once l;

	assert_int_equal(gl_launch_once_init(&l, 2), GL_OK);
	/* WARN at .125000, then its INFO at .125431 */
	assert_false(gl_launch_once_copy(&l, 0, 4125000, 4123.5, true));
	assert_true(gl_launch_once_copy(&l, 0, 4125431, 4123.5, false));
	/* a next INFO launch 300 us later of the same duration: a launch */
	assert_false(gl_launch_once_copy(&l, 0, 4125731, 4123.5, false));
	/* its WARN 37 us after it */
	assert_true(gl_launch_once_copy(&l, 0, 4125768, 4123.5, true));
	/* a third WARN of that duration 100 us on: the pair is taken, a launch */
	assert_false(gl_launch_once_copy(&l, 0, 4125868, 4123.5, true));
	/* an INFO 1000 us after a WARN: past the tolerance */
	assert_false(gl_launch_once_copy(&l, 1, 5000000, 88.0, true));
	assert_false(gl_launch_once_copy(&l, 1, 5001000, 88.0, false));
	/* a WARN 999 us after an INFO, another duration: a launch */
	assert_false(gl_launch_once_copy(&l, 1, 5001999, 88.5, true));
	assert_int_equal(l.copies, 2);
	gl_launch_once_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_copies_tolerant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
