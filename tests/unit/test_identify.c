/*
 * Tests for lib/ingest/identify.c: positions along a stream
 * (gl_pos_advance), the cheap fingerprint decisions (gl_file_same,
 * gl_file_complete, gl_file_grew) and the content walk that says which
 * known stream a file continues (gl_job_identify), on files written to a
 * scratch directory and states built by hand.
 *
 * Expected hashes are computed here from the bytes the test wrote:
 * a line's hash is gl_hash64(line with its '\n', seed 0), a position's hash
 * the gl_hash_chain of its lines from 0, a raw fingerprint gl_hash64(raw
 * bytes, seed 11).
 */
#include <setjmp.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/identify.h"
#include "util/hash.h"
#include "support/gz_write.h"
#include "support/tmpdir.h"

/* --- helpers --------------------------------------------------------- */

static uint64_t line_hash(const char *s)
{
	size_t n = strlen(s);
	char *buf = malloc(n + 1);
	uint64_t h;

	assert_non_null(buf);
	memcpy(buf, s, n);
	buf[n] = '\n';
	h = gl_hash64(buf, n + 1, 0);
	free(buf);
	return h;
}

/* The position after the first k of lines[]. */
static struct gl_pos pos_after(const char *const *lines, size_t k)
{
	struct gl_pos p = {0, 0, 0};

	for (size_t i = 0; i < k; i++) {
		p.bytes += strlen(lines[i]) + 1;
		p.lines++;
		p.hash = gl_hash_chain(p.hash, line_hash(lines[i]));
	}
	return p;
}

/* lines[0..n) joined, each followed by '\n'; the caller frees. */
static char *join(const char *const *lines, size_t n, size_t *len)
{
	size_t total = 0, at = 0;
	char *buf;

	for (size_t i = 0; i < n; i++)
		total += strlen(lines[i]) + 1;
	buf = malloc(total + 1);
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(lines[i]);

		memcpy(buf + at, lines[i], l);
		buf[at + l] = '\n';
		at += l + 1;
	}
	buf[at] = '\0';
	*len = total;
	return buf;
}

static void write_lines(const char *path, const char *const *lines, size_t n)
{
	size_t len;
	char *buf = join(lines, n, &len);

	gl_test_write(path, buf, len);
	free(buf);
}

static void found_of(const char *path, struct gl_found *f)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	f->path = (char *)(uintptr_t)path;
	f->dev = (int64_t)sb.st_dev;
	f->ino = (int64_t)sb.st_ino;
	f->size = (int64_t)sb.st_size;
	f->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
}

/* gl_hash64 of raw bytes [off, off + n) of path, seed 11, read here. */
static uint64_t raw_hash(const char *path, size_t off, size_t n)
{
	size_t len;
	unsigned char *buf = gl_test_read(path, &len);
	uint64_t h;

	assert_true(off + n <= len);
	h = gl_hash64(buf + off, n, 11);
	free(buf);
	return h;
}

/* Sets path's modification time (and access time) to sec.nsec. */
static void set_mtime(const char *path, int64_t mtime_ns)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = (time_t)(mtime_ns / 1000000000LL);
	ts[0].tv_nsec = ts[1].tv_nsec = (long)(mtime_ns % 1000000000LL);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* Overwrites the byte at off of path with c, keeping the size. */
static void poke(const char *path, size_t off, char c)
{
	size_t len;
	unsigned char *buf = gl_test_read(path, &len);

	assert_true(off < len);
	buf[off] = (unsigned char)c;
	gl_test_write(path, buf, len);
	free(buf);
}

/* A file state row for path as it is now, as read up to `consumed`. */
static void sfile_of(const char *path, struct gl_sfile *k, int64_t stream_id, uint64_t consumed)
{
	struct gl_found f;
	size_t n;

	found_of(path, &f);
	memset(k, 0, sizeof(*k));
	k->id = 1;
	k->path = (char *)(uintptr_t)path;
	k->dev = f.dev;
	k->ino = f.ino;
	k->size = f.size;
	k->mtime_ns = f.mtime_ns;
	n = (size_t)f.size < GL_HEAD_BYTES ? (size_t)f.size : GL_HEAD_BYTES;
	k->raw_head_hash = raw_hash(path, 0, n);
	k->stream_id = stream_id;
	k->consumed = consumed;
	n = consumed < GL_HEAD_BYTES ? (size_t)consumed : GL_HEAD_BYTES;
	k->has_tail = 1;
	k->tail_hash = raw_hash(path, (size_t)consumed - n, n);
	snprintf(k->status, sizeof(k->status), "read");
}

/* "row 0001 of the stream ...": distinct lines of a known length. */
static char *numbered(size_t i, size_t width)
{
	char *s = malloc(width + 1);

	assert_non_null(s);
	snprintf(s, width + 1, "row %04zu ", i);
	for (size_t k = strlen(s); k < width; k++)
		s[k] = (char)('a' + (i + k) % 26);
	s[width] = '\0';
	return s;
}

static void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* --- gl_pos_advance ---------------------------------------------------- */

static void test_pos_advance_by_hand(void **state)
{
	struct gl_pos p = {10, 2, 0x1234};
	struct gl_line ln;

	(void)state;
	memset(&ln, 0, sizeof(ln));
	ln.p = "abc";
	ln.len = 3;
	ln.full_len = 5;	/* "abc\r\n": the '\r' is not in p but counts */
	ln.hash = gl_hash64("abc\r\n", 5, 0);
	gl_pos_advance(&p, &ln);
	assert_int_equal(p.bytes, 15);
	assert_int_equal(p.lines, 3);
	assert_true(p.hash == gl_hash_chain(0x1234, gl_hash64("abc\r\n", 5, 0)));
}

/* Positions from the reader's lines equal the chain computed from the bytes. */
static void test_pos_advance_reader(void **state)
{
	static const char *const lines[] = {"first line", "", "third, longer line of text", "x"};
	char dir[256], path[300];
	struct gl_reader *r = NULL;
	struct gl_err e;
	struct gl_line ln;
	struct gl_pos p = {0, 0, 0};
	size_t n = 0;

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "ident");
	snprintf(path, sizeof(path), "%s/a.log", dir);
	write_lines(path, lines, 4);
	assert_int_equal(gl_reader_open(&r, path, &e), GL_OK);
	while (gl_reader_next(r, &ln, &e) == 1) {
		struct gl_pos want = pos_after(lines, n + 1);

		gl_pos_advance(&p, &ln);
		n++;
		assert_int_equal(p.bytes, want.bytes);
		assert_int_equal(p.lines, n);
		assert_true(p.hash == want.hash);
	}
	assert_int_equal(n, 4);
	/* 10+1 + 0+1 + 26+1 + 1+1 bytes */
	assert_int_equal(p.bytes, 41);
	gl_reader_close(r);
	gl_test_rmtree(dir);
}

/* --- gl_file_same ------------------------------------------------------ */

static void test_file_same(void **state)
{
	char dir[256], path[300];
	char *big = malloc(6000);
	struct gl_sfile k;
	struct gl_found f, g;

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < 6000; i++)
		big[i] = i % 61 == 60 ? '\n' : (char)('A' + i % 23);
	gl_test_mkdtemp(dir, sizeof(dir), "ident");
	snprintf(path, sizeof(path), "%s/a.log", dir);
	gl_test_write(path, big, 6000);
	set_mtime(path, 1700000000LL * 1000000000LL + 5);
	sfile_of(path, &k, 0, 6000);
	found_of(path, &f);
	assert_int_equal(gl_file_same(&k, &f), 1);

	g = f;
	g.size++;
	assert_int_equal(gl_file_same(&k, &g), 0);
	g = f;
	g.mtime_ns++;
	assert_int_equal(gl_file_same(&k, &g), 0);
	g = f;
	g.ino++;
	assert_int_equal(gl_file_same(&k, &g), 0);
	g = f;
	g.dev++;
	assert_int_equal(gl_file_same(&k, &g), 0);

	/* A byte past the first 4 KiB is not looked at. */
	poke(path, 5000, '#');
	set_mtime(path, 1700000000LL * 1000000000LL + 5);
	found_of(path, &g);
	assert_int_equal(g.ino, f.ino);
	assert_int_equal(gl_file_same(&k, &g), 1);
	/* One inside it is, with size, inode and mtime unchanged. */
	poke(path, 4095, '#');
	set_mtime(path, 1700000000LL * 1000000000LL + 5);
	found_of(path, &g);
	assert_int_equal(g.size, f.size);
	assert_int_equal(g.mtime_ns, f.mtime_ns);
	assert_int_equal(gl_file_same(&k, &g), 0);

	/* A file shorter than 4 KiB: all of it is the fingerprint. */
	gl_test_write(path, "short\n", 6);
	set_mtime(path, 1600000000LL * 1000000000LL);
	sfile_of(path, &k, 0, 6);
	found_of(path, &f);
	assert_int_equal(gl_file_same(&k, &f), 1);
	gl_test_write(path, "shorT\n", 6);
	set_mtime(path, 1600000000LL * 1000000000LL);
	found_of(path, &g);
	assert_int_equal(gl_file_same(&k, &g), 0);

	/* Gone: not the same. */
	unlink(path);
	assert_int_equal(gl_file_same(&k, &f), 0);
	free(big);
	gl_test_rmtree(dir);
}

/* --- gl_file_complete -------------------------------------------------- */

static int complete(const char *status, int gzip, uint64_t consumed, int64_t size)
{
	struct gl_sfile k;

	memset(&k, 0, sizeof(k));
	snprintf(k.status, sizeof(k.status), "%s", status);
	k.gzip = gzip;
	k.consumed = consumed;
	k.size = size;
	return gl_file_complete(&k);
}

static void test_file_complete(void **state)
{
	(void)state;
	assert_int_equal(complete("partial", 0, 100, 100), 0);
	assert_int_equal(complete("partial", 1, 900, 100), 0);
	/* plain: its last line held back */
	assert_int_equal(complete("read", 0, 90, 100), 0);
	assert_int_equal(complete("read", 0, 100, 100), 1);
	/* gzip: consumed counts decompressed bytes, size compressed ones */
	assert_int_equal(complete("read", 1, 90, 100), 1);
	assert_int_equal(complete("read", 1, 900, 100), 1);
	assert_int_equal(complete("skipped", 0, 0, 100), 1);
	assert_int_equal(complete("copy", 0, 10, 100), 1);
	assert_int_equal(complete("empty", 0, 0, 100), 1);
	assert_int_equal(complete("damaged", 0, 10, 100), 1);
}

/* --- gl_file_grew ------------------------------------------------------ */

struct grew_fix {
	char dir[256], path[300];
	struct gl_state s;
	struct gl_sfile k;
	uint64_t consumed;
	int32_t si;
};

/* A plain file of `size` bytes read to its end, as stream id 7. */
static void grew_setup(struct grew_fix *g, size_t size)
{
	char *buf = malloc(size);
	struct gl_sstream st;

	assert_non_null(buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = i % 50 == 49 ? '\n' : (char)('a' + i % 26);
	gl_test_mkdtemp(g->dir, sizeof(g->dir), "ident");
	snprintf(g->path, sizeof(g->path), "%s/grow.log", g->dir);
	gl_test_write(g->path, buf, size);
	free(buf);
	g->consumed = size;
	sfile_of(g->path, &g->k, 7, size);
	gl_state_init(&g->s);
	memset(&st, 0, sizeof(st));
	st.id = 7;
	st.pos.bytes = size;
	st.pos.lines = size / 50;
	g->si = gl_state_add_stream(&g->s, &st);
	assert_true(g->si >= 0);
}

static void grew_teardown(struct grew_fix *g)
{
	gl_state_release(&g->s);
	gl_test_rmtree(g->dir);
}

static void append(const char *path, const char *text)
{
	FILE *fp = fopen(path, "ab");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
}

static int grew(struct grew_fix *g)
{
	struct gl_found f;

	found_of(g->path, &f);
	return gl_file_grew(&g->s, &g->k, &f);
}

static void test_file_grew(void **state)
{
	struct grew_fix g;

	(void)state;
	/* 6000 bytes: the first 4 KiB and the 4 KiB before the end differ */
	grew_setup(&g, 6000);
	append(g.path, "one more line\n");
	assert_int_equal(grew(&g), 1);
	g.k.gzip = 1;
	assert_int_equal(grew(&g), 0);
	g.k.gzip = 0;
	g.k.has_tail = 0;
	assert_int_equal(grew(&g), 0);
	g.k.has_tail = 1;
	g.k.stream_id = 0;
	assert_int_equal(grew(&g), 0);
	g.k.stream_id = 7;
	/* the stream stands elsewhere than this file's end */
	g.s.stream[g.si].pos.bytes = g.consumed - 50;
	assert_int_equal(grew(&g), 0);
	g.s.stream[g.si].pos.bytes = g.consumed;
	/* an unknown stream */
	g.k.stream_id = 8;
	assert_int_equal(grew(&g), 0);
	g.k.stream_id = 7;
	/* another inode */
	g.k.ino++;
	assert_int_equal(grew(&g), 0);
	g.k.ino--;
	assert_int_equal(grew(&g), 1);
	/* changed in the 4 KiB before the end (past the first 4 KiB) */
	poke(g.path, 5000, '#');
	assert_int_equal(grew(&g), 0);
	poke(g.path, 5000, (char)('a' + 5000 % 26));
	assert_int_equal(grew(&g), 1);
	/* changed in the first bytes, outside the tail window */
	poke(g.path, 10, '#');
	assert_int_equal(grew(&g), 0);
	poke(g.path, 10, (char)('a' + 10 % 26));
	assert_int_equal(grew(&g), 1);
	/* truncated below what was consumed */
	assert_int_equal(truncate(g.path, (off_t)g.consumed - 1), 0);
	assert_int_equal(grew(&g), 0);
	grew_teardown(&g);

	/* a small file: head and tail windows are the whole of it */
	grew_setup(&g, 100);
	append(g.path, "more\n");
	assert_int_equal(grew(&g), 1);
	poke(g.path, 99, 'X');	/* the old last '\n' */
	assert_int_equal(grew(&g), 0);
	grew_teardown(&g);
}

/* --- gl_job_identify --------------------------------------------------- */

struct id_fix {
	char dir[256], path[300];
	struct gl_state s;
	struct gl_producer p;
	struct gl_found f;
	struct job j;
};

static void id_init(struct id_fix *x)
{
	memset(x, 0, sizeof(*x));
	gl_test_mkdtemp(x->dir, sizeof(x->dir), "ident");
	snprintf(x->path, sizeof(x->path), "%s/file.log", x->dir);
	gl_state_init(&x->s);
	x->p.state = &x->s;
	x->p.now_us = (int64_t)time(NULL) * 1000000;
}

/* A stream with id, whose content is lines[0..n), checkpoints after the
 * line counts in cps[0..ncp). */
static int32_t add_stream(struct id_fix *x, int64_t id, const char *const *lines, size_t n,
			  const size_t *cps, size_t ncp)
{
	struct gl_sstream st;
	int32_t si;

	memset(&st, 0, sizeof(st));
	st.id = id;
	snprintf(st.format, sizeof(st.format), "json");
	st.pos = pos_after(lines, n);
	si = gl_state_add_stream(&x->s, &st);
	assert_true(si >= 0);
	gl_state_set_head(&x->s, si, pos_after(lines, 1));
	for (size_t i = 0; i < ncp; i++)
		assert_int_equal(gl_state_add_checkpoint(&x->s, si, pos_after(lines, cps[i])), 0);
	return si;
}

/* Opens the file to identify (lines[0..n) written at x->path, or already
 * there when lines is NULL) as stream.c does, and identifies it. */
static enum identity identify(struct id_fix *x, const char *const *lines, size_t n, int32_t *si)
{
	struct gl_err e;

	if (lines)
		write_lines(x->path, lines, n);
	found_of(x->path, &x->f);
	memset(&x->j, 0, sizeof(x->j));
	x->j.p = &x->p;
	x->j.f = &x->f;
	x->j.fi = x->j.si = -1;
	x->j.status = "read";
	x->j.last_ts = GL_TS_NONE;
	assert_int_equal(gl_reader_open(&x->j.r, x->path, &e), GL_OK);
	x->j.gzip = gl_reader_is_gzip(x->j.r);
	*si = -1;
	return gl_job_identify(&x->j, si);
}

/* The next line the job's reader hands out must be want (NULL: none). */
static void next_is(struct id_fix *x, const char *want)
{
	struct gl_line ln;
	struct gl_err e;
	int rc = gl_reader_next(x->j.r, &ln, &e);

	if (!want) {
		assert_int_equal(rc, 0);
		return;
	}
	assert_int_equal(rc, 1);
	assert_int_equal(ln.len, strlen(want));
	assert_memory_equal(ln.p, want, ln.len);
}

static void id_close(struct id_fix *x)
{
	gl_reader_close(x->j.r);
	x->j.r = NULL;
}

static void id_release(struct id_fix *x)
{
	id_close(x);
	gl_state_release(&x->s);
	gl_test_rmtree(x->dir);
}

static void assert_pos(struct gl_pos got, struct gl_pos want)
{
	assert_int_equal(got.bytes, want.bytes);
	assert_int_equal(got.lines, want.lines);
	assert_true(got.hash == want.hash);
}

static const char *const S[] = {
	"{\"message\": \"start\"}",
	"{\"message\": \"second\"}",
	"{\"message\": \"third\"}",
	"{\"message\": \"fourth\"}",
	"{\"message\": \"fifth\"}",
	"{\"message\": \"sixth\"}",
};

static void test_identify_continue(void **state)
{
	struct id_fix x;
	const size_t cps[] = {2};
	int32_t si, want;

	(void)state;
	id_init(&x);
	want = add_stream(&x, 3, S, 4, cps, 1);
	/* the stream's 4 lines and two new ones */
	assert_int_equal(identify(&x, S, 6, &si), ID_CONTINUE);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 4));
	next_is(&x, S[4]);
	next_is(&x, S[5]);
	next_is(&x, NULL);
	id_close(&x);
	/* exactly the stream's content: continues it with nothing new */
	assert_int_equal(identify(&x, S, 4, &si), ID_CONTINUE);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 4));
	next_is(&x, NULL);
	id_release(&x);
}

/* The same content, gzip-compressed, is recognised the same way. */
static void test_identify_continue_gzip(void **state)
{
	struct id_fix x;
	const size_t cps[] = {1, 3};
	size_t len;
	char *text = join(S, 6, &len);
	int32_t si, want;

	(void)state;
	id_init(&x);
	want = add_stream(&x, 3, S, 5, cps, 2);
	gl_test_write_gz(x.path, text, len, (size_t)-1);
	free(text);
	assert_int_equal(identify(&x, NULL, 0, &si), ID_CONTINUE);
	assert_int_equal(x.j.gzip, 1);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 5));
	next_is(&x, S[5]);
	id_release(&x);
}

static void test_identify_diverges_at_checkpoint(void **state)
{
	struct id_fix x;
	const size_t cps[] = {2};
	/* line 2 replaced by one of the same length: equal bytes at the
	 * checkpoint, another hash */
	const char *other[] = {S[0], "{\"message\": \"SECOND\"}", S[2], S[3], S[4]};
	/* line 2 replaced by a longer one: the checkpoint falls inside it */
	const char *longer[] = {S[0], "{\"message\": \"second, longer\"}", S[2], S[3], S[4]};
	int32_t si;

	(void)state;
	assert_int_equal(strlen(other[1]), strlen(S[1]));
	id_init(&x);
	add_stream(&x, 3, S, 4, cps, 1);
	assert_int_equal(identify(&x, other, 5, &si), ID_NEW);
	assert_pos(x.j.pos, (struct gl_pos){0, 0, 0});
	next_is(&x, S[0]);	/* rewound */
	id_close(&x);
	assert_int_equal(identify(&x, longer, 5, &si), ID_NEW);
	assert_pos(x.j.pos, (struct gl_pos){0, 0, 0});
	next_is(&x, S[0]);
	id_release(&x);
}

static void test_identify_copy_at_checkpoint(void **state)
{
	struct id_fix x;
	const size_t cps[] = {1, 3};
	int32_t si, want;

	(void)state;
	id_init(&x);
	want = add_stream(&x, 3, S, 6, cps, 2);
	/* an older, shorter copy: the first 3 lines, ending on a checkpoint */
	assert_int_equal(identify(&x, S, 3, &si), ID_COPY);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 3));
	id_close(&x);
	/* just the first line: ends on the head */
	assert_int_equal(identify(&x, S, 1, &si), ID_COPY);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 1));
	id_release(&x);
}

/*
 * A shorter file that ends between checkpoints is compared, past the last
 * checkpoint, with a file on disk that holds the stream.
 */
static void test_identify_copy_between_checkpoints(void **state)
{
	struct id_fix x;
	const size_t cps[] = {2};
	const char *bad[] = {S[0], S[1], S[2], "{\"message\": \"FOURTH\"}"};
	char src[320];
	struct gl_sfile k;
	int32_t si, want;

	(void)state;
	assert_int_equal(strlen(bad[3]), strlen(S[3]));
	id_init(&x);
	want = add_stream(&x, 3, S, 6, cps, 1);
	snprintf(src, sizeof(src), "%s/source.log", x.dir);
	write_lines(src, S, 6);
	sfile_of(src, &k, 3, pos_after(S, 6).bytes);
	k.id = 40;
	assert_true(gl_state_add_file(&x.s, &k) >= 0);
	/* the first 4 lines, as the source file has them: a copy */
	assert_int_equal(identify(&x, S, 4, &si), ID_COPY);
	assert_int_equal(si, want);
	assert_pos(x.j.pos, pos_after(S, 4));
	id_close(&x);
	/* line 4 differs, after the last checkpoint: new content */
	assert_int_equal(identify(&x, bad, 4, &si), ID_NEW);
	assert_pos(x.j.pos, (struct gl_pos){0, 0, 0});
	next_is(&x, S[0]);
	id_release(&x);
}

static void test_identify_no_head(void **state)
{
	struct id_fix x;
	const size_t cps[] = {2};
	const char *lines[] = {"{\"message\": \"begin\"}", S[1], S[2], S[3]};
	int32_t si;

	(void)state;
	id_init(&x);
	add_stream(&x, 3, S, 4, cps, 1);
	assert_int_equal(identify(&x, lines, 4, &si), ID_NEW);
	assert_pos(x.j.pos, (struct gl_pos){0, 0, 0});
	next_is(&x, lines[0]);
	id_close(&x);
	/* an empty file */
	assert_int_equal(identify(&x, lines, 0, &si), ID_NEW);
	next_is(&x, NULL);
	id_release(&x);
}

/* Two streams with the same first line: the one the content follows. */
static void test_identify_two_candidates(void **state)
{
	const char *a[] = {S[0], "{\"message\": \"a-2\"}", "{\"message\": \"a-3\"}",
			   "{\"message\": \"a-4\"}", "{\"message\": \"a-5\"}"};
	const char *b[] = {S[0], "{\"message\": \"b-2\"}", "{\"message\": \"b-3\"}",
			   "{\"message\": \"b-4\"}", "{\"message\": \"b-5\"}"};
	const size_t cps[] = {2};
	struct id_fix x;
	int32_t si, sa, sb;

	(void)state;
	id_init(&x);
	sa = add_stream(&x, 10, a, 4, cps, 1);
	sb = add_stream(&x, 11, b, 4, cps, 1);
	assert_int_equal(identify(&x, b, 5, &si), ID_CONTINUE);
	assert_int_equal(si, sb);
	assert_pos(x.j.pos, pos_after(b, 4));
	next_is(&x, b[4]);
	id_close(&x);
	assert_int_equal(identify(&x, a, 5, &si), ID_CONTINUE);
	assert_int_equal(si, sa);
	assert_pos(x.j.pos, pos_after(a, 4));
	next_is(&x, a[4]);
	id_close(&x);
	/* a copy of b's first 2 lines: b, not a */
	assert_int_equal(identify(&x, b, 2, &si), ID_COPY);
	assert_int_equal(si, sb);
	id_release(&x);
}

/*
 * One stream is a prefix of another: a file with both streams' content and
 * more continues the longer; one that leaves the longer after the shorter's
 * end continues the shorter.
 */
static void test_identify_prefix_streams(void **state)
{
	const char *longer[] = {S[0], S[1], S[2], S[3], S[4]};
	const char *off[] = {S[0], S[1], "{\"message\": \"THIRD\"}", S[3]};
	const size_t cps_long[] = {3};
	struct id_fix x;
	int32_t si, ss, sl;

	(void)state;
	assert_int_equal(strlen(off[2]), strlen(S[2]));
	id_init(&x);
	ss = add_stream(&x, 20, S, 2, NULL, 0);
	sl = add_stream(&x, 21, S, 4, cps_long, 1);
	assert_int_equal(identify(&x, longer, 5, &si), ID_CONTINUE);
	assert_int_equal(si, sl);
	assert_pos(x.j.pos, pos_after(S, 4));
	next_is(&x, S[4]);
	id_close(&x);
	/* the longer stream's checkpoint at line 3 fails: the shorter one */
	assert_int_equal(identify(&x, off, 4, &si), ID_CONTINUE);
	assert_int_equal(si, ss);
	assert_pos(x.j.pos, pos_after(S, 2));
	next_is(&x, off[2]);
	next_is(&x, off[3]);
	id_release(&x);
}

/* Many streams (more than a hash bucket's worth) with long lines. */
static void test_identify_many_streams(void **state)
{
	enum { NS = 100, NL = 30 };
	char **lines = calloc(NL, sizeof(*lines));
	struct id_fix x;
	int32_t si, want = -1;
	size_t cps[] = {10, 20};

	(void)state;
	assert_non_null(lines);
	id_init(&x);
	for (size_t i = 0; i < NL; i++)
		lines[i] = numbered(i, 200 + i);
	for (int s = 0; s < NS; s++) {
		char *keep = lines[0];
		char first[64];

		snprintf(first, sizeof(first), "{\"message\": \"stream %d\"}", s);
		lines[0] = first;
		int32_t k = add_stream(&x, 100 + s, (const char *const *)lines, 25, cps, 2);

		if (s == 57) {
			want = k;
			write_lines(x.path, (const char *const *)lines, NL);
		}
		lines[0] = keep;
	}
	assert_int_equal(identify(&x, NULL, 0, &si), ID_CONTINUE);
	assert_int_equal(si, want);
	assert_int_equal(x.s.stream[si].id, 157);
	assert_int_equal(x.j.pos.lines, 25);
	next_is(&x, lines[25]);
	id_release(&x);
	free_lines(lines, NL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pos_advance_by_hand),
		cmocka_unit_test(test_pos_advance_reader),
		cmocka_unit_test(test_file_same),
		cmocka_unit_test(test_file_complete),
		cmocka_unit_test(test_file_grew),
		cmocka_unit_test(test_identify_continue),
		cmocka_unit_test(test_identify_continue_gzip),
		cmocka_unit_test(test_identify_diverges_at_checkpoint),
		cmocka_unit_test(test_identify_copy_at_checkpoint),
		cmocka_unit_test(test_identify_copy_between_checkpoints),
		cmocka_unit_test(test_identify_no_head),
		cmocka_unit_test(test_identify_two_candidates),
		cmocka_unit_test(test_identify_prefix_streams),
		cmocka_unit_test(test_identify_many_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
