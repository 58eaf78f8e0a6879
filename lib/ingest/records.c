/*
 * records.c - the lines of a file become batch rows: parsed in the file's
 * format (or, on a miss, another one), multi-line records assembled,
 * malformed lines kept as rejects; and the stream/file state that says how
 * far they are stored goes into the same batch, so rows and state commit
 * together. A batch sent from in here never claims a line whose row is not
 * in it yet (see gl_job_committed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "records.h"
#include "../store/store.h"

/* Returns the offset of the first invalid UTF-8 byte, or len when valid. */
static size_t utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		/* ASCII runs, 16 bytes at a time (SSE2: any byte >= 0x80 sets
		 * its bit of the mask), then 8 */
#ifdef __SSE2__
		while (i + 16 <= len &&
		       !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i))))
			i += 16;
#endif
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= len)
			break;
		unsigned char c = s[i];

		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n;
		uint32_t cp;

		if (c >= 0xC2 && c <= 0xDF) {
			n = 1;
			cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			n = 2;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return i;
		}
		for (size_t k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return i;
		i += n + 1;
	}
	return len;
}

static struct gl_str cstr(const char *s)
{
	struct gl_str v = {s, s ? strlen(s) : 0};

	return v;
}

/*
 * A problem to tell the user about this file, read as "<what> '<path>':
 * <cause><more>"; code GL_OK marks information (a skipped file).
 */
void gl_job_notice(struct job *j, int code, const char *what, const char *cause,
		   const char *more)
{
	struct gl_batch *b = j->p->b;
	char c[300];

	snprintf(c, sizeof(c), "%.200s%.90s", cause ? cause : "", more);
	if (b->nnotice < GL_BATCH_NOTICES)
		gl_err_set(&b->notice[b->nnotice++], code, j->f->path, 0, c, "%s", what);
}

/*
 * Appends the stream's and the file's state as of `at` to the batch.
 * status is the file's status: "partial" while the file is being read.
 */
void gl_job_put_state(struct job *j, struct gl_pos at, int checkpoint, const char *status)
{
	struct gl_producer *p = j->p;
	struct gl_batch *b = p->b;
	struct gl_sfile *sf = &p->state->file[j->fi];
	struct gl_bop *op;

	if (j->si >= 0) {
		struct gl_sstream *st = &p->state->stream[j->si];

		st->pos = at;
		st->has_tod = (j->fmt && (j->fmt->flags & GL_FMT_TIME_OF_DAY)) || st->has_tod;
		if (st->has_tod) {
			st->day_us = j->ctx.day_us;
			st->last_tod_us = j->ctx.last_tod_us;
		}
		op = &b->op[b->nop++];
		op->kind = GL_BOP_STREAM;
		op->u.stream.id = st->id;
		op->u.stream.format = gl_format_find(st->format) ? gl_format_find(st->format)->name
								 : NULL;
		op->u.stream.component = gl_batch_str(b, cstr(st->component));
		op->u.stream.first_path = gl_batch_str(b, cstr(st->first_path));
		op->u.stream.pos = at;
		op->u.stream.head = st->head;
		op->u.stream.has_tod = st->has_tod;
		op->u.stream.day_us = st->day_us;
		op->u.stream.last_tod_us = st->last_tod_us;
		op->u.stream.created_run = st->created_run;
		{
			const unsigned char *ps = j->in_line ? j->prev_state : j->ctx.state;
			size_t pn = j->in_line ? j->prev_state_len : j->ctx.state_len;

			gl_state_set_parse_state(p->state, j->si, ps, pn);
			op->u.stream.parse_state = pn ? gl_batch_str(b, (struct gl_str){(const char *)ps, pn})
						      : (struct gl_str){NULL, 0};
		}
		op->u.stream.lines_hashed = st->lines_hashed;
		/* an earlier open record whose rows are still there stays open */
		if (!j->drop_pending)
			st->open_end = j->last_cut ? j->cut_end : 0;
		op->u.stream.open_end = st->open_end;
		gl_job_put_lines(j, at);
		if (checkpoint && at.bytes) {
			gl_state_add_checkpoint(p->state, j->si, at);
			op = &b->op[b->nop++];
			op->kind = GL_BOP_CHECKPOINT;
			op->u.cp.stream_id = st->id;
			op->u.cp.pos = at;
			j->last_cp = at.bytes;
		}
	}
	sf->consumed = at.bytes;
	sf->has_tail = 0;
	if (!j->gzip && at.bytes) {
		uint64_t n = min_u64(at.bytes, GL_HEAD_BYTES);
		int ok;

		sf->tail_hash = gl_fp_raw(j->f->path, at.bytes - n, n, &ok);
		sf->has_tail = ok;
	}
	op = &b->op[b->nop++];
	op->kind = GL_BOP_FILE;
	op->u.file.id = sf->id;
	op->u.file.path = gl_batch_str(b, cstr(sf->path));
	op->u.file.dev = sf->dev;
	op->u.file.ino = sf->ino;
	op->u.file.size = sf->size;
	op->u.file.mtime_ns = sf->mtime_ns;
	op->u.file.raw_head_hash = sf->raw_head_hash;
	op->u.file.gzip = sf->gzip;
	op->u.file.stream_id = sf->stream_id;
	op->u.file.consumed = sf->consumed;
	op->u.file.has_tail = sf->has_tail;
	op->u.file.tail_hash = sf->tail_hash;
	op->u.file.status = status;
	op->u.file.note = gl_batch_str(b, cstr(sf->note));
	snprintf(sf->status, sizeof(sf->status), "%s", status);
}

/*
 * The position up to which everything read is in batches: before a
 * multi-line record still open, or before the first line of a trace
 * element still being assembled (hold).
 */
struct gl_pos gl_job_committed(const struct job *j)
{
	struct gl_pos at = j->pend.active ? j->pend.start : j->pos;

	if (j->hold_active && j->hold_start.bytes < at.bytes)
		at = j->hold_start;
	/* a record whose last line is cut is stored, never claimed */
	if (j->last_cut && j->rec_start.bytes < at.bytes)
		at = j->rec_start;
	return at;
}

/* Sends the batch mid-file, with the state that makes its rows final. */
int gl_job_send(struct job *j)
{
	struct gl_pos at = gl_job_committed(j);
	int cp = at.bytes >= j->last_cp + GL_CHECKPOINT_BYTES;

	gl_job_put_state(j, at, cp, "partial");
	return j->p->send(j->p);
}

/*
 * Makes room for `bytes` of strings and `rows` rows, plus the state ops
 * that must follow them in the same batch (their paths and names).
 */
static int room_rows(struct job *j, size_t bytes, size_t rows)
{
	const struct gl_batch *b = j->p->b;

	int rc = GL_OK;

	if (gl_batch_full(b) || gl_batch_room(b) < bytes + GL_STATE_ROOM + gl_job_lines_room(j) ||
	    b->nev + b->nmem + b->nspan + rows > GL_BATCH_ROWS)
		rc = gl_job_send(j);
	return rc;
}

static int room(struct job *j, size_t bytes)
{
	return room_rows(j, bytes, 1);
}

/* This file's path in the current batch, copied once per batch. */
static struct gl_str job_path(struct job *j)
{
	struct gl_batch *b = j->p->b;

	if (!j->bpath.p || j->bpath_b != b || j->bpath_gen != b->gen) {
		j->bpath = gl_batch_str(b, cstr(j->f->path));
		j->bpath_b = b;
		j->bpath_gen = b->gen;
	}
	return j->bpath;
}

int gl_job_room_for_state(struct job *j)
{
	return room_rows(j, 0, 0);
}

/*
 * The rows of the stream's open record (an earlier run stored its cut last
 * line) go, in the batch that holds the first line read after the stream's
 * position: the record read again replaces them. A batch committed after
 * the drop claims no further than that position, so a run killed in
 * between reads the record again.
 */
void gl_job_drop_open(struct job *j)
{
	struct gl_batch *b = j->p->b;
	const struct gl_sstream *st;

	if (!j->drop_pending || j->si < 0)
		return;
	st = &j->p->state->stream[j->si];
	b->drop[b->ndrop].stream_id = st->id;
	b->drop[b->ndrop].after_line = st->pos.lines;
	b->ndrop++;
	j->drop_pending = 0;
}

int gl_job_reject(struct job *j, uint64_t line, uint64_t offset, uint64_t length,
		      const char *p, size_t len, const char *reason)
{
	struct gl_batch *b;
	struct gl_brej *r;
	struct gl_str ex = {p, len > GL_EXCERPT_MAX ? GL_EXCERPT_MAX : len};
	int rc;

	/* Past max_rejects bad lines (line 0 is the damage, always kept) a
	 * file is junk, or read in the wrong format: the rest are counted, and
	 * the file's note says so. 28 MB of gzipped junk would otherwise store
	 * gigabytes of excerpts. */
	uint64_t cap = j->p->max_rejects ? j->p->max_rejects : GL_MAX_REJECTS_DEFAULT;

	if (line && j->nrejected >= cap) {
		struct gl_sfile *sf = &j->p->state->file[j->fi];
		char note[160];

		if (j->nrejected++ == cap) {
			j->p->b->files_rejects_capped++;
			snprintf(note, sizeof(note),
				 "more than %llu rejected lines: the rest counted, not stored",
				 (unsigned long long)cap);
			free(sf->note);
			if (!(sf->note = strdup(note)))
				return GL_ENOMEM;
			gl_job_notice(j, GL_OK, "rejects capped", note, "");
		}
		j->p->b->rejects_unstored++;
		return GL_OK;
	}
	if (line)
		j->nrejected++;
	if (line && !j->first_reject[0])
		snprintf(j->first_reject, sizeof(j->first_reject), "%s", reason);
	if ((rc = room(j, ex.len + strlen(reason))) != GL_OK)
		return rc;
	b = j->p->b;
	r = &b->rej[b->nrej++];
	r->ts_us = j->last_ts;
	r->stream_id = j->si >= 0 ? j->p->state->stream[j->si].id : 0;
	r->file_id = j->p->state->file[j->fi].id;
	r->path = job_path(j);
	r->line = line;
	r->offset = offset;
	r->length = length;
	r->reason = gl_batch_str(b, cstr(reason));
	r->excerpt = p ? gl_batch_str(b, ex) : (struct gl_str){NULL, 0};
	return GL_OK;
}

static size_t ev_bytes(const struct gl_event *e, const char *dflt)
{
	return e->component.len + e->message.len + e->kernel.len + e->metadata.len +
	       e->device.len + e->stream.len + e->grid.len + e->block.len + e->scope.len +
	       e->stack.len + (dflt ? strlen(dflt) : 0);
}

static size_t span_bytes(const struct gl_span *s)
{
	return s->name.len + s->path.len + s->device.len;
}

static size_t samples_bytes(const struct gl_sample *v, size_t n)
{
	size_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].metric.len + v[i].device.len + v[i].labels.len;
	return t;
}

/* Puts ev into the batch; the caller made room. */
static void put_event(struct job *j, const struct gl_event *e, uint64_t line)
{
	struct gl_sstream *st = &j->p->state->stream[j->si];
	struct gl_batch *b = j->p->b;
	struct gl_bev *x = &b->ev[b->nev++];

	gl_batch_warm(b);
	x->ev = *e;
	x->ev.component = gl_batch_name(b, e->component.p ? e->component : cstr(st->component));
	x->comp_from_path = !e->component.p;
	x->ev.message = gl_batch_str(b, e->message);
	x->ev.kernel = gl_batch_name(b, e->kernel);
	x->ev.metadata = gl_batch_str(b, e->metadata);
	if (e->source != GL_SRC_LOG) {
		x->ev.device = gl_batch_str(b, e->device);
		x->ev.stream = gl_batch_str(b, e->stream);
		x->ev.grid = gl_batch_str(b, e->grid);
		x->ev.block = gl_batch_str(b, e->block);
		x->ev.scope = gl_batch_name(b, e->scope);
		x->ev.stack = gl_batch_name(b, e->stack);
	} else {
		x->ev.device = x->ev.stream = x->ev.grid = x->ev.block = (struct gl_str){NULL, 0};
		x->ev.scope = x->ev.stack = (struct gl_str){NULL, 0};
	}
	x->stream_id = st->id;
	x->file_id = j->p->state->file[j->fi].id;
	x->path = job_path(j);
	x->line = line;
	{
		/* The record as written: a component taken from the file name is
		 * not part of it (the same line in gpu.log and error.log is one
		 * record). */
		struct gl_event own = x->ev;
		struct gl_str host = {b->host, b->host ? strlen(b->host) : 0};

		if (x->comp_from_path)
			own.component = (struct gl_str){NULL, 0};
		x->rec_hash = gl_store_rec_hash(&own, host);
	}
	if (e->ts_us != GL_TS_NONE)
		j->last_ts = e->ts_us;
	j->nrows++;
}

/* A string of a sample, copied once when samples share it (one device
 * and label set for all fields of a row). */
static struct gl_str sample_str(struct gl_batch *b, struct gl_str s, struct gl_str *last_src,
				struct gl_str *last_copy)
{
	if (!s.p)
		return s;
	if (s.p == last_src->p && s.len == last_src->len)
		return *last_copy;
	*last_src = s;
	*last_copy = gl_batch_name(b, s);
	return *last_copy;
}

/* Puts v[0..n) into the batch; the caller made room. with_event: they came
 * with the event put last. */
static void put_samples(struct job *j, const struct gl_sample *v, size_t n, uint64_t line,
			int with_event)
{
	struct gl_batch *b = j->p->b;
	struct gl_str src[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}}, cp[3];

	for (size_t i = 0; i < n; i++) {
		struct gl_bsample *x = &b->samp[b->nsamp++];

		x->s = v[i];
		x->s.metric = sample_str(b, v[i].metric, &src[0], &cp[0]);
		x->s.device = sample_str(b, v[i].device, &src[1], &cp[1]);
		x->s.labels = sample_str(b, v[i].labels, &src[2], &cp[2]);
		x->source = j->fmt->name;
		x->stream_id = j->p->state->stream[j->si].id;
		x->file_id = j->p->state->file[j->fi].id;
		x->path = job_path(j);
		x->line = line;
		x->ev_plus1 = with_event ? b->nev : 0;
		j->last_ts = v[i].ts_us;
	}
	j->nrows += n;
}

/*
 * One record: an event (may be NULL) and its samples, with one room check
 * for both, so that a batch sent for room never holds half of a line.
 */
static int add_record(struct job *j, const struct gl_event *e, const struct gl_sample *v,
		      size_t n, uint64_t line)
{
	const char *dflt = j->p->state->stream[j->si].component;
	int rc = room(j, (e ? ev_bytes(e, dflt) : 0) + samples_bytes(v, n));

	if (rc != GL_OK)
		return rc;
	if (e)
		put_event(j, e, line);
	put_samples(j, v, n, line, e != NULL);
	return GL_OK;
}

/* Puts sp into the batch; the caller made room. */
static void put_span(struct job *j, const struct gl_span *sp, uint64_t line)
{
	struct gl_batch *b = j->p->b;
	struct gl_bspan *x = &b->span[b->nspan++];

	x->sp = *sp;
	x->sp.name = gl_batch_name(b, sp->name);
	x->sp.path = gl_batch_name(b, sp->path);
	x->sp.device = gl_batch_str(b, sp->device);
	x->stream_id = j->p->state->stream[j->si].id;
	x->file_id = j->p->state->file[j->fi].id;
	x->path = job_path(j);
	x->line = line;
	j->last_ts = sp->start_us;
	j->nrows++;
}

static int add_mem(struct job *j, const struct gl_memev *m, uint64_t line)
{
	int rc = room(j, 0);
	struct gl_batch *b;
	struct gl_bmem *x;

	if (rc != GL_OK)
		return rc;
	b = j->p->b;
	x = &b->mem[b->nmem++];
	x->m = *m;
	j->last_ts = m->ts_us;
	j->nrows++;
	x->stream_id = j->p->state->stream[j->si].id;
	x->file_id = j->p->state->file[j->fi].id;
	x->path = job_path(j);
	x->line = line;
	return GL_OK;
}

/* --- rows of a held run (ctx.hold) ---------------------------------- */

/* Appends s to the buffer buf[0..*len) of *cap bytes, which grows by doubling
 * (from 4096); -1 when out of memory, the buffer as it was. */
static int bytes_put(char **buf, size_t *len, size_t *cap, struct gl_str s)
{
	if (*len + s.len > *cap) {
		size_t c = *cap ? *cap : 4096;
		char *v;

		while (c < *len + s.len)
			c *= 2;
		if (!(v = realloc(*buf, c)))
			return -1;
		*buf = v;
		*cap = c;
	}
	memcpy(*buf + *len, s.p, s.len);
	*len += s.len;
	return 0;
}

/*
 * A trace format sets ctx.hold on a line that leaves an element half
 * read (or a kernel waiting for its launch call). Until a line ends with
 * hold 0 the file claims no further than the position before the run's
 * first line, and the parse state stored with that claim is the one the
 * format kept at it (it changes state only on hold-0 lines). A row the
 * run gives before it ends (Kineto lets a held kernel go when the next
 * one comes) waits here and goes into the batch with the closing line's
 * rows, in one room check: a kill, a batch boundary or the file's end
 * inside the run re-reads the run next time, and its rows are stored
 * once. A run of more than HELD_ROWS_MAX rows (or HELD_BYTES_MAX of their
 * strings) is stored as it comes; only then could a kill inside it store
 * some of its rows twice. No real trace comes near it: Kineto holds one
 * kernel for at most 8 elements.
 */
static int held_put(struct held *h, struct held_row *r, int k, struct gl_str s)
{
	r->has[k] = s.p != NULL;
	r->off[k] = h->len;
	r->len[k] = s.len;
	return s.p ? bytes_put(&h->buf, &h->len, &h->bcap, s) : 0;
}

static struct gl_str held_get(const struct held *h, const struct held_row *r, int k)
{
	return r->has[k] ? (struct gl_str){h->buf + r->off[k], r->len[k]} : (struct gl_str){NULL, 0};
}

static int held_add(struct job *j, const struct gl_rec *rec, uint64_t line)
{
	struct held *h = &j->held;
	struct held_row *r;
	int bad = 0;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct held_row *v = realloc(h->row, cap * sizeof(*v));

		if (!v)
			return GL_ENOMEM;
		h->row = v;
		h->cap = cap;
	}
	r = &h->row[h->n++];
	r->kind = rec->kind;
	r->line = line;
	if (rec->kind == GL_REC_SPAN) {
		r->sp = rec->span;
		bad |= held_put(h, r, 0, rec->span.name) | held_put(h, r, 1, rec->span.path) |
		       held_put(h, r, 2, rec->span.device);
	} else {
		const struct gl_event *e = &rec->ev;

		r->ev = *e;
		bad |= held_put(h, r, 0, e->component) | held_put(h, r, 1, e->message) |
		       held_put(h, r, 2, e->kernel) | held_put(h, r, 3, e->metadata) |
		       held_put(h, r, 4, e->device) | held_put(h, r, 5, e->stream) |
		       held_put(h, r, 6, e->grid) | held_put(h, r, 7, e->block) |
		       held_put(h, r, 8, e->scope) | held_put(h, r, 9, e->stack);
	}
	return bad ? GL_ENOMEM : GL_OK;
}

/* The held rows into the batch (the caller made room for them). */
static void held_put_all(struct job *j)
{
	struct held *h = &j->held;

	for (size_t i = 0; i < h->n; i++) {
		struct held_row *r = &h->row[i];

		if (r->kind == GL_REC_SPAN) {
			struct gl_span sp = r->sp;

			sp.name = held_get(h, r, 0);
			sp.path = held_get(h, r, 1);
			sp.device = held_get(h, r, 2);
			put_span(j, &sp, r->line);
		} else {
			struct gl_event e = r->ev;

			e.component = held_get(h, r, 0);
			e.message = held_get(h, r, 1);
			e.kernel = held_get(h, r, 2);
			e.metadata = held_get(h, r, 3);
			e.device = held_get(h, r, 4);
			e.stream = held_get(h, r, 5);
			e.grid = held_get(h, r, 6);
			e.block = held_get(h, r, 7);
			e.scope = held_get(h, r, 8);
			e.stack = held_get(h, r, 9);
			put_event(j, &e, r->line);
		}
	}
	h->n = 0;
	h->len = 0;
}

/*
 * On the line that ends a held run: room for the held rows and for all
 * this line adds (its record's strings and rows, or a reject), in one
 * check, then the held rows into the batch. A batch sent later for this
 * line's own room check would find the room and not be sent, so no batch
 * holds the held rows without this line's claim.
 */
static int held_release(struct job *j, const struct gl_rec *rec, size_t line_len)
{
	struct held *h = &j->held;
	const char *dflt = j->p->state->stream[j->si].component;
	size_t bytes = h->len + h->n * strlen(dflt) + samples_bytes(rec->samples, rec->n_samples) +
		       (line_len < GL_EXCERPT_MAX ? line_len : GL_EXCERPT_MAX) + 512;
	int rc;

	if (rec->kind == GL_REC_SPAN)
		bytes += span_bytes(&rec->span);
	else if (rec->kind == GL_REC_EVENT)
		bytes += ev_bytes(&rec->ev, dflt);
	if ((rc = room_rows(j, bytes, h->n + 1)) != GL_OK)
		return rc;
	held_put_all(j);
	return GL_OK;
}

/*
 * The file settled inside a run of held lines (format.h: end, settle):
 * the records the format holds back and the held rows are stored, and the
 * reason the format gives for the cut a reject of the last line, all as an
 * open record from the run's first line to the end read, claimed no further
 * than before the run, with the format's state as it was there.
 */
int gl_job_settle(struct job *j, uint64_t last_offset)
{
	unsigned char saved[GL_PARSE_STATE_MAX];
	size_t saved_len = j->ctx.state_len;
	const char *cut = NULL;
	struct gl_rec rec;
	int rc;

	while (j->fmt->settle && j->fmt->settle(&j->ctx, &rec) == 1)
		if ((rec.kind == GL_REC_EVENT || rec.kind == GL_REC_SPAN) &&
		    (rc = held_add(j, &rec, j->pos.lines)) != GL_OK)
			return rc;
	if (!j->held.n && j->fmt->end) {
		memcpy(saved, j->ctx.state, saved_len);
		cut = j->fmt->end(&j->ctx);
		memcpy(j->ctx.state, saved, saved_len);
		j->ctx.state_len = saved_len;
	}
	if (!j->held.n && !cut)
		return GL_OK;
	if (j->held.n) {
		rec.kind = GL_REC_NONE;
		rec.samples = NULL;
		rec.n_samples = 0;
		if ((rc = held_release(j, &rec, 0)) != GL_OK)
			return rc;
	}
	if (cut && (rc = gl_job_reject(j, j->pos.lines, last_offset, 0, NULL, 0, cut)) != GL_OK)
		return rc;
	if (!j->last_cut) {
		j->last_cut = 1;
		j->cut_end = j->pos.bytes;
		j->rec_start = j->hold_start;
	}
	return GL_OK;
}

/* A span and its samples, with one room check for both. */
static int add_span(struct job *j, const struct gl_span *sp, const struct gl_sample *v, size_t n,
		    uint64_t line)
{
	int rc = room(j, span_bytes(sp) + samples_bytes(v, n));

	if (rc != GL_OK)
		return rc;
	put_span(j, sp, line);
	put_samples(j, v, n, line, 0);
	return GL_OK;
}

void gl_job_release(struct job *j)
{
	free(j->pend.buf);
	free(j->pend.samp);
	free(j->held.row);
	free(j->held.buf);
	free(j->lh);
}

/* --- multi-line records --------------------------------------------- */

static int pend_put(struct pending *pd, struct gl_str s, size_t *off, int *has)
{
	*has = s.p != NULL;
	*off = pd->len;
	return s.p ? bytes_put(&pd->buf, &pd->len, &pd->cap, s) : 0;
}

int gl_job_flush(struct job *j)
{
	struct pending *pd = &j->pend;
	int rc;

	if (!pd->active)
		return GL_OK;
	/* Room first, while the record still counts as not committed: a batch
	 * sent now must not claim its lines. */
	if ((rc = room(j, pd->len * (1 + pd->nsamp) +
			      strlen(j->p->state->stream[j->si].component))) != GL_OK)
		return rc;
	for (size_t i = 0; i < pd->nsamp; i++) {
		struct pend_sample *ps = &pd->samp[i];

		ps->s.metric.p = pd->buf + ps->metric_off;
		ps->s.device.p = ps->has_device ? pd->buf + ps->device_off : NULL;
		ps->s.labels.p = ps->has_labels ? pd->buf + ps->labels_off : NULL;
	}
	pd->ev.component = pd->has_comp ? (struct gl_str){pd->buf + pd->comp_off, pd->comp_len}
					 : (struct gl_str){NULL, 0};
	pd->ev.kernel = pd->has_kern ? (struct gl_str){pd->buf + pd->kern_off, pd->kern_len}
				     : (struct gl_str){NULL, 0};
	pd->ev.metadata = pd->has_meta ? (struct gl_str){pd->buf + pd->meta_off, pd->meta_len}
				       : (struct gl_str){NULL, 0};
	pd->ev.message = (struct gl_str){pd->buf + pd->msg_off, pd->len - pd->msg_off};
	pd->active = 0;
	put_event(j, &pd->ev, pd->line);
	for (size_t i = 0; i < pd->nsamp; i++)
		put_samples(j, &pd->samp[i].s, 1, pd->line, 1);
	return GL_OK;
}

/* Keeps the samples of a pending record's first line with it. */
static int pend_samples(struct pending *pd, const struct gl_sample *v, size_t n)
{
	pd->nsamp = 0;
	if (n > pd->capsamp) {
		struct pend_sample *a = realloc(pd->samp, n * sizeof(*a));

		if (!a)
			return -1;
		pd->samp = a;
		pd->capsamp = n;
	}
	for (size_t i = 0; i < n; i++) {
		struct pend_sample *ps = &pd->samp[pd->nsamp++];
		int has;

		ps->s = v[i];
		if (pend_put(pd, v[i].metric, &ps->metric_off, &has) < 0 ||
		    pend_put(pd, v[i].device, &ps->device_off, &ps->has_device) < 0 ||
		    pend_put(pd, v[i].labels, &ps->labels_off, &ps->has_labels) < 0)
			return -1;
	}
	return 0;
}

static int pend_start(struct job *j, const struct gl_event *e, const struct gl_sample *v,
		      size_t n, uint64_t line, struct gl_pos start)
{
	struct pending *pd = &j->pend;
	int has_msg;

	pd->len = 0;
	pd->nsamp = 0;
	pd->ev = *e;
	pd->line = line;
	pd->start = start;
	if (pend_put(pd, e->component, &pd->comp_off, &pd->has_comp) < 0 ||
	    pend_put(pd, e->kernel, &pd->kern_off, &pd->has_kern) < 0 ||
	    pend_put(pd, e->metadata, &pd->meta_off, &pd->has_meta) < 0)
		return GL_ENOMEM;
	pd->comp_len = e->component.len;
	pd->kern_len = e->kernel.len;
	pd->meta_len = e->metadata.len;
	if (pend_samples(pd, v, n) < 0)
		return GL_ENOMEM;
	if (pend_put(pd, e->message.p ? e->message : (struct gl_str){"", 0}, &pd->msg_off,
		     &has_msg) < 0)
		return GL_ENOMEM;
	pd->active = 1;
	return GL_OK;
}

/* --- one line ------------------------------------------------------- */

/* Parses with the current format; on a miss, tries the others (a service
 * upgraded mid-file switches from text to JSON lines and back). */
static void classify(struct job *j, const char *p, size_t len, struct gl_rec *rec)
{
	const struct gl_format *cur = j->fmt;
	size_t state_len = j->ctx.state_len;

	gl_ctx_begin_line(&j->ctx, len);
	rec->samples = NULL;
	rec->n_samples = 0;
	j->ctx.hold = 0;
	cur->parse(&j->ctx, p, len, rec);
	if (rec->kind == GL_REC_EVENT || rec->kind == GL_REC_MEM || rec->kind == GL_REC_NONE ||
	    rec->kind == GL_REC_SAMPLES || rec->kind == GL_REC_SPAN)
		return;
	/*
	 * Not a record of the current format. Even a line the current format
	 * would take as a continuation may start a record of another one: a
	 * JSON line after a Python traceback is that JSON record, not more of
	 * the traceback.
	 */
	if (!j->p->forced) {
		struct gl_rec alt;

		/* pass 0: the specific formats; pass 1: the fallback (GL_FMT_FALLBACK),
		 * only for a line foreign to the file's format (its rejects stay its own) */
		for (int pass = 0; pass < 2; pass++) {
			for (size_t i = 0; gl_formats[i]; i++) {
				int fb = (gl_formats[i]->flags & GL_FMT_FALLBACK) != 0;

				if (gl_formats[i] == cur || fb != pass ||
				    (fb && rec->kind != GL_REC_FOREIGN))
					continue;
				gl_ctx_begin_line(&j->ctx, len);
				alt.samples = NULL;
				alt.n_samples = 0;
				j->ctx.hold = 0;
				gl_formats[i]->parse(&j->ctx, p, len, &alt);
				if (fb) {
					memcpy(j->ctx.state, j->prev_state, state_len);
					j->ctx.state_len = state_len;
				}
				if (alt.kind == GL_REC_EVENT || alt.kind == GL_REC_MEM ||
				    alt.kind == GL_REC_SAMPLES) {
					*rec = alt;
					if (!fb)
						j->fmt = gl_formats[i];
					return;
				}
				/* a trial never changes the stream's parse state */
				memcpy(j->ctx.state, j->prev_state, state_len);
				j->ctx.state_len = state_len;
			}
		}
		/* scratch may have been reused by the trials: parse again */
		gl_ctx_begin_line(&j->ctx, len);
		rec->samples = NULL;
		rec->n_samples = 0;
		j->ctx.hold = 0;
		cur->parse(&j->ctx, p, len, rec);
	}
	if (rec->kind == GL_REC_FOREIGN) {
		rec->kind = GL_REC_REJECT;
		rec->reason = j->p->forced ? "not a line of the format given with --format"
					   : "not a line of any known format";
	}
}

static int ts_out(int64_t ts_us)
{
	return ts_us != GL_TS_NONE && (ts_us < 0 || ts_us >= GL_TS_END);
}

/*
 * A record placed before 1970 or after 9999 (a year 0 or 1900 written, a
 * ns count read as µs: year 33658) is a reject that says so, never stored
 * where no report would look for it.
 */
static void out_of_range(struct gl_rec *rec, char *reason, size_t n)
{
	int64_t bad = GL_TS_NONE;

	if (rec->kind == GL_REC_EVENT && ts_out(rec->ev.ts_us))
		bad = rec->ev.ts_us;
	else if (rec->kind == GL_REC_SPAN && ts_out(rec->span.start_us))
		bad = rec->span.start_us;
	else if (rec->kind == GL_REC_MEM && ts_out(rec->mem.ts_us))
		bad = rec->mem.ts_us;
	if (bad == GL_TS_NONE && (rec->kind == GL_REC_EVENT || rec->kind == GL_REC_SAMPLES ||
				  rec->kind == GL_REC_SPAN))
		for (size_t i = 0; i < rec->n_samples && bad == GL_TS_NONE; i++)
			if (ts_out(rec->samples[i].ts_us))
				bad = rec->samples[i].ts_us;
	if (bad == GL_TS_NONE)
		return;
	snprintf(reason, n, "time out of range (before 1970 or after 9999): %lld us",
		 (long long)bad);
	rec->kind = GL_REC_REJECT;
	rec->reason = reason;
}

/*
 * Stores one line. j->pos is still the position before the line, so a
 * batch sent from in here never claims this line before its row is in.
 */
static int line_record(struct job *j, const struct gl_line *ln, uint64_t lineno);

int gl_job_line(struct job *j, const struct gl_line *ln, uint64_t lineno)
{
	struct gl_batch *b = j->p->b;
	char reason[96];
	size_t bad;
	int rc;

	b->lines_read++;
	if (ln->truncated) {
		snprintf(reason, sizeof(reason), "line longer than %u bytes (%llu bytes)",
			 GL_LINE_MAX, (unsigned long long)ln->full_len);
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len, reason);
	}
	if (gl_line_blank(ln->p, ln->len))
		return GL_OK;
	/* NUL runs are what a crash leaves in a log; never text of a record */
	const char *nul = memchr(ln->p, '\0', ln->len);

	if (nul) {
		snprintf(reason, sizeof(reason), "NUL byte at byte %zu", (size_t)(nul - ln->p) + 1);
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len, reason);
	}
	bad = utf8_check((const unsigned char *)ln->p, ln->len);
	if (bad < ln->len) {
		snprintf(reason, sizeof(reason), "invalid UTF-8 at byte %zu", bad + 1);
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len, reason);
	}
	j->prev_state_len = j->ctx.state_len;
	memcpy(j->prev_state, j->ctx.state, j->ctx.state_len);
	j->in_line = 1;
	rc = line_record(j, ln, lineno);
	j->in_line = 0;
	if (rc == GL_OK && !j->ctx.hold)
		j->hold_active = 0;
	return rc;
}

/* The line after the checks of gl_job_line(): classified and stored. */
static int line_record(struct job *j, const struct gl_line *ln, uint64_t lineno)
{
	struct gl_batch *b = j->p->b;
	struct gl_rec rec;
	char reason[96];
	int rc;

	classify(j, ln->p, ln->len, &rec);
	out_of_range(&rec, reason, sizeof(reason));
	if (j->ctx.hold && !j->hold_active) {
		j->hold_active = 1;
		j->hold_start = j->pos;
	}
	if (j->ctx.hold && (rec.kind == GL_REC_EVENT || rec.kind == GL_REC_SPAN) &&
	    !rec.n_samples && j->held.n < HELD_ROWS_MAX && j->held.len < HELD_BYTES_MAX) {
		j->cut = 0;
		return held_add(j, &rec, lineno);
	}
	if (j->held.n && !j->ctx.hold && (rc = held_release(j, &rec, ln->len)) != GL_OK)
		return rc;
	if ((rec.kind == GL_REC_EVENT || rec.kind == GL_REC_SAMPLES) &&
	    rec.n_samples > GL_BATCH_SAMPLES / 8) {
		snprintf(reason, sizeof(reason), "more than %u metric samples in one line (%zu)",
			 GL_BATCH_SAMPLES / 8, rec.n_samples);
		rec.kind = GL_REC_REJECT;
		rec.reason = reason;
	}
	switch (rec.kind) {
	case GL_REC_EVENT:
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		j->cut = 0;
		if (j->fmt->flags & GL_FMT_MULTILINE)
			return pend_start(j, &rec.ev, rec.samples, rec.n_samples, lineno, j->pos);
		return add_record(j, &rec.ev, rec.samples, rec.n_samples, lineno);
	case GL_REC_SAMPLES:
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		j->cut = 0;
		return add_record(j, NULL, rec.samples, rec.n_samples, lineno);
	case GL_REC_MEM:
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		return add_mem(j, &rec.mem, lineno);
	case GL_REC_SPAN:
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		j->cut = 0;
		return add_span(j, &rec.span, rec.samples, rec.n_samples, lineno);
	case GL_REC_CONT:
		if (!j->pend.active)
			return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
					  j->cut ? "continuation beyond the 1 MiB record limit"
						 : "continuation line without a record before it");
		if (j->pend.len + ln->len + 1 > GL_RECORD_MAX) {
			if ((rc = gl_job_flush(j)) != GL_OK)
				return rc;
			j->cut = 1;	/* the rest of this record is rejected with the same reason */
			return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
					  "continuation beyond the 1 MiB record limit");
		}
		{
			size_t off;
			int has;

			if (pend_put(&j->pend, (struct gl_str){"\n", 1}, &off, &has) < 0 ||
			    pend_put(&j->pend, (struct gl_str){ln->p, ln->len}, &off, &has) < 0)
				return GL_ENOMEM;
		}
		b->lines_continued++;
		return GL_OK;
	case GL_REC_REJECT:
		if ((rc = gl_job_flush(j)) != GL_OK)
			return rc;
		return gl_job_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
				  rec.reason ? rec.reason : "malformed line");
	default:
		return GL_OK;
	}
}
