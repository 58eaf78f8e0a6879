/*
 * Tests for lib/ingest/discover.c: a temporary tree walked recursively in
 * sorted order, symbolic links (to files read, to directories not
 * followed), fifos ignored, missing paths reported while the rest is
 * still found, the database excluded, absolute paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/discover.h"
#include "support/tmpdir.h"

static char root[256];

static void path_of(char *buf, const char *rel)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
		fail_msg("path too long");
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];

	path_of(p, rel);
	gl_test_write(p, text, strlen(text));
}

static void dir(const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];

	path_of(p, rel);
	assert_int_equal(symlink(target, p), 0);
}

/*
 * root/
 *   a.log            "hello\n" (mtime set by hand)
 *   b/c/deep.log
 *   b/x.log
 *   c.log
 *   db db-wal db-shm db2
 *   fifo             (a named pipe)
 *   link_dir -> b    (not followed)
 *   link_file -> a.log
 */
static int setup(void **state)
{
	char p[PATH_MAX];
	struct timespec ts[2] = {{1757428222, 123456789}, {1757428222, 123456789}};

	(void)state;
	gl_test_mkdtemp(root, sizeof(root), "discover");
	put("a.log", "hello\n");
	path_of(p, "a.log");
	if (utimensat(AT_FDCWD, p, ts, 0) != 0)
		return -1;
	dir("b");
	dir("b/c");
	put("b/c/deep.log", "deep line\n");
	put("b/x.log", "x\n");
	put("c.log", "");
	put("db", "SQLite format 3");
	put("db-wal", "wal");
	put("db-shm", "shm");
	put("db2", "not the database");
	path_of(p, "fifo");
	if (mkfifo(p, 0644) != 0)
		return -1;
	link_to("b", "link_dir");
	link_to("a.log", "link_file");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_test_rmtree(root);
	return 0;
}

static void assert_found(const struct gl_found_list *l, const char *const *rel, size_t n)
{
	char want[PATH_MAX];

	for (size_t i = 0; i < l->n && i < n; i++) {
		path_of(want, rel[i]);
		if (strcmp(l->v[i].path, want) != 0)
			fail_msg("entry %zu: '%s', want '%s'", i, l->v[i].path, want);
	}
	if (l->n != n)
		fail_msg("%zu entries, want %zu", l->n, n);
}

static void test_walk_tree(void **state)
{
	static const char *const want[] = {
		"a.log", "b/c/deep.log", "b/x.log", "c.log",
		"db", "db-shm", "db-wal", "db2", "link_file",
	};
	struct gl_found_list l;
	struct gl_err err;
	const char *paths[] = {root};
	struct stat sb;
	char p[PATH_MAX];

	(void)state;
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	assert_int_equal(l.nproblems, 0);
	assert_found(&l, want, sizeof(want) / sizeof(want[0]));
	/* stat data of a.log, and of link_file, which is a.log's */
	path_of(p, "a.log");
	assert_int_equal(stat(p, &sb), 0);
	for (size_t k = 0; k < l.n; k += 8) {
		assert_true(l.v[k].ino == (int64_t)sb.st_ino);
		assert_true(l.v[k].dev == (int64_t)sb.st_dev);
		assert_int_equal(l.v[k].size, 6);
		assert_true(l.v[k].mtime_ns == 1757428222123456789LL);
	}
	assert_int_equal(l.v[1].size, 10);	/* "deep line\n" */
	assert_int_equal(l.v[3].size, 0);
	path_of(p, "b/x.log");
	assert_int_equal(stat(p, &sb), 0);
	assert_true(l.v[2].ino == (int64_t)sb.st_ino);
	gl_found_list_release(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
}

static void test_exclude(void **state)
{
	static const char *const want[] = {
		"a.log", "b/c/deep.log", "b/x.log", "c.log", "db2", "link_file",
	};
	struct gl_found_list l;
	struct gl_err err;
	char db[PATH_MAX];
	const char *paths[2];

	(void)state;
	path_of(db, "db");
	paths[0] = root;
	assert_int_equal(gl_discover(&l, paths, 1, db, &err), GL_OK);
	assert_found(&l, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(l.nproblems, 0);
	gl_found_list_release(&l);

	/* named directly, the database is still left out, silently */
	paths[0] = db;
	assert_int_equal(gl_discover(&l, paths, 1, db, &err), GL_OK);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.nproblems, 0);
	gl_found_list_release(&l);

	/* a prefix that is not the whole name before '-' excludes nothing */
	path_of(db, "d");
	paths[0] = root;
	assert_int_equal(gl_discover(&l, paths, 1, db, &err), GL_OK);
	assert_int_equal(l.n, 9);
	gl_found_list_release(&l);
}

static void test_missing_path(void **state)
{
	static const char *const want[] = {"a.log", "b/c/deep.log", "b/x.log"};
	struct gl_found_list l;
	struct gl_err err;
	char missing[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	const char *paths[3];

	(void)state;
	path_of(missing, "no/such/dir");
	path_of(a, "a.log");
	path_of(b, "b");
	paths[0] = missing;
	paths[1] = a;
	paths[2] = b;
	assert_int_equal(gl_discover(&l, paths, 3, NULL, &err), GL_OK);
	assert_found(&l, want, 3);
	assert_int_equal(l.nproblems, 1);
	assert_int_equal(l.problems[0].code, GL_EIO);
	assert_string_equal(l.problems[0].path, missing);
	assert_string_equal(l.problems[0].cause, strerror(ENOENT));
	assert_string_equal(l.problems[0].msg, "cannot read");
	gl_found_list_release(&l);
	assert_null(l.problems);
}

/* A link to nowhere inside the tree is a problem; the rest is still read. */
static void test_dangling_link(void **state)
{
	struct gl_found_list l;
	struct gl_err err;
	const char *paths[] = {root};
	char p[PATH_MAX];

	(void)state;
	link_to("gone.log", "b/dangling.log");
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	assert_int_equal(l.n, 9);
	assert_int_equal(l.nproblems, 1);
	path_of(p, "b/dangling.log");
	assert_string_equal(l.problems[0].path, p);
	gl_found_list_release(&l);
}

static void test_relative_paths_become_absolute(void **state)
{
	static const char *const want[] = {"b/c/deep.log", "b/x.log", "b/x.log"};
	struct gl_found_list l;
	struct gl_err err;
	const char *paths[] = {"b", "./b/../b/x.log"};
	int cwd = open(".", O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_true(cwd >= 0);
	assert_int_equal(chdir(root), 0);
	assert_int_equal(gl_discover(&l, paths, 2, NULL, &err), GL_OK);
	assert_int_equal(fchdir(cwd), 0);
	close(cwd);
	/* b/x.log twice: once from the walk, once named (ingest sorts that out) */
	assert_found(&l, want, 3);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].path[0], '/');
	gl_found_list_release(&l);
}

/* A symlink given as an argument is resolved; one to a file names the target. */
static void test_link_argument(void **state)
{
	struct gl_found_list l;
	struct gl_err err;
	char lf[PATH_MAX], ld[PATH_MAX], want[PATH_MAX];
	const char *paths[2];

	(void)state;
	path_of(lf, "link_file");
	path_of(ld, "link_dir");
	paths[0] = lf;
	paths[1] = ld;
	assert_int_equal(gl_discover(&l, paths, 2, NULL, &err), GL_OK);
	assert_int_equal(l.n, 3);
	path_of(want, "a.log");
	assert_string_equal(l.v[0].path, want);
	path_of(want, "b/c/deep.log");
	assert_string_equal(l.v[1].path, want);
	gl_found_list_release(&l);
}

/* rel: the path below the PATH argument; a file argument is its name. */
static void test_relative_to_argument(void **state)
{
	struct gl_found_list l;
	struct gl_err err;
	char pb[PATH_MAX], pc[PATH_MAX];
	const char *paths[3] = {root, pb, pc};
	const char *want[] = {"b/c/deep.log", "b/x.log", "c/deep.log", "x.log", "c.log"};
	size_t k = 0;

	(void)state;
	path_of(pb, "b");
	path_of(pc, "c.log");
	assert_int_equal(gl_discover(&l, paths, 3, NULL, &err), GL_OK);
	for (size_t i = 0; i < l.n; i++) {
		const char *rel = l.v[i].path + l.v[i].rel;

		assert_int_not_equal(rel[0], '/');
		assert_true(strcmp(l.v[i].path + strlen(l.v[i].path) - strlen(rel), rel) == 0);
		if (strstr(rel, "x.log") || strstr(rel, "deep.log") ||
		    (strcmp(rel, "c.log") == 0 && i == l.n - 1)) {
			assert_true(k < 5);
			assert_string_equal(rel, want[k]);
			k++;
		}
	}
	assert_int_equal(k, 5);
	gl_found_list_release(&l);
}

static void test_fifo_and_empty(void **state)
{
	struct gl_found_list l;
	struct gl_err err;
	char p[PATH_MAX];
	const char *paths[1] = {p};

	(void)state;
	/* a fifo named directly: nothing, no problem, and no blocking open */
	path_of(p, "fifo");
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.nproblems, 0);
	gl_found_list_release(&l);
	/* an empty directory */
	dir("empty");
	path_of(p, "empty");
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.nproblems, 0);
	gl_found_list_release(&l);
	/* no paths at all */
	assert_int_equal(gl_discover(&l, paths, 0, NULL, &err), GL_OK);
	assert_int_equal(l.n, 0);
	gl_found_list_release(&l);
}

/* Runs the walk over a tree with b/c unreadable; returns 0, or which check failed. */
static int unreadable_walk(void)
{
	struct gl_found_list l;
	struct gl_err err;
	const char *paths[] = {root};
	char p[PATH_MAX];
	int bad = 0;

	path_of(p, "b/c");
	if (gl_discover(&l, paths, 1, NULL, &err) != GL_OK)
		return 1;
	if (l.n != 8)
		bad = 2;
	else if (l.nproblems != 1)
		bad = 3;
	else if (strcmp(l.problems[0].path, p) != 0)
		bad = 4;
	else if (strcmp(l.problems[0].cause, strerror(EACCES)) != 0)
		bad = 5;
	else if (strcmp(l.problems[0].msg, "cannot read directory") != 0)
		bad = 6;
	gl_found_list_release(&l);
	return bad;
}

/* An unreadable directory is a problem; its siblings are still found. */
static void test_unreadable_dir(void **state)
{
	char p[PATH_MAX];
	int rc;

	(void)state;
	path_of(p, "b/c");
	assert_int_equal(chmod(p, 0), 0);
	if (geteuid() != 0) {
		rc = unreadable_walk();
	} else {
		/* root reads every directory: walk as nobody in a child */
		pid_t pid;
		int status;

		assert_int_equal(chmod(root, 0755), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (setgid(65534) != 0 || setuid(65534) != 0)
				_exit(100);
			_exit(unreadable_walk());
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		rc = WEXITSTATUS(status);
	}
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(rc, 0);
}

/* Many files in one directory: sorted by name, whatever readdir's order. */
static void test_many_sorted(void **state)
{
	enum { N = 500 };
	struct gl_found_list l;
	struct gl_err err;
	char p[PATH_MAX];
	const char *paths[] = {p};

	(void)state;
	dir("many");
	for (int i = N - 1; i >= 0; i--) {
		char rel[64];

		/* 7919 is prime: names in a scrambled order */
		snprintf(rel, sizeof(rel), "many/f%04d.log", (i * 7919) % N);
		put(rel, "x\n");
	}
	path_of(p, "many");
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	assert_int_equal(l.n, N);
	for (int i = 0; i < N; i++) {
		char rel[64], want[PATH_MAX];

		snprintf(rel, sizeof(rel), "many/f%04d.log", i);
		path_of(want, rel);
		assert_string_equal(l.v[i].path, want);
	}
	gl_found_list_release(&l);
}

/* Oldest first; equal times by path. */
static void test_sort_by_age(void **state)
{
	static const struct {
		const char *name;
		time_t sec;
		long nsec;
	} files[] = {
		{"live.log", 1757430000, 0},		/* newest */
		{"live.log.1", 1757420000, 500},
		{"live.log.2.gz", 1757410000, 0},	/* oldest */
		{"other.log", 1757420000, 500},		/* same time as live.log.1 */
		{"same.log", 1757420000, 499},		/* 1 ns older than those */
	};
	static const char *const want[] = {
		"ages/live.log.2.gz", "ages/same.log", "ages/live.log.1", "ages/other.log",
		"ages/live.log",
	};
	struct gl_found_list l;
	struct gl_err err;
	char p[PATH_MAX];
	const char *paths[] = {p};

	(void)state;
	dir("ages");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[64];
		struct timespec ts[2] = {{files[i].sec, files[i].nsec}, {files[i].sec, files[i].nsec}};

		snprintf(rel, sizeof(rel), "ages/%s", files[i].name);
		put(rel, "x\n");
		path_of(p, rel);
		assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	}
	path_of(p, "ages");
	assert_int_equal(gl_discover(&l, paths, 1, NULL, &err), GL_OK);
	gl_found_sort_by_age(&l);
	assert_found(&l, want, sizeof(want) / sizeof(want[0]));
	gl_found_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_walk_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_by_age, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exclude, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dangling_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_paths_become_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_argument, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_and_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_to_argument, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_sorted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
