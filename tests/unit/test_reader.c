/*
 * test_reader.c - lib/ingest/reader.c: plain and gzip files as lines.
 *
 * Every input is written by the test into a fresh temp dir. gzip inputs are
 * made with zlib's deflate, or built by hand from stored blocks (RFC 1951
 * 3.2.4) when a test needs to know exactly which compressed byte carries
 * which content byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ingest/reader.h"
#include "util/hash.h"

static char tmpdir[256];

/* A growable byte buffer for building inputs. */
struct bytes {
	unsigned char *p;
	size_t n, cap;
};

static void bytes_add(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void bytes_str(struct bytes *b, const char *s)
{
	bytes_add(b, s, strlen(s));
}

static void bytes_free(struct bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static const char *tpath(const char *name)
{
	static char buf[2][512];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void write_file(const char *name, const void *p, size_t n)
{
	FILE *f = fopen(tpath(name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Appends one gzip member holding p[0..n) to out, compressed at level, with
 * the header fields of head (NULL: none). */
static void gzip_member_head(struct bytes *out, const void *p, size_t n, int level,
			     gz_header *head)
{
	z_stream zs;
	unsigned char chunk[65536];
	int zrc;

	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	if (head)
		assert_int_equal(deflateSetHeader(&zs, head), Z_OK);
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zrc = deflate(&zs, Z_FINISH);
		assert_true(zrc == Z_OK || zrc == Z_STREAM_END);
		bytes_add(out, chunk, sizeof(chunk) - zs.avail_out);
	} while (zrc != Z_STREAM_END);
	deflateEnd(&zs);
}

static void gzip_member(struct bytes *out, const void *p, size_t n, int level)
{
	gzip_member_head(out, p, n, level, NULL);
}

/* One line as the reader returned it, copied. */
struct got {
	char *p;
	struct gl_line l;
};

struct run {
	struct got *lines;
	size_t n;
	int rc;			/* what ended the run: 0 or a negative code */
	int after;		/* what the call after that returned */
	struct gl_err err;
	int gzip;
	uint64_t raw_end;	/* gl_reader_raw_offset at the end */
};

static void run_free(struct run *run)
{
	for (size_t i = 0; i < run->n; i++)
		free(run->lines[i].p);
	free(run->lines);
	memset(run, 0, sizeof(*run));
}

static void run_reader(struct gl_reader *r, struct run *run)
{
	struct gl_line l;
	int rc;

	memset(run, 0, sizeof(*run));
	run->gzip = gl_reader_is_gzip(r);
	while ((rc = gl_reader_next(r, &l, &run->err)) == 1) {
		struct got *g;

		/* doubling: one realloc per line copied the whole array every
		 * time under ASan (quadratic on the 100,000-line cases) */
		if ((run->n & (run->n - 1)) == 0) {
			run->lines = realloc(run->lines, (run->n ? 2 * run->n : 1) * sizeof(*run->lines));
			assert_non_null(run->lines);
		}
		g = &run->lines[run->n++];
		g->l = l;
		g->p = malloc(l.len + 1);
		assert_non_null(g->p);
		memcpy(g->p, l.p, l.len);
		g->p[l.len] = '\0';
		g->l.p = g->p;
	}
	run->rc = rc;
	run->after = gl_reader_next(r, &l, NULL);
	run->raw_end = gl_reader_raw_offset(r);
}

static void read_all(const char *name, struct run *run)
{
	struct gl_reader *r = NULL;
	struct gl_err err;

	assert_int_equal(gl_reader_open(&r, tpath(name), &err), GL_OK);
	assert_non_null(r);
	run_reader(r, run);
	gl_reader_close(r);
}

/* Checks line i against the raw bytes it came from: raw[0..full) at offset off. */
static void check_line(const struct run *run, size_t i, const char *text, const char *raw,
		       size_t full, uint64_t off, int terminated)
{
	const struct gl_line *l;

	assert_true(i < run->n);
	l = &run->lines[i].l;
	assert_int_equal(l->len, strlen(text));
	assert_memory_equal(l->p, text, l->len);
	assert_int_equal(l->full_len, full);
	assert_int_equal(l->offset, off);
	assert_int_equal(l->hash, gl_hash64(raw, full, 0));
	assert_int_equal(l->terminated, terminated);
	assert_int_equal(l->truncated, 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gl_test_reader.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	(void)state;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			remove(tpath(de->d_name));
	closedir(d);
	return rmdir(tmpdir);
}

static void test_plain(void **state)
{
	const char *data = "a\nbb\nccc\n";
	struct run run;

	(void)state;
	write_file("plain.log", data, strlen(data));
	read_all("plain.log", &run);
	assert_int_equal(run.gzip, 0);
	assert_int_equal(run.n, 3);
	check_line(&run, 0, "a", data, 2, 0, 1);
	check_line(&run, 1, "bb", data + 2, 3, 2, 1);
	check_line(&run, 2, "ccc", data + 5, 4, 5, 1);
	assert_int_equal(run.rc, 0);
	assert_int_equal(run.after, 0);
	assert_int_equal(run.raw_end, 9);
	run_free(&run);
}

static void test_crlf(void **state)
{
	/* Only one '\r' goes: "\r\r\n" is a line holding one '\r'. */
	const char *data = "one\r\ntwo\r\n\r\r\nthree\r";
	struct run run;

	(void)state;
	write_file("crlf.log", data, strlen(data));
	read_all("crlf.log", &run);
	assert_int_equal(run.n, 4);
	check_line(&run, 0, "one", data, 5, 0, 1);
	check_line(&run, 1, "two", data + 5, 5, 5, 1);
	check_line(&run, 2, "\r", data + 10, 3, 10, 1);
	check_line(&run, 3, "three", data + 13, 6, 13, 0);
	assert_int_equal(run.rc, 0);
	run_free(&run);
}

static void test_no_final_newline(void **state)
{
	const char *data = "x\nlast line";
	struct run run;

	(void)state;
	write_file("nofinal.log", data, strlen(data));
	read_all("nofinal.log", &run);
	assert_int_equal(run.n, 2);
	check_line(&run, 0, "x", data, 2, 0, 1);
	check_line(&run, 1, "last line", data + 2, 9, 2, 0);
	assert_int_equal(run.rc, 0);
	assert_int_equal(run.after, 0);
	run_free(&run);
}

static void test_empty_file(void **state)
{
	struct run run;

	(void)state;
	write_file("empty.log", "", 0);
	read_all("empty.log", &run);
	assert_int_equal(run.gzip, 0);
	assert_int_equal(run.n, 0);
	assert_int_equal(run.rc, 0);
	assert_int_equal(run.after, 0);
	run_free(&run);

	/* One byte: too short for the gzip magic, so plain. */
	write_file("onebyte.log", "\x1f", 1);
	read_all("onebyte.log", &run);
	assert_int_equal(run.gzip, 0);
	assert_int_equal(run.n, 1);
	check_line(&run, 0, "\x1f", "\x1f", 1, 0, 0);
	run_free(&run);
}

static void test_empty_lines(void **state)
{
	const char *data = "\n\nz\n\n";
	struct run run;

	(void)state;
	write_file("blank.log", data, strlen(data));
	read_all("blank.log", &run);
	assert_int_equal(run.n, 4);
	check_line(&run, 0, "", "\n", 1, 0, 1);
	check_line(&run, 1, "", "\n", 1, 1, 1);
	check_line(&run, 2, "z", "z\n", 2, 2, 1);
	check_line(&run, 3, "", "\n", 1, 4, 1);
	run_free(&run);
}

static void test_gzip_single(void **state)
{
	const char *data = "{\"level\": \"INFO\"}\nsecond\n";
	struct bytes gz = {0};
	struct run run;

	(void)state;
	gzip_member(&gz, data, strlen(data), 6);
	write_file("single.log.gz", gz.p, gz.n);
	read_all("single.log.gz", &run);
	assert_int_equal(run.gzip, 1);
	assert_int_equal(run.n, 2);
	check_line(&run, 0, "{\"level\": \"INFO\"}", data, 18, 0, 1);
	check_line(&run, 1, "second", data + 18, 7, 18, 1);
	assert_int_equal(run.rc, 0);
	assert_int_equal(run.raw_end, gz.n);
	run_free(&run);
	bytes_free(&gz);
}

static void test_gzip_multi_member(void **state)
{
	/* As `cat a.gz b.gz c.gz`, with a member boundary inside a line. */
	struct bytes gz = {0};
	struct run run;

	(void)state;
	gzip_member(&gz, "a1\na", 4, 6);
	gzip_member(&gz, "", 0, 6);
	gzip_member(&gz, "2\nb1\n", 5, 1);
	gzip_member(&gz, "c1", 2, 9);
	write_file("multi.gz", gz.p, gz.n);
	read_all("multi.gz", &run);
	assert_int_equal(run.n, 4);
	check_line(&run, 0, "a1", "a1\n", 3, 0, 1);
	check_line(&run, 1, "a2", "a2\n", 3, 3, 1);
	check_line(&run, 2, "b1", "b1\n", 3, 6, 1);
	/* The 4th member's line has no '\n': it ends the content. */
	check_line(&run, 3, "c1", "c1", 2, 9, 0);
	assert_int_equal(run.rc, 0);
	run_free(&run);

	gzip_member(&gz, "\n", 1, 6);
	write_file("multi2.gz", gz.p, gz.n);
	read_all("multi2.gz", &run);
	assert_int_equal(run.n, 4);
	check_line(&run, 3, "c1", "c1\n", 3, 9, 1);
	assert_int_equal(run.rc, 0);
	run_free(&run);
	bytes_free(&gz);
}

static void test_gzip_empty_content(void **state)
{
	struct bytes gz = {0};
	struct run run;

	(void)state;
	gzip_member(&gz, "", 0, 6);
	write_file("empty.gz", gz.p, gz.n);
	read_all("empty.gz", &run);
	assert_int_equal(run.gzip, 1);
	assert_int_equal(run.n, 0);
	assert_int_equal(run.rc, 0);
	assert_int_equal(run.after, 0);
	run_free(&run);
	bytes_free(&gz);
}

static void test_magic_not_name(void **state)
{
	const char *data = "gz content\n";
	struct bytes gz = {0};
	struct run run;

	(void)state;
	gzip_member(&gz, data, strlen(data), 6);
	write_file("really_gzip.log", gz.p, gz.n);
	read_all("really_gzip.log", &run);
	assert_int_equal(run.gzip, 1);
	assert_int_equal(run.n, 1);
	check_line(&run, 0, "gz content", data, 11, 0, 1);
	run_free(&run);

	write_file("really_plain.log.gz", data, strlen(data));
	read_all("really_plain.log.gz", &run);
	assert_int_equal(run.gzip, 0);
	assert_int_equal(run.n, 1);
	check_line(&run, 0, "gz content", data, 11, 0, 1);
	run_free(&run);
	bytes_free(&gz);
}

static void put_le(struct bytes *b, uint32_t v, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)(v >> (8 * i));

		bytes_add(b, &c, 1);
	}
}

/*
 * A gzip member built by hand: one stored block per line, so content byte j
 * of the whole text sits at a compressed offset known here. pos[j] receives
 * that offset for every content byte.
 */
static void gzip_stored(struct bytes *gz, const char *text, size_t n, size_t *pos)
{
	static const unsigned char hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	size_t j = 0;

	bytes_add(gz, hdr, sizeof(hdr));
	while (j < n) {
		const char *nl = memchr(text + j, '\n', n - j);
		size_t len = nl ? (size_t)(nl - (text + j)) + 1 : n - j;
		unsigned char bfinal = 0;

		bytes_add(gz, &bfinal, 1);
		put_le(gz, (uint32_t)len, 2);
		put_le(gz, (uint32_t)(~len & 0xffff), 2);
		for (size_t k = 0; k < len; k++)
			pos[j + k] = gz->n + k;
		bytes_add(gz, text + j, len);
		j += len;
	}
	bytes_add(gz, "\x01\x00\x00\xff\xff", 5);
	put_le(gz, (uint32_t)crc32(0, (const unsigned char *)text, (uInt)n), 4);
	put_le(gz, (uint32_t)n, 4);
}

static void make_text(struct bytes *b, int nlines, unsigned seed)
{
	char line[200];

	for (int i = 0; i < nlines; i++) {
		int k = snprintf(line, sizeof(line),
				 "{\"timestamp\": \"2025-11-16T14:%02d:%02d.%06uZ\", \"n\": %d, \"pad\": \"%.*s\"}\n",
				 i / 60 % 60, i % 60, (seed * 7919u + (unsigned)i * 104729u) % 1000000u,
				 i, (int)((seed + (unsigned)i * 31u) % 90u),
				 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");

		bytes_add(b, line, (size_t)k);
	}
}

/* Compares run's lines with the first n lines of text (all terminated). */
static void check_prefix(const struct run *run, const struct bytes *text, size_t n)
{
	size_t j = 0;

	assert_int_equal(run->n, n);
	for (size_t i = 0; i < n; i++) {
		const char *s = (const char *)text->p + j;
		const char *nl = memchr(s, '\n', text->n - j);
		size_t len = (size_t)(nl - s);

		assert_non_null(nl);
		assert_int_equal(run->lines[i].l.len, len);
		assert_memory_equal(run->lines[i].l.p, s, len);
		assert_int_equal(run->lines[i].l.offset, j);
		assert_int_equal(run->lines[i].l.hash, gl_hash64(s, len + 1, 0));
		j += len + 1;
	}
}

static void test_truncated_stored(void **state)
{
	struct bytes text = {0}, gz = {0};
	size_t *pos;
	const size_t cuts[] = {2, 9, 10, 11, 15, 16, 17, 400, 4001, 7777, 12345};
	struct run run;

	(void)state;
	make_text(&text, 200, 1);
	pos = malloc(text.n * sizeof(*pos));
	assert_non_null(pos);
	gzip_stored(&gz, (const char *)text.p, text.n, pos);

	write_file("stored_whole.gz", gz.p, gz.n);
	read_all("stored_whole.gz", &run);
	check_prefix(&run, &text, 200);
	assert_int_equal(run.rc, 0);
	run_free(&run);

	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		size_t k = cuts[c], expect = 0;

		assert_true(k < gz.n - 8);
		/* A line is whole when the compressed byte of its '\n' is before the cut. */
		for (size_t j = 0; j < text.n; j++)
			if (text.p[j] == '\n' && pos[j] < k)
				expect++;
		write_file("stored_cut.gz", gz.p, k);
		read_all("stored_cut.gz", &run);
		check_prefix(&run, &text, expect);
		assert_int_equal(run.rc, GL_EFORMAT);
		assert_int_equal(run.err.code, GL_EFORMAT);
		assert_string_equal(run.err.msg, "damaged gzip");
		assert_string_equal(run.err.cause, "unexpected end of file");
		assert_string_equal(run.err.path, tpath("stored_cut.gz"));
		assert_int_equal(run.err.line, k);
		assert_int_equal(run.after, 0);
		run_free(&run);
	}
	free(pos);
	bytes_free(&gz);
	bytes_free(&text);
}

/*
 * Real deflate data, cut exactly where a full flush ended: the lines flushed
 * before the cut are all there is to decode, so their count is exact.
 */
static void test_truncated_deflate(void **state)
{
	struct bytes text = {0}, gz = {0};
	size_t flush_end[600], nlines = 0, j = 0;
	unsigned char chunk[65536];
	z_stream zs;
	struct run run;

	(void)state;
	make_text(&text, 600, 2);
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	while (j < text.n) {
		const unsigned char *nl = memchr(text.p + j, '\n', text.n - j);
		size_t len = (size_t)(nl - (text.p + j)) + 1;

		zs.next_in = text.p + j;
		zs.avail_in = (uInt)len;
		do {
			zs.next_out = chunk;
			zs.avail_out = sizeof(chunk);
			assert_int_equal(deflate(&zs, Z_FULL_FLUSH), Z_OK);
			bytes_add(&gz, chunk, sizeof(chunk) - zs.avail_out);
		} while (zs.avail_out == 0);
		flush_end[nlines++] = gz.n;
		j += len;
	}
	zs.avail_in = 0;
	zs.next_out = chunk;
	zs.avail_out = sizeof(chunk);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	bytes_add(&gz, chunk, sizeof(chunk) - zs.avail_out);
	deflateEnd(&zs);

	for (size_t i = 0; i < nlines; i += 97) {
		write_file("deflate_cut.gz", gz.p, flush_end[i]);
		read_all("deflate_cut.gz", &run);
		check_prefix(&run, &text, i + 1);
		assert_int_equal(run.rc, GL_EFORMAT);
		assert_string_equal(run.err.cause, "unexpected end of file");
		assert_int_equal(run.err.line, flush_end[i]);
		run_free(&run);
	}
	/* Cut inside the 8-byte trailer: every line is there, the check is not. */
	write_file("deflate_cut.gz", gz.p, gz.n - 3);
	read_all("deflate_cut.gz", &run);
	check_prefix(&run, &text, nlines);
	assert_int_equal(run.rc, GL_EFORMAT);
	run_free(&run);
	/* Only the magic. */
	write_file("deflate_cut.gz", gz.p, 2);
	read_all("deflate_cut.gz", &run);
	assert_int_equal(run.gzip, 1);
	assert_int_equal(run.n, 0);
	assert_int_equal(run.rc, GL_EFORMAT);
	run_free(&run);
	bytes_free(&gz);
	bytes_free(&text);
}

static void test_corrupt(void **state)
{
	struct bytes text = {0}, gz = {0};
	struct run run;

	(void)state;
	make_text(&text, 300, 3);
	gzip_member(&gz, text.p, text.n, 6);

	/* Bad CRC: the data decodes whole, the trailer says it is wrong. */
	gz.p[gz.n - 8] ^= 0x55;
	write_file("badcrc.gz", gz.p, gz.n);
	read_all("badcrc.gz", &run);
	check_prefix(&run, &text, 300);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.msg, "damaged gzip");
	assert_string_equal(run.err.cause, "incorrect data check");
	assert_true(run.err.line > 0 && run.err.line <= gz.n);
	assert_int_equal(run.after, 0);
	run_free(&run);
	gz.p[gz.n - 8] ^= 0x55;

	/* Bad length in the trailer. */
	gz.p[gz.n - 1] ^= 0x01;
	write_file("badlen.gz", gz.p, gz.n);
	read_all("badlen.gz", &run);
	check_prefix(&run, &text, 300);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.cause, "incorrect length check");
	run_free(&run);
	gz.p[gz.n - 1] ^= 0x01;

	/* Bad deflate data: whatever decodes first, it ends in GL_EFORMAT. */
	memset(gz.p + 10, 0xff, 16);
	write_file("baddata.gz", gz.p, gz.n);
	read_all("baddata.gz", &run);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.msg, "damaged gzip");
	assert_true(run.err.cause[0] != '\0');
	assert_int_equal(run.after, 0);
	run_free(&run);
	bytes_free(&gz);
	bytes_free(&text);
}

static void test_zero_padding(void **state)
{
	struct bytes text = {0}, gz = {0};
	unsigned char *zeros = calloc(300000, 1);
	struct run run;

	(void)state;
	assert_non_null(zeros);
	make_text(&text, 50, 4);
	gzip_member(&gz, text.p, text.n, 6);
	bytes_add(&gz, zeros, 512);
	write_file("pad.gz", gz.p, gz.n);
	read_all("pad.gz", &run);
	check_prefix(&run, &text, 50);
	assert_int_equal(run.rc, 0);
	run_free(&run);

	/* Padding longer than one read block. */
	bytes_add(&gz, zeros, 300000);
	write_file("pad_long.gz", gz.p, gz.n);
	read_all("pad_long.gz", &run);
	check_prefix(&run, &text, 50);
	assert_int_equal(run.rc, 0);
	run_free(&run);
	free(zeros);
	bytes_free(&gz);
	bytes_free(&text);
}

static void test_trailing_garbage(void **state)
{
	const char *data = "first\nsecond";
	struct bytes gz = {0};
	size_t member;
	struct run run;

	(void)state;
	gzip_member(&gz, data, strlen(data), 6);
	member = gz.n;
	bytes_str(&gz, "garbage after the member\n");
	write_file("garbage.gz", gz.p, gz.n);
	read_all("garbage.gz", &run);
	/* The content before the garbage is whole: its last line is returned too. */
	assert_int_equal(run.n, 2);
	check_line(&run, 0, "first", data, 6, 0, 1);
	check_line(&run, 1, "second", data + 6, 6, 6, 0);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.msg, "damaged gzip");
	assert_string_equal(run.err.cause, "trailing garbage after gzip data");
	assert_int_equal(run.err.line, member);
	assert_int_equal(run.after, 0);
	run_free(&run);

	/* Zeros, then something else: garbage at the first non-zero byte. */
	gz.n = member;
	bytes_add(&gz, "\0\0\0\0", 4);
	bytes_add(&gz, "\x1f\x8b", 2);
	write_file("garbage2.gz", gz.p, gz.n);
	read_all("garbage2.gz", &run);
	assert_int_equal(run.n, 2);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_int_equal(run.err.line, member + 4);
	run_free(&run);

	/* A lone 1f after the member is not a member. */
	gz.n = member;
	bytes_add(&gz, "\x1f", 1);
	write_file("garbage3.gz", gz.p, gz.n);
	read_all("garbage3.gz", &run);
	assert_int_equal(run.n, 2);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.cause, "trailing garbage after gzip data");
	run_free(&run);
	bytes_free(&gz);
}

/* Bytes of a long line that are not all alike, so a dropped byte changes the hash. */
static void fill_pattern(char *p, size_t n, unsigned seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (char)('A' + (x >> 16) % 26);
	}
}

static void check_long(const struct run *run, size_t i, const char *full, size_t full_len,
		       uint64_t off, int terminated)
{
	const struct gl_line *l = &run->lines[i].l;

	assert_int_equal(l->truncated, 1);
	assert_int_equal(l->len, GL_LINE_MAX);
	assert_memory_equal(l->p, full, GL_LINE_MAX);
	assert_int_equal(l->full_len, full_len);
	assert_int_equal(l->offset, off);
	assert_int_equal(l->terminated, terminated);
	assert_int_equal(l->hash, gl_hash64(full, full_len, 0));
}

static void test_huge_line(void **state)
{
	size_t big = (size_t)5 << 20;
	struct bytes data = {0}, gz = {0};
	char *line = malloc(big);
	struct run run;

	(void)state;
	assert_non_null(line);
	fill_pattern(line, big, 5);
	bytes_str(&data, "before\n");
	bytes_add(&data, line, big);
	bytes_str(&data, "\nafter\n");
	/* A huge final line without '\n'. */
	bytes_add(&data, line, big - 3);

	write_file("huge.log", data.p, data.n);
	gzip_member(&gz, data.p, data.n, 1);
	write_file("huge.gz", gz.p, gz.n);
	for (int g = 0; g < 2; g++) {
		read_all(g ? "huge.gz" : "huge.log", &run);
		assert_int_equal(run.gzip, g);
		assert_int_equal(run.n, 4);
		check_line(&run, 0, "before", "before\n", 7, 0, 1);
		/* The whole line with its '\n' sits at data.p + 7. */
		check_long(&run, 1, (const char *)data.p + 7, big + 1, 7, 1);
		check_line(&run, 2, "after", "after\n", 6, 7 + big + 1, 1);
		check_long(&run, 3, line, big - 3, 7 + big + 1 + 6, 0);
		assert_int_equal(run.rc, 0);
		assert_int_equal(run.raw_end, g ? gz.n : data.n);
		run_free(&run);
	}
	free(line);
	bytes_free(&data);
	bytes_free(&gz);
}

static void test_line_max_edges(void **state)
{
	size_t m = GL_LINE_MAX;
	struct bytes data = {0};
	char *line = malloc(m + 1);
	struct run run;

	(void)state;
	assert_non_null(line);
	fill_pattern(line, m + 1, 6);
	bytes_add(&data, line, m);		/* exactly GL_LINE_MAX: whole */
	bytes_str(&data, "\n");
	bytes_add(&data, line, m);		/* GL_LINE_MAX and a '\r': whole */
	bytes_str(&data, "\r\n");
	bytes_add(&data, line, m + 1);		/* one byte more: cut */
	bytes_str(&data, "\n");
	write_file("edges.log", data.p, data.n);
	read_all("edges.log", &run);
	assert_int_equal(run.n, 3);
	for (size_t i = 0; i < 2; i++) {
		const struct gl_line *l = &run.lines[i].l;

		assert_int_equal(l->truncated, 0);
		assert_int_equal(l->len, m);
		assert_memory_equal(l->p, line, m);
		assert_int_equal(l->full_len, m + 1 + i);
	}
	assert_int_equal(run.lines[1].l.hash, gl_hash64(data.p + m + 1, m + 2, 0));
	check_long(&run, 2, (const char *)data.p + 2 * m + 3, m + 2, 2 * m + 3, 1);
	assert_int_equal(run.rc, 0);
	run_free(&run);
	free(line);
	bytes_free(&data);
}

/*
 * The first inflate of a gzip file adds 64 KiB, each next one twice as much
 * up to the whole buffer. Lines of many lengths, ending at and around the
 * first fills' ends (64 KiB, then 128, 256, 512 KiB and 1 MiB more behind a
 * moved partial line), a line of exactly GL_LINE_MAX and one cut at
 * GL_LINE_MAX + 1 among them: each line is checked against the text itself
 * (its bytes, offset, length and hash), and the gzip run gives what the
 * plain file gives.
 */
static void test_gzip_fill_ramp(void **state)
{
	const size_t m = GL_LINE_MAX;
	struct bytes text = {0}, gz = {0};
	char *line = malloc(m + 2);
	uint32_t x = 12345;
	struct run run, plain;
	size_t off = 0, k = 0;

	(void)state;
	assert_non_null(line);
	fill_pattern(line, m + 2, 9);
	/* lines ending 1 byte before, at and 1 byte after each power of two
	 * from 4 KiB to 2 MiB of the text, then lines of random lengths */
	for (size_t edge = 4096; edge <= ((size_t)2 << 20); edge *= 2)
		for (int d = -1; d <= 1; d++) {
			size_t end = edge + (size_t)(d + 1), len;

			if (end <= text.n + 1)
				continue;
			len = end - text.n - 1;
			bytes_add(&text, line, len);
			bytes_str(&text, "\n");
		}
	bytes_add(&text, line, m);	/* exactly GL_LINE_MAX: whole */
	bytes_str(&text, "\n");
	bytes_add(&text, line, m + 1);	/* one byte more: cut */
	bytes_str(&text, "\n");
	for (int i = 0; i < 300; i++) {
		x = x * 1103515245u + 12345u;
		bytes_add(&text, line, (x >> 8) % (i % 7 ? 3000 : 90000));
		bytes_str(&text, "\n");
	}
	gzip_member(&gz, text.p, text.n, 1);
	write_file("ramp.gz", gz.p, gz.n);
	write_file("ramp.log", text.p, text.n);
	read_all("ramp.gz", &run);
	read_all("ramp.log", &plain);
	assert_int_equal(run.gzip, 1);
	assert_int_equal(run.rc, 0);
	for (k = 0; k < run.n; k++) {
		const struct gl_line *l = &run.lines[k].l;
		const char *at = (const char *)text.p + off;
		const char *nl = memchr(at, '\n', text.n - off);
		size_t full;

		assert_non_null(nl);
		full = (size_t)(nl - at) + 1;
		assert_int_equal(l->offset, off);
		assert_int_equal(l->full_len, full);
		assert_int_equal(l->truncated, full - 1 > m);
		assert_int_equal(l->len, full - 1 > m ? m : full - 1);
		assert_memory_equal(l->p, at, l->len);
		assert_int_equal(l->hash, gl_hash64(at, full, 0));
		assert_int_equal(l->terminated, 1);
		/* the same as the plain file's line */
		assert_true(k < plain.n);
		assert_int_equal(plain.lines[k].l.offset, l->offset);
		assert_int_equal(plain.lines[k].l.full_len, l->full_len);
		assert_int_equal(plain.lines[k].l.hash, l->hash);
		off += full;
	}
	assert_int_equal(off, text.n);
	assert_int_equal(plain.n, run.n);
	run_free(&run);
	run_free(&plain);
	free(line);
	bytes_free(&gz);
	bytes_free(&text);
}

/*
 * One gzip member of p[0..n) with every optional header field (RFC 1952:
 * FEXTRA of xlen bytes, FNAME, FCOMMENT, FHCRC), as gzip(1) -N, bgzip and
 * others write them; level 0 makes its size n + a constant + xlen.
 */
static void gzip_member_fields(struct bytes *out, const void *p, size_t n, size_t xlen)
{
	static unsigned char extra[65535];	/* XLEN's largest */
	gz_header head;

	assert_true(xlen <= sizeof(extra));
	memset(&head, 0, sizeof(head));
	memset(extra, 'x', sizeof(extra));
	head.extra = extra;
	head.extra_len = (uInt)xlen;
	head.name = (Bytef *)"gpu.log";
	head.comment = (Bytef *)"rotated by logrotate";
	head.hcrc = 1;
	head.os = 3;
	gzip_member_head(out, p, n, 0, &head);
}

/*
 * Members whose headers carry every optional field, the second one's header
 * placed across each byte of a read boundary of the reader (its first read
 * is 16 KiB, the next ones 256 KiB: a boundary at 278,528), and cut in a
 * member boundary inside a line: the content is whole every time.
 */
static void test_gzip_header_fields(void **state)
{
	const size_t boundary = ((size_t)16 << 10) + ((size_t)256 << 10);
	struct bytes text = {0}, gz = {0};
	size_t split, s0, hlen;
	struct run run;

	(void)state;
	make_text(&text, 2600, 5);
	assert_true(text.n > boundary);
	split = 270000 + 17;	/* inside a line */
	gzip_member_fields(&gz, text.p, split, 0);
	s0 = gz.n;
	gz.n = 0;
	gzip_member_fields(&gz, text.p + split, text.n - split, 6);
	/* the second header: 10 + 2 + 6 + "gpu.log\0" + comment + '\0' + 2 */
	hlen = 10 + 2 + 6 + 8 + strlen("rotated by logrotate") + 1 + 2;
	assert_true(s0 + hlen + 2 < boundary);
	for (size_t at = boundary - hlen - 1; at <= boundary + 1; at++) {
		gz.n = 0;
		gzip_member_fields(&gz, text.p, split, at - s0);
		assert_int_equal(gz.n, at);
		gzip_member_fields(&gz, text.p + split, text.n - split, 6);
		write_file("fields.gz", gz.p, gz.n);
		read_all("fields.gz", &run);
		check_prefix(&run, &text, 2600);
		assert_int_equal(run.rc, 0);
		assert_int_equal(run.raw_end, gz.n);
		run_free(&run);
	}
	/* A wrong header CRC is damage, in zlib's words; a reader told not to
	 * check the trailer still stops there (and does not spin). */
	gz.n = 0;
	gzip_member_fields(&gz, text.p, text.n, 0);
	hlen = 10 + 2 + 0 + 8 + strlen("rotated by logrotate") + 1 + 2;
	gz.p[hlen - 1] ^= 0x5a;	/* the header CRC's high byte */
	write_file("fields.gz", gz.p, gz.n);
	read_all("fields.gz", &run);
	assert_int_equal(run.n, 0);
	assert_int_equal(run.rc, GL_EFORMAT);
	assert_string_equal(run.err.msg, "damaged gzip");
	assert_string_equal(run.err.cause, "header crc mismatch");
	run_free(&run);
	{
		struct gl_reader *r = NULL;
		struct gl_line l;
		struct gl_err err;

		assert_int_equal(gl_reader_open(&r, tpath("fields.gz"), &err), GL_OK);
		gl_reader_no_check(r);
		assert_int_equal(gl_reader_next(r, &l, &err), GL_EFORMAT);
		assert_string_equal(err.cause, "header crc mismatch");
		gl_reader_close(r);
	}
	bytes_free(&gz);
	bytes_free(&text);
}

/* Many lines across many buffer refills: every one comes back, in order. */
static void test_large_multi(void **state)
{
	struct bytes text = {0}, gz = {0};
	size_t step, j = 0;
	struct run run;

	(void)state;
	make_text(&text, 60000, 7);
	step = text.n / 5 + 13;
	for (j = 0; j < text.n; j += step)
		gzip_member(&gz, text.p + j, j + step < text.n ? step : text.n - j, 6);
	write_file("large.gz", gz.p, gz.n);
	write_file("large.log", text.p, text.n);
	read_all("large.gz", &run);
	check_prefix(&run, &text, 60000);
	assert_int_equal(run.rc, 0);
	run_free(&run);
	read_all("large.log", &run);
	check_prefix(&run, &text, 60000);
	assert_int_equal(run.rc, 0);
	run_free(&run);
	bytes_free(&gz);
	bytes_free(&text);
}

static void seek_case(const char *name, const struct bytes *text)
{
	struct gl_reader *r = NULL;
	struct gl_line l;
	struct gl_err err;
	uint64_t off5 = 0, off_last = 0;
	size_t j = 0, i = 0;

	/* Line offsets computed from the text itself. */
	for (j = 0; j < text->n; j++) {
		if (text->p[j] != '\n')
			continue;
		i++;
		if (i == 5)
			off5 = j + 1;
		if (j + 1 < text->n)
			off_last = j + 1;
	}
	assert_int_equal(gl_reader_open(&r, tpath(name), &err), GL_OK);
	assert_int_equal(gl_reader_seek(r, off5, &err), GL_OK);
	assert_int_equal(gl_reader_next(r, &l, &err), 1);
	assert_int_equal(l.offset, off5);
	assert_memory_equal(l.p, text->p + off5, l.len);
	/* Backwards: a gzip reader starts over. */
	assert_int_equal(gl_reader_seek(r, 0, &err), GL_OK);
	assert_int_equal(gl_reader_next(r, &l, &err), 1);
	assert_int_equal(l.offset, 0);
	assert_memory_equal(l.p, text->p, l.len);
	assert_int_equal(gl_reader_seek(r, off_last, &err), GL_OK);
	assert_int_equal(gl_reader_next(r, &l, &err), 1);
	assert_int_equal(l.offset, off_last);
	assert_int_equal(l.full_len, text->n - off_last);
	assert_int_equal(gl_reader_next(r, &l, &err), 0);
	/* At the very end: nothing more. */
	assert_int_equal(gl_reader_seek(r, text->n, &err), GL_OK);
	assert_int_equal(gl_reader_next(r, &l, &err), 0);
	/* Past the end: refused. */
	assert_int_equal(gl_reader_seek(r, text->n + 100, &err), GL_EFORMAT);
	assert_int_equal(gl_reader_rewind(r, &err), GL_OK);
	for (i = 0; gl_reader_next(r, &l, &err) == 1; i++)
		;
	assert_int_equal(i, 3000);
	gl_reader_close(r);
}

static void test_seek_rewind(void **state)
{
	struct bytes text = {0}, gz = {0};

	(void)state;
	make_text(&text, 3000, 8);
	gzip_member(&gz, text.p, text.n, 6);
	write_file("seek.log", text.p, text.n);
	write_file("seek.gz", gz.p, gz.n);
	seek_case("seek.log", &text);
	seek_case("seek.gz", &text);
	bytes_free(&gz);
	bytes_free(&text);
}

static void test_seek_damaged(void **state)
{
	struct bytes text = {0}, gz = {0};
	struct gl_reader *r = NULL;
	struct gl_err err;

	(void)state;
	make_text(&text, 3000, 9);
	gzip_member(&gz, text.p, text.n, 6);
	write_file("seekcut.gz", gz.p, gz.n / 2);
	assert_int_equal(gl_reader_open(&r, tpath("seekcut.gz"), &err), GL_OK);
	assert_int_equal(gl_reader_seek(r, text.n - 10, &err), GL_EFORMAT);
	assert_string_equal(err.cause, "unexpected end of file");
	gl_reader_close(r);
	bytes_free(&gz);
	bytes_free(&text);
}

static void test_missing(void **state)
{
	struct gl_reader *r = (struct gl_reader *)&r;
	struct gl_err err;
	const char *p = tpath("no_such_file.log");

	(void)state;
	assert_int_equal(gl_reader_open(&r, p, &err), GL_EIO);
	assert_null(r);
	assert_int_equal(err.code, GL_EIO);
	assert_string_equal(err.path, p);
	assert_string_equal(err.msg, "cannot open");
	assert_string_equal(err.cause, strerror(ENOENT));
}

static void test_unreadable(void **state)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
	const char *p;

	(void)state;
	write_file("noperm.log", "secret\n", 7);
	assert_int_equal(chmod(tpath("noperm.log"), 0), 0);
	if (geteuid() == 0) {
		/* root reads it anyway; nothing to check here. */
		skip();
		return;
	}
	p = tpath("noperm.log");
	assert_int_equal(gl_reader_open(&r, p, &err), GL_EIO);
	assert_null(r);
	assert_string_equal(err.path, p);
	assert_string_equal(err.cause, strerror(EACCES));
}

static void test_directory(void **state)
{
	struct gl_reader *r = NULL;
	struct gl_err err;

	(void)state;
	assert_int_equal(gl_reader_open(&r, tmpdir, &err), GL_EIO);
	assert_null(r);
	assert_string_equal(err.path, tmpdir);
	assert_string_equal(err.cause, strerror(EISDIR));
	gl_reader_close(NULL);
}

/*
 * Every real sample file, read by the reader and by zlib's gzread (which
 * passes plain files through and inflates gzip ones, the Kineto traces):
 * the same lines, lengths and hashes. Returns the number of files checked under dir.
 */
static int check_real_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int nfiles = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char path[2048];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			nfiles += check_real_tree(path);
		} else if (S_ISREG(st.st_mode)) {
			gzFile f = gzopen(path, "rb");
			struct gl_reader *r = NULL;
			struct gl_line l;
			struct gl_err err;
			struct bytes raw = {0};
			static char buf[1 << 16];
			int got, rc;

			assert_non_null(f);
			assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
			/* whole buffers, lines found with memchr: a byte at a time
			 * took minutes on the 30 MB traces under the sanitizers */
			while ((got = gzread(f, buf, sizeof(buf))) > 0) {
				const char *p = buf, *end = buf + got, *nl;

				while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
					bytes_add(&raw, p, (size_t)(nl - p) + 1);
					assert_int_equal(gl_reader_next(r, &l, &err), 1);
					assert_int_equal(l.full_len, raw.n);
					assert_int_equal(l.hash, gl_hash64(raw.p, raw.n, 0));
					raw.n = 0;
					p = nl + 1;
				}
				bytes_add(&raw, p, (size_t)(end - p));
			}
			assert_true(got == 0);
			if (raw.n) {
				assert_int_equal(gl_reader_next(r, &l, &err), 1);
				assert_int_equal(l.terminated, 0);
				assert_int_equal(l.full_len, raw.n);
			}
			rc = gl_reader_next(r, &l, &err);
			assert_int_equal(rc, 0);
			assert_int_equal(gl_reader_raw_offset(r), (uint64_t)st.st_size);
			gl_reader_close(r);
			gzclose(f);
			bytes_free(&raw);
			nfiles++;
		}
	}
	closedir(d);
	return nfiles;
}

static void test_realdata(void **state)
{
	const char *dir = getenv("GL_REALDATA");
	struct stat st;

	(void)state;
	if (!dir || !*dir)
		dir = "../shared/realdata";
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		skip();
		return;
	}
	assert_true(check_real_tree(dir) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_empty_lines),
		cmocka_unit_test(test_gzip_single),
		cmocka_unit_test(test_gzip_multi_member),
		cmocka_unit_test(test_gzip_empty_content),
		cmocka_unit_test(test_gzip_header_fields),
		cmocka_unit_test(test_magic_not_name),
		cmocka_unit_test(test_truncated_stored),
		cmocka_unit_test(test_truncated_deflate),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_zero_padding),
		cmocka_unit_test(test_trailing_garbage),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_line_max_edges),
		cmocka_unit_test(test_gzip_fill_ramp),
		cmocka_unit_test(test_large_multi),
		cmocka_unit_test(test_seek_rewind),
		cmocka_unit_test(test_seek_damaged),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_realdata),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
