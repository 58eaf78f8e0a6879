/*
 * Tests for lib/ingest/records.c: lines into batch rows through a struct
 * job, with a producer whose send callback looks at every batch it is
 * handed (no store). Lines are fed as stream.c's read_lines() feeds them:
 * gl_job_line() with j->pos still before the line, then j->pos advanced.
 *
 * Checked: blank lines, JSON events and their line numbers, rejects
 * (reason, line, offset, length, excerpt capped at 1 KiB), the byte of the
 * first invalid UTF-8 sequence, Python tracebacks joined into their
 * record, orphan continuations, the 1 MiB record limit, and that the state
 * a sent batch carries never claims a line whose row is not in it or in an
 * earlier batch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ingest/records.h"
#include "util/hash.h"
#include "support/tmpdir.h"

/* --- the fixture: a job on one stream, a producer that keeps batches -- */

/* What the test knows about line n (1-based) of what it fed. */
struct line_info {
	uint64_t end_line;	/* a row starts here: its last line; 0: no row starts */
	const char *want_msg;	/* expected message of an event starting here, or NULL */
};

struct fix {
	char dir[256], path[300];
	struct gl_state s;
	struct gl_producer p;
	struct gl_found f;
	struct job j;
	/* every position fed, by line count: pos[n] is after line n */
	struct gl_pos *pos;
	size_t npos, cappos;
	/* sent batches */
	size_t nsent;
	struct gl_pos sent_pos[4096];
	uint64_t sent_first[4096], sent_last_end[4096];	/* row lines, 0: no row */
	uint64_t rows_seen;
	/* the invariant checker: 1 to check each batch as it is sent */
	struct line_info *info;
	size_t ninfo;
	uint64_t max_claimed;	/* lines claimed by the last sent state */
	uint64_t max_row_line;	/* last line covered by a row sent so far */
};

static int rec_send(struct gl_producer *p);

static void fix_init(struct fix *x, const char *format)
{
	struct gl_sfile sf;
	struct gl_sstream st;

	memset(x, 0, sizeof(*x));
	gl_test_mkdtemp(x->dir, sizeof(x->dir), "records");
	snprintf(x->path, sizeof(x->path), "%s/gpu.log", x->dir);
	gl_test_write(x->path, "", 0);
	gl_state_init(&x->s);
	memset(&sf, 0, sizeof(sf));
	sf.id = 5;
	sf.path = x->path;
	memset(&st, 0, sizeof(st));
	st.id = 9;
	snprintf(st.format, sizeof(st.format), "%s", format);
	st.component = "gpu";
	st.first_path = x->path;
	x->p.state = &x->s;
	x->p.b = gl_batch_new();
	assert_non_null(x->p.b);
	x->p.send = rec_send;
	x->p.pipe = x;
	x->f.path = x->path;
	x->j.p = &x->p;
	x->j.f = &x->f;
	x->j.fi = gl_state_add_file(&x->s, &sf);
	x->j.si = gl_state_add_stream(&x->s, &st);
	assert_true(x->j.fi >= 0 && x->j.si >= 0);
	x->j.fmt = gl_format_find(format);
	assert_non_null(x->j.fmt);
	x->j.status = "read";
	x->j.last_ts = GL_TS_NONE;
	gl_parse_ctx_init(&x->j.ctx);
	x->cappos = 1024;
	x->pos = calloc(x->cappos, sizeof(*x->pos));
	assert_non_null(x->pos);
	x->npos = 1;	/* pos[0]: the start */
}

static void fix_release(struct fix *x)
{
	gl_parse_ctx_release(&x->j.ctx);
	free(x->j.pend.buf);
	free(x->j.pend.samp);
	gl_batch_free(x->p.b);
	gl_state_release(&x->s);
	free(x->pos);
	gl_test_rmtree(x->dir);
}

/* The last line of a batch row starting at line n, from what was fed. */
static uint64_t row_end(const struct fix *x, uint64_t n)
{
	assert_true(n >= 1 && n < x->ninfo);
	if (!x->info[n].end_line)
		fail_msg("a row starts at line %llu, where the test put none",
			 (unsigned long long)n);
	return x->info[n].end_line;
}

/* Checks one batch's rows against what was fed and what was claimed. */
static void check_rows(struct fix *x, const struct gl_batch *b, uint64_t *first, uint64_t *last_end)
{
	*first = 0;
	*last_end = 0;
	for (size_t i = 0; i < b->nev + b->nrej; i++) {
		uint64_t line = i < b->nev ? b->ev[i].line : b->rej[i - b->nev].line;
		uint64_t end;

		if (!x->info)
			continue;
		end = i < b->nev ? row_end(x, line) : line;
		/* no row of a line an earlier batch's state already claimed */
		if (line <= x->max_claimed)
			fail_msg("row at line %llu after a batch claimed lines up to %llu",
				 (unsigned long long)line, (unsigned long long)x->max_claimed);
		if (i < b->nev && x->info[line].want_msg) {
			const struct gl_str *m = &b->ev[i].ev.message;

			if (m->len != strlen(x->info[line].want_msg) ||
			    memcmp(m->p, x->info[line].want_msg, m->len) != 0)
				fail_msg("line %llu: message '%.*s', want '%s'",
					 (unsigned long long)line, (int)m->len, m->p,
					 x->info[line].want_msg);
		}
		if (!*first || line < *first)
			*first = line;
		if (end > *last_end)
			*last_end = end;
		x->rows_seen++;
	}
	if (*last_end > x->max_row_line)
		x->max_row_line = *last_end;
}

static int rec_send(struct gl_producer *p)
{
	struct fix *x = p->pipe;
	struct gl_batch *b = p->b;
	const struct gl_bop *stream_op = NULL, *file_op = NULL;
	uint64_t first, last_end;

	assert_true(x->nsent < 4096);
	for (size_t i = 0; i < b->nop; i++) {
		if (b->op[i].kind == GL_BOP_STREAM)
			stream_op = &b->op[i];
		else if (b->op[i].kind == GL_BOP_FILE)
			file_op = &b->op[i];
		else if (b->op[i].kind == GL_BOP_CHECKPOINT) {
			const struct gl_pos *cp = &b->op[i].u.cp.pos;

			assert_int_equal(b->op[i].u.cp.stream_id, 9);
			assert_true(cp->lines < x->npos);
			assert_int_equal(cp->bytes, x->pos[cp->lines].bytes);
			assert_true(cp->hash == x->pos[cp->lines].hash);
		}
	}
	/* a batch sent mid-file carries the state that makes its rows final */
	assert_non_null(stream_op);
	assert_non_null(file_op);
	assert_int_equal(stream_op->u.stream.id, 9);
	assert_string_equal(file_op->u.file.status, "partial");
	assert_int_equal(file_op->u.file.id, 5);
	check_rows(x, b, &first, &last_end);

	struct gl_pos at = stream_op->u.stream.pos;

	/* a line boundary of what was fed */
	assert_true(at.lines < x->npos);
	assert_int_equal(at.bytes, x->pos[at.lines].bytes);
	assert_true(at.hash == x->pos[at.lines].hash);
	assert_int_equal(file_op->u.file.consumed, at.bytes);
	if (x->info) {
		/* every line up to `at` is in a row sent by now, or in none */
		assert_true(at.lines >= x->max_row_line);
		for (uint64_t n = x->max_row_line + 1; n <= at.lines; n++)
			if (x->info[n].end_line)
				fail_msg("batch claims line %llu, whose row is not sent",
					 (unsigned long long)n);
	}
	x->max_claimed = at.lines;
	x->sent_pos[x->nsent] = at;
	x->sent_first[x->nsent] = first;
	x->sent_last_end[x->nsent] = last_end;
	x->nsent++;
	gl_batch_reset(b);
	return GL_OK;
}

/* Feeds one line of text (no '\n') as read_lines() does. */
static int feed_n(struct fix *x, const char *text, size_t len)
{
	char *buf = malloc(len + 1);
	struct gl_line ln;
	struct gl_pos after = x->j.pos;
	int rc;

	assert_non_null(buf);
	memcpy(buf, text, len);
	buf[len] = '\n';
	memset(&ln, 0, sizeof(ln));
	ln.p = buf;
	ln.len = len;
	ln.full_len = len + 1;
	ln.offset = x->j.pos.bytes;
	ln.hash = gl_hash64(buf, len + 1, 0);
	ln.terminated = 1;
	gl_pos_advance(&after, &ln);
	rc = gl_job_line(&x->j, &ln, after.lines);
	x->j.pos = after;
	if (x->npos == x->cappos) {
		x->cappos *= 2;
		x->pos = realloc(x->pos, x->cappos * sizeof(*x->pos));
		assert_non_null(x->pos);
	}
	/* the position computed here, independently of gl_pos_advance */
	struct gl_pos *prev = &x->pos[x->npos - 1], *now = &x->pos[x->npos];

	now->bytes = prev->bytes + len + 1;
	now->lines = prev->lines + 1;
	now->hash = gl_hash_chain(prev->hash, gl_hash64(buf, len + 1, 0));
	x->npos++;
	free(buf);
	return rc;
}

static void feed(struct fix *x, const char *text)
{
	assert_int_equal(feed_n(x, text, strlen(text)), GL_OK);
}

static void assert_str(struct gl_str s, const char *want)
{
	if (!want) {
		assert_null(s.p);
		return;
	}
	assert_non_null(s.p);
	if (s.len != strlen(want) || memcmp(s.p, want, s.len) != 0)
		fail_msg("got '%.*s', want '%s'", (int)s.len, s.p, want);
}

/* --- gl_line_blank ------------------------------------------------------ */

static void test_line_blank(void **state)
{
	(void)state;
	assert_int_equal(gl_line_blank("", 0), 1);
	assert_int_equal(gl_line_blank(" ", 1), 1);
	assert_int_equal(gl_line_blank(" \t \r", 4), 1);
	assert_int_equal(gl_line_blank("\r", 1), 1);
	assert_int_equal(gl_line_blank(" x ", 3), 0);
	assert_int_equal(gl_line_blank("x", 1), 0);
	assert_int_equal(gl_line_blank("\v", 1), 0);
	assert_int_equal(gl_line_blank("\f", 1), 0);
	assert_int_equal(gl_line_blank("\0", 1), 0);
	/* only len bytes count */
	assert_int_equal(gl_line_blank("  x", 2), 1);
}

/* --- events and rejects -------------------------------------------------- */

static void test_json_events(void **state)
{
	struct fix x;
	struct gl_batch *b;

	(void)state;
	fix_init(&x, "json");
	feed(&x, "{\"timestamp\": \"2025-09-09T14:30:22.5Z\", \"level\": \"INFO\", "
		 "\"message\": \"first\"}");
	feed(&x, "{\"level\": \"WARNING\", \"component\": \"pool\", \"message\": \"second\"}");
	feed(&x, "");
	feed(&x, "   \t");
	feed(&x, "{\"message\": \"fifth\", \"gpu_metrics\": {\"kernel_name\": \"k1\", "
		 "\"execution_time_us\": 12.5}}");
	b = x.p.b;
	assert_int_equal(x.nsent, 0);
	assert_int_equal(b->nev, 3);
	assert_int_equal(b->nrej, 0);
	assert_int_equal(b->lines_read, 5);
	assert_int_equal(b->ev[0].line, 1);
	assert_int_equal(b->ev[1].line, 2);
	assert_int_equal(b->ev[2].line, 5);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(b->ev[i].stream_id, 9);
		assert_int_equal(b->ev[i].file_id, 5);
	}
	assert_str(b->ev[0].ev.message, "first");
	assert_str(b->ev[1].ev.message, "second");
	assert_str(b->ev[2].ev.message, "fifth");
	/* 2025-09-09 is day 20340 since 1970-01-01: 1757428222.5 s */
	assert_int_equal(b->ev[0].ev.ts_us, 1757428222500000LL);
	assert_int_equal(b->ev[0].ev.level, GL_LEVEL_INFO);
	assert_int_equal(b->ev[1].ev.level, GL_LEVEL_WARN);
	/* no component in the line: the stream's, from the file name */
	assert_str(b->ev[0].ev.component, "gpu");
	assert_str(b->ev[1].ev.component, "pool");
	assert_str(b->ev[2].ev.kernel, "k1");
	assert_true(b->ev[2].ev.dur_us == 12.5);
	/* strings live in the batch's arena, not in the fed buffers */
	assert_true(b->ev[0].ev.message.p >= b->arena &&
		    b->ev[0].ev.message.p < b->arena + GL_BATCH_ARENA);
	assert_int_equal(x.j.last_ts, 1757428222500000LL);
	fix_release(&x);
}

static void test_reject_malformed(void **state)
{
	static const char bad[] = "{\"timestamp\": 1757428222, \"message\": \"x\"}";
	struct fix x;
	struct gl_batch *b;
	char *big;
	size_t big_len = 3000, first_len;

	(void)state;
	fix_init(&x, "json");
	feed(&x, "{\"timestamp\": \"2025-09-09T14:30:22Z\", \"message\": \"ok\"}");
	first_len = x.j.pos.bytes;
	feed(&x, bad);
	/* a long malformed line: 3000 bytes, excerpt kept to 1024 */
	big = malloc(big_len + 1);
	assert_non_null(big);
	{
		static const char pre[] = "{\"timestamp\": 7, \"message\": \"";
		size_t pl = sizeof(pre) - 1;

		memcpy(big, pre, pl);
		memset(big + pl, 'z', big_len - pl - 2);
	}
	memcpy(big + big_len - 2, "\"}", 2);
	big[big_len] = '\0';
	feed(&x, big);
	b = x.p.b;
	assert_int_equal(b->nev, 1);
	assert_int_equal(b->nrej, 2);
	assert_int_equal(b->rej[0].line, 2);
	assert_int_equal(b->rej[0].offset, first_len);
	assert_int_equal(b->rej[0].length, strlen(bad) + 1);
	assert_str(b->rej[0].reason, "timestamp: not a string");
	assert_str(b->rej[0].excerpt, bad);
	/* the time of the record before it */
	assert_int_equal(b->rej[0].ts_us, 1757428222000000LL);
	assert_int_equal(b->rej[0].stream_id, 9);
	assert_int_equal(b->rej[0].file_id, 5);
	assert_int_equal(b->rej[1].line, 3);
	assert_int_equal(b->rej[1].offset, first_len + strlen(bad) + 1);
	assert_int_equal(b->rej[1].length, big_len + 1);
	assert_str(b->rej[1].reason, "timestamp: not a string");
	assert_int_equal(b->rej[1].excerpt.len, GL_EXCERPT_MAX);
	assert_int_equal(GL_EXCERPT_MAX, 1024);
	assert_memory_equal(b->rej[1].excerpt.p, big, 1024);
	free(big);
	fix_release(&x);
}

/* Reason for a line of len bytes that must be rejected as invalid UTF-8. */
static void expect_utf8(const char *line, size_t len, const char *reason)
{
	struct fix x;
	struct gl_batch *b;

	fix_init(&x, "json");
	assert_int_equal(feed_n(&x, line, len), GL_OK);
	b = x.p.b;
	assert_int_equal(b->nev, 0);
	assert_int_equal(b->nrej, 1);
	assert_str(b->rej[0].reason, reason);
	assert_int_equal(b->rej[0].line, 1);
	assert_int_equal(b->rej[0].length, len + 1);
	assert_int_equal(b->rej[0].excerpt.len, len);
	assert_memory_equal(b->rej[0].excerpt.p, line, len);
	fix_release(&x);
}

#define UTF8(lit, reason) expect_utf8(lit, sizeof(lit) - 1, reason)

static void test_invalid_utf8(void **state)
{
	struct fix x;

	(void)state;
	/* "abc" then a lead byte with '(' after it: byte 4 */
	UTF8("abc\xC3(def", "invalid UTF-8 at byte 4");
	/* a lone continuation byte first */
	UTF8("\x80{\"message\": \"x\"}", "invalid UTF-8 at byte 1");
	/* 13 ASCII bytes, then e-acute (2), euro (3), a face (4), then 0xFF:
	 * the bad byte is at 13 + 9 + 1 = 23 */
	UTF8("{\"message\": \"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF\"}",
	     "invalid UTF-8 at byte 23");
	/* past the 8-byte ASCII runs: 17 ASCII bytes, then 0xFE */
	UTF8("{\"message\": \"abcd\xFE\"}", "invalid UTF-8 at byte 18");
	/* an overlong '/' (C0 AF) */
	UTF8("{\"m\xC0\xAF\"}", "invalid UTF-8 at byte 4");
	/* a surrogate (ED A0 80) */
	UTF8("ab\xED\xA0\x80", "invalid UTF-8 at byte 3");
	/* above U+10FFFF (F4 90 80 80) */
	UTF8("a\xF4\x90\x80\x80", "invalid UTF-8 at byte 2");
	/* a sequence cut by the end of the line */
	UTF8("xyz\xE2\x82", "invalid UTF-8 at byte 4");
	/* a bad byte at every position of a 48-byte line (ASCII runs are
	 * skipped 16, then 8 bytes at a time, then byte by byte) */
	for (size_t k = 0; k < 48; k++) {
		char line[48], want[64];

		memset(line, 'a', sizeof(line));
		line[k] = (char)0xFF;
		snprintf(want, sizeof(want), "invalid UTF-8 at byte %zu", k + 1);
		expect_utf8(line, sizeof(line), want);
		/* and a valid e-acute before it changes nothing */
		if (k >= 2) {
			line[k - 2] = (char)0xC3;
			line[k - 1] = (char)0xA9;
			expect_utf8(line, sizeof(line), want);
		}
	}

	/* the same characters, valid, make an event */
	fix_init(&x, "json");
	feed(&x, "{\"message\": \"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"}");
	assert_int_equal(x.p.b->nrej, 0);
	assert_int_equal(x.p.b->nev, 1);
	assert_str(x.p.b->ev[0].ev.message, "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
	fix_release(&x);
}

static void test_truncated_line(void **state)
{
	struct fix x;
	struct gl_line ln;
	char *buf = malloc(GL_LINE_MAX);
	struct gl_batch *b;

	(void)state;
	assert_non_null(buf);
	memset(buf, 'q', GL_LINE_MAX);
	fix_init(&x, "json");
	memset(&ln, 0, sizeof(ln));
	ln.p = buf;
	ln.len = GL_LINE_MAX;
	ln.full_len = 3000001;
	ln.offset = 0;
	ln.truncated = 1;
	ln.terminated = 1;
	assert_int_equal(gl_job_line(&x.j, &ln, 1), GL_OK);
	b = x.p.b;
	assert_int_equal(b->nrej, 1);
	assert_str(b->rej[0].reason, "line longer than 1048576 bytes (3000001 bytes)");
	assert_int_equal(b->rej[0].length, 3000001);
	assert_int_equal(b->rej[0].excerpt.len, 1024);
	free(buf);
	fix_release(&x);
}

/* --- multi-line records ------------------------------------------------- */

static void test_pylog_traceback(void **state)
{
	struct fix x;
	struct gl_batch *b;
	struct tm tm = {0};

	(void)state;
	fix_init(&x, "pylog");
	feed(&x, "2025-09-09 14:30:22,123 - monitor - ERROR - sample failed");
	feed(&x, "Traceback (most recent call last):");
	feed(&x, "  File \"monitor.py\", line 42, in sample");
	feed(&x, "RuntimeError: CUDA error: out of memory");
	b = x.p.b;
	/* the record is open: nothing in the batch, nothing committed */
	assert_int_equal(b->nev, 0);
	assert_int_equal(b->lines_continued, 3);
	assert_int_equal(gl_job_committed(&x.j).bytes, 0);
	assert_int_equal(gl_job_committed(&x.j).lines, 0);
	feed(&x, "2025-09-09 14:30:23,000 - monitor - INFO - recovered");
	/* the next record closed the first one */
	assert_int_equal(b->nev, 1);
	assert_int_equal(gl_job_committed(&x.j).lines, 4);
	assert_int_equal(gl_job_committed(&x.j).bytes, x.pos[4].bytes);
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	assert_int_equal(gl_job_committed(&x.j).lines, 5);
	assert_int_equal(b->nev, 2);
	assert_int_equal(b->ev[0].line, 1);
	assert_int_equal(b->ev[1].line, 5);
	assert_str(b->ev[0].ev.message, "sample failed\n"
					"Traceback (most recent call last):\n"
					"  File \"monitor.py\", line 42, in sample\n"
					"RuntimeError: CUDA error: out of memory");
	assert_str(b->ev[0].ev.component, "monitor");
	assert_int_equal(b->ev[0].ev.level, GL_LEVEL_ERROR);
	assert_str(b->ev[1].ev.message, "recovered");
	tm.tm_year = 2025 - 1900;
	tm.tm_mon = 8;
	tm.tm_mday = 9;
	tm.tm_hour = 14;
	tm.tm_min = 30;
	tm.tm_sec = 22;
	assert_int_equal(b->ev[0].ev.ts_us, (int64_t)timegm(&tm) * 1000000 + 123000);
	/* a second flush adds nothing */
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	assert_int_equal(b->nev, 2);
	fix_release(&x);
}

static void test_orphan_continuation(void **state)
{
	struct fix x;
	struct gl_batch *b;

	(void)state;
	fix_init(&x, "pylog");
	feed(&x, "Traceback (most recent call last):");
	feed(&x, "2025-09-09 14:30:22,123 - monitor - INFO - up");
	b = x.p.b;
	assert_int_equal(b->nrej, 1);
	assert_int_equal(b->rej[0].line, 1);
	assert_int_equal(b->rej[0].offset, 0);
	assert_str(b->rej[0].reason, "continuation line without a record before it");
	assert_str(b->rej[0].excerpt, "Traceback (most recent call last):");
	/* a malformed record line closes the open record and is rejected */
	feed(&x, "  more of it");
	feed(&x, "2025-09-09 14:30:2x,123 - monitor - INFO - broken time");
	feed(&x, "  after the reject");
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	assert_int_equal(b->nev, 1);
	assert_str(b->ev[0].ev.message, "up\n  more of it");
	assert_int_equal(b->nrej, 3);
	assert_int_equal(b->rej[1].line, 4);
	assert_str(b->rej[1].reason, "asctime: not YYYY-MM-DD HH:MM:SS,mmm");
	assert_int_equal(b->rej[2].line, 5);
	assert_str(b->rej[2].reason, "continuation line without a record before it");
	fix_release(&x);
}

static void test_record_limit(void **state)
{
	enum { CONT = 100000 };
	struct fix x;
	struct gl_batch *b;
	char *line = malloc(CONT);

	(void)state;
	assert_non_null(line);
	memset(line, 'y', CONT);
	fix_init(&x, "pylog");
	feed(&x, "2025-09-09 14:30:22,123 - m - INFO - x");
	/* 1 byte of component + 1 of message, then 100001 per continuation:
	 * ten fit in 1 MiB (1000012), the eleventh would not (1100013) */
	for (int i = 0; i < 12; i++)
		assert_int_equal(feed_n(&x, line, CONT), GL_OK);
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	b = x.p.b;
	assert_int_equal(b->nev, 1);
	assert_int_equal(b->ev[0].ev.message.len, 1 + 10 * (CONT + 1));
	assert_int_equal(b->lines_continued, 10);
	assert_int_equal(b->nrej, 2);
	assert_int_equal(b->rej[0].line, 12);
	assert_str(b->rej[0].reason, "continuation beyond the 1 MiB record limit");
	assert_int_equal(b->rej[0].excerpt.len, 1024);
	/* the rest of the cut record is rejected too */
	assert_int_equal(b->rej[1].line, 13);
	assert_int_equal(b->rej[1].length, CONT + 1);
	assert_str(b->rej[1].reason, "continuation beyond the 1 MiB record limit");
	free(line);
	fix_release(&x);
}

/* --- what a sent batch claims ---------------------------------------- */

static void info_grow(struct fix *x, size_t n)
{
	if (n < x->ninfo)
		return;
	size_t cap = x->ninfo ? x->ninfo : 1024;

	while (cap <= n)
		cap *= 2;
	x->info = realloc(x->info, cap * sizeof(*x->info));
	assert_non_null(x->info);
	memset(x->info + x->ninfo, 0, (cap - x->ninfo) * sizeof(*x->info));
	x->ninfo = cap;
}

/* The rows left in the last, unsent batch. */
static void check_final(struct fix *x)
{
	uint64_t first, last_end;

	check_rows(x, x->p.b, &first, &last_end);
}

static void test_commit_json_batches(void **state)
{
	enum { N = 30000 };
	struct fix x;
	char line[160];
	uint64_t rows = 0, lineno = 0;

	(void)state;
	fix_init(&x, "json");
	for (int i = 0; i < N; i++) {
		lineno++;
		info_grow(&x, lineno + 1);
		if (i % 11 == 5) {
			feed(&x, "");	/* blank: no row */
			continue;
		}
		if (i % 7 == 3) {
			snprintf(line, sizeof(line), "{\"message\": %d}", i);
			x.info[lineno].end_line = lineno;
			feed(&x, line);
			rows++;
			continue;
		}
		snprintf(line, sizeof(line), "{\"level\": \"INFO\", \"message\": \"event %d\"}", i);
		x.info[lineno].end_line = lineno;
		feed(&x, line);
		rows++;
	}
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	check_final(&x);
	/* 30000 lines, 2727 blank: rows fill several batches (8192 rows or
	 * 1024 rejects each) */
	assert_true(x.nsent >= 3);
	assert_int_equal(x.rows_seen, rows);
	for (size_t k = 0; k < x.nsent; k++) {
		/* the claim is the end of the batch's last row, or blank lines after it */
		assert_true(x.sent_pos[k].lines >= x.sent_last_end[k]);
		for (uint64_t n = x.sent_last_end[k] + 1; n <= x.sent_pos[k].lines; n++)
			assert_int_equal(x.info[n].end_line, 0);
		if (k + 1 < x.nsent)
			assert_true(x.sent_first[k + 1] > x.sent_pos[k].lines);
	}
	free(x.info);
	fix_release(&x);
}

static void test_commit_multiline_batches(void **state)
{
	enum { RECORDS = 20000 };
	struct fix x;
	char line[160];
	char **msgs = calloc(RECORDS, sizeof(*msgs));
	uint64_t lineno = 0;
	size_t open_starts = 0;

	(void)state;
	assert_non_null(msgs);
	fix_init(&x, "pylog");
	for (int r = 0; r < RECORDS; r++) {
		int ncont = r % 4;
		uint64_t start = ++lineno;
		size_t mlen;

		snprintf(line, sizeof(line),
			 "2025-09-09 14:%02d:%02d,%03d - worker - INFO - record %d", (r / 60) % 60,
			 r % 60, r % 1000, r);
		msgs[r] = malloc(64 + 40 * 4);
		assert_non_null(msgs[r]);
		mlen = (size_t)snprintf(msgs[r], 64, "record %d", r);
		info_grow(&x, start + ncont + 1);
		feed(&x, line);
		for (int c = 0; c < ncont; c++) {
			lineno++;
			snprintf(line, sizeof(line), "  frame %d of record %d", c, r);
			mlen += (size_t)sprintf(msgs[r] + mlen, "\n%s", line);
			feed(&x, line);
		}
		x.info[start].end_line = lineno;
		x.info[start].want_msg = msgs[r];
	}
	assert_int_equal(gl_job_flush(&x.j), GL_OK);
	check_final(&x);
	assert_true(x.nsent >= 2);
	assert_int_equal(x.rows_seen, RECORDS);
	for (size_t k = 0; k < x.nsent; k++) {
		/* no blank lines here: the claim is exactly the end of the last
		 * row, which is the start of the record still open */
		assert_int_equal(x.sent_pos[k].lines, x.sent_last_end[k]);
		assert_true(x.sent_pos[k].lines + 1 < x.ninfo);
		if (x.info[x.sent_pos[k].lines + 1].end_line)
			open_starts++;
		if (k + 1 < x.nsent)
			assert_int_equal(x.sent_first[k + 1], x.sent_pos[k].lines + 1);
	}
	assert_int_equal(open_starts, x.nsent);
	for (int r = 0; r < RECORDS; r++)
		free(msgs[r]);
	free(msgs);
	free(x.info);
	fix_release(&x);
}

/* --- metric samples and per-stream parse state -------------------------- */

/*
 * A format made for this test: "#base N" sets its state (a 32-bit count)
 * to N and stores nothing; any other line is one sample whose value is the
 * count before the line, and the count goes up by one. So the state at
 * every line boundary is known independently from the lines fed.
 */
static void counter_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			  struct gl_rec *rec)
{
	uint32_t c = 0;
	struct gl_sample *sm;

	if (ctx->state_len == sizeof(c))
		memcpy(&c, ctx->state, sizeof(c));
	if (len > 6 && memcmp(line, "#base ", 6) == 0) {
		c = (uint32_t)strtoul(line + 6, NULL, 10);
		memcpy(ctx->state, &c, sizeof(c));
		ctx->state_len = sizeof(c);
		rec->kind = GL_REC_NONE;
		return;
	}
	sm = gl_ctx_samples(ctx, 1);
	assert_non_null(sm);
	sm->ts_us = 1000;
	sm->metric = (struct gl_str){"t.count", 7};
	sm->device = (struct gl_str){"0", 1};
	sm->value = c;
	rec->samples = sm;
	rec->n_samples = 1;
	rec->kind = GL_REC_SAMPLES;
	c++;
	memcpy(ctx->state, &c, sizeof(c));
	ctx->state_len = sizeof(c);
}

static const struct gl_format counter_fmt = {"counter", "test", 0, counter_parse};

/* base + count after line n of test_samples_state's input (0: no state yet) */
static uint32_t counter_after(uint64_t n)
{
	/* line 1 is "#base 100"; every later line counts one */
	return n == 0 ? 0 : 100 + (uint32_t)(n - 1);
}

static int counter_send(struct gl_producer *p)
{
	struct fix *x = p->pipe;
	struct gl_batch *b = p->b;
	const struct gl_bop *so = NULL;

	for (size_t i = 0; i < b->nop; i++)
		if (b->op[i].kind == GL_BOP_STREAM)
			so = &b->op[i];
	assert_non_null(so);
	uint64_t at = so->u.stream.pos.lines;
	uint32_t c;

	/* the state sent is the state at the claimed position, not after the
	 * line in hand */
	assert_int_equal(so->u.stream.parse_state.len, sizeof(c));
	memcpy(&c, so->u.stream.parse_state.p, sizeof(c));
	assert_int_equal(c, counter_after(at));
	for (size_t i = 0; i < b->nsamp; i++) {
		const struct gl_bsample *sm = &b->samp[i];

		/* each sample once: after the last claim, within this one */
		assert_true(sm->line > x->max_claimed && sm->line <= at);
		assert_true(sm->s.value == (double)counter_after(sm->line - 1));
		assert_str(sm->s.metric, "t.count");
		assert_str(sm->s.device, "0");
		assert_str(sm->path, x->path);
		assert_string_equal(sm->source, "counter");
		x->rows_seen++;
	}
	x->max_claimed = at;
	x->nsent++;
	gl_batch_reset(b);
	return GL_OK;
}

static void test_samples_state(void **state)
{
	enum { N = 40000 };
	struct fix x;
	char line[32];

	(void)state;
	fix_init(&x, "json");
	x.j.fmt = &counter_fmt;
	x.p.send = counter_send;
	x.p.forced = &counter_fmt;	/* no trial of other formats */
	feed(&x, "#base 100");
	for (int i = 0; i < N; i++) {
		snprintf(line, sizeof(line), "%d", i);
		feed(&x, line);
	}
	/* 40000 samples: batches are full at GL_BATCH_SAMPLES * 7 / 8 */
	assert_true(x.nsent >= 2);
	/* the rest, with the state after the last line, as the file's end does */
	gl_job_put_state(&x.j, x.j.pos, 0, "read");
	counter_send(&x.p);
	assert_int_equal(x.rows_seen, N);
	assert_int_equal(x.s.stream[x.j.si].parse_state_len, 4);
	uint32_t c;

	memcpy(&c, x.s.stream[x.j.si].parse_state, 4);
	assert_int_equal(c, 100 + N);
	fix_release(&x);
}

/* An event and its samples go into one batch: a batch sent for room never
 * holds half of a line. */
static void test_event_samples_together(void **state)
{
	struct fix x;

	(void)state;
	fix_init(&x, "json");
	feed(&x, "{\"timestamp\": \"2025-11-16T10:00:00Z\", \"message\": \"m\", \"memory_usage_mb\": 5,"
		 " \"gpu_metrics\": {\"gpu_utilization_percent\": 50}}");
	assert_int_equal(x.p.b->nev, 1);
	assert_int_equal(x.p.b->nsamp, 2);
	assert_str(x.p.b->samp[0].s.metric, "gpu.memory_used_mib");
	assert_true(x.p.b->samp[0].s.value == 5);
	assert_str(x.p.b->samp[1].s.metric, "gpu.utilization_pct");
	assert_true(x.p.b->samp[1].s.value == 50);
	assert_int_equal(x.p.b->samp[1].s.ts_us, 1763287200000000LL);
	assert_int_equal(x.p.b->samp[0].line, 1);
	/* rows of one file share one copy of its path */
	assert_ptr_equal(x.p.b->samp[0].path.p, x.p.b->ev[0].path.p);
	assert_str(x.p.b->ev[0].path, x.path);
	fix_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_blank),
		cmocka_unit_test(test_samples_state),
		cmocka_unit_test(test_event_samples_together),
		cmocka_unit_test(test_json_events),
		cmocka_unit_test(test_reject_malformed),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_truncated_line),
		cmocka_unit_test(test_pylog_traceback),
		cmocka_unit_test(test_orphan_continuation),
		cmocka_unit_test(test_record_limit),
		cmocka_unit_test(test_commit_json_batches),
		cmocka_unit_test(test_commit_multiline_batches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
