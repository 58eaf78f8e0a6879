/*
 * gpulog-ingest - argv -> options -> gl_ingest_run() -> exit status.
 * Everything the user sees is printed here: progress, notices, summary.
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

#define PROG "gpulog-ingest"

enum { EXIT_READ = 1, EXIT_USAGE = 2 };

struct ui {
	int quiet;
	int tty;
	int progress_shown;
};

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: " PROG " [OPTIONS] PATH...\n"
		"Store every new line of the logs under PATH (files or directories, walked\n"
		"recursively; plain or gzip) in an SQLite database. Run it again and again:\n"
		"each run adds exactly what is new, across rotation, renames and gzip.\n"
		"\n"
		"Options:\n"
		"  --db FILE         database (default: $" GL_DB_ENV ", else ./" GL_DEFAULT_DB ")\n"
		"  --format NAME     read every input as format NAME (default: detect per file)\n"
		"  --list-formats    list the known formats and exit\n"
		"  --host NAME       label stored with every event of this run\n"
		"  --timezone ZONE   zone of timestamps written without one (IANA name or UTC;\n"
		"                    default UTC)\n"
		"  --config FILE     ingest config (JSON): per-file format, columns, time zone,\n"
		"                    host, skip, start + interval_s; see gpulog-ingest(1)\n"
		"  --keep-days N     after the run, delete rows more than N days older than\n"
		"                    the run's start, and give the space back\n"
		"  --no-wait         if another ingest holds the database, fail instead of waiting\n"
		"  --in-place        write a new database in place, journaled, as later runs\n"
		"                    do (slower; a killed first run keeps what it stored)\n"
		"  --max-rejects N   store at most N rejected lines per file and run; count\n"
		"                    the rest (default 10000)\n"
		"  -q, --quiet       print only errors\n"
		"  -h, --help        show this help and exit\n"
		"  -V, --version     show the version and exit\n"
		"\n"
		"Exit status: 0 all inputs read (rejected lines are data, not failure);\n"
		"1 some input could not be read (the others were stored); 2 usage error, bad\n"
		"config or unusable database; 130 / 143 stopped by SIGINT / SIGTERM (what was\n"
		"stored is kept, the next run reads on). See gpulog-ingest(1).\n");
}

/* A usage error is one line and a pointer to --help, not the whole help. */
static void try_help(void)
{
	fputs("Try '" PROG " --help' for more information.\n", stderr);
}

/* The signal that asked the run to stop (SIGINT, SIGTERM); 0: none. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
	/* A second one stops at once, as without a handler. */
	signal(sig, SIG_DFL);
}

static void catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	/* It may land on any thread: their system calls go on. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), k = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = tmp[i];
	}
	buf[k] = '\0';
	return buf;
}

/*
 * Copies s into buf (n bytes) with every byte that could steer the terminal
 * or fake a line shown as an escape: a file named "a\nb\x1b[2J.log" is
 * printed 'a\nb\x1b[2J.log'. Kept as they are: printable ASCII and valid
 * UTF-8 other than the C1 controls. A backslash is doubled, so the printed
 * name reads back unambiguously.
 */
static const char *escaped(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0;

	while (*p && k + 5 < n) {
		unsigned char c = *p;
		size_t len = 0;

		if (c >= 0xC2 && c <= 0xDF)
			len = 2;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4;
		for (size_t i = 1; i < len; i++)
			if ((p[i] & 0xC0) != 0x80)
				len = 0;
		if (len == 2 && c == 0xC2 && p[1] < 0xA0)
			len = 0;	/* U+0080..U+009F: C1 controls (0x9b is CSI) */
		if (len) {
			if (k + len >= n)
				break;
			memcpy(buf + k, p, len);
			k += len;
			p += len;
			continue;
		}
		if (c == '\\') {
			buf[k++] = '\\';
			buf[k++] = '\\';
		} else if (c == '\n' || c == '\r' || c == '\t') {
			buf[k++] = '\\';
			buf[k++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20 || c >= 0x7f) {
			k += (size_t)snprintf(buf + k, n - k, "\\x%02x", c);
		} else {
			buf[k++] = (char)c;
		}
		p++;
	}
	buf[k] = '\0';
	return buf;
}

static void clear_progress(struct ui *u)
{
	if (u->progress_shown) {
		fputs("\r\033[K", stderr);
		u->progress_shown = 0;
	}
}

static void on_progress(void *arg, const struct gl_ingest_stats *st)
{
	struct ui *u = arg;
	char a[32], b[32];
	double pct = st->bytes_total ? 100.0 * (double)st->bytes_done / (double)st->bytes_total : 100;

	if (u->quiet || !u->tty)
		return;
	fprintf(stderr, "\r\033[K" PROG ": %5.1f%%  files %llu/%llu  lines %s  rejected %s  %.1f s",
		pct, (unsigned long long)st->files_done, (unsigned long long)st->files_seen,
		grouped(st->lines_stored, a), grouped(st->lines_rejected, b), st->elapsed_s);
	u->progress_shown = 1;
}

static void on_notice(void *arg, const struct gl_err *e)
{
	struct ui *u = arg;
	char msg[1600], out[6400];

	/* Skipped files and waiting are information; the rest are errors. */
	if (u->quiet && (e->code == GL_OK || e->code == GL_EBUSY))
		return;
	clear_progress(u);
	fprintf(stderr, PROG ": %s\n", escaped(gl_err_format(e, msg, sizeof(msg)), out, sizeof(out)));
}

static void summary(const struct gl_ingest_stats *st)
{
	char a[32], b[32], c[32];
	double secs = st->elapsed_s > 0 ? st->elapsed_s : 1e-9;

	fprintf(stderr,
		PROG ": %llu files: %llu new, %llu unchanged, %llu rotated, %llu grown, "
		"%llu skipped, %llu failed, %llu damaged\n",
		(unsigned long long)st->files_seen, (unsigned long long)st->files_new,
		(unsigned long long)st->files_unchanged, (unsigned long long)st->files_rotated,
		(unsigned long long)st->files_grown, (unsigned long long)st->files_skipped,
		(unsigned long long)st->files_failed, (unsigned long long)st->files_damaged);
	if (st->files_reread)
		fprintf(stderr, PROG ": %llu files read again: every line rejected before, "
			"read otherwise now\n", (unsigned long long)st->files_reread);
	fprintf(stderr,
		PROG ": %s lines stored, %s rejected, %s continuation lines; "
		"%.2f s, %.0f lines/s, %.1f MB/s\n",
		grouped(st->lines_stored, a), grouped(st->lines_rejected, b),
		grouped(st->lines_continued, c), st->elapsed_s, (double)st->lines_read / secs,
		(double)st->bytes_uncompressed / 1e6 / secs);
	if (st->lines_rejected_unstored)
		fprintf(stderr,
			PROG ": %s rejected lines counted, not stored: %llu files over --max-rejects\n",
			grouped(st->lines_rejected_unstored, a),
			(unsigned long long)st->files_rejects_capped);
	fprintf(stderr, PROG ": %s metric samples stored; %s events marked as duplicates\n",
		grouped(st->samples_stored, a), grouped(st->events_duplicate, b));
	if (st->spans_stored)
		fprintf(stderr, PROG ": %s profiler spans stored\n", grouped(st->spans_stored, a));
	if (st->pruned_before_us) {
		time_t secs_utc = (time_t)(st->pruned_before_us / 1000000);
		struct tm tm;
		char t[32] = "?";

		if (gmtime_r(&secs_utc, &tm))
			strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(stderr, PROG ": retention: %s rows older than %s deleted\n",
			grouped(st->rows_pruned, a), t);
	}
}

/*
 * GPULOG_INGEST_TEST_KILL_MERGE=N (tests only): SIGKILL this process right
 * after the Nth transaction of the run's-end merge of staged samples.
 */
static long merge_kill_at;

static void on_merge_commit(void *arg, unsigned n)
{
	(void)arg;
	if ((long)n == merge_kill_at)
		raise(SIGKILL);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"format", required_argument, NULL, 'f'},
		{"list-formats", no_argument, NULL, 'L'},
		{"host", required_argument, NULL, 'H'},
		{"timezone", required_argument, NULL, 'Z'},
		{"config", required_argument, NULL, 'C'},
		{"keep-days", required_argument, NULL, 'K'},
		{"no-wait", no_argument, NULL, 'W'},
		{"in-place", no_argument, NULL, 'P'},
		{"max-rejects", required_argument, NULL, 'R'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct gl_ingest_opts o;
	struct gl_ingest_stats st;
	struct gl_err err;
	struct ui u = {0, 0, 0};
	char msg[1600], out[6400];
	int c, rc;

	memset(&o, 0, sizeof(o));
	o.db_path = getenv(GL_DB_ENV) && *getenv(GL_DB_ENV) ? getenv(GL_DB_ENV) : GL_DEFAULT_DB;
	while ((c = getopt_long(argc, argv, "qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db_path = optarg;
			break;
		case 'f':
			o.format = optarg;
			break;
		case 'L': {
			char buf[4096];

			gl_format_list_text(buf, sizeof(buf));
			fputs(buf, stdout);
			return 0;
		}
		case 'H':
			o.host = optarg;
			break;
		case 'W':
			o.nowait = 1;
			break;
		case 'P':
			o.in_place = 1;
			break;
		case 'C':
			o.config_path = optarg;
			break;
		case 'K': {
			char *end;
			long long n;

			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > GL_KEEP_DAYS_MAX) {
				fprintf(stderr, PROG ": --keep-days: not a number of days from 1 to %d: '%s'\n",
					GL_KEEP_DAYS_MAX, escaped(optarg, out, sizeof(out)));
				try_help();
				return EXIT_USAGE;
			}
			o.keep_days = n;
			break;
		}
		case 'R': {
			char *end;
			unsigned long long n;

			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || n == 0) {
				fprintf(stderr, PROG ": --max-rejects: not a number of at least 1: '%s'\n",
					escaped(optarg, out, sizeof(out)));
				try_help();
				return EXIT_USAGE;
			}
			o.max_rejects = n;
			break;
		}
		case 'Z':
			if (!gl_zone_known(optarg)) {
				fprintf(stderr, PROG ": unknown time zone '%s' (not in /usr/share/zoneinfo)\n",
					escaped(optarg, out, sizeof(out)));
				try_help();
				return EXIT_USAGE;
			}
			o.tz_name = optarg;
			break;
		case 'q':
			u.quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s\n", GL_VERSION);
			return 0;
		default:
			try_help();	/* getopt said what was wrong */
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": no PATH given\n");
		try_help();
		return EXIT_USAGE;
	}
	o.paths = (const char *const *)argv + optind;
	o.npaths = (size_t)(argc - optind);
	u.tty = isatty(STDERR_FILENO);
	o.progress = on_progress;
	o.progress_arg = &u;
	o.notice = on_notice;
	o.notice_arg = &u;

	o.stop = &stop_signal;
	catch_stop();
	if (getenv("GPULOG_INGEST_TEST_KILL_MERGE") &&
	    (merge_kill_at = strtol(getenv("GPULOG_INGEST_TEST_KILL_MERGE"), NULL, 10)) > 0)
		o.merge_committed = on_merge_commit;

	rc = gl_ingest_run(&o, &st, &err);
	clear_progress(&u);
	if (rc == GL_EINTR) {
		fprintf(stderr, PROG ": %s\n",
			escaped(gl_err_format(&err, msg, sizeof(msg)), out, sizeof(out)));
		if (!u.quiet)
			summary(&st);
		return 128 + (int)stop_signal;
	}
	if (rc != GL_OK && rc != GL_EIO) {
		fprintf(stderr, PROG ": %s\n",
			escaped(gl_err_format(&err, msg, sizeof(msg)), out, sizeof(out)));
		if (rc == GL_EUSAGE)
			try_help();
		return EXIT_USAGE;
	}
	if (!u.quiet)
		summary(&st);
	return rc == GL_EIO ? EXIT_READ : 0;
}
