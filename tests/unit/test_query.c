/*
 * test_query.c - lib/store/query.c: refuses what is not a gpulog database
 * (missing file, not SQLite, wrong application_id, newer schema), streams
 * a window in time order with [since, until) bounds; kernel timings by
 * (kernel, time); the span of a window's rows; which rows hand out their
 * message and metadata, against SQL's own CASE expressions; how a reader
 * connects (gl_query_connect): read-write without leaving -wal/-shm files,
 * and, for a user who cannot write the directory, immutable under a lock
 * that keeps ingests out.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "schema_sql.h"
#include "support/tmpdir.h"
#include "store/evpack.h"
#include "store/operations.h"
#include "store/query.h"
#include "util/timeutil.h"

/* A database path of this process's own under /tmp: a second run of the
 * tests beside this one (make check and make test at once) uses others. */
static const char *tmp_db(const char *name)
{
	static char path[4][128];
	static unsigned k;
	char *b = path[k++ % 4];

	snprintf(b, sizeof(path[0]), "/tmp/%s.%ld.db", name, (long)getpid());
	return b;
}

static void make_db(const char *path, const char *pragmas)
{
	sqlite3 *db;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, pragmas, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_refuses(void **state)
{
	(void)state;
	struct gl_query *q = (struct gl_query *)1;
	struct gl_err err;
	const char *p = tmp_db("test_query");
	FILE *fp;

	assert_int_equal(gl_query_open("/nonexistent/x.db", &q, &err), GL_EIO);
	assert_null(q);
	assert_string_equal(err.cause, "No such file or directory");

	fp = fopen(p, "w");
	fputs("not a database at all, just some text that is long enough to look like a header\n",
	      fp);
	fclose(fp);
	assert_int_equal(gl_query_open(p, &q, &err), GL_ENOTGPULOG);

	make_db(p, "PRAGMA application_id = 42; PRAGMA user_version = 1;");
	assert_int_equal(gl_query_open(p, &q, &err), GL_ENOTGPULOG);
	assert_string_equal(err.cause, "not a gpulog database");

	char newer[96];

	snprintf(newer, sizeof(newer), "PRAGMA application_id = 1735420007; PRAGMA user_version = %d;",
		 GL_DB_USER_VERSION + 1);
	make_db(p, newer);
	assert_int_equal(gl_query_open(p, &q, &err), GL_ENEWER);

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 0;");
	assert_int_equal(gl_query_open(p, &q, &err), GL_ENOTGPULOG);
	unlink(p);
}

struct seen {
	int64_t ts[8];
	int n;
};

static int collect(void *arg, const struct gl_query_event *ev)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->ts[s->n] = ev->ts_us;
	s->n++;
	assert_true(isnan(ev->dur_us) || ev->dur_us == 5.0);
	return 0;
}

static void test_window(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query2");
	struct gl_query *q;
	struct gl_err err;
	struct seen s = {0};

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		   " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO events(ts_us, kernel_id, dur_us, stream_id, line) VALUES"
		   " (300, 1, 5, 1, 1), (100, 1, 5, 1, 2), (200, NULL, NULL, 1, 3), (99, 1, 5, 1, 4);");
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_string_equal(gl_query_name(q, 1), "k");
	assert_null(gl_query_name(q, 7));
	assert_int_equal(gl_query_events(q, 100, 300, 0, collect, &s, &err), GL_OK);
	assert_int_equal(s.n, 2);
	assert_true(s.ts[0] == 100 && s.ts[1] == 200);
	s.n = 0;
	assert_int_equal(gl_query_events(q, 0, 1000, GL_QUERY_KERNELS_ONLY, collect, &s, &err),
			 GL_OK);
	assert_int_equal(s.n, 3);
	assert_true(s.ts[0] == 99 && s.ts[1] == 100 && s.ts[2] == 300);
	gl_query_close(q);
	unlink(p);
}

struct kseen {
	int64_t kernel[8], ts[8];
	double dur[8];
	int n;
};

static int collect_kernel(void *arg, const struct gl_query_event *ev)
{
	struct kseen *s = arg;

	if (s->n < 8) {
		s->kernel[s->n] = ev->kernel_id;
		s->ts[s->n] = ev->ts_us;
		s->dur[s->n] = ev->dur_us;
	}
	s->n++;
	return 0;
}

/*
 * The kernel rows (GL_QUERY_KERNELS_ONLY) in (time, id) order: rows
 * without a kernel or a duration, mirrored rows and rows outside
 * [since, until) left out. (The kernel pass's (kernel, time, id) order is
 * made from this walk: test_kernel_cache.)
 */
static void test_kernel_samples(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query4");
	struct gl_query *q;
	struct gl_err err;
	struct kseen s = {0};
	int64_t first, last;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "INSERT INTO names(id, name) VALUES (1, 'a'), (2, 'b');"
		   "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		   " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO events(id, ts_us, kernel_id, dur_us, stream_id, line) VALUES"
		   " (1, 300, 2, 1, 1, 1), (2, 100, 1, 2, 1, 2), (3, 200, 2, 3, 1, 3),"
		   " (4, 200, 1, 4, 1, 4), (5, 150, NULL, NULL, 1, 5), (6, 250, 1, NULL, 1, 6),"
		   " (7, 99, 1, 7, 1, 7), (8, 400, 1, 8, 1, 8), (9, 200, 1, 9, 1, 9);"
		   "INSERT INTO events(id, ts_us, kernel_id, dur_us, stream_id, line, dup_of)"
		   " VALUES (10, 120, 1, 10, 1, 10, 2);"
		   "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
		   " VALUES (50, 0, 1, 1, 1, 11), (350, 1, 1, 1, 1, 12);");
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_events(q, 100, 400, GL_QUERY_KERNELS_ONLY, collect_kernel, &s,
					 &err),
			 GL_OK);
	/* 100 (id 2, a), 200 (id 3, b), 200 (id 4, a), 200 (id 9, a), 300 (id 1, b) */
	assert_int_equal(s.n, 5);
	static const int64_t k[5] = {1, 2, 1, 1, 2}, ts[5] = {100, 200, 200, 200, 300};
	static const double dur[5] = {2, 3, 4, 9, 1};
	for (int i = 0; i < 5; i++) {
		assert_true(s.kernel[i] == k[i] && s.ts[i] == ts[i]);
		assert_true(s.dur[i] == dur[i]);
	}
	/* the span of events and RMM rows, before filters: 99 .. 350 in [0, 400) */
	assert_int_equal(gl_query_events_span(q, 0, 400, &first, &last, &err), GL_OK);
	assert_true(first == 50 && last == 350);
	assert_int_equal(gl_query_events_span(q, 100, 300, &first, &last, &err), GL_OK);
	assert_true(first == 100 && last == 250);
	assert_int_equal(gl_query_events_span(q, 500, 600, &first, &last, &err), GL_OK);
	assert_true(first == GL_TS_NONE && last == GL_TS_NONE);
	gl_query_close(q);
	unlink(p);
}

struct tseen {
	int64_t id_of_dur[64];	/* dur_us carries the row's id */
	char msg[64][32], src[64][16], dev[64][16];
	size_t msg_len[64];
	int n, stop_at;
};

static int collect_ties(void *arg, const struct gl_query_event *ev)
{
	struct tseen *s = arg;

	if (s->n < 64) {
		s->id_of_dur[s->n] = (int64_t)ev->dur_us;
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", ev->message ? ev->message : "-");
		s->msg_len[s->n] = ev->message_len;
		snprintf(s->src[s->n], sizeof(s->src[0]), "%s", ev->source ? ev->source : "-");
		snprintf(s->dev[s->n], sizeof(s->dev[0]), "%s", ev->device ? ev->device : "-");
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 9 : 0;
}

/*
 * Rows of one time come in id order although the index events_ts orders
 * them by rec_hash (here the reverse of id), with their text (message of a
 * WARNING row, a trace row's source and device) intact: the reader holds a
 * time's rows back and copies their text. A callback's stop in the middle
 * of a time is returned.
 */
static void test_events_same_time_by_id(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query5");
	struct gl_query *q;
	struct gl_err err;
	struct tseen s = {0};
	char sql[256];
	sqlite3 *db;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'kineto', 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO event_kinds VALUES (1);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	/* ids 1..40: times 100 (ids 1-20), 200 (id 21), 300 (ids 22-40); rec_hash = 1000 - id;
	 * even ids WARNING with a message "m<id>", ids 30.. trace rows of source "s<id>" */
	for (int id = 1; id <= 40; id++) {
		int ts = id <= 20 ? 100 : id == 21 ? 200 : 300;
		char src[16] = "NULL", dev[16] = "NULL";

		if (id >= 30) {
			snprintf(src, sizeof(src), "'s%d'", id);
			snprintf(dev, sizeof(dev), "'d%d'", id);
		}

		snprintf(sql, sizeof(sql),
			 "INSERT INTO events(id, ts_us, level, kernel_id, dur_us, message, stream_id,"
			 " line, rec_hash, source, device) VALUES (%d, %d, %d, 1, %d, 'm%d', 1, %d,"
			 " %d, %s, %s)",
			 id, ts, id % 2 ? 3 : 4, id, id, id, 1000 - id, src, dev);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	sqlite3_close(db);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_events(q, 0, 1000, GL_QUERY_ONE_THREAD, collect_ties, &s, &err),
			 GL_OK);
	assert_int_equal(s.n, 40);
	memset(&s, 0, sizeof(s));
	assert_int_equal(gl_query_events(q, 0, 1000, 0, collect_ties, &s, &err), GL_OK);
	assert_int_equal(s.n, 40);
	for (int i = 0; i < 40; i++) {
		char want[16];
		int id = i + 1;

		assert_int_equal(s.id_of_dur[i], id);
		snprintf(want, sizeof(want), id % 2 ? "-" : "m%d", id);
		assert_string_equal(s.msg[i], want);
		assert_int_equal(s.msg_len[i], id % 2 ? 0 : strlen(want));
		snprintf(want, sizeof(want), id >= 30 ? "s%d" : "-", id);
		assert_string_equal(s.src[i], want);
		snprintf(want, sizeof(want), id >= 30 ? "d%d" : "-", id);
		assert_string_equal(s.dev[i], want);
	}
	/* stopped at the 5th row of the first time */
	memset(&s, 0, sizeof(s));
	s.stop_at = 5;
	assert_int_equal(gl_query_events(q, 0, 1000, 0, collect_ties, &s, &err), 9);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.id_of_dur[4], 5);
	/* the kernels-only walk: same order */
	memset(&s, 0, sizeof(s));
	assert_int_equal(gl_query_events(q, 150, 1000, GL_QUERY_KERNELS_ONLY, collect_ties, &s,
					 &err), GL_OK);
	assert_int_equal(s.n, 20);
	for (int i = 0; i < 20; i++)
		assert_int_equal(s.id_of_dur[i], 21 + i);
	gl_query_close(q);
	/*
	 * The readers leave the trace columns out when event_kinds lists no
	 * trace record (kind 1) in their snapshot: the same rows then hand
	 * out no source. A database without event_kinds (schema 7, not
	 * migrated) says it by its streams' formats: under a 'json' stream
	 * no source; under a stream of no recorded format, or of a trace
	 * format, the sources. So does the caller's thread reading alone.
	 */
	static const struct {
		const char *sql;
		bool trace;
	} gate[] = {
		{"DELETE FROM event_kinds", false},
		{"INSERT INTO event_kinds VALUES (0), (2), (3)", false},
		{"INSERT INTO event_kinds VALUES (1)", true},
		{"DROP TABLE event_kinds; UPDATE streams SET format = 'json'", false},
		{"UPDATE streams SET format = NULL", true},
		{"UPDATE streams SET format = 'nsys'", true},
		{"UPDATE streams SET format = 'gpufl'", true},
	};
	for (size_t g = 0; g < sizeof(gate) / sizeof(gate[0]); g++) {
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, gate[g].sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		for (unsigned m = 0; m < 2; m++) {
			memset(&s, 0, sizeof(s));
			assert_int_equal(gl_query_events(q, 0, 1000, m ? GL_QUERY_ONE_THREAD : 0,
							 collect_ties, &s, &err), GL_OK);
			assert_int_equal(s.n, 40);
			for (int i = 0; i < 40; i++) {
				char want[16];
				int id = i + 1;

				snprintf(want, sizeof(want),
					 id >= 30 && gate[g].trace ? "s%d" : "-", id);
				assert_string_equal(s.src[i], want);
				snprintf(want, sizeof(want), id % 2 ? "-" : "m%d", id);
				assert_string_equal(s.msg[i], want);
			}
		}
		gl_query_close(q);
	}
	unlink(p);
}

struct sseen {
	int64_t n, stop_at;
	int stop_rc;		/* returned at stop_at; 0: 5 */
	int64_t prev_ts, prev_id;
	bool ordered;
	double sum;
};

static int collect_sample(void *arg, const struct gl_query_sample *smp)
{
	struct sseen *s = arg;
	/* value = ts * 10 + id % 10 carries the row's id (ids 1..n, the same time for ten) */
	int64_t id = (int64_t)smp->value % 10;

	if (s->n > 0 && (smp->ts_us < s->prev_ts || (smp->ts_us == s->prev_ts && id <= s->prev_id)))
		s->ordered = false;
	if (smp->series_id != 1 + (int64_t)smp->value % 3)
		s->ordered = false;
	s->prev_ts = smp->ts_us;
	s->prev_id = id;
	s->sum += smp->value;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? (s->stop_rc ? s->stop_rc : 5) : 0;
}

/*
 * Samples of a window in (ts_us, id) order through the reader thread's ring
 * (8 blocks of 8192 rows: 100,003 rows fill it many times over), every row
 * once; a stop from the callback in the middle ends the walk with its value.
 */
static void test_samples_piped(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query6");
	struct gl_query *q;
	struct gl_err err;
	struct sseen s = {.ordered = true};
	sqlite3 *db;
	sqlite3_stmt *st;
	enum { N = 100003 };
	double want = 0;

	/* schema 3's samples rows (gpulog-report reads such a database without
	 * migrating), whatever the compiled-in schema holds */
	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "DROP VIEW IF EXISTS v_samples; DROP TABLE IF EXISTS sample_blocks;"
		   "CREATE TABLE IF NOT EXISTS samples (ts_us INTEGER NOT NULL,"
		   " id INTEGER NOT NULL, series_id INTEGER NOT NULL, value REAL NOT NULL,"
		   " ts_estimated INTEGER NOT NULL DEFAULT 0, stream_id INTEGER NOT NULL,"
		   " line INTEGER NOT NULL, file_id INTEGER, path_id INTEGER,"
		   " PRIMARY KEY (ts_us, id)) WITHOUT ROWID;"
		   "INSERT INTO names(id, name) VALUES (1, 'm');"
		   "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		   " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO series(id, metric_id, source) VALUES (1, 1, 'x'), (2, 1, 'y'),"
		   " (3, 1, 'z');");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO samples(ts_us, id, series_id, value, stream_id, line)"
			       " VALUES (?1, ?2, ?3, ?4, 1, 1)", -1, &st, NULL);
	/* ids written in reverse within each time, so that the table's order is not the insert order */
	for (int64_t i = N; i >= 1; i--) {
		int64_t ts = 1000 + (i - 1) / 10, id = (i - 1) % 10;
		double v = (double)(ts * 10 + id);

		/* series 1 + v % 3 */
		sqlite3_bind_int64(st, 1, ts);
		sqlite3_bind_int64(st, 2, id);
		sqlite3_bind_int64(st, 3, 1 + (int64_t)v % 3);
		sqlite3_bind_double(st, 4, v);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
		if (ts >= 1100 && ts < 9000)
			want += v;
	}
	sqlite3_finalize(st);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_samples(q, 1100, 9000, collect_sample, &s, &err), GL_OK);
	assert_int_equal(s.n, (9000 - 1100) * 10);
	assert_true(s.ordered);
	assert_true(s.sum == want);
	/* stop at row 70,000 */
	memset(&s, 0, sizeof(s));
	s.ordered = true;
	s.stop_at = 70000;
	assert_int_equal(gl_query_samples(q, 0, 20000, collect_sample, &s, &err), 5);
	assert_int_equal(s.n, 70000);
	assert_true(s.ordered);
	/* an error from fn (GL_ENOMEM is -1) too: nothing read a second time */
	memset(&s, 0, sizeof(s));
	s.ordered = true;
	s.stop_at = 7000;
	s.stop_rc = GL_ENOMEM;
	assert_int_equal(gl_query_samples(q, 0, 20000, collect_sample, &s, &err), GL_ENOMEM);
	assert_int_equal(s.n, 7000);
	/* and again after a stop: the connection is fine */
	memset(&s, 0, sizeof(s));
	s.ordered = true;
	assert_int_equal(gl_query_samples(q, 0, 20000, collect_sample, &s, &err), GL_OK);
	assert_int_equal(s.n, N);
	assert_true(s.ordered);
	gl_query_close(q);
	unlink(p);
}

struct bseen {
	int64_t n, stop_at, bad;
	int64_t prev_ts, prev_id;
};

static int collect_blocks(void *arg, const struct gl_query_event *ev)
{
	struct bseen *s = arg;
	int64_t id = (int64_t)ev->dur_us;	/* dur_us carries the id */
	char want[32];

	if (s->n > 0 && (ev->ts_us < s->prev_ts || (ev->ts_us == s->prev_ts && id <= s->prev_id)))
		s->bad++;
	if (ev->ts_us != 1000 + (id - 1) / 7)
		s->bad++;
	snprintf(want, sizeof(want), "m%lld", (long long)id);
	if (id % 3 == 0 ? !ev->message || strcmp(ev->message, want) || ev->message_len != strlen(want)
			: ev->message != NULL)
		s->bad++;
	s->prev_ts = ev->ts_us;
	s->prev_id = id;
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 4 : 0;
}

/*
 * Many rows (20,003, seven to a time, index order by rec_hash the reverse
 * of id): blocks of decoded rows end only where the time changes, and
 * every run comes out in id order with its text, read by the second thread
 * and in the caller's thread alike; a stop in the middle of a run ends the
 * walk with fn's value.
 */
static void test_events_blocks(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query7");
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	sqlite3_stmt *st;
	enum { N = 20003 };

	/* a stream of a log format: no trace columns, so the index is read */
	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO events(id, ts_us, level, kernel_id, dur_us, message,"
			       " stream_id, line, rec_hash) VALUES (?1, ?2, ?3, 1, ?1, ?4, 1, 1, -?1)",
			       -1, &st, NULL);
	for (int64_t id = 1; id <= N; id++) {
		char msg[32];

		snprintf(msg, sizeof(msg), "m%lld", (long long)id);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, 1000 + (id - 1) / 7);
		sqlite3_bind_int(st, 3, id % 3 == 0 ? 4 : 3);	/* WARNING rows carry the message */
		sqlite3_bind_text(st, 4, msg, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	/* two readers over time slices, the caller's thread */
	static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD};
	for (unsigned m = 0; m < 2; m++) {
		unsigned fl = modes[m];
		struct bseen s = {0};

		assert_int_equal(gl_query_events(q, 0, 1000000, fl, collect_blocks, &s, &err), GL_OK);
		assert_int_equal(s.n, N);
		assert_int_equal(s.bad, 0);
		/* from time 1500 (ids 3501..): 16,503 rows */
		memset(&s, 0, sizeof(s));
		assert_int_equal(gl_query_events(q, 1500, 1000000, fl, collect_blocks, &s, &err),
				 GL_OK);
		assert_int_equal(s.n, N - 3500);
		assert_int_equal(s.bad, 0);
		/* stopped at row 9,000 (inside a run of seven) */
		memset(&s, 0, sizeof(s));
		s.stop_at = 9000;
		assert_int_equal(gl_query_events(q, 0, 1000000, fl, collect_blocks, &s, &err), 4);
		assert_int_equal(s.n, 9000);
		assert_int_equal(s.bad, 0);
		assert_int_equal(s.prev_id, 9000);
	}
	gl_query_close(q);
	unlink(p);
}

struct idseen {
	int64_t *id;
	size_t n, cap, stop_at;
	int stop_rc;		/* returned at stop_at; 0: 5 */
};

static int collect_ids(void *arg, const struct gl_query_event *ev)
{
	struct idseen *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->id = realloc(s->id, s->cap * sizeof(*s->id));
		assert_non_null(s->id);
	}
	s->id[s->n++] = (int64_t)ev->dur_us;	/* dur_us carries the id */
	return s->stop_at && s->n == s->stop_at ? (s->stop_rc ? s->stop_rc : 5) : 0;
}

/*
 * Time slices over uneven data: 12,000 rows at one time (one slice far
 * larger than a reader's ring), a few rows before and after, RMM rows far
 * outside the events' span; rows in random id order. Each way of reading
 * gives SQLite's own ORDER BY ts_us, id for several windows, an empty
 * window gives nothing, and a stop inside the big time ends the walk, as
 * does an error (GL_ENOMEM, -1) from the callback, without a second read.
 */
static void test_events_sliced_uneven(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query8");
	static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD};
	static const int64_t win[][2] = {{0, 2000000}, {0, 5000}, {5000, 5001}, {40, 1000010},
					 {100, 200}, {-5, 3}};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t r = 7;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		   " VALUES (1, 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
		   " VALUES (-1000000, 0, 1, 1, 1, 1), (9000000, 1, 1, 1, 1, 2);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO events(id, ts_us, level, kernel_id, dur_us, stream_id,"
			       " line, rec_hash) VALUES (?1, ?2, 3, 1, ?1, 1, 1, ?3)",
			       -1, &st, NULL);
	for (int64_t i = 0; i < 12080; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		/* ids 1..12080 in a scrambled order of insertion */
		int64_t id = (int64_t)((i * 7919) % 12080) + 1;
		int64_t ts = i < 12000 ? 5000 : i < 12050 ? 10 + (i - 12000) : 1000000 + (i - 12050);

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, ts);
		sqlite3_bind_int64(st, 3, (int64_t)(r >> 11));
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	for (size_t w = 0; w < sizeof(win) / sizeof(win[0]); w++) {
		struct idseen want = {0};

		sqlite3_prepare_v2(db, "SELECT id FROM events WHERE ts_us >= ?1 AND ts_us < ?2"
				       " ORDER BY ts_us, id", -1, &st, NULL);
		sqlite3_bind_int64(st, 1, win[w][0]);
		sqlite3_bind_int64(st, 2, win[w][1]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct gl_query_event ev = {.dur_us = (double)sqlite3_column_int64(st, 0)};

			collect_ids(&want, &ev);
		}
		sqlite3_finalize(st);
		for (unsigned m = 0; m < 2; m++) {
			struct idseen got = {0};

			assert_int_equal(gl_query_events(q, win[w][0], win[w][1], modes[m], collect_ids,
							 &got, &err),
					 GL_OK);
			assert_int_equal(got.n, want.n);
			for (size_t i = 0; i < want.n; i++)
				if (got.id[i] != want.id[i])
					fail_msg("window %zu, mode %u: row %zu is id %lld, not %lld", w,
						 m, i, (long long)got.id[i], (long long)want.id[i]);
			free(got.id);
			if (want.n > 6000) {
				memset(&got, 0, sizeof(got));
				got.stop_at = 6000;
				assert_int_equal(gl_query_events(q, win[w][0], win[w][1], modes[m],
								 collect_ids, &got, &err),
						 5);
				assert_int_equal(got.n, 6000);
				free(got.id);
				/* an error from fn (GL_ENOMEM is -1) ends it too: no row again */
				memset(&got, 0, sizeof(got));
				got.stop_at = 100;
				got.stop_rc = GL_ENOMEM;
				assert_int_equal(gl_query_events(q, win[w][0], win[w][1], modes[m],
								 collect_ids, &got, &err),
						 GL_ENOMEM);
				assert_int_equal(got.n, 100);
				free(got.id);
			}
		}
		free(want.id);
	}
	gl_query_close(q);
	sqlite3_close(db);
	unlink(p);
}

struct snapseen {
	const char *path;
	size_t n, late;
	int inserted;
};

/* On the first row, another connection commits 50 rows late in the window. */
static int collect_then_write(void *arg, const struct gl_query_event *ev)
{
	struct snapseen *s = arg;

	if ((int64_t)ev->dur_us > 10000)
		s->late++;
	if (s->n++ == 0) {
		sqlite3 *w;
		char sql[256];

		assert_int_equal(sqlite3_open(s->path, &w), SQLITE_OK);
		sqlite3_busy_timeout(w, 5000);
		for (int i = 0; i < 50; i++) {
			snprintf(sql, sizeof(sql),
				 "INSERT INTO events(id, ts_us, level, kernel_id, dur_us, stream_id,"
				 " line) VALUES (%d, %d, 3, 1, %d, 1, 1)",
				 10001 + i, 2500 + i, 10001 + i);
			s->inserted += sqlite3_exec(w, sql, NULL, NULL, NULL) == SQLITE_OK;
		}
		sqlite3_close(w);
	}
	return 0;
}

/*
 * A walk sees the database as it was when it began: rows another
 * connection commits while the caller is on the first row (50 of them, in
 * slices not read yet) are not handed out, by either way of reading.
 * (With a statement per time slice they were.)
 */
static void test_events_one_snapshot(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query9");
	static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD};
	struct gl_query *q;
	struct gl_err err;

	for (unsigned m = 0; m < 2; m++) {
		struct snapseen s = {.path = p};

		make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
			   "PRAGMA journal_mode = WAL;"
			   "INSERT INTO names(id, name) VALUES (1, 'k');"
			   "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes,"
			   " head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);"
			   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
			   " WHERE i < 3000) INSERT INTO events(id, ts_us, level, kernel_id, dur_us,"
			   " stream_id, line) SELECT i, i - 1, 3, 1, i, 1, 1 FROM n;");
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		assert_int_equal(gl_query_events(q, 0, 1000000, modes[m], collect_then_write, &s,
						 &err),
				 GL_OK);
		gl_query_close(q);
		assert_int_equal(s.inserted, 50);
		assert_int_equal(s.n, 3000);
		assert_int_equal(s.late, 0);
		/* and they are there for the next walk */
		struct idseen all = {0};

		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);

		assert_int_equal(gl_query_events(q, 0, 1000000, modes[m], collect_ids, &all, &err),
				 GL_OK);
		assert_int_equal(all.n, 3050);
		free(all.id);
		gl_query_close(q);
		unlink(p);
		char side[160];

		snprintf(side, sizeof(side), "%s-wal", p);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", p);
		unlink(side);
	}
}

/* Schema 1 counts every reject; schema 2 those with ts_us in the window. */
static void test_reject_counts(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query3");
	struct gl_query *q;
	struct gl_err err;
	uint64_t rej = 99, files = 99;
	sqlite3 *db;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 1;");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	/* the column of schema 2, unless the compiled-in schema has it already */
	sqlite3_exec(db, "ALTER TABLE rejects ADD COLUMN ts_us INTEGER", NULL, NULL, NULL);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO files(id, path, status) VALUES (1, '/a', 'read');"
				      "INSERT INTO rejects(reason, ts_us) VALUES ('x', 100), ('x', 200),"
				      " ('x', 300), ('x', NULL);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_table_counts(q, 100, 300, &rej, &files, &err), GL_OK);
	assert_int_equal(rej, 4);
	assert_int_equal(files, 1);
	gl_query_close(q);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_table_counts(q, 100, 300, &rej, &files, &err), GL_OK);
	assert_int_equal(rej, 3);	/* 100 and 200; 300 is at until; NULL has no time: every window (issue 30) */
	gl_query_close(q);
	unlink(p);
}

/* A row's text columns as handed out: NULL, or the bytes and their length. */
struct text_row {
	int64_t id;
	char *msg, *meta;
	size_t msg_len, meta_len;
	double op_ms, op_tp;
	char *op_name;
};

struct text_seen {
	size_t n, cap;
	struct text_row *row;
};

static char *dup_bytes(const char *p, size_t n)
{
	char *d;

	if (!p)
		return NULL;
	d = malloc(n + 1);
	assert_non_null(d);
	memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

static int collect_text(void *arg, const struct gl_query_event *ev)
{
	struct text_seen *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->row = realloc(s->row, s->cap * sizeof(*s->row));
		assert_non_null(s->row);
	}
	s->row[s->n++] = (struct text_row){(int64_t)ev->dur_us,
					   dup_bytes(ev->message, ev->message_len),
					   dup_bytes(ev->metadata, ev->metadata_len),
					   ev->message_len, ev->metadata_len, ev->op_ms, ev->op_throughput,
					   ev->op_name ? strdup(ev->op_name) : NULL};
	return 0;
}

static void free_text(struct text_seen *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->row[i].msg);
		free(s->row[i].meta);
		free(s->row[i].op_name);
	}
	free(s->row);
	*s = (struct text_seen){0};
}

static void check_text(const char *what, const char *got, size_t got_len, sqlite3_stmt *st, int col)
{
	const char *want = (const char *)sqlite3_column_text(st, col);
	size_t want_len = (size_t)sqlite3_column_bytes(st, col);

	if (!want) {
		if (got)
			fail_msg("row %lld: %s handed out, SQL says none",
				 (long long)sqlite3_column_int64(st, 0), what);
		return;
	}
	if (!got)
		fail_msg("row %lld: %s not handed out, SQL says '%s'",
			 (long long)sqlite3_column_int64(st, 0), what, want);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
}

/* The messages handed out, by row: message i of row id i + 1. */
struct warn_seen {
	size_t n, with_msg, wrong;
	long long per_time;		/* rows of one time: ts_us = (id - 1) / per_time */
	size_t skip;			/* bytes before "warn row" (a tag) */
	long long last_id;		/* the row of the last message: ids go up */
};

static int collect_warn(void *arg, const struct gl_query_event *ev)
{
	struct warn_seen *s = arg;
	char want[32];

	s->n++;
	if (ev->level < 4) {
		s->wrong += ev->message != NULL;
		return 0;
	}
	if (!ev->message)
		return 0;
	s->with_msg++;
	/* which row is this? ts_us = (id - 1) / per_time; the message names it,
	 * and the rows come in (ts_us, id) order: their ids go up */
	long long id = 0;

	if (ev->message_len < s->skip ||
	    sscanf(ev->message + s->skip, "warn row %lld", &id) != 1 ||
	    (id - 1) / s->per_time != ev->ts_us || id <= s->last_id)
		s->wrong++;
	s->last_id = id;
	snprintf(want, sizeof(want), "warn row %lld", id);
	s->wrong += strlen(want) != ev->message_len - s->skip ||
		    strcmp(want, ev->message + s->skip) != 0;
	return 0;
}

/*
 * The messages at WARN and above are read with their block's others from
 * the index events_warn (schema 12), not each by id; without the index
 * (schema 11), by id; the same messages either way, in one thread and in
 * the slice readers, over blocks of several thousand rows: with runs of
 * three rows of one time (variant 0: their messages in the order of their
 * ids; 1: tagged so that events_warn, which orders a time's rows by
 * message, has them the other way round), and with a time a row (2).
 */
static void warn_index_variant(int variant)
{
	const char *p = tmp_db("test_query_warn");
	static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	size_t n_warn = 0;
	const size_t n = 20000;

	const long long per_time = variant == 2 ? 1 : 3;
	const size_t skip = variant == 1 ? 2 : 0;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 12;"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (size_t i = 1; i <= n; i++) {
		/* every 5th WARN, every 7th (else) ERROR, the others INFO */
		const int level = i % 5 == 0 ? 4 : i % 7 == 0 ? 5 : 3;
		/* variant 1: "c ", "b ", "a " before the rows of a time, in id order */
		char tag[3] = {(char)('c' - (char)((i - 1) % 3)), ' ', '\0'};
		char *sql = sqlite3_mprintf("INSERT INTO events(id, ts_us, level, message, stream_id,"
					    " line) VALUES (%lld, %lld, %d, '%s%s row %lld', 1, %lld)",
					    (long long)i, (long long)(i - 1) / per_time, level,
					    skip ? tag : "", level >= 4 ? "warn" : "info", (long long)i,
					    (long long)i);

		n_warn += level >= 4;
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(sql);
	}
	assert_int_equal(gl_evpack_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ")",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	for (int with_index = 1; with_index >= 0; with_index--) {
		if (!with_index)
			assert_int_equal(sqlite3_exec(db, "DROP INDEX events_warn", NULL, NULL, NULL),
					 SQLITE_OK);
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			struct warn_seen seen = {.per_time = per_time, .skip = skip};
			uint64_t by_index, by_id;

			assert_int_equal(gl_query_events(q, 0, 100000000, modes[m], collect_warn, &seen,
							 &err), GL_OK);
			assert_int_equal(seen.n, n);
			assert_int_equal(seen.with_msg, n_warn);
			assert_int_equal(seen.wrong, 0);
			gl_query_warn_reads(q, &by_index, &by_id);
			/* counted from the open: this pass's and the ones before */
			assert_int_equal(by_index, with_index ? (m + 1) * n_warn : 0);
			if (with_index)
				assert_int_equal(by_id, 0);
			else
				assert_true(by_id == (m + 1) * n_warn);
		}
		gl_query_close(q);
	}
	sqlite3_close(db);
	unlink(p);
}

static void test_events_warn_index(void **state)
{
	(void)state;
	for (int variant = 0; variant < 3; variant++)
		warn_index_variant(variant);
}

static int count_rows(void *arg, const struct gl_query_event *ev)
{
	(void)ev;
	(*(size_t *)arg)++;
	return 0;
}

/*
 * A row that cannot be read is an error of the events pass, not a row left
 * out: rows without a packing are read from the table by id, and a leaf
 * page of the table is overwritten (the index events_ts intact). In the
 * slice readers the row is decoded inside SQLite's step (gl_ev_take), and
 * in one thread after it; both fail with the database's error.
 */
static void test_events_read_error(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_bad_page");
	static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	int64_t page = 0, page_size = 0;
	const size_t n = 20000;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 12;"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (size_t i = 1; i <= n; i++) {
		char *sql = sqlite3_mprintf("INSERT INTO events(id, ts_us, level, message, stream_id,"
					    " line) VALUES (%lld, %lld, 3, 'row %lld', 1, %lld)",
					    (long long)i, (long long)i, (long long)i, (long long)i);

		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(sql);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	/* every row's packed is NULL: each is read from the table by id */
	assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE packed IS NULL"), (int64_t)n);
	page = q_int(db, "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf'"
			 " ORDER BY pageno LIMIT 1 OFFSET 3");
	page_size = q_int(db, "PRAGMA page_size");
	assert_true(page > 0 && page_size > 0);
	sqlite3_close(db);
	/* all reads well before */
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		size_t rows = 0;

		assert_int_equal(gl_query_events(q, 0, 1000000, modes[m], count_rows, &rows, &err),
				 GL_OK);
		assert_int_equal(rows, n);
	}
	gl_query_close(q);
	{
		int fd = open(p, O_WRONLY);
		char junk[512];

		assert_true(fd >= 0);
		memset(junk, 0xA5, sizeof(junk));
		assert_int_equal(pwrite(fd, junk, sizeof(junk), (off_t)((page - 1) * page_size)),
				 (ssize_t)sizeof(junk));
		close(fd);
	}
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		size_t rows = 0;

		gl_err_clear(&err);
		assert_int_equal(gl_query_events(q, 0, 1000000, modes[m], count_rows, &rows, &err),
				 GL_EDB);
		assert_true(rows < n);
		assert_non_null(strstr(err.msg, "cannot read events"));
		assert_true(err.cause[0] != '\0');
	}
	gl_query_close(q);
	unlink(p);
}

/*
 * Which rows hand out their message and metadata is decided in C
 * (query.c, like_operation): the same as SQL's own CASE expressions over
 * every combination of level (integers, reals, TEXT, BLOB), kernel, time
 * and message: "Operation " in any case, cut short, as a BLOB, with a NUL,
 * with a non-ASCII first letter. The reference is SQLite evaluating the
 * expressions the statement used to carry. The operation handed with a row
 * is the one table operations holds (filled as the migration fills it), and
 * the same when the table is gone (a database before schema 10: found in
 * the message and metadata, which are then handed out).
 */
static void test_events_text_columns(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_text");
	static const char *const levels[] = {"0", "3", "4", "5", "7", "3.5", "4.0", "'x'", "x'01'"};
	static const char *const kernels[] = {"NULL", "1"};
	static const char *const execs[] = {"NULL", "2.5"};
	static const char *const msgs[] = {
		"NULL", "'Operation a completed in 2 ms'", "'operation a'", "'OPERATION X'",
		"'OpErAtIoN y'", "'Operation'", "'Operation '", "'Operationx'", "'Operatio'",
		"x'4f7065726174696f6e2061'", "x'4f706572006174696f6e2061'", "'\xc3\x96peration a'",
		"' Operation a'", "'Kernel k executed in 1us'", "''", "42"};
	static const char *const metas[] = {"NULL", "'{\"operation\":\"a\"}'"};
	/* each read from events_ts alone (the text by id), from events.packed
	 * in the table, and from the columns; in two threads and in one; all
	 * rows and kernel rows only */
	static const unsigned modes[] = {
	    0, GL_QUERY_ONE_THREAD, GL_QUERY_KERNELS_ONLY, GL_QUERY_KERNELS_ONLY | GL_QUERY_ONE_THREAD,
	    GL_QUERY_TABLE, GL_QUERY_TABLE | GL_QUERY_ONE_THREAD,
	    GL_QUERY_TABLE | GL_QUERY_KERNELS_ONLY,
	    GL_QUERY_TABLE | GL_QUERY_KERNELS_ONLY | GL_QUERY_ONE_THREAD,
	    GL_QUERY_COLUMNS, GL_QUERY_COLUMNS | GL_QUERY_ONE_THREAD,
	    GL_QUERY_COLUMNS | GL_QUERY_KERNELS_ONLY,
	    GL_QUERY_COLUMNS | GL_QUERY_KERNELS_ONLY | GL_QUERY_ONE_THREAD};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	int64_t id = 0;

	/* a stream of a log format: no trace columns, so the index is read */
	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 3;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (size_t a = 0; a < sizeof(levels) / sizeof(levels[0]); a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 2; c++)
				for (size_t d = 0; d < sizeof(msgs) / sizeof(msgs[0]); d++)
					for (size_t e = 0; e < 2; e++) {
						id++;
						char *sql = sqlite3_mprintf(
						    "INSERT INTO events(id, ts_us, level, kernel_id,"
						    " exec_ms, message, metadata, dur_us, stream_id,"
						    " line) VALUES (%lld, %lld, %s, %s, %s, %s, %s,"
						    " %lld, 1, 1)",
						    (long long)id, (long long)id, levels[a],
						    kernels[b], execs[c], msgs[d], metas[e],
						    (long long)id);

						assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL),
								 SQLITE_OK);
						sqlite3_free(sql);
					}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	assert_int_equal(gl_store_fill_operations(db, p, &err), GL_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE ops_want AS SELECT event_id, name_id, ms, throughput FROM operations",
				      NULL, NULL, NULL), SQLITE_OK);
	/* each "Operation a completed in 2 ms" or exec_ms row without a kernel
	 * is one; the others (and those with a kernel) are none */
	assert_true(q_int(db, "SELECT count(*) FROM ops_want") > 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM ops_want o JOIN events e ON e.id ="
				   " o.event_id WHERE e.kernel_id IS NOT NULL"), 0);
	assert_int_equal(gl_evpack_register(db), SQLITE_OK);
	for (int ops = 1; ops >= 0; ops--) {
	if (!ops) {
		assert_int_equal(sqlite3_exec(db, "DROP TABLE operations; UPDATE events SET packed = NULL",
					      NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	/* phase 0: packed NULL (rows put by hand: each read from its columns
	 * by id); phase 1: packed made of the columns, as the migration does */
	for (size_t m = 0; m < 2 * sizeof(modes) / sizeof(modes[0]); m++) {
		if (m == sizeof(modes) / sizeof(modes[0])) {
			assert_int_equal(sqlite3_exec(db, "UPDATE events SET packed = gl_ev_pack("
							  GL_EVPACK_COLUMNS ")",
						      NULL, NULL, NULL),
					 SQLITE_OK);
			assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE packed IS NULL"), 0);
		}
		const unsigned mode = modes[m % (sizeof(modes) / sizeof(modes[0]))];
		struct text_seen got = {0};
		sqlite3_stmt *st;
		size_t i = 0;
		const bool only = (mode & GL_QUERY_KERNELS_ONLY) != 0;
		char *sql = sqlite3_mprintf(
		    "SELECT events.id, CASE WHEN level >= 4 OR (kernel_id IS NULL AND"
		    " (exec_ms IS NOT NULL OR message LIKE 'Operation %%')) THEN message END,"
		    " CASE WHEN kernel_id IS NULL AND exec_ms IS NOT NULL AND %d THEN metadata END,"
		    " o.ms, o.throughput, n.name"
		    " FROM events LEFT JOIN ops_want o ON o.event_id = events.id"
		    " LEFT JOIN names n ON n.id = o.name_id"
		    " WHERE ts_us >= 0 AND ts_us < 1000000%s ORDER BY ts_us, events.id",
		    !ops, only ? " AND kernel_id IS NOT NULL AND dur_us IS NOT NULL" : "");

		assert_int_equal(gl_query_events(q, 0, 1000000, mode, collect_text, &got, &err),
				 GL_OK);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		sqlite3_free(sql);
		while (sqlite3_step(st) == SQLITE_ROW) {
			assert_true(i < got.n);
			assert_int_equal(got.row[i].id, sqlite3_column_int64(st, 0));
			check_text("message", got.row[i].msg, got.row[i].msg_len, st, 1);
			check_text("metadata", got.row[i].meta, got.row[i].meta_len, st, 2);
			if (sqlite3_column_type(st, 3) == SQLITE_NULL || only) {
				assert_true(isnan(got.row[i].op_ms));
			} else {
				assert_true(got.row[i].op_ms == sqlite3_column_double(st, 3));
				if (sqlite3_column_type(st, 4) == SQLITE_NULL)
					assert_true(isnan(got.row[i].op_tp));
				else
					assert_true(got.row[i].op_tp == sqlite3_column_double(st, 4));
			}
			check_text("operation name", got.row[i].op_name,
				   got.row[i].op_name ? strlen(got.row[i].op_name) : 0, st,
				   only ? 99 : 5);
			i++;
		}
		sqlite3_finalize(st);
		assert_int_equal(i, got.n);
		assert_int_equal(got.n, only ? (size_t)id / 2 : (size_t)id);
		free_text(&got);
	}
	gl_query_close(q);
	}
	sqlite3_close(db);
	unlink(p);
}

/* Every field of the events handed out, in order. */
struct ev_all {
	size_t n, cap;
	struct gl_query_event *ev;
};

static int collect_all(void *arg, const struct gl_query_event *ev)
{
	struct ev_all *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		assert_non_null(s->ev);
	}
	s->ev[s->n] = *ev;
	s->ev[s->n].message = s->ev[s->n].metadata = s->ev[s->n].device = s->ev[s->n].source = NULL;
	s->n++;
	return 0;
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0 || (isnan(a) && isnan(b));
}

static void expect_same_events(const struct ev_all *a, const struct ev_all *b, const char *what)
{
	if (a->n != b->n)
		fail_msg("%s: %zu events, %zu from the columns", what, b->n, a->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct gl_query_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->ts_us != y->ts_us || x->level != y->level ||
		    x->component_id != y->component_id || x->host_id != y->host_id ||
		    x->kernel_id != y->kernel_id || !same_double(x->dur_us, y->dur_us) ||
		    !same_double(x->mem_mb, y->mem_mb) || x->anomaly != y->anomaly ||
		    x->recovery_attempts != y->recovery_attempts ||
		    x->error_count != y->error_count || x->stream_id != y->stream_id ||
		    !same_double(x->exec_ms, y->exec_ms) || x->dup_of != y->dup_of ||
		    x->message_len != y->message_len || x->metadata_len != y->metadata_len)
			fail_msg("%s: event %zu (time %lld) differs from the columns'", what, i,
				 (long long)x->ts_us);
	}
}

static void read_all(struct gl_query *q, unsigned mode, struct ev_all *out)
{
	struct gl_err err;

	*out = (struct ev_all){0};
	assert_int_equal(gl_query_events(q, 0, 1000000, mode, collect_all, out, &err), GL_OK);
}

/*
 * The window's end: the statements that return every row leave it to the
 * reader, which stops at the first row at or past it (query.c
 * events_sql). Rows of every storage class of ts_us (NULL, integers,
 * REALs on both sides of each end, TEXT and BLOB, which sort after every
 * number) over windows that cut between them, in every read mode, give the
 * times SQL's own "ts_us >= since AND ts_us < until" selects, in order.
 */
static void test_window_end(void **state)
{
	(void)state;
	char dir[512], p[600];	/* a directory of its own: two test runs at once do not meet */
	static const char *const ts[] = {
		"NULL", "50", "99", "99.5", "100", "100.0", "150.5", "199", "199.9", "200",
		"200.5", "'120'", "'abc'", "x'00'", "250", "1000000", "999999.99",
	};
	static const int64_t win[][2] = {
		{100, 200}, {0, 1000000}, {200, 201}, {150, 151}, {0, 100}, {201, 999999},
		{99, 100}, {1000000, 2000000}, {-5, 50},
	};
	static const unsigned modes[] = {
		0, GL_QUERY_ONE_THREAD, GL_QUERY_TABLE, GL_QUERY_COLUMNS, GL_QUERY_KERNELS_ONLY,
		GL_QUERY_KERNELS_ONLY | GL_QUERY_ONE_THREAD,
	};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;

	gl_test_mkdtemp(dir, sizeof(dir), "qend");
	snprintf(p, sizeof(p), "%s/end.db", dir);
	for (int version = 2; version <= 7; version += 5) {
		char *pragmas = sqlite3_mprintf(
			"PRAGMA application_id = 1735420007; PRAGMA user_version = %d;"
			"INSERT INTO names(id, name) VALUES (1, 'k');"
			"INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
			" head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);",
			version);

		make_db(p, pragmas);
		sqlite3_free(pragmas);
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
			/* every other row a kernel timing, for the kernels-only walk */
			char *sql = sqlite3_mprintf("INSERT INTO events (ts_us, kernel_id, dur_us,"
						    " stream_id, line) VALUES (%s, %s, %s, 1, %d)",
						    ts[i], i % 2 ? "1" : "NULL",
						    i % 2 ? "2.5" : "NULL", (int)i);

			assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
			sqlite3_free(sql);
		}
		assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
		for (size_t w = 0; w < sizeof(win) / sizeof(win[0]); w++)
			for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
				const bool only = modes[m] & GL_QUERY_KERNELS_ONLY;
				struct ev_all got = {0};
				sqlite3_stmt *st;
				size_t n = 0;

				assert_int_equal(gl_query_events(q, win[w][0], win[w][1], modes[m],
								 collect_all, &got, &err),
						 GL_OK);
				assert_int_equal(
					sqlite3_prepare_v2(
						db,
						only ? "SELECT CAST(ts_us AS INTEGER) FROM events"
						       " WHERE ts_us >= ?1 AND ts_us < ?2"
						       " AND kernel_id IS NOT NULL ORDER BY ts_us, id"
						     : "SELECT CAST(ts_us AS INTEGER) FROM events"
						       " WHERE ts_us >= ?1 AND ts_us < ?2"
						       " ORDER BY ts_us, id",
						-1, &st, NULL),
					SQLITE_OK);
				sqlite3_bind_int64(st, 1, win[w][0]);
				sqlite3_bind_int64(st, 2, win[w][1]);
				while (sqlite3_step(st) == SQLITE_ROW) {
					if (n >= got.n)
						fail_msg("schema %d, window [%lld, %lld), mode %u: %zu events,"
							 " SQL selects more", version,
							 (long long)win[w][0], (long long)win[w][1],
							 modes[m], got.n);
					if (got.ev[n].ts_us != sqlite3_column_int64(st, 0))
						fail_msg("schema %d, window [%lld, %lld), mode %u: event %zu at"
							 " %lld, SQL's at %lld", version,
							 (long long)win[w][0], (long long)win[w][1],
							 modes[m], n, (long long)got.ev[n].ts_us,
							 (long long)sqlite3_column_int64(st, 0));
					n++;
				}
				sqlite3_finalize(st);
				if (n != got.n)
					fail_msg("schema %d, window [%lld, %lld), mode %u: %zu events, SQL"
						 " selects %zu", version, (long long)win[w][0],
						 (long long)win[w][1], modes[m], got.n, n);
				free(got.ev);
			}
		gl_query_close(q);
		sqlite3_close(db);
	}
	gl_test_rmtree(dir);
}

/*
 * events.packed (lib/store/evpack.h) gives the events the columns give:
 * values of every storage class in the 11 columns it is made of; packed
 * NULL (read by id from the columns), made by gl_ev_pack(), or not a
 * packing (a wrong version, cut short: read from the columns). An UPDATE
 * of one of those columns clears it (the trigger events_packed_stale), and
 * the report then reads the new value; an UPDATE of another column does not.
 */
static void test_events_packed(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_packed");
	/* level, component_id, host_id, kernel_id, dur_us, mem_mb, anomaly,
	 * recovery_attempts, message, error_count, stream_id, exec_ms */
	static const char *const rows[] = {
	    "3, 1, 2, 3, 12.5, 1024, 0, 0, 'Kernel k executed in 12.5us', 0, 1, NULL",
	    "0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL",
	    "6, 9223372036854775807, -5, 0, -0.0, 1e308, 1, 9223372036854775807, 'x', 7, 2, 0.0",
	    "'5', '7', 2.0, '3', '1.5', 3, 2.7, -3, x'4f7065726174696f6e2061', 'x', 1, '2.5'",
	    "4.5, 1, 1, NULL, 9e999, -9e999, -1, 5, 'Operation a done', -7, '2', -0.0",
	    "99, 1, 1, 1, 4e-320, 0.1, 2147483648, 0, 'OPERATION b', 3, 1, 1e-300",
	    "-1, 1, 1, NULL, 1, 2, 1, 1, 42, 1, 1, 7",
	    "x'01', 1, 1, 1, 1, 2, 1, 1, NULL, 1, 1, NULL",
	};
	const size_t nrows = sizeof(rows) / sizeof(rows[0]);
	struct ev_all ref, got;
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 7;"
		   "INSERT INTO names(id, name) VALUES (1, 'k'), (2, 'c'), (3, 'h');"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0),"
		   " (2, 'json', 'g', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(gl_evpack_register(db), SQLITE_OK);
	for (size_t i = 0; i < nrows; i++) {
		char *sql = sqlite3_mprintf("INSERT INTO events (ts_us, " GL_EVPACK_COLUMNS
					    ", metadata, line) VALUES (%d, %s, '{}', 1)",
					    (int)(10 + i / 2), rows[i]);

		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(sql);
	}
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	read_all(q, GL_QUERY_COLUMNS | GL_QUERY_ONE_THREAD, &ref);
	assert_int_equal(ref.n, nrows);
	/* the columns as SQL reads them: a few values checked by hand */
	assert_int_equal(ref.ev[3].level, 5);
	assert_int_equal(ref.ev[3].component_id, 7);
	assert_true(ref.ev[3].dur_us == 1.5 && ref.ev[3].exec_ms == 2.5);
	assert_int_equal(ref.ev[3].recovery_attempts, -1);
	assert_int_equal(ref.ev[4].level, 4);	/* 4.5 read as an integer */
	assert_true(isinf(ref.ev[4].dur_us) && ref.ev[4].dur_us > 0);
	assert_false(signbit(ref.ev[4].exec_ms));	/* -0.0 is stored as the integer 0 */
	assert_int_equal(ref.ev[5].level, 0);
	assert_true(isnan(ref.ev[1].dur_us) && ref.ev[1].error_count == -1);

	static const char *const fills[] = {
	    NULL,						/* left NULL */
	    "UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ")",
	    "UPDATE events SET packed = x'02' || substr(packed, 2)",	/* another version */
	    "UPDATE events SET packed = substr(gl_ev_pack(" GL_EVPACK_COLUMNS "), 1, 5)",
	    "UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ") || x'00'",
	    "UPDATE events SET packed = 'text'",
	};
	for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++) {
		if (fills[f])
			assert_int_equal(sqlite3_exec(db, fills[f], NULL, NULL, NULL), SQLITE_OK);
		/* from the index, and from the table */
		static const unsigned modes[] = {0, GL_QUERY_ONE_THREAD, GL_QUERY_TABLE,
						 GL_QUERY_TABLE | GL_QUERY_ONE_THREAD};

		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			read_all(q, modes[m], &got);
			expect_same_events(&ref, &got, fills[f] ? fills[f] : "packed NULL");
			free(got.ev);
		}
	}
	/* the trigger: a changed column clears packed; dup_of is not in it */
	assert_int_equal(sqlite3_exec(db, "UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ")",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE events SET dup_of = 1 WHERE id = 2;"
					  "UPDATE events SET level = 5 WHERE id = 1;"
					  "UPDATE events SET message = 'Operation z' WHERE id = 3;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT group_concat(id) FROM events WHERE packed IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE packed IS NULL AND id <> 3"),
			 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE packed IS NULL"), 2);
	read_all(q, 0, &got);
	assert_int_equal(got.ev[0].level, 5);
	assert_int_equal(got.ev[1].dup_of, 1);
	assert_int_equal(got.ev[2].message_len, strlen("Operation z"));	/* level 6: handed out */
	free(got.ev);
	free(ref.ev);
	read_all(q, GL_QUERY_COLUMNS, &ref);
	read_all(q, 0, &got);
	expect_same_events(&ref, &got, "after the updates");
	free(got.ev);
	read_all(q, GL_QUERY_TABLE, &got);
	expect_same_events(&ref, &got, "after the updates, from the table");
	free(got.ev);
	free(ref.ev);
	gl_query_close(q);
	sqlite3_close(db);
	unlink(p);
}

/* The times of kernel rows, each checked to be one. */
static int collect_kernel_rows(void *arg, const struct gl_query_event *ev)
{
	struct seen *s = arg;

	assert_int_equal(ev->kernel_id, 1);
	assert_true(ev->dur_us == 2.5);
	assert_int_equal(ev->dup_of, 0);
	if (s->n < 8)
		s->ts[s->n] = ev->ts_us;
	s->n++;
	return 0;
}

/*
 * Kernel rows only (GL_QUERY_KERNELS_ONLY): the originals with a kernel and
 * a duration, whichever way they are read. From the index the statement
 * keeps the originals and the rest is tested on the packing (or, packed
 * NULL, on the columns read by id). Every combination of kernel, duration
 * and mirror, with packed made or NULL; the rows wanted are counted here.
 */
static void test_events_kernels_only(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_konly");
	static const unsigned modes[] = {
	    GL_QUERY_KERNELS_ONLY, GL_QUERY_KERNELS_ONLY | GL_QUERY_ONE_THREAD,
	    GL_QUERY_KERNELS_ONLY | GL_QUERY_TABLE,
	    GL_QUERY_KERNELS_ONLY | GL_QUERY_TABLE | GL_QUERY_ONE_THREAD,
	    GL_QUERY_KERNELS_ONLY | GL_QUERY_COLUMNS,
	    GL_QUERY_KERNELS_ONLY | GL_QUERY_COLUMNS | GL_QUERY_ONE_THREAD};
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;
	int64_t want[64];
	size_t n_want = 0;
	int id = 0;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 7;"
		   "INSERT INTO names(id, name) VALUES (1, 'k');"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(gl_evpack_register(db), SQLITE_OK);
	/* kernel NULL or 1; dur_us NULL or 2.5; an original or a mirror of row 1;
	 * packed made (even rows) or NULL; two rows per time, in reverse id order
	 * of rec_hash */
	for (int k = 0; k < 2; k++)
		for (int d = 0; d < 2; d++)
			for (int m = 0; m < 2; m++)
				for (int pk = 0; pk < 2; pk++) {
					id++;
					char *sql = sqlite3_mprintf(
					    "INSERT INTO events (id, ts_us, level, kernel_id, dur_us,"
					    " dup_of, rec_hash, stream_id, line) VALUES (%d, %d, 3, %s,"
					    " %s, %s, %d, 1, 1);"
					    "UPDATE events SET packed = CASE WHEN %d THEN gl_ev_pack("
					    GL_EVPACK_COLUMNS ") END WHERE id = %d",
					    id, 10 + id / 2, k ? "1" : "NULL", d ? "2.5" : "NULL",
					    m ? "1" : "NULL", 100 - id, pk, id);

					assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL),
							 SQLITE_OK);
					sqlite3_free(sql);
					if (k && d && !m)
						want[n_want++] = id;
				}
	assert_int_equal(n_want, 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events WHERE packed IS NULL"), 8);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct seen got = {0};

		assert_int_equal(gl_query_events(q, 0, 1000, modes[i], collect_kernel_rows, &got,
						 &err),
				 GL_OK);
		assert_int_equal(got.n, n_want);
		for (size_t j = 0; j < n_want; j++)
			assert_int_equal(got.ts[j], 10 + want[j] / 2);
	}
	gl_query_close(q);
	sqlite3_close(db);
	unlink(p);
}

/* The plan of each statement: what is read from the index alone. */
static void expect_plan(sqlite3 *db, const char *sql, bool covering)
{
	sqlite3_stmt *st;
	char *x = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	char plan[1024] = "";

	assert_int_equal(sqlite3_prepare_v2(db, x, -1, &st, NULL), SQLITE_OK);
	sqlite3_free(x);
	while (sqlite3_step(st) == SQLITE_ROW) {
		strncat(plan, (const char *)sqlite3_column_text(st, 3),
			sizeof(plan) - strlen(plan) - 2);
		strcat(plan, ";");
	}
	sqlite3_finalize(st);
	if (!strstr(plan, "USING INDEX events_ts") && !strstr(plan, "USING COVERING INDEX events_ts"))
		fail_msg("not through events_ts: %s (%s)", plan, sql);
	if (covering != (strstr(plan, "USING COVERING INDEX events_ts") != NULL))
		fail_msg("covering %d expected: %s (%s)", covering, plan, sql);
	if (strstr(plan, "TEMP B-TREE"))
		fail_msg("sorts: %s (%s)", plan, sql);
}

/*
 * Schema 7: a snapshot without a trace stream is read from events_ts alone
 * (all rows, and kernel rows); with one, or asked to (GL_QUERY_TABLE,
 * GL_QUERY_COLUMNS), or over the index of schema 6 (ts_us, rec_hash), the
 * table is read too. No statement sorts.
 */
static void test_events_index_plan(void **state)
{
	(void)state;
	const char *p = tmp_db("test_query_plan");
	struct gl_query *q;
	struct gl_err err;
	sqlite3 *db;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 7;");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	expect_plan(db, gl_query_events_sql(q, 0, false), true);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_ONE_THREAD, false), true);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_KERNELS_ONLY, false), true);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_KERNELS_ONLY, true), true);
	expect_plan(db, gl_query_events_sql(q, 0, true), false);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_TABLE, false), false);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_TABLE | GL_QUERY_KERNELS_ONLY, false),
		    false);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_COLUMNS, false), false);
	gl_query_close(q);
	/* the index of schema 6 */
	assert_int_equal(sqlite3_exec(db, "DROP INDEX events_ts;"
					  "CREATE INDEX events_ts ON events (ts_us, rec_hash);"
					  "PRAGMA user_version = 6;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	expect_plan(db, gl_query_events_sql(q, 0, false), false);
	expect_plan(db, gl_query_events_sql(q, GL_QUERY_KERNELS_ONLY, false), false);
	gl_query_close(q);
	sqlite3_close(db);
	unlink(p);
}

static bool exists(const char *dir, const char *name)
{
	char p[600];
	struct stat sb;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &sb) == 0;
}

/* A gpulog database in WAL mode, three events, closed cleanly (no -wal). */
static void make_wal_db(const char *p)
{
	sqlite3 *db;

	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 7;"
		   "PRAGMA journal_mode = WAL;"
		   "INSERT INTO streams (id, first_path, bytes, lines, hash, head_bytes, head_hash)"
		   " VALUES (1, 'x', 0, 0, 0, 0, 0);"
		   "INSERT INTO events (ts_us, stream_id, line) VALUES (1, 1, 1), (2, 1, 2), (3, 1, 3);");
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events"), 3);
	sqlite3_close(db);
}

/* A child running as nobody; the parent's ends of the pipes to it. */
struct kid {
	pid_t pid;
	int from;	/* 'o' when connected, EOF when it ended */
	int to;		/* closing it lets the child end */
};

/*
 * gl_query_connect() on p as nobody must give want. On GL_OK the child
 * counts the events (3), checks it cannot write, writes 'o' and waits for
 * the parent to close its end before it closes the connection and exits; on failure
 * err.cause must contain cause. Exit status 0 when all held.
 */
static struct kid connect_as_nobody(const char *p, int want, const char *cause)
{
	const struct passwd *pw = getpwnam("nobody");
	int up[2], down[2];
	struct kid k;

	assert_non_null(pw);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	k.pid = fork();
	assert_true(k.pid >= 0);
	if (k.pid == 0) {
		struct gl_err err = {0};
		sqlite3 *db = NULL;
		sqlite3_stmt *st;
		char c;
		int rc;

		close(up[0]);
		close(down[1]);
		if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
			_exit(10);
		rc = gl_query_connect(p, &db, &err);
		if (rc != want)
			_exit(11);
		if (rc != GL_OK) {
			sqlite3_close(db);
			_exit(cause && strstr(err.cause, cause) ? 0 : 12);
		}
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM events", -1, &st, NULL) !=
			    SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 0) != 3)
			_exit(13);
		sqlite3_finalize(st);
		if (sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL) == SQLITE_OK)
			_exit(14);	/* a reader never writes */
		if (write(up[1], "o", 1) != 1 || read(down[0], &c, 1) < 0)	/* 0: closed */
			_exit(15);
		sqlite3_close(db);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	k.from = up[0];
	k.to = down[1];
	return k;
}

static void expect_kid(struct kid k)
{
	int status;

	close(k.to);
	assert_int_equal(waitpid(k.pid, &status, 0), k.pid);
	close(k.from);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void expect_connected(struct kid k)
{
	char c;

	if (read(k.from, &c, 1) != 1)
		expect_kid(k);	/* fails with its status */
	assert_int_equal(c, 'o');
}

static void expect_child(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_connect(void **state)
{
	char dir[256], p[300];
	struct gl_err err;
	sqlite3 *db;

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "connect");
	snprintf(p, sizeof(p), "%s/g.db", dir);
	make_wal_db(p);
	assert_false(exists(dir, "g.db-wal"));

	/* Read-write with query_only: nothing is left beside the database,
	 * and nothing can be written through it. */
	assert_int_equal(gl_query_connect(p, &db, &err), GL_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events"), 3);
	assert_true(exists(dir, "g.db-shm"));
	assert_int_not_equal(sqlite3_exec(db, "DELETE FROM events", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_false(exists(dir, "g.db-wal"));
	assert_false(exists(dir, "g.db-shm"));

	if (geteuid() != 0) {
		gl_test_rmtree(dir);
		printf("skipped: the reads as another user need root (to become nobody)\n");
		skip();
	}
	/* nobody, who can write neither the file nor the directory, and no
	 * -shm to share: immutable, under a shared lock an ingest waits for. */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(p, 0644), 0);
	struct kid k = connect_as_nobody(p, GL_OK, NULL);
	pid_t pid;

	expect_connected(k);
	{
		int fd = open(p, O_RDONLY);

		assert_true(fd >= 0);
		assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);	/* store.c take_lock */
		assert_int_equal(errno, EWOULDBLOCK);
		assert_false(exists(dir, "g.db-shm"));
		expect_kid(k);
		assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);	/* gone with the process */
		close(fd);
	}

	/* A -shm that is there is shared (read-only), not bypassed: a root
	 * reader holds it open while nobody reads. */
	assert_int_equal(gl_query_connect(p, &db, &err), GL_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM events"), 3);
	k = connect_as_nobody(p, GL_OK, NULL);
	expect_connected(k);
	{
		int fd = open(p, O_RDONLY);

		assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);	/* no lock taken */
		close(fd);
	}
	expect_kid(k);
	sqlite3_close(db);

	/* A -wal with committed changes and no -shm: immutable would miss
	 * them, so nobody is told what to do instead. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *w;

		if (sqlite3_open(p, &w) != SQLITE_OK ||
		    sqlite3_exec(w, "PRAGMA wal_autocheckpoint = 0;"
				    "INSERT INTO events (ts_us, stream_id, line) VALUES (4, 1, 4)",
				 NULL, NULL, NULL) != SQLITE_OK)
			_exit(1);
		_exit(0);	/* killed, as it were: no checkpoint at close */
	}
	expect_child(pid);
	assert_true(exists(dir, "g.db-wal"));
	snprintf(p + strlen(p), 8, "-shm");
	assert_int_equal(unlink(p), 0);
	p[strlen(p) - 4] = '\0';
	expect_kid(connect_as_nobody(p, GL_EIO, "its -wal file holds changes"));
	gl_test_rmtree(dir);
}

struct kind_seen {
	int alerts, groups;
	int64_t last_ts_us;
	char metric[32];
	double value, threshold;
	uint64_t requests, failed;
};

static int on_alert(void *arg, const struct gl_query_log_alert *a)
{
	struct kind_seen *k = arg;

	k->alerts++;
	k->last_ts_us = a->ts_us;
	snprintf(k->metric, sizeof(k->metric), "%s", a->metric ? a->metric : "-");
	k->value = a->value;
	k->threshold = a->threshold;
	return 0;
}

static int on_access(void *arg, const struct gl_query_access *a)
{
	struct kind_seen *k = arg;

	k->groups++;
	k->requests += a->requests;
	k->failed += a->failed;
	return 0;
}

/*
 * Alerts and access lines are found by their kind (events.kind), whatever
 * the stream's format (here 'json', which never wrote them), and only when
 * event_kinds lists the kind: without it the window is not read. Rows: id
 * 1 an alert at 100 (metric m, value 3, threshold 10), 2 an alert at 900
 * (outside [0, 500)), 3-5 access lines answered (3, 4) or failed (5), 6 a
 * log line whose text is an access line's (kind 0: not counted), 7 a
 * mirror of 5 (dup_of: left out).
 */
static void test_kinds(void **state)
{
	(void)state;
	char dir[256], p[300];
	struct gl_query *q;
	struct gl_err err;
	struct kind_seen k = {0};
	sqlite3 *db;

	gl_test_mkdtemp(dir, sizeof(dir), "query_kinds");
	snprintf(p, sizeof(p), "%s/db", dir);
	make_db(p, "PRAGMA application_id = 1735420007; PRAGMA user_version = 8;"
		   "INSERT INTO streams(id, format, first_path, bytes, lines, hash, head_bytes,"
		   " head_hash) VALUES (1, 'json', 'f', 0, 0, 0, 0, 0);"
		   "INSERT INTO events(id, ts_us, level, message, metadata, stream_id, line, kind)"
		   " VALUES (1, 100, 4, 'cpu high', '{\"metric\":\"m\",\"severity\":\"warning\","
		   "\"threshold\":10,\"value\":3}', 1, 1, 2),"
		   " (2, 900, 4, 'late', '{\"severity\":\"warning\"}', 1, 2, 2),"
		   " (3, 200, 3, 'a', NULL, 1, 3, 3), (4, 210, 3, 'b', NULL, 1, 4, 3),"
		   " (5, 220, 3, 'c', NULL, 1, 5, 4),"
		   " (6, 230, 3, '1.2.3.4:5 - \"POST /v1/x HTTP/1.1\" 500 x', NULL, 1, 6, 0);"
		   "INSERT INTO events(id, ts_us, level, message, stream_id, line, kind, dup_of)"
		   " VALUES (7, 220, 3, 'c', 1, 7, 4, 5);");
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_log_alerts(q, 0, 500, on_alert, &k, &err), GL_OK);
	assert_int_equal(gl_query_access_requests(q, 0, 500, on_access, &k, &err), GL_OK);
	assert_int_equal(k.alerts + k.groups, 0);	/* event_kinds lists none */
	gl_query_close(q);

	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO event_kinds VALUES (0), (2), (3), (4)", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
	assert_int_equal(gl_query_log_alerts(q, 0, 500, on_alert, &k, &err), GL_OK);
	assert_int_equal(k.alerts, 1);
	assert_true(k.last_ts_us == 100);
	assert_string_equal(k.metric, "m");
	assert_true(k.value == 3 && k.threshold == 10);
	assert_int_equal(gl_query_access_requests(q, 0, 500, on_access, &k, &err), GL_OK);
	assert_int_equal(k.groups, 1);
	assert_int_equal(k.requests, 3);
	assert_int_equal(k.failed, 1);
	gl_query_close(q);
	gl_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_window_end),
		cmocka_unit_test(test_kernel_samples),
		cmocka_unit_test(test_events_same_time_by_id),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_samples_piped),
		cmocka_unit_test(test_events_blocks),
		cmocka_unit_test(test_events_sliced_uneven),
		cmocka_unit_test(test_events_one_snapshot),
		cmocka_unit_test(test_events_text_columns),
		cmocka_unit_test(test_events_warn_index),
		cmocka_unit_test(test_events_read_error),
		cmocka_unit_test(test_events_packed),
		cmocka_unit_test(test_events_kernels_only),
		cmocka_unit_test(test_events_index_plan),
		cmocka_unit_test(test_reject_counts),
		cmocka_unit_test(test_connect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
