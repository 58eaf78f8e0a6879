/*
 * operations.c - table operations (schema 10) filled from the stored rows,
 * for the migration to schema 10 (see operations.h).
 */
#include "operations.h"

#include <math.h>
#include <stddef.h>

#include "../record/operation.h"

static int fail(sqlite3 *db, const char *path, struct gl_err *err)
{
	return gl_err_set(err, GL_EDB, path, 0, sqlite3_errmsg(db), "cannot fill operations");
}

int gl_store_fill_operations(sqlite3 *db, const char *path, struct gl_err *err)
{
	static const char *const sql[] = {
		"SELECT id, message, metadata, exec_ms FROM events e WHERE kernel_id IS NULL"
		" AND (exec_ms IS NOT NULL OR message LIKE 'Operation %')"
		" AND NOT EXISTS (SELECT 1 FROM operations o WHERE o.event_id = e.id)",
		"INSERT OR IGNORE INTO names (name) VALUES (?1)",
		"SELECT id FROM names WHERE name = ?1",
		"INSERT INTO operations (event_id, name_id, ms, throughput) VALUES (?1, ?2, ?3, ?4)",
	};
	sqlite3_stmt *s[4] = {NULL};
	int rc = GL_OK, step = SQLITE_ROW;

	for (size_t i = 0; i < 4; i++)
		if (sqlite3_prepare_v2(db, sql[i], -1, &s[i], NULL) != SQLITE_OK) {
			rc = fail(db, path, err);
			goto out;
		}
	while ((step = sqlite3_step(s[0])) == SQLITE_ROW) {
		const char *msg = (const char *)sqlite3_column_text(s[0], 1);
		size_t msg_len = (size_t)sqlite3_column_bytes(s[0], 1);
		const char *meta = (const char *)sqlite3_column_text(s[0], 2);
		size_t meta_len = (size_t)sqlite3_column_bytes(s[0], 2);
		double exec_ms = sqlite3_column_type(s[0], 3) == SQLITE_NULL
					 ? NAN : sqlite3_column_double(s[0], 3);
		struct gl_operation op;
		int64_t name_id = 0;

		if (!gl_operation_of(msg, msg_len, meta, meta_len, exec_ms, &op))
			continue;
		if (op.name[0]) {
			sqlite3_bind_text(s[1], 1, op.name, -1, SQLITE_STATIC);
			sqlite3_bind_text(s[2], 1, op.name, -1, SQLITE_STATIC);
			if (sqlite3_step(s[1]) != SQLITE_DONE || sqlite3_step(s[2]) != SQLITE_ROW) {
				rc = fail(db, path, err);
				goto out;
			}
			name_id = sqlite3_column_int64(s[2], 0);
			sqlite3_reset(s[1]);
			sqlite3_reset(s[2]);
		}
		sqlite3_bind_int64(s[3], 1, sqlite3_column_int64(s[0], 0));
		if (name_id)
			sqlite3_bind_int64(s[3], 2, name_id);
		else
			sqlite3_bind_null(s[3], 2);
		sqlite3_bind_double(s[3], 3, op.ms);
		if (isnan(op.throughput))
			sqlite3_bind_null(s[3], 4);
		else
			sqlite3_bind_double(s[3], 4, op.throughput);
		if (sqlite3_step(s[3]) != SQLITE_DONE) {
			rc = fail(db, path, err);
			goto out;
		}
		sqlite3_reset(s[3]);
	}
	if (step != SQLITE_DONE)
		rc = fail(db, path, err);
out:
	for (size_t i = 0; i < 4; i++)
		sqlite3_finalize(s[i]);
	return rc;
}

