/*
 * query_ch.h - the second backend of the report's readers: the same
 * gl_query_* calls answered from a ClickHouse server that gpulog-ship
 * filled (tables in lib/ship/ship.h) instead of an SQLite file. Each
 * reader streams the server's rows, ordered as the SQLite reader orders
 * them, as TSV over HTTP into the same callbacks, one row at a time, so
 * every section computes its figures with the same C code (memory: one
 * row and one HTTP buffer). Where the SQLite reader evaluates an SQL
 * expression on a row (json_extract of an alert, GLOB of an access line),
 * the row's text is evaluated by the same SQLite function, in memory.
 *
 * Rows of several nodes with the same time come in the order of the node's
 * name, then of the row's id in its node's database: the order of one
 * database into which the nodes were ingested in that order.
 */
#ifndef GL_QUERY_CH_H
#define GL_QUERY_CH_H

#include "store/query_int.h"

/* Called by query.c and query_samples.c where q->ch is set. */
int gl_query_ch_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		       int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		       struct gl_err *err);
int gl_query_ch_mem_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			   struct gl_err *err);
int gl_query_ch_series_load(struct gl_query *q, struct gl_query_series **out, size_t *n,
			    struct gl_err *err);
int gl_query_ch_samples(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
			struct gl_err *err);
int gl_query_ch_series_span(struct gl_query *q, const int64_t *series_ids, size_t n,
			    int64_t since_us, int64_t until_us, int64_t *first_us,
			    int64_t *last_us, struct gl_err *err);
int gl_query_ch_samples_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int64_t *first_us, int64_t *last_us, struct gl_err *err);
int gl_query_ch_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
			   struct gl_err *err);
int gl_query_ch_access_requests(struct gl_query *q, int64_t since_us, int64_t until_us,
				int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
				struct gl_err *err);
int gl_query_ch_events_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			    int64_t *first_us, int64_t *last_us, struct gl_err *err);
int gl_query_ch_spans(struct gl_query *q, int64_t since_us, int64_t until_us,
		      int (*fn)(void *arg, const struct gl_query_span *s), void *arg,
		      struct gl_err *err);
int gl_query_ch_table_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			     uint64_t *rejects, uint64_t *files, struct gl_err *err);
int gl_query_ch_retained_since(struct gl_query *q, int64_t *since_us, struct gl_err *err);
int gl_query_ch_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			    const char *key, const char *const *formats,
			    int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
			    struct gl_err *err);
int gl_query_ch_alert_streams(struct gl_query *q, int64_t since_us, int64_t until_us,
			      int64_t **ids, size_t *n, struct gl_err *err);
void gl_query_ch_free(struct gl_query_ch *ch);

#endif
