/*
 * tzfile.h - a time zone from its TZif file, for naive local times to UTC
 * without the C library's TZ environment variable (thread-safe: a loaded
 * zone is read-only).
 */
#ifndef GL_TZFILE_H
#define GL_TZFILE_H

#include <stdint.h>

struct gl_tz;

/* The zone dir/zone ("/usr/share/zoneinfo", "Europe/Berlin"), or NULL when
 * it cannot be read or is no TZif file. Free with gl_tz_free(). */
struct gl_tz *gl_tz_open(const char *dir, const char *zone);
void gl_tz_free(struct gl_tz *z);

/*
 * UTC seconds of the naive local time naive_s (the written date and time
 * read as if UTC). A time the clock skips (02:30 on a spring-forward night)
 * is read as if the clock had not been moved (03:30 after it); one it
 * repeats is its first occurrence.
 */
int64_t gl_tz_naive_to_utc_s(const struct gl_tz *z, int64_t naive_s);

#endif
