/*
 * sec_memory.h - the chart data the memory section (sec_memory.c) keeps in
 * its own state when charts are asked for: memory in use from the log
 * events and the RMM outstanding bytes, reduced at once into time columns
 * over the report's time axis (rep->axis). For its chart and for tests.
 */
#ifndef GL_SEC_MEMORY_H
#define GL_SEC_MEMORY_H

#include "chart.h"
#include "report.h"

#define GL_PNG_MEMORY "memory_usage_trend.png"

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
