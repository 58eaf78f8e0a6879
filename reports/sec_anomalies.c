/*
 * sec_anomalies.c - the anomalies section: each kernel timing judged
 * against the timings of the same kernel before it (moving window, mean and
 * standard deviation or median and MAD, stats.h), the largest ones listed;
 * also the count of events the logs flagged themselves. Its results
 * (sec_anomalies.h) stay in its state; each kernel's count is offered
 * through the section's kernel_anomalies hook (section.h), which the kernels
 * table reads without naming this section. Every kernel
 * is judged, in the kernel pass (section.h), one kernel at a time: one
 * detector's memory, however many kernels there are.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "kname.h"
#include "sec_anomalies.h"
#include "sec_kernels.h"
#include "section.h"
#include "table.h"
#include "sections.h"
#include "stats/stats.h"

struct item {
	struct gl_report_anomaly a;	/* a.kernel set in finish */
	int64_t kernel_id;
};

struct anomalies {
	struct gl_report_anomalies res;	/* first: see sec_anomalies.h */
	struct gl_anomaly *det;		/* the current kernel's, in the kernel pass */
	uint64_t *by_id;		/* anomalous samples per kernel id */
	size_t n_ids;
	struct item *top;
	size_t n_top, cap_top;
	char **names;			/* owned names of the items (n_top of them) */
	char **displays;		/* and their display names */
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct anomalies *a = st;
	struct gl_report_anomalies *r = &a->res;

	r->method = cx->cfg->anomaly_method;
	r->k = cx->cfg->anomaly_k;
	r->window = cx->cfg->anomaly_window;
	r->min_samples = cx->cfg->anomaly_min_samples;
	a->n_ids = cx->n_ids;
	a->cap_top = cx->p->top;
	a->by_id = calloc(cx->n_ids, sizeof(*a->by_id));
	a->top = calloc(a->cap_top ? a->cap_top : 1, sizeof(*a->top));
	return a->by_id && a->top ? GL_OK : gl_section_oom(cx->err);
}

/* Largest z first, then the earlier: the order of the list. */
static int cmp_item(const void *pa, const void *pb)
{
	const struct gl_report_anomaly *a = &((const struct item *)pa)->a;
	const struct gl_report_anomaly *b = &((const struct item *)pb)->a;

	if (a->z != b->z)
		return a->z < b->z ? 1 : -1;
	return a->ts_us < b->ts_us ? -1 : a->ts_us > b->ts_us;
}

/* Keeps the cap_top first items by cmp_item, whatever the order they come in. */
static void keep(struct anomalies *a, const struct item *x)
{
	size_t worst = 0;

	if (a->n_top < a->cap_top) {
		a->top[a->n_top++] = *x;
		return;
	}
	for (size_t i = 1; i < a->cap_top; i++)
		if (cmp_item(&a->top[i], &a->top[worst]) > 0)
			worst = i;
	if (cmp_item(x, &a->top[worst]) < 0)
		a->top[worst] = *x;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	(void)cx;
	if (ev->anomaly == 1)
		((struct anomalies *)st)->res.flagged_by_logs++;
	return GL_OK;
}

/*
 * Each kernel's timings in time order through one detector, reset at each
 * kernel: the same judgement as in time order across kernels, since a
 * kernel is judged only against its own earlier timings.
 */
static int collect_kernel(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			  bool first)
{
	struct anomalies *a = st;
	struct gl_report_anomalies *r = &a->res;
	double c, s, z;

	if (first) {
		struct gl_anomaly_params ap = {
			.robust = cx->cfg->anomaly_method == GL_ANOMALY_MAD,
			.k = cx->cfg->anomaly_k,
			.window = cx->cfg->anomaly_window,
			.min_samples = cx->cfg->anomaly_min_samples,
		};

		gl_anomaly_free(a->det);
		a->det = NULL;
		/* a kernel with too few timings to be judged needs no detector */
		if (cx->kernel_n[ev->kernel_id] > cx->cfg->anomaly_min_samples &&
		    !(a->det = gl_anomaly_new(&ap)))
			return gl_section_oom(cx->err);
	}
	if (!a->det)
		return GL_OK;
	int v = gl_anomaly_push(a->det, ev->dur_us, &c, &s, &z);
	if (v >= 0)
		r->judged++;
	if (v == 1) {
		struct item x = {{ev->ts_us, NULL, NULL, ev->dur_us, c, s, z}, ev->kernel_id};

		a->by_id[ev->kernel_id]++;
		r->total++;
		keep(a, &x);
	}
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct anomalies *a = st;
	const struct gl_kernels_result *ks = gl_kernels_result(cx->rep);
	struct gl_report_anomaly *items;

	gl_anomaly_free(a->det);
	a->det = NULL;
	qsort(a->top, a->n_top, sizeof(*a->top), cmp_item);
	items = calloc(a->n_top ? a->n_top : 1, sizeof(*items));
	a->names = calloc(a->n_top ? a->n_top : 1, sizeof(*a->names));
	a->displays = calloc(a->n_top ? a->n_top : 1, sizeof(*a->displays));
	if (!items || !a->names || !a->displays) {
		free(items);
		return gl_section_oom(cx->err);
	}
	/*
	 * items point at the names of the kernels section's list, which outlive them; a
	 * kernel not listed there gets a copy in this state, which stays with
	 * the report as long
	 */
	for (size_t i = 0; i < a->n_top; i++) {
		items[i] = a->top[i].a;
		for (size_t j = 0; j < ks->n_kernels && !items[i].kernel; j++)
			if (ks->kernels[j].kernel_id == a->top[i].kernel_id) {
				items[i].kernel = ks->kernels[j].kernel;
				items[i].display = gl_report_kernel_name(&ks->kernels[j]);
			}
		if (!items[i].kernel) {
			char dn[GL_KNAME_BUF];

			if (!(items[i].kernel = a->names[i] =
				      strdup(gl_section_name(cx, a->top[i].kernel_id))) ||
			    !(items[i].display = a->displays[i] =
				      strdup(gl_kname_display(items[i].kernel, dn, sizeof(dn))))) {
				free(items);
				return gl_section_oom(cx->err);
			}
		}
	}
	a->res.items = items;
	a->res.n_items = a->n_top;
	return GL_OK;
}

static void release(void *st)
{
	struct anomalies *a = st;

	gl_anomaly_free(a->det);
	for (size_t i = 0; a->names && i < a->n_top; i++)
		free(a->names[i]);
	free(a->names);
	for (size_t i = 0; a->displays && i < a->n_top; i++)
		free(a->displays[i]);
	free(a->displays);
	free(a->by_id);
	free(a->top);
	free(a->res.items);
}

const struct gl_report_anomalies *gl_anomalies_result(const struct gl_report *rep)
{
	return gl_report_state_of(rep, &gl_sec_anomalies);
}

/* section.h: kernel_anomalies. */
static uint64_t of_kernel(const void *st, int64_t kernel_id)
{
	const struct anomalies *a = st;

	return a && a->by_id && kernel_id >= 0 && (uint64_t)kernel_id < a->n_ids
		       ? a->by_id[kernel_id] : 0;
}

uint64_t gl_anomalies_of_kernel(const struct gl_report *rep, int64_t kernel_id)
{
	return of_kernel(gl_report_state_of(rep, &gl_sec_anomalies), kernel_id);
}

/* The results in st; none (zero) for a report without the section's state. */
static const struct gl_report_anomalies *res_of(const void *st)
{
	static const struct gl_report_anomalies none;

	return st ? &((const struct anomalies *)st)->res : &none;
}

#define AN(f) offsetof(struct gl_report_anomaly, f)

/* The text's name of the kernel: its display name fitted to 33 columns. */
static const char *text_name(const void *row, char *buf, size_t n)
{
	const struct gl_report_anomaly *a = row;

	return a->display ? gl_kname_fit(a->kernel, a->display, 33, buf, n) : a->kernel;
}

static const char *text_z(const void *row, char *buf, size_t n)
{
	snprintf(buf, n, "%.1f", ((const struct gl_report_anomaly *)row)->z);
	return buf;
}

/* The listed anomalies: JSON items, CSV, HTML and the text's line per anomaly (the first
 * five: "  when  kernel  value us  z 3.2"). */
static const struct gl_col cols[] = {
	{"ts", GL_COL_TS, AN(ts_us), GL_COL_UNCUT, 1, NULL, 0, 1, "when", 0, .text_before = "  "},
	{"kernel", GL_COL_TEXT, AN(kernel), GL_COL_NAME, 0, NULL, 0, 0, NULL, 0},
	{"display", GL_COL_TEXT, AN(display), GL_COL_NAME | GL_COL_CUT, 2, NULL, 34, 2, "kernel", 0,
	 .text_cell = text_name, .text_before = "  "},
	{"value_us", GL_COL_NUM, AN(value_us), 0, 3, NULL, 9, 3, "µs", 0},
	{"mean_us", GL_COL_NUM, AN(mean_us), 0, 0, NULL, 0, 4, "centre µs", 0},
	{"stddev_us", GL_COL_NUM, AN(stddev_us), 0, 0, NULL, 0, 5, "spread µs", 0},
	{"z", GL_COL_NUM, AN(z), 0, 4, NULL, 0, 6, "z", 0, .text_cell = text_z,
	 .text_before = " us  z "},
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct gl_report_anomaly), .text_no_head = true};

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	const struct gl_report_anomalies *an = res_of(st);
	struct gl_jb jb = {0};
	json_t *o = json_object(), *by = json_object();

	gl_jb_set(&jb, o, "method", gl_json_str(gl_anomaly_method_name(an->method)));
	gl_jb_set(&jb, o, "k", gl_json_num(an->k));
	gl_jb_set(&jb, o, "window", gl_json_u64(an->window));
	gl_jb_set(&jb, o, "min_samples", gl_json_u64(an->min_samples));
	gl_jb_set(&jb, o, "judged", gl_json_u64(an->judged));
	gl_jb_set(&jb, o, "total", gl_json_u64(an->total));
	gl_jb_set(&jb, o, "flagged_by_logs", gl_json_u64(an->flagged_by_logs));
	const struct gl_kernels_result *ks = gl_kernels_result(r);

	for (size_t i = 0; by && i < ks->n_kernels; i++)
		if (gl_anomalies_of_kernel(r, ks->kernels[i].kernel_id))
			gl_jb_set(&jb, by, ks->kernels[i].kernel,
				  gl_json_u64(gl_anomalies_of_kernel(r, ks->kernels[i].kernel_id)));
	gl_jb_set(&jb, o, "by_kernel", by);
	gl_jb_set(&jb, o, "items", gl_table_json(&table, an->items, an->n_items));
	return gl_jb_done(&jb, o);
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_anomalies *an = res_of(st);

	(void)r;
	gl_table_csv(&table, an->items, an->n_items, fp);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_anomalies *an = res_of(st);

	(void)r;
	fprintf(fp, "%llu of %llu judged samples (%s, k = %g, window %u); %llu flagged by the logs\n",
		(unsigned long long)an->total, (unsigned long long)an->judged,
		gl_anomaly_method_name(an->method), an->k, an->window,
		(unsigned long long)an->flagged_by_logs);
	gl_table_text(&table, an->items, an->n_items < 5 ? an->n_items : 5, fp);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_anomalies *an = res_of(st);

	(void)rep;
	fprintf(f, "<p>%llu anomalous of %llu judged kernel timings (%s, k = %g, window %u); "
		"%llu events flagged by the logs themselves.</p>\n",
		(unsigned long long)an->total, (unsigned long long)an->judged,
		gl_anomaly_method_name(an->method), an->k, an->window,
		(unsigned long long)an->flagged_by_logs);
	if (an->n_items)
		gl_table_html(&table, an->items, an->n_items, f);
}

const struct gl_section gl_sec_anomalies = {
	.name = "anomalies",
	.title = "Anomalies",
	.state_size = sizeof(struct anomalies),
	.begin = begin,
	.collect = collect,
	.collect_kernel = collect_kernel,
	.finish = finish,
	.release = release,
	.kernel_anomalies = of_kernel,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
