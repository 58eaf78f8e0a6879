/*
 * emit_json.c - the report as one JSON document, report.json (jansson).
 * NAN and infinities become null; times are RFC 3339 strings (UTC).
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/timeutil.h"

/* jansson reports allocation failure by returning NULL from every builder;
 * json_object_set_new tolerates a NULL value by failing, which we count. */
struct jb {
	int failed;
};

static void set(struct jb *jb, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		jb->failed = 1;
}

static void append(struct jb *jb, json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) != 0)
		jb->failed = 1;
}

static json_t *num(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)(v > (uint64_t)INT64_MAX ? INT64_MAX : v));
}

static json_t *ts(int64_t us)
{
	char buf[40];

	return us == GL_TS_NONE ? json_null() : json_string(gl_time_format(us, buf));
}

/* Log content is usually UTF-8; bytes that are not become '?' so the document stays valid. */
static json_t *str(const char *s)
{
	json_t *v;
	char *copy;

	if (!s)
		return json_null();
	if ((v = json_string(s)) != NULL)
		return v;
	if (!(copy = strdup(s)))
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

static json_t *counts(struct jb *jb, const struct gl_report_count *c, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < n; i++)
		set(jb, o, c[i].name, u64(c[i].count));
	return o;
}

static json_t *levels(struct jb *jb, const uint64_t *by_level, int from)
{
	json_t *o = json_object();

	for (int l = from; o && l <= GL_LEVEL_CRITICAL; l++)
		set(jb, o, l ? gl_level_name((enum gl_level)l) : "NONE", u64(by_level[l]));
	return o;
}

static json_t *summary(struct jb *jb, const struct gl_report *r)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	set(jb, o, "events", u64(r->summary.events));
	set(jb, o, "by_component", counts(jb, r->summary.by_component, r->summary.n_by_component));
	set(jb, o, "by_level", levels(jb, r->summary.by_level, GL_LEVEL_NONE));
	set(jb, o, "first_ts", ts(r->summary.first_ts_us));
	set(jb, o, "last_ts", ts(r->summary.last_ts_us));
	set(jb, o, "rejected_lines", u64(r->summary.rejected_lines));
	set(jb, o, "files", u64(r->summary.files));
	return o;
}

static json_t *kernels(struct jb *jb, const struct gl_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_kernels; i++) {
		const struct gl_report_kernel *k = &r->kernels[i];
		json_t *o = json_object();

		if (!o) {
			jb->failed = 1;
			break;
		}
		set(jb, o, "kernel", str(k->kernel));
		set(jb, o, "count", u64(k->count));
		set(jb, o, "min_us", num(k->min_us));
		set(jb, o, "max_us", num(k->max_us));
		set(jb, o, "mean_us", num(k->mean_us));
		set(jb, o, "stddev_us", num(k->stddev_us));
		set(jb, o, "p50_us", num(k->p50_us));
		set(jb, o, "p90_us", num(k->p90_us));
		set(jb, o, "p95_us", num(k->p95_us));
		set(jb, o, "p99_us", num(k->p99_us));
		set(jb, o, "total_us", num(k->total_us));
		set(jb, o, "anomalies", u64(k->anomalies));
		set(jb, o, "flagged_anomalies", u64(k->flagged));
		set(jb, o, "mean_mem_mib", num(k->mean_mem_mib));
		append(jb, a, o);
	}
	return a;
}

static json_t *trends(struct jb *jb, const struct gl_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];
		json_t *o = json_object();

		if (!o) {
			jb->failed = 1;
			break;
		}
		set(jb, o, "series", str(gl_trend_series_name(t->series)));
		set(jb, o, "kernel", str(t->kernel));
		set(jb, o, "unit", str(t->unit));
		set(jb, o, "n", u64(t->n));
		set(jb, o, "slope_per_day", num(t->slope_per_day));
		set(jb, o, "intercept", num(t->intercept));
		set(jb, o, "r2", num(t->r2));
		set(jb, o, "p_value", num(t->p_value));
		set(jb, o, "change_pct", num(t->change_pct));
		set(jb, o, "verdict", str(gl_verdict_name(t->verdict)));
		append(jb, a, o);
	}
	return a;
}

static json_t *anomalies(struct jb *jb, const struct gl_report *r)
{
	const struct gl_report_anomalies *an = &r->anomalies;
	json_t *o = json_object(), *by = json_object(), *items = json_array();

	if (!o || !by || !items) {
		json_decref(o);
		json_decref(by);
		json_decref(items);
		return NULL;
	}
	set(jb, o, "method", str(gl_anomaly_method_name(an->method)));
	set(jb, o, "k", num(an->k));
	set(jb, o, "window", u64(an->window));
	set(jb, o, "min_samples", u64(an->min_samples));
	set(jb, o, "judged", u64(an->judged));
	set(jb, o, "total", u64(an->total));
	set(jb, o, "flagged_by_logs", u64(an->flagged_by_logs));
	for (size_t i = 0; i < r->n_kernels; i++)
		if (r->kernels[i].anomalies)
			set(jb, by, r->kernels[i].kernel, u64(r->kernels[i].anomalies));
	set(jb, o, "by_kernel", by);
	for (size_t i = 0; i < an->n_items; i++) {
		const struct gl_report_anomaly *x = &an->items[i];
		json_t *it = json_object();

		if (!it) {
			jb->failed = 1;
			break;
		}
		set(jb, it, "ts", ts(x->ts_us));
		set(jb, it, "kernel", str(x->kernel));
		set(jb, it, "value_us", num(x->value_us));
		set(jb, it, "mean_us", num(x->mean_us));
		set(jb, it, "stddev_us", num(x->stddev_us));
		set(jb, it, "z", num(x->z));
		append(jb, items, it);
	}
	set(jb, o, "items", items);
	return o;
}

static json_t *memory(struct jb *jb, const struct gl_report *r)
{
	const struct gl_report_memory *m = &r->memory;
	const struct gl_report_rmm *rm = &m->rmm;
	json_t *o = json_object(), *ro = json_object(), *leaks = json_array(),
	       *q = json_object(), *hist = json_array();
	char ptr[32];

	if (!o || !ro || !leaks || !q || !hist) {
		json_decref(o);
		json_decref(ro);
		json_decref(leaks);
		json_decref(q);
		json_decref(hist);
		return NULL;
	}
	set(jb, o, "samples", u64(m->samples));
	set(jb, o, "peak_mib", num(m->peak_mib));
	set(jb, o, "peak_ts", ts(m->peak_ts_us));
	set(jb, o, "last_mib", num(m->last_mib));
	set(jb, o, "last_ts", ts(m->last_ts_us));
	set(jb, o, "verdict", str(gl_verdict_name(m->verdict)));
	set(jb, ro, "events", u64(rm->events));
	set(jb, ro, "allocations", u64(rm->allocations));
	set(jb, ro, "frees", u64(rm->frees));
	set(jb, ro, "allocation_failures", u64(rm->allocation_failures));
	set(jb, ro, "unmatched_frees", u64(rm->unmatched_frees));
	set(jb, ro, "peak_outstanding_bytes", u64(rm->peak_outstanding_bytes));
	set(jb, ro, "peak_ts", ts(rm->peak_ts_us));
	set(jb, ro, "leaked_allocations", u64(rm->leaked_allocations));
	set(jb, ro, "leaked_bytes", u64(rm->leaked_bytes));
	for (size_t i = 0; i < rm->n_leaks; i++) {
		json_t *l = json_object();

		if (!l) {
			jb->failed = 1;
			break;
		}
		snprintf(ptr, sizeof(ptr), "0x%llx", (unsigned long long)rm->leaks[i].ptr);
		set(jb, l, "ts", ts(rm->leaks[i].ts_us));
		set(jb, l, "ptr", json_string(ptr));
		set(jb, l, "size_bytes", u64(rm->leaks[i].size_bytes));
		append(jb, leaks, l);
	}
	set(jb, ro, "leaks", leaks);
	set(jb, q, "min", num(rm->size_min_bytes));
	set(jb, q, "p50", num(rm->size_p50_bytes));
	set(jb, q, "p90", num(rm->size_p90_bytes));
	set(jb, q, "p99", num(rm->size_p99_bytes));
	set(jb, q, "max", num(rm->size_max_bytes));
	set(jb, ro, "size_quantiles_bytes", q);
	for (size_t i = 0; i < rm->n_histogram; i++) {
		json_t *h = json_object();

		if (!h) {
			jb->failed = 1;
			break;
		}
		set(jb, h, "lo_bytes", u64(rm->histogram[i].lo_bytes));
		set(jb, h, "count", u64(rm->histogram[i].count));
		append(jb, hist, h);
	}
	set(jb, ro, "size_histogram", hist);
	set(jb, o, "rmm", ro);
	return o;
}

static json_t *errors(struct jb *jb, const struct gl_report *r)
{
	const struct gl_report_errors *e = &r->errors;
	json_t *o = json_object(), *top = json_array();

	if (!o || !top) {
		json_decref(o);
		json_decref(top);
		return NULL;
	}
	set(jb, o, "errors", u64(e->errors));
	set(jb, o, "warnings", u64(e->warnings));
	set(jb, o, "by_component", counts(jb, e->by_component, e->n_by_component));
	set(jb, o, "by_level", levels(jb, e->by_level, GL_LEVEL_WARN));
	set(jb, o, "per_1000_events", num(e->per_1000_events));
	set(jb, o, "per_hour", num(e->per_hour));
	for (size_t i = 0; i < e->n_top_messages; i++) {
		const struct gl_report_shape *s = &e->top_messages[i];
		json_t *m = json_object();

		if (!m) {
			jb->failed = 1;
			break;
		}
		set(jb, m, "shape", str(s->shape));
		set(jb, m, "count", u64(s->count));
		set(jb, m, "first_ts", ts(s->first_ts_us));
		set(jb, m, "last_ts", ts(s->last_ts_us));
		set(jb, m, "sample", str(s->sample));
		append(jb, top, m);
	}
	set(jb, o, "top_messages", top);
	set(jb, o, "shapes", u64(e->shapes));
	set(jb, o, "shapes_overflow", u64(e->shapes_overflow));
	set(jb, o, "recovery_attempts", u64(e->recovery_attempts));
	set(jb, o, "events_with_recovery", u64(e->events_with_recovery));
	return o;
}

static json_t *alerts(struct jb *jb, const struct gl_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_alerts; i++) {
		const struct gl_report_alert *al = &r->alerts[i];
		json_t *o = json_object();

		if (!o) {
			jb->failed = 1;
			break;
		}
		set(jb, o, "severity", str(gl_severity_name(al->severity)));
		set(jb, o, "rule", str(al->rule));
		set(jb, o, "subject", str(al->subject));
		set(jb, o, "value", num(al->value));
		set(jb, o, "threshold", num(al->threshold));
		set(jb, o, "message", str(al->message));
		append(jb, a, o);
	}
	return a;
}

static json_t *names(struct jb *jb, char *const *s, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		append(jb, a, str(s[i]));
	return a;
}

static json_t *baseline(struct jb *jb, const struct gl_report *r)
{
	const struct gl_report_baseline *b = &r->baseline;
	json_t *o = json_object(), *ks = json_array();

	if (!o || !ks) {
		json_decref(o);
		json_decref(ks);
		return NULL;
	}
	set(jb, o, "since", ts(b->since_us));
	set(jb, o, "until", ts(b->until_us));
	set(jb, o, "samples", u64(b->samples));
	for (size_t i = 0; i < b->n_kernels; i++) {
		const struct gl_report_baseline_kernel *k = &b->kernels[i];
		json_t *x = json_object();

		if (!x) {
			jb->failed = 1;
			break;
		}
		set(jb, x, "kernel", str(k->kernel));
		set(jb, x, "count_before", u64(k->count_before));
		set(jb, x, "count", u64(k->count));
		set(jb, x, "mean_before_us", num(k->mean_before_us));
		set(jb, x, "mean_us", num(k->mean_us));
		set(jb, x, "mean_change_pct", num(k->mean_change_pct));
		set(jb, x, "p95_before_us", num(k->p95_before_us));
		set(jb, x, "p95_us", num(k->p95_us));
		set(jb, x, "p95_change_pct", num(k->p95_change_pct));
		set(jb, x, "p_value", num(k->p_value));
		set(jb, x, "verdict", str(gl_baseline_verdict_name(k->verdict)));
		append(jb, ks, x);
	}
	set(jb, o, "kernels", ks);
	set(jb, o, "new_kernels", names(jb, b->new_kernels, b->n_new_kernels));
	set(jb, o, "vanished_kernels", names(jb, b->vanished_kernels, b->n_vanished_kernels));
	return o;
}

/* Builds the whole document; NULL when out of memory. */
static json_t *document(const struct gl_report *r)
{
	struct jb jb = {0};
	json_t *root = json_object(), *gen = json_object(), *win = json_object();

	if (!root || !gen || !win) {
		json_decref(root);
		json_decref(gen);
		json_decref(win);
		return NULL;
	}
	set(&jb, gen, "name", str(r->generator));
	set(&jb, gen, "version", str(r->version));
	set(&jb, root, "generator", gen);
	set(&jb, win, "since", ts(r->window.since_us));
	set(&jb, win, "until", ts(r->window.until_us));
	set(&jb, win, "days", num(r->window.days));
	set(&jb, root, "window", win);
	set(&jb, root, "summary", summary(&jb, r));
	set(&jb, root, "kernels", kernels(&jb, r));
	set(&jb, root, "trends", trends(&jb, r));
	set(&jb, root, "anomalies", anomalies(&jb, r));
	set(&jb, root, "memory", memory(&jb, r));
	set(&jb, root, "errors", errors(&jb, r));
	set(&jb, root, "alerts", alerts(&jb, r));
	set(&jb, root, "baseline", baseline(&jb, r));
	if (jb.failed) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int gl_emit_json(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	char *tmp = NULL;
	json_t *doc = document(rep);
	FILE *fp;
	bool ok;

	if (!doc)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	fp = gl_output_open(out, "report.json", &tmp, err);
	if (!fp) {
		json_decref(doc);
		return err ? err->code : GL_EIO;
	}
	ok = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) == 0 &&
	     fputc('\n', fp) != EOF;
	json_decref(doc);
	return gl_output_commit(out, "report.json", fp, &tmp, ok, err);
}
