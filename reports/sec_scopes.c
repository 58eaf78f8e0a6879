/*
 * sec_scopes.c - the scopes section: time per user scope of the profiler
 * traces (table spans: gpufl scope_begin/scope_end, Kineto user_annotation
 * and gpu_user_annotation ranges). One row per scope path ("step|forward")
 * and device: count, total, mean, p50, p95 and max duration (ms), the
 * kernel timings launched inside and their summed duration (gpu_ms), and a
 * trend of the duration per row (series "scope"). Chart: scopes.png, the
 * rows with the most time as bars, the GPU time inside next to each.
 *
 * Which kernels lie inside a scope:
 * - a kernel that carries its scope path (events.scope_id: gpufl's
 *   user_scope, the scopes open on the launching thread) is inside the
 *   rows without a device whose path equals its path or is a prefix of it
 *   ending at a '|' ("step" holds "step|forward", not "stepper");
 * - a kernel without one (Kineto, nsys) is placed by time, among the spans
 *   of the same source and host: a span with a device (a GPU-side range,
 *   gpu_user_annotation) holds the kernels of that device whose GPU start
 *   lies in [start, start + dur); a span without a device (a CPU-side
 *   range, user_annotation, gpufl scopes) holds the kernels whose launch
 *   call started in it: GPU start - queue_us - launch_overhead_us (the
 *   missing terms taken as 0). A kernel is counted once per span holding
 *   it, so a row counts a kernel once unless two spans of the same path and
 *   device overlap (two threads in the same scope at once).
 * Rows are per device so that Kineto's CPU range and its GPU copy of the
 * same name ("ProfilerStep#3" on the CPU and on GPU 0) stay apart.
 *
 * Memory: one double and one interval per span (the percentiles and the
 * placement need them), nothing per kernel. Spans are read before the
 * events (section.h); only spans starting in the window count.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "emit_png.h"
#include "emit_util.h"
#include "kernel_trace.h"
#include "sec_scopes.h"
#include "section.h"
#include "table.h"
#include "trend_rules.h"
#include "stats/stats.h"
#include "util/timeutil.h"

#define SCOPE_CHART_ROWS 20

struct srow {
	int64_t scope_id;
	char *canon;		/* the grouped path ("ProfilerStep#*|forward"); NULL: the path */
	char *device;		/* NULL: none */
	double *dur_ms;
	size_t n, cap;
	struct gl_fit_acc fit;
	int64_t first_us, last_us;
	uint64_t kernels;
	double gpu_us;
	int32_t next;		/* next row of the same scope id (another device); -1: none */
};

struct ival {
	int64_t start_us;
	double end_us;
	uint32_t row;
};

/* Spans of one source, host, device (or none) and depth: sorted by start. */
struct group {
	char *source, *device;
	int64_t host_id;
	int depth;
	struct ival *iv;
	size_t n, cap;
	double max_dur_us;
};

/* Kernel timings that carried a scope path: per scope id. */
struct kscope {
	int64_t scope_id;
	uint64_t n;
	double dur_us;
};

struct scopes {
	struct gl_scopes_result res;	/* first: see sec_scopes.h */
	struct srow *rows;
	size_t n_rows, cap_rows;
	int32_t *row_of;	/* per name id: first row, -1: none */
	struct group *grp;
	size_t n_grp, cap_grp;
	struct kscope *ks;
	size_t n_ks, cap_ks;
	int32_t *ks_of;		/* per name id: index in ks, -1: none */
	size_t n_ids;
	struct gl_trend_list trends;	/* one per row */
};

/* The results in st; none for a report without the section's state. */
static const struct gl_scopes_result *res_of(const void *st)
{
	static const struct gl_scopes_result none;

	return st ? &((const struct scopes *)st)->res : &none;
}

const struct gl_scopes_result *gl_scopes_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_scopes));
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *q;

	while (c < need)
		c *= 2;
	if (!(q = realloc(*p, c * size)))
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct scopes *s = st;

	s->n_ids = cx->n_ids;
	s->row_of = malloc(cx->n_ids * sizeof(*s->row_of));
	s->ks_of = malloc(cx->n_ids * sizeof(*s->ks_of));
	if (!s->row_of || !s->ks_of)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < cx->n_ids; i++)
		s->row_of[i] = s->ks_of[i] = -1;
	return GL_OK;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The PyTorch profiler numbers its steps, "ProfilerStep#12"; one row per
 * step drowns the scopes that matter (44 of 54 rows on a DDP run). As HTA
 * does, every step is one row: each "ProfilerStep#<digits>" of a path
 * becomes "ProfilerStep#*". A new string, or NULL when the path has none
 * (or out of memory: the path stays as it is).
 */
static char *group_path(const char *path)
{
	static const char tag[] = "ProfilerStep#";
	const char *p = strstr(path, tag);
	char *out, *o;

	if (!p || !(out = malloc(strlen(path) + 1)))
		return NULL;
	o = out;
	for (p = path; *p;) {
		if (!strncmp(p, tag, sizeof(tag) - 1) && p[sizeof(tag) - 1] >= '0' &&
		    p[sizeof(tag) - 1] <= '9') {
			memcpy(o, tag, sizeof(tag) - 1);
			o += sizeof(tag) - 1;
			*o++ = '*';
			p += sizeof(tag) - 1;
			while (*p >= '0' && *p <= '9')
				p++;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static struct srow *row_for(struct gl_section_ctx *cx, struct scopes *s, int64_t scope_id,
			    const char *device, uint32_t *idx)
{
	int32_t i = s->row_of[scope_id];
	char *canon;

	for (; i >= 0; i = s->rows[i].next)
		if (same_str(s->rows[i].device, device)) {
			*idx = (uint32_t)i;
			return &s->rows[i];
		}
	/* another step of a grouped path: the group's row (rows of one group share a chain) */
	canon = group_path(gl_section_name(cx, scope_id));
	for (size_t k = 0; canon && k < s->n_rows; k++)
		if (s->rows[k].canon && !strcmp(s->rows[k].canon, canon) &&
		    same_str(s->rows[k].device, device)) {
			free(canon);
			if (s->row_of[scope_id] < 0)
				s->row_of[scope_id] = (int32_t)k;
			*idx = (uint32_t)k;
			return &s->rows[k];
		}
	if (grow((void **)&s->rows, &s->cap_rows, s->n_rows + 1, sizeof(*s->rows)) < 0) {
		free(canon);
		gl_section_oom(cx->err);
		return NULL;
	}
	struct srow *r = &s->rows[s->n_rows];

	memset(r, 0, sizeof(*r));
	r->scope_id = scope_id;
	r->canon = canon;
	if (device && !(r->device = strdup(device))) {
		free(canon);
		r->canon = NULL;
		gl_section_oom(cx->err);
		return NULL;
	}
	gl_fit_acc_init(&r->fit);
	r->first_us = GL_TS_NONE;
	r->next = s->row_of[scope_id];
	s->row_of[scope_id] = (int32_t)s->n_rows;
	*idx = (uint32_t)s->n_rows++;
	return r;
}

static struct group *group_for(struct gl_section_ctx *cx, struct scopes *s,
			       const struct gl_query_span *sp)
{
	for (size_t i = 0; i < s->n_grp; i++) {
		struct group *g = &s->grp[i];

		if (g->host_id == sp->host_id && g->depth == sp->depth &&
		    !strcmp(g->source, sp->source) && same_str(g->device, sp->device))
			return g;
	}
	if (grow((void **)&s->grp, &s->cap_grp, s->n_grp + 1, sizeof(*s->grp)) < 0)
		goto oom;
	struct group *g = &s->grp[s->n_grp++];

	memset(g, 0, sizeof(*g));
	g->host_id = sp->host_id;
	g->depth = sp->depth;
	if (!(g->source = strdup(sp->source)) || (sp->device && !(g->device = strdup(sp->device))))
		goto oom;
	return g;
oom:
	gl_section_oom(cx->err);
	return NULL;
}

static int collect_span(struct gl_section_ctx *cx, void *st, const struct gl_query_span *sp)
{
	struct scopes *s = st;
	struct srow *r;
	struct group *g;
	uint32_t idx;

	if (sp->scope_id <= 0 || (uint64_t)sp->scope_id >= s->n_ids || !isfinite(sp->dur_us) ||
	    sp->dur_us < 0)
		return GL_OK;
	if (!(r = row_for(cx, s, sp->scope_id, sp->device, &idx)))
		return GL_ENOMEM;
	if (grow((void **)&r->dur_ms, &r->cap, r->n + 1, sizeof(*r->dur_ms)) < 0)
		return gl_section_oom(cx->err);
	r->dur_ms[r->n++] = sp->dur_us / 1000;
	gl_fit_acc_add(&r->fit, gl_section_days(cx, sp->start_us), sp->dur_us / 1000);
	if (r->first_us == GL_TS_NONE)
		r->first_us = sp->start_us;
	r->last_us = sp->start_us;
	s->res.spans++;
	if (!(g = group_for(cx, s, sp)))
		return GL_ENOMEM;
	if (grow((void **)&g->iv, &g->cap, g->n + 1, sizeof(*g->iv)) < 0)
		return gl_section_oom(cx->err);
	g->iv[g->n++] = (struct ival){sp->start_us, (double)sp->start_us + sp->dur_us, idx};
	if (sp->dur_us > g->max_dur_us)
		g->max_dur_us = sp->dur_us;
	return GL_OK;
}

/* The spans of g holding time t: each one's row gets the kernel. */
static void place(struct scopes *s, const struct group *g, double t, double dur_us)
{
	size_t lo = 0, hi = g->n;

	/* the first span starting after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)g->iv[mid].start_us <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* spans starting more than the group's longest span before t cannot hold it */
	while (lo > 0 && (double)g->iv[lo - 1].start_us >= t - g->max_dur_us) {
		const struct ival *v = &g->iv[--lo];

		if (t < v->end_us) {
			s->rows[v->row].kernels++;
			s->rows[v->row].gpu_us += dur_us;
		}
	}
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct scopes *s = st;

	if (!cx->kernel_sample || !ev->source || !s->res.spans)
		return GL_OK;
	if (ev->scope_id > 0 && (uint64_t)ev->scope_id < s->n_ids) {
		int32_t i = s->ks_of[ev->scope_id];

		if (i < 0) {
			if (grow((void **)&s->ks, &s->cap_ks, s->n_ks + 1, sizeof(*s->ks)) < 0)
				return gl_section_oom(cx->err);
			i = (int32_t)s->n_ks++;
			s->ks[i] = (struct kscope){ev->scope_id, 0, 0};
			s->ks_of[ev->scope_id] = i;
		}
		s->ks[i].n++;
		s->ks[i].dur_us += ev->dur_us;
		return GL_OK;
	}
	double launch = (double)ev->ts_us - (isnan(ev->queue_us) ? 0 : ev->queue_us) -
			(isnan(ev->launch_overhead_us) ? 0 : ev->launch_overhead_us);

	for (size_t i = 0; i < s->n_grp; i++) {
		const struct group *g = &s->grp[i];

		if (g->host_id != ev->host_id || strcmp(g->source, ev->source))
			continue;
		if (!g->device)
			place(s, g, launch, ev->dur_us);
		else if (ev->device && !strcmp(g->device, ev->device))
			place(s, g, (double)ev->ts_us, ev->dur_us);
	}
	return GL_OK;
}

/* Does the kernel's scope path lie at or under the row's path? */
static bool under(const char *kpath, const char *rpath)
{
	size_t n = strlen(rpath);

	return !strncmp(kpath, rpath, n) && (kpath[n] == '\0' || kpath[n] == '|');
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct gl_report_scope *a = pa, *b = pb;
	int c;

	if (a->total_ms != b->total_ms)
		return a->total_ms < b->total_ms ? 1 : -1;
	if ((c = strcmp(a->scope, b->scope)))
		return c;
	return strcmp(a->device ? a->device : "", b->device ? b->device : "");
}

/* A row and its place in s->rows, sorted by cmp_row. */
struct ord {
	struct gl_report_scope row;
	size_t i;
};

static int cmp_ord(const void *pa, const void *pb)
{
	return cmp_row(&((const struct ord *)pa)->row, &((const struct ord *)pb)->row);
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct scopes *s = st;
	struct gl_trend_ends *ends;
	struct ord *ord;
	int rc = GL_OK;

	s->res.rows = calloc(s->n_rows ? s->n_rows : 1, sizeof(*s->res.rows));
	ends = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*ends));
	ord = malloc((s->n_rows ? s->n_rows : 1) * sizeof(*ord));
	if (!s->res.rows || !ends || !ord) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t i = 0; i < s->n_rows; i++) {
		struct srow *r = &s->rows[i];
		struct gl_report_scope *o = &s->res.rows[s->res.n++];
		struct gl_stats_desc d;

		o->scope = r->canon ? r->canon : gl_section_name(cx, r->scope_id);
		o->device = r->device;
		r->device = NULL;
		if (!o->device)	/* kernels that carried their path */
			for (size_t k = 0; k < s->n_ks; k++)
				if (under(gl_section_name(cx, s->ks[k].scope_id), o->scope)) {
					r->kernels += s->ks[k].n;
					r->gpu_us += s->ks[k].dur_us;
				}
		gl_trend_ends_of(r->dur_ms, r->n, &ends[i]);	/* before describe sorts them */
		gl_stats_describe(r->dur_ms, r->n, &d);
		o->count = r->n;
		o->total_ms = d.sum;
		o->mean_ms = d.mean;
		o->p50_ms = d.p50;
		o->p95_ms = d.p95;
		o->max_ms = d.max;
		o->kernels = r->kernels;
		o->gpu_ms = r->gpu_us / 1000;
		free(r->dur_ms);
		r->dur_ms = NULL;
	}
	/* by total time; a trend for the listed ones (--top) only, as the
	 * kernels' (100,000 scopes made 100,000 trends, a 30 MB report.json) */
	for (size_t i = 0; i < s->res.n; i++)
		ord[i] = (struct ord){s->res.rows[i], i};
	qsort(ord, s->res.n, sizeof(*ord), cmp_ord);
	for (size_t i = 0; i < s->res.n; i++)
		s->res.rows[i] = ord[i].row;
	for (size_t i = 0; i < s->res.n && i < cx->rep->top; i++) {
		const struct srow *r = &s->rows[ord[i].i];
		const struct gl_report_scope *o = &s->res.rows[i];
		struct gl_report_trend *t = gl_trend_list_add(&s->trends, 1);

		if (!t) {
			rc = gl_section_oom(cx->err);
			goto out;
		}
		gl_section_trend(cx, &r->fit, r->first_us, r->last_us, t);
		t->series = GL_TREND_SCOPE;
		t->unit = "ms";
		if (!(t->kernel = strdup(o->scope)) ||
		    (o->device && !(t->device = strdup(o->device)))) {
			rc = gl_section_oom(cx->err);
			goto out;
		}
		gl_trend_judge(t, &ends[ord[i].i], cx->cfg->trend_min_change_pct);
	}
out:
	free(ends);
	free(ord);
	return rc;
}

static void release(void *st)
{
	struct scopes *s = st;

	for (size_t i = 0; i < s->n_rows; i++) {
		free(s->rows[i].dur_ms);
		free(s->rows[i].device);
		free(s->rows[i].canon);
	}
	for (size_t i = 0; i < s->n_grp; i++) {
		free(s->grp[i].source);
		free(s->grp[i].device);
		free(s->grp[i].iv);
	}
	for (size_t i = 0; i < s->res.n; i++)
		free(s->res.rows[i].device);
	free(s->res.rows);
	free(s->rows);
	free(s->row_of);
	free(s->grp);
	free(s->ks);
	free(s->ks_of);
	gl_trend_list_release(&s->trends);
}

static const struct gl_trend_list *trend_list(const void *st)
{
	return &((const struct scopes *)st)->trends;
}

#define SC(f) offsetof(struct gl_report_scope, f)

/* "step|forward" or "step|forward @0" (the spans' device). */
static const char *row_label(const void *row, char *buf, size_t n)
{
	const struct gl_report_scope *r = row;

	snprintf(buf, n, "%s%s%s", r->scope, r->device ? " @" : "", r->device ? r->device : "");
	return buf;
}

/* 4 significant digits, without an exponent up to 10^9 ms (a 12-day scope) */
static void html_ms(FILE *f, double v)
{
	gl_html_num(f, v, fabs(v) >= 1000 && fabs(v) < 1e9 ? GL_HTML_F1 : GL_HTML_G4);
}

#define SC(f) offsetof(struct gl_report_scope, f)
#define HTML_MS(f)                                                                         \
	static void html_##f(FILE *fp, const void *row)                                    \
	{                                                                                  \
		html_ms(fp, ((const struct gl_report_scope *)row)->f);                     \
	}
HTML_MS(total_ms)
HTML_MS(mean_ms)
HTML_MS(p50_ms)
HTML_MS(p95_ms)
HTML_MS(max_ms)
HTML_MS(gpu_ms)

/* JSON and CSV: every column; text: the scope labelled with its device, then the figures;
 * HTML: scope and device apart, ms with 4 significant digits (one decimal from 1000). */
#define MS(name, text_pos, text_head, html_pos, html_head)                                 \
	{#name, GL_COL_NUM, SC(name), 0, text_pos, text_head, 8, html_pos, html_head, 0,         \
	 NULL, 0, 0, NULL, NULL, NULL, html_##name}
static const struct gl_col cols[] = {
	{"scope", GL_COL_TEXT, SC(scope), GL_COL_NAME, 1, "scope (ms)", 24, 1, "scope", 0, NULL, 0,
	 0, NULL, NULL, NULL, NULL, row_label},
	{"device", GL_COL_TEXT, SC(device), 0, 0, NULL, 0, 2, "device", 0},
	{"count", GL_COL_U64, SC(count), 0, 2, "count", 6, 3, "count", 0},
	MS(total_ms, 3, "total", 4, "total ms"),
	MS(mean_ms, 4, "mean", 5, "mean ms"),
	MS(p50_ms, 5, "p50", 6, "p50 ms"),
	MS(p95_ms, 6, "p95", 7, "p95 ms"),
	MS(max_ms, 7, "max", 8, "max ms"),
	{"kernels", GL_COL_U64, SC(kernels), 0, 8, "kernels", 7, 9, "kernels", 0},
	MS(gpu_ms, 9, "gpu", 10, "GPU ms"),
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct gl_report_scope), NULL, 1};

/* The rows listed: the first --top. */
static size_t listed(const struct gl_report *rep, const struct gl_scopes_result *res)
{
	return res->n < rep->top ? res->n : rep->top;
}

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_scopes_result *res = res_of(st);

	/* the first --top by total time, as the kernels (summary: scopes_total) */
	return gl_table_json(&table, res ? res->rows : NULL, res ? listed(rep, res) : 0);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_scopes_result *res = res_of(st);

	gl_table_csv(&table, res ? res->rows : NULL, res ? listed(rep, res) : 0, fp);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_scopes_result *res = res_of(st);

	if (!res || !res->n) {
		fprintf(fp, "no scopes (spans of profiler traces)\n");
		return;
	}
	gl_table_text(&table, res->rows, listed(rep, res), fp);
	if (res->n > rep->top)
		fprintf(fp, "(%zu more scopes)\n", res->n - rep->top);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_scopes_result *res = res_of(st);

	if (!res || !res->n) {
		fputs("<p>No scopes (spans of profiler traces) in this window.</p>\n", f);
		return;
	}
	gl_table_html(&table, res->rows, listed(rep, res), f);
	if (res->n > rep->top)
		fprintf(f, "<p>%zu more scopes (%zu in all).</p>\n", res->n - rep->top, res->n);
}

static int chart(const struct gl_report *rep, const void *st, const char *path,
		 const struct gl_chart_opts *co, struct gl_err *err)
{
	const struct gl_scopes_result *res = res_of(st);
	struct gl_chart_bar_row rows[SCOPE_CHART_ROWS];
	char labels[SCOPE_CHART_ROWS][256], win[64], title[160];
	const char *vn[2] = {"time in the scope", "GPU time inside"};
	size_t n = 0;

	gl_chart_window_text(rep->window.since_us, rep->window.until_us, win, sizeof(win));
	if (!res || !res->n) {
		snprintf(title, sizeof(title), "Time per scope, %s", win);
		return gl_chart_nodata(path, title, "No scopes (spans of profiler traces)", co, err);
	}
	for (; n < res->n && n < SCOPE_CHART_ROWS; n++) {
		const struct gl_report_scope *r = &res->rows[n];

		rows[n].name = row_label(r, labels[n], sizeof(labels[n]));
		rows[n].value[0] = r->total_ms;
		rows[n].value[1] = r->gpu_ms;
		rows[n].value[2] = rows[n].value[3] = NAN;
	}
	snprintf(title, sizeof(title), "Time per scope (%zu of %zu by total time), %s", n,
		 res->n, win);
	return gl_chart_bars_fmt(path, title, "ms (total over the window)", "%.4g", "", vn, 2,
				 rows, n, co, err);
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_SCOPES, "Time per scope with the GPU time of its kernels", chart},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_scopes = {
	.name = "scopes",
	.title = "Scopes (spans of profiler traces), by total time",
	.state_size = sizeof(struct scopes),
	.begin = begin,
	.collect_span = collect_span,
	.collect = collect,
	.finish = finish,
	.release = release,
	.trend_list = trend_list,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
