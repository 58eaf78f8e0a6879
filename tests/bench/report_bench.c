/*
 * report_bench - fills a gpulog database with N synthetic events, fast,
 * through the schema, for the gpulog-report benchmark and CLI tests.
 *
 *   report_bench DB N [DAYS [END [KERNELS]]]
 *
 * Events are spread evenly over DAYS days (default 1) ending at END (RFC
 * 3339 or YYYY-MM-DD, default 2025-01-02): KERNELS kernels (default 20;
 * every 10th event has none, event i times kernel i mod KERNELS) with
 * durations around 100 * (k + 1) us (kernel 0 slowly degrading, rare
 * spikes), memory in use rising, 1% WARN/ERROR messages with varying
 * numbers, and one RMM allocate/free pair per 100 events (every 1000th
 * never freed), all in one stream of the JSON service's format ('json'),
 * in pages of gpulog-ingest's size, with events.packed as gpulog-ingest
 * writes it. A DB that exists is replaced.
 * Deterministic: the same arguments give the same data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gpulog.h"
#include "schema_sql.h"
#include "store/evpack.h"
#include "util/timeutil.h"


static int die(sqlite3 *db, const char *what)
{
	fprintf(stderr, "report_bench: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
	return 1;
}

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *ev = NULL, *mem = NULL;
	long long n, days = 1, kernels = 20;
	int64_t end = 0;
	uint64_t s = 42;
	char name[128], msg[128];

	if (argc < 3 || argc > 6 || (n = atoll(argv[2])) < 0 ||
	    (argc >= 4 && (days = atoll(argv[3])) < 1) ||
	    gl_time_parse_arg(argc >= 5 ? argv[4] : "2025-01-02", &end) != 0 ||
	    (argc >= 6 && ((kernels = atoll(argv[5])) < 1 || kernels > 100000000))) {
		fprintf(stderr, "usage: report_bench DB N [DAYS [END [KERNELS]]]\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return die(db, "cannot open");
	/* the page size gpulog-ingest gives a new database (GL_PAGE_SIZE in
	 * lib/store/store.c): the report reads what the ingest writes */
	if (sqlite3_exec(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF;"
			     " PRAGMA synchronous = OFF;", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, gl_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
			     "BEGIN;"
			     "INSERT INTO streams(id, format, first_path, bytes, lines, hash,"
			     " head_bytes, head_hash) VALUES (1, 'json', 'bench.log', 0, 0, 0, 0, 0);"
			     "INSERT INTO names(id, name) VALUES (1, 'trainer'), (2, 'dataloader'),"
			     " (3, 'node-1');",
			     NULL, NULL, NULL) != SQLITE_OK)
		return die(db, "cannot create the schema");
	for (long long k = 0; k < kernels; k++) {
		snprintf(name, sizeof(name),
			 "INSERT INTO names(id, name) VALUES (%lld, 'kernel_%02lld<float, %lld>')",
			 10 + k, k, k * 32);
		if (sqlite3_exec(db, name, NULL, NULL, NULL) != SQLITE_OK)
			return die(db, "cannot insert names");
	}
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO events(ts_us, level, component_id, host_id, kernel_id,"
			       " dur_us, mem_mb, anomaly, message, stream_id, line)"
			       " VALUES (?1, ?2, ?3, 3, ?4, ?5, ?6, ?7, ?8, 1, ?9)",
			       -1, &ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id,"
			       " line) VALUES (?1, ?2, ?3, ?4, 1, ?5)",
			       -1, &mem, NULL) != SQLITE_OK)
		return die(db, "cannot prepare");
	int64_t span = days * GL_US_PER_DAY, since = end - span;
	for (long long i = 0; i < n; i++) {
		int64_t ts = since + (int64_t)((double)span * (double)i / (double)n);
		long long k = i % kernels;
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		double noise = (double)(s >> 40) / 16777216.0;
		double dur = 100.0 * (k + 1) * (0.9 + 0.2 * noise);
		int spike = (s >> 20) % 5000 == 0;
		int level = (s >> 8) % 100 == 0 ? 5 : (s >> 8) % 100 == 1 ? 4 : 3;

		if (k == 0)
			dur *= 1 + 0.2 * (double)i / (double)n;
		if (spike)
			dur *= 10;
		sqlite3_bind_int64(ev, 1, ts);
		sqlite3_bind_int(ev, 2, level);
		sqlite3_bind_int(ev, 3, 1 + (int)(i % 2));
		if (i % 10 == 9) {
			sqlite3_bind_null(ev, 4);
			sqlite3_bind_null(ev, 5);
		} else {
			sqlite3_bind_int64(ev, 4, 10 + k);
			sqlite3_bind_double(ev, 5, dur);
		}
		sqlite3_bind_double(ev, 6, 1000 + 500.0 * (double)i / (double)n + 10 * noise);
		sqlite3_bind_int(ev, 7, spike);
		if (level >= 4) {
			snprintf(msg, sizeof(msg), "cudaMalloc failed for %d MiB at 0x%llx on device %d",
				 (int)(s % 4096), (unsigned long long)(s >> 16), (int)(i % 8));
			sqlite3_bind_text(ev, 8, msg, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_null(ev, 8);
		}
		sqlite3_bind_int64(ev, 9, i + 1);
		if (sqlite3_step(ev) != SQLITE_DONE)
			return die(db, "cannot insert events");
		sqlite3_reset(ev);
		if (i % 100 == 0) {
			for (int a = 0; a < 2; a++) {
				if (a == 1 && i % 100000 == 0)
					continue;	/* never freed */
				sqlite3_bind_int64(mem, 1, ts + a);
				sqlite3_bind_int(mem, 2, a);
				sqlite3_bind_int64(mem, 3, 0x7f0000000000LL + i * 4096);
				sqlite3_bind_int64(mem, 4, 256LL << (i / 100 % 12));
				sqlite3_bind_int64(mem, 5, i + 1);
				if (sqlite3_step(mem) != SQLITE_DONE)
					return die(db, "cannot insert mem_events");
				sqlite3_reset(mem);
			}
		}
	}
	sqlite3_finalize(ev);
	sqlite3_finalize(mem);
	/* events.packed as the migration to schema 6 makes it: from the columns */
	if (gl_evpack_register(db) != SQLITE_OK ||
	    sqlite3_exec(db, "UPDATE events SET packed = gl_ev_pack(" GL_EVPACK_COLUMNS ")", NULL,
			 NULL, NULL) != SQLITE_OK)
		return die(db, "cannot pack events");
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return die(db, "cannot commit");
	sqlite3_close(db);
	return 0;
}
