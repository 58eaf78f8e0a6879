/*
 * gpulog.h - the public interface of libgpulog, the library behind
 * gpulog-ingest and gpulog-report.
 *
 * Conventions (see ../shared/STYLE.md):
 *  - functions return GL_OK (0) or a negative enum gl_code and fill the
 *    struct gl_err passed as their last argument;
 *  - the library never prints and never exits: only cmd/ does;
 *  - pointer arguments are borrowed for the duration of the call unless a
 *    comment says otherwise.
 */
#ifndef GPULOG_H
#define GPULOG_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define GL_VERSION "0.1.0"

/* Default database when neither --db nor $GPULOG_DB is given. */
#define GL_DEFAULT_DB "gpulog.db"
#define GL_DB_ENV "GPULOG_DB"

enum gl_code {
	GL_OK = 0,
	GL_ENOMEM = -1,		/* out of memory */
	GL_EIO = -2,		/* a file could not be opened, read or written */
	GL_EFORMAT = -3,	/* input is damaged or not in the expected format */
	GL_EDB = -4,		/* SQLite reported an error */
	GL_ENOTGPULOG = -5,	/* --db names a file that is not a gpulog database */
	GL_EBUSY = -6,		/* another process holds the database */
	GL_EUSAGE = -7,		/* bad argument or option value */
	GL_ECONFIG = -8,	/* configuration file malformed */
	GL_ENEWER = -9,		/* database written by a newer gpulog */
	GL_EINTR = -10,		/* stopped on request (a signal); what was stored is kept */
	GL_EUNAVAIL = -11,	/* a server could not be reached or answered 5xx (try again later) */
};

/*
 * What failed and where. Filled by the function that fails; code is the
 * same value the function returns. msg says what failed ("cannot open"),
 * path and line say where (empty / 0 when not applicable), cause is the
 * underlying reason ("Permission denied", SQLite's message, ...).
 */
struct gl_err {
	int code;
	uint64_t line;
	char path[1024];
	char msg[256];
	char cause[256];
};

/* Clears err (code GL_OK, empty strings). err may be NULL. */
void gl_err_clear(struct gl_err *err);

/*
 * Records an error and returns code, so that a caller can write
 * `return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open");`.
 * path and cause may be NULL. err may be NULL (then only code is returned).
 */
int gl_err_set(struct gl_err *err, int code, const char *path, uint64_t line,
	       const char *cause, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Formats err as one line for a user: "cannot open 'logs/gpu.log': Permission
 * denied" or "bad value at 'x.conf' line 3: ...". Writes at most n bytes
 * including the NUL; returns buf.
 */
char *gl_err_format(const struct gl_err *err, char *buf, size_t n);

/* Severity of a log record. The numeric order is the order of severity. */
enum gl_level {
	GL_LEVEL_NONE = 0,	/* the record carries no level */
	GL_LEVEL_TRACE = 1,
	GL_LEVEL_DEBUG = 2,
	GL_LEVEL_INFO = 3,
	GL_LEVEL_WARN = 4,
	GL_LEVEL_ERROR = 5,
	GL_LEVEL_CRITICAL = 6,
};

/*
 * Parses a level name in any case: trace, debug, info, warn, warning, error,
 * err, critical, crit, fatal. Returns GL_LEVEL_NONE when unknown.
 */
enum gl_level gl_level_parse(const char *s, size_t len);

/* "TRACE" ... "CRITICAL", or "" for GL_LEVEL_NONE. Static storage. */
const char *gl_level_name(enum gl_level level);

/* ---------------------------------------------------------------------
 * gpulog-ingest
 * ------------------------------------------------------------------- */

struct gl_ingest_stats {
	uint64_t files_seen;		/* regular files found under the paths */
	uint64_t files_new;		/* files whose content was not seen before */
	uint64_t files_unchanged;	/* identical to what was read last time */
	uint64_t files_rotated;		/* renamed/moved/compressed copies of known content */
	uint64_t files_grown;		/* known files with new lines appended */
	/*
	 * files whose every line was rejected in an earlier run, nothing
	 * stored, read again from the start because the config or options
	 * say otherwise now (their old rejects are dropped)
	 */
	uint64_t files_reread;
	uint64_t files_skipped;		/* in no known format (named via notice) */
	uint64_t files_failed;		/* could not be read (named via notice) */
	uint64_t files_damaged;		/* damaged (truncated/corrupt gzip): lines before it kept */
	uint64_t files_done;		/* files finished so far (progress) */
	uint64_t bytes_total;		/* raw bytes of all files to read (progress) */
	uint64_t bytes_done;		/* raw bytes read so far (progress) */
	uint64_t lines_read;		/* new lines read */
	uint64_t lines_stored;		/* events + memory events stored */
	uint64_t lines_rejected;	/* malformed lines (stored and counted only) */
	uint64_t lines_rejected_unstored; /* of those, past max_rejects: counted, not stored */
	uint64_t files_rejects_capped;	/* files that reached max_rejects in this run */
	uint64_t samples_stored;	/* metric samples stored */
	uint64_t spans_stored;		/* profiler trace spans (scopes) stored */
	uint64_t events_duplicate;	/* events stored marked as duplicates (events.dup_of) */
	uint64_t lines_continued;	/* continuation lines appended to a record */
	uint64_t bytes_uncompressed;	/* decompressed bytes of new content */
	uint64_t rows_pruned;		/* rows deleted by keep_days (all tables) */
	int64_t pruned_before_us;	/* keep_days' horizon (UTC µs); 0: no pruning */
	double elapsed_s;
};

#define GL_MAX_REJECTS_DEFAULT 10000
#define GL_KEEP_DAYS_MAX 1000000	/* keep_days above this is refused (µs would overflow far later) */

struct gl_ingest_opts {
	const char *db_path;		/* database file */
	const char *const *paths;	/* files or directories, walked recursively */
	size_t npaths;
	const char *format;		/* force this format for all inputs; NULL: detect */
	const char *host;		/* label stored with every event; NULL: none */
	const char *tz_name;		/* zone of naive timestamps (IANA name); NULL: UTC */
	/*
	 * Ingest config (JSON, see gpulog-ingest(1) CONFIGURATION); NULL: none.
	 * It is read and checked before the database is opened: a bad one is
	 * GL_ECONFIG and nothing is written. Its "timezone", "max_rejects" and
	 * "keep_days" apply where the fields here are unset (NULL / 0).
	 */
	const char *config_path;
	/*
	 * After the run, delete events, memory events, samples, spans and
	 * rejects whose time is more than keep_days days before the run's
	 * start (see gpulog-ingest(1) RETENTION). 0: keep everything.
	 */
	int64_t keep_days;
	int nowait;			/* database busy: fail with GL_EBUSY instead of waiting */
	/*
	 * A new database is written in place, journaled, like every later run
	 * (a killed run keeps what it stored) instead of built aside and moved
	 * into place at the end (faster; see gpulog-ingest(1) DATABASE).
	 */
	int in_place;
	/*
	 * When *stop becomes nonzero (a signal handler sets it), the run stops
	 * storing, keeps what it stored (a new database is moved into place)
	 * and returns GL_EINTR. NULL: never.
	 */
	const volatile sig_atomic_t *stop;
	/* Rejected lines stored per file and run; the file's further ones are
	 * only counted. 0: GL_MAX_REJECTS_DEFAULT. */
	uint64_t max_rejects;
	/*
	 * Called from the calling thread about every 100 ms and once at the
	 * end, for progress display; may be NULL.
	 */
	void (*progress)(void *arg, const struct gl_ingest_stats *st);
	void *progress_arg;
	/*
	 * Called once per input problem (unreadable path, damaged gzip, file
	 * skipped as of no known format), in the calling thread; may be NULL.
	 * The problem is also counted in the stats.
	 */
	void (*notice)(void *arg, const struct gl_err *problem);
	void *notice_arg;
	/*
	 * Called after each transaction the run's-end merge of staged samples
	 * commits (its passes, the stage rows' removal, ...), with its count
	 * so far; may be NULL. For tests that kill a run there.
	 */
	void (*merge_committed)(void *arg, unsigned n);
	void *merge_arg;
};

/*
 * Runs one ingest: discovers the files under opts->paths, stores every line
 * not yet stored, and fills st. Returns GL_OK when every input was read
 * (rejected lines are data, not failure); GL_EIO when some input could not
 * be read (the others still are; see st->files_failed); another negative
 * code, with err filled, when the database cannot be used at all.
 */
int gl_ingest_run(const struct gl_ingest_opts *opts, struct gl_ingest_stats *st,
		  struct gl_err *err);

/*
 * 1 when zone is "UTC" or an IANA zone name the system knows (a file under
 * /usr/share/zoneinfo), else 0. For --timezone and the ingest config.
 */
int gl_zone_known(const char *zone);

/* Writes one line per known format, "name<TAB>summary", into buf (NUL-terminated). */
void gl_format_list_text(char *buf, size_t n);

/* ---------------------------------------------------------------------
 * gpulog-report (owned by the report engineer; see reports/report.h)
 * ------------------------------------------------------------------- */

struct gl_report_opts {
	const char *db_path;		/* database, opened read-only */
	const char *clickhouse_url;	/* set: read the server gpulog-ship fills, not db_path */
	uint64_t clickhouse_slice_rows;	/* for tests: gl_query_ch_slice_rows; 0: its default */
	size_t kernel_cache_max;	/* for tests: kernel timings held in memory; 0: default */
	int64_t since_us;		/* window [since_us, until_us), µs UTC */
	int64_t until_us;
	const char *const *components;	/* glob patterns, any may match; n 0: all */
	size_t ncomponents;
	const char *const *kernels;	/* glob patterns for the kernel sections */
	size_t nkernels;
	const char *const *hosts;	/* glob patterns */
	size_t nhosts;
	const char *const *metrics;	/* glob patterns on metric names (metrics section) */
	size_t nmetrics;
	const char *format;		/* "json", "csv" or "text" */
	const char *output_dir;		/* write files here; NULL: see reports_root */
	/*
	 * Without output_dir, json and csv go to reports_root/YYYY-MM-DD (the
	 * window's end date, UTC; created), and text goes to fp.
	 */
	const char *reports_root;	/* NULL: "gpulog-reports" */
	void *fp;			/* FILE * for text without output_dir */
	const char *config_path;	/* JSON config; NULL: built-in defaults */
	size_t top;			/* cap on listed items; 0: 20 */
	size_t top_series;		/* cap on listed metric series and their trends; 0: 500 */
	/*
	 * Charts (six PNGs and index.html) go into the same directory as the
	 * json/csv files: the output directory, or the dated one. Text to fp
	 * (no output_dir) writes no files, so no charts.
	 */
	int no_charts;			/* 1: no PNG and no index.html */
	size_t chart_top;		/* kernels charted; 0: 8; at most 12 */
	/* 1: leave the findings section out (make bench times the report without it) */
	int no_findings;
	/*
	 * 1: also write the window's events (filters applied, mirrored records
	 * left out) as events.ndjson (format json) or events.csv (csv, text)
	 * into the output directory; needs a directory (not text to fp).
	 */
	int events;
	/*
	 * Not NULL: also write the text summary to this FILE * after the
	 * files (the default of gpulog-report: the directory and the text).
	 */
	void *summary_fp;
};

struct gl_report_result {
	uint64_t events;		/* events in the window */
	uint64_t samples;		/* metric samples in the window (after --metric, --host) */
	size_t alerts[3];		/* fired alerts by severity: info, warning, critical */
	size_t kernels;			/* kernels with timings in the window (after --kernel) */
	size_t metrics;			/* metric series in the window (after --metric) */
	/*
	 * The HTML page to open (owned; NULL when none was written). In the
	 * dated layout (no output_dir) reports_root also gets index.html, a
	 * list of the past reports with their verdicts, and "latest", a link
	 * to the newest report's directory (reports/history.h).
	 */
	char *index_path;
	/*
	 * The report's status (summary.status): 0 no_data (an empty window), 1 ok,
	 * 2 warning, 3 critical.
	 */
	int status;
	char **paths;			/* files written, owned; NULL when none */
	size_t n_paths;
};

/*
 * Builds the report described by opts and writes it. Returns GL_OK (an
 * empty window is a valid report: res->events is 0), else a negative code
 * with err filled (GL_EUSAGE, GL_ECONFIG, GL_ENOTGPULOG, GL_EIO, ...).
 * Call gl_report_result_release(res) in both cases.
 */
int gl_report_run(const struct gl_report_opts *opts, struct gl_report_result *res,
		  struct gl_err *err);

void gl_report_result_release(struct gl_report_result *res);

/* ---------------------------------------------------------------------
 * gpulog-ship (lib/ship/ship.h has the details: tables, batches, marks)
 * ------------------------------------------------------------------- */

struct gl_ship_opts {
	const char *db_path;		/* the node's database, read only */
	const char *url;		/* ClickHouse HTTP: http://host:8123/[?database=NAME] */
	const char *node;		/* this database's name on the server (unique per node) */
	int64_t keep_days;		/* > 0: drop the server's day partitions older than this */
	int64_t now_us;			/* the time keep_days counts from (UTC µs) */
	size_t batch_rows;		/* rows per INSERT at most; 0: 100,000 */
	int retries;			/* tries after the first failed one; < 0: 0 */
	long retry_wait_ms;		/* first wait; doubled per try, at most 60 s; 0: 1,000 */
	long timeout_s;			/* per request; 0: 300 */
	/*
	 * Called after each step of a batch: phase 0 the rows are stored on the
	 * server, 1 its mark is stored. NULL: none. A progress line, or a test
	 * that kills the process exactly between the two.
	 */
	void (*on_batch)(void *arg, const char *table, int phase, uint64_t rows);
	void *arg;
};

struct gl_ship_stats {
	uint64_t rows;			/* rows stored on the server by this run */
	uint64_t batches;
	uint64_t recovered;		/* batches found stored but not marked: marked, not resent */
	uint64_t resent;		/* batches found half stored: deleted and sent again */
	uint64_t held_back;		/* tables whose rows after an open record wait */
	uint64_t partitions_dropped;	/* keep_days */
	uint64_t bytes_gzip;		/* compressed bytes sent */
	unsigned tries_failed;		/* requests that failed and were tried again */
};

/*
 * Sends what the database holds and the server has not yet (events,
 * samples, spans, memory events, rejects, runs), creating the tables on
 * first use. Exactly once: see lib/ship/ship.h. GL_OK; GL_EUNAVAIL when the
 * server stays unreachable (what was marked is kept); GL_EDB (the server
 * refused a request, or SQLite failed), GL_EIO, GL_ENOTGPULOG, GL_EUSAGE.
 */
int gl_ship_run(const struct gl_ship_opts *opts, struct gl_ship_stats *stats,
		struct gl_err *err);

#endif /* GPULOG_H */
