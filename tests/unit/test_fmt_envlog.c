/* Tests for lib/ingest/fmt_envlog.c: Rust env_logger text. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "ingest/format.h"

extern const struct gl_format gl_fmt_envlog;

/* 2025-09-09 is day 20340 after 1970-01-01 (checked with `date -d 2025-09-09 +%s` / 86400). */
#define D20250909_US (20340LL * 86400000000LL)
#define US(h, m, s, us) ((((int64_t)(h) * 60 + (m)) * 60 + (s)) * 1000000LL + (us))

static struct gl_parse_ctx ctx;

static int setup(void **state)
{
	(void)state;
	gl_parse_ctx_init(&ctx);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_parse_ctx_release(&ctx);
	return 0;
}

static void parse(const char *line, struct gl_rec *rec)
{
	assert_int_equal(gl_ctx_begin_line(&ctx, strlen(line)), 0);
	gl_fmt_envlog.parse(&ctx, line, strlen(line), rec);
}

static void assert_str(struct gl_str s, const char *want)
{
	assert_non_null(s.p);
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}

static void test_record(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("[2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(19, 28, 14, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	assert_str(rec.ev.component, "webxr::utils::logging");
	assert_str(rec.ev.message, "Logging initialized");
	assert_null(rec.ev.kernel.p);
	assert_true(isnan(rec.ev.dur_us));
	assert_null(rec.ev.metadata.p);
}

static void test_variants(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("[2025-09-09T19:28:14.512Z WARN  gpu_service::pool] pool at 91% capacity", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(19, 28, 14, 512000));
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	assert_str(rec.ev.message, "pool at 91% capacity");
	/* an offset is applied */
	parse("[2025-09-09T21:28:14+02:00 ERROR app] boom", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(19, 28, 14, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	/* no module path */
	parse("[2025-09-09T19:28:14Z DEBUG] bare", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_null(rec.ev.component.p);
	assert_str(rec.ev.message, "bare");
	/* no timestamp */
	parse("[TRACE app::gpu] tick", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == GL_TS_NONE);
	assert_int_equal(rec.ev.level, GL_LEVEL_TRACE);
	assert_str(rec.ev.component, "app::gpu");
	/* empty message; brackets inside the message are kept */
	parse("[2025-09-09T19:28:14Z INFO  a]", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.message.len, 0);
	parse("[2025-09-09T19:28:14Z INFO  a] [x] y]", &rec);
	assert_str(rec.ev.message, "[x] y]");
}

static void test_kernel_timing(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("[2025-11-16T14:30:22Z INFO  gpu_service::kernels] Kernel force_pass_kernel executed in 512.34\xce\xbcs",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.kernel, "force_pass_kernel");
	assert_true(fabs(rec.ev.dur_us - 512.34) < 1e-9);
	parse("[2025-11-16T14:30:22Z INFO  k] Kernel reduce executed in 2ms", &rec);
	assert_str(rec.ev.kernel, "reduce");
	assert_true(fabs(rec.ev.dur_us - 2000.0) < 1e-9);
}

static void test_continuations(void **state)
{
	static const char *const cont[] = {
		"thread 'main' panicked at src/main.rs:10:5:",
		"stack backtrace:",
		"   0: rust_begin_unwind",
		"  second line of a wrapped message",
		"[not a header",
		"[ 13527][20:13:10:522999][error ] [A][Stream 0x1][Upstream 25000000000B][FAILURE maximum pool size exceeded]",
		"2025-09-09 14:30:22,123 - performance_monitor - WARNING - cpu_usage (91.30) exceeds threshold (85.00)",
		"Thread,Time,Action,Pointer,Size,Stream",
		"23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0",
		"{\"timestamp\": \"2025-11-16T14:30:22.123456Z\", \"level\": \"INFO\"}",
		"[1, 2, 3]",
		"[notalevel module] text",
		"",
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(cont) / sizeof(cont[0]); i++) {
		parse(cont[i], &rec);
		assert_int_equal(rec.kind, GL_REC_CONT);
	}
}

static void test_rejects(void **state)
{
	static const char *const bad[] = {
		"[2025-09-09T19:28:14Z LOUD  app] x",		/* level */
		"[2025-09-09T19:28:14Z] x",			/* no level */
		"[2025-09-09T19:28:14Z INFO  my app] x",	/* module path with a space */
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i], &rec);
		assert_int_equal(rec.kind, GL_REC_REJECT);
		assert_non_null(rec.reason);
	}
}

static int realdata(char *buf, size_t n, const char *sub)
{
	const char *root = getenv("GL_REALDATA");
	struct stat st;

	snprintf(buf, n, "%s/%s", root && *root ? root : "../shared/realdata", sub);
	return stat(buf, &st) == 0;
}

/* No line of the real RMM and gpufl samples starts an env_logger record. */
static void cont_tree(const char *dir, long *lines)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[2048];

	assert_non_null(d);
	while ((de = readdir(d))) {
		struct stat st;
		FILE *f;
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		struct gl_rec rec;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			cont_tree(path, lines);
			continue;
		}
		f = fopen(path, "r");
		assert_non_null(f);
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] == '\n')
				n--;
			assert_int_equal(gl_ctx_begin_line(&ctx, (size_t)n), 0);
			gl_fmt_envlog.parse(&ctx, line, (size_t)n, &rec);
			assert_int_equal(rec.kind, GL_REC_CONT);
			(*lines)++;
		}
		free(line);
		fclose(f);
	}
	closedir(d);
}

static void test_realdata_not_envlog(void **state)
{
	char dir[1024];
	long lines = 0;

	(void)state;
	if (!realdata(dir, sizeof(dir), "rmm"))
		skip();
	cont_tree(dir, &lines);
	assert_int_equal(lines, 74);	/* wc -l: 71 debug log lines + 3 CSV lines */
	if (realdata(dir, sizeof(dir), "gpufl"))
		cont_tree(dir, &lines);
}

/* ---- the bundled sample tree (counts from fixtures/README.md, written by its generator) ---- */

struct fixture_counts {
	long lines, none, event, mem, cont, reject, kernel;
	const char *detected;
};

static void count_fixture(const char *path, struct fixture_counts *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *keep[32];
	struct gl_str first[32];
	size_t cap = 0, nkeep = 0;
	ssize_t n;
	struct gl_rec rec;
	const struct gl_format *fmt;
	const char *why;

	assert_non_null(f);
	memset(c, 0, sizeof(*c));
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		c->lines++;
		if (nkeep < 32) {
			keep[nkeep] = strndup(line, (size_t)n);
			first[nkeep].p = keep[nkeep];
			first[nkeep].len = (size_t)n;
			nkeep++;
		}
		assert_int_equal(gl_ctx_begin_line(&ctx, (size_t)n), 0);
		gl_fmt_envlog.parse(&ctx, line, (size_t)n, &rec);
		switch (rec.kind) {
		case GL_REC_NONE: c->none++; break;
		case GL_REC_EVENT: c->event++; c->kernel += rec.ev.kernel.p != NULL; break;
		case GL_REC_MEM: c->mem++; break;
		case GL_REC_CONT: c->cont++; break;
		case GL_REC_REJECT: c->reject++; break;
		default: fail_msg("%s:%ld: foreign line", path, c->lines);
		}
	}
	free(line);
	fclose(f);
	fmt = gl_format_detect(first, nkeep, &why);
	c->detected = fmt ? fmt->name : "(none)";
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
}
static void test_sample_tree(void **state)
{
	struct fixture_counts c;

	(void)state;
	count_fixture("fixtures/sample-logs/renderer/webxr_renderer.log", &c);
	assert_int_equal(c.lines, 153);
	assert_int_equal(c.none, 0);
	assert_int_equal(c.event, 150);
	assert_int_equal(c.mem, 0);
	assert_int_equal(c.cont, 3);
	assert_int_equal(c.reject, 0);
	assert_int_equal(c.kernel, 100);
	assert_string_equal(c.detected, "envlog");
}

/* Random lines from the characters this format cares about, and a huge line: never a crash,
 * and every string handed back lies inside the line or the scratch space. */
static int inside(struct gl_str s, const char *line, size_t len)
{
	if (!s.p)
		return 1;
	if (s.p >= line && s.p + s.len <= line + len)
		return 1;
	return s.p >= ctx.scratch && s.p + s.len <= ctx.scratch + ctx.scratch_cap;
}

static void test_junk(void **state)
{
	static const char alphabet[] = "[]0123456789:.,- ()xAEFIKNOTWabcefilnorstu\"\\\t\xce\xbc\x00";
	static char line[1 << 20];
	uint32_t seed = 12345;
	struct gl_rec rec;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		size_t len;

		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % 120;
		for (size_t j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			line[j] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		assert_int_equal(gl_ctx_begin_line(&ctx, len), 0);
		gl_fmt_envlog.parse(&ctx, line, len, &rec);
		assert_true(rec.kind >= GL_REC_FOREIGN && rec.kind <= GL_REC_REJECT);
		if (rec.kind == GL_REC_REJECT)
			assert_non_null(rec.reason);
		if (rec.kind == GL_REC_EVENT) {
			assert_true(inside(rec.ev.message, line, len));
			assert_true(inside(rec.ev.component, line, len));
			assert_true(inside(rec.ev.metadata, line, len));
			assert_true(inside(rec.ev.kernel, line, len));
		}
	}
	/* 1 MiB of '[' then a header-like start: no quadratic blow-up, no overrun */
	memset(line, '[', sizeof(line));
	assert_int_equal(gl_ctx_begin_line(&ctx, sizeof(line)), 0);
	gl_fmt_envlog.parse(&ctx, line, sizeof(line), &rec);
	assert_true(rec.kind != GL_REC_EVENT && rec.kind != GL_REC_MEM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_timing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continuations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_not_envlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
