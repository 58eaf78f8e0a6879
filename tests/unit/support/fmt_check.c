/*
 * fmt_check.c - checks shared by the format unit tests: the real-data path,
 * a tree walker that wants one kind for every line, counts of a fixture
 * file, and the random-junk robustness run.
 */
#define _XOPEN_SOURCE 700
#include "fmt_check.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#define JUNK_LINES 20000
#define JUNK_MAX_LEN 120	/* random lines are 0 .. JUNK_MAX_LEN - 1 bytes */
#define HUGE_LEN (1u << 20)	/* the reader's longest line */
#define DETECT_LINES 32		/* lines gl_test_count_fixture() hands to detection */

int gl_test_realdata(char *buf, size_t n, const char *sub)
{
	const char *root = getenv("GL_REALDATA");
	struct stat st;

	if ((size_t)snprintf(buf, n, "%s/%s", root && *root ? root : "../shared/realdata", sub) >= n)
		fail_msg("real-data path too long for %s", sub);
	return stat(buf, &st) == 0;
}

/*
 * Parses line[0..n) from a copy of exactly n bytes, so that ASan sees a read
 * past the end. Returns the copy, which holds rec's strings: the caller frees
 * it when done with rec.
 */
static char *parse_copy(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			const char *line, size_t n, struct gl_rec *rec)
{
	char *copy = malloc(n ? n : 1);

	assert_non_null(copy);
	memcpy(copy, line, n);
	assert_int_equal(gl_ctx_begin_line(ctx, n), 0);
	fmt->parse(ctx, copy, n, rec);
	return copy;
}

void gl_test_tree_kind(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
		       const char *dir, enum gl_rec_kind want, long *lines)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[2048];

	if (!d)
		fail_msg("cannot open folder %s", dir);
	while ((de = readdir(d))) {
		struct stat st;
		FILE *f;
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		struct gl_rec rec;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			fail_msg("path too long under %s", dir);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			gl_test_tree_kind(fmt, ctx, path, want, lines);
			continue;
		}
		f = fopen(path, "r");
		if (!f)
			fail_msg("cannot open %s", path);
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] == '\n')
				n--;
			free(parse_copy(fmt, ctx, line, (size_t)n, &rec));
			if (rec.kind != want)
				fail_msg("%s: %s gives kind %d, not %d, for %.80s", path, fmt->name,
					 (int)rec.kind, (int)want, line);
			(*lines)++;
		}
		free(line);
		fclose(f);
	}
	closedir(d);
}

int gl_test_realdata_tree(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			  const char *sub, enum gl_rec_kind want, long *lines)
{
	char dir[1024];

	if (!gl_test_realdata(dir, sizeof(dir), sub))
		return 0;
	gl_test_tree_kind(fmt, ctx, dir, want, lines);
	return 1;
}

static void count_fixture(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			  const char *path, struct gl_test_counts *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *keep[DETECT_LINES];
	struct gl_str first[DETECT_LINES];
	size_t cap = 0, nkeep = 0;
	ssize_t n;
	struct gl_rec rec;
	const struct gl_format *found;
	const char *why;

	if (!f)
		fail_msg("cannot open %s", path);
	memset(c, 0, sizeof(*c));
	while ((n = getline(&line, &cap, f)) > 0) {
		char *copy;

		if (line[n - 1] == '\n')
			n--;
		c->lines++;
		if (nkeep < DETECT_LINES) {
			keep[nkeep] = strndup(line, (size_t)n);
			assert_non_null(keep[nkeep]);
			first[nkeep].p = keep[nkeep];
			first[nkeep].len = (size_t)n;
			nkeep++;
		}
		copy = parse_copy(fmt, ctx, line, (size_t)n, &rec);
		switch (rec.kind) {
		case GL_REC_NONE: c->none++; break;
		case GL_REC_EVENT: c->event++; c->kernel += rec.ev.kernel.p != NULL; break;
		case GL_REC_MEM: c->mem++; break;
		case GL_REC_CONT: c->cont++; break;
		case GL_REC_REJECT: c->reject++; break;
		default: fail_msg("%s:%ld: foreign line", path, c->lines);
		}
		free(copy);
	}
	free(line);
	fclose(f);
	found = gl_format_detect(first, nkeep, &why);
	c->detected = found ? found->name : "(none)";
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
}

#define WANT(field)								\
	do {									\
		if (got.field != want->field)					\
			fail_msg("%s: %ld lines of kind " #field ", want %ld", path,	\
				 got.field, want->field);			\
	} while (0)

void gl_test_check_fixture(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
			   const char *path, const struct gl_test_counts *want)
{
	struct gl_test_counts got;

	count_fixture(fmt, ctx, path, &got);
	WANT(lines);
	WANT(none);
	WANT(event);
	WANT(mem);
	WANT(cont);
	WANT(reject);
	WANT(kernel);
	assert_non_null(want->detected);
	if (strcmp(got.detected, want->detected) != 0)
		fail_msg("%s: detected as %s, want %s", path, got.detected, want->detected);
}

#undef WANT

/* 1 when s is absent or lies wholly inside line[0..len) or inside ctx's scratch. */
static int inside(const struct gl_parse_ctx *ctx, struct gl_str s, const char *line, size_t len)
{
	if (!s.p)
		return 1;
	if (s.p >= line && s.p + s.len <= line + len)
		return 1;
	return s.p >= ctx->scratch && s.p + s.len <= ctx->scratch + ctx->scratch_cap;
}

void gl_test_junk(const struct gl_format *fmt, struct gl_parse_ctx *ctx,
		  const char *alphabet, size_t alphabet_len, uint32_t seed)
{
	char *line = malloc(HUGE_LEN);
	struct gl_rec rec;

	assert_non_null(line);
	assert_true(alphabet_len > 0);
	for (int i = 0; i < JUNK_LINES; i++) {
		size_t len;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % JUNK_MAX_LEN;
		for (size_t j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			line[j] = alphabet[(seed >> 16) % alphabet_len];
		}
		assert_int_equal(gl_ctx_begin_line(ctx, len), 0);
		fmt->parse(ctx, line, len, &rec);
		assert_true(rec.kind >= GL_REC_FOREIGN && rec.kind <= GL_REC_SPAN);
		if (rec.kind == GL_REC_REJECT)
			assert_non_null(rec.reason);
		if (rec.kind == GL_REC_EVENT) {
			assert_true(inside(ctx, rec.ev.message, line, len));
			assert_true(inside(ctx, rec.ev.component, line, len));
			assert_true(inside(ctx, rec.ev.metadata, line, len));
			assert_true(inside(ctx, rec.ev.kernel, line, len));
		}
	}
	/* 1 MiB of '[', a header-like start: no quadratic blow-up, no overrun */
	memset(line, '[', HUGE_LEN);
	assert_int_equal(gl_ctx_begin_line(ctx, HUGE_LEN), 0);
	fmt->parse(ctx, line, HUGE_LEN, &rec);
	assert_true(rec.kind != GL_REC_EVENT && rec.kind != GL_REC_MEM);
	free(line);
}

void gl_test_parse(const struct gl_format *fmt, struct gl_parse_ctx *ctx, const char *line,
		   struct gl_rec *rec)
{
	assert_int_equal(gl_ctx_begin_line(ctx, strlen(line)), 0);
	fmt->parse(ctx, line, strlen(line), rec);
}

void gl_test_assert_str(struct gl_str s, const char *want)
{
	assert_non_null(s.p);
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}
