/*
 * tzfile.c - a time zone read from its TZif file (/usr/share/zoneinfo),
 * and naive local times turned into UTC with it, without the C library's
 * TZ: setenv("TZ") and mktime() on a parser thread while SQLite runs on
 * another is a data race on the environment (issue 28). In: a zone name;
 * out: the offsets of its transitions, and of its POSIX rule after them
 * (the file's footer, e.g. "CET-1CEST,M3.5.0,M10.5.0/3").
 */
#include "tzfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TZ_FILE_MAX (1u << 20)

struct gl_tz {
	int64_t *at;		/* transition times, UTC s, ascending */
	int32_t *off_at;	/* utoff (s) from at[i] on */
	size_t n;
	int32_t off_first;	/* before the first transition */
	/* the footer's rule, after the last transition (has_rule 0: none) */
	int has_rule, has_dst;
	int32_t std_off, dst_off;	/* utoff (s) */
	struct rule {
		int m, w, d;	/* Mm.w.d: month, week 1..5 (5: last), weekday 0..6 */
		int32_t time_s;	/* local time of the change, seconds (may be < 0 or > 24 h) */
	} start, end;
};

static int64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

/* "<+03>-3", "CET-1CEST": a zone abbreviation, skipped. */
static const char *skip_name(const char *s)
{
	if (*s == '<') {
		const char *e = strchr(s, '>');

		return e ? e + 1 : NULL;
	}
	while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
		s++;
	return s;
}

/* [+-]hh[:mm[:ss]] -> seconds. */
static const char *hms(const char *s, int32_t *out)
{
	int sign = 1;
	long h = 0, m = 0, sec = 0;
	char *e;

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	if (*s < '0' || *s > '9')
		return NULL;
	h = strtol(s, &e, 10);
	s = e;
	if (*s == ':') {
		m = strtol(s + 1, &e, 10);
		s = e;
		if (*s == ':') {
			sec = strtol(s + 1, &e, 10);
			s = e;
		}
	}
	*out = (int32_t)(sign * (h * 3600 + m * 60 + sec));
	return s;
}

/* ",Mm.w.d[/time]" */
static const char *mrule(const char *s, struct rule *r)
{
	char *e;

	if (s[0] != ',' || s[1] != 'M')
		return NULL;
	r->m = (int)strtol(s + 2, &e, 10);
	if (*e != '.')
		return NULL;
	r->w = (int)strtol(e + 1, &e, 10);
	if (*e != '.')
		return NULL;
	r->d = (int)strtol(e + 1, &e, 10);
	r->time_s = 2 * 3600;
	if (r->m < 1 || r->m > 12 || r->w < 1 || r->w > 5 || r->d < 0 || r->d > 6)
		return NULL;
	s = e;
	if (*s == '/' && !(s = hms(s + 1, &r->time_s)))
		return NULL;
	return s;
}

/* The POSIX TZ string of the footer. POSIX offsets are west-positive. */
static void parse_rule(struct gl_tz *z, const char *s)
{
	int32_t o;

	if (!(s = skip_name(s)) || !(s = hms(s, &o)))
		return;
	z->std_off = -o;
	z->has_rule = 1;
	if (!*s)
		return;
	if (!(s = skip_name(s)))
		goto bad;
	z->dst_off = z->std_off + 3600;
	if (*s && *s != ',') {
		if (!(s = hms(s, &o)))
			goto bad;
		z->dst_off = -o;
	}
	if (!(s = mrule(s, &z->start)) || !(s = mrule(s, &z->end)))
		goto bad;
	z->has_dst = 1;
	return;
bad:
	z->has_rule = 0;	/* a J or n rule: the last transition's offset stays */
}

struct gl_tz *gl_tz_open(const char *dir, const char *zone)
{
	char path[512];
	FILE *f = NULL;
	unsigned char *b = NULL;
	struct gl_tz *z = NULL;
	size_t len;

	if (!zone || strstr(zone, "..") || zone[0] == '/' ||
	    snprintf(path, sizeof(path), "%s/%s", dir, zone) >= (int)sizeof(path) ||
	    !(f = fopen(path, "rb")) || !(b = malloc(TZ_FILE_MAX)))
		goto out;
	len = fread(b, 1, TZ_FILE_MAX, f);
	if (len < 44 || memcmp(b, "TZif", 4) != 0 || !(z = calloc(1, sizeof(*z))))
		goto out;
	{
		/* version 1 block (4-byte times), then for version 2+ a second
		 * header and block with 8-byte times, then "\n<rule>\n" */
		const unsigned char *h = b;
		int v2 = b[4] >= '2';
		size_t isut = (size_t)be(h + 20, 4), isstd = (size_t)be(h + 24, 4),
		       leap = (size_t)be(h + 28, 4), tc = (size_t)be(h + 32, 4),
		       ty = (size_t)be(h + 36, 4), ch = (size_t)be(h + 40, 4);
		size_t tsz = 4, lsz = 8, p = 44;

		if (v2) {
			p = 44 + tc * 4 + tc + ty * 6 + ch + leap * 8 + isstd + isut;
			if (p + 44 > len || memcmp(b + p, "TZif", 4) != 0)
				goto bad;
			h = b + p;
			isut = (size_t)be(h + 20, 4), isstd = (size_t)be(h + 24, 4);
			leap = (size_t)be(h + 28, 4), tc = (size_t)be(h + 32, 4);
			ty = (size_t)be(h + 36, 4), ch = (size_t)be(h + 40, 4);
			tsz = 8;
			lsz = 12;
			p += 44;
		}
		size_t need = tc * tsz + tc + ty * 6 + ch + leap * lsz + isstd + isut;

		if (ty == 0 || p + need > len)
			goto bad;
		const unsigned char *times = b + p, *idx = times + tc * tsz, *types = idx + tc;

		z->at = malloc((tc ? tc : 1) * sizeof(*z->at));
		z->off_at = malloc((tc ? tc : 1) * sizeof(*z->off_at));
		if (!z->at || !z->off_at)
			goto bad;
		for (size_t i = 0; i < tc; i++) {
			if (idx[i] >= ty)
				goto bad;
			z->at[i] = be(times + i * tsz, (int)tsz);
			z->off_at[i] = (int32_t)be(types + idx[i] * 6, 4);
		}
		z->n = tc;
		z->off_first = (int32_t)be(types, 4);
		/* the first type that is not DST, as RFC 8536 says for times before */
		for (size_t t = 0; t < ty; t++)
			if (!types[t * 6 + 4]) {
				z->off_first = (int32_t)be(types + t * 6, 4);
				break;
			}
		p += need;
		if (v2 && p < len && b[p] == '\n') {
			char rule[128];
			size_t k = 0;

			for (p++; p < len && b[p] != '\n' && k + 1 < sizeof(rule); p++)
				rule[k++] = (char)b[p];
			rule[k] = '\0';
			if (k)
				parse_rule(z, rule);
		}
	}
	goto out;
bad:
	gl_tz_free(z);
	z = NULL;
out:
	if (f)
		fclose(f);
	free(b);
	return z;
}

void gl_tz_free(struct gl_tz *z)
{
	if (!z)
		return;
	free(z->at);
	free(z->off_at);
	free(z);
}

/* Days since 1970-01-01 of y-m-d (proleptic Gregorian). */
static int64_t days_of(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

static int leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Local midnight (as UTC-naive seconds) of the rule's day in year y, plus its time. */
static int64_t rule_local_s(const struct rule *r, int64_t y)
{
	static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int64_t first = days_of(y, r->m, 1);
	int wd1 = (int)(((first % 7) + 7 + 4) % 7);	/* 1970-01-01 was a Thursday (4) */
	int d = 1 + (r->d - wd1 + 7) % 7 + (r->w - 1) * 7;
	int len = dm[r->m - 1] + (r->m == 2 && leap(y));

	while (d > len)
		d -= 7;
	return (days_of(y, r->m, d)) * 86400 + r->time_s;
}

/* UTC offset (s) in force at UTC second t. */
static int32_t off_at(const struct gl_tz *z, int64_t t)
{
	if (z->n && t < z->at[0])
		return z->off_first;
	if (!z->n || t < z->at[z->n - 1] || !z->has_rule) {
		size_t lo = 0, hi = z->n;

		if (!z->n)
			return z->has_rule ? z->std_off : z->off_first;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (z->at[mid] <= t)
				lo = mid;
			else
				hi = mid;
		}
		return z->off_at[lo];
	}
	if (!z->has_dst)
		return z->std_off;
	/* the rule's year: that of the local standard time */
	int64_t days = (t + z->std_off) / 86400 - ((t + z->std_off) % 86400 < 0);
	int64_t y = 1970 + days / 366;	/* at most the year, corrected below */

	while (days_of(y + 1, 1, 1) <= days)
		y++;
	while (days_of(y, 1, 1) > days)
		y--;
	/* start in local standard time, end in local daylight time */
	int64_t s = rule_local_s(&z->start, y) - z->std_off;
	int64_t e = rule_local_s(&z->end, y) - z->dst_off;

	if (s < e)
		return t >= s && t < e ? z->dst_off : z->std_off;
	return t >= e && t < s ? z->std_off : z->dst_off;	/* southern hemisphere */
}

int64_t gl_tz_naive_to_utc_s(const struct gl_tz *z, int64_t naive_s)
{
	/* the offsets in force a day either side: at most one change between */
	int32_t a = off_at(z, naive_s - 86400), b = off_at(z, naive_s + 86400);

	if (off_at(z, naive_s - a) == a)
		return naive_s - a;	/* valid (in a repeated hour: its first occurrence) */
	if (off_at(z, naive_s - b) == b)
		return naive_s - b;
	/* skipped by the clock (02:30 on a spring-forward night): as if it had
	 * not been moved, with the offset before the change */
	return naive_s - a;
}
