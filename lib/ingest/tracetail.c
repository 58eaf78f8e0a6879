/*
 * tracetail.c - the last lines of a plain or gzip file (tracetail.h).
 * gzip goes through the input reader (the one place zlib is used).
 */
#include "tracetail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

static int tail_plain(FILE *f, size_t tail_bytes, void (*fn)(void *, const char *, size_t),
		      void *arg)
{
	long size, from;
	char *buf = NULL;
	size_t n, start = 0;
	int rc = -1;

	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0)
		return -1;
	from = (size_t)size > tail_bytes ? size - (long)tail_bytes : 0;
	if (fseek(f, from, SEEK_SET) != 0 || !(buf = malloc((size_t)(size - from) + 1)))
		goto out;
	n = fread(buf, 1, (size_t)(size - from), f);
	if (ferror(f))
		goto out;
	if (from > 0) {
		/* the first line is cut by the seek unless the byte before is '\n' */
		char prev = 0;

		if (fseek(f, from - 1, SEEK_SET) != 0 || fread(&prev, 1, 1, f) != 1)
			goto out;
		if (prev != '\n') {
			char *nl = memchr(buf, '\n', n);

			start = nl ? (size_t)(nl - buf) + 1 : n;
		}
	}
	while (start < n) {
		char *nl = memchr(buf + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - buf) : n;
		size_t len = end - start;

		if (len && buf[start + len - 1] == '\r')
			len--;
		fn(arg, buf + start, len);
		start = end + 1;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

int gl_trace_tail(const char *path, size_t tail_bytes,
		  void (*fn)(void *arg, const char *line, size_t len), void *arg)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	int rc;

	if (gl_reader_open(&r, path, &err) != GL_OK)
		return -1;
	if (!gl_reader_is_gzip(r)) {
		FILE *f = fopen(path, "rb");

		gl_reader_close(r);
		if (!f)
			return -1;
		rc = tail_plain(f, tail_bytes, fn, arg);
		fclose(f);
		return rc;
	}
	while ((rc = gl_reader_next(r, &ln, &err)) == 1)
		fn(arg, ln.p, ln.len);
	gl_reader_close(r);
	/* a damaged gzip still gave every line before the damage */
	return rc == GL_EIO ? -1 : 0;
}
