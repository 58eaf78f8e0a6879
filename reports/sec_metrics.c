/*
 * sec_metrics.c - the metrics section: per metric series (table series:
 * one metric of one device on one host from one source format), its
 * samples of the window described: count, min, max, mean, percentiles,
 * last value, first and last time; a trend per series (series "metric").
 * Text: a compact table per GPU. Chart: gpu_telemetry.png (chart_telemetry.c).
 *
 * Filters: --metric globs on the metric name, --host globs on the series'
 * host; --component and --kernel do not apply to samples.
 *
 * Memory: one value per sample of the window (the percentiles are exact,
 * as for the kernels), stored in the narrowest type that keeps it exactly
 * (util/values.h: 2, 4 or 8 bytes), plus the chart's fixed per-column bins.
 *
 * Time: the series are described at the end, four side by side
 * (gl_stats_describe_many; one of 1M values or more alone, BIG_SERIES;
 * series kept as tenths from the tenths, gl_stats_describe_tenths, whatever
 * their length: no doubles made) on two threads, which take the next four from a
 * shared counter. Each series is described by one thread alone, in the
 * same steps whichever, so the figures do not depend on it.
 *
 * A backend that describes series on its side (ClickHouse,
 * gl_query_series_stats) is asked at begin for every listed series'
 * figures, last value, first and last time and least-squares sums, over
 * the samples the pass hands here; the pass then keeps none of their
 * values (the memory above), only the chart's bins, which need the
 * samples in time order, and the count of samples. A series the backend
 * did not describe is described here as above. (The trends' ends, the
 * medians of the first and last tenth, would need the values in time
 * order too; they are read after the values are released, so a metric
 * trend never has them, from either backend.)
 */
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emit_png.h"
#include "emit_util.h"
#include "gpu_inventory.h"
#include "sec_gpu_health.h"
#include "sec_metrics.h"
#include "table.h"
#include "ingest/vocab.h"
#include "section.h"
#include "trend_rules.h"
#include "sections.h"
#include "stats/stats.h"
#include "telemetry.h"
#include "util/timeutil.h"
#include "util/values.h"

struct mseries {
	const struct gl_query_series *qs;	/* borrowed from metrics.qs */
	const char *metric;		/* borrowed from the query's names */
	struct gl_values v;		/* values, time order, narrowest exact type */
	double last;
	int64_t first_ts_us, last_ts_us;
	struct gl_fit_acc fit;
	int panel;			/* telemetry panel (-1: none), trace (see telemetry.h) */
	int trace;
	bool created;			/* a Prometheus counter's "_created" time: not a metric */
	bool srv;			/* described by the backend: srv_desc, and the fields above */
	struct gl_stats_desc srv_desc;
};

struct metrics {
	struct gl_metrics_result res;	/* first: see sec_metrics.h */
	struct gl_section_series ss;	/* the series table and its index */
	struct mseries *ser;		/* one per ss.qs row, same order */
	struct gl_telemetry tel;	/* the chart's reduced series */
	int64_t days_ts_us;		/* the last sample's time, and it in days for the trends */
	double days;
	struct gl_trend_list trends;	/* one per series */
	/* the listed series (rep->top_series), shallow copies in table order, when
	 * fewer than every series are listed; NULL: every one is */
	struct gl_report_metric *listed;
};

/* The unit of a metric name: the vocabulary's, else its suffix's, else "". */
static const char *unit_of(const char *metric)
{
	static const struct {
		const char *suffix, *unit;
	} suffixes[] = {
		{"_kib_s", "KiB/s"}, {"_pct", "%"}, {"_mib", "MiB"}, {"_mhz", "MHz"},
		{"_w", "W"},	     {"_c", "C"},
	};
	const char *u = gl_vocab_unit(metric);
	size_t len = strlen(metric);

	if (u)
		return u;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t sl = strlen(suffixes[i].suffix);

		if (len > sl && !strcmp(metric + len - sl, suffixes[i].suffix))
			return suffixes[i].unit;
	}
	return "";
}

/* The samples of the series one statement of the backend describes, at most (ClickHouse:
 * some 100 bytes a sample there, as the kernels' SRV_GROUP_TIMINGS). */
#define SRV_GROUP_SAMPLES 1000000u

static int on_series_stats(void *arg, const struct gl_query_series_stats *st)
{
	struct metrics *m = arg;
	long row = gl_section_series_row(&m->ss, st->series_id);
	struct mseries *s;

	if (row < 0 || m->ser[row].created)
		return GL_OK;
	s = &m->ser[row];
	/* the sums from the server's aggregate states: used when they are sums at
	 * all (a state of another layout is not), else the series is described here */
	if (!(st->fit_sxx >= 0 && st->fit_syy >= 0 &&
	      fabs(st->fit_mean - st->mean) <= 1e-9 * fabs(st->mean)))
		return GL_OK;
	s->srv = true;
	s->srv_desc = (struct gl_stats_desc){
		.n = st->n, .min = st->min, .max = st->max, .mean = st->mean, .sd = NAN, .var = NAN,
		.p50 = st->p50, .p90 = NAN, .p95 = st->p95, .p99 = st->p99, .sum = NAN};
	s->last = st->last;
	s->first_ts_us = st->first_ts_us;
	s->last_ts_us = st->last_ts_us;
	s->fit = (struct gl_fit_acc){.n = st->n, .mean_x = st->fit_mean_days, .mean_y = st->fit_mean,
				     .sxx = st->fit_sxx, .syy = st->fit_syy, .sxy = st->fit_sxy};
	return GL_OK;
}

/* The series' figures from the backend, for the series the pass would describe. */
static int describe_on_server(struct gl_section_ctx *cx, struct metrics *m)
{
	int64_t *ids = malloc((m->ss.n_qs ? m->ss.n_qs : 1) * sizeof(*ids));
	size_t n = 0;
	int rc;

	if (!ids)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < m->ss.n_qs; i++)
		if (gl_section_series_row(&m->ss, m->ss.qs[i].id) >= 0 && !m->ser[i].created)
			ids[n++] = m->ss.qs[i].id;
	rc = gl_query_series_stats(cx->q, cx->p->since_us, cx->p->until_us, ids, n,
				   SRV_GROUP_SAMPLES, on_series_stats, m, cx->err);
	free(ids);
	return rc;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct metrics *m = st;
	int rc = gl_section_series_load(cx, &m->ss);

	if (rc != GL_OK)
		return rc;
	m->days_ts_us = GL_TS_NONE;
	m->ser = calloc(m->ss.n_qs ? m->ss.n_qs : 1, sizeof(*m->ser));
	if (!m->ser)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < m->ss.n_qs; i++) {
		struct mseries *s = &m->ser[i];

		s->qs = &m->ss.qs[i];
		s->metric = m->ss.metric[i];
		s->first_ts_us = s->last_ts_us = GL_TS_NONE;
		s->panel = s->trace = -1;
		gl_fit_acc_init(&s->fit);
		/* vllm:prompt_tokens_created{engine="0"} 1.7e9: when the counter was
		 * made, seconds since 1970; as a metric its trend is nonsense */
		size_t ml = strlen(s->metric);

		s->created = ml > 8 && !strcmp(s->metric + ml - 8, "_created") && s->qs->source &&
			     !strncmp(s->qs->source, "prom", 4);
	}
	if (gl_query_describes_series(cx->q) && (rc = describe_on_server(cx, m)) != GL_OK)
		return rc;
	if (cx->rep->axis.charts) {
		int64_t t0 = GL_TS_NONE, t1 = GL_TS_NONE;

		gl_telemetry_init(&m->tel, cx->p->since_us, cx->p->until_us);
		for (size_t i = 0; i < m->ss.n_qs; i++)
			if (gl_section_series_row(&m->ss, m->ss.qs[i].id) >= 0 &&
			    (rc = gl_telemetry_assign(&m->tel, m->ser[i].metric, m->ss.qs[i].device,
						      gl_section_name(cx, m->ss.qs[i].host_id),
						      &m->ser[i].panel, &m->ser[i].trace, cx->err)) != GL_OK)
				return rc;
		/*
		 * The chart's time axis: the span of the series it draws, not of
		 * every sample (the service's own figures, a host's CPU), which
		 * would squeeze a day of GPU readings into a corner of a week.
		 */
		int64_t *ids = malloc((m->ss.n_qs ? m->ss.n_qs : 1) * sizeof(*ids));
		size_t nids = 0;

		if (!ids)
			return gl_section_oom(cx->err);
		for (size_t i = 0; i < m->ss.n_qs; i++)
			if (m->ser[i].panel >= 0 && m->ser[i].trace >= 0)
				ids[nids++] = m->ss.qs[i].id;
		rc = gl_query_series_span(cx->q, ids, nids, cx->p->since_us, cx->p->until_us, &t0,
					  &t1, cx->err);
		free(ids);
		if (rc != GL_OK)
			return rc;
		if ((rc = gl_telemetry_span(&m->tel, t0, t1 == GL_TS_NONE ? t1 : t1 + 1,
					    cx->err)) != GL_OK)
			return rc;
	}
	return GL_OK;
}

static inline int collect_one(struct gl_section_ctx *cx, struct metrics *m,
			      const struct gl_query_sample *smp)
{
	long row = gl_section_series_row(&m->ss, smp->series_id);
	struct mseries *s;
	int rc;

	if (row < 0 || !isfinite(smp->value) || m->ser[row].created)
		return GL_OK;
	s = &m->ser[row];
	if (s->srv) {
		m->res.samples++;
		if (s->panel >= 0)
			gl_telemetry_add(&m->tel, s->panel, s->trace, smp->ts_us, smp->value);
		return GL_OK;
	}
	if ((rc = gl_values_push(&s->v, smp->value, cx->err)) != GL_OK)
		return rc;
	s->last = smp->value;
	if (s->first_ts_us == GL_TS_NONE)
		s->first_ts_us = smp->ts_us;
	s->last_ts_us = smp->ts_us;
	/* the samples of one time (every series of a reading) share the division */
	if (smp->ts_us != m->days_ts_us) {
		m->days_ts_us = smp->ts_us;
		m->days = gl_section_days(cx, smp->ts_us);
	}
	gl_fit_acc_add(&s->fit, m->days, smp->value);
	m->res.samples++;
	if (s->panel >= 0)
		gl_telemetry_add(&m->tel, s->panel, s->trace, smp->ts_us, smp->value);
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

/* The series' descriptions, on however many threads describe them. */
struct describe_job {
	struct mseries *ser;
	struct gl_stats_desc *desc;	/* one per ser, filled */
	size_t *order;			/* the series with samples, longest first */
	size_t n;			/* in order */
	atomic_size_t next;		/* the next four series to take (index into order) */
	atomic_bool oom;
	size_t group;			/* series of tenths described side by side, at most
					 * DESCRIBE_GROUP */
};

#define DESCRIBE_GROUP 4	/* series described side by side (gl_stats_describe_many) */
/*
 * A series' values are made doubles in place when it is described (the
 * narrow copy freed, no scratch copy beside them). One of this many values
 * or more is described alone: four side by side would hold four such
 * arrays of doubles at once, on each thread (a week of a service's figures:
 * 3 series of 7.5M values, 180 MB). The figures are the same alone or side
 * by side (stats.c: the same steps).
 */
#define BIG_SERIES ((size_t)1 << 20)

/* Series kept as tenths (util/values) are described from them, four side
 * by side whatever their length (no doubles are made: the same figures). */
static bool tenths(const struct describe_job *job, size_t at)
{
	return at < job->n && job->ser[job->order[at]].v.kind == GL_VALUES_T32;
}

/* The series order[at..) the take at at describes together: a run of up to
 * four of tenths; else one alone (BIG_SERIES) or four. */
static size_t take_at(const struct describe_job *job, size_t at)
{
	size_t take = 1;

	if (tenths(job, at)) {
		while (take < job->group && tenths(job, at + take))
			take++;
		return take;
	}
	return job->ser[job->order[at]].v.n >= BIG_SERIES ? 1 : DESCRIBE_GROUP;
}

static void *describe_some(void *arg)
{
	struct describe_job *job = arg;
	size_t at;

	for (;;) {
		at = atomic_load(&job->next);
		if (at >= job->n)
			break;
		size_t take = take_at(job, at);
		if (!atomic_compare_exchange_weak(&job->next, &at, at + take))
			continue;
		size_t g = job->n - at < take ? job->n - at : take;
		double *x[DESCRIBE_GROUP];
		size_t nv[DESCRIBE_GROUP];
		struct gl_stats_desc d[DESCRIBE_GROUP];

		if (tenths(job, at)) {
			int32_t *t[DESCRIBE_GROUP];

			for (size_t j = 0; j < g; j++) {
				nv[j] = job->ser[job->order[at + j]].v.n;
				t[j] = job->ser[job->order[at + j]].v.p;
			}
			gl_stats_describe_tenths(t, nv, g, d);
			for (size_t j = 0; j < g; j++) {
				job->desc[job->order[at + j]] = d[j];
				gl_values_release(&job->ser[job->order[at + j]].v);
			}
			continue;
		}
		for (size_t j = 0; j < g; j++) {
			struct gl_values *v = &job->ser[job->order[at + j]].v;

			nv[j] = v->n;
			if (gl_values_widen_doubles(v, &(struct gl_err){0}) != GL_OK) {
				atomic_store(&job->oom, true);
				return NULL;
			}
			x[j] = gl_values_doubles(v);
		}
		gl_stats_describe_many(x, nv, g, d);
		for (size_t j = 0; j < g; j++) {
			job->desc[job->order[at + j]] = d[j];
			gl_values_release(&job->ser[job->order[at + j]].v);
		}
	}
	return NULL;
}

/* A series to describe: its index and length. */
struct by_len {
	size_t n, i;
};

static int cmp_longest(const void *pa, const void *pb)
{
	const struct by_len *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Describes the series of ser[0..n) with samples into desc, four at a time
 * and longest first (four run side by side as far as the shortest of them
 * goes, so they had better be alike): a second thread takes its share when
 * there is enough to share; else, or when no thread can be made, this one
 * does all.
 */
static int describe_all(struct mseries *ser, struct gl_stats_desc *desc, size_t n)
{
	struct describe_job job = {.ser = ser, .desc = desc};
	struct by_len *by = malloc((n ? n : 1) * sizeof(*by));
	uint64_t samples = 0;
	pthread_t th;
	bool two = false;

	if (!by || !(job.order = malloc((n ? n : 1) * sizeof(*job.order)))) {
		free(by);
		return GL_ENOMEM;
	}
	atomic_init(&job.next, 0);
	atomic_init(&job.oom, false);
	for (size_t i = 0; i < n; i++) {
		if (!ser[i].v.n)
			continue;
		by[job.n++] = (struct by_len){ser[i].v.n, i};
		samples += ser[i].v.n;
	}
	qsort(by, job.n, sizeof(*by), cmp_longest);
	for (size_t k = 0; k < job.n; k++)
		job.order[k] = by[k].i;
	free(by);
	/*
	 * Up to four long series (a week of a service's three figures, 7.5M
	 * samples each) would be one take, on one thread: they are cut in two
	 * takes, one a thread (the figures are the same: each series' steps are
	 * its own, side by side or not).
	 */
	job.group = DESCRIBE_GROUP;
	if (job.n > 1 && job.n <= DESCRIBE_GROUP && samples >= 100000)
		job.group = (job.n + 1) / 2;
	if (job.n > job.group && samples >= 100000)
		two = pthread_create(&th, NULL, describe_some, &job) == 0;
	describe_some(&job);
	if (two)
		pthread_join(th, NULL);
	free(job.order);
	return atomic_load(&job.oom) ? GL_ENOMEM : GL_OK;
}

/* A device as a GPU index? Then its number, for the order 0, 1, ..., 10. */
static bool device_index(const char *d, long *idx)
{
	char *end;

	if (!*d || strspn(d, "0123456789") != strlen(d))
		return false;
	*idx = strtol(d, &end, 10);
	return true;
}

static int cmp_metric(const void *pa, const void *pb)
{
	const struct gl_report_metric *a = pa, *b = pb;
	long ia, ib;
	int c;

	if ((c = strcmp(a->host, b->host)) != 0)
		return c;
	bool na = device_index(a->device, &ia), nb = device_index(b->device, &ib);
	if (na != nb)
		return na ? -1 : 1;
	if (na && ia != ib)
		return ia < ib ? -1 : 1;
	if (!na && (c = strcmp(a->device, b->device)) != 0)
		return c;
	if ((c = strcmp(a->metric, b->metric)) != 0)
		return c;
	if ((c = strcmp(a->source, b->source)) != 0)
		return c;
	return strcmp(a->labels, b->labels);
}

/* labels.name, or "". */
static char *device_name_of(const char *labels)
{
	json_t *o = labels ? json_loads(labels, 0, NULL) : NULL;
	const char *n = json_string_value(json_object_get(o, "name"));
	char *r = strdup(n ? n : "");

	json_decref(o);
	return r;
}

/*
 * The verdict of a metric trend under degradation_detection (config.h):
 * enough samples (window_size) and a fitted change over the span of at least
 * threshold. Without it the trend keeps the trends' significance rule.
 */
static void degrade_verdict(const struct gl_report_config *cfg, struct gl_report_trend *t)
{
	double thr = cfg->degrade_threshold * 100;

	if (cfg->degrade_threshold <= 0)
		return;
	if (t->n < cfg->degrade_window || isnan(t->change_pct))
		t->verdict = GL_VERDICT_STABLE;
	else if (t->change_pct >= thr)
		t->verdict = GL_VERDICT_DEGRADING;
	else if (t->change_pct <= -thr)
		t->verdict = GL_VERDICT_IMPROVING;
	else
		t->verdict = GL_VERDICT_STABLE;
}

/*
 * Relevance of a series when there are more than top_series: one whose
 * trend is degrading first, then one that is not stable, then a GPU's own
 * figures (a gpu.* metric of a device), then the rest; within a rank the
 * table's order (cmp_metric).
 */
struct ranked {
	struct gl_report_metric *m;
	struct gl_report_trend *t;
	int rank;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return cmp_metric(a->m, b->m);
}

static int rank_of(const struct gl_report_metric *m, const struct gl_report_trend *t)
{
	if (t->verdict == GL_VERDICT_DEGRADING || t->verdict == GL_VERDICT_LEAK)
		return 0;
	if (t->verdict != GL_VERDICT_STABLE)
		return 1;
	return *m->device && !strncmp(m->metric, "gpu.", 4) ? 2 : 3;
}

/*
 * Marks the series beyond rep->top_series by relevance (and their trends) as
 * unlisted: a fleet's scrapes (5,000 GPUs x 6 fields) made 30,000 rows and
 * as many trends, a 28 MB report.json. Every series stays counted and its
 * trend feeds the alerts. The series i has the trend m->trends.items[tix[i]]
 * (SIZE_MAX: none, a hidden metric's: ranked as a stable one).
 * 0, or -1 when out of memory.
 */
static int mark_listed(struct metrics *m, const struct gl_report *rep, const size_t *tix)
{
	static const struct gl_report_trend stable = {.verdict = GL_VERDICT_STABLE};
	size_t n = m->res.n_metrics, cap = rep->top_series ? rep->top_series : 500;
	struct ranked *r;

	m->res.n_unlisted = 0;
	m->res.n_trends_unlisted = 0;
	if (n <= cap)
		return 0;
	if (!(r = malloc(n * sizeof(*r))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		r[i].m = &m->res.metrics[i];
		r[i].t = tix[i] == SIZE_MAX ? NULL : &m->trends.items[tix[i]];
		r[i].rank = rank_of(r[i].m, r[i].t ? r[i].t : &stable);
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = cap; i < n; i++) {
		r[i].m->unlisted = true;
		if (r[i].t) {
			r[i].t->unlisted = true;
			m->res.n_trends_unlisted++;
		}
	}
	m->res.n_unlisted = n - cap;
	free(r);
	return 0;
}

/* The listed series in table order, for the JSON and CSV tables (m->listed). */
static int copy_listed(struct metrics *m)
{
	size_t k = 0;

	if (!m->res.n_unlisted)
		return 0;
	if (!(m->listed = malloc((m->res.n_metrics - m->res.n_unlisted) * sizeof(*m->listed))))
		return -1;
	for (size_t i = 0; i < m->res.n_metrics; i++)
		if (!m->res.metrics[i].unlisted)
			m->listed[k++] = m->res.metrics[i];
	return 0;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct metrics *m = st;
	struct gl_stats_desc *desc;
	size_t n = 0, *tix;

	for (size_t i = 0; i < m->ss.n_qs; i++)
		n += m->ser[i].v.n > 0 || m->ser[i].srv;
	m->res.metrics = calloc(n ? n : 1, sizeof(*m->res.metrics));
	desc = calloc(m->ss.n_qs ? m->ss.n_qs : 1, sizeof(*desc));
	tix = malloc((n ? n : 1) * sizeof(*tix));
	if (!m->res.metrics || !desc || !tix) {
		free(desc);
		free(tix);
		return gl_section_oom(cx->err);
	}
	if (describe_all(m->ser, desc, m->ss.n_qs) != GL_OK)
		goto oom;
	for (size_t i = 0; i < m->ss.n_qs; i++)
		if (m->ser[i].srv)
			desc[i] = m->ser[i].srv_desc;
	for (size_t i = 0; i < m->ss.n_qs; i++) {
		struct mseries *s = &m->ser[i];
		struct gl_report_metric *rm = &m->res.metrics[m->res.n_metrics];
		const struct gl_stats_desc *d = &desc[i];

		if (!d->n)
			continue;
		tix[m->res.n_metrics++] = SIZE_MAX;
		rm->metric = strdup(s->metric);
		rm->unit = unit_of(s->metric);
		rm->device = strdup(s->qs->device ? s->qs->device : "");
		rm->device_name = device_name_of(s->qs->labels);
		rm->host = strdup(gl_section_name(cx, s->qs->host_id));
		rm->source = strdup(s->qs->source ? s->qs->source : "");
		rm->labels = strdup(s->qs->labels ? s->qs->labels : "{}");
		if (!rm->metric || !rm->device || !rm->device_name || !rm->host || !rm->source ||
		    !rm->labels)
			goto oom;
		rm->count = d->n;
		rm->min = d->min;
		rm->max = d->max;
		rm->mean = d->mean;
		rm->p50 = d->p50;
		rm->p95 = d->p95;
		rm->p99 = d->p99;
		rm->last = s->last;
		rm->first_ts_us = s->first_ts_us;
		rm->last_ts_us = s->last_ts_us;
		/* a counter's running total, a histogram's parts, _created: no trend */
		if (gl_trend_hidden_metric(rm->metric))
			continue;
		struct gl_report_trend *t = gl_trend_list_add(&m->trends, 1);
		if (!t)
			goto oom;
		tix[m->res.n_metrics - 1] = m->trends.n - 1;
		gl_section_trend(cx, &s->fit, s->first_ts_us, s->last_ts_us, t);
		degrade_verdict(cx->cfg, t);
		t->series = GL_TREND_METRIC;
		t->unit = rm->unit;
		t->kernel = strdup(rm->metric);
		t->device = strdup(rm->device);
		t->host = strdup(rm->host);
		if (!t->kernel || !t->device || !t->host)
			goto oom;
		/* the data's ends, read only where the fitted line leaves its range or
		 * gives no change */
		struct gl_trend_ends e = {NAN, NAN, d->min, d->max};

		if (isnan(t->change_pct) || t->fit_first < d->min || t->fit_first > d->max ||
		    t->fit_last < d->min || t->fit_last > d->max) {
			double *v = malloc(s->v.n * sizeof(*v));

			if (!v)
				goto oom;
			gl_values_get(&s->v, v);
			gl_trend_ends_of(v, s->v.n, &e);
			free(v);
		}
		gl_trend_judge(t, &e, cx->cfg->trend_min_change_pct);
	}
	free(desc);
	if (mark_listed(m, cx->rep, tix) != 0) {
		free(tix);
		return gl_section_oom(cx->err);
	}
	free(tix);
	qsort(m->res.metrics, m->res.n_metrics, sizeof(*m->res.metrics), cmp_metric);
	if (copy_listed(m) != 0)
		return gl_section_oom(cx->err);
	return GL_OK;
oom:
	free(desc);
	free(tix);
	return gl_section_oom(cx->err);
}

static void release(void *st)
{
	struct metrics *m = st;

	for (size_t i = 0; m->ser && i < m->ss.n_qs; i++)
		gl_values_release(&m->ser[i].v);
	free(m->ser);
	gl_section_series_release(&m->ss);
	gl_telemetry_release(&m->tel);
	for (size_t i = 0; i < m->res.n_metrics; i++) {
		struct gl_report_metric *x = &m->res.metrics[i];

		free(x->metric);
		free(x->device);
		free(x->device_name);
		free(x->host);
		free(x->source);
		free(x->labels);
	}
	free(m->res.metrics);
	free(m->listed);
	gl_trend_list_release(&m->trends);
}

static const struct gl_trend_list *trend_list(const void *st)
{
	return &((const struct metrics *)st)->trends;
}

/* The results in st; none for a report without the section's state. */
static const struct gl_metrics_result *res_of(const void *st)
{
	static const struct gl_metrics_result none;

	return st ? &((const struct metrics *)st)->res : &none;
}

const struct gl_metrics_result *gl_metrics_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_metrics));
}

/* A listed series as the tables show it: the series, and the GPU of the nvidia-smi -q
 * inventory it is (gpu_inventory.h; JSON only). */
struct series_row {
	struct gl_report_metric m;	/* first: the metric's cells take the row as it */
	const struct gl_device *inv;	/* NULL: none, or not looked up */
	enum gl_device_join by;
};

#define M(f) offsetof(struct series_row, m.f)

/* JSON: the inventory's GPU: its index, uuid, PCI bus and how the series was joined. */
static json_t *inventory_of(const void *row)
{
	const struct series_row *r = row;
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "index", json_integer(r->inv->index));
	json_object_set_new(o, "uuid", r->inv->uuid ? json_string(r->inv->uuid) : json_null());
	json_object_set_new(o, "pci", r->inv->pci ? json_string(r->inv->pci) : json_null());
	json_object_set_new(o, "by", json_string(gl_device_join_name(r->by)));
	return o;
}

static bool no_inventory(const void *row)
{
	return !((const struct series_row *)row)->inv;
}

/* HTML: a series' name: the metric, and a histogram bucket's bound ("_bucket le=0.5"). */
static void html_metric_name(FILE *f, const void *row)
{
	const struct gl_report_metric *m = row;
	json_t *o = m->labels && strstr(m->labels, "\"le\"") ? json_loads(m->labels, 0, NULL) : NULL;
	json_t *le = o ? json_object_get(o, "le") : NULL;

	gl_html_text(f, m->metric);
	if (json_is_string(le)) {
		fputs(" <small>le=", f);
		gl_html_text(f, json_string_value(le));
		fputs("</small>", f);
	}
	json_decref(o);
}

/* HTML: the heading of one GPU's rows (or of the host's own series). */
static void html_series_group(FILE *f, const void *row)
{
	const struct gl_report_metric *m = row;

	gl_html_text(f, *m->host ? m->host : "(no host)");
	fputs(" / ", f);
	if (*m->device) {
		fputs("GPU ", f);
		gl_html_text(f, m->device);
	} else {
		fputs("no GPU", f);
	}
}

static bool same_series_group(const void *prev, const void *row)
{
	const struct gl_report_metric *a = prev, *b = row;

	return !strcmp(a->host, b->host) && !strcmp(a->device, b->device);
}

/* The series: JSON (every column), CSV (by csv position: no inventory) and HTML (grouped per
 * GPU); the text table is per GPU (gpu_cols). */
static const struct gl_col cols[] = {
	{"metric", GL_COL_TEXT, M(metric), GL_COL_NAME, 0, NULL, 0, 1, "metric", 0, NULL, 1, 0, NULL,
	 NULL, NULL, html_metric_name},
	{"unit", GL_COL_TEXT, M(unit), 0, 0, NULL, 0, 2, "unit", 0, NULL, 2},
	{"device", GL_COL_TEXT, M(device), 0, 0, NULL, 0, 4, "device", 0, NULL, 3},
	{"device_name", GL_COL_TEXT, M(device_name), 0, 0, NULL, 0, 5, "name", 0, NULL, 4},
	{"host", GL_COL_TEXT, M(host), 0, 0, NULL, 0, 3, "host", 0, NULL, 5},
	{"source", GL_COL_TEXT, M(source), 0, 0, NULL, 0, 6, "source", 0, NULL, 6},
	{"labels", GL_COL_JSON, M(labels), 0, 0, NULL, 0, 0, NULL, 0, NULL, 7},
	{"count", GL_COL_U64, M(count), 0, 0, NULL, 0, 7, "count", 0, NULL, 8},
	{"min", GL_COL_NUM, M(min), 0, 0, NULL, 0, 8, "min", 0, NULL, 9},
	{"max", GL_COL_NUM, M(max), 0, 0, NULL, 0, 13, "max", 0, NULL, 10},
	{"mean", GL_COL_NUM, M(mean), 0, 0, NULL, 0, 9, "mean", 0, NULL, 11},
	{"p50", GL_COL_NUM, M(p50), 0, 0, NULL, 0, 10, "p50", 0, NULL, 12},
	{"p95", GL_COL_NUM, M(p95), 0, 0, NULL, 0, 11, "p95", 0, NULL, 13},
	{"p99", GL_COL_NUM, M(p99), 0, 0, NULL, 0, 12, "p99", 0, NULL, 14},
	{"last", GL_COL_NUM, M(last), 0, 0, NULL, 0, 14, "last", 0, NULL, 15},
	{"first_ts", GL_COL_TS, M(first_ts_us), 0, 0, NULL, 0, 0, NULL, 0, NULL, 16},
	{"last_ts", GL_COL_TS, M(last_ts_us), 0, 0, NULL, 0, 0, NULL, 0, NULL, 17},
	{"inventory", GL_COL_JSON, 0, 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_inventory,
	 inventory_of},
};

static const struct gl_table table = {.cols = cols, .n_cols = sizeof(cols) / sizeof(cols[0]),
				      .row_size = sizeof(struct series_row),
				      .html_group = html_series_group,
				      .same_group = same_series_group};

/*
 * The listed series (rep->top_series; summary: series_total) in table order (free them),
 * each with the GPU of the inventory it is when inventory; NULL when out of memory.
 */
static struct series_row *series_rows_of(const struct gl_report *r, const void *st,
					 bool inventory, size_t *n)
{
	const struct gl_metrics_result *res = res_of(st);
	const struct metrics *m = st;
	const struct gl_report_metric *listed = m && m->listed ? m->listed : res->metrics;
	struct series_row *rows;

	*n = m && m->listed ? res->n_metrics - res->n_unlisted : res->n_metrics;
	rows = calloc(*n ? *n : 1, sizeof(*rows));
	for (size_t i = 0; rows && i < *n; i++) {
		rows[i].m = listed[i];
		if (inventory)
			rows[i].inv = gl_inventory_match(gl_report_inventory(r), rows[i].m.host,
							 rows[i].m.device, rows[i].m.labels,
							 &rows[i].by);
	}
	return rows;
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	size_t n;
	struct series_row *rows = series_rows_of(r, st, true, &n);
	json_t *a = rows ? gl_table_json(&table, rows, n) : NULL;

	free(rows);
	return a;
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t n;
	struct series_row *rows = series_rows_of(r, st, false, &n);

	gl_table_csv(&table, rows, rows ? n : 0, fp);
	free(rows);
}

/*
 * The series of metric on host/device with the most samples (two sources
 * may measure the same quantity), or NULL.
 */
static const struct gl_report_metric *pick(const struct gl_metrics_result *res, size_t from, size_t to,
					   const char *metric)
{
	const struct gl_report_metric *best = NULL;

	for (size_t i = from; i < to; i++)
		if (!strcmp(res->metrics[i].metric, metric) && (!best || res->metrics[i].count > best->count))
			best = &res->metrics[i];
	return best;
}

static double stat_or_nan(const struct gl_report_metric *m, int which)
{
	if (!m)
		return NAN;
	return which == 0 ? m->mean : which == 1 ? m->p95 : m->max;
}

/*
 * The GPUs' own figures, one row per GPU (host and device with gpu.*
 * metrics): the text's and the page's per-GPU summary. Each figure is the
 * series' of the most samples among those of one quantity (pick).
 */
struct gpu_row {
	const char *host, *device;	/* borrowed from the result */
	size_t first, end;		/* its series: res->metrics[first..end) */
	double util_mean_pct, util_p95_pct, mem_peak_mib, mem_installed_mib;
	double power_mean_w, power_max_w, temp_max_c;
	const char *throttle;		/* HTML: the reasons seen, "none", "-" when unknown */
};

/* The next GPU's row at or after *i (advanced past it); 0 when there is none. */
static int next_gpu(const struct gl_metrics_result *res, size_t *i, struct gpu_row *g)
{
	while (*i < res->n_metrics) {
		size_t first = *i, j = first;
		bool gpu = false;

		while (j < res->n_metrics && !strcmp(res->metrics[j].host, res->metrics[first].host) &&
		       !strcmp(res->metrics[j].device, res->metrics[first].device)) {
			gpu |= !strncmp(res->metrics[j].metric, "gpu.", 4);
			j++;
		}
		*i = j;
		if (!gpu || !*res->metrics[first].device)
			continue;
		g->host = res->metrics[first].host;
		g->device = res->metrics[first].device;
		g->first = first;
		g->end = j;
		g->util_mean_pct = stat_or_nan(pick(res, first, j, "gpu.utilization_pct"), 0);
		g->util_p95_pct = stat_or_nan(pick(res, first, j, "gpu.utilization_pct"), 1);
		g->mem_peak_mib = stat_or_nan(pick(res, first, j, "gpu.memory_used_mib"), 2);
		g->mem_installed_mib = stat_or_nan(pick(res, first, j, "gpu.memory_total_mib"), 2);
		g->power_mean_w = stat_or_nan(pick(res, first, j, "gpu.power_w"), 0);
		g->power_max_w = stat_or_nan(pick(res, first, j, "gpu.power_w"), 2);
		g->temp_max_c = stat_or_nan(pick(res, first, j, "gpu.temperature_c"), 2);
		return 1;
	}
	return 0;
}

/* Text: "host/0", the GPU's device on its host. */
static const char *gpu_who(const void *row, char *buf, size_t n)
{
	const struct gpu_row *g = row;

	snprintf(buf, n, "%s%s%s", g->host, *g->host ? "/" : "", g->device);
	return buf;
}

/* HTML: "host / GPU 0". */
static void gpu_html_who(FILE *f, const void *row)
{
	const struct gpu_row *g = row;

	if (*g->host) {
		gl_html_text(f, g->host);
		fputs(" / ", f);
	}
	fputs("GPU ", f);
	gl_html_text(f, g->device);
}

#define G(f) offsetof(struct gpu_row, f)

/* A GPU's own figures: text (a line each, the figures an engineer looks at first) and
 * HTML (with installed memory and throttle reasons). */
static const struct gl_col gpu_cols[] = {
	{.name = "gpu", .kind = GL_COL_TEXT, .offset = G(host), .flags = GL_COL_NAME,
	 .text_pos = 1, .text_head = "host/gpu", .text_w = 28, .html_pos = 1, .html_head = "GPU",
	 .html_cell = gpu_html_who, .text_cell = gpu_who},
	{.name = "util_mean_pct", .kind = GL_COL_NUM, .offset = G(util_mean_pct), .text_pos = 2,
	 .text_head = "util avg", .text_w = 9, .text_unit = "%", .html_pos = 2,
	 .html_head = "utilisation mean %"},
	{.name = "util_p95_pct", .kind = GL_COL_NUM, .offset = G(util_p95_pct), .text_pos = 3,
	 .text_head = "util p95", .text_w = 9, .text_unit = "%", .html_pos = 3,
	 .html_head = "utilisation p95 %"},
	{.name = "mem_peak_mib", .kind = GL_COL_NUM, .offset = G(mem_peak_mib), .text_pos = 4,
	 .text_head = "mem peak", .text_w = 10, .text_unit = "MiB", .html_pos = 4,
	 .html_head = "memory peak MiB"},
	{.name = "mem_installed_mib", .kind = GL_COL_NUM, .offset = G(mem_installed_mib),
	 .html_pos = 5, .html_head = "memory installed MiB"},
	{.name = "power_mean_w", .kind = GL_COL_NUM, .offset = G(power_mean_w), .text_pos = 5,
	 .text_head = "power avg", .text_w = 9, .text_unit = "W", .html_pos = 6,
	 .html_head = "power mean W"},
	{.name = "power_max_w", .kind = GL_COL_NUM, .offset = G(power_max_w), .text_pos = 6,
	 .text_head = "power max", .text_w = 9, .text_unit = "W", .html_pos = 7,
	 .html_head = "power max W"},
	{.name = "temp_max_c", .kind = GL_COL_NUM, .offset = G(temp_max_c), .text_pos = 7,
	 .text_head = "temp", .text_w = 7, .text_unit = "max C", .html_pos = 8,
	 .html_head = "temperature max °C"},
	{.name = "throttle", .kind = GL_COL_TEXT, .offset = G(throttle), .html_pos = 9,
	 .html_head = "throttle reasons seen"},
};

static const struct gl_table gpu_table = {.cols = gpu_cols,
					  .n_cols = sizeof(gpu_cols) / sizeof(gpu_cols[0]),
					  .row_size = sizeof(struct gpu_row), .html_class = "gpus"};

static const char *throttle_of(const struct gl_report *rep, const char *host, const char *device);

/* The GPUs' rows (free them), with their throttle reasons; NULL when out of memory. */
static struct gpu_row *gpu_rows_of(const struct gl_report *rep, const struct gl_metrics_result *res,
				   size_t *n)
{
	struct gpu_row g, *rows;
	size_t k = 0;

	*n = 0;
	for (size_t i = 0; next_gpu(res, &i, &g);)
		(*n)++;
	if (!(rows = malloc((*n ? *n : 1) * sizeof(*rows))))
		return NULL;
	for (size_t i = 0; k < *n && next_gpu(res, &i, &rows[k]); k++) {
		const char *thr = throttle_of(rep, rows[k].host, rows[k].device);

		rows[k].throttle = !thr ? "-" : *thr ? thr : "none";
	}
	return rows;
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_metrics_result *res = res_of(st);
	size_t gpus = 0, shown;
	struct gpu_row *rows;

	if (!res->n_metrics) {
		fprintf(fp, "no metric samples\n");
		return;
	}
	rows = gpu_rows_of(r, res, &gpus);
	shown = gpus < r->top ? gpus : r->top;
	if (rows && gpus)
		gl_table_text(&gpu_table, rows, shown, fp);
	free(rows);
	if (gpus > shown)
		fprintf(fp, "(%zu more GPUs)\n", gpus - shown);
	if (res->n_unlisted)
		fprintf(fp, "%zu series, %llu samples (%zu of %zu series in metrics.csv)\n",
			res->n_metrics, (unsigned long long)res->samples,
			res->n_metrics - res->n_unlisted, res->n_metrics);
	else
		fprintf(fp, "%zu series, %llu samples (all in metrics.csv)\n", res->n_metrics,
			(unsigned long long)res->samples);
}

/* "0000:3B:00.0", "00000000:3b:00": "3b:00", the bus and device, to match one GPU's. */
static void pci_key(const char *pci, char *out, size_t n)
{
	const char *p = pci ? strchr(pci, ':') : NULL;
	size_t w = 0;

	for (p = p ? p + 1 : ""; *p && *p != '.' && w + 1 < n; p++)
		out[w++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	out[w] = '\0';
}

/*
 * The clocks event (throttle) reasons nvidia-smi -q found active on GPU
 * device of host: the devices section gives its PCI bus, the gpu_health
 * section the reasons of that bus. NULL when either does not know.
 */
static const char *throttle_of(const struct gl_report *rep, const char *host, const char *device)
{
	const void *hst = gl_report_state_of(rep, &gl_sec_gpu_health);
	const struct gl_devices_result *dv = gl_report_inventory(rep);
	const struct gl_gpu_health_result *h = hst ? gl_gpu_health_result(hst) : NULL;
	char *end, a[32], b[32];
	long idx = strtol(device, &end, 10);

	if (!dv || !h || *end || end == device)
		return NULL;
	for (size_t i = 0; i < dv->n; i++) {
		const struct gl_device *d = &dv->dev[i];

		if (d->index != idx || strcmp(d->host ? d->host : "", host) || !d->pci)
			continue;
		pci_key(d->pci, a, sizeof(a));
		for (size_t k = 0; k < h->n_ecc; k++) {
			pci_key(h->ecc[k].pci, b, sizeof(b));
			if (*a && !strcmp(a, b))
				return h->ecc[k].clocks_event_reasons;
		}
	}
	return NULL;
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_metrics_result *res = res_of(st);
	struct gpu_row *gpus;
	struct series_row *rows;
	size_t n;

	if (res->n_metrics == 0) {
		fputs("<p>No metric samples in this window.</p>\n", f);
		return;
	}
	/* the page's per-GPU summary: the text's figures, installed memory and throttle reasons */
	if ((gpus = gpu_rows_of(rep, res, &n)) != NULL && n) {
		fputs("<h3>Per GPU</h3>\n", f);
		gl_table_html(&gpu_table, gpus, n, f);
	}
	free(gpus);
	fputs("<h3>Series</h3>\n", f);
	if ((rows = series_rows_of(rep, st, false, &n)) != NULL)
		gl_table_html(&table, rows, n, f);
	free(rows);
	if (res->n_unlisted)
		fprintf(f, "<p>%zu of %zu series listed: those with a degrading or changing trend, then"
			" the GPUs' own figures (--top-series).</p>\n", res->n_metrics - res->n_unlisted,
			res->n_metrics);
}

static int chart(const struct gl_report *rep, const void *st, const char *path,
		 const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct metrics *m = st;

	(void)rep;
	return gl_telemetry_draw(m ? &m->tel : NULL, path, o, err);
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_TELEMETRY,
	 "Per GPU: utilisation, memory in use and installed, power and temperature over time",
	 chart},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_metrics = {
	.name = "metrics",
	.title = "GPU and host metrics",
	.state_size = sizeof(struct metrics),
	.begin = begin,
	.collect_samples = collect_samples,
	.finish = finish,
	.release = release,
	.trend_list = trend_list,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
