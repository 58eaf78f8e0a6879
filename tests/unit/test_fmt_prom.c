/*
 * Tests for lib/ingest/fmt_prom.c (Prometheus text exposition): each
 * feature on small hand-written expositions, and the real vLLM and DCGM
 * exporter scrapes under ../shared/realdata against counts made with
 * grep/awk (see the comments at each number).
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

extern const struct gl_format gl_fmt_prom;

static struct gl_parse_ctx ctx;
#define MTIME_US 1735689600000000LL	/* 2025-01-01T00:00:00Z */

static int setup(void **state)
{
	(void)state;
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = MTIME_US;
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
	gl_test_parse(&gl_fmt_prom, &ctx, line, rec);
}

/* One sample line: its metric, value, labels JSON (NULL: none) and device (NULL: none). */
static void want_sample(const char *line, const char *metric, double value, const char *labels,
			const char *device)
{
	struct gl_rec rec;

	parse(line, &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_int_equal(rec.n_samples, 1);
	gl_test_assert_str(rec.samples[0].metric, metric);
	assert_true(rec.samples[0].value == value);
	if (labels)
		gl_test_assert_str(rec.samples[0].labels, labels);
	else
		assert_null(rec.samples[0].labels.p);
	if (device)
		gl_test_assert_str(rec.samples[0].device, device);
	else
		assert_null(rec.samples[0].device.p);
}

static void want_reject(const char *line, const char *reason)
{
	struct gl_rec rec;

	parse(line, &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, reason);
}

static void test_counter_gauge_comments(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("# HELP vllm:num_requests_running Number of requests in model execution batches.", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("# TYPE vllm:num_requests_running gauge", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("# any other comment", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	want_sample("vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen1.5-0.5B-Chat\"} 3.0",
		    "vllm:num_requests_running", 3, "{\"engine\":\"0\",\"model_name\":\"Qwen/Qwen1.5-0.5B-Chat\"}",
		    NULL);
	/* no labels; exponent; the time is the file's mtime, estimated */
	parse("process_virtual_memory_bytes 8.982228992e+09", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_true(rec.samples[0].value == 8982228992.0);
	assert_null(rec.samples[0].labels.p);
	assert_true(rec.samples[0].ts_us == MTIME_US);
	assert_int_equal(rec.samples[0].ts_estimated, 1);
	parse("# TYPE http_requests_total counter", &rec);
	/* own timestamp (ms); labels sorted by name */
	parse("http_requests_total{method=\"post\",code=\"400\"} 3 1395066363000", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	gl_test_assert_str(rec.samples[0].labels, "{\"code\":\"400\",\"method\":\"post\"}");
	assert_true(rec.samples[0].ts_us == 1395066363000000LL);
	assert_int_equal(rec.samples[0].ts_estimated, 0);
	want_reject("http_requests_total{code=\"200\"} -1", "counter: negative value");
	/* a trailing comma and blanks are allowed */
	want_sample("up{job=\"a\", } 1", "up", 1, "{\"job\":\"a\"}", NULL);
}

static void test_histogram_summary(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("# TYPE vllm:time_to_first_token_seconds histogram", &rec);
	want_sample("vllm:time_to_first_token_seconds_bucket{le=\"0.001\",engine=\"0\"} 2",
		    "vllm:time_to_first_token_seconds_bucket", 2, "{\"engine\":\"0\",\"le\":\"0.001\"}", NULL);
	want_sample("vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",engine=\"0\"} 7",
		    "vllm:time_to_first_token_seconds_bucket", 7, "{\"engine\":\"0\",\"le\":\"+Inf\"}", NULL);
	want_sample("vllm:time_to_first_token_seconds_sum{engine=\"0\"} 1.25",
		    "vllm:time_to_first_token_seconds_sum", 1.25, "{\"engine\":\"0\"}", NULL);
	want_sample("vllm:time_to_first_token_seconds_count{engine=\"0\"} 7",
		    "vllm:time_to_first_token_seconds_count", 7, "{\"engine\":\"0\"}", NULL);
	want_sample("vllm:time_to_first_token_seconds_created{engine=\"0\"} 1.7624383816e+09",
		    "vllm:time_to_first_token_seconds_created", 1762438381.6, "{\"engine\":\"0\"}", NULL);
	want_reject("vllm:time_to_first_token_seconds_bucket{engine=\"0\"} 7",
		    "histogram bucket without an le label");
	parse("# TYPE rpc_duration_seconds summary", &rec);
	want_sample("rpc_duration_seconds{quantile=\"0.99\"} 76656", "rpc_duration_seconds", 76656,
		    "{\"quantile\":\"0.99\"}", NULL);
}

static void test_escapes_and_special_values(void **state)
{
	(void)state;
	/* \" \\ \n decoded, then written as JSON; an empty value kept */
	want_sample("msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\",pod_uid=\"\"} 1.458255915e9",
		    "msdos_file_access_time_seconds", 1458255915.0,
		    "{\"error\":\"Cannot find file:\\n\\\"FILE.TXT\\\"\",\"path\":\"C:\\\\DIR\\\\FILE.TXT\",\"pod_uid\":\"\"}",
		    NULL);
	want_reject("go_gc_duration_seconds{quantile=\"0.5\"} NaN",
		    "value NaN: not stored (a REAL column holds no NaN)");
	want_reject("some_gauge +Inf", "value +Inf: not stored");
	want_reject("some_gauge -Inf", "value -Inf: not stored");
	want_reject("a{b=\"c} 1", "labels: unterminated value");
	want_reject("a{b=c} 1", "labels: value not in double quotes");
	want_reject("a{b=\"1\",b=\"2\"} 1", "labels: a label name twice");
	want_reject("a{b=\"1\"} 1 12.5", "timestamp: not integer milliseconds");
}

static void test_dcgm_vocabulary(void **state)
{
	(void)state;
	want_sample("DCGM_FI_DEV_GPU_UTIL{gpu=\"3\",UUID=\"GPU-3c\",modelName=\"NVIDIA H100 80GB HBM3\",pod_uid=\"\"} 42",
		    "gpu.utilization_pct", 42,
		    "{\"UUID\":\"GPU-3c\",\"modelName\":\"NVIDIA H100 80GB HBM3\",\"pod_uid\":\"\"}", "3");
	want_sample("DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1024", "gpu.memory_used_mib", 1024, NULL, "0");
	want_sample("DCGM_FI_DEV_FB_FREE{gpu=\"0\"} 80000", "gpu.memory_free_mib", 80000, NULL, "0");
	want_sample("DCGM_FI_DEV_POWER_USAGE{gpu=\"1\"} 113.611000", "gpu.power_w", 113.611, NULL, "1");
	want_sample("DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 26", "gpu.temperature_c", 26, NULL, "1");
	want_sample("DCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"1\"} 5", "gpu.memory_utilization_pct", 5, NULL, "1");
	want_sample("DCGM_FI_DEV_SM_CLOCK{gpu=\"1\"} 1980", "gpu.sm_clock_mhz", 1980, NULL, "1");
	/* bytes/s -> KiB/s */
	want_sample("DCGM_FI_PROF_PCIE_TX_BYTES{gpu=\"1\"} 2048", "gpu.pcie_tx_kib_s", 2, NULL, "1");
	/* outside the vocabulary: own name, still per device */
	want_sample("DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",err_code=\"0\"} 0", "DCGM_FI_DEV_XID_ERRORS", 0,
		    "{\"err_code\":\"0\"}", "2");
}

static void test_foreign(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("Loading weights took 3 s", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("{\"timestamp\": \"2025-01-01T00:00:00Z\", \"level\": \"INFO\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("INFO 08-07 13:49:04 [loggers.py:122] Engine 000: Avg prompt throughput: 0.0 tokens/s", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

static double vllm_sum;
static long vllm_prefixed;

static void vllm_each(const struct gl_sample *s, void *arg)
{
	(void)arg;
	vllm_sum += s->value;
	vllm_prefixed += s->metric.len > 5 && memcmp(s->metric.p, "vllm:", 5) == 0;
}

static void test_real_vllm_scrape(void **state)
{
	char path[512];
	struct gl_test_scount c;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path),
			      "inference-prom/Ahasannn+hardware-aware-router/vllm_metrics.txt"))
		skip();
	vllm_sum = 0;
	vllm_prefixed = 0;
	gl_test_read_samples(&gl_fmt_prom, &ctx, path, 0, &c, vllm_each, NULL);
	/* wc -l: 503; grep -c '^#': 124; grep -vc '^#': 379 */
	assert_int_equal(c.lines, 503);
	assert_int_equal(c.none, 124);
	assert_int_equal(c.sample_lines, 379);
	assert_int_equal(c.samples, 379);
	assert_int_equal(c.reject, 0);
	/* grep -v '^#' | grep -c '^vllm:' */
	assert_int_equal(vllm_prefixed, 338);
	/* awk '!/^#/ {s += $NF} END {printf "%.2f", s}' */
	assert_true(fabs(vllm_sum - 54133543457.27) < 0.01);
	assert_string_equal(gl_test_detect_path(path), "prom");
}

static long gpu_temp_dev3;
static double power_sum;

static void dcgm_each(const struct gl_sample *s, void *arg)
{
	(void)arg;
	if (s->metric.len == 17 && !memcmp(s->metric.p, "gpu.temperature_c", 17) && s->device.len == 1 &&
	    s->device.p[0] == '3')
		gpu_temp_dev3++;
	if (s->metric.len == 11 && !memcmp(s->metric.p, "gpu.power_w", 11))
		power_sum += s->value;
}

static void test_real_dcgm(void **state)
{
	static const char *const files[] = {
		"dcgm-exporter-prom/NVIDIA+aicr/accelerator-metrics.md.1f1758a.L87-L116.prom",
		"dcgm-exporter-prom/NVIDIA+aicr/accelerator-metrics.md.156a357.L88-L117.prom",
	};
	/* awk '/^DCGM_FI_DEV_POWER_USAGE/ {s += $NF} END {printf "%.6f", s}' per file */
	static const double power[] = {542.719, 583.767};
	char path[512];
	struct gl_test_scount c;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), files[0]))
		skip();
	for (size_t f = 0; f < 2; f++) {
		assert_true(gl_test_realdata(path, sizeof(path), files[f]));
		gpu_temp_dev3 = 0;
		power_sum = 0;
		gl_test_read_samples(&gl_fmt_prom, &ctx, path, 0, &c, dcgm_each, NULL);
		/* 30 lines, every one a sample (no HELP/TYPE: grep kept only samples) */
		assert_int_equal(c.lines, 30);
		assert_int_equal(c.samples, 30);
		assert_int_equal(c.reject, 0);
		assert_true(fabs(power_sum - power[f]) < 1e-6);
		/* grep -c '^DCGM_FI_DEV_GPU_TEMP{gpu="3"' */
		assert_int_equal(gpu_temp_dev3, 1);
		assert_string_equal(gl_test_detect_path(path), "prom");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counter_gauge_comments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_histogram_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escapes_and_special_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dcgm_vocabulary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_vllm_scrape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_dcgm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
