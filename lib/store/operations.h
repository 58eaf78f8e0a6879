/*
 * operations.h - table operations (schema 10): the operation timings of the
 * events (lib/record/operation.h), one row per event that is one. The
 * ingest writes a row with its event (store_put.c); this fills the table
 * for rows stored without one: a database migrated from schema 9, or one
 * whose events a test wrote by hand.
 */
#ifndef GL_STORE_OPERATIONS_H
#define GL_STORE_OPERATIONS_H

#include <sqlite3.h>

#include "../gpulog.h"

/*
 * Gives each event without a kernel and without an operations row the row
 * gl_operation_of() finds in its stored message, metadata and execution
 * time (none where it finds none). A pass over the rows that may be one (an
 * execution time, or a message that starts "Operation "); inside the
 * caller's transaction, if any. GL_OK, or GL_EDB with err set (path names
 * the database in it).
 */
int gl_store_fill_operations(sqlite3 *db, const char *path, struct gl_err *err);

#endif
