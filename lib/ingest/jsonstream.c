/*
 * jsonstream.c - the structural scanner of jsonstream.h: a large JSON
 * document fed line by line, handed out member by member and array element
 * by array element, in a buffer bounded by the caller's cap.
 *
 * In: lines of a document such as Kineto's pretty-printed trace
 *     {
 *       "schemaVersion": 1,
 *       "deviceProperties": [
 *         {
 *           "id": 0, "name": "NVIDIA A100-PG509-200", ...
 *         }
 *       ],
 *       "traceEvents": [
 *       {
 *         "ph": "X", "cat": "kernel", "name": "...", "pid": 0, "tid": 7,
 * Out: units: the value of "schemaVersion", each element of
 * "deviceProperties" and of "traceEvents", ...
 */
#include "jsonstream.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
	E_DOC,		/* before the document's '{' */
	E_KEY,		/* depth 1: a key or '}' */
	E_COLON,	/* depth 1: ':' after a key */
	E_VALUE,	/* depth 1: a member's value */
	E_COMMA1,	/* depth 1: ',' or '}' after a value */
	E_ELEM,		/* depth 2: an element or ']' */
	E_COMMA2,	/* depth 2: ',' or ']' after an element */
	E_AFTER,	/* after the document: blanks only */
};

void gl_jstream_init(struct gl_jstream *js, size_t cap_max)
{
	memset(js, 0, sizeof(*js));
	js->expect = E_DOC;
	js->cap_max = cap_max;
}

void gl_jstream_release(struct gl_jstream *js)
{
	free(js->buf);
	js->buf = NULL;
	js->cap = js->len = 0;
}

void gl_jstream_save(const struct gl_jstream *js, struct gl_jstream_pos *pos)
{
	memset(pos, 0, sizeof(*pos));
	pos->depth = js->depth;
	pos->expect = js->expect;
	pos->in_array = js->in_array;
	pos->ended = js->ended;
	memcpy(pos->key, js->key, js->key_len);
}

void gl_jstream_restore(struct gl_jstream *js, const struct gl_jstream_pos *pos)
{
	js->depth = pos->depth;
	js->expect = pos->expect >= E_DOC && pos->expect <= E_AFTER ? pos->expect : E_DOC;
	js->in_array = pos->in_array;
	js->ended = pos->ended;
	js->in_str = js->esc = js->in_unit = js->key_capture = 0;
	js->len = 0;
	js->key_len = strnlen(pos->key, GL_JSTREAM_KEY_MAX);
	memcpy(js->key, pos->key, js->key_len);
	js->key[js->key_len] = '\0';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Appends c to the unit, or marks it too big. The buffer keeps one byte
 * more than the unit for the '\0' unit_done writes after it.
 */
static void put(struct gl_jstream *js, char c)
{
	if (js->too_big)
		return;
	if (js->len + 2 > js->cap) {
		size_t cap = js->cap ? js->cap * 2 : 4096;
		char *p;

		if (cap > js->cap_max + 1)
			cap = js->cap_max + 1;
		if (js->len + 2 > cap || !(p = realloc(js->buf, cap))) {
			js->too_big = 1;
			js->len = 0;
			return;
		}
		js->buf = p;
		js->cap = cap;
	}
	js->buf[js->len++] = c;
	if (js->len > js->high_water)
		js->high_water = js->len;
}

/* Appends n bytes to the unit, or marks it too big (as n calls of put). */
static void put_n(struct gl_jstream *js, const char *s, size_t n)
{
	if (js->too_big || n == 0)
		return;
	if (js->len + n + 1 > js->cap) {
		size_t cap = js->cap ? js->cap : 4096;
		char *p;

		while (cap < js->len + n + 1 && cap < js->cap_max + 1)
			cap *= 2;
		if (cap > js->cap_max + 1)
			cap = js->cap_max + 1;
		if (js->len + n + 1 > cap || !(p = realloc(js->buf, cap))) {
			js->too_big = 1;
			js->len = 0;
			return;
		}
		js->buf = p;
		js->cap = cap;
	}
	memcpy(js->buf + js->len, s, n);
	js->len += n;
	if (js->len > js->high_water)
		js->high_water = js->len;
}

/*
 * Bytes that change the state of a unit being assembled: inside a string
 * '"', '\\' and a line break; between a container's strings also quotes,
 * brackets and braces. The bytes between them (most of a trace) are skipped
 * by a table lookup each and copied at once by fast_run.
 */
static const unsigned char stop_str[256] = {['"'] = 1, ['\\'] = 1, ['\n'] = 1};
static const unsigned char stop_obj[256] = {
	['"'] = 1, ['\\'] = 1, ['\n'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1,
};

/*
 * The fast path of a string or container unit (what unit_byte does, with
 * the state in locals and one copy for the whole run): follows the line's
 * bytes from *off to the unit's end (returns 1, *off just after it) or to a
 * byte left to unit_byte, a line break or the line's end (returns 0).
 */
static int fast_run(struct gl_jstream *js, const char *p, size_t len, size_t *off)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = *off;
	int in_str = js->in_str, esc = js->esc, depth = js->unit_depth, done = 0;

	while (i < len) {
#if defined(__SSE2__)
		/*
		 * 16 bytes at a time: a bit for each '"', '\\', '\n' and bracket
		 * ('[' and '{' are the bytes that are '{' after |0x20, ']' and
		 * '}' likewise), taken in order with the state as the byte loop
		 * below keeps it. An escape leaves the rest of the block to it.
		 */
		if (!esc && i + 16 <= len) {
			const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
			const __m128i v20 = _mm_or_si128(v, _mm_set1_epi8(0x20));
			__m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
						 _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
			unsigned bits;
			size_t next = i + 16;

			m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
			m = _mm_or_si128(m, _mm_cmpeq_epi8(v20, _mm_set1_epi8('{')));
			m = _mm_or_si128(m, _mm_cmpeq_epi8(v20, _mm_set1_epi8('}')));
			bits = (unsigned)_mm_movemask_epi8(m);
			while (bits) {
				size_t j = i + (size_t)__builtin_ctz(bits);
				unsigned char c = u[j];

				bits &= bits - 1;
				if (c == '\n') {
					i = j;
					goto out;
				}
				if (in_str) {
					if (c == '\\') {
						esc = 1;
						next = j + 1;
						break;
					}
					if (c == '"') {
						in_str = 0;
						if (depth == 0) {
							i = j + 1;
							done = 1;
							goto out;
						}
					}
				} else if (c == '"') {
					in_str = 1;
				} else if (c == '{' || c == '[') {
					depth++;
				} else if ((c == '}' || c == ']') && --depth == 0) {
					i = j + 1;
					done = 1;
					goto out;
				}
			}
			i = next;
			continue;
		}
#endif
		if (in_str) {
			if (esc) {
				if (u[i] == '\n')
					break;
				esc = 0;
				i++;
				continue;
			}
			while (i < len && !stop_str[u[i]])
				i++;
			if (i == len || u[i] == '\n')
				break;
			if (u[i] == '\\')
				esc = 1;
			else {
				in_str = 0;
				if (depth == 0) {
					i++;
					done = 1;
					break;
				}
			}
			i++;
			continue;
		}
		while (i < len && !stop_obj[u[i]])
			i++;
		if (i == len || u[i] == '\n')
			break;
		if (u[i] == '"')
			in_str = 1;
		else if (u[i] == '{' || u[i] == '[')
			depth++;
		else if ((u[i] == '}' || u[i] == ']') && --depth == 0) {
			i++;
			done = 1;
			break;
		}
		i++;	/* a '\\' between strings is copied like any byte */
	}
#if defined(__SSE2__)
out:
#endif
	put_n(js, p + *off, i - *off);
	js->in_str = in_str;
	js->esc = esc;
	js->unit_depth = depth;
	*off = i;
	return done;
}

static void unit_start(struct gl_jstream *js)
{
	js->in_unit = 1;
	js->unit_depth = 0;
	js->scalar = 0;
	js->unit_first = 1;
	js->too_big = 0;
	js->len = 0;
}

static enum gl_jstream_ret unit_done(struct gl_jstream *js)
{
	js->in_unit = 0;
	js->units++;
	js->expect = js->depth == 2 ? E_COMMA2 : E_COMMA1;
	if (!js->too_big)
		js->buf[js->len] = '\0';
	return js->too_big ? GL_JS_TOOBIG : GL_JS_UNIT;
}

static enum gl_jstream_ret fail(struct gl_jstream *js, const char *why)
{
	js->err = why;
	js->in_unit = 0;
	return GL_JS_ERROR;
}

/*
 * One byte of a unit (c is '\n' at a line's end). Returns 2 when the unit
 * ends with this byte, 3 when it ended just before it (a number ends at the
 * byte after it), 0 otherwise, -1 for a line break inside a string.
 */
static int unit_byte(struct gl_jstream *js, char c)
{
	if (js->in_str) {
		if (c == '\n')
			return -1;
		put(js, c);
		if (js->esc)
			js->esc = 0;
		else if (c == '\\')
			js->esc = 1;
		else if (c == '"') {
			js->in_str = 0;
			if (js->unit_depth == 0)
				return 2;
		}
		return 0;
	}
	if (js->scalar) {
		if (is_blank(c) || c == ',' || c == ']' || c == '}') {
			js->scalar = 0;
			return 3;
		}
		put(js, c);
		return 0;
	}
	if (js->unit_first) {
		js->unit_first = 0;
		if (c == '"')
			js->in_str = 1;
		else if (c == '{' || c == '[')
			js->unit_depth = 1;
		else
			js->scalar = 1;
		put(js, c);
		return 0;
	}
	put(js, c == '\n' ? ' ' : c);
	if (c == '"')
		js->in_str = 1;
	else if (c == '{' || c == '[')
		js->unit_depth++;
	else if (c == '}' || c == ']') {
		if (--js->unit_depth == 0)
			return 2;
	}
	return 0;
}

enum gl_jstream_ret gl_jstream_feed(struct gl_jstream *js, const char *p, size_t len, size_t *off)
{
	if (js->err)
		return GL_JS_ERROR;
	while (*off <= len) {
		char c = *off < len ? p[*off] : '\n';

		if (js->in_unit) {
			int r;

			if (!js->scalar && !js->unit_first && (js->in_str || js->unit_depth > 0)) {
				size_t from = *off;

				if (fast_run(js, p, len, off))
					return unit_done(js);
				if (*off > from)
					continue;
			}
			r = unit_byte(js, c);

			if (r < 0)
				return fail(js, "line break inside a string");
			if (r == 3)
				return unit_done(js);	/* c is read again, as what follows the unit */
			(*off)++;
			if (r == 2)
				return unit_done(js);
			continue;
		}
		(*off)++;
		if (js->key_capture) {
			if (c == '\n')
				return fail(js, "line break inside a key");
			if (js->esc)
				js->esc = 0;
			else if (c == '\\')
				js->esc = 1;
			else if (c == '"') {
				js->key_capture = 0;
				js->key[js->key_len] = '\0';
				js->expect = E_COLON;
				continue;
			}
			if (js->key_len < GL_JSTREAM_KEY_MAX)
				js->key[js->key_len++] = c;
			continue;
		}
		if (is_blank(c))
			continue;
		switch (js->expect) {
		case E_DOC:
			if (c != '{')
				return fail(js, "not a JSON object");
			js->depth = 1;
			js->expect = E_KEY;
			break;
		case E_KEY:
			if (c == '}') {
				js->depth = 0;
				js->ended = 1;
				js->expect = E_AFTER;
				return GL_JS_END;
			}
			if (c != '"')
				return fail(js, "a member name expected");
			js->key_capture = 1;
			js->key_len = 0;
			js->in_array = 0;
			break;
		case E_COLON:
			if (c != ':')
				return fail(js, "':' expected after a member name");
			js->expect = E_VALUE;
			break;
		case E_VALUE:
			if (c == '[') {
				js->depth = 2;
				js->in_array = 1;
				js->expect = E_ELEM;
				break;
			}
			if (c == ',' || c == '}' || c == ']' || c == ':')
				return fail(js, "a value expected");
			unit_start(js);
			(*off)--;
			break;
		case E_COMMA1:
			if (c == ',')
				js->expect = E_KEY;
			else if (c == '}') {
				js->depth = 0;
				js->ended = 1;
				js->expect = E_AFTER;
				return GL_JS_END;
			} else
				return fail(js, "',' or '}' expected after a member");
			break;
		case E_ELEM:
			if (c == ']') {
				js->depth = 1;
				js->in_array = 0;
				js->expect = E_COMMA1;
				break;
			}
			if (c == ',' || c == '}' || c == ':')
				return fail(js, "an array element expected");
			unit_start(js);
			(*off)--;
			break;
		case E_COMMA2:
			if (c == ',')
				js->expect = E_ELEM;
			else if (c == ']') {
				js->depth = 1;
				js->in_array = 0;
				js->expect = E_COMMA1;
			} else
				return fail(js, "',' or ']' expected after an array element");
			break;
		default:
			return fail(js, "data after the end of the document");
		}
	}
	return GL_JS_MORE;
}
