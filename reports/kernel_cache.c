/*
 * kernel_cache.c - per-kernel chains of timing blocks (kernel_cache.h).
 */
#include "kernel_cache.h"

#include "gpulog.h"
#include "util/bigmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN 32u	/* bytes of a kernel's first block: 2 timings of 12 bytes */
#define ENTRY_MAX 20u	/* an escaped step and a double */
#define STEP_WIDE UINT32_MAX	/* the step's word when the step follows in 8 bytes */

/*
 * A timing: u = zigzag(ts_us - the kernel's previous ts_us) << 1 | anomaly
 * as a 32-bit word, or that word STEP_WIDE and u in 8 bytes after it when
 * it does not fit (a step of more than 2^30 us, 18 minutes); then dur_us's
 * 8 bytes as they are in memory. 12 bytes a timing instead of 16: a
 * quarter less memory to take from the system and clear. (A varint would
 * take 10-11 bytes where steps are milliseconds, at twice the instructions
 * of these fixed words.)
 */
struct block {
	struct block *next;
	uint32_t used, cap;	/* bytes */
	unsigned char b[];
};

/* a full block is GL_BIG_MIN bytes, on huge pages (util/bigmem.h) */
#define BLOCK_MAX ((uint32_t)(GL_BIG_MIN - sizeof(struct block)))

static size_t block_bytes(uint32_t cap)
{
	return sizeof(struct block) + (size_t)cap;
}

struct gl_kcache {
	struct block **head, **tail;	/* per kernel id */
	int64_t *last_ts;		/* per kernel id: the time of its last timing */
	size_t n_ids, max, count;
	bool dropped;
};

struct gl_kcache *gl_kcache_new(size_t n_ids, size_t max_timings)
{
	struct gl_kcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->n_ids = n_ids;
	c->max = max_timings;
	c->head = calloc(n_ids ? n_ids : 1, sizeof(*c->head));
	c->tail = calloc(n_ids ? n_ids : 1, sizeof(*c->tail));
	c->last_ts = calloc(n_ids ? n_ids : 1, sizeof(*c->last_ts));
	if (!c->head || !c->tail || !c->last_ts) {
		gl_kcache_free(c);
		return NULL;
	}
	return c;
}

static void free_chain(struct block *b)
{
	while (b) {
		struct block *next = b->next;

		gl_big_free(b, block_bytes(b->cap));
		b = next;
	}
}

static void drop(struct gl_kcache *c)
{
	for (size_t i = 0; i < c->n_ids; i++) {
		free_chain(c->head[i]);
		c->head[i] = c->tail[i] = NULL;
	}
	c->count = 0;
	c->dropped = true;
}

void gl_kcache_add(struct gl_kcache *c, int64_t kernel_id, int64_t ts_us, double dur_us,
		   bool anomaly)
{
	struct block *b;

	if (c->dropped)
		return;
	/* a time past 2^61 (year 75000) would not fit the shifted zigzag */
	if (kernel_id <= 0 || (uint64_t)kernel_id >= c->n_ids || ts_us < 0 ||
	    ts_us > INT64_MAX / 4 || c->count >= c->max) {
		drop(c);
		return;
	}
	b = c->tail[kernel_id];
	if (!b || b->cap - b->used < ENTRY_MAX) {
		uint32_t cap = b ? (b->cap < BLOCK_MAX / 2 ? b->cap * 2 : BLOCK_MAX) : BLOCK_MIN;
		struct block *nb = gl_big_alloc(block_bytes(cap));

		if (!nb) {
			drop(c);
			return;
		}
		nb->next = NULL;
		nb->used = 0;
		nb->cap = cap;
		if (b)
			b->next = nb;
		else
			c->head[kernel_id] = nb;
		c->tail[kernel_id] = b = nb;
	}
	/* both times in [0, 2^61]: the difference and its zigzag fit */
	int64_t d = ts_us - c->last_ts[kernel_id];
	uint64_t u = ((((uint64_t)d << 1) ^ (uint64_t)(d >> 63)) << 1) | (anomaly ? 1u : 0u);
	unsigned char *p = b->b + b->used;
	uint32_t w = u < STEP_WIDE ? (uint32_t)u : STEP_WIDE;

	c->last_ts[kernel_id] = ts_us;
	memcpy(p, &w, sizeof(w));
	p += sizeof(w);
	if (w == STEP_WIDE) {
		memcpy(p, &u, sizeof(u));
		p += sizeof(u);
	}
	memcpy(p, &dur_us, sizeof(dur_us));
	p += sizeof(dur_us);
	b->used = (uint32_t)(p - b->b);
	c->count++;
}

bool gl_kcache_ok(const struct gl_kcache *c)
{
	return c && !c->dropped;
}

size_t gl_kcache_count(const struct gl_kcache *c)
{
	return c ? c->count : 0;
}

int gl_kcache_replay(struct gl_kcache *c, int (*fn)(void *arg, const struct gl_query_event *ev),
		     void *arg)
{
	struct gl_query_event ev;
	int rc = 0;

	memset(&ev, 0, sizeof(ev));
	ev.mem_mb = ev.exec_ms = ev.op_ms = ev.op_throughput = NAN;
	ev.recovery_attempts = ev.error_count = -1;
	for (size_t id = 0; id < c->n_ids && rc == 0; id++) {
		int64_t ts = 0;

		ev.kernel_id = (int64_t)id;
		for (struct block *b = c->head[id]; b && rc == 0; b = b->next)
			for (const unsigned char *p = b->b, *end = b->b + b->used; p < end && rc == 0;) {
				uint32_t w;
				uint64_t u;

				memcpy(&w, p, sizeof(w));
				p += sizeof(w);
				u = w;
				if (w == STEP_WIDE) {
					memcpy(&u, p, sizeof(u));
					p += sizeof(u);
				}
				ev.anomaly = (int)(u & 1);
				u >>= 1;
				ts += (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
				ev.ts_us = ts;
				memcpy(&ev.dur_us, p, sizeof(ev.dur_us));
				p += sizeof(ev.dur_us);
				rc = fn(arg, &ev);
			}
		free_chain(c->head[id]);
		c->head[id] = c->tail[id] = NULL;
	}
	if (rc != 0)
		drop(c);
	c->count = 0;
	return rc;
}

void gl_kcache_free(struct gl_kcache *c)
{
	if (!c)
		return;
	if (c->head)
		for (size_t i = 0; i < c->n_ids; i++)
			free_chain(c->head[i]);
	free(c->head);
	free(c->tail);
	free(c->last_ts);
	free(c);
}

/* One read of the window for the kernels lo..hi (ids). */
struct group_walk {
	int64_t lo, hi;
	bool stream;			/* rows straight to fn (one kernel) */
	struct gl_kcache *c;		/* else: cached */
	bool (*keep)(void *arg, const struct gl_query_event *ev);
	int (*fn)(void *arg, const struct gl_query_event *ev);
	void *arg;
};

static int on_group_row(void *arg, const struct gl_query_event *ev)
{
	struct group_walk *w = arg;

	if (ev->kernel_id < w->lo || ev->kernel_id > w->hi || !w->keep(w->arg, ev))
		return 0;
	if (w->stream)
		return w->fn(w->arg, ev);
	gl_kcache_add(w->c, ev->kernel_id, ev->ts_us, ev->dur_us, ev->anomaly == 1);
	return 0;
}

static int read_group(struct gl_query *q, int64_t since_us, int64_t until_us,
		      struct group_walk *w, const uint64_t *kernel_n, size_t n_ids,
		      size_t max_timings, struct gl_err *err)
{
	const int64_t lo = w->lo, hi = w->hi;
	int rc;

	if (!w->stream && (w->c = gl_kcache_new(n_ids, max_timings))) {
		bool held;

		size_t n = 0;
		int64_t *ids = malloc((size_t)(hi - lo + 1) * sizeof(*ids));

		for (int64_t id = lo; ids && id <= hi; id++)
			if (kernel_n[id])
				ids[n++] = id;
		/* no room for the list: every kernel's rows, the group's kept */
		rc = gl_query_kernel_events(q, since_us, until_us, ids, ids ? n : 0, on_group_row, w,
					    err);
		free(ids);
		held = rc == GL_OK && gl_kcache_ok(w->c);
		if (held)
			rc = gl_kcache_replay(w->c, w->fn, w->arg);
		gl_kcache_free(w->c);
		w->c = NULL;
		if (rc != GL_OK || held)
			return rc;
	}
	/* a kernel too large for the cache, or a cache that could not hold the
	 * group: kernel by kernel, each streamed in time order */
	w->stream = true;
	for (int64_t id = lo; id <= hi; id++) {
		if (kernel_n[id] == 0)
			continue;
		w->lo = w->hi = id;
		rc = gl_query_kernel_events(q, since_us, until_us, &id, 1, on_group_row, w, err);
		if (rc != GL_OK)
			return rc;
	}
	return GL_OK;
}

int gl_kcache_pass_db(struct gl_query *q, int64_t since_us, int64_t until_us,
		      const uint64_t *kernel_n, size_t n_ids, size_t max_timings,
		      bool (*keep)(void *arg, const struct gl_query_event *ev),
		      int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		      struct gl_err *err)
{
	struct group_walk w = {.keep = keep, .fn = fn, .arg = arg};
	size_t id = 1;
	int rc = GL_OK;

	if (max_timings == 0)
		max_timings = 1;
	while (rc == GL_OK) {
		uint64_t sum = 0;

		while (id < n_ids && kernel_n[id] == 0)
			id++;
		if (id >= n_ids)
			break;
		w.lo = w.hi = (int64_t)id;
		w.stream = kernel_n[id] > max_timings;
		sum = kernel_n[id++];
		/* more kernels into this group while their timings fit */
		while (!w.stream && id < n_ids && sum + kernel_n[id] <= max_timings) {
			sum += kernel_n[id];
			if (kernel_n[id])
				w.hi = (int64_t)id;
			id++;
		}
		rc = read_group(q, since_us, until_us, &w, kernel_n, n_ids, max_timings, err);
	}
	return rc;
}
