/*
 * query_int.h - what the files of the query layer share (query.c,
 * query_samples.c): the open database and the reader-thread pipe. Not for
 * use outside lib/store.
 */
#ifndef GL_QUERY_INT_H
#define GL_QUERY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store/query.h"

/* Where the metric samples are. */
enum gl_query_samples_kind {
	GL_QUERY_SAMPLES_NONE,		/* before schema 3: no series */
	GL_QUERY_SAMPLES_ROWS,		/* schema 3: one samples row per sample */
	GL_QUERY_SAMPLES_BLOCKS,	/* schema 4: sample_blocks, packed per series */
};

struct gl_query {
	sqlite3 *db;
	char **names;		/* names[id], NULL where no such id */
	size_t n_names;		/* max id + 1 */
	int64_t version;	/* PRAGMA user_version */
	bool has_dup_of;	/* events.dup_of exists (schema 3) */
	enum gl_query_samples_kind samples;	/* which of the samples tables exists */
	bool has_trace;		/* events has the kernel-trace columns (source, scope_id, ...) */
	bool has_spans;		/* table spans exists */
	bool has_packed;	/* events.packed exists (schema 6, lib/store/evpack.h) */
	bool has_kind;		/* events.kind and event_kinds exist (schema 8) */
	bool has_ops;		/* table operations exists (schema 10) */
	bool staged;		/* sample_stage holds samples (schema 11: a run under way or killed) */
	bool covering;		/* events_ts holds dup_of and packed (schema 7) */
	/* the messages at WARN and above the event readers handed out so far:
	 * read from the index events_warn, and each by id (query_events.c) */
	uint64_t warn_by_index, warn_by_id;
	/* set: another backend answers every reader, db is NULL (query_ch.c:
	 * a ClickHouse server); its state in ch */
	const struct gl_query_backend *be;
	struct gl_query_ch *ch;
};

/*
 * The readers of a backend other than SQLite: each answers the gl_query_*
 * call of its name (query.h) with the same contract. query.c and its
 * siblings hand a call to q->be when it is set, and never name a backend,
 * so a backend's file depends on the query layer and not the reverse.
 * release frees the backend's state (q->ch) at gl_query_close.
 */
struct gl_query_backend {
	int (*events)(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		      int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		      struct gl_err *err);
	/* optional: gl_query_kernel_events (else events with GL_QUERY_KERNELS_ONLY) */
	int (*kernel_events)(struct gl_query *q, int64_t since_us, int64_t until_us,
			     const int64_t *ids, size_t n,
			     int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			     struct gl_err *err);
	/* optional: gl_query_kernel_counts */
	int (*kernel_counts)(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int (*fn)(void *arg, const struct gl_query_kernel_count *c), void *arg,
			     struct gl_err *err);
	/* optional: gl_query_event_counts */
	int (*event_counts)(struct gl_query *q, int64_t since_us, int64_t until_us,
			    const struct gl_query_keep *keep, const int64_t *alert_streams,
			    size_t n_alert_streams,
			    int (*fn)(void *arg, const struct gl_query_event_count *c), void *arg,
			    struct gl_err *err);
	/* optional: gl_query_kernel_stats */
	int (*kernel_stats)(struct gl_query *q, int64_t since_us, int64_t until_us,
			    const int64_t *ids, size_t n, const struct gl_query_keep *keep,
			    int (*fn)(void *arg, const struct gl_query_kernel_stats *s), void *arg,
			    struct gl_err *err);
	/* optional: gl_query_series_stats */
	int (*series_stats)(struct gl_query *q, int64_t since_us, int64_t until_us,
			    const int64_t *ids, size_t n, uint64_t max_samples,
			    int (*fn)(void *arg, const struct gl_query_series_stats *s), void *arg,
			    struct gl_err *err);
	int (*mem_events)(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			  struct gl_err *err);
	int (*series_load)(struct gl_query *q, struct gl_query_series **out, size_t *n,
			   struct gl_err *err);
	int (*samples)(struct gl_query *q, int64_t since_us, int64_t until_us,
		       int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
		       struct gl_err *err);
	int (*series_span)(struct gl_query *q, const int64_t *series_ids, size_t n,
			   int64_t since_us, int64_t until_us, int64_t *first_us, int64_t *last_us,
			   struct gl_err *err);
	int (*samples_span)(struct gl_query *q, int64_t since_us, int64_t until_us,
			    int64_t *first_us, int64_t *last_us, struct gl_err *err);
	int (*log_alerts)(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
			  struct gl_err *err);
	int (*access_requests)(struct gl_query *q, int64_t since_us, int64_t until_us,
			       int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			       struct gl_err *err);
	int (*events_span)(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int64_t *first_us, int64_t *last_us, struct gl_err *err);
	int (*spans)(struct gl_query *q, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_query_span *s), void *arg,
		     struct gl_err *err);
	int (*table_counts)(struct gl_query *q, int64_t since_us, int64_t until_us,
			    uint64_t *rejects, uint64_t *files, struct gl_err *err);
	int (*retained_since)(struct gl_query *q, int64_t *since_us, struct gl_err *err);
	int (*fact_events)(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
			   int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
			   struct gl_err *err);
	int (*alert_streams)(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int64_t **ids, size_t *n, struct gl_err *err);
	void (*release)(struct gl_query *q);
};

/* GL_EDB with what and the connection's message. */
int gl_query_db_error(struct gl_query *q, struct gl_err *err, const char *what);

/* The first column of sql's first row into *v; SQLite's result code. */
int gl_query_pragma_int(sqlite3 *db, const char *sql, int64_t *v);

/*
 * The reading thread shared by events and samples: a reader on its own
 * read-only connection runs sql over (?1, ?2) and fills the slots of a
 * small ring (fill, in its thread); the caller's thread hands each filled
 * slot on (emit), in the order read, so fn runs in the caller's thread only.
 */
struct gl_query_pipe_ops {
	size_t ring;		/* slots */
	/* reader thread: fills slot from st; SQLITE_ROW: more may follow, else
	 * the last step's code (SQLITE_DONE at the end; SQLITE_NOMEM) */
	int (*fill)(void *ctx, size_t slot, sqlite3_stmt *st);
	/* caller's thread: hands the slot's rows to fn; fn's value or 0 */
	int (*emit)(void *ctx, size_t slot);
	/* after fill failed with anything but SQLITE_NOMEM: the reason when it
	 * is not SQLite's (bad data), NULL for the connection's message; may be
	 * NULL itself */
	const char *(*fail_msg)(void *ctx);
	void *ctx;
};

/*
 * Runs ops over sql with a reader thread, ?1 bound to arg1 and ?2 to arg2.
 * GL_OK, emit's value, GL_EDB ("cannot read <what>") or GL_ENOMEM. *started
 * false (GL_OK returned): it could not start (no second connection or
 * thread) and read nothing; the caller reads in its own thread. (A code
 * of its own, not a return value: emit's value and GL_ENOMEM are -1 too.)
 */
int gl_query_pipe_run(struct gl_query *q, const char *sql, int64_t arg1, int64_t arg2,
		      const struct gl_query_pipe_ops *ops, const char *what, struct gl_err *err,
		      bool *started);

#endif
