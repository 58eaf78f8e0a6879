/*
 * stream.c - one file: which stream does it hold, and which of its lines
 * are new? The per-file decisions; identify.c matches content against known
 * streams, records.c turns lines into rows.
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
 *     matches its old stream and is read from its start as a new one --
 *     unless it keeps the inode and the first lines of the stream it held
 *     (RMM's CSV re-created, a log rewritten by `head -n 500`): the store's
 *     per-line hashes say exactly how many lines it still shares, and only
 *     what follows is read (ID_BRANCH, see identify.c).
 * Cheap cases come first: the same path with the same stat data and the
 * same first 4 KiB is unchanged (nothing read); the same inode under
 * another name is a rename; a plain file that grew, whose 4 KiB before the
 * stored end are unchanged, is read from there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identify.h"
#include "job.h"
#include "records.h"
#include "telem.h"
#include "util/hash.h"

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

/* The reason the first 4 KiB of a plain file are not text, or NULL. */
static const char *sniff(const char *path)
{
	char buf[GL_HEAD_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? gl_format_sniff(buf, (size_t)n) : NULL;
}

/* --- reading -------------------------------------------------------- */

static int set_note(struct job *j, const char *note)
{
	struct gl_sfile *sf = &j->p->state->file[j->fi];

	free(sf->note);
	sf->note = note ? strdup(note) : NULL;
	return note && !sf->note ? GL_ENOMEM : GL_OK;
}

/*
 * Read whole last time: complete, or a plain file whose last record was
 * stored open (cut line, see gl_sstream.open_end) and has not changed since.
 */
static int file_complete(const struct gl_state *s, const struct gl_sfile *k)
{
	int32_t si;

	if (gl_file_complete(k))
		return 1;
	si = k->stream_id ? gl_state_stream_by_id(s, k->stream_id) : -1;
	return si >= 0 && !k->gzip && strcmp(k->status, "read") == 0 &&
	       s->stream[si].open_end == (uint64_t)k->size && s->stream[si].pos.bytes == k->consumed;
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
		if (ln.truncated || gl_line_blank(ln.p, ln.len))
			continue;
		gl_ctx_begin_line(&c, ln.len);
		rec.samples = NULL;
		rec.n_samples = 0;
		j->fmt->parse(&c, ln.p, ln.len, &rec);
	}
	j->ctx.day_us = mday - c.day_us;
	if (c.last_tod_us > mtime_us - mday + 60 * GL_US_PER_S)
		j->ctx.day_us -= GL_US_PER_DAY;
	/* rows without a time (dmon without -o DT): the last group at the mtime */
	if (c.untimed_group >= 0) {
		c.hint = j->ctx.hint;
		j->ctx.untimed_start_us = mtime_us - (int64_t)llround((double)c.untimed_group *
								      gl_telem_period_s(&c) * 1e6);
	}
	j->ctx.last_tod_us = -1;
	gl_parse_ctx_release(&c);
	return gl_reader_rewind(j->r, &e) == GL_OK ? GL_OK : GL_EIO;
}

/* A line of a branch stored already (in the stream the file departed
 * from): parsed only for the format's state (a CSV header's columns). */
static void skip_line(struct job *j, const struct gl_line *ln)
{
	struct gl_rec rec;

	if (ln->truncated || gl_line_blank(ln->p, ln->len) || memchr(ln->p, '\0', ln->len))
		return;
	gl_ctx_begin_line(&j->ctx, ln->len);
	rec.samples = NULL;
	rec.n_samples = 0;
	j->fmt->parse(&j->ctx, ln->p, ln->len, &rec);
}

/*
 * A writer that kept its offset when its file was truncated under it
 * (logrotate's copytruncate without O_APPEND) leaves a hole of NUL bytes
 * that ends in its next record, with no newline between them: the hole is
 * a reject of the line, and what follows it is the line (issue 28, D7).
 */
static int strip_hole(struct job *j, struct gl_line *ln, uint64_t lineno)
{
	size_t lead = 0;
	char reason[96];
	int rc;

	while (lead < ln->len && ln->p[lead] == '\0')
		lead++;
	if (!lead || lead == ln->len || ln->truncated || memchr(ln->p + lead, '\0', ln->len - lead))
		return GL_OK;
	snprintf(reason, sizeof(reason), "NUL run of %zu bytes before the line's text (a hole)",
		 lead);
	if ((rc = gl_job_flush(j)) != GL_OK ||
	    (rc = gl_job_reject(j, lineno, ln->offset, lead, NULL, 0, reason)) != GL_OK)
		return rc;
	ln->p += lead;
	ln->len -= lead;
	ln->offset += lead;
	return GL_OK;
}

/* Reads new lines from the reader's position to the end. */
static int read_lines(struct job *j)
{
	struct gl_sstream *st;
	struct gl_line ln;
	int rc = GL_OK, r;

	j->lh_on = j->p->state->stream[j->si].lines_hashed;
	j->lh_first = j->pos.lines + 1;
	j->lh_n = 0;
	/*
	 * For formats whose lines carry no time (BitNet-rs metrics): how much
	 * this run reads and how far it is, by byte. Known for plain files
	 * (the file's size); a gzip file's inflated size is not, and 0 places
	 * its lines at the file's modification time.
	 */
	const uint64_t run_start = j->pos.bytes;
	uint64_t last_offset = 0;	/* of the last line read (a cut record's reject) */

	j->ctx.new_bytes_total = !j->gzip && (uint64_t)j->f->size > run_start
					 ? (uint64_t)j->f->size - run_start : 0;
	while ((r = gl_job_next_line(j, &ln)) == 1) {
		struct gl_pos after = j->pos;

		j->ctx.bytes_done = j->pos.bytes - run_start;

		gl_pos_advance(&after, &ln);
		last_offset = ln.offset;
		j->p->b->bytes_uncompressed += ln.full_len;
		st = &j->p->state->stream[j->si];
		/* the head is a final first line: not one stored cut (open_end) */
		if (!st->head.bytes && (ln.terminated || j->gzip))
			gl_state_set_head(j->p->state, j->si, after);
		if ((rc = gl_job_hash_line(j, ln.hash)) != GL_OK)
			return rc;
		if (after.lines <= j->branch_lines) {
			skip_line(j, &ln);
		} else {
			struct gl_pos before = j->pos;

			j->new_lines++;
			if (j->drop_pending) {
				if ((rc = gl_job_room_for_state(j)) != GL_OK)
					return rc;
				gl_job_drop_open(j);
			}
			/* a settled last line without newline: its record is open */
			if (!ln.terminated && !j->gzip) {
				j->last_cut = 1;
				j->cut_end = after.bytes;
				j->rec_start = j->pend.active ? j->pend.start : before;
			}
			/* a run of held lines (a trace element) the cut line seems to
			 * end is not ended: the claim stays before the run */
			const int was_hold = j->hold_active;
			const struct gl_pos was_start = j->hold_start;

			j->ctx.more = 0;
			if ((rc = strip_hole(j, &ln, after.lines)) != GL_OK ||
			    (rc = gl_job_line(j, &ln, after.lines)) != GL_OK)
				return rc;
			/* the line's further records (format.h: more); each call moves
			 * the format on in the line, so at most one per byte */
			for (size_t k = 0; j->ctx.more && k < ln.len; k++) {
				j->ctx.more = 0;
				j->p->b->lines_read--;	/* one line, read once */
				if ((rc = gl_job_line(j, &ln, after.lines)) != GL_OK)
					return rc;
			}
			if (j->last_cut) {
				j->rec_start = j->pend.active ? j->pend.start : before;
				/* the stream is stored as of rec_start: the format's state
				 * too, not as a cut line left it (a trace's scanner inside a
				 * string its writer had not finished, issue 28 D5) */
				memcpy(j->ctx.state, j->prev_state, j->prev_state_len);
				j->ctx.state_len = j->prev_state_len;
				if (was_hold) {
					j->hold_active = 1;
					j->hold_start = was_start;
				}
			}
		}
		j->pos = after;
		if ((after.lines & 1023) == 0)
			atomic_store_explicit(&j->p->bytes_current, gl_reader_raw_offset(j->r),
					      memory_order_relaxed);
		if ((gl_job_committed(j).bytes >= j->last_cp + GL_CHECKPOINT_BYTES ||
		     j->lh_n >= LH_SEND) && !j->pend.active &&
		    (rc = gl_job_send(j)) != GL_OK)
			return rc;
	}
	if ((rc = gl_job_flush(j)) != GL_OK)
		return rc;
	/*
	 * The file has settled inside a record (format.h: end, settle): a
	 * trace or a document whose writer stopped -- or paused, and goes on
	 * later. What the format holds back is stored, and the reason it gives
	 * for the cut (a JSON document without its closing brace) is a reject
	 * of the last line, as an open record: the file claims no further than
	 * before the record and keeps the format's state there, so that a file
	 * that grows is read on from there, the open record's rows replaced
	 * (issue 28, D5, D6, D8). A gzip file does not grow: its cut record is
	 * forgotten and its lines claimed. A fresh file is left held: its
	 * writer may be in the middle of the record.
	 */
	if (r == 0 && j->ctx.hold && j->hold_active && j->new_lines && !gl_job_fresh(j)) {
		if (!j->gzip) {
			if ((rc = gl_job_settle(j, last_offset)) != GL_OK)
				return rc;
		} else if (!j->held.n && j->fmt->end) {
			const char *cut = j->fmt->end(&j->ctx);

			if (cut) {
				if ((rc = gl_job_reject(j, j->pos.lines, last_offset, 0, NULL, 0,
							cut)) != GL_OK)
					return rc;
				j->hold_active = 0;
				j->ctx.hold = 0;
			}
		}
	}
	if (r < 0) {
		j->status = "damaged";
		j->p->b->files_damaged++;
		if ((rc = set_note(j, j->note)) != GL_OK ||
		    (rc = gl_job_reject(j, 0, j->pos.bytes, 0, NULL, 0, j->note)) != GL_OK)
			return rc;
		gl_job_notice(j, GL_EFORMAT, "damaged", j->note, "; every line before it was kept");
	}
	return GL_OK;
}

/* Detection looks at this many lines that can decide... */
#define DETECT_LINES 32
/* ...read among at most this many lines and bytes from the start... */
#define DETECT_SCAN_LINES 4096
#define DETECT_SCAN_BYTES (64u << 20)
/* ...copying at most this much of them. */
#define DETECT_COPY_BYTES (4u << 20)

/* Can a line decide the format? Not a NUL run (a crash's, or the hole that
 * copytruncate leaves), not a line cut at GL_LINE_MAX, not one with control
 * bytes (junk). Those become rejects when the file is read. */
static int deciding(const struct gl_line *ln)
{
	if (ln->truncated || gl_line_blank(ln->p, ln->len))
		return 0;
	for (size_t i = 0; i < ln->len; i++) {
		unsigned char c = (unsigned char)ln->p[i];

		if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != 0x1b)
			return 0;
	}
	return 1;
}

/* A line of nothing but the opening brackets of a JSON document ("{"). */
static int opens_only(const struct gl_line *ln)
{
	for (size_t i = 0; i < ln->len; i++)
		if (!strchr(" \t\r{[", ln->p[i]))
			return 0;
	return 1;
}

/*
 * Detects the format from the first DETECT_LINES lines that can decide it,
 * looking past NUL runs and junk lines however long (one JSON line, a
 * 64 KiB junk line, then JSON lines: JSON). When no line can decide, the
 * first bytes say why the file is skipped. *said: bit 0, a complete
 * deciding line held more than opens_only(); bit 1, an unfinished last
 * line was left to its writer; bit 2, a complete line opens_only(); bit 3,
 * a last line without its newline (its writer paused) held more.
 */
static const struct gl_format *detect(struct job *j, const char **why, int *said)
{
	struct gl_str lines[DETECT_LINES];
	char *buf = malloc(DETECT_COPY_BYTES);
	size_t n = 0, used = 0, scanned = 0, first_len = 0;
	uint64_t bytes = 0;
	struct gl_line ln;
	struct gl_err e;
	const struct gl_format *fmt = NULL;
	char head[256];

	*why = "out of memory";
	if (!buf)
		return NULL;
	while (n < DETECT_LINES && scanned < DETECT_SCAN_LINES && bytes < DETECT_SCAN_BYTES &&
	       gl_reader_next(j->r, &ln, &e) == 1) {
		/* an unfinished last line its writer is still at: the end */
		if (!ln.terminated && !j->gzip && gl_job_fresh(j)) {
			*said |= 2;
			break;
		}
		scanned++;
		bytes += ln.full_len;
		if (!first_len && ln.len) {
			first_len = ln.len < sizeof(head) ? ln.len : sizeof(head);
			memcpy(head, ln.p, first_len);
		}
		if (!deciding(&ln) || ln.len > DETECT_COPY_BYTES - used)
			continue;
		if (ln.terminated)
			*said |= opens_only(&ln) ? 4 : 1;
		else if (!opens_only(&ln))
			*said |= 8;
		memcpy(buf + used, ln.p, ln.len);
		lines[n].p = buf + used;
		lines[n].len = ln.len;
		used += ln.len;
		n++;
	}
	if (n) {
		fmt = gl_format_detect_hint(lines, n, j->ctx.hint, why);
	} else if (first_len) {
		*why = gl_format_sniff(head, first_len);
		if (!*why)
			*why = "no line of text";
	} else {
		*why = "no content";
	}
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
	sf->raw_head_hash = gl_fp_raw(f->path, 0, min_u64((uint64_t)f->size, GL_HEAD_BYTES), &ok);
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
	ns.lines_hashed = !(fmt->flags & GL_FMT_DOCUMENT);
	j->si = gl_state_add_stream(s, &ns);
	if (j->si < 0)
		return GL_ENOMEM;
	j->newstream = 1;
	j->last_cp = 0;
	return GL_OK;
}

/* A stream continues: the time-of-day clock and the format's own state
 * as they were after its last stored line. */
static void restore_stream(struct job *j, const struct gl_sstream *st)
{
	if (st->has_tod) {
		j->ctx.day_us = st->day_us;
		j->ctx.last_tod_us = st->last_tod_us;
	}
	j->ctx.state_len = st->parse_state_len <= GL_PARSE_STATE_MAX ? st->parse_state_len : 0;
	if (j->ctx.state_len)
		memcpy(j->ctx.state, st->parse_state, j->ctx.state_len);
	j->drop_pending = st->open_end != 0;
}

static const struct gl_format *stream_format(const struct gl_sstream *st)
{
	const struct gl_format *f = gl_format_find(st->format);

	return f ? f : gl_formats[0];
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

/*
 * A file read whole whose every line was rejected, nothing stored (a
 * headerless CSV before its "columns" were given) keeps in its note what
 * the config and options said about reading it, as one number:
 *	every line rejected (config 5f0c...e1): CSV without a header: give ...
 * When a later run reads it otherwise (format, columns, start, interval_s,
 * time zone), the file is read again from its first line and its rejects
 * are dropped. A file with any line stored is never read twice.
 */
#define REJECTED_NOTE "every line rejected (config "

static uint64_t config_print(const struct gl_producer *p)
{
	const struct gl_input_hint *h = p->hint;
	const char *fmt = p->forced ? p->forced->name : "";
	const char *tz = p->tz_name ? p->tz_name : "";
	uint64_t v = gl_hash64(fmt, strlen(fmt) + 1, 0x67706c6f67ULL);

	v = gl_hash64(tz, strlen(tz) + 1, v);
	if (h) {
		for (size_t i = 0; i < h->n_columns; i++)
			v = gl_hash64(h->columns[i], strlen(h->columns[i]) + 1, v);
		v = gl_hash64(&h->start_us, sizeof(h->start_us), v);
		v = gl_hash64(&h->interval_s, sizeof(h->interval_s), v);
	}
	return v;
}

/* 1 when file k's every line was rejected under another config than now. */
static int rejected_otherwise(const struct gl_producer *p, const struct gl_sfile *k)
{
	const size_t n = sizeof(REJECTED_NOTE) - 1;

	if (!k->note || strncmp(k->note, REJECTED_NOTE, n) != 0 || !k->stream_id)
		return 0;
	return strtoull(k->note + n, NULL, 16) != config_print(p);
}

/* At the end of a read from a file's first line: nothing stored, lines rejected? */
static int note_rejected(struct job *j)
{
	char note[300], more[260];
	int rc;

	if (j->nrows || !j->nrejected || j->fi < 0 || j->damaged)
		return GL_OK;
	const char *was = j->p->state->file[j->fi].note;	/* the cap's, see gl_job_reject() */

	snprintf(note, sizeof(note), REJECTED_NOTE "%016llx): %.160s%s%.120s",
		 (unsigned long long)config_print(j->p), j->first_reject, was ? "; " : "",
		 was ? was : "");
	if ((rc = set_note(j, note)) != GL_OK)
		return rc;
	snprintf(more, sizeof(more), "%llu line%s, nothing stored: %s",
		 (unsigned long long)j->nrejected, j->nrejected == 1 ? "" : "s", j->first_reject);
	gl_job_notice(j, GL_OK, "every line rejected", more, "");
	return GL_OK;
}

static int finish(struct job *j, int rc)
{
	struct gl_producer *p = j->p;

	if (rc == GL_OK && j->fi >= 0 && (rc = gl_job_room_for_state(j)) == GL_OK)
		gl_job_put_state(j, gl_job_committed(j), 1, j->status);
	gl_reader_close(j->r);
	gl_parse_ctx_release(&j->ctx);
	gl_job_release(j);
	atomic_store(&p->bytes_current, 0);
	atomic_fetch_add(&p->bytes_done, (uint64_t)j->f->size);
	atomic_fetch_add(&p->files_done, 1);
	p->b->files_done++;
	return rc;
}

/* A file this run does not read: counted as done. */
static void count_done(struct gl_producer *p, const struct gl_found *f)
{
	atomic_fetch_add(&p->bytes_done, (uint64_t)f->size);
	atomic_fetch_add(&p->files_done, 1);
	p->b->files_done++;
}

/*
 * File fi, unchanged, had every line rejected under another config (see
 * REJECTED_NOTE): its stream is read again from the first line in the
 * format it is detected as now, and its rows (its rejects) are dropped
 * before the first line is stored again.
 */
static int reread(struct job *j, int32_t fi)
{
	struct gl_producer *p = j->p;
	struct gl_state *s = p->state;
	int32_t si = gl_state_stream_by_id(s, s->file[fi].stream_id);
	const struct gl_format *fmt;
	const char *why = NULL;
	int said = 0;
	struct gl_sstream *st;
	struct gl_err e;
	int rc;

	if ((rc = gl_reader_open(&j->r, j->f->path, &e)) != GL_OK) {
		p->b->files_failed++;
		if (p->b->nnotice < GL_BATCH_NOTICES)
			p->b->notice[p->b->nnotice++] = e;
		count_done(p, j->f);
		gl_parse_ctx_release(&j->ctx);
		return GL_OK;
	}
	j->gzip = gl_reader_is_gzip(j->r);
	if ((rc = claim_file(j, fi)) != GL_OK || (rc = set_note(j, NULL)) != GL_OK)
		return finish(j, rc);
	st = &s->stream[si];
	fmt = p->forced ? p->forced : detect(j, &why, &said);
	if (!fmt)
		fmt = stream_format(st);
	snprintf(st->format, sizeof(st->format), "%s", fmt->name);
	st->pos = (struct gl_pos){0, 0, 0};
	st->open_end = 0;
	if (gl_state_set_parse_state(s, si, NULL, 0) != 0)
		return finish(j, GL_ENOMEM);
	j->si = si;
	j->fmt = fmt;
	j->last_cp = 0;
	j->drop_pending = 1;
	s->file[j->fi].stream_id = st->id;
	gl_job_notice(j, GL_OK, "read again", "its every line was rejected, and the config changed",
		      "");
	if ((fmt->flags & GL_FMT_TIME_OF_DAY) && (rc = prescan_day(j)) != GL_OK)
		return finish(j, rc);
	if (fmt->prepare)
		fmt->prepare(&j->ctx, j->f->path);
	j->pos = (struct gl_pos){0, 0, 0};
	rc = read_lines(j);
	if (rc == GL_OK)
		rc = note_rejected(j);
	p->b->files_reread++;
	return finish(j, rc);
}

/* 1. Unchanged: same path, same stat, same first bytes. 1 when so. */
static int unchanged(struct job *j, int32_t fi)
{
	struct gl_producer *p = j->p;
	const struct gl_sfile *k = fi >= 0 ? &p->state->file[fi] : NULL;

	if (!k || !gl_file_same(k, j->f) || !file_complete(p->state, k))
		return 0;
	if (strcmp(k->status, "skipped") == 0) {
		p->b->files_skipped++;
		j->fi = fi;
		gl_job_notice(j, GL_OK, "skipped", "not a log of a known format: ", k->note);
	} else {
		p->b->files_unchanged++;
	}
	count_done(p, j->f);
	return 1;
}

/*
 * 2. The same file under another name: a rename or move. Nothing to read;
 * the row follows the file to its new path. 1 when so (*rc: the result);
 * else 0, and *known is the first row of the file's inode.
 */
static int renamed(struct job *j, int32_t *known, int *rc)
{
	struct gl_state *s = j->p->state;
	const struct gl_found *f = j->f;

	for (int32_t k = gl_state_file_by_ino(s, f->dev, f->ino, -1); k >= 0;
	     k = gl_state_file_by_ino(s, f->dev, f->ino, k)) {
		struct stat sb;

		if (!gl_file_same(&s->file[k], f) || !file_complete(s, &s->file[k])) {
			if (*known < 0)
				*known = k;
			continue;
		}
		/* Still there under its old name too (a link): an alias of a
		 * file already known, not a rename. */
		if (s->file[k].path && stat(s->file[k].path, &sb) == 0 &&
		    (int64_t)sb.st_dev == f->dev && (int64_t)sb.st_ino == f->ino) {
			j->p->b->files_unchanged++;
			count_done(j->p, f);
			*rc = GL_OK;
			return 1;
		}
		j->gzip = s->file[k].gzip;
		j->status = static_status(s->file[k].status);
		j->pos.bytes = s->file[k].consumed;
		if ((*rc = claim_file(j, k)) == GL_OK)
			j->p->b->files_rotated++;
		*rc = finish(j, *rc);
		return 1;
	}
	return 0;
}

/* 3. Opens the file: 1; or 0 when it cannot be (a notice, counted). */
static int open_file(struct job *j)
{
	struct gl_producer *p = j->p;
	struct gl_err e;

	if (gl_reader_open(&j->r, j->f->path, &e) == GL_OK) {
		j->gzip = gl_reader_is_gzip(j->r);
		return 1;
	}
	p->b->files_failed++;
	if (p->b->nnotice < GL_BATCH_NOTICES)
		p->b->notice[p->b->nnotice++] = e;
	count_done(p, j->f);
	return 0;
}

/*
 * A plain file of no stream yet whose first bytes are not text: skipped (a
 * binary file may have no newline at all: it is looked at before a "line"
 * the size of the file is read). 1 when so (*rc: the result).
 */
static int binary(struct job *j, int32_t known, int *rc)
{
	const struct gl_state *s = j->p->state;
	const char *why;

	if (j->gzip || (known >= 0 && s->file[known].stream_id) || !(why = sniff(j->f->path)))
		return 0;
	if ((*rc = claim_file(j, known)) == GL_OK && (*rc = set_note(j, why)) == GL_OK) {
		j->status = "skipped";
		gl_job_notice(j, GL_OK, "skipped", "not a log of a known format: ", why);
		j->p->b->files_skipped++;
	}
	*rc = finish(j, *rc);
	return 1;
}

/* A plain file that grew in place: read on from its stored end. 1 when so. */
static int grown(struct job *j, int32_t known, int *rc)
{
	struct gl_state *s = j->p->state;
	struct gl_err e;
	int32_t si;

	if (known < 0 || !gl_file_grew(s, &s->file[known], j->f))
		return 0;
	si = gl_state_stream_by_id(s, s->file[known].stream_id);
	if (gl_reader_seek(j->r, s->file[known].consumed, &e) != GL_OK) {
		gl_reader_rewind(j->r, &e);
		return 0;
	}
	if ((*rc = claim_file(j, known)) == GL_OK && (*rc = set_note(j, NULL)) == GL_OK) {
		j->si = si;
		j->pos = s->stream[si].pos;
		j->last_cp = j->pos.bytes;
		s->file[j->fi].stream_id = s->stream[si].id;
		j->fmt = stream_format(&s->stream[si]);
		restore_stream(j, &s->stream[si]);
		*rc = read_lines(j);
		if (j->new_lines)
			j->p->b->files_grown++;
		else
			j->p->b->files_unchanged++;
	}
	*rc = finish(j, *rc);
	return 1;
}

/* The file continues stream si from j->pos (ID_CONTINUE); fi: its path's row. */
static int read_on(struct job *j, int32_t si, int32_t fi)
{
	struct gl_state *s = j->p->state;
	struct gl_sstream *st = &s->stream[si];
	int rc;

	j->si = si;
	j->last_cp = st->pos.bytes;
	s->file[j->fi].stream_id = st->id;
	j->fmt = stream_format(st);
	restore_stream(j, st);
	j->damaged = 0;
	rc = read_lines(j);
	if (j->new_lines)
		j->p->b->files_grown++;
	else if (fi >= 0 && fi == j->fi)
		j->p->b->files_unchanged++;
	else
		j->p->b->files_rotated++;
	return finish(j, rc);
}

/* A shorter copy of stream si, or one as long (ID_COPY): nothing to read. */
static int copy_of(struct job *j, int32_t si)
{
	struct gl_state *s = j->p->state;
	int rc = GL_OK;

	j->si = -1;
	j->status = j->damaged ? "damaged" : "copy";
	if (j->damaged && (rc = set_note(j, j->note)) == GL_OK)
		gl_job_notice(j, GL_EFORMAT, "damaged", j->note, " (a copy of lines already stored)");
	if (rc == GL_OK) {
		s->file[j->fi].stream_id = s->stream[si].id;
		j->p->b->files_rotated++;
	}
	return finish(j, rc);
}

/*
 * Truncated in place and written again (ID_BRANCH): the lines it still
 * shares with its old stream si are stored; a new stream holds the file,
 * and only what follows them is read into it.
 */
static int branch(struct job *j, int32_t si)
{
	struct gl_producer *p = j->p;
	const struct gl_format *bf = p->forced ? p->forced : stream_format(&p->state->stream[si]);
	int rc;

	j->branch_lines = j->pos.lines;
	if ((rc = new_stream(j, bf)) != GL_OK)
		return finish(j, rc);
	j->fmt = bf;
	p->state->file[j->fi].stream_id = p->state->stream[j->si].id;
	if ((bf->flags & GL_FMT_TIME_OF_DAY) && (rc = prescan_day(j)) != GL_OK)
		return finish(j, rc);
	/* a new document in the old one's place (the next nsys session's
	 * export over the last one, issue 28 D13) is placed by itself */
	if (bf->prepare)
		bf->prepare(&j->ctx, j->f->path);
	j->pos = (struct gl_pos){0, 0, 0};
	j->damaged = 0;
	rc = read_lines(j);
	p->b->files_new++;
	return finish(j, rc);
}

/* Left for a later run: nothing stored, the file not attached to a stream. */
static int later(struct job *j)
{
	j->p->state->file[j->fi].stream_id = 0;
	j->status = "partial";
	return finish(j, GL_OK);
}

/* No format fits: skipped with the reason (or empty). */
static int unknown(struct job *j, const char *why)
{
	char note[200];
	int rc = GL_OK;

	j->status = j->f->size ? "skipped" : "empty";
	if (j->f->size) {
		snprintf(note, sizeof(note), "%s", why);
		if ((rc = set_note(j, note)) == GL_OK) {
			gl_job_notice(j, GL_OK, "skipped", "not a log of a known format: ", why);
			j->p->b->files_skipped++;
		}
	}
	return finish(j, rc);
}

/*
 * A new stream (ID_NEW): which format? prev_stream: the stream this file
 * held before (truncated in place, see GL_FMT_HEADER_ONCE), or 0.
 */
static int read_new(struct job *j, int64_t prev_stream)
{
	struct gl_producer *p = j->p;
	struct gl_state *s = p->state;
	const char *why = NULL;
	int said = 0, rc;
	const struct gl_format *fmt = p->forced ? p->forced : detect(j, &why, &said);

	/* Only "{" so far, its writer at it (or paused in its second line): a
	 * trace, a JSON document or JSON lines? Left for a later run (issue
	 * 28, D4, D5). */
	if ((fmt || (said & 2)) && !p->forced && !(said & 1) &&
	    (gl_job_fresh(j) || (said & 12) == 12))
		return later(j);
	if (!fmt)
		return unknown(j, why);
	/* A trace whose clock is relative, or whose time base is written
	 * after its events, reads what it needs first (-1: the lines are
	 * parsed without it; 1: not written yet, the file is left for a later
	 * run while its writer is at it). */
	if (fmt->prepare && fmt->prepare(&j->ctx, j->f->path) == 1 && gl_job_fresh(j))
		return later(j);
	if ((rc = new_stream(j, fmt)) != GL_OK)
		return finish(j, rc);
	j->fmt = fmt;
	s->file[j->fi].stream_id = s->stream[j->si].id;
	if ((fmt->flags & GL_FMT_HEADER_ONCE) && prev_stream) {
		int32_t ps = gl_state_stream_by_id(s, prev_stream);

		if (ps >= 0 && strcmp(s->stream[ps].format, fmt->name) == 0 &&
		    s->stream[ps].parse_state_len <= GL_PARSE_STATE_MAX) {
			j->ctx.state_len = s->stream[ps].parse_state_len;
			if (j->ctx.state_len)
				memcpy(j->ctx.state, s->stream[ps].parse_state, j->ctx.state_len);
		}
	}
	if ((fmt->flags & GL_FMT_TIME_OF_DAY) && (rc = prescan_day(j)) != GL_OK)
		return finish(j, rc);
	j->pos = (struct gl_pos){0, 0, 0};
	j->damaged = 0;
	rc = read_lines(j);
	if (rc == GL_OK)
		rc = note_rejected(j);
	if (!j->new_lines)
		j->status = "empty";	/* nothing complete to store yet (an unfinished first line) */
	p->b->files_new++;
	return finish(j, rc);
}

int gl_stream_file(struct gl_producer *p, const struct gl_found *f)
{
	struct gl_state *s = p->state;
	struct job j;
	int32_t fi, known = -1, si = -1;
	int64_t prev_stream;
	int rc;

	memset(&j, 0, sizeof(j));
	j.p = p;
	j.f = f;
	j.fi = j.si = -1;
	j.status = "read";
	j.last_ts = GL_TS_NONE;
	gl_parse_ctx_init(&j.ctx);
	j.ctx.file_mtime_us = f->mtime_ns / 1000;
	j.ctx.tz_name = p->tz_name;
	j.ctx.hint = p->hint;
	j.ctx.date_order = p->date_order;

	/* Make sure a whole file's state ops fit in this batch. */
	if (gl_batch_full(p->b) && (rc = p->send(p)) != GL_OK)
		return rc;
	fi = gl_state_file_by_path(s, f->path);
	if (fi >= 0 && gl_file_same(&s->file[fi], f) && file_complete(s, &s->file[fi]) &&
	    rejected_otherwise(p, &s->file[fi]) &&
	    gl_state_stream_by_id(s, s->file[fi].stream_id) >= 0)
		return reread(&j, fi);
	if (unchanged(&j, fi))
		return GL_OK;
	if (renamed(&j, &known, &rc))
		return rc;
	if (fi >= 0 && s->file[fi].dev == f->dev && s->file[fi].ino == f->ino)
		known = fi;
	if (!open_file(&j))
		return GL_OK;
	if (binary(&j, known, &rc) || grown(&j, known, &rc))
		return rc;
	prev_stream = known >= 0 ? s->file[known].stream_id : 0;
	j.prev_mtime_ns = known >= 0 ? s->file[known].mtime_ns : -1;
	if ((rc = claim_file(&j, known)) != GL_OK || (rc = set_note(&j, NULL)) != GL_OK)
		return finish(&j, rc);
	switch (gl_job_identify(&j, &si)) {
	case ID_CONTINUE:
		return read_on(&j, si, fi);
	case ID_COPY:
		return copy_of(&j, si);
	case ID_BRANCH:
		return branch(&j, si);
	default:
		return read_new(&j, prev_stream);
	}
}
