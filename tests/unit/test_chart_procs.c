/*
 * test_chart_procs.c - reports/chart_procs.c: jobs drawn by one process or
 * two give the same files and the same paths in job order; two processes
 * do draw at once (job 0 waits for job 1 to start, which only another
 * process can do, and times out otherwise); the first failure in job order
 * is returned with its message, and no job after it is recorded; a helper
 * that dies is an error, not a report with charts missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../reports/chart_procs.h"
#include "support/tmpdir.h"

static char dir[256];
static pid_t parent;

struct plan {
	int wait_for_1;		/* job 0 waits until job 1 has begun */
	int fail;		/* this job fails (-1: none) */
	int die_in_helper;	/* job 0 or 1, drawn by the helper, kills it */
};

static int exists(const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0;
}

/* Job k writes "k" into job<k>.txt and records its path. */
static int draw(void *arg, size_t k, struct gl_output *o, struct gl_err *err)
{
	const struct plan *pl = arg;
	char p[512];
	FILE *f;

	if (k == 1) {
		snprintf(p, sizeof(p), "%s/started1", o->dir);
		close(open(p, O_CREAT | O_WRONLY, 0644));
	}
	/* jobs 0 and 1 are drawn by different processes (see wait_for_1):
	 * whichever the helper draws kills it */
	if (pl->die_in_helper && k <= 1 && getpid() != parent)
		kill(getpid(), SIGKILL);
	if (k == 0 && pl->wait_for_1) {
		for (int i = 0; i < 2000 && !exists("started1"); i++)
			usleep(5000);	/* 10 s at most */
		if (!exists("started1"))
			return gl_err_set(err, GL_EIO, NULL, 0, NULL, "job 1 never started");
	}
	if ((int)k == pl->fail)
		return gl_err_set(err, GL_EIO, o->dir, 0, "disk full", "cannot draw job %zu", k);
	snprintf(p, sizeof(p), "%s/job%zu.txt", o->dir, k);
	if (!(f = fopen(p, "w")))
		return gl_err_set(err, GL_EIO, p, 0, NULL, "cannot write");
	fprintf(f, "%zu\n", k);
	fclose(f);
	o->paths = realloc(o->paths, (o->n_paths + 1) * sizeof(*o->paths));
	o->paths[o->n_paths++] = strdup(p);
	return GL_OK;
}

static void clean(void)
{
	char p[512];

	for (int k = 0; k < 8; k++) {
		snprintf(p, sizeof(p), "%s/job%d.txt", dir, k);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/started1", dir);
	unlink(p);
}

static int setup(void **state)
{
	(void)state;
	parent = getpid();
	gl_test_mkdtemp(dir, sizeof(dir), "chart_procs");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_test_rmtree(dir);
	return 0;
}

static void test_same_in_order(void **state)
{
	(void)state;
	for (int procs = 1; procs <= 2; procs++) {
		struct plan pl = {.wait_for_1 = procs == 2, .fail = -1};
		struct gl_output out = {.dir = dir};
		struct gl_err err;

		clean();
		assert_int_equal(gl_chart_procs_run(6, procs, draw, &pl, &out, &err), GL_OK);
		assert_int_equal(out.n_paths, 6);
		for (size_t k = 0; k < 6; k++) {
			char want[512];

			snprintf(want, sizeof(want), "%s/job%zu.txt", dir, k);
			assert_string_equal(out.paths[k], want);
			assert_true(exists(want + strlen(dir) + 1));
		}
		gl_output_release(&out);
	}
}

static void test_first_failure(void **state)
{
	(void)state;
	for (int procs = 1; procs <= 2; procs++) {
		struct plan pl = {.wait_for_1 = procs == 2, .fail = 2};
		struct gl_output out = {.dir = dir};
		struct gl_err err;

		clean();
		assert_int_equal(gl_chart_procs_run(6, procs, draw, &pl, &out, &err), GL_EIO);
		assert_string_equal(err.msg, "cannot draw job 2");
		assert_string_equal(err.cause, "disk full");
		/* jobs 0 and 1 recorded; none after the failure */
		assert_int_equal(out.n_paths, 2);
		gl_output_release(&out);
	}
}

static void test_helper_dies(void **state)
{
	(void)state;
	struct plan pl = {.wait_for_1 = 1, .fail = -1, .die_in_helper = 1};
	struct gl_output out = {.dir = dir};
	struct gl_err err;

	clean();
	assert_int_equal(gl_chart_procs_run(4, 2, draw, &pl, &out, &err), GL_EIO);
	assert_string_equal(err.msg, "cannot draw the charts");
	assert_string_equal(err.cause, "the chart helper process failed");
	gl_output_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_helper_dies, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
