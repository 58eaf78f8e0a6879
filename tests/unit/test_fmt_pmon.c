/* Tests for lib/ingest/fmt_pmon.c: nvidia-smi pmon, one row per process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"
#include "support/sample_check.h"

extern const struct gl_format gl_fmt_pmon;

static struct gl_parse_ctx ctx;
/* start 2025-01-01T00:00:00Z = 1735689600 s, every 2 s */
static struct gl_input_hint hint = {NULL, 0, 1735689600000000LL, 2.0};

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
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_pmon, &ctx, line, rec);
}

static void test_rows(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.hint = &hint;
	parse("# gpu         pid   type     sm    mem    enc    dec     fb    command ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("# Idx           #    C/G      %      %      %      %     MB    name ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("    0       1234     C     37     12      -      -   2100    python train.py   ", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_int_equal(rec.n_samples, 3);
	gl_test_assert_str(rec.samples[0].metric, "pmon.utilization_pct");
	assert_true(rec.samples[0].value == 37);
	gl_test_assert_str(rec.samples[2].metric, "pmon.memory_used_mib");
	assert_true(rec.samples[2].value == 2100);
	gl_test_assert_str(rec.samples[0].device, "0");
	gl_test_assert_str(rec.samples[0].labels, "{\"pid\":\"1234\",\"type\":\"C\",\"command\":\"python train.py\"}");
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	/* a second process of the same sample, then the first again: next sample */
	parse("    0       5678     G      1      0      -      -     20    Xorg", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("    0       1234     C     38     12      -      -   2100    python", &rec);
	assert_true(rec.samples[0].ts_us == 1735689602000000LL);
	/* a GPU without processes */
	parse("    1          -     -      -      -      -      -      -    -   ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	/* dmon's header is not pmon's */
	parse("# gpu     sm    mem", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

static void test_no_time(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("# gpu         pid   type     sm    command", &rec);
	parse("    0       1234     C     37    demo", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "record with nvidia-smi pmon -o DT"));
}

static void test_real(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), "nvidia-smi-pmon/iiiian+silk_physics/gpu_monitor.log"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_pmon, &t, path, 0, &c, NULL, NULL);
	assert_int_equal(c.none, 2);
	assert_int_equal(c.reject, 1);
	assert_string_equal(gl_test_detect_path(path), "pmon");
	t.hint = &hint;
	gl_test_read_samples(&gl_fmt_pmon, &t, path, 0, &c, NULL, NULL);
	/* one process row: sm mem enc dec jpg ofa fb ccpm = 8 values, fb 10 MB */
	assert_int_equal(c.sample_lines, 1);
	assert_int_equal(c.samples, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_time, setup, teardown),
		cmocka_unit_test(test_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
