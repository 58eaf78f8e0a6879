/*
 * query_ch.c - the second backend of the report's readers (query_int.h,
 * struct gl_query_backend): the same gl_query_* calls answered from a
 * ClickHouse server that gpulog-ship filled (tables in lib/ship/ship.h)
 * instead of an SQLite file. In: the tables gpulog-ship writes; out: the
 * rows of gl_query_*, in their order, through the same callbacks, so the
 * sections compute their figures with the same C code. The optional
 * aggregates SQL can give, computed by the server over the same rows, are
 * query_ch_stats.c's. HTTP through lib/net/chttp.c.
 *
 * The server filters and sorts the window and selects records by their
 * kind (gpulog_events.kind); it counts the access lines per component and
 * host itself; the events come as TSV, one row at a time (memory: one row
 * and one HTTP buffer), with their names as ids where the names fit one
 * statement. Where the SQLite reader evaluates an SQL expression on a row
 * (json_extract of an alert's or a fact's metadata), the row's text is
 * evaluated by the same SQLite function, in memory.
 *
 * Rows of several nodes with the same time come in the order of the node's
 * name, then of the row's id in its node's database: the order of one
 * database into which the nodes were ingested in that order.
 */
#include "store/query_ch_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "net/chttp.h"
#include "net/chtsv.h"
#include "store/evpack.h"
#include "store/kinds_v7.h"
#include "store/kinds_v8.h"
#include "record/operation.h"
#include "util/timeutil.h"

static const struct gl_query_backend ch_backend;

/* The rows of a window one statement of ch_events sorts, at most (some
 * 70 MB of columns for the server to sort, far below its memory bounds). */
#define CH_SLICE_ROWS 500000u

int gl_qch_oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* Streams the rows of sql (ncols columns) to row; row's value stops it. */
int gl_qch_rows(struct gl_query *q, const char *sql, int ncols,
		   int (*row)(void *arg, struct gl_tsv_field *f), void *arg, struct gl_err *err)
{
	return gl_chttp_rows(q->ch->c, sql, ncols, row, arg, err);
}

/* printf into q->ch->sql. */
const char *gl_qch_sqlf(struct gl_query *q, const char *fmt, ...)
{
	struct gl_buf *b = &q->ch->sql;
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->data, b->cap, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap)
			return b->data;
		size_t c = n > 0 ? (size_t)n + 1 : 256;
		char *d = realloc(b->data, c);
		if (!d)
			return NULL;
		b->data = d;
		b->cap = c;
	}
}

int64_t gl_qch_name_id(const struct gl_query *q, const struct gl_tsv_field *f)
{
	const struct gl_query_ch *ch = q->ch;

	if (f->null || f->n == 0)
		return 0;
	for (size_t i = hash_str(f->s, f->n) & (ch->names_cap - 1);; i = (i + 1) & (ch->names_cap - 1)) {
		const struct name_slot *sl = &ch->names[i];

		if (!sl->s)
			return 0;
		if (strlen(sl->s) == f->n && !memcmp(sl->s, f->s, f->n))
			return sl->id;
	}
}

/* An unsigned decimal of up to 19 digits (hashes), as strtoull reads it; else strtoull. */
uint64_t gl_qch_fuint(const struct gl_tsv_field *f)
{
	const char *p = f->s;
	uint64_t v = 0;
	size_t nd = 0;

	for (; *p >= '0' && *p <= '9' && nd < 19; p++, nd++)
		v = v * 10 + (uint64_t)(*p - '0');
	return nd && !*p ? v : strtoull(f->s, NULL, 10);
}

double gl_qch_fdouble(const struct gl_tsv_field *f)
{
	return f->null ? NAN : strtod(f->s, NULL);
}


double gl_qch_fbits(const struct gl_tsv_field *f)
{
	uint64_t u = 0;
	double d;

	if (f->null)
		return NAN;
	if (f->n > 16 || f->n % 2)
		return strtod(f->s, NULL);
	for (size_t i = 0; i < f->n; i++) {
		char c = f->s[i];
		unsigned v = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;

		if (v == 16)
			return strtod(f->s, NULL);
		/* byte i / 2 (little-endian), high nibble first */
		u |= (uint64_t)v << (8 * (i / 2) + (i % 2 ? 0 : 4));
	}
	memcpy(&d, &u, sizeof(d));
	return d;
}

/* A decimal integer of up to 18 digits, as strtoll reads it (the hot
 * columns of the events: times, ids); else strtoll itself. */
int64_t gl_qch_fint(const struct gl_tsv_field *f)
{
	const char *p = f->s;
	bool neg = *p == '-';
	uint64_t v = 0;
	size_t nd = 0;

	if (f->null)
		return 0;
	for (p += neg; *p >= '0' && *p <= '9' && nd < 18; p++, nd++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (nd == 0 || *p)
		return strtoll(f->s, NULL, 10);
	return neg ? -(int64_t)v : (int64_t)v;
}

/* events.recovery_attempts and error_count: -1 when NULL or negative */
int64_t gl_qch_fcount(const struct gl_tsv_field *f)
{
	int64_t v = gl_qch_fint(f);

	return f->null || v < 0 ? -1 : v;
}

/* ----- names ----- */

struct names_load {
	struct gl_query *q;
	size_t cap;
	int oom;
};

static int name_row(void *arg, struct gl_tsv_field *f)
{
	struct names_load *l = arg;
	struct gl_query *q = l->q;

	if (q->n_names == l->cap) {
		size_t c = l->cap * 2;
		char **d = realloc(q->names, c * sizeof(*d));

		if (!d)
			return l->oom = 1;
		q->names = d;
		l->cap = c;
	}
	if (!(q->names[q->n_names] = malloc(f[0].n + 1)))
		return l->oom = 1;
	memcpy(q->names[q->n_names], f[0].s, f[0].n + 1);
	q->n_names++;
	return 0;
}

/*
 * Every node's names, ids 1.. in the order one database of the nodes
 * numbers them (sections break ties by name id): the first node's (by
 * node name) in its order, then the names the next node adds, in its.
 */
/*
 * ch->names_sql for the names loaded: the events come with the names' ids
 * instead of their text (fewer bytes to sort and send, no lookup here).
 * Names with a control byte, or too many, leave it NULL: text then.
 */
static int names_sql(struct gl_query *q, struct gl_err *err)
{
	struct gl_buf b = {0};
	char num[32];
	int rc = gl_buf_add(&b, "WITH [", 6);

	for (size_t id = 1; rc == GL_OK && id < q->n_names; id++) {
		const char *p = q->names[id];

		if (b.len > NAMES_SQL_MAX)
			goto none;
		rc = gl_buf_add(&b, id > 1 ? ", '" : "'", id > 1 ? 3 : 1);
		for (; rc == GL_OK && *p; p++) {
			if ((unsigned char)*p < 0x20)
				goto none;
			if (*p == '\\' || *p == '\'')
				rc = gl_buf_add(&b, "\\", 1);
			rc = rc ? rc : gl_buf_add(&b, p, 1);
		}
		rc = rc ? rc : gl_buf_add(&b, "'", 1);
	}
	rc = rc ? rc : gl_buf_add(&b, "] AS gl_nm, [", 13);
	for (size_t id = 1; rc == GL_OK && id < q->n_names; id++) {
		int k = snprintf(num, sizeof(num), "%s%zu", id > 1 ? ", " : "", id);

		rc = gl_buf_add(&b, num, (size_t)k);
	}
	rc = rc ? rc : gl_buf_add(&b, "] AS gl_ni", 10);
	if (rc != GL_OK) {
		gl_buf_release(&b);
		return gl_qch_oom(err);
	}
	if (b.len > NAMES_SQL_MAX || q->n_names < 2)
		goto none;
	q->ch->names_sql = b.data;
	return GL_OK;
none:
	gl_buf_release(&b);
	return GL_OK;
}

static int load_names(struct gl_query *q, struct gl_err *err)
{
	static const char sql[] =
		"SELECT name FROM gpulog_names WHERE name != '' GROUP BY name"
		" ORDER BY min(node), argMin(src_id, node) FORMAT TabSeparated";
	struct names_load l = {.q = q, .cap = 64};
	struct gl_query_ch *ch = q->ch;
	int rc;

	if (!(q->names = calloc(l.cap, sizeof(*q->names))))
		return gl_qch_oom(err);
	q->n_names = 1;		/* id 0: none */
	rc = gl_qch_rows(q, sql, 1, name_row, &l, err);
	if (l.oom)
		return gl_qch_oom(err);
	if (rc != GL_OK)
		return rc;
	ch->names_cap = 16;
	while (ch->names_cap < q->n_names * 2)
		ch->names_cap *= 2;
	if (!(ch->names = calloc(ch->names_cap, sizeof(*ch->names))))
		return gl_qch_oom(err);
	for (size_t id = 1; id < q->n_names; id++) {
		size_t i = hash_str(q->names[id], strlen(q->names[id])) & (ch->names_cap - 1);

		while (ch->names[i].s)
			i = (i + 1) & (ch->names_cap - 1);
		ch->names[i].s = q->names[id];
		ch->names[i].id = (int64_t)id;
	}
	return names_sql(q, err);
}

struct one_int {
	int64_t v[3];
	int nulls;
};

static int int_row(void *arg, struct gl_tsv_field *f)
{
	struct one_int *o = arg;

	for (int i = 0; i < 3; i++)
		o->v[i] = gl_qch_fint(&f[i]);
	return 0;
}

/* Runs sql that answers one row of three integers (count, min, max). */
static int three_ints(struct gl_query *q, const char *sql, int64_t v[3], struct gl_err *err)
{
	struct one_int o = {{0, 0, 0}, 0};
	int rc;

	if (!sql)
		return gl_qch_oom(err);
	rc = gl_qch_rows(q, sql, 3, int_row, &o, err);
	memcpy(v, o.v, sizeof(o.v));
	return rc;
}

int gl_query_open_clickhouse(const char *url, struct gl_query **qp, struct gl_err *err)
{
	struct gl_query *q = calloc(1, sizeof(*q));
	int64_t v[3];
	int rc;

	*qp = NULL;
	if (!q || !(q->ch = calloc(1, sizeof(*q->ch)))) {
		free(q);
		return gl_qch_oom(err);
	}
	q->be = &ch_backend;
	if (!(q->ch->c = gl_chttp_new(url, 0, err))) {
		rc = err ? err->code : GL_ENOMEM;
		goto out;
	}
	q->version = GL_DB_USER_VERSION;
	q->has_dup_of = q->has_trace = q->has_spans = true;
	q->samples = GL_QUERY_SAMPLES_BLOCKS;
	if ((rc = three_ints(q, "SELECT count(), 0, 0 FROM system.tables WHERE database ="
			     " currentDatabase() AND name IN ('gpulog_events', 'gpulog_samples',"
			     " 'gpulog_spans', 'gpulog_mem_events', 'gpulog_rejects', 'gpulog_runs',"
			     " 'gpulog_nodes', 'gpulog_names') FORMAT TabSeparated", v, err)) != GL_OK)
		goto out;
	if (v[0] != 8) {
		rc = gl_err_set(err, GL_ENOTGPULOG, gl_chttp_url(q->ch->c), 0,
				"no gpulog tables there (gpulog-ship creates them)", "cannot open");
		goto out;
	}
	if (sqlite3_open_v2(":memory:", &q->ch->mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->ch->mem,
			       "SELECT json_valid(?1) AND json_type(?1, '$.severity') = 'text',"
			       " json_extract(?1, '$.metric'), json_extract(?1, '$.value'),"
			       " json_extract(?1, '$.threshold')", -1, &q->ch->alert, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->ch->mem,
			       "SELECT CASE WHEN json_valid(?1) THEN json_type(?1, ?2) IS NOT NULL"
			       " ELSE 0 END", -1, &q->ch->fact, NULL) != SQLITE_OK) {
		rc = gl_qch_oom(err);
		goto out;
	}
	if ((rc = three_ints(q, "SELECT count(), 0, 0 FROM system.columns WHERE database ="
			     " currentDatabase() AND table = 'gpulog_events' AND name = 'kind'"
			     " FORMAT TabSeparated", v, err)) != GL_OK)
		goto out;
	q->ch->kind = v[0] ? "kind" : "(" GL_KINDS_CH ")";
	rc = load_names(q, err);
out:
	if (rc != GL_OK)
		gl_query_close(q);
	else
		*qp = q;
	return rc;
}

void gl_query_ch_slice_rows(struct gl_query *q, uint64_t rows)
{
	if (q && q->ch)
		q->ch->slice_rows = rows;
}

static void ch_release(struct gl_query *q)
{
	struct gl_query_ch *ch = q->ch;

	q->ch = NULL;
	if (!ch)
		return;
	gl_chttp_free(ch->c);
	free(ch->names);
	free(ch->names_sql);
	free(ch->skeys);
	free(ch->sids);
	free(ch->series_key);
	sqlite3_finalize(ch->alert);
	sqlite3_finalize(ch->fact);
	sqlite3_close(ch->mem);
	gl_buf_release(&ch->sql);
	free(ch);
}

/* ----- events ----- */

struct ev_walk {
	struct gl_query *q;
	bool kernels_only;
	bool trace;		/* the trace columns are read (the window holds a trace's record) */
	bool ids;		/* names come as their ids (names_sql) */
	int (*fn)(void *arg, const struct gl_query_event *ev);
	void *arg;
};

/* A name column: the name's id (the server mapped it, names_sql) or its text. */
static int64_t name_of(const struct ev_walk *w, const struct gl_tsv_field *f)
{
	int64_t id;

	if (!w->ids)
		return gl_qch_name_id(w->q, f);
	id = gl_qch_fint(f);
	return id > 0 && (uint64_t)id < w->q->n_names ? id : 0;
}

static int ev_row(void *arg, struct gl_tsv_field *f)
{
	struct ev_walk *w = arg;
	struct gl_query_event ev;
	int64_t level = gl_qch_fint(&f[1]);

	ev.ts_us = gl_qch_fint(&f[0]);
	ev.level = level >= GL_LEVEL_NONE && level <= GL_LEVEL_CRITICAL ? (int)level : GL_LEVEL_NONE;
	ev.component_id = name_of(w, &f[2]);
	ev.host_id = name_of(w, &f[3]);
	ev.kernel_id = name_of(w, &f[4]);
	ev.dur_us = gl_qch_fbits(&f[5]);
	ev.mem_mb = gl_qch_fbits(&f[6]);
	ev.anomaly = (int)gl_qch_fint(&f[7]);
	ev.recovery_attempts = gl_qch_fcount(&f[8]);
	ev.error_count = gl_qch_fcount(&f[9]);
	ev.stream_id = (int64_t)gl_qch_fuint(&f[10]);
	ev.exec_ms = gl_qch_fbits(&f[11]);
	ev.dup_of = gl_qch_fint(&f[12]);
	/* the text where the SQLite reader reads it (query.c decode_event) */
	const bool has_kernel = w->ids ? ev.kernel_id != 0 : f[4].n > 0, has_exec = !isnan(ev.exec_ms);
	const bool op = !f[13].null &&
			gl_evpack_like_operation((const unsigned char *)f[13].s, f[13].n);
	const bool want_message = level >= 4 || (!has_kernel && (has_exec || op));
	ev.message = want_message && !f[13].null ? f[13].s : NULL;
	ev.message_len = ev.message ? f[13].n : 0;
	ev.metadata = !has_kernel && has_exec && !f[14].null ? f[14].s : NULL;
	ev.metadata_len = ev.metadata ? f[14].n : 0;
	/* the operation, found in the shipped text as the ingest finds it
	 * (the server keeps the events' columns, not table operations) */
	struct gl_operation opr;

	ev.op_ms = ev.op_throughput = NAN;
	ev.op_name = NULL;
	if (!has_kernel && (has_exec || op) &&
	    gl_operation_of(ev.message, ev.message_len, ev.metadata, ev.metadata_len, ev.exec_ms,
			    &opr)) {
		ev.op_ms = opr.ms;
		ev.op_throughput = opr.throughput;
		ev.op_name = opr.name[0] ? opr.name : NULL;
	}
	ev.source = w->trace && !f[15].null ? f[15].s : NULL;
	if (ev.source) {
		ev.launch_overhead_us = gl_qch_fbits(&f[16]);
		ev.queue_us = gl_qch_fbits(&f[17]);
		ev.occupancy = gl_qch_fbits(&f[18]);
		ev.device = f[19].null ? NULL : f[19].s;
		ev.scope_id = name_of(w, &f[20]);
		ev.stack_id = name_of(w, &f[21]);
	} else {
		ev.launch_overhead_us = ev.queue_us = ev.occupancy = NAN;
		ev.device = NULL;
		ev.scope_id = ev.stack_id = 0;
	}
	return w->fn(w->arg, &ev);
}

/* The name column col as read: its id (ids) or its text. */
static void name_col(char *out, size_t n, bool ids, const char *col)
{
	if (ids)
		snprintf(out, n, "transform(%s, gl_nm, gl_ni, 0)", col);
	else
		snprintf(out, n, "%s", col);
}

/*
 * Where ch_events cuts a window: at whole minutes from its start (rows of
 * one instant are never parted), so that each statement sorts at most
 * slice_rows rows (a minute that holds more is one slice by itself).
 */
struct slice_walk {
	int64_t since_us;
	uint64_t max, rows;	/* rows of the slice being grown */
	int64_t *cut;		/* the slices' first times after since_us */
	size_t n, cap;
};

static int slice_row(void *arg, struct gl_tsv_field *f)
{
	struct slice_walk *w = arg;
	uint64_t c = (uint64_t)gl_qch_fint(&f[1]);

	if (w->rows && w->rows + c > w->max) {
		if (w->n == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 16;
			int64_t *d = realloc(w->cut, cap * sizeof(*d));

			if (!d)
				return GL_ENOMEM;
			w->cut = d;
			w->cap = cap;
		}
		w->cut[w->n++] = w->since_us + gl_qch_fint(&f[0]) * 60000000;
		w->rows = 0;
	}
	w->rows += c;
	return 0;
}

/*
 * The window's events, in the SQLite reader's order. The server sorts them
 * and ships the columns the report reads, as few bytes as it can: names as
 * their ids where the names fit one statement (names_sql), the kernel-trace
 * columns only when the window holds a trace's record (kind 1; for
 * kernels_only never, as the SQLite reader), the text only where read.
 * A window of more than slice_rows rows is read in time slices of about
 * that many (slice_walk), one statement each: the server sorts one slice
 * at a time, in memory, not the whole window.
 */
static int events_of(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		     const char *only, int (*fn)(void *arg, const struct gl_query_event *ev),
		     void *arg, struct gl_err *err)
{
	struct ev_walk w = {q, (flags & GL_QUERY_KERNELS_ONLY) != 0, false, q->ch->names_sql != NULL,
			    fn, arg};
	struct slice_walk sw = {since_us, q->ch->slice_rows ? q->ch->slice_rows : CH_SLICE_ROWS, 0,
				NULL, 0, 0};
	const char *kernels = " AND kernel != '' AND dur_us IS NOT NULL AND dup_of IS NULL";
	const char *extra = w.kernels_only ? kernels : "";
	char comp[64], host[64], kern[64], scope[64], stack[64];
	int rc;

	if (!w.kernels_only) {
		int64_t v[3];

		if ((rc = three_ints(q, gl_qch_sqlf(q, "SELECT count(), 0, 0 FROM gpulog_events WHERE ts_us >= %"
					     PRId64 " AND ts_us < %" PRId64 " AND %s = %d FORMAT"
					     " TabSeparated", since_us, until_us, q->ch->kind,
					     GL_EV_TRACE), v, err)) != GL_OK)
			return rc;
		w.trace = v[0] > 0;
	}
	const char *cnt = gl_qch_sqlf(q, "SELECT intDiv(ts_us - %" PRId64 ", 60000000) AS m, count()"
			       " FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       "%s%s GROUP BY m ORDER BY m FORMAT TabSeparated",
			       since_us, since_us, until_us, extra, only);
	if (!cnt)
		return gl_qch_oom(err);
	if ((rc = gl_qch_rows(q, cnt, 2, slice_row, &sw, err)) != GL_OK) {
		free(sw.cut);
		return rc == GL_ENOMEM ? gl_qch_oom(err) : rc;
	}
	name_col(comp, sizeof(comp), w.ids, "component");
	name_col(host, sizeof(host), w.ids, "host");
	name_col(kern, sizeof(kern), w.ids, "kernel");
	name_col(scope, sizeof(scope), w.ids, "scope");
	name_col(stack, sizeof(stack), w.ids, "stack");
	for (size_t i = 0; i <= sw.n && rc == GL_OK; i++) {
		const int64_t t0 = i ? sw.cut[i - 1] : since_us, t1 = i < sw.n ? sw.cut[i] : until_us;
		/* A stream's id is its node's: (node, stream_id) made one number. */
		const char *sql = gl_qch_sqlf(q,
			"%s SELECT ts_us, level, %s, %s, %s, " CH_BITS("dur_us") ", " CH_BITS("mem_mb") ","
			" anomaly,"
			" recovery_attempts, error_count, intDiv(cityHash64(node, stream_id), 4),"
			" " CH_BITS("exec_ms") ", ifNull(dup_of, 0),"
			" if(level >= 4 OR (kernel = '' AND (exec_ms IS NOT NULL"
			" OR lower(substring(message, 1, 10)) = 'operation ')), message, NULL),"
			" if(kernel = '' AND exec_ms IS NOT NULL, metadata, NULL)"
			"%s%s%s%s%s"
			" FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64 "%s%s"
			" ORDER BY ts_us, node, src_id FORMAT TabSeparated",
			w.ids ? q->ch->names_sql : "", comp, host, kern,
			w.trace ? ", source, " CH_BITS("launch_overhead_us") ", " CH_BITS("queue_us") ", "
				  CH_BITS("occupancy") ", device, " : "",
			w.trace ? scope : "", w.trace ? ", " : "", w.trace ? stack : "", "",
			t0, t1, extra, only);

		rc = sql ? gl_qch_rows(q, sql, w.trace ? 22 : 15, ev_row, &w, err) : gl_qch_oom(err);
	}
	free(sw.cut);
	return rc;
}

struct count_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_kernel_count *c);
	void *arg;
};

static int count_row(void *arg, struct gl_tsv_field *f)
{
	struct count_walk *w = arg;
	struct gl_query_kernel_count c = {gl_qch_name_id(w->q, &f[0]), gl_qch_name_id(w->q, &f[1]),
					  gl_qch_name_id(w->q, &f[2]), (uint64_t)gl_qch_fint(&f[3])};

	return w->fn(w->arg, &c);
}

/* The kernel timings (the rows of kernels_only) counted on the server. */
static int ch_kernel_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			    int (*fn)(void *arg, const struct gl_query_kernel_count *c), void *arg,
			    struct gl_err *err)
{
	struct count_walk w = {q, fn, arg};
	const char *sql = gl_qch_sqlf(q, "SELECT kernel, component, host, count() FROM gpulog_events"
			       " WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64 " AND kernel != ''"
			       " AND dur_us IS NOT NULL AND dup_of IS NULL"
			       " GROUP BY kernel, component, host FORMAT TabSeparated",
			       since_us, until_us);

	return sql ? gl_qch_rows(q, sql, 4, count_row, &w, err) : gl_qch_oom(err);
}

static int ch_events(struct gl_query *q, int64_t since_us, int64_t until_us, unsigned flags,
		     int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		     struct gl_err *err)
{
	return events_of(q, since_us, until_us, flags, "", fn, arg, err);
}

/* " AND col IN ('name', ...)" of the names of ids[0..n). */
int gl_qch_add_in(struct gl_buf *b, const struct gl_query *q, const char *col, const int64_t *ids,
		  size_t n)
{
	size_t added = 0;
	int rc = GL_OK;

	if (gl_buf_add(b, " AND ", 5) || gl_buf_add(b, col, strlen(col)) ||
	    gl_buf_add(b, " IN (", 5))
		return GL_ENOMEM;
	for (size_t i = 0; rc == GL_OK && i < n; i++) {
		const char *p = ids[i] == 0 ? ""
				: ids[i] > 0 && (uint64_t)ids[i] < q->n_names ? q->names[ids[i]] : NULL;

		if (!p)
			continue;
		rc = gl_buf_add(b, added ? ", '" : "'", added ? 3 : 1);
		added++;
		for (; rc == GL_OK && *p; p++) {
			if ((unsigned char)*p < 0x20)
				return 1;
			if (*p == '\\' || *p == '\'')
				rc = gl_buf_add(b, "\\", 1);
			rc = rc ? rc : gl_buf_add(b, p, 1);
		}
		rc = rc ? rc : gl_buf_add(b, "'", 1);
		if (b->len > NAMES_SQL_MAX)
			return 1;
	}
	return rc ? rc : !added ? 1 : gl_buf_add(b, ")", 2);	/* with the NUL */
}

/*
 * Some kernels' timings (ids[0..n)): the server sends their rows only,
 * " AND kernel IN (...)", not every kernel's (for each group of the kernel
 * pass, for the baseline's listed kernels). Names with a control byte, or
 * too many for one statement: every kernel's rows (the caller keeps its own).
 */
static int ch_kernel_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			    const int64_t *ids, size_t n,
			    int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
			    struct gl_err *err)
{
	struct gl_buf b = {0};
	int rc = n ? gl_qch_add_in(&b, q, "kernel", ids, n) : 1;

	if (rc == GL_ENOMEM)
		rc = gl_qch_oom(err);
	else
		rc = events_of(q, since_us, until_us, GL_QUERY_KERNELS_ONLY, rc == GL_OK ? b.data : "",
			       fn, arg, err);
	gl_buf_release(&b);
	return rc;
}


/* ----- memory events, spans ----- */

struct mem_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_mem *m);
	void *arg;
};

static int mem_row(void *arg, struct gl_tsv_field *f)
{
	struct mem_walk *w = arg;
	struct gl_query_mem m = {
		.ts_us = gl_qch_fint(&f[0]),
		.action = (int)gl_qch_fint(&f[1]),
		.ptr = (uint64_t)gl_qch_fint(&f[2]),
		.size_bytes = (uint64_t)gl_qch_fint(&f[3]),
		.host_id = gl_qch_name_id(w->q, &f[4]),
	};

	return w->fn(w->arg, &m);
}

static int ch_mem_events(struct gl_query *q, int64_t since_us, int64_t until_us,
			   int (*fn)(void *arg, const struct gl_query_mem *m), void *arg,
			   struct gl_err *err)
{
	struct mem_walk w = {q, fn, arg};
	const char *sql = gl_qch_sqlf(q, "SELECT ts_us, action, ptr, size_bytes, host FROM gpulog_mem_events"
			       " WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " ORDER BY ts_us, node, src_id FORMAT TabSeparated", since_us, until_us);

	return sql ? gl_qch_rows(q, sql, 5, mem_row, &w, err) : gl_qch_oom(err);
}

struct span_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_span *s);
	void *arg;
};

static int span_row(void *arg, struct gl_tsv_field *f)
{
	struct span_walk *w = arg;
	struct gl_query_span s = {
		.start_us = gl_qch_fint(&f[0]),
		.dur_us = gl_qch_fdouble(&f[1]),
		.scope_id = gl_qch_name_id(w->q, &f[2]),
		.depth = (int)gl_qch_fint(&f[3]),
		.device = f[4].null ? NULL : f[4].s,
		.source = f[5].s,
		.host_id = gl_qch_name_id(w->q, &f[6]),
	};

	return w->fn(w->arg, &s);
}

static int ch_spans(struct gl_query *q, int64_t since_us, int64_t until_us,
		      int (*fn)(void *arg, const struct gl_query_span *s), void *arg,
		      struct gl_err *err)
{
	struct span_walk w = {q, fn, arg};
	const char *sql = gl_qch_sqlf(q, "SELECT ts_us, dur_us, scope, depth, device, source, host"
			       " FROM gpulog_spans WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " ORDER BY ts_us, node, src_id FORMAT TabSeparated", since_us, until_us);

	return sql ? gl_qch_rows(q, sql, 7, span_row, &w, err) : gl_qch_oom(err);
}

/* ----- samples ----- */

int64_t gl_qch_series_id(const struct gl_query_ch *ch, uint64_t key)
{
	if (!ch->s_cap)
		return 0;
	for (size_t i = key & (ch->s_cap - 1);; i = (i + 1) & (ch->s_cap - 1)) {
		if (ch->skeys[i] == key)
			return ch->sids[i];
		if (ch->skeys[i] == 0)
			return 0;
	}
}

struct series_walk {
	struct gl_query *q;
	struct gl_query_series *a;
	size_t n, cap;
	uint64_t *keys;
	int oom;
};

static char *fdup(const struct gl_tsv_field *f, int *oom_flag)
{
	char *d;

	if (f->null)
		return NULL;
	if (!(d = malloc(f->n + 1)))
		*oom_flag = 1;
	else
		memcpy(d, f->s, f->n + 1);
	return d;
}

static int series_row(void *arg, struct gl_tsv_field *f)
{
	struct series_walk *w = arg;

	if (w->n == w->cap) {
		size_t c = w->cap ? w->cap * 2 : 64;
		struct gl_query_series *b = realloc(w->a, c * sizeof(*b));
		uint64_t *k = b ? realloc(w->keys, c * sizeof(*k)) : NULL;

		if (b)
			w->a = b;
		if (!k)
			return w->oom = 1;
		w->keys = k;
		w->cap = c;
	}
	struct gl_query_series *s = &w->a[w->n];

	w->keys[w->n] = strtoull(f[0].s, NULL, 10);
	s->id = (int64_t)w->n + 1;
	s->metric_id = gl_qch_name_id(w->q, &f[1]);
	s->device = fdup(&f[2], &w->oom);
	s->host_id = gl_qch_name_id(w->q, &f[3]);
	s->source = fdup(&f[4], &w->oom);
	s->labels = fdup(&f[5], &w->oom);
	w->n++;
	return w->oom;
}

static int ch_series_load(struct gl_query *q, struct gl_query_series **out, size_t *n,
			    struct gl_err *err)
{
	static const char sql[] =
		"SELECT " SERIES_KEY " AS k, any(metric), any(device), any(host), any(source),"
		" any(labels) FROM gpulog_samples GROUP BY k"
		" ORDER BY min(node), min(series_id) FORMAT TabSeparated";
	struct series_walk w = {.q = q};
	struct gl_query_ch *ch = q->ch;
	int rc = gl_qch_rows(q, sql, 6, series_row, &w, err);

	if (w.oom)
		rc = gl_qch_oom(err);
	*out = NULL;
	*n = 0;
	free(ch->skeys);
	free(ch->sids);
	free(ch->series_key);
	ch->skeys = NULL;
	ch->sids = NULL;
	ch->s_cap = 0;
	ch->series_key = w.keys;
	ch->n_series = w.n;
	if (rc == GL_OK && w.n) {
		ch->s_cap = 16;
		while (ch->s_cap < w.n * 2)
			ch->s_cap *= 2;
		ch->skeys = calloc(ch->s_cap, sizeof(*ch->skeys));
		ch->sids = calloc(ch->s_cap, sizeof(*ch->sids));
		if (!ch->skeys || !ch->sids)
			rc = gl_qch_oom(err);
		for (size_t j = 0; rc == GL_OK && j < w.n; j++) {
			size_t i = w.keys[j] & (ch->s_cap - 1);

			while (ch->skeys[i])
				i = (i + 1) & (ch->s_cap - 1);
			ch->skeys[i] = w.keys[j];
			ch->sids[i] = (int64_t)j + 1;
		}
	}
	if (rc != GL_OK) {
		gl_query_series_free(w.a, w.n);
		return rc;
	}
	*out = w.a;
	*n = w.n;
	return GL_OK;
}

struct sample_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_sample *s);
	void *arg;
};

static int sample_row(void *arg, struct gl_tsv_field *f)
{
	struct sample_walk *w = arg;
	struct gl_query_sample s = {
		.ts_us = gl_qch_fint(&f[0]),
		.series_id = gl_qch_series_id(w->q->ch, gl_qch_fuint(&f[1])),
		.value = gl_qch_fbits(&f[2]),
	};

	return w->fn(w->arg, &s);
}

static int ch_samples(struct gl_query *q, int64_t since_us, int64_t until_us,
			int (*fn)(void *arg, const struct gl_query_sample *s), void *arg,
			struct gl_err *err)
{
	struct sample_walk w = {q, fn, arg};
	const char *sql;

	/* the series' ids come from gl_query_series_load (the report loads
	 * them first; a caller that did not gets them loaded here) */
	if (!q->ch->n_series) {
		struct gl_query_series *s = NULL;
		size_t n = 0;
		int rc = ch_series_load(q, &s, &n, err);

		gl_query_series_free(s, n);
		if (rc != GL_OK)
			return rc;
	}
	sql = gl_qch_sqlf(q, "SELECT ts_us, " SERIES_KEY ", " CH_BITS("value") " FROM gpulog_samples"
		   " WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
		   " ORDER BY ts_us, node, src_id, idx FORMAT TabSeparated", since_us, until_us);
	return sql ? gl_qch_rows(q, sql, 3, sample_row, &w, err) : gl_qch_oom(err);
}

static int span_of(struct gl_query *q, const char *sql, int64_t *first_us, int64_t *last_us,
		   struct gl_err *err)
{
	int64_t v[3];
	int rc = three_ints(q, sql, v, err);

	*first_us = *last_us = GL_TS_NONE;
	if (rc == GL_OK && v[0] > 0) {
		*first_us = v[1];
		*last_us = v[2];
	}
	return rc;
}

static int ch_series_span(struct gl_query *q, const int64_t *series_ids, size_t n,
			    int64_t since_us, int64_t until_us, int64_t *first_us,
			    int64_t *last_us, struct gl_err *err)
{
	struct gl_buf keys = {0};
	char num[32];
	int rc;

	*first_us = *last_us = GL_TS_NONE;
	if (n == 0 || since_us >= until_us)
		return GL_OK;
	for (size_t i = 0; i < n; i++) {
		if (series_ids[i] < 1 || (uint64_t)series_ids[i] > q->ch->n_series)
			continue;
		int k = snprintf(num, sizeof(num), "%s%" PRIu64, keys.len ? ", " : "",
				 q->ch->series_key[series_ids[i] - 1]);
		if (gl_buf_add(&keys, num, (size_t)k) != GL_OK) {
			gl_buf_release(&keys);
			return gl_qch_oom(err);
		}
	}
	if (!keys.len)
		return GL_OK;
	rc = span_of(q, gl_qch_sqlf(q, "SELECT count(), min(ts_us), max(ts_us) FROM gpulog_samples"
			     " WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64 " AND " SERIES_KEY
			     " IN (%s) FORMAT TabSeparated", since_us, until_us, keys.data),
		     first_us, last_us, err);
	gl_buf_release(&keys);
	return rc;
}

static int ch_samples_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			     int64_t *first_us, int64_t *last_us, struct gl_err *err)
{
	return span_of(q, gl_qch_sqlf(q, "SELECT count(), min(ts_us), max(ts_us) FROM gpulog_samples"
			       " WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
			       " FORMAT TabSeparated", since_us, until_us),
		       first_us, last_us, err);
}

static int ch_events_span(struct gl_query *q, int64_t since_us, int64_t until_us,
			    int64_t *first_us, int64_t *last_us, struct gl_err *err)
{
	static const char *const tab[2] = {"gpulog_events", "gpulog_mem_events"};
	int rc = GL_OK;

	*first_us = *last_us = GL_TS_NONE;
	for (int i = 0; i < 2 && rc == GL_OK; i++) {
		int64_t a, b;

		rc = span_of(q, gl_qch_sqlf(q, "SELECT count(), min(ts_us), max(ts_us) FROM %s WHERE"
				     " ts_us >= %" PRId64 " AND ts_us < %" PRId64 " FORMAT TabSeparated",
				     tab[i], since_us, until_us), &a, &b, err);
		if (rc != GL_OK || a == GL_TS_NONE)
			continue;
		if (*first_us == GL_TS_NONE || a < *first_us)
			*first_us = a;
		if (*last_us == GL_TS_NONE || b > *last_us)
			*last_us = b;
	}
	return rc;
}

/* ----- counts ----- */

static int ch_table_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			     uint64_t *rejects, uint64_t *files, struct gl_err *err)
{
	int64_t v[3];
	int rc = three_ints(q, gl_qch_sqlf(q, "SELECT (SELECT count() FROM gpulog_rejects WHERE (ts_us >= %"
				    PRId64 " AND ts_us < %" PRId64 ") OR ts_us IS NULL), (SELECT sum(f) FROM (SELECT"
				    " argMax(files, shipped_us) AS f FROM gpulog_nodes GROUP BY node)),"
				    " 0 FORMAT TabSeparated", since_us, until_us), v, err);

	*rejects = (uint64_t)v[0];
	*files = (uint64_t)v[1];
	return rc;
}

static int ch_retained_since(struct gl_query *q, int64_t *since_us, struct gl_err *err)
{
	int64_t v[3];
	int rc = three_ints(q, "SELECT countIf(pruned_before_us IS NOT NULL),"
			    " max(pruned_before_us), 0 FROM gpulog_runs FORMAT TabSeparated", v, err);

	*since_us = rc == GL_OK && v[0] > 0 ? v[1] : GL_TS_NONE;
	return rc;
}

static const struct gl_query_backend ch_backend = {
	.events = ch_events,
	.kernel_events = ch_kernel_events,
	.kernel_counts = ch_kernel_counts,
	.kernel_stats = gl_qch_kernel_stats,
	.event_counts = gl_qch_event_counts,
	.series_stats = gl_qch_series_stats,
	.mem_events = ch_mem_events,
	.series_load = ch_series_load,
	.samples = ch_samples,
	.series_span = ch_series_span,
	.samples_span = ch_samples_span,
	.log_alerts = gl_qch_log_alerts,
	.access_requests = gl_qch_access_requests,
	.events_span = ch_events_span,
	.spans = ch_spans,
	.table_counts = ch_table_counts,
	.retained_since = ch_retained_since,
	.fact_events = gl_qch_fact_events,
	.alert_streams = gl_qch_alert_streams,
	.release = ch_release,
};
