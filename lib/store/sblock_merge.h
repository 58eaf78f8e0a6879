/*
 * sblock_merge.h - the end of an ingest run: the open sample blocks of each
 * series merged (table sample_blocks, see share/schema.sql "Open blocks").
 *
 * Why: a Prometheus scrape file holds one sample of each series, and a
 * batch holds part of one scrape: stored as they came, 5,000 GPUs x 6
 * fields x 10 scrapes made 300,000 blocks of one sample. The writer
 * (sblock_db.h) puts a batch's samples of a series and stream fewer than
 * GL_SBLOCK_OPEN_MIN into one row of sample_stage; this merge gathers the
 * staged samples of each (series, ts_estimated) with the series' open
 * block, sorts them by time (equal times in the order they were stored:
 * the open block's first) and stores them in blocks of up to GL_SBLOCK_MAX
 * samples spanning at most GL_SBLOCK_SPAN_US, each sample keeping its
 * stream, file, path and line (column origins when a block holds several
 * streams).
 *
 * Rules:
 * - only settled samples are merged: a staged sample of a stream whose
 *   last record is open (streams.open_end, line past streams.lines) is
 *   staged again, for the run that reads the record continued may replace
 *   it (gl_sblock_drop_after);
 * - a merged block is closed, except a series' last one while it holds
 *   fewer than GL_SBLOCK_OPEN_MIN samples and its hour (t0_us +
 *   GL_SBLOCK_SPAN_US) is after now_us: the next run's samples join it;
 *   an open block whose hour has passed is closed by the next merge (every
 *   run's end, staged samples or not);
 * - afterwards every open block has a larger id than every closed one
 *   (open blocks are written last, and moved up when they are not), and a
 *   new block's id is larger than any before (blocks are written before
 *   their sources are deleted), so gpulog-ship, which sends the blocks
 *   below the first open one in id order, sends each closed block once and
 *   never one that may still change.
 *
 * Memory: about GL_MERGE_CHUNK staged samples at a time (stage rows in id
 * order; each chunk merged and committed in one transaction), with the
 * open blocks of their series.
 */
#ifndef GL_SBLOCK_MERGE_H
#define GL_SBLOCK_MERGE_H

#include <stdint.h>

#include <sqlite3.h>

#include "../gpulog.h"

#define GL_MERGE_CHUNK (1u << 19)	/* staged samples read per transaction */

struct gl_sblock_merged {
	uint64_t staged;	/* staged samples merged */
	uint64_t restaged;	/* staged again (unsettled) */
	uint64_t open_in;	/* open blocks merged with them */
	uint64_t blocks_out;	/* blocks written */
	uint64_t blocks_moved;	/* open blocks moved above the closed ones */
	uint64_t closed;	/* open blocks closed in place: their hour passed */
};

/*
 * Merges the staged samples of db (outside any transaction: it makes its
 * own). now_us: the wall clock. *out (may be NULL) gets what was done.
 * GL_OK, GL_ENOMEM or GL_EDB (a damaged block: "sample block 12 is
 * malformed"); on failure the transaction under way is rolled back and
 * what was committed before stays consistent.
 */
int gl_sblock_merge_open(sqlite3 *db, const char *path, int64_t now_us,
			 struct gl_sblock_merged *out, struct gl_err *err);

/* gl_sblock_merge_open that calls committed(arg, k) after its k-th
 * committed transaction (committed may be NULL). */
int gl_sblock_merge_open_hook(sqlite3 *db, const char *path, int64_t now_us,
			      void (*committed)(void *arg, unsigned k), void *arg,
			      struct gl_sblock_merged *out, struct gl_err *err);

#endif
