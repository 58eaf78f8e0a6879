/*
 * series.c - reads the series behind the charts (see series.h): one walk
 * over the window's events in time order, one over its RMM rows, each
 * sample reduced at once into time columns, histograms or bucket counts.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "util/timeutil.h"

/* Per name id: which top kernel, which trend kernel, filter results. */
struct walk {
	struct gl_series *s;
	const struct gl_report_params *p;
	struct gl_query *q;
	size_t n_ids;
	signed char *top_of, *trend_of;		/* index, or -1 */
	signed char *comp_ok, *host_ok;		/* 0 unknown, 1 pass, -1 filtered */
	/* errors per component id, grown as components appear */
	int *group_of;				/* id -> row in per_comp, -1 none */
	uint64_t **per_comp;			/* rows of n_buckets counts */
	int64_t *comp_id;
	size_t n_comp;
	int failed;
};

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static int glob_ok(struct walk *w, signed char *cache, int64_t id, const char *const *globs,
		   size_t n)
{
	const char *name;

	if (n == 0)
		return 1;
	if (id < 0 || (uint64_t)id >= w->n_ids)
		id = 0;
	if (cache[id] == 0) {
		name = id > 0 ? gl_query_name(w->q, id) : NULL;
		cache[id] = -1;
		for (size_t i = 0; i < n; i++)
			if (fnmatch(globs[i], name ? name : "", 0) == 0)
				cache[id] = 1;
	}
	return cache[id] > 0;
}

static int error_row(struct walk *w, int64_t id)
{
	size_t slot = id > 0 && (uint64_t)id < w->n_ids ? (size_t)id : 0;

	if (w->group_of[slot] >= 0)
		return w->group_of[slot];
	uint64_t **rows = realloc(w->per_comp, (w->n_comp + 1) * sizeof(*rows));
	int64_t *ids;

	if (!rows)
		return -1;
	w->per_comp = rows;
	ids = realloc(w->comp_id, (w->n_comp + 1) * sizeof(*ids));
	if (!ids)
		return -1;
	w->comp_id = ids;
	rows[w->n_comp] = calloc(w->s->n_buckets, sizeof(uint64_t));
	if (!rows[w->n_comp])
		return -1;
	ids[w->n_comp] = (int64_t)slot;
	w->group_of[slot] = (int)w->n_comp;
	return (int)w->n_comp++;
}

static int on_event(void *arg, const struct gl_query_event *ev)
{
	struct walk *w = arg;
	struct gl_series *s = w->s;
	size_t id = ev->kernel_id > 0 && (uint64_t)ev->kernel_id < w->n_ids
		? (size_t)ev->kernel_id : 0;

	if (!glob_ok(w, w->comp_ok, ev->component_id, w->p->components, w->p->ncomponents) ||
	    !glob_ok(w, w->host_ok, ev->host_id, w->p->hosts, w->p->nhosts))
		return 0;
	if (id > 0 && !isnan(ev->dur_us)) {
		int t = w->top_of[id], r = w->trend_of[id];

		if (t >= 0) {
			gl_chart_cols_add(&s->top_cols[t], ev->ts_us, ev->dur_us, ev->anomaly);
			gl_chart_hist_add(&s->top_hist[t], ev->dur_us);
		}
		if (r >= 0)
			gl_chart_cols_add(&s->trend_cols[r], ev->ts_us, ev->dur_us, ev->anomaly);
	}
	if (!isnan(ev->mem_mb))
		gl_chart_cols_add(&s->mem, ev->ts_us, ev->mem_mb, 0);
	if (ev->level >= GL_LEVEL_ERROR) {
		int g = error_row(w, ev->component_id);
		int64_t b = (ev->ts_us - s->since_us) / s->bucket_us;

		if (g < 0) {
			w->failed = 1;
			return GL_ENOMEM;
		}
		if (b >= 0 && (size_t)b < s->n_buckets)
			w->per_comp[g][b]++;
	}
	return 0;
}

/* Live RMM allocations: device pointer -> size, open addressing. */
struct ptrmap {
	uint64_t *key, *val;	/* key 0: empty slot, key 1: removed */
	size_t cap, used;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Pointers 0 and 1 are never real allocations; they would collide with the markers. */
static int ptrmap_put(struct ptrmap *m, uint64_t k, uint64_t v);

static int ptrmap_grow(struct ptrmap *m)
{
	struct ptrmap n = {0};

	n.cap = m->cap ? m->cap * 2 : 1024;
	n.key = calloc(n.cap, sizeof(uint64_t));
	n.val = calloc(n.cap, sizeof(uint64_t));
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i] > 1)
			ptrmap_put(&n, m->key[i], m->val[i]);
	free(m->key);
	free(m->val);
	*m = n;
	return 0;
}

static int ptrmap_put(struct ptrmap *m, uint64_t k, uint64_t v)
{
	if ((m->used + 1) * 2 > m->cap && ptrmap_grow(m) != 0)
		return -1;
	for (size_t i = mix(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == k) {
			m->val[i] = v;
			return 0;
		}
		if (m->key[i] == 0) {
			m->key[i] = k;
			m->val[i] = v;
			m->used++;
			return 0;
		}
	}
}

/* Removes k; returns its size, or 0 when it was not there. */
static uint64_t ptrmap_take(struct ptrmap *m, uint64_t k)
{
	if (m->cap == 0)
		return 0;
	for (size_t i = mix(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == 0)
			return 0;
		if (m->key[i] == k) {
			m->key[i] = 1;
			return m->val[i];
		}
	}
}

struct rmm_walk {
	struct gl_series *s;
	struct ptrmap live;
	uint64_t outstanding;
	const struct gl_report_params *p;
	struct walk *w;
};

static int on_mem(void *arg, const struct gl_query_mem *m)
{
	struct rmm_walk *r = arg;

	if (!glob_ok(r->w, r->w->host_ok, m->host_id, r->p->hosts, r->p->nhosts))
		return 0;
	r->s->rmm_rows++;
	if (m->action == 0 && m->ptr > 1) {
		uint64_t old = ptrmap_take(&r->live, m->ptr);

		r->outstanding -= old;	/* a pointer reused without its free */
		if (ptrmap_put(&r->live, m->ptr, m->size_bytes) != 0)
			return GL_ENOMEM;
		r->outstanding += m->size_bytes;
	} else if (m->action == 1) {
		r->outstanding -= ptrmap_take(&r->live, m->ptr);
	}
	gl_chart_cols_add(&r->s->rmm, m->ts_us, (double)r->outstanding / (1024.0 * 1024.0), 0);
	return 0;
}

/* Keeps the groups with most errors; folds the rest into "other". */
static int make_groups(struct walk *w, struct gl_series *s, struct gl_err *err)
{
	size_t nb = s->n_buckets, keep = w->n_comp;
	uint64_t *tot = calloc(w->n_comp + 1, sizeof(*tot));
	size_t *order = calloc(w->n_comp + 1, sizeof(*order));
	int rc = GL_OK;

	if (!tot || !order) {
		rc = oom(err);
		goto out;
	}
	for (size_t g = 0; g < w->n_comp; g++) {
		order[g] = g;
		for (size_t b = 0; b < nb; b++)
			tot[g] += w->per_comp[g][b];
	}
	/* Most errors first; ties by name id, so the order does not depend on the walk. */
	for (size_t i = 1; i < w->n_comp; i++)
		for (size_t j = i; j > 0; j--) {
			size_t a = order[j - 1], c = order[j];

			if (tot[c] > tot[a] || (tot[c] == tot[a] && w->comp_id[c] < w->comp_id[a])) {
				order[j - 1] = c;
				order[j] = a;
			}
		}
	if (keep > GL_SERIES_ERROR_GROUPS)
		keep = GL_SERIES_ERROR_GROUPS - 1;
	s->n_groups = keep + (w->n_comp > keep);
	s->count = calloc(s->n_groups * nb + 1, sizeof(*s->count));
	if (!s->count) {
		rc = oom(err);
		goto out;
	}
	for (size_t i = 0; i < w->n_comp; i++) {
		size_t g = i < keep ? i : keep;

		for (size_t b = 0; b < nb; b++)
			s->count[g * nb + b] += w->per_comp[order[i]][b];
	}
	for (size_t g = 0; g < s->n_groups; g++) {
		const char *name = g < keep && w->comp_id[order[g]] > 0
			? gl_query_name(w->q, w->comp_id[order[g]]) : NULL;

		s->group[g] = strdup(g == keep ? "other" : name && *name ? name : "(no component)");
		if (!s->group[g]) {
			rc = oom(err);
			goto out;
		}
	}
out:
	free(tot);
	free(order);
	return rc;
}

static int setup(struct gl_series *s, struct walk *w, const struct gl_report *rep, size_t top,
		 struct gl_err *err)
{
	int rc;

	s->since_us = rep->window.since_us;
	s->until_us = rep->window.until_us > s->since_us ? rep->window.until_us
		: s->since_us + GL_US_PER_S;
	s->bucket_us = s->until_us - s->since_us > 3 * GL_US_PER_DAY ? GL_US_PER_DAY
		: 3600 * GL_US_PER_S;
	s->n_buckets = (size_t)((s->until_us - s->since_us + s->bucket_us - 1) / s->bucket_us);
	if (s->n_buckets > 100000)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "window too long to chart (%zu error buckets)", s->n_buckets);

	s->n_top = rep->n_kernels < top ? rep->n_kernels : top;
	for (size_t k = 0; k < s->n_top; k++) {
		const struct gl_report_kernel *kr = &rep->kernels[k];
		double lo, hi;

		s->top_name[k] = kr->kernel;
		rc = gl_chart_cols_init(&s->top_cols[k], s->since_us, s->until_us,
					GL_CHART_COLUMNS, err);
		if (rc != GL_OK)
			return rc;
		gl_chart_hist_range(kr->min_us, kr->p99_us, kr->max_us, &lo, &hi);
		if (!isfinite(lo) || !isfinite(hi)) {
			lo = 0;
			hi = 1;
		}
		rc = gl_chart_hist_init(&s->top_hist[k], lo, hi, GL_SERIES_HIST_BINS, err);
		if (rc != GL_OK)
			return rc;
		s->top_hist[k].p50 = kr->p50_us;
		s->top_hist[k].p95 = kr->p95_us;
	}
	for (size_t t = 0; t < rep->n_trends && s->n_trend < GL_SERIES_TOP_MAX; t++) {
		const struct gl_report_trend *tr = &rep->trends[t];

		if (tr->series != GL_TREND_KERNEL || !tr->kernel ||
		    (tr->verdict != GL_VERDICT_DEGRADING && tr->verdict != GL_VERDICT_IMPROVING))
			continue;
		rc = gl_chart_cols_init(&s->trend_cols[s->n_trend], s->since_us, s->until_us,
					GL_SERIES_TREND_COLUMNS, err);
		if (rc != GL_OK)
			return rc;
		s->trend[s->n_trend++] = tr;
	}
	rc = gl_chart_cols_init(&s->mem, s->since_us, s->until_us, GL_CHART_COLUMNS, err);
	if (rc == GL_OK)
		rc = gl_chart_cols_init(&s->rmm, s->since_us, s->until_us, GL_CHART_COLUMNS, err);
	if (rc != GL_OK)
		return rc;

	w->n_ids = gl_query_name_slots(w->q) + 1;
	w->top_of = malloc(w->n_ids);
	w->trend_of = malloc(w->n_ids);
	w->comp_ok = calloc(w->n_ids, 1);
	w->host_ok = calloc(w->n_ids, 1);
	w->group_of = malloc(w->n_ids * sizeof(int));
	if (!w->top_of || !w->trend_of || !w->comp_ok || !w->host_ok || !w->group_of)
		return oom(err);
	memset(w->top_of, -1, w->n_ids);
	memset(w->trend_of, -1, w->n_ids);
	for (size_t i = 0; i < w->n_ids; i++)
		w->group_of[i] = -1;
	for (size_t id = 1; id < w->n_ids; id++) {
		const char *name = gl_query_name(w->q, (int64_t)id);

		if (!name)
			continue;
		for (size_t k = 0; k < s->n_top; k++)
			if (strcmp(name, s->top_name[k]) == 0)
				w->top_of[id] = (signed char)k;
		for (size_t t = 0; t < s->n_trend; t++)
			if (strcmp(name, s->trend[t]->kernel) == 0)
				w->trend_of[id] = (signed char)t;
	}
	return GL_OK;
}

int gl_series_load(struct gl_query *q, const struct gl_report_params *p,
		   const struct gl_report *rep, size_t top, struct gl_series *s,
		   struct gl_err *err)
{
	struct walk w = {0};
	struct rmm_walk r = {0};
	int rc;

	memset(s, 0, sizeof(*s));
	w.s = s;
	w.p = p;
	w.q = q;
	if (top == 0)
		top = GL_SERIES_TOP_DEFAULT;
	if (top > GL_SERIES_TOP_MAX)
		top = GL_SERIES_TOP_MAX;
	rc = setup(s, &w, rep, top, err);
	if (rc != GL_OK)
		goto out;
	rc = gl_query_events(q, s->since_us, s->until_us, 0, on_event, &w, err);
	if (rc == GL_ENOMEM && w.failed)
		rc = oom(err);
	if (rc != GL_OK)
		goto out;
	rc = make_groups(&w, s, err);
	if (rc != GL_OK)
		goto out;
	r.s = s;
	r.p = p;
	r.w = &w;
	rc = gl_query_mem_events(q, s->since_us, s->until_us, on_mem, &r, err);
	if (rc == GL_ENOMEM)
		rc = oom(err);
out:
	free(r.live.key);
	free(r.live.val);
	for (size_t g = 0; g < w.n_comp; g++)
		free(w.per_comp[g]);
	free(w.per_comp);
	free(w.comp_id);
	free(w.top_of);
	free(w.trend_of);
	free(w.comp_ok);
	free(w.host_ok);
	free(w.group_of);
	if (rc != GL_OK)
		gl_series_release(s);
	return rc;
}

void gl_series_release(struct gl_series *s)
{
	for (size_t k = 0; k < GL_SERIES_TOP_MAX; k++) {
		gl_chart_cols_release(&s->top_cols[k]);
		gl_chart_hist_release(&s->top_hist[k]);
		gl_chart_cols_release(&s->trend_cols[k]);
	}
	gl_chart_cols_release(&s->mem);
	gl_chart_cols_release(&s->rmm);
	for (size_t g = 0; g < GL_SERIES_ERROR_GROUPS; g++) {
		free(s->group[g]);
		s->group[g] = NULL;
	}
	free(s->count);
	s->count = NULL;
	s->n_top = s->n_trend = s->n_groups = 0;
}
