/*
 * test_kernel_cache.c - reports/kernel_cache.c: timings handed back kernel
 * by kernel in ascending id, each kernel's in the order added, across block
 * boundaries (32 bytes, doubling to 1 MiB, then blocks of 2 MiB on huge
 * pages: each kernel here has 200,000 timings of 12 bytes on average, past
 * the first 2 MiB; and 3,000 kernels of few timings); times kept as steps
 * of every size, up and down, and durations bit for bit; the anomaly flag;
 * the bound and
 * what happens past it; a stop from the callback; the kernel pass read
 * from a database in groups (gl_kcache_pass_db) against SQLite's own
 * ORDER BY kernel_id, ts_us, id.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../../reports/kernel_cache.h"
#include "gpulog.h"
#include "schema_sql.h"
#include "store/query.h"
#include "support/tmpdir.h"

struct seen {
	size_t n, cap;
	struct gl_query_event *ev;
	size_t stop_at;		/* 0: never */
	int stop_rc;		/* returned at stop_at; 0: 7 */
};

static int on_ev(void *arg, const struct gl_query_event *ev)
{
	struct seen *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		assert_non_null(s->ev);
	}
	s->ev[s->n++] = *ev;
	return s->stop_at && s->n == s->stop_at ? (s->stop_rc ? s->stop_rc : 7) : 0;
}

static void test_order_and_fields(void **state)
{
	(void)state;
	enum { N = 600000, KERNELS = 3 };
	static int64_t ts[N];
	static double dur[N];
	static int kid[N], flag[N];
	struct gl_kcache *c = gl_kcache_new(10, N);
	struct seen s = {0};
	uint64_t r = 99;

	assert_non_null(c);
	/* kernel ids 9, 2, 5 interleaved at random, times increasing */
	static const int ids[KERNELS] = {9, 2, 5};
	for (int i = 0; i < N; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		kid[i] = ids[(r >> 33) % KERNELS];
		ts[i] = 1735689600000000LL + (int64_t)i * 4194304;	/* 2^22 us apart */
		dur[i] = (double)(r >> 11) / 9007199254740992.0 * 1000;
		flag[i] = (r >> 7) % 13 == 0;
		gl_kcache_add(c, kid[i], ts[i], dur[i], flag[i]);
	}
	/* every kernel fills its small blocks (32 + 64 + ... + 1 MiB bytes) and goes
	 * on: its timings are 12 bytes each (a step of at least 2^22 us in four
	 * bytes, a double) */
	for (int k = 0; k < KERNELS; k++) {
		size_t n = 0;

		for (int i = 0; i < N; i++)
			n += kid[i] == ids[k];
		assert_true(n * 12 > 2 * 1048576 + 100000);
	}
	assert_true(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), N);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 0);
	assert_int_equal(s.n, N);
	assert_int_equal(gl_kcache_count(c), 0);
	/* expected: a stable pass over the input for each id in ascending order */
	size_t j = 0;
	for (int id = 0; id < 10; id++)
		for (int i = 0; i < N; i++) {
			if (kid[i] != id)
				continue;
			const struct gl_query_event *e = &s.ev[j++];
			assert_int_equal(e->kernel_id, id);
			assert_true(e->ts_us == ts[i]);
			assert_true(e->dur_us == dur[i]);
			assert_int_equal(e->anomaly, flag[i]);
			assert_int_equal(e->dup_of, 0);
			assert_true(isnan(e->mem_mb) && isnan(e->exec_ms));
			assert_true(e->recovery_attempts == -1 && e->error_count == -1);
			assert_null(e->message);
			assert_null(e->source);
		}
	assert_int_equal(j, N);
	free(s.ev);
	gl_kcache_free(c);
}

/*
 * The times are kept as steps from the kernel's previous timing: steps of
 * every varint length, none, backwards (a kernel pass read from the
 * database may repeat a time; nothing promises order), from 0 and up to
 * the largest time kept; durations of every kind of double, bit for bit;
 * the flag with each. One past the largest time drops the cache.
 */
static void test_time_steps(void **state)
{
	(void)state;
	enum { N = 600 };
	static int64_t ts[N];
	static double dur[N];
	static int kid[N], flag[N];
	const double specials[] = {-0.0, 0.0, INFINITY, -INFINITY, 4.9e-324, -1.5, 1e300,
				   620.16};
	struct gl_kcache *c = gl_kcache_new(4, N);
	struct seen s = {0};
	uint64_t r = 5;
	size_t n = 0;

	assert_non_null(c);
	for (int i = 0; i < N; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		kid[i] = 1 + (int)((r >> 40) % 3);
		/* times: 0, the largest, and jumps of 2^0 .. 2^60 up and down */
		int bits = (int)((r >> 20) % 62);
		int64_t step = bits ? (int64_t)1 << (bits - 1) : 0;
		int64_t prev = i ? ts[i - 1] : 0;

		if (i % 50 == 0)
			ts[i] = 0;
		else if (i % 50 == 25)
			ts[i] = INT64_MAX / 4;
		else if ((r >> 8) & 1)
			ts[i] = prev - step < 0 ? prev / 2 : prev - step;
		else
			ts[i] = step > INT64_MAX / 4 - prev ? prev + (INT64_MAX / 4 - prev) / 3
							   : prev + step;
		dur[i] = i % 3 ? specials[(r >> 50) % 8] : (double)(r >> 11) / 1e9;
		flag[i] = (r >> 9) & 1;
		if (i % 7 == 0) {
			uint64_t nan = 0x7ff8000000000000ULL | (r >> 20);	/* a payload */

			memcpy(&dur[i], &nan, sizeof(nan));
		}
		gl_kcache_add(c, kid[i], ts[i], dur[i], flag[i]);
	}
	assert_true(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 0);
	assert_int_equal(s.n, N);
	for (int id = 1; id <= 3; id++)
		for (int i = 0; i < N; i++) {
			if (kid[i] != id)
				continue;
			const struct gl_query_event *e = &s.ev[n++];

			assert_int_equal(e->kernel_id, id);
			assert_true(e->ts_us == ts[i]);
			assert_memory_equal(&e->dur_us, &dur[i], sizeof(double));
			assert_int_equal(e->anomaly, flag[i]);
		}
	assert_int_equal(n, N);
	free(s.ev);
	gl_kcache_free(c);
	c = gl_kcache_new(4, 10);
	gl_kcache_add(c, 1, INT64_MAX / 4, 1, true);
	assert_true(gl_kcache_ok(c));
	gl_kcache_add(c, 2, INT64_MAX / 4 + 1, 1, false);
	assert_false(gl_kcache_ok(c));
	gl_kcache_free(c);
}

static void test_bound_drops(void **state)
{
	(void)state;
	struct gl_kcache *c = gl_kcache_new(4, 100);
	struct seen s = {0};

	assert_non_null(c);
	for (int i = 0; i < 100; i++)
		gl_kcache_add(c, 1 + i % 3, i, i, false);
	assert_true(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 100);
	gl_kcache_add(c, 1, 100, 100, false);	/* the 101st */
	assert_false(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 0);
	gl_kcache_add(c, 1, 101, 101, false);	/* stays dropped */
	assert_false(gl_kcache_ok(c));
	assert_int_equal(gl_kcache_count(c), 0);
	gl_kcache_free(c);
	/* an id outside the table, or a negative time, cannot be kept: dropped */
	c = gl_kcache_new(4, 100);
	gl_kcache_add(c, 4, 1, 1, false);
	assert_false(gl_kcache_ok(c));
	gl_kcache_free(c);
	c = gl_kcache_new(4, 100);
	gl_kcache_add(c, 1, -1, 1, false);
	assert_false(gl_kcache_ok(c));
	gl_kcache_free(c);
	/* empty: nothing handed out */
	c = gl_kcache_new(4, 100);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 0);
	assert_int_equal(s.n, 0);
	gl_kcache_free(c);
	assert_false(gl_kcache_ok(NULL));
}

/*
 * Many kernels of few timings each: 3,000 kernels of 1 to 3,000 timings,
 * interleaved at random, handed back kernel by kernel in the order added;
 * a replay stopped half way frees the rest (AddressSanitizer sees every
 * block freed once).
 */
static void test_many_kernels(void **state)
{
	(void)state;
	enum { KERNELS = 3000 };
	static int left[KERNELS + 1], total[KERNELS + 1];
	size_t n = 0, sum = 0;
	uint64_t r = 7;

	for (int k = 1; k <= KERNELS; k++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		total[k] = left[k] = 1 + (int)((r >> 33) % 3000);
		sum += (size_t)total[k];
	}
	for (int stop = 0; stop < 2; stop++) {
		struct gl_kcache *c = gl_kcache_new(KERNELS + 1, sum);
		struct seen s = {.stop_at = stop ? sum / 2 : 0};
		int64_t t = 0;

		assert_non_null(c);
		memcpy(left, total, sizeof(left));
		for (n = 0; n < sum;) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			int k = 1 + (int)((r >> 33) % KERNELS);

			if (!left[k])
				continue;
			/* the duration says which timing of its kernel it is */
			gl_kcache_add(c, k, t++, total[k] - left[k], false);
			left[k]--;
			n++;
		}
		assert_true(gl_kcache_ok(c));
		assert_int_equal(gl_kcache_replay(c, on_ev, &s), stop ? 7 : 0);
		assert_int_equal(s.n, stop ? sum / 2 : sum);
		size_t j = 0;

		for (int k = 1; k <= KERNELS && j < s.n; k++)
			for (int i = 0; i < total[k] && j < s.n; i++, j++) {
				assert_int_equal(s.ev[j].kernel_id, k);
				assert_true(s.ev[j].dur_us == i);
				assert_true(j == 0 || s.ev[j].kernel_id != s.ev[j - 1].kernel_id ||
					    s.ev[j].ts_us > s.ev[j - 1].ts_us);
			}
		free(s.ev);
		gl_kcache_free(c);
	}
}

static void test_stop(void **state)
{
	(void)state;
	struct gl_kcache *c = gl_kcache_new(3, 1000);
	struct seen s = {.stop_at = 50};

	for (int i = 0; i < 300; i++)
		gl_kcache_add(c, 1 + i % 2, i, i, i == 4);
	assert_int_equal(gl_kcache_replay(c, on_ev, &s), 7);
	assert_int_equal(s.n, 50);
	/* kernel 1's timings are the even i: 0, 2, 4 (flagged), ... */
	for (size_t i = 0; i < 50; i++) {
		assert_int_equal(s.ev[i].kernel_id, 1);
		assert_true(s.ev[i].ts_us == (int64_t)(2 * i));
		assert_int_equal(s.ev[i].anomaly, i == 2);
	}
	free(s.ev);
	gl_kcache_free(c);
}

/* keep(): every row but kernel 3's with a duration over 900 (a filter) */
static bool keep_row(void *arg, const struct gl_query_event *ev)
{
	(void)arg;
	return !(ev->kernel_id == 3 && ev->dur_us > 900);
}

/*
 * The kernel pass from the database: 4 kernels interleaved at random with
 * ties in time (several ids at one ts), rows without a kernel or duration,
 * mirrored rows, rows outside the window and before 1970 (which no cache
 * can hold: that group is read kernel by kernel). Every bound from 1 (each
 * kernel streamed alone) to all in one cache gives SQLite's ORDER BY
 * kernel_id, ts_us, id over the rows keep() accepts.
 */
static void test_pass_db(void **state)
{
	(void)state;
	enum { N = 3000, IDS = 6 };
	char dir[512], p[600];	/* a directory of its own: two test runs at once do not meet */
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t r = 4242;
	struct gl_query *q;
	struct gl_err err;

	gl_test_mkdtemp(dir, sizeof(dir), "kcache");
	snprintf(p, sizeof(p), "%s/pass.db", dir);
	for (int neg = 0; neg < 2; neg++) {
		const int64_t t0 = neg ? -1000 : 1000000, since = t0 + 100, until = t0 + 5000;
		static struct gl_query_event want[N];
		uint64_t kernel_n[IDS] = {0};
		size_t nwant = 0;

		unlink(p);
		assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db,
					      "PRAGMA application_id = 1735420007;"
					      " PRAGMA user_version = 5; BEGIN;"
					      "INSERT INTO names(id, name) VALUES (1, 'k1'), (2, 'k2'),"
					      " (3, 'k3'), (4, 'k4'), (5, 'c');"
					      "INSERT INTO streams(id, first_path, bytes, lines, hash,"
					      " head_bytes, head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db,
						    "INSERT INTO events(ts_us, kernel_id, dur_us,"
						    " anomaly, dup_of, stream_id, line)"
						    " VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)",
						    -1, &st, NULL),
				 SQLITE_OK);
		for (int i = 0; i < N; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			int k = (int)((r >> 33) % 5);	/* 0: no kernel */
			sqlite3_bind_int64(st, 1, t0 + (int64_t)((r >> 20) % 5300));
			if (k)
				sqlite3_bind_int(st, 2, k);
			else
				sqlite3_bind_null(st, 2);
			if ((r >> 40) % 50)
				sqlite3_bind_double(st, 3, (double)((r >> 8) % 1000) + 0.25);
			else
				sqlite3_bind_null(st, 3);
			sqlite3_bind_int(st, 4, (r >> 50) % 7 == 0);
			if ((r >> 45) % 40 == 0)
				sqlite3_bind_int(st, 5, 1);
			else
				sqlite3_bind_null(st, 5);
			sqlite3_bind_int(st, 6, i + 1);
			assert_int_equal(sqlite3_step(st), SQLITE_DONE);
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
		}
		sqlite3_finalize(st);
		assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
		/* the expectation: SQLite sorts */
		assert_int_equal(sqlite3_prepare_v2(db,
						    "SELECT kernel_id, ts_us, dur_us, anomaly FROM events"
						    " WHERE kernel_id IS NOT NULL AND dur_us IS NOT NULL"
						    " AND dup_of IS NULL AND ts_us >= ?1 AND ts_us < ?2"
						    " AND NOT (kernel_id = 3 AND dur_us > 900)"
						    " ORDER BY kernel_id, ts_us, id",
						    -1, &st, NULL),
				 SQLITE_OK);
		sqlite3_bind_int64(st, 1, since);
		sqlite3_bind_int64(st, 2, until);
		while (sqlite3_step(st) == SQLITE_ROW) {
			want[nwant].kernel_id = sqlite3_column_int64(st, 0);
			want[nwant].ts_us = sqlite3_column_int64(st, 1);
			want[nwant].dur_us = sqlite3_column_double(st, 2);
			want[nwant].anomaly = sqlite3_column_int(st, 3);
			kernel_n[want[nwant].kernel_id]++;
			nwant++;
		}
		sqlite3_finalize(st);
		sqlite3_close(db);
		assert_true(nwant > 1000 && kernel_n[3] > 0);

		static const size_t bounds[] = {1, 100, 500, 700, 1300, 100000};
		for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
			struct seen s = {0};

			assert_int_equal(gl_query_open(p, &q, &err), GL_OK);
			assert_int_equal(gl_kcache_pass_db(q, since, until, kernel_n, IDS, bounds[b],
							   keep_row, on_ev, &s, &err),
					 GL_OK);
			assert_int_equal(s.n, nwant);
			for (size_t i = 0; i < nwant; i++) {
				assert_int_equal(s.ev[i].kernel_id, want[i].kernel_id);
				assert_true(s.ev[i].ts_us == want[i].ts_us);
				assert_true(s.ev[i].dur_us == want[i].dur_us);
				assert_int_equal(s.ev[i].anomaly, want[i].anomaly);
			}
			free(s.ev);
			/* a stop from fn ends the pass with its value */
			memset(&s, 0, sizeof(s));
			s.stop_at = nwant / 2;
			assert_int_equal(gl_kcache_pass_db(q, since, until, kernel_n, IDS, bounds[b],
							   keep_row, on_ev, &s, &err),
					 7);
			assert_int_equal(s.n, nwant / 2);
			free(s.ev);
			/* so does an error from fn, and no row is handed out again after it */
			memset(&s, 0, sizeof(s));
			s.stop_at = nwant / 3;
			s.stop_rc = GL_ENOMEM;
			assert_int_equal(gl_kcache_pass_db(q, since, until, kernel_n, IDS, bounds[b],
							   keep_row, on_ev, &s, &err),
					 GL_ENOMEM);
			assert_int_equal(s.n, nwant / 3);
			free(s.ev);
			gl_query_close(q);
		}
	}
	gl_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_fields),
		cmocka_unit_test(test_many_kernels),
		cmocka_unit_test(test_time_steps),
		cmocka_unit_test(test_bound_drops),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_pass_db),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
