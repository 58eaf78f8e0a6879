/*
 * gpulog-report - statistics over a time window of a gpulog database,
 * written as JSON, CSV or text, with PNG charts and an HTML index.
 * argv -> options -> gl_report_run() -> exit status (0 ok, 1 error,
 * 2 usage, 3 alert threshold with --fail-on).
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
		"  --days N              window length in days (default 1)\n"
		"  --until TIME          window end (default now); TIME is RFC 3339 or\n"
		"                        YYYY-MM-DD, UTC\n"
		"  --since TIME          window start; the window is [since, until)\n"
		"  --component GLOB      only these components (repeatable)\n"
		"  --kernel GLOB         only these kernels (repeatable)\n"
		"  --metric GLOB         only these metrics, e.g. 'gpu.*' (repeatable)\n"
		"  --host GLOB           only events of these --host labels (repeatable)\n"
		"  --format FMT          json, csv or text (default: text on a terminal,\n"
		"                        else json)\n"
		"  --output-dir DIR      write the files into DIR (default for json and csv:\n"
		"                        gpulog-reports/YYYY-MM-DD/, the window's end date)\n"
		"  --config FILE         alert rules and thresholds (default: the installed\n"
		"                        gpulog.conf.json)\n"
		"  --top N               list at most N anomalies, messages, leaks (default 20)\n"
		"  --top-series N        list at most N metric series and their trends, the\n"
		"                        most relevant first (default 500; totals always)\n"
		"  --fail-on LEVEL       exit 3 when an alert of LEVEL (warning or critical)\n"
		"                        or worse fires\n"
		"  --no-charts           no PNG charts and no index.html\n"
		"  --chart-top N         kernels drawn in the charts, 1 to 12 (default 8)\n"
		"  --events              also write the window's events (filters applied) as\n"
		"                        events.ndjson (--format json) or events.csv\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version and exit\n"
		"\n"
		"Exit status: 0 ok (an empty window too); 1 error (e.g. unreadable database);\n"
		"2 usage error; 3 an alert at --fail-on's level fired. See gpulog-report(1).\n");
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
	usage(stderr);
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
		{"chart-top", required_argument, NULL, 'T'},
		{"events", no_argument, NULL, 'E'},
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
	int have_days = 0, fail_on = -1, c, rc;
	char cfgbuf[PATH_MAX + 32], msg[2048];

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.db_path = optarg; break;
		case 'n':
			if (parse_count(optarg, 36500, &days) != 0)
				return bad_usage("--days needs a whole number of days from 1 to 36500, not '%s'", optarg);
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
		case 'E': o.events = 1; break;
		case 'T':
			if (parse_count(optarg, 12, &top) != 0)
				return bad_usage("--chart-top needs a number from 1 to 12, not '%s'", optarg);
			o.chart_top = (size_t)top;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf(PROG " %s\n", GL_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (since && until && have_days)
		return bad_usage("%s", "give at most two of --since, --until and --days");
	if (until && gl_time_parse_arg(until, &o.until_us) != 0)
		return bad_usage("--until: not an RFC 3339 time or YYYY-MM-DD: '%s'", until);
	if (since && gl_time_parse_arg(since, &o.since_us) != 0)
		return bad_usage("--since: not an RFC 3339 time or YYYY-MM-DD: '%s'", since);
	if (since && !until)
		o.until_us = have_days ? o.since_us + days * GL_US_PER_DAY : gl_time_now_us();
	else if (!until)
		o.until_us = gl_time_now_us();
	if (!since)
		o.since_us = o.until_us - days * GL_US_PER_DAY;
	if (o.since_us >= o.until_us)
		return bad_usage("%s", "the window is empty: --since must be before --until");
	if (!o.db_path)
		o.db_path = getenv(GL_DB_ENV) && *getenv(GL_DB_ENV) ? getenv(GL_DB_ENV) : GL_DEFAULT_DB;
	if (!o.format)
		o.format = isatty(STDOUT_FILENO) ? "text" : "json";
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
		return rc == GL_EUSAGE ? 2 : 1;
	}
	if (res.events == 0 && res.samples == 0)
		fprintf(stderr, PROG ": note: no events and no metric samples in the window\n");
	else if (res.events == 0)
		fprintf(stderr, PROG ": note: no events in the window (metric samples only)\n");
	for (size_t i = 0; i < res.n_paths; i++)
		printf("%s\n", res.paths[i]);
	/* A report that cannot be written is an error (> /dev/full included). */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write to standard output: %s\n", strerror(errno));
		gl_report_result_release(&res);
		return 1;
	}
	rc = 0;
	if (fail_on == 1 && res.alerts[1] + res.alerts[2] > 0)
		rc = 3;
	if (fail_on == 2 && res.alerts[2] > 0)
		rc = 3;
	gl_report_result_release(&res);
	return rc;
}
