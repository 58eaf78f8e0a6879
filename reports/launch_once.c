/*
 * launch_once.c - one launch is one timing (launch_once.h): a timing equal
 * in kernel, start and duration to the kernel's previous one is a copy, and
 * so is a warning record's timing within the tolerance of its INFO record.
 */
#include <stdlib.h>

#include "gpulog.h"
#include "launch_once.h"

int gl_launch_once_init(struct gl_launch_once *l, size_t n_ids)
{
	*l = (struct gl_launch_once){0};
	/* zeroed, not filled: a million kernel ids cost no memory until used
	 * (the kernel pass from the database is seldom made) */
	l->ts_us = calloc(n_ids ? n_ids : 1, sizeof(*l->ts_us));
	l->dur_us = calloc(n_ids ? n_ids : 1, sizeof(*l->dur_us));
	l->warn = calloc(n_ids ? n_ids : 1, sizeof(*l->warn));
	if (!l->ts_us || !l->dur_us || !l->warn) {
		gl_launch_once_release(l);
		return GL_ENOMEM;
	}
	l->n_ids = n_ids;
	return GL_OK;
}

void gl_launch_once_release(struct gl_launch_once *l)
{
	free(l->ts_us);
	free(l->dur_us);
	free(l->warn);
	*l = (struct gl_launch_once){0};
}

bool gl_launch_once_copy(struct gl_launch_once *l, int64_t kernel_id, int64_t ts_us,
			 double dur_us, bool warn)
{
	if (kernel_id < 0 || (uint64_t)kernel_id >= l->n_ids)
		return false;
	size_t k = (size_t)kernel_id;
	/* stored as ts ^ INT64_MIN, so that a zeroed slot reads INT64_MIN: none */
	int64_t x = (int64_t)((uint64_t)ts_us ^ (uint64_t)INT64_MIN);
	int64_t prev = (int64_t)((uint64_t)l->ts_us[k] ^ (uint64_t)INT64_MIN);
	bool near = prev != INT64_MIN && ts_us - prev < GL_LAUNCH_ONCE_TOL_US &&
		    prev - ts_us < GL_LAUNCH_ONCE_TOL_US;
	bool other_level = (l->warn[k] & 1) != warn, paired = l->warn[k] & 2;
	bool copy = l->dur_us[k] == dur_us &&
		    (prev == ts_us || (near && other_level && !paired));

	l->ts_us[k] = x;
	l->dur_us[k] = dur_us;
	l->warn[k] = (unsigned char)(warn | (copy ? 2 : 0));
	l->copies += copy;
	return copy;
}
