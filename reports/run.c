/*
 * run.c - gl_report_run: opens the database, loads the configuration,
 * builds the report (the sections collecting their charts' data in the
 * same passes when charts are written) and hands it to the emitters in
 * order: the chosen data format (and the events, when asked for), then the
 * charts, then the HTML index (which shows the charts it finds); in the
 * dated layout, to the history of past reports (history.h); last, the text
 * summary when asked.
 */
#include "gpulog.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "emit_events.h"
#include "history.h"
#include "report.h"
#include "sec_alerts.h"
#include "sec_findings.h"
#include "sec_kernels.h"
#include "sec_metrics.h"
#include "sec_summary.h"
#include "status.h"
#include "sections.h"
#include "store/query.h"
#include "util/timeutil.h"

static const struct {
	const char *name;
	gl_emit_fn emit;
} emitters[] = {
	{"json", gl_emit_json},
	{"csv", gl_emit_csv},
	{"text", gl_emit_text},
};

/* mkdir -p */
static int make_dirs(const char *path, struct gl_err *err)
{
	char *p = strdup(path);
	int rc = GL_OK;

	if (!p)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			rc = gl_err_set(err, GL_EIO, p, 0, strerror(errno), "cannot create");
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

void gl_report_result_release(struct gl_report_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n_paths; i++)
		free(res->paths[i]);
	free(res->paths);
	free(res->index_path);
	memset(res, 0, sizeof(*res));
}

int gl_report_run(const struct gl_report_opts *opts, struct gl_report_result *res,
		  struct gl_err *err)
{
	struct gl_report_config cfg = {0};
	struct gl_report rep = {0};
	struct gl_query *q = NULL;
	struct gl_output out = {0};
	gl_emit_fn emit = NULL;
	char dated[1100];
	const char *root = opts->reports_root ? opts->reports_root : "gpulog-reports";
	bool charts;
	int rc;
	/* --no-findings: the default table without the findings section */
	const struct gl_section *items[64];
	struct gl_section_list without = {items, 0};

	memset(res, 0, sizeof(*res));
	if (opts->clickhouse_url && opts->events)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "--events reads a database file: not with --clickhouse");
	for (size_t i = 0; i < sizeof(emitters) / sizeof(emitters[0]); i++)
		if (opts->format && !strcmp(opts->format, emitters[i].name))
			emit = emitters[i].emit;
	if (!emit)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "unknown format '%s'",
				  opts->format ? opts->format : "");
	rc = opts->config_path ? gl_config_load(opts->config_path, &cfg, err)
			       : gl_config_defaults(&cfg, err);
	if (rc != GL_OK)
		return rc;
	out.fp = opts->fp ? opts->fp : stdout;
	out.dir = opts->output_dir;
	if (!out.dir && strcmp(opts->format, "text") != 0) {
		/* the date of the window's end (until), UTC */
		char day[40];
		gl_time_format(opts->until_us, day);
		day[10] = '\0';
		snprintf(dated, sizeof(dated), "%s/%s", root, day);
		out.dir = dated;
	}
	/* Charts land next to the files; text to a stream has no directory. */
	charts = out.dir && !opts->no_charts;
	rc = opts->clickhouse_url ? gl_query_open_clickhouse(opts->clickhouse_url, &q, err)
				  : gl_query_open(opts->db_path, &q, err);
	if (rc != GL_OK)
		goto out;
	gl_query_ch_slice_rows(q, opts->clickhouse_slice_rows);
	struct gl_report_params p = {
		.since_us = opts->since_us, .until_us = opts->until_us,
		.components = opts->components, .ncomponents = opts->ncomponents,
		.kernels = opts->kernels, .nkernels = opts->nkernels,
		.hosts = opts->hosts, .nhosts = opts->nhosts,
		.metrics = opts->metrics, .nmetrics = opts->nmetrics,
		.top = opts->top ? opts->top : 20,
		.charts = charts,
		.chart_top = opts->chart_top,
		.top_series = opts->top_series ? opts->top_series : 500,
		.kernel_cache_max = opts->kernel_cache_max,
	};
	if (opts->no_findings) {
		for (size_t i = 0; i < gl_sections.n && without.n < 64; i++)
			if (gl_sections.items[i] != &gl_sec_findings)
				items[without.n++] = gl_sections.items[i];
		p.sections = &without;
	}
	if ((rc = gl_report_build(q, &p, &cfg, &rep, err)) != GL_OK)
		goto out;
	res->events = gl_summary_result(&rep)->events;
	res->samples = gl_metrics_result(&rep)->samples;
	res->kernels = gl_kernels_result(&rep)->n_kernels_total;
	res->metrics = gl_metrics_result(&rep)->n_metrics;
	for (size_t i = 0; i < gl_alerts_result(&rep)->n_alerts; i++)
		res->alerts[gl_alerts_result(&rep)->alerts[i].severity]++;
	res->status = (int)gl_status_of(&rep);
	if (out.dir && (rc = make_dirs(out.dir, err)) != GL_OK)
		goto out;
	rc = emit(&rep, &out, err);
	if (rc == GL_OK && opts->events) {
		struct gl_events_opts eo = {
			.db_path = opts->db_path, .since_us = opts->since_us,
			.until_us = opts->until_us, .components = opts->components,
			.ncomponents = opts->ncomponents, .kernels = opts->kernels,
			.nkernels = opts->nkernels, .hosts = opts->hosts, .nhosts = opts->nhosts,
			.ndjson = !strcmp(opts->format, "json"),
		};
		uint64_t rows;

		rc = gl_emit_events(&eo, &out, &rows, err);
	}
	if (rc == GL_OK && charts)
		rc = gl_emit_png(&rep, &out, err);
	if (rc == GL_OK && charts)
		rc = gl_emit_html(&rep, &out, err);
	if (rc == GL_OK && out.dir == dated)
		rc = gl_history_update(root, &rep, &out, err);
	for (size_t i = 0; rc == GL_OK && charts && i < out.n_paths; i++) {
		const char *base = strrchr(out.paths[i], '/');

		if (base && !strcmp(base + 1, GL_HTML_INDEX) && !res->index_path &&
		    !(res->index_path = strdup(out.paths[i])))
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	if (rc == GL_OK && opts->summary_fp) {
		struct gl_output text = {.fp = opts->summary_fp};

		rc = gl_emit_text(&rep, &text, err);
	}
	res->paths = out.paths;
	res->n_paths = out.n_paths;
	out.paths = NULL;
	out.n_paths = 0;
out:
	gl_output_release(&out);
	gl_report_release(&rep);
	gl_query_close(q);
	gl_config_release(&cfg);
	return rc;
}
