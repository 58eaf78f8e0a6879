/*
 * store.c - SQLite write side. In: batches from the ingest pipeline.
 * Out: rows in events / mem_events / rejects and the ingest state (streams,
 * checkpoints, files), each batch in one transaction.
 *
 * Durability choices: WAL with synchronous=NORMAL. A killed process (the
 * case cron users meet) never loses a committed transaction and never sees
 * half of one; only a power cut may lose the last commits, which the next
 * run then reads again, since the state went with them.
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

#include "../util/hash.h"
#include "../util/timeutil.h"
#include "schema_sql.h"

struct name_slot {
	uint64_t hash;
	int64_t id;		/* 0: empty slot */
	char *name;
	size_t len;
};

/* A WAL longer than this is checkpointed (in the background). */
#define GL_CHECKPOINT_BYTES_WAL (16 << 20)
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
	sqlite3_stmt *ins_ev, *ins_mem, *ins_rej, *put_stream, *put_cp, *put_file, *unpath,
		*ins_name;
	struct name_slot *names;
	size_t nnames, capnames;	/* capnames: power of two */
};

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

static int take_lock(struct gl_store *st, int nowait, void (*waiting)(void *), void *arg,
		     struct gl_err *err)
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
	if (nowait)
		return gl_err_set(err, GL_EBUSY, st->path, 0,
				  "another gpulog-ingest is writing to it", "database busy");
	if (waiting)
		waiting(arg);
	while (flock(st->lock_fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return gl_err_set(err, GL_EIO, st->path, 0, strerror(errno),
					  "cannot lock database");
	return GL_OK;
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
};

static int create_or_migrate(struct gl_store *st, int fresh, struct gl_err *err)
{
	int64_t app = 0, ver = 0;
	int rc;

	if (fresh) {
		/* Created in rollback-journal mode so the header (application_id)
		 * is in the main file when the transaction commits. */
		if ((rc = db_exec(st, "PRAGMA page_size=" GL_STR(GL_PAGE_SIZE) ";"
				  " PRAGMA journal_mode=DELETE; BEGIN;", err)) != GL_OK)
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
	for (; ver < GL_SCHEMA_VERSION; ver++) {
		char sql[64];

		if ((rc = db_exec(st, "BEGIN", err)) != GL_OK)
			return rc;
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%lld", (long long)ver + 1);
		if ((rc = db_exec(st, migrations[ver], err)) != GL_OK || (rc = db_exec(st, sql, err)) != GL_OK ||
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

static int prepare_all(struct gl_store *st, struct gl_err *err)
{
	int rc;

	if ((rc = prepare(st, &st->ins_ev,
			  "INSERT INTO events (ts_us, level, component_id, host_id, kernel_id, dur_us,"
			  " exec_ms, mem_mb, alloc_mb, peak_mb, util_pct, error_count,"
			  " recovery_attempts, anomaly, message, metadata, stream_id, line, file_id)"
			  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_mem,
			  "INSERT INTO mem_events (ts_us, thread, action, ptr, size_bytes, cuda_stream,"
			  " host_id, stream_id, line, file_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->ins_rej,
			  "INSERT INTO rejects (run_id, file_id, stream_id, line, offset, reason,"
			  " length, excerpt, ts_us) VALUES (?,?,?,?,?,?,?,?,?)",
			  err)) != GL_OK)
		return rc;
	if ((rc = prepare(st, &st->put_stream,
			  "INSERT INTO streams (id, format, component, first_path, bytes, lines, hash,"
			  " head_bytes, head_hash, day_us, last_tod_us, created_run, updated_run)"
			  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
			  " format=excluded.format, bytes=excluded.bytes, lines=excluded.lines,"
			  " hash=excluded.hash, head_bytes=excluded.head_bytes,"
			  " head_hash=excluded.head_hash, day_us=excluded.day_us,"
			  " last_tod_us=excluded.last_tod_us, updated_run=excluded.updated_run",
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
	return prepare(st, &st->ins_name, "INSERT INTO names (name) VALUES (?)", err);
}

/* --- interned names ------------------------------------------------- */

static int names_grow(struct gl_store *st)
{
	size_t cap = st->capnames ? st->capnames * 2 : 1024;
	struct name_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < st->capnames; i++) {
		struct name_slot *o = &st->names[i];

		if (!o->id)
			continue;
		size_t j = o->hash & (cap - 1);

		while (v[j].id)
			j = (j + 1) & (cap - 1);
		v[j] = *o;
	}
	free(st->names);
	st->names = v;
	st->capnames = cap;
	return 0;
}

static struct name_slot *names_slot(struct gl_store *st, const char *p, size_t len, uint64_t h)
{
	size_t j = h & (st->capnames - 1);

	while (st->names[j].id) {
		struct name_slot *s = &st->names[j];

		if (s->hash == h && s->len == len && memcmp(s->name, p, len) == 0)
			return s;
		j = (j + 1) & (st->capnames - 1);
	}
	return &st->names[j];
}

static int names_add(struct gl_store *st, const char *p, size_t len, int64_t id)
{
	if ((st->nnames + 1) * 2 > st->capnames && names_grow(st) < 0)
		return -1;
	uint64_t h = gl_hash64(p, len, 7);
	struct name_slot *s = names_slot(st, p, len, h);

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
	st->nnames++;
	return 0;
}

static void names_clear(struct gl_store *st)
{
	for (size_t i = 0; i < st->capnames; i++)
		free(st->names[i].name);
	free(st->names);
	st->names = NULL;
	st->nnames = st->capnames = 0;
}

static int names_load(struct gl_store *st, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc;

	names_clear(st);
	if (names_grow(st) < 0)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	if (sqlite3_prepare_v2(st->db, "SELECT id, name FROM names", -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot read names");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (names_add(st, (const char *)sqlite3_column_text(s, 1),
			      (size_t)sqlite3_column_bytes(s, 1), sqlite3_column_int64(s, 0)) < 0) {
			sqlite3_finalize(s);
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GL_OK : db_err(st, err, "cannot read names");
}

/* The id of name s, inserting it when new; 0 for an absent s. */
static int name_id(struct gl_store *st, struct gl_str s, int64_t *id, struct gl_err *err)
{
	*id = 0;
	if (!s.p)
		return GL_OK;
	uint64_t h = gl_hash64(s.p, s.len, 7);
	struct name_slot *slot = names_slot(st, s.p, s.len, h);

	if (slot->id) {
		*id = slot->id;
		return GL_OK;
	}
	sqlite3_bind_text(st->ins_name, 1, s.p, (int)s.len, SQLITE_STATIC);
	if (sqlite3_step(st->ins_name) != SQLITE_DONE) {
		sqlite3_reset(st->ins_name);
		return db_err(st, err, "cannot store name");
	}
	sqlite3_reset(st->ins_name);
	*id = sqlite3_last_insert_rowid(st->db);
	if (names_add(st, s.p, s.len, *id) < 0)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return GL_OK;
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

int gl_store_open(struct gl_store **out, const char *path, int nowait,
		  void (*waiting)(void *), void *arg, struct gl_err *err)
{
	struct gl_store *st = calloc(1, sizeof(*st));
	int fresh = 0, rc;

	*out = NULL;
	if (!st)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	st->lock_fd = -1;
	st->path = strdup(path);
	if (!st->path) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (st->lock_fd < 0) {
		rc = gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open database");
		goto out;
	}
	if ((rc = check_header(st->lock_fd, path, &fresh, err)) != GL_OK)
		goto out;
	if ((rc = take_lock(st, nowait, waiting, arg, err)) != GL_OK)
		goto out;
	/* The holder we waited for may have created it meanwhile. */
	if ((rc = check_header(st->lock_fd, path, &fresh, err)) != GL_OK)
		goto out;
	/*
	 * One connection used by one thread at a time: SQLite's per-call
	 * mutexes and memory accounting cost ~15% of the insert path and buy
	 * nothing here. sqlite3_config() only works before SQLite starts; if
	 * it has started, it stays as it is, which is merely slower.
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		rc = db_err(st, err, "cannot open database");
		goto out;
	}
	/* Another SQLite client (not an ingest: those wait on the flock above)
	 * holding a write lock: with --no-wait, fail promptly. */
	sqlite3_busy_timeout(st->db, nowait ? 1000 : 60000);
	if ((rc = create_or_migrate(st, fresh, err)) != GL_OK)
		goto out;
	if ((rc = db_exec(st,
		       "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
		       " PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY;",
		       err)) != GL_OK)
		goto out;
	if ((rc = prepare_all(st, err)) != GL_OK)
		goto out;
	if ((rc = names_load(st, err)) != GL_OK)
		goto out;
	rc = checkpointer_start(st, err);
out:
	if (rc != GL_OK) {
		gl_store_close(st);
		return rc;
	}
	*out = st;
	return GL_OK;
}

void gl_store_close(struct gl_store *st)
{
	if (!st)
		return;
	checkpointer_stop(st);
	sqlite3_finalize(st->ins_ev);
	sqlite3_finalize(st->ins_mem);
	sqlite3_finalize(st->ins_rej);
	sqlite3_finalize(st->put_stream);
	sqlite3_finalize(st->put_cp);
	sqlite3_finalize(st->put_file);
	sqlite3_finalize(st->unpath);
	sqlite3_finalize(st->ins_name);
	if (st->db) {
		/* Fold the WAL back so that the file alone is the database. */
		sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
		sqlite3_close(st->db);
	}
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	names_clear(st);
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
			       " head_bytes, head_hash, day_us, last_tod_us, created_run"
			       " FROM streams ORDER BY id",
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

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, v);
}

static void bind_id(sqlite3_stmt *s, int i, int64_t v)
{
	if (v)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static void bind_count(sqlite3_stmt *s, int i, int64_t v)
{
	if (v >= 0)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static int step(struct gl_store *st, sqlite3_stmt *s, struct gl_err *err)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? GL_OK : db_err(st, err, "cannot store");
}

static int put_event(struct gl_store *st, const struct gl_bev *b, int64_t host_id,
		     struct gl_err *err)
{
	const struct gl_event *e = &b->ev;
	sqlite3_stmt *s = st->ins_ev;
	int64_t comp, kern;
	int rc;

	if ((rc = name_id(st, e->component, &comp, err)) != GL_OK ||
	    (rc = name_id(st, e->kernel, &kern, err)) != GL_OK)
		return rc;
	if (e->ts_us != GL_TS_NONE)
		sqlite3_bind_int64(s, 1, e->ts_us);
	sqlite3_bind_int(s, 2, (int)e->level);
	bind_id(s, 3, comp);
	bind_id(s, 4, host_id);
	bind_id(s, 5, kern);
	bind_real(s, 6, e->dur_us);
	bind_real(s, 7, e->exec_ms);
	bind_real(s, 8, e->mem_mb);
	bind_real(s, 9, e->alloc_mb);
	bind_real(s, 10, e->peak_mb);
	bind_real(s, 11, e->util_pct);
	bind_count(s, 12, e->error_count);
	bind_count(s, 13, e->recovery_attempts);
	bind_count(s, 14, e->anomaly);
	bind_str(s, 15, e->message);
	bind_str(s, 16, e->metadata);
	sqlite3_bind_int64(s, 17, b->stream_id);
	sqlite3_bind_int64(s, 18, (int64_t)b->line);
	bind_id(s, 19, b->file_id);
	return step(st, s, err);
}

static int put_mem(struct gl_store *st, const struct gl_bmem *b, int64_t host_id,
		   struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_mem;

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
	return step(st, s, err);
}

static int put_reject(struct gl_store *st, const struct gl_brej *r, int64_t run_id,
		      struct gl_err *err)
{
	sqlite3_stmt *s = st->ins_rej;

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
	return step(st, s, err);
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
		return step(st, s, err);
	}
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

int gl_store_put(struct gl_store *st, const struct gl_batch *b, int64_t run_id, const char *host,
		 struct gl_err *err)
{
	int64_t host_id = 0;
	int rc;

	if ((rc = db_exec(st, "BEGIN IMMEDIATE", err)) != GL_OK)
		return rc;
	if (host) {
		struct gl_str h = {host, strlen(host)};

		rc = name_id(st, h, &host_id, err);
	}
	for (size_t i = 0; i < b->nev && rc == GL_OK; i++)
		rc = put_event(st, &b->ev[i], host_id, err);
	for (size_t i = 0; i < b->nmem && rc == GL_OK; i++)
		rc = put_mem(st, &b->mem[i], host_id, err);
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

		names_load(st, &ignored);
	}
	return rc;
}
