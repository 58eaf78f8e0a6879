/* Tests for lib/ingest/fmt_nvsmi.c: nvidia-smi --query-gpu CSV. */
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

extern const struct gl_format gl_fmt_nvsmi;

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
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_nvsmi, &ctx, line, rec);
}

/* The sample of metric m in rec, or fail. */
static const struct gl_sample *find(const struct gl_rec *rec, const char *m)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(m) && !memcmp(rec->samples[i].metric.p, m, strlen(m)))
			return &rec->samples[i];
	fail_msg("no sample %s", m);
	return NULL;
}

static void test_units_in_header_and_values(void **state)
{
	struct gl_rec rec;
	const struct gl_sample *s;

	(void)state;
	parse("timestamp, index, name, uuid, utilization.gpu [%], memory.used [MiB], power.draw [W], "
	      "clocks.sm [MHz], fan.speed [%], pstate, clocks_event_reasons.active", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("2025/11/16 09:12:19.950, 1, NVIDIA A100-SXM4-40GB, GPU-abc, 45 %, 8000 MiB, 70.77 W, "
	      "1530 MHz, [N/A], P0, 0x0000000000000004", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	/* fan.speed [N/A] gives none: 4 vocabulary + pstate + reasons */
	assert_int_equal(rec.n_samples, 6);
	s = find(&rec, "gpu.utilization_pct");
	assert_true(s->value == 45);
	/* 2025-11-16 09:12:19.950 UTC = 1763284339.950 s (python3 calendar.timegm) */
	assert_true(s->ts_us == 1763284339950000LL);
	gl_test_assert_str(s->device, "1");
	gl_test_assert_str(s->labels, "{\"uuid\":\"GPU-abc\",\"name\":\"NVIDIA A100-SXM4-40GB\"}");
	assert_true(find(&rec, "gpu.memory_used_mib")->value == 8000);
	assert_true(fabs(find(&rec, "gpu.power_w")->value - 70.77) < 1e-9);
	assert_true(find(&rec, "gpu.sm_clock_mhz")->value == 1530);
	assert_true(find(&rec, "nvidia_smi.pstate")->value == 0);
	assert_true(find(&rec, "nvidia_smi.clocks_event_reasons.active")->value == 4);
}

static void test_missing_and_bad_values(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("timestamp, utilization.gpu [%], memory.used [MiB], temperature.gpu", &rec);
	parse("2025/11/16 09:12:19.950, [Not Supported], N/A, [N/A]", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	assert_int_equal(rec.n_samples, 0);
	parse("2025/11/16 09:12:20.950, lots, 5 MiB, 40", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "gpu.utilization_pct: not a number");
	parse("2025/11/16 09:12:21.950, 5 %, 5 MiB", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "fewer fields than the header");
	parse("2025-13-16 garbage, 5 %, 5 MiB, 3", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "timestamp: not YYYY/MM/DD HH:MM:SS.mmm");
	/* a CSV of someone else: "name" alone does not make nvidia-smi's header */
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	parse("name,value", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("foo,1", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	/* another format's line is not ours */
	parse("{\"level\": \"INFO\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

static void test_gpus_without_index(void **state)
{
	struct gl_rec rec;
	static const char *const dev[] = {"0", "1", "0", "1"};
	static const char *const rows[] = {
		"2025/09/08 14:14:37.120, 3, 100", "2025/09/08 14:14:37.124, 4, 200",
		"2025/09/08 14:14:38.121, 5, 300", "2025/09/08 14:14:38.123, 6, 400",
	};

	(void)state;
	parse("timestamp, utilization.gpu [%], memory.used [MiB]", &rec);
	for (size_t i = 0; i < 4; i++) {
		parse(rows[i], &rec);
		assert_int_equal(rec.kind, GL_REC_SAMPLES);
		assert_int_equal(rec.n_samples, 2);
		gl_test_assert_str(rec.samples[0].device, dev[i]);
	}
	/* a header before every call also starts a sample */
	parse("timestamp, utilization.gpu [%], memory.used [MiB]", &rec);
	parse("2025/09/08 14:14:38.125, 7, 500", &rec);
	gl_test_assert_str(rec.samples[0].device, "0");
}

/* --query-compute-apps: a row per process, the GPU by its uuid; reasons' "Active" columns */
static void test_compute_apps(void **state)
{
	struct gl_rec rec;
	const struct gl_sample *s;

	(void)state;
	parse("timestamp, gpu_uuid, pid, process_name, used_gpu_memory [MiB]", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("2026/11/26 15:46:43.012, GPU-9a49, 70001, python3, 1530 MiB", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_int_equal(rec.n_samples, 1);
	s = find(&rec, "compute_apps.memory_used_mib");
	assert_true(s->value == 1530);
	gl_test_assert_str(s->device, "GPU-9a49");
	gl_test_assert_str(s->labels, "{\"uuid\":\"GPU-9a49\",\"pid\":\"70001\",\"command\":\"python3\"}");
	/* a second process on the same GPU at the same time: its own pid, the same GPU */
	parse("2026/11/26 15:46:43.013, GPU-9a49, 61234, service, 3012 MiB", &rec);
	s = find(&rec, "compute_apps.memory_used_mib");
	gl_test_assert_str(s->device, "GPU-9a49");
	gl_test_assert_str(s->labels, "{\"uuid\":\"GPU-9a49\",\"pid\":\"61234\",\"command\":\"service\"}");

	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	parse("timestamp, index, clocks_event_reasons.sw_thermal_slowdown, "
	      "clocks_event_reasons.hw_slowdown", &rec);
	parse("2026/11/26 15:46:43.012, 0, Active, Not Active", &rec);
	assert_int_equal(rec.n_samples, 2);
	assert_true(find(&rec, "nvidia_smi.clocks_event_reasons.sw_thermal_slowdown")->value == 1);
	assert_true(find(&rec, "nvidia_smi.clocks_event_reasons.hw_slowdown")->value == 0);
}

static void test_noheader_needs_columns(void **state)
{
	static const char *const cols[] = {"timestamp", "utilization.gpu", "memory.used"};
	struct gl_input_hint hint = {cols, 3, GL_TS_NONE, NAN};
	struct gl_rec rec;

	(void)state;
	parse("2025/09/08 14:14:37.120, 0, 11409", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "\"columns\""));
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.hint = &hint;
	parse("2025/09/08 14:14:37.120, 0, 11409", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_true(find(&rec, "gpu.memory_used_mib")->value == 11409);
}

static void test_timezone(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.tz_name = "Europe/Berlin";
	parse("timestamp, utilization.gpu [%]", &rec);
	/* 2025-07-01 12:00:00 CEST is 10:00:00 UTC = 1751364000 s */
	parse("2025/07/01 12:00:00.000, 5 %", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_true(rec.samples[0].ts_us == 1751364000000000LL);
	/* January: CET, UTC+1: 2025-01-15 12:00:00 -> 11:00:00 UTC = 1736938800 s */
	parse("2025/01/15 12:00:00.500, 6 %", &rec);
	assert_true(rec.samples[0].ts_us == 1736938800500000LL);
}

static void test_hint_times(void **state)
{
	/* start 2025-01-01T00:00:00Z = 1735689600 s, every 2.5 s */
	struct gl_input_hint hint = {NULL, 0, 1735689600000000LL, 2.5};
	struct gl_rec rec;

	(void)state;
	parse("index, utilization.gpu [%]", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("0, 1 %", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "start and interval_s"));
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.hint = &hint;
	parse("index, utilization.gpu [%]", &rec);
	parse("0, 1 %", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("1, 2 %", &rec);
	assert_true(rec.samples[0].ts_us == 1735689600000000LL);
	parse("0, 3 %", &rec);
	assert_true(rec.samples[0].ts_us == 1735689602500000LL);
}

static void test_transcript_echoes(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("C:\\Users\\dustin\\Desktop\\monitoring>date /T ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("Tue 08/18/2020 ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("C:\\Users\\dustin\\Desktop\\monitoring>time /T ", &rec);
	parse("03:44 PM", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("C:\\Users\\dustin\\Desktop\\monitoring>nvidia-smi --query-gpu=utilization.gpu --format=csv ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("utilization.gpu [%]", &rec);
	parse("31 %", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	/* 2020-08-18 15:44:00 UTC = 1597765440 s */
	assert_true(rec.samples[0].ts_us == 1597765440000000LL);
	gl_test_assert_str(rec.samples[0].device, "0");
	parse("32 %", &rec);
	gl_test_assert_str(rec.samples[0].device, "1");
	/* 12:14 AM is 00:14 */
	parse("C:\\x>time /T", &rec);
	parse("12:14 AM", &rec);
	parse("33 %", &rec);
	assert_true(rec.samples[0].ts_us == 1597709640000000LL);
	gl_test_assert_str(rec.samples[0].device, "0");
	parse("C:\\x>date /T", &rec);
	parse("Tue 18/08/2020", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
}

static void test_state_across_runs(void **state)
{
	struct gl_parse_ctx next;
	struct gl_rec rec;

	(void)state;
	parse("timestamp, utilization.gpu [%]", &rec);
	parse("2025/09/08 14:14:37.120, 1 %", &rec);
	/* the run stops here; the next one restores the state only */
	gl_parse_ctx_init(&next);
	memcpy(next.state, ctx.state, ctx.state_len);
	next.state_len = ctx.state_len;
	gl_parse_ctx_release(&ctx);
	ctx = next;
	parse("2025/09/08 14:14:37.122, 2 %", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	gl_test_assert_str(rec.samples[0].device, "1");
	gl_test_assert_str(rec.samples[0].metric, "gpu.utilization_pct");
}

static void test_detect(void **state)
{
	static const char text[] =
		"timestamp, name, utilization.gpu [%], memory.used [MiB]\n"
		"2025/11/16 09:12:19.950, NVIDIA A100-SXM4-40GB, 87 %, 30211 MiB\n"
		"2025/11/16 09:12:20.951, NVIDIA A100-SXM4-40GB, 91 %, 30211 MiB\n";
	struct gl_str lines[3];
	const char *p = text, *why = NULL;
	const struct gl_format *f;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		const char *nl = strchr(p, '\n');

		lines[i].p = p;
		lines[i].len = (size_t)(nl - p);
		p = nl + 1;
	}
	f = gl_format_detect(lines, 3, &why);
	assert_non_null(f);
	assert_string_equal(f->name, "nvsmi");
}

/* --- real files ---------------------------------------------------- */

struct acc {
	double sum[4];
	long n[4];
	int64_t first_ts, last_ts;
	char last_dev[16];
	double last_used;
};

static void acc_sample(const struct gl_sample *s, void *arg)
{
	struct acc *a = arg;
	static const char *const m[] = {"gpu.utilization_pct", "gpu.memory_used_mib", "gpu.power_w",
					"nvidia_smi.pstate"};

	if (!a->first_ts)
		a->first_ts = s->ts_us;
	a->last_ts = s->ts_us;
	snprintf(a->last_dev, sizeof(a->last_dev), "%.*s", (int)s->device.len, s->device.p);
	for (size_t i = 0; i < 4; i++) {
		if (s->metric.len == strlen(m[i]) && !memcmp(s->metric.p, m[i], s->metric.len)) {
			a->sum[i] += s->value;
			a->n[i]++;
		}
	}
	if (!strcmp(a->last_dev, "3") && s->metric.len == 19 && !memcmp(s->metric.p, "gpu.memory_used_mib", 19))
		a->last_used += s->value;
}

static int real(char *buf, size_t n, const char *sub)
{
	return gl_test_realdata(buf, n, sub);
}

static void test_real_repeated_header(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!real(path, sizeof(path), "nvidia-smi-csv/AkshayRoyal+gpu-usage/gpu_usage.csv"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_nvsmi, &t, path, 101, &c, acc_sample, &a);
	/* 448 lines: 224 headers, 224 rows of 5 metrics, no N/A (python3 over the file) */
	assert_int_equal(c.none, 224);
	assert_int_equal(c.sample_lines, 224);
	assert_int_equal(c.samples, 1120);
	assert_int_equal(c.reject + c.foreign, 0);
	assert_true(a.sum[0] == 5458);	/* sum of utilization.gpu (python3) */
	assert_true(a.first_ts == 1687460216252000LL);	/* 2023/06/22 18:56:56.252 */
	assert_string_equal(gl_test_detect_path(path), "nvsmi");
}

static void test_real_units_in_values(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!real(path, sizeof(path), "nvidia-smi-csv/nazminarisbekovanazmi-ai+MDDAir/gpu_telemetry.csv"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_nvsmi, &t, path, 2000, &c, acc_sample, &a);
	/* 1 header, 5239 rows of 7 numbers (pstate P8 -> 8) */
	assert_int_equal(c.none, 1);
	assert_int_equal(c.sample_lines, 5239);
	assert_int_equal(c.samples, 5239 * 7);
	assert_int_equal(c.reject + c.foreign, 0);
	assert_true(fabs(a.sum[2] - 1547210.4) < 1e-3);	/* sum of power.draw (python3) */
	assert_int_equal(a.n[3], 5239);
	assert_string_equal(gl_test_detect_path(path), "nvsmi");
}

static void test_real_noheader_four_gpus(void **state)
{
	static const char *const cols[] = {"timestamp", "utilization.gpu", "memory.used"};
	struct gl_input_hint hint = {cols, 3, GL_TS_NONE, NAN};
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!real(path, sizeof(path), "nvidia-smi-csv/dst915+llama.cpp/gpu_stats.csv"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_nvsmi, &t, path, 0, &c, NULL, NULL);
	assert_int_equal(c.reject, 388);	/* no header, no columns: each row says so */
	assert_non_null(strstr(c.first_reason, "\"columns\""));
	assert_string_equal(gl_test_detect_path(path), "nvsmi");
	t.hint = &hint;
	gl_test_read_samples(&gl_fmt_nvsmi, &t, path, 203, &c, acc_sample, &a);
	assert_int_equal(c.sample_lines, 388);
	assert_int_equal(c.samples, 776);
	/*
	 * python3: 97 samples of 4 rows (rows of one sample at most 4 ms
	 * apart, samples about 1 s apart); memory.used of the 4th row of each
	 * sums to 1292525; the last row is GPU 3.
	 */
	assert_true(a.last_used == 1292525);
	assert_string_equal(a.last_dev, "3");
}

static void test_real_transcript(void **state)
{
	char path[512];
	struct gl_parse_ctx t;
	struct gl_test_scount c;
	struct acc a = {0};

	(void)state;
	if (!real(path, sizeof(path), "nvidia-smi-csv/DucMinhNgo+convert-cpu_gpu-to-excel/gpu.log"))
		skip();
	gl_parse_ctx_init(&t);
	gl_test_read_samples(&gl_fmt_nvsmi, &t, path, 1001, &c, acc_sample, &a);
	/* 246 blocks of 8 rows x 5 metrics; the other 2214 lines are prompts, echoes, headers, blanks */
	assert_int_equal(c.sample_lines, 1968);
	assert_int_equal(c.samples, 9840);
	assert_int_equal(c.none, 4182 - 1968);
	assert_int_equal(c.reject + c.foreign, 0);
	assert_true(a.sum[1] == 8947894);	/* sum of memory.used (python3) */
	/* last block: Sun 08/23/2020 07:14 PM = 1598210040 s; its 8th row is GPU 7 */
	assert_true(a.last_ts == 1598210040000000LL);
	assert_string_equal(a.last_dev, "7");
	assert_string_equal(gl_test_detect_path(path), "nvsmi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_units_in_header_and_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_and_bad_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpus_without_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compute_apps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noheader_needs_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timezone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hint_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transcript_echoes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_across_runs, setup, teardown),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_real_repeated_header),
		cmocka_unit_test(test_real_units_in_values),
		cmocka_unit_test(test_real_noheader_four_gpus),
		cmocka_unit_test(test_real_transcript),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
