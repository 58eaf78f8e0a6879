/*
 * textts.h - a timestamp at or near the start of a text line, in the
 * styles that logs of a GPU node use (fmt_text.c reads them):
 *     2026-11-26T14:02:09.123Z  2026-11-26 14:02:09,123  [2022-03-11 02:06:58,985]
 *     2024-08-20_11:37:36       11/26/2026 14:02:09 (or 26/11/2026: see dmy)
 *     Nov 26 14:01:04           (syslog, journalctl: no year)
 *     I1126 14:01:08.431698     (glog / c10: level letter, no year)
 *     INFO 09-15 14:42:21       (vLLM-like: month-day, no year)
 *     [ 1843.308145]            (dmesg: seconds since boot)
 *     [Sun Apr 26 23:12:26 2026] (dmesg -T)
 * Pure scanning: no time zone, no year guessing (the caller does that).
 */
#ifndef GL_TEXTTS_H
#define GL_TEXTTS_H

#include <stddef.h>
#include <stdint.h>

enum gl_textts_kind {
	GL_TEXTTS_NONE = 0,
	GL_TEXTTS_ISO,		/* date and time with a year; zoned when has_zone */
	GL_TEXTTS_SLASH,	/* dd/dd/yyyy: a, b are the two first fields */
	GL_TEXTTS_NOYEAR,	/* syslog, glog, month-day: year to be supplied */
	GL_TEXTTS_BOOT,		/* dmesg: naive_us is µs since boot */
	GL_TEXTTS_BAD,		/* the shape of a stamp whose date is in no calendar or out of
				 * range: "2026-02-31 10:00:00", "1900-01-01 ...",
				 * "10000-01-01 ...", "Feb 30 10:00:00" (the line says no time) */
};

struct gl_textts {
	enum gl_textts_kind kind;
	size_t start, end;	/* its bytes in the line, brackets included */
	/*
	 * ISO, dmesg -T: naive wall clock µs since 1970 (UTC when has_zone).
	 * SLASH: µs of the time of day only (month and day in a, b, year in year).
	 * NOYEAR: µs since the start of the year of month/day/time (year 1970,
	 * add the real year's start). BOOT: µs since boot.
	 */
	int64_t naive_us;
	int has_zone;
	unsigned a, b;		/* SLASH: first and second field; NOYEAR: month, day */
	int64_t year;		/* SLASH */
	char glog_level;	/* NOYEAR from glog: 'I', 'W', 'E', 'F'; else 0 */
};

/*
 * Looks for a timestamp starting in s[0..max_start] (at a word start) and
 * lying within s[0..len). Returns 1 and fills t for the first one found,
 * else 0.
 */
int gl_textts_scan(const char *s, size_t len, size_t max_start, struct gl_textts *t);

/* The latest year not after y in which t's month and day exist (Feb 29: a leap year). */
int64_t gl_textts_year_back(const struct gl_textts *t, int64_t y);

/*
 * The UTC-or-naive µs of a NOYEAR stamp in year y, and of a SLASH stamp
 * read as month/day (dmy 0) or day/month (dmy 1). -1 when the date is
 * impossible.
 */
int64_t gl_textts_in_year(const struct gl_textts *t, int64_t y);
int64_t gl_textts_slash(const struct gl_textts *t, int dmy);

#endif
