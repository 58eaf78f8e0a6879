/*
 * sec_operations.c - the operations section: records with an execution time
 * and no kernel (a service's performance.log), grouped by operation:
 * count, min, max, mean, standard deviation, p50/p95/p99 and total in ms,
 * mean throughput; one trend per operation (series "operation").
 *
 * An operation timing is what the ingest found and stored (table
 * operations, lib/record/operation.h: its name is metadata.operation, else
 * the message's "Operation layout_step completed in 2.38ms"; its time
 * execution_time_ms, else the message's); the reader hands it with the
 * event. One without a name is named by the event's component.
 * Memory: one double per operation record (for the percentiles).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emit_util.h"
#include "sec_operations.h"
#include "table.h"
#include "section.h"
#include "trend_rules.h"
#include "sections.h"
#include "stats/stats.h"
#include "util/hash.h"

#define OPS_MAX 4096		/* distinct operations; more go to "(other)" */
#define NAME_MAX_BYTES 200

struct op {
	char *name;
	char *component;
	double *ms;
	size_t n, cap;
	double tp_sum;
	uint64_t tp_n;
	struct gl_fit_acc fit;
	int64_t first_ts_us, last_ts_us;
};

struct operations {
	struct gl_operations_result res;	/* first: see sec_operations.h */
	struct op *ops;		/* open addressing by name; name NULL: empty */
	size_t cap, n;
	struct gl_trend_list trends;	/* one per operation, by name */
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct operations *o = st;

	o->cap = 64;
	o->ops = calloc(o->cap, sizeof(*o->ops));
	return o->ops ? GL_OK : gl_section_oom(cx->err);
}

static struct op *find(struct operations *o, const char *name)
{
	size_t i = (size_t)gl_hash64(name, strlen(name), 11) & (o->cap - 1);

	while (o->ops[i].name && strcmp(o->ops[i].name, name))
		i = (i + 1) & (o->cap - 1);
	return &o->ops[i];
}

static int grow(struct operations *o)
{
	struct operations g = {.ops = calloc(o->cap * 2, sizeof(*o->ops)), .cap = o->cap * 2,
			       .n = o->n};

	if (!g.ops)
		return -1;
	for (size_t i = 0; i < o->cap; i++)
		if (o->ops[i].name)
			*find(&g, o->ops[i].name) = o->ops[i];
	free(o->ops);
	o->ops = g.ops;
	o->cap = g.cap;
	return 0;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct operations *o = st;
	char name[NAME_MAX_BYTES];
	const double ms = ev->op_ms, tp = ev->op_throughput;

	if (ev->kernel_id > 0 || !isfinite(ms))
		return GL_OK;
	/* the name cut to NAME_MAX_BYTES - 1 bytes, as snprintf "%s" cuts it
	 * (which cost ~580 instructions an operation) */
	const char *src = ev->op_name ? ev->op_name : gl_section_name(cx, ev->component_id);
	size_t len = strnlen(src, sizeof(name) - 1);

	memcpy(name, src, len);
	name[len] = '\0';
	if ((o->n + 1) * 2 > o->cap && grow(o) != 0)
		return gl_section_oom(cx->err);
	const char *key = name;
	struct op *p = find(o, key);
	if (!p->name && o->n >= OPS_MAX)
		p = find(o, key = "(other)");
	if (!p->name) {
		p->name = strdup(key);
		p->component = strdup(gl_section_name(cx, ev->component_id));
		if (!p->name || !p->component)
			return gl_section_oom(cx->err);
		gl_fit_acc_init(&p->fit);
		p->first_ts_us = ev->ts_us;
		o->n++;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		double *d = realloc(p->ms, cap * sizeof(*d));

		if (!d)
			return gl_section_oom(cx->err);
		p->ms = d;
		p->cap = cap;
	}
	p->ms[p->n++] = ms;
	p->last_ts_us = ev->ts_us;
	gl_fit_acc_add(&p->fit, gl_section_days(cx, ev->ts_us), ms);
	if (isfinite(tp)) {
		p->tp_sum += tp;
		p->tp_n++;
	}
	return GL_OK;
}

static int cmp_total(const void *pa, const void *pb)
{
	const struct gl_report_operation *a = pa, *b = pb;

	if (a->total_ms != b->total_ms)
		return a->total_ms < b->total_ms ? 1 : -1;
	return strcmp(a->operation, b->operation);
}

static int cmp_op_name(const void *pa, const void *pb)
{
	return strcmp((*(struct op *const *)pa)->name, (*(struct op *const *)pb)->name);
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct operations *o = st;
	struct op **by_name = malloc((o->n ? o->n : 1) * sizeof(*by_name));
	struct gl_report_trend *t;
	size_t k = 0;

	o->res.operations = calloc(o->n ? o->n : 1, sizeof(*o->res.operations));
	if (!by_name || !o->res.operations) {
		free(by_name);
		return gl_section_oom(cx->err);
	}
	for (size_t i = 0; i < o->cap; i++)
		if (o->ops[i].name)
			by_name[k++] = &o->ops[i];
	qsort(by_name, k, sizeof(*by_name), cmp_op_name);
	t = gl_trend_list_add(&o->trends, k);
	for (size_t i = 0; t && i < k; i++) {
		struct op *p = by_name[i];
		struct gl_report_operation *r = &o->res.operations[o->res.n_operations++];
		struct gl_stats_desc d;

		gl_section_trend(cx, &p->fit, p->first_ts_us, p->last_ts_us, &t[i]);
		t[i].series = GL_TREND_OPERATION;
		t[i].unit = "ms";
		{
			struct gl_trend_ends e;

			gl_trend_ends_of(p->ms, p->n, &e);
			gl_trend_judge(&t[i], &e, cx->cfg->trend_min_change_pct);
		}
		gl_stats_describe(p->ms, p->n, &d);
		r->operation = strdup(p->name);
		r->component = strdup(p->component);
		t[i].kernel = strdup(p->name);
		if (!r->operation || !r->component || !t[i].kernel) {
			free(by_name);
			return gl_section_oom(cx->err);
		}
		r->count = p->n;
		r->min_ms = d.min;
		r->max_ms = d.max;
		r->mean_ms = d.mean;
		r->stddev_ms = d.sd;
		r->p50_ms = d.p50;
		r->p95_ms = d.p95;
		r->p99_ms = d.p99;
		r->total_ms = d.sum;
		r->throughput_n = p->tp_n;
		r->mean_throughput = p->tp_n ? p->tp_sum / (double)p->tp_n : NAN;
	}
	free(by_name);
	if (!t)
		return gl_section_oom(cx->err);
	qsort(o->res.operations, o->res.n_operations, sizeof(*o->res.operations), cmp_total);
	return GL_OK;
}

static void release(void *st)
{
	struct operations *o = st;

	for (size_t i = 0; o->ops && i < o->cap; i++) {
		free(o->ops[i].name);
		free(o->ops[i].component);
		free(o->ops[i].ms);
	}
	free(o->ops);
	for (size_t i = 0; i < o->res.n_operations; i++) {
		free(o->res.operations[i].operation);
		free(o->res.operations[i].component);
	}
	free(o->res.operations);
	gl_trend_list_release(&o->trends);
}

static const struct gl_trend_list *trend_list(const void *st)
{
	return &((const struct operations *)st)->trends;
}

/* The results in st; none for a report without the section's state. */
static const struct gl_operations_result *res_of(const void *st)
{
	static const struct gl_operations_result none;

	return st ? &((const struct operations *)st)->res : &none;
}

const struct gl_operations_result *gl_operations_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_operations));
}

#define OP(f) offsetof(struct gl_report_operation, f)

/* The rows: every column in JSON and CSV; text and HTML show some, in their order. */
static const struct gl_col cols[] = {
	{"operation", GL_COL_TEXT, OP(operation), GL_COL_NAME, 1, "operation (ms)", 26, 1,
	 "operation", 0},
	{"component", GL_COL_TEXT, OP(component), 0, 0, NULL, 0, 2, "component", 0},
	{"count", GL_COL_U64, OP(count), 0, 2, "count", 8, 3, "count", 0},
	{"min_ms", GL_COL_NUM, OP(min_ms), 0, 4, "min", 9, 5, "min ms", 0},
	{"max_ms", GL_COL_NUM, OP(max_ms), 0, 5, "max", 9, 6, "max ms", 0},
	{"mean_ms", GL_COL_NUM, OP(mean_ms), 0, 3, "mean", 9, 4, "mean ms", 0},
	{"stddev_ms", GL_COL_NUM, OP(stddev_ms), 0, 0, NULL, 0, 0, NULL, 0},
	{"p50_ms", GL_COL_NUM, OP(p50_ms), 0, 0, NULL, 0, 0, NULL, 0},
	{"p95_ms", GL_COL_NUM, OP(p95_ms), 0, 6, "p95", 9, 7, "p95 ms", 0},
	{"p99_ms", GL_COL_NUM, OP(p99_ms), 0, 7, "p99", 9, 8, "p99 ms", 0},
	{"total_ms", GL_COL_NUM, OP(total_ms), 0, 8, "total", 9, 9, "total s", 1e3},
	{"mean_throughput", GL_COL_NUM, OP(mean_throughput), 0, 0, NULL, 0, 10, "throughput", 0},
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct gl_report_operation)};

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	const struct gl_operations_result *res = res_of(st);

	(void)r;
	return gl_table_json(&table, res->operations, res->n_operations);
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_operations_result *res = res_of(st);

	(void)r;
	gl_table_csv(&table, res->operations, res->n_operations, fp);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_operations_result *res = res_of(st);

	if (!res->n_operations) {
		fprintf(fp, "no operations\n");
		return;
	}
	gl_table_text(&table, res->operations, res->n_operations < r->top ? res->n_operations : r->top,
		      fp);
	if (res->n_operations > r->top)
		fprintf(fp, "(%zu more operations)\n", res->n_operations - r->top);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_operations_result *res = res_of(st);

	(void)rep;
	if (res->n_operations == 0) {
		fputs("<p>No operation timings in this window.</p>\n", f);
		return;
	}
	gl_table_html(&table, res->operations, res->n_operations, f);
}

const struct gl_section gl_sec_operations = {
	.name = "operations",
	.title = "Operations by total time (ms)",
	.state_size = sizeof(struct operations),
	.begin = begin,
	.collect = collect,
	.finish = finish,
	.release = release,
	.trend_list = trend_list,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
