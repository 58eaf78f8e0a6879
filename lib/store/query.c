/*
 * query.c - read-only access to a gpulog database for gpulog-report. In: a
 * database path and time windows. Out: rows in time order, through
 * callbacks; names from an in-memory copy of the names table. This file:
 * open, names, and the readers of everything but the events themselves
 * (query_events.c: their statements, decoding and reader threads;
 * query_samples.c: metric samples).
 */
#include "store/query.h"
#include "store/evpack.h"
#include "store/query_int.h"
#include "store/kinds_v7.h"
#include "store/kinds_v8.h"
#include "record/record.h"
#include "util/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/timeutil.h"

int gl_query_db_error(struct gl_query *q, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, NULL, 0, sqlite3_errmsg(q->db), "%s", what);
}

int gl_query_pragma_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* 1 when the file's header is a gpulog database's: SQLite's magic and our
 * application_id at bytes 68..71 (big-endian). */
static bool header_is_gpulog(const char *path)
{
	unsigned char h[100];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, h, sizeof(h), 0);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(h) && memcmp(h, "SQLite format 3", 16) == 0 &&
	       ((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71]) ==
		       GL_DB_APPLICATION_ID;
}

/* Opens path with flags and reads its schema, so that a WAL database's
 * -shm is opened (or found impossible) now, not at the first query; waits
 * up to 5 s for a lock, as every query of the report does. */
static int connect_as(const char *path, int flags, const char *sql, sqlite3 **db)
{
	int rc = sqlite3_open_v2(path, db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(*db, 5000);
		rc = sqlite3_exec(*db, sql, NULL, NULL, NULL);
	}
	return rc;
}

/* The shared lock of connections opened immutable (gl_query_connect): taken
 * once, held until the process ends. */
static pthread_mutex_t shared_lock_mu = PTHREAD_MUTEX_INITIALIZER;
static int shared_lock_fd = -1;

/* 1 when path-wal is absent or empty: nothing committed waits in it. */
static bool wal_empty(const char *path)
{
	char w[4200];
	struct stat sb;

	if (snprintf(w, sizeof(w), "%s-wal", path) >= (int)sizeof(w))
		return false;
	return stat(w, &sb) != 0 ? errno == ENOENT : sb.st_size == 0;
}

/*
 * The last way in, for a user who can write neither the database nor its
 * directory, when no -shm is there to share: SQLite's immutable mode, which
 * reads the file without the -shm. Safe only while no gpulog-ingest writes:
 * the WAL holds nothing, and the shared flock() taken here keeps every
 * ingest waiting for its lock (store.c take_lock) until this process ends.
 */
static int connect_immutable(const char *path, sqlite3 **db, struct gl_err *err)
{
	char uri[3 * 4096 + 32], *o = uri;
	int rc = GL_OK;

	pthread_mutex_lock(&shared_lock_mu);
	if (shared_lock_fd < 0) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0)
			shared_lock_fd = fd;
		else {
			rc = gl_err_set(err, GL_EBUSY, path, 0,
					fd < 0 ? strerror(errno)
					       : "a gpulog-ingest is writing to it, and this user cannot"
						 " create its -shm file beside it to read meanwhile",
					"cannot open");
			if (fd >= 0)
				close(fd);
		}
	}
	pthread_mutex_unlock(&shared_lock_mu);
	if (rc != GL_OK)
		return rc;
	if (!wal_empty(path))
		return gl_err_set(err, GL_EIO, path, 0,
				  "its -wal file holds changes, and this user cannot create its -shm"
				  " file to read them: run gpulog-ingest or gpulog-report once as a"
				  " user who can write to its directory",
				  "cannot open");
	o += sprintf(o, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && o < uri + sizeof(uri) - 32;
	     p++)
		o += (isalnum(*p) || strchr("/._-", *p)) ? sprintf(o, "%c", *p)
							 : sprintf(o, "%%%02X", *p);
	sprintf(o, "?immutable=1");
	if (connect_as(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
		       "SELECT count(*) FROM sqlite_schema", db) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, path, 0, sqlite3_errmsg(*db), "cannot open");
	return GL_OK;
}

int gl_query_connect(const char *path, sqlite3 **db, struct gl_err *err)
{
	int rc;

	*db = NULL;
	if (!header_is_gpulog(path)) {
		/* Opened read-only as it is, for gl_query_open's own messages. */
		if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
		    SQLITE_OK)
			return gl_err_set(err, GL_EIO, path, 0,
					  *db ? sqlite3_errmsg(*db) : "out of memory",
					  "cannot open");
		return GL_OK;
	}
	/* Without write access to the file SQLite opens it read-only by
	 * itself; without it to the directory the -wal cannot be made. */
	if (connect_as(path, SQLITE_OPEN_READWRITE,
		       "PRAGMA query_only = 1; SELECT count(*) FROM sqlite_schema", db) == SQLITE_OK)
		return GL_OK;
	sqlite3_close(*db);
	rc = connect_as(path, SQLITE_OPEN_READONLY, "SELECT count(*) FROM sqlite_schema", db);
	if (rc == SQLITE_OK)
		return GL_OK;
	if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
		return gl_err_set(err, GL_EIO, path, 0, sqlite3_errmsg(*db), "cannot open");
	sqlite3_close(*db);
	*db = NULL;
	return connect_immutable(path, db, err);
}

static int load_names(struct gl_query *q, const char *path, struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t max_id = 0;
	int rc;

	if (gl_query_pragma_int(q->db, "SELECT coalesce(max(id), 0) FROM names", &max_id) != SQLITE_OK)
		return gl_err_set(err, GL_ENOTGPULOG, path, 0, sqlite3_errmsg(q->db),
				  "cannot read names from");
	if (max_id < 0 || max_id > 100000000)
		return gl_err_set(err, GL_EFORMAT, path, 0, "names.id out of range",
				  "cannot read names from");
	q->n_names = (size_t)max_id + 1;
	q->names = calloc(q->n_names, sizeof(*q->names));
	if (!q->names)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	rc = sqlite3_prepare_v2(q->db, "SELECT id, name FROM names", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *s = (const char *)sqlite3_column_text(st, 1);

		rc = SQLITE_OK;
		if (id < 0 || (uint64_t)id >= q->n_names || !s)
			continue;
		q->names[id] = strdup(s);
		if (!q->names[id]) {
			sqlite3_finalize(st);
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? GL_OK : gl_query_db_error(q, err, "cannot read names");
}

int gl_query_open(const char *path, struct gl_query **qp, struct gl_err *err)
{
	struct gl_query *q = NULL;
	struct stat sb;
	int64_t app_id = 0, version = 0;
	int rc;

	*qp = NULL;
	/*
	 * SQLite's memory accounting takes a process-wide mutex at each of
	 * its allocations, which the report's reader threads then contend
	 * for (store.c does the same for the ingest). sqlite3_config() only
	 * works before SQLite starts; once it has, nothing changes.
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (stat(path, &sb) != 0)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open");
	if (!S_ISREG(sb.st_mode))
		return gl_err_set(err, GL_EIO, path, 0, "Not a regular file", "cannot open");
	/* An ingest's first run holds the file empty until it moves the new
	 * database, built in <path>-build, over it (store.h GL_STORE_BUILD). */
	if (sb.st_size == 0) {
		char bp[4200];
		struct stat bs;

		snprintf(bp, sizeof(bp), "%s-build", path);
		return gl_err_set(err, GL_ENOTGPULOG, path, 0,
				  stat(bp, &bs) == 0
					  ? "empty: a gpulog-ingest is creating it (its first run moves"
					    " the database into place when it ends)"
					  : "empty: no gpulog-ingest run has finished yet",
				  "cannot open");
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	if ((rc = gl_query_connect(path, &q->db, err)) != GL_OK)
		goto out;
	sqlite3_busy_timeout(q->db, 5000);
	if (gl_query_pragma_int(q->db, "PRAGMA application_id", &app_id) != SQLITE_OK ||
	    gl_query_pragma_int(q->db, "PRAGMA user_version", &version) != SQLITE_OK) {
		rc = gl_err_set(err, GL_ENOTGPULOG, path, 0, sqlite3_errmsg(q->db),
				"cannot open");
		goto out;
	}
	if (app_id != GL_DB_APPLICATION_ID) {
		rc = gl_err_set(err, GL_ENOTGPULOG, path, 0, "not a gpulog database",
				"cannot open");
		goto out;
	}
	if (version > GL_DB_USER_VERSION) {
		rc = gl_err_set(err, GL_ENEWER, path, 0,
				"database written by a newer gpulog", "cannot open");
		goto out;
	}
	if (version < GL_DB_USER_VERSION_MIN) {
		rc = gl_err_set(err, GL_ENOTGPULOG, path, 0,
				"unknown gpulog schema version (run gpulog-ingest to migrate)",
				"cannot open");
		goto out;
	}
	q->version = version;
	/* What this database's schema has, one count each (older versions,
	 * read without migrating, lack some). */
	enum { P_DUP, P_SERIES, P_BLOCKS, P_ROWS, P_SOURCE, P_SPANS, P_PACKED, P_INDEX, P_KIND, P_OPS,
	       P_STAGE, P_N };
	static const char *const probe[P_N] = {
	    [P_DUP] = "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'dup_of'",
	    [P_SERIES] = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'series'",
	    [P_BLOCKS] = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			 " AND name = 'sample_blocks'",
	    [P_ROWS] = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'samples'",
	    [P_SOURCE] = "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'source'",
	    [P_SPANS] = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'spans'",
	    [P_PACKED] = "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'packed'",
	    [P_INDEX] = "SELECT count(*) FROM pragma_index_info('events_ts')"
			" WHERE name IN ('dup_of', 'packed')",
	    [P_KIND] = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		       " AND name = 'event_kinds'",
	    [P_OPS] = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		      " AND name = 'operations'",
	    [P_STAGE] = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			" AND name = 'sample_stage'",
	};
	int64_t has[P_N] = {0};

	for (size_t i = 0; i < P_N; i++)
		if (gl_query_pragma_int(q->db, probe[i], &has[i]) != SQLITE_OK) {
			rc = gl_query_db_error(q, err, "cannot read the schema");
			goto out;
		}
	q->has_dup_of = has[P_DUP] > 0;
	/* schema 4 packs samples in sample_blocks; a schema-3 database keeps
	 * one samples row per sample */
	q->samples = !has[P_SERIES] ? GL_QUERY_SAMPLES_NONE
		     : has[P_BLOCKS] ? GL_QUERY_SAMPLES_BLOCKS
		     : has[P_ROWS]   ? GL_QUERY_SAMPLES_ROWS
				     : GL_QUERY_SAMPLES_NONE;
	q->has_trace = has[P_SOURCE] > 0;
	q->has_spans = has[P_SPANS] > 0;
	q->has_packed = has[P_PACKED] > 0;
	q->covering = q->has_packed && has[P_INDEX] == 2;
	q->has_kind = has[P_KIND] > 0;
	q->has_ops = has[P_OPS] > 0;
	/* schema 11: samples waiting in sample_stage for the end of a run (one
	 * under way, or killed) are read too */
	if (q->samples == GL_QUERY_SAMPLES_BLOCKS && has[P_STAGE]) {
		int64_t staged = 0;

		if (gl_query_pragma_int(q->db, "SELECT EXISTS (SELECT 1 FROM sample_stage)", &staged) !=
		    SQLITE_OK) {
			rc = gl_query_db_error(q, err, "cannot read the schema");
			goto out;
		}
		q->staged = staged > 0;
	}
	rc = load_names(q, path, err);
out:
	if (rc != GL_OK)
		gl_query_close(q);
	else
		*qp = q;
	return rc;
}

void gl_query_close(struct gl_query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n_names; i++)
		free(q->names[i]);
	free(q->names);
	if (q->be)
		q->be->release(q);
	sqlite3_close(q->db);
	free(q);
}

const char *gl_query_name(const struct gl_query *q, int64_t id)
{
	return id >= 0 && (uint64_t)id < q->n_names ? q->names[id] : NULL;
}

size_t gl_query_name_slots(const struct gl_query *q)
{
	return q->n_names;
}

static double col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int gl_query_mem_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			struct gl_err *err)
{
	if (q->be)
		return q->be->mem_events(q, since_us, until_us, fn, arg, err);
	static const char sql[] =
		"SELECT ts_us, action, ptr, size_bytes, host_id FROM mem_events"
		" WHERE ts_us >= ?1 AND ts_us < ?2 ORDER BY ts_us, id";
	sqlite3_stmt *st = NULL;
	struct gl_query_mem m;
	int rc;

	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query mem_events");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		m.ts_us = sqlite3_column_int64(st, 0);
		m.action = sqlite3_column_int(st, 1);
		m.ptr = (uint64_t)sqlite3_column_int64(st, 2);
		m.size_bytes = (uint64_t)sqlite3_column_int64(st, 3);
		m.host_id = sqlite3_column_int64(st, 4);
		rc = fn(arg, &m);
		if (rc != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	rc = rc == SQLITE_DONE ? GL_OK : gl_query_db_error(q, err, "cannot read mem_events");
	sqlite3_finalize(st);
	return rc;
}

int gl_query_table_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			  uint64_t *rejects, uint64_t *files, struct gl_err *err)
{
	if (q->be)
		return q->be->table_counts(q, since_us, until_us, rejects, files, err);
	sqlite3_stmt *st = NULL;
	int64_t f = 0, has_ts = 0;
	int rc;

	/* schema 2 added rejects.ts_us; trust the table, not only the version */
	if (q->version >= 2 &&
	    gl_query_pragma_int(q->db, "SELECT count(*) FROM pragma_table_info('rejects') WHERE name = 'ts_us'",
		       &has_ts) != SQLITE_OK)
		has_ts = 0;
	rc = sqlite3_prepare_v2(q->db,
				/* a reject before any record of its file has no time: counted in every window */
				has_ts ? "SELECT count(*) FROM rejects WHERE (ts_us >= ?1 AND ts_us < ?2)"
					 " OR ts_us IS NULL"
						: "SELECT count(*) FROM rejects",
				-1, &st, NULL);
	if (rc == SQLITE_OK && has_ts) {
		sqlite3_bind_int64(st, 1, since_us);
		sqlite3_bind_int64(st, 2, until_us);
	}
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		*rejects = (uint64_t)sqlite3_column_int64(st, 0);
	else
		rc = SQLITE_ERROR;
	sqlite3_finalize(st);
	if (rc != SQLITE_OK || gl_query_pragma_int(q->db, "SELECT count(*) FROM files", &f) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot count rejects and files");
	*files = (uint64_t)f;
	return GL_OK;
}

int gl_query_retained_since(struct gl_query *q, int64_t *since_us, struct gl_err *err)
{
	if (q->be)
		return q->be->retained_since(q, since_us, err);
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	*since_us = GL_TS_NONE;
	if (q->version < 3)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, "SELECT max(pruned_before_us) FROM runs", -1, &s, NULL) !=
	    SQLITE_OK)
		return gl_query_db_error(q, err, "cannot read runs");
	if (sqlite3_step(s) != SQLITE_ROW)
		rc = gl_query_db_error(q, err, "cannot read runs");
	else if (sqlite3_column_type(s, 0) != SQLITE_NULL)
		*since_us = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

static char *col_strdup(sqlite3_stmt *st, int i, bool *oom)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*oom = true;
	return d;
}

void gl_query_series_free(struct gl_query_series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].device);
		free(s[i].source);
		free(s[i].labels);
	}
	free(s);
}

int gl_query_series_load(struct gl_query *q, struct gl_query_series **out, size_t *n,
			 struct gl_err *err)
{
	if (q->be)
		return q->be->series_load(q, out, n, err);
	static const char sql[] =
		"SELECT id, metric_id, device, host_id, source, labels FROM series ORDER BY id";
	struct gl_query_series *a = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	bool oom = false;
	int rc;

	*out = NULL;
	*n = 0;
	if (q->samples == GL_QUERY_SAMPLES_NONE)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query series");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct gl_query_series *b = realloc(a, c * sizeof(*b));

			if (!b) {
				oom = true;
				break;
			}
			a = b;
			cap = c;
		}
		struct gl_query_series *s = &a[len++];

		s->id = sqlite3_column_int64(st, 0);
		s->metric_id = sqlite3_column_int64(st, 1);
		s->device = col_strdup(st, 2, &oom);
		s->host_id = sqlite3_column_int64(st, 3);
		s->source = col_strdup(st, 4, &oom);
		s->labels = col_strdup(st, 5, &oom);
		if (oom)
			break;
	}
	if (oom)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read series");
	else
		rc = GL_OK;
	sqlite3_finalize(st);
	if (rc != GL_OK) {
		gl_query_series_free(a, len);
		return rc;
	}
	*out = a;
	*n = len;
	return GL_OK;
}

int gl_query_spans(struct gl_query *q, int64_t since_us, int64_t until_us,
		   int (*fn)(void *arg, const struct gl_query_span *s), void *arg,
		   struct gl_err *err)
{
	if (q->be)
		return q->be->spans(q, since_us, until_us, fn, arg, err);
	static const char sql[] =
		"SELECT start_us, dur_us, scope_id, depth, device, source, host_id FROM spans"
		" INDEXED BY spans_start WHERE start_us >= ?1 AND start_us < ?2"
		" ORDER BY start_us, id";
	sqlite3_stmt *st = NULL;
	struct gl_query_span s;
	int rc;

	if (!q->has_spans)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query spans");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s.start_us = sqlite3_column_int64(st, 0);
		s.dur_us = col_double(st, 1);
		s.scope_id = sqlite3_column_int64(st, 2);
		s.depth = sqlite3_column_int(st, 3);
		s.device = (const char *)sqlite3_column_text(st, 4);
		s.source = (const char *)sqlite3_column_text(st, 5);
		s.host_id = sqlite3_column_int64(st, 6);
		if (!s.source)
			s.source = "";
		rc = fn(arg, &s);
		if (rc != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	rc = rc == SQLITE_DONE ? GL_OK : gl_query_db_error(q, err, "cannot read spans");
	sqlite3_finalize(st);
	return rc;
}

int gl_query_events_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			 int64_t *first_us, int64_t *last_us, struct gl_err *err)
{
	if (q->be)
		return q->be->events_span(q, since_us, until_us, first_us, last_us, err);
	/* each min() and max() alone is one seek in its index */
	static const char sql[] =
		"SELECT (SELECT min(ts_us) FROM events WHERE ts_us >= ?1 AND ts_us < ?2),"
		" (SELECT max(ts_us) FROM events WHERE ts_us >= ?1 AND ts_us < ?2),"
		" (SELECT min(ts_us) FROM mem_events WHERE ts_us >= ?1 AND ts_us < ?2),"
		" (SELECT max(ts_us) FROM mem_events WHERE ts_us >= ?1 AND ts_us < ?2)";
	sqlite3_stmt *st = NULL;
	int rc = GL_OK;

	*first_us = *last_us = GL_TS_NONE;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query events");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = gl_query_db_error(q, err, "cannot read events");
	} else {
		for (int i = 0; i < 4; i += 2) {
			if (sqlite3_column_type(st, i) == SQLITE_NULL)
				continue;
			int64_t a = sqlite3_column_int64(st, i), b = sqlite3_column_int64(st, i + 1);

			if (*first_us == GL_TS_NONE || a < *first_us)
				*first_us = a;
			if (*last_us == GL_TS_NONE || b > *last_us)
				*last_us = b;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * May the database hold a record of kind k1 or k2 (stored: event_kinds;
 * else a stream that may hold such records, streams_old)? The queries
 * below read the window's events of a kind; events have no index by kind,
 * so they scan the window: this keeps them off a database without such
 * records.
 */
static int has_kind_of(struct gl_query *q, int k1, int k2, bool stored, const char *streams_old,
		       bool *yes, struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	char old[160];
	int s;

	*yes = false;
	snprintf(old, sizeof(old), "SELECT 1 FROM streams WHERE %s LIMIT 1", streams_old);
	if (sqlite3_prepare_v2(q->db,
			       stored ? "SELECT 1 FROM event_kinds WHERE kind IN (?1, ?2) LIMIT 1"
				      : old,
			       -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the kinds of records");
	if (stored) {
		sqlite3_bind_int(st, 1, k1);
		sqlite3_bind_int(st, 2, k2);
	}
	s = sqlite3_step(st);
	*yes = s == SQLITE_ROW;
	sqlite3_finalize(st);
	return s == SQLITE_ROW || s == SQLITE_DONE
		       ? GL_OK
		       : gl_query_db_error(q, err, "cannot read the kinds of records");
}

/* has_kind_of for the kinds of schema 8 (not migrated: kinds_v7.h) */
static int has_kind(struct gl_query *q, int k1, int k2, const char *streams_v7, bool *yes,
		    struct gl_err *err)
{
	return has_kind_of(q, k1, k2, q->has_kind, streams_v7, yes, err);
}

int gl_query_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
			 int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
			 struct gl_err *err)
{
	/* a database not migrated to schema 9: the kinds of fact by their
	 * streams' formats and their metadata (kinds_v8.h) */
#define FACT_SQL(which, dup)                                                                   \
	"SELECT e.ts_us, e.level, e.component_id, e.host_id, e.stream_id, e.message, e.metadata"  \
	" FROM events e WHERE e.ts_us >= ?1 AND e.ts_us < ?2 AND " which dup                     \
	" ORDER BY e.ts_us, e.id"
#define FACT_V8(kind, k, streams)                                                              \
	{kind, streams,                                                                        \
	 {FACT_SQL("e.stream_id IN (SELECT id FROM streams WHERE " streams ") AND "           \
		   GL_KINDS_V8_IS_FACT("e.", k), ""),                                          \
	  FACT_SQL("e.stream_id IN (SELECT id FROM streams WHERE " streams ") AND "           \
		   GL_KINDS_V8_IS_FACT("e.", k), " AND e.dup_of IS NULL")}},
	static const struct {
		int kind;
		const char *streams, *sql[2];
	} v8[] = {GL_KINDS_V8_FACTS(FACT_V8)};
	static const char *const sql_v9[2] = {FACT_SQL("e.kind = ?3", ""),
					      FACT_SQL("e.kind = ?3", " AND e.dup_of IS NULL")};
#undef FACT_V8
#undef FACT_SQL
	enum gl_ev_kind kind = gl_ev_fact_kind(key);
	bool stored = q->version >= 9, any = false;
	const char *streams = NULL, *sql = NULL;
	sqlite3_stmt *st = NULL;
	int rc = GL_OK, s = SQLITE_DONE;

	if (q->be)
		return q->be->fact_events(q, since_us, until_us, key, fn, arg, err);
	for (size_t i = 0; i < sizeof(v8) / sizeof(v8[0]); i++)
		if (v8[i].kind == (int)kind) {
			streams = v8[i].streams;
			sql = stored ? sql_v9[q->has_dup_of] : v8[i].sql[q->has_dup_of];
		}
	if (!streams)
		return GL_OK;
	if ((rc = has_kind_of(q, kind, kind, stored, streams, &any, err)) != GL_OK || !any)
		return rc;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the events' facts");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	if (stored)
		sqlite3_bind_int(st, 3, (int)kind);
	while (rc == GL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *msg = (const char *)sqlite3_column_text(st, 5);
		struct gl_query_fact_event e = {
			.ts_us = sqlite3_column_int64(st, 0),
			.level = sqlite3_column_int(st, 1),
			.component_id = sqlite3_column_int64(st, 2),
			.host_id = sqlite3_column_int64(st, 3),
			.stream_id = sqlite3_column_int64(st, 4),
			.message = msg ? msg : "",
			.metadata = (const char *)sqlite3_column_text(st, 6),
		};

		rc = fn(arg, &e);
	}
	if (rc == GL_OK && s != SQLITE_DONE && s != SQLITE_ROW)
		rc = gl_query_db_error(q, err, "cannot read the events' facts");
	sqlite3_finalize(st);
	return rc;
}

/*
 * The streams that hold a monitor's alert (GL_EV_ALERT) in the window: the
 * events of kind 2 there (a database not migrated to schema 8: the streams
 * of the formats that wrote alerts, kinds_v7.h). None read when the
 * database has never held an alert.
 */
int gl_query_alert_streams(struct gl_query *q, int64_t since_us, int64_t until_us, int64_t **ids,
			   size_t *n, struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *v = NULL;
	size_t cap = 0;
	int s, rc = GL_OK;
	bool any;

	*ids = NULL;
	*n = 0;
	if (q->be)
		return q->be->alert_streams(q, since_us, until_us, ids, n, err);
	if ((rc = has_kind(q, GL_EV_ALERT, GL_EV_ALERT, GL_KINDS_V7_STREAMS_ALERT, &any, err)) !=
		    GL_OK ||
	    !any)
		return rc;
	if (sqlite3_prepare_v2(q->db,
			       q->has_kind ? "SELECT DISTINCT stream_id FROM events WHERE ts_us >= ?1"
					     " AND ts_us < ?2 AND kind = 2 ORDER BY stream_id"
					   : "SELECT id FROM streams WHERE " GL_KINDS_V7_STREAMS_ALERT
					     " AND ?1 <= ?2 ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the alerts' streams");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t c = cap ? cap * 2 : 16;
			int64_t *t = realloc(v, c * sizeof(*t));

			if (!t) {
				rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
				goto out;
			}
			v = t;
			cap = c;
		}
		v[(*n)++] = sqlite3_column_int64(st, 0);
	}
	if (s != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read the alerts' streams");
out:
	sqlite3_finalize(st);
	if (rc != GL_OK) {
		free(v);
		*n = 0;
		v = NULL;
	}
	*ids = v;
	return rc;
}

int gl_query_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
			struct gl_err *err)
{
	if (q->be)
		return q->be->log_alerts(q, since_us, until_us, fn, arg, err);
	/* A monitor's alert (GL_EV_ALERT) holds its metric, value and
	 * threshold in its metadata; a database not migrated to schema 8 tells
	 * its alerts by their stream's format (kinds_v7.h). */
#define LOG_ALERTS_SQL(which, dup)                                                             \
	"SELECT e.ts_us, e.level, e.component_id, e.host_id, e.message,"                     \
	" json_extract(e.metadata, '$.metric'), json_extract(e.metadata, '$.value'),"         \
	" json_extract(e.metadata, '$.threshold') FROM events e"                              \
	" WHERE e.ts_us >= ?1 AND e.ts_us < ?2 AND " which dup " ORDER BY e.ts_us, e.id"
#define ALERT_V8 "e.kind = 2"
#define ALERT_V7                                                                               \
	"e.stream_id IN (SELECT id FROM streams WHERE " GL_KINDS_V7_STREAMS_ALERT ")"         \
	" AND " GL_KINDS_V7_IS_ALERT("e.")
	static const char *const sql[2][2] = {
		{LOG_ALERTS_SQL(ALERT_V7, ""), LOG_ALERTS_SQL(ALERT_V7, " AND e.dup_of IS NULL")},
		{LOG_ALERTS_SQL(ALERT_V8, ""), LOG_ALERTS_SQL(ALERT_V8, " AND e.dup_of IS NULL")},
	};
#undef LOG_ALERTS_SQL
#undef ALERT_V8
#undef ALERT_V7
	sqlite3_stmt *st = NULL;
	int rc, s = SQLITE_DONE;
	bool any;

	if ((rc = has_kind(q, GL_EV_ALERT, GL_EV_ALERT, GL_KINDS_V7_STREAMS_ALERT, &any, err)) !=
		    GL_OK ||
	    !any)
		return rc;
	if (sqlite3_prepare_v2(q->db, sql[q->has_kind][q->has_dup_of], -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the logs' alerts");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while (rc == GL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *msg = (const char *)sqlite3_column_text(st, 4);
		struct gl_query_log_alert a = {
			.ts_us = sqlite3_column_int64(st, 0),
			.level = sqlite3_column_int(st, 1),
			.component_id = sqlite3_column_int64(st, 2),
			.host_id = sqlite3_column_int64(st, 3),
			.message = msg ? msg : "",
			.metric = sqlite3_column_type(st, 5) == SQLITE_TEXT
					  ? (const char *)sqlite3_column_text(st, 5) : NULL,
			.value = sqlite3_column_type(st, 6) == SQLITE_NULL ||
					 sqlite3_column_type(st, 6) == SQLITE_TEXT
					 ? NAN : sqlite3_column_double(st, 6),
			.threshold = sqlite3_column_type(st, 7) == SQLITE_NULL ||
					     sqlite3_column_type(st, 7) == SQLITE_TEXT
					     ? NAN : sqlite3_column_double(st, 7),
		};

		rc = fn(arg, &a);
	}
	if (rc == GL_OK && s != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read the logs' alerts");
	sqlite3_finalize(st);
	return rc;
}

int gl_query_access_requests(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			     struct gl_err *err)
{
	if (q->be)
		return q->be->access_requests(q, since_us, until_us, fn, arg, err);
	/* An access line (GL_EV_ACCESS, GL_EV_ACCESS_FAILED); a database not
	 * migrated to schema 8 tells them by their text and their stream's
	 * format (kinds_v7.h). */
#define ACCESS_SQL(failed, which, dup)                                                         \
	"SELECT component_id, host_id, count(*), coalesce(sum(" failed "), 0)"                \
	" FROM events WHERE ts_us >= ?1 AND ts_us < ?2 AND " which dup                         \
	" GROUP BY component_id, host_id ORDER BY component_id, host_id"
#define FAILED_V8 "kind = 4"
#define ACCESS_V8 "kind IN (3, 4)"
#define ACCESS_V7                                                                              \
	"stream_id IN (SELECT id FROM streams WHERE " GL_KINDS_V7_STREAMS_ACCESS ")"          \
	" AND " GL_KINDS_V7_IS_ACCESS("")
	static const char *const sql[2][2] = {
		{ACCESS_SQL(GL_KINDS_V7_IS_ACCESS_FAILED(""), ACCESS_V7, ""),
		 ACCESS_SQL(GL_KINDS_V7_IS_ACCESS_FAILED(""), ACCESS_V7, " AND dup_of IS NULL")},
		{ACCESS_SQL(FAILED_V8, ACCESS_V8, ""),
		 ACCESS_SQL(FAILED_V8, ACCESS_V8, " AND dup_of IS NULL")},
	};
#undef ACCESS_SQL
#undef FAILED_V8
#undef ACCESS_V8
#undef ACCESS_V7
	sqlite3_stmt *st = NULL;
	int rc, s = SQLITE_DONE;
	bool any;

	if ((rc = has_kind(q, GL_EV_ACCESS, GL_EV_ACCESS_FAILED, GL_KINDS_V7_STREAMS_ACCESS, &any,
			   err)) != GL_OK ||
	    !any)
		return rc;
	if (sqlite3_prepare_v2(q->db, sql[q->has_kind][q->has_dup_of], -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the access lines");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while (rc == GL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct gl_query_access a = {
			.component_id = sqlite3_column_int64(st, 0),
			.host_id = sqlite3_column_int64(st, 1),
			.requests = (uint64_t)sqlite3_column_int64(st, 2),
			.failed = (uint64_t)sqlite3_column_int64(st, 3),
		};

		rc = fn(arg, &a);
	}
	if (rc == GL_OK && s != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read the access lines");
	sqlite3_finalize(st);
	return rc;
}

bool gl_query_describes_kernels(const struct gl_query *q)
{
	return q->be && q->be->kernel_stats;
}

int gl_query_kernel_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const int64_t *ids, size_t n, const struct gl_query_keep *keep,
			  int (*fn)(void *arg, const struct gl_query_kernel_stats *s), void *arg,
			  struct gl_err *err)
{
	if (!gl_query_describes_kernels(q))
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "kernels are described by the caller here");
	return q->be->kernel_stats(q, since_us, until_us, ids, n, keep, fn, arg, err);
}

bool gl_query_describes_series(const struct gl_query *q)
{
	return q->be && q->be->series_stats;
}

int gl_query_series_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const int64_t *ids, size_t n, uint64_t max_samples,
			  int (*fn)(void *arg, const struct gl_query_series_stats *s), void *arg,
			  struct gl_err *err)
{
	if (!gl_query_describes_series(q))
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "metric series are described by the caller here");
	return q->be->series_stats(q, since_us, until_us, ids, n, max_samples, fn, arg, err);
}

bool gl_query_counts_events(const struct gl_query *q)
{
	return q->be && q->be->event_counts;
}

int gl_query_event_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			  const struct gl_query_keep *keep, const int64_t *alert_streams,
			  size_t n_alert_streams,
			  int (*fn)(void *arg, const struct gl_query_event_count *c), void *arg,
			  struct gl_err *err)
{
	if (!gl_query_counts_events(q))
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "events are counted by the caller here");
	return q->be->event_counts(q, since_us, until_us, keep, alert_streams, n_alert_streams, fn,
				   arg, err);
}
