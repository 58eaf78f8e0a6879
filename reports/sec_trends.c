/*
 * sec_trends.c - the trends section: a least-squares line through the
 * durations of each kernel, memory in use, and errors per hour, over the
 * data's own span (t in days since the window's start). The change is
 * between the fitted values at the first and the last point of the series;
 * the operations section adds one trend per operation (series "operation").
 * Kernel trends are given for the kernels the kernels section lists (the
 * fit of every kernel is kept in the event pass: a fixed state each).
 * Chart: the kernels that degrade or improve, their fitted lines drawn over
 * their own points only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"
#include "util/timeutil.h"

#define US_PER_HOUR (3600LL * GL_US_PER_S)

struct kfit {
	const char *name;
	struct gl_fit_acc fit;
	int64_t first_ts_us, last_ts_us;
};

/* kfits come in slabs of this many: no allocation's header on each of a million */
#define KFIT_SLAB 4096

struct trends {
	struct kfit **by_id;	/* per name id, into slabs */
	struct kfit **slabs;	/* the i-th kernel seen is slabs[i / KFIT_SLAB][i % KFIT_SLAB] */
	size_t n_slabs;
	int64_t *ids;
	size_t n, n_ids;
	struct gl_fit_acc mem;
	int64_t mem_first_us, mem_last_us;
	double mem_last_mib;
	double *err_bins;	/* ERROR+ per hour of the window */
	size_t n_bins;
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct trends *t = st;
	int64_t len = cx->p->until_us - cx->p->since_us;

	t->n_ids = cx->n_ids;
	t->by_id = calloc(cx->n_ids, sizeof(*t->by_id));
	t->ids = calloc(cx->n_ids, sizeof(*t->ids));
	t->n_bins = (size_t)((len + US_PER_HOUR - 1) / US_PER_HOUR);
	t->err_bins = calloc(t->n_bins ? t->n_bins : 1, sizeof(double));
	t->mem_first_us = t->mem_last_us = GL_TS_NONE;
	gl_fit_acc_init(&t->mem);
	return t->by_id && t->ids && t->err_bins ? GL_OK : gl_section_oom(cx->err);
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct trends *t = st;
	double x = gl_section_days(cx, ev->ts_us);

	if (cx->kernel_sample && (uint64_t)ev->kernel_id < t->n_ids) {
		struct kfit *k = t->by_id[ev->kernel_id];

		if (!k) {
			if (t->n / KFIT_SLAB == t->n_slabs) {
				struct kfit **s = realloc(t->slabs, (t->n_slabs + 1) * sizeof(*s));

				if (!s)
					return gl_section_oom(cx->err);
				t->slabs = s;
				if (!(s[t->n_slabs] = calloc(KFIT_SLAB, sizeof(**s))))
					return gl_section_oom(cx->err);
				t->n_slabs++;
			}
			k = &t->slabs[t->n / KFIT_SLAB][t->n % KFIT_SLAB];
			k->name = gl_section_name(cx, ev->kernel_id);
			k->first_ts_us = ev->ts_us;
			gl_fit_acc_init(&k->fit);
			t->by_id[ev->kernel_id] = k;
			t->ids[t->n++] = ev->kernel_id;
		}
		gl_fit_acc_add(&k->fit, x, ev->dur_us);
		k->last_ts_us = ev->ts_us;
	}
	if (!isnan(ev->mem_mb)) {
		if (t->mem_first_us == GL_TS_NONE)
			t->mem_first_us = ev->ts_us;
		t->mem_last_us = ev->ts_us;
		t->mem_last_mib = ev->mem_mb;
		gl_fit_acc_add(&t->mem, x, ev->mem_mb);
	}
	if (ev->level >= GL_LEVEL_ERROR) {
		size_t h = (size_t)((ev->ts_us - cx->p->since_us) / US_PER_HOUR);

		if (h < t->n_bins)
			t->err_bins[h] += 1;
	}
	return GL_OK;
}

static int cmp_kfit(const void *pa, const void *pb)
{
	return strcmp((*(struct kfit *const *)pa)->name, (*(struct kfit *const *)pb)->name);
}

/* Errors per hour, over the hours from the first to the last event of the data. */
static void error_trend(struct gl_section_ctx *cx, struct trends *t, struct gl_report_trend *et)
{
	const struct gl_report_window *w = &cx->rep->window;
	struct gl_fit_acc acc;
	size_t lo = 0, hi = 0;

	gl_fit_acc_init(&acc);
	if (w->data_first_ts_us != GL_TS_NONE) {
		lo = (size_t)((w->data_first_ts_us - w->since_us) / US_PER_HOUR);
		hi = (size_t)((w->data_last_ts_us - w->since_us) / US_PER_HOUR);
		for (size_t i = lo; i <= hi && i < t->n_bins; i++)
			gl_fit_acc_add(&acc, ((double)i + 0.5) / 24.0, t->err_bins[i]);
	}
	/* the points are the hours' middles */
	gl_section_trend(cx, &acc,
			 acc.n ? w->since_us + (int64_t)lo * US_PER_HOUR + US_PER_HOUR / 2 : GL_TS_NONE,
			 acc.n ? w->since_us + (int64_t)hi * US_PER_HOUR + US_PER_HOUR / 2 : GL_TS_NONE,
			 et);
	et->series = GL_TREND_ERRORS;
	et->unit = "errors/h";
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct trends *t = st;
	struct gl_report *rep = cx->rep;
	struct gl_report_trend *ops = rep->trends, *all;
	size_t n_ops = rep->n_trends, nk = 0, n;
	struct kfit **ks = malloc((rep->n_kernels ? rep->n_kernels : 1) * sizeof(*ks));

	if (!ks)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < rep->n_kernels; i++) {
		int64_t id = rep->kernels[i].kernel_id;

		if (id > 0 && (uint64_t)id < t->n_ids && t->by_id[id])
			ks[nk++] = t->by_id[id];
	}
	qsort(ks, nk, sizeof(*ks), cmp_kfit);
	/* listed kernels (by name), memory, errors, then what other sections added */
	n = nk + 2 + n_ops;
	if (!(all = calloc(n, sizeof(*all)))) {
		free(ks);
		return gl_section_oom(cx->err);
	}
	memcpy(all + nk + 2, ops, n_ops * sizeof(*ops));
	free(ops);
	rep->trends = all;
	rep->n_trends = n;
	for (size_t i = 0; i < nk; i++) {
		struct gl_report_trend *k = &all[i];

		gl_section_trend(cx, &ks[i]->fit, ks[i]->first_ts_us, ks[i]->last_ts_us, k);
		k->series = GL_TREND_KERNEL;
		k->unit = "us";
		if (!(k->kernel = strdup(ks[i]->name))) {
			free(ks);
			return gl_section_oom(cx->err);
		}
	}
	free(ks);

	struct gl_report_trend *mt = &all[nk];
	gl_section_trend(cx, &t->mem, t->mem_first_us, t->mem_last_us, mt);
	mt->series = GL_TREND_MEMORY;
	mt->unit = "MiB";
	/* a significant rise is a leak when memory was not given back by the end */
	if (mt->verdict == GL_VERDICT_DEGRADING) {
		double y0 = mt->intercept + mt->slope_per_day * gl_section_days(cx, mt->first_ts_us);

		if (t->mem_last_mib >= y0 &&
		    (y0 <= 0 || (t->mem_last_mib - y0) / y0 * 100 >= cx->cfg->trend_min_change_pct))
			mt->verdict = GL_VERDICT_LEAK;
	}
	error_trend(cx, t, &all[nk + 1]);
	return GL_OK;
}

static void release(void *st)
{
	struct trends *t = st;

	for (size_t i = 0; i < t->n_slabs; i++)
		free(t->slabs[i]);
	free(t->slabs);
	free(t->by_id);
	free(t->ids);
	free(t->err_bins);
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	struct gl_jb jb = {0};
	json_t *a = json_array();

	(void)st;
	/* a metric trend of a listed series only (summary: trends_total) */
	for (size_t i = 0; a && i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];
		json_t *o;

		if (t->unlisted)
			continue;
		o = json_object();

		gl_jb_set(&jb, o, "series", gl_json_str(gl_trend_series_name(t->series)));
		gl_jb_set(&jb, o, "kernel", gl_json_str(t->kernel));
		if (t->series == GL_TREND_METRIC) {
			gl_jb_set(&jb, o, "device", gl_json_str(t->device ? t->device : ""));
			gl_jb_set(&jb, o, "host", gl_json_str(t->host ? t->host : ""));
		} else if (t->series == GL_TREND_SCOPE) {
			gl_jb_set(&jb, o, "device", gl_json_str(t->device));	/* null: none */
		}
		gl_jb_set(&jb, o, "unit", gl_json_str(t->unit));
		gl_jb_set(&jb, o, "n", gl_json_u64(t->n));
		gl_jb_set(&jb, o, "slope_per_day", gl_json_num(t->slope_per_day));
		gl_jb_set(&jb, o, "intercept", gl_json_num(t->intercept));
		gl_jb_set(&jb, o, "r2", gl_json_num(t->r2));
		gl_jb_set(&jb, o, "p_value", gl_json_num(t->p_value));
		gl_jb_set(&jb, o, "change_pct", gl_json_num(t->change_pct));
		gl_jb_set(&jb, o, "span_s", gl_json_num(t->span_s));
		gl_jb_set(&jb, o, "first_ts", gl_json_ts(t->n ? t->first_ts_us : GL_TS_NONE));
		gl_jb_set(&jb, o, "last_ts", gl_json_ts(t->n ? t->last_ts_us : GL_TS_NONE));
		gl_jb_set(&jb, o, "verdict", gl_json_str(gl_verdict_name(t->verdict)));
		gl_jb_append(&jb, a, o);
	}
	return gl_jb_done(&jb, a);
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)st;
	fputs("series,kernel,unit,n,slope_per_day,intercept,r2,p_value,change_pct,span_s,"
	      "first_ts,last_ts,verdict,device,host", fp);
	gl_csv_eol(fp);
	for (size_t i = 0; i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];
		const double v[] = {t->slope_per_day, t->intercept, t->r2, t->p_value,
				    t->change_pct, t->span_s};

		if (t->unlisted)
			continue;
		gl_csv_text(fp, gl_trend_series_name(t->series));
		gl_csv_sep(fp);
		gl_csv_text(fp, t->kernel);
		gl_csv_sep(fp);
		gl_csv_text(fp, t->unit);
		gl_csv_sep(fp);
		gl_csv_u64(fp, t->n);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			gl_csv_sep(fp);
			gl_csv_num(fp, v[j]);
		}
		gl_csv_sep(fp);
		gl_csv_ts(fp, t->n ? t->first_ts_us : GL_TS_NONE);
		gl_csv_sep(fp);
		gl_csv_ts(fp, t->n ? t->last_ts_us : GL_TS_NONE);
		gl_csv_sep(fp);
		gl_csv_text(fp, gl_verdict_name(t->verdict));
		gl_csv_sep(fp);
		gl_csv_text(fp, t->device ? t->device : "");
		gl_csv_sep(fp);
		gl_csv_text(fp, t->host ? t->host : "");
		gl_csv_eol(fp);
	}
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	char a[40], b[40], c[40], label[512];
	size_t shown = 0;

	(void)st;
	for (size_t i = 0; i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];
		bool named = t->series == GL_TREND_KERNEL || t->series == GL_TREND_OPERATION ||
			     t->series == GL_TREND_SCOPE;

		if (t->verdict == GL_VERDICT_STABLE)
			continue;
		if (shown++ >= r->top)
			continue;
		if (t->series == GL_TREND_METRIC)
			snprintf(label, sizeof(label), "%s %s%s%s", t->kernel,
				 t->host && *t->host ? t->host : "", t->host && *t->host ? "/" : "",
				 t->device && *t->device ? t->device : "-");
		else
			snprintf(label, sizeof(label), "%s",
				 named ? t->kernel : gl_trend_series_name(t->series));
		gl_text_cell(fp, label, 34);
		fprintf(fp, " %-10s %9s%%  slope %9s %s/day  p %s\n", gl_verdict_name(t->verdict),
			gl_text_pct(t->change_pct, b, sizeof(b)),
			gl_text_num(t->slope_per_day, a, sizeof(a)), t->unit,
			gl_text_p(t->p_value, c, sizeof(c)));
	}
	if (!shown)
		fprintf(fp, "all stable\n");
	else if (shown > r->top)
		fprintf(fp, "(%zu more)\n", shown - r->top);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	char span[40];

	(void)st;
	if (rep->n_trends == 0) {
		fputs("<p>No trend computed (too few points).</p>\n", f);
		return;
	}
	fputs("<table><tr><th>series</th><th>name</th><th>points</th><th>slope per day</th>"
	      "<th>change %</th><th>span</th><th>r²</th><th>p</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < rep->n_trends; i++) {
		const struct gl_report_trend *t = &rep->trends[i];
		int loud = t->verdict == GL_VERDICT_DEGRADING || t->verdict == GL_VERDICT_LEAK;

		if (t->unlisted)
			continue;
		fprintf(f, "<tr><td>%s</td><td class=\"k\">", gl_trend_series_name(t->series));
		gl_html_text(f, t->kernel ? t->kernel : "");
		if (t->series == GL_TREND_METRIC) {
			fputs(" <small>", f);
			gl_html_text(f, t->host ? t->host : "");
			fputs(" ", f);
			gl_html_text(f, t->device ? t->device : "");
			fputs("</small>", f);
		}
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">",
			(unsigned long long)t->n);
		gl_html_num(f, t->slope_per_day, GL_HTML_SIGNED_G4);
		fprintf(f, " %s</td><td class=\"n\">", t->unit ? t->unit : "");
		gl_html_num(f, t->change_pct, GL_HTML_PCT);
		fputs("</td><td class=\"n\">", f);
		gl_html_text(f, gl_text_duration(t->span_s, span, sizeof(span)));
		fputs("</td><td class=\"n\">", f);
		gl_html_num(f, t->r2, GL_HTML_F3);
		fputs("</td><td class=\"n\">", f);
		gl_html_num(f, t->p_value, GL_HTML_G3);
		fprintf(f, "</td><td%s>%s</td></tr>\n", loud ? " class=\"warning\"" : "",
			gl_verdict_name(t->verdict));
	}
	fputs("</table>\n", f);
	if (rep->n_metrics_listed < rep->n_metrics)
		fprintf(f, "<p>%zu of %zu trends listed: those of the listed metric series.</p>\n",
			rep->n_trends - (rep->n_metric_trends - rep->n_metrics_listed), rep->n_trends);
}

static int chart(const struct gl_report *rep, const void *st, const struct gl_series *s,
		 struct gl_output *out, const struct gl_emit_png_opts *o, struct gl_err *err)
{
	(void)st;
	return gl_png_draw(GL_PNG_TRENDS, rep, s, out, o, err);
}

static const char *const charts[] = {GL_PNG_TRENDS, NULL};
static const char *const alts[] = {"Kernels with a degrading or improving trend"};

const struct gl_section gl_sec_trends = {
	.name = "trends",
	.title = "Trends (least squares over the data's span)",
	.state_size = sizeof(struct trends),
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
