/*
 * scopes.h - the results of the scopes section (sec_scopes.c), kept in the
 * section's state (section.h): one row per scope path and device of the
 * spans in the window. For the section's emitters and for tests (through
 * gl_report_section_state).
 */
#ifndef GL_SCOPES_H
#define GL_SCOPES_H

#include <stddef.h>
#include <stdint.h>

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

/* The results in st, the scopes section's state (NULL: none). */
const struct gl_scopes_result *gl_scopes_result(const void *st);

#define GL_PNG_SCOPES "scopes.png"

#endif
