/*
 * gpulog-report - statistics over a time window of a gpulog database,
 * written as JSON, CSV or text, with PNG charts and an HTML index.
 * argv -> options -> gl_report_run() -> exit status (0 ok, 1 error,
 * 2 usage error or bad configuration, 3 alert threshold with --fail-on).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpulog.h"
#include "util/timeutil.h"

#define PROG "gpulog-report"
#define MAX_GLOBS 64
#define MAX_DAYS 36525	/* a hundred years */

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: " PROG " [OPTIONS]\n"
		"Statistics over a time window of the events gpulog-ingest stored: per-kernel\n"
		"timings and percentiles, trends, anomalies, memory and RMM leaks, errors,\n"
		"alerts, and the change against the preceding window. Written as JSON, CSV\n"
		"or text, with PNG charts and an index.html.\n"
		"\n"
		"Options:\n"
		"  --db FILE             database (default: $" GL_DB_ENV ", else ./" GL_DEFAULT_DB ")\n"
		"  --clickhouse URL      read the ClickHouse server gpulog-ship fills instead\n"
		"                        (http://HOST:8123/[?database=NAME]), every node\n"
		"  --days N              window length in days (default 1)\n"
		"  --until TIME          window end (default now); TIME is RFC 3339 (seconds\n"
		"                        optional), YYYY-MM-DD (UTC), now, today, yesterday\n"
		"                        or -N with s, m, h, d or w before now: -2h, -7d\n"
		"  --since TIME          window start; the window is [since, until)\n"
		"  --component GLOB      only these components (repeatable)\n"
		"  --kernel GLOB         only these kernels (repeatable)\n"
		"  --metric GLOB         only these metrics, e.g. 'gpu.*' (repeatable)\n"
		"  --host GLOB           only events of these --host labels (repeatable)\n"
		"  --format FMT          json, csv or text: write only that (json and csv\n"
		"                        into a directory, text to stdout) and print the\n"
		"                        paths written. Default: the report directory (JSON,\n"
		"                        charts, index.html) and the text summary on stdout\n"
		"  --output-dir DIR      write the files into DIR (default:\n"
		"                        gpulog-reports/YYYY-MM-DD/, the window's end date,\n"
		"                        with gpulog-reports/index.html listing past reports\n"
		"                        and gpulog-reports/latest)\n"
		"  --config FILE         alert rules and thresholds (default: the installed\n"
		"                        gpulog.conf.json)\n"
		"  --top N               list at most N anomalies, messages, leaks (default 20)\n"
		"  --top-series N        list at most N metric series and their trends, the\n"
		"                        most relevant first (default 500; totals always)\n"
		"  --fail-on LEVEL       exit 3 when an alert of LEVEL (warning or critical)\n"
		"                        or worse fires, or when the window holds no data\n"
		"  --no-charts           no PNG charts and no index.html\n"
		"  --no-findings         leave the findings section out (make bench times\n"
		"                        the report with and without it)\n"
		"  --chart-top N         kernels drawn in the charts, 1 to 12 (default 8)\n"
		"  --events              also write the window's events (filters applied) as\n"
		"                        events.ndjson (--format json) or events.csv\n"
		"  -q, --quiet           print nothing but errors\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version and exit\n"
		"\n"
		"Exit status: 0 ok (an empty window too, without --fail-on); 1 error (e.g.\n"
		"unreadable database); 2 usage error or bad --config; 3 with --fail-on: an\n"
		"alert at its level fired, or the window holds no data (summary.status\n"
		"no_data). See gpulog-report(1).\n");
}

/* A usage error is one line and a pointer to --help, not the whole help. */
static void try_help(void)
{
	fputs("Try '" PROG " --help' for more information.\n", stderr);
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	try_help();
	return 2;
}

static int parse_count(const char *s, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= 1 && *v <= max ? 0 : -1;
}

/* The installed default config, else the one of the source tree next to build/bin. */
static const char *default_config(char *buf, size_t n)
{
	char exe[PATH_MAX];
	ssize_t k;

	snprintf(buf, n, "%s/gpulog.conf.json", GL_DATADIR);
	if (access(buf, R_OK) == 0)
		return buf;
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, n, "%s/../../share/gpulog.conf.json", exe);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return NULL;
}

/* " 'a' 'b'" into buf */
static const char *globs_text(const char *const *g, size_t n, char *buf, size_t size)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k + 1 < size; i++) {
		int w = snprintf(buf + k, size - k, " '%s'", g[i]);

		if (w < 0)
			break;
		k += (size_t)w < size - k ? (size_t)w : size - k - 1;
	}
	return buf;
}

/* What the window turned out to hold, when it may surprise. */
static void notes(const struct gl_report_opts *o, const struct gl_report_result *res)
{
	char buf[1024];

	if (res->events == 0 && res->samples == 0)
		fprintf(stderr, PROG ": note: no events and no metric samples in the window\n");
	else if (res->events == 0)
		fprintf(stderr, PROG ": note: no events in the window (metric samples only)\n");
	if (o->nkernels && res->kernels == 0)
		fprintf(stderr, PROG ": note: no kernel in the window matches --kernel%s\n",
			globs_text(o->kernels, o->nkernels, buf, sizeof(buf)));
	if (o->nmetrics && res->metrics == 0)
		fprintf(stderr, PROG ": note: no metric in the window matches --metric%s\n",
			globs_text(o->metrics, o->nmetrics, buf, sizeof(buf)));
}

static int add_glob(const char **list, size_t *n, const char *g)
{
	if (*n >= MAX_GLOBS)
		return -1;
	list[(*n)++] = g;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"clickhouse", required_argument, NULL, 'K'},
		{"days", required_argument, NULL, 'n'},
		{"until", required_argument, NULL, 'u'},
		{"since", required_argument, NULL, 's'},
		{"component", required_argument, NULL, 'c'},
		{"kernel", required_argument, NULL, 'k'},
		{"metric", required_argument, NULL, 'm'},
		{"host", required_argument, NULL, 'H'},
		{"format", required_argument, NULL, 'f'},
		{"output-dir", required_argument, NULL, 'o'},
		{"config", required_argument, NULL, 'C'},
		{"top", required_argument, NULL, 't'},
		{"top-series", required_argument, NULL, 'S'},
		{"fail-on", required_argument, NULL, 'F'},
		{"no-charts", no_argument, NULL, 'N'},
		{"no-findings", no_argument, NULL, 'I'},
		{"chart-top", required_argument, NULL, 'T'},
		{"events", no_argument, NULL, 'E'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	const char *components[MAX_GLOBS], *kernels[MAX_GLOBS], *hosts[MAX_GLOBS],
		*metrics[MAX_GLOBS];
	struct gl_report_opts o = {.components = components, .kernels = kernels,
				   .hosts = hosts, .metrics = metrics, .top = 20};
	struct gl_report_result res;
	struct gl_err err;
	const char *since = NULL, *until = NULL;
	long days = 1, top;
	int have_days = 0, fail_on = -1, quiet = 0, explicit_format = 0, c, rc;
	int64_t now_us = gl_time_now_us();
	char cfgbuf[PATH_MAX + 32], msg[2048];

	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.db_path = optarg; break;
		case 'K': o.clickhouse_url = optarg; break;
		case 'n':
			if (parse_count(optarg, MAX_DAYS, &days) != 0)
				return bad_usage("--days needs a whole number of days from 1 to %d, not '%s'",
						 MAX_DAYS, optarg);
			have_days = 1;
			break;
		case 'u': until = optarg; break;
		case 's': since = optarg; break;
		case 'c':
			if (add_glob(components, &o.ncomponents, optarg) != 0)
				return bad_usage("too many --component patterns at '%s'", optarg);
			break;
		case 'k':
			if (add_glob(kernels, &o.nkernels, optarg) != 0)
				return bad_usage("too many --kernel patterns at '%s'", optarg);
			break;
		case 'm':
			if (add_glob(metrics, &o.nmetrics, optarg) != 0)
				return bad_usage("too many --metric patterns at '%s'", optarg);
			break;
		case 'H':
			if (add_glob(hosts, &o.nhosts, optarg) != 0)
				return bad_usage("too many --host patterns at '%s'", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "csv") && strcmp(optarg, "text"))
				return bad_usage("--format must be json, csv or text, not '%s'", optarg);
			o.format = optarg;
			explicit_format = 1;
			break;
		case 'o': o.output_dir = optarg; break;
		case 'C': o.config_path = optarg; break;
		case 't':
			if (parse_count(optarg, 1000000, &top) != 0)
				return bad_usage("--top needs a number from 1 to 1000000, not '%s'", optarg);
			o.top = (size_t)top;
			break;
		case 'S':
			if (parse_count(optarg, 100000000, &top) != 0)
				return bad_usage("--top-series needs a number from 1 to 100000000, not '%s'",
						 optarg);
			o.top_series = (size_t)top;
			break;
		case 'F':
			if (!strcmp(optarg, "warning"))
				fail_on = 1;
			else if (!strcmp(optarg, "critical"))
				fail_on = 2;
			else
				return bad_usage("--fail-on must be warning or critical, not '%s'", optarg);
			break;
		case 'N': o.no_charts = 1; break;
		case 'I': o.no_findings = 1; break;
		case 'E': o.events = 1; break;
		case 'T':
			if (parse_count(optarg, 12, &top) != 0)
				return bad_usage("--chart-top needs a number from 1 to 12, not '%s'", optarg);
			o.chart_top = (size_t)top;
			break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf(PROG " %s\n", GL_VERSION); return 0;
		default: try_help(); return 2;	/* getopt said what was wrong */
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (since && until && have_days)
		return bad_usage("%s", "give at most two of --since, --until and --days");
	if (until && gl_time_parse_when(until, now_us, &o.until_us) != 0)
		return bad_usage("--until: not a time (RFC 3339, YYYY-MM-DD, yesterday, -2h, ...): '%s'",
				 until);
	if (since && gl_time_parse_when(since, now_us, &o.since_us) != 0)
		return bad_usage("--since: not a time (RFC 3339, YYYY-MM-DD, yesterday, -2h, ...): '%s'",
				 since);
	if (since && !until)
		o.until_us = have_days ? o.since_us + days * GL_US_PER_DAY : now_us;
	else if (!until)
		o.until_us = now_us;
	if (!since)
		o.since_us = o.until_us - days * GL_US_PER_DAY;
	if (o.since_us >= o.until_us)
		return bad_usage("%s", "the window is empty: --since must be before --until");
	/*
	 * Nothing is stored before 1970: a window reaching further back (a
	 * hundred years of history, --days 36525) starts there.
	 */
	if (o.since_us < 0 && o.until_us > 0) {
		o.since_us = 0;
		if (since && !quiet)
			fprintf(stderr, PROG ": note: the window starts at 1970-01-01 "
				"(nothing earlier is stored)\n");
	}
	if (o.clickhouse_url && o.db_path)
		return bad_usage("%s", "give --db or --clickhouse, not both");
	if (o.clickhouse_url && o.events)
		return bad_usage("%s", "--events reads a database file: not with --clickhouse");
	/* for tests: a small window read from ClickHouse in slices of this many rows */
	if (getenv("GPULOG_REPORT_TEST_SLICE_ROWS"))
		o.clickhouse_slice_rows = strtoull(getenv("GPULOG_REPORT_TEST_SLICE_ROWS"), NULL, 10);
	/* for tests: the kernel pass read again from the database, a few kernels at a time */
	if (getenv("GPULOG_REPORT_TEST_KERNEL_CACHE"))
		o.kernel_cache_max = strtoull(getenv("GPULOG_REPORT_TEST_KERNEL_CACHE"), NULL, 10);
	if (!o.db_path)
		o.db_path = getenv(GL_DB_ENV) && *getenv(GL_DB_ENV) ? getenv(GL_DB_ENV) : GL_DEFAULT_DB;
	/* The same on a terminal and in a pipe: the directory and the text summary. */
	if (!o.format) {
		o.format = "json";
		if (!quiet)
			o.summary_fp = stdout;
	}
	if (o.events && !strcmp(o.format, "text") && !o.output_dir)
		return bad_usage("%s", "--events writes a file: with --format text give --output-dir");
	if (!o.config_path)
		o.config_path = default_config(cfgbuf, sizeof(cfgbuf));
	o.fp = stdout;

	gl_err_clear(&err);
	rc = gl_report_run(&o, &res, &err);
	if (rc != GL_OK) {
		fprintf(stderr, PROG ": %s\n", gl_err_format(&err, msg, sizeof(msg)));
		gl_report_result_release(&res);
		return rc == GL_EUSAGE || rc == GL_ECONFIG ? 2 : 1;
	}
	if (!quiet)
		notes(&o, &res);
	if (explicit_format && !quiet)
		for (size_t i = 0; i < res.n_paths; i++)
			printf("%s\n", res.paths[i]);
	if (!explicit_format && !quiet && res.index_path)
		printf("\nThe full report: %s\n", res.index_path);
	/* A report that cannot be written is an error (> /dev/full included). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write to standard output: %s\n", strerror(errno));
		gl_report_result_release(&res);
		return 1;
	}
	rc = 0;
	/* An empty window fails too: no data is not "all clear". */
	if (fail_on == 1 && res.status >= 2)
		rc = 3;
	if (fail_on == 2 && res.status == 3)
		rc = 3;
	if (fail_on > 0 && res.status == 0)
		rc = 3;
	gl_report_result_release(&res);
	return rc;
}
