/*
 * ship.h - gpulog-ship's stage: a node's database (read only) -> batches of
 * TSV rows -> ClickHouse tables, each batch stored exactly once.
 *
 * Tables on the server (created on first use, in the URL's database):
 *   gpulog_events, gpulog_samples, gpulog_spans, gpulog_mem_events,
 *   gpulog_rejects, gpulog_runs: a node's rows, one server row per row
 *     (per sample for gpulog_samples), names resolved to strings; every
 *     table has node (the shipping database's name), src_id (the row's id
 *     in that database: sample_blocks.id for samples) and host (the
 *     --host label, '' when none); partitioned by UTC day
 *     (intDiv(ts_us, 86400000000)), ordered by (host, ts_us, node, src_id).
 *     (samples: (host, metric, ts_us, node, src_id, idx)).
 *   gpulog_names: the names table (node, src_id, name), not partitioned:
 *     a report from the server numbers names as one database of the
 *     nodes would (sections break ties by name id).
 *   gpulog_nodes: (node, files, shipped_us), one row per ship: the node's
 *     count of files, which the report's summary shows.
 *   gpulog_ship_log: the marks. One row per batch stored: (node, tbl,
 *     first_id, last_id, rows, shipped_us). A table's mark is the
 *     greatest last_id of its node.
 *
 * Exactly once. Per table: a batch is the rows with mark < id <= upto in
 * id order; it is stored by one INSERT (one block on the server, under
 * the query id "gpulog-ship-NODE-TABLE"), then its mark row. Before its
 * first batch, and again after any failure, the shipper looks at what the
 * server holds past the mark: it waits until no query with that id runs,
 * then counts the node's rows with src_id > mark. None: nothing pending.
 * As many as the database has in (mark, greatest src_id]: the batch was
 * stored and its mark was not (killed between the two), so only the mark
 * is written. Fewer (a server stopped in the middle of an insert spread
 * over several day partitions): they are deleted (ALTER TABLE DELETE,
 * waited for) and the batch is sent again. No row is stored twice.
 *
 * Settled rows only. A record the ingest may still replace (the last
 * record of a stream whose last line had no newline: streams.open_end)
 * and every row after it in id order wait for the next run; an
 * unfinished ingest run's runs row waits too. Ids of a table only grow
 * (SQLite gives max(id) + 1), so a mark never passes a row not yet seen.
 * Rows without a time (events.ts_us NULL) are counted under the mark but
 * not sent: no report window holds them.
 */
#ifndef GL_SHIP_H
#define GL_SHIP_H

#include "../gpulog.h"

/* A ClickHouse string literal's body for s ('\'' and '\\' escaped) into
 * out (at most n bytes with the NUL). Returns out. For tests too. */
char *gl_ship_quote(const char *s, char *out, size_t n);

/*
 * The TSV of one value as ClickHouse's TabSeparated reads it: NULL as \N,
 * backslash, tab, newline, carriage return and NUL escaped. Appends to *b.
 */
struct gl_buf;
int gl_ship_tsv_text(struct gl_buf *b, const char *s, size_t n);

#endif
