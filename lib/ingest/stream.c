/*
 * stream.c - one file: which stream does it hold, and which of its lines
 * are new?
 *
 * A stream is a log's content wherever it lives now. Its identity is the
 * chained hash of its lines: at every line boundary b, hash(b) =
 * chain(hash(previous boundary), hash(line)). The store keeps, per stream,
 * its head (its first line), checkpoints (about one per MiB and one per
 * run) and its end (bytes, lines, hash stored so far). A file continues a
 * stream when its content starts with the stream's first line and passes
 * every checkpoint and the end with equal hashes; only what follows the end
 * is new. So:
 *   - a renamed, moved or compressed file is recognised by its content,
 *     never by its name or inode alone;
 *   - two files whose first lines are the same part at the first checkpoint
 *     where they differ; a file that ends between two checkpoints of a
 *     stream is compared, for that last stretch, with a file on disk that
 *     holds the stream (tail_matches), so a shorter file that differs only
 *     there is not mistaken for a copy;
 *   - a file truncated in place and written again (copytruncate) no longer
 *     matches its old stream and is read from its start as a new one.
 * Cheap cases come first: the same path with the same stat data and the
 * same first 4 KiB is unchanged (nothing read); the same inode under
 * another name is a rename; a plain file that grew, whose 4 KiB before the
 * stored end are unchanged, is read from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest.h"
#include "reader.h"
#include "../util/hash.h"

enum identity { ID_NEW, ID_CONTINUE, ID_COPY };

/* A multi-line record being assembled (continuation lines appended). */
struct pending {
	int active;
	struct gl_event ev;	/* strings point into buf, rebuilt at flush */
	size_t comp_off, comp_len, kern_off, kern_len, meta_off, meta_len, msg_off;
	int has_comp, has_kern, has_meta;
	char *buf;
	size_t len, cap;
	uint64_t line;		/* first line of the record */
	struct gl_pos start;	/* stream position before its first line */
};

struct job {
	struct gl_producer *p;
	const struct gl_found *f;
	int32_t fi, si;
	struct gl_reader *r;
	int gzip;
	int newstream;
	struct gl_pos pos;		/* after the last line read */
	uint64_t last_cp;		/* bytes of the last checkpoint */
	const struct gl_format *fmt;	/* format of the current record */
	struct gl_parse_ctx ctx;
	struct pending pend;
	const char *status;		/* final file status */
	char note[300];
	int damaged;
	uint64_t new_lines;
	int64_t last_ts;		/* time of the last record stored, for rejects */
};

/* --- small helpers -------------------------------------------------- */

void gl_component_from_path(const char *path, char *buf, size_t n)
{
	static const char *const exts[] = {".gz", ".log", ".txt", ".csv", ".jsonl", ".ndjson",
					   ".json", ".out", NULL};
	const char *base = strrchr(path, '/');
	char name[256];
	size_t len;
	int changed = 1;

	base = base ? base + 1 : path;
	snprintf(name, sizeof(name), "%s", base);
	len = strlen(name);
	/* Peel rotation and type suffixes from the right, in any order:
	 * ".3", ".gz", ".log", ".2026-11-21_08-28-33", ".dev0". */
	while (changed && len) {
		changed = 0;
		for (size_t i = 0; exts[i]; i++) {
			size_t el = strlen(exts[i]);

			if (len > el && strcmp(name + len - el, exts[i]) == 0) {
				len -= el;
				name[len] = '\0';
				changed = 1;
			}
		}
		char *dot = strrchr(name, '.');

		if (dot && dot != name) {
			const char *s = dot + 1;
			int digits = 0, other = 0;

			if (strncmp(s, "dev", 3) == 0)
				s += 3;
			for (; *s; s++) {
				if (*s >= '0' && *s <= '9')
					digits++;
				else if (*s != '-' && *s != '_' && *s != 'T' && *s != ':')
					other++;
			}
			if (digits && !other) {
				*dot = '\0';
				len = (size_t)(dot - name);
				changed = 1;
			}
		}
	}
	/* "gpu_20250909_143022" -> "gpu": drop trailing _digits / -digits groups. */
	while (len) {
		char *sep = NULL;

		for (char *q = name + len; q > name; q--)
			if (q[-1] == '_' || q[-1] == '-') {
				sep = q - 1;
				break;
			}
		if (!sep || sep == name)
			break;
		int all_digits = 1;

		for (char *q = sep + 1; *q; q++)
			if (*q < '0' || *q > '9')
				all_digits = 0;
		if (!all_digits || !sep[1])
			break;
		*sep = '\0';
		len = (size_t)(sep - name);
	}
	snprintf(buf, n, "%s", len ? name : base);
}

/* Returns the offset of the first invalid UTF-8 byte, or len when valid. */
static size_t utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		/* ASCII runs, 8 bytes at a time */
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

static int is_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

static uint64_t raw_hash(const char *path, uint64_t off, uint64_t n, int *ok)
{
	char buf[GL_HEAD_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	*ok = 0;
	if (fd < 0 || n > sizeof(buf)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	got = pread(fd, buf, (size_t)n, (off_t)off);
	close(fd);
	if (got != (ssize_t)n)
		return 0;
	*ok = 1;
	return gl_hash64(buf, (size_t)n, 11);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static int same_file(const struct gl_sfile *k, const struct gl_found *f);

/* --- batches -------------------------------------------------------- */

static struct gl_str cstr(const char *s)
{
	struct gl_str v = {s, s ? strlen(s) : 0};

	return v;
}

/*
 * A problem to tell the user about this file, read as "<what> '<path>':
 * <cause><more>"; code GL_OK marks information (a skipped file).
 */
static void notice(struct job *j, int code, const char *what, const char *cause,
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
static void put_state(struct job *j, struct gl_pos at, int checkpoint, const char *status)
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

		sf->tail_hash = raw_hash(j->f->path, at.bytes - n, n, &ok);
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

/* The position up to which everything read is in batches. */
static struct gl_pos committed(const struct job *j)
{
	return j->pend.active ? j->pend.start : j->pos;
}

/* Sends the batch mid-file, with the state that makes its rows final. */
static int send_now(struct job *j)
{
	struct gl_pos at = committed(j);
	int cp = at.bytes >= j->last_cp + GL_CHECKPOINT_BYTES;

	put_state(j, at, cp, "partial");
	return j->p->send(j->p);
}

/* Makes room for `bytes` of strings and one row. */
static int room(struct job *j, size_t bytes)
{
	if (gl_batch_full(j->p->b) || gl_batch_room(j->p->b) < bytes + 2048)
		return send_now(j);
	return GL_OK;
}

static int add_reject(struct job *j, uint64_t line, uint64_t offset, uint64_t length,
		      const char *p, size_t len, const char *reason)
{
	struct gl_batch *b;
	struct gl_brej *r;
	struct gl_str ex = {p, len > GL_EXCERPT_MAX ? GL_EXCERPT_MAX : len};
	int rc = room(j, ex.len + strlen(reason));

	if (rc != GL_OK)
		return rc;
	b = j->p->b;
	r = &b->rej[b->nrej++];
	r->ts_us = j->last_ts;
	r->stream_id = j->si >= 0 ? j->p->state->stream[j->si].id : 0;
	r->file_id = j->p->state->file[j->fi].id;
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
	       (dflt ? strlen(dflt) : 0);
}

static int add_event(struct job *j, const struct gl_event *e, uint64_t line)
{
	struct gl_sstream *st = &j->p->state->stream[j->si];
	int rc = room(j, ev_bytes(e, st->component));
	struct gl_batch *b;
	struct gl_bev *x;

	if (rc != GL_OK)
		return rc;
	b = j->p->b;
	x = &b->ev[b->nev++];
	x->ev = *e;
	x->ev.component = gl_batch_str(b, e->component.p ? e->component : cstr(st->component));
	x->ev.message = gl_batch_str(b, e->message);
	x->ev.kernel = gl_batch_str(b, e->kernel);
	x->ev.metadata = gl_batch_str(b, e->metadata);
	x->stream_id = st->id;
	x->file_id = j->p->state->file[j->fi].id;
	x->line = line;
	if (e->ts_us != GL_TS_NONE)
		j->last_ts = e->ts_us;
	return GL_OK;
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
	x->stream_id = j->p->state->stream[j->si].id;
	x->file_id = j->p->state->file[j->fi].id;
	x->line = line;
	return GL_OK;
}

/* --- multi-line records --------------------------------------------- */

static int pend_put(struct pending *pd, struct gl_str s, size_t *off, int *has)
{
	*has = s.p != NULL;
	*off = pd->len;
	if (!s.p)
		return 0;
	if (pd->len + s.len > pd->cap) {
		size_t cap = pd->cap ? pd->cap : 4096;
		char *v;

		while (cap < pd->len + s.len)
			cap *= 2;
		v = realloc(pd->buf, cap);
		if (!v)
			return -1;
		pd->buf = v;
		pd->cap = cap;
	}
	memcpy(pd->buf + pd->len, s.p, s.len);
	pd->len += s.len;
	return 0;
}

static int pend_flush(struct job *j)
{
	struct pending *pd = &j->pend;
	int rc;

	if (!pd->active)
		return GL_OK;
	/* Room first, while the record still counts as not committed: a batch
	 * sent now must not claim its lines. */
	if ((rc = room(j, pd->len + strlen(j->p->state->stream[j->si].component))) != GL_OK)
		return rc;
	pd->ev.component = pd->has_comp ? (struct gl_str){pd->buf + pd->comp_off, pd->comp_len}
					 : (struct gl_str){NULL, 0};
	pd->ev.kernel = pd->has_kern ? (struct gl_str){pd->buf + pd->kern_off, pd->kern_len}
				     : (struct gl_str){NULL, 0};
	pd->ev.metadata = pd->has_meta ? (struct gl_str){pd->buf + pd->meta_off, pd->meta_len}
				       : (struct gl_str){NULL, 0};
	pd->ev.message = (struct gl_str){pd->buf + pd->msg_off, pd->len - pd->msg_off};
	pd->active = 0;
	return add_event(j, &pd->ev, pd->line);
}

static int pend_start(struct job *j, const struct gl_event *e, uint64_t line, struct gl_pos start)
{
	struct pending *pd = &j->pend;
	int has_msg;

	pd->len = 0;
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

	gl_ctx_begin_line(&j->ctx, len);
	cur->parse(&j->ctx, p, len, rec);
	if (rec->kind == GL_REC_EVENT || rec->kind == GL_REC_MEM || rec->kind == GL_REC_NONE)
		return;
	if (rec->kind == GL_REC_CONT && j->pend.active)
		return;
	if (!j->p->forced) {
		struct gl_rec alt;

		for (size_t i = 0; gl_formats[i]; i++) {
			if (gl_formats[i] == cur)
				continue;
			gl_ctx_begin_line(&j->ctx, len);
			gl_formats[i]->parse(&j->ctx, p, len, &alt);
			if (alt.kind == GL_REC_EVENT || alt.kind == GL_REC_MEM) {
				*rec = alt;
				j->fmt = gl_formats[i];
				return;
			}
		}
		/* scratch may have been reused by the trials: parse again */
		gl_ctx_begin_line(&j->ctx, len);
		cur->parse(&j->ctx, p, len, rec);
	}
	if (rec->kind == GL_REC_FOREIGN) {
		rec->kind = GL_REC_REJECT;
		rec->reason = j->p->forced ? "not a line of the format given with --format"
					   : "not a line of any known format";
	}
}

/*
 * Stores one line. j->pos is still the position before the line, so a
 * batch sent from in here never claims this line before its row is in.
 */
static int handle_line(struct job *j, const struct gl_line *ln, uint64_t lineno)
{
	struct gl_batch *b = j->p->b;
	struct gl_rec rec;
	char reason[96];
	size_t bad;
	int rc;

	b->lines_read++;
	if (ln->truncated) {
		snprintf(reason, sizeof(reason), "line longer than %u bytes (%llu bytes)",
			 GL_LINE_MAX, (unsigned long long)ln->full_len);
		if ((rc = pend_flush(j)) != GL_OK)
			return rc;
		return add_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len, reason);
	}
	if (is_blank(ln->p, ln->len))
		return GL_OK;
	bad = utf8_check((const unsigned char *)ln->p, ln->len);
	if (bad < ln->len) {
		snprintf(reason, sizeof(reason), "invalid UTF-8 at byte %zu", bad + 1);
		if ((rc = pend_flush(j)) != GL_OK)
			return rc;
		return add_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len, reason);
	}
	classify(j, ln->p, ln->len, &rec);
	switch (rec.kind) {
	case GL_REC_EVENT:
		if ((rc = pend_flush(j)) != GL_OK)
			return rc;
		if (j->fmt->flags & GL_FMT_MULTILINE)
			return pend_start(j, &rec.ev, lineno, j->pos);
		return add_event(j, &rec.ev, lineno);
	case GL_REC_MEM:
		if ((rc = pend_flush(j)) != GL_OK)
			return rc;
		return add_mem(j, &rec.mem, lineno);
	case GL_REC_CONT:
		if (!j->pend.active)
			return add_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
					  "continuation line without a record before it");
		if (j->pend.len + ln->len + 1 > GL_RECORD_MAX) {
			if ((rc = pend_flush(j)) != GL_OK)
				return rc;
			return add_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
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
		if ((rc = pend_flush(j)) != GL_OK)
			return rc;
		return add_reject(j, lineno, ln->offset, ln->full_len, ln->p, ln->len,
				  rec.reason ? rec.reason : "malformed line");
	default:
		return GL_OK;
	}
}

/* --- reading -------------------------------------------------------- */

static int set_note(struct job *j, const char *note)
{
	struct gl_sfile *sf = &j->p->state->file[j->fi];

	free(sf->note);
	sf->note = note ? strdup(note) : NULL;
	return note && !sf->note ? GL_ENOMEM : GL_OK;
}


static int fresh(const struct job *j)
{
	return j->p->now_us - j->f->mtime_ns / 1000 < GL_SETTLE_US;
}

/* Next line, or 0 at the end (a held-back unfinished line is the end). */
static int next_line(struct job *j, struct gl_line *ln)
{
	struct gl_err e;
	int rc = gl_reader_next(j->r, ln, &e);

	if (rc == 1 && !ln->terminated && !j->gzip && fresh(j))
		return 0;
	if (rc < 0 && !j->damaged) {
		j->damaged = 1;
		snprintf(j->note, sizeof(j->note), "%.80s at compressed byte %llu: %.180s",
			 e.msg[0] ? e.msg : "damaged", (unsigned long long)e.line,
			 e.cause[0] ? e.cause : "unreadable");
		return -1;
	}
	return rc < 0 ? -1 : rc;
}

static void advance(struct gl_pos *pos, const struct gl_line *ln)
{
	pos->bytes += ln->full_len;
	pos->lines++;
	pos->hash = gl_hash_chain(pos->hash, ln->hash);
}

/*
 * Time-of-day formats: the date of the first record. The file's
 * modification time is the time of its last record; count the midnights
 * the file passes and step back that many days.
 */
static int prescan_day(struct job *j)
{
	struct gl_parse_ctx c;
	struct gl_line ln;
	struct gl_rec rec;
	struct gl_err e;
	int64_t mtime_us = j->f->mtime_ns / 1000;
	int64_t mday = mtime_us - ((mtime_us % GL_US_PER_DAY) + GL_US_PER_DAY) % GL_US_PER_DAY;
	int rc;

	gl_parse_ctx_init(&c);
	c.day_us = 0;
	while ((rc = gl_reader_next(j->r, &ln, &e)) == 1) {
		if (ln.truncated || is_blank(ln.p, ln.len))
			continue;
		gl_ctx_begin_line(&c, ln.len);
		j->fmt->parse(&c, ln.p, ln.len, &rec);
	}
	j->ctx.day_us = mday - c.day_us;
	if (c.last_tod_us > mtime_us - mday + 60 * GL_US_PER_S)
		j->ctx.day_us -= GL_US_PER_DAY;
	j->ctx.last_tod_us = -1;
	gl_parse_ctx_release(&c);
	return gl_reader_rewind(j->r, &e) == GL_OK ? GL_OK : GL_EIO;
}

/* Reads new lines from the reader's position to the end. */
static int read_lines(struct job *j)
{
	struct gl_sstream *st;
	struct gl_line ln;
	int rc = GL_OK, r;

	while ((r = next_line(j, &ln)) == 1) {
		struct gl_pos after = j->pos;

		advance(&after, &ln);
		j->new_lines++;
		j->p->b->bytes_uncompressed += ln.full_len;
		st = &j->p->state->stream[j->si];
		if (j->newstream && !st->head.bytes)
			gl_state_set_head(j->p->state, j->si, after);
		if ((rc = handle_line(j, &ln, after.lines)) != GL_OK)
			return rc;
		j->pos = after;
		if ((after.lines & 1023) == 0)
			atomic_store_explicit(&j->p->bytes_current, gl_reader_raw_offset(j->r),
					      memory_order_relaxed);
		if (committed(j).bytes >= j->last_cp + GL_CHECKPOINT_BYTES && !j->pend.active &&
		    (rc = send_now(j)) != GL_OK)
			return rc;
	}
	if ((rc = pend_flush(j)) != GL_OK)
		return rc;
	if (r < 0) {
		j->status = "damaged";
		j->p->b->files_damaged++;
		if ((rc = set_note(j, j->note)) != GL_OK ||
		    (rc = add_reject(j, 0, j->pos.bytes, 0, NULL, 0, j->note)) != GL_OK)
			return rc;
		notice(j, GL_EFORMAT, "damaged", j->note, "; every line before it was kept");
	}
	return GL_OK;
}

/*
 * Does stream si pass through pos (a line boundary of the file being
 * identified)? Known when a checkpoint sits at pos; otherwise read a file
 * that holds the stream, unchanged since it was stored, up to pos. When no
 * such file is left on disk the answer is yes: all checkpoints on the way
 * agreed, and the residual doubt is confined to the last MiB.
 */
static int tail_matches(struct job *j, int32_t si, struct gl_pos pos)
{
	const struct gl_state *s = j->p->state;
	const struct gl_sstream *st = &s->stream[si];

	for (size_t k = 0; k < st->ncp; k++)
		if (st->cp[k].bytes == pos.bytes)
			return st->cp[k].hash == pos.hash;
	for (size_t fi = 0; fi < s->nfile; fi++) {
		const struct gl_sfile *src = &s->file[fi];
		struct gl_found now;
		struct gl_reader *r = NULL;
		struct gl_line ln;
		struct gl_pos at = {0, 0, 0};
		struct gl_err e;
		struct stat sb;

		if ((int32_t)fi == j->fi || src->stream_id != st->id || !src->path ||
		    src->consumed < pos.bytes || stat(src->path, &sb) < 0)
			continue;
		now.dev = (int64_t)sb.st_dev;
		now.ino = (int64_t)sb.st_ino;
		now.size = (int64_t)sb.st_size;
		now.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
		now.path = src->path;
		if (!same_file(src, &now) || gl_reader_open(&r, src->path, &e) != GL_OK)
			continue;
		while (at.bytes < pos.bytes && gl_reader_next(r, &ln, &e) == 1)
			advance(&at, &ln);
		gl_reader_close(r);
		return at.bytes == pos.bytes && at.hash == pos.hash;
	}
	return 1;
}

/*
 * Which stream does the reader's content continue? Reads from the start,
 * matching heads in the first 4 KiB, then checkpoints, then stream ends.
 * On ID_CONTINUE the reader stands right after the stream's end and
 * j->pos is that end; otherwise the reader is rewound.
 */
static enum identity identify(struct job *j, int32_t *si_out)
{
	struct gl_state *s = j->p->state;
	struct cand {
		int32_t si;
		size_t cpi;
	} c[GL_MAX_CANDIDATES];
	size_t nc = 0;
	int head_zone = 1;
	int32_t fallback = -1;
	struct gl_pos pos = {0, 0, 0}, fb_pos = {0, 0, 0};
	struct gl_line ln;
	struct gl_err e;
	int r;

	while ((r = next_line(j, &ln)) == 1) {
		advance(&pos, &ln);
		if (head_zone) {
			for (int32_t si = gl_state_stream_by_head(s, pos.bytes, pos.hash);
			     si >= 0 && nc < GL_MAX_CANDIDATES; si = gl_state_next_head(s, si, pos.bytes, pos.hash)) {
				size_t k = 0;
				const struct gl_sstream *st = &s->stream[si];

				while (k < st->ncp && st->cp[k].bytes < pos.bytes)
					k++;
				c[nc].si = si;
				c[nc].cpi = k;
				nc++;
			}
			head_zone = 0;
		}
		for (size_t k = 0; k < nc;) {
			const struct gl_sstream *st = &s->stream[c[k].si];
			int alive = 1;

			while (c[k].cpi < st->ncp && st->cp[c[k].cpi].bytes < pos.bytes) {
				alive = 0;	/* a checkpoint fell inside a line: other content */
				break;
			}
			if (alive && c[k].cpi < st->ncp && st->cp[c[k].cpi].bytes == pos.bytes) {
				alive = st->cp[c[k].cpi].hash == pos.hash;
				c[k].cpi++;
			}
			if (alive && st->pos.bytes < pos.bytes)
				alive = 0;
			if (alive && st->pos.bytes == pos.bytes) {
				if (st->pos.hash != pos.hash) {
					alive = 0;
				} else {
					/* Its end is reached: take it unless a longer
					 * candidate is still consistent. */
					int longer = 0;

					for (size_t m = 0; m < nc; m++)
						if (m != k && s->stream[c[m].si].pos.bytes > pos.bytes)
							longer = 1;
					if (!longer) {
						j->pos = pos;
						*si_out = c[k].si;
						return ID_CONTINUE;
					}
					fallback = c[k].si;
					fb_pos = pos;
					alive = 0;
				}
			}
			if (alive)
				k++;
			else
				c[k] = c[--nc];
		}
		if (!nc && !head_zone)
			break;
	}
	/*
	 * The file ended inside known streams, every checkpoint on the way
	 * equal: an older, shorter (or damaged) copy of what is stored --
	 * unless it differs after the last checkpoint it passed. That part is
	 * compared with a file on disk that holds the stream.
	 */
	for (size_t k = 0; r <= 0 && k < nc; k++) {
		if (tail_matches(j, c[k].si, pos)) {
			j->pos = pos;
			*si_out = c[k].si;
			return ID_COPY;
		}
	}
	j->damaged = 0;
	if (gl_reader_rewind(j->r, &e) != GL_OK)
		return ID_NEW;
	if (fallback >= 0 && gl_reader_seek(j->r, fb_pos.bytes, &e) == GL_OK) {
		j->pos = fb_pos;
		*si_out = fallback;
		return ID_CONTINUE;
	}
	gl_reader_rewind(j->r, &e);
	j->pos = (struct gl_pos){0, 0, 0};
	return ID_NEW;
}

/* Reads up to 32 lines (64 KiB) from the start to detect the format. */
static const struct gl_format *detect(struct job *j, const char **why)
{
	struct gl_str lines[32];
	char *buf = malloc(65536);
	size_t n = 0, used = 0;
	struct gl_line ln;
	struct gl_err e;
	const struct gl_format *fmt = NULL;

	*why = "out of memory";
	if (!buf)
		return NULL;
	while (n < 32 && gl_reader_next(j->r, &ln, &e) == 1) {
		size_t take = ln.len < 65536 - used ? ln.len : 65536 - used;

		memcpy(buf + used, ln.p, take);
		lines[n].p = buf + used;
		lines[n].len = take;
		used += take;
		n++;
		if (used == 65536)
			break;
	}
	fmt = gl_format_detect(lines, n, why);
	free(buf);
	gl_reader_rewind(j->r, &e);
	return fmt;
}

/* --- the file ------------------------------------------------------- */

/* Creates or updates the state row of this file for its path. */
static int claim_file(struct job *j, int32_t known)
{
	struct gl_state *s = j->p->state;
	const struct gl_found *f = j->f;
	int32_t other = gl_state_file_by_path(s, f->path);
	struct gl_batch *b = j->p->b;
	int ok;

	if (other >= 0 && other != known) {
		/* The path now holds another file: the old row loses it. */
		struct gl_bop *op = &b->op[b->nop++];

		op->kind = GL_BOP_UNPATH;
		op->u.unpath_id = s->file[other].id;
		if (gl_state_set_path(s, other, NULL) < 0)
			return GL_ENOMEM;
	}
	if (known < 0) {
		struct gl_sfile nf;

		memset(&nf, 0, sizeof(nf));
		nf.id = s->next_file_id;
		nf.path = f->path;
		known = gl_state_add_file(s, &nf);
		if (known < 0)
			return GL_ENOMEM;
	} else if (!s->file[known].path || strcmp(s->file[known].path, f->path) != 0) {
		if (gl_state_set_path(s, known, f->path) < 0)
			return GL_ENOMEM;
	}
	struct gl_sfile *sf = &s->file[known];

	sf->dev = f->dev;
	sf->ino = f->ino;
	sf->size = f->size;
	sf->mtime_ns = f->mtime_ns;
	sf->raw_head_hash = raw_hash(f->path, 0, min_u64((uint64_t)f->size, GL_HEAD_BYTES), &ok);
	sf->gzip = j->gzip;
	j->fi = known;
	return GL_OK;
}

static int new_stream(struct job *j, const struct gl_format *fmt)
{
	struct gl_state *s = j->p->state;
	struct gl_sstream ns;
	char comp[256];

	memset(&ns, 0, sizeof(ns));
	gl_component_from_path(j->f->path, comp, sizeof(comp));
	ns.id = s->next_stream_id;
	snprintf(ns.format, sizeof(ns.format), "%s", fmt->name);
	ns.component = comp;
	ns.first_path = j->f->path;
	ns.created_run = j->p->run_id;
	j->si = gl_state_add_stream(s, &ns);
	if (j->si < 0)
		return GL_ENOMEM;
	j->newstream = 1;
	j->last_cp = 0;
	return GL_OK;
}

static const struct gl_format *stream_format(const struct gl_sstream *st)
{
	const struct gl_format *f = gl_format_find(st->format);

	return f ? f : gl_formats[0];
}

/* Does a known row describe this same file, unchanged? */
static int same_file(const struct gl_sfile *k, const struct gl_found *f)
{
	int ok;
	uint64_t h;

	if (k->dev != f->dev || k->ino != f->ino || k->size != f->size ||
	    k->mtime_ns != f->mtime_ns)
		return 0;
	h = raw_hash(f->path, 0, min_u64((uint64_t)k->size, GL_HEAD_BYTES), &ok);
	return ok && h == k->raw_head_hash;
}

/*
 * Was everything in this file read last time? Not when a run stopped in
 * the middle of it ("partial"), nor when a plain file's last line was held
 * back as possibly unfinished (consumed < size).
 */
static int complete(const struct gl_sfile *k)
{
	if (strcmp(k->status, "partial") == 0)
		return 0;
	return k->gzip || strcmp(k->status, "read") != 0 || k->consumed == (uint64_t)k->size;
}

/* A plain file that grew in place: same inode, same first bytes, and the
 * 4 KiB before the stored end unchanged. */
static int grew_in_place(const struct gl_state *s, const struct gl_sfile *k,
			 const struct gl_found *f)
{
	int32_t si;
	int ok;
	uint64_t n, h;

	if (k->gzip || !k->stream_id || !k->has_tail || k->dev != f->dev || k->ino != f->ino ||
	    (uint64_t)f->size < k->consumed)
		return 0;
	si = gl_state_stream_by_id(s, k->stream_id);
	if (si < 0 || s->stream[si].pos.bytes != k->consumed)
		return 0;
	n = min_u64((uint64_t)k->size, GL_HEAD_BYTES);
	h = raw_hash(f->path, 0, n, &ok);
	if (!ok || h != k->raw_head_hash)
		return 0;
	n = min_u64(k->consumed, GL_HEAD_BYTES);
	h = raw_hash(f->path, k->consumed - n, n, &ok);
	return ok && h == k->tail_hash;
}

/* The static spelling of a status read back from the database. */
static const char *static_status(const char *st)
{
	static const char *const all[] = {"read", "damaged", "skipped", "copy", "empty", "partial"};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(st, all[i]) == 0)
			return all[i];
	return "read";
}

static int finish(struct job *j, int rc)
{
	struct gl_producer *p = j->p;

	if (rc == GL_OK && j->fi >= 0)
		put_state(j, committed(j), 1, j->status);
	gl_reader_close(j->r);
	gl_parse_ctx_release(&j->ctx);
	free(j->pend.buf);
	atomic_store(&p->bytes_current, 0);
	atomic_fetch_add(&p->bytes_done, (uint64_t)j->f->size);
	atomic_fetch_add(&p->files_done, 1);
	p->b->files_done++;
	return rc;
}

int gl_stream_file(struct gl_producer *p, const struct gl_found *f)
{
	struct gl_state *s = p->state;
	struct job j;
	struct gl_err e;
	int32_t fi, known = -1, si = -1;
	int rc;

	memset(&j, 0, sizeof(j));
	j.p = p;
	j.f = f;
	j.fi = j.si = -1;
	j.status = "read";
	j.last_ts = GL_TS_NONE;
	gl_parse_ctx_init(&j.ctx);

	/* Make sure a whole file's state ops fit in this batch. */
	if (gl_batch_full(p->b) && (rc = p->send(p)) != GL_OK)
		return rc;

	/* 1. Unchanged: same path, same stat, same first bytes. */
	fi = gl_state_file_by_path(s, f->path);
	if (fi >= 0 && same_file(&s->file[fi], f) && complete(&s->file[fi])) {
		const struct gl_sfile *k = &s->file[fi];

		if (strcmp(k->status, "skipped") == 0) {
			p->b->files_skipped++;
			j.fi = fi;
			notice(&j, GL_OK, "skipped", "not a log of a known format: ", k->note);
		} else {
			p->b->files_unchanged++;
		}
		atomic_fetch_add(&p->bytes_done, (uint64_t)f->size);
		atomic_fetch_add(&p->files_done, 1);
		p->b->files_done++;
		return GL_OK;
	}
	/* 2. The same file under another name: a rename or move. Nothing to
	 * read; the row follows the file to its new path. */
	for (int32_t k = gl_state_file_by_ino(s, f->dev, f->ino, -1); k >= 0;
	     k = gl_state_file_by_ino(s, f->dev, f->ino, k)) {
		if (same_file(&s->file[k], f) && complete(&s->file[k])) {
			struct stat sb;

			/* Still there under its old name too (a link): an alias of a
			 * file already known, not a rename. */
			if (s->file[k].path && stat(s->file[k].path, &sb) == 0 &&
			    (int64_t)sb.st_dev == f->dev && (int64_t)sb.st_ino == f->ino) {
				p->b->files_unchanged++;
				atomic_fetch_add(&p->bytes_done, (uint64_t)f->size);
				atomic_fetch_add(&p->files_done, 1);
				p->b->files_done++;
				gl_parse_ctx_release(&j.ctx);
				return GL_OK;
			}
			j.gzip = s->file[k].gzip;
			j.status = static_status(s->file[k].status);
			j.pos.bytes = s->file[k].consumed;
			if ((rc = claim_file(&j, k)) != GL_OK)
				return finish(&j, rc);
			p->b->files_rotated++;
			return finish(&j, GL_OK);
		}
		if (known < 0)
			known = k;
	}
	if (fi >= 0 && s->file[fi].dev == f->dev && s->file[fi].ino == f->ino)
		known = fi;

	/* 3. Read it. */
	if ((rc = gl_reader_open(&j.r, f->path, &e)) != GL_OK) {
		p->b->files_failed++;
		if (p->b->nnotice < GL_BATCH_NOTICES)
			p->b->notice[p->b->nnotice++] = e;
		atomic_fetch_add(&p->bytes_done, (uint64_t)f->size);
		atomic_fetch_add(&p->files_done, 1);
		p->b->files_done++;
		gl_parse_ctx_release(&j.ctx);
		return GL_OK;
	}
	j.gzip = gl_reader_is_gzip(j.r);
	if (known >= 0 && grew_in_place(s, &s->file[known], f)) {
		si = gl_state_stream_by_id(s, s->file[known].stream_id);
		if (gl_reader_seek(j.r, s->file[known].consumed, &e) == GL_OK) {
			if ((rc = claim_file(&j, known)) != GL_OK || (rc = set_note(&j, NULL)) != GL_OK)
				return finish(&j, rc);
			j.si = si;
			j.pos = s->stream[si].pos;
			j.last_cp = j.pos.bytes;
			s->file[j.fi].stream_id = s->stream[si].id;
			j.fmt = stream_format(&s->stream[si]);
			if (s->stream[si].has_tod) {
				j.ctx.day_us = s->stream[si].day_us;
				j.ctx.last_tod_us = s->stream[si].last_tod_us;
			}
			rc = read_lines(&j);
			if (j.new_lines)
				p->b->files_grown++;
			else
				p->b->files_unchanged++;
			return finish(&j, rc);
		}
		gl_reader_rewind(j.r, &e);
	}
	if ((rc = claim_file(&j, known)) != GL_OK || (rc = set_note(&j, NULL)) != GL_OK)
		return finish(&j, rc);

	switch (identify(&j, &si)) {
	case ID_CONTINUE: {
		struct gl_sstream *st = &s->stream[si];

		j.si = si;
		j.last_cp = st->pos.bytes;
		s->file[j.fi].stream_id = st->id;
		j.fmt = stream_format(st);
		if (st->has_tod) {
			j.ctx.day_us = st->day_us;
			j.ctx.last_tod_us = st->last_tod_us;
		}
		j.damaged = 0;
		rc = read_lines(&j);
		if (j.new_lines)
			p->b->files_grown++;
		else if (fi >= 0 && fi == j.fi)
			p->b->files_unchanged++;
		else
			p->b->files_rotated++;
		return finish(&j, rc);
	}
	case ID_COPY:
		j.si = -1;
		j.status = j.damaged ? "damaged" : "copy";
		if (j.damaged && ((rc = set_note(&j, j.note)) != GL_OK))
			return finish(&j, rc);
		if (j.damaged)
			notice(&j, GL_EFORMAT, "damaged", j.note, " (a copy of lines already stored)");
		s->file[j.fi].stream_id = s->stream[si].id;
		p->b->files_rotated++;
		return finish(&j, GL_OK);
	case ID_NEW:
		break;
	}

	/* A new stream: which format? */
	const char *why = NULL;
	const struct gl_format *fmt = p->forced ? p->forced : detect(&j, &why);

	if (!fmt) {
		char note[200];

		j.status = f->size ? "skipped" : "empty";
		if (f->size) {
			snprintf(note, sizeof(note), "%s", why);
			if ((rc = set_note(&j, note)) != GL_OK)
				return finish(&j, rc);
			notice(&j, GL_OK, "skipped", "not a log of a known format: ", why);
			p->b->files_skipped++;
		}
		return finish(&j, GL_OK);
	}
	if ((rc = new_stream(&j, fmt)) != GL_OK)
		return finish(&j, rc);
	j.fmt = fmt;
	s->file[j.fi].stream_id = s->stream[j.si].id;
	if ((fmt->flags & GL_FMT_TIME_OF_DAY) && (rc = prescan_day(&j)) != GL_OK)
		return finish(&j, rc);
	j.pos = (struct gl_pos){0, 0, 0};
	j.damaged = 0;
	rc = read_lines(&j);
	if (!j.new_lines) {
		/* Nothing complete to store yet (an unfinished first line). */
		j.status = "empty";
	}
	p->b->files_new++;
	return finish(&j, rc);
}
