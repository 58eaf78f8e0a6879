/*
 * Tests for lib/ingest/fmt_dmon.c (nvidia-smi dmon), fmt_pmon.c (pmon) and
 * fmt_dcgmi.c (dcgmi dmon) share lib/ingest/telem.c; this file holds dmon's.
 */
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

extern const struct gl_format gl_fmt_dmon;

static struct gl_parse_ctx ctx;
/* start 2025-01-01T00:00:00Z = 1735689600 s, one sample a second */
static struct gl_input_hint hint = {NULL, 0, 1735689600000000LL, 1.0};

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
	gl_test_parse(&gl_fmt_dmon, &ctx, line, rec);
}

static const struct gl_sample *find(const struct gl_rec *rec, const char *m)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(m) && !memcmp(rec->samples[i].metric.p, m, strlen(m)))
			return &rec->samples[i];
	fail_msg("no sample %s", m);
	return NULL;
}

static void test_date_time_columns(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    mclk    pclk", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %     MHz     MHz", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse(" 20230413   10:20:15      1     40     35      -     12      3      0      0     405     210 ", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_int_equal(rec.n_samples, 8);	/* 9 metric columns, mtemp "-" is missing */
	/* 2023-04-13 10:20:15 UTC = 1681381215 s */
	assert_true(rec.samples[0].ts_us == 1681381215000000LL);
	gl_test_assert_str(rec.samples[0].device, "1");
	assert_true(find(&rec, "gpu.power_w")->value == 40);
	assert_true(find(&rec, "gpu.temperature_c")->value == 35);
	assert_true(find(&rec, "gpu.utilization_pct")->value == 12);
	assert_true(find(&rec, "gpu.sm_clock_mhz")->value == 210);
	assert_true(find(&rec, "dmon.enc")->value == 0);
	parse(" 2023041x   10:20:16      1     40     35      -     12      3      0      0     405     210", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	parse(" 20230413   10:20:16      1     40     35      -     hi      3      0      0     405     210", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "gpu.utilization_pct: not a number");
	parse(" 20230413   10:20:16      1     40", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "fewer fields than the header");
}

static void test_no_time_without_hint(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("# gpu     sm    mem    enc    dec    jpg    ofa ", &rec);
	parse("# Idx      %      %      %      %      %      % ", &rec);
	parse("    0     46     26      0      1      0      0 ", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "no time column: record with nvidia-smi dmon -o DT"));
}

static void test_hint_groups(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.hint = &hint;
	parse("# gpu   pwr  temp    sm", &rec);
	parse("    0    15    59     3", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("    1    16    60     4", &rec);	/* same sample, second GPU */
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("    0    15    59     3", &rec);	/* GPU 0 again: next sample */
	assert_true(rec.samples[0].ts_us == 1735689601000000LL);
	parse("# gpu   pwr  temp    sm", &rec);	/* a repeated header ends a sample */
	parse("    1    15    59     3", &rec);
	assert_true(rec.samples[0].ts_us == 1735689602000000LL);
	/* and the count survives a run boundary */
	{
		struct gl_parse_ctx next;

		gl_parse_ctx_init(&next);
		next.hint = &hint;
		memcpy(next.state, ctx.state, ctx.state_len);
		next.state_len = ctx.state_len;
		gl_parse_ctx_release(&ctx);
		ctx = next;
	}
	parse("    1    15    59     3", &rec);
	assert_true(rec.samples[0].ts_us == 1735689603000000LL);
	assert_true(find(&rec, "gpu.temperature_c")->value == 59);
}

/*
 * Issue 30: without the config's start, ingest's prescan learns the last
 * sample group (ctx.untimed_group) and sets untimed_start_us; the groups
 * are then one second apart from it (dmon's default period), estimated,
 * and a later run's lines go on from the start kept in the state.
 */
static void test_placed_from_mtime(void **state)
{
	struct gl_rec rec;
	const int64_t start = 1735689600000000LL;	/* 2025-01-01T00:00:00Z */

	(void)state;
	parse("# gpu   pwr  temp    sm", &rec);
	parse("    0    15    59     3", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);	/* no start yet: as before */
	assert_int_equal(ctx.untimed_group, 0);
	parse("    1    16    60     4", &rec);
	assert_int_equal(ctx.untimed_group, 0);
	parse("    0    17    61     5", &rec);
	assert_int_equal(ctx.untimed_group, 1);

	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.untimed_start_us = start;
	parse("# gpu   pwr  temp    sm", &rec);
	parse("    0    15    59     3", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_true(rec.samples[0].ts_us == start);
	assert_int_equal(rec.samples[0].ts_estimated, 1);
	parse("    1    16    60     4", &rec);
	assert_true(rec.samples[0].ts_us == start);
	parse("    0    17    61     5", &rec);
	assert_true(rec.samples[0].ts_us == start + 1000000);
	{
		struct gl_parse_ctx next;

		gl_parse_ctx_init(&next);	/* a later run: no untimed_start_us */
		memcpy(next.state, ctx.state, ctx.state_len);
		next.state_len = ctx.state_len;
		gl_parse_ctx_release(&ctx);
		ctx = next;
	}
	parse("    1    18    62     6", &rec);
	assert_true(rec.samples[0].ts_us == start + 1000000);
	parse("    0    19    63     7", &rec);
	assert_true(rec.samples[0].ts_us == start + 2000000);
	assert_int_equal(rec.samples[0].ts_estimated, 1);
}

static void test_foreign(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("    0     46     26", &rec);	/* no header yet */
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("# gpu         pid   type     sm    mem    command", &rec);	/* pmon's header */
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	assert_int_equal(ctx.state_len, 0);
	parse("# a comment", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

struct acc {
	double rx_sum, temp_sum;
	long n;
	int64_t last_ts;
};

static void acc_sample(const struct gl_sample *s, void *arg)
{
	struct acc *a = arg;

	if (s->metric.len == 17 && !memcmp(s->metric.p, "gpu.pcie_rx_kib_s", 17))
		a->rx_sum += s->value;
	if (s->metric.len == 17 && !memcmp(s->metric.p, "gpu.temperature_c", 17))
		a->temp_sum += s->value;
	a->n++;
	a->last_ts = s->ts_us;
}

static void test_real_old_columns(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), "nvidia-smi-dmon/verxirtam+glsltest/nvidia-smi.log"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_dmon, &t, path, 0, &c, NULL, NULL);
	assert_int_equal(c.none, 2);
	assert_int_equal(c.reject, 10);	/* no time columns */
	assert_string_equal(gl_test_detect_path(path), "dmon");
	t.hint = &hint;
	gl_test_read_samples(&gl_fmt_dmon, &t, path, 5, &c, acc_sample, &a);
	/* 10 rows x 17 columns, sbecc and dbecc '-': 150 values (python3) */
	assert_int_equal(c.sample_lines, 10);
	assert_int_equal(c.samples, 150);
	/* rxpci 5+0+0+0+1+0... = 6 MB/s in all (awk '{s+=$17}'), x1024 KiB/s */
	assert_true(a.rx_sum == 6 * 1024);
	/* temp: nine rows of 59 and one of 58 */
	assert_true(a.temp_sum == 9 * 59 + 58);
	assert_true(a.last_ts == 1735689600000000LL + 9 * 1000000LL);
}

static void test_real_new_columns(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), "nvidia-smi-dmon/michalaarne-create+FULL-BOT-new/nvidia_dmon.log"))
		skip();
	gl_parse_ctx_init(&t);
	t.hint = &hint;
	gl_test_read_samples(&gl_fmt_dmon, &t, path, 0, &c, NULL, NULL);
	assert_int_equal(c.sample_lines, 10);
	assert_int_equal(c.samples, 60);
	assert_string_equal(gl_test_detect_path(path), "dmon");
	if (!gl_test_realdata(path, sizeof(path), "nvidia-smi-dmon/samisena+MyBiome/gpu_usage.log"))
		skip();
	gl_test_read_samples(&gl_fmt_dmon, &t, path, 0, &c, NULL, NULL);
	/* 27 rows, 26 of them all '-': one row of 6 values */
	assert_int_equal(c.sample_lines, 1);
	assert_int_equal(c.samples, 6);
	assert_int_equal(c.none, 2 + 26);
	assert_string_equal(gl_test_detect_path(path), "dmon");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_date_time_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_time_without_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placed_from_mtime, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test(test_real_old_columns),
		cmocka_unit_test(test_real_new_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
