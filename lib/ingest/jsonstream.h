/*
 * jsonstream.h - one large JSON document (a Kineto trace), fed line by
 * line, handed out one piece at a time in bounded memory.
 *
 * The document is an object whose members are read in order. A member
 * whose value is an array hands out each element of the array as a unit
 * (the elements of "traceEvents", of "deviceProperties"); a member whose
 * value is anything else hands out that value as one unit ("schemaVersion",
 * "baseTimeNanoseconds"). A unit is assembled from as many lines as it
 * spans, into a buffer that never grows past the cap given at init: a
 * longer unit is followed structurally to its end and reported as too big,
 * without its bytes. So memory is the cap plus a small fixed part,
 * whatever the size of the document.
 *
 * The scanner checks structure only (brackets, strings, escapes, commas in
 * the right places at the top two levels); the caller parses a unit's
 * bytes (json_scan.h).
 */
#ifndef GL_JSONSTREAM_H
#define GL_JSONSTREAM_H

#include <stddef.h>
#include <stdint.h>

#define GL_JSTREAM_KEY_MAX 64

enum gl_jstream_ret {
	GL_JS_MORE = 0,		/* the bytes fed are used up; feed the next line */
	GL_JS_UNIT,		/* a unit is complete: see key, unit, in_array */
	GL_JS_TOOBIG,		/* a unit longer than the cap ended: key and in_array are set */
	GL_JS_END,		/* the document's closing '}' was read */
	GL_JS_ERROR,		/* not such a document: err says why; the stream stays broken */
};

struct gl_jstream {
	/* position in the document, all the scanner keeps between lines */
	int depth;		/* open containers, the document's object is 1 */
	int in_str, esc;
	int expect;		/* what may come next at depth 1 or 2 (private) */
	int in_array;		/* the current member's value is an array (depth 2 holds its elements) */
	int ended;		/* the document's object is closed */
	int scalar;		/* the unit being assembled is a number/literal */
	int unit_first;		/* the next byte is the unit's first */
	int in_unit;		/* a unit is being assembled */
	int unit_depth;		/* depth at which the unit started */
	int too_big;
	char key[GL_JSTREAM_KEY_MAX + 1];	/* current member's key (cut to the first 64 bytes) */
	size_t key_len;
	int key_capture;	/* reading a key string */
	/* the unit */
	char *buf;		/* the unit and a '\0': cap <= cap_max + 1 */
	size_t len, cap, cap_max;
	size_t high_water;	/* the most bytes the buffer ever held */
	uint64_t units;		/* units handed out (or too big) so far */
	const char *err;	/* GL_JS_ERROR: static reason */
};

/* Starts before the document; a unit may hold up to cap_max bytes. */
void gl_jstream_init(struct gl_jstream *js, size_t cap_max);
void gl_jstream_release(struct gl_jstream *js);

/* Where the scanner is between two units: plain bytes, to keep across runs. */
struct gl_jstream_pos {
	int32_t depth, expect, in_array, ended;
	char key[GL_JSTREAM_KEY_MAX + 1];
};

/*
 * The scanner's place while no unit, key or string is open (in_unit,
 * key_capture and in_str all 0), and a return to it in a fresh scanner:
 * where a stream interrupted between two units resumes.
 */
void gl_jstream_save(const struct gl_jstream *js, struct gl_jstream_pos *pos);
void gl_jstream_restore(struct gl_jstream *js, const struct gl_jstream_pos *pos);

/*
 * Feeds p[*off..len) followed by an end of line. Returns at the first
 * event (GL_JS_UNIT, GL_JS_TOOBIG, GL_JS_END, GL_JS_ERROR) with *off just
 * after the byte that made it, or GL_JS_MORE when the line is used up.
 * The unit is js->buf[0..js->len), followed by a '\0' (js->buf[js->len]:
 * a stop byte for a scan of the unit), valid until the next call.
 */
enum gl_jstream_ret gl_jstream_feed(struct gl_jstream *js, const char *p, size_t len, size_t *off);

#endif
