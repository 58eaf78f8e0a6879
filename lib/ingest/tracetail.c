/*
 * tracetail.c - the last lines of a plain or gzip file (tracetail.h).
 * gzip goes through the input reader (the one place zlib is used), piece
 * by piece.
 */
#include "tracetail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

/* Calls fn on the lines of buf[start..n) (the last one may lack its '\n'). */
static void emit_lines(const char *buf, size_t start, size_t n,
		       void (*fn)(void *, const char *, size_t), void *arg)
{
	while (start < n) {
		const char *nl = memchr(buf + start, '\n', n - start);
		size_t end = nl ? (size_t)(nl - buf) : n;
		size_t len = end - start;

		if (len && buf[start + len - 1] == '\r')
			len--;
		fn(arg, buf + start, len);
		start = end + 1;
	}
}

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
	emit_lines(buf, start, n, fn, arg);
	rc = 0;
out:
	free(buf);
	return rc;
}

/*
 * gzip: the content is inflated to its end (a deflate stream cannot be
 * entered from the back), keeping only its last tail_bytes; they are cut
 * into lines as the plain tail is. Pieces, not lines: cutting and hashing
 * every line of a 1.4 GB trace was half of this pass.
 */
static int tail_gzip(struct gl_reader *r, size_t tail_bytes,
		     void (*fn)(void *, const char *, size_t), void *arg)
{
	char *win = malloc(tail_bytes + 1);
	size_t have = 0, start = 0;
	uint64_t total = 0;
	const char *p;
	size_t n;
	struct gl_err err;
	int rc;

	if (!win)
		return -1;
	while ((rc = gl_reader_next_chunk(r, &p, &n, &err)) == 1) {
		total += n;
		if (n >= tail_bytes) {
			memcpy(win, p + n - tail_bytes, tail_bytes);
			have = tail_bytes;
		} else {
			size_t keep = have + n > tail_bytes ? tail_bytes - n : have;

			memmove(win, win + have - keep, keep);
			memcpy(win + keep, p, n);
			have = keep + n;
		}
	}
	if (rc == GL_EIO) {
		free(win);
		return -1;
	}
	if (rc != 0) {
		/* damaged: the line the damage cut is no line (as gl_reader_next) */
		while (have > 0 && win[have - 1] != '\n')
			have--;
	}
	if (total > have) {
		/* the window's first line is cut unless it starts at a line's start */
		char *nl = memchr(win, '\n', have);

		start = nl ? (size_t)(nl - win) + 1 : have;
	}
	emit_lines(win, start, have, fn, arg);
	free(win);
	return 0;
}

int gl_trace_tail(const char *path, size_t tail_bytes,
		  void (*fn)(void *arg, const char *line, size_t len), void *arg)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
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
	/* only looked at: the read that stores the file checks its CRC */
	gl_reader_no_check(r);
	rc = tail_gzip(r, tail_bytes, fn, arg);
	gl_reader_close(r);
	return rc;
}
