/*
 * Tests for lib/ingest/ingest.c: gl_ingest_run() end to end, on log trees
 * written to a scratch directory, into a scratch database read back with
 * sqlite3. Each step's counters are worked out from the lines the test
 * wrote: a first run, an unchanged re-run, an append, a rotation (rename
 * plus a new file, then the renamed file compressed), a PNG that is no
 * log, a missing path, a gzip cut short (its readable lines counted with
 * zlib here), an unknown --format and a database that is not gpulog's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>
#include <zlib.h>

#include "gpulog.h"
#include "support/gz_write.h"
#include "support/tmpdir.h"

struct fix {
	char dir[256], logs[300], db[300];
	struct gl_ingest_stats st;
	struct gl_err err;
	/* notices of the last run */
	size_t nnotice;
	int notice_code[16];
	char notice_path[16][1024];
	/* progress calls of the last run, and the figures of the last one */
	size_t nprogress;
	struct gl_ingest_stats last_progress;
};

static void on_notice(void *arg, const struct gl_err *e)
{
	struct fix *x = arg;

	if (x->nnotice < 16) {
		x->notice_code[x->nnotice] = e->code;
		snprintf(x->notice_path[x->nnotice], sizeof(x->notice_path[0]), "%s", e->path);
	}
	x->nnotice++;
}

static void on_progress(void *arg, const struct gl_ingest_stats *st)
{
	struct fix *x = arg;

	x->nprogress++;
	x->last_progress = *st;
}

static void fix_init(struct fix *x)
{
	memset(x, 0, sizeof(*x));
	gl_test_mkdtemp(x->dir, sizeof(x->dir), "ingest");
	snprintf(x->logs, sizeof(x->logs), "%s/logs", x->dir);
	snprintf(x->db, sizeof(x->db), "%s/test.db", x->dir);
	assert_int_equal(mkdir(x->logs, 0755), 0);
}

static void fix_release(struct fix *x)
{
	gl_test_rmtree(x->dir);
}

static int run_paths(struct fix *x, const char *const *paths, size_t n, const char *format)
{
	struct gl_ingest_opts o;

	memset(&o, 0, sizeof(o));
	o.db_path = x->db;
	o.paths = paths;
	o.npaths = n;
	o.format = format;
	o.nowait = 1;
	o.progress = on_progress;
	o.progress_arg = x;
	o.notice = on_notice;
	o.notice_arg = x;
	x->nnotice = 0;
	x->nprogress = 0;
	gl_err_clear(&x->err);
	return gl_ingest_run(&o, &x->st, &x->err);
}

static int run(struct fix *x)
{
	const char *paths[] = {x->logs};

	return run_paths(x, paths, 1, NULL);
}

/* The one integer an SQL query returns. */
static int64_t sql_int(const struct fix *x, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int64_t v;

	assert_int_equal(sqlite3_open_v2(x->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/* The one text an SQL query returns, into buf. */
static void sql_text(const struct fix *x, const char *sql, char *buf, size_t n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_open_v2(x->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static void put(const struct fix *x, const char *name, const char *text)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%s", x->logs, name);
	gl_test_write(path, text, strlen(text));
}

static void append(const struct fix *x, const char *name, const char *text)
{
	char path[400];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", x->logs, name);
	fp = fopen(path, "ab");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(fclose(fp), 0);
}

/* Every counter of a run, in the order of struct gl_ingest_stats. */
struct want {
	uint64_t seen, new_, unchanged, rotated, grown, skipped, failed, damaged;
	uint64_t read, stored, rejected, continued;
};

static void check_stats(const struct fix *x, struct want w)
{
	const struct gl_ingest_stats *s = &x->st;

	assert_int_equal(s->files_seen, w.seen);
	assert_int_equal(s->files_new, w.new_);
	assert_int_equal(s->files_unchanged, w.unchanged);
	assert_int_equal(s->files_rotated, w.rotated);
	assert_int_equal(s->files_grown, w.grown);
	assert_int_equal(s->files_skipped, w.skipped);
	assert_int_equal(s->files_failed, w.failed);
	assert_int_equal(s->files_damaged, w.damaged);
	assert_int_equal(s->lines_read, w.read);
	assert_int_equal(s->lines_stored, w.stored);
	assert_int_equal(s->lines_rejected, w.rejected);
	assert_int_equal(s->lines_continued, w.continued);
	assert_int_equal(s->files_done, w.seen);
	/* progress: at least the final call, with the final figures */
	assert_true(x->nprogress >= 1);
	assert_int_equal(x->last_progress.files_done, w.seen);
	assert_int_equal(x->last_progress.lines_stored, w.stored);
	assert_int_equal(x->last_progress.bytes_done, x->last_progress.bytes_total);
}

static const char gpu_log[] =
	"{\"timestamp\": \"2025-09-09T14:30:22Z\", \"level\": \"INFO\", \"message\": \"start\"}\n"
	"{\"timestamp\": \"2025-09-09T14:30:23Z\", \"level\": \"INFO\", \"message\": "
	"\"Kernel force_pass_kernel executed in 512.34us\"}\n"
	"{\"timestamp\": \"2025-09-09T14:30:24Z\", \"level\": 3, \"message\": \"bad level\"}\n"
	"\n"
	"{\"timestamp\": \"2025-09-09T14:30:25Z\", \"level\": \"ERROR\", \"message\": \"oom\"}\n";

static const char app_log[] =
	"2025-09-09 14:30:22,123 - monitor - ERROR - sample failed\n"
	"Traceback (most recent call last):\n"
	"  File \"monitor.py\", line 42, in sample\n"
	"RuntimeError: CUDA error: out of memory\n"
	"2025-09-09 14:30:23,000 - monitor - INFO - recovered\n";

/* First run, unchanged re-run, append, rotation, compression. */
static void test_runs(void **state)
{
	struct fix x;
	char path[400], path2[400], text[256];

	(void)state;
	fix_init(&x);
	put(&x, "gpu.log", gpu_log);
	put(&x, "app.log", app_log);

	/* gpu.log: 5 lines, 1 blank, 3 events, 1 reject; app.log: 5 lines,
	 * 2 records, 3 continuation lines */
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 2, .new_ = 2, .read = 10, .stored = 5,
				      .rejected = 1, .continued = 3});
	assert_int_equal(x.nnotice, 0);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 5);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM rejects"), 1);
	assert_int_equal(sql_int(&x, "SELECT line FROM rejects"), 3);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM streams"), 2);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM runs WHERE finished_us IS NOT NULL"), 1);
	assert_int_equal(sql_int(&x, "SELECT lines_stored FROM runs"), 5);
	assert_int_equal(sql_int(&x, "SELECT line FROM v_events WHERE message = 'oom'"), 5);
	sql_text(&x, "SELECT message FROM events WHERE line = 1 AND message LIKE 'sample%'", text,
		 sizeof(text));
	assert_string_equal(text, "sample failed\nTraceback (most recent call last):\n"
				  "  File \"monitor.py\", line 42, in sample\n"
				  "RuntimeError: CUDA error: out of memory");
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM v_events WHERE component = 'gpu'"), 3);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM v_events WHERE kernel = 'force_pass_kernel'"),
			 1);

	/* unchanged */
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 2, .unchanged = 2});
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 5);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM runs"), 2);

	/* two lines appended to gpu.log */
	append(&x, "gpu.log",
	       "{\"timestamp\": \"2025-09-09T14:30:26Z\", \"level\": \"INFO\", \"message\": \"six\"}\n"
	       "{\"timestamp\": \"2025-09-09T14:30:27Z\", \"level\": \"INFO\", \"message\": \"seven\"}\n");
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 2, .unchanged = 1, .grown = 1, .read = 2, .stored = 2});
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 7);
	assert_int_equal(sql_int(&x, "SELECT line FROM events WHERE message = 'seven'"), 7);

	/* rotation: gpu.log renamed to gpu.log.1, a new gpu.log */
	snprintf(path, sizeof(path), "%s/gpu.log", x.logs);
	snprintf(path2, sizeof(path2), "%s/gpu.log.1", x.logs);
	assert_int_equal(rename(path, path2), 0);
	put(&x, "gpu.log",
	    "{\"timestamp\": \"2025-09-09T15:00:00Z\", \"level\": \"INFO\", \"message\": \"new start\"}\n");
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 3, .new_ = 1, .unchanged = 1, .rotated = 1, .read = 1,
				      .stored = 1});
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 8);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM streams"), 3);
	/* the old row followed its file to the new name */
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM files WHERE path LIKE '%/gpu.log.1'"), 1);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM files f JOIN streams s ON s.id = f.stream_id"
				     " WHERE f.path LIKE '%/gpu.log.1' AND s.lines = 7"), 1);

	/* gpu.log.1 compressed to gpu.log.1.gz: the same content, nothing new */
	{
		size_t len;
		unsigned char *buf = gl_test_read(path2, &len);

		snprintf(path, sizeof(path), "%s/gpu.log.1.gz", x.logs);
		gl_test_write_gz(path, buf, len, (size_t)-1);
		free(buf);
		assert_int_equal(unlink(path2), 0);
	}
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 3, .unchanged = 2, .rotated = 1});
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 8);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM streams"), 3);
	fix_release(&x);
}

/* A PNG is skipped (and named) on every run; the others are read. */
static void test_skipped_png(void **state)
{
	static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0,
					    13, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1,
					    8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89};
	struct fix x;
	char path[400], status[32];

	(void)state;
	fix_init(&x);
	put(&x, "app.log", app_log);
	snprintf(path, sizeof(path), "%s/chart.png", x.logs);
	gl_test_write(path, png, sizeof(png));
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 2, .new_ = 1, .skipped = 1, .read = 5, .stored = 2,
				      .continued = 3});
	assert_int_equal(x.nnotice, 1);
	assert_int_equal(x.notice_code[0], GL_OK);
	assert_string_equal(x.notice_path[0], path);
	sql_text(&x, "SELECT status FROM files WHERE path LIKE '%/chart.png'", status, sizeof(status));
	assert_string_equal(status, "skipped");
	/* again: still skipped, still named, nothing read */
	assert_int_equal(run(&x), GL_OK);
	check_stats(&x, (struct want){.seen = 2, .unchanged = 1, .skipped = 1});
	assert_int_equal(x.nnotice, 1);
	assert_string_equal(x.notice_path[0], path);
	fix_release(&x);
}

/* A missing path fails the run with GL_EIO; the other paths are stored. */
static void test_missing_path(void **state)
{
	struct fix x;
	char missing[400];
	const char *paths[2];

	(void)state;
	fix_init(&x);
	put(&x, "gpu.log", gpu_log);
	snprintf(missing, sizeof(missing), "%s/no-such-dir", x.dir);
	paths[0] = missing;
	paths[1] = x.logs;
	assert_int_equal(run_paths(&x, paths, 2, NULL), GL_EIO);
	check_stats(&x, (struct want){.seen = 1, .new_ = 1, .failed = 1, .read = 5, .stored = 3,
				      .rejected = 1});
	assert_int_equal(x.nnotice, 1);
	assert_int_equal(x.notice_code[0], GL_EIO);
	assert_string_equal(x.notice_path[0], missing);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 3);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM runs WHERE finished_us IS NOT NULL"), 1);
	fix_release(&x);
}

/* Lines a gzip file yields before its damage, counted with zlib directly. */
static size_t gz_complete_lines(const char *path)
{
	size_t len, lines = 0;
	unsigned char *in = gl_test_read(path, &len);
	unsigned char out[65536];
	z_stream zs = {0};
	int zrc = Z_OK;

	assert_int_equal(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
	zs.next_in = in;
	zs.avail_in = (uInt)len;
	while (zrc == Z_OK) {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zrc = inflate(&zs, Z_NO_FLUSH);
		for (size_t i = 0; i < sizeof(out) - zs.avail_out; i++)
			lines += out[i] == '\n';
		if (zrc == Z_BUF_ERROR || (zrc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0))
			break;
	}
	/* the file was cut: inflate never reached the end of the stream */
	assert_int_not_equal(zrc, Z_STREAM_END);
	inflateEnd(&zs);
	free(in);
	return lines;
}

static void test_damaged_gzip(void **state)
{
	enum { N = 4000 };
	struct fix x;
	char path[400], line[200], note[400];
	size_t cap = (size_t)N * 200, used = 0, total, lines, damage_at = 0;
	char *text = malloc(cap);

	(void)state;
	assert_non_null(text);
	/* varied enough that the compressed size grows with the lines */
	for (int i = 0; i < N; i++) {
		int n = snprintf(line, sizeof(line),
				 "{\"timestamp\": \"2025-09-09T14:%02d:%02d.%06dZ\", \"level\": \"INFO\", "
				 "\"message\": \"step %d value %u\"}\n",
				 (i / 60) % 60, i % 60, (i * 7919) % 1000000, i,
				 (unsigned)(i * 2654435761u));

		memcpy(text + used, line, (size_t)n);
		used += (size_t)n;
	}
	fix_init(&x);
	put(&x, "app.log", app_log);
	snprintf(path, sizeof(path), "%s/old.log.gz", x.logs);
	total = gl_test_write_gz(path, text, used, (size_t)-1);
	gl_test_write_gz(path, text, used, total / 2);
	lines = gz_complete_lines(path);
	assert_true(lines > 100 && lines < N);
	/* where the damage is: after those lines */
	for (size_t i = 0, seen = 0; seen < lines; i++)
		if (text[i] == '\n' && ++seen == lines)
			damage_at = i + 1;
	free(text);

	assert_int_equal(run(&x), GL_EIO);
	check_stats(&x, (struct want){.seen = 2, .new_ = 2, .damaged = 1, .read = 5 + lines,
				      .stored = 2 + lines, .continued = 3});
	assert_int_equal(x.nnotice, 1);
	assert_int_equal(x.notice_code[0], GL_EFORMAT);
	assert_string_equal(x.notice_path[0], path);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM events"), 2 + (int64_t)lines);
	/* the damage is a reject of no line, and the file's note */
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM rejects"), 1);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM rejects WHERE line IS NULL"), 1);
	assert_int_equal(sql_int(&x, "SELECT offset FROM rejects"), (int64_t)damage_at);
	sql_text(&x, "SELECT status FROM files WHERE path LIKE '%/old.log.gz'", note, sizeof(note));
	assert_string_equal(note, "damaged");
	sql_text(&x, "SELECT note FROM files WHERE path LIKE '%/old.log.gz'", note, sizeof(note));
	assert_non_null(strstr(note, "compressed byte"));
	fix_release(&x);
}

static void test_unknown_format(void **state)
{
	struct fix x;
	const char *paths[1];

	(void)state;
	fix_init(&x);
	put(&x, "gpu.log", gpu_log);
	paths[0] = x.logs;
	assert_int_equal(run_paths(&x, paths, 1, "no-such-format"), GL_EUSAGE);
	assert_int_equal(x.err.code, GL_EUSAGE);
	assert_non_null(strstr(x.err.msg, "no-such-format"));
	/* nothing was created */
	assert_int_equal(access(x.db, F_OK), -1);
	/* a known one is accepted */
	assert_int_equal(run_paths(&x, paths, 1, "json"), GL_OK);
	check_stats(&x, (struct want){.seen = 1, .new_ = 1, .read = 5, .stored = 3, .rejected = 1});
	fix_release(&x);
}

static void test_not_gpulog(void **state)
{
	static const char junk[] = "this is a text file, not a database\n";
	struct fix x;
	sqlite3 *db = NULL;
	size_t len;
	unsigned char *back;

	(void)state;
	fix_init(&x);
	put(&x, "gpu.log", gpu_log);
	gl_test_write(x.db, junk, strlen(junk));
	assert_int_equal(run(&x), GL_ENOTGPULOG);
	assert_int_equal(x.err.code, GL_ENOTGPULOG);
	/* left untouched */
	back = gl_test_read(x.db, &len);
	assert_int_equal(len, strlen(junk));
	assert_memory_equal(back, junk, len);
	free(back);

	/* an SQLite database of another program */
	unlink(x.db);
	assert_int_equal(sqlite3_open(x.db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (a); INSERT INTO t VALUES (42);", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(run(&x), GL_ENOTGPULOG);
	assert_int_equal(sql_int(&x, "SELECT a FROM t"), 42);
	assert_int_equal(sql_int(&x, "SELECT count(*) FROM sqlite_master"), 1);
	fix_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_skipped_png),
		cmocka_unit_test(test_missing_path),
		cmocka_unit_test(test_damaged_gzip),
		cmocka_unit_test(test_unknown_format),
		cmocka_unit_test(test_not_gpulog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
