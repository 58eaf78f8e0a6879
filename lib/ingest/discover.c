/*
 * discover.c - the first stage: the paths given on the command line, walked
 * recursively, become a sorted list of regular files with their stat data.
 * In: PATH arguments. Out: struct gl_found entries; problems as notices.
 */
#include "discover.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int add(struct gl_found_list *l, const char *path, size_t root_len, const struct stat *sb)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 128;
		struct gl_found *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	struct gl_found *f = &l->v[l->n];

	f->path = strdup(path);
	if (!f->path)
		return -1;
	if (strlen(path) <= root_len) {
		const char *slash = strrchr(path, '/');

		f->rel = slash ? (size_t)(slash - path) + 1 : 0;
	} else {
		f->rel = root_len + (path[root_len] == '/');
	}
	f->dev = (int64_t)sb->st_dev;
	f->ino = (int64_t)sb->st_ino;
	f->size = (int64_t)sb->st_size;
	f->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000LL + sb->st_mtim.tv_nsec;
	l->n++;
	return 0;
}

static int problem(struct gl_found_list *l, const char *path, const char *cause, const char *what)
{
	if (l->nproblems == l->capproblems) {
		size_t cap = l->capproblems ? l->capproblems * 2 : 8;
		struct gl_err *v = realloc(l->problems, cap * sizeof(*v));

		if (!v)
			return -1;
		l->problems = v;
		l->capproblems = cap;
	}
	gl_err_set(&l->problems[l->nproblems++], GL_EIO, path, 0, cause, "%s", what);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files this run must not read as logs: the database and its companions. */
static int excluded(const struct gl_found_list *l, const char *path)
{
	size_t n = l->exclude ? strlen(l->exclude) : 0;

	return n && strncmp(path, l->exclude, n) == 0 &&
	       (path[n] == '\0' || path[n] == '-');
}

static int walk(struct gl_found_list *l, const char *path, size_t root_len, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (stat(path, &sb) < 0)
		return problem(l, path, strerror(errno), "cannot read");
	if (S_ISREG(sb.st_mode))
		return excluded(l, path) ? 0 : add(l, path, root_len, &sb);
	if (!S_ISDIR(sb.st_mode))
		return 0;	/* fifos, sockets, devices: never logs */
	if (depth > 64)
		return problem(l, path, "too deeply nested (symlink loop?)", "cannot read");
	d = opendir(path);
	if (!d)
		return problem(l, path, strerror(errno), "cannot read directory");
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 32;
			char **v = realloc(names, c * sizeof(*v));

			if (!v) {
				rc = -1;
				goto out;
			}
			names = v;
			cap = c;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			rc = -1;
			goto out;
		}
		n++;
	}
	/* An empty directory leaves names NULL, which qsort must not get. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char child[PATH_MAX];
		struct stat cs;

		if (snprintf(child, sizeof(child), "%s/%s", path, names[i]) >= (int)sizeof(child)) {
			rc = problem(l, names[i], "path too long", "cannot read");
			continue;
		}
		/* Symbolic links to directories are not followed: loops, and
		 * the same logs reached twice. Links to files are read. */
		if (lstat(child, &cs) == 0 && S_ISLNK(cs.st_mode) && stat(child, &cs) == 0 &&
		    S_ISDIR(cs.st_mode))
			continue;
		rc = walk(l, child, root_len, depth + 1);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

int gl_discover(struct gl_found_list *l, const char *const *paths, size_t npaths,
		const char *exclude, struct gl_err *err)
{
	memset(l, 0, sizeof(*l));
	l->exclude = exclude;
	for (size_t i = 0; i < npaths; i++) {
		char abs[PATH_MAX];
		const char *p = paths[i];

		/* Absolute paths, so that a cron job from another directory sees
		 * the same files. realpath also fails for a missing path. */
		if (!realpath(p, abs)) {
			if (problem(l, p, strerror(errno), "cannot read") < 0)
				goto oom;
			continue;
		}
		if (walk(l, abs, strlen(abs), 0) < 0)
			goto oom;
	}
	return GL_OK;
oom:
	gl_found_list_release(l);
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static int cmp_age(const void *a, const void *b)
{
	const struct gl_found *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

void gl_found_sort_by_age(struct gl_found_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_age);
}

void gl_found_list_release(struct gl_found_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	free(l->problems);
	memset(l, 0, sizeof(*l));
}
