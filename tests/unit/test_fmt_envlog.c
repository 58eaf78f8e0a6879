/* Tests for lib/ingest/fmt_envlog.c: Rust env_logger text. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

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
	gl_test_parse(&gl_fmt_envlog, &ctx, line, rec);
}


static void test_record(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("[2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(19, 28, 14, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	gl_test_assert_str(rec.ev.component, "webxr::utils::logging");
	gl_test_assert_str(rec.ev.message, "Logging initialized");
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
	gl_test_assert_str(rec.ev.message, "pool at 91% capacity");
	/* an offset is applied */
	parse("[2025-09-09T21:28:14+02:00 ERROR app] boom", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(19, 28, 14, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	/* no module path */
	parse("[2025-09-09T19:28:14Z DEBUG] bare", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_null(rec.ev.component.p);
	gl_test_assert_str(rec.ev.message, "bare");
	/* no timestamp */
	parse("[TRACE app::gpu] tick", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == GL_TS_NONE);
	assert_int_equal(rec.ev.level, GL_LEVEL_TRACE);
	gl_test_assert_str(rec.ev.component, "app::gpu");
	/* empty message; brackets inside the message are kept */
	parse("[2025-09-09T19:28:14Z INFO  a]", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.message.len, 0);
	parse("[2025-09-09T19:28:14Z INFO  a] [x] y]", &rec);
	gl_test_assert_str(rec.ev.message, "[x] y]");
}

static void test_kernel_timing(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("[2025-11-16T14:30:22Z INFO  gpu_service::kernels] Kernel force_pass_kernel executed in 512.34\xce\xbcs",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "force_pass_kernel");
	assert_true(fabs(rec.ev.dur_us - 512.34) < 1e-9);
	parse("[2025-11-16T14:30:22Z INFO  k] Kernel reduce executed in 2ms", &rec);
	gl_test_assert_str(rec.ev.kernel, "reduce");
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

/* No line of the real RMM and gpufl samples starts an env_logger record. */
static void test_realdata_not_envlog(void **state)
{
	long lines = 0;

	(void)state;
	if (!gl_test_realdata_tree(&gl_fmt_envlog, &ctx, "rmm", GL_REC_CONT, &lines))
		skip();
	assert_int_equal(lines, 74);	/* wc -l: 71 debug log lines + 3 CSV lines */
	gl_test_realdata_tree(&gl_fmt_envlog, &ctx, "gpufl", GL_REC_CONT, &lines);
}

/* ---- the bundled sample tree (counts from fixtures/README.md, written by its generator) ---- */

static void test_sample_tree(void **state)
{
	static const struct gl_test_counts want = {
		.lines = 153, .none = 0, .event = 150, .mem = 0, .cont = 3, .reject = 0,
		.kernel = 100, .detected = "envlog",
	};

	(void)state;
	gl_test_check_fixture(&gl_fmt_envlog, &ctx, "fixtures/sample-logs/renderer/webxr_renderer.log", &want);
}

/* Random lines from the characters this format cares about, and a huge line. */
static void test_junk(void **state)
{
	static const char alphabet[] = "[]0123456789:.,- ()xAEFIKNOTWabcefilnorstu\"\\\t\xce\xbc\x00";

	(void)state;
	gl_test_junk(&gl_fmt_envlog, &ctx, alphabet, sizeof(alphabet) - 1, 12345);
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
