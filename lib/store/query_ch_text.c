/*
 * query_ch_text.c - the ClickHouse backend's readers of what the SQLite
 * reader finds with SQL on a row's text (query_ch_int.h): the monitor's
 * alerts (json_extract of their metadata, by the same SQLite function in
 * memory), the access lines counted per component and host on the server,
 * the facts of a kind (a trainer's step, an Xid, a GPU of nvidia-smi -q)
 * and the streams that hold alerts.
 */
#include "store/query_ch_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "store/kinds_v8.h"

/* ----- what the SQLite reader finds with SQL on a row's text ----- */

struct alert_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_log_alert *a);
	void *arg;
	int db_failed;
};

static double json_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL || sqlite3_column_type(st, i) == SQLITE_TEXT
		       ? NAN : sqlite3_column_double(st, i);
}

static int alert_row(void *arg, struct gl_tsv_field *f)
{
	struct alert_walk *w = arg;
	sqlite3_stmt *st = w->q->ch->alert;
	int rc = 0, s;

	if (f[5].null)
		return 0;
	sqlite3_bind_text(st, 1, f[5].s, (int)f[5].n, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		sqlite3_reset(st);
		return w->db_failed = 1;
	}
	if (sqlite3_column_int(st, 0)) {
		struct gl_query_log_alert a = {
			.ts_us = gl_qch_fint(&f[0]),
			.level = (int)gl_qch_fint(&f[1]),
			.component_id = gl_qch_name_id(w->q, &f[2]),
			.host_id = gl_qch_name_id(w->q, &f[3]),
			.message = f[4].null ? "" : f[4].s,
			.metric = sqlite3_column_type(st, 1) == SQLITE_TEXT
					  ? (const char *)sqlite3_column_text(st, 1) : NULL,
			.value = json_num(st, 2),
			.threshold = json_num(st, 3),
		};

		rc = w->fn(w->arg, &a);
	}
	sqlite3_reset(st);
	return rc;
}

int gl_qch_log_alerts(struct gl_query *q, int64_t since_us, int64_t until_us,
		      int (*fn)(void *arg, const struct gl_query_log_alert *a), void *arg,
		      struct gl_err *err)
{
	struct alert_walk w = {q, fn, arg, 0};
	const char *sql = gl_qch_sqlf(q, "SELECT ts_us, level, component, host, message, metadata"
			       " FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " AND %s = %d AND dup_of IS NULL"
			       " ORDER BY ts_us, node, src_id FORMAT TabSeparated", since_us, until_us,
			       q->ch->kind, GL_EV_ALERT);
	int rc;

	if (!sql)
		return gl_qch_oom(err);
	rc = gl_qch_rows(q, sql, 6, alert_row, &w, err);
	if (w.db_failed)
		rc = gl_err_set(err, GL_EDB, NULL, 0, sqlite3_errmsg(q->ch->mem),
				"cannot read the logs' alerts");
	return rc;
}

struct access_walk {
	struct gl_query *q;
	struct gl_query_access *a;
	size_t n, cap;
	int oom;
};

/* Counted on the server, by kind; here the names become ids. */
static int access_row(void *arg, struct gl_tsv_field *f)
{
	struct access_walk *w = arg;

	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 16;
		struct gl_query_access *d = realloc(w->a, c * sizeof(*d));

		if (!d)
			return w->oom = 1;
		w->a = d;
		w->cap = c;
	}
	w->a[w->n++] = (struct gl_query_access){gl_qch_name_id(w->q, &f[0]), gl_qch_name_id(w->q, &f[1]),
						(uint64_t)gl_qch_fint(&f[2]), (uint64_t)gl_qch_fint(&f[3])};
	return 0;
}

static int cmp_access(const void *pa, const void *pb)
{
	const struct gl_query_access *a = pa, *b = pb;

	if (a->component_id != b->component_id)
		return a->component_id < b->component_id ? -1 : 1;
	return a->host_id < b->host_id ? -1 : a->host_id > b->host_id;
}

int gl_qch_access_requests(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_access *a), void *arg,
			   struct gl_err *err)
{
	struct access_walk w = {.q = q};
	const char *k = q->ch->kind;
	const char *sql = gl_qch_sqlf(q, "SELECT component, host, count(), countIf(%s = %d)"
			       " FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " AND %s IN (%d, %d) AND dup_of IS NULL GROUP BY component, host"
			       " FORMAT TabSeparated", k, GL_EV_ACCESS_FAILED, since_us, until_us, k,
			       GL_EV_ACCESS, GL_EV_ACCESS_FAILED);
	int rc;

	if (!sql)
		return gl_qch_oom(err);
	rc = gl_qch_rows(q, sql, 4, access_row, &w, err);
	if (w.oom)
		rc = gl_qch_oom(err);
	if (rc == GL_OK) {
		/* the SQLite reader's order: by the names' ids */
		if (w.n)
			qsort(w.a, w.n, sizeof(*w.a), cmp_access);
		for (size_t i = 0; i < w.n && rc == GL_OK; i++)
			rc = fn(arg, &w.a[i]);
	}
	free(w.a);
	return rc;
}

/* ----- facts, the alerts' streams ----- */

struct fact_walk {
	struct gl_query *q;
	const char *path;		/* "$.key" */
	int (*fn)(void *arg, const struct gl_query_fact_event *e);
	void *arg;
	int db_failed;
};

/* The row's metadata holds the key, as the SQLite reader asks it (query.c):
 * valid JSON whose member key is present. */
static int fact_row(void *arg, struct gl_tsv_field *f)
{
	struct fact_walk *w = arg;
	sqlite3_stmt *st = w->q->ch->fact;
	int has;

	if (f[6].null)
		return 0;
	sqlite3_bind_text(st, 1, f[6].s, (int)f[6].n, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, w->path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return w->db_failed = 1;
	}
	has = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	if (!has)
		return 0;

	struct gl_query_fact_event e = {
		.ts_us = gl_qch_fint(&f[0]),
		.level = (int)gl_qch_fint(&f[1]),
		.component_id = gl_qch_name_id(w->q, &f[2]),
		.host_id = gl_qch_name_id(w->q, &f[3]),
		.stream_id = (int64_t)strtoull(f[4].s, NULL, 10),
		.message = f[5].null ? "" : f[5].s,
		.metadata = f[6].s,
	};

	return w->fn(w->arg, &e);
}

/* kinds_v8.h's rule as a ClickHouse condition on format: rows shipped
 * before they had a kind of fact (their kind column 0) */
#define CH_FACT_V8(kind, key, streams) {kind, streams},
static const struct {
	int kind;
	const char *streams;
} ch_fact_v8[] = {GL_KINDS_V8_FACTS(CH_FACT_V8)};
#undef CH_FACT_V8

int gl_qch_fact_events(struct gl_query *q, int64_t since_us, int64_t until_us, const char *key,
		       int (*fn)(void *arg, const struct gl_query_fact_event *e), void *arg,
		       struct gl_err *err)
{
	char path[80];
	struct fact_walk w = {q, path, fn, arg, 0};
	int kind = (int)gl_ev_fact_kind(key), rc;
	const char *sql, *v8 = NULL;

	for (size_t i = 0; i < sizeof(ch_fact_v8) / sizeof(ch_fact_v8[0]); i++)
		if (ch_fact_v8[i].kind == kind)
			v8 = ch_fact_v8[i].streams;
	/* the key is the callers' constant: a name of [a-z_] */
	if (!v8 || strlen(key) > 60 || strspn(key, "abcdefghijklmnopqrstuvwxyz_") != strlen(key))
		return GL_OK;
	snprintf(path, sizeof(path), "$.%s", key);
	/* A stream's id is its node's: (node, stream_id) made one number. The
	 * server keeps the rows of the kind (or, shipped before their kind,
	 * whose text names the key); SQLite's JSON functions decide (fact_row). */
	sql = gl_qch_sqlf(q, "SELECT ts_us, level, component, host, intDiv(cityHash64(node, stream_id), 4),"
		   " message, metadata FROM gpulog_events WHERE ts_us >= %" PRId64
		   " AND ts_us < %" PRId64 " AND dup_of IS NULL AND (%s = %d OR (%s = 0 AND %s"
		   " AND position(ifNull(metadata, ''), '\"%s\"') > 0))"
		   " ORDER BY ts_us, node, src_id FORMAT TabSeparated",
		   since_us, until_us, q->ch->kind, kind, q->ch->kind, v8, key);
	rc = sql ? gl_qch_rows(q, sql, 7, fact_row, &w, err) : gl_qch_oom(err);
	if (w.db_failed)
		rc = gl_err_set(err, GL_EDB, NULL, 0, sqlite3_errmsg(q->ch->mem),
				"cannot read the events' facts");
	return rc;
}

struct id_walk {
	int64_t *v;
	size_t n, cap;
	int failed;
};

static int id_row(void *arg, struct gl_tsv_field *f)
{
	struct id_walk *w = arg;

	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 16;
		int64_t *d = realloc(w->v, c * sizeof(*d));

		if (!d)
			return w->failed = 1;
		w->v = d;
		w->cap = c;
	}
	w->v[w->n++] = (int64_t)strtoull(f[0].s, NULL, 10);
	return 0;
}

int gl_qch_alert_streams(struct gl_query *q, int64_t since_us, int64_t until_us, int64_t **ids,
			 size_t *n, struct gl_err *err)
{
	struct id_walk w = {0};
	const char *sql = gl_qch_sqlf(q, "SELECT DISTINCT intDiv(cityHash64(node, stream_id), 4) AS s"
			       " FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " AND %s = %d ORDER BY s FORMAT TabSeparated",
			       since_us, until_us, q->ch->kind, GL_EV_ALERT);
	int rc = sql ? gl_qch_rows(q, sql, 1, id_row, &w, err) : gl_qch_oom(err);

	if (w.failed)
		rc = gl_qch_oom(err);
	if (rc != GL_OK) {
		free(w.v);
		w.v = NULL;
		w.n = 0;
	}
	*ids = w.v;
	*n = w.n;
	return rc;
}

