/*
 * timeutil.c - RFC 3339 parsing and formatting without the C library's
 * time zone machinery (timegm is not C11, and mktime depends on TZ).
 * Civil-date arithmetic after H. Hinnant's days_from_civil algorithm.
 */
#define _POSIX_C_SOURCE 200809L
#include "timeutil.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t gl_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

void gl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Reads exactly n digits at s; -1 if any is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int days_in_month(int64_t y, unsigned m)
{
	static const unsigned char dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 ? 28 + leap : dm[m - 1];
}

int gl_civil_valid(int64_t y, unsigned m, unsigned d)
{
	return y >= 0 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && (int)d <= days_in_month(y, m);
}

static int parse_date(const char *s, size_t len, int64_t *days)
{
	int y, mo, d;

	if (len < 10 || s[4] != '-' || s[7] != '-')
		return -1;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, (unsigned)mo))
		return -1;
	*days = gl_days_from_civil(y, (unsigned)mo, (unsigned)d);
	return 0;
}

int gl_time_parse_rfc3339(const char *s, size_t len, int64_t *us)
{
	int64_t days, frac = 0, off_s = 0;
	int hh, mi, ss;
	size_t i = 19;

	if (len < 19 || parse_date(s, len, &days) < 0)
		return -1;
	if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
		return -1;
	if (s[13] != ':' || s[16] != ':')
		return -1;
	hh = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	ss = digits(s + 17, 2);
	/* ss == 60 is a leap second: kept as :59.999999 is a lie, 60 rolls over. */
	if (hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 60)
		return -1;
	if (i < len && s[i] == '.') {
		int nd = 0;
		int64_t scale = 100000;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, nd++) {
			if (nd < 6)
				frac += (s[i] - '0') * scale;
			scale /= 10;
		}
		if (nd < 1 || nd > 9)
			return -1;
	}
	if (i < len) {
		char c = s[i];

		if ((c == 'Z' || c == 'z') && i + 1 == len) {
			i++;
		} else if (c == '+' || c == '-') {
			int oh, om;

			if (len - i == 6 && s[i + 3] == ':') {
				oh = digits(s + i + 1, 2);
				om = digits(s + i + 4, 2);
			} else if (len - i == 5) {
				oh = digits(s + i + 1, 2);
				om = digits(s + i + 3, 2);
			} else {
				return -1;
			}
			if (oh < 0 || oh > 23 || om < 0 || om > 59)
				return -1;
			off_s = (oh * 3600 + om * 60) * (c == '+' ? 1 : -1);
			i = len;
		} else {
			return -1;
		}
	}
	if (i != len)
		return -1;
	*us = (days * 86400 + hh * 3600 + mi * 60 + ss - off_s) * GL_US_PER_S + frac;
	return 0;
}

int gl_time_parse_arg(const char *s, int64_t *us)
{
	size_t len = strlen(s);
	int64_t days;

	if (len == 10) {
		if (parse_date(s, len, &days) < 0)
			return -1;
		*us = days * GL_US_PER_DAY;
		return 0;
	}
	return gl_time_parse_rfc3339(s, len, us);
}

char *gl_time_format(int64_t us, char *buf)
{
	int64_t days = us / GL_US_PER_DAY, rem = us % GL_US_PER_DAY, y;
	unsigned m, d;

	if (rem < 0) {
		rem += GL_US_PER_DAY;
		days--;
	}
	gl_civil_from_days(days, &y, &m, &d);
	int64_t secs = rem / GL_US_PER_S, frac = rem % GL_US_PER_S;
	int n = snprintf(buf, 32, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", (long long)y, m, d,
			 (long long)(secs / 3600), (long long)(secs / 60 % 60),
			 (long long)(secs % 60));

	if (frac)
		snprintf(buf + n, 32 - (size_t)n, ".%06lldZ", (long long)frac);
	else
		snprintf(buf + n, 32 - (size_t)n, "Z");
	return buf;
}

int64_t gl_time_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * GL_US_PER_S + ts.tv_nsec / 1000;
}

void gl_time_deadline(struct timespec *dl, long ms)
{
	clock_gettime(CLOCK_REALTIME, dl);
	dl->tv_sec += ms / 1000;
	dl->tv_nsec += ms % 1000 * 1000000L;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec++;
		dl->tv_nsec -= 1000000000L;
	}
}
