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
	assert_false(gl_launch_once_copy(&l, 1, 1000, 129.5));
	/* the anomaly WARN of the same launch */
	assert_true(gl_launch_once_copy(&l, 1, 1000, 129.5));
	/* another kernel at the same time and duration */
	assert_false(gl_launch_once_copy(&l, 2, 1000, 129.5));
	/* the next launch of kernel 1: same duration, 1 us later */
	assert_false(gl_launch_once_copy(&l, 1, 1001, 129.5));
	/* same start, another duration */
	assert_false(gl_launch_once_copy(&l, 1, 1001, 130.0));
	/* an id past the table */
	assert_false(gl_launch_once_copy(&l, 9, 1001, 130.0));
	assert_false(gl_launch_once_copy(&l, 9, 1001, 130.0));
	assert_int_equal(l.copies, 1);
	gl_launch_once_release(&l);
	gl_launch_once_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
