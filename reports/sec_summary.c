/*
 * sec_summary.c - the summary section: events of the window by level and
 * by component, the first and last event, mirrored records left out,
 * rejected lines and files of the database, and the report's verdict
 * (status.h), which it reads from the alerts section when it is emitted
 * (every section has finished then). A backend that counts events on its
 * side (ClickHouse, gl_query_event_counts) gives the counts and the first
 * and last event at begin; the event pass then counts only the launch
 * copies (reports/launch_once.h, found in the pass).
 */
#include <stddef.h>
#include <stdio.h>
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
#include "table.h"
#include "util/timeutil.h"

struct summary {
	struct gl_report_summary res;	/* first: see sec_summary.h */
	uint64_t *by_comp;	/* events per component id */
	size_t n_ids;
	bool counted;		/* by the backend (begin) */
};

static int on_count(void *arg, const struct gl_query_event_count *c)
{
	struct summary *s = arg;
	struct gl_report_summary *r = &s->res;

	if (c->mirrored) {
		r->duplicates += c->n;
		return GL_OK;
	}
	r->events += c->n;
	r->by_level[c->level] += c->n;
	s->by_comp[c->component_id > 0 && (uint64_t)c->component_id < s->n_ids
			   ? c->component_id : 0] += c->n;
	if (r->first_ts_us == GL_TS_NONE || c->first_ts_us < r->first_ts_us)
		r->first_ts_us = c->first_ts_us;
	if (r->last_ts_us == GL_TS_NONE || c->last_ts_us > r->last_ts_us)
		r->last_ts_us = c->last_ts_us;
	return GL_OK;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct summary *s = st;

	s->n_ids = cx->n_ids;
	s->by_comp = calloc(cx->n_ids, sizeof(uint64_t));
	s->res.first_ts_us = s->res.last_ts_us = GL_TS_NONE;
	if (!s->by_comp)
		return gl_section_oom(cx->err);
	if (gl_query_counts_events(cx->q)) {
		struct gl_query_keep keep;
		int rc = gl_section_keep(cx, &keep);

		if (rc == GL_OK)
			rc = gl_query_event_counts(cx->q, cx->p->since_us, cx->p->until_us, &keep,
						   cx->alert_streams, cx->n_alert_streams, on_count,
						   s, cx->err);
		gl_section_keep_release(&keep);
		if (rc != GL_OK && rc != GL_QUERY_NOT_HERE)
			return rc;
		s->counted = rc == GL_OK;
	}
	return GL_OK;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct summary *s = st;
	struct gl_report_summary *r = &s->res;

	r->launch_copies += cx->launch_copy;
	if (s->counted)
		return GL_OK;
	r->events++;
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
	if (!((struct summary *)st)->counted)
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

/* The shown row: the results, the verdict and the other sections' totals. */
struct view {
	const char *status;
	struct gl_report_summary s;
	uint64_t kernels_total;
	uint64_t scopes_total;
	uint64_t series_total;
	uint64_t series_listed;
	uint64_t trends_total;
	uint64_t trends_listed;
};

static struct view view_of(const struct gl_report *rep, const void *st)
{
	const struct gl_kernels_result *ks = gl_kernels_result(rep);
	const struct gl_metrics_result *ms = gl_metrics_result(rep);
	size_t trends = gl_trends_n(rep);

	return (struct view){
		.status = gl_status_name(gl_status_of(rep)),
		.s = *res_of(st),
		.kernels_total = ks->n_kernels_total > ks->n_kernels ? ks->n_kernels_total
								       : ks->n_kernels,
		.scopes_total = gl_scopes_result(rep)->n,
		.series_total = ms->n_metrics,
		.series_listed = ms->n_metrics - ms->n_unlisted,
		.trends_total = trends,
		.trends_listed = trends - ms->n_trends_unlisted,
	};
}

static json_t *components_json(const void *row)
{
	const struct view *v = row;
	struct gl_jb jb = {0};

	return gl_jb_done(&jb, gl_json_counts(&jb, v->s.by_component, v->s.n_by_component));
}

static void components_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct view *v = row;

	(void)pad;
	for (size_t i = 0; i < v->s.n_by_component; i++)
		gl_csv_kv_u64(fp, key, v->s.by_component[i].name, v->s.by_component[i].count);
}

#define LV(l) ((size_t)(l) * sizeof(uint64_t))

/*
 * The events by level (a uint64_t per enum gl_level), a record: JSON's by_level object,
 * the CSV's by_level rows (the level as the name), the text's " LEVEL count" of each
 * level that has events and the HTML's row of levels across the page.
 */
static const struct gl_col level_cols[] = {
	{"NONE", GL_COL_U64, LV(GL_LEVEL_NONE), 0, 1, "(none)", 0, 1, "no level", 0},
	{"TRACE", GL_COL_U64, LV(GL_LEVEL_TRACE), 0, 2, "TRACE", 0, 2, "TRACE", 0},
	{"DEBUG", GL_COL_U64, LV(GL_LEVEL_DEBUG), 0, 3, "DEBUG", 0, 3, "DEBUG", 0},
	{"INFO", GL_COL_U64, LV(GL_LEVEL_INFO), 0, 4, "INFO", 0, 4, "INFO", 0},
	{"WARN", GL_COL_U64, LV(GL_LEVEL_WARN), 0, 5, "WARN", 0, 5, "WARN", 0},
	{"ERROR", GL_COL_U64, LV(GL_LEVEL_ERROR), 0, 6, "ERROR", 0, 6, "ERROR", 0},
	{"CRITICAL", GL_COL_U64, LV(GL_LEVEL_CRITICAL), 0, 7, "CRITICAL", 0, 7, "CRITICAL", 0},
};

static const struct gl_table level_table = {level_cols, sizeof(level_cols) / sizeof(level_cols[0]),
					    LV(GL_LEVEL_CRITICAL + 1)};

static json_t *levels_json(const void *row)
{
	return gl_record_json(&level_table, ((const struct view *)row)->s.by_level);
}

static void levels_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	gl_record_csv_named(&level_table, ((const struct view *)row)->s.by_level, key, pad, fp);
}

/* Text: the events, then the first and last when there are any. */
static const char *events_text(const void *row, char *buf, size_t n)
{
	const struct view *v = row;
	char a[40], b[40];

	if (v->s.events)
		snprintf(buf, n, "%llu, first %s, last %s", (unsigned long long)v->s.events,
			 gl_text_ts(v->s.first_ts_us, a), gl_text_ts(v->s.last_ts_us, b));
	else
		snprintf(buf, n, "%llu", (unsigned long long)v->s.events);
	return buf;
}

/* Text: " LEVEL count" for each level that has events (its text head: "(none)", "INFO"). */
static const char *levels_text(const void *row, char *buf, size_t n)
{
	const struct view *v = row;
	size_t len = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < level_table.n_cols && len < n; k++) {
		uint64_t c;

		memcpy(&c, (const char *)v->s.by_level + level_cols[k].offset, sizeof(c));
		if (c)
			len += (size_t)snprintf(buf + len, n - len, " %s %llu",
						level_cols[k].text_head, (unsigned long long)c);
	}
	return buf;
}

/* Text: the database's files and rejected lines, the records counted once. */
static const char *database_text(const void *row, char *buf, size_t n)
{
	const struct view *v = row;
	size_t len = (size_t)snprintf(buf, n, "%llu files, %llu rejected lines",
				      (unsigned long long)v->s.files,
				      (unsigned long long)v->s.rejected_lines);

	if (v->s.duplicates && len < n)
		len += (size_t)snprintf(buf + len, n - len, ", %llu mirrored records counted once",
					(unsigned long long)v->s.duplicates);
	if (v->s.launch_copies && len < n)
		snprintf(buf + len, n - len, ", %llu launches logged twice timed once",
			 (unsigned long long)v->s.launch_copies);
	return buf;
}

#define V(f) offsetof(struct view, f)

/*
 * The summary, a record: JSON's object, the CSV's key,name,value rows (every key but
 * kernels_total), the text's lines (Status, Events, Levels, Database) and the HTML's
 * key-value table. The levels are a record of their own (level_cols), the HTML's
 * components table gl_html_counts'.
 */
static const struct gl_col cols[] = {
	{"status", GL_COL_TEXT, V(status), 0, 1, "Status", 9, 0, NULL, 0, .csv_pos = 1},
	{"events", GL_COL_U64, V(s.events), 0, 2, "Events", 9, 1, "events", 0, .csv_pos = 2,
	 .text_cell = events_text},
	{"by_component", GL_COL_U64, V(s.by_component), 0, 0, NULL, 0, 0, NULL, 0, .csv_pos = 3,
	 .json_of = components_json, .csv_rows = components_csv},
	{"by_level", GL_COL_U64, V(s.by_level), 0, 3, "Levels", 8, 0, NULL, 0, .csv_pos = 4,
	 .json_of = levels_json, .text_cell = levels_text, .csv_rows = levels_csv},
	{"first_ts", GL_COL_TS, V(s.first_ts_us), 0, 0, NULL, 0, 2, "first event", 0,
	 .csv_pos = 5},
	{"last_ts", GL_COL_TS, V(s.last_ts_us), 0, 0, NULL, 0, 3, "last event", 0, .csv_pos = 6},
	{"rejected_lines", GL_COL_U64, V(s.rejected_lines), 0, 0, NULL, 0, 5,
	 "rejected lines (database)", 0, .csv_pos = 7},
	{"files", GL_COL_U64, V(s.files), 0, 4, "Database", 9, 6, "files (database)", 0,
	 .csv_pos = 8, .text_cell = database_text},
	{"duplicates", GL_COL_U64, V(s.duplicates), 0, 0, NULL, 0, 4,
	 "mirrored records (counted once)", 0, .csv_pos = 9},
	{"launch_copies", GL_COL_U64, V(s.launch_copies), 0, 0, NULL, 0, 0, NULL, 0,
	 .csv_pos = 10},
	{"kernels_total", GL_COL_U64, V(kernels_total), 0, 0, NULL, 0, 0, NULL, 0},
	{"scopes_total", GL_COL_U64, V(scopes_total), 0, 0, NULL, 0, 0, NULL, 0, .csv_pos = 11},
	{"series_total", GL_COL_U64, V(series_total), 0, 0, NULL, 0, 0, NULL, 0, .csv_pos = 12},
	{"series_listed", GL_COL_U64, V(series_listed), 0, 0, NULL, 0, 0, NULL, 0,
	 .csv_pos = 13},
	{"trends_total", GL_COL_U64, V(trends_total), 0, 0, NULL, 0, 0, NULL, 0, .csv_pos = 14},
	{"trends_listed", GL_COL_U64, V(trends_listed), 0, 0, NULL, 0, 0, NULL, 0,
	 .csv_pos = 15},
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]), sizeof(struct view)};

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	struct view v = view_of(rep, st);

	return gl_record_json(&table, &v);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	struct view v = view_of(rep, st);

	fputs("key,name,value", fp);
	gl_csv_eol(fp);
	gl_record_csv(&table, &v, NULL, 0, fp);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	struct view v = view_of(rep, st);

	gl_record_text(&table, &v, fp);
	if (v.s.events == 0)
		fprintf(fp, "\nNo events in this window.\n");
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	struct view v = view_of(rep, st);
	const struct gl_report_summary *s = &v.s;

	if (s->events == 0)
		fputs("<p><b>No events in this window.</b></p>\n", f);
	gl_record_html(&table, &v, f);
	gl_record_html_across(&level_table, s->by_level, f);
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
