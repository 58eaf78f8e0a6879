/*
 * query.c - read-only access to a gpulog database for gpulog-report. In: a
 * database path and time windows. Out: rows in time order, through
 * callbacks; names from an in-memory copy of the names table.
 */
#include "store/query.h"
#include "util/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "util/timeutil.h"

struct gl_query {
	sqlite3 *db;
	char **names;		/* names[id], NULL where no such id */
	size_t n_names;		/* max id + 1 */
	int64_t version;	/* PRAGMA user_version */
	bool has_dup_of;	/* events.dup_of exists (schema 3) */
	bool has_samples;	/* tables series and samples exist (schema 3) */
};

static int db_error(struct gl_query *q, struct gl_err *err, const char *what)
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
	return rc == SQLITE_DONE ? GL_OK : db_error(q, err, "cannot read names");
}

int gl_query_open(const char *path, struct gl_query **qp, struct gl_err *err)
{
	struct gl_query *q = NULL;
	struct stat sb;
	int64_t app_id = 0, version = 0;
	int rc;

	*qp = NULL;
	if (stat(path, &sb) != 0)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open");
	if (!S_ISREG(sb.st_mode))
		return gl_err_set(err, GL_EIO, path, 0, "Not a regular file", "cannot open");
	q = calloc(1, sizeof(*q));
	if (!q)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = gl_err_set(err, GL_EIO, path, 0,
				q->db ? sqlite3_errmsg(q->db) : "out of memory", "cannot open");
		goto out;
	}
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
	int64_t dup_col = 0;
	if (pragma_int(q->db, "SELECT count(*) FROM pragma_table_info('events') WHERE name = 'dup_of'",
		       &dup_col) != SQLITE_OK) {
		rc = db_error(q, err, "cannot read the events table");
		goto out;
	}
	q->has_dup_of = dup_col > 0;
	int64_t samples_tab = 0;
	if (pragma_int(q->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			      " AND name IN ('series', 'samples')", &samples_tab) != SQLITE_OK) {
		rc = db_error(q, err, "cannot read the schema");
		goto out;
	}
	q->has_samples = samples_tab == 2;
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

static double col_double(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* A counter column: -1 when NULL (or negative: not a count). */
static int64_t col_count(sqlite3_stmt *st, int i)
{
	int64_t v;

	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return -1;
	v = sqlite3_column_int64(st, i);
	return v < 0 ? -1 : v;
}

bool gl_query_has_dup_of(const struct gl_query *q)
{
	return q->has_dup_of;
}

int gl_query_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		    int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		    struct gl_err *err)
{
	/*
	 * Text is read only where a report uses it (see query.h): reading every
	 * message of 10M kernel lines would double the report's time.
	 */
#define EV_COLS(dup)                                                                       \
	"SELECT ts_us, level, component_id, host_id, kernel_id, dur_us, mem_mb, anomaly,"   \
	" recovery_attempts, CASE WHEN level >= 4 OR (kernel_id IS NULL AND"                \
	" (exec_ms IS NOT NULL OR message LIKE 'Operation %')) THEN message END,"          \
	" error_count, stream_id, exec_ms,"                                                 \
	" CASE WHEN kernel_id IS NULL AND exec_ms IS NOT NULL THEN metadata END, " dup      \
	" FROM events INDEXED BY events_ts WHERE ts_us >= ?1 AND ts_us < ?2"
	static const char *const sql[2][2] = {
		{EV_COLS("NULL") " ORDER BY ts_us, id",
		 EV_COLS("NULL") " AND kernel_id IS NOT NULL AND dur_us IS NOT NULL ORDER BY ts_us, id"},
		{EV_COLS("dup_of") " ORDER BY ts_us, id",
		 EV_COLS("dup_of") " AND kernel_id IS NOT NULL AND dur_us IS NOT NULL"
				   " AND dup_of IS NULL ORDER BY ts_us, id"},
	};
#undef EV_COLS
	sqlite3_stmt *st = NULL;
	struct gl_query_event ev;
	int rc;

	if (sqlite3_prepare_v2(q->db, sql[q->has_dup_of][(flags & GL_QUERY_KERNELS_ONLY) != 0], -1,
			       &st, NULL) != SQLITE_OK)
		return db_error(q, err, "cannot query events");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ev.ts_us = sqlite3_column_int64(st, 0);
		ev.level = sqlite3_column_int(st, 1);
		if (ev.level < GL_LEVEL_NONE || ev.level > GL_LEVEL_CRITICAL)
			ev.level = GL_LEVEL_NONE;
		ev.component_id = sqlite3_column_int64(st, 2);
		ev.host_id = sqlite3_column_int64(st, 3);
		ev.kernel_id = sqlite3_column_int64(st, 4);
		ev.dur_us = col_double(st, 5);
		ev.mem_mb = col_double(st, 6);
		ev.anomaly = sqlite3_column_int(st, 7);
		ev.recovery_attempts = col_count(st, 8);
		ev.message = (const char *)sqlite3_column_text(st, 9);
		ev.message_len = (size_t)sqlite3_column_bytes(st, 9);
		ev.error_count = col_count(st, 10);
		ev.stream_id = sqlite3_column_int64(st, 11);
		ev.exec_ms = col_double(st, 12);
		ev.metadata = (const char *)sqlite3_column_text(st, 13);
		ev.metadata_len = (size_t)sqlite3_column_bytes(st, 13);
		ev.dup_of = sqlite3_column_int64(st, 14);
		rc = fn(arg, &ev);
		if (rc != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	if (rc != SQLITE_DONE)
		rc = db_error(q, err, "cannot read events");
	else
		rc = GL_OK;
	sqlite3_finalize(st);
	return rc;
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
		return db_error(q, err, "cannot query mem_events");
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
	rc = rc == SQLITE_DONE ? GL_OK : db_error(q, err, "cannot read mem_events");
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
		return db_error(q, err, "cannot count rejects and files");
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
		return db_error(q, err, "cannot read runs");
	if (sqlite3_step(s) != SQLITE_ROW)
		rc = db_error(q, err, "cannot read runs");
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
	if (!q->has_samples)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(q, err, "cannot query series");
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
		rc = db_error(q, err, "cannot read series");
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

int gl_query_samples(struct gl_query *q, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
		     struct gl_err *err)
{
	static const char sql[] =
		"SELECT ts_us, series_id, value FROM samples"
		" WHERE ts_us >= ?1 AND ts_us < ?2 ORDER BY ts_us, id";
	sqlite3_stmt *st = NULL;
	struct gl_query_sample s;
	int rc;

	if (!q->has_samples)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(q, err, "cannot query samples");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s.ts_us = sqlite3_column_int64(st, 0);
		s.series_id = sqlite3_column_int64(st, 1);
		s.value = sqlite3_column_double(st, 2);
		rc = fn(arg, &s);
		if (rc != 0) {
			sqlite3_finalize(st);
			return rc;
		}
	}
	rc = rc == SQLITE_DONE ? GL_OK : db_error(q, err, "cannot read samples");
	sqlite3_finalize(st);
	return rc;
}

int gl_query_samples_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			  int64_t *first_us, int64_t *last_us, struct gl_err *err)
{
	/* Two probes of the table's key, not a scan of the window (SQLite
	 * reads every row for min() and max() together). */
	static const char sql[] =
		"SELECT (SELECT ts_us FROM samples WHERE ts_us >= ?1 AND ts_us < ?2"
		" ORDER BY ts_us LIMIT 1),"
		" (SELECT ts_us FROM samples WHERE ts_us >= ?1 AND ts_us < ?2"
		" ORDER BY ts_us DESC LIMIT 1)";
	sqlite3_stmt *st = NULL;
	int rc = GL_OK;

	*first_us = *last_us = GL_TS_NONE;
	if (!q->has_samples)
		return GL_OK;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(q, err, "cannot query samples");
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_error(q, err, "cannot read samples");
	} else if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*first_us = sqlite3_column_int64(st, 0);
		*last_us = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc;
}
