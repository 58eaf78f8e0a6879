/*
 * test_history.c - reports/history.c: the verdict file beside a report,
 * the index of past reports (newest first, only YYYY-MM-DD directories,
 * escaped text, a report without a verdict listed as such) and "latest".
 * Expected texts are written by hand from the report handed in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../reports/history.h"
#include "../../reports/report.h"
#include "../../reports/sec_alerts.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sections.h"
#include "util/timeutil.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_update(void **state)
{
	(void)state;
	char root[] = "/tmp/test_history.XXXXXX", day[128], path[256], link[32] = "";
	struct gl_report_alert alerts[3] = {
		{.severity = GL_SEVERITY_CRITICAL, .message = "memory: rose <b>62%</b>"},
		{.severity = GL_SEVERITY_WARNING, .message = "gpu: errors\tper 1,000\nevents 59"},
		{.severity = GL_SEVERITY_INFO, .message = "an info alert"},
	};
	struct gl_report rep;
	struct gl_output out = {0};
	struct gl_err err;
	char *text;

	assert_non_null(mkdtemp(root));
	memset(&rep, 0, sizeof(rep));
	/* a hand-made model: the figures in the sections' states */
	assert_int_equal(gl_report_model_init(&rep, &err), GL_OK);
	struct gl_alerts_result *ar = (struct gl_alerts_result *)gl_alerts_result(&rep);
	struct gl_report_summary *sr = (struct gl_report_summary *)gl_summary_result(&rep);
	struct gl_report_errors *er = (struct gl_report_errors *)gl_errors_result(&rep);

	ar->alerts = alerts;
	ar->n_alerts = 3;
	rep.window.since_us = (int64_t)gl_days_from_civil(2025, 11, 16) * GL_US_PER_DAY;
	rep.window.until_us = rep.window.since_us + GL_US_PER_DAY;
	sr->events = 1273;
	er->errors = 42;

	/* older reports: one with a verdict, one without; things that are no report */
	snprintf(path, sizeof(path), "%s/2025-11-10", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/2025-11-10/verdict.txt", root);
	put(path, "status\tok\nverdict\tAll clear\nsince\t2025-11-09T00:00:00Z\n"
		  "until\t2025-11-10T00:00:00Z\nevents\t7\nerrors\t0\n");
	snprintf(path, sizeof(path), "%s/2025-11-12", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/notes", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/2025-11-1x", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/2025-11-20", root);	/* a file, not a directory */
	put(path, "");

	snprintf(day, sizeof(day), "%s/2025-11-17", root);
	assert_int_equal(mkdir(day, 0755), 0);
	snprintf(path, sizeof(path), "%s/index.html", day);
	put(path, "<html></html>");
	out.dir = day;
	assert_int_equal(gl_history_update(root, &rep, &out, &err), GL_OK);

	/* the paths written: the verdict, then the index */
	assert_int_equal(out.n_paths, 2);
	snprintf(path, sizeof(path), "%s/verdict.txt", day);
	assert_string_equal(out.paths[0], path);
	snprintf(path, sizeof(path), "%s/index.html", root);
	assert_string_equal(out.paths[1], path);

	/* 1 critical and 1 warning; the info alert is not listed; a tab and a
	 * newline in a message become spaces */
	text = slurp(out.paths[0]);
	assert_string_equal(text, "status\tcrit\nverdict\t1 critical, 1 warning\n"
				  "since\t2025-11-16T00:00:00Z\nuntil\t2025-11-17T00:00:00Z\n"
				  "events\t1273\nsamples\t0\nerrors\t42\n"
				  "alert\tmemory: rose <b>62%</b>\n"
				  "alert\tgpu: errors per 1,000 events 59\n");
	free(text);

	/* the index: 2025-11-17, -12, -10, newest first; nothing else */
	text = slurp(out.paths[1]);
	const char *r17 = strstr(text, "<tr><td class=\"d\"><a href=\"2025-11-17/index.html\">2025-11-17</a>"
				      "</td><td class=\"v crit\">1 critical, 1 warning</td>");
	const char *r12 = strstr(text, "<tr><td class=\"d\"><a href=\"2025-11-12/\">2025-11-12</a>"
				      "</td><td class=\"v none\">no verdict recorded</td>");
	const char *r10 = strstr(text, "<tr><td class=\"d\"><a href=\"2025-11-10/\">2025-11-10</a>"
				      "</td><td class=\"v ok\">All clear</td>");

	assert_non_null(r17);
	assert_non_null(r12);
	assert_non_null(r10);
	assert_true(r17 < r12 && r12 < r10);
	assert_null(strstr(text, "notes"));
	assert_null(strstr(text, "2025-11-1x"));
	assert_null(strstr(text, "2025-11-20"));
	assert_non_null(strstr(text, "<p class=\"muted\">3 reports, newest first.</p>"));
	/* the window of the 10th as dates, its events and errors */
	assert_non_null(strstr(text, "<td class=\"win d\">2025-11-09 &ndash; 2025-11-10</td>"
				     "<td class=\"n\">7</td><td class=\"n\">0</td>"));
	/* text from the verdict file is escaped */
	assert_non_null(strstr(text, "memory: rose &lt;b&gt;62%&lt;/b&gt;"));
	assert_null(strstr(text, "<b>62%"));
	assert_non_null(strstr(text, "Latest, <a href=\"2025-11-17/index.html\">2025-11-17</a>: "
				     "1 critical, 1 warning</h2>"));
	free(text);

	snprintf(path, sizeof(path), "%s/latest", root);
	assert_int_equal(readlink(path, link, sizeof(link) - 1), 10);
	assert_string_equal(link, "2025-11-17");

	/* a report of an older window later: latest stays on the newest */
	gl_output_release(&out);
	ar->n_alerts = 0;
	snprintf(day, sizeof(day), "%s/2025-11-12", root);
	out.dir = day;
	assert_int_equal(gl_history_update(root, &rep, &out, &err), GL_OK);
	memset(link, 0, sizeof(link));
	assert_int_equal(readlink(path, link, sizeof(link) - 1), 10);
	assert_string_equal(link, "2025-11-17");
	text = slurp(out.paths[1]);
	assert_non_null(strstr(text, "<a href=\"2025-11-12/\">2025-11-12</a></td>"
				     "<td class=\"v ok\">All clear</td>"));
	/* the 10th's verdict file has no samples line: not marked */
	assert_non_null(strstr(text, "<td class=\"v ok\">All clear</td><td class=\"win d\">2025-11-09"));
	/* a window with neither events nor samples says so, as its page does
	 * (status no_data), and its verdict file says nodata */
	sr->events = 0;
	free(text);
	gl_output_release(&out);
	out.dir = day;
	assert_int_equal(gl_history_update(root, &rep, &out, &err), GL_OK);
	text = slurp(out.paths[0]);
	assert_non_null(strstr(text, "status\tnodata\nverdict\tNo data: nothing was logged in this"
				     " window\n"));
	free(text);
	text = slurp(out.paths[1]);
	assert_non_null(strstr(text, "<a href=\"2025-11-12/\">2025-11-12</a></td>"
				     "<td class=\"v nodata\">No data: nothing was logged in this window</td>"));
	free(text);
	gl_output_release(&out);

	/* a root that cannot be read: an error, named */
	out.dir = day;
	snprintf(path, sizeof(path), "%s/missing", root);
	assert_int_equal(gl_history_update(path, &rep, &out, &err), GL_EIO);
	gl_output_release(&out);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
	ar->alerts = NULL;
	ar->n_alerts = 0;
	gl_report_release(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_update),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
