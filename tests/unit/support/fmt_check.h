/*
 * fmt_check.h - checks shared by the format unit tests (tests/unit/test_fmt_*.c).
 *
 * Each takes the format under test and the parse context the test uses, so
 * one test file per format keeps only what is particular to its format:
 * its lines, its expected kinds and counts. Every function fails the running
 * cmocka test on error.
 */
#ifndef GL_TEST_FMT_CHECK_H
#define GL_TEST_FMT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/format.h"

/*
 * Writes the path of sub inside the real sample logs into buf: under
 * $GL_REALDATA when set and not empty, else under ../shared/realdata
 * (relative to the repo root, the tests' cwd). Returns 1 when that path
 * exists, 0 when not; the caller then skip()s.
 */
int gl_test_realdata(char *buf, size_t n, const char *sub);

/*
 * Parses every line of every file below dir (recursively, names starting
 * with '.' left out) with fmt on ctx, each line without its '\n' and in a
 * buffer of its exact size, and fails unless each one is of kind want.
 * Adds the number of lines read to *lines.
 */
void gl_test_tree_kind(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
		       const char *dir, enum gl_rec_kind want, long *lines);

/*
 * gl_test_tree_kind() on the real-data folder sub (see gl_test_realdata()).
 * Returns 1 when it was walked, 0 when it does not exist.
 */
int gl_test_realdata_tree(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			  const char *sub, enum gl_rec_kind want, long *lines);

/* Lines of each kind in one file, and the format detection picks for it. */
struct gl_test_counts {
	long lines, none, event, mem, cont, reject;
	long kernel;		/* events with a kernel name */
	const char *detected;	/* gl_format_detect() on the first 32 lines, or "(none)" */
};

/*
 * Parses every line of the file at path with fmt on ctx, counts the kinds
 * (a GL_REC_FOREIGN line fails the test), runs gl_format_detect() on the
 * file's first 32 lines, and fails unless every count and the detected name
 * equal *want.
 */
void gl_test_check_fixture(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			   const char *path, const struct gl_test_counts *want);

/*
 * Robustness: parses 20000 random lines of 0 to 119 bytes drawn from
 * alphabet[0..alphabet_len) (an LCG seeded with seed, so a failure repeats),
 * then one 1 MiB line of '['. Wants a known kind, a reason on every reject,
 * every string of an event inside the line or ctx's scratch (as struct
 * gl_format promises), and no event or memory record from the huge line.
 * ASan is what catches overruns here.
 */
void gl_test_junk(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
		  const char *alphabet, size_t alphabet_len, uint32_t seed);

/* Parses the NUL-terminated line with fmt on ctx into rec (after gl_ctx_begin_line). */
void gl_test_parse(const struct gl_format *fmt, struct gl_parse_ctx *ctx, const char *line,
		   struct gl_rec *rec);

/* Fails unless s is present and holds exactly the bytes of want. */
void gl_test_assert_str(struct gl_str s, const char *want);

#endif
