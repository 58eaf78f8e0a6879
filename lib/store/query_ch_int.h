/*
 * query_ch_int.h - what the ClickHouse backend's files share (query_ch.c:
 * the connection, names, events, samples; query_ch_text.c: the rows the
 * SQLite reader finds with SQL on a row's text: monitor alerts, access
 * lines, facts, the alerts' streams; query_ch_stats.c: the aggregates the
 * server computes). Private to lib/store.
 */
#ifndef GL_QUERY_CH_INT_H
#define GL_QUERY_CH_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "net/chtsv.h"
#include "store/query_int.h"

struct name_slot {
	const char *s;		/* names[id] of the query; NULL: free */
	int64_t id;
};

struct gl_query_ch {
	struct gl_chttp *c;
	struct name_slot *names;	/* open addressing, a power of two */
	size_t names_cap;
	uint64_t *skeys;		/* series key -> id: keys, 0 free */
	int64_t *sids;
	size_t s_cap;
	uint64_t *series_key;		/* by series id - 1 */
	size_t n_series;
	sqlite3 *mem;			/* SQLite's own functions, for a row's text */
	sqlite3_stmt *alert, *fact;
	/* events.kind on the server: the column, or for a table shipped before
	 * it was (no such column), the same kind from the row's format and text */
	const char *kind;
	/* "WITH [names] AS gl_nm, [ids] AS gl_ni": the names of the ids 1..,
	 * for transform(); NULL when they are too long for one statement */
	char *names_sql;
	uint64_t slice_rows;		/* gl_query_ch_slice_rows; 0: CH_SLICE_ROWS */
	struct gl_buf sql;
};


/*
 * A Float64 column sent as its 8 bytes, CH_BITS(col): the same double as
 * the server's, bit for bit, and read without strtod (the events' and the
 * samples' hot columns). ClickHouse leaves out the trailing zero bytes
 * (0.0 is ""); NULL is NAN; a field that is not such hex, strtod's value.
 */
#define CH_BITS(col) "hex(reinterpretAsString(" col "))"

int gl_qch_oom(struct gl_err *err);

/* Streams the rows of sql (ncols columns) to row; row's value stops it. */
int gl_qch_rows(struct gl_query *q, const char *sql, int ncols,
		int (*row)(void *arg, struct gl_tsv_field *f), void *arg, struct gl_err *err);

/* printf into q->ch->sql; NULL when out of memory. */
const char *gl_qch_sqlf(struct gl_query *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A field's name as the query's names.id; 0: none or unknown. */
int64_t gl_qch_name_id(const struct gl_query *q, const struct gl_tsv_field *f);

/* Fields as numbers: unsigned, double (NULL: NAN), CH_BITS's double, integer
 * (NULL: 0), a count (NULL or negative: -1). */
uint64_t gl_qch_fuint(const struct gl_tsv_field *f);
double gl_qch_fdouble(const struct gl_tsv_field *f);
double gl_qch_fbits(const struct gl_tsv_field *f);
int64_t gl_qch_fint(const struct gl_tsv_field *f);
int64_t gl_qch_fcount(const struct gl_tsv_field *f);

/* A series is (metric, device, host, source, labels), as in table series. */
#define SERIES_KEY "cityHash64(metric, ifNull(device, '\\0'), host, source, ifNull(labels, '\\0'))"

/* A series key's id (gl_query_series_load's); 0: none. */
int64_t gl_qch_series_id(const struct gl_query_ch *ch, uint64_t key);

/* Below ClickHouse's max_query_size (256 KiB) with the rest of a statement. */
#define NAMES_SQL_MAX 100000

/*
 * " AND col IN ('name', ...)" of the names of ids[0..n) (id 0: the empty
 * name) appended to b: GL_OK, GL_ENOMEM, or 1 when a name has a control
 * byte, the list is too long for one statement or names nothing (b is then
 * partly made).
 */
int gl_qch_add_in(struct gl_buf *b, const struct gl_query *q, const char *col, const int64_t *ids,
		  size_t n);

/* The backend's aggregates of query_ch_stats.c (struct gl_query_backend). */
int gl_qch_event_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			const struct gl_query_keep *keep, const int64_t *alert_streams,
			size_t n_alert_streams,
			int (*fn)(void *arg, const struct gl_query_event_count *c), void *arg,
			struct gl_err *err);
int gl_qch_kernel_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			const int64_t *ids, size_t n, const struct gl_query_keep *keep,
			int (*fn)(void *arg, const struct gl_query_kernel_stats *s), void *arg,
			struct gl_err *err);
int gl_qch_series_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			const int64_t *ids, size_t n, uint64_t max_samples,
			int (*fn)(void *arg, const struct gl_query_series_stats *s), void *arg,
			struct gl_err *err);

/* The backend's readers of query_ch_text.c (struct gl_query_backend). */
int gl_qch_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
		      int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
		      struct gl_err *err);
int gl_qch_access_requests(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			   struct gl_err *err);
int gl_qch_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
		       int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
		       struct gl_err *err);
int gl_qch_alert_streams(struct gl_query *q, int64_t since_us, int64_t until_us, int64_t **ids,
			 size_t *n, struct gl_err *err);

#endif
