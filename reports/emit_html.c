/*
 * emit_html.c - index.html: the page someone opens the morning after the
 * cron run. In: the report model and the charts emit_png.c left in
 * out->dir. Out: one self-contained HTML file (inline CSS, PNGs as base64
 * data: URIs, no script, nothing fetched). Every string that comes from
 * the logs (kernel, component and host names, messages) goes through
 * html_text, so a kernel named "<script>" is shown as text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "util/timeutil.h"

size_t gl_html_escape(const char *s, char *buf, size_t n)
{
	size_t w = 0;

	if (n == 0)
		return 0;
	for (; s && *s; s++) {
		char one[8];
		const char *rep = one;
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
				rep = "\xEF\xBF\xBD";	/* U+FFFD: controls are not text */
			else {
				one[0] = (char)c;
				one[1] = '\0';
			}
		}
		size_t l = strlen(rep);

		if (w + l >= n)
			break;
		memcpy(buf + w, rep, l);
		w += l;
	}
	buf[w] = '\0';
	return w;
}

static void html_text(FILE *f, const char *s)
{
	char buf[512];

	/* Escape in pieces; a piece never ends inside an entity. */
	while (s && *s) {
		size_t take = 0;
		char piece[96];

		while (s[take] && take < sizeof(piece) - 1)
			take++;
		memcpy(piece, s, take);
		piece[take] = '\0';
		gl_html_escape(piece, buf, sizeof(buf));
		fputs(buf, f);
		s += take;
	}
}

enum numfmt { G3, G4, SIGNED_G4, F1, F3, PCT };

/* A number, or a dash for "no value" (NAN, infinities). */
static void num(FILE *f, double v, enum numfmt k)
{
	if (!isfinite(v)) {
		fputs("&ndash;", f);
		return;
	}
	switch (k) {
	case G3: fprintf(f, "%.3g", v); break;
	case G4: fprintf(f, "%.4g", v); break;
	case SIGNED_G4: fprintf(f, "%+.4g", v); break;
	case F1: fprintf(f, "%.1f", v); break;
	case F3: fprintf(f, "%.3f", v); break;
	default: fprintf(f, "%+.1f", v); break;
	}
}

static void when(FILE *f, int64_t ts_us)
{
	char b[40];

	if (ts_us == GL_TS_NONE) {
		fputs("&ndash;", f);
		return;
	}
	gl_time_format(ts_us, b);
	fputs(b, f);
}

static const char style[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:2em auto;"
	"max-width:1650px;padding:0 1em;color:#111;background:#fff}"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;"
	"padding-bottom:.2em;margin-top:1.8em}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.92em}"
	"th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"th{background:#f3f3f3}td.k{max-width:48em;overflow-wrap:anywhere;"
	"font-family:'DejaVu Sans Mono',monospace;font-size:.9em}"
	".critical{color:#a00;font-weight:bold}.warning{color:#b35c00;font-weight:bold}"
	".muted{color:#666}figure{margin:1em 0}img{max-width:100%;height:auto;"
	"border:1px solid #eee}nav a{margin-right:1em}\n";

static void head(FILE *f, const struct gl_report *rep)
{
	char w[96];

	gl_chart_window_text(rep->window.since_us, rep->window.until_us, w, sizeof(w));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
	fprintf(f, "<title>gpulog report %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", w,
		style);
	fprintf(f, "<h1>gpulog report</h1>\n<p>Window <b>%s</b> (%.3g days). Written by ", w,
		rep->window.days);
	html_text(f, rep->generator ? rep->generator : "gpulog-report");
	fputs(" ", f);
	html_text(f, rep->version ? rep->version : GL_VERSION);
	fputs(".</p>\n<nav><a href=\"#summary\">Summary</a><a href=\"#alerts\">Alerts</a>"
	      "<a href=\"#kernels\">Kernels</a><a href=\"#trends\">Trends</a>"
	      "<a href=\"#memory\">Memory</a><a href=\"#errors\">Errors</a>"
	      "<a href=\"#baseline\">Baseline</a><a href=\"#charts\">Charts</a></nav>\n", f);
}

static void counts_table(FILE *f, const char *what, const struct gl_report_count *c, size_t n)
{
	fprintf(f, "<table><tr><th>%s</th><th>events</th></tr>\n", what);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td class=\"k\">", f);
		html_text(f, c[i].name && *c[i].name ? c[i].name : "(none)");
		fprintf(f, "</td><td class=\"n\">%llu</td></tr>\n", (unsigned long long)c[i].count);
	}
	fputs("</table>\n", f);
}

static void summary(FILE *f, const struct gl_report *rep)
{
	const struct gl_report_summary *s = &rep->summary;

	fputs("<h2 id=\"summary\">Summary</h2>\n", f);
	if (s->events == 0)
		fputs("<p><b>No events in this window.</b></p>\n", f);
	fprintf(f, "<table><tr><th>events</th><td class=\"n\">%llu</td></tr>\n",
		(unsigned long long)s->events);
	fputs("<tr><th>first event</th><td>", f);
	when(f, s->first_ts_us);
	fputs("</td></tr>\n<tr><th>last event</th><td>", f);
	when(f, s->last_ts_us);
	fprintf(f, "</td></tr>\n<tr><th>rejected lines (database)</th><td class=\"n\">%llu</td></tr>"
		"\n<tr><th>files (database)</th><td class=\"n\">%llu</td></tr>\n</table>\n",
		(unsigned long long)s->rejected_lines, (unsigned long long)s->files);
	fputs("<table><tr>", f);
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		fprintf(f, "<th>%s</th>", l == GL_LEVEL_NONE ? "no level" : gl_level_name(l));
	fputs("</tr>\n<tr>", f);
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		fprintf(f, "<td class=\"n\">%llu</td>", (unsigned long long)s->by_level[l]);
	fputs("</tr></table>\n", f);
	if (s->n_by_component > 0)
		counts_table(f, "component", s->by_component, s->n_by_component);
}

static void alerts(FILE *f, const struct gl_report *rep)
{
	fputs("<h2 id=\"alerts\">Alerts</h2>\n", f);
	if (rep->n_alerts == 0) {
		fputs("<p>No alert fired.</p>\n", f);
		return;
	}
	fputs("<table><tr><th>severity</th><th>rule</th><th>subject</th><th>value</th>"
	      "<th>threshold</th><th>message</th></tr>\n", f);
	for (size_t i = 0; i < rep->n_alerts; i++) {
		const struct gl_report_alert *a = &rep->alerts[i];
		const char *sev = gl_severity_name(a->severity);

		fprintf(f, "<tr><td class=\"%s\">%s</td><td>", sev, sev);
		html_text(f, a->rule);
		fputs("</td><td class=\"k\">", f);
		html_text(f, a->subject);
		fputs("</td><td class=\"n\">", f);
		num(f, a->value, G4);
		fputs("</td><td class=\"n\">", f);
		num(f, a->threshold, G4);
		fputs("</td><td>", f);
		html_text(f, a->message);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void kernels(FILE *f, const struct gl_report *rep)
{
	fputs("<h2 id=\"kernels\">Top kernels by total time</h2>\n", f);
	if (rep->n_kernels == 0) {
		fputs("<p>No kernel timings in this window.</p>\n", f);
		return;
	}
	fputs("<table><tr><th>kernel</th><th>count</th><th>mean µs</th><th>p50 µs</th>"
	      "<th>p95 µs</th><th>p99 µs</th><th>max µs</th><th>total s</th>"
	      "<th>anomalies</th><th>flagged by logs</th></tr>\n", f);
	for (size_t i = 0; i < rep->n_kernels; i++) {
		const struct gl_report_kernel *k = &rep->kernels[i];

		fputs("<tr><td class=\"k\">", f);
		html_text(f, k->kernel);
		fprintf(f, "</td><td class=\"n\">%llu</td>", (unsigned long long)k->count);
		const double v[5] = {k->mean_us, k->p50_us, k->p95_us, k->p99_us, k->max_us};

		for (int j = 0; j < 5; j++) {
			fputs("<td class=\"n\">", f);
			num(f, v[j], G4);
			fputs("</td>", f);
		}
		fputs("<td class=\"n\">", f);
		num(f, k->total_us / 1e6, G4);
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
			(unsigned long long)k->anomalies, (unsigned long long)k->flagged);
	}
	fputs("</table>\n", f);
}

static void trends(FILE *f, const struct gl_report *rep)
{
	fputs("<h2 id=\"trends\">Trends</h2>\n", f);
	if (rep->n_trends == 0) {
		fputs("<p>No trend computed (too few points).</p>\n", f);
		return;
	}
	fputs("<table><tr><th>series</th><th>kernel</th><th>points</th><th>slope per day</th>"
	      "<th>change %</th><th>r²</th><th>p</th><th>verdict</th></tr>\n", f);
	for (size_t i = 0; i < rep->n_trends; i++) {
		const struct gl_report_trend *t = &rep->trends[i];
		int loud = t->verdict == GL_VERDICT_DEGRADING || t->verdict == GL_VERDICT_LEAK;

		fprintf(f, "<tr><td>%s</td><td class=\"k\">", gl_trend_series_name(t->series));
		html_text(f, t->kernel ? t->kernel : "");
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">",
			(unsigned long long)t->n);
		num(f, t->slope_per_day, SIGNED_G4);
		fprintf(f, " %s</td><td class=\"n\">", t->unit ? t->unit : "");
		num(f, t->change_pct, PCT);
		fputs("</td><td class=\"n\">", f);
		num(f, t->r2, F3);
		fputs("</td><td class=\"n\">", f);
		num(f, t->p_value, G3);
		fprintf(f, "</td><td%s>%s</td></tr>\n", loud ? " class=\"warning\"" : "",
			gl_verdict_name(t->verdict));
	}
	fputs("</table>\n", f);
}

static void memory(FILE *f, const struct gl_report *rep)
{
	const struct gl_report_memory *m = &rep->memory;
	const struct gl_report_rmm *r = &m->rmm;

	fputs("<h2 id=\"memory\">Memory</h2>\n<table>\n", f);
	fprintf(f, "<tr><th>samples</th><td class=\"n\">%llu</td></tr>\n<tr><th>peak MiB</th>"
		"<td class=\"n\">", (unsigned long long)m->samples);
	num(f, m->peak_mib, F1);
	fputs(" at ", f);
	when(f, m->samples ? m->peak_ts_us : GL_TS_NONE);
	fputs("</td></tr>\n<tr><th>last MiB</th><td class=\"n\">", f);
	num(f, m->last_mib, F1);
	fprintf(f, "</td></tr>\n<tr><th>verdict</th><td>%s</td></tr>\n</table>\n",
		gl_verdict_name(m->verdict));
	if (r->events == 0) {
		fputs("<p>No RMM events in this window.</p>\n", f);
		return;
	}
	fprintf(f, "<table><tr><th>RMM events</th><td class=\"n\">%llu</td></tr>\n"
		"<tr><th>allocations</th><td class=\"n\">%llu</td></tr>\n"
		"<tr><th>frees</th><td class=\"n\">%llu</td></tr>\n"
		"<tr><th>allocation failures</th><td class=\"n\">%llu</td></tr>\n"
		"<tr><th>peak outstanding bytes</th><td class=\"n\">%llu</td></tr>\n"
		"<tr><th>outstanding at the end</th><td class=\"n\">%llu allocations, %llu bytes"
		"</td></tr>\n</table>\n",
		(unsigned long long)r->events, (unsigned long long)r->allocations,
		(unsigned long long)r->frees, (unsigned long long)r->allocation_failures,
		(unsigned long long)r->peak_outstanding_bytes,
		(unsigned long long)r->leaked_allocations, (unsigned long long)r->leaked_bytes);
}

static void errors(FILE *f, const struct gl_report *rep)
{
	const struct gl_report_errors *e = &rep->errors;

	fputs("<h2 id=\"errors\">Errors</h2>\n", f);
	fprintf(f, "<p>%llu errors (ERROR and CRITICAL), %llu warnings; ",
		(unsigned long long)e->errors, (unsigned long long)e->warnings);
	num(f, e->per_hour, G3);
	fputs(" errors per hour, ", f);
	num(f, e->per_1000_events, G3);
	fputs(" per 1,000 events.</p>\n", f);
	if (e->n_by_component > 0)
		counts_table(f, "component (WARN and above)", e->by_component, e->n_by_component);
	if (e->n_top_messages == 0)
		return;
	fputs("<table><tr><th>count</th><th>message shape</th><th>first</th><th>last</th>"
	      "<th>first message</th></tr>\n", f);
	for (size_t i = 0; i < e->n_top_messages; i++) {
		const struct gl_report_shape *s = &e->top_messages[i];

		fprintf(f, "<tr><td class=\"n\">%llu</td><td class=\"k\">",
			(unsigned long long)s->count);
		html_text(f, s->shape);
		fputs("</td><td>", f);
		when(f, s->first_ts_us);
		fputs("</td><td>", f);
		when(f, s->last_ts_us);
		fputs("</td><td class=\"k\">", f);
		html_text(f, s->sample);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void baseline(FILE *f, const struct gl_report *rep)
{
	const struct gl_report_baseline *b = &rep->baseline;

	fputs("<h2 id=\"baseline\">Against the previous window</h2>\n<p>Previous window ", f);
	when(f, b->since_us);
	fputs(" to ", f);
	when(f, b->until_us);
	fprintf(f, ", %llu kernel samples.</p>\n", (unsigned long long)b->samples);
	if (b->n_kernels > 0) {
		fputs("<table><tr><th>kernel</th><th>mean µs before</th><th>mean µs</th>"
		      "<th>mean change %</th><th>p95 change %</th><th>p (Welch)</th>"
		      "<th>verdict</th></tr>\n", f);
		for (size_t i = 0; i < b->n_kernels; i++) {
			const struct gl_report_baseline_kernel *k = &b->kernels[i];

			fputs("<tr><td class=\"k\">", f);
			html_text(f, k->kernel);
			fputs("</td><td class=\"n\">", f);
			num(f, k->mean_before_us, G4);
			fputs("</td><td class=\"n\">", f);
			num(f, k->mean_us, G4);
			fputs("</td><td class=\"n\">", f);
			num(f, k->mean_change_pct, PCT);
			fputs("</td><td class=\"n\">", f);
			num(f, k->p95_change_pct, PCT);
			fputs("</td><td class=\"n\">", f);
			num(f, k->p_value, G3);
			fprintf(f, "</td><td%s>%s</td></tr>\n",
				k->verdict == GL_BASELINE_REGRESSION ? " class=\"warning\"" : "",
				gl_baseline_verdict_name(k->verdict));
		}
		fputs("</table>\n", f);
	}
	const struct {
		const char *what;
		char **names;
		size_t n;
	} lists[2] = {
		{"New in this window", b->new_kernels, b->n_new_kernels},
		{"Gone since the previous window", b->vanished_kernels, b->n_vanished_kernels},
	};

	for (int l = 0; l < 2; l++) {
		if (lists[l].n == 0)
			continue;
		fprintf(f, "<p>%s:</p>\n<ul>\n", lists[l].what);
		for (size_t i = 0; i < lists[l].n; i++) {
			fputs("<li class=\"k\">", f);
			html_text(f, lists[l].names[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
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

static void charts(FILE *f, const struct gl_output *out)
{
	static const struct {
		const char *file, *alt;
	} png[6] = {
		{GL_PNG_TIMELINE, "Kernel durations of the top kernels over time"},
		{GL_PNG_DISTRIBUTION, "Histograms of kernel durations with p50 and p95"},
		{GL_PNG_MEMORY, "Memory in use over time with the fitted trend; RMM outstanding bytes"},
		{GL_PNG_ERRORS, "Errors per hour (per day for long windows) by component"},
		{GL_PNG_TRENDS, "Kernels with a degrading or improving trend"},
		{GL_PNG_BASELINE, "Change of mean and p95 against the previous window"},
	};
	char path[4096];
	int any = 0;

	fputs("<h2 id=\"charts\">Charts</h2>\n", f);
	for (int i = 0; i < 6; i++) {
		FILE *probe;

		snprintf(path, sizeof(path), "%s/%s", out->dir, png[i].file);
		probe = fopen(path, "rb");
		if (!probe)
			continue;
		fclose(probe);
		fprintf(f, "<figure id=\"%.*s\"><img alt=\"%s\" width=\"1600\" "
			"src=\"data:image/png;base64,", (int)(strlen(png[i].file) - 4), png[i].file,
			png[i].alt);
		base64_file(f, path);
		fprintf(f, "\"><figcaption class=\"muted\">%s</figcaption></figure>\n", png[i].file);
		any = 1;
	}
	if (!any)
		fputs("<p class=\"muted\">No charts were written (--no-charts).</p>\n", f);
}

int gl_emit_html(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	char *tmp = NULL;
	FILE *f;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "the HTML index needs an output directory");
	f = gl_output_open(out, GL_HTML_INDEX, &tmp, err);
	if (!f)
		return err ? err->code : GL_EIO;
	head(f, rep);
	summary(f, rep);
	alerts(f, rep);
	kernels(f, rep);
	trends(f, rep);
	memory(f, rep);
	errors(f, rep);
	baseline(f, rep);
	charts(f, out);
	fputs("</body>\n</html>\n", f);
	return gl_output_commit(out, GL_HTML_INDEX, f, &tmp, !ferror(f), err);
}
