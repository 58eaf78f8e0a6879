/*
 * state.c - in-memory index of files and streams for one ingest run:
 * vectors plus chained hash tables by path, by (dev, inode), by stream id
 * and by head fingerprint. Sizes grow with the number of files and streams
 * known, never with the number of lines.
 */
#include "state.h"

#include <stdlib.h>
#include <string.h>

#include "../util/hash.h"

static uint64_t path_key(const char *p)
{
	return gl_hash64(p, strlen(p), 1);
}

static uint64_t ino_key(int64_t dev, int64_t ino)
{
	int64_t k[2] = {dev, ino};

	return gl_hash64(k, sizeof(k), 2);
}

static uint64_t head_key(uint64_t bytes, uint64_t hash)
{
	uint64_t k[2] = {bytes, hash};

	return gl_hash64(k, sizeof(k), 3);
}

static uint64_t id_key(int64_t id)
{
	return gl_hash64(&id, sizeof(id), 4);
}

void gl_state_init(struct gl_state *s)
{
	memset(s, 0, sizeof(*s));
	s->next_file_id = 1;
	s->next_stream_id = 1;
}

void gl_state_release(struct gl_state *s)
{
	for (size_t i = 0; i < s->nfile; i++) {
		free(s->file[i].path);
		free(s->file[i].note);
	}
	for (size_t i = 0; i < s->nstream; i++) {
		free(s->stream[i].component);
		free(s->stream[i].first_path);
		free(s->stream[i].cp);
		free(s->stream[i].parse_state);
	}
	free(s->file);
	free(s->stream);
	free(s->by_path);
	free(s->by_ino);
	free(s->by_head);
	free(s->by_id);
	gl_state_init(s);
}

static char *dup_or_null(const char *p)
{
	return p ? strdup(p) : NULL;
}

/* Rebuilds the file tables with at least 2 buckets per file. */
static int rehash_files(struct gl_state *s)
{
	size_t nb = 64;

	while (nb < s->nfile * 2)
		nb *= 2;
	int32_t *bp = malloc(nb * sizeof(*bp)), *bi = malloc(nb * sizeof(*bi));

	if (!bp || !bi) {
		free(bp);
		free(bi);
		return -1;
	}
	memset(bp, 0xff, nb * sizeof(*bp));
	memset(bi, 0xff, nb * sizeof(*bi));
	for (size_t i = 0; i < s->nfile; i++) {
		struct gl_sfile *f = &s->file[i];

		f->next_path = -1;
		if (f->path) {
			size_t b = path_key(f->path) & (nb - 1);

			f->next_path = bp[b];
			bp[b] = (int32_t)i;
		}
		size_t b = ino_key(f->dev, f->ino) & (nb - 1);

		f->next_ino = bi[b];
		bi[b] = (int32_t)i;
	}
	free(s->by_path);
	free(s->by_ino);
	s->by_path = bp;
	s->by_ino = bi;
	s->nfbuckets = nb;
	return 0;
}

static int rehash_streams(struct gl_state *s)
{
	size_t nb = 64;

	while (nb < s->nstream * 2)
		nb *= 2;
	int32_t *bh = malloc(nb * sizeof(*bh)), *bi = malloc(nb * sizeof(*bi));

	if (!bh || !bi) {
		free(bh);
		free(bi);
		return -1;
	}
	memset(bh, 0xff, nb * sizeof(*bh));
	memset(bi, 0xff, nb * sizeof(*bi));
	for (size_t i = 0; i < s->nstream; i++) {
		struct gl_sstream *st = &s->stream[i];
		size_t b = id_key(st->id) & (nb - 1);

		st->next_id = bi[b];
		bi[b] = (int32_t)i;
		st->next_head = -1;
		if (st->head.bytes) {
			b = head_key(st->head.bytes, st->head.hash) & (nb - 1);
			st->next_head = bh[b];
			bh[b] = (int32_t)i;
		}
	}
	free(s->by_head);
	free(s->by_id);
	s->by_head = bh;
	s->by_id = bi;
	s->nsbuckets = nb;
	return 0;
}

int32_t gl_state_add_file(struct gl_state *s, const struct gl_sfile *f)
{
	if (s->nfile == s->capfile) {
		size_t cap = s->capfile ? s->capfile * 2 : 256;
		struct gl_sfile *v = realloc(s->file, cap * sizeof(*v));

		if (!v)
			return -1;
		s->file = v;
		s->capfile = cap;
	}
	struct gl_sfile *n = &s->file[s->nfile];

	*n = *f;
	n->path = dup_or_null(f->path);
	n->note = dup_or_null(f->note);
	if ((f->path && !n->path) || (f->note && !n->note))
		return -1;
	s->nfile++;
	if (f->id >= s->next_file_id)
		s->next_file_id = f->id + 1;
	if (s->nfile * 2 > s->nfbuckets)
		return rehash_files(s) < 0 ? -1 : (int32_t)(s->nfile - 1);
	/* link into the existing tables */
	size_t i = s->nfile - 1;

	n->next_path = -1;
	if (n->path) {
		size_t b = path_key(n->path) & (s->nfbuckets - 1);

		n->next_path = s->by_path[b];
		s->by_path[b] = (int32_t)i;
	}
	size_t b = ino_key(n->dev, n->ino) & (s->nfbuckets - 1);

	n->next_ino = s->by_ino[b];
	s->by_ino[b] = (int32_t)i;
	return (int32_t)i;
}

int32_t gl_state_add_stream(struct gl_state *s, const struct gl_sstream *st)
{
	if (s->nstream == s->capstream) {
		size_t cap = s->capstream ? s->capstream * 2 : 256;
		struct gl_sstream *v = realloc(s->stream, cap * sizeof(*v));

		if (!v)
			return -1;
		s->stream = v;
		s->capstream = cap;
	}
	struct gl_sstream *n = &s->stream[s->nstream];

	*n = *st;
	n->cp = NULL;
	n->ncp = n->capcp = 0;
	n->component = dup_or_null(st->component);
	n->first_path = dup_or_null(st->first_path);
	n->parse_state = NULL;
	n->parse_state_len = 0;
	s->nstream++;
	if (st->parse_state_len &&
	    gl_state_set_parse_state(s, (int32_t)(s->nstream - 1), st->parse_state,
				     st->parse_state_len) < 0)
		return -1;
	if (st->id >= s->next_stream_id)
		s->next_stream_id = st->id + 1;
	if (s->nstream * 2 > s->nsbuckets)
		return rehash_streams(s) < 0 ? -1 : (int32_t)(s->nstream - 1);
	int32_t i = (int32_t)(s->nstream - 1);
	size_t b = id_key(n->id) & (s->nsbuckets - 1);

	n->next_id = s->by_id[b];
	s->by_id[b] = i;
	n->next_head = -1;
	if (n->head.bytes) {
		b = head_key(n->head.bytes, n->head.hash) & (s->nsbuckets - 1);
		n->next_head = s->by_head[b];
		s->by_head[b] = i;
	}
	return i;
}

void gl_state_set_head(struct gl_state *s, int32_t si, struct gl_pos head)
{
	struct gl_sstream *st = &s->stream[si];

	if (st->head.bytes) {
		st->head = head;
		rehash_streams(s);
		return;
	}
	st->head = head;
	size_t b = head_key(head.bytes, head.hash) & (s->nsbuckets - 1);

	st->next_head = s->by_head[b];
	s->by_head[b] = si;
}

int gl_state_add_checkpoint(struct gl_state *s, int32_t si, struct gl_pos pos)
{
	struct gl_sstream *st = &s->stream[si];
	/* Loaded in order, appended in order: the place is nearly always the end. */
	size_t i = st->ncp;

	while (i > 0 && st->cp[i - 1].bytes > pos.bytes)
		i--;
	if (i > 0 && st->cp[i - 1].bytes == pos.bytes) {
		st->cp[i - 1] = pos;
		return 0;
	}
	if (st->ncp == st->capcp) {
		size_t cap = st->capcp ? st->capcp * 2 : 8;
		struct gl_pos *v = realloc(st->cp, cap * sizeof(*v));

		if (!v)
			return -1;
		st->cp = v;
		st->capcp = cap;
	}
	memmove(&st->cp[i + 1], &st->cp[i], (st->ncp - i) * sizeof(*st->cp));
	st->cp[i] = pos;
	st->ncp++;
	return 0;
}

int32_t gl_state_file_by_path(const struct gl_state *s, const char *path)
{
	if (!s->nfbuckets)
		return -1;
	for (int32_t i = s->by_path[path_key(path) & (s->nfbuckets - 1)]; i >= 0;
	     i = s->file[i].next_path)
		if (s->file[i].path && strcmp(s->file[i].path, path) == 0)
			return i;
	return -1;
}

int32_t gl_state_file_by_ino(const struct gl_state *s, int64_t dev, int64_t ino, int32_t after)
{
	int32_t i;

	if (!s->nfbuckets)
		return -1;
	i = after < 0 ? s->by_ino[ino_key(dev, ino) & (s->nfbuckets - 1)] : s->file[after].next_ino;
	for (; i >= 0; i = s->file[i].next_ino)
		if (s->file[i].dev == dev && s->file[i].ino == ino)
			return i;
	return -1;
}

int32_t gl_state_stream_by_id(const struct gl_state *s, int64_t id)
{
	if (!s->nsbuckets)
		return -1;
	for (int32_t i = s->by_id[id_key(id) & (s->nsbuckets - 1)]; i >= 0; i = s->stream[i].next_id)
		if (s->stream[i].id == id)
			return i;
	return -1;
}

int32_t gl_state_next_head(const struct gl_state *s, int32_t si, uint64_t bytes, uint64_t hash)
{
	int32_t i;

	if (!s->nsbuckets)
		return -1;
	i = si < 0 ? s->by_head[head_key(bytes, hash) & (s->nsbuckets - 1)] : s->stream[si].next_head;
	for (; i >= 0; i = s->stream[i].next_head)
		if (s->stream[i].head.bytes == bytes && s->stream[i].head.hash == hash)
			return i;
	return -1;
}

int32_t gl_state_stream_by_head(const struct gl_state *s, uint64_t bytes, uint64_t hash)
{
	return gl_state_next_head(s, -1, bytes, hash);
}

int gl_state_set_path(struct gl_state *s, int32_t fi, const char *path)
{
	char *np = dup_or_null(path);

	if (path && !np)
		return -1;
	free(s->file[fi].path);
	s->file[fi].path = np;
	return rehash_files(s);
}

int gl_state_set_parse_state(struct gl_state *s, int32_t si, const void *p, size_t n)
{
	struct gl_sstream *st = &s->stream[si];

	if (n == 0) {
		st->parse_state_len = 0;
		return 0;
	}
	if (n > st->parse_state_len || !st->parse_state) {
		unsigned char *v = realloc(st->parse_state, n);

		if (!v)
			return -1;
		st->parse_state = v;
	}
	memcpy(st->parse_state, p, n);
	st->parse_state_len = n;
	return 0;
}
