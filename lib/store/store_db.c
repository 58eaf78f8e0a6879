/*
 * store_db.c - the SQLite calls every lifetime of the write side makes
 * (store_int.h): an error as a gl_err, a statement run for its effect, a
 * number read. Below the other store files: it calls none of them.
 */
#include "store_int.h"

#include <sqlite3.h>

int gl_store_db_err(struct gl_store *st, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, st->path, 0, sqlite3_errmsg(st->db), "%s", what);
}

int gl_store_exec(struct gl_store *st, const char *sql, struct gl_err *err)
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

int gl_store_pragma_int(struct gl_store *st, const char *sql, int64_t *v, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return gl_store_db_err(st, err, "cannot read database");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return gl_store_db_err(st, err, "cannot read database");
	return GL_OK;
}
