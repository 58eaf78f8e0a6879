/*
 * tmpdir.c - scratch directories and small files for unit tests.
 */
#define _XOPEN_SOURCE 700
#include "tmpdir.h"

#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

void gl_test_mkdtemp(char *buf, size_t n, const char *tag)
{
	char tmpl[256];
	char real[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "/tmp/gl_%s_XXXXXX", tag);
	if (!mkdtemp(tmpl))
		fail_msg("mkdtemp %s failed", tmpl);
	if (!realpath(tmpl, real))
		fail_msg("realpath %s failed", tmpl);
	if ((size_t)snprintf(buf, n, "%s", real) >= n)
		fail_msg("temp path too long");
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void gl_test_rmtree(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fail_msg("cannot remove %s", path);
}

void gl_test_write(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (!fp)
		fail_msg("cannot create %s", path);
	if (len && fwrite(data, 1, len, fp) != len)
		fail_msg("cannot write %s", path);
	if (fclose(fp) != 0)
		fail_msg("cannot write %s", path);
}

unsigned char *gl_test_read(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!fp)
		fail_msg("cannot open %s", path);
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				fail_msg("out of memory");
		}
		k = fread(buf + n, 1, cap - n, fp);
		n += k;
	} while (k);
	fclose(fp);
	*len = n;
	return buf;
}
