/*
 * json_scan.h - the JSON-lines parser's two halves, as fmt_json.c uses them.
 *
 * 1. A validating JSON scanner (json_scan.c): RFC 8259 grammar, strict
 *    UTF-8, string escapes with surrogate pairs, numbers, nesting up to
 *    GL_JSON_MAX_DEPTH. It never reads outside s[0..len), never allocates,
 *    and accepts exactly the texts jansson's json_loadb(.., 0, ..) accepts:
 *    jansson also refuses \u0000 anywhere, lone surrogates, integers
 *    outside int64 and reals that overflow a double, so the scanner does too.
 *
 * 2. The record both paths fill (struct gl_json_fields, json_fields.c):
 *    the fast path (json_fields.c, from the scanner; used by fmt_json.c)
 *    and the jansson path (json_slow.c) each
 *    reduce a line to the last value of every known key, and one function,
 *    gl_json_fields_finish(), turns that into a gl_rec. So the two paths can
 *    differ only in how they read JSON, which the differential test checks.
 */
#ifndef GL_JSON_SCAN_H
#define GL_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* jansson's JSON_PARSER_MAX_DEPTH: the top-level value is depth 1. */
#define GL_JSON_MAX_DEPTH 2048

enum gl_json_type {
	GL_JSON_ABSENT = 0,	/* no such key (or no value scanned) */
	GL_JSON_NULL,
	GL_JSON_FALSE,
	GL_JSON_TRUE,
	GL_JSON_INT,		/* digits only: fits int64 */
	GL_JSON_REAL,		/* with '.', 'e' or 'E': finite double */
	GL_JSON_STRING,
	GL_JSON_ARRAY,
	GL_JSON_OBJECT,
};

enum {
	GL_JSON_F_ESCAPES = 1,	/* a string (or a container) holding a backslash escape */
	GL_JSON_F_SPACE = 2,	/* a container with whitespace between its tokens */
};

/* One scanned value: a slice of the input. */
struct gl_json_val {
	enum gl_json_type type;
	const char *p;		/* strings: the bytes between the quotes, still escaped */
	size_t len;
	unsigned flags;		/* GL_JSON_F_* */
};

/*
 * Scanner state over s[0..len). On failure err is a short static text
 * ("invalid UTF-8", ...) and err_pos the byte offset where it was seen;
 * punt is 1 when the text may be valid but the scanner leaves it to
 * jansson (a number too long to check).
 */
struct gl_json_scan {
	const char *s;
	size_t len;
	size_t pos;
	size_t members;		/* members seen so far in the object being walked */
	const char *err;
	size_t err_pos;
	int punt;
};

void gl_json_scan_init(struct gl_json_scan *sc, const char *s, size_t len);

/*
 * Scans one value at sc->pos (after optional whitespace) of nesting depth
 * depth (1 for the top-level value) and leaves sc->pos just after it.
 * Returns 0, or -1 with sc->err set.
 */
int gl_json_scan_value(struct gl_json_scan *sc, unsigned depth, struct gl_json_val *v);

/*
 * Walks an object: gl_json_object_begin() consumes "{" (after whitespace),
 * then each gl_json_object_next() yields one member whose value has nesting
 * depth `depth` (2 for members of the top-level object). It returns 1 for a
 * member, 0 after the closing "}", -1 with sc->err set on bad input. When
 * it fails inside a value, *key is still the member's key.
 */
int gl_json_object_begin(struct gl_json_scan *sc);

/*
 * The first half of gl_json_object_next(): the key and its ':' only, so a
 * caller can walk a nested object in place (then sc->pos is on its value).
 */
int gl_json_object_key(struct gl_json_scan *sc, struct gl_json_val *key);
int gl_json_object_next(struct gl_json_scan *sc, unsigned depth, struct gl_json_val *key,
			struct gl_json_val *val);

/*
 * The length of the run at p[0..n) of bytes a string may hold as they are
 * (no '"', '\\', control byte or byte >= 0x80): n when the whole span is
 * such bytes. Lets a caller take a plain string without the escape and
 * UTF-8 checks, which only those bytes need.
 */
size_t gl_json_plain_run(const char *p, size_t n);

/* Skips whitespace; returns 0 when nothing else is left, else -1 with sc->err set. */
int gl_json_scan_end(struct gl_json_scan *sc);

/*
 * Decodes the escapes of a scanned string (v->p, v->len) into out, which
 * must hold v->len bytes (the decoded text is never longer). Returns the
 * decoded length. Only for strings the scanner accepted.
 */
size_t gl_json_unescape(const char *p, size_t len, char *out);

/*
 * The value of a scanned number (GL_JSON_INT or GL_JSON_REAL) as a double,
 * rounded as strtod rounds; for INT also *i. Returns 0, or -1 for a real
 * longer than the decoder handles (over 500 bytes).
 */
int gl_json_number(const struct gl_json_val *v, int64_t *i, double *d);

/*
 * Copies a scanned container without the whitespace between its tokens
 * into out (v->len bytes suffice). Returns the length written.
 */
size_t gl_json_compact(const struct gl_json_val *v, char *out);

/* ---------------------------------------------------------------------
 * The record of one line, filled by either path.
 * ------------------------------------------------------------------- */

enum gl_json_field_id {
	/* top level */
	GL_JF_TIMESTAMP,
	GL_JF_LEVEL,
	GL_JF_COMPONENT,
	GL_JF_MESSAGE,
	GL_JF_METADATA,
	GL_JF_EXEC_MS,
	GL_JF_MEM_MB,
	GL_JF_GPU_METRICS,
	/* inside gpu_metrics */
	GL_JF_KERNEL_NAME,
	GL_JF_EXEC_US,
	GL_JF_ALLOC_MB,
	GL_JF_PEAK_MB,
	GL_JF_UTIL_PCT,
	GL_JF_ERROR_COUNT,
	GL_JF_RECOVERY,
	GL_JF_ANOMALY,
	GL_JF_COUNT
};

#define GL_JF_FIRST_GPU GL_JF_KERNEL_NAME

/* The last value of one known key. */
struct gl_json_field {
	enum gl_json_type type;	/* GL_JSON_ABSENT when the key is not there */
	struct gl_str str;	/* STRING: decoded text; METADATA object: compact JSON text */
	int64_t i;		/* INT */
	double d;		/* INT or REAL */
};

struct gl_json_fields {
	struct gl_json_field f[GL_JF_COUNT];
};

/* "timestamp", ..., "performance_anomaly" (the key as written in the line). */
const char *gl_json_field_key(enum gl_json_field_id id);

/*
 * The id of a decoded key: among the top-level keys when gpu is 0, among
 * the gpu_metrics keys when gpu is 1. -1 when unknown.
 */
int gl_json_field_lookup(const char *key, size_t len, int gpu);

void gl_json_fields_init(struct gl_json_fields *jf);

/*
 * Checks the types of the fields and fills rec: GL_REC_FOREIGN when no
 * top-level key is known, GL_REC_REJECT with a static reason naming the
 * field, or GL_REC_EVENT. rec->ev's strings point where jf's do.
 */
void gl_json_fields_finish(const struct gl_json_fields *jf, struct gl_rec *rec);

/*
 * The fast path alone: parses a line that starts (after blanks) with '{'.
 * Returns 0 with rec filled (EVENT, FOREIGN or a type REJECT); or -1 when
 * the scanner refused the line or left it to jansson: then *reason is the
 * scanner's complaint, *field the top-level key whose value it was in (or
 * NULL) and nothing in rec is meaningful.
 */
int gl_json_fast_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
		       struct gl_rec *rec, const char **reason, const char **field,
		       size_t *field_len);

#endif
