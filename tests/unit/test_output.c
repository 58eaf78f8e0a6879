/*
 * test_output.c - reports/output.c: files land in the directory under
 * their name, replace an older file, leave no temporary file; a failed
 * write removes its temporary file; without a directory, the stream.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../reports/report.h"

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_dir(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_output.XXXXXX", path[128], buf[64] = {0};
	struct gl_output out = {0};
	struct gl_err err;
	char *tmp;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	fp = fopen(path, "w");
	fputs("old old old old\n", fp);
	fclose(fp);
	out.dir = dir;
	fp = gl_output_open(&out, "a.txt", &tmp, &err);
	assert_non_null(fp);
	fputs("new\n", fp);
	assert_int_equal(entries(dir), 2);	/* a.txt and the temporary file */
	assert_int_equal(gl_output_commit(&out, "a.txt", fp, &tmp, true, &err), GL_OK);
	assert_null(tmp);
	assert_int_equal(out.n_paths, 1);
	assert_string_equal(out.paths[0], path);
	fp = fopen(path, "r");
	fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	assert_string_equal(buf, "new\n");
	assert_int_equal(entries(dir), 1);

	/* a failed emitter: the old file stays, no temporary file is left */
	fp = gl_output_open(&out, "a.txt", &tmp, &err);
	fputs("half", fp);
	assert_int_equal(gl_output_commit(&out, "a.txt", fp, &tmp, false, &err), GL_EIO);
	assert_int_equal(entries(dir), 1);
	assert_int_equal(out.n_paths, 1);
	gl_output_release(&out);
	unlink(path);
	rmdir(dir);

	/* a directory that does not exist */
	struct gl_output bad = {.dir = "/nonexistent/dir"};
	assert_null(gl_output_open(&bad, "a.txt", &tmp, &err));
	assert_int_equal(err.code, GL_EIO);
}

static void test_stream(void **state)
{
	(void)state;
	char *buf = NULL, *tmp;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct gl_output out = {.fp = mem};
	struct gl_err err;

	FILE *fp = gl_output_open(&out, "report.json", &tmp, &err);
	assert_ptr_equal(fp, mem);
	fputs("{}", fp);
	assert_int_equal(gl_output_commit(&out, "report.json", fp, &tmp, true, &err), GL_OK);
	assert_int_equal(out.n_paths, 0);
	fclose(mem);
	assert_string_equal(buf, "{}");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir),
		cmocka_unit_test(test_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
