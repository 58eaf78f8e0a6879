/*
 * sec_summary.c - the summary section: events of the window by level and
 * by component, the first and last event, mirrored records left out,
 * rejected lines and files of the database, and the report's verdict
 * (status.h), which it reads from the alerts section when it is emitted
 * (every section has finished then).
 */
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "sec_alerts.h"
#include "sec_memory.h"
#include "sec_kernels.h"
#include "sec_metrics.h"
#include "sec_scopes.h"
#include "sec_summary.h"
#include "section.h"
#include "sec_trends.h"
#include "sections.h"
#include "status.h"
#include "util/timeutil.h"

struct summary {
	struct gl_report_summary res;	/* first: see sec_summary.h */
	uint64_t *by_comp;	/* events per component id */
	size_t n_ids;
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct summary *s = st;

	s->n_ids = cx->n_ids;
	s->by_comp = calloc(cx->n_ids, sizeof(uint64_t));
	s->res.first_ts_us = s->res.last_ts_us = GL_TS_NONE;
	return s->by_comp ? GL_OK : gl_section_oom(cx->err);
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct summary *s = st;
	struct gl_report_summary *r = &s->res;

	r->events++;
	r->launch_copies += cx->launch_copy;
	r->by_level[ev->level]++;
	s->by_comp[ev->component_id > 0 && (uint64_t)ev->component_id < s->n_ids
			   ? ev->component_id : 0]++;
	if (r->first_ts_us == GL_TS_NONE)
		r->first_ts_us = ev->ts_us;
	r->last_ts_us = ev->ts_us;
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct summary *s = st;
	struct gl_report_summary *r = &s->res;
	int rc = gl_query_table_counts(cx->q, cx->p->since_us, cx->p->until_us, &r->rejected_lines,
				       &r->files, cx->err);

	if (rc != GL_OK)
		return rc;
	return gl_section_component_counts(cx, s->by_comp, &r->by_component, &r->n_by_component);
}

/* A mirrored record: counted here, left out of every other count. */
static int collect_mirrored(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	(void)cx;
	(void)ev;
	((struct summary *)st)->res.duplicates++;
	return GL_OK;
}

static void release(void *st)
{
	struct summary *s = st;

	free(s->by_comp);
	gl_report_counts_free(s->res.by_component, s->res.n_by_component);
}

/* The results in st; none (no events) for a report without the section's state. */
static const struct gl_report_summary *res_of(const void *st)
{
	static const struct gl_report_summary none = {.first_ts_us = GL_TS_NONE,
						      .last_ts_us = GL_TS_NONE};

	return st ? &((const struct summary *)st)->res : &none;
}

const struct gl_report_summary *gl_summary_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_summary));
}

enum gl_status gl_status_of(const struct gl_report *rep)
{
	const struct gl_alerts_result *al = gl_alerts_result(rep);
	enum gl_status s = GL_STATUS_OK;

	if (gl_summary_result(rep)->events == 0 && gl_metrics_result(rep)->samples == 0 &&
	    gl_memory_result(rep)->rmm.events == 0)
		return GL_STATUS_NO_DATA;
	for (size_t i = 0; i < al->n_alerts; i++) {
		if (al->alerts[i].severity == GL_SEVERITY_CRITICAL)
			return GL_STATUS_CRITICAL;
		if (al->alerts[i].severity == GL_SEVERITY_WARNING)
			s = GL_STATUS_WARNING;
	}
	return s;
}

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_report_summary *r = res_of(st);
	struct gl_jb jb = {0};
	json_t *o = json_object();

	gl_jb_set(&jb, o, "status", json_string(gl_status_name(gl_status_of(rep))));
	gl_jb_set(&jb, o, "events", gl_json_u64(r->events));
	gl_jb_set(&jb, o, "by_component",
		  gl_json_counts(&jb, r->by_component, r->n_by_component));
	gl_jb_set(&jb, o, "by_level", gl_json_levels(&jb, r->by_level, GL_LEVEL_NONE));
	gl_jb_set(&jb, o, "first_ts", gl_json_ts(r->first_ts_us));
	gl_jb_set(&jb, o, "last_ts", gl_json_ts(r->last_ts_us));
	gl_jb_set(&jb, o, "rejected_lines", gl_json_u64(r->rejected_lines));
	gl_jb_set(&jb, o, "files", gl_json_u64(r->files));
	gl_jb_set(&jb, o, "duplicates", gl_json_u64(r->duplicates));
	gl_jb_set(&jb, o, "launch_copies", gl_json_u64(r->launch_copies));
	const struct gl_kernels_result *ks = gl_kernels_result(rep);

	gl_jb_set(&jb, o, "kernels_total",
		  gl_json_u64(ks->n_kernels_total > ks->n_kernels ? ks->n_kernels_total : ks->n_kernels));
	const struct gl_metrics_result *ms = gl_metrics_result(rep);
	size_t trends = gl_trends_n(rep);

	gl_jb_set(&jb, o, "scopes_total", gl_json_u64(gl_scopes_result(rep)->n));
	gl_jb_set(&jb, o, "series_total", gl_json_u64(ms->n_metrics));
	gl_jb_set(&jb, o, "series_listed", gl_json_u64(ms->n_metrics - ms->n_unlisted));
	gl_jb_set(&jb, o, "trends_total", gl_json_u64(trends));
	gl_jb_set(&jb, o, "trends_listed", gl_json_u64(trends - ms->n_trends_unlisted));
	return gl_jb_done(&jb, o);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_report_summary *r = res_of(st);

	fputs("key,name,value", fp);
	gl_csv_eol(fp);
	fprintf(fp, "status,,%s", gl_status_name(gl_status_of(rep)));
	gl_csv_eol(fp);
	gl_csv_kv_u64(fp, "events", "", r->events);
	for (size_t i = 0; i < r->n_by_component; i++)
		gl_csv_kv_u64(fp, "by_component", r->by_component[i].name,
			      r->by_component[i].count);
	for (int l = 0; l <= GL_LEVEL_CRITICAL; l++)
		gl_csv_kv_u64(fp, "by_level", l ? gl_level_name((enum gl_level)l) : "NONE",
			      r->by_level[l]);
	gl_csv_kv_ts(fp, "first_ts", r->first_ts_us);
	gl_csv_kv_ts(fp, "last_ts", r->last_ts_us);
	gl_csv_kv_u64(fp, "rejected_lines", "", r->rejected_lines);
	gl_csv_kv_u64(fp, "files", "", r->files);
	gl_csv_kv_u64(fp, "duplicates", "", r->duplicates);
	gl_csv_kv_u64(fp, "launch_copies", "", r->launch_copies);
	const struct gl_metrics_result *ms = gl_metrics_result(rep);
	size_t trends = gl_trends_n(rep);

	gl_csv_kv_u64(fp, "scopes_total", "", gl_scopes_result(rep)->n);
	gl_csv_kv_u64(fp, "series_total", "", ms->n_metrics);
	gl_csv_kv_u64(fp, "series_listed", "", ms->n_metrics - ms->n_unlisted);
	gl_csv_kv_u64(fp, "trends_total", "", trends);
	gl_csv_kv_u64(fp, "trends_listed", "", trends - ms->n_trends_unlisted);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_summary *s = res_of(st);
	char a[40], b[40];

	fprintf(fp, "Status   %s\n", gl_status_name(gl_status_of(r)));
	fprintf(fp, "Events   %llu", (unsigned long long)s->events);
	if (s->events)
		fprintf(fp, ", first %s, last %s", gl_text_ts(s->first_ts_us, a),
			gl_text_ts(s->last_ts_us, b));
	fputc('\n', fp);
	fprintf(fp, "Levels  ");
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		if (s->by_level[l])
			fprintf(fp, " %s %llu", l ? gl_level_name((enum gl_level)l) : "(none)",
				(unsigned long long)s->by_level[l]);
	fprintf(fp, "\nDatabase %llu files, %llu rejected lines", (unsigned long long)s->files,
		(unsigned long long)s->rejected_lines);
	if (s->duplicates)
		fprintf(fp, ", %llu mirrored records counted once",
			(unsigned long long)s->duplicates);
	if (s->launch_copies)
		fprintf(fp, ", %llu launches logged twice timed once",
			(unsigned long long)s->launch_copies);
	fputc('\n', fp);
	if (s->events == 0)
		fprintf(fp, "\nNo events in this window.\n");
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_summary *s = res_of(st);

	(void)rep;
	if (s->events == 0)
		fputs("<p><b>No events in this window.</b></p>\n", f);
	fprintf(f, "<table><tr><th>events</th><td class=\"n\">%llu</td></tr>\n",
		(unsigned long long)s->events);
	fputs("<tr><th>first event</th><td>", f);
	gl_html_when(f, s->first_ts_us);
	fputs("</td></tr>\n<tr><th>last event</th><td>", f);
	gl_html_when(f, s->last_ts_us);
	fprintf(f, "</td></tr>\n<tr><th>mirrored records (counted once)</th><td class=\"n\">%llu"
		"</td></tr>\n<tr><th>rejected lines (database)</th><td class=\"n\">%llu</td></tr>"
		"\n<tr><th>files (database)</th><td class=\"n\">%llu</td></tr>\n</table>\n",
		(unsigned long long)s->duplicates, (unsigned long long)s->rejected_lines,
		(unsigned long long)s->files);
	fputs("<table><tr>", f);
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		fprintf(f, "<th>%s</th>", l == GL_LEVEL_NONE ? "no level" : gl_level_name(l));
	fputs("</tr>\n<tr>", f);
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		fprintf(f, "<td class=\"n\">%llu</td>", (unsigned long long)s->by_level[l]);
	fputs("</tr></table>\n", f);
	if (s->n_by_component > 0)
		gl_html_counts(f, "component", s->by_component, s->n_by_component);
}

const struct gl_section gl_sec_summary = {
	.name = "summary",
	.title = "Summary",
	.state_size = sizeof(struct summary),
	.begin = begin,
	.collect = collect,
	.collect_mirrored = collect_mirrored,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
