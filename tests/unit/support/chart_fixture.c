/*
 * chart_fixture.c - see chart_fixture.h. The values are chosen so that the
 * charts have something to show: gemm slows down by half at noon, the
 * '<script>' kernel has flagged anomalies, memory grows through the day.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "chart_fixture.h"
#include "schema_sql.h"

const char *const fix_kernels[4] = {
	"gemm_fp16",
	"<script>alert('k')</script> & \"co\"",
	"softmax_\xC3\xBCnic\xC3\xB8" "de_\xE6\x97\xA5\xE6\x9C\xAC",
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
	"at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
	"at::detail::Array<char*, 1>)",
};

int fix_tmpdir(char *buf)
{
	snprintf(buf, 64, "/tmp/gl_chartfix_XXXXXX");
	return mkdtemp(buf) ? 0 : -1;
}

int fix_rmdir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int fix_make_db(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *ev = NULL, *mem = NULL, *nm = NULL;
	int rc = -1;

	remove(path);
	if (sqlite3_open(path, &db) != SQLITE_OK || exec(db, gl_schema_sql) != 0 ||
	    exec(db, "PRAGMA application_id=1735420007; PRAGMA user_version=2; BEGIN;") != 0 ||
	    exec(db, "INSERT INTO streams (id, first_path, bytes, lines, hash, head_bytes, "
		     "head_hash) VALUES (1, '/logs/gpu.log', 0, 0, 0, 0, 0);") != 0)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO names (id, name) VALUES (?, ?)", -1, &nm,
			       NULL) != SQLITE_OK)
		goto out;
	/* Kernels 1..4, components 10..12. */
	const char *comp[3] = {"training", "inference", "<b>data</b>"};

	for (int i = 0; i < 7; i++) {
		sqlite3_bind_int(nm, 1, i < 4 ? i + 1 : 10 + i - 4);
		sqlite3_bind_text(nm, 2, i < 4 ? fix_kernels[i] : comp[i - 4], -1, SQLITE_STATIC);
		if (sqlite3_step(nm) != SQLITE_DONE)
			goto out;
		sqlite3_reset(nm);
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO events (ts_us, level, component_id, kernel_id, "
			       "dur_us, mem_mb, anomaly, message, stream_id, line) "
			       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)", -1, &ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO mem_events (ts_us, action, ptr, size_bytes, "
			       "stream_id, line) VALUES (?, ?, ?, ?, 1, ?)", -1, &mem, NULL) !=
		    SQLITE_OK)
		goto out;
	int line = 0;

	/* The previous day (baseline) and the day itself: 2 x 2400 samples per kernel. */
	for (int day = -1; day <= 0; day++)
		for (int i = 0; i < 2400; i++) {
			int64_t t = FIX_DAY0_US + day * FIX_DAY_US + (int64_t)i * 36 * 1000000;

			for (int k = 0; k < 4; k++) {
				double base = k == 0 ? 100 : k == 1 ? 2000 : k == 2 ? 15 : 400;
				double dur = base * (1 + 0.1 * sin(i * 0.7 + k));
				int anomaly = k == 1 && i % 400 == 7;

				if (k == 0 && day == 0 && i >= 1200)
					dur *= 1.5;
				if (anomaly)
					dur *= 5;
				sqlite3_bind_int64(ev, 1, t + k * 1000);
				sqlite3_bind_int(ev, 2, 3);
				sqlite3_bind_int(ev, 3, 10 + k % 2);
				sqlite3_bind_int(ev, 4, k + 1);
				sqlite3_bind_double(ev, 5, dur);
				if (k == 0)
					sqlite3_bind_double(ev, 6, 1000 + i * 0.5);
				else
					sqlite3_bind_null(ev, 6);
				sqlite3_bind_int(ev, 7, anomaly);
				sqlite3_bind_null(ev, 8);
				sqlite3_bind_int(ev, 9, ++line);
				if (sqlite3_step(ev) != SQLITE_DONE)
					goto out;
				sqlite3_reset(ev);
			}
			if (day == 0 && i % 40 == 3) {
				sqlite3_bind_int64(ev, 1, t + 5000);
				sqlite3_bind_int(ev, 2, i % 80 == 3 ? 6 : 5);
				sqlite3_bind_int(ev, 3, 10 + (i / 40) % 3);
				sqlite3_bind_null(ev, 4);
				sqlite3_bind_null(ev, 5);
				sqlite3_bind_null(ev, 6);
				sqlite3_bind_int(ev, 7, 0);
				sqlite3_bind_text(ev, 8, "cudaMalloc failed for <512 MiB> & retry",
						  -1, SQLITE_STATIC);
				sqlite3_bind_int(ev, 9, ++line);
				if (sqlite3_step(ev) != SQLITE_DONE)
					goto out;
				sqlite3_reset(ev);
			}
			if (day == 0 && i % 10 == 0) {
				/* Allocate 1 MiB; free it 30 rows later, keep every 7th. */
				sqlite3_bind_int64(mem, 1, t + 7000);
				sqlite3_bind_int(mem, 2, 0);
				sqlite3_bind_int64(mem, 3, 0x7f0000000000LL + i);
				sqlite3_bind_int64(mem, 4, 1 << 20);
				sqlite3_bind_int(mem, 5, ++line);
				if (sqlite3_step(mem) != SQLITE_DONE)
					goto out;
				sqlite3_reset(mem);
				if (i >= 300 && (i - 300) % 70 != 0) {
					sqlite3_bind_int64(mem, 1, t + 8000);
					sqlite3_bind_int(mem, 2, 1);
					sqlite3_bind_int64(mem, 3, 0x7f0000000000LL + i - 300);
					sqlite3_bind_int64(mem, 4, 1 << 20);
					sqlite3_bind_int(mem, 5, ++line);
					if (sqlite3_step(mem) != SQLITE_DONE)
						goto out;
					sqlite3_reset(mem);
				}
			}
		}
	rc = exec(db, "COMMIT;");
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(mem);
	sqlite3_finalize(nm);
	sqlite3_close(db);
	return rc;
}
