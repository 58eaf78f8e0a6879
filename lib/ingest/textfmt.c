/*
 * textfmt.c - scanners and a JSON object writer shared by the text log
 * formats. In: byte slices of one log line. Out: numbers, times of day,
 * JSON text for gl_event.metadata.
 */
#include "textfmt.h"

#include <math.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct gl_str gl_textfmt_trim(const char *s, size_t len)
{
	struct gl_str out;

	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	out.p = s;
	out.len = len;
	return out;
}

int gl_textfmt_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int gl_textfmt_hex(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (size_t i = 2; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

static int two_digits(const char *s)
{
	if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

int gl_textfmt_tod(const char *s, size_t len, char sep, int64_t *tod_us)
{
	int hh, mi, ss;
	int64_t frac = 0, scale = 100000;
	size_t nd = 0;

	if (len < 8 || s[2] != ':' || s[5] != ':')
		return -1;
	hh = two_digits(s);
	mi = two_digits(s + 3);
	ss = two_digits(s + 6);
	if (hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 59)
		return -1;
	if (len > 8) {
		if (s[8] != sep)
			return -1;
		for (size_t i = 9; i < len; i++, nd++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			if (nd < 6)
				frac += (s[i] - '0') * scale;
			scale /= 10;
		}
		if (nd < 1 || nd > 9)
			return -1;
	}
	*tod_us = ((int64_t)hh * 3600 + mi * 60 + ss) * GL_US_PER_S + frac;
	return 0;
}

static void put(struct gl_jsonw *w, const char *s, size_t n)
{
	if (w->buf && w->len + n <= w->cap)
		memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void put_escaped(struct gl_jsonw *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	put(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			put(w, esc, 2);
		} else if (c == '\n') {
			put(w, "\\n", 2);
		} else if (c == '\t') {
			put(w, "\\t", 2);
		} else if (c == '\r') {
			put(w, "\\r", 2);
		} else if (c < 0x20 || c == 0x7f) {
			put(w, esc, 6);
		} else {
			put(w, s + i, 1);
		}
	}
	put(w, "\"", 1);
}

static void put_key(struct gl_jsonw *w, const char *key)
{
	if (w->fields++)
		put(w, ",", 1);
	put_escaped(w, key, strlen(key));
	put(w, ":", 1);
}

void gl_jsonw_begin(struct gl_jsonw *w, char *buf, size_t cap)
{
	w->buf = buf;
	w->cap = buf ? cap : 0;
	w->len = 0;
	w->fields = 0;
	put(w, "{", 1);
}

void gl_jsonw_str(struct gl_jsonw *w, const char *key, const char *s, size_t n)
{
	put_key(w, key);
	put_escaped(w, s, n);
}

void gl_jsonw_int(struct gl_jsonw *w, const char *key, int64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%" PRId64, v);

	put_key(w, key);
	put(w, num, (size_t)n);
}

void gl_jsonw_uint(struct gl_jsonw *w, const char *key, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%" PRIu64, v);

	put_key(w, key);
	put(w, num, (size_t)n);
}

void gl_jsonw_double(struct gl_jsonw *w, const char *key, double v)
{
	char num[32];
	int n;

	if (!isfinite(v)) {
		gl_jsonw_str(w, key, "", 0);
		return;
	}
	n = snprintf(num, sizeof(num), "%.10g", v);
	put_key(w, key);
	put(w, num, (size_t)n);
}

void gl_jsonw_bool(struct gl_jsonw *w, const char *key, int v)
{
	put_key(w, key);
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

int gl_jsonw_end(struct gl_jsonw *w)
{
	put(w, "}", 1);
	return w->buf && w->len <= w->cap;
}
