/*
 * sblock_db.h - metric samples in table sample_blocks: the writer that
 * packs a batch's samples into blocks, and the rewrites of stored blocks
 * (an open record's samples dropped, old samples pruned, schema 3's
 * samples table converted).
 *
 * Blocks are made per batch: the samples of one key (series, stream, file,
 * path, ts_estimated) put in one transaction are sorted by time (stable:
 * equal times keep their order) and cut into blocks of at most
 * GL_SBLOCK_MAX samples spanning at most GL_SBLOCK_SPAN_US. A block of
 * fewer than GL_SBLOCK_OPEN_MIN samples is stored open, to be merged with
 * its series' other open blocks at the end of the run (sblock_merge.h).
 */
#ifndef GL_SBLOCK_DB_H
#define GL_SBLOCK_DB_H

#include <stdint.h>

#include <sqlite3.h>

#include "../gpulog.h"

struct gl_sbw;

/* A writer on db (statements prepared now); NULL with *err set. path names
 * the database in messages. */
struct gl_sbw *gl_sbw_open(sqlite3 *db, const char *path, struct gl_err *err);
void gl_sbw_close(struct gl_sbw *w);

/* Adds one sample to the batch being put (file_id/path_id 0: none).
 * GL_OK or GL_ENOMEM. */
int gl_sbw_add(struct gl_sbw *w, int64_t series_id, int64_t stream_id, int64_t file_id,
	       int64_t path_id, int ts_estimated, int64_t ts_us, double value, int64_t line,
	       struct gl_err *err);

/* Writes the batch's samples as blocks (inside the caller's transaction)
 * and starts an empty batch. GL_OK, GL_ENOMEM or GL_EDB. */
int gl_sbw_flush(struct gl_sbw *w, struct gl_err *err);

/* Forgets the batch's samples (its transaction was rolled back). */
void gl_sbw_reset(struct gl_sbw *w);

/* Deletes the samples of stream_id after line after_line, rewriting the
 * blocks and stage rows that keep some (inside the caller's transaction). */
int gl_sblock_drop_after(sqlite3 *db, const char *path, int64_t stream_id, int64_t after_line,
			 struct gl_err *err);

/* Deletes the samples older than before_us, at most about max_blocks
 * blocks' worth; *n_samples gets the samples deleted, *more 1 when blocks
 * are left to prune (call again in a new transaction). */
int gl_sblock_prune(sqlite3 *db, const char *path, int64_t before_us, int64_t max_blocks,
		    uint64_t *n_samples, int *more, struct gl_err *err);

/* Schema 3 -> 4: the rows of table samples become blocks (inside the
 * caller's transaction; table samples is left for the caller to drop). */
int gl_sblock_migrate(sqlite3 *db, const char *path, struct gl_err *err);

#endif
