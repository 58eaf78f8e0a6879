/*
 * test_query_samples.c - lib/store/query_samples.c on a schema-4 database
 * (samples packed per series in sample_blocks): random samples of several
 * series in overlapping blocks come out of gl_query_samples as the same
 * samples sorted by (ts, block id, index) with qsort here, through the
 * reader thread and in one thread; the spans against a brute-force walk of
 * the same samples; malformed blocks are GL_EDB naming the block; a
 * schema-3 database of the same samples as rows gives the same answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/query.h"
#include "store/sblock.h"
#include "util/timeutil.h"

/* A database path of this process's own under /tmp: a second run of the
 * tests beside this one (make check and make test at once) uses others. */
static const char *tmp_db(const char *name)
{
	static char path[4][128];
	static unsigned k;
	char *b = path[k++ % 4];

	snprintf(b, sizeof(path[0]), "/tmp/%s.%ld.db", name, (long)getpid());
	return b;
}

#define HOUR_US GL_SBLOCK_SPAN_US
#define BASE_US 1700000000000000LL	/* 2023-11-14T22:13:20Z */

/* The tables gl_query_open and the samples need, as schema 4 has them. */
static const char ddl[] =
	"PRAGMA application_id = 1735420007; PRAGMA user_version = 4;"
	"CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, metric_id INTEGER NOT NULL,"
	" device TEXT, host_id INTEGER, source TEXT NOT NULL, labels TEXT);"
	"CREATE TABLE sample_blocks ("
	" id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL REFERENCES series(id),"
	" t0_us INTEGER NOT NULL, t1_us INTEGER NOT NULL, n INTEGER NOT NULL,"
	" ts_estimated INTEGER NOT NULL DEFAULT 0, stream_id INTEGER NOT NULL,"
	" line0 INTEGER NOT NULL, line1 INTEGER NOT NULL, file_id INTEGER, path_id INTEGER,"
	" data TEXT NOT NULL);"
	"CREATE INDEX sample_blocks_t0 ON sample_blocks (t0_us);"
	"INSERT INTO names(id, name) VALUES (1, 'gpu.power_w');";

/* One sample as the test knows it: its block and place there. */
struct xs {
	int64_t ts_us, block_id, index, series_id;
	double value;
};

struct blk {
	int64_t id, series_id, t0_us;
	size_t n;
	struct gl_sblock_sample *s;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t rnd_in(int64_t lo, int64_t hi)	/* [lo, hi] */
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

static int cmp_xs(const void *pa, const void *pb)
{
	const struct xs *a = pa, *b = pb;

	if (a->ts_us != b->ts_us)
		return a->ts_us < b->ts_us ? -1 : 1;
	if (a->block_id != b->block_id)
		return a->block_id < b->block_id ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Writes blocks b[0..n) with their ids. */
static void put_blocks(const char *path, const struct blk *b, size_t n)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *buf = NULL;
	size_t cap = 0;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "INSERT INTO sample_blocks(id, series_id, t0_us, t1_us, n,"
					    " stream_id, line0, line1, data)"
					    " VALUES (?1, ?2, ?3, ?4, ?5, 1, 1, ?6, ?7)",
					    -1, &st, NULL),
			 SQLITE_OK);
	for (size_t i = 0; i < n; i++) {
		size_t len = gl_sblock_encode(b[i].s, b[i].n, b[i].t0_us, 1, &buf, &cap);

		assert_true(len > 0);
		sqlite3_bind_int64(st, 1, b[i].id);
		sqlite3_bind_int64(st, 2, b[i].series_id);
		sqlite3_bind_int64(st, 3, b[i].t0_us);
		sqlite3_bind_int64(st, 4, b[i].s[b[i].n - 1].ts_us);
		sqlite3_bind_int64(st, 5, (int64_t)b[i].n);
		sqlite3_bind_int64(st, 6, (int64_t)b[i].n);
		sqlite3_bind_text(st, 7, buf, (int)len, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	free(buf);
}

/*
 * The same samples as schema 3 stores them, one row each, id = block id *
 * 4096 + index (v_samples' id of schema 4): gpulog-report reads such a
 * database without migrating it.
 */
static void make_db3(const char *path, const struct blk *b, size_t nb, int n_series)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[128];

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
				      "CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT);"
				      "CREATE TABLE series (id INTEGER PRIMARY KEY, metric_id INTEGER,"
				      " device TEXT, host_id INTEGER, source TEXT, labels TEXT);"
				      "CREATE TABLE samples (ts_us INTEGER NOT NULL, id INTEGER NOT NULL,"
				      " series_id INTEGER NOT NULL, value REAL NOT NULL,"
				      " ts_estimated INTEGER NOT NULL DEFAULT 0, stream_id INTEGER NOT NULL,"
				      " line INTEGER NOT NULL, file_id INTEGER, path_id INTEGER,"
				      " PRIMARY KEY (ts_us, id)) WITHOUT ROWID;"
				      "BEGIN",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	for (int i = 1; i <= n_series; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO series(id, metric_id, source) VALUES (%d, 1, 'x')", i);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(sqlite3_prepare_v2(db,
					    "INSERT INTO samples(ts_us, id, series_id, value, stream_id,"
					    " line) VALUES (?1, ?2, ?3, ?4, 1, 1)",
					    -1, &st, NULL),
			 SQLITE_OK);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < b[i].n; j++) {
			sqlite3_bind_int64(st, 1, b[i].s[j].ts_us);
			sqlite3_bind_int64(st, 2, b[i].id * GL_SBLOCK_MAX + (int64_t)j);
			sqlite3_bind_int64(st, 3, b[i].series_id);
			sqlite3_bind_double(st, 4, b[i].s[j].value);
			assert_int_equal(sqlite3_step(st), SQLITE_DONE);
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void make_db(const char *path, int n_series)
{
	sqlite3 *db;
	char sql[128];

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, ddl, NULL, NULL, NULL), SQLITE_OK);
	for (int i = 1; i <= n_series; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO series(id, metric_id, device, source) VALUES (%d, 1, '%d', 'x')",
			 i, i - 1);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	sqlite3_close(db);
}

/*
 * Random blocks of n_series series beginning in [BASE - 2 h, BASE - 2 h +
 * hours): times on a 250 ms grid (so that series share times, and a block
 * repeats a time), 1..max_n samples per block over up to an hour, a fifth
 * of them single samples; two blocks of a series often overlap (two
 * streams). Ids are given in a shuffled order, so that storing order is
 * not time order.
 */
static struct blk *gen_blocks(size_t nb, int n_series, size_t max_n, int64_t hours)
{
	struct blk *b = calloc(nb, sizeof(*b));
	int64_t *ids = malloc(nb * sizeof(*ids));

	assert_non_null(b);
	assert_non_null(ids);
	for (size_t i = 0; i < nb; i++)
		ids[i] = (int64_t)i + 1;
	for (size_t i = nb - 1; i > 0; i--) {
		size_t j = (size_t)(rnd() % (i + 1));
		int64_t t = ids[i];

		ids[i] = ids[j];
		ids[j] = t;
	}
	for (size_t i = 0; i < nb; i++) {
		size_t n = rnd() % 5 == 0 ? 1 : (size_t)rnd_in(2, (int64_t)max_n);
		int64_t span = rnd() % 3 == 0 ? HOUR_US : rnd_in(0, HOUR_US);

		b[i].id = ids[i];
		b[i].series_id = rnd_in(1, n_series);
		b[i].t0_us = BASE_US - 2 * HOUR_US + rnd_in(0, hours * 4 * 3600) * 250000;
		b[i].n = n;
		b[i].s = malloc(n * sizeof(*b[i].s));
		assert_non_null(b[i].s);
		/* dt: sorted random offsets on the grid within span; the first is 0 */
		int64_t *dt = malloc(n * sizeof(*dt));

		dt[0] = 0;
		for (size_t k = 1; k < n; k++)
			dt[k] = rnd_in(0, span / 250000) * 250000;
		qsort(dt + 1, n - 1, sizeof(*dt), cmp_i64);
		for (size_t k = 0; k < n; k++) {
			b[i].s[k].ts_us = b[i].t0_us + dt[k];
			/* values of the kinds telemetry has: integers, short decimals, any double */
			switch (rnd() % 3) {
			case 0:
				b[i].s[k].value = (double)rnd_in(0, 100);
				break;
			case 1:
				b[i].s[k].value = (double)rnd_in(-100000, 100000) / 100;
				break;
			default:
				b[i].s[k].value = (double)rnd() / 3.0e15;
			}
			b[i].s[k].line = 1 + (int64_t)k;
		}
		free(dt);
	}
	free(ids);
	return b;
}

static void free_blocks(struct blk *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++)
		free(b[i].s);
	free(b);
}

/* The samples of b with since <= ts < until, sorted by (ts, block id, index); *n the count. */
static struct xs *expect(const struct blk *b, size_t nb, int64_t since, int64_t until, size_t *n)
{
	size_t total = 0, k = 0;
	struct xs *x;

	for (size_t i = 0; i < nb; i++)
		total += b[i].n;
	x = malloc((total + 1) * sizeof(*x));
	assert_non_null(x);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < b[i].n; j++)
			if (b[i].s[j].ts_us >= since && b[i].s[j].ts_us < until)
				x[k++] = (struct xs){b[i].s[j].ts_us, b[i].id, (int64_t)j,
						     b[i].series_id, b[i].s[j].value};
	qsort(x, k, sizeof(*x), cmp_xs);
	*n = k;
	return x;
}

struct got {
	struct gl_query_sample *s;
	size_t n, cap, stop_at;
};

static int collect(void *arg, const struct gl_query_sample *s)
{
	struct got *g = arg;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->s = realloc(g->s, g->cap * sizeof(*g->s));
		assert_non_null(g->s);
	}
	g->s[g->n++] = *s;
	return g->stop_at && g->n == g->stop_at ? 7 : 0;
}

/* gl_query_samples over [since, until) in both modes equals the expectation. */
static void check_window(struct gl_query *q, const struct blk *b, size_t nb, int64_t since,
			 int64_t until)
{
	size_t nx;
	struct xs *x = expect(b, nb, since, until, &nx);
	struct gl_err err;

	for (int mode = 0; mode < 2; mode++) {
		struct got g = {0};
		unsigned flags = mode ? GL_QUERY_ONE_THREAD : 0;

		assert_int_equal(gl_query_samples_flags(q, since, until, flags, collect, &g, &err),
				 GL_OK);
		assert_int_equal(g.n, nx);
		for (size_t i = 0; i < nx; i++) {
			if (g.s[i].ts_us != x[i].ts_us || g.s[i].series_id != x[i].series_id ||
			    memcmp(&g.s[i].value, &x[i].value, sizeof(double)) != 0)
				fail_msg("sample %zu of [%lld, %lld) mode %d: got (%lld, %lld, %.17g),"
					 " want (%lld, %lld, %.17g) of block %lld",
					 i, (long long)since, (long long)until, mode,
					 (long long)g.s[i].ts_us, (long long)g.s[i].series_id,
					 g.s[i].value, (long long)x[i].ts_us,
					 (long long)x[i].series_id, x[i].value,
					 (long long)x[i].block_id);
		}
		free(g.s);
	}
	/* the spans: brute force over the same samples */
	int64_t f, l, wf = GL_TS_NONE, wl = GL_TS_NONE;

	if (nx) {
		wf = x[0].ts_us;
		wl = x[nx - 1].ts_us;
	}
	assert_int_equal(gl_query_samples_span(q, since, until, &f, &l, &err), GL_OK);
	assert_true(f == wf);
	assert_true(l == wl);
	/* each series alone, and series 1 and 3 together */
	for (int64_t sid = 0; sid <= 5; sid++) {
		int64_t ids[2] = {sid, 3};
		size_t nid = sid == 0 ? 2 : 1;

		if (sid == 0)
			ids[0] = 1;
		wf = wl = GL_TS_NONE;
		for (size_t i = 0; i < nx; i++)
			if (x[i].series_id == ids[0] || (nid == 2 && x[i].series_id == ids[1])) {
				if (wf == GL_TS_NONE)
					wf = x[i].ts_us;
				wl = x[i].ts_us;
			}
		assert_int_equal(gl_query_series_span(q, ids, nid, since, until, &f, &l, &err),
				 GL_OK);
		if (f != wf || l != wl)
			fail_msg("series %lld span of [%lld, %lld): got %lld..%lld, want %lld..%lld",
				 (long long)ids[0], (long long)since, (long long)until,
				 (long long)f, (long long)l, (long long)wf, (long long)wl);
	}
	free(x);
}

/*
 * 600 random blocks of 5 series (about 60,000 samples: the ring of 8 slots
 * of 8192 turns over), and hand-placed edge cases: blocks beginning exactly
 * an hour before since (one ends at since, one just before), a block
 * beginning at until, single samples at since and at until - 1, two series
 * with samples at the same times.
 */
static void test_random_blocks(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples1");
	const size_t nr = 600, ne = 6, nb = nr + ne;
	const int64_t since = BASE_US, until = BASE_US + 3 * HOUR_US + 1;
	struct blk *b = gen_blocks(nb, 5, 400, 8);
	struct gl_query *q;
	struct gl_err err;

	/* the edge cases overwrite the last ne random blocks (ids kept) */
	struct { int64_t series, t0; size_t n; int64_t dt_last; } e[6] = {
		{1, since - HOUR_US, 3, HOUR_US},	/* last sample at since: in */
		{2, since - HOUR_US, 2, HOUR_US - 1},	/* all before since: out */
		{3, until, 2, 10},			/* begins at until: out */
		{4, since, 1, 0},			/* single, at since */
		{5, until - 1, 1, 0},			/* single, at until - 1 */
		{2, since - HOUR_US, 4, HOUR_US},	/* same times as the first, other series */
	};
	for (size_t i = 0; i < ne; i++) {
		struct blk *k = &b[nr + i];

		k->series_id = e[i].series;
		k->t0_us = e[i].t0;
		k->n = e[i].n;
		k->s = realloc(k->s, k->n * sizeof(*k->s));
		assert_non_null(k->s);
		for (size_t j = 0; j < k->n; j++) {
			k->s[j].ts_us = e[i].t0 + (j + 1 == k->n ? e[i].dt_last : (int64_t)j);
			k->s[j].value = (double)(100 * i + j);
			k->s[j].line = (int64_t)j + 1;
		}
	}
	make_db(p, 5);
	put_blocks(p, b, nb);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	check_window(q, b, nb, since, until);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	check_window(q, b, nb, BASE_US - 10 * HOUR_US, BASE_US - 2 * HOUR_US);	/* none */
	check_window(q, b, nb, since, since);	/* empty */
	for (int w = 0; w < 12; w++) {
		int64_t a = BASE_US - 3 * HOUR_US + rnd_in(0, 10 * 3600) * 1000000;
		int64_t len = rnd() % 2 ? rnd_in(1, 4) * 250000 : rnd_in(1, 4 * 3600) * 1000000;

		check_window(q, b, nb, a, a + len);
	}
	/* a stop from fn ends the walk with its value, and the next walk is whole */
	struct got g = {.stop_at = 30000};

	assert_int_equal(gl_query_samples(q, INT64_MIN, INT64_MAX, collect, &g, &err), 7);
	assert_int_equal(g.n, 30000);
	free(g.s);
	memset(&g, 0, sizeof(g));
	g.stop_at = 20001;
	assert_int_equal(gl_query_samples_flags(q, INT64_MIN, INT64_MAX, GL_QUERY_ONE_THREAD, collect,
						&g, &err),
			 7);
	assert_int_equal(g.n, 20001);
	free(g.s);
	check_window(q, b, nb, since, until);
	gl_query_close(q);
	/* schema 3: the same samples as rows, the same answers */
	make_db3(p, b, nb, 5);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	check_window(q, b, nb, since, until);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	check_window(q, b, nb, since, since);
	for (int w = 0; w < 4; w++) {
		int64_t a = BASE_US - 3 * HOUR_US + rnd_in(0, 10 * 3600) * 1000000;

		check_window(q, b, nb, a, a + rnd_in(1, 4 * 3600) * 1000000);
	}
	gl_query_close(q);
	free_blocks(b, nb);
	unlink(p);
}

/* 48 series sampled at the same seconds, as nvidia-smi writes them: the
 * heap's ties are broken by block id every second. */
static void test_same_times(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples2");
	enum { SERIES = 48, HOURS = 3, PER = 3600 };
	const size_t nb = SERIES * HOURS;
	struct blk *b = calloc(nb, sizeof(*b));
	struct gl_query *q;
	struct gl_err err;

	assert_non_null(b);
	/* stored hour by hour, series in reverse: block ids against series order */
	for (size_t h = 0, i = 0; h < HOURS; h++)
		for (int sid = SERIES; sid >= 1; sid--, i++) {
			b[i].id = (int64_t)i + 1;
			b[i].series_id = sid;
			b[i].t0_us = BASE_US + (int64_t)h * HOUR_US;
			b[i].n = PER;
			b[i].s = malloc(PER * sizeof(*b[i].s));
			assert_non_null(b[i].s);
			for (size_t k = 0; k < PER; k++)
				b[i].s[k] = (struct gl_sblock_sample){
					b[i].t0_us + (int64_t)k * 1000000,
					(double)sid + (double)k / 1000, (int64_t)k + 1};
		}
	make_db(p, SERIES);
	put_blocks(p, b, nb);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	check_window(q, b, nb, BASE_US + 1800 * 1000000LL, BASE_US + 7300 * 1000000LL);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	gl_query_close(q);
	free_blocks(b, nb);
	unlink(p);
}

/*
 * Two readers over slices (query_samples.c cuts a window whose blocks span
 * 8 h or more into slices of at least 4 h, read in turn by two threads):
 * 1,500 random blocks of 40 series over 3 days, hundreds of them across
 * some slice's end, come out in the order qsort gives here, in windows
 * long enough to be sliced and in short ones. A 16-hour window inside the
 * blocks' span is cut at exactly 4, 8 and 12 h past its start; there
 * blocks of three series hold samples at each cut (twice), one across it,
 * one ending at it, one beginning at it: the cut's samples come once, in
 * (time, block id, index) order. A stop from fn ends the walk with its
 * value, and the next walk is whole.
 */
static void test_sliced(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples5");
	const size_t nr = 1500, ne = 9, nb = nr + ne;
	struct blk *b = gen_blocks(nb, 40, 300, 72);
	const int64_t since = BASE_US + 10 * HOUR_US, until = since + 16 * HOUR_US;
	struct gl_query *q;
	struct gl_err err;

	for (size_t i = 0; i < ne; i++) {
		struct blk *k = &b[nr + i];
		const int64_t cut = since + (int64_t)(i / 3 + 1) * 4 * HOUR_US;
		size_t n = 0;

		/* across the cut, ending at it, beginning at it */
		k->series_id = (int64_t)(i % 3) + 1;
		k->t0_us = i % 3 == 2 ? cut : cut - HOUR_US / 2;
		k->s = realloc(k->s, 6 * sizeof(*k->s));
		assert_non_null(k->s);
		if (i % 3 != 2) {
			k->s[n++].ts_us = k->t0_us;
			k->s[n++].ts_us = cut - 1;
		}
		k->s[n++].ts_us = cut;
		k->s[n++].ts_us = cut;
		if (i % 3 != 1) {
			k->s[n++].ts_us = cut + 1;
			k->s[n++].ts_us = cut + HOUR_US / 2;
		}
		k->n = n;
		for (size_t j = 0; j < n; j++) {
			k->s[j].value = (double)(1000 * i + j);
			k->s[j].line = (int64_t)j + 1;
		}
	}
	make_db(p, 40);
	put_blocks(p, b, nb);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	check_window(q, b, nb, since, until);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	check_window(q, b, nb, since + 1, until - 1);
	check_window(q, b, nb, BASE_US - 5 * HOUR_US, BASE_US + 9 * HOUR_US);
	for (int w = 0; w < 6; w++) {
		int64_t a = BASE_US - 3 * HOUR_US + rnd_in(0, 70 * 3600) * 1000000 + rnd_in(0, 999999);

		check_window(q, b, nb, a, a + rnd_in(1, 60 * 3600) * 1000000);
	}
	/* a stop from fn in a slice of the second reader, then a whole walk */
	struct got g = {.stop_at = 100001};

	assert_int_equal(gl_query_samples(q, INT64_MIN, INT64_MAX, collect, &g, &err), 7);
	assert_int_equal(g.n, 100001);
	free(g.s);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	gl_query_close(q);
	free_blocks(b, nb);
	unlink(p);
}

/*
 * Staged samples (schema 11: sample_stage, of a run under way or killed)
 * are read with the blocks, each as a block of one sample whose id is below
 * every block's (-2^62 + stage row * 65536 + index): over 3 days, and at
 * the same times as blocks' samples, they come first among equal times.
 */
static void test_sliced_staged(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples6");
	const size_t nr = 600, nst = 200, nb = nr + nst, per_row = 20;
	struct blk *b = gen_blocks(nb, 10, 200, 72);
	struct gl_stage_sample st[20];
	char *buf = NULL;
	size_t cap = 0;
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct gl_query *q;
	struct gl_err err;

	/* the last nst blocks become staged samples: the first sample of each,
	 * some at the time of a block's sample */
	for (size_t i = 0; i < nst; i++) {
		struct blk *k = &b[nr + i];
		const size_t row = 1 + i / per_row, j = i % per_row;

		if (i % 4 == 0)
			k->s[0].ts_us = b[i].s[b[i].n / 2].ts_us;
		k->n = 1;
		k->id = (int64_t)row * 65536 + (int64_t)j - 4611686018427387904LL;
		k->t0_us = k->s[0].ts_us;
	}
	make_db(p, 10);
	put_blocks(p, b, nr);
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TABLE sample_stage (id INTEGER PRIMARY KEY,"
				      " n INTEGER NOT NULL, origins TEXT NOT NULL, data TEXT NOT NULL);"
				      "CREATE TABLE sample_merge (stage_hi INTEGER NOT NULL,"
				      " series_done INTEGER NOT NULL);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "INSERT INTO sample_stage(id, n, origins, data)"
					    " VALUES (?1, ?2, '[[1,0,0]]', ?3)",
					    -1, &ins, NULL),
			 SQLITE_OK);
	for (size_t row = 1; row <= nst / per_row; row++) {
		for (size_t j = 0; j < per_row; j++) {
			const struct blk *k = &b[nr + (row - 1) * per_row + j];

			st[j] = (struct gl_stage_sample){k->series_id, k->s[0].ts_us, 1,
							 k->s[0].value, 0, 0};
		}
		size_t len = gl_sblock_stage_encode(st, per_row, &buf, &cap);

		assert_true(len > 0);
		sqlite3_bind_int64(ins, 1, (int64_t)row);
		sqlite3_bind_int64(ins, 2, (int64_t)per_row);
		sqlite3_bind_text(ins, 3, buf, (int)len, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	sqlite3_close(db);
	free(buf);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	check_window(q, b, nb, INT64_MIN, INT64_MAX);
	check_window(q, b, nb, BASE_US + 10 * HOUR_US, BASE_US + 26 * HOUR_US);
	gl_query_close(q);
	free_blocks(b, nb);
	unlink(p);
}

/*
 * A malformed block read by either reader, in the first slice, a slice of
 * the second reader, one of the first's, the last slice (of a 16-hour
 * window cut at 4, 8 and 12 h), and in a 3-day window: GL_EDB naming the
 * block, in both modes.
 */
static void test_sliced_malformed(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples7");
	const size_t nb = 400;
	const int64_t since = BASE_US + 10 * HOUR_US, until = since + 16 * HOUR_US;
	static const int64_t at_h[] = {1, 5, 9, 14};	/* hours past since */
	struct blk *b = gen_blocks(nb, 8, 100, 72);
	struct gl_query *q;
	struct gl_err err;
	char sql[256];

	for (size_t i = 0; i < sizeof(at_h) / sizeof(at_h[0]); i++) {
		sqlite3 *db;

		make_db(p, 8);
		put_blocks(p, b, nb);
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		snprintf(sql, sizeof(sql),
			 "INSERT INTO sample_blocks(id, series_id, t0_us, t1_us, n, stream_id,"
			 " line0, line1, data) VALUES (99999, 1, %lld, %lld, 2, 1, 1, 2, '[[0,1,0],[5')",
			 (long long)(since + at_h[i] * HOUR_US), (long long)(since + at_h[i] * HOUR_US + 5));
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		for (int w = 0; w < 2; w++)
			for (int mode = 0; mode < 2; mode++) {
				struct got g = {0};

				memset(&err, 0, sizeof(err));
				assert_int_equal(gl_query_samples_flags(q, w ? INT64_MIN : since,
									w ? INT64_MAX : until,
									mode ? GL_QUERY_ONE_THREAD : 0,
									collect, &g, &err),
						 GL_EDB);
				assert_string_equal(err.cause, "sample block 99999 is malformed");
				free(g.s);
			}
		gl_query_close(q);
	}
	free_blocks(b, nb);
	unlink(p);
}

/* The query uses the index on t0_us, in its order (no sort). */
static void test_plan(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples3");
	sqlite3 *db;
	sqlite3_stmt *st;
	char plan[1024] = "";

	make_db(p, 1);
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	/* the statement of query_samples.c */
	assert_int_equal(sqlite3_prepare_v2(db,
					    "EXPLAIN QUERY PLAN SELECT id, series_id, t0_us, n, data"
					    " FROM sample_blocks WHERE t0_us >= ?1 AND t0_us < ?2"
					    " ORDER BY t0_us, id",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		strncat(plan, (const char *)sqlite3_column_text(st, 3),
			sizeof(plan) - strlen(plan) - 2);
		strcat(plan, ";");
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_non_null(strstr(plan, "USING INDEX sample_blocks_t0"));
	assert_null(strstr(plan, "TEMP B-TREE"));
	unlink(p);
}

/*
 * Malformed blocks: broken text, n not the count of its entries, samples
 * out of time order, a sample more than an hour after t0 (by far: an offset
 * that would overflow when added to t0), before t0. Each is GL_EDB
 * naming the block, in both modes and in the spans when it lies across
 * the window's edge; never a crash.
 */
static void test_malformed(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_samples4");
	static const struct {
		int64_t n;
		const char *data;
	} bad[] = {
		{2, "[[0,1,0],[5"},
		{3, "[[0,1,0],[5,2,1]]"},
		{1, "[[0,1,0],[5,2,1]]"},
		{2, "[[0,1,0],[-5,2,1]]"},
		{2, "[[5,1,0],[3,2,1]]"},
		{2, "[[0,1,0],[3600000001,2,1]]"},
		{2, "[[0,1,0],[9223372036854775000,2,1]]"},
		{1, "[[-9000000000000000000,1,0]]"},
		{0, "[]"},
		{1, "not json"},
	};
	struct gl_query *q;
	struct gl_err err;
	char sql[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sqlite3 *db;

		make_db(p, 1);
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		/* a good block before it, and the bad one (id 9) across the window's start */
		snprintf(sql, sizeof(sql),
			 "INSERT INTO sample_blocks(id, series_id, t0_us, t1_us, n, stream_id,"
			 " line0, line1, data) VALUES (3, 1, 1000, 1000, 1, 1, 1, 1, '[[0,7,0]]'),"
			 " (9, 1, 5000, 5010, %lld, 1, 1, 2, '%s')",
			 (long long)bad[i].n, bad[i].data);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		for (int mode = 0; mode < 2; mode++) {
			struct got g = {0};

			memset(&err, 0, sizeof(err));
			assert_int_equal(gl_query_samples_flags(q, 0, 100000,
								mode ? GL_QUERY_ONE_THREAD : 0,
								collect, &g, &err),
					 GL_EDB);
			assert_string_equal(err.cause, "sample block 9 is malformed");
			free(g.s);
		}
		int64_t f, l, one = 1;

		assert_int_equal(gl_query_samples_span(q, 5005, 100000, &f, &l, &err), GL_EDB);
		assert_string_equal(err.cause, "sample block 9 is malformed");
		assert_int_equal(gl_query_series_span(q, &one, 1, 0, 5005, &f, &l, &err), GL_EDB);
		/* a window that does not reach the block reads the good one only */
		assert_int_equal(gl_query_samples_span(q, 0, 2000, &f, &l, &err), GL_OK);
		assert_true(f == 1000 && l == 1000);
		gl_query_close(q);
	}
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_blocks),
		cmocka_unit_test(test_same_times),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_sliced),
		cmocka_unit_test(test_sliced_staged),
		cmocka_unit_test(test_sliced_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
