/*
 * batch.c - fixed-size batches of parsed rows and ingest state changes.
 * Allocated once per run (a few per pipeline) and reused: no per-line
 * allocation anywhere between the reader and SQLite.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "../util/bigmem.h"

struct gl_batch *gl_batch_new(void)
{
	struct gl_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	/* the two large arrays on huge pages (bigmem.h): written by one
	 * thread and read by the other, batch after batch, with a page fault
	 * per 4 KiB at their first use otherwise */
	b->arena = gl_big_alloc(GL_BATCH_ARENA);
	b->ev = gl_big_alloc(GL_BATCH_ROWS * sizeof(*b->ev));
	b->mem = malloc(GL_BATCH_ROWS * sizeof(*b->mem));
	b->samp = malloc(GL_BATCH_SAMPLES * sizeof(*b->samp));
	b->span = malloc(GL_BATCH_ROWS * sizeof(*b->span));
	b->rej = malloc(GL_BATCH_REJECTS * sizeof(*b->rej));
	b->op = malloc(GL_BATCH_OPS * sizeof(*b->op));
	b->notice = malloc(GL_BATCH_NOTICES * sizeof(*b->notice));
	if (!b->arena || !b->ev || !b->mem || !b->samp || !b->span || !b->rej || !b->op || !b->notice) {
		gl_batch_free(b);
		return NULL;
	}
	return b;
}

void gl_batch_free(struct gl_batch *b)
{
	if (!b)
		return;
	gl_big_free(b->arena, GL_BATCH_ARENA);
	gl_big_free(b->ev, GL_BATCH_ROWS * sizeof(*b->ev));
	free(b->mem);
	free(b->samp);
	free(b->span);
	free(b->rej);
	free(b->op);
	free(b->notice);
	free(b);
}

void gl_batch_reset(struct gl_batch *b)
{
	b->used = 0;
	b->nev = b->nmem = b->nsamp = b->nspan = b->nrej = b->nop = b->nnotice = b->ndrop = 0;
	b->rejects_unstored = b->files_rejects_capped = 0;
	b->lines_read = b->lines_continued = b->bytes_uncompressed = b->bytes_raw = 0;
	b->files_done = b->files_new = b->files_unchanged = b->files_rotated = 0;
	b->files_grown = b->files_skipped = b->files_failed = b->files_damaged = 0;
	b->files_reread = 0;
	b->last = 0;
	b->gen++;
	memset(b->names, 0, sizeof(b->names));
}

size_t gl_batch_room(const struct gl_batch *b)
{
	return GL_BATCH_ARENA - b->used;
}

/* PREFETCHW where the CPU has it (x86-64 since Broadwell; a no-op on older
 * ones), else the compiler's prefetch for writing. */
static inline void prefetch_write(const char *p)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__asm__ volatile("prefetchw %0" : : "m"(*p));
#else
	__builtin_prefetch(p, 1);
#endif
}

void gl_batch_warm(const struct gl_batch *b)
{
	/* the event 3 rows ahead (each is written ~1 us apart) */
	if (b->nev + 4 <= GL_BATCH_ROWS) {
		const char *ev = (const char *)&b->ev[b->nev + 3];

		for (size_t k = 0; k < sizeof(*b->ev); k += 64)
			prefetch_write(ev + k);
	}
	/* the arena 2 KiB ahead: 512 bytes, more than a typical line's strings */
	if (b->used + 2048 + 512 <= GL_BATCH_ARENA) {
		const char *a = b->arena + b->used + 2048;

		for (size_t k = 0; k < 512; k += 64)
			prefetch_write(a + k);
	}
}

struct gl_str gl_batch_str(struct gl_batch *b, struct gl_str s)
{
	struct gl_str out = {NULL, 0};

	if (!s.p || s.len > gl_batch_room(b))
		return out;
	out.p = b->arena + b->used;
	out.len = s.len;
	memcpy(b->arena + b->used, s.p, s.len);
	b->used += s.len;
	return out;
}

struct gl_str gl_batch_name(struct gl_batch *b, struct gl_str s)
{
	const unsigned char *u = (const unsigned char *)s.p;
	struct gl_str *c;

	if (!s.p || s.len == 0 || s.len > GL_BATCH_NAME_MAX)
		return gl_batch_str(b, s);
	/* a slot from the length and the first and last 8 bytes (names that
	 * differ only in their middle share one, and take turns) */
	uint64_t h = s.len, w = 0;

	if (s.len >= 8) {
		memcpy(&w, u, 8);
		h ^= w;
		memcpy(&w, u + s.len - 8, 8);
		h ^= w * 0xC2B2AE3D27D4EB4FULL;
	} else {
		for (size_t i = 0; i < s.len; i++)
			h = h * 0x100000001B3ULL ^ u[i];
	}
	c = &b->names[(h * 0x9E3779B97F4A7C15ULL) >> 58];
	if (c->len == s.len && memcmp(c->p, s.p, s.len) == 0)
		return *c;
	*c = gl_batch_str(b, s);
	return *c;
}

int gl_batch_full(const struct gl_batch *b)
{
	return b->nev + b->nmem + b->nspan >= GL_BATCH_ROWS ||
	       b->nsamp + GL_BATCH_SAMPLES / 8 > GL_BATCH_SAMPLES || b->nrej >= GL_BATCH_REJECTS ||
	       b->nop + 8 >= GL_BATCH_OPS || b->nnotice >= GL_BATCH_NOTICES ||
	       b->ndrop >= GL_BATCH_DROPS;
}
