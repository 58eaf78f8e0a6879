/*
 * emit_html.c - index.html: the page someone opens the morning after the
 * cron run. In: the report model and the charts the sections drew into
 * out->dir. Out: one self-contained HTML file (inline CSS, PNGs as base64
 * data: URIs, no script, nothing fetched).
 *
 * It leads with the verdict: the status (all clear, N warnings, N critical)
 * with the alerts themselves, the window and the data's own span, and a few
 * key figures; then one <section> per entry of the section table
 * (section.h), its charts next to its table. A navigation bar stays at the
 * top; narrow screens stack chart under table; print drops the bar.
 *
 * Every string that comes from the logs (kernel, component and host names,
 * messages) goes through gl_html_text, so a kernel named "<script>" is shown
 * as text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "emit_util.h"
#include "report.h"
#include "sec_alerts.h"
#include "sec_errors.h"
#include "sec_memory.h"
#include "sec_summary.h"
#include "section.h"
#include "sec_trends.h"
#include "status.h"
#include "util/timeutil.h"


static const char style[] =
	"*{box-sizing:border-box}"
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;color:#111;"
	"background:#fff;line-height:1.35}"
	"main{max-width:1800px;margin:0 auto;padding:0 1em 2em}"
	"nav{position:sticky;top:0;z-index:1;background:#1f2933;padding:.45em 1em;"
	"display:flex;flex-wrap:wrap;gap:.3em 1.1em;align-items:center}"
	"nav a{color:#e4e7eb;text-decoration:none;font-size:.92em}nav a:hover{text-decoration:underline}"
	"nav b{color:#fff;margin-right:.6em}"
	"h1{font-size:1.5em;margin:.7em 0 .2em}h2{border-bottom:1px solid #ccc;"
	"padding-bottom:.2em;margin-top:1.6em}"
	/* a section or chart jumped to starts below the sticky nav, which wraps
	 * to two lines (3.8em) from about 700 to 1500 px wide (one, 2.25em, on
	 * a phone: below); with 2.6em a heading was hidden under it */
	"section,h2,figure{scroll-margin-top:4.3em}"
	".status{border-radius:6px;padding:.8em 1.1em;margin:.8em 0;border:1px solid}"
	".status.ok{background:#e8f5e9;border-color:#7cb342}"
	".status.warn{background:#fff8e1;border-color:#f0a500}"
	".status.crit{background:#fdecea;border-color:#c62828}"
	".status.nodata{background:#eceff1;border-color:#546e7a}"
	".status h2{border:0;margin:0 0 .3em;font-size:1.35em}.status ul{margin:.3em 0 0 1.2em;padding:0}"
	".figs{display:flex;flex-wrap:wrap;gap:.6em;margin:.8em 0}"
	".fig{border:1px solid #ddd;border-radius:6px;padding:.5em .8em;min-width:11em;flex:1 1 11em}"
	".fig .v{font-size:1.35em;font-weight:bold;overflow-wrap:anywhere}.fig .l{color:#555;font-size:.85em}"
	".row{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}"
	".row>.tbl{flex:1 1 auto;min-width:0;max-width:100%;overflow-x:auto}"
	".row>.charts{flex:1 1 30em;min-width:0;display:flex;flex-wrap:wrap;gap:0 1em;align-items:flex-start}"
	".charts>figure{flex:1 1 30em;max-width:48em;min-width:0}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.9em;display:block;max-width:100%;"
	"overflow-x:auto}"
	"th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{background:#f3f3f3}th.grp{background:#e6edf3}td.k{min-width:9em;white-space:nowrap;"
	"font-family:'DejaVu Sans Mono',monospace;font-size:.9em}"
	".critical{color:#a00;font-weight:bold}.warning{color:#b35c00;font-weight:bold}"
	".muted{color:#666}figure{margin:.6em 0}img{max-width:100%;height:auto;"
	"border:1px solid #eee}"
	"figure>a{display:block}"
	"@media (max-width:700px){main{padding:0 .5em}table{font-size:.8em}"
	"figure>a{overflow-x:auto}figure>a>img{width:900px;max-width:none}"
	"nav{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap}"
	"section,h2,figure{scroll-margin-top:2.6em}"
	".row>.tbl,.row>.charts{flex-basis:100%}}"
	"@media print{nav{display:none}body{font-size:10pt}section{break-inside:auto}"
	"figure,.status,.figs{break-inside:avoid}.row{display:block}a{color:inherit}}\n";

static void nav(FILE *f, const struct gl_section_list *l)
{
	fputs("<nav><b>gpulog</b><a href=\"#status\">Status</a>", f);
	for (size_t i = 0; i < l->n; i++) {
		fprintf(f, "<a href=\"#%s\">", l->items[i]->name);
		gl_html_text(f, l->items[i]->name);
		fputs("</a>", f);
	}
	fputs("</nav>\n", f);
}

/* One key figure: value (already escaped HTML) and its label. */
static void fig_begin(FILE *f)
{
	fputs("<div class=\"fig\"><div class=\"v\">", f);
}

static void fig_end(FILE *f, const char *label)
{
	fprintf(f, "</div><div class=\"l\">%s</div></div>\n", label);
}

static void verdict(FILE *f, const struct gl_report *rep)
{
	size_t n[3] = {0, 0, 0};
	char w[96], d1[40], d2[40], span[40];

	for (size_t i = 0; i < gl_alerts_result(rep)->n_alerts; i++)
		n[gl_alerts_result(rep)->alerts[i].severity]++;
	enum gl_status status = gl_status_of(rep);
	static const char *const cls_of[] = {"nodata", "ok", "warn", "crit"};
	const char *cls = cls_of[status];

	gl_chart_window_text(rep->window.since_us, rep->window.until_us, w, sizeof(w));
	fprintf(f, "<h1>gpulog report</h1>\n<p>Window <b>%s</b> (%s)", w,
		gl_text_duration(rep->window.days * 86400.0, span, sizeof(span)));
	if (rep->window.data_first_ts_us != GL_TS_NONE)
		fprintf(f, "; data from <b>%s</b> to <b>%s</b> (%s)",
			gl_text_ts(rep->window.data_first_ts_us, d1),
			gl_text_ts(rep->window.data_last_ts_us, d2),
			gl_text_duration((double)(rep->window.data_last_ts_us -
						  rep->window.data_first_ts_us) / GL_US_PER_S,
					 span, sizeof(span)));
	else
		fputs("; <b>no events in this window</b>", f);
	fputs(".</p>\n", f);
	if (rep->window.retained_since_us != GL_TS_NONE &&
	    rep->window.since_us < rep->window.retained_since_us)
		fprintf(f, "<p class=\"note\">The window starts before the retained data: rows"
			" before <b>%s</b> were deleted (<code>--keep-days</code>).</p>\n",
			gl_text_ts(rep->window.retained_since_us, d1));
	fprintf(f, "<div id=\"status\" class=\"status %s\" data-status=\"%s\"><h2>", cls,
		gl_status_name(status));
	if (status == GL_STATUS_NO_DATA)
		fputs("No data: nothing was logged in this window", f);
	else if (!n[GL_SEVERITY_CRITICAL] && !n[GL_SEVERITY_WARNING])
		fputs("All clear", f);
	else if (n[GL_SEVERITY_CRITICAL] && n[GL_SEVERITY_WARNING])
		fprintf(f, "%zu critical, %zu warning%s", n[GL_SEVERITY_CRITICAL],
			n[GL_SEVERITY_WARNING], n[GL_SEVERITY_WARNING] > 1 ? "s" : "");
	else if (n[GL_SEVERITY_CRITICAL])
		fprintf(f, "%zu critical", n[GL_SEVERITY_CRITICAL]);
	else
		fprintf(f, "%zu warning%s", n[GL_SEVERITY_WARNING],
			n[GL_SEVERITY_WARNING] > 1 ? "s" : "");
	if (n[GL_SEVERITY_INFO])
		fprintf(f, " <span class=\"muted\">(%zu info)</span>", n[GL_SEVERITY_INFO]);
	fputs("</h2>\n", f);
	if (gl_alerts_result(rep)->n_alerts) {
		fputs("<ul>\n", f);
		for (size_t i = 0; i < gl_alerts_result(rep)->n_alerts && i < 12; i++) {
			const char *sev = gl_severity_name(gl_alerts_result(rep)->alerts[i].severity);

			fprintf(f, "<li><span class=\"%s\">%s</span> ", sev, sev);
			gl_html_text(f, gl_alerts_result(rep)->alerts[i].message);
			if (gl_alerts_result(rep)->alerts[i].count > 1)
				fprintf(f, " <span class=\"muted\">(%llu times)</span>",
					(unsigned long long)gl_alerts_result(rep)->alerts[i].count);
			fputs("</li>\n", f);
		}
		if (gl_alerts_result(rep)->n_alerts > 12)
			fprintf(f, "<li><a href=\"#alerts\">%zu more</a></li>\n", gl_alerts_result(rep)->n_alerts - 12);
		fputs("</ul>\n", f);
	} else if (status == GL_STATUS_NO_DATA) {
		fputs("<p>The window holds no event, no metric sample and no RMM row: the service"
		      " may have stopped logging, or the ingest failed. This is not an all clear."
		      "</p>\n", f);
	} else {
		fputs("<p>No alert rule fired.</p>\n", f);
	}
	fputs("</div>\n<div class=\"figs\">\n", f);

	fig_begin(f);
	fprintf(f, "%llu", (unsigned long long)gl_summary_result(rep)->events);
	fig_end(f, "events");
	fig_begin(f);
	fprintf(f, "%llu", (unsigned long long)gl_errors_result(rep)->errors);
	fig_end(f, "errors (ERROR and CRITICAL)");
	fig_begin(f);
	gl_html_num(f, gl_errors_result(rep)->per_hour, GL_HTML_G3);
	fig_end(f, "errors per hour of the data");
	/* the kernel whose duration grows fastest, among the degrading ones */
	const struct gl_report_trend *worst = NULL;
	for (size_t i = 0; i < gl_trends_n(rep); i++) {
		const struct gl_report_trend *t = gl_trends_at(rep, i);

		if (t->series == GL_TREND_KERNEL && t->verdict == GL_VERDICT_DEGRADING &&
		    isfinite(t->change_pct) && (!worst || t->change_pct > worst->change_pct))
			worst = t;
	}
	fig_begin(f);
	if (worst) {
		gl_html_text(f, gl_trend_name(worst));
		fputs(" ", f);
		gl_html_num(f, worst->change_pct, GL_HTML_PCT);
		fputs("%", f);
	} else {
		fputs("none", f);
	}
	fig_end(f, "slowest-growing kernel");
	fig_begin(f);
	gl_html_num(f, gl_memory_result(rep)->peak_mib, GL_HTML_F1);
	fprintf(f, " MiB, %s", gl_verdict_name(gl_memory_result(rep)->verdict));
	fig_end(f, "memory in use: peak and trend");
	if (gl_memory_result(rep)->rmm.events) {
		fig_begin(f);
		char b[40];

		fputs(gl_text_bytes((double)gl_memory_result(rep)->rmm.leaked_bytes, b, sizeof(b)), f);
		fig_end(f, "RMM bytes still allocated at the end");
	}
	fputs("</div>\n", f);
}

/* Writes the file at path as base64 (RFC 4648); returns 0, or -1 if unreadable. */
static int base64_file(FILE *f, const char *path)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	FILE *in = fopen(path, "rb");
	unsigned char b[3 * 1024];
	char o[4 * 1024];
	size_t n;

	if (!in)
		return -1;
	/* Reads whole multiples of 3 bytes, so '=' padding only ends the file. */
	while ((n = fread(b, 1, sizeof(b), in)) > 0) {
		size_t w = 0;

		for (size_t i = 0; i < n; i += 3) {
			unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) |
				     (i + 2 < n ? b[i + 2] : 0);

			o[w++] = tab[v >> 18 & 63];
			o[w++] = tab[v >> 12 & 63];
			o[w++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
			o[w++] = i + 2 < n ? tab[v & 63] : '=';
		}
		fwrite(o, 1, w, f);
		if (n < sizeof(b))
			break;
	}
	int bad = ferror(in);

	fclose(in);
	return bad ? -1 : 0;
}

/* The charts of section s found in out->dir, inlined. Returns how many. */
static int section_charts(FILE *f, const struct gl_section *s, const struct gl_output *out)
{
	char path[4096];
	int n = 0;

	for (const struct gl_chart_def *c = s->charts; c && c->file; c++) {
		FILE *probe;

		snprintf(path, sizeof(path), "%s/%s", out->dir, c->file);
		if (!(probe = fopen(path, "rb")))
			continue;
		fclose(probe);
		if (n++ == 0)
			fputs("<div class=\"charts\">\n", f);
		/* the id is the file's stem; "chart-" before it when that is the section's
		 * own id (scopes.png in <section id="scopes">) */
		int stem = (int)(strlen(c->file) - 4);
		bool clash = (size_t)stem == strlen(s->name) && !strncmp(c->file, s->name, (size_t)stem);

		/* the image links to its full-size PNG beside index.html */
		fprintf(f, "<figure id=\"%s%.*s\"><a href=\"%s\"><img alt=\"%s\" width=\"1600\" "
			"src=\"data:image/png;base64,", clash ? "chart-" : "", stem, c->file, c->file,
			c->alt ? c->alt : c->file);
		base64_file(f, path);
		fprintf(f, "\"></a><figcaption class=\"muted\"><a href=\"%s\">%s</a>"
			"</figcaption></figure>\n", c->file, c->file);
	}
	if (n)
		fputs("</div>\n", f);
	return n;
}

int gl_emit_html(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	const struct gl_section_list *l = gl_report_sections(rep);
	char *tmp = NULL, w[96];
	FILE *f;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "the HTML index needs an output directory");
	f = gl_output_open(out, GL_HTML_INDEX, &tmp, err);
	if (!f)
		return err ? err->code : GL_EIO;
	gl_chart_window_text(rep->window.since_us, rep->window.until_us, w, sizeof(w));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
	fprintf(f, "<title>gpulog report %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", w,
		style);
	nav(f, l);
	fputs("<main>\n", f);
	verdict(f, rep);
	int charts = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct gl_section *s = l->items[i];

		fprintf(f, "<section id=\"%s\">\n<h2>", s->name);
		gl_html_text(f, s->title);
		fputs("</h2>\n<div class=\"row\">\n<div class=\"tbl\">\n", f);
		if (s->emit_html)
			s->emit_html(rep, gl_report_section_state(rep, i), f);
		fputs("</div>\n", f);
		charts += section_charts(f, s, out);
		fputs("</div>\n</section>\n", f);
	}
	if (!charts)
		fputs("<p class=\"muted\">No charts were written (--no-charts).</p>\n", f);
	fputs("<p class=\"muted\">Written by ", f);
	gl_html_text(f, rep->generator ? rep->generator : "gpulog-report");
	fputs(" ", f);
	gl_html_text(f, rep->version ? rep->version : GL_VERSION);
	fputs(".</p>\n</main>\n</body>\n</html>\n", f);
	return gl_output_commit(out, GL_HTML_INDEX, f, &tmp, !ferror(f), err);
}
