/* Tests for lib/ingest/vocab.c: source fields -> canonical metric names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/vocab.h"

static void want(enum gl_vocab_src src, const char *field, const char *metric, double scale)
{
	double sc = 0;
	const char *m = gl_vocab_lookup(src, field, strlen(field), &sc);

	if (!metric) {
		assert_null(m);
		return;
	}
	assert_non_null(m);
	assert_string_equal(m, metric);
	assert_true(sc == scale);
}

static void test_lookup(void **state)
{
	(void)state;
	want(GL_VOCAB_NVSMI, "utilization.gpu", "gpu.utilization_pct", 1);
	want(GL_VOCAB_NVSMI, "memory.used", "gpu.memory_used_mib", 1);
	want(GL_VOCAB_NVSMI, "power.draw", "gpu.power_w", 1);
	want(GL_VOCAB_NVSMI, "temperature.gpu", "gpu.temperature_c", 1);
	want(GL_VOCAB_NVSMI, "clocks.current.sm", "gpu.sm_clock_mhz", 1);
	want(GL_VOCAB_NVSMI, "fan.speed", "gpu.fan_pct", 1);
	want(GL_VOCAB_NVSMI, "memory.free", "gpu.memory_free_mib", 1);
	want(GL_VOCAB_DMON, "fb", "gpu.memory_used_mib", 1);
	want(GL_VOCAB_DMON, "temp", "gpu.temperature_c", 1);
	want(GL_VOCAB_DMON, "gtemp", "gpu.temperature_c", 1);
	want(GL_VOCAB_DMON, "mtemp", "gpu.memory_temperature_c", 1);
	want(GL_VOCAB_DMON, "pclk", "gpu.sm_clock_mhz", 1);
	/* MB/s (MiB/s) -> KiB/s */
	want(GL_VOCAB_DMON, "rxpci", "gpu.pcie_rx_kib_s", 1024);
	want(GL_VOCAB_DMON, "txpci", "gpu.pcie_tx_kib_s", 1024);
	want(GL_VOCAB_DMON, "enc", NULL, 0);
	want(GL_VOCAB_PMON, "sm", "pmon.utilization_pct", 1);
	want(GL_VOCAB_DCGMI, "POWER", "gpu.power_w", 1);
	want(GL_VOCAB_DCGMI, "DCGM_FI_DEV_GPU_UTIL", "gpu.utilization_pct", 1);
	want(GL_VOCAB_DCGMI, "203", "gpu.utilization_pct", 1);
	want(GL_VOCAB_DCGMI, "FBUSD", "gpu.memory_used_mib", 1);
	/* bytes/s -> KiB/s */
	want(GL_VOCAB_DCGMI, "PCITX", "gpu.pcie_tx_kib_s", 1.0 / 1024);
	want(GL_VOCAB_DCGMI, "TXTPT", NULL, 0);
	/* case does not matter */
	want(GL_VOCAB_DCGMI, "gtemp", "gpu.temperature_c", 1);
}

static void test_own_names(void **state)
{
	char buf[64];
	double sc = 0;

	(void)state;
	assert_int_equal(gl_vocab_name(GL_VOCAB_NVSMI, "clocks_event_reasons.active", 27, buf, sizeof(buf), &sc),
			 strlen("nvidia_smi.clocks_event_reasons.active"));
	assert_string_equal(buf, "nvidia_smi.clocks_event_reasons.active");
	assert_true(sc == 1);
	gl_vocab_name(GL_VOCAB_DMON, "enc", 3, buf, sizeof(buf), &sc);
	assert_string_equal(buf, "dmon.enc");
	gl_vocab_name(GL_VOCAB_DCGMI, "SMACT", 5, buf, sizeof(buf), &sc);
	assert_string_equal(buf, "dcgmi.smact");
	gl_vocab_name(GL_VOCAB_DCGMI, "A B/c", 5, buf, sizeof(buf), &sc);
	assert_string_equal(buf, "dcgmi.a_b_c");
	gl_vocab_name(GL_VOCAB_DMON, "rxpci", 5, buf, sizeof(buf), &sc);
	assert_string_equal(buf, "gpu.pcie_rx_kib_s");
	assert_true(sc == 1024);
	/* too small a buffer, or an empty field */
	assert_int_equal(gl_vocab_name(GL_VOCAB_DMON, "enc", 3, buf, 8, &sc), 0);
	assert_int_equal(gl_vocab_name(GL_VOCAB_DMON, "", 0, buf, sizeof(buf), &sc), 0);
}

static void test_metrics_and_units(void **state)
{
	size_t n;
	const struct gl_vocab_metric *m = gl_vocab_metrics(&n);

	(void)state;
	/* issue 6's 15, gpu.memory_free_mib, issue 10's 12 vllm.* and 13 inference.*,
	 * compute_apps.memory_used_mib */
	assert_int_equal(n, 15 + 1 + 12 + 13 + 1);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(gl_vocab_unit(m[i].name), m[i].unit);
	assert_string_equal(gl_vocab_unit("gpu.power_w"), "W");
	assert_string_equal(gl_vocab_unit("gpu.pcie_tx_kib_s"), "KiB/s");
	assert_null(gl_vocab_unit("dmon.enc"));
	assert_string_equal(gl_vocab_unit("vllm.kv_cache_usage_pct"), "%");
	assert_string_equal(gl_vocab_unit("inference.ttft_ms"), "ms");
	assert_string_equal(gl_vocab_lookup(GL_VOCAB_DCGMI, "DCGM_FI_DEV_FB_FREE", 19, NULL),
			    "gpu.memory_free_mib");
	assert_string_equal(gl_vocab_prefix(GL_VOCAB_NVSMI), "nvidia_smi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_own_names),
		cmocka_unit_test(test_metrics_and_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
