/*
 * sec_trends.c - the trends section: a least-squares line through the
 * durations of each kernel, memory in use, and errors per hour, over the
 * data's own span (t in days since the window's start). The change is
 * between the fitted values at the first and the last point of the series;
 * the operations section adds one trend per operation (series "operation").
 * Kernel trends are given for the kernels the kernels section lists (the
 * fit of every kernel is kept in the event pass: a fixed state each). A
 * backend that computes a listed kernel's least-squares sums (ClickHouse,
 * gl_kernels_server_fit) gives its printed line (slope, intercept, r2, p,
 * fitted ends); they may differ from the C sums in the last bits, so what
 * compares against a threshold or orders the rows stays the C figure: the
 * verdict, the change and its source, the slope's unit.
 * Chart: the kernels that degrade or improve, their fitted lines drawn over
 * their own points only; their points are the kernels section's columns
 * (sec_kernels.h), summed GL_CHART_COLUMNS / TREND_COLUMNS at a time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "kname.h"
#include "sec_kernels.h"
#include "sec_trends.h"
#include "table.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"
#include "trend_rules.h"
#include "util/timeutil.h"

#define US_PER_HOUR (3600LL * GL_US_PER_S)

/* 64 bytes a kernel, a million distinct kernels or more: what only the
 * listed ones need (name, ends) is found for them alone */
struct kfit {
	struct gl_fit_acc fit;
	int64_t first_ts_us, last_ts_us;
};

/* The ends of a listed kernel's durations, from the kernel pass. */
struct kends {
	int64_t id;
	struct gl_trend_ends ends;
};

/* A listed kernel's fit, with its name (finish). */
struct klisted {
	const struct kfit *k;
	const struct gl_fit_acc *srv;	/* the backend's sums; NULL: none */
	const char *name;
	const struct gl_trend_ends *ends;	/* NULL: none */
};

/* kfits come in slabs of this many: no allocation's header on each of a million */
#define KFIT_SLAB 4096

struct trends {
	struct kfit **by_id;	/* per name id, into slabs */
	struct kfit **slabs;	/* the i-th kernel seen is slabs[i / KFIT_SLAB][i % KFIT_SLAB] */
	size_t n_slabs;
	struct kends *kends;	/* the kernel pass's listed kernels, in its order */
	size_t n_kends, cap_kends;
	int64_t *listed;	/* the kernels section's listed kernels' ids, sorted */
	size_t n_listed;
	bool listed_known;	/* listed is filled (at the kernel pass's first row) */
	size_t n, n_ids;
	struct gl_fit_acc mem;
	int64_t mem_first_us, mem_last_us;
	double mem_last_mib;
	double *err_bins;	/* ERROR+ per hour of the window */
	size_t n_bins;
	double *mem_v;		/* memory values in time order (robust ends) */
	size_t n_mem, cap_mem;
	double *kv;		/* the kernel pass: the current kernel's durations */
	size_t n_kv, cap_kv;
	int64_t kv_id;		/* its id; 0: none */
	struct gl_trend_list own;	/* the listed kernels (by name), memory, errors */
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct trends *t = st;
	int64_t len = cx->p->until_us - cx->p->since_us;

	t->n_ids = cx->n_ids;
	t->by_id = calloc(cx->n_ids, sizeof(*t->by_id));
	t->n_bins = (size_t)((len + US_PER_HOUR - 1) / US_PER_HOUR);
	t->err_bins = calloc(t->n_bins ? t->n_bins : 1, sizeof(double));
	t->mem_first_us = t->mem_last_us = GL_TS_NONE;
	gl_fit_acc_init(&t->mem);
	return t->by_id && t->err_bins ? GL_OK : gl_section_oom(cx->err);
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
			k->first_ts_us = ev->ts_us;
			gl_fit_acc_init(&k->fit);
			t->by_id[ev->kernel_id] = k;
			t->n++;
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
		if (t->n_mem == t->cap_mem) {
			size_t cap = t->cap_mem ? t->cap_mem * 2 : 256;
			double *v = realloc(t->mem_v, cap * sizeof(*v));

			if (!v)
				return gl_section_oom(cx->err);
			t->mem_v = v;
			t->cap_mem = cap;
		}
		t->mem_v[t->n_mem++] = ev->mem_mb;
	}
	if (ev->level >= GL_LEVEL_ERROR) {
		size_t h = (size_t)((ev->ts_us - cx->p->since_us) / US_PER_HOUR);

		if (h < t->n_bins)
			t->err_bins[h] += 1;
	}
	return GL_OK;
}

/* The durations of the kernel kept so far give its ends. GL_OK or GL_ENOMEM. */
static int kernel_ends_done(struct trends *t)
{
	if (t->kv_id > 0 && (uint64_t)t->kv_id < t->n_ids && t->by_id[t->kv_id] && t->n_kv) {
		if (t->n_kends == t->cap_kends) {
			size_t cap = t->cap_kends ? t->cap_kends * 2 : 64;
			struct kends *v = realloc(t->kends, cap * sizeof(*v));

			if (!v)
				return GL_ENOMEM;
			t->kends = v;
			t->cap_kends = cap;
		}
		t->kends[t->n_kends].id = t->kv_id;
		gl_trend_ends_of(t->kv, t->n_kv, &t->kends[t->n_kends++].ends);
	}
	t->n_kv = 0;
	t->kv_id = 0;
	return GL_OK;
}

static int cmp_id(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* Is kernel id one the kernels section lists (its plan has run)? */
static int is_listed(struct gl_section_ctx *cx, struct trends *t, int64_t id, bool *yes)
{
	if (!t->listed_known) {
		const struct gl_kernels_result *r = gl_kernels_result(cx->rep);

		if (!(t->listed = malloc((r->n_kernels ? r->n_kernels : 1) * sizeof(*t->listed))))
			return GL_ENOMEM;
		for (size_t i = 0; i < r->n_kernels; i++)
			t->listed[i] = r->kernels[i].kernel_id;
		t->n_listed = r->n_kernels;
		qsort(t->listed, t->n_listed, sizeof(*t->listed), cmp_id);
		t->listed_known = true;
	}
	*yes = bsearch(&id, t->listed, t->n_listed, sizeof(*t->listed), cmp_id) != NULL;
	return GL_OK;
}

/* The kernel pass: each listed kernel's durations in time order, one kernel at a time. */
static int collect_kernel(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			  bool first)
{
	struct trends *t = st;

	if (first || ev->kernel_id != t->kv_id) {
		bool listed;

		if (kernel_ends_done(t) != GL_OK ||
		    is_listed(cx, t, ev->kernel_id, &listed) != GL_OK)
			return gl_section_oom(cx->err);
		if (!listed)
			return GL_OK;
		t->kv_id = ev->kernel_id;
	}
	if (t->n_kv == t->cap_kv) {
		size_t cap = t->cap_kv ? t->cap_kv * 2 : 1024;
		double *v = realloc(t->kv, cap * sizeof(*v));

		if (!v)
			return gl_section_oom(cx->err);
		t->kv = v;
		t->cap_kv = cap;
	}
	t->kv[t->n_kv++] = ev->dur_us;
	return GL_OK;
}

static int cmp_klisted(const void *pa, const void *pb)
{
	return strcmp(((const struct klisted *)pa)->name, ((const struct klisted *)pb)->name);
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
	struct gl_trend_ends e = {NAN, NAN, NAN, NAN};

	if (acc.n && lo < t->n_bins)
		gl_trend_ends_of(t->err_bins + lo, (hi < t->n_bins ? hi : t->n_bins - 1) - lo + 1, &e);
	gl_trend_judge(et, &e, cx->cfg->trend_min_change_pct);
}

/*
 * The printed line of trend t from the backend's sums srv (the same points
 * as t's): slope, intercept, r2, p and the fitted ends; t's verdict, change
 * and slope unit stay (threshold compares and the rows' order on a figure
 * that may differ in its last bits).
 */
static void server_line(struct gl_section_ctx *cx, const struct gl_fit_acc *srv,
			struct gl_report_trend *t)
{
	static const struct {
		const char *unit;
		double s;
	} units[] = {{"day", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};	/* trend_rules.c's */
	struct gl_report_trend s = {0};
	double unit_s = NAN;

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (t->slope_unit && !strcmp(t->slope_unit, units[u].unit))
			unit_s = units[u].s;
	gl_section_trend(cx, srv, t->first_ts_us, t->last_ts_us, &s);
	if (isnan(unit_s) || isnan(s.slope_per_day) != isnan(t->slope_per_day))
		return;		/* a line only one side has: C's */
	t->slope_per_day = s.slope_per_day;
	t->slope = s.slope_per_day * unit_s / 86400.0;
	t->intercept = s.intercept;
	t->r2 = s.r2;
	t->p_value = s.p_value;
	t->fit_first = s.fit_first;
	t->fit_last = s.fit_last;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct trends *t = st;
	struct gl_report_trend *all;
	size_t nk = 0;
	const struct gl_kernels_result *listed = gl_kernels_result(cx->rep);
	struct klisted *ks = malloc((listed->n_kernels ? listed->n_kernels : 1) * sizeof(*ks));

	if (!ks || kernel_ends_done(t) != GL_OK) {
		free(ks);
		return gl_section_oom(cx->err);
	}
	for (size_t i = 0; i < listed->n_kernels; i++) {
		int64_t id = listed->kernels[i].kernel_id;

		if (id > 0 && (uint64_t)id < t->n_ids && t->by_id[id]) {
			ks[nk].k = t->by_id[id];
			ks[nk].srv = gl_kernels_server_fit(cx->rep, i);
			ks[nk].name = gl_section_name(cx, id);
			ks[nk].ends = NULL;
			/* the last ends of the kernel (kends: the listed kernels only) */
			for (size_t e = t->n_kends; e-- > 0 && !ks[nk].ends;)
				if (t->kends[e].id == id)
					ks[nk].ends = &t->kends[e].ends;
			nk++;
		}
	}
	if (nk)
		qsort(ks, nk, sizeof(*ks), cmp_klisted);
	/* listed kernels (by name), memory, errors; the other sections' follow (section.h) */
	if (!(all = gl_trend_list_add(&t->own, nk + 2))) {
		free(ks);
		return gl_section_oom(cx->err);
	}
	for (size_t i = 0; i < nk; i++) {
		struct gl_report_trend *k = &all[i];

		gl_section_trend(cx, &ks[i].k->fit, ks[i].k->first_ts_us, ks[i].k->last_ts_us, k);
		k->series = GL_TREND_KERNEL;
		k->unit = "us";
		char dn[GL_KNAME_BUF];

		if (!(k->kernel = strdup(ks[i].name)) ||
		    !(k->display = strdup(gl_kernels_display(cx->rep, ks[i].name, dn, sizeof(dn))))) {
			free(ks);
			return gl_section_oom(cx->err);
		}
		gl_trend_judge(k, ks[i].ends, cx->cfg->trend_min_change_pct);
		if (ks[i].srv)
			server_line(cx, ks[i].srv, k);
	}
	free(ks);

	struct gl_report_trend *mt = &all[nk];
	gl_section_trend(cx, &t->mem, t->mem_first_us, t->mem_last_us, mt);
	mt->series = GL_TREND_MEMORY;
	mt->unit = "MiB";
	{
		struct gl_trend_ends e;

		gl_trend_ends_of(t->mem_v, t->n_mem, &e);
		gl_trend_judge(mt, &e, cx->cfg->trend_min_change_pct);
	}
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
	free(t->kends);
	free(t->listed);
	free(t->err_bins);
	free(t->mem_v);
	free(t->kv);
	gl_trend_list_release(&t->own);
}

static const struct gl_trend_list *trend_list(const void *st)
{
	return &((const struct trends *)st)->own;
}

/* The k-th list of trends of rep: the trends section's first, then table order. */
static const struct gl_trend_list *list_at(const struct gl_report *rep, size_t k)
{
	const struct gl_section_list *l = gl_report_sections(rep);
	size_t seen = 0;

	for (int own = 1; own >= 0; own--)
		for (size_t i = 0; rep->sec_state && i < l->n; i++) {
			const struct gl_section *s = l->items[i];

			if (!s->trend_list || (s == &gl_sec_trends) != own || !rep->sec_state[i])
				continue;
			if (seen++ == k)
				return s->trend_list(rep->sec_state[i]);
		}
	return NULL;
}

size_t gl_trends_n(const struct gl_report *rep)
{
	const struct gl_trend_list *t;
	size_t n = 0;

	for (size_t k = 0; (t = list_at(rep, k)) != NULL; k++)
		n += t->n;
	return n;
}

const struct gl_report_trend *gl_trends_at(const struct gl_report *rep, size_t i)
{
	const struct gl_trend_list *t;

	for (size_t k = 0; (t = list_at(rep, k)) != NULL; k++) {
		if (i < t->n)
			return &t->items[i];
		i -= t->n;
	}
	return NULL;
}

const struct gl_report_trend *gl_trends_of(const struct gl_report *rep,
					   enum gl_trend_series series, const char *name)
{
	const struct gl_report_trend *t;

	for (size_t i = 0; (t = gl_trends_at(rep, i)) != NULL; i++)
		if (t->series == series && (!name || (t->kernel && !strcmp(t->kernel, name))))
			return t;
	return NULL;
}

/*
 * The trends' JSON, CSV, text and HTML, described once (table.h): a view row
 * per trend shown (JSON, CSV and HTML: the listed ones; text: those not
 * stable). JSON names the device and host of a metric series ("" when none),
 * the device of a scope's spans (null when none), and a kernel's display name;
 * CSV has the device and host of every row ("" when none).
 */
struct trow {
	const char *series, *kernel, *display, *device, *host, *unit, *slope_unit, *change_from;
	const char *verdict, *csv_device, *csv_host;
	enum gl_trend_series kind;
	const struct gl_report_trend *t;	/* the trend (HTML cells), its place in the list */
	size_t at;
	uint64_t n;
	double slope_per_day, intercept, r2, p_value, slope, change_pct, span_s;
	int64_t first_ts_us, last_ts_us;
};

static bool no_display(const void *row)
{
	return ((const struct trow *)row)->display == NULL;
}

static bool no_device(const void *row)
{
	enum gl_trend_series k = ((const struct trow *)row)->kind;

	return k != GL_TREND_METRIC && k != GL_TREND_SCOPE;
}

static bool no_host(const void *row)
{
	return ((const struct trow *)row)->kind != GL_TREND_METRIC;
}

#define TR(f) offsetof(struct trow, f)
#define TCOL(name, kind, f, csv) {name, kind, TR(f), 0, 0, NULL, 0, 0, NULL, 0, NULL, csv}
#define TW(r) ((const struct trow *)(r))

/* The text's label of a trend: a metric's name and host/device, a kernel's display name
 * fitted to 33 columns, an operation's or scope's name, else the series. */
static const char *text_label(const void *r, char *buf, size_t n)
{
	const struct trow *t = r;

	if (t->kind == GL_TREND_METRIC)
		snprintf(buf, n, "%s %s%s%s", t->kernel, t->csv_host, *t->csv_host ? "/" : "",
			 *t->csv_device ? t->csv_device : "-");
	else if (t->display)
		gl_kname_fit(t->kernel, t->display, 33, buf, n);
	else
		snprintf(buf, n, "%s", t->kind == GL_TREND_KERNEL || t->kind == GL_TREND_OPERATION ||
				       t->kind == GL_TREND_SCOPE ? t->kernel : t->series);
	return buf;
}

static const char *text_verdict(const void *r, char *buf, size_t n)
{
	(void)buf, (void)n;
	return TW(r)->verdict;
}

static const char *text_change(const void *r, char *buf, size_t n)
{
	return gl_text_pct(TW(r)->change_pct, buf, n);
}

/* the slope's unit: "ms/day" */
static const char *text_per(const void *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", TW(r)->unit, TW(r)->slope_unit ? TW(r)->slope_unit : "day");
	return buf;
}

static const char *text_p(const void *r, char *buf, size_t n)
{
	return gl_text_p(TW(r)->p_value, buf, n);
}

/* by the size of the change, largest first; no change last; then in list order */
static int cmp_by_change(const void *pa, const void *pb)
{
	const struct trow *a = pa, *b = pb;
	double ca = fabs(a->change_pct), cb = fabs(b->change_pct);

	if (isnan(ca) != isnan(cb))
		return isnan(ca) ? 1 : -1;
	if (!isnan(ca) && ca != cb)
		return ca < cb ? 1 : -1;
	return a->at < b->at ? -1 : a->at > b->at;
}

#define RT(r) (((const struct trow *)(r))->t)

static void html_series(FILE *f, const void *r)
{
	fputs(gl_trend_series_name(RT(r)->series), f);
}

/* the name; a metric's host and device in small type */
static void html_name(FILE *f, const void *r)
{
	const struct gl_report_trend *t = RT(r);

	gl_html_text(f, t->kernel ? gl_trend_name(t) : "");
	if (t->series == GL_TREND_METRIC) {
		fputs(" <small>", f);
		gl_html_text(f, t->host ? t->host : "");
		fputs(" ", f);
		gl_html_text(f, t->device ? t->device : "");
		fputs("</small>", f);
	}
}

static void html_points(FILE *f, const void *r)
{
	fprintf(f, "%llu", (unsigned long long)RT(r)->n);
}

static void html_slope(FILE *f, const void *r)
{
	const struct gl_report_trend *t = RT(r);

	gl_html_num(f, t->slope, GL_HTML_SIGNED_G4);
	fprintf(f, " %s/%s", t->unit ? t->unit : "", t->slope_unit ? t->slope_unit : "day");
}

static void html_change(FILE *f, const void *r)
{
	gl_html_num(f, RT(r)->change_pct, GL_HTML_PCT);
}

static void html_span(FILE *f, const void *r)
{
	char span[40];

	gl_html_text(f, gl_text_duration(RT(r)->span_s, span, sizeof(span)));
}

static void html_r2(FILE *f, const void *r)
{
	gl_html_num(f, RT(r)->r2, GL_HTML_F3);
}

static void html_p(FILE *f, const void *r)
{
	gl_html_num(f, RT(r)->p_value, GL_HTML_G3);
}

static void html_verdict(FILE *f, const void *r)
{
	fputs(gl_verdict_name(RT(r)->verdict), f);
}

/* a degrading series or a leak stands out */
static const char *class_verdict(const void *r)
{
	enum gl_verdict v = RT(r)->verdict;

	return v == GL_VERDICT_DEGRADING || v == GL_VERDICT_LEAK ? "warning" : NULL;
}

/* JSON and CSV; the text a line per trend that is not stable ("label  verdict  +12.3%
 * slope 1.5 ms/day  p 0.01"); the page's table of the trends of largest change. */
static const struct gl_col trend_cols[] = {
	{"series", GL_COL_TEXT, TR(series), 0, 0, NULL, 0, 1, "series", 0, NULL, 1,
	 .html_cell = html_series},
	{"kernel", GL_COL_TEXT, TR(kernel), GL_COL_NAME, 1, NULL, 34, 2, "name", 0, NULL, 2,
	 .html_cell = html_name, .text_cell = text_label},
	{"display", GL_COL_TEXT, TR(display), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_display},
	{"device", GL_COL_TEXT, TR(device), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_device},
	{"host", GL_COL_TEXT, TR(host), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_host},
	TCOL("unit", GL_COL_TEXT, unit, 3),
	{"n", GL_COL_U64, TR(n), 0, 0, NULL, 0, 3, "points", 0, NULL, 4, .html_cell = html_points},
	TCOL("slope_per_day", GL_COL_NUM, slope_per_day, 5),
	TCOL("intercept", GL_COL_NUM, intercept, 6),
	{"r2", GL_COL_NUM, TR(r2), 0, 0, NULL, 0, 7, "r²", 0, NULL, 7, .html_cell = html_r2},
	{"p_value", GL_COL_NUM, TR(p_value), 0, 6, NULL, 0, 8, "p", 0, NULL, 8,
	 .html_cell = html_p, .text_cell = text_p, .text_before = "  p "},
	{"slope", GL_COL_NUM, TR(slope), 0, 4, NULL, 9, 4, "slope", 0, NULL, 0,
	 .html_cell = html_slope, .text_before = "%  slope "},
	{"slope_unit", GL_COL_TEXT, TR(slope_unit), 0, 5, NULL, 0, 0, NULL, 0, NULL, 0,
	 .text_cell = text_per},
	{"change_pct", GL_COL_NUM, TR(change_pct), 0, 3, NULL, 9, 5, "change %", 0, NULL, 9,
	 .html_cell = html_change, .text_cell = text_change},
	TCOL("change_from", GL_COL_TEXT, change_from, 0),
	{"span_s", GL_COL_NUM, TR(span_s), 0, 0, NULL, 0, 6, "span", 0, NULL, 10,
	 .html_cell = html_span},
	TCOL("first_ts", GL_COL_TS, first_ts_us, 11),
	TCOL("last_ts", GL_COL_TS, last_ts_us, 12),
	{"verdict", GL_COL_TEXT, TR(verdict), GL_COL_LEFT, 2, NULL, 10, 9, "verdict", 0, NULL, 13,
	 .html_class = class_verdict, .html_cell = html_verdict, .text_cell = text_verdict},
	{"device", GL_COL_TEXT, TR(csv_device), GL_COL_NO_JSON, 0, NULL, 0, 0, NULL, 0, NULL, 14},
	{"host", GL_COL_TEXT, TR(csv_host), GL_COL_NO_JSON, 0, NULL, 0, 0, NULL, 0, NULL, 15},
};

static const struct gl_table trend_table = {
	trend_cols, sizeof(trend_cols) / sizeof(trend_cols[0]), sizeof(struct trow),
	.text_gap = 1, .text_no_head = true};

/* The view rows of the listed trends (a metric trend of a listed series only; summary:
 * trends_total), or (moving) of those not stable, *n of them; NULL when out of memory. */
static struct trow *trows(const struct gl_report *r, bool moving, size_t *n)
{
	size_t all = gl_trends_n(r);
	struct trow *v = calloc(all ? all : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < all; i++) {
		const struct gl_report_trend *t = gl_trends_at(r, i);
		struct trow *w;

		if (moving ? t->verdict == GL_VERDICT_STABLE : t->unlisted)
			continue;
		w = &v[(*n)++];
		w->t = t;
		w->at = i;
		w->kind = t->series;
		w->series = gl_trend_series_name(t->series);
		w->kernel = t->kernel;
		w->display = t->display;
		w->device = t->series == GL_TREND_METRIC && !t->device ? "" : t->device;
		w->host = t->host ? t->host : "";
		w->csv_device = t->device ? t->device : "";
		w->csv_host = t->host ? t->host : "";
		w->unit = t->unit;
		w->n = t->n;
		w->slope_per_day = t->slope_per_day;
		w->intercept = t->intercept;
		w->r2 = t->r2;
		w->p_value = t->p_value;
		w->slope = t->slope;
		w->slope_unit = t->slope_unit;
		w->change_pct = t->change_pct;
		w->change_from = t->change_from;
		w->span_s = t->span_s;
		w->first_ts_us = t->n ? t->first_ts_us : GL_TS_NONE;
		w->last_ts_us = t->n ? t->last_ts_us : GL_TS_NONE;
		w->verdict = gl_verdict_name(t->verdict);
	}
	return v;
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	size_t n;
	struct trow *v = trows(r, false, &n);
	json_t *a = v ? gl_table_json(&trend_table, v, n) : NULL;

	(void)st;
	free(v);
	return a;
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t n;
	struct trow *v = trows(r, false, &n);

	(void)st;
	if (v)
		gl_table_csv(&trend_table, v, n, fp);
	else
		fputs("out of memory\n", fp);
	free(v);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t shown;
	struct trow *v = trows(r, true, &shown);

	(void)st;
	if (!v) {
		fputs("out of memory\n", fp);
		return;
	}
	gl_table_text(&trend_table, v, shown < r->top ? shown : r->top, fp);
	free(v);
	if (!shown)
		fprintf(fp, "all stable\n");
	else if (shown > r->top)
		fprintf(fp, "(%zu more)\n", shown - r->top);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	(void)st;
	if (gl_trends_n(rep) == 0) {
		fputs("<p>No trend computed (too few points).</p>\n", f);
		return;
	}
	/*
	 * The top --top by the size of their change, flat series (all values
	 * equal) left out: 159 rows of mostly "stable" hide the few that move.
	 */
	size_t n_all = gl_trends_n(rep), n_listed, n_order = 0, hidden = 0;
	struct trow *order = trows(rep, false, &n_listed);

	if (!order)
		return;
	for (size_t i = 0; i < n_listed; i++) {
		const struct gl_report_trend *t = order[i].t;

		if (t->n == 0 ||
		    (isnan(t->r2) && (t->slope_per_day == 0 || isnan(t->slope_per_day))))
			hidden++;
		else
			order[n_order++] = order[i];
	}
	qsort(order, n_order, sizeof(*order), cmp_by_change);
	gl_table_html(&trend_table, order, n_order < rep->top ? n_order : rep->top, f);
	if (n_order > rep->top)
		fprintf(f, "<p class=\"note\">The %zu trends of largest change shown, %zu more in"
			" report.json.</p>\n", rep->top, n_order - rep->top);
	if (hidden)
		fprintf(f, "<p class=\"note\">%zu flat series (all values equal) left out.</p>\n",
			hidden);
	if (n_listed < n_all)
		fprintf(f, "<p class=\"note\">%zu of %zu trends listed: those of the listed metric"
			" series.</p>\n", n_listed, n_all);
	free(order);
}

#define CHART_KERNELS GL_CHART_TOP_MAX
#define TREND_COLUMNS 100	/* points per kernel; divides GL_CHART_COLUMNS */

_Static_assert(GL_CHART_COLUMNS % TREND_COLUMNS == 0,
	       "trend columns are whole groups of timeline columns");

/* Sums groups of fine columns into c (TREND_COLUMNS wide). */
static int merge_cols(const struct gl_chart_cols *fine, struct gl_chart_cols *c,
		      struct gl_err *err)
{
	size_t per = GL_CHART_COLUMNS / TREND_COLUMNS;
	int rc = gl_chart_cols_init(c, fine->t0_us, fine->t1_us, TREND_COLUMNS, err);

	if (rc != GL_OK || !fine->col)
		return rc;
	for (size_t i = 0; i < fine->ncols; i++) {
		const struct gl_chart_col *f = &fine->col[i];
		struct gl_chart_col *k = &c->col[i / per];

		if (f->n == 0)
			continue;
		if (k->n == 0 || f->min < k->min)
			k->min = f->min;
		if (k->n == 0 || f->max > k->max)
			k->max = f->max;
		if (f->n_anomaly && (k->n_anomaly == 0 || f->anomaly_max > k->anomaly_max))
			k->anomaly_max = f->anomaly_max;
		k->n += f->n;
		k->n_anomaly += f->n_anomaly;
		k->sum += f->sum;
	}
	c->n = fine->n;
	c->dropped = fine->dropped;
	return GL_OK;
}

/* The kernels that degrade or improve (at most CHART_KERNELS), in the trends' order. */
static int chart_trends(const struct gl_report *rep, const void *st, const char *path,
			const struct gl_chart_opts *o, struct gl_err *err)
{
	static const struct gl_chart_cols none;
	const struct gl_report_trend *trend[CHART_KERNELS];
	struct gl_chart_cols cols[CHART_KERNELS];
	struct gl_chart_series ser[CHART_KERNELS];
	struct gl_chart_fit fit[CHART_KERNELS];
	struct gl_chart_panel p[CHART_KERNELS];
	char names[CHART_KERNELS][160];
	char t[GL_PNG_TITLE_MAX];
	size_t n_trend = 0;
	int rc = GL_OK;

	(void)st;
	memset(cols, 0, sizeof(cols));
	for (size_t i = 0; gl_kernels_chart(rep) && i < gl_trends_n(rep) &&
			   n_trend < CHART_KERNELS && rc == GL_OK; i++) {
		const struct gl_report_trend *tr = gl_trends_at(rep, i);
		const struct gl_chart_cols *c;

		if (tr->series != GL_TREND_KERNEL || !tr->kernel ||
		    (tr->verdict != GL_VERDICT_DEGRADING && tr->verdict != GL_VERDICT_IMPROVING))
			continue;
		c = gl_kernels_columns(rep, tr->kernel);
		rc = merge_cols(c ? c : &none, &cols[n_trend], err);
		trend[n_trend++] = tr;
	}
	gl_png_title(t, "Kernels with a trend (mean duration per period and the fitted line)", rep);
	if (rc != GL_OK || n_trend == 0) {
		for (size_t k = 0; k < n_trend; k++)
			gl_chart_cols_release(&cols[k]);
		return rc != GL_OK ? rc : gl_chart_nodata(path, t,
				       "No kernel is degrading or improving in this window",
				       o, err);
	}
	for (size_t k = 0; k < n_trend; k++) {
		const struct gl_report_trend *tr = trend[k];
		int degrading = tr->verdict == GL_VERDICT_DEGRADING;
		char shortname[96];

		gl_kname_fit(tr->kernel, gl_trend_name(tr), 26, shortname, sizeof(shortname));
		if (isfinite(tr->change_pct))
			snprintf(names[k], sizeof(names[k]), "%s: %s %+.0f %%", shortname,
				 gl_verdict_name(tr->verdict), tr->change_pct);
		else
			snprintf(names[k], sizeof(names[k]), "%s: %s", shortname,
				 gl_verdict_name(tr->verdict));
		ser[k].name = gl_trend_name(tr);
		ser[k].cols = &cols[k];
		ser[k].style = GL_CHART_POINTS;
		ser[k].color = 0;
		fit[k].name = NULL;
		fit[k].color = degrading ? 3 : 2;
		gl_png_fit(tr, rep, &fit[k]);
		memset(&p[k], 0, sizeof(p[k]));
		p[k].title = names[k];
		p[k].y_label = "duration (\xC2\xB5s)";
		p[k].series = &ser[k];
		p[k].nseries = 1;
		p[k].fits = &fit[k];
		p[k].nfits = isfinite(tr->slope_per_day) ? 1 : 0;
	}
	rc = gl_chart_timeline(path, t, rep->axis.t0_us, rep->axis.t1_us, p, n_trend, o, err);
	for (size_t k = 0; k < n_trend; k++)
		gl_chart_cols_release(&cols[k]);
	return rc;
}

static const struct gl_chart_def charts[] = {
	{"kernel_trends.png", "Kernels with a degrading or improving trend", chart_trends},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_trends = {
	.name = "trends",
	.title = "Trends (least squares over the data's span)",
	.state_size = sizeof(struct trends),
	.begin = begin,
	.collect = collect,
	.collect_kernel = collect_kernel,
	.finish = finish,
	.release = release,
	.trend_list = trend_list,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
