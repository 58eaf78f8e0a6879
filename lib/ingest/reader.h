/*
 * reader.h - the input stage: a file, plain or gzip (recognised by its magic
 * bytes, never by name), as a sequence of lines of its decompressed content.
 *
 * The only user of igzip (ISA-L). Memory is bounded whatever the input: a line longer
 * than GL_LINE_MAX is handed out cut to its first GL_LINE_MAX bytes, with its
 * full length and hash still exact.
 */
#ifndef GL_READER_H
#define GL_READER_H

#include <stddef.h>
#include <stdint.h>

#include "../gpulog.h"

#define GL_LINE_MAX (1u << 20)	/* longest line handed out whole: 1 MiB */

struct gl_reader;

/* One line of decompressed content. */
struct gl_line {
	const char *p;		/* the line without '\n' (and without a final '\r'); */
	size_t len;		/*   at most GL_LINE_MAX bytes: see truncated */
	uint64_t full_len;	/* length of the whole line in the file, '\n' included */
	uint64_t offset;	/* decompressed byte offset of the line's first byte */
	uint64_t hash;		/* gl_hash64(all full_len bytes, seed 0), '\n' included */
	int truncated;		/* 1: the line was longer than GL_LINE_MAX and p holds its start */
	int terminated;		/* 0: the last line of the content, with no '\n' */
};

/*
 * Opens path for reading. *out is NULL on failure. Returns GL_OK, or GL_EIO
 * with err naming the path and the cause.
 */
int gl_reader_open(struct gl_reader **out, const char *path, struct gl_err *err);

/* Closes r and frees it. NULL is a no-op. */
void gl_reader_close(struct gl_reader *r);

/*
 * gzip: a member's CRC-32 and length are not compared with its trailer from
 * now on, for a pass that only looks for something and is followed by the
 * checked read (tracetail.c). Damage to the compressed data itself is still
 * found.
 */
void gl_reader_no_check(struct gl_reader *r);

/* 1 when the file is gzip (by its first two bytes 1f 8b). */
int gl_reader_is_gzip(const struct gl_reader *r);

/*
 * Reads the next line into *line; its bytes are valid until the next call
 * on r. Returns 1 for a line, 0 at the end of the content, or GL_EFORMAT
 * when the content is damaged (truncated or corrupt gzip): every complete
 * line before the damage has been returned, err says what and where
 * (err->line is the compressed byte offset), and further calls return 0.
 * A gzip file of several members is read as one content. Returns GL_EIO
 * on a read error.
 */
int gl_reader_next(struct gl_reader *r, struct gl_line *line, struct gl_err *err);

/*
 * Hands out the next piece of the content as it is: not cut into lines,
 * no line hashed (for a scan that needs only the end of a gzip file:
 * tracetail.c). *p and *n are valid until the next call. Returns 1 for a
 * piece, 0 at the end, or what gl_reader_next would (GL_EFORMAT: the
 * pieces before the damage were handed out, the bytes after the last
 * '\n' among them included). Not to be mixed with gl_reader_next on one
 * reader.
 */
int gl_reader_next_chunk(struct gl_reader *r, const char **p, size_t *n, struct gl_err *err);

/*
 * Positions r so that the next line starts at decompressed offset off.
 * For a plain file this seeks; for gzip it decompresses and discards.
 * off must be a line boundary. Returns GL_OK or a negative code.
 */
int gl_reader_seek(struct gl_reader *r, uint64_t off, struct gl_err *err);

/* Rewinds to the start of the content. */
int gl_reader_rewind(struct gl_reader *r, struct gl_err *err);

/* Raw (compressed) bytes consumed so far, for progress display. */
uint64_t gl_reader_raw_offset(const struct gl_reader *r);

#endif
