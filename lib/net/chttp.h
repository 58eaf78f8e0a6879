/*
 * chttp.h - ClickHouse over HTTP, below lib/ship and lib/store (the shipper
 * and the report's ClickHouse reader both use it): the only code that talks libcurl and the
 * only code of the shipper that compresses. In: SQL text and, for an
 * INSERT, the rows as TSV; out: the server's answer, or a gl_err that says
 * whether the server could not be reached (GL_EUNAVAIL: connection
 * refused, timeout, an answer of 5xx) or refused the request (GL_EDB: 4xx,
 * ClickHouse's message as the cause).
 */
#ifndef GL_CHTTP_H
#define GL_CHTTP_H

#include <stddef.h>

#include "../gpulog.h"

struct gl_chttp;

/* A growing byte buffer; data is NUL-terminated when len > 0. */
struct gl_buf {
	char *data;
	size_t len, cap;
};

int gl_buf_add(struct gl_buf *b, const void *p, size_t n);
void gl_buf_release(struct gl_buf *b);

/*
 * A connection to the server at url ("http://host:8123/", optionally with
 * "?database=NAME" and user:password@). Nothing is sent yet. NULL with err
 * set (GL_ENOMEM, GL_EUSAGE for a URL that is not http:// or https://).
 * timeout_s bounds each request (0: 300 s).
 */
struct gl_chttp *gl_chttp_new(const char *url, long timeout_s, struct gl_err *err);
void gl_chttp_free(struct gl_chttp *c);

/* The URL for messages: without user:password@. Valid until gl_chttp_free. */
const char *gl_chttp_url(const struct gl_chttp *c);

/*
 * Runs sql (sent as the body) and appends the answer to out (NULL: thrown
 * away). One try: the caller retries. GL_OK, GL_EUNAVAIL, GL_EDB or
 * GL_ENOMEM.
 */
int gl_chttp_query(struct gl_chttp *c, const char *sql, struct gl_buf *out, struct gl_err *err);

/*
 * Runs "sql" (an INSERT ... FORMAT TabSeparated, in the URL) with the rows
 * tsv[0..n) gzip-compressed as the body (Content-Encoding: gzip), under
 * the query id query_id (the server refuses a second query with the id of
 * one still running). One try. GL_OK, GL_EUNAVAIL, GL_EDB or GL_ENOMEM.
 * *gz_bytes gets the compressed size.
 */
int gl_chttp_insert(struct gl_chttp *c, const char *sql, const char *query_id, const char *tsv,
		    size_t n, size_t *gz_bytes, struct gl_err *err);

/* Streams the answer of sql to fn in pieces as they arrive; fn returns 0
 * to go on, else the transfer stops and that value is returned. */
int gl_chttp_stream(struct gl_chttp *c, const char *sql,
		    int (*fn)(void *arg, const char *p, size_t n), void *arg, struct gl_err *err);

#endif
