/*
 * kernel_cache.c - per-kernel chains of timing blocks (kernel_cache.h).
 */
#include "kernel_cache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_BIT (UINT64_C(1) << 63)
#define BLOCK_MIN 2u
#define BLOCK_MAX 8192u

struct timing {
	uint64_t ts_flag;	/* ts_us | FLAG_BIT when anomaly == 1 */
	double dur_us;
};

struct block {
	struct block *next;
	uint32_t n, cap;
	struct timing t[];
};

struct gl_kcache {
	struct block **head, **tail;	/* per kernel id */
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
	if (!c->head || !c->tail) {
		gl_kcache_free(c);
		return NULL;
	}
	return c;
}

static void free_chain(struct block *b)
{
	while (b) {
		struct block *next = b->next;

		free(b);
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
	if (kernel_id <= 0 || (uint64_t)kernel_id >= c->n_ids || ts_us < 0 || c->count >= c->max) {
		drop(c);
		return;
	}
	b = c->tail[kernel_id];
	if (!b || b->n == b->cap) {
		uint32_t cap = b ? (b->cap < BLOCK_MAX ? b->cap * 2 : BLOCK_MAX) : BLOCK_MIN;
		struct block *nb = malloc(sizeof(*nb) + cap * sizeof(nb->t[0]));

		if (!nb) {
			drop(c);
			return;
		}
		nb->next = NULL;
		nb->n = 0;
		nb->cap = cap;
		if (b)
			b->next = nb;
		else
			c->head[kernel_id] = nb;
		c->tail[kernel_id] = b = nb;
	}
	b->t[b->n].ts_flag = (uint64_t)ts_us | (anomaly ? FLAG_BIT : 0);
	b->t[b->n].dur_us = dur_us;
	b->n++;
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
	ev.mem_mb = ev.exec_ms = NAN;
	ev.recovery_attempts = ev.error_count = -1;
	for (size_t id = 0; id < c->n_ids && rc == 0; id++) {
		ev.kernel_id = (int64_t)id;
		for (struct block *b = c->head[id]; b && rc == 0; b = b->next)
			for (uint32_t i = 0; i < b->n && rc == 0; i++) {
				ev.ts_us = (int64_t)(b->t[i].ts_flag & ~FLAG_BIT);
				ev.anomaly = (b->t[i].ts_flag & FLAG_BIT) != 0;
				ev.dur_us = b->t[i].dur_us;
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
	free(c);
}
