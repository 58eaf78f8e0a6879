/*
 * sec_alerts.c - the alerts section: the rules of the configuration
 * (config.h) judged against every other section once they are finished
 * (finish_last), critical first.
 */
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_group.h"
#include "emit_util.h"
#include "kname.h"
#include "sec_alerts.h"
#include "sec_anomalies.h"
#include "sec_baseline.h"
#include "sec_errors.h"
#include "sec_findings.h"
#include "sec_gpu_health.h"
#include "sec_inference.h"
#include "sec_kernels.h"
#include "sec_memory.h"
#include "sec_metrics.h"
#include "section.h"
#include "sections.h"
#include "sec_trends.h"
#include "table.h"
#include "util/timeutil.h"

/* Timings a kernel needs before its anomaly rate is judged (kernel_anomaly_pct). */
#define KERNEL_ANOMALY_MIN_SAMPLES 100

/*
 * An alert as JSON and CSV show it (cols below): the severity's name, the
 * source ("gpulog" when none), the times of a log's alert only (none for
 * gpulog's), a count of at least 1, the worst value again as "worst".
 */
struct alert_row {
	const char *severity, *rule, *subject;
	double value, threshold;
	const char *message, *source;
	int64_t time_us;
	uint64_t count;
	int64_t first_ts_us, last_ts_us;
	double worst;
};

/* What the per-component rule needs: events and ERROR+ events per component id. */
struct alerts {
	struct gl_alerts_result res;	/* first: see sec_alerts.h */
	uint64_t *comp_events, *comp_errors;
	size_t n_ids;
	/* while the rules run: the alerts of a kernel's duration trend, and of a
	 * finding that a kernel grew steadily (the same claim: one_trend_claim) */
	size_t *trend_at, *ftrend_at;
	size_t n_trend, n_ftrend;
};

/* Notes that the alert just added (if any: a rule fires only past its
 * threshold) is at index n - 1 of the list at *v. */
static int note_added(struct alerts *a, size_t before, size_t **v, size_t *n)
{
	size_t *p;

	if (a->res.n_alerts == before)
		return GL_OK;
	if (!(p = realloc(*v, (*n + 1) * sizeof(*p))))
		return GL_ENOMEM;
	*v = p;
	p[(*n)++] = a->res.n_alerts - 1;
	return GL_OK;
}

/*
 * A kernel that grew steadily is told twice, by the trend rule ("duration
 * trend over the data's span") and by a finding of kind trend on the same
 * kernel (the change detector's claim, with its span and GPU): the verdict
 * keeps the finding and drops the trend alert, unless the trend alert is the
 * more severe.
 */
static void one_trend_claim(struct alerts *a)
{
	struct gl_alerts_result *r = &a->res;
	size_t w = 0;

	for (size_t i = 0; i < a->n_trend; i++) {
		struct gl_report_alert *t = &r->alerts[a->trend_at[i]];

		for (size_t j = 0; j < a->n_ftrend; j++) {
			const struct gl_report_alert *f = &r->alerts[a->ftrend_at[j]];

			if (t->subject && f->subject && !strcmp(t->subject, f->subject) &&
			    f->severity >= t->severity) {
				free(t->rule);
				free(t->subject);
				free(t->message);
				t->rule = t->subject = t->message = NULL;
				break;
			}
		}
	}
	for (size_t i = 0; i < r->n_alerts; i++)
		if (r->alerts[i].rule)
			r->alerts[w++] = r->alerts[i];
	r->n_alerts = w;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct alerts *a = st;

	a->n_ids = cx->n_ids;
	a->comp_events = calloc(cx->n_ids, sizeof(uint64_t));
	a->comp_errors = calloc(cx->n_ids, sizeof(uint64_t));
	return a->comp_events && a->comp_errors ? GL_OK : gl_section_oom(cx->err);
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct alerts *a = st;
	size_t cs = ev->component_id > 0 && (uint64_t)ev->component_id < a->n_ids
			    ? (size_t)ev->component_id : 0;

	/* the monitor's own alerts are alerts, not errors of a component */
	if (cx->log_alert)
		return GL_OK;
	a->comp_events[cs]++;
	a->comp_errors[cs] += ev->level >= GL_LEVEL_ERROR;
	return GL_OK;
}

/*
 * An alert's value for a reader: "14.6%", "1234.5 us", "128.0 MiB", "750",
 * not "62.7477%" or "1.34218e+08". unit: "%", " us", "bytes" or "" (a
 * count or a rate).
 */
static void alert_value(double v, const char *unit, char *buf, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

	if (!strcmp(unit, "bytes")) {
		size_t u = 0;

		while (fabs(v) >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
			v /= 1024;
			u++;
		}
		snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	} else if (!strcmp(unit, "%")) {
		snprintf(buf, n, "%.1f%%", v);
	} else if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, n, "%.0f%s", v, unit);
	} else {
		snprintf(buf, n, "%.1f%s", v, unit);
	}
}

static bool is_metric_rule(const struct gl_alert_rule *r)
{
	return r->kind == GL_RULE_METRIC_ABOVE || r->kind == GL_RULE_METRIC_BELOW ||
	       r->kind == GL_RULE_METRIC_TREND_CHANGE_PCT;
}

static bool is_kernel_rule(const struct gl_alert_rule *rule)
{
	return rule->kind == GL_RULE_KERNEL_P95_US || rule->kind == GL_RULE_KERNEL_MEAN_CHANGE_PCT ||
	       rule->kind == GL_RULE_KERNEL_TREND_CHANGE_PCT || rule->kind == GL_RULE_KERNEL_ANOMALY_PCT;
}

static int add_alert(struct gl_section_ctx *cx, struct alerts *a, const struct gl_alert_rule *rule,
		     const char *subject, double value, const char *what, const char *unit)
{
	struct gl_alerts_result *rep = &a->res;
	int sev = -1;
	char msg[512];

	bool below = rule->kind == GL_RULE_METRIC_BELOW ||
		     rule->kind == GL_RULE_TOKENS_PER_SECOND_BELOW;

	/* metric rules match the metric name themselves (eval_metric) */
	if (isnan(value) || (!is_metric_rule(rule) && fnmatch(rule->match, subject, 0) != 0))
		return GL_OK;
	for (int s = GL_SEVERITY_CRITICAL; s >= GL_SEVERITY_INFO && sev < 0; s--)
		if (rule->has[s] && (below ? value <= rule->threshold[s] : value >= rule->threshold[s]))
			sev = s;
	if (sev < 0)
		return GL_OK;
	struct gl_report_alert *al = realloc(rep->alerts, (rep->n_alerts + 1) * sizeof(*al));
	if (!al)
		return gl_section_oom(cx->err);
	rep->alerts = al;
	al = &rep->alerts[rep->n_alerts];
	char vt[64], tt[64];

	alert_value(value, unit, vt, sizeof(vt));
	alert_value(rule->threshold[sev], unit, tt, sizeof(tt));
	/* a kernel is named as everywhere a person reads it (kname.h); the rule's
	 * glob matched its full name above */
	char dn[GL_KNAME_BUF];

	if (is_kernel_rule(rule))
		subject = gl_kernels_display(cx->rep, subject, dn, sizeof(dn));
	snprintf(msg, sizeof(msg), "%s: %s %s (%s at %s)", subject, what, vt,
		 gl_severity_name((enum gl_severity)sev), tt);
	*al = (struct gl_report_alert){
		.severity = (enum gl_severity)sev,
		.rule = strdup(rule->origin ? rule->origin : gl_rule_kind_name(rule->kind)),
		.subject = strdup(subject),
		.value = value,
		.threshold = rule->threshold[sev],
		.message = strdup(msg),
		.source = "gpulog",
		.ts_us = GL_TS_NONE,
	};
	rep->n_alerts++;
	if (!al->rule || !al->subject || !al->message)
		return gl_section_oom(cx->err);
	return GL_OK;
}

/* "gpu.power_w on node1 GPU 0": a metric series as an alert's subject. */
static void metric_subject(const char *metric, const char *host, const char *device, char *buf,
			   size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", metric, *host ? " on " : "", host, *device ? " GPU " : "",
		 device);
}

static double metric_stat(const struct gl_report_metric *m, enum gl_metric_stat s)
{
	switch (s) {
	case GL_METRIC_MAX: return m->max;
	case GL_METRIC_MIN: return m->min;
	case GL_METRIC_P95: return m->p95;
	case GL_METRIC_LAST: return m->last;
	case GL_METRIC_MEAN: break;
	}
	return m->mean;
}

/* metric_above / metric_below: one alert per matching series; trends: per degrading series. */
static int eval_metric(struct gl_section_ctx *cx, struct alerts *a, const struct gl_alert_rule *r)
{
	struct gl_report *rep = cx->rep;
	char subject[512], what[96], unit[24];
	int rc = GL_OK;

	if (r->kind == GL_RULE_METRIC_TREND_CHANGE_PCT) {
		for (size_t i = 0; i < gl_trends_n(rep) && rc == GL_OK; i++) {
			const struct gl_report_trend *t = gl_trends_at(rep, i);

			if (t->series != GL_TREND_METRIC || t->verdict != GL_VERDICT_DEGRADING ||
			    fnmatch(r->match, t->kernel, 0) != 0)
				continue;
			metric_subject(t->kernel, t->host, t->device, subject, sizeof(subject));
			rc = add_alert(cx, a, r, subject, t->change_pct, "rose over the data's span by",
				       "%");
		}
		return rc;
	}
	snprintf(what, sizeof(what), "%s", gl_metric_stat_name(r->stat));
	for (size_t i = 0; i < gl_metrics_result(rep)->n_metrics && rc == GL_OK; i++) {
		const struct gl_report_metric *m = &gl_metrics_result(rep)->metrics[i];

		if (fnmatch(r->match, m->metric, 0) != 0)
			continue;
		metric_subject(m->metric, m->host, m->device, subject, sizeof(subject));
		if (!strcmp(m->unit, "%"))
			snprintf(unit, sizeof(unit), "%%");
		else
			snprintf(unit, sizeof(unit), "%s%s", *m->unit ? " " : "", m->unit);
		rc = add_alert(cx, a, r, subject, metric_stat(m, r->stat), what, unit);
	}
	return rc;
}

/*
 * ttft_p95_above, in ms: the p95 of the TTFT samples (BitNet-rs), and that
 * of each Prometheus time-to-first-token histogram in seconds
 * (vllm:time_to_first_token_seconds), subject "<family> <labels>".
 */
static int eval_ttft(struct gl_section_ctx *cx, struct alerts *a, const struct gl_alert_rule *r)
{
	const struct gl_report_inference *ri = gl_inference_result(cx->rep);
	char subject[512];
	int rc = GL_OK;

	if (ri->ttft_ms.count)
		rc = add_alert(cx, a, r, "inference", ri->ttft_ms.p95, "p95 time to first token",
			       " ms");
	for (size_t i = 0; i < ri->n_histograms && rc == GL_OK; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];
		size_t len = strlen(h->metric);

		if (!strstr(h->metric, "time_to_first_token") || len < 8 ||
		    strcmp(h->metric + len - 8, "_seconds"))
			continue;
		snprintf(subject, sizeof(subject), "%s %s", h->metric, h->labels);
		rc = add_alert(cx, a, r, subject, h->p95 * 1000, "p95 time to first token", " ms");
	}
	return rc;
}

/*
 * xid: the driver's Xid records of a code whose catalogue action is a GPU
 * reset, a node drain or a support case (the ingest stored xid_critical
 * from lib/ingest/xid.c's table: 48, 63/64, 74, 79, 92, 94/95, 119/120,
 * 140, 143), one alert per PCI bus and code, subject "Xid 79 on
 * 0000:3b:00", value the number of records. Codes the catalogue calls
 * recoverable (13, 31, 43, 45: an application's fault) do not fire.
 */
static int eval_xid(struct gl_section_ctx *cx, struct alerts *a, const struct gl_alert_rule *r)
{
	const struct gl_gpu_health_result *h =
		gl_gpu_health_result(gl_report_state_of(cx->rep, &gl_sec_gpu_health));
	char subject[128], what[160];
	int rc = GL_OK;

	for (size_t i = 0; h && i < h->n_xid && rc == GL_OK; i++) {
		const struct gl_health_xid *x = &h->xid[i];

		if (!x->critical)
			continue;
		snprintf(subject, sizeof(subject), "Xid %d on %s", x->code, *x->pci ? x->pci : "?");
		snprintf(what, sizeof(what), "%s, records", x->meaning ? x->meaning : "Xid error");
		rc = add_alert(cx, a, r, subject, (double)x->count, what, "");
	}
	return rc;
}

static int eval_rule(struct gl_section_ctx *cx, struct alerts *a, const struct gl_alert_rule *r)
{
	struct gl_report *rep = cx->rep;
	const struct gl_kernels_result *ks = gl_kernels_result(rep);
	const struct gl_report_baseline *bl = gl_baseline_result(rep);
	int rc = GL_OK;

	switch (r->kind) {
	case GL_RULE_KERNEL_P95_US:
		for (size_t i = 0; i < ks->n_kernels && rc == GL_OK; i++)
			rc = add_alert(cx, a, r, ks->kernels[i].kernel, ks->kernels[i].p95_us,
				       "p95 duration", " us");
		break;
	case GL_RULE_KERNEL_MEAN_CHANGE_PCT:
		for (size_t i = 0; i < bl->n_kernels && rc == GL_OK; i++)
			if (bl->kernels[i].verdict == GL_BASELINE_REGRESSION)
				rc = add_alert(cx, a, r, bl->kernels[i].kernel,
					       bl->kernels[i].mean_change_pct,
					       "mean duration against the preceding window", "%");
		break;
	case GL_RULE_KERNEL_TREND_CHANGE_PCT:
		for (size_t i = 0; i < gl_trends_n(rep) && rc == GL_OK; i++)
			if (gl_trends_at(rep, i)->series == GL_TREND_KERNEL &&
			    gl_trends_at(rep, i)->verdict == GL_VERDICT_DEGRADING) {
				size_t before = a->res.n_alerts;

				rc = add_alert(cx, a, r, gl_trends_at(rep, i)->kernel,
					       gl_trends_at(rep, i)->change_pct,
					       "duration trend over the data's span", "%");
				if (rc == GL_OK && note_added(a, before, &a->trend_at, &a->n_trend))
					rc = gl_section_oom(cx->err);
			}
		break;
	case GL_RULE_KERNEL_ANOMALY_PCT:
		/*
		 * A rate of anomalies needs samples: below 100 timings a single
		 * anomaly is more than 1%, and 3 of a fill kernel's 60 fire critical.
		 */
		for (size_t i = 0; i < ks->n_kernels && rc == GL_OK; i++)
			if (ks->kernels[i].count >= KERNEL_ANOMALY_MIN_SAMPLES)
				rc = add_alert(cx, a, r, ks->kernels[i].kernel,
					       (double)gl_anomalies_of_kernel(rep, ks->kernels[i].kernel_id) *
						       100.0 / (double)ks->kernels[i].count,
					       "anomalous samples", "%");
		break;
	case GL_RULE_ERROR_RATE_PER_1000:
		for (size_t i = 0; i < a->n_ids && rc == GL_OK; i++) {
			/*
			 * A handful of events gives a rate that means nothing; a
			 * component whose records are all errors (a service's
			 * error.log under its own name) is an error sink, whose rate
			 * is 1,000 every night and says nothing: its errors count in
			 * the overall rate (errors_per_hour) only.
			 */
			if (a->comp_events[i] && a->comp_events[i] >= cx->cfg->min_events_for_rate &&
			    a->comp_errors[i] < a->comp_events[i])
				rc = add_alert(cx, a, r, gl_section_name(cx, (int64_t)i),
					       (double)a->comp_errors[i] * 1000.0 /
						       (double)a->comp_events[i],
					       "errors per 1,000 events", "");
		}
		break;
	case GL_RULE_ERRORS_PER_HOUR:
		rc = add_alert(cx, a, r, "errors", gl_errors_result(rep)->per_hour, "errors per hour", "");
		break;
	case GL_RULE_MEMORY_TREND_CHANGE_PCT:
		if (gl_memory_result(rep)->verdict == GL_VERDICT_LEAK ||
		    gl_memory_result(rep)->verdict == GL_VERDICT_DEGRADING)
			rc = add_alert(cx, a, r, "memory",
				       gl_trends_of(rep, GL_TREND_MEMORY, NULL)->change_pct,
				       "memory in use rose over the data's span by", "%");
		break;
	case GL_RULE_RMM_LEAKED_BYTES:
		if (gl_memory_result(rep)->rmm.events)
			rc = add_alert(cx, a, r, "rmm", (double)gl_memory_result(rep)->rmm.leaked_bytes,
				       "still allocated at the window's end:", "bytes");
		break;
	case GL_RULE_RMM_ALLOCATION_FAILURES:
		if (gl_memory_result(rep)->rmm.events)
			rc = add_alert(cx, a, r, "rmm", (double)gl_memory_result(rep)->rmm.allocation_failures,
				       "allocation failures", "");
		break;
	case GL_RULE_METRIC_ABOVE:
	case GL_RULE_METRIC_BELOW:
	case GL_RULE_METRIC_TREND_CHANGE_PCT:
		rc = eval_metric(cx, a, r);
		break;
	case GL_RULE_TOKENS_PER_SECOND_BELOW:
		if (gl_inference_result(rep)->tokens_per_second.count)
			rc = add_alert(cx, a, r, "inference", gl_inference_result(rep)->tokens_per_second.mean,
				       "mean tokens per second", " tokens/s");
		break;
	case GL_RULE_TTFT_P95_ABOVE:
		rc = eval_ttft(cx, a, r);
		break;
	case GL_RULE_FAILED_REQUESTS_PCT_ABOVE:
		rc = add_alert(cx, a, r, "inference", gl_inference_result(rep)->failed_pct, "failed requests",
			       "%");
		break;
	case GL_RULE_FINDING: {
		const struct gl_findings_result *fr = gl_findings_result(rep);

		for (size_t i = 0; fr && i < fr->n && rc == GL_OK; i++) {
			const struct gl_finding *fd = &fr->items[i];
			char what[200], t0[40], t1[40];

			if (!fd->worse)
				continue;
			gl_text_ts(fd->start_us, t0);
			gl_text_ts(fd->end_us, t1);
			snprintf(what, sizeof(what), "finding (%s %s .. %s%s%s), changed by", fd->kind, t0,
				 t1, fd->device ? ", GPU " : "", fd->device ? fd->device : "");
			size_t before = a->res.n_alerts;

			rc = add_alert(cx, a, r, fd->series, fabs(fd->change_pct), what, "%");
			if (rc == GL_OK && !strcmp(fd->kind, "trend") && !strcmp(fd->source, "kernel") &&
			    note_added(a, before, &a->ftrend_at, &a->n_ftrend))
				rc = gl_section_oom(cx->err);
		}
		break;
	}
	case GL_RULE_XID:
		rc = eval_xid(cx, a, r);
		break;
	case GL_RULE_COUNT:
		break;
	}
	return rc;
}

/*
 * An alert a log wrote (gl_query_log_alerts), after --component and
 * --host: its level as the severity (CRITICAL and ERROR critical, WARN
 * warning, else info), its message after its component.
 */
struct log_arg {
	struct gl_section_ctx *cx;
	struct alerts *a;
};

static int on_log_alert(void *arg, const struct gl_query_log_alert *la)
{
	struct gl_section_ctx *cx = ((struct log_arg *)arg)->cx;
	struct gl_alerts_result *rep = &((struct log_arg *)arg)->a->res;
	struct gl_query_event ev = {.component_id = la->component_id, .host_id = la->host_id};
	const char *comp = gl_section_name(cx, la->component_id);
	struct gl_report_alert *al;
	char msg[1024];

	if (!gl_section_event_ok(cx, &ev))
		return GL_OK;
	if (!(al = realloc(rep->alerts, (rep->n_alerts + 1) * sizeof(*al))))
		return gl_section_oom(cx->err);
	rep->alerts = al;
	al = &rep->alerts[rep->n_alerts];
	snprintf(msg, sizeof(msg), "%s%s%s", comp, *comp ? ": " : "", la->message);
	*al = (struct gl_report_alert){
		.severity = la->level >= GL_LEVEL_ERROR ? GL_SEVERITY_CRITICAL
			    : la->level == GL_LEVEL_WARN ? GL_SEVERITY_WARNING : GL_SEVERITY_INFO,
		.rule = strdup(la->metric ? la->metric : "log"),
		.subject = strdup(*comp ? comp : "log"),
		.value = la->value,
		.threshold = la->threshold,
		.message = strdup(msg),
		.source = "log",
		.ts_us = la->ts_us,
	};
	rep->n_alerts++;
	if (!al->rule || !al->subject || !al->message)
		return gl_section_oom(cx->err);
	return GL_OK;
}

static bool is_log(const struct gl_report_alert *a)
{
	return a->source && !strcmp(a->source, "log");
}

/* The alerts of res as the tables show them (struct alert_row), into rows. */
static void fill_rows(const struct gl_alerts_result *res, struct alert_row *rows)
{
	for (size_t i = 0; i < res->n_alerts; i++) {
		const struct gl_report_alert *al = &res->alerts[i];

		rows[i] = (struct alert_row){
			.severity = gl_severity_name(al->severity),
			.rule = al->rule,
			.subject = al->subject,
			.value = al->value,
			.threshold = al->threshold,
			.message = al->message,
			.source = al->source ? al->source : "gpulog",
			.time_us = is_log(al) ? al->ts_us : GL_TS_NONE,
			.count = al->count ? al->count : 1,
			.first_ts_us = is_log(al) ? al->first_ts_us : GL_TS_NONE,
			.last_ts_us = is_log(al) ? al->last_ts_us : GL_TS_NONE,
			.worst = al->value,
		};
	}
}


static int finish(struct gl_section_ctx *cx, void *st)
{
	struct gl_alerts_result *rep = &((struct alerts *)st)->res;
	struct log_arg la = {cx, st};
	int rc = GL_OK;

	for (size_t i = 0; i < cx->cfg->n_rules && rc == GL_OK; i++)
		rc = eval_rule(cx, st, &cx->cfg->rules[i]);
	if (rc == GL_OK)
		one_trend_claim(st);
	if (rc == GL_OK)
		rc = gl_query_log_alerts(cx->q, cx->p->since_us, cx->p->until_us, on_log_alert, &la,
					 cx->err);
	/* one entry per (source, rule, subject, severity), critical first */
	if (rc == GL_OK)
		gl_alert_group(rep->alerts, &rep->n_alerts);
	return rc;
}

static void release(void *st)
{
	struct alerts *a = st;

	free(a->comp_events);
	free(a->comp_errors);
	free(a->trend_at);
	free(a->ftrend_at);
	for (size_t i = 0; i < a->res.n_alerts; i++) {
		free(a->res.alerts[i].rule);
		free(a->res.alerts[i].subject);
		free(a->res.alerts[i].message);
	}
	free(a->res.alerts);
}

/* The results in st; none for a report without the section's state. */
static const struct gl_alerts_result *res_of(const void *st)
{
	static const struct gl_alerts_result none;

	return st ? &((const struct alerts *)st)->res : &none;
}

const struct gl_alerts_result *gl_alerts_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_alerts));
}

#define AR(f) offsetof(struct alert_row, f)

/* The severity cell's class in HTML: the severity's name ("critical", "warning"). */
static const char *severity_class(const void *row)
{
	return ((const struct alert_row *)row)->severity;
}

/* The text's mark of an alert of the logs, and of one that fired more than once:
 * "[log] (x3) " */
static const char *text_marks(const void *row, char *buf, size_t n)
{
	const struct alert_row *a = row;

	snprintf(buf, n, "%s", !strcmp(a->source, "log") ? "[log] " : "");
	if (a->count > 1)
		snprintf(buf + strlen(buf), n - strlen(buf), "(x%llu) ",
			 (unsigned long long)a->count);
	return buf;
}

/* An alert: JSON (every column), CSV (all but worst, the value again), the HTML table
 * (the severity's cell coloured; times is the count, time the first firing as in JSON,
 * last the last one) and the text's line per alert (its severity, its marks, its message
 * to the end of the line). */
static const struct gl_col cols[] = {
	{"severity", GL_COL_TEXT, AR(severity), 0, 1, NULL, 9, 1, "severity", 0, NULL, 1,
	 .html_class = severity_class},
	{"rule", GL_COL_TEXT, AR(rule), 0, 0, NULL, 0, 2, "rule", 0, NULL, 2},
	{"subject", GL_COL_TEXT, AR(subject), GL_COL_NAME, 0, NULL, 0, 3, "subject", 0, NULL, 3},
	{"value", GL_COL_NUM, AR(value), 0, 0, NULL, 0, 0, NULL, 0, NULL, 4},
	{"threshold", GL_COL_NUM, AR(threshold), 0, 0, NULL, 0, 6, "threshold", 0, NULL, 5},
	{"message", GL_COL_TEXT, AR(message), GL_COL_LAST, 3, NULL, 0, 7, "message (worst)", 0,
	 NULL, 6, .text_before = ""},
	{"source", GL_COL_TEXT, AR(source), 0, 0, NULL, 0, 9, "source", 0, NULL, 7},
	{"time", GL_COL_TS, AR(time_us), 0, 0, NULL, 0, 0, NULL, 0, NULL, 8},
	{"count", GL_COL_U64, AR(count), 0, 2, NULL, 0, 4, "times", 0, NULL, 9,
	 .text_cell = text_marks, .text_before = ""},
	{"first_ts", GL_COL_TS, AR(first_ts_us), 0, 0, NULL, 0, 10, "time", 0, NULL, 10},
	{"last_ts", GL_COL_TS, AR(last_ts_us), 0, 0, NULL, 0, 8, "last", 0, NULL, 11},
	{"worst", GL_COL_NUM, AR(worst), 0, 0, NULL, 0, 5, "worst", 0, NULL, 0},
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct alert_row), .text_no_head = true};

/*
 * The rows shown, made of the result (a finished section's or one filled by
 * hand) into *own, which the caller frees. NULL with alerts to show: out of
 * memory.
 */
static const struct alert_row *rows_for(const void *st, struct alert_row **own)
{
	const struct alerts *a = st;

	*own = NULL;
	if (!a || !a->res.n_alerts)
		return NULL;
	if ((*own = calloc(a->res.n_alerts, sizeof(**own))) != NULL)
		fill_rows(&a->res, *own);
	return *own;
}

static size_t n_of(const void *st)
{
	return st ? res_of(st)->n_alerts : 0;
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	struct alert_row *own;
	const struct alert_row *rows = rows_for(st, &own);
	json_t *j = n_of(st) && !rows ? NULL : gl_table_json(&table, rows, n_of(st));

	(void)r;
	free(own);
	return j;
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	struct alert_row *own;
	const struct alert_row *rows = rows_for(st, &own);

	(void)r;
	if (n_of(st) && !rows)
		fputs("out of memory\n", fp);
	else
		gl_table_csv(&table, rows, n_of(st), fp);
	free(own);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	struct alert_row *own;
	const struct alert_row *rows = rows_for(st, &own);
	size_t n = n_of(st);

	if (!n)
		fprintf(fp, "none\n");
	else if (!rows)
		fputs("out of memory\n", fp);
	else
		gl_table_text(&table, rows, n < r->top ? n : r->top, fp);
	if (n > r->top)
		fprintf(fp, "(%zu more alerts)\n", n - r->top);
	free(own);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	struct alert_row *own;
	const struct alert_row *rows = rows_for(st, &own);

	(void)rep;
	if (n_of(st) == 0)
		fputs("<p>No alert fired.</p>\n", f);
	else if (!rows)
		fputs("<p>out of memory</p>\n", f);
	else
		gl_table_html(&table, rows, n_of(st), f);
	free(own);
}

const struct gl_section gl_sec_alerts = {
	.name = "alerts",
	.title = "Alerts",
	.state_size = sizeof(struct alerts),
	.finish_last = true,
	.begin = begin,
	.collect = collect,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
