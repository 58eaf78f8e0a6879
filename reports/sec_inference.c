/*
 * sec_inference.c - the inference section: what the metric samples of the
 * window (tables series and samples) say about serving a model.
 *
 * In: each sample of the window (collect_samples), its series from the
 * series table (gl_section_series_load, as the metrics section reads it).
 * Out: its results (sec_inference.h) and one trend per quantity (series
 * "inference"). The quantities and where they come from:
 *
 *   tokens_per_second  inference.tokens_per_second (BitNet-rs, one per
 *                      request) and vllm.generation_throughput_tps (vLLM's
 *                      "Avg generation throughput: 12.3 tokens/s" lines)
 *   ttft_ms            inference.ttft_ms
 *   latency_ms         inference.latency_ms
 *   token_latency_ms   inference.token_latency_ms
 *   tokens_generated   inference.tokens_generated
 *
 * Prometheus (source "prom"): a series whose name ends in _total is a
 * counter; its increase over the window is the sum of its rises between
 * consecutive scrapes, a fall counting as a restart from zero (Prometheus'
 * increase() without the extrapolation to the window's edges). The _bucket
 * series of one family and label set (le aside) form a histogram whose
 * p50/p95/p99 are estimated by gl_stats_histogram_quantile from each
 * bucket's increase, or from the buckets as last scraped when the window
 * holds a single scrape.
 *
 * A counter's first scrape is a base, unless the series starts in the
 * window (no sample of it before): then it counts from zero, and a failure
 * its first scrape already holds is a failure (counter.h).
 *
 * requests (requests_from): the increase of *requests_total counters
 * (every request), else of *request_success_total plus the failure
 * counters; else vLLM's access lines; else one per BitNet-rs record. The
 * records and a counter describe the same requests: never added. A
 * receipt's run totals (source jsondoc) are in no per-request
 * distribution. NAN when none is known. failed, from the first source that knows (failed_from): the
 * counters (those named *request*fail*_total or *request*error*_total, and
 * request counters whose labels tell failures: failed_by_label); else
 * vLLM's access lines, POSTs to /v1/ answered with 400 or more
 * (gl_query_access_requests), which then also give requests when no
 * counter did; else NAN. vLLM's ERROR lines are not counted: they do not
 * say which request failed ("AsyncLLM output_handler failed.", then a
 * traceback).
 *
 * Memory: one double per sample of the five quantities, O(series) else.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "chart.h"
#include "emit_png.h"
#include "counter.h"
#include "emit_util.h"
#include "inference_out.h"
#include "sec_inference.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"
#include "trend_rules.h"
#include "util/timeutil.h"

/*
 * The chart inference.png: tokens/s (one line per source) above TTFT, over
 * the span of the samples it draws. The lines of the chart, by source.
 */
enum chart_line { C_TPS_BITNET, C_TPS_VLLM, C_TTFT, C_COUNT, C_NONE = -1 };

static const struct {
	const char *metric;
	enum quantity q;
	int line;			/* enum chart_line */
} sources[] = {
	{"inference.tokens_per_second", Q_TPS, C_TPS_BITNET},
	{"vllm.generation_throughput_tps", Q_TPS, C_TPS_VLLM},
	{"inference.ttft_ms", Q_TTFT, C_TTFT},
	{"inference.latency_ms", Q_LATENCY, C_NONE},
	{"inference.token_latency_ms", Q_TOKEN_LATENCY, C_NONE},
	{"inference.tokens_generated", Q_TOKENS, C_NONE},
};

#define GL_PNG_INFERENCE "inference.png"

enum row_kind { ROW_NONE, ROW_QUANTITY, ROW_COUNTER, ROW_BUCKET, ROW_RECORD, ROW_START };

/* What each row of the series table is to this section, and its counter state. */
struct row {
	enum row_kind kind;
	enum quantity q;		/* ROW_QUANTITY */
	int line;			/* ROW_QUANTITY: enum chart_line */
	bool also_record;		/* a BitNet-rs series: its samples mark records */
	size_t group;			/* ROW_BUCKET: index into groups */
	double le;			/* ROW_BUCKET: upper bound */
	uint64_t n;			/* samples in the window */
	int64_t first_ts_us;		/* ROW_COUNTER: its first sample's time */
	double start_s;			/* ROW_START: a start, Unix seconds (its first value) */
	struct gl_counter ctr;		/* ROW_COUNTER, ROW_BUCKET: the running total */
	/*
	 * ROW_COUNTER: its rate between consecutive scrapes (a fall a restart
	 * from zero), per second, trended: a counter's raw running total rises
	 * whatever happens ("degrading +4463%") and is never trended itself.
	 */
	int64_t prev_ts_us;
	double *rate;
	size_t n_rate, cap_rate;
	/* ROW_BUCKET: its samples in time order, for the quantiles per interval */
	int64_t *b_ts_us;
	double *b_v;
	size_t n_b, cap_b;
	struct gl_fit_acc rate_fit;
	int64_t rate_first_us, rate_last_us;
};

struct qacc {
	double *v;
	size_t n, cap;
	struct gl_fit_acc fit;
	struct gl_fit_acc fit_order;	/* value against the sample's rank: records without time */
	struct gl_trend_ends ends;	/* of v in arrival order, before v is sorted */
	int64_t first_ts_us, last_ts_us;
};

struct hgroup {
	char *family, *labels;		/* owned */
	int64_t host_id;
};

struct inference {
	struct gl_report_inference res;	/* first: see sec_inference.h */
	struct gl_trend_list trends;	/* one per quantity with samples */
	struct gl_section_series ss;
	struct row *rows;		/* one per ss.qs row */
	struct qacc acc[Q_COUNT];
	struct hgroup *groups;
	size_t n_groups;
	bool chart;			/* some cols allocated (charts asked for, data in the window) */
	struct gl_chart_cols cols[C_COUNT];	/* each over its own samples' span; col NULL: none */
};

/*
 * BitNet-rs records in the window: each record gives at most one sample to
 * each of its inference.* series (a null field none), and the records of a
 * first run share one estimated time; so per host the most samples of any
 * one of them.
 */
static uint64_t bitnet_records(const struct inference *in)
{
	uint64_t total = 0;

	for (size_t i = 0; i < in->ss.n_qs; i++) {
		int64_t host = in->ss.qs[i].host_id;
		bool seen = false;
		uint64_t most = 0;

		if (!in->rows[i].also_record)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = in->rows[j].also_record && in->ss.qs[j].host_id == host;
		if (seen)
			continue;	/* the host's first record series counted them */
		for (size_t j = i; j < in->ss.n_qs; j++)
			if (in->rows[j].also_record && in->ss.qs[j].host_id == host &&
			    in->rows[j].n > most)
				most = in->rows[j].n;
		total += most;
	}
	return total;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* labels without "le" as sorted compact JSON (owned), and le's value in *le; NULL: no le. */
static char *split_le(const char *labels, double *le, bool *oom)
{
	json_t *o = labels ? json_loads(labels, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(o, "le"));
	char *rest = NULL, *end;

	*oom = false;
	if (v) {
		*le = !strcmp(v, "+Inf") || !strcmp(v, "Inf") ? INFINITY : strtod(v, &end);
		if (isinf(*le) || (end != v && !*end)) {
			json_object_del(o, "le");
			rest = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
			*oom = !rest;
		}
	}
	json_decref(o);
	return rest;
}

static int group_of(struct inference *in, const char *family, char *labels, int64_t host_id,
		    size_t *out)
{
	for (size_t i = 0; i < in->n_groups; i++)
		if (in->groups[i].host_id == host_id && !strcmp(in->groups[i].family, family) &&
		    !strcmp(in->groups[i].labels, labels)) {
			free(labels);
			*out = i;
			return GL_OK;
		}
	struct hgroup *g = realloc(in->groups, (in->n_groups + 1) * sizeof(*g));
	char *f = strdup(family);

	if (!g || !f) {
		free(f);
		free(labels);
		if (g)
			in->groups = g;
		return GL_ENOMEM;
	}
	in->groups = g;
	g[in->n_groups] = (struct hgroup){.family = f, .labels = labels, .host_id = host_id};
	*out = in->n_groups++;
	return GL_OK;
}

/*
 * The chart's time axes: each line over the span of its own samples (as
 * gpu_telemetry.png's over the GPUs' span), not the window. The sources do
 * not share times: BitNet-rs records of one run share one estimated time,
 * the vLLM log's lines are minutes apart; on one axis each would be a few
 * pixels wide.
 */
static int chart_begin(struct gl_section_ctx *cx, struct inference *in)
{
	int64_t *ids = malloc((in->ss.n_qs ? in->ss.n_qs : 1) * sizeof(*ids));
	int rc = GL_OK;

	if (!ids)
		return gl_section_oom(cx->err);
	for (int c = 0; c < C_COUNT && rc == GL_OK; c++) {
		int64_t t0 = GL_TS_NONE, t1 = GL_TS_NONE;
		size_t nids = 0;

		for (size_t i = 0; i < in->ss.n_qs; i++)
			if (in->rows[i].kind == ROW_QUANTITY && in->rows[i].line == c)
				ids[nids++] = in->ss.qs[i].id;
		if (!nids || (rc = gl_query_series_span(cx->q, ids, nids, cx->p->since_us,
							cx->p->until_us, &t0, &t1, cx->err)) != GL_OK ||
		    t0 == GL_TS_NONE)
			continue;
		/*
		 * Samples within a minute (the BitNet-rs records of a first run
		 * share one time) are drawn in the middle of ten minutes, as one
		 * column's mean and min..max band; else one past the last sample,
		 * which gl_chart_cols keeps in its last column.
		 */
		if (t1 - t0 < 60 * GL_US_PER_S) {
			t0 -= 5 * 60 * GL_US_PER_S;
			t1 += 5 * 60 * GL_US_PER_S;
		}
		rc = gl_chart_cols_init(&in->cols[c], t0, t1 + 1, GL_CHART_COLUMNS, cx->err);
		in->chart = in->chart || rc == GL_OK;
	}
	free(ids);
	return rc;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct inference *in = st;
	int rc = gl_section_series_load(cx, &in->ss);

	if (rc != GL_OK)
		return rc;
	for (int q = 0; q < Q_COUNT; q++) {
		gl_fit_acc_init(&in->acc[q].fit);
		gl_fit_acc_init(&in->acc[q].fit_order);
		in->acc[q].first_ts_us = in->acc[q].last_ts_us = GL_TS_NONE;
	}
	in->rows = calloc(in->ss.n_qs ? in->ss.n_qs : 1, sizeof(*in->rows));
	if (!in->rows)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < in->ss.n_qs; i++) {
		const struct gl_query_series *qs = &in->ss.qs[i];
		const char *metric = in->ss.metric[i];
		const char *src = qs->source ? qs->source : "";
		struct row *r = &in->rows[i];

		if (gl_section_series_row(&in->ss, qs->id) < 0)
			continue;
		r->also_record = !strcmp(src, "bitnet") && !strncmp(metric, "inference.", 10);
		r->kind = r->also_record ? ROW_RECORD : ROW_NONE;
		/*
		 * A receipt (BitNet-rs inference.json, read as jsondoc) gives a run's
		 * totals, "tokens_generated": 28409: not one request, kept out of the
		 * per-request distributions.
		 */
		if (!strcmp(src, "jsondoc"))
			continue;
		for (size_t k = 0; k < sizeof(sources) / sizeof(sources[0]); k++)
			if (!strcmp(metric, sources[k].metric)) {
				r->kind = ROW_QUANTITY;
				r->q = sources[k].q;
				r->line = sources[k].line;
			}
		if (r->kind != ROW_NONE || strcmp(src, "prom"))
			continue;
		if (ends_with(metric, "_total")) {
			r->kind = ROW_COUNTER;
		} else if (ends_with(metric, "_created") ||
			   !strcmp(metric, "process_start_time_seconds")) {
			r->kind = ROW_START;	/* when a counter was zero: finish_counters */
		} else if (ends_with(metric, "_bucket")) {
			bool oom;
			char *labels = split_le(qs->labels, &r->le, &oom);
			char family[512];

			if (oom)
				return gl_section_oom(cx->err);
			if (!labels)
				continue;
			snprintf(family, sizeof(family), "%.*s", (int)(strlen(metric) - 7), metric);
			if (group_of(in, family, labels, qs->host_id, &r->group) != GL_OK)
				return gl_section_oom(cx->err);
			r->kind = ROW_BUCKET;
		}
	}
	return cx->rep->axis.charts ? chart_begin(cx, in) : GL_OK;
}

static inline int collect_one(struct gl_section_ctx *cx, struct inference *in,
			      const struct gl_query_sample *smp)
{
	long row = gl_section_series_row(&in->ss, smp->series_id);
	struct row *r;

	if (row < 0 || !isfinite(smp->value) || (r = &in->rows[row])->kind == ROW_NONE)
		return GL_OK;
	if (r->kind == ROW_QUANTITY || r->kind == ROW_RECORD) {
		r->n++;
		if (r->kind == ROW_RECORD)
			return GL_OK;
		struct qacc *a = &in->acc[r->q];

		if (a->n == a->cap) {
			size_t cap = a->cap ? a->cap * 2 : 64;
			double *d = realloc(a->v, cap * sizeof(*d));

			if (!d)
				return gl_section_oom(cx->err);
			a->v = d;
			a->cap = cap;
		}
		a->v[a->n++] = smp->value;
		if (r->line != C_NONE && in->cols[r->line].col)
			gl_chart_cols_add(&in->cols[r->line], smp->ts_us, smp->value, 0);
		gl_fit_acc_add(&a->fit, gl_section_days(cx, smp->ts_us), smp->value);
		gl_fit_acc_add(&a->fit_order, (double)(a->n - 1), smp->value);
		if (a->first_ts_us == GL_TS_NONE)
			a->first_ts_us = smp->ts_us;
		a->last_ts_us = smp->ts_us;
		return GL_OK;
	}
	if (r->kind == ROW_START) {
		if (r->n++ == 0)
			r->start_s = smp->value;
		return GL_OK;
	}
	if (r->kind == ROW_COUNTER || r->kind == ROW_BUCKET) {
		/* a counter that falls was restarted: it counted from zero since */
		if (r->n == 0) {
			r->first_ts_us = smp->ts_us;
			gl_counter_init(&r->ctr);
			gl_fit_acc_init(&r->rate_fit);
			r->rate_first_us = GL_TS_NONE;
		}
		if (r->kind == ROW_COUNTER && r->n > 0 && smp->ts_us > r->prev_ts_us &&
		    smp->value >= 0) {
			double inc = smp->value >= r->ctr.prev ? smp->value - r->ctr.prev : smp->value;
			double rate = inc / ((double)(smp->ts_us - r->prev_ts_us) / GL_US_PER_S);

			if (r->n_rate == r->cap_rate) {
				size_t cap = r->cap_rate ? r->cap_rate * 2 : 16;
				double *v = realloc(r->rate, cap * sizeof(*v));

				if (!v)
					return gl_section_oom(cx->err);
				r->rate = v;
				r->cap_rate = cap;
			}
			r->rate[r->n_rate++] = rate;
			gl_fit_acc_add(&r->rate_fit, gl_section_days(cx, smp->ts_us), rate);
			if (r->rate_first_us == GL_TS_NONE)
				r->rate_first_us = smp->ts_us;
			r->rate_last_us = smp->ts_us;
		}
		if (r->kind == ROW_BUCKET) {
			if (r->n_b == r->cap_b) {
				size_t cap = r->cap_b ? r->cap_b * 2 : 16;
				int64_t *t = realloc(r->b_ts_us, cap * sizeof(*t));

				if (t)
					r->b_ts_us = t;
				double *v = t ? realloc(r->b_v, cap * sizeof(*v)) : NULL;

				if (!v)
					return gl_section_oom(cx->err);
				r->b_v = v;
				r->cap_b = cap;
			}
			r->b_ts_us[r->n_b] = smp->ts_us;
			r->b_v[r->n_b++] = smp->value;
		}
		gl_counter_add(&r->ctr, smp->value);
		r->prev_ts_us = smp->ts_us;
		r->n++;
	}
	return GL_OK;
}

static int collect_samples(struct gl_section_ctx *cx, void *st, const struct gl_query_sample *smp,
			   size_t n)
{
	int rc = GL_OK;

	for (size_t i = 0; i < n && rc == GL_OK; i++)
		rc = collect_one(cx, st, &smp[i]);
	return rc;
}

static void dist_of(struct qacc *a, struct gl_report_dist *d)
{
	struct gl_stats_desc s;

	gl_stats_describe(a->v, a->n, &s);
	*d = (struct gl_report_dist){a->n, s.mean, s.p50, s.p95, s.p99, s.min, s.max};
}

static int cmp_counter(const void *pa, const void *pb)
{
	const struct gl_report_prom_counter *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->metric, b->metric)) != 0 || (c = strcmp(a->host, b->host)) != 0)
		return c;
	return strcmp(a->labels, b->labels);
}

static int cmp_hist(const void *pa, const void *pb)
{
	const struct gl_report_prom_histogram *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->metric, b->metric)) != 0 || (c = strcmp(a->host, b->host)) != 0)
		return c;
	return strcmp(a->labels, b->labels);
}

/*
 * A counter series' label value (labels: its JSON object text) into buf;
 * false when it has no such label.
 */
static bool label_of(const char *labels, const char *name, char *buf, size_t n)
{
	json_t *o = labels ? json_loads(labels, 0, NULL) : NULL;
	const char *v = json_string_value(json_object_get(o, name));

	if (v)
		snprintf(buf, n, "%s", v);
	json_decref(o);
	return v != NULL;
}

/*
 * What a request counter series says about failures, by its labels:
 * vLLM's vllm:request_success_total{finished_reason="stop|length|abort|error"}
 * counts every request the engine finished, "abort" and "error" the ones
 * that failed; a *requests_total with an HTTP status label ("status" or
 * "code", as BitNet-rs servers' bitnet_requests_total{status="500"}) counts
 * every request, a status of 400 or more a failed one. *known: the series
 * has such a label (failures would show in it: none is 0, not unknown).
 */
static bool failed_by_label(const char *metric, const char *labels, bool *known)
{
	char v[64];

	*known = false;
	if (!fnmatch("*request_success_total", metric, 0) &&
	    label_of(labels, "finished_reason", v, sizeof(v))) {
		*known = true;
		return !strcmp(v, "abort") || !strcmp(v, "error");
	}
	if (!fnmatch("*requests_total", metric, 0) &&
	    (label_of(labels, "status", v, sizeof(v)) || label_of(labels, "code", v, sizeof(v)))) {
		*known = true;
		return (v[0] == '4' || v[0] == '5') && strlen(v) == 3;
	}
	return false;
}

struct access_acc {
	struct gl_section_ctx *cx;
	uint64_t requests, failed;
	bool any;
};

static int on_access(void *arg, const struct gl_query_access *a)
{
	struct access_acc *acc = arg;
	struct gl_query_event ev = {.component_id = a->component_id, .host_id = a->host_id};

	if (!gl_section_event_ok(acc->cx, &ev))
		return GL_OK;
	acc->requests += a->requests;
	acc->failed += a->failed;
	acc->any = true;
	return GL_OK;
}

/*
 * The server a request source speaks of: BitNet-rs (its records, its
 * bitnet_* counters), vLLM (its vllm:* counters, its access lines), or
 * another server's counters. Within one server the sources describe the
 * same requests and the first that knows counts them; servers add up.
 */
enum server { SRV_BITNET, SRV_VLLM, SRV_OTHER, SRV_COUNT };

static enum server server_of(const char *metric)
{
	if (!strncmp(metric, "bitnet", 6))
		return SRV_BITNET;
	if (!strncmp(metric, "vllm", 4))
		return SRV_VLLM;
	return SRV_OTHER;
}

static double add(double a, double b)
{
	return isnan(a) ? b : a + b;
}

/* Two label sets name the same job and instance (both absent counts as equal). */
static bool same_target(const char *a, const char *b)
{
	static const char *const keys[] = {"job", "instance"};

	for (size_t k = 0; k < 2; k++) {
		char va[256], vb[256];
		bool ha = label_of(a, keys[k], va, sizeof(va)), hb = label_of(b, keys[k], vb, sizeof(vb));

		if (ha != hb || (ha && strcmp(va, vb)))
			return false;
	}
	return true;
}

static int64_t start_us_of(double start_s)
{
	return isfinite(start_s) && start_s > 0 ? (int64_t)llround(start_s * GL_US_PER_S) : GL_TS_NONE;
}

/*
 * When counter row i was zero, as far as the scrapes say: *created_us its
 * own _created sample (foo_total's foo_created, same labels and host),
 * *start_us process_start_time_seconds of its host, job and instance;
 * GL_TS_NONE when the window holds none.
 */
static void starts_of(const struct inference *in, size_t i, int64_t *created_us,
		      int64_t *start_us)
{
	const char *metric = in->ss.metric[i];
	const char *labels = in->ss.qs[i].labels ? in->ss.qs[i].labels : "{}";
	size_t base = strlen(metric) - strlen("_total");

	*created_us = *start_us = GL_TS_NONE;
	for (size_t j = 0; j < in->ss.n_qs; j++) {
		const struct row *s = &in->rows[j];
		const char *m = in->ss.metric[j];
		const char *l = in->ss.qs[j].labels ? in->ss.qs[j].labels : "{}";

		if (s->kind != ROW_START || !s->n || in->ss.qs[j].host_id != in->ss.qs[i].host_id)
			continue;
		if (!strcmp(m, "process_start_time_seconds")) {
			if (same_target(labels, l))
				*start_us = start_us_of(s->start_s);
		} else if (strlen(m) == base + strlen("_created") && !strncmp(m, metric, base) &&
			   !strcmp(l, labels)) {
			*created_us = start_us_of(s->start_s);
		}
	}
}

/* A counter row's scrape interval: its span over its samples' gaps; 0 for one sample. */
static int64_t interval_of(const struct row *r)
{
	return r->n > 1 ? (r->prev_ts_us - r->first_ts_us) / (int64_t)(r->n - 1) : 0;
}

static int finish_counters(struct gl_section_ctx *cx, struct inference *in)
{
	struct gl_report_inference *ri = &in->res;
	double all_s[SRV_COUNT] = {NAN, NAN, NAN}, ok_s[SRV_COUNT] = {NAN, NAN, NAN};
	double fail_s[SRV_COUNT] = {0, 0, 0}, failed = NAN;
	const char *from_s[SRV_COUNT] = {NULL, NULL, NULL};
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < in->ss.n_qs; i++)
		n += in->rows[i].kind == ROW_COUNTER && in->rows[i].n;
	ri->counters = calloc(n ? n : 1, sizeof(*ri->counters));
	if (!ri->counters)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < in->ss.n_qs; i++) {
		const struct row *r = &in->rows[i];
		const char *metric = in->ss.metric[i];
		struct gl_report_prom_counter *c = &ri->counters[ri->n_counters];

		if (r->kind != ROW_COUNTER || !r->n)
			continue;
		ri->n_counters++;
		c->metric = strdup(metric);
		c->host = strdup(gl_section_name(cx, in->ss.qs[i].host_id));
		c->labels = strdup(in->ss.qs[i].labels ? in->ss.qs[i].labels : "{}");
		if (!c->metric || !c->host || !c->labels)
			return gl_section_oom(cx->err);
		c->samples = r->n;
		c->resets = r->ctr.resets;
		/*
		 * From zero when the series starts in the window (no sample of it
		 * before): the process counted before its first scrape, which may
		 * already hold a failure; unless its _created or its process's
		 * start says it counted before the window (counter.h). Else the
		 * first scrape is a base.
		 */
		int64_t before_first, before_last, created_us, start_us;

		if ((rc = gl_query_series_span(cx->q, &in->ss.qs[i].id, 1, GL_REPORT_MIN_US,
					       cx->p->since_us, &before_first, &before_last,
					       cx->err)) != GL_OK)
			return rc;
		starts_of(in, i, &created_us, &start_us);
		c->increase = gl_counter_increase(
			&r->ctr, gl_counter_from_zero(before_first != GL_TS_NONE, r->first_ts_us,
						      interval_of(r), cx->p->since_us, created_us,
						      start_us));
		c->last = r->ctr.prev;
		if (isnan(c->increase))
			continue;
		bool known, by_label = failed_by_label(metric, c->labels, &known);

		enum server sv = server_of(metric);

		if (!fnmatch("*request*fail*_total", metric, 0) ||
		    !fnmatch("*request*error*_total", metric, 0)) {
			failed = add(failed, c->increase);
			fail_s[sv] += c->increase;
			continue;
		}
		if (known)
			failed = add(failed, by_label ? c->increase : 0);
		if (!fnmatch("*request_success_total", metric, 0))
			ok_s[sv] = add(ok_s[sv], c->increase);
		else if (!fnmatch("*requests_total", metric, 0))
			all_s[sv] = add(all_s[sv], c->increase);
	}
	qsort(ri->counters, ri->n_counters, sizeof(*ri->counters), cmp_counter);
	/* request_success_total counts the aborted too; the failure counters apart */
	for (int v = 0; v < SRV_COUNT; v++) {
		if (isnan(all_s[v]) && !isnan(ok_s[v]))
			all_s[v] = ok_s[v] + fail_s[v];
		from_s[v] = isnan(all_s[v]) ? NULL : "counters";
	}
	ri->failed_from = isnan(failed) ? NULL : "counters";
	if (isnan(failed) || isnan(all_s[SRV_VLLM])) {
		/* no counter says: the access lines of vLLM's server log, when any */
		struct access_acc acc = {cx, 0, 0, false};

		if ((rc = gl_query_access_requests(cx->q, cx->p->since_us, cx->p->until_us,
						   on_access, &acc, cx->err)) != GL_OK)
			return rc;
		if (acc.any && isnan(all_s[SRV_VLLM])) {
			all_s[SRV_VLLM] = (double)acc.requests;
			from_s[SRV_VLLM] = "access_lines";
		}
		if (acc.any && isnan(failed)) {
			failed = (double)acc.failed;
			ri->failed_from = "access_lines";
		}
	}
	/*
	 * One request is one request: BitNet-rs records and the server's
	 * bitnet_* request counter describe the same requests, so the records
	 * count them only when no counter does.
	 */
	uint64_t records = bitnet_records(in);

	if (isnan(all_s[SRV_BITNET]) && records) {
		all_s[SRV_BITNET] = (double)records;
		from_s[SRV_BITNET] = "records";
	}
	double all = NAN;

	ri->requests_from = NULL;
	for (int v = 0; v < SRV_COUNT; v++) {
		if (!from_s[v])
			continue;
		all = add(all, all_s[v]);
		ri->server_requests[v] = all_s[v];
		ri->server_from[v] = from_s[v];
		if (!ri->requests_from)
			ri->requests_from = from_s[v];
		else if (strcmp(ri->requests_from, from_s[v]))
			ri->requests_from = "mixed";
	}
	ri->requests = all;
	ri->failed = failed;
	ri->failed_pct = !isnan(failed) && all > 0 ? failed * 100 / all : NAN;
	return GL_OK;
}

struct bucket {
	double le, cum;
};

static int cmp_bucket(const void *pa, const void *pb)
{
	const struct bucket *a = pa, *b = pb;

	return a->le < b->le ? -1 : a->le > b->le;
}

static int finish_histograms(struct gl_section_ctx *cx, struct inference *in)
{
	struct gl_report_inference *ri = &in->res;
	struct bucket *b = malloc((in->ss.n_qs ? in->ss.n_qs : 1) * sizeof(*b));
	double *le = malloc((in->ss.n_qs ? in->ss.n_qs : 1) * sizeof(*le));
	double *cum = malloc((in->ss.n_qs ? in->ss.n_qs : 1) * sizeof(*cum));
	int rc = GL_OK;

	ri->histograms = calloc(in->n_groups ? in->n_groups : 1, sizeof(*ri->histograms));
	if (!b || !le || !cum || !ri->histograms) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t g = 0; g < in->n_groups; g++) {
		struct gl_report_prom_histogram *h = &ri->histograms[ri->n_histograms];
		bool single = false;
		size_t nb = 0;

		for (size_t i = 0; i < in->ss.n_qs; i++)
			if (in->rows[i].kind == ROW_BUCKET && in->rows[i].group == g && in->rows[i].n)
				single |= in->rows[i].n < 2;
		for (size_t i = 0; i < in->ss.n_qs; i++) {
			const struct row *r = &in->rows[i];

			if (r->kind == ROW_BUCKET && r->group == g && r->n)
				b[nb++] = (struct bucket){r->le, single ? r->ctr.prev : r->ctr.rises};
		}
		if (!nb)
			continue;
		ri->n_histograms++;
		qsort(b, nb, sizeof(*b), cmp_bucket);
		h->metric = strdup(in->groups[g].family);
		h->host = strdup(gl_section_name(cx, in->groups[g].host_id));
		h->labels = strdup(in->groups[g].labels);
		if (!h->metric || !h->host || !h->labels) {
			rc = gl_section_oom(cx->err);
			goto out;
		}
		h->cumulative = single;
		h->buckets = nb;
		h->count = isinf(b[nb - 1].le) ? b[nb - 1].cum : NAN;
		const double qs[3] = {0.5, 0.95, 0.99};
		double *res[3] = {&h->p50, &h->p95, &h->p99};

		for (int k = 0; k < 3; k++) {
			for (size_t j = 0; j < nb; j++) {
				le[j] = b[j].le;
				cum[j] = b[j].cum;
			}
			*res[k] = gl_stats_histogram_quantile(qs[k], le, cum, nb);
		}
	}
	qsort(ri->histograms, ri->n_histograms, sizeof(*ri->histograms), cmp_hist);
out:
	free(b);
	free(le);
	free(cum);
	return rc;
}

/* A bucket row of a histogram: its upper bound, its row of ss.qs. */
struct hbucket {
	double le;
	size_t row;
};

static int cmp_hbucket(const void *pa, const void *pb)
{
	const struct hbucket *a = pa, *b = pb;

	return a->le < b->le ? -1 : a->le > b->le;
}

/* Adds a trend of a histogram's quantile per interval (v at ts, in time order). */
static int hist_trend(struct gl_section_ctx *cx, struct inference *in, size_t g, const char *q,
		      const int64_t *ts, const double *v, size_t n)
{
	struct gl_fit_acc fit;
	struct gl_trend_ends e;
	struct gl_report_trend *t;
	char name[640];

	gl_fit_acc_init(&fit);
	for (size_t k = 0; k < n; k++)
		gl_fit_acc_add(&fit, gl_section_days(cx, ts[k]), v[k]);
	if (!(t = gl_trend_list_add(&in->trends, 1)))
		return gl_section_oom(cx->err);
	gl_section_trend(cx, &fit, ts[0], ts[n - 1], t);
	t->series = GL_TREND_INFERENCE;
	t->unit = ends_with(in->groups[g].family, "_seconds") ? "s" : "";
	snprintf(name, sizeof(name), "%s%s%s %s", in->groups[g].family,
		 strcmp(in->groups[g].labels, "{}") ? " " : "",
		 strcmp(in->groups[g].labels, "{}") ? in->groups[g].labels : "", q);
	if (!(t->kernel = strdup(name)))
		return gl_section_oom(cx->err);
	gl_trend_ends_of(v, n, &e);
	gl_trend_judge(t, &e, cx->cfg->trend_min_change_pct);
	return GL_OK;
}

/*
 * Each histogram trended by its quantiles, as Prometheus'
 * histogram_quantile(q, increase(..._bucket[interval])): per interval
 * between two scrapes, the buckets' increases (a fall a restart from zero)
 * give a p50 and a p95 at the interval's end; intervals without an
 * observation give none. Its buckets must be scraped together (the same
 * times); at least 3 intervals with observations make a trend, named
 * "<family> <labels> p50|p95", in seconds for a *_seconds family. The
 * histogram's raw _bucket, _count and _sum are never trended.
 */
static int trend_histograms(struct gl_section_ctx *cx, struct inference *in)
{
	size_t n_rows = in->ss.n_qs ? in->ss.n_qs : 1;
	struct hbucket *b = malloc(n_rows * sizeof(*b));
	size_t *idx = malloc(n_rows * sizeof(*idx));
	double *le = malloc(n_rows * sizeof(*le)), *cum = malloc(n_rows * sizeof(*cum));
	int64_t *ts = NULL;
	double *p50 = NULL, *p95 = NULL;
	int rc = GL_OK;

	if (!b || !idx || !le || !cum) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t g = 0; g < in->n_groups && rc == GL_OK; g++) {
		size_t nb = 0, ns = 0, np = 0;
		bool same = true;

		for (size_t i = 0; i < in->ss.n_qs; i++)
			if (in->rows[i].kind == ROW_BUCKET && in->rows[i].group == g && in->rows[i].n_b)
				b[nb++] = (struct hbucket){in->rows[i].le, i};
		if (nb < 2)
			continue;
		qsort(b, nb, sizeof(*b), cmp_hbucket);
		for (size_t j = 0; j < nb; j++)
			idx[j] = b[j].row;
		ns = in->rows[idx[0]].n_b;
		for (size_t j = 1; j < nb && same; j++) {
			const struct row *r = &in->rows[idx[j]];

			same = r->n_b == ns &&
			       !memcmp(r->b_ts_us, in->rows[idx[0]].b_ts_us, ns * sizeof(int64_t));
		}
		if (!same || ns < 4)
			continue;
		free(ts);
		free(p50);
		free(p95);
		ts = malloc(ns * sizeof(*ts));
		p50 = malloc(ns * sizeof(*p50));
		p95 = malloc(ns * sizeof(*p95));
		if (!ts || !p50 || !p95) {
			rc = gl_section_oom(cx->err);
			goto out;
		}
		for (size_t k = 1; k < ns; k++) {
			for (size_t j = 0; j < nb; j++) {
				const struct row *r = &in->rows[idx[j]];
				double d = r->b_v[k] - r->b_v[k - 1];

				le[j] = b[j].le;
				cum[j] = d >= 0 ? d : r->b_v[k];
			}
			double q50 = gl_stats_histogram_quantile(0.5, le, cum, nb);
			double q95 = gl_stats_histogram_quantile(0.95, le, cum, nb);

			if (isnan(q50) || isnan(q95))
				continue;
			ts[np] = in->rows[idx[0]].b_ts_us[k];
			p50[np] = q50;
			p95[np++] = q95;
		}
		if (np < 3)
			continue;
		if ((rc = hist_trend(cx, in, g, "p50", ts, p50, np)) == GL_OK)
			rc = hist_trend(cx, in, g, "p95", ts, p95, np);
	}
out:
	free(b);
	free(idx);
	free(le);
	free(cum);
	free(ts);
	free(p50);
	free(p95);
	return rc;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct inference *in = st;
	struct gl_report_inference *ri = &((struct inference *)st)->res;
	int rc;

	for (int q = 0; q < Q_COUNT; q++) {
		gl_trend_ends_of(in->acc[q].v, in->acc[q].n, &in->acc[q].ends);
		dist_of(&in->acc[q], dist_at(ri, (enum quantity)q));
	}
	if ((rc = finish_counters(cx, in)) != GL_OK || (rc = finish_histograms(cx, in)) != GL_OK)
		return rc;
	for (int q = 0; q < Q_COUNT; q++) {
		struct qacc *a = &in->acc[q];
		struct gl_report_trend *t;

		if (q == Q_TOKENS || !a->n)
			continue;
		if (!(t = gl_trend_list_add(&in->trends, 1)))
			return gl_section_oom(cx->err);
		/*
		 * BitNet-rs records carry no time: a run's records share one
		 * estimated instant, and are trended in their order.
		 */
		if (a->first_ts_us == a->last_ts_us && a->n >= 3)
			gl_section_trend_by_order(cx, &a->fit_order, a->first_ts_us, t);
		else
			gl_section_trend(cx, &a->fit, a->first_ts_us, a->last_ts_us, t);
		t->series = GL_TREND_INFERENCE;
		t->unit = quantities[q].unit;
		if (!(t->kernel = strdup(quantities[q].name)))
			return gl_section_oom(cx->err);
		/* the direction (tokens/s up is good) and the change from the data's ends */
		gl_trend_judge(t, &a->ends, cx->cfg->trend_min_change_pct);
	}
	/* each counter as its rate per second ("<metric> <labels> rate") */
	for (size_t i = 0; i < in->ss.n_qs; i++) {
		struct row *r = &in->rows[i];
		struct gl_trend_ends e;
		struct gl_report_trend *t;
		char name[640];

		if (r->kind != ROW_COUNTER || r->n_rate < 3)
			continue;
		if (!(t = gl_trend_list_add(&in->trends, 1)))
			return gl_section_oom(cx->err);
		gl_section_trend(cx, &r->rate_fit, r->rate_first_us, r->rate_last_us, t);
		t->series = GL_TREND_INFERENCE;
		t->unit = "/s";
		snprintf(name, sizeof(name), "%s%s%s rate", in->ss.metric[i],
			 in->ss.qs[i].labels ? " " : "", in->ss.qs[i].labels ? in->ss.qs[i].labels : "");
		if (!(t->kernel = strdup(name)))
			return gl_section_oom(cx->err);
		gl_trend_ends_of(r->rate, r->n_rate, &e);
		gl_trend_judge(t, &e, cx->cfg->trend_min_change_pct);
	}
	return trend_histograms(cx, in);
}

static void release(void *st)
{
	struct inference *in = st;

	for (int q = 0; q < Q_COUNT; q++)
		free(in->acc[q].v);
	for (size_t i = 0; i < in->n_groups; i++) {
		free(in->groups[i].family);
		free(in->groups[i].labels);
	}
	free(in->groups);
	for (size_t i = 0; in->rows && i < in->ss.n_qs; i++) {
		free(in->rows[i].rate);
		free(in->rows[i].b_ts_us);
		free(in->rows[i].b_v);
	}
	free(in->rows);
	for (int c = 0; c < C_COUNT; c++)
		gl_chart_cols_release(&in->cols[c]);
	gl_section_series_release(&in->ss);
	for (size_t i = 0; i < in->res.n_counters; i++) {
		free(in->res.counters[i].metric);
		free(in->res.counters[i].host);
		free(in->res.counters[i].labels);
	}
	free(in->res.counters);
	for (size_t i = 0; i < in->res.n_histograms; i++) {
		free(in->res.histograms[i].metric);
		free(in->res.histograms[i].host);
		free(in->res.histograms[i].labels);
	}
	free(in->res.histograms);
	gl_trend_list_release(&in->trends);
}

static const struct gl_trend_list *trend_list(const void *st)
{
	return &((const struct inference *)st)->trends;
}

/* The results in st; none (zero) for a report without the section's state. */
static const struct gl_report_inference *res_of(const void *st)
{
	static const struct gl_report_inference none;

	return st ? &((const struct inference *)st)->res : &none;
}

const struct gl_report_inference *gl_inference_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_inference));
}

/* ---- chart ------------------------------------------------------------- */

/*
 * One panel per line, stacked: vLLM's throughput, BitNet-rs' tokens/s and
 * TTFT; each over its own span (said in its title) when the spans differ.
 */
static int draw(const struct inference *in, const char *path, const struct gl_chart_opts *o,
		struct gl_err *err)
{
	static const struct {
		int line;
		const char *what, *y_label, *legend;
	} panels[] = {
		{C_TPS_VLLM, "vLLM generation", "throughput (tokens/s)",
		 "vLLM (server log)"},
		{C_TPS_BITNET, "BitNet-rs tokens/s", "throughput (tokens/s)",
		 "BitNet-rs (estimated times)"},
		{C_TTFT, "BitNet-rs TTFT", "TTFT (ms)",
		 "BitNet-rs (estimated times)"},
	};
	struct gl_chart_series ser[C_COUNT];
	struct gl_chart_panel p[C_COUNT];
	struct gl_chart_opts co = *o;
	char title[256], span[96], ptitle[C_COUNT][160];
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	bool same = true;
	size_t np = 0;

	for (size_t k = 0; k < C_COUNT; k++) {
		const struct gl_chart_cols *c = &in->cols[panels[k].line];

		if (!c->n)
			continue;
		same = same && (np == 0 || (c->t0_us == t0 && c->t1_us == t1));
		t0 = c->t0_us < t0 ? c->t0_us : t0;
		t1 = c->t1_us > t1 ? c->t1_us : t1;
		ser[np] = (struct gl_chart_series){panels[k].legend, c, GL_CHART_LINE,
						   panels[k].line == C_TPS_VLLM ? 1 : 0};
		memset(&p[np], 0, sizeof(p[np]));
		p[np].title = panels[k].what;
		p[np].y_label = panels[k].y_label;
		p[np].series = &ser[np];
		p[np].nseries = 1;
		p[np].legend = 1;
		np++;
	}
	/* a small panel's title holds 40 characters: its time axis tells the span */
	for (size_t k = 0; k < np && !same; k++) {
		const struct gl_chart_cols *c = p[k].series[0].cols;

		snprintf(ptitle[k], sizeof(ptitle[k]), "%s (own time axis)", p[k].title);
		p[k].title = ptitle[k];
		p[k].t0_us = c->t0_us;
		p[k].t1_us = c->t1_us;
	}
	gl_chart_window_text(t0, t1, span, sizeof(span));
	snprintf(title, sizeof(title), "Inference: throughput and time to first token \xC2\xB7 %s",
		 span);
	co.stacked = 1;
	if (!co.height_px && np > 2)
		co.height_px = 1200;
	return gl_chart_timeline(path, title, t0, t1, p, np, &co, err);
}

/*
 * inference.png, only when the window has tokens/s or TTFT samples; else
 * none (GL_CHART_NONE: a file of that name left in the output directory by
 * an earlier report is removed, so that index.html, which shows the charts
 * it finds there, does not show it).
 */
static int chart(const struct gl_report *rep, const void *st, const char *path,
		 const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct inference *in = st;
	bool any = false;

	(void)rep;
	for (int c = 0; in && in->chart && c < C_COUNT; c++)
		any |= in->cols[c].n > 0;
	return any ? draw(in, path, o, err) : GL_CHART_NONE;
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_INFERENCE, "Tokens generated per second and time to first token (ms) over time",
	 chart},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_inference = {
	.name = "inference",
	.title = "Inference",
	.state_size = sizeof(struct inference),
	.begin = begin,
	.collect_samples = collect_samples,
	.finish = finish,
	.release = release,
	.trend_list = trend_list,
	.emit_json = gl_inference_emit_json,
	.emit_csv = gl_inference_emit_csv,
	.emit_text = gl_inference_emit_text,
	.emit_html = gl_inference_emit_html,
	.charts = charts,
};
