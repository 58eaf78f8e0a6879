/*
 * store_migrate.c - a new database's schema, and the migrations of an older
 * one to this version's: once per database, at open, before any batch.
 * In: an open, locked database and its user_version. Out: the database at
 * GL_SCHEMA_VERSION, every row kept (a migration that adds a fact the rows
 * did not have, such as events.kind, fills it from what they had).
 */
#include "store_int.h"
#include "store_schema.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../util/bigmem.h"
#include "../util/hash.h"
#include "../util/timeutil.h"
#include "evpack.h"
#include "schema_sql.h"
#include "kinds_v7.h"
#include "kinds_v8.h"
#include "operations.h"

/*
 * Migrations from version v to v + 1, applied in order, each in one
 * transaction with its new user_version. A new schema version adds its
 * statements here and changes share/schema.sql to the same result, so a
 * migrated database and a fresh one are alike (tests/cli/t_ingest_migrate.sh
 * compares them).
 */
static const char *const migrations[GL_SCHEMA_VERSION] = {
	/* 0 -> 1: a fresh database is created from schema.sql, never migrated */
	NULL,
	/* 1 -> 2: rejects get the time of the record before them */
	"ALTER TABLE rejects ADD COLUMN ts_us INTEGER;"
	"CREATE INDEX rejects_ts ON rejects (ts_us);"
	"DROP VIEW v_rejects;"
	"CREATE VIEW v_rejects AS"
	" SELECT r.id, strftime('%Y-%m-%dT%H:%M:%fZ', r.ts_us / 1e6, 'unixepoch') AS time,"
	"       f.path, r.line, r.offset, r.reason, r.length,"
	"       CAST(r.excerpt AS TEXT) AS excerpt, r.run_id"
	" FROM rejects r LEFT JOIN files f ON f.id = r.file_id;",
	/*
	 * 2 -> 3: metric samples and series; the append-only paths table
	 * (rows read so far get the path their file row has now: the best
	 * that is known of them); per-stream parse state; record hashes and
	 * duplicates (marked by mark_old_duplicates() after this); the
	 * kernel-trace columns of events and the spans of profiler traces.
	 */
	"CREATE TABLE paths (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);"
	"ALTER TABLE runs ADD COLUMN pruned_before_us INTEGER;"
	"INSERT INTO paths (path) SELECT path FROM files WHERE path IS NOT NULL ORDER BY id;"
	"ALTER TABLE streams ADD COLUMN parse_state BLOB;"
	"ALTER TABLE streams ADD COLUMN lines_hashed INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE streams ADD COLUMN open_end INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE stream_lines (stream_id INTEGER NOT NULL REFERENCES streams(id),"
	" first_line INTEGER NOT NULL, hashes BLOB NOT NULL, PRIMARY KEY (stream_id, first_line));"
	"ALTER TABLE events ADD COLUMN path_id INTEGER REFERENCES paths(id);"
	"ALTER TABLE events ADD COLUMN rec_hash INTEGER;"
	"ALTER TABLE events ADD COLUMN dup_of INTEGER;"
	"ALTER TABLE events ADD COLUMN launch_overhead_us REAL;"
	"ALTER TABLE events ADD COLUMN queue_us REAL;"
	"ALTER TABLE events ADD COLUMN occupancy REAL;"
	"ALTER TABLE events ADD COLUMN device TEXT;"
	"ALTER TABLE events ADD COLUMN stream TEXT;"
	"ALTER TABLE events ADD COLUMN grid TEXT;"
	"ALTER TABLE events ADD COLUMN block TEXT;"
	"ALTER TABLE events ADD COLUMN registers INTEGER;"
	"ALTER TABLE events ADD COLUMN shared_mem_bytes INTEGER;"
	"ALTER TABLE events ADD COLUMN corr_id INTEGER;"
	"ALTER TABLE events ADD COLUMN scope_id INTEGER REFERENCES names(id);"
	"ALTER TABLE events ADD COLUMN stack_id INTEGER REFERENCES names(id);"
	"ALTER TABLE events ADD COLUMN source TEXT;"
	"CREATE TABLE spans (id INTEGER PRIMARY KEY, start_us INTEGER NOT NULL, dur_us REAL NOT NULL,"
	" name_id INTEGER REFERENCES names(id), scope_id INTEGER REFERENCES names(id),"
	" depth INTEGER NOT NULL, device TEXT, source TEXT NOT NULL,"
	" host_id INTEGER REFERENCES names(id), stream_id INTEGER NOT NULL REFERENCES streams(id),"
	" line INTEGER NOT NULL, file_id INTEGER REFERENCES files(id),"
	" path_id INTEGER REFERENCES paths(id));"
	"CREATE INDEX spans_start ON spans (start_us);"
	"ALTER TABLE mem_events ADD COLUMN path_id INTEGER REFERENCES paths(id);"
	"ALTER TABLE rejects ADD COLUMN path_id INTEGER REFERENCES paths(id);"
	"CREATE TEMP TABLE file_path AS SELECT f.id AS file_id, p.id AS path_id"
	" FROM files f JOIN paths p ON p.path = f.path;"
	"CREATE INDEX temp.file_path_id ON file_path (file_id);"
	"UPDATE events SET path_id = (SELECT path_id FROM file_path WHERE file_id = events.file_id),"
	" rec_hash = gl_rec_hash(ts_us, level,"
	"  (SELECT name FROM names WHERE id = events.component_id),"
	"  (SELECT name FROM names WHERE id = events.host_id),"
	"  (SELECT name FROM names WHERE id = events.kernel_id), message, metadata, dur_us, exec_ms,"
	"  mem_mb, alloc_mb, peak_mb, util_pct, error_count, recovery_attempts, anomaly);"
	"UPDATE mem_events SET path_id = (SELECT path_id FROM file_path WHERE file_id = mem_events.file_id);"
	"UPDATE rejects SET path_id = (SELECT path_id FROM file_path WHERE file_id = rejects.file_id);"
	"DROP TABLE temp.file_path;"
	"DROP INDEX events_ts;"
	"CREATE INDEX events_ts ON events (ts_us, rec_hash);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, metric_id INTEGER NOT NULL REFERENCES names(id),"
	" device TEXT, host_id INTEGER REFERENCES names(id), source TEXT NOT NULL, labels TEXT);"
	"CREATE UNIQUE INDEX series_key ON series"
	" (metric_id, ifnull(device, ''), ifnull(host_id, 0), source, ifnull(labels, ''));"
	"CREATE TABLE samples (ts_us INTEGER NOT NULL, id INTEGER NOT NULL,"
	" series_id INTEGER NOT NULL REFERENCES series(id), value REAL NOT NULL,"
	" ts_estimated INTEGER NOT NULL DEFAULT 0, stream_id INTEGER NOT NULL REFERENCES streams(id),"
	" line INTEGER NOT NULL, file_id INTEGER REFERENCES files(id),"
	" path_id INTEGER REFERENCES paths(id), PRIMARY KEY (ts_us, id)) WITHOUT ROWID;"
	"CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"INSERT INTO counters (name, value) VALUES ('samples.id', 1);"
	"DROP VIEW v_events; DROP VIEW v_mem_events; DROP VIEW v_rejects;"
	"CREATE VIEW v_events AS"
	" SELECT e.id, strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_us / 1e6, 'unixepoch') AS time,"
	"       e.ts_us, l.name AS level, c.name AS component, h.name AS host,"
	"       k.name AS kernel, e.dur_us, e.exec_ms, e.mem_mb, e.alloc_mb, e.peak_mb,"
	"       e.util_pct, e.error_count, e.recovery_attempts, e.anomaly,"
	"       e.message, e.metadata, ifnull(p.path, f.path) AS path, e.line, e.dup_of,"
	"       e.launch_overhead_us, e.queue_us, e.occupancy, e.device, e.stream, e.grid,"
	"       e.block, e.registers, e.shared_mem_bytes, e.corr_id, sc.name AS scope,"
	"       sk.name AS stack, e.source"
	" FROM events e JOIN levels l ON l.id = e.level"
	" LEFT JOIN names c ON c.id = e.component_id LEFT JOIN names h ON h.id = e.host_id"
	" LEFT JOIN names k ON k.id = e.kernel_id LEFT JOIN names sc ON sc.id = e.scope_id"
	" LEFT JOIN names sk ON sk.id = e.stack_id LEFT JOIN paths p ON p.id = e.path_id"
	" LEFT JOIN files f ON f.id = e.file_id;"
	"CREATE VIEW v_spans AS"
	" SELECT s.id, strftime('%Y-%m-%dT%H:%M:%fZ', s.start_us / 1e6, 'unixepoch') AS time,"
	"       s.start_us, s.dur_us, n.name AS name, sc.name AS scope, s.depth, s.device,"
	"       s.source, h.name AS host, p.path, s.line"
	" FROM spans s LEFT JOIN names n ON n.id = s.name_id LEFT JOIN names sc ON sc.id = s.scope_id"
	" LEFT JOIN names h ON h.id = s.host_id LEFT JOIN paths p ON p.id = s.path_id;"
	"CREATE VIEW v_mem_events AS"
	" SELECT m.id, strftime('%Y-%m-%dT%H:%M:%fZ', m.ts_us / 1e6, 'unixepoch') AS time,"
	"       m.ts_us, m.thread,"
	"       CASE m.action WHEN 0 THEN 'allocate' WHEN 1 THEN 'free' ELSE 'allocate failure' END AS action,"
	"       printf('0x%x', m.ptr) AS ptr, m.size_bytes, printf('0x%x', m.cuda_stream) AS cuda_stream,"
	"       ifnull(p.path, f.path) AS path, m.line"
	" FROM mem_events m LEFT JOIN paths p ON p.id = m.path_id LEFT JOIN files f ON f.id = m.file_id;"
	"CREATE VIEW v_rejects AS"
	" SELECT r.id, strftime('%Y-%m-%dT%H:%M:%fZ', r.ts_us / 1e6, 'unixepoch') AS time,"
	"       ifnull(p.path, f.path) AS path, r.line, r.offset, r.reason, r.length,"
	"       CAST(r.excerpt AS TEXT) AS excerpt, r.run_id"
	" FROM rejects r LEFT JOIN paths p ON p.id = r.path_id LEFT JOIN files f ON f.id = r.file_id;"
	"CREATE VIEW v_samples AS"
	" SELECT s.id, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_us / 1e6, 'unixepoch') AS time,"
	"       s.ts_us, m.name AS metric, s.value, r.device, h.name AS host, r.source,"
	"       r.labels, s.ts_estimated, p.path, s.line, s.series_id"
	" FROM samples s JOIN series r ON r.id = s.series_id JOIN names m ON m.id = r.metric_id"
	" LEFT JOIN names h ON h.id = r.host_id LEFT JOIN paths p ON p.id = s.path_id;",
	/*
	 * 3 -> 4: samples packed per series in blocks (the rows of samples
	 * converted by migrate_samples() after this; then samples and its
	 * counter go).
	 */
	"CREATE TABLE sample_blocks (id INTEGER PRIMARY KEY,"
	" series_id INTEGER NOT NULL REFERENCES series(id), t0_us INTEGER NOT NULL,"
	" t1_us INTEGER NOT NULL, n INTEGER NOT NULL, ts_estimated INTEGER NOT NULL DEFAULT 0,"
	" stream_id INTEGER NOT NULL REFERENCES streams(id), line0 INTEGER NOT NULL,"
	" line1 INTEGER NOT NULL, file_id INTEGER REFERENCES files(id),"
	" path_id INTEGER REFERENCES paths(id), data TEXT NOT NULL);"
	"CREATE INDEX sample_blocks_t0 ON sample_blocks (t0_us);",
	/*
	 * 4 -> 5: the index of kernel timings by (kernel_id, ts_us) goes: each
	 * timing's entry cost a fifth of a kernel trace's ingest (its pages
	 * written again at every batch), and the report reads kernel timings
	 * in time order (reports/kernel_cache.c).
	 */
	"DROP INDEX IF EXISTS events_kernel_ts;",
	/*
	 * 5 -> 6: the report's fields of each event packed in one column
	 * (lib/store/evpack.h), made of the stored columns by gl_ev_pack(),
	 * and the trigger that clears it when one of those columns changes.
	 */
	"ALTER TABLE events ADD COLUMN packed BLOB;"
	"UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ");"
	"CREATE TRIGGER events_packed_stale AFTER UPDATE OF " GL_EVPACK_COLUMNS
	" ON events WHEN new.packed IS NOT NULL"
	" BEGIN UPDATE events SET packed = NULL WHERE id = new.id; END;",
	/*
	 * 6 -> 7: events_ts also holds dup_of and packed, so that the report
	 * reads a window's events from the index alone (lib/store/query.c).
	 */
	"DROP INDEX events_ts;"
	"CREATE INDEX events_ts ON events (ts_us, rec_hash, dup_of, packed);",
	/*
	 * 7 -> 8: each event's kind, as its parser knew it (lib/record/record.h),
	 * and the kinds the table holds; the rows stored before are given
	 * theirs by fill_kinds_v7() after this.
	 */
	"ALTER TABLE events ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE event_kinds (kind INTEGER PRIMARY KEY);",
	/*
	 * 8 -> 9: the kinds of fact (a trainer's step, a driver's Xid, a GPU of
	 * nvidia-smi -q), given to the rows stored before by fill_kinds_v8()
	 * after this; no table changes.
	 */
	"",
	/*
	 * 9 -> 10: the operation timings as the ingest finds them (table
	 * operations), filled for the rows stored before by
	 * gl_store_fill_operations() (operations.c) after this.
	 */
	"CREATE TABLE operations (event_id INTEGER PRIMARY KEY,"
	" name_id INTEGER REFERENCES names(id), ms REAL NOT NULL, throughput REAL);",
	/*
	 * 10 -> 11: a block of few samples is stored open and merged with the
	 * other open blocks of its series at the end of a run (sblock_merge.c),
	 * its samples' origins listed in the block. Every block stored before
	 * is closed, of one origin: the columns' defaults, no row rewritten.
	 */
	"ALTER TABLE sample_blocks ADD COLUMN open INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sample_blocks ADD COLUMN origins TEXT;"
	"CREATE INDEX sample_blocks_open ON sample_blocks (open) WHERE open = 1;"
	"CREATE TABLE sample_stage (id INTEGER PRIMARY KEY, n INTEGER NOT NULL,"
	" origins TEXT NOT NULL, data TEXT NOT NULL);"
	"CREATE TABLE sample_merge (stage_hi INTEGER NOT NULL, series_done INTEGER NOT NULL);"
	"DROP VIEW v_samples;"
	"CREATE VIEW v_samples AS"
	" SELECT b.id * 4096 + j.key AS id,"
	"       strftime('%Y-%m-%dT%H:%M:%fZ', (b.t0_us + (j.value ->> 0)) / 1e6, 'unixepoch') AS time,"
	"       b.t0_us + (j.value ->> 0) AS ts_us, m.name AS metric,"
	"       CAST(j.value ->> 1 AS REAL) AS value,"
	"       r.device, h.name AS host, r.source, r.labels, b.ts_estimated, p.path,"
	"       b.line0 + (j.value ->> 2) AS line, b.series_id, b.id AS block_id"
	" FROM sample_blocks b JOIN json_each(b.data) j JOIN series r ON r.id = b.series_id"
	" JOIN names m ON m.id = r.metric_id LEFT JOIN names h ON h.id = r.host_id"
	" LEFT JOIN paths p ON p.id = CASE WHEN b.origins IS NULL THEN b.path_id"
	"  ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][2]') END"
	" UNION ALL"
	" SELECT s.id * 65536 + j.key - 4611686018427387904,"
	"       strftime('%Y-%m-%dT%H:%M:%fZ', (j.value ->> 2) / 1e6, 'unixepoch'),"
	"       j.value ->> 2, m.name, CAST(j.value ->> 3 AS REAL), r.device, h.name, r.source,"
	"       r.labels, j.value ->> 1, p.path, j.value ->> 4, r.id, NULL"
	" FROM sample_stage s JOIN json_each(s.data) j JOIN series r ON r.id = j.value ->> 0"
	" JOIN names m ON m.id = r.metric_id LEFT JOIN names h ON h.id = r.host_id"
	" LEFT JOIN paths p ON p.id = s.origins ->> ('$[' || (j.value ->> 5) || '][2]')"
	" WHERE NOT EXISTS (SELECT 1 FROM sample_merge k WHERE s.id <= k.stage_hi"
	"  AND j.value ->> 0 <= k.series_done);",
	/*
	 * 11 -> 12: the messages of the rows at WARN and above in time order,
	 * for the report (share/schema.sql says why). A pass over every row.
	 */
	"CREATE INDEX events_warn ON events (ts_us, message) WHERE level >= 4;",
};

/* After 9 -> 10: the packings of the rows found to be operations carry them,
 * as the ingest packs them (evpack.h). */
static const char repack_ops_sql[] =
	"UPDATE events SET packed = gl_ev_pack_op(events.packed, o.ms, o.throughput, o.name_id)"
	" FROM operations o WHERE o.event_id = events.id AND events.packed IS NOT NULL;";

/* A kind given to the rows stored before it was stored. */
struct kind_fill {
	const char *streams;	/* a stream that may hold rows of the kind */
	const char *update;	/* gives them their kind */
	int kind;
};

/*
 * Applies fill[0..n) in order, and lists each kind found in event_kinds. A
 * kind is looked for only where a stream of a format that wrote it exists:
 * each is a pass over every row.
 */
static int fill_kinds(struct gl_store *st, const struct kind_fill *fill, size_t n,
		      struct gl_err *err)
{
	int rc = GL_OK;

	for (size_t i = 0; i < n && rc == GL_OK; i++) {
		char sql[160];
		int64_t any = 0;

		snprintf(sql, sizeof(sql), "SELECT EXISTS (SELECT 1 FROM streams WHERE %s)",
			 fill[i].streams);
		if ((rc = gl_store_pragma_int(st, sql, &any, err)) != GL_OK || !any)
			continue;
		if ((rc = gl_store_exec(st, fill[i].update, err)) != GL_OK)
			break;
		if (sqlite3_changes64(st->db) > 0) {
			snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO event_kinds VALUES (%d)",
				 fill[i].kind);
			rc = gl_store_exec(st, sql, err);
		}
	}
	return rc;
}

/*
 * After the 7 -> 8 migration: the kind of each row stored before, as the
 * format of its stream tells (kinds_v7.h), and the kinds found (log
 * lines, 0, too) into event_kinds.
 */
static int fill_kinds_v7(struct gl_store *st, struct gl_err *err)
{
#define IN_STREAMS(cond) "stream_id IN (SELECT id FROM streams WHERE " cond ")"
	static const struct kind_fill fill[] = {
		{GL_KINDS_V7_STREAMS_TRACE,
		 "UPDATE events SET kind = 1 WHERE " GL_KINDS_V7_IS_TRACE(""), GL_EV_TRACE},
		{GL_KINDS_V7_STREAMS_ALERT,
		 "UPDATE events SET kind = 2 WHERE " IN_STREAMS(GL_KINDS_V7_STREAMS_ALERT)
		 " AND " GL_KINDS_V7_IS_ALERT(""), GL_EV_ALERT},
		{GL_KINDS_V7_STREAMS_ACCESS,
		 "UPDATE events SET kind = 4 WHERE " IN_STREAMS(GL_KINDS_V7_STREAMS_ACCESS)
		 " AND " GL_KINDS_V7_IS_ACCESS_FAILED(""), GL_EV_ACCESS_FAILED},
		{GL_KINDS_V7_STREAMS_ACCESS,
		 "UPDATE events SET kind = 3 WHERE " IN_STREAMS(GL_KINDS_V7_STREAMS_ACCESS)
		 " AND kind = 0 AND " GL_KINDS_V7_IS_ACCESS(""), GL_EV_ACCESS},
	};
#undef IN_STREAMS
	int rc = fill_kinds(st, fill, sizeof(fill) / sizeof(fill[0]), err);

	if (rc == GL_OK)
		rc = gl_store_exec(st, "INSERT INTO event_kinds SELECT 0"
				 " WHERE EXISTS (SELECT 1 FROM events WHERE kind = 0)", err);
	return rc;
}

/*
 * After the 8 -> 9 migration: the kind of fact of each row stored before,
 * as the format of its stream and its metadata tell (kinds_v8.h), and the
 * kinds found into event_kinds.
 */
static int fill_kinds_v8(struct gl_store *st, struct gl_err *err)
{
#define FILL_V8(kind, key, streams)                                                            \
	{streams, "UPDATE events SET kind = " #kind " WHERE kind = 0 AND stream_id IN"       \
		  " (SELECT id FROM streams WHERE " streams ") AND "                           \
		  GL_KINDS_V8_IS_FACT("", key), kind},
	static const struct kind_fill fill[] = {GL_KINDS_V8_FACTS(FILL_V8)};
#undef FILL_V8

	return fill_kinds(st, fill, sizeof(fill) / sizeof(fill[0]), err);
}

/* The end of migration 3 -> 4, after the rows are converted. */
static const char samples_v4_sql[] =
	"DROP VIEW v_samples; DROP TABLE samples; DROP TABLE counters;"
	"CREATE VIEW v_samples AS"
	" SELECT b.id * 4096 + j.key AS id,"
	"       strftime('%Y-%m-%dT%H:%M:%fZ', (b.t0_us + (j.value ->> 0)) / 1e6, 'unixepoch') AS time,"
	"       b.t0_us + (j.value ->> 0) AS ts_us, m.name AS metric,"
	"       CAST(j.value ->> 1 AS REAL) AS value,"
	"       r.device, h.name AS host, r.source, r.labels, b.ts_estimated, p.path,"
	"       b.line0 + (j.value ->> 2) AS line, b.series_id, b.id AS block_id"
	" FROM sample_blocks b JOIN json_each(b.data) j JOIN series r ON r.id = b.series_id"
	" JOIN names m ON m.id = r.metric_id LEFT JOIN names h ON h.id = r.host_id"
	" LEFT JOIN paths p ON p.id = b.path_id;";

/*
 * The rule for duplicates, applied to the rows of one (ts_us, rec_hash)
 * group in id order (ids[0..n), streams[0..n)): a row is a duplicate of
 * the first earlier original of another stream; else it is an original.
 * Sets dup[i] (0: original). The ingest probe (put_event) applies the same
 * rule one row at a time.
 */
static void dup_rule(const int64_t *ids, const int64_t *streams, int64_t *dup, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dup[i] = 0;
		for (size_t k = 0; k < i && !dup[i]; k++)
			if (!dup[k] && streams[k] != streams[i])
				dup[i] = ids[k];
	}
}

/*
 * After the 2 -> 3 migration: marks duplicates among the rows stored
 * before, group by group. Only groups with rows of two streams or more
 * are read (one pass over the events_ts index finds them).
 */
static int mark_old_duplicates(struct gl_store *st, struct gl_err *err)
{
	sqlite3_stmt *g = NULL, *r = NULL, *u = NULL;
	int64_t *ids = NULL, *streams = NULL, *dup = NULL;
	size_t cap = 0;
	int rc = GL_OK, sr;

	if ((rc = gl_store_exec(st, "CREATE TEMP TABLE dup_groups AS SELECT ts_us, rec_hash FROM events"
			  " WHERE ts_us IS NOT NULL GROUP BY ts_us, rec_hash"
			  " HAVING count(DISTINCT stream_id) > 1", err)) != GL_OK)
		return rc;
	if (sqlite3_prepare_v2(st->db, "SELECT ts_us, rec_hash FROM temp.dup_groups", -1, &g, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "SELECT id, stream_id FROM events INDEXED BY events_ts"
			       " WHERE ts_us = ?1 AND rec_hash = ?2 ORDER BY id", -1, &r, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "UPDATE events SET dup_of = ?2 WHERE id = ?1", -1, &u, NULL) !=
		    SQLITE_OK) {
		rc = gl_store_db_err(st, err, "cannot migrate database");
		goto out;
	}
	while (rc == GL_OK && (sr = sqlite3_step(g)) == SQLITE_ROW) {
		size_t n = 0;

		sqlite3_bind_int64(r, 1, sqlite3_column_int64(g, 0));
		sqlite3_bind_int64(r, 2, sqlite3_column_int64(g, 1));
		while (sqlite3_step(r) == SQLITE_ROW) {
			if (n == cap) {
				size_t c = cap ? cap * 2 : 16;
				int64_t *a = realloc(ids, c * sizeof(*a)), *b2, *d;

				if (a)
					ids = a;
				b2 = a ? realloc(streams, c * sizeof(*b2)) : NULL;
				if (b2)
					streams = b2;
				d = b2 ? realloc(dup, c * sizeof(*d)) : NULL;
				if (!d) {
					rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
					break;
				}
				dup = d;
				cap = c;
			}
			ids[n] = sqlite3_column_int64(r, 0);
			streams[n++] = sqlite3_column_int64(r, 1);
		}
		sqlite3_reset(r);
		if (rc != GL_OK)
			break;
		dup_rule(ids, streams, dup, n);
		for (size_t i = 0; i < n && rc == GL_OK; i++) {
			if (!dup[i])
				continue;
			sqlite3_bind_int64(u, 1, ids[i]);
			sqlite3_bind_int64(u, 2, dup[i]);
			if (sqlite3_step(u) != SQLITE_DONE)
				rc = gl_store_db_err(st, err, "cannot migrate database");
			sqlite3_reset(u);
		}
	}
	if (rc == GL_OK && sr != SQLITE_DONE)
		rc = gl_store_db_err(st, err, "cannot migrate database");
out:
	sqlite3_finalize(g);
	sqlite3_finalize(r);
	sqlite3_finalize(u);
	free(ids);
	free(streams);
	free(dup);
	if (rc == GL_OK)
		rc = gl_store_exec(st, "DROP TABLE temp.dup_groups", err);
	return rc;
}


int gl_store_migrate(struct gl_store *st, int fresh, struct gl_err *err)
{
	int64_t app = 0, ver = 0, pages = 0;
	int rc;

	/*
	 * A run killed while its creating transaction was under way leaves a
	 * new file (half or wholly written) and the journal that undoes it:
	 * the first read rolls it back to an empty file, which we (holding the
	 * lock) create.
	 */
	if (!fresh) {
		if ((rc = gl_store_exec(st, "SELECT count(*) FROM sqlite_master", err)) != GL_OK ||
		    (rc = gl_store_pragma_int(st, "PRAGMA page_count", &pages, err)) != GL_OK)
			return rc;
		fresh = pages == 0;
	}
	if (fresh) {
		/* Created in rollback-journal mode so the header (application_id)
		 * is in the main file when the transaction commits. */
		/* auto_vacuum before the first table, so that retention gives
		 * space back with incremental_vacuum (prune.c); inside the
		 * transaction, since outside it writes the header at once and a
		 * kill would leave a file that is no gpulog database. */
		/* A database built aside is synced once, before it is moved into
		 * place (build.c): its creation need not be (four fsyncs, ~15 ms
		 * of a run's start). */
		if ((st->build.path && (rc = gl_store_exec(st, GL_BUILD_PRAGMAS, err)) != GL_OK) ||
		    (rc = gl_store_exec(st, st->build.path
					      ? "PRAGMA page_size=" GL_STR(GL_PAGE_SIZE) "; BEGIN;"
						" PRAGMA auto_vacuum=INCREMENTAL;"
					      : "PRAGMA page_size=" GL_STR(GL_PAGE_SIZE) ";"
						" PRAGMA journal_mode=DELETE; BEGIN;"
						" PRAGMA auto_vacuum=INCREMENTAL;",
				  err)) != GL_OK)
			return rc;
		if ((rc = gl_store_exec(st, gl_schema_sql, err)) != GL_OK ||
		    (rc = gl_store_exec(st, "PRAGMA application_id=1735420007; PRAGMA user_version="
				  GL_STR(GL_SCHEMA_VERSION) "; COMMIT;", err)) != GL_OK) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	if ((rc = gl_store_pragma_int(st, "PRAGMA application_id", &app, err)) != GL_OK ||
	    (rc = gl_store_pragma_int(st, "PRAGMA user_version", &ver, err)) != GL_OK)
		return rc;
	if (app != GL_APPLICATION_ID)
		return gl_err_set(err, GL_ENOTGPULOG, st->path, 0, "not a gpulog database",
				  "refusing database");
	if (ver == 0)
		return gl_err_set(err, GL_ENOTGPULOG, st->path, 0,
				  "gpulog schema version 0 (its creation never completed)",
				  "refusing database");
	if (ver > GL_SCHEMA_VERSION)
		return gl_err_set(err, GL_ENEWER, st->path, 0,
				  "written by a newer gpulog (schema version too high)",
				  "refusing database");
	if (ver < GL_SCHEMA_VERSION && st->notice) {
		struct gl_err e;
		char why[96];

		snprintf(why, sizeof(why), "from schema %lld to %d, once; a pass over every row",
			 (long long)ver, GL_SCHEMA_VERSION);
		gl_err_set(&e, GL_OK, st->path, 0, why, "migrating database");
		st->notice(st->notice_arg, &e);
	}
	for (; ver < GL_SCHEMA_VERSION; ver++) {
		char sql[64];

		if ((rc = gl_store_exec(st, "BEGIN", err)) != GL_OK)
			return rc;
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%lld", (long long)ver + 1);
		if ((rc = gl_store_exec(st, migrations[ver], err)) != GL_OK ||
		    (ver == 2 && (rc = mark_old_duplicates(st, err)) != GL_OK) ||
		    (ver == 3 && ((rc = gl_sblock_migrate(st->db, st->path, err)) != GL_OK ||
				  (rc = gl_store_exec(st, samples_v4_sql, err)) != GL_OK)) ||
		    (ver == 7 && (rc = fill_kinds_v7(st, err)) != GL_OK) ||
		    (ver == 8 && (rc = fill_kinds_v8(st, err)) != GL_OK) ||
		    (ver == 9 && ((rc = gl_store_fill_operations(st->db, st->path, err)) != GL_OK ||
				  (rc = gl_store_exec(st, repack_ops_sql, err)) != GL_OK)) ||
		    (rc = gl_store_exec(st, sql, err)) != GL_OK ||
		    (rc = gl_store_exec(st, "COMMIT", err)) != GL_OK) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	return GL_OK;
}
