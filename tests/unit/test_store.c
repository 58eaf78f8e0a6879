/*
 * Tests for lib/store/store.c: creating a database (header, pragmas, every
 * object of share/schema.sql), refusing files that are not ours without
 * changing a byte, refusing newer databases, the writer lock across
 * processes, writing batches (values read back with sqlite3 directly,
 * names interned once, NaN and absent counts as NULL), transactions, and
 * loading the ingest state back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/evpack.h"
#include "store/store.h"
#include "util/hash.h"
#include "support/tmpdir.h"

static char dir[256];
static char db[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "store");
	snprintf(db, sizeof(db), "%s/gpulog.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_test_rmtree(dir);
	return 0;
}

/* --- reading the database with SQLite directly ---------------------- */

static sqlite3 *ro_open(const char *path)
{
	sqlite3 *h = NULL;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("cannot open %s: %s", path, h ? sqlite3_errmsg(h) : "?");
	return h;
}

/* Runs sql (one row expected) and copies column 0 out. */
static sqlite3_stmt *row(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	return s;
}

static int64_t qi(const char *sql)
{
	sqlite3 *h = ro_open(db);
	sqlite3_stmt *s = row(h, sql);
	int64_t v;

	if (sqlite3_column_type(s, 0) == SQLITE_NULL)
		fail_msg("%s: NULL", sql);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(h);
	return v;
}

static double qd(const char *sql)
{
	sqlite3 *h = ro_open(db);
	sqlite3_stmt *s = row(h, sql);
	double v;

	if (sqlite3_column_type(s, 0) != SQLITE_FLOAT)
		fail_msg("%s: not a REAL", sql);
	v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(h);
	return v;
}

static int qnull(const char *sql)
{
	sqlite3 *h = ro_open(db);
	sqlite3_stmt *s = row(h, sql);
	int v = sqlite3_column_type(s, 0) == SQLITE_NULL;

	sqlite3_finalize(s);
	sqlite3_close(h);
	return v;
}

static void qs_equal(const char *sql, const char *want)
{
	sqlite3 *h = ro_open(db);
	sqlite3_stmt *s = row(h, sql);
	const char *got = (const char *)sqlite3_column_text(s, 0);

	if (!got || strcmp(got, want) != 0)
		fail_msg("%s: '%s', want '%s'", sql, got ? got : "(NULL)", want);
	sqlite3_finalize(s);
	sqlite3_close(h);
}

/* Runs statements on a file with a read-write connection of "another program". */
static void exec_rw(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	char *msg = NULL;

	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		fail_msg("cannot open %s", path);
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg ? msg : "?");
	sqlite3_close(h);
}

static int exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static struct gl_store *open_ok(void)
{
	struct gl_store *st = NULL;
	struct gl_err err;
	int rc = gl_store_open(&st, db, 1, NULL, NULL, &err);

	if (rc != GL_OK) {
		char buf[2048];

		fail_msg("gl_store_open: %s", gl_err_format(&err, buf, sizeof(buf)));
	}
	assert_non_null(st);
	return st;
}

/* --- creation -------------------------------------------------------- */

/* The objects share/schema.sql creates, read from the file itself. */
static size_t schema_objects(char names[][64], char types[][8], size_t max)
{
	size_t len, n = 0;
	unsigned char *text = gl_test_read("share/schema.sql", &len);
	char *p, *line;

	text = realloc(text, len + 1);
	assert_non_null(text);
	text[len] = '\0';
	for (line = (char *)text; line && *line; line = p ? p + 1 : NULL) {
		static const char *const kinds[][2] = {
			{"CREATE TABLE ", "table"}, {"CREATE VIEW ", "view"}, {"CREATE INDEX ", "index"},
		};

		p = strchr(line, '\n');
		for (size_t k = 0; k < 3; k++) {
			size_t kl = strlen(kinds[k][0]), i = 0;

			if (strncmp(line, kinds[k][0], kl) != 0)
				continue;
			assert_true(n < max);
			while (line[kl + i] == '_' || (line[kl + i] >= 'a' && line[kl + i] <= 'z') ||
			       (i > 0 && line[kl + i] >= '0' && line[kl + i] <= '9'))
				i++;
			assert_true(i > 0 && i < 64);
			memcpy(names[n], line + kl, i);
			names[n][i] = '\0';
			snprintf(types[n], 8, "%s", kinds[k][1]);
			n++;
		}
	}
	free(text);
	return n;
}

static void test_create(void **state)
{
	struct gl_store *st;
	char names[64][64], types[64][8];
	size_t n, tables = 0;
	char wal[PATH_MAX + 8];

	(void)state;
	st = open_ok();
	gl_store_close(st);
	assert_int_equal(qi("PRAGMA application_id"), 1735420007);
	assert_int_equal(qi("PRAGMA application_id"), 0x67706867);
	assert_int_equal(qi("PRAGMA user_version"), GL_SCHEMA_VERSION);
	qs_equal("PRAGMA journal_mode", "wal");
	/* the header bytes themselves: "SQLite format 3\0", application id at 68 */
	{
		size_t len;
		unsigned char *b = gl_test_read(db, &len);

		assert_true(len >= 100);
		assert_memory_equal(b, "SQLite format 3", 16);
		/* 1735420007 = 0x67706867, big-endian */
		assert_memory_equal(b + 68, "\x67\x70\x68\x67", 4);
		free(b);
	}
	n = schema_objects(names, types, 64);
	for (size_t i = 0; i < n; i++) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master WHERE type = '%s' AND name = '%s'",
			 types[i], names[i]);
		if (qi(sql) != 1)
			fail_msg("%s %s missing", types[i], names[i]);
		tables += strcmp(types[i], "table") == 0;
	}
	/* counted by hand in share/schema.sql: names levels runs streams
	 * checkpoints stream_lines paths files events event_kinds operations
	 * mem_events series sample_blocks sample_stage sample_merge spans
	 * rejects */
	assert_int_equal(tables, 18);
	assert_int_equal(qi("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 18);
	assert_int_equal(qi("SELECT count(*) FROM levels"), 7);
	qs_equal("SELECT name FROM levels WHERE id = 4", "WARN");
	assert_int_equal(qi("SELECT count(*) FROM events"), 0);
	/* the WAL is folded back on close */
	snprintf(wal, sizeof(wal), "%s-wal", db);
	if (exists(wal)) {
		struct stat sb;

		assert_int_equal(stat(wal, &sb), 0);
		assert_int_equal(sb.st_size, 0);
	}

	/* opening again works and creates nothing twice */
	st = open_ok();
	gl_store_close(st);
	assert_int_equal(qi("SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 18);
	assert_int_equal(qi("SELECT count(*) FROM levels"), 7);
	assert_int_equal(qi("PRAGMA user_version"), GL_SCHEMA_VERSION);
	gl_store_close(NULL);
}

static void test_create_in_empty_file(void **state)
{
	struct gl_store *st;

	(void)state;
	gl_test_write(db, "", 0);
	st = open_ok();
	gl_store_close(st);
	assert_int_equal(qi("PRAGMA application_id"), 1735420007);
	assert_int_equal(qi("SELECT count(*) FROM levels"), 7);
}

static void test_open_bad_paths(void **state)
{
	struct gl_store *st = (struct gl_store *)&st;
	struct gl_err err;
	char p[PATH_MAX + 32];

	(void)state;
	/* a directory */
	assert_int_equal(gl_store_open(&st, dir, 1, NULL, NULL, &err), GL_EIO);
	assert_null(st);
	assert_int_equal(err.code, GL_EIO);
	assert_string_equal(err.path, dir);
	/* in a directory that does not exist */
	snprintf(p, sizeof(p), "%s/no/such/gpulog.db", dir);
	assert_int_equal(gl_store_open(&st, p, 1, NULL, NULL, &err), GL_EIO);
	assert_string_equal(err.cause, strerror(ENOENT));
	assert_false(exists(p));
}

/* --- refusing files that are not ours -------------------------------- */

static void expect_refused(const char *path, int code)
{
	struct gl_store *st = NULL;
	struct gl_err err;
	size_t n0, n1;
	unsigned char *before = gl_test_read(path, &n0), *after;
	struct stat sb0, sb1;
	char side[PATH_MAX + 16];

	assert_int_equal(stat(path, &sb0), 0);
	assert_int_equal(gl_store_open(&st, path, 1, NULL, NULL, &err), code);
	assert_null(st);
	assert_int_equal(err.code, code);
	assert_string_equal(err.path, path);
	assert_string_equal(err.msg, "refusing database");
	after = gl_test_read(path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	assert_int_equal(stat(path, &sb1), 0);
	assert_true(sb0.st_mtim.tv_sec == sb1.st_mtim.tv_sec &&
		    sb0.st_mtim.tv_nsec == sb1.st_mtim.tv_nsec);
	/* no journal or WAL left beside it */
	snprintf(side, sizeof(side), "%s-wal", path);
	assert_false(exists(side));
	snprintf(side, sizeof(side), "%s-journal", path);
	assert_false(exists(side));
	free(before);
	free(after);
}

static void test_refuse_text(void **state)
{
	char text[4096];
	size_t k = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		k += (size_t)snprintf(text + k, sizeof(text) - k,
				      "2025-11-06 00:45:%02d,618 - performance_monitor - INFO - ok\n", i);
	gl_test_write(db, text, k);
	expect_refused(db, GL_ENOTGPULOG);
	/* short files too */
	gl_test_write(db, "x\n", 2);
	expect_refused(db, GL_ENOTGPULOG);
	/* the SQLite magic alone, cut short */
	gl_test_write(db, "SQLite format 3", 16);
	expect_refused(db, GL_ENOTGPULOG);
}

static void test_refuse_png(void **state)
{
	/* signature, IHDR of a 1x1 grey image, IDAT, IEND */
	static const unsigned char png[] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
		0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0,
		0x3a, 0x7e, 0x9b, 0x55,
		0, 0, 0, 10, 'I', 'D', 'A', 'T', 0x78, 0x9c, 0x63, 0x60, 0, 0, 0, 2, 0, 1,
		0xe5, 0x27, 0xde, 0xfc,
		0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82,
		/* padding past the 100 bytes of an SQLite header */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};

	(void)state;
	assert_true(sizeof(png) >= 100);
	gl_test_write(db, png, sizeof(png));
	expect_refused(db, GL_ENOTGPULOG);
}

static void test_refuse_other_sqlite(void **state)
{
	(void)state;
	exec_rw(db, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);"
		    "INSERT INTO moz_places (url) VALUES ('https://example.org/'), ('about:blank');");
	expect_refused(db, GL_ENOTGPULOG);
	/* one in WAL mode */
	gl_test_rmtree(dir);
	gl_test_mkdtemp(dir, sizeof(dir), "store");
	snprintf(db, sizeof(db), "%s/gpulog.db", dir);
	exec_rw(db, "PRAGMA journal_mode=WAL; CREATE TABLE t (a); INSERT INTO t VALUES (1);");
	expect_refused(db, GL_ENOTGPULOG);
	/* another program's id */
	gl_test_rmtree(dir);
	gl_test_mkdtemp(dir, sizeof(dir), "store");
	snprintf(db, sizeof(db), "%s/gpulog.db", dir);
	exec_rw(db, "PRAGMA application_id = 1234; CREATE TABLE t (a);");
	expect_refused(db, GL_ENOTGPULOG);
}

static void test_refuse_incomplete(void **state)
{
	(void)state;
	/* our id but schema version 0: a creation that never finished */
	exec_rw(db, "PRAGMA application_id = 1735420007; CREATE TABLE t (a);");
	expect_refused(db, GL_ENOTGPULOG);
}

static void test_refuse_newer(void **state)
{
	struct gl_store *st;

	(void)state;
	st = open_ok();
	gl_store_close(st);
	exec_rw(db, "PRAGMA user_version = 99;");
	assert_int_equal(qi("PRAGMA user_version"), 99);
	expect_refused(db, GL_ENEWER);
	assert_int_equal(qi("PRAGMA user_version"), 99);
}

/* --- the writer lock -------------------------------------------------- */

/* In a child: open with nowait; 0 when refused as busy, 10 when let in. */
static int child_open_nowait(void)
{
	struct gl_store *st = NULL;
	struct gl_err err;
	int rc = gl_store_open(&st, db, 1, NULL, NULL, &err);

	if (rc == GL_OK)
		gl_store_close(st);
	if (rc == GL_EBUSY)
		return err.code == GL_EBUSY && strcmp(err.msg, "database busy") == 0 ? 0 : 2;
	return rc == GL_OK ? 10 : 20;
}

static int wait_pipe[2];

static void on_waiting(void *arg, const struct gl_err *e)
{
	char c = 'w';

	(void)arg;
	if (e->code != GL_EBUSY || strcmp(e->msg, "waiting for database") != 0)
		_exit(31);
	if (write(wait_pipe[1], &c, 1) != 1)
		_exit(30);
}

/* In a child: open and wait; tell the parent through wait_pipe. */
static int child_open_wait(void)
{
	struct gl_store *st = NULL;
	struct gl_err err;
	int rc = gl_store_open(&st, db, 0, on_waiting, NULL, &err);

	if (rc != GL_OK)
		return 40;
	gl_store_close(st);
	return 0;
}

/*
 * Forks a child that runs fn once the parent writes to *go. The child is
 * forked before the parent opens the store: a child forked after it would
 * inherit the parent's descriptor, and with it the lock.
 */
static pid_t spawn(int (*fn)(void), int *go)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		alarm(30);
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(50);
		_exit(fn());
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void go(int fd)
{
	assert_int_equal(write(fd, "g", 1), 1);
	close(fd);
}

static int reap(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("child status %#x (signal %d)", status, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

static void test_lock_other_process(void **state)
{
	struct gl_store *st;
	int g1, g2;
	pid_t c1, c2;

	(void)state;
	c1 = spawn(child_open_nowait, &g1);
	c2 = spawn(child_open_nowait, &g2);
	st = open_ok();
	/* another process is refused while st is open ... */
	go(g1);
	assert_int_equal(reap(c1), 0);
	gl_store_close(st);
	/* ... and let in once it is closed */
	go(g2);
	assert_int_equal(reap(c2), 10);
}

static void test_lock_wait(void **state)
{
	struct gl_store *st;
	struct pollfd pfd;
	pid_t pid;
	int status, g;
	char c;

	(void)state;
	assert_int_equal(pipe(wait_pipe), 0);
	pid = spawn(child_open_wait, &g);
	close(wait_pipe[1]);
	st = open_ok();
	go(g);
	/* the child says it waits ... */
	pfd.fd = wait_pipe[0];
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 20000), 1);
	assert_int_equal(read(wait_pipe[0], &c, 1), 1);
	assert_int_equal(c, 'w');
	/* ... and is still waiting a moment later */
	usleep(200 * 1000);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	gl_store_close(st);
	/* released: the child gets the database */
	assert_int_equal(reap(pid), 0);
	close(wait_pipe[0]);
}

/*
 * flock() locks belong to an open file description, so a second open in
 * the same process (a new descriptor) conflicts too.
 */
static void test_lock_same_process(void **state)
{
	struct gl_store *st, *st2 = NULL;
	struct gl_err err;

	(void)state;
	st = open_ok();
	assert_int_equal(gl_store_open(&st2, db, 1, NULL, NULL, &err), GL_EBUSY);
	assert_null(st2);
	assert_int_equal(err.code, GL_EBUSY);
	/* the refused open left the first one working */
	{
		struct gl_batch *b = gl_batch_new();
		struct gl_bev *e;

		assert_non_null(b);
		e = &b->ev[b->nev++];
		memset(e, 0, sizeof(*e));	/* no path, no file: batch rows are not zeroed */
		gl_event_init(&e->ev);
		e->stream_id = 1;
		e->line = 1;
		assert_int_equal(gl_store_put(st, b, 0, NULL, &err), GL_OK);
		gl_batch_free(b);
	}
	gl_store_close(st);
	assert_int_equal(qi("SELECT count(*) FROM events"), 1);
	st2 = open_ok();
	gl_store_close(st2);
}

/* --- writing batches -------------------------------------------------- */

static struct gl_str S(struct gl_batch *b, const char *s)
{
	return gl_batch_str(b, (struct gl_str){s, strlen(s)});
}

static struct gl_bop *op(struct gl_batch *b, enum gl_bop_kind kind)
{
	struct gl_bop *o = &b->op[b->nop++];

	memset(o, 0, sizeof(*o));
	o->kind = kind;
	return o;
}

static void add_stream_op(struct gl_batch *b, int64_t id, const char *comp, const char *first,
			  struct gl_pos pos, int64_t run)
{
	struct gl_bop *o = op(b, GL_BOP_STREAM);

	o->u.stream.id = id;
	o->u.stream.format = "json";
	o->u.stream.component = S(b, comp);
	o->u.stream.first_path = first ? S(b, first) : (struct gl_str){NULL, 0};
	o->u.stream.pos = pos;
	o->u.stream.head = pos;
	o->u.stream.created_run = run;
}

static void add_file_op(struct gl_batch *b, int64_t id, const char *path, int64_t stream_id)
{
	struct gl_bop *o = op(b, GL_BOP_FILE);

	o->u.file.id = id;
	o->u.file.path = S(b, path);
	o->u.file.dev = 2049;
	o->u.file.ino = 500 + id;
	o->u.file.size = 300;
	o->u.file.mtime_ns = 1757428222123456789LL;
	o->u.file.raw_head_hash = UINT64_MAX;
	o->u.file.stream_id = stream_id;
	o->u.file.consumed = 300;
	o->u.file.has_tail = 1;
	o->u.file.tail_hash = 42;
	o->u.file.status = "read";
}

static struct gl_bev *add_event(struct gl_batch *b, const char *comp, const char *msg, uint64_t line)
{
	struct gl_bev *e = &b->ev[b->nev++];

	memset(e, 0, sizeof(*e));
	gl_event_init(&e->ev);
	if (comp)
		e->ev.component = S(b, comp);
	if (msg)
		e->ev.message = S(b, msg);
	e->stream_id = 1;
	e->file_id = 1;
	e->line = line;
	return e;
}

#define HASH1 0xdeadbeefcafef00dULL	/* high bit set: stored as a negative integer */
#define TS0 1757428222123456LL		/* 2025-09-09T14:30:22.123456Z */

/* One stream, one file, a checkpoint, three events, two memory events, one reject. */
static void fill_first_batch(struct gl_batch *b, int64_t run)
{
	struct gl_bev *e;
	static char excerpt[1024];

	add_stream_op(b, 1, "gpu", "/logs/gpu.log", (struct gl_pos){300, 3, HASH1}, run);
	add_file_op(b, 1, "/logs/gpu.log", 1);
	struct gl_bop *cp = op(b, GL_BOP_CHECKPOINT);

	cp->u.cp.stream_id = 1;
	cp->u.cp.pos = (struct gl_pos){300, 3, HASH1};

	e = add_event(b, "gpu", "Kernel force_pass_kernel executed in 620.16us", 1);
	e->ev.ts_us = TS0;
	e->ev.level = GL_LEVEL_INFO;
	e->ev.kernel = S(b, "force_pass_kernel");
	e->ev.metadata = S(b, "{\"device\": 0, \"grid\": [128, 1, 1]}");
	e->ev.dur_us = 620.16;
	e->ev.exec_ms = 0.62016;
	e->ev.mem_mb = 2520.5;
	e->ev.util_pct = 65.0;
	e->ev.error_count = 0;
	e->ev.anomaly = 0;

	/* everything absent but an empty message */
	e = add_event(b, "gpu", "", 2);
	e->ev.kernel = S(b, "force_pass_kernel");

	e = add_event(b, "server", "cuBLAS handle creation failed", 3);
	e->ev.ts_us = -1;	/* 1969-12-31T23:59:59.999999Z is a time like any other */
	e->ev.level = GL_LEVEL_ERROR;
	e->ev.error_count = 3;
	e->ev.recovery_attempts = 1;
	e->ev.anomaly = 1;
	e->file_id = 0;

	struct gl_bmem *m = &b->mem[b->nmem++];

	memset(m, 0, sizeof(*m));
	m->m = (struct gl_memev){TS0 + 1, 48211, GL_MEM_ALLOC, 0x7f3a2c000000ULL, 1024,
				 0x55d0c1a3e2f0ULL};
	m->stream_id = 1;
	m->file_id = 1;
	m->line = 2;
	m = &b->mem[b->nmem++];
	memset(m, 0, sizeof(*m));
	m->m = (struct gl_memev){TS0 + 2, 48219, GL_MEM_ALLOC_FAIL, 0, 34359738368LL,
				 0xffff800000000000ULL};
	m->stream_id = 1;
	m->file_id = 1;
	m->line = 3;

	struct gl_brej *r = &b->rej[b->nrej++];

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < sizeof(excerpt); i++)
		excerpt[i] = (char)('a' + i % 26);
	excerpt[10] = '\0';	/* binary junk stays as it was */
	r->ts_us = TS0;	/* the record before it */
	r->stream_id = 1;
	r->file_id = 1;
	r->line = 4;
	r->offset = 300;
	r->length = 5000;
	r->reason = S(b, "truncated JSON");
	r->excerpt = gl_batch_str(b, (struct gl_str){excerpt, sizeof(excerpt)});
}

static void put_ok(struct gl_store *st, struct gl_batch *b, int64_t run, const char *host)
{
	struct gl_err err;

	if (gl_store_put(st, b, run, host, &err) != GL_OK) {
		char buf[2048];

		fail_msg("gl_store_put: %s", gl_err_format(&err, buf, sizeof(buf)));
	}
}

static void test_put_rows(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, "node1", &run, &err), GL_OK);
	assert_int_equal(run, 1);
	fill_first_batch(b, run);
	put_ok(st, b, run, "node1");

	assert_int_equal(qi("SELECT count(*) FROM events"), 3);
	assert_int_equal(qi("SELECT count(*) FROM mem_events"), 2);
	assert_int_equal(qi("SELECT count(*) FROM rejects"), 1);
	assert_int_equal(qi("SELECT count(*) FROM streams"), 1);
	assert_int_equal(qi("SELECT count(*) FROM files"), 1);
	assert_int_equal(qi("SELECT count(*) FROM checkpoints"), 1);
	/* names: gpu, server, force_pass_kernel, node1; each once */
	assert_int_equal(qi("SELECT count(*) FROM names"), 4);
	assert_int_equal(qi("SELECT count(DISTINCT name) FROM names"), 4);
	assert_int_equal(qi("SELECT count(*) FROM names WHERE name IN"
			    " ('gpu', 'server', 'force_pass_kernel', 'node1')"), 4);

	/* event 1: every field */
	assert_true(qi("SELECT ts_us FROM events WHERE line = 1") == TS0);
	assert_int_equal(qi("SELECT level FROM events WHERE line = 1"), 3);
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.component_id WHERE line = 1", "gpu");
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.host_id WHERE line = 1", "node1");
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.kernel_id WHERE line = 1",
		 "force_pass_kernel");
	assert_true(qd("SELECT dur_us FROM events WHERE line = 1") == 620.16);
	assert_true(qd("SELECT exec_ms FROM events WHERE line = 1") == 0.62016);
	assert_true(qd("SELECT mem_mb FROM events WHERE line = 1") == 2520.5);
	assert_true(qd("SELECT util_pct FROM events WHERE line = 1") == 65.0);
	assert_true(qnull("SELECT alloc_mb FROM events WHERE line = 1"));
	assert_true(qnull("SELECT peak_mb FROM events WHERE line = 1"));
	assert_int_equal(qi("SELECT error_count FROM events WHERE line = 1"), 0);
	assert_true(qnull("SELECT recovery_attempts FROM events WHERE line = 1"));
	assert_int_equal(qi("SELECT anomaly FROM events WHERE line = 1"), 0);
	qs_equal("SELECT message FROM events WHERE line = 1",
		 "Kernel force_pass_kernel executed in 620.16us");
	qs_equal("SELECT metadata FROM events WHERE line = 1", "{\"device\": 0, \"grid\": [128, 1, 1]}");
	assert_int_equal(qi("SELECT stream_id FROM events WHERE line = 1"), 1);
	assert_int_equal(qi("SELECT file_id FROM events WHERE line = 1"), 1);
	qs_equal("SELECT time FROM v_events WHERE line = 1", "2025-09-09T14:30:22.123Z");

	/* event 2: absent is NULL; the empty message is '' */
	assert_true(qnull("SELECT ts_us FROM events WHERE line = 2"));
	assert_int_equal(qi("SELECT level FROM events WHERE line = 2"), 0);
	qs_equal("SELECT typeof(message) || ':' || message FROM events WHERE line = 2", "text:");
	assert_true(qnull("SELECT metadata FROM events WHERE line = 2"));
	assert_int_equal(qi("SELECT count(*) FROM events WHERE line = 2 AND dur_us IS NULL AND"
			    " exec_ms IS NULL AND mem_mb IS NULL AND alloc_mb IS NULL AND"
			    " peak_mb IS NULL AND util_pct IS NULL AND error_count IS NULL AND"
			    " recovery_attempts IS NULL AND anomaly IS NULL"), 1);
	/* the kernel name of events 1 and 2 is one row */
	assert_int_equal(qi("SELECT count(DISTINCT kernel_id) FROM events WHERE line IN (1, 2)"), 1);

	/* event 3 */
	assert_int_equal(qi("SELECT ts_us FROM events WHERE line = 3"), -1);
	assert_int_equal(qi("SELECT level FROM events WHERE line = 3"), 5);
	assert_true(qnull("SELECT kernel_id FROM events WHERE line = 3"));
	assert_true(qnull("SELECT file_id FROM events WHERE line = 3"));
	assert_int_equal(qi("SELECT error_count FROM events WHERE line = 3"), 3);
	assert_int_equal(qi("SELECT recovery_attempts FROM events WHERE line = 3"), 1);
	assert_int_equal(qi("SELECT anomaly FROM events WHERE line = 3"), 1);
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.component_id WHERE line = 3",
		 "server");

	/* memory events */
	assert_true(qi("SELECT ts_us FROM mem_events WHERE line = 2") == TS0 + 1);
	assert_int_equal(qi("SELECT thread FROM mem_events WHERE line = 2"), 48211);
	assert_int_equal(qi("SELECT action FROM mem_events WHERE line = 2"), 0);
	assert_true(qi("SELECT ptr FROM mem_events WHERE line = 2") == 0x7f3a2c000000LL);
	assert_int_equal(qi("SELECT size_bytes FROM mem_events WHERE line = 2"), 1024);
	assert_true(qi("SELECT cuda_stream FROM mem_events WHERE line = 2") == 0x55d0c1a3e2f0LL);
	assert_int_equal(qi("SELECT action FROM mem_events WHERE line = 3"), 2);
	assert_int_equal(qi("SELECT ptr FROM mem_events WHERE line = 3"), 0);
	assert_true(qi("SELECT size_bytes FROM mem_events WHERE line = 3") == 34359738368LL);
	assert_true((uint64_t)qi("SELECT cuda_stream FROM mem_events WHERE line = 3") ==
		    0xffff800000000000ULL);
	qs_equal("SELECT n.name FROM mem_events m JOIN names n ON n.id = m.host_id WHERE line = 3",
		 "node1");
	qs_equal("SELECT action FROM v_mem_events WHERE line = 3", "allocate failure");

	/* the reject, excerpt byte for byte */
	{
		sqlite3 *h = ro_open(db);
		sqlite3_stmt *s = row(h, "SELECT run_id, file_id, stream_id, line, offset, reason,"
					 " length, excerpt, typeof(excerpt) FROM rejects");
		char want[1024];

		for (size_t i = 0; i < sizeof(want); i++)
			want[i] = (char)('a' + i % 26);
		want[10] = '\0';
		assert_int_equal(sqlite3_column_int64(s, 0), run);
		assert_int_equal(sqlite3_column_int64(s, 1), 1);
		assert_int_equal(sqlite3_column_int64(s, 2), 1);
		assert_int_equal(sqlite3_column_int64(s, 3), 4);
		assert_int_equal(sqlite3_column_int64(s, 4), 300);
		assert_string_equal((const char *)sqlite3_column_text(s, 5), "truncated JSON");
		assert_int_equal(sqlite3_column_int64(s, 6), 5000);
		assert_int_equal(sqlite3_column_bytes(s, 7), 1024);
		assert_memory_equal(sqlite3_column_blob(s, 7), want, 1024);
		assert_string_equal((const char *)sqlite3_column_text(s, 8), "blob");
		sqlite3_finalize(s);
		sqlite3_close(h);
	}
	assert_true(qi("SELECT ts_us FROM rejects") == TS0);

	/* state rows */
	assert_true((uint64_t)qi("SELECT hash FROM streams WHERE id = 1") == HASH1);
	assert_true((uint64_t)qi("SELECT head_hash FROM streams WHERE id = 1") == HASH1);
	assert_int_equal(qi("SELECT bytes FROM streams WHERE id = 1"), 300);
	assert_int_equal(qi("SELECT lines FROM streams WHERE id = 1"), 3);
	qs_equal("SELECT format FROM streams WHERE id = 1", "json");
	qs_equal("SELECT component FROM streams WHERE id = 1", "gpu");
	qs_equal("SELECT first_path FROM streams WHERE id = 1", "/logs/gpu.log");
	assert_true(qnull("SELECT day_us FROM streams WHERE id = 1"));
	assert_int_equal(qi("SELECT updated_run FROM streams WHERE id = 1"), run);
	assert_int_equal(qi("SELECT created_run FROM streams WHERE id = 1"), run);
	assert_true((uint64_t)qi("SELECT hash FROM checkpoints WHERE stream_id = 1 AND bytes = 300") ==
		    HASH1);
	qs_equal("SELECT path FROM files WHERE id = 1", "/logs/gpu.log");
	assert_int_equal(qi("SELECT raw_head_hash FROM files WHERE id = 1"), -1);
	assert_int_equal(qi("SELECT tail_hash FROM files WHERE id = 1"), 42);
	assert_true(qi("SELECT mtime_ns FROM files WHERE id = 1") == 1757428222123456789LL);
	assert_int_equal(qi("SELECT ino FROM files WHERE id = 1"), 501);
	qs_equal("SELECT status FROM files WHERE id = 1", "read");
	assert_true(qnull("SELECT note FROM files WHERE id = 1"));
	assert_int_equal(qi("SELECT last_run FROM files WHERE id = 1"), run);

	/* a second batch with the same names adds no name; after reopening neither */
	gl_batch_reset(b);
	add_event(b, "gpu", "again", 5)->ev.kernel = S(b, "force_pass_kernel");
	put_ok(st, b, run, "node1");
	gl_store_close(st);
	st = open_ok();
	gl_batch_reset(b);
	add_event(b, "server", "and again", 6)->ev.kernel = S(b, "force_pass_kernel");
	add_event(b, "memory", "a new one", 7);
	put_ok(st, b, run, "node1");
	assert_int_equal(qi("SELECT count(*) FROM names"), 5);
	assert_int_equal(qi("SELECT count(*) FROM events"), 6);
	assert_int_equal(qi("SELECT count(*) FROM events e JOIN names n ON n.id = e.kernel_id"
			    " WHERE n.name = 'force_pass_kernel'"), 4);
	/* without host: NULL */
	gl_batch_reset(b);
	add_event(b, "gpu", "no host", 8);
	/* damage found before any record: no time, no stream, no line */
	struct gl_brej *r = &b->rej[b->nrej++];

	memset(r, 0, sizeof(*r));
	r->ts_us = GL_TS_NONE;
	r->file_id = 1;
	r->offset = 12;
	r->reason = S(b, "gzip: invalid header");
	put_ok(st, b, run, NULL);
	assert_true(qnull("SELECT host_id FROM events WHERE line = 8"));
	assert_int_equal(qi("SELECT count(*) FROM rejects WHERE reason = 'gzip: invalid header'"
			    " AND ts_us IS NULL AND stream_id IS NULL AND line IS NULL"
			    " AND excerpt IS NULL AND offset = 12"), 1);
	gl_store_close(st);
	gl_batch_free(b);
}

/*
 * The store finds a name's id, and a series', by the address of the
 * batch's copy within one put (name_memo, series_memo). A batch is reused:
 * its second put holds other names at the very addresses of the first's
 * (checked below). Each row still gets its own names and series.
 */
static void test_put_reused_addresses(void **state)
{
	static const char *const comp[2] = {"alpha", "bravo"}, *const kern[2] = {"k_one", "k_two"},
			  *const metric[2] = {"m.one", "m.two"}, *const dev[2] = {"0", "1"};
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	const char *at[2][4];

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	add_stream_op(b, 1, "gpu", "/logs/gpu.log", (struct gl_pos){300, 3, HASH1}, run);
	add_file_op(b, 1, "/logs/gpu.log", 1);
	put_ok(st, b, run, NULL);
	for (int k = 0; k < 2; k++) {
		gl_batch_reset(b);
		for (int i = 0; i < 3; i++) {
			struct gl_bev *e = add_event(b, NULL, "m", 1 + (uint64_t)(k * 10 + i));
			struct gl_bsample *x = &b->samp[b->nsamp++];

			e->ev.ts_us = TS0 + k * 10 + i;
			e->ev.component = gl_batch_name(b, (struct gl_str){comp[k], 5});
			e->ev.kernel = gl_batch_name(b, (struct gl_str){kern[k], 5});
			memset(x, 0, sizeof(*x));
			x->s.ts_us = TS0 + k * 10 + i;
			x->s.metric = gl_batch_name(b, (struct gl_str){metric[k], 5});
			x->s.device = gl_batch_name(b, (struct gl_str){dev[k], 1});
			x->s.value = k * 10 + i;
			x->source = "json";
			x->stream_id = 1;
			x->file_id = 1;
			x->path = S(b, "/logs/gpu.log");
			x->line = e->line;
			if (i == 0) {
				at[k][0] = e->ev.component.p;
				at[k][1] = e->ev.kernel.p;
				at[k][2] = x->s.metric.p;
				at[k][3] = x->s.device.p;
			}
			/* one copy of each name per batch */
			assert_ptr_equal(e->ev.component.p, at[k][0]);
			assert_ptr_equal(x->s.metric.p, at[k][2]);
		}
		put_ok(st, b, run, NULL);
	}
	/* the second batch's names are where the first's were */
	for (int i = 0; i < 4; i++)
		assert_ptr_equal(at[0][i], at[1][i]);
	qs_equal("SELECT group_concat(line || ':' || component || ':' || kernel, ' ') FROM"
		 " (SELECT line, component, kernel FROM v_events ORDER BY line)",
		 "1:alpha:k_one 2:alpha:k_one 3:alpha:k_one 11:bravo:k_two 12:bravo:k_two"
		 " 13:bravo:k_two");
	qs_equal("SELECT group_concat(line || ':' || metric || ':' || device || ':' || value, ' ')"
		 " FROM (SELECT line, metric, device, value FROM v_samples ORDER BY line)",
		 "1:m.one:0:0.0 2:m.one:0:1.0 3:m.one:0:2.0 11:m.two:1:10.0 12:m.two:1:11.0"
		 " 13:m.two:1:12.0");
	assert_int_equal(qi("SELECT count(*) FROM series"), 2);
	gl_store_close(st);
	gl_batch_free(b);
}

static void test_put_transactional(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	fill_first_batch(b, run);
	put_ok(st, b, run, NULL);

	/* rows with new names, then two files claiming one path: the second fails */
	gl_batch_reset(b);
	add_event(b, "newcomp", "lost", 10)->ev.kernel = S(b, "newkernel");
	add_event(b, "gpu", "lost too", 11);
	b->mem[b->nmem++] = (struct gl_bmem){.m = {TS0, 1, GL_MEM_FREE, 1, 1, 0}, .stream_id = 1, .file_id = 1, .line = 12};
	add_stream_op(b, 2, "other", "/logs/other.log", (struct gl_pos){10, 1, 7}, run);
	add_file_op(b, 10, "/logs/dup.log", 2);
	add_file_op(b, 11, "/logs/dup.log", 2);
	gl_err_clear(&err);
	assert_int_equal(gl_store_put(st, b, run, "hostX", &err), GL_EDB);
	assert_int_equal(err.code, GL_EDB);
	assert_non_null(strstr(err.cause, "UNIQUE"));
	/* nothing of it is kept */
	assert_int_equal(qi("SELECT count(*) FROM events"), 3);
	assert_int_equal(qi("SELECT count(*) FROM mem_events"), 2);
	assert_int_equal(qi("SELECT count(*) FROM streams"), 1);
	assert_int_equal(qi("SELECT count(*) FROM files"), 1);
	assert_int_equal(qi("SELECT count(*) FROM names"), 3);
	assert_int_equal(qi("SELECT count(*) FROM names WHERE name IN ('newcomp', 'newkernel', 'hostX')"), 0);

	/* a NOT NULL violation (stream without first path) fails the same way */
	gl_batch_reset(b);
	add_event(b, "newcomp", "lost", 10);
	add_stream_op(b, 3, "x", NULL, (struct gl_pos){10, 1, 7}, run);
	assert_int_equal(gl_store_put(st, b, run, NULL, &err), GL_EDB);
	assert_int_equal(qi("SELECT count(*) FROM events"), 3);
	assert_int_equal(qi("SELECT count(*) FROM names"), 3);

	/* the store is usable afterwards, and the names come back with real rows */
	gl_batch_reset(b);
	add_event(b, "newcomp", "kept", 20)->ev.kernel = S(b, "newkernel");
	add_file_op(b, 10, "/logs/dup.log", 1);
	put_ok(st, b, run, "hostX");
	assert_int_equal(qi("SELECT count(*) FROM events"), 4);
	assert_int_equal(qi("SELECT count(*) FROM files"), 2);
	assert_int_equal(qi("SELECT count(*) FROM names"), 6);
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.component_id WHERE line = 20",
		 "newcomp");
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.kernel_id WHERE line = 20",
		 "newkernel");
	qs_equal("SELECT n.name FROM events e JOIN names n ON n.id = e.host_id WHERE line = 20",
		 "hostX");
	/* every name reference points at a row */
	assert_int_equal(qi("SELECT count(*) FROM events WHERE component_id NOT IN (SELECT id FROM names)"
			    " OR kernel_id NOT IN (SELECT id FROM names)"
			    " OR host_id NOT IN (SELECT id FROM names)"), 0);
	gl_store_close(st);
	gl_batch_free(b);
}

/*
 * Kernel-trace fields and spans: stored in their columns and shown by
 * v_events / v_spans; two launches of one kernel at one time that differ
 * only in a trace field (stream) hash apart, so the second stream's copy
 * of the first is marked a duplicate and the other is not.
 */
/*
 * events.packed as the ingest writes it (store.c, pack_event) is what
 * gl_ev_pack() makes of the stored columns (the migration to schema 6 and
 * the report's reading of a row's columns), for the values that are
 * stored differently from how they were given: NAN and negative counts
 * (NULL), -0.0 (stored as 0), levels, anomaly -1, and messages that are or
 * are not "Operation ..." to SQL's LIKE.
 */
static void test_put_packed(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	static const char *const msgs[] = {NULL, "Operation a", "OPERATION b", "operation",
					   "Operation\0 z", "Kernel k executed in 1us", ""};
	static const double reals[] = {NAN, -0.0, 0.0, 1.5, -2.25, INFINITY, 1e-310, 3e15};
	const int nmsg = (int)(sizeof(msgs) / sizeof(msgs[0]));
	const int nreal = (int)(sizeof(reals) / sizeof(reals[0]));
	int n = 0;

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, "node1", &run, &err), GL_OK);
	add_stream_op(b, 1, "gpu", "/logs/gpu.log", (struct gl_pos){300, 3, HASH1}, run);
	add_file_op(b, 1, "/logs/gpu.log", 1);
	for (int i = 0; i < 56; i++) {
		struct gl_bev *e = add_event(b, i % 3 ? "gpu" : NULL, NULL, 1 + (uint64_t)i);

		if (msgs[i % nmsg])
			e->ev.message = i % nmsg == 4 ? gl_batch_str(b, (struct gl_str){msgs[4], 12})
						      : S(b, msgs[i % nmsg]);
		e->ev.ts_us = TS0 + i;
		e->ev.level = (enum gl_level)(i % 7);
		if (i % 2)
			e->ev.kernel = S(b, "k");
		e->ev.dur_us = reals[i % nreal];
		e->ev.mem_mb = reals[(i + 3) % nreal];
		e->ev.exec_ms = reals[(i + 5) % nreal];
		e->ev.anomaly = i % 3 - 1;
		e->ev.error_count = i % 4 - 1;
		e->ev.recovery_attempts = i % 5 == 0 ? INT64_MAX : i % 5 - 2;
		n++;
	}
	put_ok(st, b, run, "node1");
	gl_store_close(st);
	gl_batch_free(b);

	sqlite3 *h = ro_open(db);
	sqlite3_stmt *s;

	assert_int_equal(gl_evpack_register(h), SQLITE_OK);
	/* the packing of the columns, with the row's operation (schema 10) where it is one */
	s = row(h, "SELECT count(*), count(packed), sum(packed IS CASE WHEN o.event_id IS NULL"
		   " THEN gl_ev_pack(" GL_EVPACK_COLUMNS ") ELSE gl_ev_pack_op(gl_ev_pack("
		   GL_EVPACK_COLUMNS "), o.ms, o.throughput, o.name_id) END),"
		   " sum(message LIKE 'Operation %'), count(o.event_id)"
		   " FROM events LEFT JOIN operations o ON o.event_id = events.id");
	assert_int_equal(sqlite3_column_int(s, 0), n);
	assert_int_equal(sqlite3_column_int(s, 1), n);
	assert_int_equal(sqlite3_column_int(s, 2), n);
	/* operations, by hand: no kernel (even i), a finite execution time and a message
	 * (a record without text is none). exec_ms = reals[(i + 5) % 8] for even i is
	 * reals[5], [7], [1], [3] in turn (INFINITY, 3e15, -0.0, 1.5): 21 of the 28 even
	 * rows are finite; of those, i = 14, 28, 42 have no message (msgs[i % 7] = NULL):
	 * 18 */
	assert_int_equal(sqlite3_column_int(s, 4), 18);
	/* the rows of "Operation a", "OPERATION b" (8 each of 56); not the cut one */
	assert_int_equal(sqlite3_column_int(s, 3), 16);
	sqlite3_finalize(s);
	/* -0.0 given (i = 1: dur_us) reads back as 0.0, and so does its packing */
	struct gl_evpack f;

	s = row(h, "SELECT packed, dur_us FROM events WHERE line = 2");
	assert_true(gl_evpack_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0),
				     &f));
	assert_true(f.dur_us == 0.0 && !signbit(f.dur_us) && !signbit(sqlite3_column_double(s, 1)));
	assert_true(f.op && f.has_kernel && f.level == 1 && f.anomaly == 0);
	sqlite3_finalize(s);
	sqlite3_close(h);
}

/*
 * Each row is stored with its kind (gl_event_kind(): the parser's, or 1 for
 * a profiler's record whose parser set none), a run of rows cut where the
 * kind changes; event_kinds lists each kind once, across batches.
 */
static void test_put_kinds(void **state)
{
	static const struct {
		enum gl_ev_kind kind;
		enum gl_ev_source source;
		int want;
	} rows[] = {
		{GL_EV_LOG, GL_SRC_LOG, 0},	  {GL_EV_ACCESS, GL_SRC_LOG, 3},
		{GL_EV_ACCESS, GL_SRC_LOG, 3},	  {GL_EV_ACCESS_FAILED, GL_SRC_LOG, 4},
		{GL_EV_LOG, GL_SRC_LOG, 0},	  {GL_EV_LOG, GL_SRC_NSYS, 1},
		{GL_EV_ALERT, GL_SRC_LOG, 2},
	};
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	char sql[128];

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	fill_first_batch(b, run);	/* three log lines: ids 1-3 */
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct gl_bev *e = add_event(b, "k", "m", 20 + i);

		e->ev.ts_us = TS0 + 1000 + (int64_t)i;
		e->ev.kind = rows[i].kind;
		e->ev.source = rows[i].source;
	}
	put_ok(st, b, run, NULL);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT kind FROM events WHERE line = %zu", 20 + i);
		assert_int_equal(qi(sql), rows[i].want);
	}
	assert_int_equal(qi("SELECT count(*) FROM events WHERE line < 20 AND kind = 0"), 3);
	qs_equal("SELECT group_concat(kind) FROM event_kinds", "0,1,2,3,4");
	/* a second batch of known kinds adds none */
	gl_batch_reset(b);
	add_event(b, "k", "again", 40)->ev.kind = GL_EV_ALERT;
	put_ok(st, b, run, NULL);
	qs_equal("SELECT group_concat(kind) FROM event_kinds", "0,1,2,3,4");
	assert_int_equal(qi("SELECT kind FROM events WHERE line = 40"), 2);
	gl_store_close(st);
	gl_batch_free(b);
}

static void test_put_trace(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	struct gl_bev *e;
	struct gl_bspan *sp;
	struct gl_event x, y;

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	fill_first_batch(b, run);
	add_stream_op(b, 2, "trace", "/logs/t.json", (struct gl_pos){10, 1, 7}, run);
	for (int i = 0; i < 3; i++) {
		e = add_event(b, "trace", NULL, 10 + (uint64_t)i);
		e->stream_id = i < 2 ? 1 : 2;
		e->ev.ts_us = TS0 + 100;
		e->ev.kernel = S(b, "sgemm_128x64");
		e->ev.dur_us = 12.5;
		e->ev.source = GL_SRC_KINETO;
		e->ev.launch_overhead_us = 4.25;
		e->ev.queue_us = 0.5;
		e->ev.occupancy = 0.75;
		e->ev.device = S(b, "0");
		e->ev.stream = S(b, i == 1 ? "8" : "7");
		e->ev.grid = S(b, "128,1,1");
		e->ev.block = S(b, "256,1,1");
		e->ev.registers = 64;
		e->ev.shared_mem_bytes = 4096;
		e->ev.corr_id = 135071;
		e->ev.scope = S(b, "timestep|solve");
		e->ev.stack = S(b, "main|train|step");
	}
	/* a log line after the trace rows, without a time: none of their columns */
	e = add_event(b, "gpu", "after the trace rows", 20);
	e->ev.ts_us = GL_TS_NONE;
	sp = &b->span[b->nspan++];
	memset(sp, 0, sizeof(*sp));
	gl_span_init(&sp->sp);
	sp->sp.start_us = TS0 + 50;
	sp->sp.dur_us = 1500.25;
	sp->sp.name = S(b, "solve");
	sp->sp.path = S(b, "timestep|solve");
	sp->sp.depth = 1;
	sp->sp.source = GL_SRC_GPUFL;
	sp->stream_id = 1;
	sp->file_id = 1;
	sp->line = 9;
	sp->path = S(b, "/logs/gpu.log");
	put_ok(st, b, run, "node1");

	assert_int_equal(qi("SELECT count(*) FROM events WHERE source = 'kineto'"), 3);
	assert_int_equal(qi("SELECT count(*) FROM events WHERE source IS NULL"), 4);
	/* log lines, trace rows, a log line: three INSERTs (gl_batch_logs,
	 * gl_batch_events, gl_batch_logs), the rows in the batch's order */
	qs_equal("SELECT group_concat(line, ' ') FROM (SELECT line FROM events ORDER BY id)",
		 "1 2 3 10 11 12 20");
	assert_int_equal(qi("SELECT count(*) FROM events WHERE source IS NULL AND"
			    " (launch_overhead_us IS NOT NULL OR queue_us IS NOT NULL OR occupancy"
			    " IS NOT NULL OR device IS NOT NULL OR stream IS NOT NULL OR grid IS NOT"
			    " NULL OR block IS NOT NULL OR registers IS NOT NULL OR shared_mem_bytes"
			    " IS NOT NULL OR corr_id IS NOT NULL OR scope_id IS NOT NULL OR stack_id"
			    " IS NOT NULL)"), 0);
	assert_int_equal(qi("SELECT count(*) FROM events WHERE line = 20 AND ts_us IS NULL"
			    " AND message = 'after the trace rows'"), 1);
	qs_equal("SELECT launch_overhead_us || ' ' || queue_us || ' ' || occupancy || ' ' || device"
		 " || ' ' || stream || ' ' || grid || ' ' || block || ' ' || registers || ' ' ||"
		 " shared_mem_bytes || ' ' || corr_id || ' ' || scope || ' ' || stack || ' ' || source"
		 " FROM v_events WHERE line = 10",
		 "4.25 0.5 0.75 0 7 128,1,1 256,1,1 64 4096 135071 timestep|solve main|train|step kineto");
	/* a log line keeps them NULL */
	assert_int_equal(qi("SELECT count(*) FROM events WHERE line = 1 AND launch_overhead_us IS NULL"
			    " AND device IS NULL AND corr_id IS NULL AND scope_id IS NULL"), 1);
	/* line 12 (stream 2) is line 10 (stream 1) again; line 11 differs in its stream */
	assert_int_equal(qi("SELECT count(*) FROM events WHERE dup_of IS NOT NULL"), 1);
	assert_int_equal(qi("SELECT dup_of = (SELECT id FROM events WHERE line = 10) FROM events"
			    " WHERE line = 12"), 1);
	qs_equal("SELECT time || ' ' || start_us || ' ' || dur_us || ' ' || name || ' ' || scope ||"
		 " ' ' || depth || ' ' || ifnull(device, '-') || ' ' || source || ' ' || host ||"
		 " ' ' || path || ' ' || line FROM v_spans",
		 /* strftime %f rounds 22.123506 s to 22.124 */
		 "2025-09-09T14:30:22.124Z 1757428222123506 1500.25 solve timestep|solve 1 - gpufl"
		 " node1 /logs/gpu.log 9");

	/* the hash sees each trace field; a log event's hash ignores none of its own */
	gl_event_init(&x);
	x.ts_us = TS0;
	x.kernel = (struct gl_str){"k", 1};
	x.source = GL_SRC_NSYS;
	y = x;
	assert_true(gl_store_rec_hash(&x, (struct gl_str){NULL, 0}) ==
		    gl_store_rec_hash(&y, (struct gl_str){NULL, 0}));
	y.registers = 32;
	assert_true(gl_store_rec_hash(&x, (struct gl_str){NULL, 0}) !=
		    gl_store_rec_hash(&y, (struct gl_str){NULL, 0}));
	y = x;
	y.grid = (struct gl_str){"2,1,1", 5};
	assert_true(gl_store_rec_hash(&x, (struct gl_str){NULL, 0}) !=
		    gl_store_rec_hash(&y, (struct gl_str){NULL, 0}));
	y = x;
	y.corr_id = 5;
	assert_true(gl_store_rec_hash(&x, (struct gl_str){NULL, 0}) !=
		    gl_store_rec_hash(&y, (struct gl_str){NULL, 0}));
	gl_store_close(st);
	gl_batch_free(b);
}

/* --- gl_store_rec_hash against its field-by-field form ------------------ */

/* The record hash as versions 3 and 4 wrote it: one gl_hash_update per piece. */
static void ref_str(struct gl_hash *h, struct gl_str s)
{
	unsigned char tag = s.p != NULL;
	uint64_t len = s.len;

	gl_hash_update(h, &tag, 1);
	if (!s.p)
		return;
	gl_hash_update(h, &len, 8);
	gl_hash_update(h, s.p, s.len);
}

static void ref_int(struct gl_hash *h, int present, int64_t v)
{
	unsigned char tag = (unsigned char)(present != 0);

	gl_hash_update(h, &tag, 1);
	if (present)
		gl_hash_update(h, &v, 8);
}

static void ref_real(struct gl_hash *h, double v)
{
	unsigned char tag = !isnan(v);

	gl_hash_update(h, &tag, 1);
	if (tag) {
		if (v == 0)
			v = 0;
		gl_hash_update(h, &v, 8);
	}
}

static uint64_t ref_rec_hash(const struct gl_event *e, struct gl_str host)
{
	struct gl_hash h;

	gl_hash_init(&h, 0x7265635f68617368ULL);
	ref_int(&h, e->ts_us != GL_TS_NONE, e->ts_us);
	ref_int(&h, 1, (int64_t)e->level);
	ref_str(&h, e->component);
	ref_str(&h, host);
	ref_str(&h, e->kernel);
	ref_str(&h, e->message);
	ref_str(&h, e->metadata);
	ref_real(&h, e->dur_us);
	ref_real(&h, e->exec_ms);
	ref_real(&h, e->mem_mb);
	ref_real(&h, e->alloc_mb);
	ref_real(&h, e->peak_mb);
	ref_real(&h, e->util_pct);
	ref_int(&h, e->error_count >= 0, e->error_count);
	ref_int(&h, e->recovery_attempts >= 0, e->recovery_attempts);
	ref_int(&h, e->anomaly >= 0, e->anomaly);
	if (e->source != GL_SRC_LOG || e->corr_id >= 0 || e->device.p || e->stream.p ||
	    !isnan(e->launch_overhead_us) || !isnan(e->queue_us) || !isnan(e->occupancy) ||
	    e->grid.p || e->block.p || e->registers >= 0 || e->shared_mem_bytes >= 0 ||
	    e->scope.p || e->stack.p) {
		ref_int(&h, 1, (int64_t)e->source);
		ref_real(&h, e->launch_overhead_us);
		ref_real(&h, e->queue_us);
		ref_real(&h, e->occupancy);
		ref_str(&h, e->device);
		ref_str(&h, e->stream);
		ref_str(&h, e->grid);
		ref_str(&h, e->block);
		ref_int(&h, e->registers >= 0, e->registers);
		ref_int(&h, e->shared_mem_bytes >= 0, e->shared_mem_bytes);
		ref_int(&h, e->corr_id >= 0, e->corr_id);
		ref_str(&h, e->scope);
		ref_str(&h, e->stack);
	}
	return gl_hash_final(&h);
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/* a string of 0 to 2999 bytes (some longer than the hash's 512-byte buffer), or none */
static struct gl_str rnd_str(uint64_t *s, const char *pool)
{
	uint64_t r = rnd(s);

	if (r % 4 == 0)
		return (struct gl_str){NULL, 0};
	size_t len = r % 7 == 0 ? (size_t)(rnd(s) % 3000) : (size_t)(rnd(s) % 40);
	return (struct gl_str){pool + rnd(s) % 1000, len};
}

static double rnd_real(uint64_t *s)
{
	uint64_t r = rnd(s);

	return r % 3 == 0 ? NAN : r % 11 == 0 ? -0.0 : (double)(int64_t)(rnd(s) % 2000000) / 7;
}

static int64_t rnd_int(uint64_t *s)
{
	uint64_t r = rnd(s);

	return r % 3 == 0 ? -1 : (int64_t)(rnd(s) % 100000);
}

/*
 * 20,000 random records, every field present or not, strings across the
 * buffer's edge: the gathered hash is the field-by-field one, bit for bit
 * (stored rows and migrations were hashed that way).
 */
static void test_rec_hash_matches_reference(void **state)
{
	(void)state;
	static char pool[4000];
	uint64_t s = 2026;

	for (size_t i = 0; i < sizeof(pool); i++)
		pool[i] = (char)(' ' + rnd(&s) % 90);
	for (int i = 0; i < 20000; i++) {
		struct gl_event e;
		struct gl_str host = rnd_str(&s, pool);

		gl_event_init(&e);
		e.ts_us = rnd(&s) % 5 == 0 ? GL_TS_NONE : (int64_t)rnd(&s);
		e.level = (int)(rnd(&s) % 6);
		e.component = rnd_str(&s, pool);
		e.kernel = rnd_str(&s, pool);
		e.message = rnd_str(&s, pool);
		e.metadata = rnd_str(&s, pool);
		e.dur_us = rnd_real(&s);
		e.exec_ms = rnd_real(&s);
		e.mem_mb = rnd_real(&s);
		e.alloc_mb = rnd_real(&s);
		e.peak_mb = rnd_real(&s);
		e.util_pct = rnd_real(&s);
		e.error_count = rnd_int(&s);
		e.recovery_attempts = rnd_int(&s);
		e.anomaly = (int)(rnd_int(&s) % 2);
		if (rnd(&s) % 2) {	/* a trace record */
			e.source = (int)(rnd(&s) % 4);
			e.launch_overhead_us = rnd_real(&s);
			e.queue_us = rnd_real(&s);
			e.occupancy = rnd_real(&s);
			e.device = rnd_str(&s, pool);
			e.stream = rnd_str(&s, pool);
			e.grid = rnd_str(&s, pool);
			e.block = rnd_str(&s, pool);
			e.registers = rnd_int(&s);
			e.shared_mem_bytes = rnd_int(&s);
			e.corr_id = rnd_int(&s);
			e.scope = rnd_str(&s, pool);
			e.stack = rnd_str(&s, pool);
		}
		if (gl_store_rec_hash(&e, host) != ref_rec_hash(&e, host))
			fail_msg("record %d: hashes differ", i);
	}
}

static void test_load(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_state s;
	struct gl_err err;
	int64_t run = 0, run2 = 0;
	int32_t si, fi;

	(void)state;
	assert_non_null(b);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	fill_first_batch(b, run);
	/* a second stream with a time of day, checkpoints out of order */
	add_stream_op(b, 2, "rmm_log", "/logs/rmm/rmm_log.dev0.csv",
		      (struct gl_pos){3u << 20, 30000, 0x9999}, run);
	b->op[b->nop - 1].u.stream.head = (struct gl_pos){4096, 40, 0x4444};
	b->op[b->nop - 1].u.stream.format = "rmmcsv";
	b->op[b->nop - 1].u.stream.has_tod = 1;
	b->op[b->nop - 1].u.stream.day_us = 20408LL * GL_US_PER_DAY;
	b->op[b->nop - 1].u.stream.last_tod_us = 33139950313LL;
	/* a format's parse state: bytes, NUL included */
	b->op[b->nop - 1].u.stream.parse_state = gl_batch_str(b, (struct gl_str){"hd\0r", 4});
	for (int k = 3; k >= 1; k--) {
		struct gl_bop *o = op(b, GL_BOP_CHECKPOINT);

		o->u.cp.stream_id = 2;
		o->u.cp.pos = (struct gl_pos){(uint64_t)k << 20, (uint64_t)k * 10000, (uint64_t)k * 0x1111};
	}
	add_file_op(b, 2, "/logs/rmm/rmm_log.dev0.csv", 2);
	b->op[b->nop - 1].u.file.gzip = 1;
	b->op[b->nop - 1].u.file.has_tail = 0;
	b->op[b->nop - 1].u.file.status = "damaged";
	b->op[b->nop - 1].u.file.note = S(b, "unexpected end of gzip data");
	put_ok(st, b, run, NULL);

	/* next run: gpu.log was rotated to gpu.log.1, the stream grew */
	assert_int_equal(gl_store_run_begin(st, NULL, &run2, &err), GL_OK);
	assert_int_equal(run2, run + 1);
	gl_batch_reset(b);
	op(b, GL_BOP_UNPATH)->u.unpath_id = 1;
	add_file_op(b, 7, "/logs/gpu.log.1", 1);
	add_stream_op(b, 1, "renamed?", "/elsewhere", (struct gl_pos){600, 6, 0x6666}, run2);
	b->op[b->nop - 1].u.stream.head = (struct gl_pos){300, 3, HASH1};
	put_ok(st, b, run2, NULL);
	assert_int_equal(qi("SELECT updated_run FROM streams WHERE id = 1"), run2);

	gl_state_init(&s);
	assert_int_equal(gl_store_load(st, &s, &err), GL_OK);
	assert_int_equal(s.nstream, 2);
	assert_int_equal(s.nfile, 3);
	assert_int_equal(s.next_stream_id, 3);
	assert_int_equal(s.next_file_id, 8);

	si = gl_state_stream_by_id(&s, 1);
	assert_true(si >= 0);
	assert_string_equal(s.stream[si].format, "json");
	/* an update moves the position, never the identity */
	assert_string_equal(s.stream[si].component, "gpu");
	assert_string_equal(s.stream[si].first_path, "/logs/gpu.log");
	assert_true(s.stream[si].pos.bytes == 600 && s.stream[si].pos.lines == 6 &&
		    s.stream[si].pos.hash == 0x6666);
	assert_true(s.stream[si].head.bytes == 300 && s.stream[si].head.hash == HASH1);
	assert_int_equal(s.stream[si].has_tod, 0);
	assert_int_equal(s.stream[si].created_run, run);
	assert_int_equal(s.stream[si].ncp, 1);
	assert_true(s.stream[si].cp[0].bytes == 300 && s.stream[si].cp[0].hash == HASH1);
	assert_int_equal(gl_state_stream_by_head(&s, 300, HASH1), si);

	si = gl_state_stream_by_id(&s, 2);
	assert_true(si >= 0);
	assert_string_equal(s.stream[si].format, "rmmcsv");
	assert_string_equal(s.stream[si].component, "rmm_log");
	assert_int_equal(s.stream[si].has_tod, 1);
	assert_true(s.stream[si].day_us == 20408LL * GL_US_PER_DAY);
	assert_true(s.stream[si].last_tod_us == 33139950313LL);
	assert_int_equal(s.stream[si].ncp, 3);
	for (int k = 0; k < 3; k++) {
		assert_true(s.stream[si].cp[k].bytes == (uint64_t)(k + 1) << 20);
		assert_true(s.stream[si].cp[k].lines == (uint64_t)(k + 1) * 10000);
		assert_true(s.stream[si].cp[k].hash == (uint64_t)(k + 1) * 0x1111);
	}
	assert_int_equal(gl_state_stream_by_head(&s, 4096, 0x4444), si);
	assert_int_equal(s.stream[si].parse_state_len, 4);
	assert_memory_equal(s.stream[si].parse_state, "hd\0r", 4);
	assert_int_equal(s.stream[gl_state_stream_by_id(&s, 1)].parse_state_len, 0);

	/* files: the old row lost its path, the new one has it */
	assert_int_equal(gl_state_file_by_path(&s, "/logs/gpu.log"), -1);
	fi = gl_state_file_by_path(&s, "/logs/gpu.log.1");
	assert_true(fi >= 0);
	assert_int_equal(s.file[fi].id, 7);
	assert_int_equal(s.file[fi].stream_id, 1);
	fi = gl_state_file_by_ino(&s, 2049, 501, -1);
	assert_true(fi >= 0);
	assert_int_equal(s.file[fi].id, 1);
	assert_null(s.file[fi].path);
	assert_true(s.file[fi].raw_head_hash == UINT64_MAX);
	assert_int_equal(s.file[fi].has_tail, 1);
	assert_true(s.file[fi].tail_hash == 42);
	assert_true(s.file[fi].consumed == 300);
	assert_true(s.file[fi].mtime_ns == 1757428222123456789LL);
	assert_string_equal(s.file[fi].status, "read");
	assert_null(s.file[fi].note);
	fi = gl_state_file_by_path(&s, "/logs/rmm/rmm_log.dev0.csv");
	assert_true(fi >= 0);
	assert_int_equal(s.file[fi].gzip, 1);
	assert_int_equal(s.file[fi].has_tail, 0);
	assert_string_equal(s.file[fi].status, "damaged");
	assert_string_equal(s.file[fi].note, "unexpected end of gzip data");
	gl_state_release(&s);
	gl_store_close(st);

	/* the same after closing and opening again */
	st = open_ok();
	gl_state_init(&s);
	assert_int_equal(gl_store_load(st, &s, &err), GL_OK);
	assert_int_equal(s.nstream, 2);
	assert_int_equal(s.nfile, 3);
	gl_state_release(&s);
	gl_store_close(st);
	gl_batch_free(b);
}

static void test_runs(void **state)
{
	struct gl_store *st;
	struct gl_err err;
	struct gl_ingest_stats x;
	int64_t r1 = 0, r2 = 0, now = 0;
	struct timespec ts;

	(void)state;
	st = open_ok();
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	assert_int_equal(gl_store_run_begin(st, "node7", &r1, &err), GL_OK);
	assert_int_equal(gl_store_run_begin(st, NULL, &r2, &err), GL_OK);
	assert_int_equal(r1, 1);
	assert_int_equal(r2, 2);
	memset(&x, 0, sizeof(x));
	x.files_seen = 12;
	x.files_new = 5;
	x.files_unchanged = 4;
	x.files_rotated = 1;
	x.files_grown = 1;
	x.files_skipped = 2;
	x.files_failed = 1;
	x.lines_stored = 1234;
	x.lines_rejected = 6;
	assert_int_equal(gl_store_run_end(st, r1, &x, &err), GL_OK);
	gl_store_close(st);
	qs_equal("SELECT host FROM runs WHERE id = 1", "node7");
	qs_equal("SELECT version FROM runs WHERE id = 1", GL_VERSION);
	assert_true(qnull("SELECT host FROM runs WHERE id = 2"));
	assert_true(llabs(qi("SELECT started_us FROM runs WHERE id = 1") - now) < 60 * 1000000LL);
	assert_true(qi("SELECT finished_us FROM runs WHERE id = 1") >=
		    qi("SELECT started_us FROM runs WHERE id = 1"));
	/* a run that never ended (killed) has no finish */
	assert_true(qnull("SELECT finished_us FROM runs WHERE id = 2"));
	assert_int_equal(qi("SELECT files_seen FROM runs WHERE id = 1"), 12);
	assert_int_equal(qi("SELECT files_new + files_unchanged + files_rotated + files_grown"
			    " + files_skipped + files_failed FROM runs WHERE id = 1"), 14);
	assert_int_equal(qi("SELECT lines_stored FROM runs WHERE id = 1"), 1234);
	assert_int_equal(qi("SELECT lines_rejected FROM runs WHERE id = 1"), 6);
}

/*
 * The WAL stays bounded however much one run writes: checkpoints run in
 * the background and the writer restarts the WAL past 128 MiB, so the
 * database file fills while the run goes on. About 320 MiB of events here;
 * the WAL never grows past 128 MiB plus a batch.
 */
/* Line hashes split across chunks of GL_LINES_CHUNK, the partial last
 * chunk completed by later batches, read back from any line. */
static void test_line_hashes(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	static uint64_t h[3 * GL_LINES_CHUNK], out[3 * GL_LINES_CHUNK];
	struct gl_pos pos = {10, 1, 7};
	struct gl_err err;
	uint64_t got, first = 1;
	/* three batches: 100 lines, 4,000 (crossing line 4,096), 5,000 */
	const uint64_t parts[3] = {100, 4000, 5000};
	int64_t run;

	(void)state;
	assert_non_null(b);
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		h[i] = 0x9e3779b97f4a7c15ULL * (i + 1);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	for (int k = 0; k < 3; k++) {
		struct gl_bop *o;

		gl_batch_reset(b);
		add_stream_op(b, 1, "gpu", "/logs/gpu.log", pos, run);
		o = op(b, GL_BOP_LINES);
		o->u.lines.stream_id = 1;
		o->u.lines.first = first;
		o->u.lines.n = parts[k];
		o->u.lines.hashes = gl_batch_str(b, (struct gl_str){(const char *)(h + first - 1),
								    parts[k] * 8}).p;
		put_ok(st, b, run, NULL);
		first += parts[k];
	}
	/* 9,100 lines: chunks of 4,096, 4,096 and 908 */
	assert_int_equal(qi("SELECT count(*) FROM stream_lines WHERE stream_id = 1"), 3);
	qs_equal("SELECT group_concat(first_line || ':' || length(hashes)) FROM"
		 " (SELECT * FROM stream_lines ORDER BY first_line)",
		 "1:32768,4097:32768,8193:7264");
	assert_int_equal(gl_store_line_hashes(st, 1, 1, 9100, out, &got, &err), GL_OK);
	assert_int_equal(got, 9100);
	assert_memory_equal(out, h, 9100 * 8);
	assert_int_equal(gl_store_line_hashes(st, 1, 4000, 200, out, &got, &err), GL_OK);
	assert_int_equal(got, 200);
	assert_memory_equal(out, h + 3999, 200 * 8);
	/* past the end: only what is there */
	assert_int_equal(gl_store_line_hashes(st, 1, 9000, 500, out, &got, &err), GL_OK);
	assert_int_equal(got, 101);
	assert_memory_equal(out, h + 8999, 101 * 8);
	assert_int_equal(gl_store_line_hashes(st, 2, 1, 10, out, &got, &err), GL_OK);
	assert_int_equal(got, 0);
	gl_store_close(st);
	gl_batch_free(b);
}

static off_t size_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? sb.st_size : -1;
}

static struct gl_store *open_build(void)
{
	struct gl_store *st = NULL;
	struct gl_err err;
	char buf[2048];

	if (gl_store_open(&st, db, GL_STORE_NOWAIT | GL_STORE_BUILD, NULL, NULL, &err) != GL_OK)
		fail_msg("gl_store_open: %s", gl_err_format(&err, buf, sizeof(buf)));
	return st;
}

/*
 * GL_STORE_BUILD: a new database is written in <db>-build and appears at
 * db, in WAL mode and alike to one made in place, only when finished; an
 * unfinished one is deleted (by close, or by the next open after a kill);
 * an existing database is written in place.
 */
static void test_build(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	char bp[PATH_MAX + 8];
	int64_t run = 0;

	(void)state;
	assert_non_null(b);
	snprintf(bp, sizeof(bp), "%s-build", db);
	/* closed without finishing: nothing reaches db, the build is gone */
	st = open_build();
	assert_int_equal(size_of(db), 0);
	assert_true(size_of(bp) > 0);
	add_event(b, "gpu", "lost", 1);
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	put_ok(st, b, run, NULL);
	gl_store_close(st);
	assert_int_equal(size_of(db), 0);
	assert_false(exists(bp));

	/* a build left by a killed run (here: bytes that are no database)
	 * is deleted by the next open, which builds anew */
	{
		FILE *f = fopen(bp, "w");

		assert_non_null(f);
		fputs("left by a killed run", f);
		fclose(f);
	}
	st = open_build();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	gl_batch_reset(b);
	add_event(b, "gpu", "kept 1", 1);
	add_event(b, "gpu", "kept 2", 2);
	put_ok(st, b, run, NULL);
	assert_int_equal(size_of(db), 0);
	assert_int_equal(gl_store_finish(st, &err), GL_OK);
	assert_false(exists(bp));
	gl_store_close(st);
	assert_int_equal(qi("SELECT count(*) FROM events"), 2);
	assert_int_equal(qi("SELECT count(*) FROM events WHERE message = 'lost'"), 0);
	assert_int_equal(qi("SELECT count(*) FROM runs"), 1);
	/* what a database made in place has: header, pages, vacuum mode */
	assert_int_equal(qi("PRAGMA application_id"), GL_APPLICATION_ID);
	assert_int_equal(qi("PRAGMA user_version"), GL_SCHEMA_VERSION);
	assert_int_equal(qi("PRAGMA page_size"), 16384);
	assert_int_equal(qi("PRAGMA auto_vacuum"), 2);
	{
		/* WAL mode, as header bytes 18 and 19 (2, 2) record it */
		size_t len;
		unsigned char *h = gl_test_read(db, &len);

		assert_true(len >= 100);
		assert_int_equal(h[18], 2);
		assert_int_equal(h[19], 2);
		free(h);
	}

	/* the next open is in place: no build, rows added to db */
	st = open_build();
	assert_false(exists(bp));
	gl_batch_reset(b);
	add_event(b, "gpu", "kept 3", 3);
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	put_ok(st, b, run, NULL);
	assert_int_equal(gl_store_finish(st, &err), GL_OK);
	gl_store_close(st);
	assert_int_equal(qi("SELECT count(*) FROM events"), 3);
	gl_batch_free(b);
}

static void test_wal_bounded(void **state)
{
	struct gl_store *st;
	struct gl_batch *b = gl_batch_new();
	static char msg[4000];
	char wal[PATH_MAX + 8];
	struct stat sb;
	off_t max_wal = 0;
	int64_t run = 0;
	struct gl_err err;
	uint64_t line = 0;

	(void)state;
	assert_non_null(b);
	memset(msg, 'm', sizeof(msg) - 1);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	st = open_ok();
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	for (int k = 0; k < 80; k++) {
		gl_batch_reset(b);
		while (b->nev < 1000)
			add_event(b, "gpu", msg, ++line);
		put_ok(st, b, run, NULL);
		if (stat(wal, &sb) == 0 && sb.st_size > max_wal)
			max_wal = sb.st_size;
		if (k == 15) {
			/* ~64 MiB written, no restart due yet: the background
			 * checkpoints alone must have been filling the file */
			for (int t = 0; t < 500 && stat(db, &sb) == 0 && sb.st_size < (32 << 20); t++)
				usleep(10000);
			assert_true(sb.st_size >= 32 << 20);
		}
	}
	/* the database file itself holds most of it before the close */
	assert_int_equal(stat(db, &sb), 0);
	assert_true(sb.st_size > 128 << 20);
	assert_true(max_wal < 140 << 20);
	gl_store_close(st);
	assert_int_equal(qi("SELECT count(*) FROM events"), 80000);
	gl_batch_free(b);
}

/*
 * One INSERT per run of rows of one kind from one file, the stream, file,
 * path and host its parameters (evtab.h): rows of two files, log lines and
 * trace rows, taking turns in one batch, each stored with its own.
 */
static void test_put_runs_by_file(void **state)
{
	struct gl_store *st = open_ok();
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	struct gl_str path[4];
	/* the file of each row: a and c are one stream (c, a.log.1, its rotated
	 * file), b another; d is file a's row under another path; and whether
	 * the row is a trace row */
	static const char files[] = "aababbbaacacdda";
	static const char trace[] = "000110010000111";
	static const int64_t stream_of[] = {1, 2, 1, 1}, file_of[] = {7, 0, 8, 7};

	(void)state;
	assert_non_null(b);
	assert_int_equal(gl_store_run_begin(st, "nodeX", &run, &err), GL_OK);
	path[0] = S(b, "/logs/a.log");
	path[1] = S(b, "/logs/b.log");
	path[2] = S(b, "/logs/a.log.1");
	path[3] = S(b, "/old/a.log");
	for (size_t i = 0; files[i]; i++) {
		struct gl_bev *e = add_event(b, "gpu", "row", 1 + i);
		int f = files[i] - 'a';

		e->ev.ts_us = TS0 + (int64_t)i;
		if (trace[i] == '1') {
			e->ev.source = GL_SRC_KINETO;
			e->ev.corr_id = (int64_t)i;
		}
		e->stream_id = stream_of[f];
		e->file_id = file_of[f];	/* b: no file row (NULL) */
		e->path = path[f];
		e->rec_hash = gl_store_rec_hash(&e->ev, (struct gl_str){"nodeX", 5});
	}
	put_ok(st, b, run, "nodeX");
	/* expected: written out from files[], trace[] and the tables above */
	qs_equal("SELECT group_concat(x, ' ') FROM (SELECT line || ':' || stream_id || ':' ||"
		 " ifnull(file_id, '-') || ':' || (SELECT path FROM paths p WHERE p.id = path_id)"
		 " || ':' || (SELECT name FROM names n WHERE n.id = host_id) || ':' ||"
		 " ifnull(source, 'log') AS x FROM events ORDER BY id)",
		 "1:1:7:/logs/a.log:nodeX:log 2:1:7:/logs/a.log:nodeX:log"
		 " 3:2:-:/logs/b.log:nodeX:log 4:1:7:/logs/a.log:nodeX:kineto"
		 " 5:2:-:/logs/b.log:nodeX:kineto 6:2:-:/logs/b.log:nodeX:log"
		 " 7:2:-:/logs/b.log:nodeX:log 8:1:7:/logs/a.log:nodeX:kineto"
		 " 9:1:7:/logs/a.log:nodeX:log 10:1:8:/logs/a.log.1:nodeX:log"
		 " 11:1:7:/logs/a.log:nodeX:log 12:1:8:/logs/a.log.1:nodeX:log"
		 " 13:1:7:/old/a.log:nodeX:kineto 14:1:7:/old/a.log:nodeX:kineto"
		 " 15:1:7:/logs/a.log:nodeX:kineto");
	gl_store_close(st);
	gl_batch_free(b);
}

/*
 * The page cache is the region the store gave SQLite before it started
 * (store.c, pagecache_config: on huge pages, without a page fault per
 * page): the pages of this process's databases came from it.
 */
static void test_page_cache_region(void **state)
{
	struct gl_store *st = open_build();
	struct gl_batch *b = gl_batch_new();
	struct gl_err err;
	int64_t run = 0;
	int cur = 0, hi = 0;

	(void)state;
	assert_non_null(b);
	assert_int_equal(gl_store_run_begin(st, NULL, &run, &err), GL_OK);
	add_event(b, "gpu", "cached", 1);
	put_ok(st, b, run, NULL);
	assert_int_equal(gl_store_finish(st, &err), GL_OK);
	gl_store_close(st);
	gl_batch_free(b);
	assert_int_equal(sqlite3_status(SQLITE_STATUS_PAGECACHE_USED, &cur, &hi, 0), SQLITE_OK);
	assert_true(hi > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_in_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_bad_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_png, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_other_sqlite, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_incomplete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_newer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_other_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_same_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_reused_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_transactional, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_packed, setup, teardown),
		cmocka_unit_test(test_rec_hash_matches_reference),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wal_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_hashes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_runs_by_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_cache_region, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
