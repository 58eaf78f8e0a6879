/*
 * sec_baseline.c - the baseline section: each kernel against the preceding
 * window of equal length (its own row source: the kernel timings of that
 * window by kernel, read in finish; only the listed kernels' timings are
 * kept, the others counted), mean and p95 change, Welch's t-test; kernels new
 * in this window or gone from it. Reads the kernels section's results.
 * Chart: the change of mean and p95 by kernel.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "kname.h"
#include "sec_baseline.h"
#include "table.h"
#include "sec_kernels.h"
#include "section.h"
#include "sections.h"
#include "stats/stats.h"

/* The preceding window's timings of one listed kernel. */
struct before {
	double *dur;		/* time order */
	size_t n, cap;
	struct gl_stats_desc d;
};

struct baseline {
	struct gl_report_baseline res;	/* first: see sec_baseline.h */
	struct gl_section_ctx *cx;
	uint64_t *n_before;	/* per kernel id: timings in the preceding window */
	size_t *rank;		/* per kernel id: index into the listed kernels + 1; 0: not listed */
	struct before *listed;	/* per rank */
	size_t n_listed, n_ids;
	bool counted;		/* n_before and samples counted by the backend (on_count) */
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct baseline *b = st;
	struct gl_report_baseline *r = &b->res;
	int64_t len = cx->p->until_us - cx->p->since_us;

	b->cx = cx;
	b->n_ids = cx->n_ids;
	r->until_us = cx->p->since_us;
	r->since_us = cx->p->since_us - len;
	return GL_OK;
}

/* One kernel timing of the preceding window, in time order. */
static int on_before(void *arg, const struct gl_query_event *ev)
{
	struct baseline *b = arg;
	struct gl_section_ctx *cx = b->cx;
	struct before *k;

	/* the same filters as the window's kernels */
	if (!gl_section_event_ok(cx, ev) || !gl_section_kernel_ok(cx, ev->kernel_id) ||
	    (uint64_t)ev->kernel_id >= b->n_ids)
		return 0;
	if (!b->counted) {
		b->n_before[ev->kernel_id]++;
		b->res.samples++;
	}
	if (!b->rank[ev->kernel_id])
		return 0;
	k = &b->listed[b->rank[ev->kernel_id] - 1];
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 64;
		double *d = realloc(k->dur, cap * sizeof(*d));

		if (!d)
			return gl_section_oom(cx->err);
		k->dur = d;
		k->cap = cap;
	}
	k->dur[k->n++] = ev->dur_us;
	return 0;
}

/* The preceding window's timings of one kernel, component and host, counted
 * by the backend: the counts on_before makes, under the same filters. */
static int on_count(void *arg, const struct gl_query_kernel_count *c)
{
	struct baseline *b = arg;
	struct gl_section_ctx *cx = b->cx;
	struct gl_query_event ev = {.component_id = c->component_id, .host_id = c->host_id,
				    .kernel_id = c->kernel_id};

	if (!gl_section_event_ok(cx, &ev) || !gl_section_kernel_ok(cx, c->kernel_id) ||
	    c->kernel_id < 0 || (uint64_t)c->kernel_id >= b->n_ids)
		return 0;
	b->n_before[c->kernel_id] += c->n;
	b->res.samples += c->n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_bk(const void *a, const void *b)
{
	return strcmp(((const struct gl_report_baseline_kernel *)a)->kernel,
		      ((const struct gl_report_baseline_kernel *)b)->kernel);
}

/* The names of ids (n of them) sorted, the first top of them copied into *out. */
static int first_names(struct gl_section_ctx *cx, int64_t *ids, size_t n, char ***out,
		       size_t *n_out)
{
	const char **nm = malloc((n ? n : 1) * sizeof(*nm));
	size_t keep = n < cx->p->top ? n : cx->p->top;

	*out = calloc(keep ? keep : 1, sizeof(char *));
	if (!nm || !*out) {
		free(nm);
		return gl_section_oom(cx->err);
	}
	for (size_t i = 0; i < n; i++)
		nm[i] = gl_section_name(cx, ids[i]);
	qsort(nm, n, sizeof(*nm), cmp_str);
	for (size_t i = 0; i < keep; i++) {
		if (!((*out)[i] = strdup(nm[i]))) {
			free(nm);
			return gl_section_oom(cx->err);
		}
		(*n_out)++;
	}
	free(nm);
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct baseline *b = st;
	const struct gl_kernels_result *listed = gl_kernels_result(cx->rep);
	struct gl_report_baseline *r = &b->res;
	size_t nk = listed->n_kernels, n_new = 0, n_gone = 0;
	int64_t *new_ids = NULL, *gone_ids = NULL;
	int rc;

	b->n_before = calloc(b->n_ids, sizeof(*b->n_before));
	b->rank = calloc(b->n_ids, sizeof(*b->rank));
	b->listed = calloc(nk ? nk : 1, sizeof(*b->listed));
	r->kernels = calloc(nk ? nk : 1, sizeof(*r->kernels));
	if (!b->n_before || !b->rank || !b->listed || !r->kernels)
		return gl_section_oom(cx->err);
	b->n_listed = nk;
	for (size_t i = 0; i < nk; i++)
		if (listed->kernels[i].kernel_id > 0 && (uint64_t)listed->kernels[i].kernel_id < b->n_ids)
			b->rank[listed->kernels[i].kernel_id] = i + 1;
	/* only the listed kernels' timings are kept; the others are counted */
	/* in time order: each kernel's durations in (ts_us, id) order, as listed */
	if (gl_query_counts_kernels(cx->q)) {
		/* counted by the backend, and only the listed kernels' timings read */
		int64_t *ids = malloc((nk ? nk : 1) * sizeof(*ids));
		size_t n = 0;

		if (!ids)
			return gl_section_oom(cx->err);
		for (size_t i = 0; i < nk; i++)
			if (listed->kernels[i].kernel_id > 0 &&
			    (uint64_t)listed->kernels[i].kernel_id < b->n_ids)
				ids[n++] = listed->kernels[i].kernel_id;
		b->counted = true;
		rc = gl_query_kernel_counts(cx->q, r->since_us, r->until_us, on_count, b, cx->err);
		if (rc == GL_OK && n)
			rc = gl_query_kernel_events(cx->q, r->since_us, r->until_us, ids, n, on_before,
						    b, cx->err);
		free(ids);
	} else {
		rc = gl_query_events(cx->q, r->since_us, r->until_us, GL_QUERY_KERNELS_ONLY,
				     on_before, b, cx->err);
	}
	if (rc != GL_OK)
		return rc;
	new_ids = malloc(b->n_ids * sizeof(*new_ids));
	gone_ids = malloc(b->n_ids * sizeof(*gone_ids));
	if (!new_ids || !gone_ids) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t id = 1; id < b->n_ids; id++) {
		if (cx->kernel_n[id] && !b->n_before[id])
			new_ids[n_new++] = (int64_t)id;
		else if (!cx->kernel_n[id] && b->n_before[id])
			gone_ids[n_gone++] = (int64_t)id;
	}
	r->n_new_kernels_total = n_new;
	r->n_vanished_kernels_total = n_gone;
	rc = first_names(cx, new_ids, n_new, &r->new_kernels, &r->n_new_kernels);
	if (rc == GL_OK)
		rc = first_names(cx, gone_ids, n_gone, &r->vanished_kernels,
				 &r->n_vanished_kernels);
	for (size_t i = 0; i < nk && rc == GL_OK; i++) {
		const struct gl_report_kernel *c = &listed->kernels[i];
		struct before *o = &b->listed[i];

		if (o->n == 0)
			continue;
		gl_stats_describe(o->dur, o->n, &o->d);
		free(o->dur);
		o->dur = NULL;

		struct gl_report_baseline_kernel *bk = &r->kernels[r->n_kernels];

		if (!(bk->kernel = strdup(c->kernel)) ||
		    !(bk->display = strdup(gl_report_kernel_name(c)))) {
			rc = gl_section_oom(cx->err);
			break;
		}
		r->n_kernels++;
		bk->count_before = o->d.n;
		bk->count = c->count;
		bk->mean_before_us = o->d.mean;
		bk->mean_us = c->mean_us;
		bk->p95_before_us = o->d.p95;
		bk->p95_us = c->p95_us;
		bk->mean_change_pct = o->d.mean > 0 ? (c->mean_us - o->d.mean) / o->d.mean * 100 : NAN;
		bk->p95_change_pct = o->d.p95 > 0 ? (c->p95_us - o->d.p95) / o->d.p95 * 100 : NAN;
		bk->p_value = gl_stats_welch_p(o->d.mean, o->d.var, o->d.n, c->mean_us,
					       c->stddev_us * c->stddev_us, c->count);
		bk->verdict = GL_BASELINE_UNCHANGED;
		if (!isnan(bk->p_value) && bk->p_value < cx->cfg->baseline_p_value &&
		    (isnan(bk->mean_change_pct) ||
		     fabs(bk->mean_change_pct) >= cx->cfg->baseline_min_change_pct))
			bk->verdict = c->mean_us > o->d.mean ? GL_BASELINE_REGRESSION
							      : GL_BASELINE_IMPROVEMENT;
	}
	if (rc == GL_OK)
		qsort(r->kernels, r->n_kernels, sizeof(*r->kernels), cmp_bk);
out:
	free(new_ids);
	free(gone_ids);
	return rc;
}

static void release(void *st)
{
	struct baseline *b = st;

	for (size_t i = 0; b->listed && i < b->n_listed; i++)
		free(b->listed[i].dur);
	free(b->listed);
	free(b->n_before);
	free(b->rank);
	for (size_t i = 0; i < b->res.n_kernels; i++) {
		free(b->res.kernels[i].kernel);
		free(b->res.kernels[i].display);
	}
	free(b->res.kernels);
	for (size_t i = 0; i < b->res.n_new_kernels; i++)
		free(b->res.new_kernels[i]);
	free(b->res.new_kernels);
	for (size_t i = 0; i < b->res.n_vanished_kernels; i++)
		free(b->res.vanished_kernels[i]);
	free(b->res.vanished_kernels);
}

/* The results in st; none (zero) for a report without the section's state. */
static const struct gl_report_baseline *res_of(const void *st)
{
	static const struct gl_report_baseline none;

	return st ? &((const struct baseline *)st)->res : &none;
}

const struct gl_report_baseline *gl_baseline_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_baseline));
}

/* A count stated by the model, at least what is listed (a hand-made model states none). */
static size_t total(size_t stated, size_t listed)
{
	return stated > listed ? stated : listed;
}

static json_t *names(struct gl_jb *jb, char *const *s, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		gl_jb_append(jb, a, gl_json_str(s[i]));
	return a;
}

/* The CSV's rows of a kernel of one window only: a verdict past the enum's. */
enum { VERDICT_NEW = GL_BASELINE_IMPROVEMENT + 1, VERDICT_VANISHED };

static const char *verdict_name(int v)
{
	return v == VERDICT_NEW ? "new" : v == VERDICT_VANISHED ? "vanished"
	       : gl_baseline_verdict_name((enum gl_baseline_verdict)v);
}

/* a new kernel has no count in this window's column, a vanished one none before (CSV) */
static bool no_count(const void *r)
{
	return (int)((const struct gl_report_baseline_kernel *)r)->verdict == VERDICT_NEW;
}

static bool no_count_before(const void *r)
{
	return (int)((const struct gl_report_baseline_kernel *)r)->verdict == VERDICT_VANISHED;
}

#define BK(f) offsetof(struct gl_report_baseline_kernel, f)
#define ROW(r) ((const struct gl_report_baseline_kernel *)(r))

static void html_name(FILE *f, const void *r)
{
	gl_html_text(f, ROW(r)->display ? ROW(r)->display : ROW(r)->kernel);
}

static void html_mean_pct(FILE *f, const void *r)
{
	gl_html_num(f, ROW(r)->mean_change_pct, GL_HTML_PCT);
}

static void html_p95_pct(FILE *f, const void *r)
{
	gl_html_num(f, ROW(r)->p95_change_pct, GL_HTML_PCT);
}

static void html_p(FILE *f, const void *r)
{
	gl_html_num(f, ROW(r)->p_value, GL_HTML_G3);
}

static const char *verdict_class(const void *r)
{
	return ROW(r)->verdict == GL_BASELINE_REGRESSION ? "warning" : NULL;
}

/* The text's name of the kernel: its display name fitted to 33 columns. */
static const char *text_name(const void *r, char *buf, size_t n)
{
	return ROW(r)->display ? gl_kname_fit(ROW(r)->kernel, ROW(r)->display, 33, buf, n)
			       : ROW(r)->kernel;
}

static const char *text_verdict(const void *r, char *buf, size_t n)
{
	(void)buf, (void)n;
	return gl_baseline_verdict_name(ROW(r)->verdict);
}

static const char *text_mean_pct(const void *r, char *buf, size_t n)
{
	return gl_text_pct(ROW(r)->mean_change_pct, buf, n);
}

static const char *text_p(const void *r, char *buf, size_t n)
{
	return gl_text_p(ROW(r)->p_value, buf, n);
}

/* The kernels in both windows: JSON and CSV every column, HTML those with a position, the
 * text a line per changed kernel ("  name  verdict mean 1 -> 2 us (+100.0%)  p 0.01"). */
static const struct gl_col cols[] = {
	{"kernel", GL_COL_TEXT, BK(kernel), GL_COL_NAME, 0, NULL, 0, 0, NULL, 0, NULL},
	{"display", GL_COL_TEXT, BK(display), GL_COL_NAME, 1, NULL, 34, 1, "kernel", 0, NULL, 0, 0,
	 NULL, NULL, NULL, html_name, text_name, .text_before = "  "},
	{"count_before", GL_COL_U64, BK(count_before), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0,
	 NULL, .absent = no_count_before},
	{"count", GL_COL_U64, BK(count), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0, NULL,
	 .absent = no_count},
	{"mean_before_us", GL_COL_NUM, BK(mean_before_us), 0, 3, NULL, 0, 2, "mean µs before", 0,
	 NULL, .text_before = " mean "},
	{"mean_us", GL_COL_NUM, BK(mean_us), 0, 4, NULL, 0, 3, "mean µs", 0, NULL,
	 .text_before = " -> "},
	{"mean_change_pct", GL_COL_NUM, BK(mean_change_pct), 0, 5, NULL, 0, 4, "mean change %", 0,
	 NULL, 0, 0, NULL, NULL, NULL, html_mean_pct, text_mean_pct, .text_before = " us ("},
	{"p95_before_us", GL_COL_NUM, BK(p95_before_us), 0, 0, NULL, 0, 0, NULL, 0, NULL},
	{"p95_us", GL_COL_NUM, BK(p95_us), 0, 0, NULL, 0, 0, NULL, 0, NULL},
	{"p95_change_pct", GL_COL_NUM, BK(p95_change_pct), 0, 0, NULL, 0, 5, "p95 change %", 0,
	 NULL, 0, 0, NULL, NULL, NULL, html_p95_pct},
	{"p_value", GL_COL_NUM, BK(p_value), 0, 6, NULL, 0, 6, "p (Welch)", 0, NULL, 0, 0, NULL,
	 NULL, NULL, html_p, text_p, .text_before = "%)  p "},
	{"verdict", GL_COL_ENUM, BK(verdict), GL_COL_LEFT, 2, NULL, 11, 7, "verdict", 0,
	 verdict_name, 0, 0, NULL, NULL, verdict_class, NULL, text_verdict, .text_before = " "},
};

_Static_assert(sizeof(enum gl_baseline_verdict) == sizeof(int), "an enum column is an int");

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct gl_report_baseline_kernel), .text_no_head = true};

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	const struct gl_report_baseline *b = res_of(st);
	struct gl_jb jb_ = {0}, *jb = &jb_;
	json_t *o = json_object();

	(void)r;
	gl_jb_set(jb, o, "since", gl_json_ts(b->since_us));
	gl_jb_set(jb, o, "until", gl_json_ts(b->until_us));
	gl_jb_set(jb, o, "samples", gl_json_u64(b->samples));
	gl_jb_set(jb, o, "kernels", gl_table_json(&table, b->kernels, b->n_kernels));
	gl_jb_set(jb, o, "new_kernels", names(jb, b->new_kernels, b->n_new_kernels));
	gl_jb_set(jb, o, "new_kernels_total", gl_json_u64(total(b->n_new_kernels_total,
								 b->n_new_kernels)));
	gl_jb_set(jb, o, "vanished_kernels", names(jb, b->vanished_kernels, b->n_vanished_kernels));
	gl_jb_set(jb, o, "vanished_kernels_total",
		  gl_json_u64(total(b->n_vanished_kernels_total, b->n_vanished_kernels)));
	return gl_jb_done(jb, o);
}

/* The kernels in both windows, then those in one window only (counts, nothing to
 * compare: the figures empty, the verdict new or vanished). */
static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_baseline *b = res_of(st);
	size_t n = b->n_kernels, n1 = b->n_new_kernels + b->n_vanished_kernels;
	struct gl_report_baseline_kernel *v = malloc((n + n1 ? n + n1 : 1) * sizeof(*v));
	char (*dn)[GL_KNAME_BUF] = malloc((n1 ? n1 : 1) * sizeof(*dn));

	(void)r;
	if (!v || !dn) {
		fputs("out of memory\n", fp);
		goto out;
	}
	if (n)
		memcpy(v, b->kernels, n * sizeof(*v));
	for (size_t i = 0; i < n1; i++) {
		bool is_new = i < b->n_new_kernels;
		char *name = is_new ? b->new_kernels[i] : b->vanished_kernels[i - b->n_new_kernels];

		v[n + i] = (struct gl_report_baseline_kernel){
			.kernel = name,
			.display = gl_kname_display(name, dn[i], sizeof(dn[i])),
			.mean_before_us = NAN, .mean_us = NAN, .mean_change_pct = NAN,
			.p95_before_us = NAN, .p95_us = NAN, .p95_change_pct = NAN, .p_value = NAN,
			.verdict = (enum gl_baseline_verdict)(is_new ? VERDICT_NEW : VERDICT_VANISHED),
		};
	}
	gl_table_csv(&table, v, n + n1, fp);
out:
	free(dn);
	free(v);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_baseline *bl = res_of(st);
	struct gl_report_baseline_kernel *v = malloc((bl->n_kernels ? bl->n_kernels : 1) *
						     sizeof(*v));
	size_t changed = 0, n = 0;

	for (size_t i = 0; i < bl->n_kernels; i++)
		changed += bl->kernels[i].verdict != GL_BASELINE_UNCHANGED;
	fprintf(fp, "%zu kernels compared, %zu changed, %zu new, %zu vanished\n", bl->n_kernels,
		changed, total(bl->n_new_kernels_total, bl->n_new_kernels),
		total(bl->n_vanished_kernels_total, bl->n_vanished_kernels));
	if (!v) {
		fputs("out of memory\n", fp);
		return;
	}
	/* the changed kernels, at most top of them */
	for (size_t i = 0; i < bl->n_kernels && n < r->top; i++)
		if (bl->kernels[i].verdict != GL_BASELINE_UNCHANGED)
			v[n++] = bl->kernels[i];
	gl_table_text(&table, v, n, fp);
	free(v);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_baseline *b = res_of(st);

	(void)rep;
	fputs("<p>Previous window ", f);
	gl_html_when(f, b->since_us);
	fputs(" to ", f);
	gl_html_when(f, b->until_us);
	fprintf(f, ", %llu kernel samples.</p>\n", (unsigned long long)b->samples);
	if (b->n_kernels > 0) {
		gl_table_html(&table, b->kernels, b->n_kernels, f);
	} else {
		fputs("<p>No kernel ran in both this and the previous window: there is no "
		      "change to show.</p>\n", f);
	}
	const struct {
		const char *what;
		char **names;
		size_t n, total;
	} lists[2] = {
		{"New in this window", b->new_kernels, b->n_new_kernels,
		 total(b->n_new_kernels_total, b->n_new_kernels)},
		{"Gone since the previous window", b->vanished_kernels, b->n_vanished_kernels,
		 total(b->n_vanished_kernels_total, b->n_vanished_kernels)},
	};

	for (int l = 0; l < 2; l++) {
		if (lists[l].n == 0)
			continue;
		if (lists[l].total > lists[l].n)
			fprintf(f, "<p>%s: %zu kernels, the first %zu by name listed:</p>\n<ul>\n",
				lists[l].what, lists[l].total, lists[l].n);
		else
			fprintf(f, "<p>%s:</p>\n<ul>\n", lists[l].what);
		for (size_t i = 0; i < lists[l].n; i++) {
			fputs("<li class=\"k\">", f);
			char dn[GL_KNAME_BUF];

			gl_html_text(f, gl_kernels_display(rep, lists[l].names[i], dn, sizeof(dn)));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
}

#define BASELINE_ROWS 20

static double bigger_change(const struct gl_report_baseline_kernel *k)
{
	double a = isfinite(k->mean_change_pct) ? fabs(k->mean_change_pct) : 0;
	double b = isfinite(k->p95_change_pct) ? fabs(k->p95_change_pct) : 0;

	return a > b ? a : b;
}

static int chart_baseline(const struct gl_report *rep, const void *st, const char *path,
			  const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct gl_report_baseline *b = res_of(st);
	struct gl_chart_bar_row rows[BASELINE_ROWS];
	const char *vn[2] = {"mean", "p95"};
	size_t idx[BASELINE_ROWS], n = 0;
	char t[GL_PNG_TITLE_MAX];

	/* nothing to compare: no chart (an empty frame), the page says so */
	if (b->n_kernels == 0)
		return GL_CHART_NONE;
	gl_png_title(t, "Change against the previous window of equal length", rep);
	/* The largest changes, largest first (ties: the report's name order). */
	for (size_t i = 0; i < b->n_kernels; i++) {
		size_t j = n < BASELINE_ROWS ? n++ : BASELINE_ROWS;

		if (j == BASELINE_ROWS) {
			if (bigger_change(&b->kernels[i]) <= bigger_change(&b->kernels[idx[n - 1]]))
				continue;
			j = n - 1;
		}
		while (j > 0 && bigger_change(&b->kernels[i]) > bigger_change(&b->kernels[idx[j - 1]])) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (size_t r = 0; r < n; r++) {
		const struct gl_report_baseline_kernel *k = &b->kernels[idx[r]];

		rows[r].name = k->display ? k->display : k->kernel;
		rows[r].value[0] = k->mean_change_pct;
		rows[r].value[1] = k->p95_change_pct;
		rows[r].value[2] = rows[r].value[3] = NAN;
	}
	return gl_chart_bars(path, t, "change against the previous window (%; above 0: slower)",
			     " %", vn, 2, rows, n, o, err);
}

static const struct gl_chart_def charts[] = {
	{"baseline_comparison.png", "Change of mean and p95 against the previous window",
	 chart_baseline},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_baseline = {
	.name = "baseline",
	.title = "Against the preceding window",
	.state_size = sizeof(struct baseline),
	.begin = begin,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
