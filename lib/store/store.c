/*
 * store.c - SQLite write side. In: batches from the ingest pipeline.
 * Out: rows in events / mem_events / rejects and the ingest state (streams,
 * checkpoints, files), each batch in one transaction.
 *
 * Durability choices: WAL with synchronous=NORMAL. A killed process (the
 * case cron users meet) never loses a committed transaction and never sees
 * half of one; only a power cut may lose the last commits, which the next
 * run then reads again, since the state went with them.
 *
 * A new database (GL_STORE_BUILD) is built aside instead, in <db>-build,
 * with its rollback journal in memory and no syncs: each page is written
 * once, not to the WAL and again by the checkpoint (a fifth of a first
 * ingest's time). gl_store_finish() syncs it and renames it over <db>. A
 * killed build leaves <db> empty, as before the run; the next run deletes
 * the build and starts over. Either way the state went with the rows.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <pthread.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../util/bigmem.h"
#include "../util/hash.h"
#include "../util/timeutil.h"
#include "schema_sql.h"
#include "evpack.h"
#include "evtab.h"
#include "sblock_db.h"
#include "build.h"

struct name_slot {
	uint64_t hash;
	int64_t id;		/* 0: empty slot */
	char *name;
	size_t len;
};

/*
 * An in-memory map from bytes to the id of their row, loaded at open and
 * kept in step with the table: names (components, kernels, hosts,
 * metrics), paths, and series (keyed by series_key()).
 */
struct intern {
	struct name_slot *v;
	size_t n, cap;		/* cap: power of two */
};

/* A WAL longer than this is checkpointed (in the background). */
#define GL_CHECKPOINT_BYTES_WAL (16 << 20)
#define GL_MEMO_SLOTS 64	/* struct gl_store's name_memo and series_memo */
/*
 * A writer that commits without pause never lets SQLite start the WAL
 * over, even when every frame is copied; past this size the writer waits
 * for the background checkpoint in progress and makes the WAL restart
 * (most frames are copied already; what is left is the rest and a sync).
 */
#define GL_RESTART_BYTES_WAL (128 << 20)
/* Page size of new databases: fewer, shallower B-tree pages per row. */
#define GL_PAGE_SIZE 16384

/*
 * Checkpoints run on their own thread and connection: copying the WAL into
 * the database and the fsyncs around it then never stall the thread that
 * inserts (they did: 1.5 s of waiting in a 4 s ingest of 1M lines).
 */
struct checkpointer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;
	int64_t page_size;	/* of the database (an old one may have 4 KiB pages) */
	int started, wanted, stop;
	int running;		/* a background checkpoint is in progress */
	int held;		/* the writer is restarting the WAL: start none */
};

struct gl_store {
	sqlite3 *db;
	struct checkpointer ck;
	int lock_fd;
	char *path;
	struct gl_build build;	/* a new database built aside; build.path NULL: in place */
	sqlite3_stmt *ins_ev, *ins_log, *ins_mem, *ins_rej, *put_stream, *put_cp, *put_file, *unpath,
		*ins_name, *ins_path, *ins_series, *dup_probe, *dup_probe_nots, *get_lines, *set_lines, *ins_span;
	struct gl_sbw *sbw;	/* the batch's samples, stored as blocks */
	struct intern names, paths, series;
	/* the last path looked up: rows of one file in a batch share its copy */
	const char *last_path;
	size_t last_path_len;
	int64_t last_path_id;
	/*
	 * Ids by string address, for the put under way: a batch's names are
	 * copied once per batch and shared by its rows (gl_batch_name), and
	 * within one put an address and a length name one string, so a
	 * name's id is found without hashing its bytes again. Emptied at the
	 * start of every put (the batch memory is reused for other strings).
	 */
	struct memo { const char *p, *q, *r, *src; size_t len, qlen, rlen; int64_t host, id; }
		name_memo[GL_MEMO_SLOTS], series_memo[GL_MEMO_SLOTS];
	char *key;		/* series_key() buffer */
	size_t keycap;
	uint64_t duplicates;	/* events marked dup_of since open */
	uint64_t samples;	/* samples stored since open */
	unsigned char *ev_dup;	/* per event of the batch being put: 1 marked as a mirror */
	unsigned char *ev_maybe;	/* per event: 1 when the filter (bloom_pass) knew its hash */
	size_t ev_dup_cap;	/* of both */
	/*
	 * Which events need the mirror probe (an index lookup per event, a
	 * tenth of the writer's time): one with a time after every event
	 * stored before this connection opened (pre_max_ts) whose record hash
	 * is not in the Bloom filter of the events put since cannot have an
	 * original, and is not looked up. The filter has no false negatives,
	 * so every event that may have one still is.
	 */
	int64_t pre_max_ts;	/* max(events.ts_us) at open; INT64_MIN: none */
	uint64_t *bloom;	/* GL_BLOOM_BITS bits, allocated at the first event */
	/*
	 * The last probe's answer per (time, record hash), by slot. The probe
	 * walks every stored row of its (ts_us, rec_hash) until one of another
	 * stream: for the same record repeated in one stream (a retry loop
	 * logging one line many times within a second of a format with
	 * second-resolution times) that is every earlier copy, each time:
	 * quadratic (30,000 copies took 40 s). The answer for a record of
	 * stream S stays the same until a record with its key is put from
	 * another stream, which always passes here (the Bloom filter knows the
	 * key) and takes the slot. Emptied when rows are deleted or a batch is
	 * rolled back.
	 */
	struct probe_hit *probes;	/* GL_PROBE_SLOTS, allocated with the filter */
	/* ins_ev's rows (evtab.h) and the put they belong to, for ev_row() */
	struct gl_evtab_src evsrc;
	const struct gl_batch *put_batch;
	int64_t put_host_id;
	struct gl_err *put_err;
	int put_rc;		/* what ev_row() failed with */
	void (*notice)(void *arg, const struct gl_err *e);	/* see gl_store_open */
	void *notice_arg;
};

#define GL_PROBE_SLOTS 4096

struct probe_hit {
	int64_t ts_us;
	uint64_t hash;
	int64_t stream_id;	/* 0: empty */
	int64_t dup;		/* the probe's answer: the original's id, or 0 */
};

/* 4 MiB; both bits of a hash in one 64-bit word, so one cache miss: 0.48% false
 * positives at 1M events (two words: 0.33%, two misses; simulated) */
#define GL_BLOOM_BITS (1u << 25)

struct sqlite3 *gl_store_db(struct gl_store *st)
{
	return st->db;
}

static int db_err(struct gl_store *st, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, st->path, 0, sqlite3_errmsg(st->db), "%s", what);
}

static int db_exec(struct gl_store *st, const char *sql, struct gl_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		gl_err_set(err, GL_EDB, st->path, 0, msg ? msg : sqlite3_errmsg(st->db),
			   "cannot update database");
		sqlite3_free(msg);
		return GL_EDB;
	}
	return GL_OK;
}

static int pragma_int(struct gl_store *st, const char *sql, int64_t *v, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot read database");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(st, err, "cannot read database");
	return GL_OK;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Looks at the file's SQLite header without SQLite, so that a file which
 * is not ours is never opened read-write (SQLite could roll back a hot
 * journal or switch it to WAL). Sets *fresh for an empty file.
 */
/*
 * A run killed while it created the database leaves a half-written file and
 * its hot journal (path-journal, not empty): SQLite's next open rolls the
 * file back to empty. Until then its header says nothing.
 */
static int hot_journal(const char *path)
{
	char j[4200];
	struct stat sb;

	if (snprintf(j, sizeof(j), "%s-journal", path) >= (int)sizeof(j))
		return 0;
	return stat(j, &sb) == 0 && sb.st_size > 0;
}

/*
 * Sets *fresh to 1 for an empty file (to be created), else 0: a gpulog
 * database, or one whose creation was interrupted (see hot_journal(): the
 * first read in create_or_migrate() rolls it back to empty and creates it).
 * Refuses other files untouched.
 */
static int check_header(int fd, const char *path, int *fresh, struct gl_err *err)
{
	unsigned char h[100];
	struct stat sb;
	ssize_t n;

	if (fstat(fd, &sb) < 0)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open database");
	*fresh = sb.st_size == 0;
	if (*fresh)
		return GL_OK;
	n = pread(fd, h, sizeof(h), 0);
	if (n < 0)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot read database");
	if ((n < (ssize_t)sizeof(h) || be32(h + 68) != GL_APPLICATION_ID) && hot_journal(path))
		return GL_OK;
	if (n < (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0)
		return gl_err_set(err, GL_ENOTGPULOG, path, 0,
				  "not an SQLite database; the file was left untouched",
				  "refusing database");
	if (be32(h + 68) != GL_APPLICATION_ID)
		return gl_err_set(err, GL_ENOTGPULOG, path, 0,
				  "an SQLite database of another program; the file was left untouched",
				  "refusing database");
	return GL_OK;
}

static int take_lock(struct gl_store *st, int nowait, struct gl_err *err)
{
	/*
	 * flock() on our own descriptor: independent of SQLite's POSIX locks
	 * on Linux. The descriptor stays open until gl_store_close(), after
	 * sqlite3_close(), because closing any descriptor of the file would
	 * drop SQLite's fcntl locks.
	 */
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) == 0)
		return GL_OK;
	if (errno != EWOULDBLOCK)
		return gl_err_set(err, GL_EIO, st->path, 0, strerror(errno), "cannot lock database");
	/* A gpulog-report that reads without a -shm holds a shared lock
	 * (query.h gl_query_connect). */
	static const char held[] = "another gpulog-ingest is writing to it (or a gpulog-report"
				   " that cannot write to its directory is reading it)";

	if (nowait)
		return gl_err_set(err, GL_EBUSY, st->path, 0, held, "database busy");
	if (st->notice) {
		struct gl_err e;

		gl_err_set(&e, GL_EBUSY, st->path, 0, held, "waiting for database");
		st->notice(st->notice_arg, &e);
	}
	while (flock(st->lock_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return gl_err_set(err, GL_EIO, st->path, 0, strerror(errno),
					  "cannot lock database");
	return GL_OK;
}

/* 1 when fd is still the file at path (a finished build renames a new one
 * over it while others wait for the lock of the old). */
static int still_there(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Opens path (creating it) and takes the run lock on that file. */
static int open_locked(struct gl_store *st, int nowait, int *fresh, struct gl_err *err)
{
	int rc;

	for (;;) {
		st->lock_fd = open(st->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (st->lock_fd < 0)
			return gl_err_set(err, GL_EIO, st->path, 0, strerror(errno),
					  "cannot open database");
		if ((rc = check_header(st->lock_fd, st->path, fresh, err)) != GL_OK ||
		    (rc = take_lock(st, nowait, err)) != GL_OK)
			return rc;
		if (still_there(st->lock_fd, st->path))
			break;
		close(st->lock_fd);
		st->lock_fd = -1;
	}
	/* The holder we waited for may have created it meanwhile. */
	return check_header(st->lock_fd, st->path, fresh, err);
}

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
};

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

	if ((rc = db_exec(st, "CREATE TEMP TABLE dup_groups AS SELECT ts_us, rec_hash FROM events"
			  " WHERE ts_us IS NOT NULL GROUP BY ts_us, rec_hash"
			  " HAVING count(DISTINCT stream_id) > 1", err)) != GL_OK)
		return rc;
	if (sqlite3_prepare_v2(st->db, "SELECT ts_us, rec_hash FROM temp.dup_groups", -1, &g, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "SELECT id, stream_id FROM events INDEXED BY events_ts"
			       " WHERE ts_us = ?1 AND rec_hash = ?2 ORDER BY id", -1, &r, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db, "UPDATE events SET dup_of = ?2 WHERE id = ?1", -1, &u, NULL) !=
		    SQLITE_OK) {
		rc = db_err(st, err, "cannot migrate database");
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
				rc = db_err(st, err, "cannot migrate database");
			sqlite3_reset(u);
		}
	}
	if (rc == GL_OK && sr != SQLITE_DONE)
		rc = db_err(st, err, "cannot migrate database");
out:
	sqlite3_finalize(g);
	sqlite3_finalize(r);
	sqlite3_finalize(u);
	free(ids);
	free(streams);
	free(dup);
	if (rc == GL_OK)
		rc = db_exec(st, "DROP TABLE temp.dup_groups", err);
	return rc;
}

/*
 * The connection of a database built aside (build.h): no other connection
 * ever opens the -build file, so it keeps its lock from the first
 * transaction to the close (EXCLUSIVE: without it, every transaction took
 * and dropped its locks, looked for a hot journal and reread the header,
 * ~40 system calls per batch), rolls back from memory and is not synced
 * until it is moved into place.
 */
#define GL_BUILD_PRAGMAS                                                                 \
	"PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"

static int create_or_migrate(struct gl_store *st, int fresh, struct gl_err *err)
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
		if ((rc = db_exec(st, "SELECT count(*) FROM sqlite_master", err)) != GL_OK ||
		    (rc = pragma_int(st, "PRAGMA page_count", &pages, err)) != GL_OK)
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
		if ((st->build.path && (rc = db_exec(st, GL_BUILD_PRAGMAS, err)) != GL_OK) ||
		    (rc = db_exec(st, st->build.path
					      ? "PRAGMA page_size=" GL_STR(GL_PAGE_SIZE) "; BEGIN;"
						" PRAGMA auto_vacuum=INCREMENTAL;"
					      : "PRAGMA page_size=" GL_STR(GL_PAGE_SIZE) ";"
						" PRAGMA journal_mode=DELETE; BEGIN;"
						" PRAGMA auto_vacuum=INCREMENTAL;",
				  err)) != GL_OK)
			return rc;
		if ((rc = db_exec(st, gl_schema_sql, err)) != GL_OK ||
		    (rc = db_exec(st, "PRAGMA application_id=1735420007; PRAGMA user_version="
				  GL_STR(GL_SCHEMA_VERSION) "; COMMIT;", err)) != GL_OK) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	if ((rc = pragma_int(st, "PRAGMA application_id", &app, err)) != GL_OK ||
	    (rc = pragma_int(st, "PRAGMA user_version", &ver, err)) != GL_OK)
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

		if ((rc = db_exec(st, "BEGIN", err)) != GL_OK)
			return rc;
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%lld", (long long)ver + 1);
		if ((rc = db_exec(st, migrations[ver], err)) != GL_OK ||
		    (ver == 2 && (rc = mark_old_duplicates(st, err)) != GL_OK) ||
		    (ver == 3 && ((rc = gl_sblock_migrate(st->db, st->path, err)) != GL_OK ||
				  (rc = db_exec(st, samples_v4_sql, err)) != GL_OK)) ||
		    (rc = db_exec(st, sql, err)) != GL_OK ||
		    (rc = db_exec(st, "COMMIT", err)) != GL_OK) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
	}
	return GL_OK;
}

static int prepare(struct gl_store *st, sqlite3_stmt **s, const char *sql, struct gl_err *err)
{
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot prepare statement");
	return GL_OK;
}

/* The pages of cache_size (below): 8 MiB of 16 KiB pages, and a few more. */
#define GL_CACHE_PAGES (8192 * 1024 / GL_PAGE_SIZE + 16)

/*
 * SQLite's page cache in one region on huge pages (bigmem.h), given to it
 * before it starts (SQLITE_CONFIG_PAGECACHE, process-wide; more pages than
 * it holds come from malloc as before). Page by page from malloc, the
 * first use of the 8 MiB cache was ~2,000 page faults of the writing
 * thread, each a trip through the hypervisor in a VM. Once per process;
 * kept until it ends (SQLite may use it until then).
 */
static void pagecache_config(void)
{
	static int tried;
	static void *buf;
	int hdr = 0;
	size_t slot, bytes;

	if (tried)
		return;
	tried = 1;
	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK || hdr < 0)
		return;
	slot = ((size_t)GL_PAGE_SIZE + (size_t)hdr + 7) & ~(size_t)7;
	bytes = slot * GL_CACHE_PAGES;
	if (!(buf = gl_big_alloc(bytes)))
		return;
	if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, buf, (int)slot, GL_CACHE_PAGES) != SQLITE_OK) {
		/* SQLite had started: it keeps its own allocation */
		gl_big_free(buf, bytes);
		buf = NULL;
	}
}

static int ev_row(void *arg, size_t i, struct gl_evrow *r);

static int prepare_all(struct gl_store *st, struct gl_err *err)
{
	int rc;

	if ((rc = prepare(st, &st->ins_ev, GL_EVTAB_INSERT_EVENTS("events"), err)) != GL_OK ||
	    (rc = prepare(st, &st->ins_log, GL_EVTAB_INSERT_LOGS("events"), err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_mem,
			  "INSERT INTO mem_events (ts_us, thread, action, ptr, size_bytes, cuda_stream,"
			  " host_id, stream_id, line, file_id, path_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_rej,
			  "INSERT INTO rejects (run_id, file_id, stream_id, line, offset, reason,"
			  " length, excerpt, ts_us, path_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->put_stream,
			  "INSERT INTO streams (id, format, component, first_path, bytes, lines, hash,"
			  " head_bytes, head_hash, day_us, last_tod_us, created_run, updated_run,"
			  " parse_state, lines_hashed, open_end)"
			  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
			  " format=excluded.format, bytes=excluded.bytes, lines=excluded.lines,"
			  " hash=excluded.hash, head_bytes=excluded.head_bytes,"
			  " head_hash=excluded.head_hash, day_us=excluded.day_us,"
			  " last_tod_us=excluded.last_tod_us, updated_run=excluded.updated_run,"
			  " parse_state=excluded.parse_state, lines_hashed=excluded.lines_hashed,"
			  " open_end=excluded.open_end",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->put_cp,
			  "INSERT OR REPLACE INTO checkpoints (stream_id, bytes, lines, hash)"
			  " VALUES (?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->put_file,
			  "INSERT INTO files (id, path, dev, ino, size, mtime_ns, raw_head_hash, gzip,"
			  " stream_id, consumed, tail_hash, status, note, last_run)"
			  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
			  " path=excluded.path, dev=excluded.dev, ino=excluded.ino,"
			  " size=excluded.size, mtime_ns=excluded.mtime_ns,"
			  " raw_head_hash=excluded.raw_head_hash, gzip=excluded.gzip,"
			  " stream_id=excluded.stream_id, consumed=excluded.consumed,"
			  " tail_hash=excluded.tail_hash, status=excluded.status,"
			  " note=excluded.note, last_run=excluded.last_run",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->unpath, "UPDATE files SET path = NULL WHERE id = ?", err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_path, "INSERT INTO paths (path) VALUES (?)", err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_series,
			  "INSERT INTO series (metric_id, host_id, device, source, labels)"
			  " VALUES (?,?,?,?,?)", err)) != GL_OK)
		return rc;
	if (!(st->sbw = gl_sbw_open(st->db, st->path, err)))
		return err->code;
	/* The duplicate probe: an index lookup on (ts_us, rec_hash), never a
	 * scan; the lowest id of the originals found, NULL for none. (Not
	 * "ORDER BY id LIMIT 1": since schema 7 the index orders equal
	 * (ts_us, rec_hash) by dup_of and packed before id, and SQLite would
	 * sort the few rows in a temporary b-tree at every probe.) */
	if ((rc = prepare(st, &st->dup_probe,
			  "SELECT min(id) FROM events INDEXED BY events_ts WHERE ts_us = ?1"
			  " AND rec_hash = ?2 AND stream_id <> ?3 AND dup_of IS NULL", err)) != GL_OK)
		return rc;
	/* The same for a profiler record without a time (a Kineto trace's
	 * deviceProperties element): its content is all there is to know it
	 * by, so a trace rewritten and read whole again does not store it
	 * twice (D3). */
	if ((rc = prepare(st, &st->dup_probe_nots,
			  "SELECT min(id) FROM events INDEXED BY events_ts WHERE ts_us IS NULL"
			  " AND rec_hash = ?2 AND stream_id <> ?3 AND dup_of IS NULL",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->get_lines,
			  "SELECT hashes FROM stream_lines WHERE stream_id = ? AND first_line = ?",
			  err)) != GL_OK ||
	    (rc = prepare(st, &st->set_lines,
			  "INSERT OR REPLACE INTO stream_lines (stream_id, first_line, hashes)"
			  " VALUES (?,?,?)", err)) != GL_OK ||
	    /* A span stored from another stream already (the same scope at
	     * the same µs, as long, on the same device and host: a trace
	     * rewritten and read whole again) is not stored twice. */
	    (rc = prepare(st, &st->ins_span,
			  "INSERT INTO spans (start_us, dur_us, name_id, scope_id, depth, device, source,"
			  " host_id, stream_id, line, file_id, path_id)"
			  " SELECT ?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12 WHERE NOT EXISTS"
			  " (SELECT 1 FROM spans INDEXED BY spans_start WHERE start_us = ?1"
			  " AND dur_us = ?2 AND name_id IS ?3 AND scope_id IS ?4 AND device IS ?6"
			  " AND source = ?7 AND host_id IS ?8 AND stream_id <> ?9)",
			  err)) != GL_OK)
		return rc;
	return prepare(st, &st->ins_name, "INSERT INTO names (name) VALUES (?)", err);
}

/* --- interned names, paths and series ---------------------------------- */

static int intern_grow(struct intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct name_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct name_slot *o = &t->v[i];

		if (!o->id)
			continue;
		size_t j = o->hash & (cap - 1);

		while (v[j].id)
			j = (j + 1) & (cap - 1);
		v[j] = *o;
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static struct name_slot *intern_slot(struct intern *t, const char *p, size_t len, uint64_t h)
{
	size_t j = h & (t->cap - 1);

	while (t->v[j].id) {
		struct name_slot *s = &t->v[j];

		if (s->hash == h && s->len == len && memcmp(s->name, p, len) == 0)
			return s;
		j = (j + 1) & (t->cap - 1);
	}
	return &t->v[j];
}

static int intern_add(struct intern *t, const char *p, size_t len, int64_t id)
{
	if ((t->n + 1) * 2 > t->cap && intern_grow(t) < 0)
		return -1;
	uint64_t h = gl_hash64(p, len, 7);
	struct name_slot *s = intern_slot(t, p, len, h);

	if (s->id)
		return 0;
	s->name = malloc(len + 1);
	if (!s->name)
		return -1;
	memcpy(s->name, p, len);
	s->name[len] = '\0';
	s->len = len;
	s->hash = h;
	s->id = id;
	t->n++;
	return 0;
}

/* The id of p[0..len) in t, or 0. */
static int64_t intern_find(struct intern *t, const char *p, size_t len)
{
	return intern_slot(t, p, len, gl_hash64(p, len, 7))->id;
}

static void intern_clear(struct intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/*
 * The key of a series in st->key: host id, then metric name, device, source
 * and labels, each as a presence byte, a length and the bytes. The metric
 * by name, not id: a sample of a known series costs one hash, and its name
 * is looked up only for a new series. Returns its length, or 0 when memory
 * runs out.
 */
static size_t series_key(struct gl_store *st, int64_t host_id, struct gl_str metric,
			 struct gl_str device, struct gl_str source, struct gl_str labels)
{
	size_t need = 8 + 4 * 9 + metric.len + device.len + source.len + labels.len, n = 0;
	const struct gl_str part[4] = {metric, device, source, labels};

	if (need > st->keycap) {
		char *v = realloc(st->key, need);

		if (!v)
			return 0;
		st->key = v;
		st->keycap = need;
	}
	memcpy(st->key, &host_id, 8);
	n = 8;
	for (size_t i = 0; i < 4; i++) {
		uint64_t len = part[i].len;

		st->key[n++] = part[i].p != NULL;
		memcpy(st->key + n, &len, 8);
		n += 8;
		if (part[i].len)
			memcpy(st->key + n, part[i].p, part[i].len);
		n += part[i].len;
	}
	return n;
}

static struct gl_str col_str(sqlite3_stmt *s, int i)
{
	struct gl_str v = {NULL, 0};

	if (sqlite3_column_type(s, i) != SQLITE_NULL) {
		v.p = (const char *)sqlite3_column_text(s, i);
		v.len = (size_t)sqlite3_column_bytes(s, i);
	}
	return v;
}

/* Loads names, paths and series into memory (again, after a rollback). */
static int interns_load(struct gl_store *st, struct gl_err *err)
{
	static const char *const sql[3] = {
		"SELECT id, name FROM names",
		"SELECT id, path FROM paths",
		"SELECT s.id, n.name, s.host_id, s.device, s.source, s.labels"
		" FROM series s JOIN names n ON n.id = s.metric_id",
	};
	struct intern *t[3] = {&st->names, &st->paths, &st->series};
	sqlite3_stmt *s = NULL;
	int rc = SQLITE_DONE;

	st->last_path = NULL;
	for (int k = 0; k < 3; k++) {
		intern_clear(t[k]);
		if (intern_grow(t[k]) < 0)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		if (sqlite3_prepare_v2(st->db, sql[k], -1, &s, NULL) != SQLITE_OK)
			return db_err(st, err, "cannot read names");
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const char *p;
			size_t len;

			if (k < 2) {
				p = (const char *)sqlite3_column_text(s, 1);
				len = (size_t)sqlite3_column_bytes(s, 1);
			} else {
				len = series_key(st, sqlite3_column_int64(s, 2), col_str(s, 1),
						 col_str(s, 3),
						 col_str(s, 4), col_str(s, 5));
				p = st->key;
			}
			if ((k == 2 && !len) || intern_add(t[k], p, len, sqlite3_column_int64(s, 0)) < 0) {
				sqlite3_finalize(s);
				return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			}
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return db_err(st, err, "cannot read names");
	}
	return GL_OK;
}

/* The id of s in table t through statement ins ("INSERT ... VALUES (?)"),
 * inserting it when new; 0 for an absent s. */
static int intern_id(struct gl_store *st, struct intern *t, sqlite3_stmt *ins, struct gl_str s,
		     int64_t *id, struct gl_err *err)
{
	*id = 0;
	if (!s.p)
		return GL_OK;
	if ((*id = intern_find(t, s.p, s.len)) != 0)
		return GL_OK;
	sqlite3_bind_text(ins, 1, s.p, (int)s.len, SQLITE_STATIC);
	if (sqlite3_step(ins) != SQLITE_DONE) {
		sqlite3_reset(ins);
		return db_err(st, err, "cannot store name");
	}
	sqlite3_reset(ins);
	*id = sqlite3_last_insert_rowid(st->db);
	if (intern_add(t, s.p, s.len, *id) < 0)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return GL_OK;
}

static struct memo *memo_slot(struct memo *m, const char *p, size_t len)
{
	uint64_t h = ((uint64_t)(uintptr_t)p ^ ((uint64_t)len << 48)) * 0x9E3779B97F4A7C15ULL;

	return &m[h >> 58];	/* GL_MEMO_SLOTS = 2^6 */
}

static int name_id(struct gl_store *st, struct gl_str s, int64_t *id, struct gl_err *err)
{
	struct memo *m;
	int rc;

	if (!s.p) {
		*id = 0;
		return GL_OK;
	}
	m = memo_slot(st->name_memo, s.p, s.len);
	if (m->p == s.p && m->len == s.len) {
		*id = m->id;
		return GL_OK;
	}
	if ((rc = intern_id(st, &st->names, st->ins_name, s, id, err)) != GL_OK)
		return rc;
	m->p = s.p;
	m->len = s.len;
	m->id = *id;
	return GL_OK;
}

/* The paths row of a batch row's path; rows of one file share the pointer. */
static int path_id(struct gl_store *st, struct gl_str s, int64_t *id, struct gl_err *err)
{
	int rc;

	if (s.p && s.p == st->last_path && s.len == st->last_path_len) {
		*id = st->last_path_id;
		return GL_OK;
	}
	if ((rc = intern_id(st, &st->paths, st->ins_path, s, id, err)) != GL_OK)
		return rc;
	st->last_path = s.p;
	st->last_path_len = s.len;
	st->last_path_id = *id;
	return GL_OK;
}

/* --- record hash ------------------------------------------------------ */

/*
 * The record's fields go into the hash as one byte string: per field a
 * tag byte (present or not), then for a string its length (8 bytes) and
 * bytes, for a number its 8 bytes. The string is gathered in a buffer
 * and hashed in pieces (the hash does not depend on how it is cut): one
 * call per 512 bytes instead of two or three calls per field (about 35 a
 * kernel record). test_store checks it against the field-by-field form.
 */
struct rec_buf {
	struct gl_hash h;
	size_t n;
	unsigned char b[512];
};

static inline void rb_bytes(struct rec_buf *rb, const void *p, size_t n)
{
	if (n > sizeof(rb->b) - rb->n) {
		gl_hash_update(&rb->h, rb->b, rb->n);
		rb->n = 0;
		if (n > sizeof(rb->b)) {
			gl_hash_update(&rb->h, p, n);
			return;
		}
	}
	memcpy(rb->b + rb->n, p, n);
	rb->n += n;
}

static inline void hash_str(struct rec_buf *rb, struct gl_str s)
{
	unsigned char tag = s.p != NULL;
	uint64_t len = s.len;

	rb_bytes(rb, &tag, 1);
	if (!s.p)
		return;
	rb_bytes(rb, &len, 8);
	rb_bytes(rb, s.p, s.len);
}

static inline void hash_int(struct rec_buf *rb, int present, int64_t v)
{
	unsigned char tag = (unsigned char)(present != 0);

	rb_bytes(rb, &tag, 1);
	if (present)
		rb_bytes(rb, &v, 8);
}

static inline void hash_real(struct rec_buf *rb, double v)
{
	unsigned char tag = !isnan(v);

	rb_bytes(rb, &tag, 1);
	if (tag) {
		if (v == 0)
			v = 0;	/* -0.0 and 0.0 are one value */
		rb_bytes(rb, &v, 8);
	}
}

uint64_t gl_store_rec_hash(const struct gl_event *e, struct gl_str host)
{
	struct rec_buf rb;

	gl_hash_init(&rb.h, 0x7265635f68617368ULL);
	rb.n = 0;
	hash_int(&rb, e->ts_us != GL_TS_NONE, e->ts_us);
	hash_int(&rb, 1, (int64_t)e->level);
	hash_str(&rb, e->component);
	hash_str(&rb, host);
	hash_str(&rb, e->kernel);
	hash_str(&rb, e->message);
	hash_str(&rb, e->metadata);
	hash_real(&rb, e->dur_us);
	hash_real(&rb, e->exec_ms);
	hash_real(&rb, e->mem_mb);
	hash_real(&rb, e->alloc_mb);
	hash_real(&rb, e->peak_mb);
	hash_real(&rb, e->util_pct);
	hash_int(&rb, e->error_count >= 0, e->error_count);
	hash_int(&rb, e->recovery_attempts >= 0, e->recovery_attempts);
	hash_int(&rb, e->anomaly >= 0, e->anomaly);
	/*
	 * The kernel-trace fields, only when the record has one (a log line's
	 * hash stays what it was, and what the migration computed for rows
	 * stored before): two launches of one kernel at one time on two
	 * streams are two records.
	 */
	if (e->source != GL_SRC_LOG || e->corr_id >= 0 || e->device.p || e->stream.p ||
	    !isnan(e->launch_overhead_us) || !isnan(e->queue_us) || !isnan(e->occupancy) ||
	    e->grid.p || e->block.p || e->registers >= 0 || e->shared_mem_bytes >= 0 ||
	    e->scope.p || e->stack.p) {
		hash_int(&rb, 1, (int64_t)e->source);
		hash_real(&rb, e->launch_overhead_us);
		hash_real(&rb, e->queue_us);
		hash_real(&rb, e->occupancy);
		hash_str(&rb, e->device);
		hash_str(&rb, e->stream);
		hash_str(&rb, e->grid);
		hash_str(&rb, e->block);
		hash_int(&rb, e->registers >= 0, e->registers);
		hash_int(&rb, e->shared_mem_bytes >= 0, e->shared_mem_bytes);
		hash_int(&rb, e->corr_id >= 0, e->corr_id);
		hash_str(&rb, e->scope);
		hash_str(&rb, e->stack);
	}
	gl_hash_update(&rb.h, rb.b, rb.n);
	return gl_hash_final(&rb.h);
}

static struct gl_str value_str(sqlite3_value *v)
{
	struct gl_str s = {NULL, 0};

	if (sqlite3_value_type(v) != SQLITE_NULL) {
		s.p = (const char *)sqlite3_value_text(v);
		s.len = (size_t)sqlite3_value_bytes(v);
		if (!s.p)
			s.p = "";
	}
	return s;
}

static double value_real(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

static int64_t value_count(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? -1 : sqlite3_value_int64(v);
}

/*
 * SQL gl_rec_hash(ts_us, level, component, host, kernel, message, metadata,
 * dur_us, exec_ms, mem_mb, alloc_mb, peak_mb, util_pct, error_count,
 * recovery_attempts, anomaly): gl_store_rec_hash() of a stored row, for the
 * migration of rows stored before version 3.
 */
static void sql_rec_hash(sqlite3_context *c, int n, sqlite3_value **a)
{
	struct gl_event e;

	(void)n;
	gl_event_init(&e);
	e.ts_us = sqlite3_value_type(a[0]) == SQLITE_NULL ? GL_TS_NONE : sqlite3_value_int64(a[0]);
	e.level = (enum gl_level)sqlite3_value_int(a[1]);
	e.component = value_str(a[2]);
	e.kernel = value_str(a[4]);
	e.message = value_str(a[5]);
	e.metadata = value_str(a[6]);
	e.dur_us = value_real(a[7]);
	e.exec_ms = value_real(a[8]);
	e.mem_mb = value_real(a[9]);
	e.alloc_mb = value_real(a[10]);
	e.peak_mb = value_real(a[11]);
	e.util_pct = value_real(a[12]);
	e.error_count = value_count(a[13]);
	e.recovery_attempts = value_count(a[14]);
	e.anomaly = (int)value_count(a[15]);
	sqlite3_result_int64(c, (int64_t)gl_store_rec_hash(&e, value_str(a[3])));
}

/* --- open / close --------------------------------------------------- */

static void *checkpointer_main(void *arg)
{
	struct checkpointer *ck = arg;

	pthread_mutex_lock(&ck->mu);
	for (;;) {
		while ((!ck->wanted || ck->held) && !ck->stop)
			pthread_cond_wait(&ck->cv, &ck->mu);
		if (ck->stop)
			break;
		ck->wanted = 0;
		ck->running = 1;
		pthread_mutex_unlock(&ck->mu);
		/* PASSIVE: copies what it can without ever blocking the writer.
		 * A failure (busy) is left for the next one or for close. */
		sqlite3_wal_checkpoint_v2(ck->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&ck->mu);
		ck->running = 0;
		pthread_cond_broadcast(&ck->cv);
	}
	pthread_mutex_unlock(&ck->mu);
	return NULL;
}

/* SQLite calls this after each commit with the WAL's length in pages. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct checkpointer *ck = arg;
	int64_t bytes = (int64_t)pages * ck->page_size;

	if (bytes >= GL_RESTART_BYTES_WAL) {
		/* SQLite refuses a second checkpointer at once, without waiting */
		pthread_mutex_lock(&ck->mu);
		ck->held = 1;
		while (ck->running)
			pthread_cond_wait(&ck->cv, &ck->mu);
		pthread_mutex_unlock(&ck->mu);
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_RESTART, NULL, NULL);
		pthread_mutex_lock(&ck->mu);
		ck->held = 0;
		pthread_cond_broadcast(&ck->cv);
		pthread_mutex_unlock(&ck->mu);
		return SQLITE_OK;
	}
	if (bytes >= GL_CHECKPOINT_BYTES_WAL) {
		pthread_mutex_lock(&ck->mu);
		ck->wanted = 1;
		pthread_cond_signal(&ck->cv);
		pthread_mutex_unlock(&ck->mu);
	}
	return SQLITE_OK;
}

static int checkpointer_start(struct gl_store *st, struct gl_err *err)
{
	struct checkpointer *ck = &st->ck;

	if (sqlite3_open_v2(st->path, &ck->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		gl_err_set(err, GL_EDB, st->path, 0, ck->db ? sqlite3_errmsg(ck->db) : "out of memory",
			   "cannot open database");
		sqlite3_close(ck->db);
		ck->db = NULL;
		return GL_EDB;
	}
	sqlite3_busy_timeout(ck->db, 1000);
	/*
	 * SQLite opens the file at the first read; until then the connection
	 * does not know the database is in WAL mode and every checkpoint is
	 * a silent no-op (log and checkpointed frames both -1).
	 */
	if (sqlite3_exec(ck->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		gl_err_set(err, GL_EDB, st->path, 0, sqlite3_errmsg(ck->db), "cannot open database");
		sqlite3_close(ck->db);
		ck->db = NULL;
		return GL_EDB;
	}
	ck->page_size = 4096;
	{
		struct gl_err ignored;

		pragma_int(st, "PRAGMA page_size", &ck->page_size, &ignored);
	}
	pthread_mutex_init(&ck->mu, NULL);
	pthread_cond_init(&ck->cv, NULL);
	if (pthread_create(&ck->th, NULL, checkpointer_main, ck) != 0) {
		pthread_mutex_destroy(&ck->mu);
		pthread_cond_destroy(&ck->cv);
		sqlite3_close(ck->db);
		ck->db = NULL;
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "cannot start thread");
	}
	ck->started = 1;
	/* The writer's own automatic checkpoints are off; this hook wakes the
	 * checkpointer instead. */
	sqlite3_wal_autocheckpoint(st->db, 0);
	sqlite3_wal_hook(st->db, wal_hook, ck);
	return GL_OK;
}

static void checkpointer_stop(struct gl_store *st)
{
	struct checkpointer *ck = &st->ck;

	if (!ck->started)
		return;
	sqlite3_wal_hook(st->db, NULL, NULL);
	pthread_mutex_lock(&ck->mu);
	ck->stop = 1;
	pthread_cond_signal(&ck->cv);
	pthread_mutex_unlock(&ck->mu);
	pthread_join(ck->th, NULL);
	pthread_mutex_destroy(&ck->mu);
	pthread_cond_destroy(&ck->cv);
	sqlite3_close(ck->db);
	ck->db = NULL;
	ck->started = 0;
}

static int pre_max_ts(struct gl_store *st, struct gl_err *err)
{
	sqlite3_stmt *s;
	int rc;

	st->pre_max_ts = INT64_MIN;
	if (sqlite3_prepare_v2(st->db, "SELECT max(ts_us) FROM events", -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot open database");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		st->pre_max_ts = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? GL_OK : db_err(st, err, "cannot open database");
}

int gl_store_open(struct gl_store **out, const char *path, unsigned flags,
		  void (*notice)(void *, const struct gl_err *), void *arg, struct gl_err *err)
{
	struct gl_store *st = calloc(1, sizeof(*st));
	int fresh = 0, rc;

	*out = NULL;
	if (!st)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	st->lock_fd = -1;
	st->build.fd = -1;
	st->notice = notice;
	st->notice_arg = arg;
	st->path = strdup(path);
	if (!st->path) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	if ((rc = open_locked(st, flags & GL_STORE_NOWAIT, &fresh, err)) != GL_OK)
		goto out;
	if (fresh && (flags & GL_STORE_BUILD) && (rc = gl_build_begin(&st->build, path, err)) != GL_OK)
		goto out;
	/*
	 * One connection used by one thread at a time: SQLite's per-call
	 * mutexes and memory accounting cost ~15% of the insert path and buy
	 * nothing here. sqlite3_config() only works before SQLite starts; if
	 * it has started, it stays as it is, which is merely slower.
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	pagecache_config();
	if (sqlite3_open_v2(st->build.path ? st->build.path : path, &st->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		rc = db_err(st, err, "cannot open database");
		goto out;
	}
	/* Another SQLite client (not an ingest: those wait on the flock above)
	 * holding a write lock: with --no-wait, fail promptly. */
	sqlite3_busy_timeout(st->db, flags & GL_STORE_NOWAIT ? 1000 : 60000);
	if (sqlite3_create_function(st->db, "gl_rec_hash", 16, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, sql_rec_hash, NULL, NULL) != SQLITE_OK ||
	    gl_evpack_register(st->db) != SQLITE_OK) {
		rc = db_err(st, err, "cannot open database");
		goto out;
	}
	st->evsrc.row = ev_row;
	st->evsrc.arg = st;
	if (gl_evtab_register(st->db, &st->evsrc) != SQLITE_OK) {
		rc = db_err(st, err, "cannot open database");
		goto out;
	}
	if ((rc = create_or_migrate(st, fresh, err)) != GL_OK)
		goto out;
	if ((rc = db_exec(st,
		       st->build.path ? GL_BUILD_PRAGMAS
				      : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
		       err)) != GL_OK ||
	    (rc = db_exec(st, "PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY;", err)) != GL_OK)
		goto out;
	if ((rc = prepare_all(st, err)) != GL_OK)
		goto out;
	if ((rc = interns_load(st, err)) != GL_OK)
		goto out;
	if ((rc = pre_max_ts(st, err)) != GL_OK)
		goto out;
	rc = st->build.path ? gl_build_sync_start(&st->build, err) : checkpointer_start(st, err);
out:
	if (rc != GL_OK) {
		gl_store_close(st);
		return rc;
	}
	*out = st;
	return GL_OK;
}

/* Finalizes the statements and closes the connection (NULL after). */
static int close_db(struct gl_store *st)
{
	int rc = SQLITE_OK;

	checkpointer_stop(st);
	sqlite3_finalize(st->ins_ev);
	sqlite3_finalize(st->ins_log);
	sqlite3_finalize(st->ins_mem);
	sqlite3_finalize(st->ins_rej);
	sqlite3_finalize(st->put_stream);
	sqlite3_finalize(st->put_cp);
	sqlite3_finalize(st->put_file);
	sqlite3_finalize(st->unpath);
	sqlite3_finalize(st->ins_name);
	sqlite3_finalize(st->ins_path);
	sqlite3_finalize(st->ins_series);
	gl_sbw_close(st->sbw);
	sqlite3_finalize(st->ins_span);
	sqlite3_finalize(st->dup_probe);
	sqlite3_finalize(st->dup_probe_nots);
	sqlite3_finalize(st->get_lines);
	sqlite3_finalize(st->set_lines);
	st->ins_ev = st->ins_log = st->ins_mem = st->ins_rej = st->put_stream = st->put_cp = st->put_file =
		st->unpath = st->ins_name = st->ins_path = st->ins_series = st->ins_span =
			st->dup_probe = st->dup_probe_nots = st->get_lines = st->set_lines = NULL;
	st->sbw = NULL;
	if (st->db) {
		/* Fold the WAL back so that the file alone is the database. */
		if (!st->build.path)
			sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
		rc = sqlite3_close(st->db);
		st->db = NULL;
	}
	return rc;
}

int gl_store_finish(struct gl_store *st, struct gl_err *err)
{
	int rc;

	if (!st || !st->build.path || !st->db)
		return GL_OK;
	/* Every batch is committed or rolled back by now; in case not: */
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	/* The mode later runs and the readers use, recorded in the header. */
	if ((rc = db_exec(st, "PRAGMA journal_mode=WAL", err)) != GL_OK)
		return rc;
	if (close_db(st) != SQLITE_OK)
		return gl_err_set(err, GL_EDB, st->path, 0, "the connection did not close",
				  "cannot finish the new database");
	return gl_build_move(&st->build, err);
}

void gl_store_close(struct gl_store *st)
{
	if (!st)
		return;
	close_db(st);
	/* A build not finished: its rows never reached the database. */
	gl_build_discard(&st->build);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	intern_clear(&st->names);
	intern_clear(&st->paths);
	intern_clear(&st->series);
	free(st->key);
	free(st->ev_dup);
	free(st->ev_maybe);
	gl_big_free(st->bloom, GL_BLOOM_BITS / 8);
	free(st->probes);
	free(st->path);
	free(st);
}

/* --- state ---------------------------------------------------------- */

static char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (char *)t : NULL;
}

int gl_store_load(struct gl_store *st, struct gl_state *s, struct gl_err *err)
{
	sqlite3_stmt *q = NULL;
	int rc = GL_OK, r;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, format, component, first_path, bytes, lines, hash,"
			       " head_bytes, head_hash, day_us, last_tod_us, created_run, parse_state,"
			       " lines_hashed, open_end FROM streams ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot read ingest state");
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct gl_sstream x;

		memset(&x, 0, sizeof(x));
		x.id = sqlite3_column_int64(q, 0);
		snprintf(x.format, sizeof(x.format), "%s",
			 col_text(q, 1) ? col_text(q, 1) : "");
		x.component = col_text(q, 2);
		x.first_path = col_text(q, 3);
		x.pos.bytes = (uint64_t)sqlite3_column_int64(q, 4);
		x.pos.lines = (uint64_t)sqlite3_column_int64(q, 5);
		x.pos.hash = (uint64_t)sqlite3_column_int64(q, 6);
		x.head.bytes = (uint64_t)sqlite3_column_int64(q, 7);
		x.head.hash = (uint64_t)sqlite3_column_int64(q, 8);
		x.has_tod = sqlite3_column_type(q, 9) != SQLITE_NULL;
		x.day_us = sqlite3_column_int64(q, 9);
		x.last_tod_us = sqlite3_column_int64(q, 10);
		x.created_run = sqlite3_column_int64(q, 11);
		x.parse_state = (unsigned char *)sqlite3_column_blob(q, 12);
		x.parse_state_len = x.parse_state ? (size_t)sqlite3_column_bytes(q, 12) : 0;
		x.lines_hashed = sqlite3_column_int(q, 13);
		x.open_end = (uint64_t)sqlite3_column_int64(q, 14);
		if (gl_state_add_stream(s, &x) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		rc = db_err(st, err, "cannot read ingest state");
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT stream_id, bytes, lines, hash FROM checkpoints"
			       " ORDER BY stream_id, bytes",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = db_err(st, err, "cannot read ingest state");
		goto out;
	}
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		int32_t si = gl_state_stream_by_id(s, sqlite3_column_int64(q, 0));
		struct gl_pos p = {(uint64_t)sqlite3_column_int64(q, 1),
				   (uint64_t)sqlite3_column_int64(q, 2),
				   (uint64_t)sqlite3_column_int64(q, 3)};

		if (si >= 0 && gl_state_add_checkpoint(s, si, p) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		rc = db_err(st, err, "cannot read ingest state");
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, path, dev, ino, size, mtime_ns, raw_head_hash, gzip,"
			       " stream_id, consumed, tail_hash, status, note FROM files ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = db_err(st, err, "cannot read ingest state");
		goto out;
	}
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct gl_sfile f;

		memset(&f, 0, sizeof(f));
		f.id = sqlite3_column_int64(q, 0);
		f.path = col_text(q, 1);
		f.dev = sqlite3_column_int64(q, 2);
		f.ino = sqlite3_column_int64(q, 3);
		f.size = sqlite3_column_int64(q, 4);
		f.mtime_ns = sqlite3_column_int64(q, 5);
		f.raw_head_hash = (uint64_t)sqlite3_column_int64(q, 6);
		f.gzip = sqlite3_column_int(q, 7);
		f.stream_id = sqlite3_column_int64(q, 8);
		f.consumed = (uint64_t)sqlite3_column_int64(q, 9);
		f.has_tail = sqlite3_column_type(q, 10) != SQLITE_NULL;
		f.tail_hash = (uint64_t)sqlite3_column_int64(q, 10);
		snprintf(f.status, sizeof(f.status), "%s", col_text(q, 11) ? col_text(q, 11) : "");
		f.note = col_text(q, 12);
		if (gl_state_add_file(s, &f) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE)
		rc = db_err(st, err, "cannot read ingest state");
out:
	sqlite3_finalize(q);
	return rc;
}

/* --- runs ----------------------------------------------------------- */

int gl_store_run_begin(struct gl_store *st, const char *host, int64_t *run_id, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO runs (started_us, version, host) VALUES (?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot record run");
	sqlite3_bind_int64(s, 1, gl_time_now_us());
	sqlite3_bind_text(s, 2, GL_VERSION, -1, SQLITE_STATIC);
	if (host)
		sqlite3_bind_text(s, 3, host, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_err(st, err, "cannot record run");
	else
		*run_id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return rc;
}

int gl_store_run_end(struct gl_store *st, int64_t run_id, const struct gl_ingest_stats *x,
		     struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(st->db,
			       "UPDATE runs SET finished_us=?, files_seen=?, files_new=?,"
			       " files_unchanged=?, files_rotated=?, files_grown=?, files_skipped=?,"
			       " files_failed=?, lines_stored=?, lines_rejected=? WHERE id=?",
			       -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot record run");
	sqlite3_bind_int64(s, 1, gl_time_now_us());
	sqlite3_bind_int64(s, 2, (int64_t)x->files_seen);
	sqlite3_bind_int64(s, 3, (int64_t)x->files_new);
	sqlite3_bind_int64(s, 4, (int64_t)x->files_unchanged);
	sqlite3_bind_int64(s, 5, (int64_t)x->files_rotated);
	sqlite3_bind_int64(s, 6, (int64_t)x->files_grown);
	sqlite3_bind_int64(s, 7, (int64_t)x->files_skipped);
	sqlite3_bind_int64(s, 8, (int64_t)x->files_failed);
	sqlite3_bind_int64(s, 9, (int64_t)x->lines_stored);
	sqlite3_bind_int64(s, 10, (int64_t)x->lines_rejected);
	sqlite3_bind_int64(s, 11, run_id);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_err(st, err, "cannot record run");
	sqlite3_finalize(s);
	return rc;
}

/* --- batches -------------------------------------------------------- */

static void bind_str(sqlite3_stmt *s, int i, struct gl_str v)
{
	if (v.p)
		sqlite3_bind_text(s, i, v.p, (int)v.len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void bind_id(sqlite3_stmt *s, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static uint64_t min_lines(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* step() for a statement whose every parameter is bound before each step. */
static int step(struct gl_store *st, sqlite3_stmt *s, struct gl_err *err)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? GL_OK : db_err(st, err, "cannot store");
}

/* The filter's word of a record hash, and the hash's two bits in it. */
static uint64_t *bloom_word(const struct gl_store *st, uint64_t h, uint64_t *m)
{
	uint64_t k = h * 0x9E3779B97F4A7C15ULL;

	*m = 1ULL << (k & 63) | 1ULL << ((k >> 6) & 63);
	return &st->bloom[(k >> 40) & (GL_BLOOM_BITS / 64 - 1)];
}

/*
 * Adds the record hash of every timed event of the batch to the filter,
 * in batch order, and sets ev_maybe[i] when the filter knew it before
 * (an event put earlier, or earlier in this batch, may have the same
 * record). Done for the whole batch before its first row is stored, in
 * a loop of its own: the hashes were written by the parsing thread's core
 * and the filter's words are cache misses in 4 MiB, and here the loads
 * of many events are under way at once. Per row, in ev_row(), each was a
 * stall even with prefetching (3% of the writer's time). Without memory
 * for the filter every event is looked up.
 */
static void bloom_pass(struct gl_store *st, const struct gl_batch *b)
{
	size_t n = b->nev;

	if (!n)
		return;
	if (!st->bloom && (st->bloom = gl_big_alloc(GL_BLOOM_BITS / 8)))
		/* on huge pages: in 4 KiB pages its first touches were 1,024
		 * page faults, a trip through the hypervisor each in a VM */
		memset(st->bloom, 0, GL_BLOOM_BITS / 8);
	if (!st->probes)
		st->probes = calloc(GL_PROBE_SLOTS, sizeof(*st->probes));	/* NULL: no cache */
	if (!st->bloom) {
		memset(st->ev_maybe, 1, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gl_bev *e = &b->ev[i];
		uint64_t m, *w;

		if (i + 16 < n)
			__builtin_prefetch(&b->ev[i + 16].rec_hash);
		if (i + 8 < n && b->ev[i + 8].ev.ts_us != GL_TS_NONE)
			__builtin_prefetch(bloom_word(st, b->ev[i + 8].rec_hash, &m), 1);
		st->ev_maybe[i] = 0;
		if (e->ev.ts_us == GL_TS_NONE)
			continue;
		w = bloom_word(st, e->rec_hash, &m);
		st->ev_maybe[i] = (*w & m) == m;
		*w |= m;
	}
}

/*
 * events.packed of the row put_event() binds (lib/store/evpack.h): the
 * values as the report reads them back from the columns bound above (a
 * NULL of bind_id/bind_count/bind_real, a REAL's -0.0 stored as 0).
 */
static size_t pack_event(const struct gl_event *e, int64_t comp, int64_t host_id, int64_t kern,
			 int64_t stream_id, unsigned char *out)
{
	const int level = (int)e->level;
	struct gl_evpack f = {
		.level = level >= GL_LEVEL_NONE && level <= GL_LEVEL_CRITICAL ? level : GL_LEVEL_NONE,
		.warn = level >= 4,
		.op = gl_evpack_like_operation((const unsigned char *)e->message.p, e->message.len),
		.has_kernel = kern != 0,
		.component_id = comp,
		.host_id = host_id,
		.kernel_id = kern,
		.dur_us = gl_evpack_real(e->dur_us),
		.mem_mb = gl_evpack_real(e->mem_mb),
		.exec_ms = gl_evpack_real(e->exec_ms),
		.anomaly = e->anomaly >= 0 ? e->anomaly : 0,
		.recovery_attempts = e->recovery_attempts >= 0 ? e->recovery_attempts : -1,
		.error_count = e->error_count >= 0 ? e->error_count : -1,
		.stream_id = stream_id,
	};

	return gl_evpack_encode(&f, out);
}

/*
 * Row i of the batch being put (the gl_evtab_src callback of ins_ev):
 * interns its names, probes for its original (rows 0..i-1 are in the table
 * by now: SQLite inserts each row before it asks for the next one) and packs
 * it. A failure is kept in st->put_err for gl_store_put().
 */
static int ev_row(void *arg, size_t i, struct gl_evrow *r)
{
	struct gl_store *st = arg;
	const struct gl_batch *batch = st->put_batch;
	const struct gl_bev *b = &batch->ev[i];
	const struct gl_event *e = &b->ev;
	struct gl_err *err = st->put_err;
	int64_t dup = 0;
	uint64_t h = b->rec_hash;
	int rc;

	r->b = b;
	r->scope_id = r->stack_id = 0;
	if ((rc = name_id(st, e->component, &r->comp_id, err)) != GL_OK ||
	    (rc = name_id(st, e->kernel, &r->kernel_id, err)) != GL_OK ||
	    (e->scope.p && (rc = name_id(st, e->scope, &r->scope_id, err)) != GL_OK) ||
	    (e->stack.p && (rc = name_id(st, e->stack, &r->stack_id, err)) != GL_OK))
		return st->put_rc = rc;
	/* a probe when the filter knew the hash (bloom_pass), or for an event
	 * not after every one stored before this run (the filter only knows
	 * this run's) */
	if (e->ts_us == GL_TS_NONE && e->source != GL_SRC_LOG) {
		/* a profiler record without a time: rare (one per device of a
		 * trace), always probed */
		sqlite3_stmt *q = st->dup_probe_nots;

		sqlite3_bind_int64(q, 2, (int64_t)h);
		sqlite3_bind_int64(q, 3, b->stream_id);
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW)
			dup = sqlite3_column_int64(q, 0);	/* NULL (none): 0 */
		sqlite3_reset(q);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return st->put_rc = db_err(st, err, "cannot store");
		if (dup)
			st->duplicates++;
	} else if (e->ts_us != GL_TS_NONE && (st->ev_maybe[i] || e->ts_us <= st->pre_max_ts)) {
		sqlite3_stmt *q = st->dup_probe;
		struct probe_hit *c = NULL;

		if (st->probes) {
			c = &st->probes[((h ^ (uint64_t)e->ts_us * 0x9E3779B97F4A7C15ULL) >> 52) &
					(GL_PROBE_SLOTS - 1)];
			if (c->stream_id == b->stream_id && c->ts_us == e->ts_us && c->hash == h) {
				dup = c->dup;
				if (dup)
					st->duplicates++;
				goto probed;
			}
		}

		sqlite3_bind_int64(q, 1, e->ts_us);
		sqlite3_bind_int64(q, 2, (int64_t)h);
		sqlite3_bind_int64(q, 3, b->stream_id);
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW)
			dup = sqlite3_column_int64(q, 0);	/* NULL (none): 0 */
		sqlite3_reset(q);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return st->put_rc = db_err(st, err, "cannot store");
		if (dup)
			st->duplicates++;
		if (c) {
			c->ts_us = e->ts_us;
			c->hash = h;
			c->stream_id = b->stream_id;
			c->dup = dup;
		}
	}
probed:
	st->ev_dup[i] = dup != 0;
	r->dup_of = dup;
	r->packed_len = pack_event(e, r->comp_id, st->put_host_id, r->kernel_id, b->stream_id,
				   r->packed);
	return GL_OK;
}

/*
 * The batch's events, one INSERT ... SELECT per run of events of one kind
 * (log lines from gl_batch_logs, profiler records from gl_batch_events,
 * evtab.h) read from one file: the run's stream, file, path and host are
 * the statement's parameters.
 */
static int put_events(struct gl_store *st, const struct gl_batch *batch, int64_t host_id,
		      struct gl_err *err)
{
	int rc = SQLITE_DONE;

	st->put_batch = batch;
	st->put_host_id = host_id;
	st->put_err = err;
	st->put_rc = GL_OK;
	for (size_t i = 0, j; i < batch->nev && rc == SQLITE_DONE; i = j) {
		const struct gl_bev *first = &batch->ev[i];
		int logs = first->ev.source == GL_SRC_LOG;
		sqlite3_stmt *s = logs ? st->ins_log : st->ins_ev;
		int64_t pid;

		for (j = i + 1; j < batch->nev; j++) {
			const struct gl_bev *e = &batch->ev[j];

			if ((e->ev.source == GL_SRC_LOG) != logs || e->stream_id != first->stream_id ||
			    e->file_id != first->file_id || e->path.p != first->path.p ||
			    e->path.len != first->path.len)
				break;
		}
		if ((st->put_rc = path_id(st, first->path, &pid, err)) != GL_OK)
			break;
		sqlite3_bind_int64(s, GL_EVTAB_P_STREAM, first->stream_id);
		bind_id(s, GL_EVTAB_P_FILE, first->file_id);
		bind_id(s, GL_EVTAB_P_PATH, pid);
		bind_id(s, GL_EVTAB_P_HOST, host_id);
		st->evsrc.first = i;
		st->evsrc.end = j;
		rc = sqlite3_step(s);
		sqlite3_reset(s);
	}
	st->evsrc.first = st->evsrc.end = 0;
	st->put_batch = NULL;
	if (st->put_rc == GL_OK && rc == SQLITE_DONE)
		return GL_OK;
	return st->put_rc != GL_OK ? st->put_rc : db_err(st, err, "cannot store");
}

static int put_span(struct gl_store *st, const struct gl_bspan *b, int64_t host_id,
		    struct gl_err *err)
{
	const struct gl_span *x = &b->sp;
	sqlite3_stmt *s = st->ins_span;
	int64_t name, scope, pid;
	int rc;

	if ((rc = name_id(st, x->name, &name, err)) != GL_OK ||
	    (rc = name_id(st, x->path, &scope, err)) != GL_OK ||
	    (rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, x->start_us);
	sqlite3_bind_double(s, 2, isnan(x->dur_us) ? 0 : x->dur_us);
	bind_id(s, 3, name);
	bind_id(s, 4, scope);
	sqlite3_bind_int(s, 5, x->depth);
	bind_str(s, 6, x->device);
	sqlite3_bind_text(s, 7, gl_ev_source_name(x->source), -1, SQLITE_STATIC);
	bind_id(s, 8, host_id);
	sqlite3_bind_int64(s, 9, b->stream_id);
	sqlite3_bind_int64(s, 10, (int64_t)b->line);
	bind_id(s, 11, b->file_id);
	bind_id(s, 12, pid);
	return step(st, s, err);
}

static int put_mem(struct gl_store *st, const struct gl_bmem *b, int64_t host_id,
		   struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_mem;
	int64_t pid;
	int rc;

	if ((rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, b->m.ts_us);
	sqlite3_bind_int64(s, 2, b->m.thread);
	sqlite3_bind_int(s, 3, (int)b->m.action);
	sqlite3_bind_int64(s, 4, (int64_t)b->m.ptr);
	sqlite3_bind_int64(s, 5, b->m.size_bytes);
	sqlite3_bind_int64(s, 6, (int64_t)b->m.cuda_stream);
	bind_id(s, 7, host_id);
	sqlite3_bind_int64(s, 8, b->stream_id);
	sqlite3_bind_int64(s, 9, (int64_t)b->line);
	bind_id(s, 10, b->file_id);
	bind_id(s, 11, pid);
	return step(st, s, err);
}

static int put_sample(struct gl_store *st, const struct gl_bsample *b, int64_t host_id,
		      struct gl_err *err)
{
	const struct gl_sample *x = &b->s;
	struct gl_str source;
	struct memo *m;
	sqlite3_stmt *s;
	int64_t metric, series, pid;
	size_t klen;
	int rc;

	if ((rc = path_id(st, b->path, &pid, err)) != GL_OK)
		return rc;
	/* the series by the addresses of its strings (see name_memo) */
	m = memo_slot(st->series_memo, x->metric.p, x->metric.len);
	if (m->p == x->metric.p && m->len == x->metric.len && m->q == x->device.p &&
	    m->qlen == x->device.len && m->r == x->labels.p && m->rlen == x->labels.len &&
	    m->src == b->source && m->host == host_id && m->id) {
		series = m->id;
		goto found;
	}
	source = (struct gl_str){b->source, strlen(b->source)};
	klen = series_key(st, host_id, x->metric, x->device, source, x->labels);
	if (!klen)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	series = intern_find(&st->series, st->key, klen);
	if (!series) {
		/* (name_id() may grow the names table, never st->key) */
		if ((rc = name_id(st, x->metric, &metric, err)) != GL_OK)
			return rc;
		s = st->ins_series;
		sqlite3_bind_int64(s, 1, metric);
		bind_id(s, 2, host_id);
		bind_str(s, 3, x->device);
		bind_str(s, 4, source);
		bind_str(s, 5, x->labels);
		if ((rc = step(st, s, err)) != GL_OK)
			return rc;
		series = sqlite3_last_insert_rowid(st->db);
		if (intern_add(&st->series, st->key, klen, series) < 0)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	}
	*m = (struct memo){.p = x->metric.p, .len = x->metric.len, .q = x->device.p,
			   .qlen = x->device.len, .r = x->labels.p, .rlen = x->labels.len,
			   .src = b->source, .host = host_id, .id = series};
found:
	st->samples++;
	return gl_sbw_add(st->sbw, series, b->stream_id, b->file_id, pid, x->ts_estimated != 0,
			  x->ts_us, x->value, (int64_t)b->line, err);
}

static int put_reject(struct gl_store *st, const struct gl_brej *r, int64_t run_id,
		      struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_rej;
	int64_t pid;
	int rc;

	if ((rc = path_id(st, r->path, &pid, err)) != GL_OK)
		return rc;
	sqlite3_bind_int64(s, 1, run_id);
	bind_id(s, 2, r->file_id);
	bind_id(s, 3, r->stream_id);
	bind_id(s, 4, (int64_t)r->line);
	sqlite3_bind_int64(s, 5, (int64_t)r->offset);
	bind_str(s, 6, r->reason);
	sqlite3_bind_int64(s, 7, (int64_t)r->length);
	if (r->excerpt.p)
		sqlite3_bind_blob(s, 8, r->excerpt.p, (int)r->excerpt.len, SQLITE_STATIC);
	if (r->ts_us != GL_TS_NONE)
		sqlite3_bind_int64(s, 9, r->ts_us);
	bind_id(s, 10, pid);
	return step(st, s, err);
}

/*
 * Line hashes first..first+n-1 of a stream (8 bytes each at h) into its
 * chunks of GL_LINES_CHUNK lines: the chunk that holds `first` keeps its
 * hashes before it and gets the new ones after (a partial last chunk is
 * rewritten by every batch that adds to it).
 */
static int put_lines(struct gl_store *st, int64_t stream_id, uint64_t first,
		     const unsigned char *h, uint64_t n, struct gl_err *err)
{
	unsigned char chunk[GL_LINES_CHUNK * 8];

	while (n) {
		uint64_t c0 = first - (first - 1) % GL_LINES_CHUNK, keep = first - c0;
		uint64_t take = min_lines(n, GL_LINES_CHUNK - keep);
		sqlite3_stmt *s = st->get_lines;
		int rc;

		if (keep) {
			sqlite3_bind_int64(s, 1, stream_id);
			sqlite3_bind_int64(s, 2, (int64_t)c0);
			rc = sqlite3_step(s);
			if (rc == SQLITE_ROW && (uint64_t)sqlite3_column_bytes(s, 0) >= keep * 8)
				memcpy(chunk, sqlite3_column_blob(s, 0), keep * 8);
			else
				memset(chunk, 0, keep * 8);	/* never: chunks are written in order */
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			if (rc != SQLITE_ROW && rc != SQLITE_DONE)
				return db_err(st, err, "cannot store");
		}
		memcpy(chunk + keep * 8, h, take * 8);
		s = st->set_lines;
		sqlite3_bind_int64(s, 1, stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)c0);
		sqlite3_bind_blob(s, 3, chunk, (int)((keep + take) * 8), SQLITE_STATIC);
		if ((rc = step(st, s, err)) != GL_OK)
			return rc;
		first += take;
		h += take * 8;
		n -= take;
	}
	return GL_OK;
}

int gl_store_line_hashes(struct gl_store *st, int64_t stream_id, uint64_t first, uint64_t n,
			 uint64_t *out, uint64_t *got, struct gl_err *err)
{
	sqlite3_stmt *s = st->get_lines;

	*got = 0;
	while (n) {
		uint64_t c0 = first - (first - 1) % GL_LINES_CHUNK, skip = first - c0, have;
		int rc;

		sqlite3_bind_int64(s, 1, stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)c0);
		rc = sqlite3_step(s);
		have = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_bytes(s, 0) / 8 : 0;
		if (have > skip) {
			uint64_t take = min_lines(n, have - skip);

			memcpy(out + *got, (const unsigned char *)sqlite3_column_blob(s, 0) + skip * 8,
			       take * 8);
			*got += take;
			first += take;
			n -= take;
		}
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return db_err(st, err, "cannot read ingest state");
		if (have < skip + 1 || have < GL_LINES_CHUNK)
			break;	/* the stream's hashes end here */
	}
	return GL_OK;
}

static int put_op(struct gl_store *st, const struct gl_bop *op, int64_t run_id,
		  struct gl_err *err)
{
	sqlite3_stmt *s;

	switch (op->kind) {
	case GL_BOP_STREAM: {
		const struct gl_bstream *x = &op->u.stream;

		s = st->put_stream;
		sqlite3_bind_int64(s, 1, x->id);
		sqlite3_bind_text(s, 2, x->format, -1, SQLITE_STATIC);
		bind_str(s, 3, x->component);
		bind_str(s, 4, x->first_path);
		sqlite3_bind_int64(s, 5, (int64_t)x->pos.bytes);
		sqlite3_bind_int64(s, 6, (int64_t)x->pos.lines);
		sqlite3_bind_int64(s, 7, (int64_t)x->pos.hash);
		sqlite3_bind_int64(s, 8, (int64_t)x->head.bytes);
		sqlite3_bind_int64(s, 9, (int64_t)x->head.hash);
		if (x->has_tod) {
			sqlite3_bind_int64(s, 10, x->day_us);
			sqlite3_bind_int64(s, 11, x->last_tod_us);
		}
		sqlite3_bind_int64(s, 12, x->created_run);
		sqlite3_bind_int64(s, 13, run_id);
		if (x->parse_state.p)
			sqlite3_bind_blob(s, 14, x->parse_state.p, (int)x->parse_state.len,
					  SQLITE_STATIC);
		sqlite3_bind_int(s, 15, x->lines_hashed);
		sqlite3_bind_int64(s, 16, (int64_t)x->open_end);
		return step(st, s, err);
	}
	case GL_BOP_LINES:
		return put_lines(st, op->u.lines.stream_id, op->u.lines.first,
				 (const unsigned char *)op->u.lines.hashes, op->u.lines.n, err);
	case GL_BOP_CHECKPOINT:
		s = st->put_cp;
		sqlite3_bind_int64(s, 1, op->u.cp.stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)op->u.cp.pos.bytes);
		sqlite3_bind_int64(s, 3, (int64_t)op->u.cp.pos.lines);
		sqlite3_bind_int64(s, 4, (int64_t)op->u.cp.pos.hash);
		return step(st, s, err);
	case GL_BOP_FILE: {
		const struct gl_bfile *f = &op->u.file;

		s = st->put_file;
		sqlite3_bind_int64(s, 1, f->id);
		bind_str(s, 2, f->path);
		sqlite3_bind_int64(s, 3, f->dev);
		sqlite3_bind_int64(s, 4, f->ino);
		sqlite3_bind_int64(s, 5, f->size);
		sqlite3_bind_int64(s, 6, f->mtime_ns);
		sqlite3_bind_int64(s, 7, (int64_t)f->raw_head_hash);
		sqlite3_bind_int(s, 8, f->gzip);
		bind_id(s, 9, f->stream_id);
		sqlite3_bind_int64(s, 10, (int64_t)f->consumed);
		if (f->has_tail)
			sqlite3_bind_int64(s, 11, (int64_t)f->tail_hash);
		sqlite3_bind_text(s, 12, f->status, -1, SQLITE_STATIC);
		bind_str(s, 13, f->note);
		sqlite3_bind_int64(s, 14, run_id);
		return step(st, s, err);
	}
	case GL_BOP_UNPATH:
		s = st->unpath;
		sqlite3_bind_int64(s, 1, op->u.unpath_id);
		return step(st, s, err);
	}
	return GL_OK;
}

/*
 * The rows of a stream's open record: every row after line after_line
 * (events, memory events, samples, spans, rejects). Rare (a writer paused
 * mid-line for over a minute), so no index: a scan of each table.
 */
static int drop_open(struct gl_store *st, const struct gl_bdrop *d, struct gl_err *err)
{
	static const char *const sql[] = {
		"DELETE FROM events WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM mem_events WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM spans WHERE stream_id = ?1 AND line > ?2",
		"DELETE FROM rejects WHERE stream_id = ?1 AND line > ?2",
	};
	int rc = GL_OK;

	/* rows go: an answer cached may name one of them */
	if (st->probes)
		memset(st->probes, 0, GL_PROBE_SLOTS * sizeof(*st->probes));
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == GL_OK; i++) {
		sqlite3_stmt *s = NULL;

		if (sqlite3_prepare_v2(st->db, sql[i], -1, &s, NULL) != SQLITE_OK)
			return db_err(st, err, "cannot replace an open record");
		sqlite3_bind_int64(s, 1, d->stream_id);
		sqlite3_bind_int64(s, 2, (int64_t)d->after_line);
		rc = step(st, s, err);
		sqlite3_finalize(s);
	}
	if (rc == GL_OK)
		rc = gl_sblock_drop_after(st->db, st->path, d->stream_id, (int64_t)d->after_line,
					  err);
	return rc;
}

int gl_store_put(struct gl_store *st, const struct gl_batch *b, int64_t run_id, const char *host,
		 struct gl_err *err)
{
	int64_t host_id = 0;
	struct gl_str h = {host, host ? strlen(host) : 0};
	uint64_t dups = st->duplicates, samples = st->samples;
	int rc;

	if ((rc = db_exec(st, "BEGIN IMMEDIATE", err)) != GL_OK)
		return rc;
	/* Batch strings are new memory: no pointer of an earlier batch counts. */
	st->last_path = NULL;
	memset(st->name_memo, 0, sizeof(st->name_memo));
	memset(st->series_memo, 0, sizeof(st->series_memo));
	rc = name_id(st, h, &host_id, err);
	if (rc == GL_OK && b->nev > st->ev_dup_cap) {
		unsigned char *d = realloc(st->ev_dup, b->nev);

		if (d)
			st->ev_dup = d;
		d = d ? realloc(st->ev_maybe, b->nev) : NULL;
		if (!d)
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		else
			st->ev_maybe = d, st->ev_dup_cap = b->nev;
	}
	for (size_t i = 0; i < b->ndrop && rc == GL_OK; i++)
		rc = drop_open(st, &b->drop[i], err);
	if (rc == GL_OK) {
		bloom_pass(st, b);
		rc = put_events(st, b, host_id, err);
	}
	for (size_t i = 0; i < b->nmem && rc == GL_OK; i++)
		rc = put_mem(st, &b->mem[i], host_id, err);
	/* The samples of a mirror (an event marked dup_of) are the original's. */
	for (size_t i = 0; i < b->nsamp && rc == GL_OK; i++)
		if (!b->samp[i].ev_plus1 || !st->ev_dup[b->samp[i].ev_plus1 - 1])
			rc = put_sample(st, &b->samp[i], host_id, err);
	if (rc == GL_OK)
		rc = gl_sbw_flush(st->sbw, err);
	gl_sbw_reset(st->sbw);
	for (size_t i = 0; i < b->nspan && rc == GL_OK; i++)
		rc = put_span(st, &b->span[i], host_id, err);
	for (size_t i = 0; i < b->nrej && rc == GL_OK; i++)
		rc = put_reject(st, &b->rej[i], run_id, err);
	for (size_t i = 0; i < b->nop && rc == GL_OK; i++)
		rc = put_op(st, &b->op[i], run_id, err);
	if (rc == GL_OK)
		rc = db_exec(st, "COMMIT", err);
	if (rc != GL_OK) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		/* Names inserted in the rolled-back transaction are gone again. */
		struct gl_err ignored;

		st->duplicates = dups;
		st->samples = samples;
		interns_load(st, &ignored);
		if (st->probes)
			memset(st->probes, 0, GL_PROBE_SLOTS * sizeof(*st->probes));
	}
	return rc;
}

uint64_t gl_store_duplicates(const struct gl_store *st)
{
	return st->duplicates;
}

uint64_t gl_store_samples(const struct gl_store *st)
{
	return st->samples;
}
