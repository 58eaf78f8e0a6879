/*
 * textts.c - finds a timestamp near the start of a text line (textts.h).
 * In: a line. Out: where the stamp is and what it says, without a zone or
 * a guessed year.
 */
#include "textts.h"

#include <string.h>

#include "../util/timeutil.h"

static int dig(char c)
{
	return c >= '0' && c <= '9';
}

static int alnum(char c)
{
	return dig(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* n digits at s[i]: their value, or -1. */
static long num(const char *s, size_t len, size_t i, size_t n)
{
	long v = 0;

	if (i + n > len)
		return -1;
	for (size_t k = 0; k < n; k++) {
		if (!dig(s[i + k]))
			return -1;
		v = v * 10 + (s[i + k] - '0');
	}
	return v;
}

/* "HH:MM:SS" at s[i], then an optional [.,:]fraction; *end after it. µs of day or -1. */
static int64_t hms(const char *s, size_t len, size_t i, size_t *end)
{
	long h = num(s, len, i, 2), m, sec;
	int64_t us;
	size_t k;

	if (h < 0 || i + 8 > len || s[i + 2] != ':' || s[i + 5] != ':')
		return -1;
	m = num(s, len, i + 3, 2);
	sec = num(s, len, i + 6, 2);
	if (m < 0 || sec < 0 || h > 23 || m > 59 || sec > 60)
		return -1;
	us = ((int64_t)h * 3600 + m * 60 + sec) * GL_US_PER_S;
	k = i + 8;
	if (k + 1 < len && (s[k] == '.' || s[k] == ',') && dig(s[k + 1])) {
		int64_t frac = 0, scale = 100000;

		k++;
		while (k < len && dig(s[k])) {
			if (scale) {
				frac += (s[k] - '0') * scale;
				scale /= 10;
			}
			k++;
		}
		us += frac;
	}
	*end = k;
	return us;
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static int month_of(const char *s, size_t len, size_t i)
{
	if (i + 3 > len)
		return 0;
	for (int m = 0; m < 12; m++)
		if (memcmp(s + i, months + 3 * m, 3) == 0)
			return m + 1;
	return 0;
}

/* A stamp's shape at s[i..end) whose date is in no calendar or out of range. */
static int bad_at(struct gl_textts *t, size_t i, size_t end)
{
	t->kind = GL_TEXTTS_BAD;
	t->start = i;
	t->end = end;
	return 1;
}

/*
 * A year of 4 to 6 digits at s[i], then "-MM-DD[T _]HH:MM:SS": 1 with the
 * stamp's end in *end when the date is in the calendar and in 1970..9999
 * (the caller reads it), else bad_at: "0000-01-01 ...", "1900-01-01 ...",
 * "10000-01-01 ...", "2026-02-31 ..." are no times. 0: not that shape.
 */
static int iso_shape(const char *s, size_t len, size_t i, long *y, long *mo, long *d,
		     int64_t *tod, size_t *end, struct gl_textts *t)
{
	size_t n = 0;

	*y = 0;
	while (n < 6 && i + n < len && dig(s[i + n]))
		*y = *y * 10 + (s[i + n++] - '0');
	if (n < 4 || i + n + 15 > len || s[i + n] != '-' || s[i + n + 3] != '-')
		return 0;
	i += n;
	*mo = num(s, len, i + 1, 2);
	*d = num(s, len, i + 4, 2);
	if (*mo < 0 || *d < 0 || (s[i + 6] != 'T' && s[i + 6] != ' ' && s[i + 6] != '_'))
		return 0;
	if (i + 15 > len || s[i + 9] != ':' || s[i + 12] != ':' || num(s, len, i + 7, 2) < 0 ||
	    num(s, len, i + 10, 2) < 0 || num(s, len, i + 13, 2) < 0)
		return 0;
	if (n != 4 || *y < 1970 || !gl_civil_valid(*y, (unsigned)*mo, (unsigned)*d) ||
	    (*tod = hms(s, len, i + 7, end)) < 0)
		return bad_at(t, i - n, i + 15);
	return 1;
}

/* 2026-11-26[T _]14:02:09[.frac][Z|+hh:mm] */
static int iso_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	long y, mo, d;
	size_t end;
	int64_t tod = 0;	/* set where iso_shape answers 1 (GCC cannot see it with -fprofile-generate) */

	if (!iso_shape(s, len, i, &y, &mo, &d, &tod, &end, t) || t->kind == GL_TEXTTS_BAD)
		return t->kind == GL_TEXTTS_BAD;
	t->kind = GL_TEXTTS_ISO;
	t->naive_us = gl_days_from_civil(y, (unsigned)mo, (unsigned)d) * GL_US_PER_DAY + tod;
	t->has_zone = 0;
	if (end < len && (s[end] == 'Z' || s[end] == 'z')) {
		t->has_zone = 1;
		end++;
	} else if (end + 5 <= len && (s[end] == '+' || s[end] == '-') && num(s, len, end + 1, 2) >= 0) {
		long oh = num(s, len, end + 1, 2), om = -1;
		size_t e2 = end + 3;

		if (e2 < len && s[e2] == ':')
			e2++;
		om = num(s, len, e2, 2);
		if (om >= 0) {
			int64_t off = ((int64_t)oh * 60 + om) * 60 * GL_US_PER_S;

			t->naive_us += s[end] == '+' ? -off : off;
			t->has_zone = 1;
			end = e2 + 2;
		}
	}
	t->start = i;
	t->end = end;
	return 1;
}

/* 11/26/2026 14:02:09 */
static int slash_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	long a = num(s, len, i, 2), b, y;
	size_t end;
	int64_t tod;

	if (a < 1 || i + 19 > len || s[i + 2] != '/' || s[i + 5] != '/' || s[i + 10] != ' ')
		return 0;
	b = num(s, len, i + 3, 2);
	y = num(s, len, i + 6, 4);
	if (b < 1 || y < 1970 || a > 31 || b > 31 || (a > 12 && b > 12))
		return 0;
	if ((tod = hms(s, len, i + 11, &end)) < 0)
		return 0;
	t->kind = GL_TEXTTS_SLASH;
	t->a = (unsigned)a;
	t->b = (unsigned)b;
	t->year = y;
	t->naive_us = tod;
	t->start = i;
	t->end = end;
	return 1;
}

static int noyear(struct gl_textts *t, unsigned mo, unsigned d, int64_t tod, size_t i, size_t end)
{
	/* the most days of each month in any year: the year is not written */
	static const unsigned mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	if (d > mdays[mo - 1])
		return bad_at(t, i, end);	/* "Feb 30 10:00:00", "02-31 10:00:00" */
	t->kind = GL_TEXTTS_NOYEAR;
	t->a = mo;
	t->b = d;
	t->naive_us = tod;
	t->start = i;
	t->end = end;
	return 1;
}

/* Nov 26 14:01:04 (day may be space-padded) */
static int syslog_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	int mo = month_of(s, len, i);
	size_t k = i + 3, end;
	long d;
	int64_t tod;

	if (!mo || k >= len || s[k] != ' ')
		return 0;
	k++;
	if (k < len && s[k] == ' ')
		k++;
	if (k + 1 < len && dig(s[k]) && dig(s[k + 1])) {
		d = num(s, len, k, 2);
		k += 2;
	} else if (k < len && dig(s[k])) {
		d = s[k] - '0';
		k++;
	} else {
		return 0;
	}
	if (k >= len || s[k] != ' ' || (tod = hms(s, len, k + 1, &end)) < 0)
		return 0;
	return noyear(t, (unsigned)mo, (unsigned)d, tod, i, end);
}

/* I1126 14:01:08.431698 */
static int glog_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	long mo = num(s, len, i + 1, 2), d = num(s, len, i + 3, 2);
	size_t end;
	int64_t tod;

	if (!strchr("IWEF", s[i]) || mo < 0 || d < 0 || i + 6 > len || s[i + 5] != ' ')
		return 0;
	if ((tod = hms(s, len, i + 6, &end)) < 0)
		return 0;
	if (!noyear(t, (unsigned)mo, (unsigned)d, tod, i, end))
		return 0;
	t->glog_level = s[i];
	return 1;
}

/* 09-15 14:42:21 */
static int md_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	long mo = num(s, len, i, 2), d = num(s, len, i + 3, 2);
	size_t end;
	int64_t tod;

	if (mo < 0 || d < 0 || i + 6 > len || s[i + 2] != '-' || s[i + 5] != ' ')
		return 0;
	if ((tod = hms(s, len, i + 6, &end)) < 0)
		return 0;
	return noyear(t, (unsigned)mo, (unsigned)d, tod, i, end);
}

/* [ 1843.308145] or [Sun Apr 26 23:12:26 2026] */
static int bracket_at(const char *s, size_t len, size_t i, struct gl_textts *t)
{
	size_t k = i + 1;

	if (s[i] != '[')
		return 0;
	while (k < len && s[k] == ' ')
		k++;
	if (k < len && dig(s[k])) {
		int64_t secs = 0, frac = 0;
		size_t nd = 0;

		while (k < len && dig(s[k]) && nd < 10) {
			secs = secs * 10 + (s[k++] - '0');
			nd++;
		}
		if (k >= len || s[k] != '.' || num(s, len, k + 1, 6) < 0 || k + 7 >= len || s[k + 7] != ']')
			return 0;
		frac = num(s, len, k + 1, 6);
		t->kind = GL_TEXTTS_BOOT;
		t->naive_us = secs * GL_US_PER_S + frac;
		t->start = i;
		t->end = k + 8;
		return 1;
	}
	/* dmesg -T: "[Www Mmm dd hh:mm:ss yyyy]" */
	if (k + 25 <= len && s[k + 3] == ' ') {
		struct gl_textts m;
		long y;

		if (!syslog_at(s, len, k + 4, &m) || m.end + 6 > len || s[m.end] != ' ')
			return 0;
		if (m.kind == GL_TEXTTS_BAD)
			return bad_at(t, i, m.end);
		y = num(s, len, m.end + 1, 4);
		if (y < 1970 || s[m.end + 5] != ']')
			return 0;
		t->kind = GL_TEXTTS_ISO;
		t->has_zone = 0;
		t->naive_us = gl_days_from_civil(y, m.a, m.b) * GL_US_PER_DAY + m.naive_us;
		t->start = i;
		t->end = m.end + 6;
		return 1;
	}
	return 0;
}

int gl_textts_scan(const char *s, size_t len, size_t max_start, struct gl_textts *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i <= max_start && i < len; i++) {
		if (i && alnum(s[i - 1]))
			continue;
		if (bracket_at(s, len, i, t))
			return 1;
		if (dig(s[i]) && (iso_at(s, len, i, t) || slash_at(s, len, i, t) || md_at(s, len, i, t)))
			return 1;
		if (s[i] >= 'A' && s[i] <= 'Z' && (syslog_at(s, len, i, t) || glog_at(s, len, i, t)))
			return 1;
	}
	return 0;
}

int64_t gl_textts_year_back(const struct gl_textts *t, int64_t y)
{
	while (!gl_civil_valid(y, t->a, t->b) && y > 1970)
		y--;
	return y;
}

int64_t gl_textts_in_year(const struct gl_textts *t, int64_t y)
{
	return gl_days_from_civil(y, t->a, t->b) * GL_US_PER_DAY + t->naive_us;
}

int64_t gl_textts_slash(const struct gl_textts *t, int dmy)
{
	unsigned mo = dmy ? t->b : t->a, d = dmy ? t->a : t->b;

	if (!gl_civil_valid(t->year, mo, d))
		return -1;
	return gl_days_from_civil(t->year, mo, d) * GL_US_PER_DAY + t->naive_us;
}
