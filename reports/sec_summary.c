/*
 * sec_summary.c - the summary section: events of the window by level and
 * by component, the first and last event, mirrored records left out,
 * rejected lines and files of the database.
 */
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "section.h"
#include "sections.h"
#include "util/timeutil.h"

struct summary {
	uint64_t *by_comp;	/* events per component id */
	size_t n_ids;
};

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct summary *s = st;

	s->n_ids = cx->n_ids;
	s->by_comp = calloc(cx->n_ids, sizeof(uint64_t));
	cx->rep->summary.first_ts_us = cx->rep->summary.last_ts_us = GL_TS_NONE;
	return s->by_comp ? GL_OK : gl_section_oom(cx->err);
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct summary *s = st;
	struct gl_report_summary *r = &cx->rep->summary;

	r->events++;
	r->by_level[ev->level]++;
	s->by_comp[ev->component_id > 0 && (uint64_t)ev->component_id < s->n_ids
			   ? ev->component_id : 0]++;
	if (r->first_ts_us == GL_TS_NONE)
		r->first_ts_us = ev->ts_us;
	r->last_ts_us = ev->ts_us;
	return GL_OK;
}

static int cmp_count_name(const void *pa, const void *pb)
{
	return strcmp(((const struct gl_report_count *)pa)->name,
		      ((const struct gl_report_count *)pb)->name);
}

int gl_section_component_counts(struct gl_section_ctx *cx, const uint64_t *counts,
				struct gl_report_count **out, size_t *n_out)
{
	size_t n = 0;

	for (size_t i = 0; i < cx->n_ids; i++)
		n += counts[i] > 0;
	*n_out = 0;
	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < cx->n_ids; i++) {
		if (!counts[i])
			continue;
		(*out)[*n_out].name = strdup(gl_section_name(cx, (int64_t)i));
		(*out)[*n_out].count = counts[i];
		if (!(*out)[(*n_out)++].name)
			return gl_section_oom(cx->err);
	}
	if (*n_out > 1)
		qsort(*out, *n_out, sizeof(**out), cmp_count_name);
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct summary *s = st;
	struct gl_report_summary *r = &cx->rep->summary;
	int rc = gl_query_table_counts(cx->q, cx->p->since_us, cx->p->until_us, &r->rejected_lines,
				       &r->files, cx->err);

	if (rc != GL_OK)
		return rc;
	return gl_section_component_counts(cx, s->by_comp, &r->by_component, &r->n_by_component);
}

static void release(void *st)
{
	free(((struct summary *)st)->by_comp);
}

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	struct gl_jb jb = {0};
	json_t *o = json_object();

	(void)st;
	gl_jb_set(&jb, o, "events", gl_json_u64(r->summary.events));
	gl_jb_set(&jb, o, "by_component",
		  gl_json_counts(&jb, r->summary.by_component, r->summary.n_by_component));
	gl_jb_set(&jb, o, "by_level", gl_json_levels(&jb, r->summary.by_level, GL_LEVEL_NONE));
	gl_jb_set(&jb, o, "first_ts", gl_json_ts(r->summary.first_ts_us));
	gl_jb_set(&jb, o, "last_ts", gl_json_ts(r->summary.last_ts_us));
	gl_jb_set(&jb, o, "rejected_lines", gl_json_u64(r->summary.rejected_lines));
	gl_jb_set(&jb, o, "files", gl_json_u64(r->summary.files));
	gl_jb_set(&jb, o, "duplicates", gl_json_u64(r->summary.duplicates));
	gl_jb_set(&jb, o, "kernels_total",
		  gl_json_u64(r->n_kernels_total > r->n_kernels ? r->n_kernels_total : r->n_kernels));
	gl_jb_set(&jb, o, "scopes_total", gl_json_u64(r->n_scopes_total));
	gl_jb_set(&jb, o, "series_total", gl_json_u64(r->n_metrics));
	gl_jb_set(&jb, o, "series_listed", gl_json_u64(r->n_metrics_listed));
	gl_jb_set(&jb, o, "trends_total", gl_json_u64(r->n_trends));
	gl_jb_set(&jb, o, "trends_listed",
		  gl_json_u64(r->n_trends - (r->n_metric_trends - r->n_metrics_listed)));
	return gl_jb_done(&jb, o);
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)st;
	fputs("key,name,value", fp);
	gl_csv_eol(fp);
	gl_csv_kv_u64(fp, "events", "", r->summary.events);
	for (size_t i = 0; i < r->summary.n_by_component; i++)
		gl_csv_kv_u64(fp, "by_component", r->summary.by_component[i].name,
			      r->summary.by_component[i].count);
	for (int l = 0; l <= GL_LEVEL_CRITICAL; l++)
		gl_csv_kv_u64(fp, "by_level", l ? gl_level_name((enum gl_level)l) : "NONE",
			      r->summary.by_level[l]);
	gl_csv_kv_ts(fp, "first_ts", r->summary.first_ts_us);
	gl_csv_kv_ts(fp, "last_ts", r->summary.last_ts_us);
	gl_csv_kv_u64(fp, "rejected_lines", "", r->summary.rejected_lines);
	gl_csv_kv_u64(fp, "files", "", r->summary.files);
	gl_csv_kv_u64(fp, "duplicates", "", r->summary.duplicates);
	gl_csv_kv_u64(fp, "scopes_total", "", r->n_scopes_total);
	gl_csv_kv_u64(fp, "series_total", "", r->n_metrics);
	gl_csv_kv_u64(fp, "series_listed", "", r->n_metrics_listed);
	gl_csv_kv_u64(fp, "trends_total", "", r->n_trends);
	gl_csv_kv_u64(fp, "trends_listed", "", r->n_trends - (r->n_metric_trends - r->n_metrics_listed));
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_summary *s = &r->summary;
	char a[40], b[40];

	(void)st;
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
	fputc('\n', fp);
	if (s->events == 0)
		fprintf(fp, "\nNo events in this window.\n");
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_summary *s = &rep->summary;

	(void)st;
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
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
