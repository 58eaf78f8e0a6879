/*
 * test_sblock_merge.c - the end of a run's merge of staged samples
 * (lib/store/sblock_merge.c): scrape-like batches (one sample of each series
 * per file) become one block per series with every sample's origin; open
 * blocks grow across runs and stay above the closed ones; unsettled samples
 * stay staged until dropped; a merge a killed run left goes on from its
 * mark; a stage larger than a pass is merged by series ranges. Expected
 * values are the samples the test added.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
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

/* Every sample as stored, one line each, in a fixed order: series, time,
 * value, line, stream, file, path (a block's or, of several origins, its
 * own), and from where (B: a block, S: the stage). */
static const char samples_sql[] =
	"SELECT * FROM ("
	" SELECT b.series_id AS s, b.t0_us + (j.value ->> 0) AS t, j.value ->> 1 AS v,"
	"  b.line0 + (j.value ->> 2) AS l,"
	"  CASE WHEN b.origins IS NULL THEN b.stream_id"
	"   ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][0]') END AS st,"
	"  CASE WHEN b.origins IS NULL THEN ifnull(b.file_id, 0)"
	"   ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][1]') END AS f,"
	"  CASE WHEN b.origins IS NULL THEN ifnull(b.path_id, 0)"
	"   ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][2]') END AS p, 'B' AS w"
	" FROM sample_blocks b, json_each(b.data) j"
	" UNION ALL"
	" SELECT j.value ->> 0, j.value ->> 2, j.value ->> 3, j.value ->> 4,"
	"  s.origins ->> ('$[' || (j.value ->> 5) || '][0]'),"
	"  s.origins ->> ('$[' || (j.value ->> 5) || '][1]'),"
	"  s.origins ->> ('$[' || (j.value ->> 5) || '][2]'), 'S'"
	" FROM sample_stage s, json_each(s.data) j)"
	" ORDER BY s, t, st, l";

static sqlite3 *open_db(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ddl, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static int64_t qi(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The stored samples as text (samples_sql). */
static char *stored(sqlite3 *db)
{
	sqlite3_stmt *s;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);

	assert_non_null(out);
	out[0] = 0;
	assert_int_equal(sqlite3_prepare_v2(db, samples_sql, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (len + 256 > cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		len += (size_t)snprintf(out + len, cap - len, "%lld %lld %.17g %lld %lld %lld %lld %s\n",
					(long long)sqlite3_column_int64(s, 0),
					(long long)sqlite3_column_int64(s, 1),
					sqlite3_column_double(s, 2),
					(long long)sqlite3_column_int64(s, 3),
					(long long)sqlite3_column_int64(s, 4),
					(long long)sqlite3_column_int64(s, 5),
					(long long)sqlite3_column_int64(s, 6),
					(const char *)sqlite3_column_text(s, 7));
	}
	sqlite3_finalize(s);
	return out;
}

/* The expected text, built as the samples are added. */
struct want {
	char *text;
	size_t len, cap;
};

static void want_add(struct want *w, int64_t series, int64_t ts, double v, int64_t line,
		     int64_t stream, int64_t file, int64_t path, char where)
{
	if (w->len + 256 > w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1 << 16;
		w->text = realloc(w->text, w->cap);
		assert_non_null(w->text);
	}
	w->len += (size_t)snprintf(w->text + w->len, w->cap - w->len,
				   "%lld %lld %.17g %lld %lld %lld %lld %c\n", (long long)series,
				   (long long)ts, v, (long long)line, (long long)stream,
				   (long long)file, (long long)path, where);
}

static const int64_t T0 = 1763000000000000LL;	/* 2025-11-13T02:13:20Z */

/* One scrape file k (stream, file k + 1, path 100 + k): a sample of each
 * of nseries series, at T0 + k * 15 s, at line series + 1; one batch. */
static void scrape(struct gl_sbw *w, struct want *want, int k, int nseries, char where)
{
	struct gl_err err;

	for (int s = 1; s <= nseries; s++) {
		double v = k * 100 + s + 0.5;

		assert_int_equal(gl_sbw_add(w, s, k + 1, k + 1, 100 + k, 0, T0 + k * 15000000LL, v,
					    s + 1, &err), GL_OK);
		if (want)
			want_add(want, s, T0 + k * 15000000LL, v, s + 1, k + 1, k + 1, 100 + k,
				 where);
	}
	assert_int_equal(gl_sbw_flush(w, &err), GL_OK);
}

/* The wanted lines sorted as samples_sql orders them (series, time, stream,
 * line): the test adds them in that order within a series, so sorting the
 * lines by their first numbers suffices. */
static int line_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	long long xs, xt, xl, xst, ys, yt, yl, yst;
	double xv, yv;

	sscanf(x, "%lld %lld %lf %lld %lld", &xs, &xt, &xv, &xl, &xst);
	sscanf(y, "%lld %lld %lf %lld %lld", &ys, &yt, &yv, &yl, &yst);
	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (xt != yt)
		return xt < yt ? -1 : 1;
	if (xst != yst)
		return xst < yst ? -1 : 1;
	return xl < yl ? -1 : xl > yl;
}

static char *sorted(struct want *w)
{
	size_t n = 0;
	char **lines = NULL, *out = malloc(w->len + 1), *p;

	assert_non_null(out);
	for (char *l = w->text; l && *l; l = strchr(l, '\n') + 1) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = l;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	p = out;
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)(strchr(lines[i], '\n') - lines[i]) + 1;

		memcpy(p, lines[i], k);
		p += k;
	}
	*p = 0;
	free(lines);
	return out;
}

static void assert_samples(sqlite3 *db, struct want *w)
{
	char *want = sorted(w), *got = stored(db);

	if (strcmp(want, got) != 0) {
		size_t i = 0;

		while (want[i] && want[i] == got[i])
			i++;
		fail_msg("samples differ at byte %zu:\nwant ...%.200s\ngot  ...%.200s", i,
			 want + (i > 60 ? i - 60 : 0), got + (i > 60 ? i - 60 : 0));
	}
	free(want);
	free(got);
}

/* 40 scrape files of 30 series, a batch each: staged (no block), then one
 * closed block of 40 samples per series, each with its own file's origin. */
static void test_scrapes_merged(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	struct want want = {0}, staged = {0};
	struct gl_sblock_merged m;

	assert_non_null(w);
	for (int k = 0; k < 40; k++)
		scrape(w, &want, k, 30, 'B');
	for (int k = 0; k < 40; k++)
		for (int s = 1; s <= 30; s++)
			want_add(&staged, s, T0 + k * 15000000LL, k * 100 + s + 0.5, s + 1, k + 1,
				 k + 1, 100 + k, 'S');
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks"), 0);
	assert_int_equal(qi(db, "SELECT count(*), sum(n) FROM sample_stage"), 40);
	assert_samples(db, &staged);

	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, &m, &err), GL_OK);
	assert_int_equal(m.staged, 1200);
	assert_int_equal(m.blocks_out, 30);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks"), 30);
	assert_int_equal(qi(db, "SELECT min(n) = 40 AND max(n) = 40 FROM sample_blocks"), 1);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE open = 1"), 0);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE origins IS NULL"), 0);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_stage"), 0);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_merge"), 0);
	assert_samples(db, &want);
	/* nothing staged: a merge changes nothing */
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, &m, &err), GL_OK);
	assert_int_equal(m.blocks_out, 0);
	assert_samples(db, &want);
	gl_sbw_close(w);
	free(want.text);
	free(staged.text);
	sqlite3_close(db);
}

/* Runs of recent scrapes: each series' block stays open and grows; a closed
 * block written after them is below them again after the merge; an open
 * block whose hour has passed is closed. */
static void test_open_blocks_grow(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	struct want want = {0};
	int64_t now = T0 + 10 * 60000000LL;	/* ten minutes after the first scrape */

	assert_non_null(w);
	for (int k = 0; k < 3; k++)
		scrape(w, &want, k, 5, 'B');
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", now, NULL, &err), GL_OK);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE open = 1 AND n = 3"), 5);
	/* a closed block (100 samples of series 99 from one file) after them */
	for (int i = 0; i < 100; i++) {
		assert_int_equal(gl_sbw_add(w, 99, 77, 77, 177, 0, T0 + i * 1000000LL, i, i + 1, &err),
				 GL_OK);
		want_add(&want, 99, T0 + i * 1000000LL, i, i + 1, 77, 77, 177, 'B');
	}
	assert_int_equal(gl_sbw_flush(w, &err), GL_OK);
	for (int k = 3; k < 5; k++)
		scrape(w, &want, k, 5, 'B');
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", now, NULL, &err), GL_OK);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE open = 1 AND n = 5"), 5);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE open = 0"), 1);
	assert_int_equal(qi(db, "SELECT (SELECT max(id) FROM sample_blocks WHERE open = 0) <"
				" (SELECT min(id) FROM sample_blocks WHERE open = 1)"), 1);
	assert_samples(db, &want);
	/* a run with nothing staged, after their hour: closed where they are */
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", T0 + 2 * 3600000000LL, NULL, &err),
			 GL_OK);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE open = 1"), 0);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks"), 6);
	assert_samples(db, &want);
	gl_sbw_close(w);
	free(want.text);
	sqlite3_close(db);
}

/* Samples of a stream whose last record is open (line past streams.lines)
 * stay staged; the run that replaces the record drops them from the stage. */
static void test_unsettled_stay_staged(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	struct want want = {0};

	assert_non_null(w);
	/* scrape file k = 2 is stream 3: two lines stored, the third open */
	assert_int_equal(sqlite3_exec(db, "INSERT INTO streams VALUES (3, 2, 1)", NULL, NULL, NULL),
			 SQLITE_OK);
	for (int k = 0; k < 3; k++)
		scrape(w, NULL, k, 3, 'B');
	for (int k = 0; k < 3; k++)
		for (int s = 1; s <= 3; s++)
			want_add(&want, s, T0 + k * 15000000LL, k * 100 + s + 0.5, s + 1, k + 1, k + 1,
				 100 + k, k == 2 && s + 1 > 2 ? 'S' : 'B');
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, NULL, &err), GL_OK);
	assert_samples(db, &want);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_stage"), 1);
	/* merged again (the record still open): the same */
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, NULL, &err), GL_OK);
	assert_samples(db, &want);
	/* the record read continued: its samples after line 2 go */
	assert_int_equal(gl_sblock_drop_after(db, ":memory:", 3, 2, &err), GL_OK);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_stage"), 0);
	free(want.text);
	want = (struct want){0};
	for (int k = 0; k < 3; k++)
		for (int s = 1; s <= 3; s++)
			if (!(k == 2 && s + 1 > 2))
				want_add(&want, s, T0 + k * 15000000LL, k * 100 + s + 0.5, s + 1, k + 1,
					 k + 1, 100 + k, 'B');
	assert_samples(db, &want);
	gl_sbw_close(w);
	free(want.text);
	sqlite3_close(db);
}

/* A merge killed after its passes of series 1 and 2: their blocks are
 * stored, their samples still staged, the mark says so. The next merge
 * makes blocks of series 3 and 4 only, and the stage and mark go. */
static void test_resume_from_mark(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	struct want want = {0};

	assert_non_null(w);
	for (int k = 0; k < 3; k++)
		scrape(w, NULL, k, 4, 'B');
	/* what the killed merge wrote for series 1 and 2: one block each */
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO sample_blocks (series_id, t0_us, t1_us, n, stream_id,"
				      " line0, line1, file_id, path_id, data) VALUES"
				      " (1, 1, 1, 1, 5, 1, 1, 5, 5, '[[0,11,0]]'),"
				      " (2, 2, 2, 1, 5, 1, 1, 5, 5, '[[0,22,0]]');"
				      "INSERT INTO sample_merge SELECT max(id), 2 FROM sample_stage;",
				      NULL, NULL, NULL), SQLITE_OK);
	want_add(&want, 1, 1, 11, 1, 5, 5, 5, 'B');
	want_add(&want, 2, 2, 22, 1, 5, 5, 5, 'B');
	for (int k = 0; k < 3; k++)
		for (int s = 3; s <= 4; s++)
			want_add(&want, s, T0 + k * 15000000LL, k * 100 + s + 0.5, s + 1, k + 1, k + 1,
				 100 + k, 'B');
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, NULL, &err), GL_OK);
	assert_samples(db, &want);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_stage"), 0);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_merge"), 0);
	gl_sbw_close(w);
	free(want.text);
	sqlite3_close(db);
}

/* More staged samples than a pass holds (GL_MERGE_CHUNK): merged by series
 * ranges, each series whole in one pass: its 240 samples of 240 files in
 * blocks of GL_SBLOCK_MULTI_MAX (128), then 112. */
static void test_passes(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct gl_err err;
	struct gl_sbw *w = gl_sbw_open(db, ":memory:", &err);
	const int nseries = 2200, nfiles = 240;	/* 528,000 samples, 59 min 45 s */
	struct gl_sblock_merged m;

	assert_true((uint64_t)nseries * nfiles > GL_MERGE_CHUNK);
	assert_non_null(w);
	for (int k = 0; k < nfiles; k++)
		scrape(w, NULL, k, nseries, 'B');
	assert_int_equal(gl_sblock_merge_open(db, ":memory:", INT64_MAX, &m, &err), GL_OK);
	assert_int_equal(m.staged, (uint64_t)nseries * nfiles);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks"), 2 * nseries);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE n = 128"), nseries);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_blocks WHERE n = 112"), nseries);
	/* each sample: its series' value at its file's time, file k (path
	 * 100 + k) once for each series */
	static const char each[] =
		"FROM (SELECT b.series_id AS s, b.t0_us + (j.value ->> 0) AS t, j.value ->> 1 AS v,"
		" (b.origins ->> ('$[' || (j.value ->> 3) || '][2]')) - 100 AS k"
		" FROM sample_blocks b, json_each(b.data) j)";
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT count(*) %s WHERE v <> k * 100 + s + 0.5"
		 " OR t <> %lld + k * 15000000", each, (long long)T0);
	assert_int_equal(qi(db, sql), 0);
	snprintf(sql, sizeof(sql), "SELECT count(DISTINCT s * 1000 + k) %s", each);
	assert_int_equal(qi(db, sql), nseries * nfiles);
	assert_int_equal(qi(db, "SELECT count(*) FROM sample_stage"), 0);
	gl_sbw_close(w);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scrapes_merged),
		cmocka_unit_test(test_open_blocks_grow),
		cmocka_unit_test(test_unsettled_stay_staged),
		cmocka_unit_test(test_resume_from_mark),
		cmocka_unit_test(test_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
