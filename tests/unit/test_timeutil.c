/*
 * Tests for lib/util/timeutil.c: civil dates <-> days, RFC 3339 parsing,
 * command-line dates, formatting. Expected values are worked out by hand
 * in the comments, or cross-checked against the C library's gmtime_r.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "util/timeutil.h"

#define S(x) ((int64_t)(x) * GL_US_PER_S)

/*
 * Day numbers worked out by hand:
 *  1900-01-01: 70 years of 365 days plus 17 leap days (1904..1968) before 1970: -25567
 *  2000-01-01: 30 * 365 + 7 leap days (1972..1996) = 10957; 2000-03-01: + 31 + 29 = 11017
 *  2025-01-01: 55 * 365 + 14 leap days (1972..2024) = 20089;
 *  2025-09-09: + 31+28+31+30+31+30+31+31 (Jan..Aug) + 8 = 20340
 *  2401-01-01: 431 * 365 + 105 leap days (108 multiples of 4 in 1972..2400,
 *              less 2100, 2200, 2300) = 157420
 *  0000-03-01: the algorithm's own origin, 719468 days before the epoch
 */
#define D_1900_01_01 (-25567)
#define D_2000_03_01 11017
#define D_2025_09_09 20340
#define D_2401_01_01 157420

/* Parses s from a heap copy of exactly its length, so ASan sees any over-read. */
static int parse(const char *s, int64_t *us)
{
	size_t len = strlen(s);
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, s, len);
	rc = gl_time_parse_rfc3339(copy, len, us);
	free(copy);
	return rc;
}

static int64_t must_parse(const char *s)
{
	int64_t us = 0;

	if (parse(s, &us) != 0)
		fail_msg("could not parse '%s'", s);
	return us;
}

static void test_known_days(void **state)
{
	int64_t y;
	unsigned m, d;

	(void)state;
	assert_int_equal(gl_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(gl_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(gl_days_from_civil(1970, 1, 2), 1);
	assert_int_equal(gl_days_from_civil(1900, 1, 1), D_1900_01_01);
	assert_int_equal(gl_days_from_civil(2000, 3, 1), D_2000_03_01);
	assert_int_equal(gl_days_from_civil(2000, 2, 29), D_2000_03_01 - 1);
	assert_int_equal(gl_days_from_civil(2025, 1, 1), 20089);
	assert_int_equal(gl_days_from_civil(2025, 9, 9), D_2025_09_09);
	assert_int_equal(gl_days_from_civil(2401, 1, 1), D_2401_01_01);
	assert_int_equal(gl_days_from_civil(0, 3, 1), -719468);
	gl_civil_from_days(D_2025_09_09, &y, &m, &d);
	assert_int_equal(y, 2025);
	assert_int_equal(m, 9);
	assert_int_equal(d, 9);
	gl_civil_from_days(-1, &y, &m, &d);
	assert_int_equal(y, 1969);
	assert_int_equal(m, 12);
	assert_int_equal(d, 31);
	gl_civil_from_days(-719468, &y, &m, &d);
	assert_int_equal(y, 0);
	assert_int_equal(m, 3);
	assert_int_equal(d, 1);
}

static unsigned month_len(int64_t y, unsigned m)
{
	static const unsigned len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return len[m - 1];
}

/* Walk the calendar 1900..2400 one day at a time with a counter. */
static void test_round_trip_every_day(void **state)
{
	int64_t n = D_1900_01_01;

	(void)state;
	for (int64_t y = 1900; y <= 2400; y++) {
		for (unsigned m = 1; m <= 12; m++) {
			for (unsigned d = 1; d <= month_len(y, m); d++, n++) {
				int64_t yy;
				unsigned mm, dd;

				if (gl_days_from_civil(y, m, d) != n)
					fail_msg("%lld-%02u-%02u: %lld, want %lld", (long long)y, m, d,
						 (long long)gl_days_from_civil(y, m, d), (long long)n);
				gl_civil_from_days(n, &yy, &mm, &dd);
				if (yy != y || mm != m || dd != d)
					fail_msg("day %lld -> %lld-%u-%u", (long long)n, (long long)yy,
						 mm, dd);
			}
		}
	}
	assert_int_equal(n, D_2401_01_01);
}

static void test_parse_basic(void **state)
{
	/* 2025-09-09T14:30:22Z = 20340 days + 14 h 30 min 22 s */
	int64_t base = S((int64_t)D_2025_09_09 * 86400 + 14 * 3600 + 30 * 60 + 22);

	(void)state;
	assert_true(must_parse("2025-09-09T14:30:22Z") == base);
	assert_true(must_parse("2025-09-09t14:30:22z") == base);
	assert_true(must_parse("2025-09-09 14:30:22Z") == base);
	/* no zone: UTC */
	assert_true(must_parse("2025-09-09T14:30:22") == base);
	assert_true(must_parse("1970-01-01T00:00:00Z") == 0);
	assert_true(must_parse("1969-12-31T23:59:59Z") == S(-1));
	assert_true(must_parse("1900-01-01T00:00:00Z") == S((int64_t)D_1900_01_01 * 86400));
	assert_true(must_parse("2000-03-01T00:00:00Z") == S((int64_t)D_2000_03_01 * 86400));
	assert_true(must_parse("2025-09-09T23:59:59Z") == S((int64_t)D_2025_09_09 * 86400 + 86399));
	/* a leap second rolls over into the next minute */
	assert_true(must_parse("2025-09-09T23:59:60Z") == S((int64_t)(D_2025_09_09 + 1) * 86400));
}

static void test_parse_only_len(void **state)
{
	const char *s = "2025-09-09T14:30:22.5Zgarbage";
	int64_t us;

	(void)state;
	/* the first 19 bytes alone are a valid time without zone */
	assert_int_equal(gl_time_parse_rfc3339(s, 19, &us), 0);
	assert_true(us == S((int64_t)D_2025_09_09 * 86400 + 52222));
	assert_int_equal(gl_time_parse_rfc3339(s, 22, &us), 0);
	assert_true(us == S((int64_t)D_2025_09_09 * 86400 + 52222) + 500000);
	assert_int_equal(gl_time_parse_rfc3339(s, strlen(s), &us), -1);
}

static void test_parse_fractions(void **state)
{
	static const int64_t want[10] = {
		0, 100000, 120000, 123000, 123400, 123450, 123456, 123456, 123456, 123456,
	};
	int64_t base = S(86400);	/* 1970-01-02 */
	char s[64];

	(void)state;
	for (int nd = 1; nd <= 9; nd++) {
		snprintf(s, sizeof(s), "1970-01-02T00:00:00.%.*sZ", nd, "123456789");
		assert_true(must_parse(s) == base + want[nd]);
		/* the same without zone, and with an offset */
		snprintf(s, sizeof(s), "1970-01-02T00:00:00.%.*s", nd, "123456789");
		assert_true(must_parse(s) == base + want[nd]);
		snprintf(s, sizeof(s), "1970-01-02T01:00:00.%.*s+01:00", nd, "123456789");
		assert_true(must_parse(s) == base + want[nd]);
	}
	/* truncated, not rounded */
	assert_true(must_parse("1970-01-02T00:00:00.999999999Z") == base + 999999);
	assert_true(must_parse("1970-01-02T00:00:00.0000009Z") == base);
	assert_true(must_parse("1970-01-02T00:00:00.000001Z") == base + 1);
	/* before 1970 the fraction still counts forward */
	assert_true(must_parse("1969-12-31T23:59:59.25Z") == -750000);

	int64_t us;

	assert_int_equal(parse("1970-01-02T00:00:00.1234567890Z", &us), -1);
	assert_int_equal(parse("1970-01-02T00:00:00.Z", &us), -1);
	assert_int_equal(parse("1970-01-02T00:00:00.", &us), -1);
	assert_int_equal(parse("1970-01-02T00:00:00,5Z", &us), -1);
	assert_int_equal(parse("1970-01-02T00:00:00.5.5Z", &us), -1);
}

static void test_parse_offsets(void **state)
{
	/* 2025-09-09T12:00:00Z */
	int64_t noon = S((int64_t)D_2025_09_09 * 86400 + 12 * 3600);

	(void)state;
	assert_true(must_parse("2025-09-09T14:00:00+02:00") == noon);
	assert_true(must_parse("2025-09-09T14:00:00+0200") == noon);
	assert_true(must_parse("2025-09-09T06:30:00-05:30") == noon);
	assert_true(must_parse("2025-09-09T06:30:00-0530") == noon);
	assert_true(must_parse("2025-09-09T12:00:00+00:00") == noon);
	assert_true(must_parse("2025-09-09T12:00:00-00:00") == noon);
	assert_true(must_parse("2025-09-09 17:45:00+05:45") == noon);
	/* offsets move the date: 01:00+02:00 is 23:00 the day before */
	assert_true(must_parse("2025-09-09T01:00:00+02:00") ==
		    S((int64_t)(D_2025_09_09 - 1) * 86400 + 23 * 3600));
	assert_true(must_parse("2025-09-09T23:00:00-02:00") ==
		    S((int64_t)(D_2025_09_09 + 1) * 86400 + 3600));
	assert_true(must_parse("2025-09-09T12:00:00+23:59") == noon - S(23 * 3600 + 59 * 60));
	/* with a fraction */
	assert_true(must_parse("2025-09-09T14:00:00.000250+02:00") == noon + 250);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"2025",
		"2025-09-09",			/* no time: RFC 3339 needs one */
		"2025-09-09T14:30",
		"2025-09-09T14:30:2",
		"2025-09-09X14:30:22Z",
		"2025/09/09T14:30:22Z",
		"2025-09-09T14-30-22Z",
		"2025-9-09T14:30:22Z",
		"20x5-09-09T14:30:22Z",
		"-025-09-09T14:30:22Z",
		"2025-00-09T14:30:22Z",
		"2025-13-09T14:30:22Z",
		"2025-09-00T14:30:22Z",
		"2025-09-31T14:30:22Z",
		"2025-01-32T14:30:22Z",
		"2025-04-31T00:00:00Z",
		"2023-02-29T00:00:00Z",
		"1900-02-29T00:00:00Z",
		"2100-02-29T00:00:00Z",
		"2025-09-09T24:00:00Z",
		"2025-09-09T14:60:00Z",
		"2025-09-09T14:30:61Z",
		"2025-09-09T1a:30:22Z",
		"2025-09-09T14:30:22ZZ",
		"2025-09-09T14:30:22Zx",
		"2025-09-09T14:30:22Z ",
		"2025-09-09T14:30:22 ",
		"2025-09-09T14:30:22 UTC",
		"2025-09-09T14:30:22+02",
		"2025-09-09T14:30:22+2:00",
		"2025-09-09T14:30:22+02:0",
		"2025-09-09T14:30:22+02:000",
		"2025-09-09T14:30:22+02:00x",
		"2025-09-09T14:30:22+02:00Z",
		"2025-09-09T14:30:22+02:00:00",
		"2025-09-09T14:30:22+0200 ",
		"2025-09-09T14:30:22+24:00",
		"2025-09-09T14:30:22+02:60",
		"2025-09-09T14:30:22+02;00",
		"2025-09-09T14:30:22+0a:00",
		"2025-09-09T14:30:22*02:00",
		" 2025-09-09T14:30:22Z",
	};
	int64_t us = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &us) != -1)
			fail_msg("accepted '%s'", bad[i]);
	/* every proper prefix of a valid time shorter than 19 bytes is refused */
	const char *good = "2025-09-09T14:30:22.123456+02:00";

	for (size_t n = 0; n < strlen(good); n++) {
		char buf[64];
		int rc;

		memcpy(buf, good, n);
		buf[n] = '\0';
		rc = parse(buf, &us);
		/* 19 bytes: no zone; 21..26: fraction, no zone; the full string */
		if (n == 19 || (n >= 21 && n <= 26))
			assert_int_equal(rc, 0);
		else
			assert_int_equal(rc, -1);
	}
	assert_true(us == S((int64_t)D_2025_09_09 * 86400 + 52222) + 123456);
}

static void test_leap_days(void **state)
{
	(void)state;
	assert_true(must_parse("2024-02-29T00:00:00Z") == S((int64_t)gl_days_from_civil(2024, 3, 1) * 86400 - 86400));
	assert_true(must_parse("2000-02-29T12:00:00Z") == S((int64_t)(D_2000_03_01 - 1) * 86400 + 43200));
	assert_true(must_parse("2400-02-29T00:00:00Z") > 0);
	assert_true(must_parse("2025-12-31T23:59:59Z") == S((int64_t)gl_days_from_civil(2026, 1, 1) * 86400 - 1));
}

static void test_parse_arg(void **state)
{
	int64_t us = 0;

	(void)state;
	assert_int_equal(gl_time_parse_arg("2025-09-09", &us), 0);
	assert_true(us == (int64_t)D_2025_09_09 * GL_US_PER_DAY);
	assert_int_equal(gl_time_parse_arg("1970-01-01", &us), 0);
	assert_true(us == 0);
	assert_int_equal(gl_time_parse_arg("1900-01-01", &us), 0);
	assert_true(us == (int64_t)D_1900_01_01 * GL_US_PER_DAY);
	assert_int_equal(gl_time_parse_arg("2024-02-29", &us), 0);
	assert_int_equal(gl_time_parse_arg("2025-09-09T14:30:22Z", &us), 0);
	assert_true(us == S((int64_t)D_2025_09_09 * 86400 + 52222));
	assert_int_equal(gl_time_parse_arg("2025-09-09 00:00:00+01:00", &us), 0);
	assert_true(us == (int64_t)D_2025_09_09 * GL_US_PER_DAY - S(3600));

	static const char *const bad[] = {
		"", "2025", "2025-09", "2025-9-9", "2025-09-9", "2025-02-29", "2025-13-01",
		"2025-09-00", "09/09/2025", "2025-09-09T", "2025-09-09 ", " 2025-09-09",
		"2025-09-09x", "yesterday", "2025-09-09T25:00:00Z",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		us = 777;
		if (gl_time_parse_arg(bad[i], &us) != -1)
			fail_msg("accepted '%s'", bad[i]);
	}
}

/* Issue 30: times without seconds, and relative to now. */
static void test_parse_when(void **state)
{
	/* now: 2025-09-09T14:30:22.5Z; 52222 s after midnight, by hand */
	const int64_t midnight = (int64_t)D_2025_09_09 * GL_US_PER_DAY;
	const int64_t now = midnight + S(52222) + 500000;
	int64_t us = 0;

	(void)state;
	assert_int_equal(gl_time_parse_arg("2025-09-09T14:30Z", &us), 0);
	assert_true(us == midnight + S(14 * 3600 + 30 * 60));
	assert_int_equal(gl_time_parse_arg("2025-09-09 14:30", &us), 0);
	assert_true(us == midnight + S(52200));
	assert_int_equal(gl_time_parse_arg("2025-09-09T14:30+02:00", &us), 0);
	assert_true(us == midnight + S(52200 - 7200));
	assert_int_equal(gl_time_parse_when("now", now, &us), 0);
	assert_true(us == now);
	assert_int_equal(gl_time_parse_when("today", now, &us), 0);
	assert_true(us == midnight);
	assert_int_equal(gl_time_parse_when("yesterday", now, &us), 0);
	assert_true(us == midnight - 86400 * GL_US_PER_S);
	assert_int_equal(gl_time_parse_when("-2h", now, &us), 0);
	assert_true(us == now - S(7200));
	assert_int_equal(gl_time_parse_when("-90m", now, &us), 0);
	assert_true(us == now - S(5400));
	assert_int_equal(gl_time_parse_when("-30s", now, &us), 0);
	assert_true(us == now - S(30));
	assert_int_equal(gl_time_parse_when("-7d", now, &us), 0);
	assert_true(us == now - S(7 * 86400));
	assert_int_equal(gl_time_parse_when("-2w", now, &us), 0);
	assert_true(us == now - S(14 * 86400));
	assert_int_equal(gl_time_parse_when("2025-09-09", now, &us), 0);
	assert_true(us == midnight);
	/* before 1970: midnight is still a whole day earlier */
	assert_int_equal(gl_time_parse_when("today", -S(1), &us), 0);
	assert_true(us == -86400 * GL_US_PER_S);

	static const char *const bad[] = {"", "-", "-2", "-2x", "-2hh", "2h", "+2h", "-h",
					  "Yesterday", "tomorrow", "2025-09-09T14:3Z",
					  "2025-09-09T14Z", "-99999999999d"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		us = 777;
		if (gl_time_parse_when(bad[i], now, &us) != -1)
			fail_msg("accepted '%s'", bad[i]);
	}
}

static void test_format_known(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(gl_time_format(0, buf), "1970-01-01T00:00:00Z");
	assert_string_equal(gl_time_format(1, buf), "1970-01-01T00:00:00.000001Z");
	assert_string_equal(gl_time_format(-1, buf), "1969-12-31T23:59:59.999999Z");
	assert_string_equal(gl_time_format(-GL_US_PER_S, buf), "1969-12-31T23:59:59Z");
	assert_string_equal(gl_time_format(-GL_US_PER_DAY, buf), "1969-12-31T00:00:00Z");
	assert_string_equal(gl_time_format(-GL_US_PER_DAY - 1, buf), "1969-12-30T23:59:59.999999Z");
	assert_string_equal(gl_time_format(S((int64_t)D_2025_09_09 * 86400 + 52222) + 123456, buf),
			    "2025-09-09T14:30:22.123456Z");
	assert_string_equal(gl_time_format(S((int64_t)D_2025_09_09 * 86400 + 52222) + 500000, buf),
			    "2025-09-09T14:30:22.500000Z");
	assert_string_equal(gl_time_format((int64_t)D_1900_01_01 * GL_US_PER_DAY, buf),
			    "1900-01-01T00:00:00Z");
	assert_string_equal(gl_time_format((int64_t)(D_2000_03_01 - 1) * GL_US_PER_DAY + S(43200), buf),
			    "2000-02-29T12:00:00Z");
	assert_string_equal(gl_time_format((int64_t)D_2401_01_01 * GL_US_PER_DAY - 1, buf),
			    "2400-12-31T23:59:59.999999Z");
	/* returns buf */
	assert_ptr_equal(gl_time_format(0, buf), buf);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Random times 1900..2400: format agrees with gmtime_r, and parse undoes format. */
static void test_format_parse_random(void **state)
{
	int64_t lo = (int64_t)D_1900_01_01 * GL_US_PER_DAY;
	int64_t hi = (int64_t)D_2401_01_01 * GL_US_PER_DAY;

	(void)state;
	if (sizeof(time_t) < 8)
		skip();
	for (int i = 0; i < 200000; i++) {
		int64_t x = lo + (int64_t)(rnd() % (uint64_t)(hi - lo));
		char buf[32], want[64];
		struct tm tm;
		time_t secs;
		int64_t frac, back;

		if (i % 3 == 0)
			x -= x % GL_US_PER_S;	/* whole seconds: no fraction printed */
		secs = (time_t)(x >= 0 ? x / GL_US_PER_S : -((-x + GL_US_PER_S - 1) / GL_US_PER_S));
		frac = x - (int64_t)secs * GL_US_PER_S;
		assert_non_null(gmtime_r(&secs, &tm));
		strftime(want, sizeof(want), "%Y-%m-%dT%H:%M:%S", &tm);
		if (frac)
			snprintf(want + 19, sizeof(want) - 19, ".%06lldZ", (long long)frac);
		else
			snprintf(want + 19, sizeof(want) - 19, "Z");
		gl_time_format(x, buf);
		if (strcmp(buf, want) != 0)
			fail_msg("%lld: '%s', gmtime says '%s'", (long long)x, buf, want);
		back = 0;
		assert_int_equal(gl_time_parse_rfc3339(buf, strlen(buf), &back), 0);
		assert_true(back == x);
	}
}

static void test_now(void **state)
{
	int64_t a = gl_time_now_us(), b;
	struct timespec ts;

	(void)state;
	clock_gettime(CLOCK_REALTIME, &ts);
	b = gl_time_now_us();
	assert_true(a <= b);
	/* within a second of the C library's clock */
	assert_true(llabs(a - ((int64_t)ts.tv_sec * GL_US_PER_S + ts.tv_nsec / 1000)) < GL_US_PER_S);
	/* after 2025-01-01 */
	assert_true(a > 20089LL * GL_US_PER_DAY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_days),
		cmocka_unit_test(test_round_trip_every_day),
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_only_len),
		cmocka_unit_test(test_parse_fractions),
		cmocka_unit_test(test_parse_offsets),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_leap_days),
		cmocka_unit_test(test_parse_arg),
		cmocka_unit_test(test_parse_when),
		cmocka_unit_test(test_format_known),
		cmocka_unit_test(test_format_parse_random),
		cmocka_unit_test(test_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
