/*
 * history.c - after a nightly report: its verdict file, the index of past
 * reports and the "latest" link (history.h). In: the report just written
 * and the root of the dated directories. Out: root/DAY/verdict.txt,
 * root/index.html, root/latest -> DAY.
 *
 * verdict.txt is one "key<TAB>value" a line, written here and read back
 * here only, so a past report keeps its verdict whatever its own files
 * look like:
 *	status	warn
 *	verdict	2 warnings
 *	since	2025-01-01T00:00:00Z
 *	until	2025-01-02T00:00:00Z
 *	events	10000
 *	samples	0
 *	errors	12
 *	alert	rmm_leaked_bytes: 1.2 GiB allocated and never freed
 */
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit_png.h"
#include "emit_util.h"
#include "sec_alerts.h"
#include "sec_errors.h"
#include "sec_metrics.h"
#include "sec_summary.h"
#include "status.h"
#include "util/timeutil.h"

#define HISTORY_ALERTS 3	/* alerts kept per past report */

struct past {
	char day[11];		/* YYYY-MM-DD */
	char status[8];		/* ok, warn, crit, nodata; "" when no verdict.txt */
	char verdict[96];
	char since[40], until[40];
	char events[24], samples[24], errors[24];
	char alerts[HISTORY_ALERTS][256];
	size_t n_alerts;
	int has_index;		/* DAY/index.html exists */
};

static int is_day(const char *s)
{
	static const char shape[] = "dddd-dd-dd";

	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != '-')
			return 0;
	return s[sizeof(shape) - 1] == '\0';
}

/* A value on one line: control characters (tabs, newlines) become spaces. */
static void put_value(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s\t", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, f);
	fputc('\n', f);
}

static int write_verdict(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	size_t n[3] = {0, 0, 0};
	char *tmp = NULL, verdict[96], t[40];
	FILE *f = gl_output_open(out, GL_HISTORY_VERDICT, &tmp, err);

	if (!f)
		return err ? err->code : GL_EIO;
	const struct gl_alerts_result *al = gl_alerts_result(rep);

	for (size_t i = 0; i < al->n_alerts; i++)
		n[al->alerts[i].severity]++;
	/* the verdict the report's page leads with (emit_html.c, status.h) */
	if (gl_status_of(rep) == GL_STATUS_NO_DATA)
		snprintf(verdict, sizeof(verdict), "No data: nothing was logged in this window");
	else if (!n[GL_SEVERITY_CRITICAL] && !n[GL_SEVERITY_WARNING])
		snprintf(verdict, sizeof(verdict), "All clear");
	else if (n[GL_SEVERITY_CRITICAL] && n[GL_SEVERITY_WARNING])
		snprintf(verdict, sizeof(verdict), "%zu critical, %zu warning%s",
			 n[GL_SEVERITY_CRITICAL], n[GL_SEVERITY_WARNING],
			 n[GL_SEVERITY_WARNING] > 1 ? "s" : "");
	else if (n[GL_SEVERITY_CRITICAL])
		snprintf(verdict, sizeof(verdict), "%zu critical", n[GL_SEVERITY_CRITICAL]);
	else
		snprintf(verdict, sizeof(verdict), "%zu warning%s", n[GL_SEVERITY_WARNING],
			 n[GL_SEVERITY_WARNING] > 1 ? "s" : "");
	put_value(f, "status", gl_status_of(rep) == GL_STATUS_NO_DATA ? "nodata"
			       : n[GL_SEVERITY_CRITICAL]	      ? "crit"
			       : n[GL_SEVERITY_WARNING]		      ? "warn"
								      : "ok");
	put_value(f, "verdict", verdict);
	put_value(f, "since", gl_time_format(rep->window.since_us, t));
	put_value(f, "until", gl_time_format(rep->window.until_us, t));
	fprintf(f, "events\t%llu\nsamples\t%llu\nerrors\t%llu\n",
		(unsigned long long)gl_summary_result(rep)->events,
		(unsigned long long)gl_metrics_result(rep)->samples,
		(unsigned long long)gl_errors_result(rep)->errors);
	/* alerts come critical first, then warning, then info */
	for (size_t i = 0; i < al->n_alerts && i < HISTORY_ALERTS; i++)
		if (al->alerts[i].severity != GL_SEVERITY_INFO)
			put_value(f, "alert", al->alerts[i].message ? al->alerts[i].message : "");
	return gl_output_commit(out, GL_HISTORY_VERDICT, f, &tmp, !ferror(f), err);
}

static void copy_field(char *dst, size_t n, const char *v)
{
	snprintf(dst, n, "%s", v);
}

/* Reads root/day/verdict.txt into p; a missing or unreadable one leaves p's status empty. */
static void read_past(const char *root, struct past *p)
{
	char path[4200], line[1024];
	struct stat sb;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/" GL_HTML_INDEX, root, p->day);
	p->has_index = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
	snprintf(path, sizeof(path), "%s/%s/" GL_HISTORY_VERDICT, root, p->day);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t'), *v;

		if (!tab)
			continue;
		*tab = '\0';
		v = tab + 1;
		v[strcspn(v, "\n")] = '\0';
		if (!strcmp(line, "status") &&
		    (!strcmp(v, "ok") || !strcmp(v, "warn") || !strcmp(v, "crit") ||
		     !strcmp(v, "nodata")))
			copy_field(p->status, sizeof(p->status), v);
		else if (!strcmp(line, "verdict"))
			copy_field(p->verdict, sizeof(p->verdict), v);
		else if (!strcmp(line, "since"))
			copy_field(p->since, sizeof(p->since), v);
		else if (!strcmp(line, "until"))
			copy_field(p->until, sizeof(p->until), v);
		else if (!strcmp(line, "events"))
			copy_field(p->events, sizeof(p->events), v);
		else if (!strcmp(line, "samples"))
			copy_field(p->samples, sizeof(p->samples), v);
		else if (!strcmp(line, "errors"))
			copy_field(p->errors, sizeof(p->errors), v);
		else if (!strcmp(line, "alert") && p->n_alerts < HISTORY_ALERTS)
			copy_field(p->alerts[p->n_alerts++], sizeof(p->alerts[0]), v);
	}
	fclose(f);
}

static int newest_first(const void *a, const void *b)
{
	return -strcmp(((const struct past *)a)->day, ((const struct past *)b)->day);
}

/* The past reports under root, newest first, into *list (malloc'd). */
static int list_past(const char *root, struct past **list, size_t *n, struct gl_err *err)
{
	DIR *d = opendir(root);
	struct dirent *e;
	struct past *v = NULL;
	size_t cap = 0;
	int rc = GL_OK;

	*n = 0;
	if (!d)
		return gl_err_set(err, GL_EIO, root, 0, strerror(errno), "cannot read");
	while ((e = readdir(d)) != NULL) {
		char path[4200];
		struct stat sb;

		if (!is_day(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
		if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
			continue;
		if (*n == cap) {
			struct past *nv = realloc(v, (cap ? cap * 2 : 32) * sizeof(*v));

			if (!nv) {
				rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
				goto out;
			}
			v = nv;
			cap = cap ? cap * 2 : 32;
		}
		memset(&v[*n], 0, sizeof(v[*n]));
		memcpy(v[*n].day, e->d_name, 10);
		read_past(root, &v[*n]);
		(*n)++;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), newest_first);
out:
	closedir(d);
	if (rc != GL_OK) {
		free(v);
		v = NULL;
		*n = 0;
	}
	*list = v;
	return rc;
}

static const char style[] =
	"*{box-sizing:border-box}"
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:0;color:#111;"
	"background:#fff;line-height:1.35}"
	"main{max-width:1400px;margin:0 auto;padding:0 1em 2em}"
	"nav{background:#1f2933;padding:.45em 1em;color:#fff}nav a{color:#e4e7eb;margin-left:1em}"
	"h1{font-size:1.5em;margin:.7em 0 .3em}"
	".latest{border-radius:6px;padding:.8em 1.1em;margin:.8em 0;border:1px solid}"
	".latest.ok{background:#e8f5e9;border-color:#7cb342}"
	".latest.warn{background:#fff8e1;border-color:#f0a500}"
	".latest.crit{background:#fdecea;border-color:#c62828}"
	".latest.none,.latest.nodata{background:#f3f3f3;border-color:#ccc}"
	".latest h2{margin:0 0 .3em;font-size:1.3em}.latest ul{margin:.3em 0 0 1.2em;padding:0}"
	".latest li{overflow-wrap:anywhere}"
	".wrap{overflow-x:auto}table{border-collapse:collapse;margin:.6em 0;font-size:.92em;width:100%}"
	"th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}"
	"th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"td.v{white-space:nowrap;font-weight:bold}td.d{white-space:nowrap}"
	"td.v.ok{background:#e8f5e9}td.v.warn{background:#fff8e1}td.v.crit{background:#fdecea}"
	"td.v.none,td.v.nodata{background:#f3f3f3}td.v .muted{font-weight:normal}"
	"td.a{overflow-wrap:anywhere;min-width:14em}.muted{color:#666}"
	"@media (max-width:700px){main{padding:0 .5em}table{font-size:.85em}"
	".win,.a{display:none}td.v{white-space:normal}}\n";

/* The page of day's report: its index.html, else its directory. */
static void day_href(FILE *f, const struct past *p)
{
	fprintf(f, "%s/%s", p->day, p->has_index ? GL_HTML_INDEX : "");
}

/* "2025-11-10T00:00:00Z" -> "2025-11-10"; "2025-11-10T13:06:59.8Z" -> "2025-11-10 13:06" */
static void short_time(FILE *f, const char *t)
{
	char buf[40];

	if (strlen(t) < 16 || t[10] != 'T') {
		gl_html_text(f, t);
		return;
	}
	snprintf(buf, sizeof(buf), "%.10s", t);
	if (strncmp(t + 10, "T00:00:00Z", 10) != 0)
		snprintf(buf + 10, sizeof(buf) - 10, " %.5s", t + 11);
	gl_html_text(f, buf);
}

static void window_cell(FILE *f, const struct past *p)
{
	if (p->since[0] && p->until[0]) {
		short_time(f, p->since);
		fputs(" &ndash; ", f);
		short_time(f, p->until);
	} else {
		fputs("<span class=\"muted\">&ndash;</span>", f);
	}
}

static int write_index(const char *root, const struct past *v, size_t n, struct gl_output *out,
		       struct gl_err *err)
{
	char *tmp = NULL;
	FILE *f = gl_output_open(out, GL_HTML_INDEX, &tmp, err);

	if (!f)
		return err ? err->code : GL_EIO;
	(void)root;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>gpulog reports</title>\n<style>\n", f);
	fputs(style, f);
	fputs("</style>\n</head>\n<body>\n<nav><b>gpulog</b>", f);
	if (n)
		fputs("<a href=\"" GL_HISTORY_LATEST "/" GL_HTML_INDEX "\">latest report</a>", f);
	fputs("</nav>\n<main>\n<h1>gpulog reports</h1>\n", f);
	if (n) {
		const struct past *p = &v[0];

		fprintf(f, "<div class=\"latest %s\"><h2>Latest, <a href=\"",
			p->status[0] ? p->status : "none");
		day_href(f, p);
		fprintf(f, "\">%s</a>: ", p->day);
		gl_html_text(f, p->verdict[0] ? p->verdict : "no verdict recorded");
		fputs("</h2>\n", f);
		if (p->n_alerts) {
			fputs("<ul>\n", f);
			for (size_t i = 0; i < p->n_alerts; i++) {
				fputs("<li>", f);
				gl_html_text(f, p->alerts[i]);
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
		}
		fputs("</div>\n", f);
	}
	fprintf(f, "<p class=\"muted\">%zu report%s, newest first.</p>\n", n, n == 1 ? "" : "s");
	fputs("<div class=\"wrap\"><table>\n<tr><th>date</th><th>verdict</th>"
	      "<th class=\"win\">window (UTC)</th><th>events</th><th>errors</th>"
	      "<th class=\"a\">alerts</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct past *p = &v[i];

		fputs("<tr><td class=\"d\"><a href=\"", f);
		day_href(f, p);
		fprintf(f, "\">%s</a></td><td class=\"v %s\">", p->day,
			p->status[0] ? p->status : "none");
		gl_html_text(f, p->verdict[0] ? p->verdict : "no verdict recorded");
		/* "All clear" of a window that held nothing is no news (a verdict
		 * written before the status no data) */
		if (!strcmp(p->status, "ok") && !strcmp(p->events, "0") && !strcmp(p->samples, "0"))
			fputs(" <span class=\"muted\">(no data)</span>", f);
		fputs("</td><td class=\"win d\">", f);
		window_cell(f, p);
		fputs("</td><td class=\"n\">", f);
		gl_html_text(f, p->events[0] ? p->events : "-");
		fputs("</td><td class=\"n\">", f);
		gl_html_text(f, p->errors[0] ? p->errors : "-");
		fputs("</td><td class=\"a\">", f);
		for (size_t k = 0; k < p->n_alerts; k++) {
			if (k)
				fputs("<br>", f);
			gl_html_text(f, p->alerts[k]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n<p class=\"muted\">Written by gpulog-report ", f);
	gl_html_text(f, GL_VERSION);
	fputs(".</p>\n</main>\n</body>\n</html>\n", f);
	return gl_output_commit(out, GL_HTML_INDEX, f, &tmp, !ferror(f), err);
}

/* root/latest -> day, replaced in one rename. */
static int point_latest(const char *root, const char *day, struct gl_err *err)
{
	char tmp[4200], link[4200];
	int rc = GL_OK;

	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld", root, GL_HISTORY_LATEST, (long)getpid());
	snprintf(link, sizeof(link), "%s/%s", root, GL_HISTORY_LATEST);
	unlink(tmp);
	if (symlink(day, tmp) != 0)
		return gl_err_set(err, GL_EIO, tmp, 0, strerror(errno), "cannot create the link");
	if (rename(tmp, link) != 0) {
		rc = gl_err_set(err, GL_EIO, link, 0, strerror(errno), "cannot replace");
		unlink(tmp);
	}
	return rc;
}

int gl_history_update(const char *root, const struct gl_report *rep, struct gl_output *out,
		      struct gl_err *err)
{
	struct gl_output top = {.dir = root};
	struct past *v = NULL;
	size_t n = 0;
	int rc;

	if (strlen(root) > 4000)
		return gl_err_set(err, GL_EUSAGE, root, 0, NULL, "output path too long");
	if ((rc = write_verdict(rep, out, err)) != GL_OK)
		goto out;
	if ((rc = list_past(root, &v, &n, err)) != GL_OK)
		goto out;
	if ((rc = write_index(root, v, n, &top, err)) != GL_OK)
		goto out;
	if (n)
		rc = point_latest(root, v[0].day, err);
	for (size_t i = 0; rc == GL_OK && i < top.n_paths; i++) {
		char **paths = realloc(out->paths, (out->n_paths + 1) * sizeof(*paths));

		if (!paths) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			break;
		}
		out->paths = paths;
		out->paths[out->n_paths++] = top.paths[i];
		top.paths[i] = NULL;
	}
out:
	gl_output_release(&top);
	free(v);
	return rc;
}
