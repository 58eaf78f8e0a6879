/*
 * ship.c - gl_ship_run: a node's gpulog database -> ClickHouse, batch by
 * batch, exactly once (see ship.h). In: the database, read in one read
 * transaction per batch through this file's own SELECTs; out: INSERTs of
 * gzip TSV through chttp.c, and the marks in gpulog_ship_log.
 */
#include "ship.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "net/chttp.h"
#include "store/kinds_v7.h"
#include "store/kinds_v8.h"
#include "store/query.h"

#define DAY_US 86400000000LL
#define BATCH_ROWS_DEFAULT 100000
/* ClickHouse's max_insert_block_size: an INSERT of at most this many rows
 * is one block, written as one part per day partition. */
#define BATCH_ROWS_MAX 1048576

/* One column: its name and type on the server, its expression in SQLite. */
struct col {
	const char *name, *type, *expr;
};

/*
 * One table shipped. from/id/ts name the SQLite side: from is the FROM
 * clause (joins resolving names), id the id column, ts the time column.
 * size is what a batch's rows are counted in (SQL over the id's table):
 * NULL: one per row; sample blocks: their n.
 */
struct table {
	const char *ch;			/* server table */
	const char *name;		/* in gpulog_ship_log.tbl and messages */
	const char *src;		/* the SQLite table of the ids */
	const char *from;
	const char *id, *ts;		/* ts NULL: no time (not partitioned, kept) */
	const char *size;
	const char *settle;		/* SELECT the first unsettled id > ?1; NULL: none */
	const char *order_by;		/* the server's sort key */
	const char *tail;		/* ORDER BY of the rows beyond the id */
	const struct col *cols;
	size_t ncols;
};

static const struct col ev_cols[] = {
	{"src_id", "Int64", "e.id"},
	{"ts_us", "Int64", "e.ts_us"},
	{"host", "String", "ifnull(h.name, '')"},
	{"level", "UInt8", "e.level"},
	{"component", "String", "ifnull(c.name, '')"},
	{"kernel", "String", "ifnull(k.name, '')"},
	{"dur_us", "Nullable(Float64)", "e.dur_us"},
	{"exec_ms", "Nullable(Float64)", "e.exec_ms"},
	{"mem_mb", "Nullable(Float64)", "e.mem_mb"},
	{"alloc_mb", "Nullable(Float64)", "e.alloc_mb"},
	{"peak_mb", "Nullable(Float64)", "e.peak_mb"},
	{"util_pct", "Nullable(Float64)", "e.util_pct"},
	{"error_count", "Nullable(Int64)", "e.error_count"},
	{"recovery_attempts", "Nullable(Int64)", "e.recovery_attempts"},
	{"anomaly", "Nullable(Int64)", "e.anomaly"},
	{"message", "Nullable(String)", "e.message"},
	{"metadata", "Nullable(String)", "e.metadata"},
	{"stream_id", "Int64", "e.stream_id"},
	{"line", "Int64", "e.line"},
	{"path", "String", "ifnull(p.path, '')"},
	{"dup_of", "Nullable(Int64)", "e.dup_of"},
	{"launch_overhead_us", "Nullable(Float64)", "e.launch_overhead_us"},
	{"queue_us", "Nullable(Float64)", "e.queue_us"},
	{"occupancy", "Nullable(Float64)", "e.occupancy"},
	{"device", "Nullable(String)", "e.device"},
	{"stream", "Nullable(String)", "e.stream"},
	{"grid", "Nullable(String)", "e.grid"},
	{"block", "Nullable(String)", "e.block"},
	{"registers", "Nullable(Int64)", "e.registers"},
	{"shared_mem_bytes", "Nullable(Int64)", "e.shared_mem_bytes"},
	{"corr_id", "Nullable(Int64)", "e.corr_id"},
	{"scope", "String", "ifnull(sc.name, '')"},
	{"stack", "String", "ifnull(sk.name, '')"},
	{"source", "Nullable(String)", "e.source"},
	{"format", "String", "ifnull(st.format, '')"},	/* streams.format: the reader's jsondoc, vllm */
	/* last: a table made before it has it added at the end (add_kind) */
	{"kind", "UInt8", "e.kind"},			/* events.kind (schema 8), gl_ev_kind */
};

/* events.kind of a database before schema 8, as the migration would fill it
 * (kinds_v7.h; format is the stream's, st.format): the same order */
#define KIND_V7                                                                              \
	"CASE WHEN " GL_KINDS_V7_STREAMS_ALERT " AND " GL_KINDS_V7_IS_ALERT("e.") " THEN 2"      \
	" WHEN " GL_KINDS_V7_STREAMS_ACCESS " AND " GL_KINDS_V7_IS_ACCESS_FAILED("e.") " THEN 4"   \
	" WHEN " GL_KINDS_V7_IS_TRACE("e.") " THEN 1"                                            \
	" WHEN " GL_KINDS_V7_STREAMS_ACCESS " AND " GL_KINDS_V7_IS_ACCESS("e.") " THEN 3 ELSE 0 END"

/* A sample's stream (col stream_id, k 0) or path (path_id, 2): its
 * block's, or in a block of several origins (schema 11) its own. */
#define SAMPLE_ORIGIN(col, k)                                                                 \
	"CASE WHEN b.origins IS NULL THEN b." col                                             \
	" ELSE b.origins ->> ('$[' || (j.value ->> 3) || '][" k "]') END"

/* A sample's columns, its stream given by stream (schema 11: its own). */
#define SAMPLE_COLS(stream)                                                                   \
	{"src_id", "Int64", "b.id"}, {"idx", "UInt32", "j.key"},                              \
	{"ts_us", "Int64", "b.t0_us + (j.value ->> 0)"},                                      \
	{"host", "String", "ifnull(h.name, '')"}, {"metric", "String", "m.name"},             \
	{"device", "Nullable(String)", "r.device"}, {"source", "String", "r.source"},          \
	{"labels", "Nullable(String)", "r.labels"}, {"series_id", "Int64", "r.id"},            \
	{"value", "Float64", "CAST(j.value ->> 1 AS REAL)"},                                  \
	{"ts_estimated", "UInt8", "b.ts_estimated"}, {"stream_id", "Int64", stream},          \
	{"line", "Int64", "b.line0 + (j.value ->> 2)"}, {"path", "String", "ifnull(p.path, '')"}

static const struct col sample_cols[] = {SAMPLE_COLS(SAMPLE_ORIGIN("stream_id", "0"))};

static const struct col span_cols[] = {
	{"src_id", "Int64", "s.id"},
	{"ts_us", "Int64", "s.start_us"},
	{"host", "String", "ifnull(h.name, '')"},
	{"dur_us", "Float64", "s.dur_us"},
	{"name", "String", "ifnull(n.name, '')"},
	{"scope", "String", "ifnull(sc.name, '')"},
	{"depth", "Int64", "s.depth"},
	{"device", "Nullable(String)", "s.device"},
	{"source", "String", "s.source"},
	{"stream_id", "Int64", "s.stream_id"},
	{"line", "Int64", "s.line"},
	{"path", "String", "ifnull(p.path, '')"},
};

static const struct col mem_cols[] = {
	{"src_id", "Int64", "m.id"},
	{"ts_us", "Int64", "m.ts_us"},
	{"host", "String", "ifnull(h.name, '')"},
	{"thread", "Nullable(Int64)", "m.thread"},
	{"action", "UInt8", "m.action"},
	{"ptr", "Nullable(Int64)", "m.ptr"},
	{"size_bytes", "Nullable(Int64)", "m.size_bytes"},
	{"cuda_stream", "Nullable(Int64)", "m.cuda_stream"},
	{"stream_id", "Int64", "m.stream_id"},
	{"line", "Int64", "m.line"},
	{"path", "String", "ifnull(p.path, '')"},
};

static const struct col reject_cols[] = {
	{"src_id", "Int64", "r.id"},
	{"ts_us", "Int64", "r.ts_us"},
	{"host", "String", "''"},
	{"reason", "String", "r.reason"},
	{"line", "Nullable(Int64)", "r.line"},
	{"offset", "Nullable(Int64)", "r.offset"},
	{"length", "Nullable(Int64)", "r.length"},
	{"excerpt", "Nullable(String)", "r.excerpt"},
	{"stream_id", "Nullable(Int64)", "r.stream_id"},
	{"path", "String", "ifnull(p.path, '')"},
};

static const struct col name_cols[] = {
	{"src_id", "Int64", "x.id"},
	{"name", "String", "x.name"},
};

static const struct col run_cols[] = {
	{"src_id", "Int64", "u.id"},
	{"ts_us", "Int64", "u.started_us"},
	{"host", "String", "ifnull(u.host, '')"},
	{"finished_us", "Nullable(Int64)", "u.finished_us"},
	{"version", "String", "u.version"},
	{"files_seen", "Nullable(Int64)", "u.files_seen"},
	{"files_new", "Nullable(Int64)", "u.files_new"},
	{"files_unchanged", "Nullable(Int64)", "u.files_unchanged"},
	{"files_rotated", "Nullable(Int64)", "u.files_rotated"},
	{"files_grown", "Nullable(Int64)", "u.files_grown"},
	{"files_skipped", "Nullable(Int64)", "u.files_skipped"},
	{"files_failed", "Nullable(Int64)", "u.files_failed"},
	{"lines_stored", "Nullable(Int64)", "u.lines_stored"},
	{"lines_rejected", "Nullable(Int64)", "u.lines_rejected"},
	{"pruned_before_us", "Nullable(Int64)", "u.pruned_before_us"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define KEY "(host, ts_us, node, src_id)"

/* A stream's open record: its rows are those after streams.lines. */
#define SETTLE(tab, line)                                                                  \
	"SELECT min(x.id) FROM streams s JOIN " tab " x ON x.stream_id = s.id"              \
	" WHERE s.open_end != 0 AND x." line " > s.lines AND x.id > ?1"

static const struct table tables[] = {
	/* names first: a report reading while a ship runs finds the name of
	 * every row it reads. Their ids' order is the order a report breaks
	 * ties in (one database of several nodes numbers the first node's
	 * names first). */
	{"gpulog_names", "names", "names", "names x", "x.id", NULL, NULL, NULL,
	 "(node, src_id)", NULL, name_cols, N(name_cols)},
	{"gpulog_events", "events", "events",
	 "events e LEFT JOIN names c ON c.id = e.component_id"
	 " LEFT JOIN names h ON h.id = e.host_id LEFT JOIN names k ON k.id = e.kernel_id"
	 " LEFT JOIN names sc ON sc.id = e.scope_id LEFT JOIN names sk ON sk.id = e.stack_id"
	 " LEFT JOIN paths p ON p.id = e.path_id LEFT JOIN streams st ON st.id = e.stream_id",
	 "e.id", "e.ts_us", NULL, SETTLE("events", "line"), KEY, NULL, ev_cols, N(ev_cols)},
	/* schema 11: a block's samples may be of several streams (origins),
	 * and an open block may still change (sblock_merge.h): the blocks
	 * below the first open one are sent; before 11, samples_v10 */
	{"gpulog_samples", "samples", "sample_blocks",
	 "sample_blocks b JOIN json_each(b.data) j JOIN series r ON r.id = b.series_id"
	 " JOIN names m ON m.id = r.metric_id LEFT JOIN names h ON h.id = r.host_id"
	 " LEFT JOIN paths p ON p.id = " SAMPLE_ORIGIN("path_id", "2"),
	 "b.id", "b.t0_us + (j.value ->> 0)", "n",
	 "SELECT min(i) FROM (SELECT min(id) AS i FROM sample_blocks WHERE open = 1 AND id > ?1"
	 " UNION ALL SELECT min(x.id) FROM streams s JOIN sample_blocks x ON x.stream_id = s.id"
	 " WHERE s.open_end != 0 AND x.line1 > s.lines AND x.origins IS NULL AND x.id > ?1)",
	 "(host, metric, ts_us, node, src_id, idx)", ", j.key", sample_cols, N(sample_cols)},
	{"gpulog_spans", "spans", "spans",
	 "spans s LEFT JOIN names n ON n.id = s.name_id LEFT JOIN names sc ON sc.id = s.scope_id"
	 " LEFT JOIN names h ON h.id = s.host_id LEFT JOIN paths p ON p.id = s.path_id",
	 "s.id", "s.start_us", NULL, SETTLE("spans", "line"), KEY, NULL, span_cols, N(span_cols)},
	{"gpulog_mem_events", "mem_events", "mem_events",
	 "mem_events m LEFT JOIN names h ON h.id = m.host_id LEFT JOIN paths p ON p.id = m.path_id",
	 "m.id", "m.ts_us", NULL, SETTLE("mem_events", "line"), KEY, NULL, mem_cols, N(mem_cols)},
	{"gpulog_rejects", "rejects", "rejects",
	 "rejects r LEFT JOIN paths p ON p.id = r.path_id",
	 "r.id", "r.ts_us", NULL, SETTLE("rejects", "line"), KEY, NULL, reject_cols,
	 N(reject_cols)},
	{"gpulog_runs", "runs", "runs", "runs u", "u.id", "u.started_us", NULL,
	 /* the newest run while it has not finished: its figures are not final */
	 "SELECT max(id) FROM runs WHERE finished_us IS NULL AND id > ?1"
	 " AND id = (SELECT max(id) FROM runs)",
	 KEY, NULL, run_cols, N(run_cols)},
};

/* Samples of a database before schema 11: every block of one stream and
 * closed; the columns' expressions of sample_cols there. */
static const struct col sample_cols_v10[] = {SAMPLE_COLS("b.stream_id")};

static const struct table samples_v10 = {
	"gpulog_samples", "samples", "sample_blocks",
	"sample_blocks b JOIN json_each(b.data) j JOIN series r ON r.id = b.series_id"
	" JOIN names m ON m.id = r.metric_id LEFT JOIN names h ON h.id = r.host_id"
	" LEFT JOIN paths p ON p.id = b.path_id",
	"b.id", "b.t0_us + (j.value ->> 0)", "n", SETTLE("sample_blocks", "line1"),
	"(host, metric, ts_us, node, src_id, idx)", ", j.key", sample_cols_v10, N(sample_cols_v10)};

struct shipper {
	const struct gl_ship_opts *o;
	struct gl_ship_stats *st;
	sqlite3 *db;
	struct gl_chttp *ch;
	char node_q[512];		/* the node as a quoted literal's body */
	int64_t cutoff_us;		/* keep_days: rows before are not sent; INT64_MIN: none */
	int64_t db_version;		/* the database's user_version */
	size_t batch_rows;
	struct gl_buf sql, ans, tsv;
};

char *gl_ship_quote(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 3 < n; s++) {
		if (*s == '\'' || *s == '\\')
			out[k++] = '\\';
		out[k++] = *s;
	}
	out[k] = '\0';
	return out;
}

int gl_ship_tsv_text(struct gl_buf *b, const char *s, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		const char *e = NULL;

		switch (s[i]) {
		case '\\': e = "\\\\"; break;
		case '\t': e = "\\t"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\0': e = "\\0"; break;
		default: continue;
		}
		if (gl_buf_add(b, s + run, i - run) || gl_buf_add(b, e, 2))
			return GL_ENOMEM;
		run = i + 1;
	}
	return gl_buf_add(b, s + run, n - run);
}

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static int db_fail(struct shipper *s, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, s->o->db_path, 0, sqlite3_errmsg(s->db), "%s", what);
}

/* printf into s->sql (replacing it). */
static int sqlf(struct shipper *s, struct gl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int sqlf(struct shipper *s, struct gl_err *err, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(s->sql.data, s->sql.cap, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < s->sql.cap)
			break;
		size_t c = n > 0 ? (size_t)n + 1 : 256;
		char *d = realloc(s->sql.data, c);
		if (!d)
			return oom(err);
		s->sql.data = d;
		s->sql.cap = c;
	}
	s->sql.len = (size_t)n;
	return GL_OK;
}

/* Runs s->sql on the server; its answer in s->ans. */
static int ch_run(struct shipper *s, struct gl_err *err)
{
	s->ans.len = 0;
	if (s->ans.data)
		s->ans.data[0] = '\0';
	return gl_chttp_query(s->ch, s->sql.data, &s->ans, err);
}

/*
 * A gpulog_events made by a gpulog-ship before the kind was shipped gets
 * the column, at the end (an INSERT names no columns), with the kind of
 * the rows stored before as the migrations to schemas 8 and 9 tell it from
 * their format, text and metadata (kinds_v8.h GL_KINDS_CH): ClickHouse computes a
 * DEFAULT for the parts written without the column when they are read.
 */
static int parse2(struct shipper *s, int64_t *a, int64_t *b, struct gl_err *err);

static int add_kind(struct shipper *s, struct gl_err *err)
{
	int64_t has = 0;
	int rc;

	if ((rc = sqlf(s, err, "SELECT count() FROM system.columns WHERE database ="
		       " currentDatabase() AND table = 'gpulog_events' AND name = 'kind'")) != GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK || (rc = parse2(s, &has, NULL, err)) != GL_OK || has)
		return rc;
	if ((rc = sqlf(s, err, "ALTER TABLE gpulog_events ADD COLUMN kind UInt8 DEFAULT %s",
		       GL_KINDS_CH)) != GL_OK)
		return rc;
	return ch_run(s, err);
}

static int create_tables(struct shipper *s, struct gl_err *err)
{
	int rc = GL_OK;

	for (size_t t = 0; t < N(tables) && rc == GL_OK; t++) {
		const struct table *tb = &tables[t];
		struct gl_buf b = {0};

		rc = gl_buf_add(&b, "CREATE TABLE IF NOT EXISTS ", 27);
		rc = rc ? rc : gl_buf_add(&b, tb->ch, strlen(tb->ch));
		rc = rc ? rc : gl_buf_add(&b, " (node String", 13);
		for (size_t i = 0; i < tb->ncols && rc == GL_OK; i++) {
			rc = gl_buf_add(&b, ", ", 2);
			rc = rc ? rc : gl_buf_add(&b, tb->cols[i].name, strlen(tb->cols[i].name));
			rc = rc ? rc : gl_buf_add(&b, " ", 1);
			rc = rc ? rc : gl_buf_add(&b, tb->cols[i].type, strlen(tb->cols[i].type));
		}
		if (rc == GL_OK && tb->ts &&
		    sqlf(s, err, "%s) ENGINE = MergeTree PARTITION BY intDiv(ts_us, %lld) ORDER BY %s",
			 b.data, DAY_US, tb->order_by) != GL_OK)
			rc = GL_ENOMEM;
		if (rc == GL_OK && !tb->ts &&
		    sqlf(s, err, "%s) ENGINE = MergeTree ORDER BY %s", b.data, tb->order_by) != GL_OK)
			rc = GL_ENOMEM;
		gl_buf_release(&b);
		if (rc == GL_ENOMEM)
			return oom(err);
		rc = ch_run(s, err);
	}
	if (rc == GL_OK && (rc = sqlf(s, err, "CREATE TABLE IF NOT EXISTS gpulog_ship_log"
				       " (node String, tbl String, first_id Int64, last_id Int64,"
				       " rows UInt64, shipped_us Int64) ENGINE = MergeTree"
				       " ORDER BY (node, tbl, last_id)")) == GL_OK)
		rc = ch_run(s, err);
	if (rc == GL_OK && (rc = sqlf(s, err, "CREATE TABLE IF NOT EXISTS gpulog_nodes"
				       " (node String, files UInt64, shipped_us Int64) ENGINE = MergeTree"
				       " ORDER BY (node, shipped_us)")) == GL_OK)
		rc = ch_run(s, err);
	return rc == GL_OK ? add_kind(s, err) : rc;
}

/* Two integers from an answer "a\tb\n". */
static int parse2(struct shipper *s, int64_t *a, int64_t *b, struct gl_err *err)
{
	char *end;
	const char *p = s->ans.data ? s->ans.data : "";

	errno = 0;
	*a = strtoll(p, &end, 10);
	if (b && *end == '\t')
		*b = strtoll(end + 1, &end, 10);
	else if (b)
		end = (char *)p;
	if (errno || end == p || (*end != '\n' && *end != '\0'))
		return gl_err_set(err, GL_EDB, gl_chttp_url(s->ch), 0, p, "unexpected answer from the server");
	return GL_OK;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits until no query with this table's insert id runs on the server: a
 * killed shipper's last INSERT may still be stored after its death. */
static int wait_insert_gone(struct shipper *s, const struct table *tb, struct gl_err *err)
{
	int64_t n = 0;
	int rc;

	for (long waited_ms = 0;; waited_ms += 100) {
		if ((rc = sqlf(s, err, "SELECT count() FROM system.processes WHERE query_id ="
			       " 'gpulog-ship-%s-%s'", s->node_q, tb->name)) != GL_OK ||
		    (rc = ch_run(s, err)) != GL_OK || (rc = parse2(s, &n, NULL, err)) != GL_OK)
			return rc;
		if (n == 0)
			return GL_OK;
		if (waited_ms > s->o->timeout_s * 1000L)
			return gl_err_set(err, GL_EUNAVAIL, gl_chttp_url(s->ch), 0, "an earlier insert still runs",
					  "cannot ship %s", tb->name);
		sleep_ms(100);
	}
}

static int wait_mutations(struct shipper *s, const struct table *tb, struct gl_err *err)
{
	int64_t n = 0;
	int rc;

	for (;;) {
		if ((rc = sqlf(s, err, "SELECT count() FROM system.mutations WHERE database ="
			       " currentDatabase() AND table = '%s' AND is_done = 0", tb->ch)) != GL_OK ||
		    (rc = ch_run(s, err)) != GL_OK || (rc = parse2(s, &n, NULL, err)) != GL_OK)
			return rc;
		if (n == 0)
			return GL_OK;
		sleep_ms(50);
	}
}

/* One integer (NULL: dflt) from a statement with ?1 and ?2 bound. */
static int local_int(struct shipper *s, const char *sql, int64_t a, int64_t b, int64_t dflt,
		     int64_t *v, struct gl_err *err)
{
	sqlite3_stmt *q = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return db_fail(s, err, "cannot read");
	if (sqlite3_bind_parameter_count(q) >= 1)
		sqlite3_bind_int64(q, 1, a);
	if (sqlite3_bind_parameter_count(q) >= 2)
		sqlite3_bind_int64(q, 2, b);
	if (sqlite3_bind_parameter_count(q) >= 3)
		sqlite3_bind_int64(q, 3, s->cutoff_us);
	int r = sqlite3_step(q);
	if (r == SQLITE_ROW)
		*v = sqlite3_column_type(q, 0) == SQLITE_NULL ? dflt : sqlite3_column_int64(q, 0);
	else if (r == SQLITE_DONE)
		*v = dflt;
	else
		rc = db_fail(s, err, "cannot read");
	sqlite3_finalize(q);
	return rc;
}

/* The rows of (?1, ?2] this shipper sends: a time, and within keep_days (?3). */
static int where_sql(struct shipper *s, const struct table *tb, const char *select,
		     const char *tail, struct gl_err *err)
{
	if (!tb->ts)
		return sqlf(s, err, "SELECT %s FROM %s WHERE %s > ?1 AND %s <= ?2%s", select, tb->from,
			    tb->id, tb->id, tail);
	return sqlf(s, err, "SELECT %s FROM %s WHERE %s > ?1 AND %s <= ?2 AND %s IS NOT NULL"
		    " AND %s >= ?3%s", select, tb->from, tb->id, tb->id, tb->ts, tb->ts, tail);
}

static int mark(struct shipper *s, const struct table *tb, int64_t first, int64_t last,
		uint64_t rows, struct gl_err *err)
{
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_REALTIME, &now);
	if ((rc = sqlf(s, err, "INSERT INTO gpulog_ship_log VALUES ('%s', '%s', %" PRId64 ", %"
		       PRId64 ", %" PRIu64 ", %" PRId64 ")", s->node_q, tb->name, first, last, rows,
		       (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000)) != GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK)
		return rc;
	if (s->o->on_batch)
		s->o->on_batch(s->o->arg, tb->name, 1, rows);
	return GL_OK;
}

/*
 * The table's mark on the server, after settling what a run that failed
 * or was killed left past it (see ship.h).
 */
static int recover(struct shipper *s, const struct table *tb, int64_t *mark_id,
		   struct gl_err *err)
{
	int64_t c = 0, mx = 0, local = 0;
	int rc;

	if ((rc = wait_insert_gone(s, tb, err)) != GL_OK)
		return rc;
	if ((rc = sqlf(s, err, "SELECT max(last_id) FROM gpulog_ship_log WHERE node = '%s' AND"
		       " tbl = '%s'", s->node_q, tb->name)) != GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK || (rc = parse2(s, mark_id, NULL, err)) != GL_OK)
		return rc;
	if ((rc = sqlf(s, err, "SELECT count(), max(src_id) FROM %s WHERE node = '%s' AND src_id > %"
		       PRId64, tb->ch, s->node_q, *mark_id)) != GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK || (rc = parse2(s, &c, &mx, err)) != GL_OK)
		return rc;
	if (c == 0)
		return GL_OK;
	if ((rc = where_sql(s, tb, "count(*)", "", err)) != GL_OK ||
	    (rc = local_int(s, s->sql.data, *mark_id, mx, 0, &local, err)) != GL_OK)
		return rc;
	if (local == c) {
		s->st->recovered++;
		rc = mark(s, tb, *mark_id + 1, mx, (uint64_t)c, err);
		if (rc == GL_OK)
			*mark_id = mx;
		return rc;
	}
	s->st->resent++;
	if ((rc = sqlf(s, err, "ALTER TABLE %s DELETE WHERE node = '%s' AND src_id > %" PRId64,
		       tb->ch, s->node_q, *mark_id)) != GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK)
		return rc;
	return wait_mutations(s, tb, err);
}

/* One value of a row as TSV. */
static int tsv_value(struct gl_buf *b, sqlite3_stmt *q, int i)
{
	char num[40];
	int n;

	switch (sqlite3_column_type(q, i)) {
	case SQLITE_NULL:
		return gl_buf_add(b, "\\N", 2);
	case SQLITE_INTEGER:
		n = snprintf(num, sizeof(num), "%lld", (long long)sqlite3_column_int64(q, i));
		return gl_buf_add(b, num, (size_t)n);
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(q, i);

		/* 17 significant digits read back as the same double */
		if (isnan(v))
			n = snprintf(num, sizeof(num), "nan");
		else if (isinf(v))
			n = snprintf(num, sizeof(num), v > 0 ? "inf" : "-inf");
		else
			n = snprintf(num, sizeof(num), "%.17g", v);
		return gl_buf_add(b, num, (size_t)n);
	}
	default:
		return gl_ship_tsv_text(b, (const char *)sqlite3_column_blob(q, i),
					(size_t)sqlite3_column_bytes(q, i));
	}
}

/* Reads the batch after mark into s->tsv: *upto its last id, *rows its rows.
 * *upto == mark: nothing settled is left. */
static int read_batch(struct shipper *s, const struct table *tb, int64_t mark_id, int64_t *upto,
		      uint64_t *rows, struct gl_err *err)
{
	sqlite3_stmt *q = NULL;
	int64_t bound = INT64_MAX;
	struct gl_buf sel = {0};
	int rc, r;

	*upto = mark_id;
	*rows = 0;
	s->tsv.len = 0;
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, err, "cannot read");
	if (tb->settle && (rc = local_int(s, tb->settle, mark_id, 0, INT64_MAX, &bound, err)) != GL_OK)
		goto out;
	if (bound != INT64_MAX)
		s->st->held_back++;
	/* The batch's last id: batch_rows rows (samples) at most, one id at least. */
	if (tb->size)
		rc = sqlf(s, err, "SELECT max(id) FROM (SELECT id, sum(%s) OVER (ORDER BY id) AS c FROM"
			  " %s WHERE id > ?1 AND id < ?2 ORDER BY id LIMIT %zu) WHERE c <= %zu OR id ="
			  " (SELECT min(id) FROM %s WHERE id > ?1 AND id < ?2)", tb->size, tb->src,
			  s->batch_rows, s->batch_rows, tb->src);
	else
		rc = sqlf(s, err, "SELECT max(id) FROM (SELECT id FROM %s WHERE id > ?1 AND id < ?2"
			  " ORDER BY id LIMIT %zu)", tb->src, s->batch_rows);
	if (rc != GL_OK || (rc = local_int(s, s->sql.data, mark_id, bound, mark_id, upto, err)) != GL_OK)
		goto out;
	if (*upto == mark_id)
		goto out;
	for (size_t i = 0; i < tb->ncols; i++) {
		const char *x = tb->cols[i].expr;

		if (s->db_version < 8 && !strcmp(x, "e.kind"))
			x = KIND_V7;
		if ((i && gl_buf_add(&sel, ", ", 2)) || gl_buf_add(&sel, x, strlen(x))) {
			rc = oom(err);
			goto out;
		}
	}
	char tail[64];
	snprintf(tail, sizeof(tail), " ORDER BY %s%s", tb->id, tb->tail ? tb->tail : "");
	if ((rc = where_sql(s, tb, sel.data, tail, err)) != GL_OK)
		goto out;
	if (sqlite3_prepare_v2(s->db, s->sql.data, -1, &q, NULL) != SQLITE_OK) {
		rc = db_fail(s, err, "cannot read");
		goto out;
	}
	sqlite3_bind_int64(q, 1, mark_id);
	sqlite3_bind_int64(q, 2, *upto);
	sqlite3_bind_int64(q, 3, s->cutoff_us);
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		rc = gl_ship_tsv_text(&s->tsv, s->o->node, strlen(s->o->node));
		for (size_t i = 0; i < tb->ncols && rc == GL_OK; i++)
			rc = gl_buf_add(&s->tsv, "\t", 1) ? GL_ENOMEM : tsv_value(&s->tsv, q, (int)i);
		rc = rc ? rc : gl_buf_add(&s->tsv, "\n", 1);
		if (rc != GL_OK) {
			rc = oom(err);
			goto out;
		}
		(*rows)++;
	}
	if (r != SQLITE_DONE)
		rc = db_fail(s, err, "cannot read");
out:
	sqlite3_finalize(q);
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	gl_buf_release(&sel);
	return rc;
}

/* Ships one table until nothing settled is left; any failure returns (the
 * caller tries again from recover()). *progress: a batch was marked. */
static int ship_table(struct shipper *s, const struct table *tb, int *progress,
		      struct gl_err *err)
{
	int64_t mark_id = 0, upto;
	uint64_t rows;
	char qid[600], ins[128];
	int rc;

	if ((rc = recover(s, tb, &mark_id, err)) != GL_OK)
		return rc;
	snprintf(qid, sizeof(qid), "gpulog-ship-%s-%s", s->o->node, tb->name);
	snprintf(ins, sizeof(ins), "INSERT INTO %s FORMAT TabSeparated", tb->ch);
	for (;;) {
		if ((rc = read_batch(s, tb, mark_id, &upto, &rows, err)) != GL_OK || upto == mark_id)
			return rc;
		if (rows > 0) {
			size_t gz = 0;

			if ((rc = gl_chttp_insert(s->ch, ins, qid, s->tsv.data, s->tsv.len, &gz, err)) !=
			    GL_OK)
				return rc;
			s->st->bytes_gzip += gz;
			if (s->o->on_batch)
				s->o->on_batch(s->o->arg, tb->name, 0, rows);
		}
		if ((rc = mark(s, tb, mark_id + 1, upto, rows, err)) != GL_OK)
			return rc;
		s->st->rows += rows;
		s->st->batches++;
		mark_id = upto;
		*progress = 1;
	}
}

/* keep_days: the day partitions before the cutoff go, in every table. */
static int drop_old(struct shipper *s, struct gl_err *err)
{
	int64_t cutoff_day = s->cutoff_us / DAY_US;
	struct gl_buf list = {0};
	int rc;

	if ((rc = sqlf(s, err, "SELECT table, partition FROM system.parts WHERE database ="
		       " currentDatabase() AND active AND substring(table, 1, 7) = 'gpulog_'"
		       " AND table NOT IN ('gpulog_ship_log', 'gpulog_nodes', 'gpulog_names') GROUP BY table, partition ORDER BY table, partition")) !=
		    GL_OK ||
	    (rc = ch_run(s, err)) != GL_OK)
		return rc;
	if (s->ans.len && gl_buf_add(&list, s->ans.data, s->ans.len) != GL_OK)
		return oom(err);
	for (char *line = list.data, *nl; rc == GL_OK && line && *line; line = nl) {
		char *tab = strchr(line, '\t'), *end;
		long long day;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		errno = 0;
		day = strtoll(tab + 1, &end, 10);
		if (errno || *end || end == tab + 1 || day >= cutoff_day)
			continue;
		if ((rc = sqlf(s, err, "ALTER TABLE %s DROP PARTITION %lld", line, day)) == GL_OK &&
		    (rc = ch_run(s, err)) == GL_OK)
			s->st->partitions_dropped++;
	}
	gl_buf_release(&list);
	return rc;
}

/* The node's files (the report's summary counts them): one row per run,
 * the newest counts. */
static int note_node(struct shipper *s, struct gl_err *err)
{
	struct timespec now;
	int64_t files = 0;
	int rc;

	clock_gettime(CLOCK_REALTIME, &now);
	if ((rc = local_int(s, "SELECT count(*) FROM files", 0, 0, 0, &files, err)) != GL_OK ||
	    (rc = sqlf(s, err, "INSERT INTO gpulog_nodes VALUES ('%s', %" PRId64 ", %" PRId64 ")",
		       s->node_q, files, (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000)) != GL_OK)
		return rc;
	for (int tries = 0;; tries++) {
		if ((rc = ch_run(s, err)) != GL_EUNAVAIL || tries >= s->o->retries)
			return rc;
		sleep_ms(s->o->retry_wait_ms > 0 ? s->o->retry_wait_ms : 1000);
	}
}

/* Runs step with retries: GL_EUNAVAIL is tried again after a wait that
 * doubles, tries counting from the last progress. */
static int with_retries(struct shipper *s, const struct table *tb, struct gl_err *err)
{
	long wait_ms = s->o->retry_wait_ms > 0 ? s->o->retry_wait_ms : 1000;
	int tries = 0, max = s->o->retries > 0 ? s->o->retries : 0;

	for (;;) {
		int progress = 0, rc;

		rc = tb ? ship_table(s, tb, &progress, err) : create_tables(s, err);
		if (rc == GL_OK && !tb && s->o->keep_days > 0)
			rc = drop_old(s, err);
		if (rc != GL_EUNAVAIL)
			return rc;
		if (progress) {
			tries = 0;
			wait_ms = s->o->retry_wait_ms > 0 ? s->o->retry_wait_ms : 1000;
		}
		if (tries >= max)
			return rc;
		tries++;
		s->st->tries_failed++;
		sleep_ms(wait_ms);
		wait_ms = wait_ms * 2 > 60000 ? 60000 : wait_ms * 2;
	}
}

static int open_db(struct shipper *s, struct gl_err *err)
{
	int64_t app = 0, ver = 0;
	int rc;

	if ((rc = gl_query_connect(s->o->db_path, &s->db, err)) != GL_OK)
		return rc;
	sqlite3_busy_timeout(s->db, 60000);
	if (local_int(s, "PRAGMA application_id", 0, 0, 0, &app, err) != GL_OK ||
	    local_int(s, "PRAGMA user_version", 0, 0, 0, &ver, err) != GL_OK)
		return gl_err_set(err, GL_ENOTGPULOG, s->o->db_path, 0, NULL,
				  "not a gpulog database");
	if (app != GL_DB_APPLICATION_ID)
		return gl_err_set(err, GL_ENOTGPULOG, s->o->db_path, 0, NULL,
				  "not a gpulog database");
	if (ver > GL_DB_USER_VERSION)
		return gl_err_set(err, GL_ENEWER, s->o->db_path, 0, NULL,
				  "written by a newer gpulog (schema %" PRId64 ")", ver);
	if (ver < 4)
		return gl_err_set(err, GL_ENOTGPULOG, s->o->db_path, 0,
				  "run gpulog-ingest on it once to update it",
				  "schema %" PRId64 " is too old to ship", ver);
	s->db_version = ver;
	return GL_OK;
}

int gl_ship_run(const struct gl_ship_opts *o, struct gl_ship_stats *st, struct gl_err *err)
{
	struct shipper s = {.o = o, .st = st, .cutoff_us = INT64_MIN};
	int rc;

	memset(st, 0, sizeof(*st));
	if (!o->node || !*o->node || strlen(o->node) > 200)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "the node name must be 1 to 200 bytes");
	gl_ship_quote(o->node, s.node_q, sizeof(s.node_q));
	s.batch_rows = o->batch_rows ? o->batch_rows : BATCH_ROWS_DEFAULT;
	if (s.batch_rows > BATCH_ROWS_MAX)
		s.batch_rows = BATCH_ROWS_MAX;
	if (o->keep_days > 0) {
		if (o->keep_days > GL_KEEP_DAYS_MAX)
			return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "keep_days above %d",
					  GL_KEEP_DAYS_MAX);
		/* whole UTC days: the partitions before the cutoff's day go */
		s.cutoff_us = (o->now_us / DAY_US - o->keep_days) * DAY_US;
	}
	if ((rc = open_db(&s, err)) != GL_OK)
		goto out;
	if (!(s.ch = gl_chttp_new(o->url, o->timeout_s, err))) {
		rc = err ? err->code : GL_ENOMEM;
		goto out;
	}
	if ((rc = with_retries(&s, NULL, err)) != GL_OK)
		goto out;
	for (size_t t = 0; t < N(tables) && rc == GL_OK; t++)
		rc = with_retries(&s, s.db_version < 11 && tables[t].cols == sample_cols ? &samples_v10
											: &tables[t],
				  err);
	if (rc == GL_OK)
		rc = note_node(&s, err);
out:
	gl_chttp_free(s.ch);
	sqlite3_close(s.db);
	gl_buf_release(&s.sql);
	gl_buf_release(&s.ans);
	gl_buf_release(&s.tsv);
	return rc;
}
