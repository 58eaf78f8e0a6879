/*
 * emit_events.h - gpulog-report --events: the window's events themselves,
 * one row each, as events.csv or events.ndjson.
 */
#ifndef GL_EMIT_EVENTS_H
#define GL_EMIT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* What to write: the window, the filter globs (as the report's), the format. */
struct gl_events_opts {
	const char *db_path;
	int64_t since_us, until_us;
	const char *const *components, *const *kernels, *const *hosts;
	size_t ncomponents, nkernels, nhosts;
	int ndjson;			/* 1: events.ndjson, else events.csv */
};

/*
 * Streams the events of the window that pass the filters into out->dir
 * (events.csv or events.ndjson, through a temporary file renamed at the
 * end). Mirrored records (events.dup_of set) are left out, as in every
 * count of the report. *rows gets the rows written. Returns GL_OK or an
 * enum gl_code with err set.
 */
int gl_emit_events(const struct gl_events_opts *o, struct gl_output *out, uint64_t *rows,
		   struct gl_err *err);

#endif
