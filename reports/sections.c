/*
 * sections.c - the driver of the report: the table of sections and the
 * passes that feed them. In: the rows of the window (lib/store/query.h).
 * Out: struct gl_report, filled by the sections (reports/sec_*.c).
 *
 * Filters (--component, --host) and mirrored records are dealt with here,
 * once, before any section sees an event; so is the chart series
 * (series.h), fed in the same pass.
 */
#include "sections.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_cache.h"
#include "section.h"
#include "series.h"
#include "stats/stats.h"
#include "util/timeutil.h"

static const struct gl_section *const default_items[] = {
	&gl_sec_summary, &gl_sec_kernels, &gl_sec_operations, &gl_sec_trends, &gl_sec_anomalies,
	&gl_sec_memory,	 &gl_sec_errors,  &gl_sec_metrics,    &gl_sec_inference, &gl_sec_scopes, &gl_sec_alerts,
	&gl_sec_baseline,
};

const struct gl_section_list gl_sections = {
	default_items, sizeof(default_items) / sizeof(default_items[0]),
};

#define SAMPLE_BLOCK 256	/* samples a collect_samples call gets at most */

struct build {
	struct gl_section_ctx cx;
	const struct gl_section_list *list;
	int64_t last_kernel_id;		/* kernel pass: the kernel of the previous row */
	struct gl_kcache *kcache;	/* the kernel pass's rows, from the event pass; NULL: none */
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

int gl_section_oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

const char *gl_section_name(const struct gl_section_ctx *cx, int64_t id)
{
	const char *s = id > 0 ? gl_query_name(cx->q, id) : NULL;

	return s ? s : "";
}

double gl_section_days(const struct gl_section_ctx *cx, int64_t ts_us)
{
	return (double)(ts_us - cx->p->since_us) / (double)GL_US_PER_DAY;
}

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
	}
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

struct gl_report_trend *gl_section_add_trends(struct gl_report *rep, size_t n)
{
	struct gl_report_trend *t = realloc(rep->trends, (rep->n_trends + n + 1) * sizeof(*t));

	if (!t)
		return NULL;
	rep->trends = t;
	memset(&t[rep->n_trends], 0, n * sizeof(*t));
	rep->n_trends += n;
	return &t[rep->n_trends - n];
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

static int on_event(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;
	struct gl_report *rep = cx->rep;
	int rc = GL_OK;

	if (!gl_section_event_ok(cx, ev))
		return 0;
	if (ev->dup_of) {
		rep->summary.duplicates++;
		if (ev->level >= GL_LEVEL_ERROR)
			rep->errors.mirrored++;
		return 0;
	}
	if (rep->window.data_first_ts_us == GL_TS_NONE)
		rep->window.data_first_ts_us = ev->ts_us;
	rep->window.data_last_ts_us = ev->ts_us;
	cx->kernel_sample = !isnan(ev->dur_us) && gl_section_kernel_ok(cx, ev->kernel_id);
	if (cx->kernel_sample && (uint64_t)ev->kernel_id < cx->n_ids)
		cx->kernel_n[ev->kernel_id]++;
	if (cx->kernel_sample && b->kcache && (uint64_t)ev->kernel_id < cx->n_ids)
		gl_kcache_add(b->kcache, ev->kernel_id, ev->ts_us, ev->dur_us, ev->anomaly == 1);
	if (cx->p->series && gl_series_event(cx->p->series, ev, cx->err) != GL_OK)
		return GL_ENOMEM;
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

/* The kernel pass, from the cache: rows on_event kept, filters applied there. */
static int on_kernel_kept(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;
	bool first;
	int rc = GL_OK;

	first = ev->kernel_id != b->last_kernel_id;
	b->last_kernel_id = ev->kernel_id;
	for (const struct kernel_hook *h = b->kernel, *end = h + b->n_kernel; h < end; h++)
		if ((rc = h->fn(cx, h->st, ev, first)) != GL_OK)
			break;
	return rc;
}

/* The kernel pass from the database: the same events as kernel_sample marks in on_event. */
static bool kernel_row_kept(void *arg, const struct gl_query_event *ev)
{
	struct build *b = arg;
	struct gl_section_ctx *cx = &b->cx;

	return !ev->dup_of && !isnan(ev->dur_us) && gl_section_event_ok(cx, ev) &&
	       gl_section_kernel_ok(cx, ev->kernel_id) && (uint64_t)ev->kernel_id < cx->n_ids;
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
	struct build b = {.cx = {.q = q, .p = p, .cfg = cfg, .rep = rep, .err = err}};
	const struct gl_section_list *list = p->sections ? p->sections : &gl_sections;
	int64_t len = p->until_us - p->since_us;
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
	rep->sec_state = calloc(list->n ? list->n : 1, sizeof(void *));
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
	if (p->series) {
		int64_t first_us, last_us;

		rc = gl_query_events_span(q, p->since_us, p->until_us, &first_us, &last_us, err);
		if (rc == GL_OK)
			rc = gl_series_begin_span(p->series, p->since_us, p->until_us, first_us,
						  last_us, b.cx.n_ids, err);
		if (rc != GL_OK)
			goto out;
	}
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->collect_kernel) {
			/* no cache (out of memory) is the kernel pass from the database */
			b.kcache = gl_kcache_new(b.cx.n_ids, p->kernel_cache_max ? p->kernel_cache_max
										 : GL_KCACHE_MAX_TIMINGS);
			break;
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
	for (size_t i = 0; i < list->n; i++)
		if (list->items[i]->collect_samples) {
			rc = gl_query_samples(q, p->since_us, p->until_us, on_sample, &b, err);
			if (rc == GL_OK)
				rc = flush_samples(&b);
			break;
		}
	for (size_t i = 0; i < list->n && rc == GL_OK; i++)
		if (list->items[i]->plan)
			rc = list->items[i]->plan(&b.cx, rep->sec_state[i]);
	for (size_t i = 0; i < list->n && rc == GL_OK; i++)
		if (list->items[i]->collect_kernel) {
			b.last_kernel_id = -1;
			if (gl_kcache_ok(b.kcache))
				rc = gl_kcache_replay(b.kcache, on_kernel_kept, &b);
			else
				rc = gl_kcache_pass_db(q, p->since_us, p->until_us, b.cx.kernel_n,
						       b.cx.n_ids,
						       p->kernel_cache_max ? p->kernel_cache_max
									   : GL_KCACHE_MAX_TIMINGS,
						       kernel_row_kept, on_kernel_kept, &b, err);
			break;
		}
	if (rc != GL_OK)
		goto out;
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < list->n && rc == GL_OK; i++)
			if (list->items[i]->finish && list->items[i]->finish_last == (last == 1))
				rc = list->items[i]->finish(&b.cx, rep->sec_state[i]);
	if (rc == GL_OK && p->series)
		rc = gl_series_finish(p->series, q, rep, err);
out:
	gl_kcache_free(b.kcache);
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
