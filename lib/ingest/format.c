/*
 * format.c - the format registry, per-file detection, and the helpers that
 * every format shares (parse context, scratch space, time of day).
 *
 * In: the first lines of a file. Out: the format that parses most of them.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
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
	ev->launch_overhead_us = NAN;
	ev->queue_us = NAN;
	ev->occupancy = NAN;
	ev->registers = -1;
	ev->shared_mem_bytes = -1;
	ev->corr_id = -1;
	ev->source = GL_SRC_LOG;
}

void gl_span_init(struct gl_span *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->start_us = GL_TS_NONE;
	sp->dur_us = NAN;
}

const char *gl_ev_source_name(enum gl_ev_source src)
{
	switch (src) {
	case GL_SRC_GPUFL:
		return "gpufl";
	case GL_SRC_KINETO:
		return "kineto";
	case GL_SRC_NSYS:
		return "nsys";
	default:
		return "log";
	}
}

void gl_parse_ctx_init(struct gl_parse_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->last_tod_us = -1;
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

/*
 * A clean line: at least this many bytes, all printable ASCII or tab.
 * Random binary data almost never holds one (0.37^16 for a given run of
 * 16 bytes), where a shorter or looser rule made a core dump pass for text
 * now and then.
 */
#define CLEAN_MIN 16

/*
 * Binary content: the magic number of a common binary file; or not one
 * clean line of text and more than one byte in 20 (NULs aside) a control
 * byte (random binary data has one in 10). NUL bytes alone never make a
 * file binary: a run of them is what a crash, or copytruncate under a
 * writer without O_APPEND, leaves in a log (a hole of 4,000 NULs before
 * the first line); those lines become rejects and the rest is read. One
 * clean line is enough for the file to be read: junk lines become rejects.
 */
static const char *binary_reason(const struct gl_str *lines, size_t n, int nul_decides)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} magics[] = {
		{"\x89PNG", 4, "a PNG image"},
		{"\xff\xd8\xff", 3, "a JPEG image"},
		{"%PDF-", 5, "a PDF document"},
		{"\x7f" "ELF", 4, "an ELF binary"},
		{"PK\x03\x04", 4, "a ZIP archive"},
		{"SQLite format 3", 16, "an SQLite database"},
	};
	size_t ctl = 0, nul = 0, total = 0, clean_lines = 0;

	for (size_t m = 0; n && m < sizeof(magics) / sizeof(magics[0]); m++)
		if (lines[0].len >= magics[m].len && memcmp(lines[0].p, magics[m].magic, magics[m].len) == 0)
			return magics[m].what;
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		int dirty = 0;

		/* a slice may hold several lines (raw bytes): '\n' ends one */
		for (size_t j = 0; j <= lines[i].len; j++) {
			unsigned char c = j < lines[i].len ? (unsigned char)lines[i].p[j] : '\n';

			if (c == '\n') {
				clean_lines += len >= CLEAN_MIN && !dirty;
				len = 0;
				dirty = 0;
				continue;
			}
			len++;
			if (c == 0) {
				nul++;
				dirty = 1;
			} else if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != 0x1b) {
				ctl++;
				dirty = 1;
			} else if (c >= 0x7f || (c < 0x20 && c != '\t')) {
				dirty = 1;
			}
		}
		total += lines[i].len;
	}
	if (clean_lines)
		return NULL;
	if (total > nul && ctl * 20 > total - nul)
		return "binary data";
	return nul && nul_decides ? "binary data (NUL bytes)" : NULL;
}

const char *gl_format_sniff(const char *p, size_t n)
{
	struct gl_str all = {p, n};

	return binary_reason(&all, 1, 0);
}

const struct gl_format *gl_format_detect(const struct gl_str *lines, size_t n, const char **why)
{
	return gl_format_detect_hint(lines, n, NULL, why);
}

const struct gl_format *gl_format_detect_hint(const struct gl_str *lines, size_t n,
					      const struct gl_input_hint *hint, const char **why)
{
	const struct gl_format *best = NULL;
	long best_score = 0;
	size_t nonblank = 0, first = n;
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	*why = binary_reason(lines, n, 1);
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
	ctx.hint = hint;
	const struct gl_format *broken = NULL, *fallback = NULL;
	long broken_bad = 0, fallback_good = 0, best_good = 0;

	for (size_t f = 0; gl_formats[f]; f++) {
		long good = 0, bad = 0, foreign = 0;

		ctx.day_us = 0;
		ctx.last_tod_us = -1;
		/* each format reads the lines from the start, with no state of another
		 * (nor its heap state: a format never takes over another's priv) */
		ctx.state_len = 0;
		if (ctx.priv && ctx.priv_free)
			ctx.priv_free(ctx.priv);
		ctx.priv = NULL;
		ctx.priv_free = NULL;
		for (size_t i = 0; i < n; i++) {
			if (!lines[i].len)
				continue;
			if (gl_ctx_begin_line(&ctx, lines[i].len) < 0)
				break;
			gl_formats[f]->parse(&ctx, lines[i].p, lines[i].len, &rec);
			switch (rec.kind) {
			case GL_REC_EVENT:
			case GL_REC_MEM:
			case GL_REC_SAMPLES:
			case GL_REC_SPAN:	/* a gpufl scope channel holds only spans */
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
		 * The format with the most records wins: a file may mix shapes
		 * (JSON lines between plain stdout lines), and every line is
		 * tried in every format later anyway (records.c), so a single
		 * record is enough to read the file; the lines of no format
		 * become rejects. Ties go to the fewer foreign lines, then to
		 * the format listed first. A file whose first lines are all
		 * broken records of one format is still read as that format,
		 * so its lines become rejects instead of the file being
		 * skipped.
		 */
		long score = good * 65536 - foreign;

		if (gl_formats[f]->flags & GL_FMT_FALLBACK) {
			if (good > 0 && !fallback) {
				fallback = gl_formats[f];
				fallback_good = good;
			}
			continue;
		}
		if (good > best_good && score > best_score)
			best_good = good;
		if (good > 0 && score > best_score) {
			best = gl_formats[f];
			best_score = score;
		}
		if (!good && !foreign && bad > broken_bad) {
			broken = gl_formats[f];
			broken_bad = bad;
		}
	}
	/* the fallback reads a file whose first lines it takes more of than any other format */
	if (fallback && fallback_good > best_good)
		best = fallback;
	if (!best)
		best = broken;
	gl_parse_ctx_release(&ctx);
	if (!best) {
		char c = lines[first].p[0];

		for (size_t f = 0; gl_formats[f]; f++)
			if (gl_formats[f]->refuse && (*why = gl_formats[f]->refuse(lines, n)))
				return NULL;
		if (c == '{' || c == '[')
			*why = "JSON, but not JSON lines of a known shape";
		else if (memchr(lines[first].p, ',', lines[first].len))
			*why = "CSV or text of no known format";
		else
			*why = "text of no known format";
	}
	return best;
}
