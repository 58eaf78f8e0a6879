/*
 * query_events.c - the window's events for gpulog-report: the statements
 * that read them (one per layout of the database), the decoding of a row
 * (packed or by columns) into a gl_query_event, and the reader threads that
 * read time slices in parallel and hand the rows out in time order.
 * In: an open gl_query and a window. Out: gl_query_event callbacks.
 */
#include "store/query.h"
#include "store/evpack.h"
#include "store/query_int.h"
#include "store/kinds_v7.h"
#include "util/timeutil.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../record/operation.h"

/*
 * The events statement's columns, in one of six layouts:
 *   columns: 0 ts_us, 1-12 GL_EVPACK_COLUMNS (9: message), 13 metadata,
 *            14 dup_of, [15 source, 16-21 the other kernel-trace columns,] id;
 *   packed:  0 ts_us, 1 packed, 2 message, 3 metadata, 4 dup_of,
 *            [5 source, 6-11 the other kernel-trace columns,] id;
 *   index:   0 ts_us, 1 packed, 2 dup_of, 3 id, all held by events_ts
 *            (schema 7), so that SQLite steps the index alone; the text of
 *            the rows that use it is read from the table by id;
 *   index, kernel rows: 0 ts_us, 1 packed, 2 id; the statement keeps
 *            originals only (dup_of IS NULL), and the rows without a kernel
 *            or a duration are left out here, since testing kernel_id or
 *            dur_us in SQL would read the table.
 * A statement without the trace columns has none (not NULLs: each result
 * column is a step of every row).
 */
struct ev_layout {
	bool packed;		/* column 1 is events.packed */
	bool text_by_id;	/* message and metadata read by id (index layouts) */
	bool kernels;		/* leave out rows without kernel_id or dur_us */
	int message, metadata, dup, source, trace, id;	/* -1 when absent */
	int ncols;
};

static const struct ev_layout layouts[] = {
	{.message = 9, .metadata = 13, .dup = 14, .source = 15, .trace = 16, .id = 22, .ncols = 23},
	{.message = 9, .metadata = 13, .dup = 14, .source = -1, .trace = -1, .id = 15, .ncols = 16},
	{.packed = true, .message = 2, .metadata = 3, .dup = 4, .source = 5, .trace = 6, .id = 12,
	 .ncols = 13},
	{.packed = true, .message = 2, .metadata = 3, .dup = 4, .source = -1, .trace = -1, .id = 5,
	 .ncols = 6},
	{.packed = true, .text_by_id = true, .message = -1, .metadata = -1, .dup = 2, .source = -1,
	 .trace = -1, .id = 3, .ncols = 4},
	{.packed = true, .text_by_id = true, .kernels = true, .message = -1, .metadata = -1,
	 .dup = -1, .source = -1, .trace = -1, .id = 2, .ncols = 3},
};

static double val_double(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

/*
 * Which text columns a row hands out (query.h), decided here rather than by
 * CASE expressions in the statement, which cost every row about 20 of its
 * 50 bytecode steps. The tests are SQL's, on the stored values
 * (gl_evpack_from_values makes warn and op of them):
 *   message:  level >= 4 OR (kernel_id IS NULL AND
 *             (exec_ms IS NOT NULL OR message LIKE 'Operation %'))
 *   metadata: kernel_id IS NULL AND exec_ms IS NOT NULL
 */

bool gl_query_has_dup_of(const struct gl_query *q)
{
	return q->has_dup_of;
}

void gl_query_warn_reads(const struct gl_query *q, uint64_t *by_index, uint64_t *by_id)
{
	*by_index = q->warn_by_index;
	*by_id = q->warn_by_id;
}

/*
 * Events are read in blocks of decoded rows. The index events_ts is
 * (ts_us, rec_hash): it gives time order without a sort, but not id order
 * among rows of the same time, and asking SQLite for "ORDER BY ts_us, id"
 * makes it sort every run of equal times in a temporary b-tree (measured:
 * 4 of the 9 s of reading 10M events). So a block ends only where the time
 * changes, and each run of equal times in it is put in id order here. Text
 * columns are copied into the block's arena, since a row's pointers die
 * with the next sqlite3_step.
 *
 * A reader thread on its own connection fills the blocks of a small ring
 * while the caller's thread hands the rows of the filled ones to fn, in
 * order: fn runs in the caller's thread only, and SQLite's stepping and
 * decoding overlap with the sections' work. Without a thread or a second
 * connection, one thread fills a block and hands it out in turn.
 */
#define EV_BLOCK 4096		/* rows; a block ends at the first change of time past this */

struct held {
	struct gl_query_event ev;
	int64_t id;
	size_t off[5];		/* message, metadata, device, source, operation name in arena;
				 * SIZE_MAX: NULL; message MSG_DEFERRED: not yet read */
};

#define MSG_DEFERRED (SIZE_MAX - 1)

struct held_group {
	struct held *h;
	size_t n, cap;
	char *arena;
	size_t alen, acap;
};

/* Copies len bytes of s (and a NUL) into the arena; SIZE_MAX for NULL, or out of memory (*oom). */
static inline size_t arena_put(struct held_group *g, const char *s, size_t len, bool *oom)
{
	size_t off;

	if (!s)
		return SIZE_MAX;
	if (g->alen + len + 1 > g->acap) {
		size_t cap = g->acap ? g->acap : 4096;
		char *a;

		while (cap < g->alen + len + 1)
			cap *= 2;
		if (!(a = realloc(g->arena, cap))) {
			*oom = true;
			return SIZE_MAX;
		}
		g->arena = a;
		g->acap = cap;
	}
	off = g->alen;
	memcpy(g->arena + off, s, len);
	g->arena[off + len] = '\0';
	g->alen += len + 1;
	return off;
}

static int cmp_held_id(const void *pa, const void *pb)
{
	const struct held *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* Puts each run of equal times of g in id order. */
static void sort_runs(struct held_group *g)
{
	for (size_t i = 0, j; i < g->n; i = j) {
		for (j = i + 1; j < g->n && g->h[j].ev.ts_us == g->h[i].ev.ts_us; j++)
			;
		if (j - i > 1)
			qsort(g->h + i, j - i, sizeof(*g->h), cmp_held_id);
	}
}

/*
 * What decodes the rows of one statement: its layout and, for the packed
 * one, the statement that reads a row's columns when its packing is NULL
 * or not one of this version (prepared at the first such row, on the
 * statement's connection: inside the same read transaction).
 */
struct ev_decoder {
	const struct ev_layout *lay;
	sqlite3_stmt *by_id;
	sqlite3_stmt *text;	/* message and metadata by id (text_by_id layouts); with
				 * has_ops, message and the operation's columns */
	sqlite3_stmt *msg;	/* with has_ops: message and NULL by id, for a row whose
				 * operation is not looked up (most of them: WARN and above) */
	sqlite3_stmt *op;	/* the operation's columns by id (has_ops, other layouts) */
	sqlite3_stmt *warn;	/* the messages of a time range from events_warn */
	sqlite3_stmt *msg_id;	/* a message by id, for a deferred row events_warn lacks */
	bool no_warn;		/* events_warn cannot be read (schema < 12): by id */
	size_t deferred;	/* rows of the block being filled whose message is to be
				 * read from events_warn (off[0] MSG_DEFERRED) */
	/* those rows' times, ids and places in the block, in the block's order
	 * ((ts_us, id): read_deferred goes through them beside events_warn's) */
	struct dref {
		int64_t ts_us, id;
		size_t i;
	} *dref;
	size_t n_dref, cap_dref;
	/* two rows of the block have one time (sort_runs has a run to sort);
	 * the time of its last row */
	bool ties;
	int64_t last_ts_us;
	uint64_t n_index, n_id;	/* messages at WARN and above read so (gl_query_warn_reads) */
	/* while fill_block steps a statement: where gl_ev_take puts the rows
	 * (NULL: not filling), the window's end, and a row's failed decoding */
	struct held_group *take_g;
	int64_t take_until_us;
	int take_rc;
	const struct gl_query *q;	/* its names (an operation's name by id), or NULL */
	bool has_ops;		/* table operations exists (schema 10) */
};

static void decoder_init(struct ev_decoder *d, sqlite3_stmt *st, const struct gl_query *q)
{
	const int n = sqlite3_column_count(st);

	d->lay = &layouts[0];
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].ncols == n)
			d->lay = &layouts[i];
	d->by_id = NULL;
	d->text = NULL;
	d->msg = NULL;
	d->op = NULL;
	d->warn = NULL;
	d->msg_id = NULL;
	d->no_warn = false;
	d->deferred = 0;
	d->dref = NULL;
	d->n_dref = d->cap_dref = 0;
	d->ties = false;
	d->last_ts_us = 0;
	d->n_index = d->n_id = 0;
	d->take_g = NULL;
	d->take_rc = SQLITE_OK;
	d->q = q;
	d->has_ops = q->has_ops;
}

static void decoder_free(struct ev_decoder *d)
{
	sqlite3_finalize(d->by_id);
	sqlite3_finalize(d->text);
	sqlite3_finalize(d->msg);
	sqlite3_finalize(d->op);
	sqlite3_finalize(d->warn);
	sqlite3_finalize(d->msg_id);
	free(d->dref);
	d->dref = NULL;
	d->n_dref = d->cap_dref = 0;
	d->msg_id = NULL;
	d->by_id = NULL;
	d->text = NULL;
	d->msg = NULL;
	d->op = NULL;
	d->warn = NULL;
}

/* Notes a deferred row (its time, id and place i in the block); false: out of memory. */
static bool dref_add(struct ev_decoder *d, int64_t ts_us, int64_t id, size_t i)
{
	if (d->n_dref == d->cap_dref) {
		size_t cap = d->cap_dref ? d->cap_dref * 2 : 256;
		struct dref *n = realloc(d->dref, cap * sizeof(*n));

		if (!n)
			return false;
		d->dref = n;
		d->cap_dref = cap;
	}
	d->dref[d->n_dref++] = (struct dref){ts_us, id, i};
	return true;
}

/* The operation's columns (ms, throughput, name id) from column 2 on; the
 * name is the query's (names loaded at open, as every other id a report
 * names). */
#define OP_COLUMNS "o.ms, o.throughput, o.name_id"

/*
 * A row to decode: its statement's connection and its columns' values, in
 * the order of its layout (the statement's result columns, or the
 * arguments of gl_ev_take: see fill_block).
 */
struct ev_row {
	sqlite3 *db;
	sqlite3_value **col;
};

/*
 * Steps d->text to the row r is (message, metadata; with has_ops,
 * message, NULL and OP_COLUMNS), or with has_ops and !op d->msg (message,
 * NULL: no lookup in operations); *ts gets the statement. SQLITE_ROW or an
 * error.
 */
static int text_row(const struct ev_row *r, struct ev_decoder *d, bool op, sqlite3_stmt **ts)
{
	sqlite3_stmt **t = d->has_ops && !op ? &d->msg : &d->text;
	int rc;

	if (!*t &&
	    sqlite3_prepare_v2(r->db,
			       t == &d->msg ? "SELECT message, NULL FROM events WHERE id = ?1"
			       : d->has_ops ? "SELECT e.message, NULL, " OP_COLUMNS " FROM events e"
					      " LEFT JOIN operations o ON o.event_id = e.id"
					      " WHERE e.id = ?1"
					    : "SELECT message, metadata FROM events WHERE id = ?1",
			       -1, t, NULL) != SQLITE_OK)
		return sqlite3_errcode(r->db);
	sqlite3_bind_int64(*t, 1, sqlite3_value_int64(r->col[d->lay->id]));
	rc = sqlite3_step(*t);
	if (rc == SQLITE_DONE)
		rc = SQLITE_CORRUPT;	/* the row the statement is on is not there */
	if (rc != SQLITE_ROW)
		sqlite3_reset(*t);
	*ts = *t;
	return rc;
}

/* Steps d->op to the operation of row r (NULL, NULL, then OP_COLUMNS;
 * none: SQLITE_DONE); SQLITE_ROW, SQLITE_DONE or an error. */
static int op_row(const struct ev_row *r, struct ev_decoder *d)
{
	int rc;

	if (!d->op &&
	    sqlite3_prepare_v2(r->db,
			       "SELECT NULL, NULL, " OP_COLUMNS " FROM operations o"
			       " WHERE o.event_id = ?1",
			       -1, &d->op, NULL) != SQLITE_OK)
		return sqlite3_errcode(r->db);
	sqlite3_bind_int64(d->op, 1, sqlite3_value_int64(r->col[d->lay->id]));
	rc = sqlite3_step(d->op);
	if (rc != SQLITE_ROW)
		sqlite3_reset(d->op);
	return rc;
}

/* The fields of row r; SQLITE_OK or the error of reading its columns. */
static int event_fields(const struct ev_row *r, struct ev_decoder *d, struct gl_evpack *f)
{
	sqlite3_value *v[GL_EVPACK_NCOLS];
	int rc;

	if (!d->lay->packed) {
		gl_evpack_from_values(r->col + 1, f);
		return SQLITE_OK;
	}
	sqlite3_value *p = r->col[1];

	if (sqlite3_value_type(p) == SQLITE_BLOB &&
	    gl_evpack_decode(sqlite3_value_blob(p), (size_t)sqlite3_value_bytes(p), f))
		return SQLITE_OK;
	if (!d->by_id &&
	    sqlite3_prepare_v2(r->db,
			       "SELECT " GL_EVPACK_COLUMNS " FROM events WHERE id = ?1", -1, &d->by_id,
			       NULL) != SQLITE_OK)
		return sqlite3_errcode(r->db);
	sqlite3_bind_int64(d->by_id, 1, sqlite3_value_int64(r->col[d->lay->id]));
	rc = sqlite3_step(d->by_id);
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < GL_EVPACK_NCOLS; i++)
			v[i] = sqlite3_column_value(d->by_id, i);
		gl_evpack_from_values(v, f);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_CORRUPT;	/* the row the statement is on is not there */
	}
	sqlite3_reset(d->by_id);
	return rc;
}

/* Decodes row r into a new entry of g: SQLITE_OK, SQLITE_NOMEM, or the
 * error of reading its columns. */
static int decode_event(const struct ev_row *r, struct ev_decoder *d, struct held_group *g,
			int64_t ts_us)
{
	const struct ev_layout *L = d->lay;
	struct gl_evpack f;
	bool oom = false;
	int rc;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : EV_BLOCK + 16;
		struct held *nh = realloc(g->h, cap * sizeof(*nh));

		if (!nh)
			return SQLITE_NOMEM;
		g->h = nh;
		g->cap = cap;
	}
	struct held *h = &g->h[g->n];
	struct gl_query_event *ev = &h->ev;

	/*
	 * Each column's value once (sqlite3_column_value), then its type and
	 * value from it: half the calls of sqlite3_column_type followed by
	 * sqlite3_column_double, each of which looks the column up and checks
	 * for a failed allocation. The value is "unprotected"; reading it is
	 * safe here because the connection belongs to this thread alone
	 * (SQLITE_OPEN_NOMUTEX, one reader per connection).
	 */
	if ((rc = event_fields(r, d, &f)) != SQLITE_OK)
		return rc;
	if (L->kernels && (!f.has_kernel || isnan(f.dur_us)))
		return SQLITE_OK;	/* not a kernel timing: left out */
	ev->ts_us = ts_us;
	ev->level = f.level;
	ev->component_id = f.component_id;
	ev->host_id = f.host_id;
	ev->kernel_id = f.kernel_id;
	ev->dur_us = f.dur_us;
	ev->mem_mb = f.mem_mb;
	ev->anomaly = f.anomaly;
	ev->recovery_attempts = f.recovery_attempts;
	ev->error_count = f.error_count;
	ev->stream_id = f.stream_id;
	ev->exec_ms = f.exec_ms;
	/* the text columns, where a report uses them (see above) */
	const bool has_exec = !isnan(f.exec_ms);
	/* an operation its packing carries is not looked up (nor its message read, but
	 * at WARN and above) */
	const bool op_candidate = !f.has_kernel && (has_exec || f.op) && !f.is_op;
	const bool want_message = f.warn || op_candidate;
	const bool want_metadata = !d->has_ops && !f.has_kernel && has_exec;
	/* a message at WARN and above alone: read with the block's others from
	 * events_warn (read_deferred), in order, not from the table by id */
	const bool defer = L->text_by_id && !L->kernels && !d->no_warn && f.warn &&
			   !op_candidate && !want_metadata;
	sqlite3_stmt *tst = NULL;	/* the statement the text is read from; NULL: r */
	int tmessage = L->message, tmetadata = L->metadata;
	const unsigned char *text = NULL;
	size_t text_len = 0;

	if (!defer && L->text_by_id &&
	    (want_message || want_metadata || (d->has_ops && op_candidate))) {
		if ((rc = text_row(r, d, op_candidate, &tst)) != SQLITE_ROW)
			return rc;
		tmessage = 0;
		tmetadata = 1;
	}
	if (want_message && !defer) {
		sqlite3_value *m = tst ? sqlite3_column_value(tst, tmessage) : r->col[tmessage];

		d->n_id += f.warn && tst;
		text = sqlite3_value_text(m);
		text_len = (size_t)sqlite3_value_bytes(m);
	}
	h->off[0] = defer ? MSG_DEFERRED : arena_put(g, (const char *)text, text_len, &oom);
	ev->message_len = h->off[0] >= MSG_DEFERRED ? 0 : text_len;
	d->deferred += defer;
	text = NULL;
	text_len = 0;
	if (want_metadata) {
		sqlite3_value *m = tst ? sqlite3_column_value(tst, tmetadata) : r->col[tmetadata];

		text = sqlite3_value_text(m);
		text_len = (size_t)sqlite3_value_bytes(m);
	}
	h->off[1] = arena_put(g, (const char *)text, text_len, &oom);
	ev->metadata_len = h->off[1] == SIZE_MAX ? 0 : text_len;
	/* the operation: stored (schema 10), else found in the text as the
	 * ingest finds it */
	ev->op_ms = ev->op_throughput = NAN;
	ev->op_name = NULL;	/* a stored name: the query's; a name found here: the arena's */
	h->off[4] = SIZE_MAX;
	if (f.is_op) {
		ev->op_ms = f.op_ms;
		ev->op_throughput = f.op_throughput;
		ev->op_name = f.op_name_id ? gl_query_name(d->q, f.op_name_id) : NULL;
	} else if (op_candidate && d->has_ops) {
		sqlite3_stmt *os = tst;

		if (!tst) {
			if ((rc = op_row(r, d)) != SQLITE_ROW && rc != SQLITE_DONE)
				return rc;
			os = rc == SQLITE_ROW ? d->op : NULL;
		}
		if (os && sqlite3_column_type(os, 2) != SQLITE_NULL) {
			ev->op_ms = sqlite3_column_double(os, 2);
			ev->op_throughput = val_double(sqlite3_column_value(os, 3));
			ev->op_name = gl_query_name(d->q, sqlite3_column_int64(os, 4));
		}
		if (os && os == d->op)
			sqlite3_reset(d->op);
	} else if (op_candidate && !oom) {
		struct gl_operation op;

		if (gl_operation_of(h->off[0] == SIZE_MAX ? NULL : g->arena + h->off[0],
				    ev->message_len,
				    h->off[1] == SIZE_MAX ? NULL : g->arena + h->off[1],
				    ev->metadata_len, f.exec_ms, &op)) {
			ev->op_ms = op.ms;
			ev->op_throughput = op.throughput;
			if (op.name[0])
				h->off[4] = arena_put(g, op.name, strlen(op.name), &oom);
		}
	}
	if (tst)
		sqlite3_reset(tst);
	ev->dup_of = L->dup >= 0 ? sqlite3_value_int64(r->col[L->dup]) : 0;
	/* the trace columns: only for a row of a profiler trace (source set) */
	sqlite3_value *src = L->source >= 0 ? r->col[L->source] : NULL;
	const char *source = src ? (const char *)sqlite3_value_text(src) : NULL;

	h->off[2] = h->off[3] = SIZE_MAX;
	if (source) {
		sqlite3_value *v[6];

		h->off[3] = arena_put(g, source, (size_t)sqlite3_value_bytes(src), &oom);
		for (int i = 0; i < 6; i++)
			v[i] = r->col[L->trace + i];
		ev->launch_overhead_us = val_double(v[0]);
		ev->queue_us = val_double(v[1]);
		ev->occupancy = val_double(v[2]);
		const char *device = (const char *)sqlite3_value_text(v[3]);
		h->off[2] = arena_put(g, device, device ? (size_t)sqlite3_value_bytes(v[3]) : 0,
				      &oom);
		ev->scope_id = sqlite3_value_int64(v[4]);
		ev->stack_id = sqlite3_value_int64(v[5]);
	} else {
		ev->launch_overhead_us = ev->queue_us = ev->occupancy = NAN;
		ev->scope_id = ev->stack_id = 0;
	}
	h->id = sqlite3_value_int64(r->col[L->id]);
	if (g->n && ts_us == d->last_ts_us)
		d->ties = true;
	d->last_ts_us = ts_us;
	if (defer && !dref_add(d, ts_us, h->id, g->n))
		oom = true;
	g->n++;
	return oom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Puts message m of h into g's arena; false: out of memory. */
static bool held_message(struct held_group *g, struct held *h, sqlite3_value *m)
{
	const unsigned char *text = sqlite3_value_text(m);
	size_t len = text ? (size_t)sqlite3_value_bytes(m) : 0;
	bool oom = false;

	h->off[0] = arena_put(g, (const char *)text, len, &oom);
	h->ev.message_len = h->off[0] == SIZE_MAX ? 0 : len;
	return !oom;
}

/*
 * The messages of g's deferred rows (g in (ts_us, id) order, its times
 * whole: a block ends where the time changes): the entries of events_warn
 * in g's time range, in time order, each found among the deferred rows
 * (d->dref, in g's order) by going on through them to its time and then
 * by its id among the rows of that time (events_warn puts the rows of one
 * time in order of message, not of id); a row still without one (a time
 * that is no integer, events_warn absent) by id from the table. The time
 * range's entries of rows not in g (in another statement's rows) are
 * passed over. SQLITE_OK, SQLITE_NOMEM or the error of reading.
 */
#define DREF_AHEAD 4

static int read_deferred(sqlite3_stmt *st, struct ev_decoder *d, struct held_group *g)
{
	sqlite3 *db = sqlite3_db_handle(st);
	int rc = SQLITE_DONE;

	if (!d->warn && !d->no_warn &&
	    sqlite3_prepare_v2(db, "SELECT ts_us, id, message FROM events INDEXED BY events_warn"
				   " WHERE level >= 4 AND ts_us >= ?1 AND ts_us <= ?2 ORDER BY ts_us",
			       -1, &d->warn, NULL) != SQLITE_OK)
		d->no_warn = true;	/* no events_warn (schema < 12): every row by id */
	if (d->warn) {
		sqlite3_bind_int64(d->warn, 1, g->h[0].ev.ts_us);
		sqlite3_bind_int64(d->warn, 2, g->h[g->n - 1].ev.ts_us);
		size_t c = 0;	/* the first deferred row not before the entry's time */

		while (d->deferred && (rc = sqlite3_step(d->warn)) == SQLITE_ROW) {
			const int64_t ts = sqlite3_column_int64(d->warn, 0);
			const int64_t id = sqlite3_column_int64(d->warn, 1);
			struct held *h = NULL;

			while (c < d->n_dref && d->dref[c].ts_us < ts)
				c++;
			/* the rows a few entries on, which held_message writes: asked for
			 * now, they are in the cache when their entries come */
			if (c + DREF_AHEAD < d->n_dref) {
				const struct held *a = &g->h[d->dref[c + DREF_AHEAD].i];

				__builtin_prefetch(&a->off[0], 1);
				__builtin_prefetch(&a->ev.message_len, 1);
			}
			/* a row found is marked (i SIZE_MAX), not read again to see
			 * that its message is still to come */
			for (size_t k = c; k < d->n_dref && d->dref[k].ts_us == ts && !h; k++)
				if (d->dref[k].id == id && d->dref[k].i != SIZE_MAX) {
					h = &g->h[d->dref[k].i];
					d->dref[k].i = SIZE_MAX;
				}
			if (!h)
				continue;
			d->deferred--;
			d->n_index++;
			if (!held_message(g, h, sqlite3_column_value(d->warn, 2))) {
				rc = SQLITE_NOMEM;
				break;
			}
		}
		sqlite3_reset(d->warn);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return rc;
	}
	for (size_t i = 0; i < g->n && d->deferred; i++) {
		struct held *h = &g->h[i];

		if (h->off[0] != MSG_DEFERRED)
			continue;
		if (!d->msg_id && sqlite3_prepare_v2(db, "SELECT message FROM events WHERE id = ?1",
						     -1, &d->msg_id, NULL) != SQLITE_OK)
			return sqlite3_errcode(db);
		sqlite3_bind_int64(d->msg_id, 1, h->id);
		rc = sqlite3_step(d->msg_id);
		if (rc == SQLITE_ROW)
			rc = held_message(g, h, sqlite3_column_value(d->msg_id, 0)) ? SQLITE_OK
										    : SQLITE_NOMEM;
		else if (rc == SQLITE_DONE)
			rc = SQLITE_CORRUPT;	/* the row the statement read is not there */
		sqlite3_reset(d->msg_id);
		if (rc != SQLITE_OK)
			return rc;
		d->deferred--;
		d->n_id++;
	}
	return SQLITE_OK;
}

/* Where a row of time value tv goes (fill_block): decoded into g, past the
 * window (or its time no number), or the first row of the next block (g is
 * full and the time changes); *ts gets its time. */
enum { ROW_TAKE, ROW_END, ROW_NEXT };

static int row_place(sqlite3_value *tv, const struct held_group *g, int64_t until_us, int64_t *ts)
{
	/* ts_us is an integer as gpulog writes it; a REAL compares as its
	 * integer part does, and a TEXT or BLOB sorts after every number, past
	 * any window, as in SQL */
	const int type = sqlite3_value_type(tv);

	*ts = sqlite3_value_int64(tv);
	if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || *ts >= until_us)
		return ROW_END;
	if (g->n >= EV_BLOCK && *ts != g->h[g->n - 1].ev.ts_us)
		return ROW_NEXT;
	return ROW_TAKE;
}

/*
 * gl_ev_take(ts_us, packed, dup_of, id), the SQL function of a slice
 * reader's connection (user data: its decoder) in the WHERE of the index
 * statement (EV_TAKE_SQL): decodes the row into the block fill_block is
 * filling and answers 0, so that SQLite goes on to the next row without
 * returning this one; answers 1 for a row that fill_block is to see (past
 * the window, or the first of the next block). A row costs SQLite a call
 * of the function instead of a return from sqlite3_step and the four
 * sqlite3_column_value calls after it (10M events: 0.4 s of the readers'
 * 2.6 s of CPU).
 */
static void ev_take(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	struct ev_decoder *d = sqlite3_user_data(cx);
	const struct ev_row r = {sqlite3_context_db_handle(cx), argv};
	int64_t ts;

	(void)argc;
	if (!d->take_g || row_place(argv[0], d->take_g, d->take_until_us, &ts) != ROW_TAKE) {
		sqlite3_result_int(cx, 1);
		return;
	}
	d->take_rc = decode_event(&r, d, d->take_g, ts);
	if (d->take_rc == SQLITE_NOMEM)
		sqlite3_result_error_nomem(cx);
	else if (d->take_rc != SQLITE_OK)
		sqlite3_result_error(cx, sqlite3_errmsg(r.db), -1);
	else
		sqlite3_result_int(cx, 0);
}

#define EV_MAX_COLS 24	/* the most result columns of a layout */

/*
 * Empties g and fills it from st: to the end (SQLITE_DONE: the statement's
 * end or its first row at or past until_us), or to a row of a new time
 * once EV_BLOCK rows are in (SQLITE_ROW; st stays on that row, not yet
 * decoded: *pending), or an error (SQLITE_NOMEM when out of memory). On
 * entry *pending says st is on a row not yet decoded. A statement with
 * gl_ev_take (slice readers) decodes its rows itself while stepping and
 * returns only those two rows; another returns every row, decoded here.
 */
static int fill_block(sqlite3_stmt *st, struct ev_decoder *d, struct held_group *g, bool *pending,
		      int64_t until_us)
{
	sqlite3_value *col[EV_MAX_COLS];
	const struct ev_row r = {sqlite3_db_handle(st), col};
	const int ncols = d->lay->ncols < EV_MAX_COLS ? d->lay->ncols : EV_MAX_COLS;
	int rc;

	g->n = 0;
	g->alen = 0;
	d->deferred = 0;
	d->n_dref = 0;
	d->ties = false;
	for (;;) {
		int64_t ts;

		if (!*pending) {
			d->take_g = g;
			d->take_until_us = until_us;
			d->take_rc = SQLITE_OK;
			rc = sqlite3_step(st);
			d->take_g = NULL;
			if (d->take_rc != SQLITE_OK)
				return d->take_rc;
			if (rc != SQLITE_ROW)
				break;
		}
		*pending = false;
		for (int i = 0; i < ncols; i++)
			col[i] = sqlite3_column_value(st, i);
		const int place = row_place(col[0], g, until_us, &ts);

		if (place == ROW_END) {
			rc = SQLITE_DONE;
			break;
		}
		if (place == ROW_NEXT) {
			*pending = true;
			rc = SQLITE_ROW;
			break;
		}
		if ((rc = decode_event(&r, d, g, ts)) != SQLITE_OK)
			return rc;
	}
	if (d->ties) {
		/* rows of one time: in id order, and the deferred ones' places again */
		sort_runs(g);
		d->n_dref = 0;
		for (size_t i = 0; i < g->n; i++)
			if (g->h[i].off[0] == MSG_DEFERRED &&
			    !dref_add(d, g->h[i].ev.ts_us, g->h[i].id, i))
				return SQLITE_NOMEM;
	}
	if (d->deferred) {
		int drc = read_deferred(st, d, g);

		if (drc != SQLITE_OK)
			return drc;
	}
	return rc;
}

#define PREFETCH_AHEAD 4

/* Hands the rows of g to fn in order; fn's value or 0. */
static int emit_block(struct held_group *g, int (*fn)(void *arg, const struct gl_query_event *ev),
		      void *arg)
{
	int rc = 0;

	for (size_t i = 0; i < g->n && rc == 0; i++) {
		struct held *h = &g->h[i];

		if (i + PREFETCH_AHEAD < g->n) {
			const char *n = (const char *)&g->h[i + PREFETCH_AHEAD];

			for (size_t o = 0; o < sizeof(*h); o += 64)
				__builtin_prefetch(n + o);
		}
		h->ev.message = h->off[0] == SIZE_MAX ? NULL : g->arena + h->off[0];
		h->ev.metadata = h->off[1] == SIZE_MAX ? NULL : g->arena + h->off[1];
		h->ev.device = h->off[2] == SIZE_MAX ? NULL : g->arena + h->off[2];
		h->ev.source = h->off[3] == SIZE_MAX ? NULL : g->arena + h->off[3];
		if (h->off[4] != SIZE_MAX)
			h->ev.op_name = g->arena + h->off[4];
		rc = fn(arg, &h->ev);
	}
	return rc;
}

/*
 * Does the database hold a profiler trace's record (events.kind 1,
 * GL_EV_TRACE)? Only those carry the kernel-trace columns: a database
 * without one has them NULL in every row, and the slice readers then leave
 * them out of the statement: 11 of a row's 31 bytecode steps, about 8% of a
 * 10M-event report. A database not migrated to schema 8 says it by the
 * formats of its streams (kinds_v7.h).
 */
#define TRACES_SQL "SELECT EXISTS (SELECT 1 FROM event_kinds WHERE kind = 1)"
#define TRACES_SQL_V7 "SELECT EXISTS (SELECT 1 FROM streams WHERE " GL_KINDS_V7_STREAMS_TRACE ")"

/* Which of the two statements to run on db, in its current snapshot:
 * sql when a trace's record exists (or that cannot be read), else
 * sql_plain. kinds: the database has event_kinds (schema 8). */
static const char *pick_sql(sqlite3 *db, bool kinds, const char *sql, const char *sql_plain)
{
	int64_t traces = 1;

	if (sql_plain == sql ||
	    gl_query_pragma_int(db, kinds ? TRACES_SQL : TRACES_SQL_V7, &traces) != SQLITE_OK)
		return sql;
	return traces ? sql : sql_plain;
}

#define EV_INDEX(cols, where)                                                              \
	"SELECT ts_us, packed, " cols "id FROM events INDEXED BY events_ts"                  \
	" WHERE ts_us >= ?1" where " ORDER BY ts_us"
/* the index statements, of every row and of kernel rows (events_sql) */
static const char *const sql_index[2] = {EV_INDEX("dup_of, ", ""),
					 EV_INDEX("", " AND ts_us < ?2 AND dup_of IS NULL")};
/* the first with gl_ev_take, for a slice reader's connection (fill_block) */
static const char ev_take_sql[] =
	EV_INDEX("dup_of, ", " AND gl_ev_take(ts_us, packed, dup_of, id)");
#undef EV_INDEX

/* The events statement; trace: with the kernel-trace columns (when the
 * database has them). */
static const char *events_sql(const struct gl_query *q, unsigned flags, bool trace)
{
	/*
	 * Text is read only where a report uses it (see query.h): reading every
	 * message of 10M kernel lines would double the report's time. A packed
	 * statement reads events.packed where the other reads its 11 columns
	 * (lib/store/evpack.h); the columns of the two layouts are above.
	 *
	 * The window's end is not in the statements that return every row of
	 * it: the reader (fill_block) stops at the first row at or past it,
	 * which is the row after the window, and SQLite then does not compare
	 * each index entry with the end (IdxGE: about 5% of a reader's
	 * instructions). A statement that leaves rows out (kernels only) keeps
	 * "ts_us < ?2": without it, a window with no row to return after its
	 * end would be read to the end of the table.
	 */
#define EV_COLS(base, dup, trace)                                                          \
	"SELECT ts_us, " base ", " dup trace ", id FROM events INDEXED BY events_ts"         \
	" WHERE ts_us >= ?1"
#define BASE_COLUMNS GL_EVPACK_COLUMNS ", metadata"
#define BASE_PACKED "packed, message, metadata"
#define TR_NO ""
#define TR_YES                                                                             \
	", source, launch_overhead_us, queue_us, occupancy, device, scope_id, stack_id"
#define EV_SQL(base, dup, trace)                                                           \
	{EV_COLS(base, dup, trace) " ORDER BY ts_us",                                      \
	 EV_COLS(base, dup, trace) " AND ts_us < ?2 AND kernel_id IS NOT NULL"              \
				   " AND dur_us IS NOT NULL ORDER BY ts_us"}
#define EV_SQL_DUP(base, trace)                                                            \
	{EV_COLS(base, "dup_of", trace) " ORDER BY ts_us",                                 \
	 EV_COLS(base, "dup_of", trace) " AND ts_us < ?2 AND kernel_id IS NOT NULL"         \
					" AND dur_us IS NOT NULL AND dup_of IS NULL ORDER BY ts_us"}
	/* [packed][has dup_of][has the trace columns][kernels only]; the
	 * kernels-only walk (the baseline's durations) reads no trace column.
	 * (Every database with packed has dup_of and the trace columns.) */
	static const char *const sql[2][2][2][2] = {
		{
			{EV_SQL(BASE_COLUMNS, "NULL", TR_NO), EV_SQL(BASE_COLUMNS, "NULL", TR_YES)},
			{EV_SQL_DUP(BASE_COLUMNS, TR_NO), EV_SQL_DUP(BASE_COLUMNS, TR_YES)},
		},
		{
			{EV_SQL(BASE_PACKED, "NULL", TR_NO), EV_SQL(BASE_PACKED, "NULL", TR_YES)},
			{EV_SQL_DUP(BASE_PACKED, TR_NO), EV_SQL_DUP(BASE_PACKED, TR_YES)},
		},
	};
	/*
	 * Schema 7's events_ts holds every column of the index layouts (see
	 * above): SQLite then steps the index alone, and not also the table
	 * row of each entry with its 38-column header. A statement with the
	 * trace columns reads the table.
	 */
	const bool only = (flags & GL_QUERY_KERNELS_ONLY) != 0;
	const bool packed = q->has_packed && !(flags & GL_QUERY_COLUMNS);

	if (packed && q->covering && !(flags & GL_QUERY_TABLE) && !(trace && q->has_trace && !only))
		return sql_index[only];
#undef TR_NO
#undef TR_YES
#undef EV_SQL
#undef EV_SQL_DUP
#undef BASE_COLUMNS
#undef BASE_PACKED
#undef EV_COLS
	return sql[packed][q->has_dup_of][trace && q->has_trace && !only][only];
}

/* One thread: fill a block, hand it out, again. */
static int events_direct(struct gl_query *q, const char *sql, const char *sql_plain,
			 int64_t since_us, int64_t until_us,
			 int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			 struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	struct held_group g = {0};
	struct ev_decoder d;
	bool pending = false, own = false;
	int rc, frc = 0;

	/* whether a trace stream exists, read in the statement's snapshot (as
	 * slice_main does), unless the caller holds a transaction already */
	if (sql_plain != sql)
		own = sqlite3_get_autocommit(q->db) &&
		      sqlite3_exec(q->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	if (sqlite3_prepare_v2(q->db, pick_sql(q->db, q->has_kind, sql, sql_plain), -1, &st, NULL) != SQLITE_OK) {
		rc = gl_query_db_error(q, err, "cannot query events");
		if (own)
			sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
		return rc;
	}
	sqlite3_bind_int64(st, 1, since_us);
	/* ?2 is only in the kernels-only statements (see events_sql); the others
	 * have no ?2, and the bind is a no-op there (SQLITE_RANGE) */
	sqlite3_bind_int64(st, 2, until_us);
	decoder_init(&d, st, q);
	do {
		rc = fill_block(st, &d, &g, &pending, until_us);
		frc = emit_block(&g, fn, arg);
	} while (rc == SQLITE_ROW && frc == 0);
	if (frc != 0)
		rc = frc;
	else if (rc == SQLITE_NOMEM)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read events");
	else
		rc = GL_OK;
	free(g.h);
	free(g.arena);
	q->warn_by_index += d.n_index;
	q->warn_by_id += d.n_id;
	decoder_free(&d);
	sqlite3_finalize(st);
	if (own)
		sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}

struct read_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;				/* the reader's connection */
	const char *sql;
	int64_t since_us, until_us;
	const struct gl_query_pipe_ops *ops;
	size_t produced, consumed;		/* slots filled and handed on, counted from 0 */
	bool done, stop;
	int failed;				/* 0, or the reader's SQLite error code */
	char msg[256];
};

static void *pipe_reader(void *arg)
{
	struct read_pipe *pp = arg;
	sqlite3_stmt *st = NULL;
	bool stop = false;
	int rc = SQLITE_ROW;

	if (sqlite3_prepare_v2(pp->db, pp->sql, -1, &st, NULL) != SQLITE_OK) {
		rc = SQLITE_ERROR;
	} else {
		sqlite3_bind_int64(st, 1, pp->since_us);
		sqlite3_bind_int64(st, 2, pp->until_us);
	}
	while (rc == SQLITE_ROW) {
		pthread_mutex_lock(&pp->mu);
		while (pp->produced - pp->consumed == pp->ops->ring && !pp->stop)
			pthread_cond_wait(&pp->cv, &pp->mu);
		stop = pp->stop;
		pthread_mutex_unlock(&pp->mu);
		if (stop)
			break;
		/* the slot is the reader's until produced moves past it */
		rc = pp->ops->fill(pp->ops->ctx, pp->produced % pp->ops->ring, st);
		pthread_mutex_lock(&pp->mu);
		pp->produced++;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
	pthread_mutex_lock(&pp->mu);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !stop) {
		const char *why = pp->ops->fail_msg ? pp->ops->fail_msg(pp->ops->ctx) : NULL;

		pp->failed = rc;
		snprintf(pp->msg, sizeof(pp->msg), "%s", why ? why : sqlite3_errmsg(pp->db));
	}
	pp->done = true;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
	sqlite3_finalize(st);
	return NULL;
}

/* See query_int.h. */
int gl_query_pipe_run(struct gl_query *q, const char *sql, int64_t since_us, int64_t until_us,
		      const struct gl_query_pipe_ops *ops, const char *what, struct gl_err *err,
		      bool *started)
{
	struct read_pipe pp = {.sql = sql, .since_us = since_us, .until_us = until_us, .ops = ops};
	const char *path = sqlite3_db_filename(q->db, "main");
	pthread_t th;
	int rc = GL_OK;

	*started = false;
	if (!path || !*path ||
	    gl_query_connect(path, &pp.db, &(struct gl_err){0}) != GL_OK) {
		sqlite3_close(pp.db);
		return GL_OK;
	}
	sqlite3_busy_timeout(pp.db, 5000);
	if (pthread_mutex_init(&pp.mu, NULL) != 0) {
		sqlite3_close(pp.db);
		return GL_OK;
	}
	pthread_cond_init(&pp.cv, NULL);
	if (pthread_create(&th, NULL, pipe_reader, &pp) != 0)
		goto out;
	*started = true;
	for (;;) {
		pthread_mutex_lock(&pp.mu);
		while (pp.consumed == pp.produced && !pp.done)
			pthread_cond_wait(&pp.cv, &pp.mu);
		bool empty = pp.consumed == pp.produced;
		pthread_mutex_unlock(&pp.mu);
		if (empty)
			break;
		rc = ops->emit(ops->ctx, pp.consumed % ops->ring);
		pthread_mutex_lock(&pp.mu);
		pp.consumed++;
		if (rc != GL_OK)
			pp.stop = true;
		pthread_cond_broadcast(&pp.cv);
		pthread_mutex_unlock(&pp.mu);
		if (rc != GL_OK)
			break;
	}
	pthread_join(th, NULL);
	if (rc == GL_OK && pp.failed == SQLITE_NOMEM)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc == GL_OK && pp.failed)
		rc = gl_err_set(err, GL_EDB, NULL, 0, pp.msg, "cannot read %s", what);
out:
	pthread_cond_destroy(&pp.cv);
	pthread_mutex_destroy(&pp.mu);
	sqlite3_close(pp.db);
	return rc;
}

/*
 * Two readers. Reading the rows is most of a large report (10M events:
 * 7.3 s of the reading thread against 2.6 s of the sections), so the window
 * is cut into EV_SLICES slices of equal time, over the span its events
 * have, and two reader threads, each on its own connection, read every
 * other slice into a ring of their own; the caller's thread takes slice 0
 * from the first, slice 1 from the second, and so on. A time lies in one
 * slice, so the (ts_us, id) order made per block is the order of the whole
 * window.
 */
#define EV_SLICES 1024
/*
 * Blocks a slice reader may be ahead. Three threads share the two cores;
 * with 8, in an event pass of 1.6 s (10M events), a reader waited 0.4-0.5 s
 * for room and the caller 0.2-0.25 s for blocks; with 24, 0.15-0.35 s and
 * 0.14-0.19 s, and the pass took 1.67 s against 1.80 s (medians of 6
 * alternating rounds; 48 was no faster, 16 between). A block is 4,096 rows
 * of 264 bytes and their text, filled only as far as a reader gets ahead:
 * the report's peak RSS +6 MB (216 MB); over 10M events written directly
 * (short rows, no samples: the sections keep up less, the rings fill)
 * +24 MB (247 MB), at the same speed.
 */
#define SL_RING 24

struct slice_reader {
	pthread_t th;
	sqlite3 *db;
	const char *sql;		/* with the kernel-trace columns */
	const char *sql_plain;		/* without: for a snapshot with no trace record */
	bool kinds;			/* the database has event_kinds (schema 8) */
	const struct gl_query *q;	/* its names and schema (read only while readers run) */
	const int64_t *bound;		/* slice k is [bound[k], bound[k + 1]) */
	size_t first, nslices;		/* reads slices first, first + 2, ... */
	struct held_group ring[SL_RING];
	bool last[SL_RING];		/* the slot ends its slice */
	size_t produced, consumed;
	bool ready;			/* its read transaction holds a snapshot */
	bool done;
	int failed;			/* 0, or the SQLite error code */
	char msg[256];
	uint64_t by_index, by_id;	/* its decoder's (gl_query_warn_reads) */
	struct slices *all;
};

struct slices {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct slice_reader rd[2];
};

static void *slice_main(void *arg)
{
	struct slice_reader *r = arg;
	struct slices *all = r->all;
	sqlite3_stmt *st = NULL;
	struct ev_decoder d = {0};
	int rc = SQLITE_OK;

	/*
	 * One read transaction over all this reader's slices (a statement per
	 * slice would each see the database as it is then), begun by a first
	 * read before the caller takes any row: what is committed while the
	 * sections work is not seen. (The two readers' snapshots are taken
	 * microseconds apart, not at one instant: SQLite's snapshot API is not
	 * in Debian's build.) Whether a trace stream exists is read in the
	 * same snapshot; when it cannot be read, the columns are read.
	 */
	if (sqlite3_exec(r->db, "BEGIN; SELECT count(*) FROM (SELECT 1 FROM events LIMIT 1);",
			 NULL, NULL, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	/* the index statement of every row decodes its rows while SQLite
	 * steps it (ev_take), unless the function cannot be had */
	const char *sql = rc == SQLITE_OK ? pick_sql(r->db, r->kinds, r->sql, r->sql_plain) : NULL;

	if (sql == sql_index[0] &&
	    sqlite3_create_function(r->db, "gl_ev_take", 4, SQLITE_UTF8 | SQLITE_DIRECTONLY, &d,
				    ev_take, NULL, NULL) == SQLITE_OK)
		sql = ev_take_sql;
	if (rc == SQLITE_OK && sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	if (rc == SQLITE_OK)
		decoder_init(&d, st, r->q);
	pthread_mutex_lock(&all->mu);
	r->ready = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	for (size_t k = r->first; k < r->nslices && rc == SQLITE_OK; k += 2) {
		bool pending = false, stop;

		sqlite3_bind_int64(st, 1, r->bound[k]);
		/* ?2 is only in the kernels-only statements (see events_sql); the others
		 * have no ?2, and the bind is a no-op there (SQLITE_RANGE) */
		sqlite3_bind_int64(st, 2, r->bound[k + 1]);
		do {
			pthread_mutex_lock(&all->mu);
			while (r->produced - r->consumed == SL_RING && !all->stop)
				pthread_cond_wait(&all->cv, &all->mu);
			stop = all->stop;
			pthread_mutex_unlock(&all->mu);
			if (stop) {
				rc = SQLITE_DONE;
				goto out;
			}
			/* the slot is this reader's until produced moves past it */
			size_t slot = r->produced % SL_RING;

			rc = fill_block(st, &d, &r->ring[slot], &pending, r->bound[k + 1]);
			r->last[slot] = rc != SQLITE_ROW;
			pthread_mutex_lock(&all->mu);
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
	if (rc != SQLITE_OK && rc != SQLITE_DONE) {
		r->failed = rc;
		snprintf(r->msg, sizeof(r->msg), "%s", sqlite3_errmsg(r->db));
	}
	r->done = true;
	r->by_index = d.n_index;
	r->by_id = d.n_id;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	decoder_free(&d);
	sqlite3_finalize(st);
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/* See above; *started false: could not start (no connection or thread), nothing read. */
static int events_sliced(struct gl_query *q, const char *sql, const char *sql_plain,
			 int64_t since_us, int64_t until_us,
			 int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			 struct gl_err *err, bool *started)
{
	const char *path = sqlite3_db_filename(q->db, "main");
	int64_t first, last, bound[EV_SLICES + 1];	/* 8 KiB */
	struct slices all;
	size_t running = 0;
	int rc = GL_OK;

	*started = false;
	if (!path || !*path)
		return GL_OK;
	rc = gl_query_events_span(q, since_us, until_us, &first, &last, err);
	if (rc != GL_OK || first == GL_TS_NONE) {
		*started = true;	/* the answer: an error, or no row in the window */
		return rc;
	}
	/* slices over [first, last]; the first from since, the last to until */
	uint64_t span = (uint64_t)(last - first) + 1;

	bound[0] = since_us;
	for (size_t k = 1; k < EV_SLICES; k++)
		bound[k] = first + (int64_t)(span / EV_SLICES * k + span % EV_SLICES * k / EV_SLICES);
	bound[EV_SLICES] = until_us;
	memset(&all, 0, sizeof(all));
	if (pthread_mutex_init(&all.mu, NULL) != 0)
		return GL_OK;
	if (pthread_cond_init(&all.cv, NULL) != 0) {
		pthread_mutex_destroy(&all.mu);
		return GL_OK;
	}
	for (size_t i = 0; i < 2; i++) {
		struct slice_reader *r = &all.rd[i];

		r->sql = sql;
		r->sql_plain = sql_plain;
		r->kinds = q->has_kind;
		r->q = q;
		r->bound = bound;
		r->first = i;
		r->nslices = EV_SLICES;
		r->all = &all;
		if (gl_query_connect(path, &r->db, &(struct gl_err){0}) != GL_OK)
			break;
		sqlite3_busy_timeout(r->db, 5000);
		if (pthread_create(&r->th, NULL, slice_main, r) != 0)
			break;
		running++;
	}
	if (running < 2)
		goto out;	/* *started stays false: nothing is handed out */
	*started = true;
	/* both snapshots taken before the first row is handed out */
	pthread_mutex_lock(&all.mu);
	while (!all.rd[0].ready || !all.rd[1].ready)
		pthread_cond_wait(&all.cv, &all.mu);
	pthread_mutex_unlock(&all.mu);
	for (size_t k = 0; k < EV_SLICES && rc == GL_OK; k++) {
		struct slice_reader *r = &all.rd[k % 2];
		bool end = false;

		while (!end && rc == GL_OK) {
			pthread_mutex_lock(&all.mu);
			while (r->consumed == r->produced && !r->done)
				pthread_cond_wait(&all.cv, &all.mu);
			bool empty = r->consumed == r->produced;
			pthread_mutex_unlock(&all.mu);
			if (empty) {
				/* the reader stopped before this slice's end: its error */
				rc = r->failed == SQLITE_NOMEM
					     ? gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory")
					     : gl_err_set(err, GL_EDB, NULL, 0,
							  r->failed ? r->msg : "reader ended early",
							  "cannot read events");
				break;
			}
			size_t slot = r->consumed % SL_RING;

			end = r->last[slot];
			rc = emit_block(&r->ring[slot], fn, arg);
			pthread_mutex_lock(&all.mu);
			r->consumed++;
			pthread_cond_broadcast(&all.cv);
			pthread_mutex_unlock(&all.mu);
		}
	}
out:
	pthread_mutex_lock(&all.mu);
	all.stop = true;
	pthread_cond_broadcast(&all.cv);
	pthread_mutex_unlock(&all.mu);
	for (size_t i = 0; i < running; i++) {
		pthread_join(all.rd[i].th, NULL);
		q->warn_by_index += all.rd[i].by_index;
		q->warn_by_id += all.rd[i].by_id;
	}
	for (size_t i = 0; i < 2; i++) {
		/* a failure the caller did not meet (after its last slice) is still one */
		if (*started && rc == GL_OK && all.rd[i].failed)
			rc = all.rd[i].failed == SQLITE_NOMEM
				     ? gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory")
				     : gl_err_set(err, GL_EDB, NULL, 0, all.rd[i].msg,
						  "cannot read events");
		sqlite3_close(all.rd[i].db);
		for (size_t j = 0; j < SL_RING; j++) {
			free(all.rd[i].ring[j].h);
			free(all.rd[i].ring[j].arena);
		}
	}
	pthread_cond_destroy(&all.cv);
	pthread_mutex_destroy(&all.mu);
	return rc;
}

const char *gl_query_events_sql(const struct gl_query *q, unsigned flags, bool traces)
{
	return events_sql(q, flags, traces);
}

int gl_query_kernel_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			   const int64_t *ids, size_t n,
			   int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			   struct gl_err *err)
{
	if (q->be && q->be->kernel_events)
		return q->be->kernel_events(q, since_us, until_us, ids, n, fn, arg, err);
	return gl_query_events(q, since_us, until_us, GL_QUERY_KERNELS_ONLY, fn, arg, err);
}

bool gl_query_counts_kernels(const struct gl_query *q)
{
	return q->be && q->be->kernel_counts;
}

int gl_query_kernel_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_kernel_count *c), void *arg,
			   struct gl_err *err)
{
	if (!gl_query_counts_kernels(q))
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "kernel timings are counted by the caller here");
	return q->be->kernel_counts(q, since_us, until_us, fn, arg, err);
}

int gl_query_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		    int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		    struct gl_err *err)
{
	if (q->be)
		return q->be->events(q, since_us, until_us, flags, fn, arg, err);
	/* with the trace columns, and without them (no trace stream) */
	const char *sql = events_sql(q, flags, true), *sql_plain = events_sql(q, flags, false);
	bool started = false;
	int rc = GL_OK;

	/* readers that could not start have read nothing: the caller's thread reads all */
	if (!(flags & GL_QUERY_ONE_THREAD))
		rc = events_sliced(q, sql, sql_plain, since_us, until_us, fn, arg, err, &started);
	return started ? rc : events_direct(q, sql, sql_plain, since_us, until_us, fn, arg, err);
}
