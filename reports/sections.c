/*
 * sections.c - the driver of the report: the table of sections and the
 * passes that feed them. In: the rows of the window (lib/store/query.h).
 * Out: struct gl_report, filled by the sections (reports/sec_*.c).
 *
 * Filters (--component, --host) and mirrored records are dealt with here,
 * once, before any section sees an event; so is the charts' time axis
 * (rep->axis), which the sections that collect chart data share.
 */
#include "sections.h"

#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_cache.h"
#include "sec_alerts.h"
#include "sec_anomalies.h"
#include "sec_baseline.h"
#include "sec_devices.h"
#include "sec_errors.h"
#include "sec_findings.h"
#include "sec_gpu_health.h"
#include "sec_inference.h"
#include "sec_kernels.h"
#include "sec_memory.h"
#include "sec_metrics.h"
#include "sec_operations.h"
#include "sec_scopes.h"
#include "sec_summary.h"
#include "sec_training.h"
#include "sec_trends.h"
#include "launch_once.h"
#include "section.h"
#include "stats/stats.h"
#include "util/timeutil.h"

static const struct gl_section *const default_items[] = {
	&gl_sec_findings, &gl_sec_summary, &gl_sec_kernels, &gl_sec_operations, &gl_sec_trends, &gl_sec_anomalies,
	&gl_sec_memory,	 &gl_sec_errors,  &gl_sec_metrics,    &gl_sec_inference, &gl_sec_scopes, &gl_sec_training, &gl_sec_gpu_health, &gl_sec_devices, &gl_sec_alerts,
	&gl_sec_baseline,
};

const struct gl_section_list gl_sections = {
	default_items, sizeof(default_items) / sizeof(default_items[0]),
};

#define SAMPLE_BLOCK 256	/* samples a collect_samples call gets at most */

struct build {
	struct gl_section_ctx cx;
	const struct gl_section_list *list;
	/* the kernel pass's context: its own gl_section_ctx (and error), as it may
	 * run on a thread of its own beside the samples pass */
	struct kernel_pass {
		struct build *b;
		struct gl_section_ctx cx;
		struct gl_err err;
		int64_t last_kernel_id;	/* the kernel of the previous row */
		int rc;
	} kp;
	struct gl_kcache *kcache;	/* the kernel pass's rows, from the event pass; NULL: none */
	/* one launch, one timing: copies found in the event pass, and in the kernel
	 * pass read again from the database (launch_once.h) */
	struct gl_launch_once once, once_db;
	/* the sections with a collect (collect_kernel, collect_samples) hook,
	 * in table order: a pass over millions of rows does not look at the
	 * others, and calls each hook with its state without looking them up */
	struct collect_hook {
		int (*fn)(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev);
		void *st;
	} *collect;
	struct kernel_hook {
		int (*fn)(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			  bool first);
		void *st;
	} *kernel;
	size_t n_collect, n_kernel, *with_sample, n_sample;
	/* the samples gathered for the next collect_samples call */
	struct gl_query_sample blk[SAMPLE_BLOCK];
	size_t n_blk;
};

const struct gl_section_list *gl_report_sections(const struct gl_report *rep)
{
	return rep->sections ? rep->sections : &gl_sections;
}

const void *gl_report_section_state(const struct gl_report *rep, size_t i)
{
	return rep->sec_state ? rep->sec_state[i] : NULL;
}

const void *gl_report_state_of(const struct gl_report *rep, const struct gl_section *sec)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	for (size_t i = 0; rep->sec_state && i < l->n; i++)
		if (l->items[i] == sec)
			return rep->sec_state[i];
	return NULL;
}

uint64_t gl_report_kernel_anomalies(const struct gl_report *rep, int64_t kernel_id)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	for (size_t i = 0; rep->sec_state && i < l->n; i++)
		if (l->items[i]->kernel_anomalies && rep->sec_state[i])
			return l->items[i]->kernel_anomalies(rep->sec_state[i], kernel_id);
	return 0;
}

const struct gl_devices_result *gl_report_inventory(const struct gl_report *rep)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	for (size_t i = 0; rep->sec_state && i < l->n; i++)
		if (l->items[i]->inventory && rep->sec_state[i])
			return l->items[i]->inventory(rep->sec_state[i]);
	return NULL;
}

/* The states of a report gl_report_build made: each section releases its own. */
static void free_built_states(struct gl_report *rep)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	for (size_t i = 0; rep->sec_state && i < l->n; i++) {
		if (rep->sec_state[i] && l->items[i]->release)
			l->items[i]->release(rep->sec_state[i]);
		free(rep->sec_state[i]);
	}
	free(rep->sec_state);
	rep->sec_state = NULL;
}

/* The states of a hand-made model: what they point to belongs to whoever made it. */
static void free_model_states(struct gl_report *rep)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	for (size_t i = 0; rep->sec_state && i < l->n; i++)
		free(rep->sec_state[i]);
	free(rep->sec_state);
	rep->sec_state = NULL;
}

int gl_report_model_init(struct gl_report *rep, struct gl_err *err)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	rep->free_states = free_model_states;
	if (!(rep->sec_state = calloc(l->n ? l->n : 1, sizeof(void *))))
		return gl_section_oom(err);
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i]->state_size &&
		    !(rep->sec_state[i] = calloc(1, l->items[i]->state_size)))
			return gl_section_oom(err);
	return GL_OK;
}

int gl_section_oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

const char *gl_section_name(const struct gl_section_ctx *cx, int64_t id)
{
	const char *s = id > 0 ? gl_query_name(cx->q, id) : NULL;

	return s ? s : "";
}

static int cmp_count_name(const void *pa, const void *pb)
{
	return strcmp(((const struct gl_report_count *)pa)->name,
		      ((const struct gl_report_count *)pb)->name);
}

int gl_section_component_counts(struct gl_section_ctx *cx, const uint64_t *counts,
				struct gl_report_count **out, size_t *n_out)
{
	size_t n = 0;

	for (size_t i = 0; i < cx->n_ids; i++)
		n += counts[i] > 0;
	*n_out = 0;
	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < cx->n_ids; i++) {
		if (!counts[i])
			continue;
		(*out)[*n_out].name = strdup(gl_section_name(cx, (int64_t)i));
		(*out)[*n_out].count = counts[i];
		if (!(*out)[(*n_out)++].name)
			return gl_section_oom(cx->err);
	}
	if (*n_out > 1)
		qsort(*out, *n_out, sizeof(**out), cmp_count_name);
	return GL_OK;
}

/* p starts with the literal lit? */
#define STARTS(p, lit) (strncmp((p), (lit), sizeof(lit) - 1) == 0)

unsigned gl_section_phrases(struct gl_section_ctx *cx, const struct gl_query_event *ev)
{
	unsigned f = 0;

	if (cx->phrases_known)
		return cx->phrases;
	/* every place a phrase could begin (its first byte) is visited */
	for (const char *p = ev->message; p && (p = strpbrk(p, "oOXTW")) != NULL; p++)
		switch (*p) {
		case 'o':
			f |= STARTS(p, "out of memory") ? GL_PHRASE_OOM_TEXT : 0;
			break;
		case 'O':
			if (STARTS(p, "OutOfMemory"))
				f |= STARTS(p, "OutOfMemoryError") ? GL_PHRASE_OOM_CAMEL | GL_PHRASE_OOM_ERROR
								   : GL_PHRASE_OOM_CAMEL;
			break;
		case 'X':
			f |= STARTS(p, "Xid") ? GL_PHRASE_XID : 0;
			break;
		case 'T':
			f |= STARTS(p, "Traceback (most recent call last)") ? GL_PHRASE_TRACEBACK : 0;
			break;
		case 'W':
			f |= STARTS(p, "Watchdog caught collective operation timeout")
				     ? GL_PHRASE_WATCHDOG
				     : 0;
			break;
		}
	cx->phrases = f;
	cx->phrases_known = true;
	return f;
}
#undef STARTS

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

void gl_section_trend(const struct gl_section_ctx *cx, const struct gl_fit_acc *acc,
		      int64_t first_ts_us, int64_t last_ts_us, struct gl_report_trend *t)
{
	struct gl_fit f;

	gl_fit_acc_finish(acc, &f);
	t->n = f.n;
	t->slope_per_day = f.slope;
	t->intercept = f.intercept;
	t->r2 = f.r2;
	t->p_value = f.p_value;
	t->first_ts_us = first_ts_us;
	t->last_ts_us = last_ts_us;
	t->span_s = first_ts_us == GL_TS_NONE ? NAN
					      : (double)(last_ts_us - first_ts_us) / GL_US_PER_S;
	t->change_pct = NAN;
	if (!isnan(f.slope) && first_ts_us != GL_TS_NONE) {
		double y0 = f.intercept + f.slope * gl_section_days(cx, first_ts_us);
		double y1 = f.intercept + f.slope * gl_section_days(cx, last_ts_us);

		if (y0 > 0)
			t->change_pct = (y1 - y0) / y0 * 100;
		t->fit_first = y0;
		t->fit_last = y1;
		t->change_from = "fit";
	} else {
		t->fit_first = t->fit_last = NAN;
	}
	t->verdict = verdict_of(&f, t->change_pct, cx->cfg);
}

void gl_section_trend_by_order(const struct gl_section_ctx *cx, const struct gl_fit_acc *acc,
			       int64_t ts_us, struct gl_report_trend *t)
{
	struct gl_fit f;

	gl_fit_acc_finish(acc, &f);
	t->n = f.n;
	t->slope_per_day = NAN;
	t->intercept = f.intercept;
	t->r2 = f.r2;
	t->p_value = f.p_value;
	t->first_ts_us = t->last_ts_us = ts_us;
	t->span_s = 0;
	t->fit_first = f.intercept;
	t->fit_last = f.intercept + f.slope * (double)(f.n ? f.n - 1 : 0);
	t->change_pct = t->fit_first > 0 ? (t->fit_last - t->fit_first) / t->fit_first * 100 : NAN;
	t->change_from = "fit";
	t->slope = f.slope;
	t->slope_unit = "record";
	t->verdict = verdict_of(&f, t->change_pct, cx->cfg);
}

int gl_section_series_load(struct gl_section_ctx *cx, struct gl_section_series *ss)
{
	int64_t max_id = 0;
	int rc = gl_query_series_load(cx->q, &ss->qs, &ss->n_qs, cx->err);

	if (rc != GL_OK)
		return rc;
	for (size_t i = 0; i < ss->n_qs; i++)
		if (ss->qs[i].id > max_id)
			max_id = ss->qs[i].id;
	if (max_id >= (int64_t)UINT32_MAX)
		return gl_err_set(cx->err, GL_EFORMAT, NULL, 0, "series.id out of range",
				  "cannot read series");
	ss->n_by_id = (size_t)max_id + 1;
	ss->by_id = calloc(ss->n_by_id, sizeof(*ss->by_id));
	ss->metric = calloc(ss->n_qs ? ss->n_qs : 1, sizeof(*ss->metric));
	if (!ss->by_id || !ss->metric)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < ss->n_qs; i++) {
		ss->metric[i] = gl_section_name(cx, ss->qs[i].metric_id);
		if (ss->qs[i].id < 0 || !*ss->metric[i] || !gl_section_metric_ok(cx, ss->metric[i]) ||
		    !gl_section_host_ok(cx, ss->qs[i].host_id))
			continue;
		ss->by_id[ss->qs[i].id] = (uint32_t)i + 1;
	}
	return GL_OK;
}

void gl_section_series_release(struct gl_section_series *ss)
{
	free(ss->by_id);
	free(ss->metric);
	gl_query_series_free(ss->qs, ss->n_qs);
	memset(ss, 0, sizeof(*ss));
}

struct gl_report_trend *gl_trend_list_add(struct gl_trend_list *l, size_t n)
{
	struct gl_report_trend *t = realloc(l->items, (l->n + n + 1) * sizeof(*t));

	if (!t)
		return NULL;
	l->items = t;
	memset(&t[l->n], 0, n * sizeof(*t));
	l->n += n;
	return &t[l->n - n];
}

void gl_trend_list_release(struct gl_trend_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].kernel);
		free(l->items[i].display);
		free(l->items[i].device);
		free(l->items[i].host);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}


void gl_report_axis_init(struct gl_report_axis *a, int64_t since_us, int64_t until_us,
			 int64_t data_first_us, int64_t data_last_us)
{
	a->charts = true;
	a->t0_us = since_us;
	a->t1_us = until_us > since_us ? until_us : since_us + GL_US_PER_S;
	/* the data's span and a margin of 2% (at least 1 s), within the window */
	if (data_first_us != GL_TS_NONE && data_last_us >= data_first_us) {
		int64_t m = (data_last_us - data_first_us) / 50;
		int64_t until = a->t1_us;

		if (m < GL_US_PER_S)
			m = GL_US_PER_S;
		a->t0_us = data_first_us - m > since_us ? data_first_us - m : since_us;
		a->t1_us = data_last_us + m < until ? data_last_us + m : until;
	}
}

static bool glob_any(const char *const *globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

/* Does name id pass the filter globs? Cached per id; id 0 (NULL) is "". */
static bool id_ok(const struct gl_section_ctx *cx, signed char *cache, int64_t id,
		  const char *const *globs, size_t n)
{
	if (n == 0)
		return true;
	if (id < 0 || (uint64_t)id >= cx->n_ids)
		return glob_any(globs, n, "");
	if (cache[id] == 0)
		cache[id] = glob_any(globs, n, gl_section_name(cx, id)) ? 1 : -1;
	return cache[id] > 0;
}

bool gl_section_kernel_ok(struct gl_section_ctx *cx, int64_t kernel_id)
{
	return kernel_id > 0 &&
	       id_ok(cx, cx->kern_ok, kernel_id, cx->p->kernels, cx->p->nkernels);
}

bool gl_section_event_ok(struct gl_section_ctx *cx, const struct gl_query_event *ev)
{
	return id_ok(cx, cx->comp_ok, ev->component_id, cx->p->components, cx->p->ncomponents) &&
	       id_ok(cx, cx->host_ok, ev->host_id, cx->p->hosts, cx->p->nhosts);
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

static int on_event(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;
	struct gl_report *rep = cx->rep;
	int rc = GL_OK;

	if (!gl_section_event_ok(cx, ev))
		return 0;
	if (ev->dup_of) {
		for (size_t i = 0; i < b->list->n && rc == GL_OK; i++)
			if (b->list->items[i]->collect_mirrored)
				rc = b->list->items[i]->collect_mirrored(cx, rep->sec_state[i], ev);
		return rc;
	}
	cx->phrases_known = false;
	if (rep->window.data_first_ts_us == GL_TS_NONE)
		rep->window.data_first_ts_us = ev->ts_us;
	rep->window.data_last_ts_us = ev->ts_us;
	cx->log_alert = ev->level >= GL_LEVEL_WARN && cx->n_alert_streams &&
			bsearch(&ev->stream_id, cx->alert_streams, cx->n_alert_streams,
				sizeof(int64_t), cmp_i64);
	cx->kernel_sample = !isnan(ev->dur_us) && gl_section_kernel_ok(cx, ev->kernel_id);
	cx->launch_copy = cx->kernel_sample &&
			  gl_launch_once_copy(&b->once, ev->kernel_id, ev->ts_us, ev->dur_us,
					      ev->level >= GL_LEVEL_WARN);
	if (cx->launch_copy)
		cx->kernel_sample = false;
	if (cx->kernel_sample && (uint64_t)ev->kernel_id < cx->n_ids)
		cx->kernel_n[ev->kernel_id]++;
	if (cx->kernel_sample && b->kcache && (uint64_t)ev->kernel_id < cx->n_ids)
		gl_kcache_add(b->kcache, ev->kernel_id, ev->ts_us, ev->dur_us, ev->anomaly == 1);
	for (const struct collect_hook *h = b->collect, *end = h + b->n_collect; h < end; h++)
		if ((rc = h->fn(cx, h->st, ev)) != GL_OK)
			break;
	return rc;
}

bool gl_section_metric_ok(const struct gl_section_ctx *cx, const char *metric)
{
	return cx->p->nmetrics == 0 || glob_any(cx->p->metrics, cx->p->nmetrics, metric);
}

bool gl_section_host_ok(struct gl_section_ctx *cx, int64_t host_id)
{
	return id_ok(cx, cx->host_ok, host_id, cx->p->hosts, cx->p->nhosts);
}

bool gl_section_component_ok(struct gl_section_ctx *cx, int64_t component_id)
{
	return id_ok(cx, cx->comp_ok, component_id, cx->p->components, cx->p->ncomponents);
}

/* The ids of names ok passes into *ids (NULL: no globs, all pass). */
static int kept_ids(struct gl_section_ctx *cx, size_t n_globs,
		    bool (*ok)(struct gl_section_ctx *cx, int64_t id), const int64_t **ids, size_t *n)
{
	int64_t *v;

	*ids = NULL;
	*n = 0;
	if (!n_globs)
		return GL_OK;
	if (!(v = malloc(cx->n_ids * sizeof(*v))))
		return gl_section_oom(cx->err);
	for (size_t id = 0; id < cx->n_ids; id++)
		if (ok(cx, (int64_t)id))
			v[(*n)++] = (int64_t)id;
	*ids = v;
	return GL_OK;
}

int gl_section_keep(struct gl_section_ctx *cx, struct gl_query_keep *keep)
{
	int rc;

	*keep = (struct gl_query_keep){0};
	rc = kept_ids(cx, cx->p->nhosts, gl_section_host_ok, &keep->host_ids, &keep->n_hosts);
	if (rc == GL_OK)
		rc = kept_ids(cx, cx->p->ncomponents, gl_section_component_ok,
			      &keep->component_ids, &keep->n_components);
	if (rc != GL_OK)
		gl_section_keep_release(keep);
	return rc;
}

void gl_section_keep_release(struct gl_query_keep *keep)
{
	free((void *)keep->host_ids);
	free((void *)keep->component_ids);
	*keep = (struct gl_query_keep){0};
}

/* The kernel pass, from the cache: rows on_event kept, filters applied there. */
static int on_kernel_kept(void *arg, const struct gl_query_event *ev)
{
	struct kernel_pass *kp = arg;
	const struct build *b = kp->b;
	bool first;
	int rc = GL_OK;

	first = ev->kernel_id != kp->last_kernel_id;
	kp->last_kernel_id = ev->kernel_id;
	for (const struct kernel_hook *h = b->kernel, *end = h + b->n_kernel; h < end; h++)
		if ((rc = h->fn(&kp->cx, h->st, ev, first)) != GL_OK)
			break;
	return rc;
}

/* The kernel pass from the database: the same events as kernel_sample marks in on_event. */
static bool kernel_row_kept(void *arg, const struct gl_query_event *ev)
{
	struct build *b = ((struct kernel_pass *)arg)->b;
	struct gl_section_ctx *cx = &b->cx;

	return !ev->dup_of && !isnan(ev->dur_us) && gl_section_event_ok(cx, ev) &&
	       gl_section_kernel_ok(cx, ev->kernel_id) && (uint64_t)ev->kernel_id < cx->n_ids &&
	       !gl_launch_once_copy(&b->once_db, ev->kernel_id, ev->ts_us, ev->dur_us,
						ev->level >= GL_LEVEL_WARN);
}

/* The kernel pass on a thread of its own (beside the samples pass). */
static void *kernel_main(void *arg)
{
	struct kernel_pass *kp = arg;

	kp->rc = gl_kcache_replay(kp->b->kcache, on_kernel_kept, kp);
	return NULL;
}

/* May the kernel pass run beside the samples pass: no section with both hooks? */
static bool sections_apart(const struct gl_section_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->collect_kernel && list->items[i]->collect_samples)
			return false;
	return true;
}

/* Hands the gathered samples to each section with collect_samples. */
static int flush_samples(struct build *b)
{
	int rc = GL_OK;

	for (size_t j = 0; j < b->n_sample && rc == GL_OK && b->n_blk; j++) {
		size_t i = b->with_sample[j];

		rc = b->list->items[i]->collect_samples(&b->cx, b->cx.rep->sec_state[i], b->blk,
							b->n_blk);
	}
	b->n_blk = 0;
	return rc;
}

static int on_sample(void *arg, const struct gl_query_sample *smp)
{
	struct build *b = arg;

	b->blk[b->n_blk++] = *smp;
	return b->n_blk == SAMPLE_BLOCK ? flush_samples(b) : GL_OK;
}

static int on_span(void *arg, const struct gl_query_span *sp)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;
	int rc = GL_OK;

	if (!id_ok(cx, cx->host_ok, sp->host_id, cx->p->hosts, cx->p->nhosts))
		return 0;
	for (size_t i = 0; i < b->list->n && rc == GL_OK; i++)
		if (b->list->items[i]->collect_span)
			rc = b->list->items[i]->collect_span(cx, cx->rep->sec_state[i], sp);
	return rc;
}

static int on_mem(void *arg, const struct gl_query_mem *m)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;
	int rc = GL_OK;

	if (!id_ok(cx, cx->host_ok, m->host_id, cx->p->hosts, cx->p->nhosts))
		return 0;
	for (size_t i = 0; i < b->list->n && rc == GL_OK; i++)
		if (b->list->items[i]->collect_mem)
			rc = b->list->items[i]->collect_mem(cx, cx->rep->sec_state[i], m);
	return rc;
}

int gl_report_build(struct gl_query *q, const struct gl_report_params *p,
		    const struct gl_report_config *cfg, struct gl_report *rep,
		    struct gl_err *err)
{
	struct build b = {.cx = {.q = q, .p = p, .since_us = p->since_us, .cfg = cfg, .rep = rep,
				 .err = err}};
	const struct gl_section_list *list = p->sections ? p->sections : &gl_sections;
	int64_t len = p->until_us - p->since_us;
	pthread_t th_k;
	bool kernel_thread = false;
	int rc = GL_OK;

	memset(rep, 0, sizeof(*rep));
	rep->generator = "gpulog-report";
	rep->version = GL_VERSION;
	rep->window = (struct gl_report_window){p->since_us, p->until_us,
						(double)len / (double)GL_US_PER_DAY,
						GL_TS_NONE, GL_TS_NONE, GL_TS_NONE};
	rep->top = p->top;
	rep->top_series = p->top_series ? p->top_series : 500;
	rep->sections = p->sections;
	b.list = list;
	if (len <= 0 || p->top == 0) {
		rc = gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				len <= 0 ? "empty time window" : "--top must be at least 1");
		goto out;
	}
	if ((rc = gl_query_retained_since(q, &rep->window.retained_since_us, err)) != GL_OK)
		goto out;
	/* Years 1970..9999 keep every time of the report (the preceding window
	 * of the baseline too, at most 36500 days earlier) a four-digit RFC 3339
	 * year, and the charts' time axes within what PLplot draws. */
	if (p->since_us < GL_REPORT_MIN_US || p->until_us > GL_REPORT_MAX_US ||
	    len > GL_REPORT_MAX_DAYS * GL_US_PER_DAY) {
		rc = gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				"the window must lie within 1970-01-01 and 9999-12-31 and span "
				"at most %d days", GL_REPORT_MAX_DAYS);
		goto out;
	}
	b.cx.n_ids = gl_query_name_slots(q);
	if (b.cx.n_ids == 0)
		b.cx.n_ids = 1;
	b.cx.comp_ok = calloc(b.cx.n_ids, 1);
	b.cx.host_ok = calloc(b.cx.n_ids, 1);
	b.cx.kern_ok = calloc(b.cx.n_ids, 1);
	b.cx.kernel_n = calloc(b.cx.n_ids, sizeof(*b.cx.kernel_n));
	if (gl_launch_once_init(&b.once, b.cx.n_ids) != GL_OK ||
	    gl_launch_once_init(&b.once_db, b.cx.n_ids) != GL_OK) {
		rc = gl_section_oom(err);
		goto out;
	}
	rep->sec_state = calloc(list->n ? list->n : 1, sizeof(void *));
	rep->free_states = free_built_states;
	b.collect = calloc(list->n ? list->n : 1, sizeof(*b.collect));
	b.kernel = calloc(list->n ? list->n : 1, sizeof(*b.kernel));
	b.with_sample = calloc(list->n ? list->n : 1, sizeof(size_t));
	if (!b.collect || !b.kernel || !b.with_sample || !b.cx.comp_ok || !b.cx.host_ok ||
	    !b.cx.kern_ok || !b.cx.kernel_n || !rep->sec_state) {
		rc = gl_section_oom(err);
		goto out;
	}
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->state_size &&
		    !(rep->sec_state[i] = calloc(1, list->items[i]->state_size))) {
			rc = gl_section_oom(err);
			goto out;
		}
	for (size_t i = 0; i < list->n; i++) {
		if (list->items[i]->collect)
			b.collect[b.n_collect++] =
				(struct collect_hook){list->items[i]->collect, rep->sec_state[i]};
		if (list->items[i]->collect_kernel)
			b.kernel[b.n_kernel++] =
				(struct kernel_hook){list->items[i]->collect_kernel, rep->sec_state[i]};
		if (list->items[i]->collect_samples)
			b.with_sample[b.n_sample++] = i;
	}
	if (p->charts) {
		int64_t first_us, last_us;

		rc = gl_query_events_span(q, p->since_us, p->until_us, &first_us, &last_us, err);
		if (rc != GL_OK)
			goto out;
		gl_report_axis_init(&rep->axis, p->since_us, p->until_us, first_us, last_us);
		rep->axis.chart_top = p->chart_top == 0 ? GL_CHART_TOP_DEFAULT
			: p->chart_top > GL_CHART_TOP_MAX ? GL_CHART_TOP_MAX : p->chart_top;
	}
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->collect_kernel) {
			/* no cache (out of memory) is the kernel pass from the database */
			b.kcache = gl_kcache_new(b.cx.n_ids, p->kernel_cache_max ? p->kernel_cache_max
										 : GL_KCACHE_MAX_TIMINGS);
			break;
		}
	{
		int64_t f_ev, l_ev, f_smp, l_smp;

		rc = gl_query_events_span(q, GL_REPORT_MIN_US, p->since_us, &f_ev, &l_ev, err);
		if (rc == GL_OK)
			rc = gl_query_samples_span(q, GL_REPORT_MIN_US, p->since_us, &f_smp, &l_smp,
						   err);
		if (rc != GL_OK)
			goto out;
		b.cx.data_starts_in_window = f_ev == GL_TS_NONE && f_smp == GL_TS_NONE;
		if ((rc = gl_query_alert_streams(q, p->since_us, p->until_us,
						 &b.cx.alert_streams, &b.cx.n_alert_streams,
						 err)) != GL_OK)
			goto out;
	}
	for (size_t i = 0; i < list->n && rc == GL_OK; i++)
		if (list->items[i]->begin)
			rc = list->items[i]->begin(&b.cx, rep->sec_state[i]);
	if (rc != GL_OK)
		goto out;
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->collect_span) {
			rc = gl_query_spans(q, p->since_us, p->until_us, on_span, &b, err);
			break;
		}
	if (rc != GL_OK)
		goto out;
	if ((rc = gl_query_events(q, p->since_us, p->until_us, 0, on_event, &b, err)) != GL_OK)
		goto out;
	if ((rc = gl_query_mem_events(q, p->since_us, p->until_us, on_mem, &b, err)) != GL_OK)
		goto out;
	for (size_t i = 0; i < list->n && rc == GL_OK; i++)
		if (list->items[i]->plan)
			rc = list->items[i]->plan(&b.cx, rep->sec_state[i]);
	if (rc != GL_OK)
		goto out;
	/*
	 * The kernel pass and the samples pass. No section has hooks in both
	 * (sections_apart), and no hook of either reads what the other
	 * collects: replayed from the cache, which reads no database, the kernel
	 * pass runs on a thread of its own beside the samples pass (10M events:
	 * 0.3 s of one core that was the other core's idle time). From the
	 * database (the cache dropped), it runs before, on this thread. The
	 * cache, freed kernel by kernel as it is replayed, is then mostly gone
	 * before the samples' values grow (10M events with 22M samples: the peak
	 * is 209-210 MB either way, reached in the event pass).
	 */
	if (b.n_kernel) {
		b.kp.b = &b;
		b.kp.cx = b.cx;
		b.kp.last_kernel_id = -1;
		kernel_thread = gl_kcache_ok(b.kcache) && b.n_sample && sections_apart(list);
		b.kp.cx.err = kernel_thread ? &b.kp.err : err;
		if (kernel_thread && pthread_create(&th_k, NULL, kernel_main, &b.kp) != 0) {
			kernel_thread = false;
			b.kp.cx.err = err;
		}
		if (!kernel_thread)	/* else joined after the samples pass */
			rc = gl_kcache_ok(b.kcache)
				     ? gl_kcache_replay(b.kcache, on_kernel_kept, &b.kp)
				     : gl_kcache_pass_db(q, p->since_us, p->until_us, b.cx.kernel_n,
							 b.cx.n_ids,
							 p->kernel_cache_max ? p->kernel_cache_max
									     : GL_KCACHE_MAX_TIMINGS,
							 kernel_row_kept, on_kernel_kept, &b.kp, err);
	}
	if (rc == GL_OK && b.n_sample) {
		rc = gl_query_samples(q, p->since_us, p->until_us, on_sample, &b, err);
		if (rc == GL_OK)
			rc = flush_samples(&b);
	}
	if (kernel_thread) {
		pthread_join(th_k, NULL);
		if (rc == GL_OK && (rc = b.kp.rc) != GL_OK)
			*err = b.kp.err;
	}
	if (rc != GL_OK)
		goto out;
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < list->n && rc == GL_OK; i++)
			if (list->items[i]->finish && list->items[i]->finish_last == (last == 1))
				rc = list->items[i]->finish(&b.cx, rep->sec_state[i]);
out:
	gl_kcache_free(b.kcache);
	gl_launch_once_release(&b.once);
	free(b.cx.alert_streams);
	gl_launch_once_release(&b.once_db);
	free(b.collect);
	free(b.kernel);
	free(b.with_sample);
	free(b.cx.comp_ok);
	free(b.cx.host_ok);
	free(b.cx.kern_ok);
	free(b.cx.kernel_n);
	if (rc != GL_OK)
		gl_report_release(rep);
	return rc;
}
