/*
 * parse_ctx.c - what every format shares while it parses a file (format.h):
 * the per-file parse context, the line's scratch space, its samples array,
 * naive local times turned into UTC and the time-of-day rule. Below the
 * formats: it calls none of them (format.c, which lists them, calls them).
 */
#include "format.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

void gl_parse_ctx_init(struct gl_parse_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->last_tod_us = -1;
	ctx->untimed_group = -1;
	ctx->untimed_start_us = GL_TS_NONE;
}

void gl_parse_ctx_release(struct gl_parse_ctx *ctx)
{
	if (ctx->priv && ctx->priv_free)
		ctx->priv_free(ctx->priv);
	free(ctx->spill);
	free(ctx->scratch);
	free(ctx->samples);
	gl_tz_free(ctx->tz);
	gl_parse_ctx_init(ctx);
}

/*
 * The zone is read from its TZif file (lib/util/tzfile.c), never through
 * the process's TZ: setenv() on this thread while SQLite's writer thread
 * reads the environment (localtime) is a data race (issue 28).
 */
static int64_t naive_to_utc(struct gl_parse_ctx *ctx, const char *zone, int64_t naive_us)
{
	int64_t secs = naive_us / GL_US_PER_S, frac = naive_us % GL_US_PER_S;

	if (ctx->tz_loaded != zone) {
		gl_tz_free(ctx->tz);
		ctx->tz = gl_tz_open(GL_ZONEINFO, zone);
		ctx->tz_loaded = zone;
	}
	if (!ctx->tz)
		return naive_us;
	if (frac < 0) {
		frac += GL_US_PER_S;
		secs--;
	}
	return gl_tz_naive_to_utc_s(ctx->tz, secs) * GL_US_PER_S + frac;
}

int64_t gl_ctx_naive_to_utc(struct gl_parse_ctx *ctx, int64_t naive_us)
{
	const char *zone = ctx->tz_name;
	int64_t minute = naive_us / (60 * GL_US_PER_S) - (naive_us % (60 * GL_US_PER_S) < 0);
	int64_t start;

	if (!zone || !*zone || !strcmp(zone, "UTC") || !strcmp(zone, "Etc/UTC"))
		return naive_us;
	if (ctx->tz_cached != zone || ctx->tz_minute != minute) {
		start = minute * 60 * GL_US_PER_S;
		ctx->tz_offset_us = naive_to_utc(ctx, zone, start) - start;
		ctx->tz_minute = minute;
		ctx->tz_cached = zone;
	}
	return naive_us + ctx->tz_offset_us;
}

struct gl_sample *gl_ctx_samples(struct gl_parse_ctx *ctx, size_t n)
{
	if (n > ctx->samples_cap) {
		size_t cap = ctx->samples_cap ? ctx->samples_cap : 16;
		struct gl_sample *p;

		while (cap < n)
			cap *= 2;
		p = realloc(ctx->samples, cap * sizeof(*p));
		if (!p)
			return NULL;
		ctx->samples = p;
		ctx->samples_cap = cap;
	}
	memset(ctx->samples, 0, n * sizeof(*ctx->samples));
	return ctx->samples;
}

int gl_ctx_begin_line(struct gl_parse_ctx *ctx, size_t len)
{
	size_t need = len + 256;

	ctx->scratch_used = 0;
	if (need > ctx->scratch_cap) {
		size_t cap = ctx->scratch_cap ? ctx->scratch_cap : 4096;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(ctx->scratch, cap);
		if (!p)
			return -1;
		ctx->scratch = p;
		ctx->scratch_cap = cap;
	}
	return 0;
}

/*
 * Pointers handed out earlier for the same line must stay valid, so the
 * buffer never moves here: gl_ctx_begin_line() sized it for the line.
 */
char *gl_ctx_scratch(struct gl_parse_ctx *ctx, size_t n)
{
	char *out;

	if (n > ctx->scratch_cap - ctx->scratch_used)
		return NULL;
	out = ctx->scratch + ctx->scratch_used;
	ctx->scratch_used += n;
	return out;
}

char *gl_ctx_spill(struct gl_parse_ctx *ctx, size_t n)
{
	if (n > ctx->spill_cap) {
		char *p = realloc(ctx->spill, n);

		if (!p)
			return NULL;
		ctx->spill = p;
		ctx->spill_cap = n;
	}
	return ctx->spill;
}

size_t gl_ctx_scratch_left(const struct gl_parse_ctx *ctx)
{
	return ctx->scratch_cap - ctx->scratch_used;
}

size_t gl_ctx_scratch_mark(const struct gl_parse_ctx *ctx)
{
	return ctx->scratch_used;
}

void gl_ctx_scratch_reset(struct gl_parse_ctx *ctx, size_t mark)
{
	if (mark <= ctx->scratch_used)
		ctx->scratch_used = mark;
}

int64_t gl_ctx_time_of_day(struct gl_parse_ctx *ctx, int64_t tod_us)
{
	/* 23:59:59 -> 00:00:01 is a new day; threads a few ms out of order are not. */
	if (ctx->last_tod_us >= 0 && tod_us < ctx->last_tod_us - GL_US_PER_DAY / 2)
		ctx->day_us += GL_US_PER_DAY;
	ctx->last_tod_us = tod_us;
	return ctx->day_us + tod_us;
}
