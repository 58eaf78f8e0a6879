/*
 * Tests for lib/ingest/stream.c, the part that needs no files or database:
 * gl_component_from_path, the component a file name implies once rotation
 * numbers, dates and type suffixes are peeled off. (Reading files into
 * batches is covered by the CLI tests on fixtures/sample-logs.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/ingest.h"

static void expect(const char *path, const char *want)
{
	char buf[256];

	memset(buf, '#', sizeof(buf));
	gl_component_from_path(path, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("'%s' -> '%s', want '%s'", path, buf, want);
}

static void test_rotations(void **state)
{
	(void)state;
	expect("gpu.log", "gpu");
	expect("gpu.log.1", "gpu");
	expect("gpu.log.3.gz", "gpu");
	expect("gpu.log.gz", "gpu");
	expect("/var/log/gpu/gpu.log.12", "gpu");
	expect("archived/gpu_20250909_143022.log.gz", "gpu");
	expect("fixtures/sample-logs/archived/gpu_20251110_020000.log.gz", "gpu");
	expect("error.log.1", "error");
	expect("server.log", "server");
	expect("server", "server");
	expect("/srv/logs/server", "server");
}

static void test_dates_and_devices(void **state)
{
	(void)state;
	/* logrotate dateext and Python's TimedRotatingFileHandler */
	expect("performance.log.2026-11-21_08-28-33", "performance");
	expect("performance.log.2025-11-14_08-28-33", "performance");
	expect("performance.log.2025-11-14", "performance");
	expect("app.log.2025-11-14T08:28:33", "app");
	/* RMM's per-device file name */
	expect("rmm_log.dev0.csv", "rmm_log");
	expect("rmm/rmm_log.dev12.csv", "rmm_log");
	expect("rmm_log.txt", "rmm_log");
	/* trailing date groups after '_' or '-' */
	expect("aggregated/daily_report_2025-11-16.json", "daily_report");
	expect("worker-3.log", "worker");
}

static void test_names_kept(void **state)
{
	(void)state;
	/* underscores that are part of the name stay */
	expect("performance_monitor.log", "performance_monitor");
	expect("renderer/webxr_renderer.log", "webxr_renderer");
	expect("gpu_profiler.out", "gpu_profiler");
	/* a dot part with letters is part of the name */
	expect("gpufl_basic.system.0.log", "gpufl_basic.system");
	expect("stress.scope.log", "stress.scope");
	expect("events.ndjson", "events");
	expect("events.jsonl.2", "events");
	/* nothing but digits: stays as it is */
	expect("12345", "12345");
	expect("20250909", "20250909");
	expect("logs/12345.log", "12345");
	/* a leading dot is not a suffix */
	expect(".log", ".log");
	expect(".hidden.log", ".hidden");
	/* a name of only a suffix-looking part keeps something */
	expect("x.gz", "x");
}

static void test_small_buffer(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, '#', sizeof(buf));
	gl_component_from_path("performance.log.1", buf, 5);
	assert_string_equal(buf, "perf");
	assert_int_equal(buf[5], '#');
	gl_component_from_path("gpu.log", buf, 1);
	assert_string_equal(buf, "");
	gl_component_from_path("gpu.log", buf, 4);
	assert_string_equal(buf, "gpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotations),
		cmocka_unit_test(test_dates_and_devices),
		cmocka_unit_test(test_names_kept),
		cmocka_unit_test(test_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
