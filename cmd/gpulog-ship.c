/*
 * gpulog-ship - argv -> options -> gl_ship_run() -> exit status. Sends what
 * a node's gpulog database holds and a ClickHouse server does not yet,
 * exactly once (see gpulog-ship(1)).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpulog.h"

#define PROG "gpulog-ship"

enum { EXIT_ERROR = 1, EXIT_USAGE = 2, EXIT_UNAVAIL = 3 };

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: " PROG " --to URL [OPTIONS]\n"
		"Send the rows of a gpulog database that a ClickHouse server does not hold\n"
		"yet (events, metric samples, spans, memory events, rejects, runs), in\n"
		"gzip batches over HTTP, each exactly once. Run it after gpulog-ingest.\n"
		"\n"
		"Options:\n"
		"  --db FILE           database (default: $" GL_DB_ENV ", else ./" GL_DEFAULT_DB ")\n"
		"  --to URL            ClickHouse HTTP interface: http://HOST:8123/, with\n"
		"                      ?database=NAME for a database other than default\n"
		"  --node NAME         this database's name on the server (default: the\n"
		"                      host name); one name per database, never two\n"
		"  --keep-days N       drop the server's day partitions older than N days\n"
		"  --batch-rows N      rows per INSERT, 1 to 1048576 (default 100000)\n"
		"  --retries N         tries again N times while the server is down or\n"
		"                      answers 5xx, waiting 1, 2, 4 ... s (default 5)\n"
		"  --retry-wait-ms MS  the first wait (default 1000)\n"
		"  -q, --quiet         no summary line\n"
		"  -h, --help          show this help and exit\n"
		"  -V, --version       show the version and exit\n"
		"\n"
		"Exit status: 0 shipped (or nothing new); 1 error (database, or the server\n"
		"refused a request); 2 usage; 3 the server stayed unreachable (nothing is\n"
		"lost: run again later). See gpulog-ship(1).\n");
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, PROG ": %s '%s'\n", what, arg);
	usage(stderr);
	return EXIT_USAGE;
}

static int parse_num(const char *s, long long lo, long long hi, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

/*
 * GPULOG_SHIP_TEST_KILL=PHASE:N (tests only): SIGKILL this process right
 * after the Nth batch reached PHASE (0: its rows are stored, 1: its mark).
 */
static int kill_phase = -1;
static long kill_at;

static void on_batch(void *arg, const char *table, int phase, uint64_t rows)
{
	static long seen;

	(void)arg, (void)table, (void)rows;
	if (phase == kill_phase && ++seen == kill_at)
		raise(SIGKILL);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"to", required_argument, NULL, 't'},
		{"node", required_argument, NULL, 'n'},
		{"keep-days", required_argument, NULL, 'k'},
		{"batch-rows", required_argument, NULL, 'b'},
		{"retries", required_argument, NULL, 'r'},
		{"retry-wait-ms", required_argument, NULL, 'w'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct gl_ship_opts o = {.retries = 5, .retry_wait_ms = 1000};
	struct gl_ship_stats st;
	struct gl_err err;
	char host[256], msg[2048];
	const char *kill_env;
	long long v;
	int c, quiet = 0, rc;

	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.db_path = optarg; break;
		case 't': o.url = optarg; break;
		case 'n': o.node = optarg; break;
		case 'k':
			if (parse_num(optarg, 1, GL_KEEP_DAYS_MAX, &v) != 0)
				return bad_usage("--keep-days needs a whole number of days from 1, not", optarg);
			o.keep_days = v;
			break;
		case 'b':
			if (parse_num(optarg, 1, 1048576, &v) != 0)
				return bad_usage("--batch-rows needs a number from 1 to 1048576, not", optarg);
			o.batch_rows = (size_t)v;
			break;
		case 'r':
			if (parse_num(optarg, 0, 100, &v) != 0)
				return bad_usage("--retries needs a number from 0 to 100, not", optarg);
			o.retries = (int)v;
			break;
		case 'w':
			if (parse_num(optarg, 1, 600000, &v) != 0)
				return bad_usage("--retry-wait-ms needs a number from 1 to 600000, not", optarg);
			o.retry_wait_ms = (long)v;
			break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf(PROG " %s\n", GL_VERSION); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument", argv[optind]);
	if (!o.url) {
		fprintf(stderr, PROG ": --to URL is required\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!o.db_path)
		o.db_path = getenv(GL_DB_ENV) && *getenv(GL_DB_ENV) ? getenv(GL_DB_ENV) : GL_DEFAULT_DB;
	if (!o.node) {
		if (gethostname(host, sizeof(host)) != 0 || !host[0]) {
			fprintf(stderr, PROG ": cannot tell the host name: give --node\n");
			return EXIT_USAGE;
		}
		host[sizeof(host) - 1] = '\0';
		o.node = host;
	}
	if ((kill_env = getenv("GPULOG_SHIP_TEST_KILL")) &&
	    sscanf(kill_env, "%d:%ld", &kill_phase, &kill_at) == 2) {
		o.on_batch = on_batch;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	o.now_us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;

	gl_err_clear(&err);
	rc = gl_ship_run(&o, &st, &err);
	if (rc != GL_OK) {
		fprintf(stderr, PROG ": %s\n", gl_err_format(&err, msg, sizeof(msg)));
		if (rc == GL_EUNAVAIL)
			fprintf(stderr, PROG ": gave up after %u tries; what was shipped is marked,"
				" the next run sends the rest\n", st.tries_failed + 1);
		return rc == GL_EUSAGE ? EXIT_USAGE : rc == GL_EUNAVAIL ? EXIT_UNAVAIL : EXIT_ERROR;
	}
	if (!quiet)
		printf(PROG ": %llu rows in %llu batches (%llu bytes gzip)%s%s%s\n",
		       (unsigned long long)st.rows, (unsigned long long)st.batches,
		       (unsigned long long)st.bytes_gzip,
		       st.recovered ? ", a batch stored but not marked was marked" : "",
		       st.resent ? ", a batch found half stored was deleted and sent again" : "",
		       st.held_back ? ", rows after an open record wait for the next run" : "");
	if (!quiet && st.tries_failed)
		printf(PROG ": %u requests failed and were tried again\n", st.tries_failed);
	if (!quiet && st.partitions_dropped)
		printf(PROG ": %llu day partitions older than %lld days dropped\n",
		       (unsigned long long)st.partitions_dropped, (long long)o.keep_days);
	return 0;
}
