/*
 * sec_memory.h - what the memory section (sec_memory.c) keeps in its own
 * state: its results (memory in use from the log events, the RMM
 * allocations replayed), read by the other sections (alerts), the HTML
 * page and tests through gl_memory_result; and, when charts are asked for,
 * its chart data: memory in use and the RMM outstanding bytes, reduced at
 * once into time columns over the report's time axis (rep->axis).
 */
#ifndef GL_SEC_MEMORY_H
#define GL_SEC_MEMORY_H

#include "chart.h"
#include "report.h"

#define GL_PNG_MEMORY "memory_usage_trend.png"

/* An RMM allocation still outstanding at the window's end. */
struct gl_report_leak {
	int64_t ts_us;			/* when it was allocated */
	uint64_t ptr;
	uint64_t size_bytes;
};

/* Power-of-two bucket: sizes in [lo_bytes, 2 * lo_bytes); lo_bytes 0 holds size 0. */
struct gl_report_bucket {
	uint64_t lo_bytes;
	uint64_t count;
};

#define GL_REPORT_SIZE_BUCKETS 65

/* RAPIDS RMM allocations replayed over the window (table mem_events). */
struct gl_report_rmm {
	uint64_t events;		/* mem_events rows in the window */
	uint64_t allocations;
	uint64_t frees;
	uint64_t allocation_failures;
	uint64_t unmatched_frees;	/* frees of a pointer not allocated in the window */
	uint64_t peak_outstanding_bytes;
	int64_t peak_ts_us;		/* GL_TS_NONE when nothing was allocated */
	uint64_t leaked_allocations;	/* outstanding at the window's end */
	uint64_t leaked_bytes;
	struct gl_report_leak *leaks;	/* largest first, at most top */
	size_t n_leaks;
	double size_min_bytes, size_p50_bytes, size_p90_bytes, size_p99_bytes, size_max_bytes;
	struct gl_report_bucket *histogram;	/* non-empty buckets, ascending */
	size_t n_histogram;
};

struct gl_report_memory {
	uint64_t samples;		/* events with mem_mb in the window */
	double peak_mib;		/* NAN when no samples */
	int64_t peak_ts_us;
	double last_mib;
	int64_t last_ts_us;
	enum gl_verdict verdict;	/* from the memory trend */
	struct gl_report_rmm rmm;
};

/* The section's results in rep; with nothing in them (no samples) when rep holds no
 * memory state. The result comes first in the state (a hand-made model's to fill). */
const struct gl_report_memory *gl_memory_result(const struct gl_report *rep);

struct gl_memory_chart {
	struct gl_chart_cols mem;	/* events.mem_mb, MiB */
	struct gl_chart_cols rmm;	/* RMM outstanding bytes after each row, MiB */
	uint64_t rmm_rows;
	int64_t rmm_first_us, rmm_last_us;	/* earliest and latest RMM row seen */
	/*
	 * The same, in finer columns over [rmm_first_us, rmm_first_us + axis
	 * / 5], while every row falls in there: a few hours of RMM activity in
	 * a 7-day window get their own time axis (the window's columns would
	 * give them a handful). Released (col NULL) once a row falls outside.
	 */
	struct gl_chart_cols rmm_zoom;
};

/* Columns over the time axis [t0_us, t1_us). */
int gl_memory_chart_init(struct gl_memory_chart *c, int64_t t0_us, int64_t t1_us,
			 struct gl_err *err);

/* One RMM row; outstanding_bytes: allocated and not freed after it. */
void gl_memory_chart_rmm(struct gl_memory_chart *c, int64_t ts_us, uint64_t outstanding_bytes);

void gl_memory_chart_release(struct gl_memory_chart *c);

/* The memory section's chart data in rep; NULL when it holds none (no charts asked for,
 * or a hand-made model). */
const struct gl_memory_chart *gl_memory_chart(const struct gl_report *rep);

#endif
