/* Tests for lib/ingest/fmt_dcgmi.c: dcgmi dmon. */
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

extern const struct gl_format gl_fmt_dcgmi;

static struct gl_parse_ctx ctx;
/* start 2025-01-01T00:00:00Z = 1735689600 s, every 0.1 s (dcgmi dmon -d 100) */
static struct gl_input_hint hint = {NULL, 0, 1735689600000000LL, 0.1};

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
	gl_test_parse(&gl_fmt_dcgmi, &ctx, line, rec);
}

static void test_rows(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.hint = &hint;
	parse("#Entity   POWER             GTEMP      TXTPT          PCITX          SMACT                    ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("ID         W                 C          KB/                                                  ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("GPU 1     26.810            41         N/A            2048           0.500                    ", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_int_equal(rec.n_samples, 4);
	gl_test_assert_str(rec.samples[0].device, "1");
	gl_test_assert_str(rec.samples[0].metric, "gpu.power_w");
	assert_true(fabs(rec.samples[0].value - 26.81) < 1e-9);
	gl_test_assert_str(rec.samples[1].metric, "gpu.temperature_c");
	gl_test_assert_str(rec.samples[2].metric, "gpu.pcie_tx_kib_s");
	assert_true(rec.samples[2].value == 2);	/* 2048 bytes/s */
	gl_test_assert_str(rec.samples[3].metric, "dcgmi.smact");
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("GPU 0     28.696            40         N/A            N/A            0.000", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("GPU 1     27.000            41         N/A            N/A            0.000", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600100000LL);
	parse("GPU-I 3   27.000            41         N/A            N/A            0.000", &rec);
	gl_test_assert_str(rec.samples[0].device, "GPU-I 3");
	parse("GPU x     27.000            41         N/A            N/A            0.000", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	parse("GPU 0     27.000            hot        N/A            N/A            0.000", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "gpu.temperature_c: not a number");
	parse("GPU 0     27.000", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
}

static void test_no_time(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("#Entity   POWER", &rec);
	parse("GPU 1     26.810", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "start and interval_s"));
}

struct acc {
	double power0;
	double pcitx_first;
	int64_t last_ts;
};

static void acc_sample(const struct gl_sample *s, void *arg)
{
	struct acc *a = arg;

	if (s->metric.len == 11 && !memcmp(s->metric.p, "gpu.power_w", 11) && s->device.len == 1 &&
	    s->device.p[0] == '0')
		a->power0 += s->value;
	if (s->metric.len == 17 && !memcmp(s->metric.p, "gpu.pcie_tx_kib_s", 17) && a->pcitx_first == 0)
		a->pcitx_first = s->value;
	a->last_ts = s->ts_us;
}

static void test_real(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), "dcgmi-dmon/ehsanyousefzadehasl+Monitoring_GPUs_on_HPC/dcgmi-log.out"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_dcgmi, &t, path, 0, &c, NULL, NULL);
	assert_int_equal(c.none, 30);	/* 15 header pairs */
	assert_int_equal(c.reject, 418);
	assert_string_equal(gl_test_detect_path(path), "dcgmi");
	t.hint = &hint;
	gl_test_read_samples(&gl_fmt_dcgmi, &t, path, 224, &c, acc_sample, &a);
	/*
	 * python3: 418 rows x 18 fields, TXTPT and RXTPT always N/A: 6688
	 * values; GPU 0's POWER sums to 11982.981; the rows alternate GPU 1,
	 * GPU 0 and every header follows a GPU 0 row: 209 samples, the last at
	 * start + 208 * 0.1 s. First PCITX 605615 B/s = 591.42 KiB/s.
	 */
	assert_int_equal(c.sample_lines, 418);
	assert_int_equal(c.samples, 6688);
	assert_true(fabs(a.power0 - 11982.981) < 1e-6);
	assert_true(a.last_ts == 1735689600000000LL + 20800000LL);
	assert_true(fabs(a.pcitx_first - 605615.0 / 1024) < 1e-9);
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
