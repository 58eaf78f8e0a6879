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
 *
 * This file: open (lock, header, pragmas, statements), close, runs. The
 * other lifetimes are files of their own (store_int.h lists them).
 */
#include "store_int.h"

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
#include "sblock_merge.h"
#include "build.h"

struct sqlite3 *gl_store_db(struct gl_store *st)
{
	return st->db;
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
 * first read in gl_store_migrate() rolls it back to empty and creates it).
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

static int prepare(struct gl_store *st, sqlite3_stmt **s, const char *sql, struct gl_err *err)
{
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) != SQLITE_OK)
		return gl_store_db_err(st, err, "cannot prepare statement");
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


static int prepare_all(struct gl_store *st, struct gl_err *err)
{
	int rc;

	if ((rc = prepare(st, &st->ins_ev, GL_EVTAB_INSERT_EVENTS("events"), err)) != GL_OK ||
	    (rc = prepare(st, &st->ins_log, GL_EVTAB_INSERT_LOGS("events"), err)) != GL_OK ||
	    (rc = prepare(st, &st->ins_op, "INSERT INTO operations (event_id, name_id, ms, throughput)"
			  " VALUES (?1, ?2, ?3, ?4)", err)) != GL_OK ||
	    (rc = prepare(st, &st->put_kind, "INSERT OR IGNORE INTO event_kinds (kind) VALUES (?1)",
			  err)) != GL_OK)
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

		gl_store_pragma_int(st, "PRAGMA page_size", &ck->page_size, &ignored);
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
		return gl_store_db_err(st, err, "cannot open database");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		st->pre_max_ts = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? GL_OK : gl_store_db_err(st, err, "cannot open database");
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
		rc = gl_store_db_err(st, err, "cannot open database");
		goto out;
	}
	/* Another SQLite client (not an ingest: those wait on the flock above)
	 * holding a write lock: with --no-wait, fail promptly. */
	sqlite3_busy_timeout(st->db, flags & GL_STORE_NOWAIT ? 1000 : 60000);
	if (sqlite3_create_function(st->db, "gl_rec_hash", 16, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, gl_store_sql_rec_hash, NULL, NULL) != SQLITE_OK ||
	    gl_evpack_register(st->db) != SQLITE_OK) {
		rc = gl_store_db_err(st, err, "cannot open database");
		goto out;
	}
	st->evsrc.row = gl_store_ev_row;
	st->evsrc.arg = st;
	if (gl_evtab_register(st->db, &st->evsrc) != SQLITE_OK) {
		rc = gl_store_db_err(st, err, "cannot open database");
		goto out;
	}
	if ((rc = gl_store_migrate(st, fresh, err)) != GL_OK)
		goto out;
	if ((rc = gl_store_exec(st,
		       st->build.path ? GL_BUILD_PRAGMAS
				      : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
		       err)) != GL_OK ||
	    (rc = gl_store_exec(st, "PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY;", err)) != GL_OK)
		goto out;
	if ((rc = prepare_all(st, err)) != GL_OK)
		goto out;
	if ((rc = gl_store_interns_load(st, err)) != GL_OK)
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
	sqlite3_finalize(st->put_kind);
	sqlite3_finalize(st->ins_op);
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
	st->ins_ev = st->ins_log = st->put_kind = st->ins_op = st->ins_mem = st->ins_rej = st->put_stream = st->put_cp = st->put_file =
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
	if ((rc = gl_store_exec(st, "PRAGMA journal_mode=WAL", err)) != GL_OK)
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
	gl_store_intern_clear(&st->names);
	gl_store_intern_clear(&st->paths);
	gl_store_intern_clear(&st->series);
	free(st->key);
	free(st->ev_dup);
	free(st->ev_maybe);
	free(st->ev_ops);
	gl_big_free(st->bloom, GL_BLOOM_BITS / 8);
	free(st->probes);
	free(st->path);
	free(st);
}

/* --- runs ----------------------------------------------------------- */

int gl_store_run_begin(struct gl_store *st, const char *host, int64_t *run_id, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO runs (started_us, version, host) VALUES (?,?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return gl_store_db_err(st, err, "cannot record run");
	sqlite3_bind_int64(s, 1, gl_time_now_us());
	sqlite3_bind_text(s, 2, GL_VERSION, -1, SQLITE_STATIC);
	if (host)
		sqlite3_bind_text(s, 3, host, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = gl_store_db_err(st, err, "cannot record run");
	else
		*run_id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return rc;
}

int gl_store_merge_samples(struct gl_store *st, void (*committed)(void *arg, unsigned k),
			   void *arg, struct gl_err *err)
{
	return gl_sblock_merge_open_hook(st->db, st->path, gl_time_now_us(), committed, arg, NULL,
					 err);
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
		return gl_store_db_err(st, err, "cannot record run");
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
		rc = gl_store_db_err(st, err, "cannot record run");
	sqlite3_finalize(s);
	return rc;
}

