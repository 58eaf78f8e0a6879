/*
 * Tests for lib/util/tzfile.c: naive local times to UTC from the TZif
 * files, checked against the C library's mktime() under TZ (this test is
 * one thread: the environment is its own), every 97 minutes over 2024-2027
 * and in 2045 (past the files' transitions: the footer's rule), in zones
 * north and south, with and without DST. The skipped and repeated hours,
 * where mktime's choice is its own, are checked by hand.
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
#include <unistd.h>

#include <cmocka.h>

#include "util/timeutil.h"
#include "util/tzfile.h"

#define ZI "/usr/share/zoneinfo"

static int have(const char *zone)
{
	char p[256];

	snprintf(p, sizeof(p), ZI "/%s", zone);
	return access(p, R_OK) == 0;
}

/* mktime's answer for naive_s in zone, or 0 when the naive time is skipped
 * or repeated there (the round trip or the hour either side says so). */
static int libc_utc(int64_t naive_s, int64_t *utc)
{
	time_t t = (time_t)naive_s;
	struct tm tm, back;
	time_t u;

	gmtime_r(&t, &tm);
	tm.tm_isdst = -1;
	u = mktime(&tm);
	if (u == (time_t)-1)
		return 0;
	for (int d = -1; d <= 1; d++) {
		time_t v = u + d * 3600;

		localtime_r(&v, &back);
		if (d && timegm(&back) == (time_t)naive_s)
			return 0;	/* another instant with the same wall time */
		if (!d && timegm(&back) != (time_t)naive_s)
			return 0;	/* skipped */
	}
	*utc = (int64_t)u;
	return 1;
}

static void check_zone(const char *zone)
{
	struct gl_tz *z = gl_tz_open(ZI, zone);
	static const int64_t spans[][2] = {{1704067200, 1830297600},	/* 2024-01-01 .. 2028-01-01 */
					    {2366841600, 2398377600}};	/* 2045 */
	long n = 0;

	assert_non_null(z);
	setenv("TZ", zone, 1);
	tzset();
	for (size_t k = 0; k < 2; k++)
		for (int64_t s = spans[k][0]; s < spans[k][1]; s += 97 * 60) {
			int64_t want;

			if (!libc_utc(s, &want))
				continue;
			if (gl_tz_naive_to_utc_s(z, s) != want)
				fail_msg("%s: naive %lld: %lld, mktime %lld", zone, (long long)s,
					 (long long)gl_tz_naive_to_utc_s(z, s), (long long)want);
			n++;
		}
	assert_true(n > 20000);	/* 27,000 instants less the few around changes */
	unsetenv("TZ");
	tzset();
	gl_tz_free(z);
}

static void test_against_mktime(void **state)
{
	static const char *const zones[] = {"Europe/Berlin", "America/New_York", "Australia/Sydney",
					    "Asia/Kolkata", "America/Sao_Paulo", "UTC", NULL};
	(void)state;
	for (size_t i = 0; zones[i]; i++) {
		if (!have(zones[i])) {
			printf("skipped: " ZI "/%s absent\n", zones[i]);
			continue;
		}
		check_zone(zones[i]);
	}
}

static void test_skipped_and_repeated(void **state)
{
	struct gl_tz *z;
	/* 2025-03-30 02:30 Berlin does not exist (02:00 CET -> 03:00 CEST at
	 * 01:00 UTC): read with CET's +1 h, 01:30 UTC (03:30 CEST). 2025-10-26
	 * 02:30 is there twice (03:00 CEST -> 02:00 CET at 01:00 UTC): the
	 * first, in CEST, 00:30 UTC. 2025-03-30 = day 20177 (20089 + 31 + 28 + 29). */
	int64_t mar = (int64_t)20177 * 86400, oct = (int64_t)(20089 + 298) * 86400;

	(void)state;
	if (!have("Europe/Berlin")) {
		printf("skipped: " ZI "/Europe/Berlin absent\n");
		return;
	}
	assert_int_equal(gl_days_from_civil(2025, 3, 30), 20177);
	assert_int_equal(gl_days_from_civil(2025, 10, 26), 20089 + 298);
	z = gl_tz_open(ZI, "Europe/Berlin");
	assert_non_null(z);
	assert_int_equal(gl_tz_naive_to_utc_s(z, mar + 2 * 3600 + 1800), mar + 3600 + 1800);
	assert_int_equal(gl_tz_naive_to_utc_s(z, oct + 2 * 3600 + 1800), oct + 1800);
	gl_tz_free(z);
	assert_null(gl_tz_open(ZI, "Mars/Olympus"));
	assert_null(gl_tz_open(ZI, "../../etc/passwd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_mktime),
		cmocka_unit_test(test_skipped_and_repeated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
