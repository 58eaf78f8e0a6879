/*
 * sblock.c - the JSON text of a block of metric samples (see sblock.h).
 *
 * In: samples of one series, sorted by time. Out: "[[dt,value,dline],...]"
 * (with a fourth member, the sample's origin, in a block of several
 * origins) and back. Written and read millions of times per run, so neither goes
 * through printf/strtod for the common values: an integer is written as
 * digits, a decimal such as 70.77 as the integer 7077 with a point placed;
 * reading divides that integer by the exact power of ten, which rounds as
 * strtod does (both operands exact, one correctly rounded division), so the
 * same double comes back. Other values use %.17g and strtod. Digits are
 * written two at a time from a table, and the rounding of the scaled value
 * is done inline (nearbyint was a library call per sample): the text is
 * byte for byte what the earlier formatter wrote (test_sblock compares them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sblock.h"

#define EXACT_INT 9007199254740992.0	/* 2^53: every integer below is a double */

static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
			       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
			       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t ipow10[] = {1,	  10,	  100,	   1000,      10000,
				   100000, 1000000, 10000000, 100000000, 1000000000};

/* Two digits at a time: "00" .. "99". */
static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930"
				 "31323334353637383940414243444546474849505152535455565758596061"
				 "62636465666768697071727374757677787980818283848586878889909192"
				 "93949596979899";

/* The number of decimal digits of u (1 for 0). */
static size_t count_digits(uint64_t u)
{
	size_t n = 1;

	for (;;) {
		if (u < 10)
			return n;
		if (u < 100)
			return n + 1;
		if (u < 1000)
			return n + 2;
		if (u < 10000)
			return n + 3;
		u /= 10000;
		n += 4;
	}
}

/* Writes u (< 10^n) as exactly n digits at p, with leading zeros. */
static void put_digits(char *p, uint64_t u, size_t n)
{
	while (n >= 2) {
		unsigned r = (unsigned)(u % 100);

		u /= 100;
		n -= 2;
		p[n] = digits2[2 * r];
		p[n + 1] = digits2[2 * r + 1];
	}
	if (n)
		p[0] = (char)('0' + u);
}

/* Writes the digits of u; returns their count. */
static size_t put_u64(char *p, uint64_t u)
{
	size_t n = count_digits(u);

	put_digits(p, u, n);
	return n;
}

static size_t put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p = '-';
		return 1 + put_u64(p + 1, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/*
 * nearbyint(x) in the default rounding mode (to nearest, ties to even) for
 * |x| < 2^53, without the library call: x minus its truncation is exact.
 */
static double round_even(double x)
{
	double r = (double)(int64_t)x, f = x - r;

	if (f > 0.5 || (f == 0.5 && ((int64_t)r & 1)))
		r += 1;
	else if (f < -0.5 || (f == -0.5 && ((int64_t)r & 1)))
		r -= 1;
	return r;
}

size_t gl_sblock_fmt_double(char *p, double v)
{
	if (isnan(v)) {
		memcpy(p, "null", 4);
		return 4;
	}
	if (isinf(v)) {
		memcpy(p, v < 0 ? "-9e999" : "9e999", v < 0 ? 6 : 5);
		return v < 0 ? 6 : 5;
	}
	if (v == 0) {
		memcpy(p, signbit(v) ? "-0" : "0", signbit(v) ? 2 : 1);
		return signbit(v) ? 2 : 1;
	}
	if (fabs(v) < EXACT_INT && v == (double)(int64_t)v)
		return put_i64(p, (int64_t)v);
	/* d decimals: v is k / 10^d exactly as a reader computes it */
	for (int d = 1; d <= 9; d++) {
		double x = v * pow10[d], k;

		if (fabs(x) >= EXACT_INT)
			break;	/* (nearbyint would give |k| >= 2^53 too) */
		k = round_even(x);
		if (fabs(k) >= EXACT_INT)
			break;
		if (k / pow10[d] != v)
			continue;
		/* the integer part ("0" for 0.05), the point, d digits */
		uint64_t u = (uint64_t)fabs(k);
		size_t len = 0;

		if (v < 0)
			p[len++] = '-';
		len += put_u64(p + len, u / ipow10[d]);
		p[len++] = '.';
		put_digits(p + len, u % ipow10[d], (size_t)d);
		return len + (size_t)d;
	}
	return (size_t)snprintf(p, 32, "%.17g", v);
}

/* *buf with room for need bytes (grown by doubling; *cap its size); NULL
 * when out of memory. */
static char *reserve(char **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 4096;
	char *p;

	if (need <= *cap)
		return *buf;
	while (c < need)
		c *= 2;
	if (!(p = realloc(*buf, c)))
		return NULL;
	*buf = p;
	*cap = c;
	return p;
}

size_t gl_sblock_encode(const struct gl_sblock_sample *s, size_t n, int64_t t0_us, int64_t line0,
			char **buf, size_t *cap)
{
	return gl_sblock_encode_origins(s, NULL, n, t0_us, line0, buf, cap);
}

size_t gl_sblock_encode_origins(const struct gl_sblock_sample *s, const uint32_t *origin, size_t n,
				int64_t t0_us, int64_t line0, char **buf, size_t *cap)
{
	/* an entry: "[" dt "," value "," dline "," origin "],": 1 + 20 + 1 + 24 + 1 + 20 + 1
	 * + 10 + 2 */
	size_t need = 2 + n * 83, len = 0;
	char *p = reserve(buf, cap, need);

	if (!p)
		return 0;
	p[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		if (i)
			p[len++] = ',';
		p[len++] = '[';
		len += put_i64(p + len, s[i].ts_us - t0_us);
		p[len++] = ',';
		len += gl_sblock_fmt_double(p + len, s[i].value);
		p[len++] = ',';
		len += put_i64(p + len, s[i].line - line0);
		if (origin) {
			p[len++] = ',';
			len += put_u64(p + len, origin[i]);
		}
		p[len++] = ']';
	}
	p[len++] = ']';
	p[len] = 0;
	return len;
}

/* An integer at *pp (optional '-'); NULL when none. */
static const char *get_i64(const char *p, const char *end, int64_t *out)
{
	int neg = 0;
	uint64_t u = 0;
	const char *d;

	if (p < end && *p == '-')
		neg = 1, p++;
	d = p;
	while (p < end && *p >= '0' && *p <= '9' && p - d < 19)
		u = u * 10 + (uint64_t)(*p++ - '0');
	if (p == d || (p < end && *p >= '0' && *p <= '9') || u > (uint64_t)INT64_MAX)
		return NULL;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return p;
}

/* A JSON number (or null, or SQLite's 9e999) at p; NULL when none. */
static const char *get_double(const char *p, const char *end, double *out)
{
	const char *s = p, *d;
	uint64_t k = 0;
	int neg = 0, frac = 0, digits = 0;

	if (end - p >= 4 && !memcmp(p, "null", 4)) {
		*out = NAN;
		return p + 4;
	}
	if (p < end && *p == '-')
		neg = 1, p++;
	d = p;
	while (p < end && *p >= '0' && *p <= '9' && digits < 19)
		k = k * 10 + (uint64_t)(*p++ - '0'), digits++;
	if (p == d)
		return NULL;
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9' && digits < 19)
			k = k * 10 + (uint64_t)(*p++ - '0'), digits++, frac++;
	}
	if ((p < end && ((*p >= '0' && *p <= '9') || *p == 'e' || *p == 'E' || *p == '.')) ||
	    (double)k >= EXACT_INT || frac > 22) {
		/* long or with an exponent: the C library reads it */
		char t[64], *e;
		size_t n = 0;

		for (p = s; p < end && n < sizeof(t) - 1 && (strchr("+-.eE", *p) ||
							      (*p >= '0' && *p <= '9'));)
			t[n++] = *p++;
		t[n] = 0;
		*out = strtod(t, &e);
		return e == t ? NULL : s + (e - t);
	}
	*out = frac ? (double)k / pow10[frac] : (double)k;
	if (neg)
		*out = -*out;
	return p;
}

long gl_sblock_decode(const char *p, size_t len, int64_t t0_us, int64_t line0,
		      struct gl_sblock_sample *out, size_t cap)
{
	return gl_sblock_decode_origins(p, len, t0_us, line0, out, NULL, cap);
}

long gl_sblock_decode_origins(const char *p, size_t len, int64_t t0_us, int64_t line0,
			      struct gl_sblock_sample *out, uint32_t *origin, size_t cap)
{
	const char *end = p + len;
	size_t n = 0;

	if (p == end || *p++ != '[')
		return -1;
	if (p < end && *p == ']')
		return p + 1 == end ? 0 : -1;
	for (;;) {
		int64_t dt, dl, oi;
		double v;

		if (n == cap || p == end || *p++ != '[' || !(p = get_i64(p, end, &dt)) ||
		    p == end || *p++ != ',' || !(p = get_double(p, end, &v)) || p == end ||
		    *p++ != ',' || !(p = get_i64(p, end, &dl)) || p == end)
			return -1;
		/* a block of several origins: the index of the sample's */
		if (*p == ',') {
			if (!(p = get_i64(p + 1, end, &oi)) || oi < 0 || oi > UINT32_MAX || p == end)
				return -1;
		} else {
			oi = 0;
		}
		if (*p++ != ']' || p == end)
			return -1;
		if (origin)
			origin[n] = (uint32_t)oi;
		/* a damaged offset is a damaged block, not an overflow */
		if (__builtin_add_overflow(t0_us, dt, &out[n].ts_us) ||
		    __builtin_add_overflow(line0, dl, &out[n].line))
			return -1;
		out[n].value = v;
		n++;
		if (*p == ']')
			return p + 1 == end ? (long)n : -1;
		if (*p++ != ',')
			return -1;
	}
}

size_t gl_sblock_stage_encode(const struct gl_stage_sample *s, size_t n, char **buf, size_t *cap)
{
	/* an entry: "[" series "," est "," ts "," value "," line "," origin "],":
	 * 1 + 20 + 1 + 1 + 1 + 20 + 1 + 24 + 1 + 20 + 1 + 10 + 2 */
	size_t need = 2 + n * 104, len = 0;
	char *p = reserve(buf, cap, need);

	if (!p)
		return 0;
	p[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		if (i)
			p[len++] = ',';
		p[len++] = '[';
		len += put_i64(p + len, s[i].series_id);
		p[len++] = ',';
		p[len++] = s[i].ts_estimated ? '1' : '0';
		p[len++] = ',';
		len += put_i64(p + len, s[i].ts_us);
		p[len++] = ',';
		len += gl_sblock_fmt_double(p + len, s[i].value);
		p[len++] = ',';
		len += put_i64(p + len, s[i].line);
		p[len++] = ',';
		len += put_u64(p + len, s[i].origin);
		p[len++] = ']';
	}
	p[len++] = ']';
	p[len] = 0;
	return len;
}

long gl_sblock_stage_decode(const char *p, size_t len, struct gl_stage_sample *out, size_t cap)
{
	const char *end = p + len;
	size_t n = 0;

	if (p == end || *p++ != '[')
		return -1;
	if (p < end && *p == ']')
		return p + 1 == end ? 0 : -1;
	for (;;) {
		int64_t series, est, ts, line, oi;
		double v;

		if (n == cap || p == end || *p++ != '[' || !(p = get_i64(p, end, &series)) ||
		    p == end || *p++ != ',' || !(p = get_i64(p, end, &est)) || p == end ||
		    *p++ != ',' || !(p = get_i64(p, end, &ts)) || p == end || *p++ != ',' ||
		    !(p = get_double(p, end, &v)) || p == end || *p++ != ',' ||
		    !(p = get_i64(p, end, &line)) || p == end || *p++ != ',' ||
		    !(p = get_i64(p, end, &oi)) || oi < 0 || oi > UINT32_MAX || p == end ||
		    *p++ != ']' || p == end)
			return -1;
		out[n] = (struct gl_stage_sample){series, ts, line, v, (uint32_t)oi, est != 0};
		n++;
		if (*p == ']')
			return p + 1 == end ? (long)n : -1;
		if (*p++ != ',')
			return -1;
	}
}
