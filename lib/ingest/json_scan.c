/*
 * json_scan.c - a validating JSON scanner for one log line at a time.
 *
 * In: the bytes of a line. Out: slices of its values, checked against
 * RFC 8259 and against what jansson accepts, so that the fast path and the
 * jansson path (json_slow.c) agree on every line. Nothing is allocated and
 * nothing is read outside s[0..len): the line is not NUL-terminated.
 *
 * Where RFC 8259 leaves room, jansson's choices are followed:
 *   {"a":"\u0000"}               rejected (no JSON_ALLOW_NUL)
 *   {"a":"\ud800"}               rejected (lone surrogate)
 *   {"a":99999999999999999999}   rejected ("too big integer")
 *   {"a":1e400}                  rejected ("real number overflow"); 1e-400 is 0.0
 *   a value nested 2049 deep     rejected ("maximum parsing depth reached")
 */
#include "json_scan.h"

#include <float.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define NUM_TEXT_MAX 500	/* longest real handed to strtod */

void gl_json_scan_init(struct gl_json_scan *sc, const char *s, size_t len)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->len = len;
}

static int fail(struct gl_json_scan *sc, size_t pos, const char *what)
{
	sc->err = what;
	sc->err_pos = pos;
	return -1;
}

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline __attribute__((always_inline)) size_t skip_ws(const unsigned char *b, size_t n,
							    size_t i)
{
	/* (every white-space byte is <= ' ': one test for the usual byte) */
	while (i < n && b[i] <= ' ' && is_ws(b[i]))
		i++;
	return i;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Marks (bit 7 of a byte) the bytes at p[0..8) that need a look inside a
 * string: '"', '\\', a control byte, a byte >= 0x80 (bit tricks after
 * Anderson's "Bit Twiddling Hacks", haszero/hasless). A borrow can mark
 * a harmless byte, but only above a truly marked one: the lowest mark is
 * always exact, which is all the caller uses.
 */
static uint64_t chunk_special(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t x, ctl, q, bs;

	memcpy(&x, p, 8);
	ctl = (x - ones * 0x20) & ~x & high;
	q = x ^ (ones * '"');
	q = (q - ones) & ~q & high;
	bs = x ^ (ones * '\\');
	bs = (bs - ones) & ~bs & high;
	return (x & high) | ctl | q | bs;
}

#ifdef __SSE2__
/*
 * The same for p[0..16), one bit per byte (bit k: p[k]), every mark exact:
 * a signed compare with 0x20 finds the control bytes and those >= 0x80
 * together. SSE2 is part of every x86-64 CPU.
 */
static unsigned chunk16_special(const unsigned char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
				 _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));

	return (unsigned)_mm_movemask_epi8(m);
}
#endif

size_t gl_json_plain_run(const char *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i = 0;

#ifdef __SSE2__
	while (i + 16 <= n) {
		unsigned m = chunk16_special(b + i);

		if (m)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (i + 8 <= n) {
		uint64_t m = chunk_special(b + i);

		if (m)
			return i + ((size_t)__builtin_ctzll(m) >> 3);
		i += 8;
	}
#endif
	while (i < n && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\')
		i++;
	return i;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, size_t avail)
{
	unsigned c = p[0], lo = 0x80, hi = 0xBF;

	if (c < 0xC2 || c > 0xF4)
		return 0;
	if (c < 0xE0)
		return avail >= 2 && p[1] >= 0x80 && p[1] <= 0xBF ? 2 : 0;
	if (c < 0xF0) {
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
		if (avail < 3 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80)
			return 0;
		return 3;
	}
	if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (avail < 4 || p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
		return 0;
	return 4;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The 4 hex digits at p (avail bytes there), or -1. */
static long hex4(const unsigned char *p, size_t avail)
{
	long v = 0;

	if (avail < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int h = hexval(p[k]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/*
 * A string whose opening quote is just before *pi. Leaves *pi on the
 * closing quote. Sets GL_JSON_F_ESCAPES in *flags when it holds escapes.
 */
static int scan_string(struct gl_json_scan *sc, size_t *pi, unsigned *flags)
{
	const unsigned char *b = (const unsigned char *)sc->s;
	size_t n = sc->len, i = *pi;

	for (;;) {
		unsigned c;

#ifdef __SSE2__
		while (i + 16 <= n) {
			unsigned m = chunk16_special(b + i);

			if (m) {
				i += (size_t)__builtin_ctz(m);
				goto special;
			}
			i += 16;
		}
#endif
		while (i + 8 <= n) {
			uint64_t m = chunk_special(b + i);

			if (m) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				i += (size_t)__builtin_ctzll(m) >> 3;
#endif
				break;
			}
			i += 8;
		}
#ifdef __SSE2__
special:
#endif
		if (i >= n)
			return fail(sc, i, "premature end of input in a string");
		c = b[i];
		if (c == '"') {
			*pi = i;
			return 0;
		}
		if (c >= 0x20 && c < 0x80 && c != '\\') {
			i++;
		} else if (c == '\\') {
			long cp, lo;

			*flags |= GL_JSON_F_ESCAPES;
			if (i + 1 >= n)
				return fail(sc, i, "premature end of input in a string");
			switch (b[i + 1]) {
			case '"':
			case '\\':
			case '/':
			case 'b':
			case 'f':
			case 'n':
			case 'r':
			case 't':
				i += 2;
				break;
			case 'u':
				cp = hex4(b + i + 2, n - (i + 2));
				if (cp < 0)
					return fail(sc, i, "invalid \\u escape");
				if (cp == 0)
					return fail(sc, i, "\\u0000 in a string");
				if (cp >= 0xDC00 && cp <= 0xDFFF)
					return fail(sc, i, "lone low surrogate");
				if (cp >= 0xD800 && cp <= 0xDBFF) {
					if (i + 7 >= n || b[i + 6] != '\\' || b[i + 7] != 'u')
						return fail(sc, i, "lone high surrogate");
					lo = hex4(b + i + 8, n - (i + 8));
					if (lo < 0xDC00 || lo > 0xDFFF)
						return fail(sc, i, "lone high surrogate");
					i += 12;
				} else {
					i += 6;
				}
				break;
			default:
				return fail(sc, i, "invalid escape");
			}
		} else if (c < 0x20) {
			return fail(sc, i, "control character in a string");
		} else {
			size_t k = utf8_len(b + i, n - i);

			if (!k)
				return fail(sc, i, "invalid UTF-8");
			i += k;
		}
	}
}

/* int64 range check of the digits [p, p+nd) (no sign, no leading zeros). */
static int int_fits(const unsigned char *p, size_t nd, int neg)
{
	const char *lim = neg ? "9223372036854775808" : "9223372036854775807";

	if (nd < 19)
		return 1;
	if (nd > 19)
		return 0;
	return memcmp(p, lim, 19) <= 0;
}

/* strtod in the C locale's sense whatever LC_NUMERIC says (as jansson does). */
static double strtod_c(const char *p, size_t len)
{
	char buf[NUM_TEXT_MAX + 1];
	const char *dp = localeconv()->decimal_point;

	memcpy(buf, p, len);
	buf[len] = '\0';
	if (dp && dp[0] && dp[0] != '.' && !dp[1]) {
		char *dot = memchr(buf, '.', len);

		if (dot)
			*dot = dp[0];
	}
	return strtod(buf, NULL);
}

/*
 * A number at *pi (RFC 8259 grammar); leaves *pi after it. Rejects what
 * jansson rejects: integers outside int64, reals beyond DBL_MAX.
 */
static int scan_number(struct gl_json_scan *sc, size_t *pi, enum gl_json_type *t)
{
	const unsigned char *b = (const unsigned char *)sc->s;
	size_t n = sc->len, i = *pi, start = *pi, int0, int_end, frac0 = 0, frac_end = 0;
	int neg = 0, real = 0;
	long long e10 = 0, exp_v = 0;
	int exp_neg = 0;

	if (b[i] == '-') {
		neg = 1;
		i++;
	}
	int0 = i;
	if (i < n && b[i] == '0') {
		i++;
		if (i < n && is_digit(b[i]))
			return fail(sc, i, "invalid number (leading zero)");
	} else if (i < n && is_digit(b[i])) {
		while (i < n && is_digit(b[i]))
			i++;
	} else {
		return fail(sc, i, "invalid number");
	}
	int_end = i;
	if (i < n && b[i] == '.') {
		i++;
		frac0 = i;
		if (i >= n || !is_digit(b[i]))
			return fail(sc, i, "invalid number (no digit after '.')");
		while (i < n && is_digit(b[i]))
			i++;
		frac_end = i;
		real = 1;
	}
	if (i < n && (b[i] == 'e' || b[i] == 'E')) {
		i++;
		if (i < n && (b[i] == '+' || b[i] == '-'))
			exp_neg = b[i++] == '-';
		if (i >= n || !is_digit(b[i]))
			return fail(sc, i, "invalid number (no digit in exponent)");
		while (i < n && is_digit(b[i])) {
			if (exp_v < 1000000)
				exp_v = exp_v * 10 + (b[i] - '0');
			i++;
		}
		real = 1;
	}
	*pi = i;
	if (!real) {
		if (!int_fits(b + int0, int_end - int0, neg))
			return fail(sc, start, "integer out of range");
		*t = GL_JSON_INT;
		return 0;
	}
	*t = GL_JSON_REAL;
	/* value = 0.d1d2... * 10^e10 with d1 the first non-zero digit */
	{
		size_t k;

		for (k = int0; k < int_end && b[k] == '0'; k++)
			;
		if (k < int_end) {
			e10 = (long long)(int_end - k);
		} else {
			for (k = frac0; k < frac_end && b[k] == '0'; k++)
				;
			if (k >= frac_end)
				return 0;	/* zero */
			e10 = -(long long)(k - frac0);
		}
	}
	e10 += exp_neg ? -exp_v : exp_v;
	if (e10 <= DBL_MAX_10_EXP)
		return 0;
	if (e10 > DBL_MAX_10_EXP + 1)
		return fail(sc, start, "real number overflow");
	if (i - start > NUM_TEXT_MAX) {
		sc->punt = 1;
		return fail(sc, start, "number too long for the fast path");
	}
	if (strtod_c((const char *)b + start, i - start) > DBL_MAX ||
	    strtod_c((const char *)b + start, i - start) < -DBL_MAX)
		return fail(sc, start, "real number overflow");
	return 0;
}

static int scan_literal(struct gl_json_scan *sc, size_t *pi, const char *word, size_t wl)
{
	if (sc->len - *pi < wl || memcmp(sc->s + *pi, word, wl) != 0)
		return fail(sc, *pi, "invalid token");
	*pi += wl;
	return 0;
}

/*
 * Iterative, so that depth costs a bit per level rather than a stack
 * frame: bit k of `obj` is 1 when the k-th open container is an object.
 */
int gl_json_scan_value(struct gl_json_scan *sc, unsigned depth, struct gl_json_val *v)
{
	const unsigned char *b = (const unsigned char *)sc->s;
	size_t n = sc->len, i = skip_ws(b, n, sc->pos), j, start;
	unsigned char obj[GL_JSON_MAX_DEPTH / 8 + 1];
	unsigned open = 0, flags = 0;
	enum gl_json_type t = GL_JSON_ABSENT;
	int is_obj;

	start = i;
value:
	if (depth + open > GL_JSON_MAX_DEPTH)
		return fail(sc, i, "maximum nesting depth reached");
	if (i >= n)
		return fail(sc, i, "premature end of input");
	switch (b[i]) {
	case '{':
	case '[':
		is_obj = b[i] == '{';
		if (is_obj)
			obj[open / 8] |= (unsigned char)(1u << (open % 8));
		else
			obj[open / 8] &= (unsigned char)~(1u << (open % 8));
		open++;
		j = skip_ws(b, n, i + 1);
		if (j != i + 1)
			flags |= GL_JSON_F_SPACE;
		i = j;
		if (i < n && b[i] == (is_obj ? '}' : ']')) {
			i++;
			open--;
			t = is_obj ? GL_JSON_OBJECT : GL_JSON_ARRAY;
			goto after;
		}
		if (is_obj)
			goto key;
		goto value;
	case '"':
		i++;
		if (scan_string(sc, &i, &flags) < 0)
			return -1;
		i++;
		t = GL_JSON_STRING;
		goto after;
	case 't':
		if (scan_literal(sc, &i, "true", 4) < 0)
			return -1;
		t = GL_JSON_TRUE;
		goto after;
	case 'f':
		if (scan_literal(sc, &i, "false", 5) < 0)
			return -1;
		t = GL_JSON_FALSE;
		goto after;
	case 'n':
		if (scan_literal(sc, &i, "null", 4) < 0)
			return -1;
		t = GL_JSON_NULL;
		goto after;
	default:
		if (b[i] != '-' && !is_digit(b[i]))
			return fail(sc, i, "invalid token");
		if (scan_number(sc, &i, &t) < 0)
			return -1;
		goto after;
	}
key:
	if (i >= n || b[i] != '"')
		return fail(sc, i, "string or '}' expected");
	i++;
	if (scan_string(sc, &i, &flags) < 0)
		return -1;
	j = skip_ws(b, n, i + 1);
	if (j != i + 1)
		flags |= GL_JSON_F_SPACE;
	i = j;
	if (i >= n || b[i] != ':')
		return fail(sc, i, "':' expected");
	j = skip_ws(b, n, i + 1);
	if (j != i + 1)
		flags |= GL_JSON_F_SPACE;
	i = j;
	goto value;
after:
	if (open == 0) {
		sc->pos = i;
		v->type = t;
		v->flags = flags;
		if (t == GL_JSON_STRING) {
			v->p = (const char *)b + start + 1;
			v->len = i - start - 2;
		} else {
			v->p = (const char *)b + start;
			v->len = i - start;
		}
		return 0;
	}
	j = skip_ws(b, n, i);
	if (j != i)
		flags |= GL_JSON_F_SPACE;
	i = j;
	if (i >= n)
		return fail(sc, i, "premature end of input");
	is_obj = (obj[(open - 1) / 8] >> ((open - 1) % 8)) & 1;
	if (b[i] == ',') {
		j = skip_ws(b, n, i + 1);
		if (j != i + 1)
			flags |= GL_JSON_F_SPACE;
		i = j;
		if (is_obj)
			goto key;
		goto value;
	}
	if (b[i] == (is_obj ? '}' : ']')) {
		i++;
		open--;
		t = is_obj ? GL_JSON_OBJECT : GL_JSON_ARRAY;
		goto after;
	}
	return fail(sc, i, is_obj ? "',' or '}' expected" : "',' or ']' expected");
}

int gl_json_object_begin(struct gl_json_scan *sc)
{
	size_t i = skip_ws((const unsigned char *)sc->s, sc->len, sc->pos);

	if (i >= sc->len || sc->s[i] != '{')
		return fail(sc, i, "'{' expected");
	sc->pos = i + 1;
	sc->members = 0;
	return 0;
}

int gl_json_object_key(struct gl_json_scan *sc, struct gl_json_val *key)
{
	const unsigned char *b = (const unsigned char *)sc->s;
	size_t n = sc->len, i = skip_ws(b, n, sc->pos), k0;
	unsigned kflags = 0;

	key->type = GL_JSON_ABSENT;
	key->p = NULL;
	key->len = 0;
	if (i < n && b[i] == '}') {
		sc->pos = i + 1;
		return 0;
	}
	if (sc->members) {
		if (i >= n || b[i] != ',')
			return fail(sc, i, "',' or '}' expected");
		i = skip_ws(b, n, i + 1);
	}
	if (i >= n || b[i] != '"')
		return fail(sc, i, sc->members ? "string expected" : "string or '}' expected");
	k0 = ++i;
	if (scan_string(sc, &i, &kflags) < 0)
		return -1;
	key->type = GL_JSON_STRING;
	key->p = (const char *)b + k0;
	key->len = i - k0;
	key->flags = kflags;
	i = skip_ws(b, n, i + 1);
	if (i >= n || b[i] != ':')
		return fail(sc, i, "':' expected");
	sc->pos = i + 1;
	sc->members++;
	return 1;
}

int gl_json_object_next(struct gl_json_scan *sc, unsigned depth, struct gl_json_val *key,
			struct gl_json_val *val)
{
	int rc = gl_json_object_key(sc, key);

	if (rc <= 0)
		return rc;
	return gl_json_scan_value(sc, depth, val) < 0 ? -1 : 1;
}

int gl_json_scan_end(struct gl_json_scan *sc)
{
	size_t i = skip_ws((const unsigned char *)sc->s, sc->len, sc->pos);

	if (i != sc->len)
		return fail(sc, i, "end of line expected");
	sc->pos = i;
	return 0;
}

/* Writes code point cp as UTF-8; returns the bytes written. */
static size_t utf8_put(unsigned long cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t gl_json_unescape(const char *p, size_t len, char *out)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i = 0, o = 0;

	while (i < len) {
		const char *bs = memchr(p + i, '\\', len - i);
		size_t run = bs ? (size_t)(bs - (p + i)) : len - i;
		unsigned long cp;

		memmove(out + o, p + i, run);
		o += run;
		i += run;
		if (i >= len)
			break;
		switch (b[i + 1]) {
		case 'b':
			out[o++] = '\b';
			break;
		case 'f':
			out[o++] = '\f';
			break;
		case 'n':
			out[o++] = '\n';
			break;
		case 'r':
			out[o++] = '\r';
			break;
		case 't':
			out[o++] = '\t';
			break;
		case 'u':
			cp = (unsigned long)hex4(b + i + 2, 4);
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				unsigned long lo = (unsigned long)hex4(b + i + 8, 4);

				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += 6;
			}
			o += utf8_put(cp, out + o);
			i += 4;
			break;
		default:	/* '"', '\\', '/' */
			out[o++] = (char)b[i + 1];
			break;
		}
		i += 2;
	}
	return o;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

int gl_json_number(const struct gl_json_val *v, int64_t *i, double *d)
{
	const unsigned char *b = (const unsigned char *)v->p;
	size_t n = v->len, k = 0;
	int neg = 0;
	uint64_t m = 0;

	if (k < n && b[k] == '-') {
		neg = 1;
		k++;
	}
	if (v->type == GL_JSON_INT) {
		for (; k < n; k++)
			m = m * 10 + (uint64_t)(b[k] - '0');
		*i = neg ? (int64_t)(0 - m) : (int64_t)m;
		if (neg && m == (uint64_t)1 << 63)
			*i = INT64_MIN;
		*d = (double)*i;
		return 0;
	}
	*i = 0;
#if FLT_EVAL_METHOD == 0
	/*
	 * Clinger's fast path: with at most 19 significant digits forming an
	 * integer m <= 2^53 and |exponent| <= 22, m and 10^|e| are exact
	 * doubles and one IEEE multiply or divide rounds correctly, the same
	 * result strtod gives. Typical log numbers (512.34, 0.51234) take it.
	 */
	{
		int nd = 0, seen = 0, e = 0, ok = 1;
		long ev = 0;
		int eneg = 0;

		for (; k < n && is_digit(b[k]); k++) {
			if (b[k] != '0' || seen) {
				seen = 1;
				if (++nd > 19)
					ok = 0;
				else
					m = m * 10 + (uint64_t)(b[k] - '0');
			}
		}
		if (k < n && b[k] == '.') {
			for (k++; k < n && is_digit(b[k]); k++) {
				if (b[k] != '0' || seen) {
					seen = 1;
					if (++nd > 19)
						ok = 0;
					else
						m = m * 10 + (uint64_t)(b[k] - '0');
				}
				e--;
			}
		}
		if (k < n && (b[k] == 'e' || b[k] == 'E')) {
			k++;
			if (b[k] == '+' || b[k] == '-')
				eneg = b[k++] == '-';
			for (; k < n; k++)
				if (ev < 100000)
					ev = ev * 10 + (b[k] - '0');
			e += (int)(eneg ? -ev : ev);
		}
		if (ok && !seen) {
			*d = neg ? -0.0 : 0.0;
			return 0;
		}
		if (ok && m <= (uint64_t)1 << 53 && e >= -22 && e <= 22) {
			double x = (double)m;

			x = e >= 0 ? x * pow10_exact[e] : x / pow10_exact[-e];
			*d = neg ? -x : x;
			return 0;
		}
	}
#endif
	if (v->len > NUM_TEXT_MAX)
		return -1;
	*d = strtod_c(v->p, v->len);
	return 0;
}

size_t gl_json_compact(const struct gl_json_val *v, char *out)
{
	const char *p = v->p;
	size_t o = 0;
	int in_str = 0;

	for (size_t i = 0; i < v->len; i++) {
		char c = p[i];

		if (in_str) {
			out[o++] = c;
			if (c == '\\')
				out[o++] = p[++i];
			else if (c == '"')
				in_str = 0;
		} else if (!is_ws((unsigned char)c)) {
			out[o++] = c;
			if (c == '"')
				in_str = 1;
		}
	}
	return o;
}
