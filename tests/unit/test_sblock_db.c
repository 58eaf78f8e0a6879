/*
 * test_sblock_db.c - lib/store/sblock_db.c: a batch's samples become
 * blocks per (series, stream, file, path, ts_estimated), each in time order
 * (equal times in the order they came), cut at GL_SBLOCK_MAX samples and
 * GL_SBLOCK_SPAN_US; an open record's samples are dropped and old samples
 * pruned by rewriting blocks. Expectations are built in the test (a
 * stable sort of what was added, then the same cuts by a plain loop) and
 * the blocks are read back with SQLite's json_each, not gpulog's decoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/sblock.h"
#include "store/sblock_db.h"
#include "store/sblock_merge.h"

static const char ddl[] =
	"CREATE TABLE sample_blocks (id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
	" t0_us INTEGER NOT NULL, t1_us INTEGER NOT NULL, n INTEGER NOT NULL,"
	" ts_estimated INTEGER NOT NULL DEFAULT 0, stream_id INTEGER NOT NULL,"
	" line0 INTEGER NOT NULL, line1 INTEGER NOT NULL, file_id INTEGER, path_id INTEGER,"
	" data TEXT NOT NULL, open INTEGER NOT NULL DEFAULT 0, origins TEXT);"
	"CREATE INDEX sample_blocks_t0 ON sample_blocks (t0_us);"
	"CREATE INDEX sample_blocks_open ON sample_blocks (open) WHERE open = 1;"
	"CREATE TABLE sample_stage (id INTEGER PRIMARY KEY, n INTEGER NOT NULL,"
	" origins TEXT NOT NULL, data TEXT NOT NULL);"
	"CREATE TABLE sample_merge (stage_hi INTEGER NOT NULL, series_done INTEGER NOT NULL);"
	"CREATE TABLE streams (id INTEGER PRIMARY KEY, lines INTEGER NOT NULL,"
	" open_end INTEGER NOT NULL DEFAULT 0);";

/* A sample as the test added it. */
struct added {
	int64_t series, stream, file, path;
	int est;
	int64_t ts, line;
	double value;
	size_t seq;
};

static int by_key_time(const void *a, const void *b)
{
	const struct added *x = a, *y = b;
	const int64_t kx[] = {x->series, x->stream, x->file, x->path, x->est, x->ts, (int64_t)x->seq};
	const int64_t ky[] = {y->series, y->stream, y->file, y->path, y->est, y->ts, (int64_t)y->seq};

	for (int i = 0; i < 7; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

static int same_key(const struct added *x, const struct added *y)
{
	return x->series == y->series && x->stream == y->stream && x->file == y->file &&
	       x->path == y->path && x->est == y->est;
}

/* Which samples a rewrite keeps (NULL: all). */
static int (*keep)(const struct added *a);

/*
 * The blocks expected of a[0..n) (sorted by key and time) as they were
 * cut when stored, with the samples keep() accepts: one text line per
 * block "series stream file path est n t0 t1 line0 line1" and per sample
 * "ts value line", in (key, t0) order; a block that keeps none is gone.
 */
static char *expected(const struct added *a, size_t n)
{
	size_t cap = 64 + n * 96, len = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		size_t first = 0, last = 0, kept = 0;
		int64_t l0 = 0, l1 = 0;

		while (j < n && same_key(&a[i], &a[j]) && j - i < GL_SBLOCK_MAX &&
		       a[j].ts - a[i].ts <= GL_SBLOCK_SPAN_US)
			j++;
		for (size_t k = i; k < j; k++) {
			if (keep && !keep(&a[k]))
				continue;
			if (!kept++)
				first = k, l0 = l1 = a[k].line;
			last = k;
			l0 = a[k].line < l0 ? a[k].line : l0;
			l1 = a[k].line > l1 ? a[k].line : l1;
		}
		if (kept)
			len += (size_t)snprintf(out + len, cap - len,
						"B %lld %lld %lld %lld %d %zu %lld %lld %lld %lld\n",
						(long long)a[i].series, (long long)a[i].stream,
						(long long)a[i].file, (long long)a[i].path, a[i].est,
						kept, (long long)a[first].ts, (long long)a[last].ts,
						(long long)l0, (long long)l1);
		for (size_t k = i; k < j; k++)
			if (!keep || keep(&a[k]))
				len += (size_t)snprintf(out + len, cap - len, "%lld %.17g %lld\n",
							(long long)a[k].ts, a[k].value,
							(long long)a[k].line);
		i = j;
	}
	return out;
}

/* What the table holds, in the same shape, read through json_each. */
static char *stored(sqlite3 *db)
{
	sqlite3_stmt *b, *s;
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = 0;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, series_id, stream_id, ifnull(file_id, 0),"
					    " ifnull(path_id, 0), ts_estimated, n, t0_us, t1_us,"
					    " line0, line1 FROM sample_blocks ORDER BY series_id,"
					    " stream_id, file_id, path_id, ts_estimated, t0_us",
					    -1, &b, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT k.t0_us + (j.value ->> 0), j.value ->> 1,"
					    " k.line0 + (j.value ->> 2) FROM sample_blocks k,"
					    " json_each(k.data) j WHERE k.id = ?1 ORDER BY j.key",
					    -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(b) == SQLITE_ROW) {
		if (len + 4096 * 96 > cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		len += (size_t)snprintf(out + len, cap - len,
					"B %lld %lld %lld %lld %d %lld %lld %lld %lld %lld\n",
					(long long)sqlite3_column_int64(b, 1),
					(long long)sqlite3_column_int64(b, 2),
					(long long)sqlite3_column_int64(b, 3),
					(long long)sqlite3_column_int64(b, 4), sqlite3_column_int(b, 5),
					(long long)sqlite3_column_int64(b, 6),
					(long long)sqlite3_column_int64(b, 7),
					(long long)sqlite3_column_int64(b, 8),
					(long long)sqlite3_column_int64(b, 9),
					(long long)sqlite3_column_int64(b, 10));
		sqlite3_bind_int64(s, 1, sqlite3_column_int64(b, 0));
		while (sqlite3_step(s) == SQLITE_ROW)
			len += (size_t)snprintf(out + len, cap - len, "%lld %.17g %lld\n",
						(long long)sqlite3_column_int64(s, 0),
						sqlite3_column_double(s, 1),
						(long long)sqlite3_column_int64(s, 2));
		sqlite3_reset(s);
	}
	sqlite3_finalize(b);
	sqlite3_finalize(s);
	return out;
}

static void assert_text_equal(const char *want, const char *got)
{
	if (strcmp(want, got) == 0)
		return;
	size_t i = 0;

	while (want[i] && want[i] == got[i])
		i++;
	size_t from = i > 80 ? i - 80 : 0;

	fail_msg("blocks differ at byte %zu:\nwant ...%.160s\ngot  ...%.160s", i, want + from,
		 got + from);
}

static struct added *samples;
static size_t nsamples, capsamples;

static void add(struct gl_sbw *w, int64_t series, int64_t stream, int64_t file, int64_t path,
		int est, int64_t ts, double value, int64_t line)
{
	struct gl_err err;

	if (nsamples == capsamples) {
		capsamples = capsamples ? capsamples * 2 : 1024;
		samples = realloc(samples, capsamples * sizeof(*samples));
		assert_non_null(samples);
	}
	samples[nsamples] = (struct added){series, stream, file, path, est, ts, line, value, nsamples};
	nsamples++;
	assert_int_equal(gl_sbw_add(w, series, stream, file, path, est, ts, value, line, &err), GL_OK);
}

/* A run's end: the batch written and its few-sample keys merged from the
 * stage (sblock_merge.h), every block closed (now far after their hour). */
static int flush(sqlite3 *db, struct gl_sbw *w, struct gl_err *err)
{
	int rc = gl_sbw_flush(w, err);

	return rc == GL_OK ? gl_sblock_merge_open(db, ":memory:", INT64_MAX, NULL, err) : rc;
}

static sqlite3 *open_db(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ddl, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static void check(sqlite3 *db)
{
	struct added *a = malloc((nsamples ? nsamples : 1) * sizeof(*a));

	assert_non_null(a);
	memcpy(a, samples, nsamples * sizeof(*a));
	qsort(a, nsamples, sizeof(*a), by_key_time);
	char *want = expected(a, nsamples), *got = stored(db);

	assert_text_equal(want, got);
	free(want);
	free(got);
	free(a);
}

/* Fills w with the test's batch: several keys, interleaved. */
static void fill(struct gl_sbw *w)
{
	const int64_t t = 1736208000000000LL;

	nsamples = 0;
	/* series 1: 10,000 samples 0.1 s apart: 4096, 4096, 1808 */
	/* series 2: 181 samples 1 min apart (3 h): cut by the hour, 61 61 59 */
	/* series 3: out of order, equal times (their order kept), estimated */
	/* series 1 again from another stream, file and path */
	for (int i = 0; i < 10000; i++) {
		add(w, 1, 1, 1, 1, 0, t + i * 100000LL, (double)(i % 101) / 4, 10 + i);
		if (i < 181)
			add(w, 2, 1, 1, 1, 0, t + i * 60000000LL, i * 0.5, 20000 + i);
		if (i < 50)
			add(w, 3, 1, 1, 1, 1, t + (int64_t)((i * 37) % 10) * 1000, -i, 30000 + i);
		if (i % 1000 == 0)
			add(w, 1, 2, 0, 3, 0, t + i, 1e300 / (i + 1), 1 + i / 1000);
	}
}

static void test_batch_to_blocks(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);

	assert_non_null(w);
	fill(w);
	assert_int_equal(flush(db, w, &err), GL_OK);
	check(db);
	/* 3 + 3 + 1 + 1 blocks */
	sqlite3_stmt *s;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), sum(n) FROM sample_blocks", -1, &s,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 8);
	assert_int_equal(sqlite3_column_int(s, 1), 10000 + 181 + 50 + 10);
	sqlite3_finalize(s);

	/* a second batch is new blocks; a reset batch stores nothing */
	size_t before = nsamples;

	add(w, 2, 1, 1, 1, 0, 5, 1, 1);
	assert_int_equal(flush(db, w, &err), GL_OK);
	add(w, 9, 9, 9, 9, 0, 5, 1, 1);
	gl_sbw_reset(w);
	nsamples = before + 1;
	check(db);
	gl_sbw_close(w);
	sqlite3_close(db);
}

/*
 * Series whose ids share a slot of the writer's recent-bucket cache
 * (1, 17, 33: equal mod 16), each under several keys (streams, files,
 * paths, estimated times), taking turns sample by sample, and a batch
 * after a reset: every sample in its own key's blocks, as computed here.
 */
static void test_colliding_series(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	const int64_t t = 1736208000000000LL;

	assert_non_null(w);
	nsamples = 0;
	for (int i = 0; i < 3000; i++) {
		add(w, 1, 1, 1, 1, 0, t + i * 1000000LL, i, 1 + i);
		add(w, 17, 1, 1, 1, 0, t + i * 1000000LL, -i, 1 + i);
		add(w, 1, 1, 2, 1, 0, t + i * 1000000LL, i + 0.5, 1 + i);
		if (i % 3 == 0)
			add(w, 33, 1, 1, 1, 1, t + i * 1000000LL, i * 2, 1 + i);
		if (i % 7 == 0)
			add(w, 1, 2, 1, 2, 0, t + i * 1000000LL, 7, 1 + i);
		if (i % 5 == 0)
			add(w, 17, 1, 1, 1, 1, t + i * 1000000LL, 5, 1 + i);
	}
	assert_int_equal(flush(db, w, &err), GL_OK);
	check(db);
	/* a new batch after the flush: the cache starts empty again */
	for (int i = 0; i < 40; i++) {
		add(w, 33, 3, 3, 3, 0, t + 4000000000LL + i, i, 5000 + i);
		add(w, 1, 3, 3, 3, 0, t + 4000000000LL + i, i, 5000 + i);
	}
	assert_int_equal(flush(db, w, &err), GL_OK);
	check(db);
	gl_sbw_close(w);
	sqlite3_close(db);
}

static int not_stream1_after_5000(const struct added *a)
{
	return !(a->stream == 1 && a->line > 5000);
}

static int not_before_500s(const struct added *a)
{
	return a->ts >= 1736208000000000LL + 500 * 1000000LL;
}

static void test_drop_after(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);

	assert_non_null(w);
	fill(w);
	assert_int_equal(flush(db, w, &err), GL_OK);
	/* stream 1 after line 5000: series 1 keeps lines 10..5000 (its
	 * second block cut), series 2 and 3 (lines 20000+) go; stream 2
	 * untouched */
	assert_int_equal(gl_sblock_drop_after(db, ":memory:", 1, 5000, &err), GL_OK);
	keep = not_stream1_after_5000;
	check(db);
	/* nothing after: nothing changes */
	assert_int_equal(gl_sblock_drop_after(db, ":memory:", 2, 100, &err), GL_OK);
	check(db);
	gl_sbw_close(w);
	sqlite3_close(db);
}

static void test_prune(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	const int64_t before = 1736208000000000LL + 500 * 1000000LL;	/* 500 s in */
	uint64_t dropped = 0, want = 0;
	int more = 1, rounds = 0;

	assert_non_null(w);
	fill(w);
	assert_int_equal(flush(db, w, &err), GL_OK);
	/* two blocks per call: several calls */
	while (more) {
		assert_int_equal(gl_sblock_prune(db, ":memory:", before, 2, &dropped, &more, &err),
				 GL_OK);
		rounds++;
		assert_true(rounds < 20);
	}
	assert_true(rounds > 1);
	for (size_t i = 0; i < nsamples; i++)
		want += samples[i].ts < before;
	assert_int_equal(dropped, want);
	keep = not_before_500s;
	check(db);
	gl_sbw_close(w);
	sqlite3_close(db);
}

static void test_damaged_block(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	uint64_t dropped = 0;
	int more;

	assert_int_equal(sqlite3_exec(db, "INSERT INTO sample_blocks (series_id, t0_us, t1_us, n,"
					  " stream_id, line0, line1, data) VALUES"
					  " (1, 0, 10, 2, 1, 1, 2, '[[0,1,0],[10,2')", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(gl_sblock_prune(db, "x.db", 5, 10, &dropped, &more, &err), GL_EDB);
	assert_non_null(strstr(err.msg, "sample_blocks row 1"));
	assert_int_equal(gl_sblock_drop_after(db, "x.db", 1, 1, &err), GL_EDB);
	sqlite3_close(db);
}

static int teardown(void **state)
{
	(void)state;
	free(samples);
	samples = NULL;
	nsamples = capsamples = 0;
	keep = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_batch_to_blocks, teardown),
		cmocka_unit_test_teardown(test_colliding_series, teardown),
		cmocka_unit_test_teardown(test_drop_after, teardown),
		cmocka_unit_test_teardown(test_prune, teardown),
		cmocka_unit_test(test_damaged_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
