/*
 * query.h - the read-only SQL of gpulog-report. Opens a gpulog database
 * read-only (refusing any other file), loads the names table, and streams
 * the rows of a time window in time order to a callback, so that a report
 * over millions of events never holds them all.
 */
#ifndef GL_QUERY_H
#define GL_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "gpulog.h"

#define GL_DB_APPLICATION_ID 1735420007
#define GL_DB_USER_VERSION 12	/* newest schema read; 1 to 12 are read */
#define GL_DB_USER_VERSION_MIN 1

struct gl_query;

/*
 * Opens path read-only. Fails with GL_EIO (missing or unreadable file),
 * GL_ENOTGPULOG (not SQLite, or application_id is not 1735420007),
 * GL_ENEWER (user_version above GL_DB_USER_VERSION), or GL_EDB; a
 * user_version below GL_DB_USER_VERSION_MIN is GL_ENOTGPULOG. *q is NULL
 * on failure.
 */
int gl_query_open(const char *path, struct gl_query **q, struct gl_err *err);

/*
 * Opens the ClickHouse server at url (http://host:8123/[?database=NAME])
 * that gpulog-ship filled, for the same readers (lib/store/query_ch.c).
 * Fails with GL_EUNAVAIL (unreachable), GL_ENOTGPULOG (no gpulog tables
 * there), GL_EDB or GL_ENOMEM; *q is NULL on failure.
 */
int gl_query_open_clickhouse(const char *url, struct gl_query **q, struct gl_err *err);

/*
 * A ClickHouse query (gl_query_open_clickhouse) reads a window of more than
 * rows events in time slices of about that many rows, one statement each,
 * so that the server sorts one slice at a time; 0: 500,000. No effect on
 * an SQLite file's query. For tests, to read small windows in slices.
 */
void gl_query_ch_slice_rows(struct gl_query *q, uint64_t rows);

/* Closes q; NULL is a no-op. */
void gl_query_close(struct gl_query *q);

/*
 * Opens one SQLite connection to path for reading: every connection of the
 * report and the export. A gpulog database (its header says so) is opened
 *   1. read-write with PRAGMA query_only, when the file and its directory
 *      allow: the last connection to close a WAL database then checkpoints
 *      it and deletes the -wal and -shm files, which a read-only one leaves;
 *   2. else read-only, sharing the -shm that is there or that it creates;
 *   3. else (no write access to the directory and no -shm) immutable, while
 *      its -wal holds nothing, under a shared flock() of the file that every
 *      gpulog-ingest waits for and that is held until the process ends.
 * Any other file is opened read-only, never changed (a read-write open
 * would roll back another program's hot journal). GL_OK, or GL_EIO /
 * GL_EBUSY with err set; *db may need sqlite3_close() either way.
 */
int gl_query_connect(const char *path, sqlite3 **db, struct gl_err *err);

/* The name with this id (names table), or NULL. Valid until gl_query_close. */
const char *gl_query_name(const struct gl_query *q, int64_t id);

/* Name ids run from 0 to gl_query_name_slots(q) - 1. */
size_t gl_query_name_slots(const struct gl_query *q);

/*
 * One events row. Ids are 0 when the column is NULL.
 *
 * Text columns are read only where a report uses them: message for WARN and
 * above and for operation candidates (no kernel, and an execution time or a
 * message beginning "Operation "); metadata for operation candidates only,
 * and only in a database without table operations (before schema 10).
 * The operation (lib/record/operation.h) is the stored one, or in an older
 * database (and ClickHouse) found in the message and metadata as the
 * ingest finds it.
 */
struct gl_query_event {
	int64_t ts_us;
	int level;			/* enum gl_level */
	int64_t component_id;
	int64_t host_id;
	int64_t kernel_id;
	double dur_us;			/* NAN when NULL */
	double mem_mb;			/* NAN when NULL */
	int anomaly;			/* events.anomaly; 0 when NULL */
	int64_t recovery_attempts;	/* gpu_metrics.recovery_attempts (running total); -1: NULL */
	int64_t error_count;		/* gpu_metrics.error_count (running total); -1: NULL */
	int64_t stream_id;		/* the log stream the row was read from (a counter's source) */
	double exec_ms;			/* execution_time_ms; NAN when NULL */
	int64_t dup_of;			/* schema 3: id of the identical first record; 0: original */
	const char *message;		/* see above, else NULL; valid during the call */
	size_t message_len;
	const char *metadata;		/* JSON object text, see above, else NULL */
	size_t metadata_len;
	double op_ms;			/* an operation timing's time; NAN: not one */
	double op_throughput;		/* its throughput; NAN: none */
	const char *op_name;		/* its name; NULL: none (named by the component) */
	/* Kernel-trace columns (profiler traces; NAN / NULL / 0 for log lines and
	 * for a database without them); strings valid during the call. */
	double launch_overhead_us, queue_us, occupancy;
	const char *device;		/* GPU as written, else NULL */
	const char *source;		/* "gpufl", "kineto", "nsys"; NULL: a log line */
	int64_t scope_id;		/* names id of the scope path "a|b"; 0: none */
	int64_t stack_id;		/* names id of the call stack; 0: none */
};

/*
 * Does the events table have the dup_of column (schema 3: a mirrored record,
 * the same record found in two files, points at the first)? Looked up once
 * at open.
 */
bool gl_query_has_dup_of(const struct gl_query *q);

/*
 * How the messages of the rows at WARN and above that gl_query_events
 * handed out so far were read: with their block's others from the index
 * events_warn (schema 12), or each from its row by id (a database without
 * the index, a time that is no integer). For tests and measurements.
 */
void gl_query_warn_reads(const struct gl_query *q, uint64_t *by_index, uint64_t *by_id);

/* Kernel rows only (kernel_id and dur_us not NULL, mirrored rows left
 * out), for the baseline and the kernel pass read again: their
 * kernel-trace columns are not read (NAN / NULL / 0). */
#define GL_QUERY_KERNELS_ONLY 1u
/* Read in the caller's thread only (the same rows in the same order; for tests). */
#define GL_QUERY_ONE_THREAD 2u
/* Read the columns events.packed is made of, not packed (the same events; for tests). */
#define GL_QUERY_COLUMNS 4u
/* Read packed and dup_of from the table, not from the index events_ts that
 * holds them since schema 7 (the same events; for tests). */
#define GL_QUERY_TABLE 8u

/*
 * Calls fn for each event with since_us <= ts_us < until_us, in order of
 * (ts_us, id). fn returns 0 to go on, else the walk stops and that value is
 * returned. Returns GL_OK, fn's value, GL_ENOMEM or GL_EDB. The rows are
 * read by two threads, each on its own connection to the same file and in
 * one read transaction, over alternate time slices of the window, in
 * blocks, while fn runs in the caller's thread and takes them in order
 * (GL_QUERY_ONE_THREAD, or when the threads or connections cannot be had:
 * all in the caller's thread, one read transaction).
 */
int gl_query_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		    int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		    struct gl_err *err);

/*
 * Some kernels' timings (the kernel pass read from the database, a group
 * of kernels at a time; the baseline's listed kernels): the rows
 * gl_query_events gives with GL_QUERY_KERNELS_ONLY (same order, same
 * contract), of which a backend that can narrow the read on its side
 * (ClickHouse) sends only those of the kernels whose names ids are
 * ids[0..n) (n 0: every kernel's); an SQLite file gives them all (the
 * caller keeps its own).
 */
int gl_query_kernel_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			   const int64_t *ids, size_t n,
			   int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			   struct gl_err *err);

/* The GL_QUERY_KERNELS_ONLY rows of a window counted per kernel, component and host. */
struct gl_query_kernel_count {
	int64_t kernel_id, component_id, host_id;	/* names ids; 0: none or unknown */
	uint64_t n;
};

/*
 * Does q count kernel timings on its side (gl_query_kernel_counts)? A
 * ClickHouse server does; an SQLite file does not (the caller counts the
 * rows of gl_query_events).
 */
bool gl_query_counts_kernels(const struct gl_query *q);

/*
 * Calls fn once per kernel, component and host that has kernel timings in
 * [since_us, until_us), in no set order; fn's value stops it. GL_OK, fn's
 * value, GL_EDB, GL_EUNAVAIL or GL_ENOMEM; where gl_query_counts_kernels
 * is false, GL_EUSAGE.
 */
int gl_query_kernel_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_kernel_count *c), void *arg,
			   struct gl_err *err);

/*
 * Aggregates a backend other than SQLite computes on its side (optional
 * methods of struct gl_query_backend, query_int.h); over an SQLite file
 * the sections compute them in C from the rows they read.
 *
 * Which rows an aggregate keeps, as the report's filters keep them: host
 * and component ids (0: none, the empty name); a NULL list keeps all.
 */
struct gl_query_keep {
	const int64_t *host_ids;
	size_t n_hosts;
	const int64_t *component_ids;
	size_t n_components;
};

/* One kernel's durations described: the figures of gl_stats_describe
 * (lib/stats/stats.h) over its timings in time order. */
struct gl_query_kernel_stats {
	int64_t kernel_id;		/* names id */
	uint64_t n;
	double sum_us;			/* summed in time order */
	double min_us, max_us, mean_us;
	double sd_us;			/* sample standard deviation; NAN for n < 2 */
	double p50_us, p90_us, p95_us, p99_us;	/* type 7: linear between order statistics */
	/* the least-squares sums of the durations against x, days since since_us
	 * (the trends section's struct gl_fit_acc, as gl_fit_acc_add makes them
	 * over the same points in the same order): the running means of x and of
	 * the durations, the centred sums of squares and of products */
	double fit_mean_days, fit_mean_us, fit_sxx, fit_syy, fit_sxy;
};

/* The events of a window counted by level, component, mirrored or not and
 * alert or not. */
struct gl_query_event_count {
	int level;			/* enum gl_level */
	int64_t component_id;		/* names id; 0: none or unknown */
	bool mirrored;			/* dup_of set */
	bool log_alert;			/* WARN or worse, of one of the alert streams */
	uint64_t n;
	int64_t first_ts_us, last_ts_us;	/* of these events */
};

/* Does q count events on its side (gl_query_event_counts)? */
bool gl_query_counts_events(const struct gl_query *q);

/*
 * Calls fn once per level, component, mirrored and alert flag that has
 * events in [since_us, until_us) of the hosts and components keep keeps
 * (NULL: all), in no set order; an alert is an event of WARN or worse of a
 * stream of alert_streams[0..n_alert_streams) (gl_query_alert_streams). GL_OK, fn's value, GL_EDB, GL_EUNAVAIL or GL_ENOMEM;
 * GL_QUERY_NOT_HERE, fn never called, when keep's names do not fit a
 * statement (the caller counts); where gl_query_counts_events is false,
 * GL_EUSAGE.
 */
#define GL_QUERY_NOT_HERE 1
int gl_query_event_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const struct gl_query_keep *keep, const int64_t *alert_streams,
			  size_t n_alert_streams,
			  int (*fn)(void *arg, const struct gl_query_event_count *c), void *arg,
			  struct gl_err *err);

/* reports/launch_once.h's GL_LAUNCH_ONCE_TOL_US, for a backend's launch rule */
#define GL_QUERY_LAUNCH_ONCE_TOL_US 1000

/* Does q describe kernels' durations on its side (gl_query_kernel_stats)? */
bool gl_query_describes_kernels(const struct gl_query *q);

/*
 * Calls fn once for each kernel of ids[0..n) with timings in [since_us,
 * until_us), in no set order: its durations described over the rows the
 * report's kernel pass hands a section for it: GL_QUERY_KERNELS_ONLY rows
 * of the hosts and components keep keeps (NULL: all), less the launch
 * copies (reports/launch_once.h, the rule applied in (ts_us, id) order per
 * kernel). A kernel whose name a statement cannot carry gets no call (the
 * caller describes it itself). GL_OK, fn's value, GL_EDB, GL_EUNAVAIL or
 * GL_ENOMEM; where gl_query_describes_kernels is false, GL_EUSAGE.
 */
int gl_query_kernel_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const int64_t *ids, size_t n, const struct gl_query_keep *keep,
			  int (*fn)(void *arg, const struct gl_query_kernel_stats *s), void *arg,
			  struct gl_err *err);

/*
 * The statement gl_query_events runs for flags over a snapshot with a
 * stream of a profiler trace (traces true) or without (false); ?1 and ?2
 * are the window. For tests: its query plan.
 */
const char *gl_query_events_sql(const struct gl_query *q, unsigned flags, bool traces);

/* One mem_events row (RMM). */
struct gl_query_mem {
	int64_t ts_us;
	int action;			/* 0 allocate, 1 free, 2 allocate failure */
	uint64_t ptr;
	uint64_t size_bytes;
	int64_t host_id;		/* 0 when NULL */
};

int gl_query_mem_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			struct gl_err *err);

/*
 * Metric series (schema 3 and 4, table series): one per metric, device, host,
 * source format and labels. Strings are owned by the array; NULL columns
 * are NULL (device, labels) or 0 (host_id).
 */
struct gl_query_series {
	int64_t id;			/* series.id */
	int64_t metric_id;		/* names id of the canonical metric name */
	char *device;			/* GPU index as text, else uuid or name; NULL: none */
	int64_t host_id;		/* names id; 0: none */
	char *source;			/* format name ("nvidia-smi-csv") */
	char *labels;			/* JSON object text; NULL: none */
};

/*
 * Loads the whole series table (it holds one row per metric and device,
 * not per sample) into *out, ordered by id; *n gets the count. A database
 * older than schema 3 (or without a samples table) has no series: *out
 * NULL, *n 0, GL_OK. Free with gl_query_series_free.
 */
int gl_query_series_load(struct gl_query *q, struct gl_query_series **out, size_t *n,
			 struct gl_err *err);
void gl_query_series_free(struct gl_query_series *s, size_t n);

/* One metric sample: only what a report reads. */
struct gl_query_sample {
	int64_t ts_us;
	int64_t series_id;
	double value;
};

/* One metric series' samples described: the figures of the metrics section
 * (reports/sec_metrics.c) over its finite samples in time order. */
struct gl_query_series_stats {
	int64_t series_id;
	uint64_t n;
	double min, max, mean;
	double p50, p95, p99;		/* type 7, as gl_stats_describe */
	double last;			/* the value of the last sample */
	int64_t first_ts_us, last_ts_us;
	/* the least-squares sums against days since since_us (struct
	 * gl_fit_acc's, as gl_fit_acc_add makes them in the samples' order) */
	double fit_mean_days, fit_mean, fit_sxx, fit_syy, fit_sxy;
};

/* Does q describe metric series on its side (gl_query_series_stats)? */
bool gl_query_describes_series(const struct gl_query *q);

/*
 * Calls fn once for each series of ids[0..n) (gl_query_series_load's ids)
 * with finite samples in [since_us, until_us), in no set order: its finite
 * samples described, in the order of gl_query_samples. The server holds
 * the samples of at most max_samples at once (a series with more: alone).
 * GL_OK, fn's value, GL_EDB, GL_EUNAVAIL or GL_ENOMEM; where
 * gl_query_describes_series is false, GL_EUSAGE.
 */
int gl_query_series_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const int64_t *ids, size_t n, uint64_t max_samples,
			  int (*fn)(void *arg, const struct gl_query_series_stats *s), void *arg,
			  struct gl_err *err);

/*
 * Calls fn for each metric sample with since_us <= ts_us < until_us, in
 * order of (ts_us, id); id is the sample's in v_samples: block id * 4096 +
 * index in its block (schema 4), the samples row's id (schema 3). Schema 4
 * keeps samples packed per series in blocks (sample_blocks) that overlap in
 * time: a second thread reads the blocks of the window (those beginning up
 * to GL_SBLOCK_SPAN_US before it), decodes them and merges their samples
 * into that order, while fn runs in the caller's thread; where the blocks
 * span 8 h or more (and no samples are staged), two threads, each on its
 * own read transaction, read alternate time slices of the window, handed
 * to fn in turn. Schema 3 has one
 * samples row per sample, in that order already. Same contract as
 * gl_query_events; a block whose text is not a block of its n samples in
 * time order within the block's hour is GL_EDB ("sample block 12 is
 * malformed"); a database without samples calls fn never.
 */
int gl_query_samples(struct gl_query *q, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
		     struct gl_err *err);

/* gl_query_samples with flags: GL_QUERY_ONE_THREAD reads in the caller's thread. */
int gl_query_samples_flags(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
			   int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
			   struct gl_err *err);

/* First and last sample time of the series series_ids[0..n) in [since_us, until_us);
 * GL_TS_NONE both when none. Schema 4: from the blocks' t0_us and t1_us,
 * decoding only the blocks across the window's edges. */
int gl_query_series_span(struct gl_query *q, const int64_t *series_ids, size_t n,
			 int64_t since_us, int64_t until_us, int64_t *first_us, int64_t *last_us,
			 struct gl_err *err);

/*
 * An alert a log wrote (the performance monitor's alert_<ts>.json and the
 * "alerts" of its metrics_history.json): an event of kind GL_EV_ALERT
 * (lib/record/record.h), whose metadata holds its "severity". Strings
 * valid during the call; value and threshold NAN when the document had
 * none.
 */
struct gl_query_log_alert {
	int64_t ts_us;
	int level;			/* enum gl_level */
	int64_t component_id, host_id;
	const char *message;		/* "" when none */
	const char *metric;		/* the document's "metric", else NULL */
	double value, threshold;
};

/*
 * The ids of the streams holding a monitor's alert (kind GL_EV_ALERT) with
 * since_us <= ts_us < until_us (a database before schema 8: the streams of
 * the formats that wrote alerts), ascending, in a new array *ids (the
 * caller frees it; NULL when none) of *n.
 */
int gl_query_alert_streams(struct gl_query *q, int64_t since_us, int64_t until_us, int64_t **ids,
			   size_t *n, struct gl_err *err);

/*
 * Calls fn for each such alert with since_us <= ts_us < until_us, mirrors
 * left out, in time order. Reads the window's events when the database
 * has held an alert (event_kinds; no index by kind), none otherwise.
 */
int gl_query_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
			struct gl_err *err);

/*
 * Events in [since_us, until_us) whose metadata holds the fact a parser
 * found under the member key ("train" for a trainer's step, "xid" for a
 * driver Xid, "inventory" for an nvidia-smi -q GPU): the events of its
 * kind, gl_ev_fact_kind(key) (lib/record/record.h), in (ts_us, id) order,
 * mirrors left out; message and metadata valid during the call. None are
 * read when the database has held no record of that kind (the window's
 * events have no index by kind: a database without them costs one lookup).
 * A ClickHouse server's rows shipped before their kind was give theirs by
 * the rule of kinds_v8.h.
 */
struct gl_query_fact_event {
	int64_t ts_us;
	int level;
	int64_t component_id, host_id, stream_id;
	const char *message;		/* "" when NULL */
	const char *metadata;		/* the JSON object text */
};

int gl_query_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
			 int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
			 struct gl_err *err);

/*
 * Requests a server's access lines tell in [since_us, until_us): events of
 * kind GL_EV_ACCESS or GL_EV_ACCESS_FAILED (lib/record/record.h), a
 * uvicorn access line of a POST to an OpenAI-style endpoint,
 *     10.0.3.17:51234 - "POST /v1/completions HTTP/1.1" 200 OK
 * counted per component and host; failed: those answered with a status of
 * 400 or more (GL_EV_ACCESS_FAILED). Mirrors left out. fn is called once
 * per component and host that has such lines; never when the database has
 * held none (else the window's events are read: no index by kind).
 */
struct gl_query_access {
	int64_t component_id, host_id;
	uint64_t requests, failed;
};
int gl_query_access_requests(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			     struct gl_err *err);

/*
 * First and last time of the events and RMM rows in [since_us, until_us),
 * before any filter; GL_TS_NONE both when none. For the charts' time axes.
 */
int gl_query_events_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			 int64_t *first_us, int64_t *last_us, struct gl_err *err);

/* First and last sample time in [since_us, until_us); GL_TS_NONE both when none. */
int gl_query_samples_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int64_t *first_us, int64_t *last_us, struct gl_err *err);

/* One spans row (closed user scopes of profiler traces). */
struct gl_query_span {
	int64_t start_us;
	double dur_us;
	int64_t scope_id;		/* names id of the path "timestep|solve"; 0: none */
	int depth;
	const char *device;		/* NULL: not per device (a CPU-side range); valid during the call */
	const char *source;		/* "gpufl", "kineto" */
	int64_t host_id;		/* 0: none */
};

/*
 * Calls fn for each span with since_us <= start_us < until_us, in order of
 * (start_us, id). Same contract as gl_query_events; a database without the
 * spans table calls fn never.
 */
int gl_query_spans(struct gl_query *q, int64_t since_us, int64_t until_us,
		   int (*fn)(void *arg, const struct gl_query_span *s), void *arg,
		   struct gl_err *err);

/*
 * Rejected lines and files. Schema 2 gives rejects a time (rejects.ts_us):
 * those in [since_us, until_us) are counted, and those without a time (a
 * file's lines rejected before any of its records was stored: every
 * window counts them, until a re-read drops them); a version-1 database
 * has no such column and all its rejects are counted. Files: all rows.
 */
int gl_query_table_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			  uint64_t *rejects, uint64_t *files, struct gl_err *err);

/*
 * The retention horizon: the newest time before which gpulog-ingest
 * --keep-days has deleted rows (runs.pruned_before_us), so a window that
 * starts earlier holds only part of what was ingested. *since_us is
 * GL_TS_NONE when nothing was ever pruned (or the schema predates it).
 * Returns GL_OK or GL_EDB.
 */
int gl_query_retained_since(struct gl_query *q, int64_t *since_us, struct gl_err *err);

#endif
