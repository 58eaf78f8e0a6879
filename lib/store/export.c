/*
 * export.c - streams the rows of view v_events (share/schema.sql) of a
 * window. The columns are found by name, so a database of schema 1 or 2
 * (no dup_of) is read as well: its rows are all originals.
 */
#include "store/export.h"
#include "store/query.h"

#include <math.h>
#include <string.h>

#include <sqlite3.h>

enum col { C_ID, C_TS, C_LEVEL, C_COMP, C_HOST, C_KERNEL, C_DUR, C_EXEC, C_MEM, C_MSG,
	   C_META, C_PATH, C_LINE, C_DUP, N_COLS };

static const char *const col_names[N_COLS] = {
	"id", "ts_us", "level", "component", "host", "kernel", "dur_us", "exec_ms", "mem_mb",
	"message", "metadata", "path", "line", "dup_of",
};

static const char *text_at(sqlite3_stmt *st, int i)
{
	return i < 0 ? NULL : (const char *)sqlite3_column_text(st, i);
}

static double real_at(sqlite3_stmt *st, int i)
{
	return i < 0 || sqlite3_column_type(st, i) == SQLITE_NULL ? NAN
								   : sqlite3_column_double(st, i);
}

int gl_export_events(const char *db_path, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_export_event *ev), void *arg,
		     struct gl_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int col[N_COLS], rc = GL_OK, s;

	if ((rc = gl_query_connect(db_path, &db, err)) != GL_OK)
		goto out;
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_prepare_v2(db,
			       "SELECT * FROM v_events WHERE ts_us >= ?1 AND ts_us < ?2 "
			       "ORDER BY ts_us, id",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = gl_err_set(err, GL_EDB, db_path, 0, sqlite3_errmsg(db), "cannot read the events of");
		goto out;
	}
	for (int i = 0; i < N_COLS; i++) {
		col[i] = -1;
		for (int j = 0; j < sqlite3_column_count(st); j++)
			if (!strcmp(sqlite3_column_name(st, j), col_names[i]))
				col[i] = j;
	}
	if (col[C_ID] < 0 || col[C_TS] < 0) {
		rc = gl_err_set(err, GL_EDB, db_path, 0, NULL, "view v_events lacks id or ts_us in");
		goto out;
	}
	sqlite3_bind_int64(st, 1, since_us);
	sqlite3_bind_int64(st, 2, until_us);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *level = text_at(st, col[C_LEVEL]);
		struct gl_export_event ev = {
			.id = sqlite3_column_int64(st, col[C_ID]),
			.ts_us = sqlite3_column_int64(st, col[C_TS]),
			.level = level ? level : "",
			.component = text_at(st, col[C_COMP]),
			.host = text_at(st, col[C_HOST]),
			.kernel = text_at(st, col[C_KERNEL]),
			.dur_us = real_at(st, col[C_DUR]),
			.exec_ms = real_at(st, col[C_EXEC]),
			.mem_mb = real_at(st, col[C_MEM]),
			.message = text_at(st, col[C_MSG]),
			.metadata = text_at(st, col[C_META]),
			.path = text_at(st, col[C_PATH]),
			.line = col[C_LINE] < 0 ? 0 : sqlite3_column_int64(st, col[C_LINE]),
			.duplicate = col[C_DUP] >= 0 &&
				     sqlite3_column_type(st, col[C_DUP]) != SQLITE_NULL,
		};

		if ((rc = fn(arg, &ev)) != 0)
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = gl_err_set(err, GL_EDB, db_path, 0, sqlite3_errmsg(db), "cannot read the events of");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
