/*
 * test_tracetail.c - lib/ingest/tracetail.c (the last lines of a plain or
 * gzip file) and gl_reader_next_chunk (the content in pieces, as it is).
 *
 * The content is made by the test, written plain and as gzip (zlib's
 * deflate: one member, three members, cut short); the expected lines are
 * cut from the content in memory by the test's own loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gpulog.h"
#include "ingest/reader.h"
#include "ingest/tracetail.h"
#include "support/tmpdir.h"

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	gl_test_mkdtemp(tmpdir, sizeof(tmpdir), "tracetail");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_test_rmtree(tmpdir);
	return 0;
}

/* gzip of p[0..n) as one member (zlib's deflate, gzip wrapper) */
static unsigned char *gz(const char *p, size_t n, size_t *out_n)
{
	z_stream z;
	size_t cap = n + n / 10 + 1024;
	unsigned char *out = malloc(cap);

	memset(&z, 0, sizeof(z));
	assert_non_null(out);
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* pseudo-random lines of 0 to 299 bytes; about n bytes; the last line unterminated if open */
static char *content(size_t n, int open_end, size_t *len)
{
	char *p = malloc(n + 400);
	uint64_t s = 99;
	size_t i = 0;

	assert_non_null(p);
	while (i < n) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t l = (s >> 33) % 300;

		for (size_t k = 0; k < l; k++)
			p[i++] = (char)('a' + (s >> (k % 40)) % 26);
		p[i++] = '\n';
	}
	if (open_end) {
		memcpy(p + i, "{\"last\": 1}", 11);
		i += 11;
	}
	*len = i;
	return p;
}

struct got {
	char *buf;
	size_t n, cap;
	int lines;
};

/* Collects lines as "line\n". */
static void on_line(void *arg, const char *line, size_t len)
{
	struct got *g = arg;

	if (g->n + len + 1 > g->cap) {
		g->cap = (g->n + len + 1) * 2;
		g->buf = realloc(g->buf, g->cap);
		assert_non_null(g->buf);
	}
	memcpy(g->buf + g->n, line, len);
	g->n += len;
	g->buf[g->n++] = '\n';
	g->lines++;
}

/* The expectation: the complete lines of p[len - tail..len), each "line\n". */
static char *want_tail(const char *p, size_t len, size_t tail, size_t *n)
{
	size_t from = len > tail ? len - tail : 0;
	char *w = malloc(tail + 2);

	assert_non_null(w);
	if (from > 0 && p[from - 1] != '\n') {
		while (from < len && p[from] != '\n')
			from++;
		if (from < len)
			from++;
	}
	*n = 0;
	if (from < len) {
		memcpy(w, p + from, len - from);
		*n = len - from;
		if (p[len - 1] != '\n')
			w[(*n)++] = '\n';
	}
	return w;
}

static void check_tail(const char *path, const char *p, size_t len, size_t tail)
{
	struct got g = {0};
	size_t wn;
	char *w = want_tail(p, len, tail, &wn);

	assert_int_equal(gl_trace_tail(path, tail, on_line, &g), 0);
	assert_int_equal(g.n, wn);
	assert_true(wn == 0 || memcmp(g.buf, w, wn) == 0);
	free(g.buf);
	free(w);
}

/*
 * Reads path's content in pieces (gl_reader_next_chunk), each compared with
 * p at its place; *got: the bytes read, *pieces: how many. Returns the
 * final code (0 at the end, GL_EFORMAT for damage).
 */
static int read_pieces(const char *path, int no_check, const char *p, size_t len, size_t *got,
		       int *pieces)
{
	struct gl_reader *r;
	struct gl_err err;
	const char *q;
	size_t n;
	int rc;

	*got = 0;
	*pieces = 0;
	assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
	if (no_check)
		gl_reader_no_check(r);
	while ((rc = gl_reader_next_chunk(r, &q, &n, &err)) == 1) {
		assert_true(n > 0 && *got + n <= len);
		assert_memory_equal(q, p + *got, n);
		*got += n;
		(*pieces)++;
	}
	/* and after the end, nothing more */
	assert_int_equal(gl_reader_next_chunk(r, &q, &n, &err), 0);
	gl_reader_close(r);
	return rc;
}

/* Plain and gzip (one member, three members) give the same last lines for several tails. */
static void test_tail_plain_and_gzip(void **state)
{
	(void)state;
	static const size_t tails[] = {1, 300, 16 * 1024, 64 * 1024, 5u << 20};
	char path[512];

	for (int open_end = 0; open_end < 2; open_end++) {
		size_t len, zn, a, b, c;
		char *p = content(3u << 20, open_end, &len);
		unsigned char *z = gz(p, len, &zn);

		snprintf(path, sizeof(path), "%s/t.json", tmpdir);
		gl_test_write(path, p, len);
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
			check_tail(path, p, len, tails[i]);
		snprintf(path, sizeof(path), "%s/t.json.gz", tmpdir);
		gl_test_write(path, z, zn);
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
			check_tail(path, p, len, tails[i]);
		/* three members, cut mid-line: one content */
		unsigned char *z1 = gz(p, 1000001, &a);
		unsigned char *z2 = gz(p + 1000001, 17, &b);
		unsigned char *z3 = gz(p + 1000018, len - 1000018, &c);
		unsigned char *all = malloc(a + b + c);

		memcpy(all, z1, a);
		memcpy(all + a, z2, b);
		memcpy(all + a + b, z3, c);
		gl_test_write(path, all, a + b + c);
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
			check_tail(path, p, len, tails[i]);
		free(all);
		free(z1);
		free(z2);
		free(z3);
		free(z);
		free(p);
	}
}

/*
 * A gzip cut short: the pieces stop where the damage is (GL_EFORMAT), and
 * the tail is the complete lines before it (the line the cut runs through
 * is none).
 */
static void test_tail_damaged_gzip(void **state)
{
	(void)state;
	size_t len, zn, got;
	char *p = content(2u << 20, 0, &len);
	unsigned char *z = gz(p, len, &zn);
	char path[512];
	int pieces;

	snprintf(path, sizeof(path), "%s/cut.json.gz", tmpdir);
	gl_test_write(path, z, zn / 2);
	assert_int_equal(read_pieces(path, 0, p, len, &got, &pieces), GL_EFORMAT);
	assert_true(got > len / 4 && got < len);
	/* the content seen ends mid-line somewhere; the tail's lines end before */
	size_t end = got;

	while (end > 0 && p[end - 1] != '\n')
		end--;
	check_tail(path, p, end, 64 * 1024);
	free(z);
	free(p);
}

/*
 * gl_reader_no_check: a gzip whose CRC-32 is wrong is damaged to a
 * checked read (GL_EFORMAT at its end) and whole to an unchecked one; the
 * tail (unchecked) gives its last lines.
 */
static void test_no_check_skips_crc(void **state)
{
	(void)state;
	size_t len, zn, got;
	char *p = content(1u << 20, 0, &len);
	unsigned char *z = gz(p, len, &zn);
	char path[512];
	int pieces;

	z[zn - 8] ^= 0x55;	/* the trailer's CRC-32 */
	snprintf(path, sizeof(path), "%s/crc.json.gz", tmpdir);
	gl_test_write(path, z, zn);
	assert_int_equal(read_pieces(path, 0, p, len, &got, &pieces), GL_EFORMAT);
	assert_int_equal(read_pieces(path, 1, p, len, &got, &pieces), 0);
	assert_int_equal(got, len);
	check_tail(path, p, len, 64 * 1024);
	free(z);
	free(p);
}

/* The pieces of a plain and of a gzip file put together are the content. */
static void test_chunks_are_content(void **state)
{
	(void)state;
	size_t len, zn, got;
	char *p = content(3u << 20, 1, &len);
	unsigned char *z = gz(p, len, &zn);
	char path[512];
	int pieces;

	for (int g = 0; g < 2; g++) {
		snprintf(path, sizeof(path), "%s/c%d", tmpdir, g);
		if (g)
			gl_test_write(path, z, zn);
		else
			gl_test_write(path, p, len);
		assert_int_equal(read_pieces(path, 0, p, len, &got, &pieces), 0);
		assert_int_equal(got, len);
		assert_true(pieces >= 2);	/* in pieces of at most about 2 MiB */
	}
	free(z);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tail_plain_and_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tail_damaged_gzip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunks_are_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_check_skips_crc, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
