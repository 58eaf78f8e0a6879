/*
 * query_samples.c - metric samples for gpulog-report. In: a database of
 * schema 4 (samples packed per series in sample_blocks, see sblock.h) or 3
 * (one samples row per sample, read without migrating), and a time window.
 * Out: the window's samples in (ts_us, id) order through a callback, and
 * the first and last sample times of the window.
 *
 * Blocks of different series overlap in time, and so do blocks of one
 * series read from two streams: the reader (a second thread, see
 * gl_query_pipe_run, or two over time slices, see samples_sliced) opens
 * the blocks in order of t0_us (the index
 * sample_blocks_t0), decodes them and merges their samples by their place,
 * (ts_us, block id, index in block): the id of the view v_samples, block
 * id * 4096 + index. A block is opened before any sample at or
 * after its t0_us is handed on, and since a block spans at most
 * GL_SBLOCK_SPAN_US, the window's blocks are those with t0_us in
 * [since - GL_SBLOCK_SPAN_US, until).
 */
#include "store/query_int.h"
#include "store/sblock.h"
#include "util/timeutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_BLOCK 8192	/* samples per slot of the ring */
#define SAMPLE_RING 8

/* a - b for b >= 0, not below INT64_MIN */
static int64_t sat_sub(int64_t a, int64_t b)
{
	return a < INT64_MIN + b ? INT64_MIN : a - b;
}

/* a + b for b >= 0, not above INT64_MAX */
static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/*
 * Decodes the block text into s[0..n) (cap >= n) and checks it: n samples,
 * in time order, within [t0_us, t0_us + GL_SBLOCK_SPAN_US]. Anything else
 * would put samples out of order or outside the blocks a window reads. The
 * text is read with t0 0, so that a damaged offset such as
 * [[9000000000000000000,1,0]] is caught here before it is added to t0_us.
 */
static bool block_decode(const char *text, size_t len, int64_t t0_us, int64_t n,
			 struct gl_sblock_sample *s)
{
	if (!text || n < 1 || n > GL_SBLOCK_MAX ||
	    gl_sblock_decode(text, len, 0, 0, s, (size_t)n) != n)
		return false;
	for (int64_t i = 0, prev = 0; i < n; i++) {
		int64_t dt = s[i].ts_us;

		if (dt < prev || dt > GL_SBLOCK_SPAN_US || t0_us > INT64_MAX - dt)
			return false;
		prev = dt;
		s[i].ts_us = t0_us + dt;
	}
	return true;
}

/* ---- schema 4: the merge of blocks ---- */

/*
 * The merge goes slice by slice. With the blocks beginning at or before
 * the earliest pending sample open (and those a little after it), every
 * sample before the next block's t0_us (the slice's end) is known: the open
 * blocks' samples there are gathered in order of (block id, index) and
 * sorted by time with a stable radix sort, which gives (ts, block id,
 * index). Telemetry sampled in step (48 series, one block per series and
 * hour) merges ten minutes of 48 blocks in one slice. A binary heap of the open blocks, keyed by (ts, block id), took
 * four times as long per sample (measured: 33 against 8 ns of the 50 ns a
 * sample costs in all, decoding being most of the rest): its comparisons
 * of equal times are branches the processor cannot predict.
 */

struct bcur {				/* an open block */
	struct gl_sblock_sample *s;	/* its samples in the window not yet sliced: s[pos..n) */
	size_t cap;
	size_t pos, n;
	int64_t id, series_id;
};

struct sent {				/* a sample of the slice */
	uint32_t rel_us;		/* ts_us - the slice's start */
	uint32_t cur;			/* its block: slice_series[cur] */
	double value;
};

/*
 * Blocks that begin less than this after the earliest pending sample are
 * opened too, so that a slice spans at least this long: a slice costs a
 * walk over the open blocks, and thousands of series whose blocks begin at
 * staggered times would otherwise make a slice per block.
 */
#define SLICE_MIN_US (GL_SBLOCK_SPAN_US / 16)
/* A slice ends this long after its start at the latest: its samples are
 * copied (16 bytes each) besides their decoded blocks, and a time in it
 * fits 32 bits past the start. */
#define SLICE_MAX_US (600 * 1000000LL)

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)

struct merge {
	int64_t since_us, until_us;
	struct bcur **open;		/* open blocks */
	size_t nopen;
	struct bcur **pool;		/* closed blocks, their buffers kept */
	size_t npool;			/* open and pool have room for capcur each */
	size_t capcur;
	bool started, done;		/* the statement was stepped; is at its end */
	int64_t next_t0;		/* t0_us of the row it is on, not yet opened */
	int64_t min_ts;			/* earliest pending sample of the open blocks */
	struct sent *sl, *tmp;		/* the slice, sorted; scratch */
	size_t nsl, possl, capsl;
	int64_t *sl_series;		/* series of the slice's blocks */
	size_t capser;
	int64_t sl_start;
	char msg[96];			/* a malformed block */
};

static void merge_recycle(struct merge *m, struct bcur *c)
{
	/* the pool has room for every cursor ever made (see merge_open) */
	m->pool[m->npool++] = c;
}

/* Steps st: SQLITE_ROW (next_t0 set), else done, and SQLite's code. */
static int merge_step(struct merge *m, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		m->next_t0 = sqlite3_column_int64(st, 2);
	else
		m->done = true;
	return rc;
}

/* Opens the block of the row st is on: SQLITE_OK, SQLITE_NOMEM or SQLITE_CORRUPT (msg). */
static int merge_open(struct merge *m, sqlite3_stmt *st)
{
	int64_t id = sqlite3_column_int64(st, 0);
	int64_t t0_us = sqlite3_column_int64(st, 2);
	int64_t n = sqlite3_column_int64(st, 3);
	const char *text = (const char *)sqlite3_column_text(st, 4);
	size_t len = (size_t)sqlite3_column_bytes(st, 4);
	struct bcur *c;

	if (n < 1 || n > GL_SBLOCK_MAX) {
		snprintf(m->msg, sizeof(m->msg), "sample block %lld is malformed", (long long)id);
		return SQLITE_CORRUPT;
	}
	if (m->npool) {
		c = m->pool[--m->npool];
	} else {
		/* a new cursor: room for it among the open and in the pool */
		if (m->nopen + 1 > m->capcur) {
			size_t cap = m->capcur ? m->capcur * 2 : 64;
			struct bcur **o = realloc(m->open, cap * sizeof(*o)), **p;

			if (!o)
				return SQLITE_NOMEM;
			m->open = o;
			if (!(p = realloc(m->pool, cap * sizeof(*p))))
				return SQLITE_NOMEM;
			m->pool = p;
			m->capcur = cap;
		}
		if (!(c = calloc(1, sizeof(*c))))
			return SQLITE_NOMEM;
	}
	if (c->cap < (size_t)n) {
		/* as many as the block holds: a scrape file's blocks hold one
		 * sample each, and 30,000 of them are open at once (issue 28 D11;
		 * 256 for each was 6 KiB a block) */
		size_t cap = c->cap ? c->cap : (size_t)n;
		struct gl_sblock_sample *s;

		while (cap < (size_t)n)
			cap *= 2;
		if (!(s = realloc(c->s, cap * sizeof(*s)))) {
			merge_recycle(m, c);
			return SQLITE_NOMEM;
		}
		c->s = s;
		c->cap = cap;
	}
	if (!block_decode(text, len, t0_us, n, c->s)) {
		merge_recycle(m, c);
		snprintf(m->msg, sizeof(m->msg), "sample block %lld is malformed", (long long)id);
		return SQLITE_CORRUPT;
	}
	c->id = id;
	c->series_id = sqlite3_column_int64(st, 1);
	c->pos = 0;
	c->n = (size_t)n;
	/* only the window's samples: the block may begin up to an hour before it */
	while (c->pos < c->n && c->s[c->pos].ts_us < m->since_us)
		c->pos++;
	while (c->n > c->pos && c->s[c->n - 1].ts_us >= m->until_us)
		c->n--;
	if (c->pos == c->n) {
		merge_recycle(m, c);
		return SQLITE_OK;
	}
	if (m->nopen == 0 || c->s[c->pos].ts_us < m->min_ts)
		m->min_ts = c->s[c->pos].ts_us;
	/* kept in block id order: blocks mostly open in it */
	size_t i = m->nopen++;

	while (i > 0 && m->open[i - 1]->id > id) {
		m->open[i] = m->open[i - 1];
		i--;
	}
	m->open[i] = c;
	return SQLITE_OK;
}

/* Sorts a[0..n) by rel_us, stably (tmp: scratch of n); returns the sorted array (a or tmp). */
static struct sent *slice_sort(struct sent *a, struct sent *tmp, size_t n)
{
	static const unsigned shift[3] = {0, RADIX_BITS, 2 * RADIX_BITS};
	size_t cnt[3][RADIX];

	if (n < 48) {
		for (size_t i = 1; i < n; i++) {
			struct sent e = a[i];
			size_t j = i;

			for (; j > 0 && a[j - 1].rel_us > e.rel_us; j--)
				a[j] = a[j - 1];
			a[j] = e;
		}
		return a;
	}
	memset(cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			cnt[d][(a[i].rel_us >> shift[d]) & (RADIX - 1)]++;
	for (int d = 0; d < 3; d++) {
		size_t sum = 0;
		bool one = false;

		for (unsigned b = 0; b < RADIX; b++) {
			size_t c = cnt[d][b];

			one |= c == n;
			cnt[d][b] = sum;
			sum += c;
		}
		if (one)		/* every key has this digit: the order stands */
			continue;
		for (size_t i = 0; i < n; i++)
			tmp[cnt[d][(a[i].rel_us >> shift[d]) & (RADIX - 1)]++] = a[i];
		struct sent *t = a;

		a = tmp;
		tmp = t;
	}
	return a;
}

/*
 * Makes the next slice: opens the blocks that begin before SLICE_MIN_US
 * past the earliest pending sample, gathers the samples before the next
 * block's t0_us, sorts them. SQLITE_ROW: a slice (m->nsl > 0);
 * SQLITE_DONE: no more; else an error (SQLITE_CORRUPT: m->msg).
 */
static int merge_slice(struct merge *m, sqlite3_stmt *st)
{
	int rc;
	size_t total = 0, k = 0;

	if (!m->started) {
		m->started = true;
		if ((rc = merge_step(m, st)) != SQLITE_ROW && rc != SQLITE_DONE)
			return rc;
	}
	while (!m->done && (m->nopen == 0 || m->next_t0 < sat_add(m->min_ts, SLICE_MIN_US))) {
		if ((rc = merge_open(m, st)) != SQLITE_OK)
			return rc;
		if ((rc = merge_step(m, st)) != SQLITE_ROW && rc != SQLITE_DONE)
			return rc;
	}
	if (m->nopen == 0)
		return SQLITE_DONE;
	/* before the next block, and at most SLICE_MAX_US */
	int64_t start = m->min_ts, end = sat_add(start, SLICE_MAX_US);

	if (!m->done && m->next_t0 < end)
		end = m->next_t0;
	for (size_t i = 0; i < m->nopen; i++) {
		const struct bcur *c = m->open[i];
		size_t lo = c->pos, hi = c->n;	/* the first sample at or after end */

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (c->s[mid].ts_us < end)
				lo = mid + 1;
			else
				hi = mid;
		}
		total += lo - c->pos;
	}
	if (total > m->capsl) {
		size_t cap = m->capsl ? m->capsl : 4096;
		struct sent *a, *b;

		while (cap < total)
			cap *= 2;
		free(m->sl);
		free(m->tmp);
		m->sl = a = malloc(cap * sizeof(*a));
		m->tmp = b = malloc(cap * sizeof(*b));
		m->capsl = a && b ? cap : 0;
		if (!a || !b)
			return SQLITE_NOMEM;
	}
	if (m->nopen > m->capser) {
		int64_t *s = realloc(m->sl_series, m->capcur * sizeof(*s));

		if (!s)
			return SQLITE_NOMEM;
		m->sl_series = s;
		m->capser = m->capcur;
	}
	/* in block id order, each block's samples in its order */
	struct sent *a = m->sl;
	size_t n = 0;
	int64_t next_min = INT64_MAX;

	for (size_t i = 0; i < m->nopen; i++) {
		struct bcur *c = m->open[i];
		const struct gl_sblock_sample *s = c->s;
		size_t p = c->pos;

		m->sl_series[i] = c->series_id;
		for (; p < c->n && s[p].ts_us < end; p++)
			a[n++] = (struct sent){(uint32_t)(s[p].ts_us - start), (uint32_t)i, s[p].value};
		c->pos = p;
	}
	/* the series of the slice are fixed: close the exhausted blocks after */
	m->nsl = n;
	m->possl = 0;
	m->sl_start = start;
	m->sl = slice_sort(a, m->tmp, n);
	m->tmp = m->sl == a ? m->tmp : a;
	for (size_t i = 0; i < m->nopen; i++) {
		struct bcur *c = m->open[i];

		if (c->pos == c->n) {
			merge_recycle(m, c);
			continue;
		}
		if (c->s[c->pos].ts_us < next_min)
			next_min = c->s[c->pos].ts_us;
		m->open[k++] = c;
	}
	m->nopen = k;
	m->min_ts = next_min;
	return SQLITE_ROW;
}

/*
 * Fills out[0..SAMPLE_BLOCK) with the next samples in order; *len gets the
 * count. SQLITE_ROW: more may follow; SQLITE_DONE: the end; else an error
 * (SQLITE_CORRUPT: m->msg).
 */
static int merge_fill(struct merge *m, sqlite3_stmt *st, struct gl_query_sample *out, size_t *len)
{
	size_t n = 0;
	int rc = SQLITE_ROW;

	while (n < SAMPLE_BLOCK) {
		if (m->possl == m->nsl && (rc = merge_slice(m, st)) != SQLITE_ROW)
			break;
		size_t k = m->nsl - m->possl;
		const struct sent *e = m->sl + m->possl;

		if (k > SAMPLE_BLOCK - n)
			k = SAMPLE_BLOCK - n;
		for (size_t i = 0; i < k; i++) {
			out[n + i].ts_us = m->sl_start + e[i].rel_us;
			out[n + i].series_id = m->sl_series[e[i].cur];
			out[n + i].value = e[i].value;
		}
		n += k;
		m->possl += k;
	}
	*len = n;
	return rc;
}

/* Back to the start of a window [since_us, until_us), the blocks' buffers kept. */
static void merge_reset(struct merge *m, int64_t since_us, int64_t until_us)
{
	for (size_t i = 0; i < m->nopen; i++)
		merge_recycle(m, m->open[i]);
	m->nopen = 0;
	m->since_us = since_us;
	m->until_us = until_us;
	m->started = m->done = false;
	m->nsl = m->possl = 0;
}

static void merge_release(struct merge *m)
{
	for (size_t i = 0; i < m->nopen; i++)
		merge_recycle(m, m->open[i]);
	for (size_t i = 0; i < m->npool; i++) {
		free(m->pool[i]->s);
		free(m->pool[i]);
	}
	free(m->pool);
	free(m->open);
	free(m->sl);
	free(m->tmp);
	free(m->sl_series);
}

static const char blocks_sql[] =
	"SELECT id, series_id, t0_us, n, data FROM sample_blocks"
	" WHERE t0_us >= ?1 AND t0_us < ?2 ORDER BY t0_us, id";

/*
 * Staged samples (schema 11, sblock_merge.h: a run under way or killed
 * before its end; not those a killed merge put in blocks already, as its
 * mark in sample_merge says) as blocks of one sample each, of ids below every block's
 * (-2^62 + stage row id * 65536 + index: in the order they were staged),
 * as the view v_samples numbers them.
 */
#define STAGED_BLOCKS(cols, where)                                                           \
	" UNION ALL SELECT " cols " FROM (SELECT s.id * 65536 + j.key - 4611686018427387904 AS id," \
	" j.value ->> 0 AS series_id, j.value ->> 2 AS t0_us, j.value ->> 2 AS t1_us, 1 AS n,"  \
	" '[[0,' || (j.value -> 3) || ',0]]' AS data FROM sample_stage s, json_each(s.data) j"  \
	" WHERE NOT EXISTS (SELECT 1 FROM sample_merge k WHERE s.id <= k.stage_hi"            \
	" AND j.value ->> 0 <= k.series_done))"                                                \
	" WHERE t0_us >= ?1 AND t0_us < ?2" where

static const char blocks_staged_sql[] =
	"SELECT id, series_id, t0_us, n, data FROM sample_blocks WHERE t0_us >= ?1 AND t0_us < ?2"
	STAGED_BLOCKS("id, series_id, t0_us, n, data", "") " ORDER BY 3, 1";

/* ---- schema 3: one row per sample ---- */

static const char rows_sql[] =
	"SELECT ts_us, series_id, value FROM samples"
	" WHERE ts_us >= ?1 AND ts_us < ?2 ORDER BY ts_us, id";

static int rows_fill(sqlite3_stmt *st, struct gl_query_sample *b, size_t *len)
{
	size_t n = 0;
	int rc = SQLITE_DONE;

	while (n < SAMPLE_BLOCK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		b[n].ts_us = sqlite3_column_int64(st, 0);
		b[n].series_id = sqlite3_column_int64(st, 1);
		b[n].value = sqlite3_column_double(st, 2);
		n++;
	}
	*len = n;
	return n == SAMPLE_BLOCK ? SQLITE_ROW : rc;
}

/* ---- both: a ring of slots through the pipe, or one slot in one thread ---- */

struct sample_slots {
	struct gl_query_sample *blk[SAMPLE_RING];
	size_t len[SAMPLE_RING];
	struct merge *m;		/* NULL: rows */
	int (*fn)(void *arg, const struct gl_query_sample *s);
	void *arg;
};

static int sample_fill(void *ctx, size_t slot, sqlite3_stmt *st)
{
	struct sample_slots *c = ctx;

	return c->m ? merge_fill(c->m, st, c->blk[slot], &c->len[slot])
		    : rows_fill(st, c->blk[slot], &c->len[slot]);
}

static int sample_emit(void *ctx, size_t slot)
{
	struct sample_slots *c = ctx;
	int rc = 0;

	for (size_t i = 0; i < c->len[slot] && rc == 0; i++)
		rc = c->fn(c->arg, &c->blk[slot][i]);
	return rc;
}

static const char *sample_fail_msg(void *ctx)
{
	struct sample_slots *c = ctx;

	return c->m && c->m->msg[0] ? c->m->msg : NULL;
}

/* One thread: fill slot 0, hand it out, again. */
static int samples_direct(struct gl_query *q, const char *sql, int64_t arg1, int64_t arg2,
			  struct sample_slots *c, struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, frc = 0;

	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query samples");
	sqlite3_bind_int64(st, 1, arg1);
	sqlite3_bind_int64(st, 2, arg2);
	do {
		rc = sample_fill(c, 0, st);
		frc = sample_emit(c, 0);
	} while (rc == SQLITE_ROW && frc == 0);
	if (frc != 0)
		rc = frc;
	else if (rc == SQLITE_NOMEM)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc != SQLITE_DONE && sample_fail_msg(c))
		rc = gl_err_set(err, GL_EDB, NULL, 0, sample_fail_msg(c), "cannot read samples");
	else if (rc != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read samples");
	else
		rc = GL_OK;
	sqlite3_finalize(st);
	return rc;
}

/* ---- schema 4: two readers over time slices ---- */

/*
 * The reader thread of the pipe spends more time on the blocks (most of it
 * decoding their text) than the caller's thread on the samples (22M
 * samples of 3 series: 1.0 s against 0.65 s), and with the events read by
 * then, one core is half idle. So, as the events are read (query_events.c),
 * a window whose blocks span long enough is cut into slices of equal time,
 * and two reader threads, each on its own connection and in its own read
 * transaction, read every other slice: the caller's thread hands out slice
 * 0 from the first, slice 1 from the second, and so on. A slice's reader
 * merges the blocks that may hold samples in it (t0_us from an hour before
 * its start, t1_us at or after its start: the first slice reads the blocks
 * before the window as the pipe does) and keeps the slice's samples only;
 * a time lies in one slice, so the slices in turn are the window's (ts_us,
 * block id, index) order. A block across a slice's end is decoded by both
 * of its slices, so a slice spans several blocks' longest span. A reader
 * may be SMP_AHEAD slots ahead of the caller (each allocated when first
 * filled), so that each reads while the caller hands out the other's (the
 * report of 22M samples in 42 slices: 64 slots a reader, about a slice,
 * raised its peak RSS by 29 MB, 32 by 17 MB, in times that noise on a
 * shared machine did not tell apart).
 *
 * Staged samples (schema 11) stay with the pipe: each slice's statement
 * would walk every stage row with json_each.
 */
#define SMP_SLICE_MIN_US (4 * GL_SBLOCK_SPAN_US)
#define SMP_SLICES_MAX 64
#define SMP_AHEAD 32			/* slots of SAMPLE_BLOCK samples: 6 MiB at most */

enum { SMP_MORE, SMP_END, SMP_FAILED };

static const char slice_sql[] =
	"SELECT id, series_id, t0_us, n, data FROM sample_blocks"
	" WHERE t0_us >= ?1 AND t0_us < ?2 AND t1_us >= ?3 ORDER BY t0_us, id";

struct smp_reader {
	pthread_t th;
	sqlite3 *db;
	const int64_t *bound;		/* slice k is [bound[k], bound[k + 1]) */
	size_t first, nslices;		/* reads slices first, first + 2, ... */
	struct merge m;
	struct gl_query_sample *slot[SMP_AHEAD];
	size_t len[SMP_AHEAD];
	unsigned char end[SMP_AHEAD];	/* SMP_MORE, SMP_END (its slice's last), SMP_FAILED */
	size_t produced, consumed;	/* slots filled and handed on, counted from 0 */
	bool ready;			/* its read transaction holds a snapshot */
	bool done;
	int failed;			/* 0, or the SQLite error code (set before its
					 * SMP_FAILED slot is handed on, then never again) */
	char msg[256];
	struct smp_slices *all;
};

struct smp_slices {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct smp_reader rd[2];
};

/* Under all->mu: the reader failed with rc (the merge's message if it has one). */
static void smp_fail(struct smp_reader *r, int rc)
{
	r->failed = rc;
	snprintf(r->msg, sizeof(r->msg), "%s", r->m.msg[0] ? r->m.msg : sqlite3_errmsg(r->db));
}

static void *smp_main(void *arg)
{
	struct smp_reader *r = arg;
	struct smp_slices *all = r->all;
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_OK;

	/* one snapshot for all this reader's slices, taken before the caller
	 * hands out a sample (see slice_main in query_events.c) */
	if (sqlite3_exec(r->db, "BEGIN; SELECT count(*) FROM (SELECT 1 FROM sample_blocks LIMIT 1);",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(r->db, slice_sql, -1, &st, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	pthread_mutex_lock(&all->mu);
	if (rc != SQLITE_OK)
		smp_fail(r, rc);
	r->ready = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	for (size_t k = r->first; k < r->nslices && rc == SQLITE_OK; k += 2) {
		bool stop;

		merge_reset(&r->m, r->bound[k], r->bound[k + 1]);
		sqlite3_bind_int64(st, 1, sat_sub(r->bound[k], GL_SBLOCK_SPAN_US));
		sqlite3_bind_int64(st, 2, r->bound[k + 1]);
		sqlite3_bind_int64(st, 3, k ? r->bound[k] : INT64_MIN);
		do {
			pthread_mutex_lock(&all->mu);
			while (r->produced - r->consumed == SMP_AHEAD && !all->stop)
				pthread_cond_wait(&all->cv, &all->mu);
			stop = all->stop;
			pthread_mutex_unlock(&all->mu);
			if (stop)
				goto out;
			/* the slot is this reader's until produced moves past it */
			size_t i = r->produced % SMP_AHEAD;

			r->len[i] = 0;
			if (!r->slot[i] && !(r->slot[i] = malloc(SAMPLE_BLOCK * sizeof(*r->slot[i]))))
				rc = SQLITE_NOMEM;
			else
				rc = merge_fill(&r->m, st, r->slot[i], &r->len[i]);
			r->end[i] = rc == SQLITE_ROW ? SMP_MORE : rc == SQLITE_DONE ? SMP_END : SMP_FAILED;
			pthread_mutex_lock(&all->mu);
			if (r->end[i] == SMP_FAILED)
				smp_fail(r, rc);
			r->produced++;
			pthread_cond_broadcast(&all->cv);
			pthread_mutex_unlock(&all->mu);
		} while (rc == SQLITE_ROW);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
		sqlite3_reset(st);
	}
out:
	pthread_mutex_lock(&all->mu);
	r->done = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	sqlite3_finalize(st);
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/* The reader's failure as an error of the caller's. */
static int smp_error(const struct smp_reader *r, struct gl_err *err)
{
	if (r->failed == SQLITE_NOMEM)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return gl_err_set(err, GL_EDB, NULL, 0, r->failed ? r->msg : "reader ended early",
			  "cannot read samples");
}

/*
 * The slices of [since_us, until_us): over the time the blocks there may
 * hold samples, from the first block's t0_us to an hour past the last's
 * (two probes of the index); the first slice from since_us, the last to
 * until_us. Their count, 0 when fewer than two would be cut.
 */
static size_t smp_bounds(struct gl_query *q, int64_t since_us, int64_t until_us,
			 int64_t bound[SMP_SLICES_MAX + 1])
{
	static const char sql[] =
		"SELECT (SELECT t0_us FROM sample_blocks WHERE t0_us >= ?1 AND t0_us < ?2"
		" ORDER BY t0_us LIMIT 1),"
		" (SELECT t0_us FROM sample_blocks WHERE t0_us >= ?1 AND t0_us < ?2"
		" ORDER BY t0_us DESC LIMIT 1)";
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	size_t n = 0;

	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, sat_sub(since_us, GL_SBLOCK_SPAN_US));
	sqlite3_bind_int64(st, 2, until_us);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		lo = sqlite3_column_int64(st, 0);
		hi = sat_add(sqlite3_column_int64(st, 1), GL_SBLOCK_SPAN_US + 1);
		lo = lo > since_us ? lo : since_us;
		hi = hi < until_us ? hi : until_us;
		if (hi > lo) {
			uint64_t span = (uint64_t)hi - (uint64_t)lo;

			n = span / (uint64_t)SMP_SLICE_MIN_US;
			n = n > SMP_SLICES_MAX ? SMP_SLICES_MAX : n;
			for (size_t k = 1; k < n; k++)
				bound[k] = lo + (int64_t)(span / n * k + span % n * k / n);
		}
	}
	sqlite3_finalize(st);
	if (n < 2)
		return 0;
	bound[0] = since_us;
	bound[n] = until_us;
	return n;
}

/* See above; *started false: could not start (too short a span, no
 * connection or thread), nothing read. */
static int samples_sliced(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
			  struct gl_err *err, bool *started)
{
	const char *path = sqlite3_db_filename(q->db, "main");
	int64_t bound[SMP_SLICES_MAX + 1];
	struct smp_slices *all = NULL;
	size_t nslices, running = 0;
	int rc = GL_OK;

	*started = false;
	if (!path || !*path || (nslices = smp_bounds(q, since_us, until_us, bound)) == 0)
		return GL_OK;
	if (!(all = calloc(1, sizeof(*all))))
		return GL_OK;
	if (pthread_mutex_init(&all->mu, NULL) != 0) {
		free(all);
		return GL_OK;
	}
	if (pthread_cond_init(&all->cv, NULL) != 0) {
		pthread_mutex_destroy(&all->mu);
		free(all);
		return GL_OK;
	}
	for (size_t i = 0; i < 2; i++) {
		struct smp_reader *r = &all->rd[i];

		r->bound = bound;
		r->first = i;
		r->nslices = nslices;
		r->all = all;
		if (gl_query_connect(path, &r->db, &(struct gl_err){0}) != GL_OK)
			break;
		sqlite3_busy_timeout(r->db, 5000);
		if (pthread_create(&r->th, NULL, smp_main, r) != 0)
			break;
		running++;
	}
	if (running < 2)
		goto out;	/* *started stays false: nothing is handed out */
	*started = true;
	/* both snapshots taken before the first sample is handed out */
	pthread_mutex_lock(&all->mu);
	while (!all->rd[0].ready || !all->rd[1].ready)
		pthread_cond_wait(&all->cv, &all->mu);
	pthread_mutex_unlock(&all->mu);
	for (size_t k = 0; k < nslices && rc == GL_OK; k++) {
		struct smp_reader *r = &all->rd[k % 2];
		unsigned char end = SMP_MORE;

		while (end == SMP_MORE && rc == GL_OK) {
			pthread_mutex_lock(&all->mu);
			while (r->consumed == r->produced && !r->done)
				pthread_cond_wait(&all->cv, &all->mu);
			bool empty = r->consumed == r->produced;
			pthread_mutex_unlock(&all->mu);
			if (empty) {
				/* the reader stopped before this slice: its error */
				rc = smp_error(r, err);
				break;
			}
			size_t i = r->consumed % SMP_AHEAD;
			const struct gl_query_sample *s = r->slot[i];

			end = r->end[i];
			for (size_t j = 0; j < r->len[i] && rc == GL_OK; j++)
				rc = fn(arg, &s[j]);
			pthread_mutex_lock(&all->mu);
			r->consumed++;
			pthread_cond_broadcast(&all->cv);
			pthread_mutex_unlock(&all->mu);
			/* the reader failed filling this slot: its samples before the
			 * failure are handed out, as the pipe does */
			if (rc == GL_OK && end == SMP_FAILED)
				rc = smp_error(r, err);
		}
	}
out:
	pthread_mutex_lock(&all->mu);
	all->stop = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	for (size_t i = 0; i < running; i++)
		pthread_join(all->rd[i].th, NULL);
	for (size_t i = 0; i < 2; i++) {
		sqlite3_close(all->rd[i].db);
		merge_release(&all->rd[i].m);
		for (size_t j = 0; j < SMP_AHEAD; j++)
			free(all->rd[i].slot[j]);
	}
	pthread_cond_destroy(&all->cv);
	pthread_mutex_destroy(&all->mu);
	free(all);
	return rc;
}

int gl_query_samples_flags(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
			   int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
			   struct gl_err *err)
{
	if (q->be)
		return q->be->samples(q, since_us, until_us, fn, arg, err);
	struct merge m = {.since_us = since_us, .until_us = until_us};
	struct sample_slots c = {.fn = fn, .arg = arg};
	const struct gl_query_pipe_ops ops = {SAMPLE_RING, sample_fill, sample_emit, sample_fail_msg,
					      &c};
	const bool blocks = q->samples == GL_QUERY_SAMPLES_BLOCKS;
	const char *sql = blocks ? (q->staged ? blocks_staged_sql : blocks_sql) : rows_sql;
	int64_t arg1 = blocks ? sat_sub(since_us, GL_SBLOCK_SPAN_US) : since_us;
	size_t ring = flags & GL_QUERY_ONE_THREAD ? 1 : SAMPLE_RING;
	bool started = false;
	int rc = GL_OK;

	if (q->samples == GL_QUERY_SAMPLES_NONE || since_us >= until_us)
		return GL_OK;
	if (blocks && !q->staged && !(flags & GL_QUERY_ONE_THREAD)) {
		rc = samples_sliced(q, since_us, until_us, fn, arg, err, &started);
		if (started)
			return rc;
	}
	if (blocks)
		c.m = &m;
	for (size_t i = 0; i < ring; i++)
		if (!(c.blk[i] = malloc(SAMPLE_BLOCK * sizeof(*c.blk[i])))) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	if (!(flags & GL_QUERY_ONE_THREAD))
		rc = gl_query_pipe_run(q, sql, arg1, until_us, &ops, "samples", err, &started);
	if (!started) {
		/* the pipe did not start: nothing was read */
		merge_release(&m);
		memset(&m, 0, sizeof(m));
		m.since_us = since_us;
		m.until_us = until_us;
		rc = samples_direct(q, sql, arg1, until_us, &c, err);
	}
out:
	for (size_t i = 0; i < ring; i++)
		free(c.blk[i]);
	merge_release(&m);
	return rc;
}

int gl_query_samples(struct gl_query *q, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
		     struct gl_err *err)
{
	if (q->be)
		return q->be->samples(q, since_us, until_us, fn, arg, err);
	return gl_query_samples_flags(q, since_us, until_us, 0, fn, arg, err);
}

/* ---- first and last sample times ---- */

/*
 * One end of the samples (of the series ids[0..n), or all when ids is
 * NULL) in the window, from the blocks' t0_us and t1_us: only the blocks
 * that straddle the window's edge are decoded. Towards the start, blocks
 * in order of t0_us: one beginning inside the window ends the search, one
 * beginning before it may hold a sample inside; towards the end, in
 * reverse: a block ending inside the window gives its t1_us, one ending
 * after it is decoded, and the search goes on while an earlier block could
 * still end later (t0_us >= best - GL_SBLOCK_SPAN_US).
 */
static int blocks_end(struct gl_query *q, const int64_t *ids, size_t n, int64_t since_us,
		      int64_t until_us, int desc, int64_t *ts_us, struct gl_err *err)
{
	size_t cap = 800 + 42 * n;
	char *sql = malloc(cap);
	struct gl_sblock_sample *s = NULL;
	sqlite3_stmt *st = NULL;
	int64_t best = GL_TS_NONE;
	size_t len;
	int rc = GL_OK, r;

	*ts_us = GL_TS_NONE;
	if (!sql)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	for (int part = 0; part < (q->staged ? 2 : 1); part++) {
		len = part ? len + (size_t)snprintf(sql + len, cap - len, "%s",
						    STAGED_BLOCKS("id, t0_us, t1_us, n, data", ""))
			   : (size_t)snprintf(sql, cap, "SELECT id, t0_us, t1_us, n, data FROM"
						  " sample_blocks WHERE t0_us >= ?1 AND t0_us < ?2");
		if (ids) {
			len += (size_t)snprintf(sql + len, cap - len, " AND series_id IN (");
			for (size_t i = 0; i < n; i++)
				len += (size_t)snprintf(sql + len, cap - len, "%s%lld", i ? "," : "",
							(long long)ids[i]);
			len += (size_t)snprintf(sql + len, cap - len, ")");
		}
	}
	snprintf(sql + len, cap - len, " ORDER BY t0_us%s", desc ? " DESC" : "");
	r = sqlite3_prepare_v2(q->db, sql, -1, &st, NULL);
	free(sql);
	if (r != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query samples");
	sqlite3_bind_int64(st, 1, sat_sub(since_us, GL_SBLOCK_SPAN_US));
	sqlite3_bind_int64(st, 2, until_us);
	if (!(s = malloc(GL_SBLOCK_MAX * sizeof(*s)))) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), t0 = sqlite3_column_int64(st, 1);
		int64_t t1 = sqlite3_column_int64(st, 2), cnt = sqlite3_column_int64(st, 3);
		int64_t cand = GL_TS_NONE;

		if (!desc && t0 >= since_us) {
			if (best == GL_TS_NONE || t0 < best)
				best = t0;
			break;
		}
		if (desc && best != GL_TS_NONE && t0 < sat_sub(best, GL_SBLOCK_SPAN_US))
			break;
		if (t1 < since_us)
			continue;
		if (desc && t1 < until_us) {
			cand = t1;
		} else {
			const char *text = (const char *)sqlite3_column_text(st, 4);

			if (!block_decode(text, (size_t)sqlite3_column_bytes(st, 4), t0, cnt, s)) {
				char msg[96];

				snprintf(msg, sizeof(msg), "sample block %lld is malformed",
					 (long long)id);
				rc = gl_err_set(err, GL_EDB, NULL, 0, msg, "cannot read samples");
				goto out;
			}
			for (int64_t i = 0; i < cnt; i++) {
				int64_t t = s[desc ? cnt - 1 - i : i].ts_us;

				if (t >= since_us && t < until_us) {
					cand = t;
					break;
				}
			}
		}
		if (cand != GL_TS_NONE &&
		    (best == GL_TS_NONE || (desc ? cand > best : cand < best)))
			best = cand;
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read samples");
	else
		*ts_us = best;
out:
	free(s);
	sqlite3_finalize(st);
	return rc;
}

/*
 * One end of the samples of some series in the window (schema 3): samples
 * are keyed by time, so this walks from the window's edge to the first
 * sample of one of them (at once, when they are sampled all along).
 */
static int rows_series_end(struct gl_query *q, const int64_t *ids, size_t n, int64_t since_us,
			   int64_t until_us, int desc, int64_t *ts_us, struct gl_err *err)
{
	size_t cap = 160 + 21 * n;
	char *sql = malloc(cap);
	sqlite3_stmt *st = NULL;
	size_t len;
	int rc = GL_OK, r;

	*ts_us = GL_TS_NONE;
	if (!sql)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	len = (size_t)snprintf(sql, cap, "SELECT ts_us FROM samples WHERE ts_us >= ?1 AND ts_us < ?2"
			       " AND series_id IN (");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(sql + len, cap - len, "%s%lld", i ? "," : "",
					(long long)ids[i]);
	snprintf(sql + len, cap - len, ") ORDER BY ts_us%s LIMIT 1", desc ? " DESC" : "");
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(sql);
		return gl_query_db_error(q, err, "cannot query samples");
	}
	free(sql);
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*ts_us = sqlite3_column_int64(st, 0);
	else if (r != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read samples");
	sqlite3_finalize(st);
	return rc;
}

int gl_query_series_span(struct gl_query *q, const int64_t *series_ids, size_t n,
			 int64_t since_us, int64_t until_us, int64_t *first_us, int64_t *last_us,
			 struct gl_err *err)
{
	if (q->be)
		return q->be->series_span(q, series_ids, n, since_us, until_us, first_us, last_us, err);
	int (*end)(struct gl_query *, const int64_t *, size_t, int64_t, int64_t, int, int64_t *,
		   struct gl_err *) = q->samples == GL_QUERY_SAMPLES_BLOCKS ? blocks_end
									 : rows_series_end;
	int rc;

	*first_us = *last_us = GL_TS_NONE;
	if (q->samples == GL_QUERY_SAMPLES_NONE || n == 0 || since_us >= until_us)
		return GL_OK;
	if ((rc = end(q, series_ids, n, since_us, until_us, 0, first_us, err)) != GL_OK)
		return rc;
	return end(q, series_ids, n, since_us, until_us, 1, last_us, err);
}

int gl_query_samples_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int64_t *first_us, int64_t *last_us, struct gl_err *err)
{
	if (q->be)
		return q->be->samples_span(q, since_us, until_us, first_us, last_us, err);
	/* Two probes of the table's key, not a scan of the window (SQLite
	 * reads every row for min() and max() together). */
	static const char sql[] =
		"SELECT (SELECT ts_us FROM samples WHERE ts_us >= ?1 AND ts_us < ?2"
		" ORDER BY ts_us LIMIT 1),"
		" (SELECT ts_us FROM samples WHERE ts_us >= ?1 AND ts_us < ?2"
		" ORDER BY ts_us DESC LIMIT 1)";
	sqlite3_stmt *st = NULL;
	int rc = GL_OK;

	*first_us = *last_us = GL_TS_NONE;
	if (q->samples == GL_QUERY_SAMPLES_NONE || since_us >= until_us)
		return GL_OK;
	if (q->samples == GL_QUERY_SAMPLES_BLOCKS) {
		if ((rc = blocks_end(q, NULL, 0, since_us, until_us, 0, first_us, err)) != GL_OK)
			return rc;
		return blocks_end(q, NULL, 0, since_us, until_us, 1, last_us, err);
	}
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query samples");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = gl_query_db_error(q, err, "cannot read samples");
	} else if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*first_us = sqlite3_column_int64(st, 0);
		*last_us = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc;
}
