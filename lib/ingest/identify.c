/*
 * identify.c - which stream does a file continue? Fingerprints of raw
 * bytes (for the cheap cases: unchanged, renamed, grown in place) and the
 * content walk that matches a file against known streams by first line,
 * checkpoints and end. See stream.c for the whole argument.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identify.h"
#include "../util/hash.h"

/* Does a known row describe this same file, unchanged? */
int gl_file_same(const struct gl_sfile *k, const struct gl_found *f)
{
	int ok;
	uint64_t h;

	if (k->dev != f->dev || k->ino != f->ino || k->size != f->size ||
	    k->mtime_ns != f->mtime_ns)
		return 0;
	h = gl_fp_raw(f->path, 0, min_u64((uint64_t)k->size, GL_HEAD_BYTES), &ok);
	return ok && h == k->raw_head_hash;
}

/*
 * Was everything in this file read last time? Not when a run stopped in
 * the middle of it ("partial"), nor when a plain file's last line was held
 * back as possibly unfinished (consumed < size).
 */
int gl_file_complete(const struct gl_sfile *k)
{
	if (strcmp(k->status, "partial") == 0)
		return 0;
	return k->gzip || strcmp(k->status, "read") != 0 || k->consumed == (uint64_t)k->size;
}

/*
 * Stream st's records were placed at its file's modification time
 * (format.h: at_mtime), and no file that holds it has mtime_ns (the file
 * row `self`, whose stat data is being replaced, counts with its previous
 * time self_mtime_ns): a file with the same lines is another scrape.
 */
int gl_stream_other_time(const struct gl_state *s, const struct gl_sstream *st, int64_t mtime_ns,
			 int32_t self, int64_t self_mtime_ns)
{
	const struct gl_format *f = gl_format_find(st->format);

	if (!f || !f->at_mtime || !f->at_mtime(st->parse_state, st->parse_state_len))
		return 0;
	for (size_t fi = 0; fi < s->nfile; fi++) {
		const struct gl_sfile *k = &s->file[fi];

		if (k->stream_id == st->id &&
		    ((int32_t)fi == self ? self_mtime_ns : k->mtime_ns) == mtime_ns)
			return 0;
	}
	return 1;
}

/* A plain file that grew in place: same inode, same first bytes, and the
 * 4 KiB before the stored end unchanged. */
int gl_file_grew(const struct gl_state *s, const struct gl_sfile *k,
			 const struct gl_found *f)
{
	int32_t si;
	int ok;
	uint64_t n, h;

	if (k->gzip || !k->stream_id || (!k->has_tail && k->consumed) || k->dev != f->dev ||
	    k->ino != f->ino || (uint64_t)f->size < k->consumed)
		return 0;
	si = gl_state_stream_by_id(s, k->stream_id);
	if (si < 0 || s->stream[si].pos.bytes != k->consumed ||
	    (k->mtime_ns != f->mtime_ns &&
	     gl_stream_other_time(s, &s->stream[si], f->mtime_ns, -1, 0)))
		return 0;
	n = min_u64((uint64_t)k->size, GL_HEAD_BYTES);
	h = gl_fp_raw(f->path, 0, n, &ok);
	if (!ok || h != k->raw_head_hash)
		return 0;
	if (!k->consumed)
		return 1;	/* nothing stored before: an open first record, or none yet */
	n = min_u64(k->consumed, GL_HEAD_BYTES);
	h = gl_fp_raw(f->path, k->consumed - n, n, &ok);
	return ok && h == k->tail_hash;
}

/* A stream of a document format (format.h: GL_FMT_DOCUMENT). */
static int is_document(const struct gl_sstream *st)
{
	const struct gl_format *f = gl_format_find(st->format);

	return f && (f->flags & GL_FMT_DOCUMENT);
}

/*
 * Does stream si pass through pos (a line boundary of the file being
 * identified)? Known when a checkpoint sits at pos; otherwise read a file
 * that holds the stream, unchanged since it was stored, up to pos. When no
 * such file is left on disk the answer is yes for a stream of lines from
 * before line hashes (all checkpoints on the way agreed, the residual doubt
 * is confined to the last MiB) -- and no for a document: every Kineto
 * trace opens with the same lines, so a new, shorter trace would pass as a
 * copy of any larger one stored before (issue 28, D2). It is read whole
 * instead, and what it shares with stored documents is found again by
 * record (events.dup_of).
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
		if (!gl_file_same(src, &now) || gl_reader_open(&r, src->path, &e) != GL_OK)
			continue;
		while (at.bytes < pos.bytes && gl_reader_next(r, &ln, &e) == 1)
			gl_pos_advance(&at, &ln);
		gl_reader_close(r);
		return at.bytes == pos.bytes && at.hash == pos.hash;
	}
	return !is_document(st);
}

/*
 * How many first lines of the file agree with stream si, line by line
 * against the stream's stored line hashes, given that its first
 * from.lines lines do (a checkpoint both passed). *whole: the file ended
 * with every line agreeing (a shorter copy). Rewinds and reads the file;
 * the caller rewinds it again. Returns 0, or -1 when the hashes cannot be
 * read (the caller decides as without them).
 */
static int agree_lines(struct job *j, int32_t si, struct gl_pos from, uint64_t *agree,
		       int *whole)
{
	const struct gl_sstream *st = &j->p->state->stream[si];
	uint64_t *h = malloc(GL_LINES_CHUNK * sizeof(*h));
	uint64_t n = 0, have = 0, used = 0;
	struct gl_line ln;
	struct gl_err e;
	int r = 1;

	*whole = 0;
	if (!h || gl_reader_rewind(j->r, &e) != GL_OK) {
		free(h);
		return -1;
	}
	while (n < from.lines && (r = gl_job_next_line(j, &ln)) == 1)
		n++;
	while (r == 1 && n < st->pos.lines) {
		if ((r = gl_job_next_line(j, &ln)) != 1)
			break;
		if (used == have) {
			uint64_t want = min_u64(GL_LINES_CHUNK, st->pos.lines - n);

			if (j->p->line_hashes(j->p, st->id, n + 1, want, h, &have) != GL_OK ||
			    !have) {
				free(h);
				return -1;
			}
			used = 0;
		}
		if (h[used] != ln.hash)
			break;
		used++;
		n++;
	}
	free(h);
	*whole = r <= 0;
	*agree = n;
	return 0;
}

/*
 * Which stream does the reader's content continue? Reads from the start:
 * every stream with the same first line is a candidate (however many: logs
 * that open with the same banner every day share it), dropped at the first
 * checkpoint or end it does not pass with the same hash. On ID_CONTINUE
 * the reader stands right after the stream's end and j->pos is that end;
 * otherwise the reader is rewound (ID_BRANCH: j->pos.lines is the number
 * of first lines the file shares with the stream).
 *
 * A file that ends inside a stream, or departs from it between two
 * checkpoints, is compared line by line with the stream's stored line
 * hashes (streams from before schema version 3 have none: then the
 * residual doubt of tail_matches() remains). A shorter file that agrees
 * to its end is a copy. One that departs is a new stream -- and when it is
 * the very file (the same inode) that held the stream, truncated in place
 * and written again (RAPIDS RMM re-creates its CSV so; `head -n 500`
 * rewritten into a log), the lines it still shares are not stored again:
 * ID_BRANCH.
 */
enum identity gl_job_identify(struct job *j, int32_t *si_out)
{
	struct gl_state *s = j->p->state;
	struct cand {
		int32_t si;
		size_t cpi;
		struct gl_pos ok;	/* the last point both passed with equal hashes */
	} *c = NULL;
	size_t nc = 0, cap = 0;
	enum identity id = ID_NEW;
	int head_zone = 1;
	int32_t fallback = -1;
	struct gl_pos pos = {0, 0, 0}, fb_pos = {0, 0, 0};
	struct gl_line ln;
	struct gl_err e;
	int r;
	/* the stream the file was attached to, where it stopped agreeing */
	const int64_t attached = j->fi >= 0 ? s->file[j->fi].stream_id : 0;
	const int hashes = j->p->line_hashes != NULL;
	int32_t att_si = -1;
	struct gl_pos att_ok = {0, 0, 0};

	while ((r = gl_job_next_line(j, &ln)) == 1) {
		gl_pos_advance(&pos, &ln);
		if (head_zone) {
			for (int32_t si = gl_state_stream_by_head(s, pos.bytes, pos.hash); si >= 0;
			     si = gl_state_next_head(s, si, pos.bytes, pos.hash)) {
				size_t k = 0;
				const struct gl_sstream *st = &s->stream[si];

				if (gl_stream_other_time(s, st, j->f->mtime_ns, j->fi, j->prev_mtime_ns))
					continue;
				if (nc == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					struct cand *v = realloc(c, ncap * sizeof(*v));

					if (!v)
						break;	/* fewer candidates: at worst a new stream */
					c = v;
					cap = ncap;
				}
				while (k < st->ncp && st->cp[k].bytes < pos.bytes)
					k++;
				c[nc].si = si;
				c[nc].cpi = k;
				c[nc].ok = pos;
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
				if (alive)
					c[k].ok = pos;
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
						id = ID_CONTINUE;
						goto out;
					}
					fallback = c[k].si;
					fb_pos = pos;
					alive = 0;
				}
			}
			if (alive) {
				k++;
			} else {
				if (st->id == attached && fallback != c[k].si) {
					att_si = c[k].si;
					att_ok = c[k].ok;
				}
				c[k] = c[--nc];
			}
		}
		if (!nc && !head_zone)
			break;
	}
	/*
	 * The file ended inside known streams, every checkpoint on the way
	 * equal: an older, shorter (or damaged) copy of what is stored --
	 * unless it differs after the last checkpoint it passed. That part is
	 * compared with the stream's line hashes, or without them with a file
	 * on disk that holds the stream.
	 */
	for (size_t k = 0; r <= 0 && k < nc; k++) {
		const struct gl_sstream *st = &s->stream[c[k].si];
		uint64_t agree;
		int whole;

		if (hashes && st->lines_hashed &&
		    agree_lines(j, c[k].si, c[k].ok, &agree, &whole) == 0) {
			if (!whole) {
				if (st->id == attached) {
					att_si = c[k].si;
					att_ok = c[k].ok;
				}
				continue;
			}
		} else if (!tail_matches(j, c[k].si, pos)) {
			continue;
		}
		j->pos = pos;
		*si_out = c[k].si;
		id = ID_COPY;
		goto out;
	}
	j->damaged = 0;
	if (gl_reader_rewind(j->r, &e) != GL_OK)
		goto out;
	if (fallback >= 0 && gl_reader_seek(j->r, fb_pos.bytes, &e) == GL_OK) {
		j->pos = fb_pos;
		*si_out = fallback;
		id = ID_CONTINUE;
		goto out;
	}
	if (att_si >= 0 && hashes && s->stream[att_si].lines_hashed) {
		uint64_t agree;
		int whole;

		if (agree_lines(j, att_si, att_ok, &agree, &whole) == 0 && !whole && agree > 0) {
			j->damaged = 0;
			if (gl_reader_rewind(j->r, &e) != GL_OK)
				goto out;
			j->pos = (struct gl_pos){0, agree, 0};
			*si_out = att_si;
			id = ID_BRANCH;
			goto out;
		}
		j->damaged = 0;
	}
	gl_reader_rewind(j->r, &e);
	j->pos = (struct gl_pos){0, 0, 0};
out:
	free(c);
	return id;
}
