/*
 * sec_kernels.c - the kernels section: per kernel, the durations of its
 * timings in the window (events.dur_us) described: count, min, max, mean,
 * standard deviation, percentiles, total; the log's own anomaly flags and
 * the mean memory in use of its events. Charts: the top kernels over time
 * and their histograms (sec_kernels.h), from the data it collects itself.
 *
 * Memory: a fixed state per kernel in the event pass (count, sum, flags,
 * memory); the first max(--top, --chart-top) kernels by total time are
 * listed, and in the kernel pass, which hands the timings kernel by
 * kernel, the durations of one listed kernel at a time are kept (the
 * percentiles need them all), in one buffer for all of them: described
 * when the next kernel begins. (A buffer per listed kernel, all held to
 * the end, was 72 MB of new memory on a 10M-event report: 8,000 page
 * faults.)
 *
 * Time: a listed kernel's durations are described (gl_stats_describe: the
 * moments and four selections, most of the kernel pass's time) by a thread
 * of their own while the pass fills a second buffer with the next
 * kernel's; its figures are recorded, in the pass's thread, when the next
 * listed kernel is handed over or at the end. So two buffers, and on a
 * 10M-event report about 0.2 s less. The figures are the same: each
 * kernel is described by one thread, in the same steps.
 *
 * A backend that describes kernels on its side (ClickHouse,
 * gl_query_kernel_stats) is asked for the listed kernels' figures at plan,
 * over the rows the kernel pass hands here (filters, mirrors, launch
 * copies); the pass then keeps a listed kernel's durations only for its
 * histogram (a charted kernel), and a kernel the backend did not describe
 * is described here as above.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "kernel_trace.h"
#include "kname.h"
#include "launch_once.h"
#include "sec_kernels.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"
#include "table.h"
#include "util/bigmem.h"

/* Per kernel in the event pass: fixed size, whatever the number of samples. */
struct kstate {
	int64_t id;
	const char *name;	/* borrowed from the query's names */
	uint64_t n, flagged, mem_n;
	double sum_us;		/* summed in time order, as gl_stats_describe sums */
	double mem_sum;
	size_t rank;		/* listed: index into res.kernels; else SIZE_MAX */
	struct gl_ktrace tr;	/* profiler-trace fields (kernel_trace.h) */
};

/* kstates come in slabs of this many: no allocation's header on each of a million */
#define KSTATE_SLAB 4096

struct kernels {
	struct gl_kernels_result res;	/* first: see sec_kernels.h */
	struct kstate **by_id;	/* per name id, into slabs */
	struct kstate **slabs;	/* the i-th kernel seen is slabs[i / KSTATE_SLAB][i % KSTATE_SLAB] */
	size_t n_slabs;
	int64_t *ids;		/* ids in order of first sight */
	size_t n, n_ids;
	bool *described;	/* per rank of the listed kernels */
	size_t n_listed;
	struct gl_chart_cols *cols;	/* charts: per rank, its timings over rep->axis */
	struct gl_kernels_chart chart;
	/* the kernel pass: the durations of the listed kernel it is on */
	size_t cur;		/* its rank; SIZE_MAX: none */
	bool keep_dur;		/* its durations are kept (described here, or charted) */
	/* per rank: the backend's figures (gl_query_kernel_stats), when from_srv */
	struct gl_stats_desc *srv;
	struct gl_fit_acc *srv_fit;	/* and the least-squares sums of the trends section */
	bool *from_srv;
	double *dur[2];		/* two buffers, each time order, then reordered by describe */
	size_t cap_dur[2];
	unsigned fill;		/* the one the pass fills */
	size_t n_dur;
	/* the listed kernel handed over last: being described in th */
	struct describe_job {
		pthread_t th;
		bool running;	/* th was started and not joined */
		size_t r;	/* its rank; SIZE_MAX: none */
		double *dur;	/* one of the two buffers */
		size_t n;
		struct gl_stats_desc d;
	} job;
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct kernels *k = st;

	k->n_ids = cx->n_ids;
	k->cur = SIZE_MAX;
	k->job.r = SIZE_MAX;
	k->by_id = calloc(cx->n_ids, sizeof(*k->by_id));
	k->ids = calloc(cx->n_ids, sizeof(*k->ids));
	return k->by_id && k->ids ? GL_OK : gl_section_oom(cx->err);
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct kernels *ks = st;
	struct kstate *k;

	if (!cx->kernel_sample || (uint64_t)ev->kernel_id >= ks->n_ids)
		return GL_OK;
	if (!(k = ks->by_id[ev->kernel_id])) {
		if (ks->n / KSTATE_SLAB == ks->n_slabs) {
			struct kstate **s = realloc(ks->slabs, (ks->n_slabs + 1) * sizeof(*s));

			if (!s)
				return gl_section_oom(cx->err);
			ks->slabs = s;
			if (!(s[ks->n_slabs] = calloc(KSTATE_SLAB, sizeof(**s))))
				return gl_section_oom(cx->err);
			ks->n_slabs++;
		}
		k = &ks->slabs[ks->n / KSTATE_SLAB][ks->n % KSTATE_SLAB];
		k->id = ev->kernel_id;
		k->name = gl_section_name(cx, ev->kernel_id);
		k->rank = SIZE_MAX;
		ks->by_id[ev->kernel_id] = k;
		ks->ids[ks->n++] = ev->kernel_id;
	}
	k->n++;
	k->sum_us += ev->dur_us;
	if (ev->anomaly == 1)
		k->flagged++;
	if (!isnan(ev->mem_mb)) {
		k->mem_sum += ev->mem_mb;
		k->mem_n++;
	}
	return gl_ktrace_add(&k->tr, ev, cx->err);
}

static int cmp_kstate_total(const void *pa, const void *pb)
{
	const struct kstate *a = *(struct kstate *const *)pa, *b = *(struct kstate *const *)pb;

	if (a->sum_us != b->sum_us)
		return a->sum_us < b->sum_us ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* Lists the first max(--top, --chart-top) kernels by total time. */
static int distinct_names(struct gl_kernels_result *res, struct gl_err *err);
static int describe_on_server(struct gl_section_ctx *cx, struct kernels *ks);

static int plan(struct gl_section_ctx *cx, void *st)
{
	struct kernels *ks = st;
	struct gl_kernels_result *rep = &ks->res;
	size_t want = cx->p->top;
	struct kstate **order;
	int rc;

	if (cx->rep->axis.charts && cx->rep->axis.chart_top > want)
		want = cx->rep->axis.chart_top;
	rep->n_kernels_total = ks->n;
	if (!(order = malloc((ks->n ? ks->n : 1) * sizeof(*order))))
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < ks->n; i++)
		order[i] = ks->by_id[ks->ids[i]];
	qsort(order, ks->n, sizeof(*order), cmp_kstate_total);
	ks->n_listed = ks->n < want ? ks->n : want;
	ks->cur = SIZE_MAX;
	ks->described = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*ks->described));
	rep->kernels = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*rep->kernels));
	if (cx->rep->axis.charts)
		ks->cols = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*ks->cols));
	if (!ks->described || !rep->kernels || (cx->rep->axis.charts && !ks->cols)) {
		free(order);
		return gl_section_oom(cx->err);
	}
	for (size_t r = 0; r < ks->n_listed; r++) {
		struct kstate *k = order[r];
		struct gl_report_kernel *rk = &rep->kernels[r];

		k->rank = r;
		char dn[GL_KNAME_BUF];

		if (!(rk->kernel = strdup(k->name)) ||
		    !(rk->display = strdup(gl_kname_display(k->name, dn, sizeof(dn))))) {
			free(order);
			return gl_section_oom(cx->err);
		}
		rep->n_kernels++;
		rk->kernel_id = k->id;
		rk->flagged = k->flagged;
		rk->mean_mem_mib = k->mem_n ? k->mem_sum / (double)k->mem_n : NAN;
	}
	free(order);
	if ((rc = distinct_names(rep, cx->err)) != GL_OK)
		return rc;
	return gl_query_describes_kernels(cx->q) ? describe_on_server(cx, ks) : GL_OK;
}

static int cmp_display(const void *a, const void *b)
{
	const struct gl_report_kernel *x = *(const struct gl_report_kernel *const *)a;
	const struct gl_report_kernel *y = *(const struct gl_report_kernel *const *)b;

	return strcmp(x->display, y->display);
}

/*
 * Listed kernels of one display name (force_pass_kernel logged plain by one
 * tool and mangled by another) get the "#xxxx" of their full name, so that
 * no two rows read alike; the other sections take the names from here
 * (gl_kernels_display).
 */
static int distinct_names(struct gl_kernels_result *res, struct gl_err *err)
{
	struct gl_report_kernel **by = malloc(sizeof(*by) * (res->n_kernels ? res->n_kernels : 1));

	if (!by)
		return gl_section_oom(err);
	for (size_t i = 0; i < res->n_kernels; i++)
		by[i] = &res->kernels[i];
	qsort(by, res->n_kernels, sizeof(*by), cmp_display);
	for (size_t i = 0, j; i < res->n_kernels; i = j) {
		for (j = i + 1; j < res->n_kernels && !strcmp(by[i]->display, by[j]->display); j++)
			;
		for (size_t k = i; j - i > 1 && k < j; k++) {
			char dn[GL_KNAME_BUF], *d;

			if (!(d = strdup(gl_kname_distinct(by[k]->kernel, dn, sizeof(dn))))) {
				free(by);
				return gl_section_oom(err);
			}
			free(by[k]->display);
			by[k]->display = d;
		}
	}
	free(by);
	return GL_OK;
}

_Static_assert(GL_QUERY_LAUNCH_ONCE_TOL_US == GL_LAUNCH_ONCE_TOL_US, "one launch rule");

/* The timings of the listed kernels one statement of the backend describes, at most (a
 * kernel with more is one statement by itself): what the server holds at once (ClickHouse:
 * some 200 bytes a timing, 190 MB for 900,000 of the 1M bench, as one slice of events);
 * the report's bound on the timings it holds (kernel_cache_max) where that is lower. */
#define SRV_GROUP_TIMINGS 1000000u

static int on_server_stats(void *arg, const struct gl_query_kernel_stats *s)
{
	struct kernels *ks = arg;
	struct kstate *k = (uint64_t)s->kernel_id < ks->n_ids ? ks->by_id[s->kernel_id] : NULL;

	if (!k || k->rank == SIZE_MAX || !s->n)
		return GL_OK;
	ks->srv[k->rank] = (struct gl_stats_desc){
		.n = s->n, .min = s->min_us, .max = s->max_us, .mean = s->mean_us, .sd = s->sd_us,
		.var = NAN /* not shown */, .p50 = s->p50_us, .p90 = s->p90_us, .p95 = s->p95_us,
		.p99 = s->p99_us, .sum = s->sum_us};
	/* the sums read from the server's aggregate states: used when they are
	 * sums at all (a state of another layout is not) */
	if (s->fit_sxx >= 0 && s->fit_syy >= 0 &&
	    fabs(s->fit_mean_us - s->mean_us) <= 1e-9 * fabs(s->mean_us))
		ks->srv_fit[k->rank] = (struct gl_fit_acc){
			.n = s->n, .mean_x = s->fit_mean_days, .mean_y = s->fit_mean_us,
			.sxx = s->fit_sxx, .syy = s->fit_syy, .sxy = s->fit_sxy};
	ks->from_srv[k->rank] = true;
	return GL_OK;
}

/*
 * The listed kernels' figures from the backend, groups of ascending rank
 * whose timings (the event pass counted them) fit the bound.
 */
static int describe_on_server(struct gl_section_ctx *cx, struct kernels *ks)
{
	struct gl_query_keep keep = {0};
	int64_t *group = NULL;
	uint64_t bound = cx->p->kernel_cache_max && cx->p->kernel_cache_max < SRV_GROUP_TIMINGS
				 ? cx->p->kernel_cache_max : SRV_GROUP_TIMINGS;
	int rc;

	ks->srv = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*ks->srv));
	ks->srv_fit = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*ks->srv_fit));
	ks->from_srv = calloc(ks->n_listed ? ks->n_listed : 1, sizeof(*ks->from_srv));
	group = malloc((ks->n_listed ? ks->n_listed : 1) * sizeof(*group));
	if (!ks->srv || !ks->srv_fit || !ks->from_srv || !group) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	if ((rc = gl_section_keep(cx, &keep)) != GL_OK)
		goto out;
	for (size_t r = 0; r < ks->n_listed && rc == GL_OK;) {
		size_t n = 0;
		uint64_t timings = 0;

		for (; r < ks->n_listed; r++) {
			uint64_t kn = cx->kernel_n[ks->res.kernels[r].kernel_id];

			if (n && timings + kn > bound)
				break;
			group[n++] = ks->res.kernels[r].kernel_id;
			timings += kn;
		}
		rc = gl_query_kernel_stats(cx->q, cx->p->since_us, cx->p->until_us, group, n, &keep,
					   on_server_stats, ks, cx->err);
	}
out:
	gl_section_keep_release(&keep);
	free(group);
	return rc;
}

const char *gl_kernels_display(const struct gl_report *rep, const char *kernel, char *buf,
			       size_t n)
{
	const struct gl_kernels_result *res = gl_kernels_result(rep);

	for (size_t i = 0; res && i < res->n_kernels; i++)
		if (res->kernels[i].display && !strcmp(res->kernels[i].kernel, kernel))
			return res->kernels[i].display;
	return gl_kname_display(kernel, buf, n);
}

/* The histogram of a charted kernel rk, of rank r: its durations dur[0..n) (any order). */
static int chart_top_kernel(struct kernels *ks, size_t r, const struct gl_report_kernel *rk,
			    const double *dur, size_t n, struct gl_err *err)
{
	struct gl_kernels_chart *c = &ks->chart;
	struct gl_chart_hist *h = &c->top_hist[r];
	double lo, hi;
	int rc;

	gl_chart_hist_release(h);
	gl_chart_hist_range(rk->min_us, rk->p95_us, rk->max_us, &lo, &hi);
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	rc = gl_chart_hist_init(h, lo, hi, GL_KERNELS_HIST_BINS, err);
	if (rc != GL_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		gl_chart_hist_add(h, dur[i]);
	h->p50 = rk->p50_us;
	h->p95 = rk->p95_us;
	c->top_name[r] = gl_report_kernel_name(rk);
	if (r + 1 > c->n_top)
		c->n_top = r + 1;
	return GL_OK;
}

/* The listed kernel of rank r, its durations dur[0..n) described in *d
 * (n 0: none of its timings came): its figures, its trace fields and its
 * histogram for the charts. */
static int record_listed(struct gl_section_ctx *cx, struct kernels *ks, size_t r,
			 const struct gl_stats_desc *d, const double *dur, size_t n)
{
	struct gl_report_kernel *rk = &ks->res.kernels[r];
	int rc;

	rk->count = d->n;
	rk->min_us = d->min;
	rk->max_us = d->max;
	rk->mean_us = d->mean;
	rk->stddev_us = d->sd;
	rk->p50_us = d->p50;
	rk->p90_us = d->p90;
	rk->p95_us = d->p95;
	rk->p99_us = d->p99;
	rk->total_us = d->sum;
	if ((rc = gl_ktrace_finish(&ks->by_id[rk->kernel_id]->tr, cx, rk, cx->err)) != GL_OK)
		return rc;
	/* the charts' histograms of the top kernels, from the durations kept */
	if (cx->rep->axis.charts && r < cx->rep->axis.chart_top)
		rc = chart_top_kernel(ks, r, rk, dur, n, cx->err);
	return rc;
}

static void *describe_main(void *arg)
{
	struct describe_job *j = arg;

	gl_stats_describe(j->dur, j->n, &j->d);
	return NULL;
}

/* Waits for the kernel handed over last, if any, and records it. */
static int settle(struct gl_section_ctx *cx, struct kernels *ks)
{
	struct describe_job *j = &ks->job;
	size_t r = j->r;

	if (j->running)
		pthread_join(j->th, NULL);
	j->running = false;
	j->r = SIZE_MAX;
	return r == SIZE_MAX ? GL_OK : record_listed(cx, ks, r, &j->d, j->dur, j->n);
}

/* Hands the listed kernel the kernel pass was on, if any, to be described,
 * after recording the one before; the pass goes on in the other buffer. */
static int end_kernel(struct gl_section_ctx *cx, struct kernels *ks)
{
	struct describe_job *j = &ks->job;
	size_t r = ks->cur;
	int rc;

	ks->cur = SIZE_MAX;
	if (r == SIZE_MAX)
		return GL_OK;
	if (ks->from_srv && ks->from_srv[r]) {
		ks->described[r] = true;
		return record_listed(cx, ks, r, &ks->srv[r], ks->dur[ks->fill],
				     ks->keep_dur ? ks->n_dur : 0);
	}
	if ((rc = settle(cx, ks)) != GL_OK)
		return rc;
	ks->described[r] = true;
	j->r = r;
	j->dur = ks->dur[ks->fill];
	j->n = ks->n_dur;
	ks->fill ^= 1;
	if (pthread_create(&j->th, NULL, describe_main, j) == 0)
		j->running = true;
	else
		gl_stats_describe(j->dur, j->n, &j->d);	/* no thread: here */
	return GL_OK;
}

static int collect_kernel(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			  bool first)
{
	struct kernels *ks = st;
	struct kstate *k = ks->by_id[ev->kernel_id];
	int rc;

	if (first) {
		if ((rc = end_kernel(cx, ks)) != GL_OK)
			return rc;
		if (!k || k->rank == SIZE_MAX || ks->described[k->rank])
			return GL_OK;
		/* the backend's figures: the durations only for the histogram */
		ks->keep_dur = !(ks->from_srv && ks->from_srv[k->rank]) ||
			       (cx->rep->axis.charts && k->rank < cx->rep->axis.chart_top);
		/* the event pass counted them: the buffer grows once to the largest */
		size_t need = cx->kernel_n[ev->kernel_id] ? cx->kernel_n[ev->kernel_id] : 64;

		if (ks->keep_dur && need > ks->cap_dur[ks->fill]) {
			double *p = gl_big_realloc(ks->dur[ks->fill],
						   ks->cap_dur[ks->fill] * sizeof(*p),
						   need * sizeof(*p));

			if (!p)
				return gl_section_oom(cx->err);
			ks->dur[ks->fill] = p;
			ks->cap_dur[ks->fill] = need;
		}
		ks->cur = k->rank;
		ks->n_dur = 0;
	}
	if (ks->cur == SIZE_MAX)
		return GL_OK;
	const unsigned f = ks->fill;

	if (ks->keep_dur && ks->n_dur == ks->cap_dur[f]) {
		size_t cap = ks->cap_dur[f] * 2;
		double *p = gl_big_realloc(ks->dur[f], ks->cap_dur[f] * sizeof(*p), cap * sizeof(*p));

		if (!p)
			return gl_section_oom(cx->err);
		ks->dur[f] = p;
		ks->cap_dur[f] = cap;
	}
	if (ks->keep_dur)
		ks->dur[f][ks->n_dur++] = ev->dur_us;
	if (ks->cols) {
		struct gl_chart_cols *c = &ks->cols[ks->cur];

		if (!c->col && gl_chart_cols_init(c, cx->rep->axis.t0_us, cx->rep->axis.t1_us,
						  GL_CHART_COLUMNS, cx->err) != GL_OK)
			return GL_ENOMEM;
		gl_chart_cols_add(c, ev->ts_us, ev->dur_us, ev->anomaly == 1);
	}
	return GL_OK;
}

static void free_buffers(struct kernels *ks)
{
	for (size_t i = 0; i < 2; i++) {
		gl_big_free(ks->dur[i], ks->cap_dur[i] * sizeof(*ks->dur[i]));
		ks->dur[i] = NULL;
		ks->cap_dur[i] = 0;
	}
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct kernels *ks = st;
	struct gl_kernels_result *rep = &ks->res;
	const struct gl_report_axis *axis = &cx->rep->axis;
	int rc = end_kernel(cx, ks), rc2 = settle(cx, ks);

	if (rc == GL_OK)
		rc = rc2;
	if (!rep->kernels && !(rep->kernels = calloc(1, sizeof(*rep->kernels))))
		return gl_section_oom(cx->err);
	for (size_t r = 0; r < rep->n_kernels && r < ks->n_listed && rc == GL_OK; r++)
		if (!ks->described[r]) {
			struct gl_stats_desc d;

			ks->described[r] = true;
			if (ks->from_srv && ks->from_srv[r])
				d = ks->srv[r];
			else
				gl_stats_describe(NULL, 0, &d);
			rc = record_listed(cx, ks, r, &d, NULL, 0);
		}
	/* a charted kernel none of whose timings came: empty columns */
	for (size_t r = 0; ks->cols && r < ks->chart.n_top && rc == GL_OK; r++) {
		if (!ks->cols[r].col)
			rc = gl_chart_cols_init(&ks->cols[r], axis->t0_us, axis->t1_us,
						GL_CHART_COLUMNS, cx->err);
		ks->chart.top_cols[r] = &ks->cols[r];
	}
	free_buffers(ks);
	return rc;
}

static void release(void *st)
{
	struct kernels *ks = st;

	for (size_t i = 0; i < ks->n; i++)
		gl_ktrace_release(&ks->by_id[ks->ids[i]]->tr);
	for (size_t i = 0; i < ks->n_slabs; i++)
		free(ks->slabs[i]);
	free(ks->slabs);
	if (ks->job.running)	/* a report stopped in the kernel pass */
		pthread_join(ks->job.th, NULL);
	free_buffers(ks);
	for (size_t r = 0; ks->cols && r < ks->n_listed; r++)
		gl_chart_cols_release(&ks->cols[r]);
	free(ks->cols);
	for (size_t r = 0; r < GL_CHART_TOP_MAX; r++)
		gl_chart_hist_release(&ks->chart.top_hist[r]);
	free(ks->described);
	free(ks->srv);
	free(ks->srv_fit);
	free(ks->from_srv);
	free(ks->by_id);
	free(ks->ids);
	for (size_t i = 0; i < ks->res.n_kernels; i++) {
		free(ks->res.kernels[i].kernel);
		free(ks->res.kernels[i].display);
		free(ks->res.kernels[i].device);
		free(ks->res.kernels[i].source);
		free(ks->res.kernels[i].hot_stack);
		free(ks->res.kernels[i].hot_scope);
	}
	free(ks->res.kernels);
}

/* The results in st; none for a report without the section's state. */
static const struct gl_kernels_result *res_of(const void *st)
{
	static const struct gl_kernels_result none;

	return st ? &((const struct kernels *)st)->res : &none;
}

const struct gl_kernels_result *gl_kernels_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_kernels));
}

const struct gl_fit_acc *gl_kernels_server_fit(const struct gl_report *rep, size_t r)
{
	const struct kernels *ks = gl_report_state_of(rep, &gl_sec_kernels);

	return ks && ks->srv_fit && r < ks->n_listed && ks->srv_fit[r].n ? &ks->srv_fit[r] : NULL;
}

/* Kernels listed: at most top (the result may hold more for the charts). */
static size_t n_listed(const struct gl_kernels_result *r, size_t top)
{
	return r->n_kernels < top ? r->n_kernels : top;
}

/* Kernels in the window; a hand-made model states only what it lists. */
static size_t n_total(const struct gl_kernels_result *r)
{
	return r->n_kernels_total > r->n_kernels ? r->n_kernels_total : r->n_kernels;
}

/*
 * The kernels table, described once (table.h): a view row per listed kernel,
 * its result row with what other parts give it (the anomaly count, the name
 * fitted to the text column).
 */
struct krow {
	const char *kernel, *display, *fitted;	/* display: gl_report_kernel_name() */
	uint64_t count, anomalies, flagged, hot_count;
	double min_us, max_us, mean_us, stddev_us, p50_us, p90_us, p95_us, p99_us, total_us;
	double mean_mem_mib, launch_overhead_us, queue_us, occupancy;
	const char *device, *source, *hot_stack, *hot_scope;
	char fit[256];
};

/* a figure of profiler traces: no key for a kernel of log lines, an empty CSV cell */
static bool not_trace(const void *row)
{
	return ((const struct krow *)row)->source == NULL;
}

static bool no_hotspot(const void *row)
{
	return ((const struct krow *)row)->hot_count == 0;
}

static json_t *hotspot_json(const void *row)
{
	const struct krow *k = row;
	struct gl_jb jb = {0};
	json_t *h = json_object();

	gl_jb_set(&jb, h, "stack", gl_json_str(k->hot_stack));
	gl_jb_set(&jb, h, "scope", gl_json_str(k->hot_scope));
	gl_jb_set(&jb, h, "count", gl_json_u64(k->hot_count));
	return gl_jb_done(&jb, h);
}

#define KR(f) offsetof(struct krow, f)
#define KNUM(name, f, csv) {name, GL_COL_NUM, KR(f), 0, 0, NULL, 0, 0, NULL, 0, NULL, csv}

/* JSON: every column but the CSV and text forms; CSV: by csv position; text and HTML: the
 * columns with a position there. */
static const struct gl_col kernel_cols[] = {
	{"kernel", GL_COL_TEXT, KR(kernel), 0, 0, NULL, 0, 0, NULL, 0, NULL, 1},
	{"display", GL_COL_TEXT, KR(display), GL_COL_NAME | GL_COL_TITLE, 0, NULL, 0, 1, "kernel",
	 0, NULL, 0, KR(kernel)},
	{"fitted", GL_COL_TEXT, KR(fitted), GL_COL_NO_JSON, 1, "kernel", 26, 0, NULL, 0, NULL, 0},
	{"count", GL_COL_U64, KR(count), 0, 2, "count", 8, 2, "count", 0, NULL, 2},
	KNUM("min_us", min_us, 3),
	{"max_us", GL_COL_NUM, KR(max_us), 0, 0, NULL, 0, 7, "max µs", 0, NULL, 4},
	{"mean_us", GL_COL_NUM, KR(mean_us), 0, 3, "mean", 9, 3, "mean µs", 0, NULL, 5},
	{"stddev_us", GL_COL_NUM, KR(stddev_us), 0, 4, "stddev", 9, 0, NULL, 0, NULL, 6},
	{"p50_us", GL_COL_NUM, KR(p50_us), 0, 5, "p50", 9, 4, "p50 µs", 0, NULL, 7},
	KNUM("p90_us", p90_us, 8),
	{"p95_us", GL_COL_NUM, KR(p95_us), 0, 6, "p95", 9, 5, "p95 µs", 0, NULL, 9},
	{"p99_us", GL_COL_NUM, KR(p99_us), 0, 7, "p99", 9, 6, "p99 µs", 0, NULL, 10},
	{"total_us", GL_COL_NUM, KR(total_us), 0, 8, "total", 9, 8, "total s", 1e6, NULL, 11},
	{"anomalies", GL_COL_U64, KR(anomalies), 0, 9, "anom", 5, 9, "anomalies", 0, NULL, 12},
	{"flagged_anomalies", GL_COL_U64, KR(flagged), 0, 0, NULL, 0, 10, "flagged by logs", 0,
	 NULL, 13},
	KNUM("mean_mem_mib", mean_mem_mib, 14),
	{"launch_overhead_us", GL_COL_NUM, KR(launch_overhead_us), GL_COL_ABSENT_CSV, 0, NULL, 0,
	 0, NULL, 0, NULL, 15, 0, not_trace},
	{"queue_us", GL_COL_NUM, KR(queue_us), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0, NULL, 16,
	 0, not_trace},
	{"occupancy", GL_COL_NUM, KR(occupancy), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0, NULL,
	 17, 0, not_trace},
	{"device", GL_COL_TEXT, KR(device), 0, 0, NULL, 0, 0, NULL, 0, NULL, 18, 0, not_trace},
	{"source", GL_COL_TEXT, KR(source), 0, 0, NULL, 0, 0, NULL, 0, NULL, 19, 0, not_trace},
	{"hotspot", GL_COL_U64, KR(hot_count), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_hotspot,
	 hotspot_json},
	{"hot_stack", GL_COL_TEXT, KR(hot_stack), GL_COL_NO_JSON, 0, NULL, 0, 0, NULL, 0, NULL, 20},
	{"hot_scope", GL_COL_TEXT, KR(hot_scope), GL_COL_NO_JSON, 0, NULL, 0, 0, NULL, 0, NULL, 21},
	{"hot_count", GL_COL_U64, KR(hot_count), GL_COL_NO_JSON | GL_COL_ABSENT_CSV, 0, NULL, 0, 0,
	 NULL, 0, NULL, 22, 0, no_hotspot},
};

static const struct gl_table kernel_table = {
	kernel_cols, sizeof(kernel_cols) / sizeof(kernel_cols[0]), sizeof(struct krow)};

/* The view rows of the listed kernels (*n of them); NULL when out of memory. */
static struct krow *krows(const struct gl_report *r, const struct gl_kernels_result *res,
			  size_t *n)
{
	struct krow *v;

	*n = n_listed(res, r->top);
	if (!(v = calloc(*n ? *n : 1, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		const struct gl_report_kernel *k = &res->kernels[i];
		struct krow *w = &v[i];

		w->kernel = k->kernel;
		w->display = gl_report_kernel_name(k);
		w->fitted = gl_kname_fit(k->kernel, w->display, 25, w->fit, sizeof(w->fit));
		w->count = k->count;
		w->anomalies = gl_report_kernel_anomalies(r, k->kernel_id);
		w->flagged = k->flagged;
		w->hot_count = k->hot_count;
		w->min_us = k->min_us, w->max_us = k->max_us, w->mean_us = k->mean_us;
		w->stddev_us = k->stddev_us, w->p50_us = k->p50_us, w->p90_us = k->p90_us;
		w->p95_us = k->p95_us, w->p99_us = k->p99_us, w->total_us = k->total_us;
		w->mean_mem_mib = k->mean_mem_mib;
		w->launch_overhead_us = k->launch_overhead_us, w->queue_us = k->queue_us;
		w->occupancy = k->occupancy;
		w->device = k->device, w->source = k->source;
		w->hot_stack = k->hot_stack, w->hot_scope = k->hot_scope;
	}
	return v;
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	size_t n;
	struct krow *v = krows(r, res_of(st), &n);
	json_t *a = v ? gl_table_json(&kernel_table, v, n) : NULL;

	free(v);
	return a;
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t n;
	struct krow *v = krows(r, res_of(st), &n);

	if (v)
		gl_table_csv(&kernel_table, v, n, fp);
	else
		fputs("out of memory\n", fp);
	free(v);
}

/* The hotspots' view rows: the listed kernels of profiler traces, their most frequent
 * stack as one cell. */
struct hrow {
	const char *kernel, *display, *device;
	double total_us, launch_overhead_us, queue_us, occupancy;
	char *stack;			/* "stack [scope] (timings)"; NULL: none */
};

#define HR(f) offsetof(struct hrow, f)

/* The text's name: the display name fitted to 25 columns. */
static const char *hot_name(const void *row, char *buf, size_t n)
{
	const struct hrow *h = row;

	return gl_kname_fit(h->kernel, h->display, 25, buf, n);
}

static const char *hot_occupancy(const void *row, char *buf, size_t n)
{
	double occ = ((const struct hrow *)row)->occupancy;

	if (isnan(occ))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f", occ);
	return buf;
}

static const char *hot_device(const void *row, char *buf, size_t n)
{
	const char *d = ((const struct hrow *)row)->device;

	(void)buf, (void)n;
	return d ? d : "-";
}

static const char *hot_stack(const void *row, char *buf, size_t n)
{
	const char *sk = ((const struct hrow *)row)->stack;

	(void)buf, (void)n;
	return sk ? sk : "-";
}

/* The hotspots' HTML and text tables (the text's stack to column GL_TEXT_WIDTH - 1). */
static const struct gl_col hot_cols[] = {
	{"kernel", GL_COL_TEXT, HR(display), GL_COL_NAME | GL_COL_TITLE, 1, "kernel", 26, 1,
	 "kernel", 0, NULL, 0, HR(kernel), .text_cell = hot_name},
	{"total_us", GL_COL_NUM, HR(total_us), 0, 2, "total", 9, 2, "total s", 1e6, NULL, 0},
	{"launch_overhead_us", GL_COL_NUM, HR(launch_overhead_us), 0, 3, "launch", 7, 3,
	 "launch µs", 0, NULL, 0},
	{"queue_us", GL_COL_NUM, HR(queue_us), 0, 4, "queue", 7, 4, "queue µs", 0, NULL, 0},
	{"occupancy", GL_COL_NUM, HR(occupancy), 0, 5, "occ", 4, 5, "occ.", 0, NULL, 0,
	 .text_cell = hot_occupancy},
	{"device", GL_COL_TEXT, HR(device), GL_COL_CUT, 6, "device", 6, 6, "device", 0, NULL, 0,
	 .text_cell = hot_device},
	{"stack", GL_COL_TEXT, HR(stack), GL_COL_NAME | GL_COL_LAST, 7, "stack [scope] (timings)",
	 GL_TEXT_WIDTH - 65, 7, "most frequent call stack [scope] (timings)", 0, NULL, 0,
	 .text_cell = hot_stack},
};

static const struct gl_table hot_table = {hot_cols, sizeof(hot_cols) / sizeof(hot_cols[0]),
					  sizeof(struct hrow)};

/* The hotspots' view rows of the top listed kernels (*n of them; *n 0 with none); NULL
 * when out of memory. Release with free_hrows. */
static struct hrow *hrows(const struct gl_kernels_result *res, size_t top, size_t *n)
{
	size_t m = res->n_kernels < top ? res->n_kernels : top;
	struct hrow *v = calloc(m ? m : 1, sizeof(*v));
	int oom = !v;

	*n = 0;
	for (size_t i = 0; v && i < m; i++) {
		const struct gl_report_kernel *k = &res->kernels[i];
		struct hrow *h;

		if (!k->source)
			continue;
		h = &v[(*n)++];
		h->kernel = k->kernel;
		h->display = gl_report_kernel_name(k);
		h->device = k->device;
		h->total_us = k->total_us;
		h->launch_overhead_us = k->launch_overhead_us;
		h->queue_us = k->queue_us;
		h->occupancy = k->occupancy;
		if (k->hot_count) {
			const char *sk = k->hot_stack ? k->hot_stack : "-";
			const char *sc = k->hot_scope ? k->hot_scope : "-";
			size_t len = strlen(sk) + strlen(sc) + 32;

			if ((h->stack = malloc(len)) != NULL)
				snprintf(h->stack, len, "%s [%s] (%llu)", sk, sc,
					 (unsigned long long)k->hot_count);
			else
				oom = 1;
		}
	}
	if (oom && v) {
		for (size_t i = 0; i < *n; i++)
			free(v[i].stack);
		free(v);
		v = NULL;
	}
	return v;
}

static void free_hrows(struct hrow *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].stack);
	free(v);
}

/* The hotspots: the top trace kernels with their launch figures and most frequent stack. */
static void html_hotspots(const struct gl_kernels_result *res, size_t top, FILE *f)
{
	size_t n;
	struct hrow *v = hrows(res, top, &n);

	if (!v)
		fputs("<p>out of memory</p>\n", f);
	else if (n) {
		fputs("<h3>Hotspots</h3>\n", f);
		gl_table_html(&hot_table, v, n, f);
	}
	free_hrows(v, n);
}

static void text_hotspots(const struct gl_kernels_result *res, size_t top, FILE *fp)
{
	size_t n;
	struct hrow *v = hrows(res, top, &n);

	if (v)
		gl_table_text(&hot_table, v, n, fp);
	else
		fputs("out of memory\n", fp);
	free_hrows(v, n);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t n_hot = 0;

	const struct gl_kernels_result *res = res_of(st);

	if (!res->n_kernels) {
		fprintf(fp, "no kernel timings\n");
		return;
	}
	size_t nv;
	struct krow *v = krows(r, res, &nv);

	if (!v) {
		fputs("out of memory\n", fp);
		return;
	}
	gl_table_text(&kernel_table, v, nv, fp);
	free(v);
	if (n_total(res) > n_listed(res, r->top))
		fprintf(fp, "(%zu kernels, top %zu listed)\n", n_total(res), n_listed(res, r->top));
	for (size_t i = 0; i < res->n_kernels && i < r->top; i++)
		n_hot += res->kernels[i].source != NULL;
	if (!n_hot)
		return;
	fprintf(fp, "\nhotspots (trace kernels by total time; launch, queue in us; most frequent stack)\n");
	text_hotspots(res, r->top, fp);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_kernels_result *res = res_of(st);

	if (res->n_kernels == 0) {
		fputs("<p>No kernel timings in this window.</p>\n", f);
		return;
	}
	if (n_total(res) > n_listed(res, rep->top))
		fprintf(f, "<p>%zu kernels, top %zu listed.</p>\n", n_total(res), n_listed(res, rep->top));
	size_t n;
	struct krow *v = krows(rep, res, &n);

	if (v)
		gl_table_html(&kernel_table, v, n, f);
	else
		fputs("<p>out of memory</p>\n", f);
	free(v);
	html_hotspots(res, rep->top, f);
}

static int chart_timeline(const struct gl_report *rep, const void *st, const char *path,
			  const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct kernels *ks = st;
	const struct gl_kernels_chart *s = ks && ks->cols ? &ks->chart : NULL;
	size_t n_top = s ? s->n_top : 0;
	struct gl_chart_series ser[GL_CHART_TOP_MAX];
	struct gl_chart_panel p = {NULL, "duration (\xC2\xB5s)", ser, n_top, NULL, 0, 1};
	char t[GL_PNG_TITLE_MAX], what[128];

	if (n_top == 0) {
		gl_png_title(t, "Kernel durations", rep);
		return gl_chart_nodata(path, t, "No kernel timings in this window", o, err);
	}
	snprintf(what, sizeof(what), "Kernel durations, top %zu by total time", n_top);
	gl_png_title(t, what, rep);
	for (size_t k = 0; k < n_top; k++) {
		ser[k].name = s->top_name[k];
		ser[k].cols = s->top_cols[k];
		ser[k].style = GL_CHART_LINE;
		ser[k].color = -1;
	}
	return gl_chart_timeline(path, t, rep->axis.t0_us, rep->axis.t1_us, &p, 1, o, err);
}

static int chart_distribution(const struct gl_report *rep, const void *st, const char *path,
			      const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct kernels *ks = st;
	char t[GL_PNG_TITLE_MAX];

	gl_png_title(t, "Kernel duration distributions, p50 and p95 marked", rep);
	if (!ks || !ks->cols || ks->chart.n_top == 0)
		return gl_chart_nodata(path, t, "No kernel timings in this window", o, err);
	return gl_chart_histograms(path, t, "duration (\xC2\xB5s)", ks->chart.top_name,
				   ks->chart.top_hist, ks->chart.n_top, o, err);
}

const struct gl_kernels_chart *gl_kernels_chart(const struct gl_report *rep)
{
	const struct kernels *ks = gl_report_state_of(rep, &gl_sec_kernels);

	return ks && ks->cols ? &ks->chart : NULL;
}

const struct gl_chart_cols *gl_kernels_columns(const struct gl_report *rep, const char *kernel)
{
	const struct kernels *ks = gl_report_state_of(rep, &gl_sec_kernels);

	for (size_t r = 0; ks && ks->cols && r < ks->n_listed && r < ks->res.n_kernels; r++)
		if (!strcmp(ks->res.kernels[r].kernel, kernel))
			return &ks->cols[r];
	return NULL;
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_TIMELINE, "Kernel durations of the top kernels over time", chart_timeline},
	{GL_PNG_DISTRIBUTION, "Histograms of kernel durations with p50 and p95",
	 chart_distribution},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_kernels = {
	.name = "kernels",
	.title = "Kernels by total time (us)",
	.state_size = sizeof(struct kernels),
	.begin = begin,
	.collect = collect,
	.plan = plan,
	.collect_kernel = collect_kernel,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
