/*
 * sections.c - computes every section of the report. In: the rows of the
 * window (lib/store/query.h), the configuration. Out: struct gl_report.
 *
 * Memory: per kernel one array of doubles (its durations, which the
 * percentiles need); everything else is streamed: least squares through
 * centred sums, anomalies through per-kernel moving windows, message shapes
 * in a bounded hash table, RMM pointers in a table of outstanding
 * allocations plus one double per allocation size (for its quantiles).
 * When the params carry a chart series (series.h), each event and RMM row
 * is also handed to it in the same pass.
 */
#include "sections.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "stats/stats.h"
#include "util/hash.h"
#include "util/timeutil.h"

#define US_PER_HOUR (3600LL * GL_US_PER_S)
#define SAMPLE_MAX 512

/* One kernel, in both windows. */
struct kstate {
	int64_t id;
	const char *name;		/* borrowed from the query's names */
	double *dur;			/* durations, time order, then sorted */
	size_t n, cap;
	double mem_sum;
	uint64_t mem_n;
	uint64_t flagged, anomalies;
	struct gl_fit_acc fit;
	struct gl_anomaly *det;
	bool in_before, in_now;
	struct gl_stats_desc before, now;
};

struct shape {
	uint64_t hash;			/* 0: empty slot */
	char *text;
	char *sample;
	uint64_t count;
	int64_t first_ts_us, last_ts_us;
};

struct rmm_slot {
	uint64_t ptr;
	uint64_t size_bytes;
	int64_t ts_us;
	bool used;
};

struct build {
	struct gl_query *q;
	const struct gl_report_params *p;
	const struct gl_report_config *cfg;
	struct gl_report *rep;
	struct gl_err *err;
	size_t n_ids;
	signed char *comp_ok, *host_ok, *kern_ok;	/* per id: 0 unknown, 1 yes, -1 no */
	uint64_t *comp_events, *comp_errors, *comp_warn;	/* per component id */
	struct kstate **kern;		/* per id */
	int64_t *kids;			/* ids of kern in order of first sight */
	size_t nk;
	struct gl_fit_acc mem_fit;
	double first_mem_mib;
	double *err_bins;		/* ERROR+CRITICAL per hour of window */
	size_t n_bins;
	struct shape *shapes;
	size_t shape_cap, n_shapes;
	struct gl_report_anomaly *top_anoms;
	size_t n_top_anoms;
	struct rmm_slot *rmm;
	size_t rmm_cap, rmm_used;
	double *sizes;
	size_t n_sizes, cap_sizes;
	uint64_t outstanding;
};

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static bool glob_any(const char *const *globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

/* Does name id pass the filter globs? Cached per id; id 0 (NULL) is "". */
static bool id_ok(struct build *b, signed char *cache, int64_t id, const char *const *globs,
		  size_t n)
{
	if (n == 0)
		return true;
	if (id < 0 || (uint64_t)id >= b->n_ids) {
		const char *name = "";
		return glob_any(globs, n, name);
	}
	if (cache[id] == 0) {
		const char *name = gl_query_name(b->q, id);
		cache[id] = glob_any(globs, n, name ? name : "") ? 1 : -1;
	}
	return cache[id] > 0;
}

static size_t slot_of(const struct build *b, int64_t id)
{
	return id >= 0 && (uint64_t)id < b->n_ids ? (size_t)id : 0;
}

static struct kstate *kernel_state(struct build *b, int64_t id)
{
	struct kstate *k;

	if (id <= 0 || (uint64_t)id >= b->n_ids)
		return NULL;
	if (b->kern[id])
		return b->kern[id];
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->id = id;
	k->name = gl_query_name(b->q, id);
	if (!k->name)
		k->name = "";
	gl_fit_acc_init(&k->fit);
	b->kern[id] = k;
	b->kids[b->nk++] = id;
	return k;
}

static int push_dur(struct kstate *k, double v)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		double *d = realloc(k->dur, cap * sizeof(*d));

		if (!d)
			return -1;
		k->dur = d;
		k->cap = cap;
	}
	k->dur[k->n++] = v;
	return 0;
}

static bool event_ok(struct build *b, const struct gl_query_event *ev)
{
	return id_ok(b, b->comp_ok, ev->component_id, b->p->components, b->p->ncomponents) &&
	       id_ok(b, b->host_ok, ev->host_id, b->p->hosts, b->p->nhosts);
}

static bool kernel_ok(struct build *b, int64_t kernel_id)
{
	return kernel_id > 0 &&
	       id_ok(b, b->kern_ok, kernel_id, b->p->kernels, b->p->nkernels);
}

/* ---- baseline pass ------------------------------------------------- */

static int on_before(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct kstate *k;

	if (!event_ok(b, ev) || !kernel_ok(b, ev->kernel_id) || isnan(ev->dur_us))
		return 0;
	k = kernel_state(b, ev->kernel_id);
	if (!k || push_dur(k, ev->dur_us) != 0)
		return oom(b->err);
	b->rep->baseline.samples++;
	return 0;
}

static int baseline_pass(struct build *b)
{
	int64_t len = b->p->until_us - b->p->since_us;
	int rc;

	b->rep->baseline.until_us = b->p->since_us;
	b->rep->baseline.since_us = b->p->since_us - len;
	rc = gl_query_events(b->q, b->rep->baseline.since_us, b->rep->baseline.until_us,
			     GL_QUERY_KERNELS_ONLY, on_before, b, b->err);
	if (rc != GL_OK)
		return rc;
	for (size_t i = 0; i < b->nk; i++) {
		struct kstate *k = b->kern[b->kids[i]];

		if (k->n == 0)
			continue;
		gl_stats_describe(k->dur, k->n, &k->before);
		k->in_before = true;
		free(k->dur);
		k->dur = NULL;
		k->n = k->cap = 0;
	}
	return GL_OK;
}

/* ---- message shapes ------------------------------------------------ */

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* Length of a size unit at s ("MiB", "GB", "bytes", "B"), 0 if none. */
static size_t unit_len(const char *s, const char *end)
{
	static const char *const units[] = {
		"bytes", "byte", "KiB", "MiB", "GiB", "TiB", "kB", "KB", "MB", "GB", "TB", "B",
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i]);

		if ((size_t)(end - s) >= n && strncmp(s, units[i], n) == 0 &&
		    (s + n == end || !is_word((unsigned char)s[n])))
			return n;
	}
	return 0;
}

/*
 * A real-looking ERROR line and its shape:
 *   "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total)"
 *   "CUDA out of memory. Tried to allocate <size> (GPU <num>; <size> total)"
 */
size_t gl_message_shape(const char *msg, size_t len, char *out, size_t n)
{
	const char *s = msg, *end = msg;
	size_t o = 0;

	if (n == 0)
		return 0;
	while (end < msg + len && *end != '\n' && *end != '\r')
		end++;
#define PUT(str)                                                                   \
	do {                                                                       \
		const char *p_ = (str);                                           \
		while (*p_ && o + 1 < n)                                           \
			out[o++] = *p_++;                                          \
	} while (0)
	while (s < end && o + 1 < n) {
		unsigned char c = (unsigned char)*s;
		bool word_start = s == msg || !is_word((unsigned char)s[-1]);

		if (word_start && c == '0' && s + 2 < end && (s[1] == 'x' || s[1] == 'X') &&
		    isxdigit((unsigned char)s[2])) {
			s += 2;
			while (s < end && isxdigit((unsigned char)*s))
				s++;
			PUT("<hex>");
		} else if (c == '/' && (s == msg || strchr(" \t'\"(=:[", s[-1])) && s + 1 < end &&
			   !isspace((unsigned char)s[1])) {
			while (s < end && !isspace((unsigned char)*s) && !strchr("'\"),;]", *s))
				s++;
			PUT("<path>");
		} else if (word_start && isdigit(c)) {
			const char *t = s;
			size_t u;

			while (t < end && (isdigit((unsigned char)*t) || *t == '.' || *t == ','))
				t++;
			while (t > s && (t[-1] == '.' || t[-1] == ','))
				t--;
			const char *v = t;
			while (v < end && *v == ' ')
				v++;
			if ((u = unit_len(v, end)) > 0) {
				s = v + u;
				PUT("<size>");
			} else if (t < end && is_word((unsigned char)*t)) {
				/* "3rd", "2d", "0abc": part of a word, keep it */
				while (s < end && is_word((unsigned char)*s) && o + 1 < n)
					out[o++] = *s++;
			} else {
				s = t;
				PUT("<num>");
			}
		} else {
			out[o++] = (char)c;
			s++;
		}
	}
#undef PUT
	out[o] = '\0';
	return o;
}

static int count_shape(struct build *b, const struct gl_query_event *ev)
{
	char buf[256];
	size_t len = gl_message_shape(ev->message, ev->message_len, buf, sizeof(buf));
	uint64_t h = gl_hash64(buf, len, 0x5eed) | 1;
	size_t i = (size_t)h & (b->shape_cap - 1);

	while (b->shapes[i].hash && (b->shapes[i].hash != h || strcmp(b->shapes[i].text, buf)))
		i = (i + 1) & (b->shape_cap - 1);
	struct shape *sh = &b->shapes[i];
	if (!sh->hash) {
		if (b->n_shapes >= b->cfg->max_shapes) {
			b->rep->errors.shapes_overflow++;
			return 0;
		}
		size_t sl = ev->message_len < SAMPLE_MAX ? ev->message_len : SAMPLE_MAX;
		/* do not cut a UTF-8 sequence in two */
		while (sl > 0 && sl < ev->message_len &&
		       ((unsigned char)ev->message[sl] & 0xC0) == 0x80)
			sl--;
		sh->text = strdup(buf);
		sh->sample = strndup(ev->message, sl);
		if (!sh->text || !sh->sample)
			return oom(b->err);
		sh->hash = h;
		sh->first_ts_us = ev->ts_us;
		b->n_shapes++;
	}
	sh->count++;
	sh->last_ts_us = ev->ts_us;
	return 0;
}

/* ---- main pass ------------------------------------------------------ */

static void keep_anomaly(struct build *b, const struct kstate *k, int64_t ts, double v,
			 double c, double s, double z)
{
	struct gl_report_anomaly a = {ts, k->name, v, c, s, z};
	size_t top = b->p->top;

	if (b->n_top_anoms < top) {
		b->top_anoms[b->n_top_anoms++] = a;
		return;
	}
	size_t min = 0;
	for (size_t i = 1; i < top; i++)
		if (b->top_anoms[i].z < b->top_anoms[min].z)
			min = i;
	if (z > b->top_anoms[min].z)
		b->top_anoms[min] = a;
}

static double days_since(const struct build *b, int64_t ts)
{
	return (double)(ts - b->p->since_us) / (double)GL_US_PER_DAY;
}

static int on_event(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct gl_report *rep = b->rep;
	size_t cs = slot_of(b, ev->component_id);

	if (!event_ok(b, ev))
		return 0;
	rep->summary.events++;
	rep->summary.by_level[ev->level]++;
	b->comp_events[cs]++;
	if (rep->summary.first_ts_us == GL_TS_NONE)
		rep->summary.first_ts_us = ev->ts_us;
	rep->summary.last_ts_us = ev->ts_us;
	if (ev->anomaly == 1)
		rep->anomalies.flagged_by_logs++;
	if (ev->recovery_attempts > 0) {
		rep->errors.recovery_attempts += (uint64_t)ev->recovery_attempts;
		rep->errors.events_with_recovery++;
	}
	if (!isnan(ev->mem_mb)) {
		struct gl_report_memory *m = &rep->memory;

		if (m->samples == 0)
			b->first_mem_mib = ev->mem_mb;
		m->samples++;
		if (isnan(m->peak_mib) || ev->mem_mb > m->peak_mib) {
			m->peak_mib = ev->mem_mb;
			m->peak_ts_us = ev->ts_us;
		}
		m->last_mib = ev->mem_mb;
		m->last_ts_us = ev->ts_us;
		gl_fit_acc_add(&b->mem_fit, days_since(b, ev->ts_us), ev->mem_mb);
	}
	if (ev->level >= GL_LEVEL_WARN) {
		rep->errors.by_level[ev->level]++;
		if (ev->level >= GL_LEVEL_ERROR) {
			size_t h = (size_t)((ev->ts_us - b->p->since_us) / US_PER_HOUR);

			rep->errors.errors++;
			b->comp_errors[cs]++;
			if (h < b->n_bins)
				b->err_bins[h] += 1;
		} else {
			rep->errors.warnings++;
		}
		b->comp_warn[cs]++;
		if (ev->message && count_shape(b, ev) != 0)
			return GL_ENOMEM;
	}
	bool kernel_sample = !isnan(ev->dur_us) && kernel_ok(b, ev->kernel_id);

	if (b->p->series && gl_series_event(b->p->series, ev, kernel_sample, b->err) != GL_OK)
		return GL_ENOMEM;
	if (kernel_sample) {
		struct kstate *k = kernel_state(b, ev->kernel_id);
		double c, s, z;

		if (!k)
			return oom(b->err);
		if (!k->det) {
			struct gl_anomaly_params ap = {
				.robust = b->cfg->anomaly_method == GL_ANOMALY_MAD,
				.k = b->cfg->anomaly_k,
				.window = b->cfg->anomaly_window,
				.min_samples = b->cfg->anomaly_min_samples,
			};
			if (!(k->det = gl_anomaly_new(&ap)))
				return oom(b->err);
		}
		int v = gl_anomaly_push(k->det, ev->dur_us, &c, &s, &z);
		if (v >= 0)
			rep->anomalies.judged++;
		if (v == 1) {
			k->anomalies++;
			rep->anomalies.total++;
			keep_anomaly(b, k, ev->ts_us, ev->dur_us, c, s, z);
		}
		if (push_dur(k, ev->dur_us) != 0)
			return oom(b->err);
		gl_fit_acc_add(&k->fit, days_since(b, ev->ts_us), ev->dur_us);
		if (ev->anomaly == 1)
			k->flagged++;
		if (!isnan(ev->mem_mb)) {
			k->mem_sum += ev->mem_mb;
			k->mem_n++;
		}
	}
	return 0;
}

/* ---- RMM replay ------------------------------------------------------ */

static struct rmm_slot *rmm_find(struct build *b, uint64_t ptr)
{
	size_t i = (size_t)(gl_hash64(&ptr, sizeof(ptr), 7) & (b->rmm_cap - 1));

	while (b->rmm[i].used && b->rmm[i].ptr != ptr)
		i = (i + 1) & (b->rmm_cap - 1);
	return &b->rmm[i];
}

/* Backward-shift deletion keeps linear probing correct without tombstones. */
static void rmm_remove(struct build *b, struct rmm_slot *slot)
{
	size_t mask = b->rmm_cap - 1, i = (size_t)(slot - b->rmm), j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (!b->rmm[j].used)
			break;
		size_t home = (size_t)(gl_hash64(&b->rmm[j].ptr, sizeof(uint64_t), 7) & mask);
		/* can the entry at j move to i? only if home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			b->rmm[i] = b->rmm[j];
			i = j;
		}
	}
	b->rmm[i].used = false;
	b->rmm_used--;
}

static int rmm_grow(struct build *b)
{
	struct rmm_slot *old = b->rmm;
	size_t old_cap = b->rmm_cap, cap = old_cap ? old_cap * 2 : 1024;

	b->rmm = calloc(cap, sizeof(*b->rmm));
	if (!b->rmm) {
		b->rmm = old;
		return -1;
	}
	b->rmm_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*rmm_find(b, old[i].ptr) = old[i];
	free(old);
	return 0;
}

static int rmm_row(struct build *b, const struct gl_query_mem *m)
{
	struct gl_report_rmm *r = &b->rep->memory.rmm;

	r->events++;
	if (m->action == 2) {
		r->allocation_failures++;
		return 0;
	}
	if (m->action == 1) {
		struct rmm_slot *s = b->rmm_cap ? rmm_find(b, m->ptr) : NULL;

		r->frees++;
		if (!s || !s->used) {
			r->unmatched_frees++;
			return 0;
		}
		b->outstanding -= s->size_bytes;
		rmm_remove(b, s);
		return 0;
	}
	if (m->action != 0)
		return 0;
	r->allocations++;
	if ((b->rmm_used + 1) * 2 > b->rmm_cap && rmm_grow(b) != 0)
		return oom(b->err);
	struct rmm_slot *s = rmm_find(b, m->ptr);
	if (s->used) {
		/* allocated twice without a free in between: the free was lost */
		b->outstanding -= s->size_bytes;
	} else {
		b->rmm_used++;
	}
	*s = (struct rmm_slot){m->ptr, m->size_bytes, m->ts_us, true};
	b->outstanding += m->size_bytes;
	if (b->outstanding > r->peak_outstanding_bytes || r->peak_ts_us == GL_TS_NONE) {
		r->peak_outstanding_bytes = b->outstanding;
		r->peak_ts_us = m->ts_us;
	}
	if (b->n_sizes == b->cap_sizes) {
		size_t cap = b->cap_sizes ? b->cap_sizes * 2 : 256;
		double *d = realloc(b->sizes, cap * sizeof(*d));

		if (!d)
			return oom(b->err);
		b->sizes = d;
		b->cap_sizes = cap;
	}
	b->sizes[b->n_sizes++] = (double)m->size_bytes;
	r->histogram[m->size_bytes ? 64 - __builtin_clzll(m->size_bytes) : 0].count++;
	return 0;
}

static int on_mem(void *arg, const struct gl_query_mem *m)
{
	struct build *b = arg;
	int rc;

	if (!id_ok(b, b->host_ok, m->host_id, b->p->hosts, b->p->nhosts))
		return 0;
	rc = rmm_row(b, m);
	if (rc == GL_OK && b->p->series)
		gl_series_rmm(b->p->series, m->ts_us, b->outstanding);
	return rc;
}

static int cmp_leak(const void *pa, const void *pb)
{
	const struct gl_report_leak *a = pa, *b = pb;

	if (a->size_bytes != b->size_bytes)
		return a->size_bytes < b->size_bytes ? 1 : -1;
	return a->ts_us < b->ts_us ? -1 : a->ts_us > b->ts_us;
}

static int rmm_finish(struct build *b)
{
	struct gl_report_rmm *r = &b->rep->memory.rmm;
	struct gl_report_bucket *all = r->histogram;
	struct gl_stats_desc d;
	size_t nl = 0, nh = 0;

	gl_stats_describe(b->sizes, b->n_sizes, &d);
	r->size_min_bytes = d.min;
	r->size_p50_bytes = d.p50;
	r->size_p90_bytes = d.p90;
	r->size_p99_bytes = d.p99;
	r->size_max_bytes = d.max;
	/* keep the non-empty buckets only */
	for (size_t i = 0; i < GL_REPORT_SIZE_BUCKETS; i++)
		if (all[i].count)
			all[nh++] = (struct gl_report_bucket){i ? 1ULL << (i - 1) : 0, all[i].count};
	r->n_histogram = nh;
	if (b->rmm_used == 0)
		return GL_OK;
	struct gl_report_leak *l = malloc(b->rmm_used * sizeof(*l));
	if (!l)
		return oom(b->err);
	for (size_t i = 0; i < b->rmm_cap; i++) {
		if (!b->rmm[i].used)
			continue;
		l[nl++] = (struct gl_report_leak){b->rmm[i].ts_us, b->rmm[i].ptr,
						   b->rmm[i].size_bytes};
		r->leaked_bytes += b->rmm[i].size_bytes;
	}
	r->leaked_allocations = nl;
	qsort(l, nl, sizeof(*l), cmp_leak);
	r->n_leaks = nl < b->p->top ? nl : b->p->top;
	r->leaks = l;
	return GL_OK;
}

/* ---- finishing the sections ------------------------------------------ */

static enum gl_verdict verdict_of(const struct gl_fit *f, double change,
				  const struct gl_report_config *cfg)
{
	if (isnan(f->p_value) || f->p_value >= cfg->trend_p_value || isnan(f->slope) ||
	    f->slope == 0)
		return GL_VERDICT_STABLE;
	if (!isnan(change) && fabs(change) < cfg->trend_min_change_pct)
		return GL_VERDICT_STABLE;
	return f->slope > 0 ? GL_VERDICT_DEGRADING : GL_VERDICT_IMPROVING;
}

static void set_trend(struct gl_report_trend *t, const struct gl_fit *f, double days,
		      const struct gl_report_config *cfg)
{
	t->n = f->n;
	t->slope_per_day = f->slope;
	t->intercept = f->intercept;
	t->r2 = f->r2;
	t->p_value = f->p_value;
	t->change_pct = NAN;
	if (!isnan(f->slope) && f->intercept > 0)
		t->change_pct = f->slope * days / f->intercept * 100;
	t->verdict = verdict_of(f, t->change_pct, cfg);
}

static int cmp_kernel_total(const void *pa, const void *pb)
{
	const struct gl_report_kernel *a = pa, *b = pb;

	if (a->total_us != b->total_us)
		return a->total_us < b->total_us ? 1 : -1;
	return strcmp(a->kernel, b->kernel);
}

static int cmp_kstate_name(const void *pa, const void *pb)
{
	const struct kstate *a = *(struct kstate *const *)pa, *b = *(struct kstate *const *)pb;

	return strcmp(a->name, b->name);
}

static int cmp_count_name(const void *pa, const void *pb)
{
	return strcmp(((const struct gl_report_count *)pa)->name,
		      ((const struct gl_report_count *)pb)->name);
}

static int cmp_anomaly(const void *pa, const void *pb)
{
	const struct gl_report_anomaly *a = pa, *b = pb;

	if (a->z != b->z)
		return a->z < b->z ? 1 : -1;
	return a->ts_us < b->ts_us ? -1 : a->ts_us > b->ts_us;
}

static int cmp_shape(const void *pa, const void *pb)
{
	const struct shape *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (a->first_ts_us != b->first_ts_us)
		return a->first_ts_us < b->first_ts_us ? -1 : 1;
	return strcmp(a->text, b->text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Counts per component id -> sorted named counts. */
static int component_counts(struct build *b, const uint64_t *counts,
			    struct gl_report_count **out, size_t *n_out)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_ids; i++)
		n += counts[i] > 0;
	*n_out = 0;
	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		return oom(b->err);
	for (size_t i = 0; i < b->n_ids; i++) {
		if (!counts[i])
			continue;
		const char *name = i ? gl_query_name(b->q, (int64_t)i) : "";
		(*out)[*n_out].name = strdup(name ? name : "");
		(*out)[*n_out].count = counts[i];
		if (!(*out)[(*n_out)++].name)
			return oom(b->err);
	}
	if (*n_out > 1)
		qsort(*out, *n_out, sizeof(**out), cmp_count_name);
	return GL_OK;
}

/*
 * The charts' histograms of the top kernels, from the durations the
 * percentiles kept. ks: every kernel, sorted by name, durations still held.
 */
static int top_kernel_series(struct build *b, struct kstate **ks)
{
	struct gl_series *s = b->p->series;
	int rc = GL_OK;

	for (size_t r = 0; s && r < b->rep->n_kernels && r < s->top_max && rc == GL_OK; r++) {
		const struct gl_report_kernel *rk = &b->rep->kernels[r];
		struct kstate key = {.name = rk->kernel}, *kp = &key, **hit;

		hit = bsearch(&kp, ks, b->nk, sizeof(*ks), cmp_kstate_name);
		if (hit)
			rc = gl_series_top_kernel(s, r, (*hit)->id, rk, (*hit)->dur, (*hit)->n,
						  b->err);
	}
	return rc;
}

static int finish_kernels(struct build *b)
{
	struct gl_report *rep = b->rep;
	struct kstate **ks = malloc((b->nk ? b->nk : 1) * sizeof(*ks));
	size_t n_now = 0, n_both = 0, n_new = 0, n_gone = 0;
	double days = rep->window.days;

	if (!ks)
		return oom(b->err);
	for (size_t i = 0; i < b->nk; i++) {
		ks[i] = b->kern[b->kids[i]];
		if (ks[i]->n) {
			ks[i]->in_now = true;
			n_now++;
		}
		n_both += ks[i]->in_now && ks[i]->in_before;
		n_new += ks[i]->in_now && !ks[i]->in_before;
		n_gone += !ks[i]->in_now && ks[i]->in_before;
	}
	qsort(ks, b->nk, sizeof(*ks), cmp_kstate_name);
	rep->kernels = calloc(n_now ? n_now : 1, sizeof(*rep->kernels));
	rep->trends = calloc(n_now + 2, sizeof(*rep->trends));
	rep->baseline.kernels = calloc(n_both ? n_both : 1, sizeof(*rep->baseline.kernels));
	rep->baseline.new_kernels = calloc(n_new ? n_new : 1, sizeof(char *));
	rep->baseline.vanished_kernels = calloc(n_gone ? n_gone : 1, sizeof(char *));
	if (!rep->kernels || !rep->trends || !rep->baseline.kernels ||
	    !rep->baseline.new_kernels || !rep->baseline.vanished_kernels) {
		free(ks);
		return oom(b->err);
	}
	for (size_t i = 0; i < b->nk; i++) {
		struct kstate *k = ks[i];

		if (!k->in_now) {
			if (k->in_before &&
			    !(rep->baseline.vanished_kernels[rep->baseline.n_vanished_kernels++] =
				      strdup(k->name)))
				goto nomem;
			continue;
		}
		struct gl_report_kernel *rk = &rep->kernels[rep->n_kernels++];
		struct gl_report_trend *t = &rep->trends[rep->n_trends++];
		struct gl_fit f;

		/* the fit first: describe() sorts the durations */
		gl_fit_acc_finish(&k->fit, &f);
		t->series = GL_TREND_KERNEL;
		t->unit = "us";
		set_trend(t, &f, days, b->cfg);
		gl_stats_describe(k->dur, k->n, &k->now);
		rk->kernel = strdup(k->name);
		t->kernel = strdup(k->name);
		if (!rk->kernel || !t->kernel)
			goto nomem;
		rk->count = k->n;
		rk->min_us = k->now.min;
		rk->max_us = k->now.max;
		rk->mean_us = k->now.mean;
		rk->stddev_us = k->now.sd;
		rk->p50_us = k->now.p50;
		rk->p90_us = k->now.p90;
		rk->p95_us = k->now.p95;
		rk->p99_us = k->now.p99;
		rk->total_us = k->now.sum;
		rk->anomalies = k->anomalies;
		rk->flagged = k->flagged;
		rk->mean_mem_mib = k->mem_n ? k->mem_sum / (double)k->mem_n : NAN;
		if (!k->in_before) {
			if (!(rep->baseline.new_kernels[rep->baseline.n_new_kernels++] =
				      strdup(k->name)))
				goto nomem;
			continue;
		}
		struct gl_report_baseline_kernel *bk =
			&rep->baseline.kernels[rep->baseline.n_kernels++];
		const struct gl_stats_desc *o = &k->before, *c = &k->now;

		if (!(bk->kernel = strdup(k->name)))
			goto nomem;
		bk->count_before = o->n;
		bk->count = c->n;
		bk->mean_before_us = o->mean;
		bk->mean_us = c->mean;
		bk->p95_before_us = o->p95;
		bk->p95_us = c->p95;
		bk->mean_change_pct = o->mean > 0 ? (c->mean - o->mean) / o->mean * 100 : NAN;
		bk->p95_change_pct = o->p95 > 0 ? (c->p95 - o->p95) / o->p95 * 100 : NAN;
		bk->p_value = gl_stats_welch_p(o->mean, o->var, o->n, c->mean, c->var, c->n);
		bk->verdict = GL_BASELINE_UNCHANGED;
		if (!isnan(bk->p_value) && bk->p_value < b->cfg->baseline_p_value &&
		    (isnan(bk->mean_change_pct) ||
		     fabs(bk->mean_change_pct) >= b->cfg->baseline_min_change_pct))
			bk->verdict = c->mean > o->mean ? GL_BASELINE_REGRESSION
							: GL_BASELINE_IMPROVEMENT;
	}
	qsort(rep->kernels, rep->n_kernels, sizeof(*rep->kernels), cmp_kernel_total);
	int rc = top_kernel_series(b, ks);

	for (size_t i = 0; i < b->nk; i++) {
		free(ks[i]->dur);
		ks[i]->dur = NULL;
	}
	free(ks);
	return rc;
nomem:
	free(ks);
	return oom(b->err);
}

static void finish_memory_and_errors(struct build *b)
{
	struct gl_report *rep = b->rep;
	struct gl_report_trend *mt = &rep->trends[rep->n_trends++];
	struct gl_report_trend *et = &rep->trends[rep->n_trends++];
	double hours = (double)(b->p->until_us - b->p->since_us) / (double)US_PER_HOUR;
	struct gl_fit f;

	gl_fit_acc_finish(&b->mem_fit, &f);
	mt->series = GL_TREND_MEMORY;
	mt->unit = "MiB";
	set_trend(mt, &f, rep->window.days, b->cfg);
	/* a significant rise is a leak when memory was not given back by the end */
	if (mt->verdict == GL_VERDICT_DEGRADING && rep->memory.last_mib >= mt->intercept &&
	    (isnan(mt->change_pct) ||
	     (rep->memory.last_mib - mt->intercept) / mt->intercept * 100 >=
		     b->cfg->trend_min_change_pct))
		mt->verdict = GL_VERDICT_LEAK;
	rep->memory.verdict = mt->verdict;

	double *x = malloc((b->n_bins ? b->n_bins : 1) * sizeof(*x));
	if (x) {
		for (size_t i = 0; i < b->n_bins; i++)
			x[i] = ((double)i + 0.5) / 24.0;
		gl_stats_fit_linear(x, b->err_bins, b->n_bins, &f);
		free(x);
	} else {
		gl_fit_acc_finish(&(struct gl_fit_acc){0}, &f);
	}
	et->series = GL_TREND_ERRORS;
	et->unit = "errors/h";
	set_trend(et, &f, rep->window.days, b->cfg);
	rep->errors.per_hour = hours > 0 ? (double)rep->errors.errors / hours : NAN;
	rep->errors.per_1000_events =
		rep->summary.events ? (double)rep->errors.errors * 1000.0 / (double)rep->summary.events
				    : NAN;
}

static int finish_shapes(struct build *b)
{
	struct gl_report_errors *e = &b->rep->errors;
	size_t n = 0;

	for (size_t i = 0; i < b->shape_cap; i++)
		if (b->shapes[i].hash)
			b->shapes[n++] = b->shapes[i];
	for (size_t i = n; i < b->shape_cap; i++)
		b->shapes[i] = (struct shape){0};
	qsort(b->shapes, n, sizeof(*b->shapes), cmp_shape);
	e->shapes = n;
	size_t top = n < b->p->top ? n : b->p->top;
	e->top_messages = calloc(top ? top : 1, sizeof(*e->top_messages));
	if (!e->top_messages)
		return oom(b->err);
	for (size_t i = 0; i < top; i++) {
		struct gl_report_shape *s = &e->top_messages[i];

		s->shape = b->shapes[i].text;
		s->sample = b->shapes[i].sample;
		b->shapes[i].text = b->shapes[i].sample = NULL;
		s->count = b->shapes[i].count;
		s->first_ts_us = b->shapes[i].first_ts_us;
		s->last_ts_us = b->shapes[i].last_ts_us;
	}
	e->n_top_messages = top;
	return GL_OK;
}

/* ---- alerts ---------------------------------------------------------- */

/*
 * An alert's value for a reader: "14.6%", "1234.5 us", "128.0 MiB", "750",
 * not "62.7477%" or "1.34218e+08". unit: "%", " us", "bytes" or "" (a
 * count or a rate).
 */
static void alert_value(double v, const char *unit, char *buf, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

	if (!strcmp(unit, "bytes")) {
		size_t u = 0;

		while (fabs(v) >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
			v /= 1024;
			u++;
		}
		snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	} else if (!strcmp(unit, "%")) {
		snprintf(buf, n, "%.1f%%", v);
	} else if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, n, "%.0f%s", v, unit);
	} else {
		snprintf(buf, n, "%.1f%s", v, unit);
	}
}

static int add_alert(struct build *b, const struct gl_alert_rule *rule, const char *subject,
		     double value, const char *what, const char *unit)
{
	struct gl_report *rep = b->rep;
	int sev = -1;
	char msg[512];

	if (isnan(value) || fnmatch(rule->match, subject, 0) != 0)
		return GL_OK;
	for (int s = GL_SEVERITY_CRITICAL; s >= GL_SEVERITY_INFO && sev < 0; s--)
		if (rule->has[s] && value >= rule->threshold[s])
			sev = s;
	if (sev < 0)
		return GL_OK;
	struct gl_report_alert *al = realloc(rep->alerts, (rep->n_alerts + 1) * sizeof(*al));
	if (!al)
		return oom(b->err);
	rep->alerts = al;
	al = &rep->alerts[rep->n_alerts];
	char vt[64], tt[64];

	alert_value(value, unit, vt, sizeof(vt));
	alert_value(rule->threshold[sev], unit, tt, sizeof(tt));
	snprintf(msg, sizeof(msg), "%s: %s %s (%s at %s)", subject, what, vt,
		 gl_severity_name((enum gl_severity)sev), tt);
	*al = (struct gl_report_alert){
		.severity = (enum gl_severity)sev,
		.rule = strdup(gl_rule_kind_name(rule->kind)),
		.subject = strdup(subject),
		.value = value,
		.threshold = rule->threshold[sev],
		.message = strdup(msg),
	};
	rep->n_alerts++;
	if (!al->rule || !al->subject || !al->message)
		return oom(b->err);
	return GL_OK;
}

static int cmp_alert(const void *pa, const void *pb)
{
	const struct gl_report_alert *a = pa, *b = pb;
	int c;

	if (a->severity != b->severity)
		return a->severity < b->severity ? 1 : -1;
	if ((c = strcmp(a->rule, b->rule)) != 0)
		return c;
	return strcmp(a->subject, b->subject);
}

static int eval_rule(struct build *b, const struct gl_alert_rule *r)
{
	struct gl_report *rep = b->rep;
	int rc = GL_OK;

	switch (r->kind) {
	case GL_RULE_KERNEL_P95_US:
		for (size_t i = 0; i < rep->n_kernels && rc == GL_OK; i++)
			rc = add_alert(b, r, rep->kernels[i].kernel, rep->kernels[i].p95_us,
				       "p95 duration", " us");
		break;
	case GL_RULE_KERNEL_MEAN_CHANGE_PCT:
		for (size_t i = 0; i < rep->baseline.n_kernels && rc == GL_OK; i++)
			if (rep->baseline.kernels[i].verdict == GL_BASELINE_REGRESSION)
				rc = add_alert(b, r, rep->baseline.kernels[i].kernel,
					       rep->baseline.kernels[i].mean_change_pct,
					       "mean duration against the preceding window", "%");
		break;
	case GL_RULE_KERNEL_TREND_CHANGE_PCT:
		for (size_t i = 0; i < rep->n_trends && rc == GL_OK; i++)
			if (rep->trends[i].series == GL_TREND_KERNEL &&
			    rep->trends[i].verdict == GL_VERDICT_DEGRADING)
				rc = add_alert(b, r, rep->trends[i].kernel, rep->trends[i].change_pct,
					       "duration trend over the window", "%");
		break;
	case GL_RULE_KERNEL_ANOMALY_PCT:
		for (size_t i = 0; i < rep->n_kernels && rc == GL_OK; i++)
			rc = add_alert(b, r, rep->kernels[i].kernel,
				       (double)rep->kernels[i].anomalies * 100.0 /
					       (double)rep->kernels[i].count,
				       "anomalous samples", "%");
		break;
	case GL_RULE_ERROR_RATE_PER_1000:
		for (size_t i = 0; i < b->n_ids && rc == GL_OK; i++) {
			const char *name = i ? gl_query_name(b->q, (int64_t)i) : "";

			/* a handful of events gives a rate that means nothing */
			if (b->comp_events[i] && b->comp_events[i] >= b->cfg->min_events_for_rate)
				rc = add_alert(b, r, name ? name : "",
					       (double)b->comp_errors[i] * 1000.0 /
						       (double)b->comp_events[i],
					       "errors per 1,000 events", "");
		}
		break;
	case GL_RULE_ERRORS_PER_HOUR:
		rc = add_alert(b, r, "errors", rep->errors.per_hour, "errors per hour", "");
		break;
	case GL_RULE_MEMORY_TREND_CHANGE_PCT:
		if (rep->memory.verdict == GL_VERDICT_LEAK ||
		    rep->memory.verdict == GL_VERDICT_DEGRADING)
			rc = add_alert(b, r, "memory", rep->trends[rep->n_trends - 2].change_pct,
				       "memory in use rose over the window by", "%");
		break;
	case GL_RULE_RMM_LEAKED_BYTES:
		if (rep->memory.rmm.events)
			rc = add_alert(b, r, "rmm", (double)rep->memory.rmm.leaked_bytes,
				       "still allocated at the window's end:", "bytes");
		break;
	case GL_RULE_RMM_ALLOCATION_FAILURES:
		if (rep->memory.rmm.events)
			rc = add_alert(b, r, "rmm", (double)rep->memory.rmm.allocation_failures,
				       "allocation failures", "");
		break;
	case GL_RULE_COUNT:
		break;
	}
	return rc;
}

/* ---- driver ---------------------------------------------------------- */

static void build_release(struct build *b)
{
	free(b->comp_ok);
	free(b->host_ok);
	free(b->kern_ok);
	free(b->comp_events);
	free(b->comp_errors);
	free(b->comp_warn);
	for (size_t i = 0; i < b->nk; i++) {
		struct kstate *k = b->kern[b->kids[i]];

		free(k->dur);
		gl_anomaly_free(k->det);
		free(k);
	}
	free(b->kern);
	free(b->kids);
	free(b->err_bins);
	for (size_t i = 0; b->shapes && i < b->shape_cap; i++) {
		free(b->shapes[i].text);
		free(b->shapes[i].sample);
	}
	free(b->shapes);
	free(b->top_anoms);
	free(b->rmm);
	free(b->sizes);
}

int gl_report_build(struct gl_query *q, const struct gl_report_params *p,
		    const struct gl_report_config *cfg, struct gl_report *rep,
		    struct gl_err *err)
{
	struct build b = {.q = q, .p = p, .cfg = cfg, .rep = rep, .err = err};
	int64_t len = p->until_us - p->since_us;
	int rc = GL_OK;

	memset(rep, 0, sizeof(*rep));
	rep->generator = "gpulog-report";
	rep->version = GL_VERSION;
	rep->window = (struct gl_report_window){p->since_us, p->until_us,
						(double)len / (double)GL_US_PER_DAY};
	rep->top = p->top;
	rep->summary.first_ts_us = rep->summary.last_ts_us = GL_TS_NONE;
	rep->memory.peak_mib = rep->memory.last_mib = NAN;
	rep->memory.peak_ts_us = rep->memory.last_ts_us = GL_TS_NONE;
	rep->memory.rmm.peak_ts_us = GL_TS_NONE;
	rep->anomalies.method = cfg->anomaly_method;
	rep->anomalies.k = cfg->anomaly_k;
	rep->anomalies.window = cfg->anomaly_window;
	rep->anomalies.min_samples = cfg->anomaly_min_samples;
	if (len <= 0 || p->top == 0) {
		rc = gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				len <= 0 ? "empty time window" : "--top must be at least 1");
		goto out;
	}
	b.n_ids = gl_query_name_slots(q);
	if (b.n_ids == 0)
		b.n_ids = 1;
	if (p->series && (rc = gl_series_begin(p->series, p->since_us, p->until_us, b.n_ids,
					       err)) != GL_OK)
		goto out;
	b.n_bins = (size_t)((len + US_PER_HOUR - 1) / US_PER_HOUR);
	b.shape_cap = 16;
	while (b.shape_cap < (size_t)cfg->max_shapes * 2)
		b.shape_cap *= 2;
	b.comp_ok = calloc(b.n_ids, 1);
	b.host_ok = calloc(b.n_ids, 1);
	b.kern_ok = calloc(b.n_ids, 1);
	b.comp_events = calloc(b.n_ids, sizeof(uint64_t));
	b.comp_errors = calloc(b.n_ids, sizeof(uint64_t));
	b.comp_warn = calloc(b.n_ids, sizeof(uint64_t));
	b.kern = calloc(b.n_ids, sizeof(*b.kern));
	b.kids = calloc(b.n_ids, sizeof(*b.kids));
	b.err_bins = calloc(b.n_bins ? b.n_bins : 1, sizeof(double));
	b.shapes = calloc(b.shape_cap, sizeof(*b.shapes));
	b.top_anoms = calloc(p->top, sizeof(*b.top_anoms));
	rep->memory.rmm.histogram = calloc(GL_REPORT_SIZE_BUCKETS, sizeof(struct gl_report_bucket));
	if (!b.comp_ok || !b.host_ok || !b.kern_ok || !b.comp_events || !b.comp_errors ||
	    !b.comp_warn || !b.kern || !b.kids || !b.err_bins || !b.shapes || !b.top_anoms ||
	    !rep->memory.rmm.histogram) {
		rc = oom(err);
		goto out;
	}
	gl_fit_acc_init(&b.mem_fit);
	if ((rc = baseline_pass(&b)) != GL_OK)
		goto out;
	if ((rc = gl_query_events(q, p->since_us, p->until_us, 0, on_event, &b, err)) != GL_OK)
		goto out;
	if ((rc = gl_query_mem_events(q, p->since_us, p->until_us, on_mem, &b, err)) != GL_OK)
		goto out;
	if ((rc = gl_query_table_counts(q, p->since_us, p->until_us, &rep->summary.rejected_lines,
					&rep->summary.files, err)) != GL_OK)
		goto out;
	if ((rc = finish_kernels(&b)) != GL_OK || (rc = rmm_finish(&b)) != GL_OK)
		goto out;
	finish_memory_and_errors(&b);
	if ((rc = finish_shapes(&b)) != GL_OK)
		goto out;
	rc = component_counts(&b, b.comp_events, &rep->summary.by_component,
			      &rep->summary.n_by_component);
	if (rc == GL_OK)
		rc = component_counts(&b, b.comp_warn, &rep->errors.by_component,
				      &rep->errors.n_by_component);
	if (rc != GL_OK)
		goto out;
	qsort(b.top_anoms, b.n_top_anoms, sizeof(*b.top_anoms), cmp_anomaly);
	rep->anomalies.items = b.top_anoms;
	rep->anomalies.n_items = b.n_top_anoms;
	b.top_anoms = NULL;
	/* items point at the kernel names of rep->kernels, which outlive them */
	for (size_t i = 0; i < rep->anomalies.n_items; i++)
		for (size_t j = 0; j < rep->n_kernels; j++)
			if (!strcmp(rep->kernels[j].kernel, rep->anomalies.items[i].kernel)) {
				rep->anomalies.items[i].kernel = rep->kernels[j].kernel;
				break;
			}
	qsort(rep->baseline.new_kernels, rep->baseline.n_new_kernels, sizeof(char *), cmp_str);
	qsort(rep->baseline.vanished_kernels, rep->baseline.n_vanished_kernels, sizeof(char *),
	      cmp_str);
	for (size_t i = 0; i < cfg->n_rules && rc == GL_OK; i++)
		rc = eval_rule(&b, &cfg->rules[i]);
	if (rc == GL_OK && rep->n_alerts)
		qsort(rep->alerts, rep->n_alerts, sizeof(*rep->alerts), cmp_alert);
	if (rc == GL_OK && p->series)
		rc = gl_series_finish(p->series, q, rep, err);
out:
	build_release(&b);
	if (rc != GL_OK)
		gl_report_release(rep);
	return rc;
}
