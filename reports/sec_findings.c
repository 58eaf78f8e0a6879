/*
 * sec_findings.c - the findings section: what got slower (or faster), when,
 * and what the GPUs did at that moment.
 *
 * In: every kernel timing and operation record of the window (collect), the
 * metric samples (collect_samples: inference latency, time to first token
 * and tokens/s as series to test; the GPUs' utilisation, SM clock, power,
 * temperature and memory, and pmon's processes as evidence), the errors,
 * OOMs, Xid and NCCL warnings among the events, and the training section's
 * steps (iteration time, throughput per run and rank; finish_last, so after
 * it). Out: findings, ranked by |ln(during / before)| x seconds.
 *
 * Each series (per host, and device or rank where the records say) is cut
 * into FB_N buckets over the data's span; a bucket keeps up to FB_K of its
 * values (a reservoir past that) and gives their median. The medians go to
 * gl_stats_change_find (binary segmentation with Welch's test and a
 * minimum effect, a trend told by a line). A change is explained by the
 * same host's GPUs: each metric's mean over the changed buckets against
 * the same number just before them (a change at the start: just after; a
 * trend: the last tenth against the first). The finding is attributed to
 * the GPU its records name, else to the GPU whose utilisation, power, SM
 * clock or temperature moved most at that moment, surely when it moved
 * twice as much as any other. Memory: FB_N x (FB_K + 1) x 4 bytes per
 * series, at most FS_MAX series.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chart.h"
#include "emit_util.h"
#include "findings_evidence.h"
#include "findings_state.h"
#include "sec_findings.h"
#include "sec_kernels.h"
#include "sec_training.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"
#include "table.h"
#include "util/timeutil.h"

#define FS_MAX 4096		/* series tested; more are counted in skipped */
#define FS_MIN_SAMPLES 40	/* fewer: not tested */
#define FS_MIN_BUCKETS 12	/* non-empty buckets */
#define FINDINGS_MAX 50
#define EVIDENCE_MIN_PCT 10.0	/* a GPU metric that moved less is no evidence */

enum { SRC_KERNEL, SRC_OPERATION, SRC_INFERENCE, SRC_TRAINING };
static const char *const src_names[] = {"kernel", "operation", "inference", "training"};

const struct gl_findings_result *gl_findings_result(const struct gl_report *rep)
{
	const struct findings *f = gl_report_state_of(rep, &gl_sec_findings);

	return f ? &f->res : NULL;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t key_hash(int src, int64_t name_id, const char *name, int64_t host_id,
			 const char *device, long rank)
{
	uint64_t h = str_hash(name) ^ (str_hash(device) * 31);

	h ^= ((uint64_t)src << 56) ^ (uint64_t)name_id * 0x9E3779B97F4A7C15ULL;
	h ^= (uint64_t)host_id * 0xC2B2AE3D27D4EB4FULL ^ (uint64_t)(rank + 2) * 0x165667B19E3779F9ULL;
	return h ^ (h >> 29);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int rehash(struct findings *f)
{
	size_t n = f->n_hash ? f->n_hash * 2 : 1024;
	uint32_t *h = calloc(n, sizeof(*h));

	if (!h)
		return GL_ENOMEM;
	for (size_t i = 0; i < f->n_s; i++) {
		const struct fser *s = &f->s[i];
		size_t j = key_hash(s->src, s->name_id, s->name, s->host_id, s->device, s->rank) & (n - 1);

		while (h[j])
			j = (j + 1) & (n - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(f->hash);
	f->hash = h;
	f->n_hash = n;
	return GL_OK;
}

/* The series of that key, created when new; NULL past FS_MAX or out of memory (*rc). */
static struct fser *series_of(struct findings *f, int src, int64_t name_id, const char *name,
			      int64_t host_id, const char *device, long rank, int *rc)
{
	size_t j;
	struct fser *s;

	*rc = GL_OK;
	if (f->n_hash && f->n_s * 2 < f->n_hash) {
		j = key_hash(src, name_id, name, host_id, device, rank) & (f->n_hash - 1);
		for (; f->hash[j]; j = (j + 1) & (f->n_hash - 1)) {
			s = &f->s[f->hash[j] - 1];
			if (s->src == src && s->name_id == name_id && s->host_id == host_id &&
			    s->rank == rank && same_str(s->name, name) && same_str(s->device, device))
				return s;
		}
	} else {
		for (size_t i = 0; i < f->n_s; i++) {
			s = &f->s[i];
			if (s->src == src && s->name_id == name_id && s->host_id == host_id &&
			    s->rank == rank && same_str(s->name, name) && same_str(s->device, device))
				return s;
		}
	}
	if (f->n_s >= FS_MAX) {
		f->skipped++;
		return NULL;
	}
	if (f->n_s == f->cap_s) {
		size_t cap = f->cap_s ? f->cap_s * 2 : 64;
		struct fser *p = realloc(f->s, cap * sizeof(*p));

		if (!p)
			goto oom;
		f->s = p;
		f->cap_s = cap;
	}
	s = &f->s[f->n_s];
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->name_id = name_id;
	s->host_id = host_id;
	s->rank = rank;
	s->name = name ? strdup(name) : NULL;
	s->device = device ? strdup(device) : NULL;
	s->bn = calloc(FB_N, sizeof(*s->bn));
	s->bv = malloc(FB_N * FB_K * sizeof(*s->bv));
	if ((name && !s->name) || (device && !s->device) || !s->bn || !s->bv) {
		free(s->name);
		free(s->device);
		free(s->bn);
		free(s->bv);
		goto oom;
	}
	f->n_s++;
	if (f->n_s * 2 >= f->n_hash) {
		if (rehash(f) != GL_OK)
			goto oom;
	} else {
		j = key_hash(src, name_id, name, host_id, device, rank) & (f->n_hash - 1);
		while (f->hash[j])
			j = (j + 1) & (f->n_hash - 1);
		f->hash[j] = (uint32_t)f->n_s;
	}
	return s;
oom:
	*rc = GL_ENOMEM;
	return NULL;
}

/* series_of a kernel row's series: the one its kernel's rows used last, when
 * of its host and device, without a lookup. */
static struct fser *kernel_series(struct findings *f, const struct gl_query_event *ev, int *rc)
{
	const int64_t k = ev->kernel_id;
	struct fser *s;

	if (k > 0 && (uint64_t)k < f->n_kernel_s && f->kernel_s[k]) {
		s = &f->s[f->kernel_s[k] - 1];
		if (s->host_id == ev->host_id && same_str(s->device, ev->device)) {
			*rc = GL_OK;
			return s;
		}
	}
	s = series_of(f, SRC_KERNEL, k, NULL, ev->host_id, ev->device, -1, rc);
	if (s && k > 0 && (uint64_t)k < f->n_kernel_s)
		f->kernel_s[k] = (uint32_t)(s - f->s) + 1;
	return s;
}

static void series_add(struct findings *f, struct fser *s, int64_t ts_us, double v)
{
	size_t b = bucket_at(f, ts_us);
	uint32_t k = s->bn[b]++;

	s->n++;
	if (k < FB_K) {
		s->bv[b * FB_K + k] = (float)v;
		return;
	}
	/* reservoir: each value of the bucket kept with the same chance */
	f->rng = f->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t j = (f->rng >> 33) % ((uint64_t)k + 1);

	if (j < FB_K)
		s->bv[b * FB_K + j] = (float)v;
}

static struct hev *host_events(struct findings *f, int64_t host_id)
{
	for (size_t i = 0; i < f->n_h; i++)
		if (f->h[i].host_id == host_id)
			return &f->h[i];
	if (f->n_h >= 256)
		return NULL;
	struct hev *p = realloc(f->h, (f->n_h + 1) * sizeof(*p));

	if (!p)
		return NULL;
	f->h = p;
	memset(&p[f->n_h], 0, sizeof(*p));
	p[f->n_h].host_id = host_id;
	return &p[f->n_h++];
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct findings *f = st;
	int64_t a0, a1, b0, b1;
	int rc;

	f->rng = 0x5eed;
	if ((rc = gl_query_events_span(cx->q, cx->rep->window.since_us, cx->rep->window.until_us,
				       &a0, &a1, cx->err)) != GL_OK ||
	    (rc = gl_query_samples_span(cx->q, cx->rep->window.since_us, cx->rep->window.until_us,
					&b0, &b1, cx->err)) != GL_OK)
		return rc;
	f->t0_us = a0 == GL_TS_NONE ? b0 : b0 == GL_TS_NONE ? a0 : a0 < b0 ? a0 : b0;
	f->t1_us = a1 == GL_TS_NONE ? b1 : b1 == GL_TS_NONE ? a1 : a1 > b1 ? a1 : b1;
	if (f->t0_us == GL_TS_NONE) {
		f->t0_us = cx->rep->window.since_us;
		f->t1_us = cx->rep->window.until_us;
	}
	if (f->t1_us <= f->t0_us)
		f->t1_us = f->t0_us + 1;
	if ((rc = gl_section_series_load(cx, &f->ss)) != GL_OK)
		return rc;
	f->loaded = true;
	f->row_t = malloc((f->ss.n_qs ? f->ss.n_qs : 1) * sizeof(*f->row_t));
	f->row_s = malloc((f->ss.n_qs ? f->ss.n_qs : 1) * sizeof(*f->row_s));
	f->t = calloc(f->ss.n_qs ? f->ss.n_qs : 1, sizeof(*f->t));
	f->fev = gl_fev_new(f->ss.n_qs, FB_N);
	f->n_kernel_s = cx->n_ids ? cx->n_ids : 1;
	f->kernel_s = calloc(f->n_kernel_s, sizeof(*f->kernel_s));
	if (!f->row_t || !f->row_s || !f->t || !f->fev || !f->kernel_s)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < f->ss.n_qs; i++) {
		const struct gl_query_series *qs = &f->ss.qs[i];
		const char *m = f->ss.metric[i];
		static const struct {
			const char *metric, *unit;
			int higher_worse;
		} inf[] = {
			{"inference.latency_ms", "ms", 1},
			{"inference.ttft_ms", "ms", 1},
			{"inference.tokens_per_second", "tokens/s", 0},
		};

		f->row_t[i] = f->row_s[i] = -1;
		if (gl_section_series_row(&f->ss, qs->id) < 0 || !m)
			continue;
		if (gl_fev_row(f->fev, i, qs, m) != GL_OK)
			return gl_section_oom(cx->err);
		for (int k = 0; k < T_COUNT; k++)
			if (!strcmp(m, t_metrics[k]) && qs->device) {
				struct tser *t = &f->t[f->n_t];

				t->met = k;
				t->host_id = qs->host_id;
				t->device = qs->device;
				t->labels = qs->labels;
				f->row_t[i] = (long)f->n_t++;
			}
		/* a receipt's run totals (jsondoc) are no request */
		if (qs->source && !strcmp(qs->source, "jsondoc"))
			continue;
		for (size_t k = 0; k < sizeof(inf) / sizeof(inf[0]); k++)
			if (!strcmp(m, inf[k].metric)) {
				struct fser *s = series_of(f, SRC_INFERENCE, 0, m, qs->host_id, qs->device,
							   -1, &rc);

				if (rc != GL_OK)
					return gl_section_oom(cx->err);
				if (s) {
					s->unit = inf[k].unit;
					s->higher_worse = inf[k].higher_worse;
					f->row_s[i] = s - f->s;
				}
			}
	}
	return GL_OK;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct findings *f = st;
	struct fser *s = NULL;
	int rc = GL_OK;

	if (ev->dup_of)
		return GL_OK;
	if (ev->level >= GL_LEVEL_WARN && ev->message && gl_section_event_ok(cx, ev)) {
		struct hev *h = host_events(f, ev->host_id);
		size_t b = bucket_at(f, ev->ts_us);

		if (h) {
			if (ev->level >= GL_LEVEL_ERROR)
				h->c[E_ERR][b]++;
			unsigned ph = gl_section_phrases(cx, ev);

			if (ph & (GL_PHRASE_OOM_TEXT | GL_PHRASE_OOM_CAMEL))
				h->c[E_OOM][b]++;
			if (ph & GL_PHRASE_XID)
				h->c[E_XID][b]++;
			if (ev->level == GL_LEVEL_WARN &&
			    !strcmp(gl_section_name(cx, ev->component_id), "nccl"))
				h->c[E_NCCL][b]++;
		}
	}
	if (ev->kernel_id && isfinite(ev->dur_us)) {
		if (!cx->kernel_sample)
			return GL_OK;
		s = kernel_series(f, ev, &rc);
		if (s) {
			s->unit = "us";
			s->higher_worse = 1;
			series_add(f, s, ev->ts_us, ev->dur_us);
		}
	} else if (!ev->kernel_id && isfinite(ev->op_ms) && ev->op_name &&
		   gl_section_event_ok(cx, ev)) {
		char full[160];
		const double ms = ev->op_ms;

		/* a named operation timing (table operations, as the operations
		 * section counts it; one its component names is not a series) */
		snprintf(full, sizeof(full), "operation %s", ev->op_name);
		s = series_of(f, SRC_OPERATION, 0, full, ev->host_id, ev->device, -1, &rc);
		if (s) {
			s->unit = "ms";
			s->higher_worse = 1;
			series_add(f, s, ev->ts_us, ms);
		}
	}
	return rc == GL_OK ? GL_OK : gl_section_oom(cx->err);
}

static int collect_samples(struct gl_section_ctx *cx, void *st, const struct gl_query_sample *smp,
			   size_t n)
{
	struct findings *f = st;

	(void)cx;
	for (size_t i = 0; i < n; i++) {
		long row = gl_section_series_row(&f->ss, smp[i].series_id);

		if (row < 0 || !isfinite(smp[i].value))
			continue;
		size_t b = bucket_at(f, smp[i].ts_us);

		gl_fev_sample(f->fev, (size_t)row, b, smp[i].value);
		if (f->row_t[row] >= 0) {
			struct tser *t = &f->t[f->row_t[row]];

			t->sum[b] += smp[i].value;
			t->n[b]++;
		}
		if (f->row_s[row] >= 0)
			series_add(f, &f->s[f->row_s[row]], smp[i].ts_us, smp[i].value);
	}
	return GL_OK;
}

/* The training section's steps as series: iteration time and throughput per run and rank. */
static int add_training(struct gl_section_ctx *cx, struct findings *f)
{
	const struct gl_training_result *tr =
		gl_training_result(gl_report_state_of(cx->rep, &gl_sec_training));
	int rc = GL_OK;

	for (size_t i = 0; tr && i < tr->n && rc == GL_OK; i++) {
		const struct gl_training_run *r = &tr->runs[i];
		static const struct {
			const char *metric, *unit;
			int higher_worse;
		} q[] = {
			{"train.iteration_ms", "ms", 1},
			{"train.tokens_per_s", "tokens/s", 0},
			{"train.samples_per_s", "samples/s", 0},
		};

		for (size_t k = 0; k < sizeof(q) / sizeof(q[0]) && rc == GL_OK; k++) {
			char name[300];
			struct fser *s = NULL;

			snprintf(name, sizeof(name), "%s %s", q[k].metric, r->run);
			for (size_t j = 0; j < r->n_steps; j++) {
				const struct gl_training_step *sp = &r->steps[j];
				double v = k == 0 ? sp->iteration_ms : k == 1 ? sp->tokens_per_s
									  : sp->samples_per_s;

				if (sp->ts_estimated || !isfinite(v) || sp->ts_us < f->t0_us ||
				    sp->ts_us > f->t1_us)
					continue;
				if (!s) {
					s = series_of(f, SRC_TRAINING, 0, name, 0, NULL, r->rank, &rc);
					if (!s)
						break;
					s->unit = q[k].unit;
					s->higher_worse = q[k].higher_worse;
				}
				series_add(f, s, sp->ts_us, v);
			}
		}
	}
	return rc == GL_OK ? GL_OK : gl_section_oom(cx->err);
}

static int cmp_float(const void *pa, const void *pb)
{
	float a = *(const float *)pa, b = *(const float *)pb;

	return a < b ? -1 : a > b;
}

static void medians(struct fser *s)
{
	for (size_t b = 0; b < FB_N; b++) {
		size_t k = s->bn[b] < FB_K ? s->bn[b] : FB_K;
		float *v = s->bv + b * FB_K;

		if (!k) {
			s->med[b] = NAN;
			continue;
		}
		qsort(v, k, sizeof(*v), cmp_float);
		s->med[b] = k % 2 ? v[k / 2] : ((double)v[k / 2 - 1] + v[k / 2]) / 2;
	}
}

/* Mean of t's bucket means over [b0, b1); NAN when none. */
static double t_mean(const struct tser *t, size_t b0, size_t b1)
{
	double s = 0;
	size_t k = 0;

	for (size_t b = b0; b < b1 && b < FB_N; b++)
		if (t->n[b]) {
			s += t->sum[b] / t->n[b];
			k++;
		}
	return k ? s / (double)k : NAN;
}

/* The share of t's buckets in [b0, b1) that hold a sample (a process seen there). */
static double cover(const struct tser *t, size_t b0, size_t b1)
{
	size_t k = 0;

	for (size_t b = b0; b < b1 && b < FB_N; b++)
		k += t->n[b] > 0;
	return b1 > b0 ? (double)k / (double)(b1 - b0) : 0;
}

static double pct(double before, double during)
{
	if (!isfinite(before) || !isfinite(during))
		return NAN;
	if (before == 0)
		return during == 0 ? 0 : NAN;
	return (during - before) / fabs(before) * 100;
}

static int add_evidence(struct gl_finding *fd, const struct gl_finding_evidence *e)
{
	struct gl_finding_evidence *p = realloc(fd->evidence, (fd->n_evidence + 1) * sizeof(*p));

	if (!p)
		return GL_ENOMEM;
	fd->evidence = p;
	p[fd->n_evidence++] = *e;
	return GL_OK;
}

static void hms(int64_t us, char *buf, size_t n)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

static void value_text(double v, const char *unit, char *buf, size_t n)
{
	if (!strcmp(unit, "us") && fabs(v) >= 1000)
		snprintf(buf, n, "%.3g ms", v / 1000);
	else if (!strcmp(unit, "us"))
		snprintf(buf, n, "%.3g \xC2\xB5s", v);
	else
		snprintf(buf, n, "%.3g %s", v, unit);
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* The change's buckets and the buckets it is compared with. */
static void intervals(const struct gl_change *c, const size_t *bidx, size_t n, size_t *d0,
		      size_t *d1, size_t *p0, size_t *p1)
{
	if (c->kind == GL_CHANGE_TREND) {
		size_t q = n / 10 > 3 ? n / 10 : 3;

		*p0 = bidx[0];
		*p1 = bidx[q - 1] + 1;
		*d0 = bidx[n - q];
		*d1 = bidx[n - 1] + 1;
		return;
	}
	*d0 = bidx[c->start];
	*d1 = bidx[c->end - 1] + 1;
	/* just before: as long as the change, at most 8 buckets (1/30 of the span), at least 4 */
	size_t len = *d1 - *d0 > 8 ? 8 : *d1 - *d0 > 4 ? *d1 - *d0 : 4;

	if (*d0 >= 2) {
		*p0 = *d0 > len ? *d0 - len : 0;
		*p1 = *d0;
	} else {
		*p0 = *d1;
		*p1 = *d1 + len < FB_N ? *d1 + len : FB_N;
	}
}

/* Pearson's r of a series' bucket medians and a metric's bucket means, over the buckets
 * that have both; NAN with fewer than 8. */
static double corr(const struct fser *s, const struct tser *t)
{
	double x[FB_N], y[FB_N];
	size_t n = 0;
	struct gl_fit fit;

	for (size_t b = 0; b < FB_N; b++)
		if (!isnan(s->med[b]) && t->n[b]) {
			x[n] = s->med[b];
			y[n++] = t->sum[b] / t->n[b];
		}
	if (n < 8)
		return NAN;
	gl_stats_fit_linear(x, y, n, &fit);
	return isnan(fit.r2) ? NAN : copysign(sqrt(fit.r2), fit.slope);
}

/* The evidence of findings_evidence.c: kept unless a process is there already (pmon and
 * compute-apps list the same one), its weight to its GPU's score. */
struct fev_arg {
	struct gl_finding *fd;
	const char **dev;
	double *score;
	size_t n_dev;
};

static int fev_add(void *arg, const struct gl_finding_evidence *e, double weight)
{
	struct fev_arg *a = arg;
	const char *pid = strstr(e->detail, " pid ");

	for (size_t i = 0; pid && i < a->fd->n_evidence; i++) {
		const struct gl_finding_evidence *o = &a->fd->evidence[i];
		const char *op = strstr(o->detail, " pid ");

		if (op && !strcmp(o->metric, e->metric) && !strcmp(o->device, e->device) &&
		    !strcmp(op, pid))
			return GL_OK;
	}
	for (size_t k = 0; k < a->n_dev; k++)
		if (!strcmp(a->dev[k], e->device))
			a->score[k] += weight;
	return add_evidence(a->fd, e);
}

static int explain(struct gl_section_ctx *cx, struct findings *f, struct gl_finding *fd,
		   const struct fser *s, size_t d0, size_t d1, size_t p0, size_t p1)
{
	bool trend = !strcmp(fd->kind, "trend");
	double score[64] = {0};
	const char *dev[64];
	size_t n_dev = 0;
	int rc = GL_OK;

	for (size_t i = 0; i < f->n_t && rc == GL_OK; i++) {
		const struct tser *t = &f->t[i];
		struct gl_finding_evidence e = {0};
		size_t k;

		if (!host_match(t->host_id, s->host_id))
			continue;
		for (k = 0; k < n_dev && strcmp(dev[k], t->device); k++)
			;
		if (k == n_dev && n_dev < 64)
			dev[n_dev++] = t->device;
		if (t->met == T_PROC) {
			/* a process on the GPU in the interval that was not there before */
			double before = cover(t, p0, p1), during = cover(t, d0, d1);

			/* a bucket or two of it before: the interval's edge is a bucket wide */
			if (before <= 0.25 && during >= 0.5) {
				json_t *l = t->labels ? json_loads(t->labels, 0, NULL) : NULL;
				const char *cmd = json_string_value(json_object_get(l, "command"));
				json_t *pid = json_object_get(l, "pid");

				snprintf(e.metric, sizeof(e.metric), "process");
				snprintf(e.device, sizeof(e.device), "%s", t->device);
				snprintf(e.detail, sizeof(e.detail), "%s pid %s", cmd ? cmd : "?",
					 json_is_string(pid) ? json_string_value(pid) : "?");
				if (json_is_integer(pid))
					snprintf(e.detail, sizeof(e.detail), "%s pid %lld", cmd ? cmd : "?",
						 (long long)json_integer_value(pid));
				json_decref(l);
				e.before = before;
				e.during = during;
				e.change_pct = NAN;
				e.event = 1;
				if (k < 64)
					score[k] += 100;
				rc = add_evidence(fd, &e);
			}
			continue;
		}
		e.before = t_mean(t, p0, p1);
		e.during = t_mean(t, d0, d1);
		e.change_pct = pct(e.before, e.during);
		if (!isfinite(e.change_pct) || fabs(e.change_pct) < EVIDENCE_MIN_PCT)
			continue;
		/* a trend's first and last tenth differ in many ways: only a metric that moved
		 * with the series over its whole span tells something */
		if (trend && !(fabs(corr(s, t)) >= 0.8))
			continue;
		snprintf(e.metric, sizeof(e.metric), "%s", t_metrics[t->met]);
		snprintf(e.device, sizeof(e.device), "%s", t->device);
		/* what makes a GPU slower: more load, power, heat or memory, a lower clock */
		double up = t->met == T_SM ? -e.change_pct : e.change_pct;

		if (t->met == T_MEM)
			up /= 2;
		if (k < 64 && up > score[k])
			score[k] = up;
		rc = add_evidence(fd, &e);
	}
	for (size_t i = 0; i < f->n_h && rc == GL_OK; i++) {
		const struct hev *h = &f->h[i];

		if (!host_match(h->host_id, s->host_id))
			continue;
		for (int k = 0; k < E_COUNT && rc == GL_OK; k++) {
			struct gl_finding_evidence e = {0};

			for (size_t b = p0; b < p1; b++)
				e.before += h->c[k][b];
			for (size_t b = d0; b < d1; b++)
				e.during += h->c[k][b];
			/* per bucket: the intervals may differ in length */
			if (!(e.during / (double)(d1 - d0) > e.before / (double)(p1 > p0 ? p1 - p0 : 1)))
				continue;
			snprintf(e.metric, sizeof(e.metric), "%s", e_names[k]);
			e.change_pct = pct(e.before, e.during);
			e.event = 1;
			rc = add_evidence(fd, &e);
		}
	}
	if (rc == GL_OK) {
		struct fev_arg a = {fd, dev, score, n_dev};

		rc = gl_fev_explain(f->fev, s->host_id, d0, d1, p0, p1, trend, fev_add, &a);
	}
	if (rc != GL_OK)
		return gl_section_oom(cx->err);

	/* attribution */
	if (s->device) {
		fd->device = xstrdup(s->device);
		fd->attributed_by = "record";
		fd->confidence = "high";
	} else {
		size_t best = 0;
		double second = 0;

		for (size_t k = 1; k < n_dev; k++)
			if (score[k] > score[best])
				best = k;
		for (size_t k = 0; k < n_dev; k++)
			if (k != best && score[k] > second)
				second = score[k];
		if (n_dev && score[best] >= EVIDENCE_MIN_PCT) {
			fd->device = xstrdup(dev[best]);
			fd->attributed_by = "telemetry";
			fd->confidence = score[best] >= 2 * second && score[best] >= 20 ? "high"
					 : score[best] >= 1.5 * second ? "medium" : "low";
		} else {
			fd->attributed_by = "none";
			fd->confidence = "low";
		}
	}
	for (size_t i = 0; fd->device && i < fd->n_evidence; i++)
		fd->evidence[i].implicated = !strcmp(fd->evidence[i].device, fd->device) ||
					     !fd->evidence[i].device[0];
	return GL_OK;
}

static void sentence(struct gl_finding *fd, size_t others_changed, char *buf, size_t n)
{
	char a[40], b[40], t0[16], t1[16], what[96], where[96] = "", why[400] = "", rest[300] = "";
	double r = fd->before != 0 ? fd->during / fd->before : NAN;
	const struct gl_finding_evidence *pw = ev_of(fd, "gpu.power_w"),
		*ut = ev_of(fd, "gpu.utilization_pct"), *sm = ev_of(fd, "gpu.sm_clock_mhz"),
		*tp = ev_of(fd, "gpu.temperature_c"), *mem = ev_of(fd, "gpu.memory_used_mib"),
		*oom = ev_of(fd, "oom"), *proc = ev_of(fd, "process"), *xid = ev_of(fd, "xid"),
		*err = ev_of(fd, "errors");
	size_t k = 0;

	value_text(fd->before, fd->unit, a, sizeof(a));
	value_text(fd->during, fd->unit, b, sizeof(b));
	hms(fd->start_us, t0, sizeof(t0));
	hms(fd->end_us, t1, sizeof(t1));
	if (isfinite(r) && r >= 1.5 && fd->worse)
		snprintf(what, sizeof(what), "ran %.1f\xC3\x97 slower", r);
	else if (isfinite(r) && r <= 1 / 1.5 && !fd->worse)
		snprintf(what, sizeof(what), "ran %.1f\xC3\x97 faster", 1 / r);
	else
		snprintf(what, sizeof(what), "%s by %.0f%%", fd->during > fd->before ? "rose" : "fell",
			 fabs(fd->change_pct));
	if (fd->device)
		snprintf(where, sizeof(where), " on GPU %s", fd->device);
	if (fd->host[0])
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s host %s",
			 fd->device ? " of" : " on", fd->host);
	if (fd->device) {
		char part[3][120];

		if (pw)
			snprintf(part[k++], sizeof(part[0]), "drew %.0f W instead of %.0f W", pw->during,
				 pw->before);
		if (ut && k < 3)
			snprintf(part[k++], sizeof(part[0]), "ran at %.0f%% utilisation instead of %.0f%%",
				 ut->during, ut->before);
		if (sm && k < 3)
			snprintf(part[k++], sizeof(part[0]), "clocked its SMs at %.0f MHz instead of %.0f",
				 sm->during, sm->before);
		if (tp && k < 3)
			snprintf(part[k++], sizeof(part[0]), "ran at %.0f \xC2\xB0" "C instead of %.0f",
				 tp->during, tp->before);
		if (mem && k < 3)
			snprintf(part[k++], sizeof(part[0]), "held %.0f MiB instead of %.0f", mem->during,
				 mem->before);
		if (k)
			snprintf(why, sizeof(why), ", while GPU %s %s%s%s", fd->device, part[0],
				 k > 1 ? " and " : "", k > 1 ? part[1] : "");
	}
	{
		const char *cause = NULL;

		char pc[160], more[200];

		snprintf(pc, sizeof(pc), "a new process on the GPU (%s)", proc ? proc->detail : "");
		if (proc)
			cause = pc;
		else if (oom && mem && mem->during > mem->before)
			cause = "memory grew until CUDA ran out of memory";
		else if (xid)
			cause = "the driver reported Xid errors";
		else if (gl_fev_cause(fd, more, sizeof(more)))
			cause = more;
		else if (sm && sm->during < sm->before)
			cause = "the GPU's clock was held lower";
		else if ((pw && pw->during > pw->before) || (ut && ut->during > ut->before))
			cause = "another load on the GPU";
		else if (mem && mem->during > mem->before)
			cause = "the GPU's memory grew";
		else if (err)
			cause = "errors were logged in the interval";
		if (cause)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " \xE2\x80\x94 %s", cause);
		else if (!fd->n_evidence)
			snprintf(why, sizeof(why), "; no GPU metric of the host changed then (look at "
				 "the series' own input)");
	}
	if (others_changed)
		snprintf(rest, sizeof(rest), "; %zu other series changed at the same time (%s)",
			 others_changed, fd->together);
	else if (fd->unchanged == 1)
		snprintf(rest, sizeof(rest), "; the other %s did not change", fd->source);
	else if (fd->unchanged)
		snprintf(rest, sizeof(rest), "; the other %llu %ss did not change",
			 (unsigned long long)fd->unchanged,
			 fd->source);
	if (!strcmp(fd->kind, "trend"))
		snprintf(buf, n, "%s %s steadily (%s \xE2\x86\x92 %s) from %s to %s%s%s%s.", fd->series,
			 fd->during > fd->before ? "grew" : "fell", a, b, t0, t1, where, why, rest);
	else if (!strcmp(fd->kind, "step"))
		snprintf(buf, n, "%s %s (%s \xE2\x86\x92 %s) from %s on and stayed so%s%s%s.", fd->series,
			 what, a, b, t0, where, why, rest);
	else
		snprintf(buf, n, "%s %s (%s \xE2\x86\x92 %s) from %s to %s%s%s%s.", fd->series, what, a,
			 b, t0, t1, where, why, rest);
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct gl_finding *a = pa, *b = pb;

	return a->score > b->score ? -1 : a->score < b->score;
}

static const char *series_name(struct gl_section_ctx *cx, const struct fser *s, char *buf, size_t n)
{
	if (s->src == SRC_KERNEL)	/* the name a person reads, as in the kernels' table */
		return gl_kernels_display(cx->rep, gl_section_name(cx, s->name_id), buf, n);
	if (s->src == SRC_TRAINING && s->rank >= 0) {
		snprintf(buf, n, "%s rank %ld", s->name, s->rank);
		return buf;
	}
	if (s->src == SRC_INFERENCE && s->device) {
		snprintf(buf, n, "%s GPU %s", s->name, s->device);
		return buf;
	}
	return s->name;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct findings *f = st;
	struct gl_change_params p;
	double x[FB_N];
	size_t bidx[FB_N];
	int rc;

	if ((rc = add_training(cx, f)) != GL_OK)
		return rc;
	gl_stats_change_params_default(&p);
	f->res.skipped = f->skipped;
	for (size_t i = 0; i < f->n_s; i++) {
		struct fser *s = &f->s[i];
		struct gl_change c;
		size_t n = 0, d0, d1, p0, p1;
		char nb[400];

		if (s->n < FS_MIN_SAMPLES)
			continue;
		medians(s);
		for (size_t b = 0; b < FB_N; b++)
			if (!isnan(s->med[b])) {
				x[n] = s->med[b];
				bidx[n++] = b;
			}
		if (n < FS_MIN_BUCKETS)
			continue;
		f->res.tested++;
		if (gl_stats_change_find(x, n, &p, &c) != 0)
			return gl_section_oom(cx->err);
		if (c.kind == GL_CHANGE_NONE || f->res.n >= FINDINGS_MAX)
			continue;
		struct gl_finding *fd = realloc(f->res.items, (f->res.n + 1) * sizeof(*fd));

		if (!fd)
			return gl_section_oom(cx->err);
		f->res.items = fd;
		fd = &fd[f->res.n++];
		memset(fd, 0, sizeof(*fd));
		intervals(&c, bidx, n, &d0, &d1, &p0, &p1);
		fd->ser = i;
		fd->series = xstrdup(series_name(cx, s, nb, sizeof(nb)));
		if (s->src == SRC_KERNEL && !(fd->kernel = xstrdup(gl_section_name(cx, s->name_id))))
			return gl_section_oom(cx->err);
		fd->source = src_names[s->src];
		fd->unit = s->unit;
		fd->kind = c.kind == GL_CHANGE_TREND ? "trend" : c.kind == GL_CHANGE_STEP ? "step"
											  : "window";
		fd->host = xstrdup(gl_section_name(cx, s->host_id));
		fd->rank = s->rank;
		fd->start_us = bucket_start(f, c.kind == GL_CHANGE_TREND ? bidx[0] : d0);
		fd->end_us = c.kind == GL_CHANGE_TREND ? bucket_start(f, bidx[n - 1] + 1)
						       : bucket_start(f, d1);
		fd->before = c.before;
		fd->during = c.during;
		fd->change_pct = c.change_pct;
		fd->p_value = c.p_value;
		fd->worse = s->higher_worse ? c.during > c.before : c.during < c.before;
		fd->score = fabs(log(c.during / c.before)) * (double)(fd->end_us - fd->start_us) / 1e6;
		if (!isfinite(fd->score))
			fd->score = fabs(c.change_pct) / 100 * (double)(fd->end_us - fd->start_us) / 1e6;
		if (!fd->series || !fd->host)
			return gl_section_oom(cx->err);
		if ((rc = explain(cx, f, fd, s, d0, d1, p0, p1)) != GL_OK)
			return rc;
	}
	/* series that changed at the same moment; those of the same source that did not */
	for (size_t i = 0; i < f->res.n; i++) {
		struct gl_finding *fd = &f->res.items[i];
		const struct fser *s = &f->s[fd->ser];
		size_t together = 0, len = 0, cap = 256;
		char *t = malloc(cap);
		char sent[1200];

		if (!t)
			return gl_section_oom(cx->err);
		t[0] = 0;
		for (size_t j = 0; j < f->res.n; j++) {
			const struct gl_finding *o = &f->res.items[j];
			int64_t i0 = o->start_us > fd->start_us ? o->start_us : fd->start_us;
			int64_t i1 = o->end_us < fd->end_us ? o->end_us : fd->end_us;
			int64_t u0 = o->start_us < fd->start_us ? o->start_us : fd->start_us;
			int64_t u1 = o->end_us > fd->end_us ? o->end_us : fd->end_us;

			if (j == i || !host_match(f->s[o->ser].host_id, s->host_id) || i1 <= i0 ||
			    (double)(i1 - i0) < 0.5 * (double)(u1 - u0))
				continue;
			size_t need = len + strlen(o->series) + 3;

			if (need > cap) {
				char *nt = realloc(t, need * 2);

				if (!nt) {
					free(t);
					return gl_section_oom(cx->err);
				}
				t = nt;
				cap = need * 2;
			}
			len += (size_t)sprintf(t + len, "%s%s", together ? ", " : "", o->series);
			together++;
		}
		fd->together = t;
		for (size_t j = 0; j < f->n_s; j++) {
			const struct fser *o = &f->s[j];
			bool changed = false;

			if (j == fd->ser || o->src != s->src || o->n < FS_MIN_SAMPLES ||
			    !host_match(o->host_id, s->host_id))
				continue;
			for (size_t k = 0; k < f->res.n && !changed; k++)
				changed = f->res.items[k].ser == j;
			fd->unchanged += !changed;
		}
		sentence(fd, together, sent, sizeof(sent));
		if (!(fd->sentence = strdup(sent)))
			return gl_section_oom(cx->err);
	}
	if (f->res.n > 1)
		qsort(f->res.items, f->res.n, sizeof(*f->res.items), cmp_finding);
	return GL_OK;
}

static void release(void *st)
{
	struct findings *f = st;

	for (size_t i = 0; i < f->n_s; i++) {
		free(f->s[i].name);
		free(f->s[i].device);
		free(f->s[i].bn);
		free(f->s[i].bv);
	}
	free(f->s);
	free(f->hash);
	free(f->kernel_s);
	free(f->row_t);
	free(f->row_s);
	free(f->t);
	free(f->h);
	gl_fev_free(f->fev);
	for (size_t i = 0; i < f->res.n; i++) {
		struct gl_finding *fd = &f->res.items[i];

		free(fd->series);
		free(fd->kernel);
		free(fd->host);
		free(fd->device);
		free(fd->evidence);
		free(fd->together);
		free(fd->sentence);
	}
	free(f->res.items);
	if (f->loaded)
		gl_section_series_release(&f->ss);
}

/* ---- output ---------------------------------------------------------- */

#define EV(f) offsetof(struct gl_finding_evidence, f)

static bool not_event(const void *row)
{
	return !((const struct gl_finding_evidence *)row)->event;
}

static bool is_event(const void *row)
{
	return ((const struct gl_finding_evidence *)row)->event;
}

static bool no_detail(const void *row)
{
	return !((const struct gl_finding_evidence *)row)->detail[0];
}

static json_t *metric_json(const void *row)
{
	return gl_json_str(((const struct gl_finding_evidence *)row)->metric);
}

static json_t *device_json(const void *row)
{
	const struct gl_finding_evidence *e = row;

	return gl_json_str(e->device[0] ? e->device : NULL);
}

static json_t *detail_json(const void *row)
{
	return gl_json_str(((const struct gl_finding_evidence *)row)->detail);
}

/* A finding's evidence, JSON's evidence items: the metric under "event" for a count of
 * events, else "metric"; detail only when there is one. */
static const struct gl_col evidence_cols[] = {
	{"event", GL_COL_TEXT, EV(metric), 0, 0, NULL, 0, 0, NULL, 0, .absent = not_event,
	 .json_of = metric_json},
	{"metric", GL_COL_TEXT, EV(metric), 0, 0, NULL, 0, 0, NULL, 0, .absent = is_event,
	 .json_of = metric_json},
	{"device", GL_COL_TEXT, EV(device), 0, 0, NULL, 0, 0, NULL, 0, .json_of = device_json},
	{"detail", GL_COL_TEXT, EV(detail), 0, 0, NULL, 0, 0, NULL, 0, .absent = no_detail,
	 .json_of = detail_json},
	{"before", GL_COL_NUM, EV(before), 0, 0, NULL, 0, 0, NULL, 0},
	{"during", GL_COL_NUM, EV(during), 0, 0, NULL, 0, 0, NULL, 0},
	{"change_pct", GL_COL_NUM, EV(change_pct), 0, 0, NULL, 0, 0, NULL, 0},
	{"implicated", GL_COL_FLAG, EV(implicated), 0, 0, NULL, 0, 0, NULL, 0},
};

static const struct gl_table evidence_table = {
	evidence_cols, sizeof(evidence_cols) / sizeof(evidence_cols[0]),
	sizeof(struct gl_finding_evidence)};

static json_t *evidence_json(const void *row)
{
	const struct gl_finding *fd = row;

	return gl_table_json(&evidence_table, fd->evidence, fd->n_evidence);
}

#define FD(f) offsetof(struct gl_finding, f)
/* One description of a finding's columns: JSON (with its rank and evidence added) and
 * CSV show them all; the page's table the main ones under the sentences. */
static const struct gl_col finding_cols[] = {
	{"series", GL_COL_TEXT, FD(series), GL_COL_NAME, 0, NULL, 0, 1, "series", 0, NULL, 1},
	{"kernel", GL_COL_TEXT, FD(kernel), 0, 0, NULL, 0, 0, NULL, 0, NULL, 2},
	{"source", GL_COL_TEXT, FD(source), 0, 0, NULL, 0, 0, NULL, 0, NULL, 3},
	{"kind", GL_COL_TEXT, FD(kind), 0, 0, NULL, 0, 2, "kind", 0, NULL, 4},
	{"host", GL_COL_TEXT, FD(host), 0, 0, NULL, 0, 0, NULL, 0, NULL, 5},
	{"device", GL_COL_TEXT, FD(device), 0, 0, NULL, 0, 3, "GPU", 0, NULL, 6},
	{"start_ts", GL_COL_TS, FD(start_us), 0, 0, NULL, 0, 4, "from", 0, NULL, 7},
	{"end_ts", GL_COL_TS, FD(end_us), 0, 0, NULL, 0, 5, "to", 0, NULL, 8},
	{"unit", GL_COL_TEXT, FD(unit), 0, 0, NULL, 0, 6, "unit", 0, NULL, 9},
	{"before", GL_COL_NUM, FD(before), 0, 0, NULL, 0, 7, "before", 0, NULL, 10},
	{"during", GL_COL_NUM, FD(during), 0, 0, NULL, 0, 8, "during", 0, NULL, 11},
	{"change_pct", GL_COL_NUM, FD(change_pct), 0, 0, NULL, 0, 9, "change %", 0, NULL, 12},
	{"p_value", GL_COL_NUM, FD(p_value), 0, 0, NULL, 0, 0, NULL, 0, NULL, 13},
	{"score", GL_COL_NUM, FD(score), 0, 0, NULL, 0, 0, NULL, 0, NULL, 14},
	{"attributed_by", GL_COL_TEXT, FD(attributed_by), 0, 0, NULL, 0, 0, NULL, 0, NULL, 15},
	{"confidence", GL_COL_TEXT, FD(confidence), 0, 0, NULL, 0, 10, "confidence", 0, NULL, 16},
	{"changed_together", GL_COL_TEXT, FD(together), 0, 0, NULL, 0, 0, NULL, 0, NULL, 17},
	{"unchanged", GL_COL_U64, FD(unchanged), 0, 0, NULL, 0, 0, NULL, 0, NULL, 18},
	{"sentence", GL_COL_TEXT, FD(sentence), 0, 0, NULL, 0, 0, NULL, 0, NULL, 19},
	{"rank", GL_COL_INDEX, FD(rank), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"worse", GL_COL_FLAG, FD(worse), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"evidence", GL_COL_U64, FD(evidence), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0,
	 .json_of = evidence_json},
};
static const struct gl_table table = {finding_cols,
				      sizeof(finding_cols) / sizeof(finding_cols[0]),
				      sizeof(struct gl_finding)};

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct findings *f = st;

	(void)rep;
	return gl_table_json(&table, f ? f->res.items : NULL, f ? f->res.n : 0);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct findings *f = st;

	(void)rep;
	gl_table_csv(&table, f ? f->res.items : NULL, f ? f->res.n : 0, fp);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct findings *f = st;

	(void)rep;
	if (!f || !f->res.n) {
		fprintf(fp, "No series changed (%zu tested).\n", f ? f->res.tested : (size_t)0);
		return;
	}
	for (size_t i = 0; i < f->res.n; i++) {
		const struct gl_finding *fd = &f->res.items[i];

		fprintf(fp, "%zu. [%s, %s confidence] %s\n", i + 1, fd->kind, fd->confidence,
			fd->sentence);
	}
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct findings *fs = st;

	(void)rep;
	if (!fs || !fs->res.n) {
		fprintf(f, "<p>No series changed: %zu kernel, operation, training and inference "
			"series tested.</p>\n", fs ? fs->res.tested : (size_t)0);
		return;
	}
	fputs("<ol class=\"findings\">\n", f);
	for (size_t i = 0; i < fs->res.n; i++) {
		const struct gl_finding *fd = &fs->res.items[i];

		fprintf(f, "<li><span class=\"%s\">%s</span> ", fd->worse ? "warning" : "info",
			fd->kind);
		gl_html_text(f, fd->sentence);
		/* p below 1e-12 is "p < 1e-12": the test's assumptions are not that exact */
		if (fd->p_value < 1e-12)
			fprintf(f, " <span class=\"muted\">(p &lt; 1e-12, %s confidence, attributed "
				"by %s)</span>", fd->confidence, fd->attributed_by);
		else
			fprintf(f, " <span class=\"muted\">(p %.2g, %s confidence, attributed by "
				"%s)</span>", fd->p_value, fd->confidence, fd->attributed_by);
		fputs("</li>\n", f);
	}
	fputs("</ol>\n", f);
	gl_table_html(&table, fs->res.items, fs->res.n, f);
}

const struct gl_section gl_sec_findings = {
	.name = "findings",
	.title = "Findings",
	.state_size = sizeof(struct findings),
	.finish_last = true,
	.begin = begin,
	.collect = collect,
	.collect_samples = collect_samples,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = gl_findings_charts,
};
