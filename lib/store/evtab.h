/*
 * evtab.h - a batch's events as the rows of a virtual table, so that the
 * store writes a whole batch of events with one INSERT ... SELECT instead of
 * one INSERT per event.
 *
 * Why: with one INSERT per event, SQLite opened and closed the statement's
 * cursors, halted and reset the statement, and rebound 36 parameters for
 * every row; callgrind put that at a third of the writing thread's
 * instructions (tests/bench/README.md, 2026-11-23). The virtual table hands
 * SQLite each row's values as it asks for them, and SQLite inserts each row
 * before it asks for the next one: the store computes row i (names, the
 * mirror probe, which must see the rows before it) when SQLite moves to it.
 *
 *   INSERT INTO events (id, GL_EVTAB_COLUMNS) SELECT NULL, * FROM gl_batch_events
 *
 * A run of log lines goes through a narrower table, gl_batch_logs, without
 * the 13 kernel-trace columns (always NULL for a log line), given as NULL
 * constants instead:
 *
 *   INSERT INTO events (id, GL_EVTAB_COLUMNS)
 *     SELECT NULL, <gl_batch_logs' columns but packed>, NULL x 13, packed
 *     FROM gl_batch_logs
 *
 * SQLite's cost per row grows with the columns it is given (each is a
 * virtual-table call, a register copy and an affinity check); the log
 * table saves the writing thread a tenth of its instructions on the bench
 * set (tests/bench/README.md, 2026-11-23, "the SQLite writer and the
 * parser in balance"). Naming every column of events in its table order,
 * id (NULL: a new rowid) included, lets SQLite build the record from the
 * SELECT's registers; with a partial list it copied each value into a
 * register of its own first (one SCopy per column and row: 2% of the
 * writer's instructions). A database whose columns were added in another
 * order (none is known) takes the copying path, with the same rows.
 */
#ifndef GL_EVTAB_H
#define GL_EVTAB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "evpack.h"
#include "../ingest/batch.h"

/* The events columns gl_batch_logs gives, in its order: those of every
 * event. */
#define GL_EVTAB_LOG_COLUMNS                                                             \
	"ts_us, level, component_id, host_id, kernel_id, dur_us, exec_ms, mem_mb, alloc_mb," \
	" peak_mb, util_pct, error_count, recovery_attempts, anomaly, message, metadata,"   \
	" stream_id, line, file_id, path_id, rec_hash, dup_of, packed"

/* The events columns gl_batch_events gives, in its order: the log columns
 * (packed last there, here too), with the kernel-trace columns before
 * packed. */
#define GL_EVTAB_COLUMNS                                                                 \
	"ts_us, level, component_id, host_id, kernel_id, dur_us, exec_ms, mem_mb, alloc_mb," \
	" peak_mb, util_pct, error_count, recovery_attempts, anomaly, message, metadata,"   \
	" stream_id, line, file_id, path_id, rec_hash, dup_of, launch_overhead_us,"         \
	" queue_us, occupancy, device, stream, grid, block, registers, shared_mem_bytes,"   \
	" corr_id, scope_id, stack_id, source, packed"

/* One row: the batch event and what the store looked up for it. Ids of 0
 * are NULL, as are NaN reals and negative counts. */
struct gl_evrow {
	const struct gl_bev *b;
	int64_t host_id, comp_id, kernel_id, path_id, scope_id, stack_id;
	int64_t dup_of;			/* 0: an original */
	unsigned char packed[GL_EVPACK_MAX];	/* events.packed */
	size_t packed_len;
};

/*
 * Where the rows come from: row(arg, i, out) fills out for event i, for i
 * from first up to (not including) end, or returns a negative gl_code (with
 * its error kept by the caller), which ends the INSERT with SQLITE_ERROR.
 * Set row and arg once, first and end before each INSERT. Both tables read
 * the same source; only the columns they give differ.
 */
struct gl_evtab_src {
	int (*row)(void *arg, size_t i, struct gl_evrow *out);
	void *arg;
	size_t first, end;
};

/*
 * Makes gl_batch_events and gl_batch_logs known to db (eponymous virtual
 * tables: no CREATE needed, nothing stored in the schema). src is borrowed
 * for as long as db is open. Returns SQLITE_OK or SQLite's error code.
 */
int gl_evtab_register(sqlite3 *db, struct gl_evtab_src *src);

#endif
