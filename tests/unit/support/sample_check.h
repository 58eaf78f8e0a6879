/*
 * sample_check.h - reading a whole telemetry file through a format in the
 * unit tests (tests/unit/test_fmt_{nvsmi,dmon,pmon,dcgmi}.c).
 */
#ifndef GL_TEST_SAMPLE_CHECK_H
#define GL_TEST_SAMPLE_CHECK_H

#include <stddef.h>

#include "ingest/format.h"

/* What the lines of one file became. */
struct gl_test_scount {
	long lines;		/* lines read (blank ones included) */
	long none, sample_lines, reject, foreign;
	long samples;		/* samples in all */
	char first_reason[160];	/* the first reject's reason */
};

/* Called for each sample; s's strings are valid for the call only. */
typedef void (*gl_test_sample_fn)(const struct gl_sample *s, void *arg);

/*
 * Parses every line of the file at path with fmt as the ingest does (split
 * at '\n', a trailing '\r' removed, each line in a buffer of its exact
 * size) on a context set up from tmpl (its tz_name and hint; a fresh
 * state). When restart_at > 0, after that many lines the context's state
 * is copied into a fresh context, as a later run would restore it, and
 * the old one released. Fills *c and calls fn (may be NULL).
 */
void gl_test_read_samples(const struct gl_format *fmt, const struct gl_parse_ctx *tmpl,
			  const char *path, long restart_at, struct gl_test_scount *c,
			  gl_test_sample_fn fn, void *arg);

/* gl_format_detect() on the file's first 32 lines ('\r' removed): the name, or "(none)". */
const char *gl_test_detect_path(const char *path);

#endif
