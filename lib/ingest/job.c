/*
 * job.c - one file being read (struct job, job.h), below the decisions
 * about it: its next line (an unfinished last line held back while its
 * writer is at it), the hashes of its lines, and the fingerprints that
 * stream.c, identify.c and records.c share. In: the reader's lines; out:
 * lines, positions, hashes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "../util/hash.h"

int gl_line_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

uint64_t gl_fp_raw(const char *path, uint64_t off, uint64_t n, int *ok)
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

void gl_pos_advance(struct gl_pos *pos, const struct gl_line *ln)
{
	pos->bytes += ln->full_len;
	pos->lines++;
	pos->hash = gl_hash_chain(pos->hash, ln->hash);
}

int gl_job_fresh(const struct job *j)
{
	return j->p->now_us - j->f->mtime_ns / 1000 < GL_SETTLE_US;
}

/* Next line, or 0 at the end (a held-back unfinished line is the end). */
int gl_job_next_line(struct job *j, struct gl_line *ln)
{
	struct gl_err e;
	int rc = gl_reader_next(j->r, ln, &e);

	if (rc == 1 && !ln->terminated && !j->gzip && gl_job_fresh(j))
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

size_t gl_job_lines_room(const struct job *j)
{
	return j->lh_n * 8;
}

void gl_job_put_lines(struct job *j, struct gl_pos at)
{
	struct gl_batch *b = j->p->b;
	struct gl_bop *op;
	size_t n;
	struct gl_str h;

	if (!j->lh_on || !j->lh_n || at.lines < j->lh_first)
		return;
	n = (size_t)min_u64(at.lines - j->lh_first + 1, j->lh_n);
	h = gl_batch_str(b, (struct gl_str){(const char *)j->lh, n * 8});
	if (!h.p)
		return;	/* never: room() keeps the arena space for them */
	op = &b->op[b->nop++];
	op->kind = GL_BOP_LINES;
	op->u.lines.stream_id = j->p->state->stream[j->si].id;
	op->u.lines.first = j->lh_first;
	op->u.lines.n = n;
	op->u.lines.hashes = h.p;
	memmove(j->lh, j->lh + n, (j->lh_n - n) * sizeof(*j->lh));
	j->lh_n -= n;
	j->lh_first += n;
}

int gl_job_hash_line(struct job *j, uint64_t h)
{
	if (!j->lh_on)
		return GL_OK;
	if (j->lh_n == j->lh_cap) {
		size_t cap = j->lh_cap ? j->lh_cap * 2 : 1024;
		uint64_t *v = realloc(j->lh, cap * sizeof(*v));

		if (!v)
			return GL_ENOMEM;
		j->lh = v;
		j->lh_cap = cap;
	}
	j->lh[j->lh_n++] = h;
	return GL_OK;
}
