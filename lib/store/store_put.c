/*
 * store_put.c - a batch into its transaction: the events (evtab.h), spans,
 * memory events, samples, rejects and the ingest state that goes with
 * them. Lives from the first batch of a run to its last. The writer's hot
 * path (a row's names by the address of their copy, its mirror probe, its
 * packing) is in this one file; a name new to the batch is looked up in
 * the maps of store_intern.c.
 */
#include "store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../util/bigmem.h"
#include "../util/hash.h"
#include "../util/timeutil.h"
#include "evpack.h"
#include "../record/operation.h"

/* --- a row's names: by the address of the batch's copy, else interned -- */

static struct memo *memo_slot(struct memo *m, const char *p, size_t len)
{
	uint64_t h = ((uint64_t)(uintptr_t)p ^ ((uint64_t)len << 48)) * 0x9E3779B97F4A7C15ULL;

	return &m[h >> 58];	/* GL_MEMO_SLOTS = 2^6 */
}

static int name_id(struct gl_store *st, struct gl_str s, int64_t *id, struct gl_err *err)
{
	struct memo *m;
	int rc;

	if (!s.p) {
		*id = 0;
		return GL_OK;
	}
	m = memo_slot(st->name_memo, s.p, s.len);
	if (m->p == s.p && m->len == s.len) {
		*id = m->id;
		return GL_OK;
	}
	if ((rc = gl_store_intern_id(st, &st->names, st->ins_name, s, id, err)) != GL_OK)
		return rc;
	m->p = s.p;
	m->len = s.len;
	m->id = *id;
	return GL_OK;
}

/* The paths row of a batch row's path; rows of one file share the pointer. */
static int path_id(struct gl_store *st, struct gl_str s, int64_t *id, struct gl_err *err)
{
	int rc;

	if (s.p && s.p == st->last_path && s.len == st->last_path_len) {
		*id = st->last_path_id;
		return GL_OK;
	}
	if ((rc = gl_store_intern_id(st, &st->paths, st->ins_path, s, id, err)) != GL_OK)
		return rc;
	st->last_path = s.p;
	st->last_path_len = s.len;
	st->last_path_id = *id;
	return GL_OK;
}


/* --- batches -------------------------------------------------------- */

static void bind_str(sqlite3_stmt *s, int i, struct gl_str v)
{
	if (v.p)
		sqlite3_bind_text(s, i, v.p, (int)v.len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void bind_id(sqlite3_stmt *s, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static uint64_t min_lines(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* step() for a statement whose every parameter is bound before each step. */
static int step(struct gl_store *st, sqlite3_stmt *s, struct gl_err *err)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? GL_OK : gl_store_db_err(st, err, "cannot store");
}

/* The filter's word of a record hash, and the hash's two bits in it. */
static uint64_t *bloom_word(const struct gl_store *st, uint64_t h, uint64_t *m)
{
	uint64_t k = h * 0x9E3779B97F4A7C15ULL;

	*m = 1ULL << (k & 63) | 1ULL << ((k >> 6) & 63);
	return &st->bloom[(k >> 40) & (GL_BLOOM_BITS / 64 - 1)];
}

/*
 * Adds the record hash of every timed event of the batch to the filter,
 * in batch order, and sets ev_maybe[i] when the filter knew it before
 * (an event put earlier, or earlier in this batch, may have the same
 * record). Done for the whole batch before its first row is stored, in
 * a loop of its own: the hashes were written by the parsing thread's core
 * and the filter's words are cache misses in 4 MiB, and here the loads
 * of many events are under way at once. Per row, in gl_store_ev_row(), each was a
 * stall even with prefetching (3% of the writer's time). Without memory
 * for the filter every event is looked up.
 */
static void bloom_pass(struct gl_store *st, const struct gl_batch *b)
{
	size_t n = b->nev;

	if (!n)
		return;
	if (!st->bloom && (st->bloom = gl_big_alloc(GL_BLOOM_BITS / 8)))
		/* on huge pages: in 4 KiB pages its first touches were 1,024
		 * page faults, a trip through the hypervisor each in a VM */
		memset(st->bloom, 0, GL_BLOOM_BITS / 8);
	if (!st->probes)
		st->probes = calloc(GL_PROBE_SLOTS, sizeof(*st->probes));	/* NULL: no cache */
	if (!st->bloom) {
		memset(st->ev_maybe, 1, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gl_bev *e = &b->ev[i];
		uint64_t m, *w;

		if (i + 16 < n)
			__builtin_prefetch(&b->ev[i + 16].rec_hash);
		if (i + 8 < n && b->ev[i + 8].ev.ts_us != GL_TS_NONE)
			__builtin_prefetch(bloom_word(st, b->ev[i + 8].rec_hash, &m), 1);
		st->ev_maybe[i] = 0;
		if (e->ev.ts_us == GL_TS_NONE)
			continue;
		w = bloom_word(st, e->rec_hash, &m);
		st->ev_maybe[i] = (*w & m) == m;
		*w |= m;
	}
}

/*
 * events.packed of the row put_event() binds (lib/store/evpack.h): the
 * values as the report reads them back from the columns bound above (a
 * NULL of bind_id/bind_count/bind_real, a REAL's -0.0 stored as 0).
 */
static size_t pack_event(const struct gl_event *e, int64_t comp, int64_t host_id, int64_t kern,
			 int64_t stream_id, const struct gl_store_op *op, unsigned char *out)
{
	const int level = (int)e->level;
	struct gl_evpack f = {
		.level = level >= GL_LEVEL_NONE && level <= GL_LEVEL_CRITICAL ? level : GL_LEVEL_NONE,
		.warn = level >= 4,
		.op = gl_evpack_like_operation((const unsigned char *)e->message.p, e->message.len),
		.has_kernel = kern != 0,
		.component_id = comp,
		.host_id = host_id,
		.kernel_id = kern,
		.dur_us = gl_evpack_real(e->dur_us),
		.mem_mb = gl_evpack_real(e->mem_mb),
		.exec_ms = gl_evpack_real(e->exec_ms),
		.anomaly = e->anomaly >= 0 ? e->anomaly : 0,
		.recovery_attempts = e->recovery_attempts >= 0 ? e->recovery_attempts : -1,
		.error_count = e->error_count >= 0 ? e->error_count : -1,
		.stream_id = stream_id,
		.is_op = op != NULL,
		.op_ms = op ? op->ms : NAN,
		.op_throughput = op ? op->throughput : NAN,
		.op_name_id = op ? op->name_id : 0,
	};

	return gl_evpack_encode(&f, out);
}

/*
 * Steps a duplicate probe whose ?2 (hash) and ?3 (stream) this binds, and
 * whose other parameters the caller bound: *dup is the original's id, or 0.
 */
static inline int probe_dup(struct gl_store *st, sqlite3_stmt *q, uint64_t h, int64_t stream_id,
			    int64_t *dup, struct gl_err *err)
{
	int rc;

	sqlite3_bind_int64(q, 2, (int64_t)h);
	sqlite3_bind_int64(q, 3, stream_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*dup = sqlite3_column_int64(q, 0);	/* NULL (none): 0 */
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return gl_store_db_err(st, err, "cannot store");
	if (*dup)
		st->duplicates++;
	return GL_OK;
}

/*
 * Is event i of the batch (e) an operation timing (lib/record/operation.h)?
 * 1: yes, appended to st->ev_ops with its name interned; 0: no; a negative
 * gl_code on failure. Found in the values the row is stored with (an
 * execution time as stored: -0.0 is 0), so that a database migrated to
 * schema 10 and one written by this ingest hold the same rows.
 */
static int find_operation(struct gl_store *st, const struct gl_event *e, size_t i,
			  struct gl_err *err)
{
	struct gl_operation op;
	int64_t name_id = 0;
	int rc;

	if (e->kernel.p || !gl_operation_of(e->message.p, e->message.len, e->metadata.p,
					    e->metadata.len, gl_evpack_real(e->exec_ms), &op))
		return 0;
	if (op.name[0] &&
	    (rc = gl_store_intern_id(st, &st->names, st->ins_name,
				     (struct gl_str){op.name, strlen(op.name)}, &name_id, err)) != GL_OK)
		return rc;
	if (st->n_ev_ops == st->ev_ops_cap) {
		size_t cap = st->ev_ops_cap ? st->ev_ops_cap * 2 : 256;
		struct gl_store_op *a = realloc(st->ev_ops, cap * sizeof(*a));

		if (!a)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		st->ev_ops = a;
		st->ev_ops_cap = cap;
	}
	st->ev_ops[st->n_ev_ops++] = (struct gl_store_op){i, name_id, op.ms,
							  gl_evpack_real(op.throughput)};
	return 1;
}

/*
 * Row i of the batch being put (the gl_evtab_src callback of ins_ev):
 * interns its names, probes for its original (rows 0..i-1 are in the table
 * by now: SQLite inserts each row before it asks for the next one) and packs
 * it. A failure is kept in st->put_err for gl_store_put().
 */
int gl_store_ev_row(void *arg, size_t i, struct gl_evrow *r)
{
	struct gl_store *st = arg;
	const struct gl_batch *batch = st->put_batch;
	const struct gl_bev *b = &batch->ev[i];
	const struct gl_event *e = &b->ev;
	struct gl_err *err = st->put_err;
	int64_t dup = 0;
	uint64_t h = b->rec_hash;
	int rc;

	r->b = b;
	r->scope_id = r->stack_id = 0;
	if ((rc = name_id(st, e->component, &r->comp_id, err)) != GL_OK ||
	    (rc = name_id(st, e->kernel, &r->kernel_id, err)) != GL_OK ||
	    (e->scope.p && (rc = name_id(st, e->scope, &r->scope_id, err)) != GL_OK) ||
	    (e->stack.p && (rc = name_id(st, e->stack, &r->stack_id, err)) != GL_OK))
		return st->put_rc = rc;
	/* a probe when the filter knew the hash (bloom_pass), or for an event
	 * not after every one stored before this run (the filter only knows
	 * this run's) */
	if (e->ts_us == GL_TS_NONE && e->source != GL_SRC_LOG) {
		/* a profiler record without a time: rare (one per device of a
		 * trace), always probed */
		if ((rc = probe_dup(st, st->dup_probe_nots, h, b->stream_id, &dup, err)) != GL_OK)
			return st->put_rc = rc;
	} else if (e->ts_us != GL_TS_NONE && (st->ev_maybe[i] || e->ts_us <= st->pre_max_ts)) {
		sqlite3_stmt *q = st->dup_probe;
		struct probe_hit *c = NULL;

		if (st->probes) {
			c = &st->probes[((h ^ (uint64_t)e->ts_us * 0x9E3779B97F4A7C15ULL) >> 52) &
					(GL_PROBE_SLOTS - 1)];
			if (c->stream_id == b->stream_id && c->ts_us == e->ts_us && c->hash == h) {
				dup = c->dup;
				if (dup)
					st->duplicates++;
				goto probed;
			}
		}

		sqlite3_bind_int64(q, 1, e->ts_us);
		if ((rc = probe_dup(st, q, h, b->stream_id, &dup, err)) != GL_OK)
			return st->put_rc = rc;
		if (c) {
			c->ts_us = e->ts_us;
			c->hash = h;
			c->stream_id = b->stream_id;
			c->dup = dup;
		}
	}
probed:
	st->ev_dup[i] = dup != 0;
	r->dup_of = dup;
	if ((rc = find_operation(st, e, i, err)) < 0)
		return st->put_rc = rc;
	r->packed_len = pack_event(e, r->comp_id, st->put_host_id, r->kernel_id, b->stream_id,
				   rc ? &st->ev_ops[st->n_ev_ops - 1] : NULL, r->packed);
	return GL_OK;
}

/*
 * The operation timings among the events first..end the INSERT just stored
 * (st->ev_ops, found as each row was made), into table operations. The
 * INSERT gave the rows consecutive ids, the last one last_insert_rowid.
 */
static int put_operations(struct gl_store *st, size_t first, size_t end, struct gl_err *err)
{
	const int64_t last = sqlite3_last_insert_rowid(st->db);
	sqlite3_stmt *s = st->ins_op;
	int rc;

	if ((size_t)sqlite3_changes(st->db) != end - first)
		return gl_err_set(err, GL_EDB, st->path, 0, "rows stored and rows given differ",
				  "cannot store");
	for (size_t k = 0; k < st->n_ev_ops; k++) {
		const struct gl_store_op *op = &st->ev_ops[k];

		sqlite3_bind_int64(s, 1, last - (int64_t)(end - 1 - op->i));
		bind_id(s, 2, op->name_id);
		sqlite3_bind_double(s, 3, op->ms);
		if (isnan(op->throughput))
			sqlite3_bind_null(s, 4);
		else
			sqlite3_bind_double(s, 4, op->throughput);
		if ((rc = step(st, s, err)) != GL_OK)
			return rc;
	}
	st->n_ev_ops = 0;
	return GL_OK;
}

/*
 * The batch's events, one INSERT ... SELECT per run of events of one kind
 * (log lines from gl_batch_logs, profiler records from gl_batch_events,
 * evtab.h) of one kind (gl_event_kind()) read from one file: the run's
 * stream, file, path, host and kind are the statement's parameters.
 */
static int put_events(struct gl_store *st, const struct gl_batch *batch, int64_t host_id,
		      struct gl_err *err)
{
	int rc = SQLITE_DONE;
	unsigned kinds = 0;		/* bit k: a row of kind k */

	st->put_batch = batch;
	st->put_host_id = host_id;
	st->put_err = err;
	st->put_rc = GL_OK;
	for (size_t i = 0, j; i < batch->nev && rc == SQLITE_DONE; i = j) {
		const struct gl_bev *first = &batch->ev[i];
		int logs = first->ev.source == GL_SRC_LOG;
		enum gl_ev_kind kind = gl_event_kind(&first->ev);
		sqlite3_stmt *s = logs ? st->ins_log : st->ins_ev;
		int64_t pid;

		for (j = i + 1; j < batch->nev; j++) {
			const struct gl_bev *e = &batch->ev[j];

			if ((e->ev.source == GL_SRC_LOG) != logs || e->stream_id != first->stream_id ||
			    e->file_id != first->file_id || e->path.p != first->path.p ||
			    e->path.len != first->path.len || gl_event_kind(&e->ev) != kind)
				break;
		}
		if ((st->put_rc = path_id(st, first->path, &pid, err)) != GL_OK)
			break;
		kinds |= 1u << kind;
		sqlite3_bind_int64(s, GL_EVTAB_P_STREAM, first->stream_id);
		bind_id(s, GL_EVTAB_P_FILE, first->file_id);
		bind_id(s, GL_EVTAB_P_PATH, pid);
		bind_id(s, GL_EVTAB_P_HOST, host_id);
		sqlite3_bind_int(s, GL_EVTAB_P_KIND, (int)kind);
		st->evsrc.first = i;
		st->evsrc.end = j;
		st->n_ev_ops = 0;
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc == SQLITE_DONE && (st->put_rc = put_operations(st, i, j, err)) != GL_OK)
			break;
	}
	st->evsrc.first = st->evsrc.end = 0;
	st->put_batch = NULL;
	if (st->put_rc != GL_OK)
		return st->put_rc;
	if (rc != SQLITE_DONE)
		return gl_store_db_err(st, err, "cannot store");
	/* the kinds of this batch's rows into event_kinds (in its transaction) */
	for (unsigned k = 0; kinds >> k; k++) {
		if (!(kinds >> k & 1u))
			continue;
		sqlite3_bind_int(st->put_kind, 1, (int)k);
		if ((rc = step(st, st->put_kind, err)) != GL_OK)
			return rc;
	}
	return GL_OK;
}

static int put_span(struct gl_store *st, const struct gl_bspan *b, int64_t host_id,
		    struct gl_err *err)
{
	const struct gl_span *x = &b->sp;
	sqlite3_stmt *s = st->ins_span;
	int64_t name, scope, pid;
	int rc;

	if ((rc = name_id(st, x->name, &name, err)) != GL_OK ||
	    (rc = name_id(st, x->path, &scope, err)) != GL_OK ||
	    (rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, x->start_us);
	sqlite3_bind_double(s, 2, isnan(x->dur_us) ? 0 : x->dur_us);
	bind_id(s, 3, name);
	bind_id(s, 4, scope);
	sqlite3_bind_int(s, 5, x->depth);
	bind_str(s, 6, x->device);
	sqlite3_bind_text(s, 7, gl_ev_source_name(x->source), -1, SQLITE_STATIC);
	bind_id(s, 8, host_id);
	sqlite3_bind_int64(s, 9, b->stream_id);
	sqlite3_bind_int64(s, 10, (int64_t)b->line);
	bind_id(s, 11, b->file_id);
	bind_id(s, 12, pid);
	return step(st, s, err);
}

static int put_mem(struct gl_store *st, const struct gl_bmem *b, int64_t host_id,
		   struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_mem;
	int64_t pid;
	int rc;

	if ((rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, b->m.ts_us);
	sqlite3_bind_int64(s, 2, b->m.thread);
	sqlite3_bind_int(s, 3, (int)b->m.action);
	sqlite3_bind_int64(s, 4, (int64_t)b->m.ptr);
	sqlite3_bind_int64(s, 5, b->m.size_bytes);
	sqlite3_bind_int64(s, 6, (int64_t)b->m.cuda_stream);
	bind_id(s, 7, host_id);
	sqlite3_bind_int64(s, 8, b->stream_id);
	sqlite3_bind_int64(s, 9, (int64_t)b->line);
	bind_id(s, 10, b->file_id);
	bind_id(s, 11, pid);
	return step(st, s, err);
}

static int put_sample(struct gl_store *st, const struct gl_bsample *b, int64_t host_id,
		      struct gl_err *err)
{
	const struct gl_sample *x = &b->s;
	struct gl_str source;
	struct memo *m;
	sqlite3_stmt *s;
	int64_t metric, series, pid;
	size_t klen;
	int rc;

	if ((rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	/* the series by the addresses of its strings (see name_memo) */
	m = memo_slot(st->series_memo, x->metric.p, x->metric.len);
	if (m->p == x->metric.p && m->len == x->metric.len && m->q == x->device.p &&
	    m->qlen == x->device.len && m->r == x->labels.p && m->rlen == x->labels.len &&
	    m->src == b->source && m->host == host_id && m->id) {
		series = m->id;
		goto found;
	}
	source = (struct gl_str){b->source, strlen(b->source)};
	klen = gl_store_series_key(st, host_id, x->metric, x->device, source, x->labels);
	if (!klen)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	series = gl_store_intern_find(&st->series, st->key, klen);
	if (!series) {
		/* (name_id() may grow the names table, never st->key) */
		if ((rc = name_id(st, x->metric, &metric, err)) != GL_OK)
			return rc;
		s = st->ins_series;
		sqlite3_bind_int64(s, 1, metric);
		bind_id(s, 2, host_id);
		bind_str(s, 3, x->device);
		bind_str(s, 4, source);
		bind_str(s, 5, x->labels);
		if ((rc = step(st, s, err)) != GL_OK)
			return rc;
		series = sqlite3_last_insert_rowid(st->db);
		if (gl_store_intern_add(&st->series, st->key, klen, series) < 0)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	*m = (struct memo){.p = x->metric.p, .len = x->metric.len, .q = x->device.p,
			   .qlen = x->device.len, .r = x->labels.p, .rlen = x->labels.len,
			   .src = b->source, .host = host_id, .id = series};
found:
	st->samples++;
	return gl_sbw_add(st->sbw, series, b->stream_id, b->file_id, pid, x->ts_estimated != 0,
			  x->ts_us, x->value, (int64_t)b->line, err);
}

static int put_reject(struct gl_store *st, const struct gl_brej *r, int64_t run_id,
		      struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_rej;
	int64_t pid;
	int rc;

	if ((rc = path_id(st, r->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, run_id);
	bind_id(s, 2, r->file_id);
	bind_id(s, 3, r->stream_id);
	bind_id(s, 4, (int64_t)r->line);
	sqlite3_bind_int64(s, 5, (int64_t)r->offset);
	bind_str(s, 6, r->reason);
	sqlite3_bind_int64(s, 7, (int64_t)r->length);
	if (r->excerpt.p)
		sqlite3_bind_blob(s, 8, r->excerpt.p, (int)r->excerpt.len, SQLITE_STATIC);
	if (r->ts_us != GL_TS_NONE)
		sqlite3_bind_int64(s, 9, r->ts_us);
	bind_id(s, 10, pid);
	return step(st, s, err);
}

/*
 * Line hashes first..first+n-1 of a stream (8 bytes each at h) into its
 * chunks of GL_LINES_CHUNK lines: the chunk that holds `first` keeps its
 * hashes before it and gets the new ones after (a partial last chunk is
 * rewritten by every batch that adds to it).
 */
static int put_lines(struct gl_store *st, int64_t stream_id, uint64_t first,
		     const unsigned char *h, uint64_t n, struct gl_err *err)
{
	unsigned char chunk[GL_LINES_CHUNK * 8];

	while (n) {
		uint64_t c0 = first - (first - 1) % GL_LINES_CHUNK, keep = first - c0;
		uint64_t take = min_lines(n, GL_LINES_CHUNK - keep);
		sqlite3_stmt *s = st->get_lines;
		int rc;

		if (keep) {
			sqlite3_bind_int64(s, 1, stream_id);
			sqlite3_bind_int64(s, 2, (int64_t)c0);
			rc = sqlite3_step(s);
			if (rc == SQLITE_ROW && (uint64_t)sqlite3_column_bytes(s, 0) >= keep * 8)
				memcpy(chunk, sqlite3_column_blob(s, 0), keep * 8);
			else
				memset(chunk, 0, keep * 8);	/* never: chunks are written in order */
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			if (rc != SQLITE_ROW && rc != SQLITE_DONE)
				return gl_store_db_err(st, err, "cannot store");
		}
		memcpy(chunk + keep * 8, h, take * 8);
		s = st->set_lines;
		sqlite3_bind_int64(s, 1, stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)c0);
		sqlite3_bind_blob(s, 3, chunk, (int)((keep + take) * 8), SQLITE_STATIC);
		if ((rc = step(st, s, err)) != GL_OK)
			return rc;
		first += take;
		h += take * 8;
		n -= take;
	}
	return GL_OK;
}

int gl_store_line_hashes(struct gl_store *st, int64_t stream_id, uint64_t first, uint64_t n,
			 uint64_t *out, uint64_t *got, struct gl_err *err)
{
	sqlite3_stmt *s = st->get_lines;

	*got = 0;
	while (n) {
		uint64_t c0 = first - (first - 1) % GL_LINES_CHUNK, skip = first - c0, have;
		int rc;

		sqlite3_bind_int64(s, 1, stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)c0);
		rc = sqlite3_step(s);
		have = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_bytes(s, 0) / 8 : 0;
		if (have > skip) {
			uint64_t take = min_lines(n, have - skip);

			memcpy(out + *got, (const unsigned char *)sqlite3_column_blob(s, 0) + skip * 8,
			       take * 8);
			*got += take;
			first += take;
			n -= take;
		}
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return gl_store_db_err(st, err, "cannot read ingest state");
		if (have < skip + 1 || have < GL_LINES_CHUNK)
			break;	/* the stream's hashes end here */
	}
	return GL_OK;
}

static int put_op(struct gl_store *st, const struct gl_bop *op, int64_t run_id,
		  struct gl_err *err)
{
	sqlite3_stmt *s;

	switch (op->kind) {
	case GL_BOP_STREAM: {
		const struct gl_bstream *x = &op->u.stream;

		s = st->put_stream;
		sqlite3_bind_int64(s, 1, x->id);
		sqlite3_bind_text(s, 2, x->format, -1, SQLITE_STATIC);
		bind_str(s, 3, x->component);
		bind_str(s, 4, x->first_path);
		sqlite3_bind_int64(s, 5, (int64_t)x->pos.bytes);
		sqlite3_bind_int64(s, 6, (int64_t)x->pos.lines);
		sqlite3_bind_int64(s, 7, (int64_t)x->pos.hash);
		sqlite3_bind_int64(s, 8, (int64_t)x->head.bytes);
		sqlite3_bind_int64(s, 9, (int64_t)x->head.hash);
		if (x->has_tod) {
			sqlite3_bind_int64(s, 10, x->day_us);
			sqlite3_bind_int64(s, 11, x->last_tod_us);
		}
		sqlite3_bind_int64(s, 12, x->created_run);
		sqlite3_bind_int64(s, 13, run_id);
		if (x->parse_state.p)
			sqlite3_bind_blob(s, 14, x->parse_state.p, (int)x->parse_state.len,
					  SQLITE_STATIC);
		sqlite3_bind_int(s, 15, x->lines_hashed);
		sqlite3_bind_int64(s, 16, (int64_t)x->open_end);
		return step(st, s, err);
	}
	case GL_BOP_LINES:
		return put_lines(st, op->u.lines.stream_id, op->u.lines.first,
				 (const unsigned char *)op->u.lines.hashes, op->u.lines.n, err);
	case GL_BOP_CHECKPOINT:
		s = st->put_cp;
		sqlite3_bind_int64(s, 1, op->u.cp.stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)op->u.cp.pos.bytes);
		sqlite3_bind_int64(s, 3, (int64_t)op->u.cp.pos.lines);
		sqlite3_bind_int64(s, 4, (int64_t)op->u.cp.pos.hash);
		return step(st, s, err);
	case GL_BOP_FILE: {
		const struct gl_bfile *f = &op->u.file;

		s = st->put_file;
		sqlite3_bind_int64(s, 1, f->id);
		bind_str(s, 2, f->path);
		sqlite3_bind_int64(s, 3, f->dev);
		sqlite3_bind_int64(s, 4, f->ino);
		sqlite3_bind_int64(s, 5, f->size);
		sqlite3_bind_int64(s, 6, f->mtime_ns);
		sqlite3_bind_int64(s, 7, (int64_t)f->raw_head_hash);
		sqlite3_bind_int(s, 8, f->gzip);
		bind_id(s, 9, f->stream_id);
		sqlite3_bind_int64(s, 10, (int64_t)f->consumed);
		if (f->has_tail)
			sqlite3_bind_int64(s, 11, (int64_t)f->tail_hash);
		sqlite3_bind_text(s, 12, f->status, -1, SQLITE_STATIC);
		bind_str(s, 13, f->note);
		sqlite3_bind_int64(s, 14, run_id);
		return step(st, s, err);
	}
	case GL_BOP_UNPATH:
		s = st->unpath;
		sqlite3_bind_int64(s, 1, op->u.unpath_id);
		return step(st, s, err);
	}
	return GL_OK;
}

/*
 * The rows of a stream's open record: every row after line after_line
 * (events and their operations, memory events, samples, spans, rejects). Rare (a writer paused
 * mid-line for over a minute), so no index: a scan of each table.
 */
static int drop_open(struct gl_store *st, const struct gl_bdrop *d, struct gl_err *err)
{
	static const char *const sql[] = {
		"DELETE FROM operations WHERE event_id IN"
		" (SELECT id FROM events WHERE stream_id = ?1 AND line > ?2)",
		"DELETE FROM events WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM mem_events WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM spans WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM rejects WHERE stream_id = ?1 AND line > ?2",
	};
	int rc = GL_OK;

	/* rows go: an answer cached may name one of them */
	if (st->probes)
		memset(st->probes, 0, GL_PROBE_SLOTS * sizeof(*st->probes));
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == GL_OK; i++) {
		sqlite3_stmt *s = NULL;

		if (sqlite3_prepare_v2(st->db, sql[i], -1, &s, NULL) != SQLITE_OK)
			return gl_store_db_err(st, err, "cannot replace an open record");
		sqlite3_bind_int64(s, 1, d->stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)d->after_line);
		rc = step(st, s, err);
		sqlite3_finalize(s);
	}
	if (rc == GL_OK)
		rc = gl_sblock_drop_after(st->db, st->path, d->stream_id, (int64_t)d->after_line,
					  err);
	return rc;
}

int gl_store_put(struct gl_store *st, const struct gl_batch *b, int64_t run_id, const char *host,
		 struct gl_err *err)
{
	int64_t host_id = 0;
	struct gl_str h = {host, host ? strlen(host) : 0};
	uint64_t dups = st->duplicates, samples = st->samples;
	int rc;

	if ((rc = gl_store_exec(st, "BEGIN IMMEDIATE", err)) != GL_OK)
		return rc;
	/* Batch strings are new memory: no pointer of an earlier batch counts. */
	st->last_path = NULL;
	memset(st->name_memo, 0, sizeof(st->name_memo));
	memset(st->series_memo, 0, sizeof(st->series_memo));
	rc = name_id(st, h, &host_id, err);
	if (rc == GL_OK && b->nev > st->ev_dup_cap) {
		unsigned char *d = realloc(st->ev_dup, b->nev);

		if (d)
			st->ev_dup = d;
		d = d ? realloc(st->ev_maybe, b->nev) : NULL;
		if (!d)
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		else
			st->ev_maybe = d, st->ev_dup_cap = b->nev;
	}
	for (size_t i = 0; i < b->ndrop && rc == GL_OK; i++)
		rc = drop_open(st, &b->drop[i], err);
	if (rc == GL_OK) {
		bloom_pass(st, b);
		rc = put_events(st, b, host_id, err);
	}
	for (size_t i = 0; i < b->nmem && rc == GL_OK; i++)
		rc = put_mem(st, &b->mem[i], host_id, err);
	/* The samples of a mirror (an event marked dup_of) are the original's. */
	for (size_t i = 0; i < b->nsamp && rc == GL_OK; i++)
		if (!b->samp[i].ev_plus1 || !st->ev_dup[b->samp[i].ev_plus1 - 1])
			rc = put_sample(st, &b->samp[i], host_id, err);
	if (rc == GL_OK)
		rc = gl_sbw_flush(st->sbw, err);
	gl_sbw_reset(st->sbw);
	for (size_t i = 0; i < b->nspan && rc == GL_OK; i++)
		rc = put_span(st, &b->span[i], host_id, err);
	for (size_t i = 0; i < b->nrej && rc == GL_OK; i++)
		rc = put_reject(st, &b->rej[i], run_id, err);
	for (size_t i = 0; i < b->nop && rc == GL_OK; i++)
		rc = put_op(st, &b->op[i], run_id, err);
	if (rc == GL_OK)
		rc = gl_store_exec(st, "COMMIT", err);
	if (rc != GL_OK) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		/* Names inserted in the rolled-back transaction are gone again. */
		struct gl_err ignored;

		st->duplicates = dups;
		st->samples = samples;
		gl_store_interns_load(st, &ignored);
		if (st->probes)
			memset(st->probes, 0, GL_PROBE_SLOTS * sizeof(*st->probes));
	}
	return rc;
}

uint64_t gl_store_duplicates(const struct gl_store *st)
{
	return st->duplicates;
}

uint64_t gl_store_samples(const struct gl_store *st)
{
	return st->samples;
}
