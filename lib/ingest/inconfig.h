/*
 * inconfig.h - the ingest config (gpulog-ingest --config FILE): what to do
 * with which input file, read from JSON before the run starts.
 *
 *   {"timezone": "Europe/Berlin", "max_rejects": 500, "keep_days": 30,
 *    "inputs": [
 *      {"path": "dmon.txt", "start": "2025-09-08T14:00:00", "interval_s": 1},
 *      {"path": "gpu-noheader.csv", "columns": ["timestamp", "index", "utilization.gpu"]},
 *      {"path": "scratch.log", "skip": true},
 *      {"path": "uk-node.log", "date_order": "day_first"}]}
 * (share/gpulog-ingest.conf.json is a fuller example.)
 *
 * Only this file knows jansson's config side; the rest of ingest sees a
 * struct gl_inconfig and asks gl_inconfig_match() per file.
 */
#ifndef GL_INCONFIG_H
#define GL_INCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* One entry of "inputs". Absent: NULL / 0 / the hint's absent values. */
struct gl_inconfig_input {
	char *path;			/* the glob, see gl_glob_match() */
	const struct gl_format *format;	/* "format" (or nvsmi when only "columns" is given) */
	char *tz_name;			/* "timezone"; NULL: the run's */
	char *host;			/* "host": label of the file's rows; NULL: the run's */
	int skip;			/* "skip": true */
	int start_naive;		/* "start" had no zone: in tz_name (else the run's zone) */
	int interval_s_given;		/* "interval_s" was given (checked against "start") */
	enum gl_date_order date_order;	/* "date_order"; AUTO: the run's */
	/*
	 * "columns", "start", "interval_s" as the formats read them; columns
	 * point into this struct. start_us is final after
	 * gl_inconfig_resolve().
	 */
	struct gl_input_hint hint;
};

struct gl_inconfig {
	struct gl_inconfig_input *in;	/* "inputs", in order: the first match wins */
	size_t n;
	char *tz_name;			/* "timezone": default zone of every input; NULL: none */
	uint64_t max_rejects;		/* "max_rejects"; 0: not given */
	int64_t keep_days;		/* "keep_days"; 0: not given */
	/*
	 * "date_order": "month_first" or "day_first", for text dates such as
	 * 03/04/2026 in a file none of whose dates tells (a first field above
	 * 12 says day/month, a second one month/day, for the whole file).
	 */
	enum gl_date_order date_order;
};

/*
 * Reads the config file at path into a new *out (free with
 * gl_inconfig_free()). Every key is checked: an unknown key, a wrong type,
 * a bad glob, zone, time or number is GL_ECONFIG with err naming the file
 * (err->path), and in err->cause the key ("inputs[2].interval_s: ...").
 * A file that cannot be read is GL_EIO.
 */
int gl_inconfig_load(struct gl_inconfig **out, const char *path, struct gl_err *err);

/* The same from text[0..len); name is the file's name for messages. */
int gl_inconfig_parse(struct gl_inconfig **out, const char *text, size_t len, const char *name,
		      struct gl_err *err);

/* NULL is a no-op. */
void gl_inconfig_free(struct gl_inconfig *cfg);

/*
 * Turns the starts written without a zone into UTC: each in its entry's
 * "timezone", else run_tz (the run's zone: --timezone, else the config's
 * "timezone"; NULL: UTC). Call once before matching.
 */
void gl_inconfig_resolve(struct gl_inconfig *cfg, const char *run_tz);

/*
 * The first entry whose glob matches rel, the file's path relative to the
 * PATH argument it was found under; NULL when none (or cfg is NULL).
 * The entry stays valid until gl_inconfig_free().
 */
const struct gl_inconfig_input *gl_inconfig_match(const struct gl_inconfig *cfg, const char *rel);

/*
 * Matches a relative path against an input glob. A pattern without '/'
 * matches the file's name in any directory ("*.csv"). A pattern with '/'
 * matches the whole relative path, one component per component: '*', '?'
 * and [...] (fnmatch(3)) never cross a '/', and a component that is
 * exactly "**" matches any number of whole components, none included:
 * "**", "dmon", "*.txt" joined by '/' matches "dmon/a.txt" and
 * "n1/dmon/a.txt". A "**" inside a component is a plain '*'. Returns 1 on
 * a match, else 0.
 */
int gl_glob_match(const char *pattern, const char *rel);

/*
 * NULL when pattern is a usable input glob, else why not ("empty",
 * "absolute", "an empty component", "an unclosed '['").
 */
const char *gl_glob_check(const char *pattern);

#endif
