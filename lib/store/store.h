/*
 * store.h - the write side of the database: schema creation and migration,
 * the run lock, loading the ingest state, and writing batches. The only
 * code that writes SQL (the report side reads through query.h).
 */
#ifndef GL_STORE_H
#define GL_STORE_H

#include <stdint.h>

#include "../gpulog.h"
#include "../record/batch.h"
#include "../record/state.h"
#include "store_schema.h"

struct gl_store;

/*
 * Opens the database at path for writing, creating it when the file does
 * not exist or is empty, migrating one written by an older gpulog.
 * Refuses, without touching it, a file that is not a gpulog database
 * (GL_ENOTGPULOG) or one from a newer gpulog (GL_ENEWER).
 *
 * Only one writer at a time: when another process holds the database,
 * notice(arg, e) is called once with e->code GL_EBUSY ("waiting for
 * database") and the call blocks until it is released; with
 * GL_STORE_NOWAIT it returns GL_EBUSY instead. Before migrating an older database notice is
 * called with e->code GL_OK ("migrating database": it may take a while).
 * notice may be NULL.
 */
int gl_store_open(struct gl_store **out, const char *path, unsigned flags,
		  void (*notice)(void *arg, const struct gl_err *e), void *arg,
		  struct gl_err *err);

/* gl_store_open's flags */
#define GL_STORE_NOWAIT 1u	/* another writer holds it: GL_EBUSY, no waiting */
/*
 * A database that does not exist yet (or is an empty file) is built aside
 * in <path>-build, written once with no journal on disk and no syncs, and
 * appears at path only when gl_store_finish() moves it there. Until then
 * path stays empty; a build never finished (killed, or closed without
 * finishing) is deleted, by gl_store_close() or by the next open.
 */
#define GL_STORE_BUILD 2u

/*
 * Ends a build (GL_STORE_BUILD on a new database): a transaction still
 * open is rolled back, the file is switched to WAL mode, synced and
 * renamed over path. After it st may only be closed. A no-op otherwise.
 */
int gl_store_finish(struct gl_store *st, struct gl_err *err);

/* Closes st, releasing the lock; an unfinished build is deleted. NULL is a
 * no-op. */
void gl_store_close(struct gl_store *st);

/* Loads files, streams and checkpoints into s (initialised by the caller). */
int gl_store_load(struct gl_store *st, struct gl_state *s, struct gl_err *err);

/* Records the start of a run; sets *run_id. */
int gl_store_run_begin(struct gl_store *st, const char *host, int64_t *run_id,
		       struct gl_err *err);

/* The end of a run's batches: the staged samples merged per series
 * (sblock_merge.h), in transactions of its own, committed(arg, k) called
 * after the k-th (may be NULL). */
int gl_store_merge_samples(struct gl_store *st, void (*committed)(void *arg, unsigned k),
			   void *arg, struct gl_err *err);

/* Records the end of run_id with its figures. */
int gl_store_run_end(struct gl_store *st, int64_t run_id, const struct gl_ingest_stats *stats,
		     struct gl_err *err);

/*
 * Writes batch b in one transaction: its rows, tagged with run_id and host
 * (NULL: none), then its state operations in order. On failure nothing of b
 * is kept. Borrows b.
 */
int gl_store_put(struct gl_store *st, const struct gl_batch *b, int64_t run_id,
		 const char *host, struct gl_err *err);

/*
 * Reads the hashes of lines first..first+n-1 of a stream (stream_lines) into
 * out; *got says how many were there (fewer: the stream's hashes end, or it
 * has none, being older than schema version 3).
 */
int gl_store_line_hashes(struct gl_store *st, int64_t stream_id, uint64_t first, uint64_t n,
			 uint64_t *out, uint64_t *got, struct gl_err *err);

/*
 * Retention (prune.c): records before_us as run_id's pruning horizon
 * (runs.pruned_before_us), deletes the events, memory events, samples,
 * spans and rejects older than it in transactions of 50,000 rows (adds
 * their number to *n_deleted), and gives the freed pages back to the file
 * system. Streams, checkpoints and files are kept.
 */
int gl_store_prune(struct gl_store *st, int64_t run_id, int64_t before_us, uint64_t *n_deleted,
		   struct gl_err *err);

/* The connection of st, for prune.c (lib/store only). */
struct sqlite3 *gl_store_db(struct gl_store *st);

/* Events stored as duplicates (events.dup_of set) since st was opened. */
uint64_t gl_store_duplicates(const struct gl_store *st);

/* Samples stored since st was opened (the samples of a mirror are not). */
uint64_t gl_store_samples(const struct gl_store *st);

/*
 * The 64-bit hash of a normalized record (events.rec_hash): its time,
 * level, component, host, kernel, message, metadata and numeric fields, not
 * where it was read. host may be absent ({NULL, 0}).
 */
uint64_t gl_store_rec_hash(const struct gl_event *ev, struct gl_str host);

#endif
