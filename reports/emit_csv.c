/*
 * emit_csv.c - the report as one CSV file per section (RFC 4180), written
 * into out->dir: summary.csv, kernels.csv, trends.csv, anomalies.csv,
 * memory.csv, errors.csv, alerts.csv, baseline.csv. Columns are named like
 * the JSON keys. Sections that are objects (summary, memory, errors) are
 * written as key,name,value rows.
 *
 * Text cells come from log content ("=HYPERLINK(...)" in a kernel name
 * would run in a spreadsheet): a text cell that begins with = + - @, a tab
 * or a carriage return gets a leading apostrophe. Numbers are never changed.
 */
#include "report.h"

#include <math.h>
#include <string.h>

#include "util/timeutil.h"

static void cell_text(FILE *fp, const char *s)
{
	bool defuse, quote;

	if (!s)
		s = "";
	defuse = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
	quote = defuse || strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', fp);
	if (defuse)
		fputc('\'', fp);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', fp);
		fputc(*p, fp);
	}
	if (quote)
		fputc('"', fp);
}

static void cell_num(FILE *fp, double d)
{
	if (isfinite(d))
		fprintf(fp, "%.15g", d);
}

static void cell_u64(FILE *fp, uint64_t v)
{
	fprintf(fp, "%llu", (unsigned long long)v);
}

static void cell_ts(FILE *fp, int64_t us)
{
	char buf[40];

	if (us != GL_TS_NONE)
		fputs(gl_time_format(us, buf), fp);
}

#define SEP fputc(',', fp)
#define EOL fputs("\r\n", fp)

/* key,name,value rows */
static void kv_u64(FILE *fp, const char *key, const char *name, uint64_t v)
{
	cell_text(fp, key);
	SEP;
	cell_text(fp, name);
	SEP;
	cell_u64(fp, v);
	EOL;
}

static void kv_num(FILE *fp, const char *key, const char *name, double v)
{
	cell_text(fp, key);
	SEP;
	cell_text(fp, name);
	SEP;
	cell_num(fp, v);
	EOL;
}

static void kv_text(FILE *fp, const char *key, const char *name, const char *v)
{
	cell_text(fp, key);
	SEP;
	cell_text(fp, name);
	SEP;
	cell_text(fp, v);
	EOL;
}

static void kv_ts(FILE *fp, const char *key, int64_t us)
{
	char buf[40];

	kv_text(fp, key, "", us == GL_TS_NONE ? "" : gl_time_format(us, buf));
}

static void summary(FILE *fp, const struct gl_report *r)
{
	fputs("key,name,value", fp);
	EOL;
	kv_u64(fp, "events", "", r->summary.events);
	for (size_t i = 0; i < r->summary.n_by_component; i++)
		kv_u64(fp, "by_component", r->summary.by_component[i].name,
		       r->summary.by_component[i].count);
	for (int l = 0; l <= GL_LEVEL_CRITICAL; l++)
		kv_u64(fp, "by_level", l ? gl_level_name((enum gl_level)l) : "NONE",
		       r->summary.by_level[l]);
	kv_ts(fp, "first_ts", r->summary.first_ts_us);
	kv_ts(fp, "last_ts", r->summary.last_ts_us);
	kv_u64(fp, "rejected_lines", "", r->summary.rejected_lines);
	kv_u64(fp, "files", "", r->summary.files);
}

static void kernels(FILE *fp, const struct gl_report *r)
{
	fputs("kernel,count,min_us,max_us,mean_us,stddev_us,p50_us,p90_us,p95_us,p99_us,"
	      "total_us,anomalies,flagged_anomalies,mean_mem_mib", fp);
	EOL;
	for (size_t i = 0; i < r->n_kernels; i++) {
		const struct gl_report_kernel *k = &r->kernels[i];
		double v[] = {k->min_us, k->max_us, k->mean_us, k->stddev_us, k->p50_us,
			      k->p90_us, k->p95_us, k->p99_us, k->total_us};

		cell_text(fp, k->kernel);
		SEP;
		cell_u64(fp, k->count);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			SEP;
			cell_num(fp, v[j]);
		}
		SEP;
		cell_u64(fp, k->anomalies);
		SEP;
		cell_u64(fp, k->flagged);
		SEP;
		cell_num(fp, k->mean_mem_mib);
		EOL;
	}
}

static void trends(FILE *fp, const struct gl_report *r)
{
	fputs("series,kernel,unit,n,slope_per_day,intercept,r2,p_value,change_pct,verdict", fp);
	EOL;
	for (size_t i = 0; i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];

		cell_text(fp, gl_trend_series_name(t->series));
		SEP;
		cell_text(fp, t->kernel);
		SEP;
		cell_text(fp, t->unit);
		SEP;
		cell_u64(fp, t->n);
		SEP;
		cell_num(fp, t->slope_per_day);
		SEP;
		cell_num(fp, t->intercept);
		SEP;
		cell_num(fp, t->r2);
		SEP;
		cell_num(fp, t->p_value);
		SEP;
		cell_num(fp, t->change_pct);
		SEP;
		cell_text(fp, gl_verdict_name(t->verdict));
		EOL;
	}
}

static void anomalies(FILE *fp, const struct gl_report *r)
{
	fputs("ts,kernel,value_us,mean_us,stddev_us,z", fp);
	EOL;
	for (size_t i = 0; i < r->anomalies.n_items; i++) {
		const struct gl_report_anomaly *a = &r->anomalies.items[i];

		cell_ts(fp, a->ts_us);
		SEP;
		cell_text(fp, a->kernel);
		SEP;
		cell_num(fp, a->value_us);
		SEP;
		cell_num(fp, a->mean_us);
		SEP;
		cell_num(fp, a->stddev_us);
		SEP;
		cell_num(fp, a->z);
		EOL;
	}
}

static void memory(FILE *fp, const struct gl_report *r)
{
	const struct gl_report_memory *m = &r->memory;
	const struct gl_report_rmm *rm = &m->rmm;
	char ptr[32], lo[32];

	fputs("key,name,value", fp);
	EOL;
	kv_u64(fp, "samples", "", m->samples);
	kv_num(fp, "peak_mib", "", m->peak_mib);
	kv_ts(fp, "peak_ts", m->peak_ts_us);
	kv_num(fp, "last_mib", "", m->last_mib);
	kv_ts(fp, "last_ts", m->last_ts_us);
	kv_text(fp, "verdict", "", gl_verdict_name(m->verdict));
	kv_u64(fp, "rmm.events", "", rm->events);
	kv_u64(fp, "rmm.allocations", "", rm->allocations);
	kv_u64(fp, "rmm.frees", "", rm->frees);
	kv_u64(fp, "rmm.allocation_failures", "", rm->allocation_failures);
	kv_u64(fp, "rmm.unmatched_frees", "", rm->unmatched_frees);
	kv_u64(fp, "rmm.peak_outstanding_bytes", "", rm->peak_outstanding_bytes);
	kv_ts(fp, "rmm.peak_ts", rm->peak_ts_us);
	kv_u64(fp, "rmm.leaked_allocations", "", rm->leaked_allocations);
	kv_u64(fp, "rmm.leaked_bytes", "", rm->leaked_bytes);
	for (size_t i = 0; i < rm->n_leaks; i++) {
		char when[40];

		snprintf(ptr, sizeof(ptr), "0x%llx", (unsigned long long)rm->leaks[i].ptr);
		kv_u64(fp, "rmm.leaks.size_bytes", ptr, rm->leaks[i].size_bytes);
		kv_text(fp, "rmm.leaks.ts", ptr, gl_time_format(rm->leaks[i].ts_us, when));
	}
	kv_num(fp, "rmm.size_quantiles_bytes", "min", rm->size_min_bytes);
	kv_num(fp, "rmm.size_quantiles_bytes", "p50", rm->size_p50_bytes);
	kv_num(fp, "rmm.size_quantiles_bytes", "p90", rm->size_p90_bytes);
	kv_num(fp, "rmm.size_quantiles_bytes", "p99", rm->size_p99_bytes);
	kv_num(fp, "rmm.size_quantiles_bytes", "max", rm->size_max_bytes);
	for (size_t i = 0; i < rm->n_histogram; i++) {
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)rm->histogram[i].lo_bytes);
		kv_u64(fp, "rmm.size_histogram", lo, rm->histogram[i].count);
	}
}

static void errors(FILE *fp, const struct gl_report *r)
{
	const struct gl_report_errors *e = &r->errors;

	fputs("key,name,value,first_ts,last_ts,sample", fp);
	EOL;
#define ROW_END fputs(",,,", fp)
	cell_text(fp, "errors"), SEP, SEP, cell_u64(fp, e->errors), ROW_END, EOL;
	cell_text(fp, "warnings"), SEP, SEP, cell_u64(fp, e->warnings), ROW_END, EOL;
	for (size_t i = 0; i < e->n_by_component; i++) {
		cell_text(fp, "by_component"), SEP, cell_text(fp, e->by_component[i].name), SEP;
		cell_u64(fp, e->by_component[i].count), ROW_END, EOL;
	}
	for (int l = GL_LEVEL_WARN; l <= GL_LEVEL_CRITICAL; l++) {
		cell_text(fp, "by_level"), SEP, cell_text(fp, gl_level_name((enum gl_level)l)), SEP;
		cell_u64(fp, e->by_level[l]), ROW_END, EOL;
	}
	cell_text(fp, "per_1000_events"), SEP, SEP, cell_num(fp, e->per_1000_events), ROW_END, EOL;
	cell_text(fp, "per_hour"), SEP, SEP, cell_num(fp, e->per_hour), ROW_END, EOL;
	cell_text(fp, "shapes"), SEP, SEP, cell_u64(fp, e->shapes), ROW_END, EOL;
	cell_text(fp, "shapes_overflow"), SEP, SEP, cell_u64(fp, e->shapes_overflow), ROW_END, EOL;
	cell_text(fp, "recovery_attempts"), SEP, SEP, cell_u64(fp, e->recovery_attempts), ROW_END,
		EOL;
	cell_text(fp, "events_with_recovery"), SEP, SEP, cell_u64(fp, e->events_with_recovery),
		ROW_END, EOL;
#undef ROW_END
	for (size_t i = 0; i < e->n_top_messages; i++) {
		const struct gl_report_shape *s = &e->top_messages[i];

		cell_text(fp, "top_messages"), SEP, cell_text(fp, s->shape), SEP;
		cell_u64(fp, s->count), SEP, cell_ts(fp, s->first_ts_us), SEP;
		cell_ts(fp, s->last_ts_us), SEP, cell_text(fp, s->sample), EOL;
	}
}

static void alerts(FILE *fp, const struct gl_report *r)
{
	fputs("severity,rule,subject,value,threshold,message", fp);
	EOL;
	for (size_t i = 0; i < r->n_alerts; i++) {
		const struct gl_report_alert *a = &r->alerts[i];

		cell_text(fp, gl_severity_name(a->severity)), SEP, cell_text(fp, a->rule), SEP;
		cell_text(fp, a->subject), SEP, cell_num(fp, a->value), SEP;
		cell_num(fp, a->threshold), SEP, cell_text(fp, a->message), EOL;
	}
}

static void baseline(FILE *fp, const struct gl_report *r)
{
	const struct gl_report_baseline *b = &r->baseline;

	fputs("kernel,count_before,count,mean_before_us,mean_us,mean_change_pct,p95_before_us,"
	      "p95_us,p95_change_pct,p_value,verdict", fp);
	EOL;
	for (size_t i = 0; i < b->n_kernels; i++) {
		const struct gl_report_baseline_kernel *k = &b->kernels[i];

		cell_text(fp, k->kernel), SEP, cell_u64(fp, k->count_before), SEP;
		cell_u64(fp, k->count), SEP, cell_num(fp, k->mean_before_us), SEP;
		cell_num(fp, k->mean_us), SEP, cell_num(fp, k->mean_change_pct), SEP;
		cell_num(fp, k->p95_before_us), SEP, cell_num(fp, k->p95_us), SEP;
		cell_num(fp, k->p95_change_pct), SEP, cell_num(fp, k->p_value), SEP;
		cell_text(fp, gl_baseline_verdict_name(k->verdict)), EOL;
	}
	/* kernels in one window only: counts, nothing to compare */
	for (size_t i = 0; i < b->n_new_kernels; i++)
		cell_text(fp, b->new_kernels[i]), fputs(",0,,,,,,,,,new", fp), EOL;
	for (size_t i = 0; i < b->n_vanished_kernels; i++)
		cell_text(fp, b->vanished_kernels[i]), fputs(",,0,,,,,,,,vanished", fp), EOL;
}

static const struct {
	const char *name;
	void (*write)(FILE *fp, const struct gl_report *r);
} files[] = {
	{"summary.csv", summary},     {"kernels.csv", kernels}, {"trends.csv", trends},
	{"anomalies.csv", anomalies}, {"memory.csv", memory},   {"errors.csv", errors},
	{"alerts.csv", alerts},       {"baseline.csv", baseline},
};

int gl_emit_csv(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "the csv format writes files: it needs a directory");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *tmp = NULL;
		FILE *fp = gl_output_open(out, files[i].name, &tmp, err);
		int rc;

		if (!fp)
			return err ? err->code : GL_EIO;
		files[i].write(fp, rep);
		rc = gl_output_commit(out, files[i].name, fp, &tmp, true, err);
		if (rc != GL_OK)
			return rc;
	}
	return GL_OK;
}
