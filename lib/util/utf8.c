/*
 * utf8.c - well-formed UTF-8 (RFC 3629, table 3-7 of the Unicode standard)
 * and its repair with U+FFFD.
 */
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

size_t gl_utf8_seq(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4;
	else
		return 0;
	/* the second byte's range excludes overlong forms, surrogates and > U+10FFFF */
	if (s[0] == 0xE0)
		lo = 0xA0;
	else if (s[0] == 0xED)
		hi = 0x9F;
	else if (s[0] == 0xF0)
		lo = 0x90;
	else if (s[0] == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

int gl_utf8_valid(const char *s)
{
	while (*s) {
		size_t n = gl_utf8_seq(s);

		if (!n)
			return 0;
		s += n;
	}
	return 1;
}

const char *gl_utf8_clean(const char *s, char **owned)
{
	size_t bad = 0, len = 0;
	char *out, *o;

	*owned = NULL;
	if (!s)
		return NULL;
	for (const char *p = s; *p;) {
		size_t n = gl_utf8_seq(p);

		bad += !n;
		p += n ? n : 1;
	}
	if (!bad)
		return s;
	len = strlen(s);
	if (!(out = malloc(len + 2 * bad + 1)))
		return NULL;
	o = out;
	for (const char *p = s; *p;) {
		size_t n = gl_utf8_seq(p);

		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, GL_UTF8_REPLACEMENT, 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	*owned = out;
	return out;
}
