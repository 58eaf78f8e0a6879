/*
 * sec_scopes.h - the results of the scopes section (sec_scopes.c), kept in
 * its own state (section.h): one row per scope path and device of the
 * spans in the window. For tests, through gl_scopes_result.
 */
#ifndef GL_SEC_SCOPES_H
#define GL_SEC_SCOPES_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct gl_report_scope {
	const char *scope;		/* the path "timestep|solve", borrowed from the query's names */
	char *device;			/* the spans' device; NULL: not per device (CPU-side ranges) */
	uint64_t count;			/* spans */
	double total_ms, mean_ms, p50_ms, p95_ms, max_ms;
	uint64_t kernels;		/* kernel timings inside (see sec_scopes.c) */
	double gpu_ms;			/* their summed duration */
};

/* The section's results: rows by total_ms, largest first (ties: scope, device). */
struct gl_scopes_result {
	struct gl_report_scope *rows;
	size_t n;
	uint64_t spans;			/* spans read (with a path) */
};

/* The section's results in rep; none when rep holds no scopes state. The result comes
 * first in the state (a hand-made model's to fill). */
const struct gl_scopes_result *gl_scopes_result(const struct gl_report *rep);

#define GL_PNG_SCOPES "scopes.png"

#endif
