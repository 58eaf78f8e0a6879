/*
 * export.h - the events of a time window, row by row, as stored (view
 * v_events), for gpulog-report --events. A statement of its own on a
 * read-only connection, stepped one row at a time: memory does not grow
 * with the window.
 */
#ifndef GL_EXPORT_H
#define GL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulog.h"

/* One row of v_events. Strings are NULL for SQL NULL; valid during the call. */
struct gl_export_event {
	int64_t id;
	int64_t ts_us;
	const char *level;		/* "INFO", ...; "" when none */
	const char *component, *host, *kernel;
	double dur_us, exec_ms, mem_mb;	/* NAN for NULL */
	const char *message;
	const char *metadata;		/* JSON text */
	const char *path;		/* where the line was read */
	int64_t line;			/* 1-based; 0 when NULL */
	bool duplicate;			/* dup_of is set (schema 3): a mirrored record */
};

/*
 * Calls fn for each row of v_events with since_us <= ts_us < until_us, in
 * order of (ts_us, id), read from the database at db_path (opened
 * read-only). fn returns 0 to go on, else the walk stops and that value
 * is returned. Returns GL_OK, fn's value, GL_EIO (cannot open) or GL_EDB.
 */
int gl_export_events(const char *db_path, int64_t since_us, int64_t until_us,
		     int (*fn)(void *arg, const struct gl_export_event *ev), void *arg,
		     struct gl_err *err);

#endif
