/*
 * textfmt.h - small pieces shared by the text log formats (envlog, pylog,
 * rmmlog, rmmcsv): number and time-of-day scanners over byte slices that
 * are not NUL-terminated, and a writer for the compact JSON objects that
 * text formats put into gl_event.metadata.
 */
#ifndef GL_TEXTFMT_H
#define GL_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* s[0..len) with leading and trailing spaces and tabs removed. */
struct gl_str gl_textfmt_trim(const char *s, size_t len);

/*
 * All of s[0..len) as an unsigned decimal (no sign, at least one digit, no
 * overflow). Returns 0, or -1.
 */
int gl_textfmt_u64(const char *s, size_t len, uint64_t *v);

/* All of s[0..len) as hex digits after "0x" or "0X" (1 to 16 digits). Returns 0, or -1. */
int gl_textfmt_hex(const char *s, size_t len, uint64_t *v);

/*
 * All of s[0..len) as a time of day "HH:MM:SS", then sep and 1 to 9 digits
 * of fraction (kept to the µs, truncated); sep is ':' in spdlog's
 * "20:13:10:522999", '.' in "22:30:49.650739". The fraction may be absent.
 * Sets *tod_us (µs since midnight). Returns 0, or -1.
 */
int gl_textfmt_tod(const char *s, size_t len, char sep, int64_t *tod_us);

/*
 * Writes one JSON object into a fixed buffer, counting what it would need
 * when the buffer is too small (or NULL). Build the object twice: once with
 * no buffer to learn its length, once into scratch of that size.
 */
struct gl_jsonw {
	char *buf;	/* NULL: count only */
	size_t cap;
	size_t len;	/* bytes written, or that would be */
	int fields;	/* members so far */
};

/* Starts the object: writes '{'. */
void gl_jsonw_begin(struct gl_jsonw *w, char *buf, size_t cap);
/* A member with a string value, escaped per RFC 8259. */
void gl_jsonw_str(struct gl_jsonw *w, const char *key, const char *s, size_t n);
void gl_jsonw_int(struct gl_jsonw *w, const char *key, int64_t v);
void gl_jsonw_uint(struct gl_jsonw *w, const char *key, uint64_t v);
/* A number (%.10g); a NaN or infinity is written as "". */
void gl_jsonw_double(struct gl_jsonw *w, const char *key, double v);
void gl_jsonw_bool(struct gl_jsonw *w, const char *key, int v);
/* Closes the object: writes '}'. Returns 1 when everything fitted in cap. */
int gl_jsonw_end(struct gl_jsonw *w);

#endif
