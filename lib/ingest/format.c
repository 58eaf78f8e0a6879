/*
 * format.c - the format registry, per-file detection, and the helpers that
 * every format shares (parse context, scratch space, time of day).
 *
 * In: the first lines of a file. Out: the format that parses most of them.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GL_FORMAT(name) extern const struct gl_format gl_fmt_##name;
#include "formats.h"
#undef GL_FORMAT

/*
 * Detection order matters only for ties: a line that two formats both
 * accept goes to the one listed first. The generated list is alphabetical.
 */
const struct gl_format *const gl_formats[] = {
#define GL_FORMAT(name) &gl_fmt_##name,
#include "formats.h"
#undef GL_FORMAT
	NULL,
};

const struct gl_format *gl_format_find(const char *name)
{
	for (size_t i = 0; gl_formats[i]; i++)
		if (strcmp(gl_formats[i]->name, name) == 0)
			return gl_formats[i];
	return NULL;
}

void gl_format_list_text(char *buf, size_t n)
{
	size_t k = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; gl_formats[i] && k < n; i++) {
		size_t need = strlen(gl_formats[i]->name) + strlen(gl_formats[i]->summary) + 2;

		if (k + need >= n)
			break;
		k += (size_t)snprintf(buf + k, n - k, "%s\t%s\n", gl_formats[i]->name,
				      gl_formats[i]->summary);
	}
}

void gl_event_init(struct gl_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_us = GL_TS_NONE;
	ev->level = GL_LEVEL_NONE;
	ev->dur_us = NAN;
	ev->exec_ms = NAN;
	ev->mem_mb = NAN;
	ev->alloc_mb = NAN;
	ev->peak_mb = NAN;
	ev->util_pct = NAN;
	ev->error_count = -1;
	ev->recovery_attempts = -1;
	ev->anomaly = -1;
}

void gl_parse_ctx_init(struct gl_parse_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->last_tod_us = -1;
}

void gl_parse_ctx_release(struct gl_parse_ctx *ctx)
{
	free(ctx->spill);
	free(ctx->scratch);
	gl_parse_ctx_init(ctx);
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

/* Binary content: NUL bytes, or many control bytes that text never has. */
static const char *binary_reason(const struct gl_str *lines, size_t n)
{
	size_t ctl = 0, total = 0;

	if (n && lines[0].len >= 4 && memcmp(lines[0].p, "\x89PNG", 4) == 0)
		return "a PNG image";
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < lines[i].len; j++) {
			unsigned char c = (unsigned char)lines[i].p[j];

			if (c == 0)
				return "binary data (NUL bytes)";
			if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != 0x1b)
				ctl++;
		}
		total += lines[i].len;
	}
	if (total && ctl * 20 > total)
		return "binary data";
	return NULL;
}

const struct gl_format *gl_format_detect(const struct gl_str *lines, size_t n, const char **why)
{
	const struct gl_format *best = NULL;
	long best_score = 0;
	size_t nonblank = 0, first = n;
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	*why = binary_reason(lines, n);
	if (*why)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (lines[i].len) {
			nonblank++;
			if (first == n)
				first = i;
		}
	}
	if (!nonblank) {
		*why = "no content";
		return NULL;
	}
	gl_parse_ctx_init(&ctx);
	const struct gl_format *broken = NULL;
	long broken_bad = 0;

	for (size_t f = 0; gl_formats[f]; f++) {
		long good = 0, bad = 0, foreign = 0;

		ctx.day_us = 0;
		ctx.last_tod_us = -1;
		for (size_t i = 0; i < n; i++) {
			if (!lines[i].len)
				continue;
			if (gl_ctx_begin_line(&ctx, lines[i].len) < 0)
				break;
			gl_formats[f]->parse(&ctx, lines[i].p, lines[i].len, &rec);
			switch (rec.kind) {
			case GL_REC_EVENT:
			case GL_REC_MEM:
				good++;
				break;
			case GL_REC_REJECT:
				bad++;
				break;
			case GL_REC_FOREIGN:
				foreign++;
				break;
			default:
				break;
			}
		}
		/*
		 * Records of the format, even malformed ones, are evidence for
		 * it; only lines that are no part of it count against it. A
		 * file whose first lines are all broken records of one format
		 * is still read as that format, so its lines become rejects
		 * instead of the file being skipped.
		 */
		long score = good - foreign;

		if (good > 0 && score > best_score) {
			best = gl_formats[f];
			best_score = score;
		}
		if (!good && !foreign && bad > broken_bad) {
			broken = gl_formats[f];
			broken_bad = bad;
		}
	}
	if (!best)
		best = broken;
	gl_parse_ctx_release(&ctx);
	if (!best) {
		char c = lines[first].p[0];

		if (c == '{' || c == '[')
			*why = "JSON, but not JSON lines of a known shape";
		else if (memchr(lines[first].p, ',', lines[first].len))
			*why = "CSV or text of no known format";
		else
			*why = "text of no known format";
	}
	return best;
}
