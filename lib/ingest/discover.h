/*
 * discover.h - the paths to read: files found under the PATH arguments.
 */
#ifndef GL_DISCOVER_H
#define GL_DISCOVER_H

#include <stddef.h>
#include <stdint.h>

#include "../gpulog.h"

struct gl_found {
	char *path;		/* absolute, owned */
	size_t rel;		/* path + rel: the path below the PATH argument it was found
				 * under ("n1/gpu.csv"); its name when PATH is the file itself */
	int64_t dev, ino, size, mtime_ns;
};

struct gl_found_list {
	struct gl_found *v;	/* sorted by path within each directory (see gl_found_sort_by_age) */
	size_t n, cap;
	struct gl_err *problems;	/* paths that could not be read */
	size_t nproblems, capproblems;
	const char *exclude;	/* borrowed: a path prefix never read (the database) */
};

/*
 * Fills l (overwritten) from paths, walked recursively; a missing or
 * unreadable path is recorded in l->problems and the others are still
 * walked. Files whose absolute path is exclude or starts with exclude
 * followed by '-' (the database and its -wal/-shm) are left out. Returns
 * GL_OK, or GL_ENOMEM.
 */
int gl_discover(struct gl_found_list *l, const char *const *paths, size_t npaths,
		const char *exclude, struct gl_err *err);

/*
 * Reorders l oldest first: by modification time, then by path. The ingest
 * reads in this order: rotated files before the live one, so rows arrive
 * in about the order of their times and SQLite appends to its time-keyed
 * trees (samples, events_ts) instead of splitting pages in their middle.
 */
void gl_found_sort_by_age(struct gl_found_list *l);

void gl_found_list_release(struct gl_found_list *l);

#endif
