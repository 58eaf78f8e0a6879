/*
 * sec_kernels.c - the kernels section: per kernel, the durations of its
 * timings in the window (events.dur_us) described: count, min, max, mean,
 * standard deviation, percentiles, total; the log's own anomaly flags and
 * the mean memory in use of its events. Charts: the top kernels over time
 * and their histograms.
 *
 * Memory: one double per timing (the percentiles need them all).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "section.h"
#include "sections.h"
#include "series.h"
#include "stats/stats.h"

struct kstate {
	int64_t id;
	const char *name;	/* borrowed from the query's names */
	double *dur;		/* durations, time order, then reordered by describe */
	size_t n, cap;
	double mem_sum;
	uint64_t mem_n, flagged;
};

struct kernels {
	struct kstate **by_id;	/* per name id */
	int64_t *ids;		/* ids in order of first sight */
	size_t n, n_ids;
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct kernels *k = st;

	k->n_ids = cx->n_ids;
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
		if (!(k = calloc(1, sizeof(*k))))
			return gl_section_oom(cx->err);
		k->id = ev->kernel_id;
		k->name = gl_section_name(cx, ev->kernel_id);
		ks->by_id[ev->kernel_id] = k;
		ks->ids[ks->n++] = ev->kernel_id;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		double *d = realloc(k->dur, cap * sizeof(*d));

		if (!d)
			return gl_section_oom(cx->err);
		k->dur = d;
		k->cap = cap;
	}
	k->dur[k->n++] = ev->dur_us;
	if (ev->anomaly == 1)
		k->flagged++;
	if (!isnan(ev->mem_mb)) {
		k->mem_sum += ev->mem_mb;
		k->mem_n++;
	}
	return GL_OK;
}

static int cmp_kernel_total(const void *pa, const void *pb)
{
	const struct gl_report_kernel *a = pa, *b = pb;

	if (a->total_us != b->total_us)
		return a->total_us < b->total_us ? 1 : -1;
	return strcmp(a->kernel, b->kernel);
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct kernels *ks = st;
	struct gl_report *rep = cx->rep;
	struct gl_series *s = cx->p->series;
	int rc = GL_OK;

	rep->kernels = calloc(ks->n ? ks->n : 1, sizeof(*rep->kernels));
	if (!rep->kernels)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < ks->n; i++) {
		struct kstate *k = ks->by_id[ks->ids[i]];
		struct gl_report_kernel *rk = &rep->kernels[rep->n_kernels];
		struct gl_stats_desc d;

		if (!(rk->kernel = strdup(k->name)))
			return gl_section_oom(cx->err);
		rep->n_kernels++;
		gl_stats_describe(k->dur, k->n, &d);
		rk->count = k->n;
		rk->min_us = d.min;
		rk->max_us = d.max;
		rk->mean_us = d.mean;
		rk->stddev_us = d.sd;
		rk->p50_us = d.p50;
		rk->p90_us = d.p90;
		rk->p95_us = d.p95;
		rk->p99_us = d.p99;
		rk->total_us = d.sum;
		rk->flagged = k->flagged;
		rk->mean_mem_mib = k->mem_n ? k->mem_sum / (double)k->mem_n : NAN;
	}
	qsort(rep->kernels, rep->n_kernels, sizeof(*rep->kernels), cmp_kernel_total);
	/* the charts' histograms of the top kernels, from the durations kept */
	for (size_t r = 0; s && r < rep->n_kernels && r < s->top_max && rc == GL_OK; r++) {
		for (size_t i = 0; i < ks->n; i++) {
			struct kstate *k = ks->by_id[ks->ids[i]];

			if (!strcmp(k->name, rep->kernels[r].kernel)) {
				rc = gl_series_top_kernel(s, r, k->id, &rep->kernels[r], k->dur,
							  k->n, cx->err);
				break;
			}
		}
	}
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->by_id[ks->ids[i]]->dur);
		ks->by_id[ks->ids[i]]->dur = NULL;
	}
	return rc;
}

static void release(void *st)
{
	struct kernels *ks = st;

	for (size_t i = 0; i < ks->n; i++) {
		free(ks->by_id[ks->ids[i]]->dur);
		free(ks->by_id[ks->ids[i]]);
	}
	free(ks->by_id);
	free(ks->ids);
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	struct gl_jb jb = {0};
	json_t *a = json_array();

	(void)st;
	for (size_t i = 0; a && i < r->n_kernels; i++) {
		const struct gl_report_kernel *k = &r->kernels[i];
		json_t *o = json_object();

		gl_jb_set(&jb, o, "kernel", gl_json_str(k->kernel));
		gl_jb_set(&jb, o, "count", gl_json_u64(k->count));
		gl_jb_set(&jb, o, "min_us", gl_json_num(k->min_us));
		gl_jb_set(&jb, o, "max_us", gl_json_num(k->max_us));
		gl_jb_set(&jb, o, "mean_us", gl_json_num(k->mean_us));
		gl_jb_set(&jb, o, "stddev_us", gl_json_num(k->stddev_us));
		gl_jb_set(&jb, o, "p50_us", gl_json_num(k->p50_us));
		gl_jb_set(&jb, o, "p90_us", gl_json_num(k->p90_us));
		gl_jb_set(&jb, o, "p95_us", gl_json_num(k->p95_us));
		gl_jb_set(&jb, o, "p99_us", gl_json_num(k->p99_us));
		gl_jb_set(&jb, o, "total_us", gl_json_num(k->total_us));
		gl_jb_set(&jb, o, "anomalies", gl_json_u64(k->anomalies));
		gl_jb_set(&jb, o, "flagged_anomalies", gl_json_u64(k->flagged));
		gl_jb_set(&jb, o, "mean_mem_mib", gl_json_num(k->mean_mem_mib));
		gl_jb_append(&jb, a, o);
	}
	return gl_jb_done(&jb, a);
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)st;
	fputs("kernel,count,min_us,max_us,mean_us,stddev_us,p50_us,p90_us,p95_us,p99_us,"
	      "total_us,anomalies,flagged_anomalies,mean_mem_mib", fp);
	gl_csv_eol(fp);
	for (size_t i = 0; i < r->n_kernels; i++) {
		const struct gl_report_kernel *k = &r->kernels[i];
		double v[] = {k->min_us, k->max_us, k->mean_us, k->stddev_us, k->p50_us,
			      k->p90_us, k->p95_us, k->p99_us, k->total_us};

		gl_csv_text(fp, k->kernel);
		gl_csv_sep(fp);
		gl_csv_u64(fp, k->count);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			gl_csv_sep(fp);
			gl_csv_num(fp, v[j]);
		}
		gl_csv_sep(fp);
		gl_csv_u64(fp, k->anomalies);
		gl_csv_sep(fp);
		gl_csv_u64(fp, k->flagged);
		gl_csv_sep(fp);
		gl_csv_num(fp, k->mean_mem_mib);
		gl_csv_eol(fp);
	}
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	char a[40], b[40], c[40], d[40], e[40], f[40];

	(void)st;
	if (!r->n_kernels) {
		fprintf(fp, "no kernel timings\n");
		return;
	}
	gl_text_cell(fp, "kernel", 26);
	fprintf(fp, "%8s %9s %9s %9s %9s %9s %9s %5s\n", "count", "mean", "stddev", "p50", "p95",
		"p99", "total", "anom");
	for (size_t i = 0; i < r->n_kernels && i < r->top; i++) {
		const struct gl_report_kernel *k = &r->kernels[i];

		gl_text_cell(fp, k->kernel, 26);
		fprintf(fp, "%8llu %9s %9s %9s %9s %9s %9s %5llu\n", (unsigned long long)k->count,
			gl_text_num(k->mean_us, a, sizeof(a)), gl_text_num(k->stddev_us, b, sizeof(b)),
			gl_text_num(k->p50_us, c, sizeof(c)), gl_text_num(k->p95_us, d, sizeof(d)),
			gl_text_num(k->p99_us, e, sizeof(e)), gl_text_num(k->total_us, f, sizeof(f)),
			(unsigned long long)k->anomalies);
	}
	if (r->n_kernels > r->top)
		fprintf(fp, "(%zu more kernels)\n", r->n_kernels - r->top);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	(void)st;
	if (rep->n_kernels == 0) {
		fputs("<p>No kernel timings in this window.</p>\n", f);
		return;
	}
	fputs("<table><tr><th>kernel</th><th>count</th><th>mean µs</th><th>p50 µs</th>"
	      "<th>p95 µs</th><th>p99 µs</th><th>max µs</th><th>total s</th>"
	      "<th>anomalies</th><th>flagged by logs</th></tr>\n", f);
	for (size_t i = 0; i < rep->n_kernels; i++) {
		const struct gl_report_kernel *k = &rep->kernels[i];
		const double v[5] = {k->mean_us, k->p50_us, k->p95_us, k->p99_us, k->max_us};

		fputs("<tr><td class=\"k\">", f);
		gl_html_text(f, k->kernel);
		fprintf(f, "</td><td class=\"n\">%llu</td>", (unsigned long long)k->count);
		for (int j = 0; j < 5; j++) {
			fputs("<td class=\"n\">", f);
			gl_html_num(f, v[j], GL_HTML_G4);
			fputs("</td>", f);
		}
		fputs("<td class=\"n\">", f);
		gl_html_num(f, k->total_us / 1e6, GL_HTML_G4);
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
			(unsigned long long)k->anomalies, (unsigned long long)k->flagged);
	}
	fputs("</table>\n", f);
}

static int chart(const struct gl_report *rep, const void *st, const struct gl_series *s,
		 struct gl_output *out, const struct gl_emit_png_opts *o, struct gl_err *err)
{
	int rc = gl_png_draw(GL_PNG_TIMELINE, rep, s, out, o, err);

	(void)st;
	return rc == GL_OK ? gl_png_draw(GL_PNG_DISTRIBUTION, rep, s, out, o, err) : rc;
}

static const char *const charts[] = {GL_PNG_TIMELINE, GL_PNG_DISTRIBUTION, NULL};
static const char *const alts[] = {"Kernel durations of the top kernels over time",
				   "Histograms of kernel durations with p50 and p95"};

const struct gl_section gl_sec_kernels = {
	.name = "kernels",
	.title = "Kernels by total time (us)",
	.state_size = sizeof(struct kernels),
	.begin = begin,
	.collect = collect,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.chart = chart,
	.charts = charts,
	.chart_alts = alts,
};
