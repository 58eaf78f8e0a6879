/*
 * chtsv.h - a ClickHouse answer in TabSeparated format as rows: the
 * stream of gl_chttp_stream cut at its newlines, each line cut at its tabs
 * and unescaped in place, handed to a callback one row at a time (memory:
 * one row and the piece of the answer that holds it). In: SQL text ending
 * in FORMAT TabSeparated; out: rows of ncols fields.
 */
#ifndef GL_CHTSV_H
#define GL_CHTSV_H

#include <stddef.h>

#include "gpulog.h"
#include "net/chttp.h"

/* A field of a row, unescaped and NUL-terminated in place; null: \N. */
struct gl_tsv_field {
	char *s;
	size_t n;
	int null;
};

#define GL_TSV_MAX_FIELDS 32

/*
 * Streams the rows of sql (ncols fields each, at most GL_TSV_MAX_FIELDS) to
 * row, which returns 0 to go on, else the transfer stops and that value is
 * returned. A line of another number of fields, or an answer that ends
 * inside a line, is GL_EDB "unexpected answer from the server" with its
 * start as the cause. GL_OK, GL_EUNAVAIL, GL_EDB, GL_ENOMEM or row's value.
 */
int gl_chttp_rows(struct gl_chttp *c, const char *sql, int ncols,
		  int (*row)(void *arg, struct gl_tsv_field *f), void *arg, struct gl_err *err);

#endif
