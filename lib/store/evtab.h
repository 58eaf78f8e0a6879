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
 *   INSERT INTO events (id, <every column>) SELECT NULL, <its columns>,
 *     ?1, ?2, ... FROM gl_batch_events          (GL_EVTAB_INSERT_EVENTS)
 *
 * A run of log lines goes through a narrower table, gl_batch_logs, without
 * the 13 kernel-trace columns (always NULL for a log line), given as NULL
 * constants instead (GL_EVTAB_INSERT_LOGS). The stream, file, path, host
 * and kind, the same for a run of rows, are parameters, not columns.
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
#include "../record/batch.h"

/* The columns of events in table order, id left out. */
#define GL_EVTAB_ROW_COLUMNS                                                             \
	"ts_us, level, component_id, host_id, kernel_id, dur_us, exec_ms, mem_mb, alloc_mb," \
	" peak_mb, util_pct, error_count, recovery_attempts, anomaly, message, metadata,"   \
	" stream_id, line, file_id, path_id, rec_hash, dup_of, launch_overhead_us,"         \
	" queue_us, occupancy, device, stream, grid, block, registers, shared_mem_bytes,"   \
	" corr_id, scope_id, stack_id, source, packed, kind"

/*
 * The values every row of one INSERT shares, bound to it before it runs
 * (NULL for an id of 0): a run of rows is cut where they change. As
 * parameters they cost SQLite a register copy per row; as columns of the
 * virtual table they cost a call and a result each.
 */
enum {
	GL_EVTAB_P_STREAM = 1,	/* stream_id */
	GL_EVTAB_P_FILE,	/* file_id */
	GL_EVTAB_P_PATH,	/* path_id */
	GL_EVTAB_P_HOST,	/* host_id */
	GL_EVTAB_P_KIND,	/* kind (gl_event_kind()) */
};

/* The columns of the log lines' virtual table, gl_batch_logs. */
#define GL_EVTAB_LOG_COLUMNS                                                             \
	"ts_us, level, component_id, kernel_id, dur_us, exec_ms, mem_mb, alloc_mb, peak_mb," \
	" util_pct, error_count, recovery_attempts, anomaly, message, metadata, line,"      \
	" rec_hash, dup_of, packed"

/* The columns of gl_batch_events: the log lines' with the kernel-trace
 * columns before packed. */
#define GL_EVTAB_COLUMNS                                                                 \
	"ts_us, level, component_id, kernel_id, dur_us, exec_ms, mem_mb, alloc_mb, peak_mb," \
	" util_pct, error_count, recovery_attempts, anomaly, message, metadata, line,"      \
	" rec_hash, dup_of, launch_overhead_us, queue_us, occupancy, device, stream, grid," \
	" block, registers, shared_mem_bytes, corr_id, scope_id, stack_id, source, packed"

/* The store's two INSERTs into table (events; test_evtab's own table). */
#define GL_EVTAB_SELECT_HEAD                                                             \
	" SELECT NULL, ts_us, level, component_id, ?4, kernel_id, dur_us, exec_ms, mem_mb,"  \
	" alloc_mb, peak_mb, util_pct, error_count, recovery_attempts, anomaly, message,"   \
	" metadata, ?1, line, ?2, ?3, rec_hash, dup_of, "
#define GL_EVTAB_INSERT_EVENTS(table)                                                    \
	"INSERT INTO " table " (id, " GL_EVTAB_ROW_COLUMNS ")" GL_EVTAB_SELECT_HEAD           \
	"launch_overhead_us, queue_us, occupancy, device, stream, grid, block, registers,"  \
	" shared_mem_bytes, corr_id, scope_id, stack_id, source, packed, ?5 FROM gl_batch_events"
#define GL_EVTAB_INSERT_LOGS(table)                                                      \
	"INSERT INTO " table " (id, " GL_EVTAB_ROW_COLUMNS ")" GL_EVTAB_SELECT_HEAD           \
	"NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"      \
	" packed, ?5 FROM gl_batch_logs"

/* One row: the batch event and what the store looked up for it. Ids of 0
 * are NULL, as are NaN reals and negative counts. */
struct gl_evrow {
	const struct gl_bev *b;
	int64_t comp_id, kernel_id, scope_id, stack_id;
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
