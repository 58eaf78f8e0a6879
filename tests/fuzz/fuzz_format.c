/*
 * fuzz_format.c - libFuzzer harness for one line format: the input is a
 * run of lines (split at '\n', a trailing '\r' removed as the reader does)
 * parsed in order through one parse context, so that formats with state
 * (CSV headers, timestamp groups, open scopes) are fuzzed across lines
 * too. Built once per lib/ingest/fmt_<name>.c by `make fuzz`, with
 * GL_FUZZ_FORMAT set to the format's name.
 *
 * Besides what AddressSanitizer and UBSan catch, the harness aborts when
 * a record breaks the parse contract of format.h: a kind out of range, a
 * reject without a reason, samples without a metric name or with a NULL
 * array, a string of the record that lies neither in the line nor in the
 * context's memory, or detection that names a format that is not
 * registered. A format with an end hook (format.h) is ended after the
 * last line, as a settled file is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/format.h"

#ifndef GL_FUZZ_FORMAT
#error "build with -DGL_FUZZ_FORMAT=\"name\""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inside(const char *p, const char *lo, size_t n)
{
	return p >= lo && p <= lo + n;
}

/* A string of a record points into the line, the scratch, the spill, or is static. */
static void check_str(const struct gl_parse_ctx *ctx, const char *line, size_t len,
		      struct gl_str s, const char *what)
{
	if (!s.p)
		return;
	if (inside(s.p, line, len) && inside(s.p + s.len, line, len))
		return;
	if (ctx->scratch && inside(s.p, ctx->scratch, ctx->scratch_cap) &&
	    inside(s.p + s.len, ctx->scratch, ctx->scratch_cap))
		return;
	if (ctx->spill && inside(s.p, ctx->spill, ctx->spill_cap) &&
	    inside(s.p + s.len, ctx->spill, ctx->spill_cap))
		return;
	/* Static strings (canonical metric names) are readable: touch every byte. */
	volatile char sink = 0;

	for (size_t i = 0; i < s.len; i++)
		sink ^= s.p[i];
	(void)sink;
	(void)what;
}

static void check_rec(const struct gl_parse_ctx *ctx, const char *line, size_t len,
		      const struct gl_rec *rec)
{
	if ((int)rec->kind < GL_REC_FOREIGN || rec->kind > GL_REC_SPAN) {
		fprintf(stderr, "kind %d out of range\n", rec->kind);
		abort();
	}
	if (rec->kind == GL_REC_REJECT && (!rec->reason || !*rec->reason)) {
		fprintf(stderr, "reject without a reason\n");
		abort();
	}
	if (rec->n_samples && !rec->samples) {
		fprintf(stderr, "%zu samples, no array\n", rec->n_samples);
		abort();
	}
	if (rec->kind == GL_REC_SAMPLES && !rec->n_samples) {
		fprintf(stderr, "GL_REC_SAMPLES without samples\n");
		abort();
	}
	if (rec->kind == GL_REC_EVENT) {
		check_str(ctx, line, len, rec->ev.component, "component");
		check_str(ctx, line, len, rec->ev.message, "message");
		check_str(ctx, line, len, rec->ev.kernel, "kernel");
		check_str(ctx, line, len, rec->ev.metadata, "metadata");
	}
	if (rec->kind == GL_REC_SPAN) {
		check_str(ctx, line, len, rec->span.name, "span name");
		check_str(ctx, line, len, rec->span.path, "span path");
		check_str(ctx, line, len, rec->span.device, "span device");
	}
	for (size_t i = 0; i < rec->n_samples; i++) {
		const struct gl_sample *s = &rec->samples[i];

		if (!s->metric.p || !s->metric.len) {
			fprintf(stderr, "sample %zu without a metric name\n", i);
			abort();
		}
		check_str(ctx, line, len, s->metric, "metric");
		check_str(ctx, line, len, s->device, "device");
		check_str(ctx, line, len, s->labels, "labels");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct gl_format *fmt = gl_format_find(GL_FUZZ_FORMAT);
	struct gl_parse_ctx ctx;
	struct gl_str lines[64];
	size_t nlines = 0, start = 0;
	const char *why = NULL;
	char *copy;

	if (!fmt)
		abort();
	/* A private copy: the parsers may rely on nothing past len. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = 1763337600000000LL;	/* 2025-11-17T00:00:00Z */
	ctx.day_us = 1763251200000000LL;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && copy[i] != '\n')
			continue;
		size_t len = i - start;
		const char *line = copy + start;
		struct gl_rec rec;

		if (len && line[len - 1] == '\r')
			len--;
		if (nlines < sizeof(lines) / sizeof(lines[0]))
			lines[nlines++] = (struct gl_str){line, len};
		if (gl_ctx_begin_line(&ctx, len) < 0)
			break;
		memset(&rec, 0, sizeof(rec));
		fmt->parse(&ctx, line, len, &rec);
		check_rec(&ctx, line, len, &rec);
		if (ctx.state_len > GL_PARSE_STATE_MAX) {
			fprintf(stderr, "state_len %zu\n", ctx.state_len);
			abort();
		}
		start = i + 1;
	}
	/* The end of the file, settled: a format that holds a cut record (a
	 * JSON document without its closing brace) says why, and forgets it. */
	if (fmt->end) {
		const char *cut = fmt->end(&ctx);

		if (cut && !*cut)
			abort();
		if (ctx.state_len > GL_PARSE_STATE_MAX)
			abort();
	}
	const struct gl_format *d = gl_format_detect(lines, nlines, &why);

	if (d && gl_format_find(d->name) != d)
		abort();
	if (!d && !why)
		abort();
	gl_parse_ctx_release(&ctx);
	free(copy);
	return 0;
}
