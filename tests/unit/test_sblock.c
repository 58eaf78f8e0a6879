/*
 * test_sblock.c - lib/store/sblock.c: a block's JSON text reads back the
 * same samples (every double bit for bit: random bit patterns, decimals as
 * sources write them, 0, -0, infinities); SQLite's own JSON reader
 * (json_each, what the view v_samples uses) reads the same values as
 * gl_sblock_decode; damaged texts are refused. The formatter writes the
 * same text as the one it replaced (old_fmt_double below, the code of
 * 9c273da: nearbyint, digits one at a time), so blocks stored before and
 * after are byte for byte alike.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/sblock.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double bits_double(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static void assert_same_double(double a, double b)
{
	uint64_t x, y;

	memcpy(&x, &a, sizeof(x));
	memcpy(&y, &b, sizeof(y));
	if (x != y)
		fail_msg("%.17g (0x%llx) read back as %.17g (0x%llx)", a, (unsigned long long)x, b,
			 (unsigned long long)y);
}

/* formats v, reads it with strtod: the same double */
static void roundtrip_strtod(double v)
{
	char t[32];
	size_t n = gl_sblock_fmt_double(t, v);

	assert_true(n > 0 && n < 25);
	t[n] = 0;
	assert_same_double(v, strtod(strcmp(t, "9e999") ? strcmp(t, "-9e999") ? t : "-inf" : "inf",
				     NULL));
	/* and gl_sblock_decode reads it back the same */
	char b[48];
	struct gl_sblock_sample r;
	int len = snprintf(b, sizeof(b), "[[7,%s,3]]", t);

	assert_int_equal(gl_sblock_decode(b, (size_t)len, 100, 1, &r, 1), 1);
	assert_same_double(v, r.value);
	assert_int_equal(r.ts_us, 107);
	assert_int_equal(r.line, 4);
}

static void test_format_values(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{0, "0"},	    {45, "45"},		 {-3, "-3"},	       {70.77, "70.77"},
		{0.05, "0.05"},	    {-0.5, "-0.5"},	 {1234.5, "1234.5"},   {1e-7, "0.0000001"},
		{1e15, "1000000000000000"},		 {0.1 + 0.2, "0.30000000000000004"},
		{1e300, "1.0000000000000001e+300"},	 {INFINITY, "9e999"},  {-INFINITY, "-9e999"},
	};
	char t[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = gl_sblock_fmt_double(t, cases[i].v);

		t[n] = 0;
		assert_string_equal(t, cases[i].text);
	}
	assert_int_equal(gl_sblock_fmt_double(t, -0.0), 2);
	assert_memory_equal(t, "-0", 2);
}

/* --- the formatter of 9c273da, as the reference ------------------------ */

#define OLD_EXACT_INT 9007199254740992.0

static const double old_pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

static size_t old_put_u64(char *p, uint64_t u)
{
	char t[20];
	size_t n = 0;

	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	for (size_t i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

static size_t old_fmt_double(char *p, double v)
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
	if (fabs(v) < OLD_EXACT_INT && v == (double)(int64_t)v) {
		if (v < 0) {
			*p = '-';
			return 1 + old_put_u64(p + 1, (uint64_t)0 - (uint64_t)(int64_t)v);
		}
		return old_put_u64(p, (uint64_t)(int64_t)v);
	}
	for (int d = 1; d <= 9; d++) {
		double k = nearbyint(v * old_pow10[d]);

		if (fabs(k) >= OLD_EXACT_INT)
			break;
		if (k / old_pow10[d] != v)
			continue;
		char t[24];
		uint64_t u = (uint64_t)fabs(k);
		size_t n = old_put_u64(t, u), len = 0;

		if (v < 0)
			p[len++] = '-';
		if (n <= (size_t)d) {
			p[len++] = '0';
			p[len++] = '.';
			for (size_t z = n; z < (size_t)d; z++)
				p[len++] = '0';
			memcpy(p + len, t, n);
			return len + n;
		}
		memcpy(p + len, t, n - (size_t)d);
		len += n - (size_t)d;
		p[len++] = '.';
		memcpy(p + len, t + n - d, (size_t)d);
		return len + (size_t)d;
	}
	return (size_t)snprintf(p, 32, "%.17g", v);
}

static void same_as_old(double v)
{
	char a[32], b[32];
	size_t na = gl_sblock_fmt_double(a, v), nb = old_fmt_double(b, v);

	a[na] = 0;
	b[nb] = 0;
	if (na != nb || strcmp(a, b) != 0)
		fail_msg("%.17g: \"%s\", the previous formatter wrote \"%s\"", v, a, b);
}

/*
 * The old path against the new one: random bit patterns, decimals k / 10^d
 * (d 1..9, k up to 2^53), their neighbours one ulp away, halves around 2^52
 * (where rounding ties exist), powers of ten, and both signs of each.
 */
static void test_same_as_previous(void **state)
{
	static const double edge[] = {0.5,	  1.5,	    2.5,      0.05,	0.25,	 1e-9,
				      1e-10,	  123456789.123456789,	      4503599627370495.5,
				      4503599627370496.0, 4503599627370497.0, 9007199254740991.0,
				      9007199254740992.0, 9007199254740993.0, 1e15 + 0.5,
				      1e16,	  1e22,	    1e300,    5e-324,	DBL_MAX,  DBL_MIN};

	/* its own generator: the other tests' values stay what they were */
	uint64_t r = 0x9E3779B97F4A7C15ULL;
#define own() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		same_as_old(edge[i]);
		same_as_old(-edge[i]);
		same_as_old(nextafter(edge[i], 0));
		same_as_old(nextafter(edge[i], INFINITY));
	}
	for (int i = 0; i < 300000; i++) {
		uint64_t u = own();
		double v = bits_double(u);

		if (isfinite(v))
			same_as_old(v);
	}
	for (int i = 0; i < 300000; i++) {
		int d = 1 + (int)(own() % 9);
		uint64_t bits = 1 + own() % 53;
		double v = (double)(int64_t)(own() % (1ULL << bits)) / old_pow10[d];

		if (own() & 1)
			v = -v;
		same_as_old(v);
		same_as_old(nextafter(v, 0));
		same_as_old(nextafter(v, INFINITY));
		/* x.5 * 10^-d: a tie when scaled back */
		same_as_old(((double)(int64_t)(own() % (1ULL << bits)) + 0.5) / old_pow10[d]);
	}
	/* halves just below 2^52 and 2^53 scaled by 10^-d */
	for (int i = 0; i < 100000; i++) {
		int d = 1 + (int)(own() % 9);
		double x = 4503599627370496.0 - (double)(own() % 4096) - 0.5;

		same_as_old(x / old_pow10[d]);
		same_as_old(-x / old_pow10[d]);
		same_as_old((x * 2 + 1) / old_pow10[d]);
	}
#undef own
}

static void test_roundtrip_random(void **state)
{
	(void)state;
	/* any bit pattern that is a finite double */
	for (int i = 0; i < 200000; i++) {
		double v = bits_double(next());

		if (isfinite(v))
			roundtrip_strtod(v);
	}
	/* decimals as sources write them: k / 10^d, and sums that are not */
	for (int i = 0; i < 200000; i++) {
		int d = (int)(next() % 7);
		double v = (double)(int64_t)(next() % 2000000 - 1000000) / pow(10, d);

		roundtrip_strtod(v);
		roundtrip_strtod(v * 1.1);
		roundtrip_strtod(v / 1024);
	}
}

/* encode, decode with gl_sblock_decode and with SQLite's json_each */
static void test_block_roundtrip(void **state)
{
	(void)state;
	enum { N = 3000 };
	struct gl_sblock_sample *s = calloc(N, sizeof(*s)), *r = calloc(N, sizeof(*r));
	char *buf = NULL;
	size_t cap = 0, len;
	int64_t t0 = 1736208000000000LL, line0 = 12;
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_non_null(s);
	assert_non_null(r);
	for (size_t i = 0; i < N; i++) {
		s[i].ts_us = t0 + (int64_t)i * 1000003;
		s[i].line = line0 + (int64_t)(next() % 100000);
		switch (i % 4) {
		case 0: s[i].value = (double)(next() % 101); break;
		case 1: s[i].value = (double)(int64_t)(next() % 100000) / 100; break;
		case 2: s[i].value = bits_double(next() & 0x7fefffffffffffffULL); break;
		default: s[i].value = -(double)(next() % 1000) / 3; break;
		}
	}
	len = gl_sblock_encode(s, N, t0, line0, &buf, &cap);
	assert_true(len > 0);
	assert_int_equal(strlen(buf), len);
	assert_int_equal(gl_sblock_decode(buf, len, t0, line0, r, N), N);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(r[i].ts_us, s[i].ts_us);
		assert_int_equal(r[i].line, s[i].line);
		assert_same_double(r[i].value, s[i].value);
	}
	/* too small an output: refused, not overrun */
	assert_int_equal(gl_sblock_decode(buf, len, t0, line0, r, N - 1), -1);

	/* SQLite's reader: the same times, lines and (short) values */
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT key, value ->> 0, value ->> 1, value ->> 2"
					    " FROM json_each(?1)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, buf, (int)len, SQLITE_STATIC);
	size_t k = 0;

	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t i = (size_t)sqlite3_column_int64(st, 0);

		assert_int_equal(i, k);
		assert_int_equal(t0 + sqlite3_column_int64(st, 1), s[i].ts_us);
		assert_int_equal(line0 + sqlite3_column_int64(st, 3), s[i].line);
		if (i % 4 != 2)	/* SQLite's own conversion of 17 digits may differ in the last bit */
			assert_same_double(sqlite3_column_double(st, 2), s[i].value);
		k++;
	}
	assert_int_equal(k, N);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(buf);
	free(s);
	free(r);
}

static void test_special_values(void **state)
{
	(void)state;
	struct gl_sblock_sample s[4] = {{10, INFINITY, 1}, {11, -INFINITY, 2}, {12, -0.0, 3},
					{13, 0.0, 3}},
				r[4];
	char *buf = NULL;
	size_t cap = 0, len = gl_sblock_encode(s, 4, 10, 1, &buf, &cap);

	assert_string_equal(buf, "[[0,9e999,0],[1,-9e999,1],[2,-0,2],[3,0,2]]");
	assert_int_equal(gl_sblock_decode(buf, len, 10, 1, r, 4), 4);
	for (int i = 0; i < 4; i++)
		assert_same_double(r[i].value, s[i].value);
	free(buf);
}

/*
 * Times and lines of every length from 1 to 19 digits (each power of ten,
 * one less, one more, and INT64_MAX): the text is what printf writes,
 * byte for byte, and reads back the same.
 */
static void test_encode_integers(void **state)
{
	enum { N = 19 * 3 + 1 };
	struct gl_sblock_sample s[N], r[N];
	char *buf = NULL, want[N * 72 + 2], *w = want;
	size_t cap = 0, len, n = 0;
	int64_t p10 = 1;

	(void)state;
	for (int k = 0; k < 19; k++, p10 = k < 19 ? p10 * 10 : p10) {
		int64_t v[3] = {p10 - 1, p10, p10 + 1};

		for (int j = 0; j < 3; j++, n++) {
			s[n].ts_us = v[j];
			s[n].value = (double)(k * 3 + j);
			s[n].line = v[2 - j];
		}
	}
	s[n].ts_us = INT64_MAX;
	s[n].value = -7;
	s[n].line = INT64_MAX;
	n++;
	/* (times out of order are written as given: the encoder does not sort) */
	len = gl_sblock_encode(s, n, 0, 0, &buf, &cap);
	*w++ = '[';
	for (size_t i = 0; i < n; i++)
		w += sprintf(w, "%s[%lld,%lld,%lld]", i ? "," : "", (long long)s[i].ts_us,
			     (long long)s[i].value, (long long)s[i].line);
	*w++ = ']';
	*w = 0;
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(gl_sblock_decode(buf, len, 0, 0, r, N), (long)n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r[i].ts_us, s[i].ts_us);
		assert_int_equal(r[i].line, s[i].line);
		assert_same_double(r[i].value, s[i].value);
	}
	free(buf);
}

/* A block of several origins: each entry's fourth member, written and read
 * back; one without it reads as origin 0. */
static void test_origins(void **state)
{
	(void)state;
	const struct gl_sblock_sample s[3] = {{1000, 1.5, 7}, {2000, -2, 3}, {2000, 1e22, 12}};
	const uint32_t org[3] = {0, 2, 4294967295u};
	struct gl_sblock_sample r[3];
	uint32_t ro[3];
	char *buf = NULL;
	size_t cap = 0, len = gl_sblock_encode_origins(s, org, 3, 1000, 0, &buf, &cap);

	assert_string_equal(buf, "[[0,1.5,7,0],[1000,-2,3,2],[1000,1e+22,12,4294967295]]");
	assert_int_equal(gl_sblock_decode_origins(buf, len, 1000, 0, r, ro, 3), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].ts_us, s[i].ts_us);
		assert_true(r[i].value == s[i].value);
		assert_int_equal(r[i].line, s[i].line);
		assert_int_equal(ro[i], org[i]);
	}
	/* the reader of one-origin blocks reads it too */
	assert_int_equal(gl_sblock_decode(buf, len, 1000, 0, r, 3), 3);
	assert_int_equal(gl_sblock_decode_origins("[[0,1,2]]", 9, 5, 1, r, ro, 1), 1);
	assert_int_equal(ro[0], 0);
	assert_int_equal(r[0].line, 3);
	free(buf);
}

/* A stage row's text: series, ts_estimated, time, value, line, origin. */
static void test_stage_rows(void **state)
{
	(void)state;
	const struct gl_stage_sample s[3] = {
		{7, 1763000000000000LL, 1, 0.25, 0, 0},
		{123456789012LL, -5, 99999999999LL, -1e-7, 3, 1},
		{8, 0, 2, 1e22, 4294967295u, 0},
	};
	struct gl_stage_sample r[3];
	char *buf = NULL;
	size_t cap = 0, len = gl_sblock_stage_encode(s, 3, &buf, &cap);
	static const char *const bad[] = {
		"", "[[7,0,1,2,3]]", "[[7,0,1,2,3,4,5]]", "[[7,0,1,2,3,-1]]", "[[7,0,1,x,3,0]]",
		"[[7,0,1,2,3,0]", "[[7,0,1,2,3,0],]",
	};

	assert_string_equal(buf, "[[7,0,1763000000000000,0.25,1,0],"
				 "[123456789012,1,-5,-0.0000001,99999999999,3],"
				 "[8,0,0,1e+22,2,4294967295]]");
	assert_int_equal(gl_sblock_stage_decode(buf, len, r, 3), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(r[i].series_id, s[i].series_id);
		assert_int_equal(r[i].ts_us, s[i].ts_us);
		assert_int_equal(r[i].line, s[i].line);
		assert_true(r[i].value == s[i].value);
		assert_int_equal(r[i].origin, s[i].origin);
		assert_int_equal(r[i].ts_estimated, s[i].ts_estimated);
	}
	assert_int_equal(gl_sblock_stage_decode(buf, len, r, 2), -1);
	assert_int_equal(gl_sblock_stage_decode("[]", 2, r, 3), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gl_sblock_stage_decode(bad[i], strlen(bad[i]), r, 3) != -1)
			fail_msg("damaged stage row '%s' was read", bad[i]);
	free(buf);
}

static void test_damaged(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",		"[",	      "[[0,1,0]",   "[[0,1,0],]", "[[0,1]]", "[[0,1,0,4,5]]",
		"[[0,1,0,-1]]",	"[[0,1,0,4294967296]]", "[[0,1,0,]]",
		"[[x,1,0]]",	"[[0,,0]]",   "[[0,1,0]]x", "[[0,1,0]",	  "[0,1,0]", "[[0,1,0],[1,2,0]",
		"[[0,1,0] ]",	"[[0,nul,0]]", "[[9223372036854775000,2,1]]", "[[0,2,9223372036854775000]]",
		"[[9999999999999999999,2,1]]",
	};
	struct gl_sblock_sample r[4];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gl_sblock_decode(bad[i], strlen(bad[i]), 1000, 1000, r, 4) != -1)
			fail_msg("damaged block '%s' was read", bad[i]);
	assert_int_equal(gl_sblock_decode("[]", 2, 0, 0, r, 4), 0);
	assert_int_equal(gl_sblock_decode("[[5,null,2]]", 12, 100, 10, r, 4), 1);
	assert_true(isnan(r[0].value));
	assert_int_equal(r[0].ts_us, 105);
	assert_int_equal(r[0].line, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_values),
		cmocka_unit_test(test_same_as_previous),
		cmocka_unit_test(test_roundtrip_random),
		cmocka_unit_test(test_block_roundtrip),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_encode_integers),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_origins),
		cmocka_unit_test(test_stage_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
