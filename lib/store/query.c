/*
 * query.c - read-only access to a gpulog database for gpulog-report. In: a
 * database path and time windows. Out: rows in time order, through
 * callbacks; names from an in-memory copy of the names table.
 */
#include "store/query.h"
#include "store/evpack.h"
#include "store/query_int.h"
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

static int pragma_int(sqlite3 *db, const char *sql, int64_t *v)
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

	if (pragma_int(q->db, "SELECT coalesce(max(id), 0) FROM names", &max_id) != SQLITE_OK)
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
	if (pragma_int(q->db, "PRAGMA application_id", &app_id) != SQLITE_OK ||
	    pragma_int(q->db, "PRAGMA user_version", &version) != SQLITE_OK) {
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
	enum { P_DUP, P_SERIES, P_BLOCKS, P_ROWS, P_SOURCE, P_SPANS, P_PACKED, P_INDEX, P_N };
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
	};
	int64_t has[P_N] = {0};

	for (size_t i = 0; i < P_N; i++)
		if (pragma_int(q->db, probe[i], &has[i]) != SQLITE_OK) {
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

/*
 * The events statement's columns, in one of six layouts:
 *   columns: 0 ts_us, 1-12 GL_EVPACK_COLUMNS (9: message), 13 metadata,
 *            14 dup_of, [15 source, 16-21 the other kernel-trace columns,] id;
 *   packed:  0 ts_us, 1 packed, 2 message, 3 metadata, 4 dup_of,
 *            [5 source, 6-11 the other kernel-trace columns,] id;
 *   index:   0 ts_us, 1 packed, 2 dup_of, 3 id, all held by events_ts
 *            (schema 7), so that SQLite steps the index alone; the text of
 *            the rows that use it is read from the table by id;
 *   index, kernel rows: 0 ts_us, 1 packed, 2 id; the statement keeps
 *            originals only (dup_of IS NULL), and the rows without a kernel
 *            or a duration are left out here, since testing kernel_id or
 *            dur_us in SQL would read the table.
 * A statement without the trace columns has none (not NULLs: each result
 * column is a step of every row).
 */
struct ev_layout {
	bool packed;		/* column 1 is events.packed */
	bool text_by_id;	/* message and metadata read by id (index layouts) */
	bool kernels;		/* leave out rows without kernel_id or dur_us */
	int message, metadata, dup, source, trace, id;	/* -1 when absent */
	int ncols;
};

static const struct ev_layout layouts[] = {
	{.message = 9, .metadata = 13, .dup = 14, .source = 15, .trace = 16, .id = 22, .ncols = 23},
	{.message = 9, .metadata = 13, .dup = 14, .source = -1, .trace = -1, .id = 15, .ncols = 16},
	{.packed = true, .message = 2, .metadata = 3, .dup = 4, .source = 5, .trace = 6, .id = 12,
	 .ncols = 13},
	{.packed = true, .message = 2, .metadata = 3, .dup = 4, .source = -1, .trace = -1, .id = 5,
	 .ncols = 6},
	{.packed = true, .text_by_id = true, .message = -1, .metadata = -1, .dup = 2, .source = -1,
	 .trace = -1, .id = 3, .ncols = 4},
	{.packed = true, .text_by_id = true, .kernels = true, .message = -1, .metadata = -1,
	 .dup = -1, .source = -1, .trace = -1, .id = 2, .ncols = 3},
};

static double val_double(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

static double col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/*
 * Which text columns a row hands out (query.h), decided here rather than by
 * CASE expressions in the statement, which cost every row about 20 of its
 * 50 bytecode steps. The tests are SQL's, on the stored values
 * (gl_evpack_from_values makes warn and op of them):
 *   message:  level >= 4 OR (kernel_id IS NULL AND
 *             (exec_ms IS NOT NULL OR message LIKE 'Operation %'))
 *   metadata: kernel_id IS NULL AND exec_ms IS NOT NULL
 */

bool gl_query_has_dup_of(const struct gl_query *q)
{
	return q->has_dup_of;
}

/*
 * Events are read in blocks of decoded rows. The index events_ts is
 * (ts_us, rec_hash): it gives time order without a sort, but not id order
 * among rows of the same time, and asking SQLite for "ORDER BY ts_us, id"
 * makes it sort every run of equal times in a temporary b-tree (measured:
 * 4 of the 9 s of reading 10M events). So a block ends only where the time
 * changes, and each run of equal times in it is put in id order here. Text
 * columns are copied into the block's arena, since a row's pointers die
 * with the next sqlite3_step.
 *
 * A reader thread on its own connection fills the blocks of a small ring
 * while the caller's thread hands the rows of the filled ones to fn, in
 * order: fn runs in the caller's thread only, and SQLite's stepping and
 * decoding overlap with the sections' work. Without a thread or a second
 * connection, one thread fills a block and hands it out in turn.
 */
#define EV_BLOCK 4096		/* rows; a block ends at the first change of time past this */

struct held {
	struct gl_query_event ev;
	int64_t id;
	size_t off[4];		/* message, metadata, device, source in arena; SIZE_MAX: NULL */
};

struct held_group {
	struct held *h;
	size_t n, cap;
	char *arena;
	size_t alen, acap;
};

/* Copies len bytes of s (and a NUL) into the arena; SIZE_MAX for NULL, or out of memory (*oom). */
static inline size_t arena_put(struct held_group *g, const char *s, size_t len, bool *oom)
{
	size_t off;

	if (!s)
		return SIZE_MAX;
	if (g->alen + len + 1 > g->acap) {
		size_t cap = g->acap ? g->acap : 4096;
		char *a;

		while (cap < g->alen + len + 1)
			cap *= 2;
		if (!(a = realloc(g->arena, cap))) {
			*oom = true;
			return SIZE_MAX;
		}
		g->arena = a;
		g->acap = cap;
	}
	off = g->alen;
	memcpy(g->arena + off, s, len);
	g->arena[off + len] = '\0';
	g->alen += len + 1;
	return off;
}

static int cmp_held_id(const void *pa, const void *pb)
{
	const struct held *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* Puts each run of equal times of g in id order. */
static void sort_runs(struct held_group *g)
{
	for (size_t i = 0, j; i < g->n; i = j) {
		for (j = i + 1; j < g->n && g->h[j].ev.ts_us == g->h[i].ev.ts_us; j++)
			;
		if (j - i > 1)
			qsort(g->h + i, j - i, sizeof(*g->h), cmp_held_id);
	}
}

/*
 * What decodes the rows of one statement: its layout and, for the packed
 * one, the statement that reads a row's columns when its packing is NULL
 * or not one of this version (prepared at the first such row, on the
 * statement's connection: inside the same read transaction).
 */
struct ev_decoder {
	const struct ev_layout *lay;
	sqlite3_stmt *by_id;
	sqlite3_stmt *text;	/* message and metadata by id (text_by_id layouts) */
};

static void decoder_init(struct ev_decoder *d, sqlite3_stmt *st)
{
	const int n = sqlite3_column_count(st);

	d->lay = &layouts[0];
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].ncols == n)
			d->lay = &layouts[i];
	d->by_id = NULL;
	d->text = NULL;
}

static void decoder_free(struct ev_decoder *d)
{
	sqlite3_finalize(d->by_id);
	sqlite3_finalize(d->text);
	d->by_id = NULL;
	d->text = NULL;
}

/* Steps d->text to the row st is on (message, metadata); SQLITE_ROW or an error. */
static int text_row(sqlite3_stmt *st, struct ev_decoder *d)
{
	int rc;

	if (!d->text &&
	    sqlite3_prepare_v2(sqlite3_db_handle(st),
			       "SELECT message, metadata FROM events WHERE id = ?1", -1, &d->text,
			       NULL) != SQLITE_OK)
		return sqlite3_errcode(sqlite3_db_handle(st));
	sqlite3_bind_int64(d->text, 1, sqlite3_column_int64(st, d->lay->id));
	rc = sqlite3_step(d->text);
	if (rc == SQLITE_DONE)
		rc = SQLITE_CORRUPT;	/* the row the statement is on is not there */
	if (rc != SQLITE_ROW)
		sqlite3_reset(d->text);
	return rc;
}

/* The fields of the row st is on; SQLITE_OK or the error of reading its columns. */
static int event_fields(sqlite3_stmt *st, struct ev_decoder *d, struct gl_evpack *f)
{
	sqlite3_value *v[GL_EVPACK_NCOLS];
	int rc;

	if (!d->lay->packed) {
		for (int i = 0; i < GL_EVPACK_NCOLS; i++)
			v[i] = sqlite3_column_value(st, 1 + i);
		gl_evpack_from_values(v, f);
		return SQLITE_OK;
	}
	sqlite3_value *p = sqlite3_column_value(st, 1);

	if (sqlite3_value_type(p) == SQLITE_BLOB &&
	    gl_evpack_decode(sqlite3_value_blob(p), (size_t)sqlite3_value_bytes(p), f))
		return SQLITE_OK;
	if (!d->by_id &&
	    sqlite3_prepare_v2(sqlite3_db_handle(st),
			       "SELECT " GL_EVPACK_COLUMNS " FROM events WHERE id = ?1", -1, &d->by_id,
			       NULL) != SQLITE_OK)
		return sqlite3_errcode(sqlite3_db_handle(st));
	sqlite3_bind_int64(d->by_id, 1, sqlite3_column_int64(st, d->lay->id));
	rc = sqlite3_step(d->by_id);
	if (rc == SQLITE_ROW) {
		for (int i = 0; i < GL_EVPACK_NCOLS; i++)
			v[i] = sqlite3_column_value(d->by_id, i);
		gl_evpack_from_values(v, f);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		rc = SQLITE_CORRUPT;	/* the row the statement is on is not there */
	}
	sqlite3_reset(d->by_id);
	return rc;
}

/* Decodes the row st is on into a new entry of g: SQLITE_OK, SQLITE_NOMEM,
 * or the error of reading its columns. */
static int decode_event(sqlite3_stmt *st, struct ev_decoder *d, struct held_group *g,
			int64_t ts_us)
{
	const struct ev_layout *L = d->lay;
	struct gl_evpack f;
	bool oom = false;
	int rc;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : EV_BLOCK + 16;
		struct held *nh = realloc(g->h, cap * sizeof(*nh));

		if (!nh)
			return SQLITE_NOMEM;
		g->h = nh;
		g->cap = cap;
	}
	struct held *h = &g->h[g->n];
	struct gl_query_event *ev = &h->ev;

	/*
	 * Each column's value once (sqlite3_column_value), then its type and
	 * value from it: half the calls of sqlite3_column_type followed by
	 * sqlite3_column_double, each of which looks the column up and checks
	 * for a failed allocation. The value is "unprotected"; reading it is
	 * safe here because the connection belongs to this thread alone
	 * (SQLITE_OPEN_NOMUTEX, one reader per connection).
	 */
	if ((rc = event_fields(st, d, &f)) != SQLITE_OK)
		return rc;
	if (L->kernels && (!f.has_kernel || isnan(f.dur_us)))
		return SQLITE_OK;	/* not a kernel timing: left out */
	ev->ts_us = ts_us;
	ev->level = f.level;
	ev->component_id = f.component_id;
	ev->host_id = f.host_id;
	ev->kernel_id = f.kernel_id;
	ev->dur_us = f.dur_us;
	ev->mem_mb = f.mem_mb;
	ev->anomaly = f.anomaly;
	ev->recovery_attempts = f.recovery_attempts;
	ev->error_count = f.error_count;
	ev->stream_id = f.stream_id;
	ev->exec_ms = f.exec_ms;
	/* the text columns, where a report uses them (see above) */
	const bool has_exec = !isnan(f.exec_ms);
	const bool want_message = f.warn || (!f.has_kernel && (has_exec || f.op));
	const bool want_metadata = !f.has_kernel && has_exec;
	sqlite3_stmt *tst = st;
	int tmessage = L->message, tmetadata = L->metadata;
	const unsigned char *text = NULL;
	size_t text_len = 0;

	if (L->text_by_id && (want_message || want_metadata)) {
		if ((rc = text_row(st, d)) != SQLITE_ROW)
			return rc;
		tst = d->text;
		tmessage = 0;
		tmetadata = 1;
	}
	if (want_message) {
		sqlite3_value *m = sqlite3_column_value(tst, tmessage);

		text = sqlite3_value_text(m);
		text_len = (size_t)sqlite3_value_bytes(m);
	}
	h->off[0] = arena_put(g, (const char *)text, text_len, &oom);
	ev->message_len = h->off[0] == SIZE_MAX ? 0 : text_len;
	text = NULL;
	text_len = 0;
	if (want_metadata) {
		sqlite3_value *m = sqlite3_column_value(tst, tmetadata);

		text = sqlite3_value_text(m);
		text_len = (size_t)sqlite3_value_bytes(m);
	}
	h->off[1] = arena_put(g, (const char *)text, text_len, &oom);
	ev->metadata_len = h->off[1] == SIZE_MAX ? 0 : text_len;
	if (tst != st)
		sqlite3_reset(tst);
	ev->dup_of = L->dup >= 0 ? sqlite3_column_int64(st, L->dup) : 0;
	/* the trace columns: only for a row of a profiler trace (source set) */
	sqlite3_value *src = L->source >= 0 ? sqlite3_column_value(st, L->source) : NULL;
	const char *source = src ? (const char *)sqlite3_value_text(src) : NULL;

	h->off[2] = h->off[3] = SIZE_MAX;
	if (source) {
		sqlite3_value *v[6];

		h->off[3] = arena_put(g, source, (size_t)sqlite3_value_bytes(src), &oom);
		for (int i = 0; i < 6; i++)
			v[i] = sqlite3_column_value(st, L->trace + i);
		ev->launch_overhead_us = val_double(v[0]);
		ev->queue_us = val_double(v[1]);
		ev->occupancy = val_double(v[2]);
		const char *device = (const char *)sqlite3_value_text(v[3]);
		h->off[2] = arena_put(g, device, device ? (size_t)sqlite3_value_bytes(v[3]) : 0,
				      &oom);
		ev->scope_id = sqlite3_value_int64(v[4]);
		ev->stack_id = sqlite3_value_int64(v[5]);
	} else {
		ev->launch_overhead_us = ev->queue_us = ev->occupancy = NAN;
		ev->scope_id = ev->stack_id = 0;
	}
	h->id = sqlite3_column_int64(st, L->id);
	g->n++;
	return oom ? SQLITE_NOMEM : SQLITE_OK;
}

/*
 * Empties g and fills it from st: to the end (SQLITE_DONE: the statement's
 * end or its first row at or past until_us), or to a row of a new time
 * once EV_BLOCK rows are in (SQLITE_ROW; st stays on that row, not yet
 * decoded: *pending), or an error (SQLITE_NOMEM when out of memory). On
 * entry *pending says st is on a row not yet decoded.
 */
static int fill_block(sqlite3_stmt *st, struct ev_decoder *d, struct held_group *g, bool *pending,
		      int64_t until_us)
{
	int rc;

	g->n = 0;
	g->alen = 0;
	for (;;) {
		if (!*pending && (rc = sqlite3_step(st)) != SQLITE_ROW)
			break;
		*pending = false;
		/* ts_us is an integer as gpulog writes it; a REAL compares as its
		 * integer part does, and a TEXT or BLOB sorts after every number,
		 * past any window, as in SQL */
		sqlite3_value *tv = sqlite3_column_value(st, 0);
		int type = sqlite3_value_type(tv);
		int64_t ts = sqlite3_value_int64(tv);

		if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || ts >= until_us) {
			rc = SQLITE_DONE;
			break;
		}
		if (g->n >= EV_BLOCK && ts != g->h[g->n - 1].ev.ts_us) {
			*pending = true;
			rc = SQLITE_ROW;
			break;
		}
		if ((rc = decode_event(st, d, g, ts)) != SQLITE_OK)
			return rc;
	}
	sort_runs(g);
	return rc;
}

/* Hands the rows of g to fn in order; fn's value or 0. */
static int emit_block(struct held_group *g, int (*fn)(void *arg, const struct gl_query_event *ev),
		      void *arg)
{
	int rc = 0;

	for (size_t i = 0; i < g->n && rc == 0; i++) {
		struct held *h = &g->h[i];

		h->ev.message = h->off[0] == SIZE_MAX ? NULL : g->arena + h->off[0];
		h->ev.metadata = h->off[1] == SIZE_MAX ? NULL : g->arena + h->off[1];
		h->ev.device = h->off[2] == SIZE_MAX ? NULL : g->arena + h->off[2];
		h->ev.source = h->off[3] == SIZE_MAX ? NULL : g->arena + h->off[3];
		rc = fn(arg, &h->ev);
	}
	return rc;
}

/*
 * The formats whose records carry the kernel-trace columns (their parsers
 * set gl_event.source: lib/ingest/fmt_gpufl.c, fmt_kineto.c, fmt_nsys.c).
 * A database with no stream of them has those columns NULL in every row,
 * and the slice readers then leave them out of the statement: 11 of a
 * row's 31 bytecode steps, about 8% of a 10M-event report. A stream of no
 * recorded format counts as one of them.
 */
#define TRACE_FORMATS_SQL                                                                   \
	"SELECT EXISTS (SELECT 1 FROM streams WHERE format IS NULL"                         \
	" OR format IN ('gpufl', 'kineto', 'nsys'))"

/* Which of the two statements to run on db, in its current snapshot:
 * sql when a stream of a trace format exists (or that cannot be read),
 * else sql_plain. */
static const char *pick_sql(sqlite3 *db, const char *sql, const char *sql_plain)
{
	int64_t traces = 1;

	if (sql_plain == sql || pragma_int(db, TRACE_FORMATS_SQL, &traces) != SQLITE_OK)
		return sql;
	return traces ? sql : sql_plain;
}

/* The events statement; trace: with the kernel-trace columns (when the
 * database has them). */
static const char *events_sql(const struct gl_query *q, unsigned flags, bool trace)
{
	/*
	 * Text is read only where a report uses it (see query.h): reading every
	 * message of 10M kernel lines would double the report's time. A packed
	 * statement reads events.packed where the other reads its 11 columns
	 * (lib/store/evpack.h); the columns of the two layouts are above.
	 *
	 * The window's end is not in the statements that return every row of
	 * it: the reader (fill_block) stops at the first row at or past it,
	 * which is the row after the window, and SQLite then does not compare
	 * each index entry with the end (IdxGE: about 5% of a reader's
	 * instructions). A statement that leaves rows out (kernels only) keeps
	 * "ts_us < ?2": without it, a window with no row to return after its
	 * end would be read to the end of the table.
	 */
#define EV_COLS(base, dup, trace)                                                          \
	"SELECT ts_us, " base ", " dup trace ", id FROM events INDEXED BY events_ts"         \
	" WHERE ts_us >= ?1"
#define BASE_COLUMNS GL_EVPACK_COLUMNS ", metadata"
#define BASE_PACKED "packed, message, metadata"
#define TR_NO ""
#define TR_YES                                                                             \
	", source, launch_overhead_us, queue_us, occupancy, device, scope_id, stack_id"
#define EV_SQL(base, dup, trace)                                                           \
	{EV_COLS(base, dup, trace) " ORDER BY ts_us",                                      \
	 EV_COLS(base, dup, trace) " AND ts_us < ?2 AND kernel_id IS NOT NULL"              \
				   " AND dur_us IS NOT NULL ORDER BY ts_us"}
#define EV_SQL_DUP(base, trace)                                                            \
	{EV_COLS(base, "dup_of", trace) " ORDER BY ts_us",                                 \
	 EV_COLS(base, "dup_of", trace) " AND ts_us < ?2 AND kernel_id IS NOT NULL"         \
					" AND dur_us IS NOT NULL AND dup_of IS NULL ORDER BY ts_us"}
	/* [packed][has dup_of][has the trace columns][kernels only]; the
	 * kernels-only walk (the baseline's durations) reads no trace column.
	 * (Every database with packed has dup_of and the trace columns.) */
	static const char *const sql[2][2][2][2] = {
		{
			{EV_SQL(BASE_COLUMNS, "NULL", TR_NO), EV_SQL(BASE_COLUMNS, "NULL", TR_YES)},
			{EV_SQL_DUP(BASE_COLUMNS, TR_NO), EV_SQL_DUP(BASE_COLUMNS, TR_YES)},
		},
		{
			{EV_SQL(BASE_PACKED, "NULL", TR_NO), EV_SQL(BASE_PACKED, "NULL", TR_YES)},
			{EV_SQL_DUP(BASE_PACKED, TR_NO), EV_SQL_DUP(BASE_PACKED, TR_YES)},
		},
	};
	/*
	 * Schema 7's events_ts holds every column of the index layouts (see
	 * above): SQLite then steps the index alone, and not also the table
	 * row of each entry with its 38-column header. A statement with the
	 * trace columns reads the table.
	 */
#define EV_INDEX(cols, where)                                                              \
	"SELECT ts_us, packed, " cols "id FROM events INDEXED BY events_ts"                  \
	" WHERE ts_us >= ?1" where " ORDER BY ts_us"
	static const char *const sql_index[2] = {EV_INDEX("dup_of, ", ""),
						 EV_INDEX("", " AND ts_us < ?2 AND dup_of IS NULL")};
#undef EV_INDEX
	const bool only = (flags & GL_QUERY_KERNELS_ONLY) != 0;
	const bool packed = q->has_packed && !(flags & GL_QUERY_COLUMNS);

	if (packed && q->covering && !(flags & GL_QUERY_TABLE) && !(trace && q->has_trace && !only))
		return sql_index[only];
#undef TR_NO
#undef TR_YES
#undef EV_SQL
#undef EV_SQL_DUP
#undef BASE_COLUMNS
#undef BASE_PACKED
#undef EV_COLS
	return sql[packed][q->has_dup_of][trace && q->has_trace && !only][only];
}

/* One thread: fill a block, hand it out, again. */
static int events_direct(struct gl_query *q, const char *sql, const char *sql_plain,
			 int64_t since_us, int64_t until_us,
			 int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			 struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	struct held_group g = {0};
	struct ev_decoder d;
	bool pending = false, own = false;
	int rc, frc = 0;

	/* whether a trace stream exists, read in the statement's snapshot (as
	 * slice_main does), unless the caller holds a transaction already */
	if (sql_plain != sql)
		own = sqlite3_get_autocommit(q->db) &&
		      sqlite3_exec(q->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	if (sqlite3_prepare_v2(q->db, pick_sql(q->db, sql, sql_plain), -1, &st, NULL) != SQLITE_OK) {
		rc = gl_query_db_error(q, err, "cannot query events");
		if (own)
			sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
		return rc;
	}
	sqlite3_bind_int64(st, 1, since_us);
	/* ?2 is only in the kernels-only statements (see events_sql); the others
	 * have no ?2, and the bind is a no-op there (SQLITE_RANGE) */
	sqlite3_bind_int64(st, 2, until_us);
	decoder_init(&d, st);
	do {
		rc = fill_block(st, &d, &g, &pending, until_us);
		frc = emit_block(&g, fn, arg);
	} while (rc == SQLITE_ROW && frc == 0);
	if (frc != 0)
		rc = frc;
	else if (rc == SQLITE_NOMEM)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc != SQLITE_DONE)
		rc = gl_query_db_error(q, err, "cannot read events");
	else
		rc = GL_OK;
	free(g.h);
	free(g.arena);
	decoder_free(&d);
	sqlite3_finalize(st);
	if (own)
		sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}

struct read_pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;				/* the reader's connection */
	const char *sql;
	int64_t since_us, until_us;
	const struct gl_query_pipe_ops *ops;
	size_t produced, consumed;		/* slots filled and handed on, counted from 0 */
	bool done, stop;
	int failed;				/* 0, or the reader's SQLite error code */
	char msg[256];
};

static void *pipe_reader(void *arg)
{
	struct read_pipe *pp = arg;
	sqlite3_stmt *st = NULL;
	bool stop = false;
	int rc = SQLITE_ROW;

	if (sqlite3_prepare_v2(pp->db, pp->sql, -1, &st, NULL) != SQLITE_OK) {
		rc = SQLITE_ERROR;
	} else {
		sqlite3_bind_int64(st, 1, pp->since_us);
		sqlite3_bind_int64(st, 2, pp->until_us);
	}
	while (rc == SQLITE_ROW) {
		pthread_mutex_lock(&pp->mu);
		while (pp->produced - pp->consumed == pp->ops->ring && !pp->stop)
			pthread_cond_wait(&pp->cv, &pp->mu);
		stop = pp->stop;
		pthread_mutex_unlock(&pp->mu);
		if (stop)
			break;
		/* the slot is the reader's until produced moves past it */
		rc = pp->ops->fill(pp->ops->ctx, pp->produced % pp->ops->ring, st);
		pthread_mutex_lock(&pp->mu);
		pp->produced++;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
	pthread_mutex_lock(&pp->mu);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !stop) {
		const char *why = pp->ops->fail_msg ? pp->ops->fail_msg(pp->ops->ctx) : NULL;

		pp->failed = rc;
		snprintf(pp->msg, sizeof(pp->msg), "%s", why ? why : sqlite3_errmsg(pp->db));
	}
	pp->done = true;
	pthread_cond_broadcast(&pp->cv);
	pthread_mutex_unlock(&pp->mu);
	sqlite3_finalize(st);
	return NULL;
}

/* See query_int.h. */
int gl_query_pipe_run(struct gl_query *q, const char *sql, int64_t since_us, int64_t until_us,
		      const struct gl_query_pipe_ops *ops, const char *what, struct gl_err *err,
		      bool *started)
{
	struct read_pipe pp = {.sql = sql, .since_us = since_us, .until_us = until_us, .ops = ops};
	const char *path = sqlite3_db_filename(q->db, "main");
	pthread_t th;
	int rc = GL_OK;

	*started = false;
	if (!path || !*path ||
	    gl_query_connect(path, &pp.db, &(struct gl_err){0}) != GL_OK) {
		sqlite3_close(pp.db);
		return GL_OK;
	}
	sqlite3_busy_timeout(pp.db, 5000);
	if (pthread_mutex_init(&pp.mu, NULL) != 0) {
		sqlite3_close(pp.db);
		return GL_OK;
	}
	pthread_cond_init(&pp.cv, NULL);
	if (pthread_create(&th, NULL, pipe_reader, &pp) != 0)
		goto out;
	*started = true;
	for (;;) {
		pthread_mutex_lock(&pp.mu);
		while (pp.consumed == pp.produced && !pp.done)
			pthread_cond_wait(&pp.cv, &pp.mu);
		bool empty = pp.consumed == pp.produced;
		pthread_mutex_unlock(&pp.mu);
		if (empty)
			break;
		rc = ops->emit(ops->ctx, pp.consumed % ops->ring);
		pthread_mutex_lock(&pp.mu);
		pp.consumed++;
		if (rc != GL_OK)
			pp.stop = true;
		pthread_cond_broadcast(&pp.cv);
		pthread_mutex_unlock(&pp.mu);
		if (rc != GL_OK)
			break;
	}
	pthread_join(th, NULL);
	if (rc == GL_OK && pp.failed == SQLITE_NOMEM)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	else if (rc == GL_OK && pp.failed)
		rc = gl_err_set(err, GL_EDB, NULL, 0, pp.msg, "cannot read %s", what);
out:
	pthread_cond_destroy(&pp.cv);
	pthread_mutex_destroy(&pp.mu);
	sqlite3_close(pp.db);
	return rc;
}

/*
 * Two readers. Reading the rows is most of a large report (10M events:
 * 7.3 s of the reading thread against 2.6 s of the sections), so the window
 * is cut into EV_SLICES slices of equal time, over the span its events
 * have, and two reader threads, each on its own connection, read every
 * other slice into a ring of their own; the caller's thread takes slice 0
 * from the first, slice 1 from the second, and so on. A time lies in one
 * slice, so the (ts_us, id) order made per block is the order of the whole
 * window.
 */
#define EV_SLICES 1024
#define SL_RING 8	/* blocks a slice reader may be ahead */

struct slice_reader {
	pthread_t th;
	sqlite3 *db;
	const char *sql;		/* with the kernel-trace columns */
	const char *sql_plain;		/* without: for a snapshot with no trace stream */
	const int64_t *bound;		/* slice k is [bound[k], bound[k + 1]) */
	size_t first, nslices;		/* reads slices first, first + 2, ... */
	struct held_group ring[SL_RING];
	bool last[SL_RING];		/* the slot ends its slice */
	size_t produced, consumed;
	bool ready;			/* its read transaction holds a snapshot */
	bool done;
	int failed;			/* 0, or the SQLite error code */
	char msg[256];
	struct slices *all;
};

struct slices {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct slice_reader rd[2];
};

static void *slice_main(void *arg)
{
	struct slice_reader *r = arg;
	struct slices *all = r->all;
	sqlite3_stmt *st = NULL;
	struct ev_decoder d = {0};
	int rc = SQLITE_OK;

	/*
	 * One read transaction over all this reader's slices (a statement per
	 * slice would each see the database as it is then), begun by a first
	 * read before the caller takes any row: what is committed while the
	 * sections work is not seen. (The two readers' snapshots are taken
	 * microseconds apart, not at one instant: SQLite's snapshot API is not
	 * in Debian's build.) Whether a trace stream exists is read in the
	 * same snapshot; when it cannot be read, the columns are read.
	 */
	if (sqlite3_exec(r->db, "BEGIN; SELECT count(*) FROM (SELECT 1 FROM events LIMIT 1);",
			 NULL, NULL, NULL) != SQLITE_OK)
		rc = SQLITE_ERROR;
	if (rc == SQLITE_OK &&
	    sqlite3_prepare_v2(r->db, pick_sql(r->db, r->sql, r->sql_plain), -1, &st, NULL) !=
		    SQLITE_OK)
		rc = SQLITE_ERROR;
	if (rc == SQLITE_OK)
		decoder_init(&d, st);
	pthread_mutex_lock(&all->mu);
	r->ready = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	for (size_t k = r->first; k < r->nslices && rc == SQLITE_OK; k += 2) {
		bool pending = false, stop;

		sqlite3_bind_int64(st, 1, r->bound[k]);
		/* ?2 is only in the kernels-only statements (see events_sql); the others
		 * have no ?2, and the bind is a no-op there (SQLITE_RANGE) */
		sqlite3_bind_int64(st, 2, r->bound[k + 1]);
		do {
			pthread_mutex_lock(&all->mu);
			while (r->produced - r->consumed == SL_RING && !all->stop)
				pthread_cond_wait(&all->cv, &all->mu);
			stop = all->stop;
			pthread_mutex_unlock(&all->mu);
			if (stop) {
				rc = SQLITE_DONE;
				goto out;
			}
			/* the slot is this reader's until produced moves past it */
			size_t slot = r->produced % SL_RING;

			rc = fill_block(st, &d, &r->ring[slot], &pending, r->bound[k + 1]);
			r->last[slot] = rc != SQLITE_ROW;
			pthread_mutex_lock(&all->mu);
			r->produced++;
			pthread_cond_broadcast(&all->cv);
			pthread_mutex_unlock(&all->mu);
		} while (rc == SQLITE_ROW);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
		sqlite3_reset(st);
	}
out:
	pthread_mutex_lock(&all->mu);
	if (rc != SQLITE_OK && rc != SQLITE_DONE) {
		r->failed = rc;
		snprintf(r->msg, sizeof(r->msg), "%s", sqlite3_errmsg(r->db));
	}
	r->done = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	decoder_free(&d);
	sqlite3_finalize(st);
	sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/* See above; *started false: could not start (no connection or thread), nothing read. */
static int events_sliced(struct gl_query *q, const char *sql, const char *sql_plain,
			 int64_t since_us, int64_t until_us,
			 int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			 struct gl_err *err, bool *started)
{
	const char *path = sqlite3_db_filename(q->db, "main");
	int64_t first, last, bound[EV_SLICES + 1];	/* 8 KiB */
	struct slices all;
	size_t running = 0;
	int rc = GL_OK;

	*started = false;
	if (!path || !*path)
		return GL_OK;
	rc = gl_query_events_span(q, since_us, until_us, &first, &last, err);
	if (rc != GL_OK || first == GL_TS_NONE) {
		*started = true;	/* the answer: an error, or no row in the window */
		return rc;
	}
	/* slices over [first, last]; the first from since, the last to until */
	uint64_t span = (uint64_t)(last - first) + 1;

	bound[0] = since_us;
	for (size_t k = 1; k < EV_SLICES; k++)
		bound[k] = first + (int64_t)(span / EV_SLICES * k + span % EV_SLICES * k / EV_SLICES);
	bound[EV_SLICES] = until_us;
	memset(&all, 0, sizeof(all));
	if (pthread_mutex_init(&all.mu, NULL) != 0)
		return GL_OK;
	if (pthread_cond_init(&all.cv, NULL) != 0) {
		pthread_mutex_destroy(&all.mu);
		return GL_OK;
	}
	for (size_t i = 0; i < 2; i++) {
		struct slice_reader *r = &all.rd[i];

		r->sql = sql;
		r->sql_plain = sql_plain;
		r->bound = bound;
		r->first = i;
		r->nslices = EV_SLICES;
		r->all = &all;
		if (gl_query_connect(path, &r->db, &(struct gl_err){0}) != GL_OK)
			break;
		sqlite3_busy_timeout(r->db, 5000);
		if (pthread_create(&r->th, NULL, slice_main, r) != 0)
			break;
		running++;
	}
	if (running < 2)
		goto out;	/* *started stays false: nothing is handed out */
	*started = true;
	/* both snapshots taken before the first row is handed out */
	pthread_mutex_lock(&all.mu);
	while (!all.rd[0].ready || !all.rd[1].ready)
		pthread_cond_wait(&all.cv, &all.mu);
	pthread_mutex_unlock(&all.mu);
	for (size_t k = 0; k < EV_SLICES && rc == GL_OK; k++) {
		struct slice_reader *r = &all.rd[k % 2];
		bool end = false;

		while (!end && rc == GL_OK) {
			pthread_mutex_lock(&all.mu);
			while (r->consumed == r->produced && !r->done)
				pthread_cond_wait(&all.cv, &all.mu);
			bool empty = r->consumed == r->produced;
			pthread_mutex_unlock(&all.mu);
			if (empty) {
				/* the reader stopped before this slice's end: its error */
				rc = r->failed == SQLITE_NOMEM
					     ? gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory")
					     : gl_err_set(err, GL_EDB, NULL, 0,
							  r->failed ? r->msg : "reader ended early",
							  "cannot read events");
				break;
			}
			size_t slot = r->consumed % SL_RING;

			end = r->last[slot];
			rc = emit_block(&r->ring[slot], fn, arg);
			pthread_mutex_lock(&all.mu);
			r->consumed++;
			pthread_cond_broadcast(&all.cv);
			pthread_mutex_unlock(&all.mu);
		}
	}
out:
	pthread_mutex_lock(&all.mu);
	all.stop = true;
	pthread_cond_broadcast(&all.cv);
	pthread_mutex_unlock(&all.mu);
	for (size_t i = 0; i < running; i++)
		pthread_join(all.rd[i].th, NULL);
	for (size_t i = 0; i < 2; i++) {
		/* a failure the caller did not meet (after its last slice) is still one */
		if (*started && rc == GL_OK && all.rd[i].failed)
			rc = all.rd[i].failed == SQLITE_NOMEM
				     ? gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory")
				     : gl_err_set(err, GL_EDB, NULL, 0, all.rd[i].msg,
						  "cannot read events");
		sqlite3_close(all.rd[i].db);
		for (size_t j = 0; j < SL_RING; j++) {
			free(all.rd[i].ring[j].h);
			free(all.rd[i].ring[j].arena);
		}
	}
	pthread_cond_destroy(&all.cv);
	pthread_mutex_destroy(&all.mu);
	return rc;
}

const char *gl_query_events_sql(const struct gl_query *q, unsigned flags, bool traces)
{
	return events_sql(q, flags, traces);
}

int gl_query_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		    int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		    struct gl_err *err)
{
	/* with the trace columns, and without them (no trace stream) */
	const char *sql = events_sql(q, flags, true), *sql_plain = events_sql(q, flags, false);
	bool started = false;
	int rc = GL_OK;

	/* readers that could not start have read nothing: the caller's thread reads all */
	if (!(flags & GL_QUERY_ONE_THREAD))
		rc = events_sliced(q, sql, sql_plain, since_us, until_us, fn, arg, err, &started);
	return started ? rc : events_direct(q, sql, sql_plain, since_us, until_us, fn, arg, err);
}

int gl_query_mem_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			struct gl_err *err)
{
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
	sqlite3_stmt *st = NULL;
	int64_t f = 0, has_ts = 0;
	int rc;

	/* schema 2 added rejects.ts_us; trust the table, not only the version */
	if (q->version >= 2 &&
	    pragma_int(q->db, "SELECT count(*) FROM pragma_table_info('rejects') WHERE name = 'ts_us'",
		       &has_ts) != SQLITE_OK)
		has_ts = 0;
	rc = sqlite3_prepare_v2(q->db,
				has_ts ? "SELECT count(*) FROM rejects WHERE ts_us >= ?1 AND ts_us < ?2"
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
	if (rc != SQLITE_OK || pragma_int(q->db, "SELECT count(*) FROM files", &f) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot count rejects and files");
	*files = (uint64_t)f;
	return GL_OK;
}

int gl_query_retained_since(struct gl_query *q, int64_t *since_us, struct gl_err *err)
{
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
 * Does a stream of this format exist? The queries below read the window's
 * events of some format; events have no index by stream, so they scan the
 * window: this keeps them off a database without such files.
 */
static int has_format(struct gl_query *q, const char *format, bool *yes, struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	int s;

	*yes = false;
	if (sqlite3_prepare_v2(q->db, "SELECT 1 FROM streams WHERE format = ?1 LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query streams");
	sqlite3_bind_text(st, 1, format, -1, SQLITE_STATIC);
	s = sqlite3_step(st);
	*yes = s == SQLITE_ROW;
	sqlite3_finalize(st);
	return s == SQLITE_ROW || s == SQLITE_DONE ? GL_OK : gl_query_db_error(q, err, "cannot read streams");
}

int gl_query_format_streams(struct gl_query *q, const char *format, int64_t **ids, size_t *n,
			    struct gl_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *v = NULL;
	size_t cap = 0;
	int s, rc = GL_OK;

	*ids = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(q->db, "SELECT id FROM streams WHERE format = ?1 ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query streams");
	sqlite3_bind_text(st, 1, format, -1, SQLITE_STATIC);
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
		rc = gl_query_db_error(q, err, "cannot read streams");
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

int gl_query_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
			 const char *const *formats,
			 int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
			 struct gl_err *err)
{
	char sql[1024], path[80];
	size_t k;
	sqlite3_stmt *st = NULL;
	int rc = GL_OK, s = SQLITE_DONE, nf = 0;
	bool any = false;

	for (; formats && formats[nf]; nf++) {
		bool yes;

		if ((rc = has_format(q, formats[nf], &yes, err)) != GL_OK)
			return rc;
		any = any || yes;
	}
	if (!any || nf > 8 || strlen(key) > 60 || strspn(key, "abcdefghijklmnopqrstuvwxyz_") != strlen(key))
		return GL_OK;
	snprintf(path, sizeof(path), "$.%s", key);
	k = (size_t)snprintf(sql, sizeof(sql),
			     "SELECT e.ts_us, e.level, e.component_id, e.host_id, e.stream_id, e.message,"
			     " e.metadata FROM events e WHERE e.ts_us >= ?1 AND e.ts_us < ?2%s"
			     " AND e.stream_id IN (SELECT id FROM streams WHERE format IN (",
			     q->has_dup_of ? " AND e.dup_of IS NULL" : "");
	for (int i = 0; i < nf; i++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k, "%s?%d", i ? "," : "", i + 4);
	snprintf(sql + k, sizeof(sql) - k,
		 ")) AND json_valid(e.metadata) AND json_type(e.metadata, ?3) IS NOT NULL"
		 " ORDER BY e.ts_us, e.id");
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the events' facts");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	sqlite3_bind_text(st, 3, path, -1, SQLITE_TRANSIENT);
	for (int i = 0; i < nf; i++)
		sqlite3_bind_text(st, i + 4, formats[i], -1, SQLITE_STATIC);
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

int gl_query_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
			struct gl_err *err)
{
	/* jsondoc writes an alert's metadata as compact JSON without timestamp,
	 * component and message (fmt_jsondoc.c); a receipt's holds no "severity" */
#define LOG_ALERTS_SQL(dup)                                                                    \
	"SELECT e.ts_us, e.level, e.component_id, e.host_id, e.message,"                     \
	" json_extract(e.metadata, '$.metric'), json_extract(e.metadata, '$.value'),"         \
	" json_extract(e.metadata, '$.threshold') FROM events e"                              \
	" WHERE e.ts_us >= ?1 AND e.ts_us < ?2"                                               \
	" AND e.stream_id IN (SELECT id FROM streams WHERE format = 'jsondoc')" dup           \
	" AND json_valid(e.metadata) AND json_type(e.metadata, '$.severity') = 'text'"        \
	" ORDER BY e.ts_us, e.id"
	static const char *const sql[2] = {LOG_ALERTS_SQL(""), LOG_ALERTS_SQL(" AND e.dup_of IS NULL")};
#undef LOG_ALERTS_SQL
	sqlite3_stmt *st = NULL;
	int rc, s = SQLITE_DONE;
	bool any;

	if ((rc = has_format(q, "jsondoc", &any, err)) != GL_OK || !any)
		return rc;
	if (sqlite3_prepare_v2(q->db, sql[q->has_dup_of], -1, &st, NULL) != SQLITE_OK)
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
			     const char *format,
			     int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			     struct gl_err *err)
{
	/* "10.0.3.17:51234 - "POST /v1/completions HTTP/1.1" 200 OK" (uvicorn) */
#define ACCESS_SQL(dup)                                                                        \
	"SELECT component_id, host_id, count(*),"                                              \
	" coalesce(sum(message GLOB '*\"POST /v1/* HTTP/*\" [45][0-9][0-9]*'), 0)"             \
	" FROM events WHERE ts_us >= ?1 AND ts_us < ?2"                                        \
	" AND stream_id IN (SELECT id FROM streams WHERE format = ?3)" dup                     \
	" AND message GLOB '*\"POST /v1/* HTTP/*\" [1-5][0-9][0-9]*'"                          \
	" GROUP BY component_id, host_id ORDER BY component_id, host_id"
	static const char *const sql[2] = {ACCESS_SQL(""), ACCESS_SQL(" AND dup_of IS NULL")};
#undef ACCESS_SQL
	sqlite3_stmt *st = NULL;
	int rc, s = SQLITE_DONE;
	bool any;

	if ((rc = has_format(q, format, &any, err)) != GL_OK || !any)
		return rc;
	if (sqlite3_prepare_v2(q->db, sql[q->has_dup_of], -1, &st, NULL) != SQLITE_OK)
		return gl_query_db_error(q, err, "cannot query the access lines");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	sqlite3_bind_text(st, 3, format, -1, SQLITE_STATIC);
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
