/*
 * sblock.h - metric samples packed per series (table sample_blocks).
 *
 * A block holds up to GL_SBLOCK_MAX samples of one series read from one
 * stream (one file, one path, one ts_estimated), in time order, spanning at
 * most GL_SBLOCK_SPAN_US. Its samples are one JSON text, readable with
 * SQLite's json_each (the view v_samples unpacks it):
 *
 *   [[0,45,0],[1000000,47.5,8],[2000000,44,16]]
 *
 * each entry [ts_us - t0_us, value, line - line0] of the block's row. A
 * block whose samples were read from several streams (one-sample blocks of
 * Prometheus scrapes merged at the end of a run, sblock_merge.c) lists
 * their origins in its row (column origins: [[stream_id, file_id,
 * path_id], ...], 0 for none) and each entry has a fourth member, the index
 * of its sample's origin there: [ts_us - t0_us, value, line - line0,
 * origin]. A
 * value is written in the fewest digits that read back as the same double
 * (integers and short decimals directly, else 17 significant digits);
 * infinities as 9e999 and -9e999 (as SQLite's JSON writes them).
 */
#ifndef GL_SBLOCK_H
#define GL_SBLOCK_H

#include <stddef.h>
#include <stdint.h>

#define GL_SBLOCK_MAX 4096				/* samples per block */
#define GL_SBLOCK_SPAN_US (3600LL * 1000000)	/* t1_us - t0_us at most */
/* A block of fewer samples is stored open: merged again at a run's end
 * (sblock_merge.c) */
#define GL_SBLOCK_OPEN_MIN 64
/* A merged block of samples of several origins holds at most this many: its
 * row (entries and origins, some 36 bytes a sample) stays under a third of a
 * 16 KiB page, so rows pack three and more to a page (240 scrapes' samples in
 * one row of 8.8 KiB took a page each) */
#define GL_SBLOCK_MULTI_MAX 128

struct gl_sblock_sample {
	int64_t ts_us;
	double value;
	int64_t line;
};

/*
 * Writes the JSON text of s[0..n) (n >= 1; sorted by ts_us; t0_us =
 * s[0].ts_us, line0 the smallest line) into *buf (grown as needed; *cap
 * its size). Returns the text's length (not counting the NUL written after
 * it), 0 when out of memory.
 */
size_t gl_sblock_encode(const struct gl_sblock_sample *s, size_t n, int64_t t0_us, int64_t line0,
			char **buf, size_t *cap);

/* gl_sblock_encode with each entry's origin, origin[0..n), as its fourth
 * member (origin NULL: none, the text of gl_sblock_encode). */
size_t gl_sblock_encode_origins(const struct gl_sblock_sample *s, const uint32_t *origin, size_t n,
				int64_t t0_us, int64_t line0, char **buf, size_t *cap);

/*
 * Reads the JSON text p[0..len) of a block with t0_us and line0 into
 * out[0..cap). Returns the number of samples read, -1 when the text is not
 * such a block or holds more than cap samples.
 */
long gl_sblock_decode(const char *p, size_t len, int64_t t0_us, int64_t line0,
		      struct gl_sblock_sample *out, size_t cap);

/* gl_sblock_decode that also gives each entry's origin in origin[0..cap)
 * (NULL: not wanted): its fourth member, 0 where it has none. */
long gl_sblock_decode_origins(const char *p, size_t len, int64_t t0_us, int64_t line0,
			      struct gl_sblock_sample *out, uint32_t *origin, size_t cap);

/*
 * A staged sample (table sample_stage, sblock_merge.h): a sample of a
 * batch's block of fewer than GL_SBLOCK_OPEN_MIN, waiting for the end of
 * the run to be merged into its series' blocks. A stage row holds a batch's
 * such samples, of many series, as one JSON text:
 *
 *   [[series_id, ts_estimated, ts_us, value, line, origin], ...]
 *
 * origin indexing the row's list of origins ([[stream_id, file_id,
 * path_id], ...]), values written as in a block.
 */
struct gl_stage_sample {
	int64_t series_id;
	int64_t ts_us;
	int64_t line;
	double value;
	uint32_t origin;
	int ts_estimated;
};

/* The JSON text of s[0..n) into *buf (grown; *cap its size); its length, 0
 * when out of memory. */
size_t gl_sblock_stage_encode(const struct gl_stage_sample *s, size_t n, char **buf, size_t *cap);

/* Reads a stage row's text into out[0..cap): the count, -1 when it is not
 * such a text or holds more than cap. */
long gl_sblock_stage_decode(const char *p, size_t len, struct gl_stage_sample *out, size_t cap);

/* Writes v in the fewest digits that read back exactly; returns the length
 * (at most 24; p needs 32 bytes). */
size_t gl_sblock_fmt_double(char *p, double v);

#endif
