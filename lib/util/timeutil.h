/*
 * timeutil.h - civil time <-> microseconds since the Unix epoch, UTC.
 * All gpulog timestamps are int64 microseconds UTC ("ts_us").
 */
#ifndef GL_TIMEUTIL_H
#define GL_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

#define GL_US_PER_S 1000000LL
#define GL_US_PER_DAY (86400LL * GL_US_PER_S)

/* Marks "no timestamp" in struct fields; never a valid time. */
#define GL_TS_NONE INT64_MIN

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1..12). */
int64_t gl_days_from_civil(int64_t y, unsigned m, unsigned d);

/* 1 when y-m-d is a date of the calendar (2026-02-31 is not), else 0. */
int gl_civil_valid(int64_t y, unsigned m, unsigned d);

/* The first µs of year 10000: times of records lie in [0, GL_TS_END). */
#define GL_TS_END 253402300800000000LL

/* Inverse of gl_days_from_civil. */
void gl_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/*
 * Parses an RFC 3339 timestamp: YYYY-MM-DD, then 'T', 't' or ' ', then
 * hh:mm:ss, an optional fraction of 1 to 9 digits (kept to the microsecond,
 * truncated), and 'Z', 'z', +hh:mm, -hh:mm, +hhmm or nothing (taken as UTC).
 * The whole of s[0..len) must be consumed. Returns 0 and sets *us, or -1.
 */
int gl_time_parse_rfc3339(const char *s, size_t len, int64_t *us);

/*
 * Parses a command-line time: RFC 3339 as above, or a bare YYYY-MM-DD
 * (midnight UTC). Returns 0 or -1.
 */
int gl_time_parse_arg(const char *s, int64_t *us);

/*
 * Writes "YYYY-MM-DDThh:mm:ssZ", with ".ffffff" before the Z when the
 * microseconds are not zero. buf must hold at least 32 bytes. Returns buf.
 */
char *gl_time_format(int64_t us, char *buf);

/* Wall-clock now, µs UTC. */
int64_t gl_time_now_us(void);

struct timespec;
/* *dl = the wall clock (CLOCK_REALTIME) ms milliseconds from now, as
 * pthread_cond_timedwait() takes it. */
void gl_time_deadline(struct timespec *dl, long ms);

#endif
