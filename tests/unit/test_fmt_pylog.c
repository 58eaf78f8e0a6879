/* Tests for lib/ingest/fmt_pylog.c: Python logging text. */
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

extern const struct gl_format gl_fmt_pylog;

/* 2025-09-09 is day 20340 after 1970-01-01 (`date -ud 2025-09-09 +%s` / 86400). */
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
	gl_test_parse(&gl_fmt_pylog, &ctx, line, rec);
}


static void test_record(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("2025-09-09 14:30:22,123 - performance_monitor - WARNING - cpu_usage (91.30) exceeds threshold (85.00)",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(14, 30, 22, 123000));
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	gl_test_assert_str(rec.ev.component, "performance_monitor");
	gl_test_assert_str(rec.ev.message, "cpu_usage (91.30) exceeds threshold (85.00)");
	assert_null(rec.ev.kernel.p);
	assert_true(isnan(rec.ev.dur_us));
}

static void test_variants(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* a dot before the milliseconds */
	parse("2025-09-09 14:30:22.007 - gpu.worker - ERROR - CUDA error - retrying", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(14, 30, 22, 7000));
	gl_test_assert_str(rec.ev.component, "gpu.worker");
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	gl_test_assert_str(rec.ev.message, "CUDA error - retrying");
	/* no milliseconds */
	parse("2025-09-09 00:00:01 - root - CRITICAL - down", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20250909_US + US(0, 0, 1, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_CRITICAL);
	/* no logger name: asctime - levelname - message */
	parse("2025-09-09 14:30:22,123 - INFO - started - phase 1", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_null(rec.ev.component.p);
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	gl_test_assert_str(rec.ev.message, "started - phase 1");
	parse("2025-09-09 14:30:22,123 - DEBUG - x", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_DEBUG);
	gl_test_assert_str(rec.ev.message, "x");
	/* an empty message */
	parse("2025-09-09 14:30:22,123 - m - INFO - ", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.message.len, 0);
}

static void test_kernel_timing(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("2025-11-16 14:30:22,123 - gpu - INFO - Kernel force_pass_kernel executed in 512.34\xc2\xb5s",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "force_pass_kernel");
	assert_true(fabs(rec.ev.dur_us - 512.34) < 1e-9);
	parse("2025-11-16 14:30:22,123 - gpu - INFO - Kernel k2 executed in 750ns", &rec);
	gl_test_assert_str(rec.ev.kernel, "k2");
	assert_true(fabs(rec.ev.dur_us - 0.75) < 1e-12);
}

static void test_continuations(void **state)
{
	static const char *const cont[] = {
		"Traceback (most recent call last):",
		"  File \"monitor.py\", line 42, in sample",
		"    raise RuntimeError(\"CUDA error: out of memory\")",
		"RuntimeError: CUDA error: out of memory",
		"[2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized",
		"[ 13527][20:13:10:522999][error ] [A][Stream 0x1][Upstream 25000000000B][FAILURE maximum pool size exceeded]",
		"Thread,Time,Action,Pointer,Size,Stream",
		"23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0",
		"{\"timestamp\": \"2025-11-16T14:30:22.123456Z\", \"level\": \"INFO\"}",
		"2025-09-0",
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
		"2025-09-09 14:30:22,123 performance_monitor WARNING x",	/* no separators */
		"2025-09-09 25:30:22,123 - m - INFO - x",			/* hour */
		"2025-13-09 14:30:22,123 - m - INFO - x",			/* month */
		"2025-09-09 14:30:22,123 - m - LOUD - x",			/* level */
		"2025-09-09 14:30:22,123 - just a message",		/* no level */
		"2025-09-09 14:30:22,12x - m - INFO - x",			/* fraction */
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i], &rec);
		assert_int_equal(rec.kind, GL_REC_REJECT);
		assert_non_null(rec.reason);
	}
}

/* No line of the real RMM and gpufl samples starts a Python logging record. */
static void test_realdata_not_pylog(void **state)
{
	long lines = 0;

	(void)state;
	if (!gl_test_realdata_tree(&gl_fmt_pylog, &ctx, "rmm", GL_REC_CONT, &lines))
		skip();
	assert_int_equal(lines, 74);	/* wc -l: 71 debug log lines + 3 CSV lines */
	gl_test_realdata_tree(&gl_fmt_pylog, &ctx, "gpufl", GL_REC_CONT, &lines);
}

/* ---- the bundled sample tree (counts from fixtures/README.md, written by its generator) ---- */

static void test_sample_tree(void **state)
{
	static const struct gl_test_counts want = {
		.lines = 146, .none = 0, .event = 139, .mem = 0, .cont = 6, .reject = 1,
		.kernel = 14, .detected = "pylog",
	};

	(void)state;
	gl_test_check_fixture(&gl_fmt_pylog, &ctx, "fixtures/sample-logs/legacy/performance_monitor.log", &want);
}

/* Random lines from the characters this format cares about, and a huge line. */
static void test_junk(void **state)
{
	static const char alphabet[] = "[]0123456789:.,- ()xAEFIKNOTWabcefilnorstu\"\\\t\xce\xbc\x00";

	(void)state;
	gl_test_junk(&gl_fmt_pylog, &ctx, alphabet, sizeof(alphabet) - 1, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_timing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continuations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_not_pylog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
