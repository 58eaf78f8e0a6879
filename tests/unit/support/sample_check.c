/* sample_check.c - see sample_check.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sample_check.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long sz;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)sz + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return buf;
}

static void fresh(struct gl_parse_ctx *ctx, const struct gl_parse_ctx *tmpl)
{
	gl_parse_ctx_init(ctx);
	ctx->tz_name = tmpl->tz_name;
	ctx->hint = tmpl->hint;
	ctx->file_mtime_us = tmpl->file_mtime_us;
	ctx->day_us = tmpl->day_us;
}

void gl_test_read_samples(const struct gl_format *fmt, const struct gl_parse_ctx *tmpl,
			  const char *path, long restart_at, struct gl_test_scount *c,
			  gl_test_sample_fn fn, void *arg)
{
	size_t n, start = 0;
	char *all = slurp(path, &n);
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	memset(c, 0, sizeof(*c));
	fresh(&ctx, tmpl);
	while (start < n) {
		char *nl = memchr(all + start, '\n', n - start), *copy;
		size_t len = nl ? (size_t)(nl - all - start) : n - start;

		if (len && all[start + len - 1] == '\r')
			len--;
		copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, all + start, len);
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(gl_ctx_begin_line(&ctx, len), 0);
		fmt->parse(&ctx, copy, len, &rec);
		c->lines++;
		switch (rec.kind) {
		case GL_REC_NONE:
			c->none++;
			break;
		case GL_REC_SAMPLES:
			c->sample_lines++;
			c->samples += (long)rec.n_samples;
			for (size_t i = 0; fn && i < rec.n_samples; i++)
				fn(&rec.samples[i], arg);
			break;
		case GL_REC_REJECT:
			assert_non_null(rec.reason);
			if (!c->reject++)
				snprintf(c->first_reason, sizeof(c->first_reason), "%s", rec.reason);
			break;
		case GL_REC_FOREIGN:
			c->foreign++;
			break;
		default:
			fail_msg("%s line %ld: unexpected kind %d", path, c->lines, (int)rec.kind);
		}
		free(copy);
		if (restart_at > 0 && c->lines == restart_at) {
			struct gl_parse_ctx next;

			fresh(&next, tmpl);
			memcpy(next.state, ctx.state, ctx.state_len);
			next.state_len = ctx.state_len;
			gl_parse_ctx_release(&ctx);
			ctx = next;
		}
		start += (nl ? (size_t)(nl - all - start) : n - start) + 1;
	}
	gl_parse_ctx_release(&ctx);
	free(all);
}

const char *gl_test_detect_path(const char *path)
{
	size_t n, start = 0, k = 0;
	char *all = slurp(path, &n);
	struct gl_str lines[32];
	const char *why = NULL;
	const struct gl_format *f;

	while (start < n && k < 32) {
		char *nl = memchr(all + start, '\n', n - start);
		size_t len = nl ? (size_t)(nl - all - start) : n - start;

		lines[k].p = all + start;
		lines[k].len = len && all[start + len - 1] == '\r' ? len - 1 : len;
		k++;
		start += len + 1;
	}
	f = gl_format_detect(lines, k, &why);
	free(all);
	return f ? f->name : "(none)";
}
