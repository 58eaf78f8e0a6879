/*
 * test_emit_json.c - reports/emit_json.c: the top-level keys, null for
 * undefined statistics (never NaN), names with quotes, commas, '<>' and
 * unicode kept exactly, invalid UTF-8 made valid.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../reports/report.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sections.h"
#include "util/timeutil.h"

static void test_json(void **state)
{
	(void)state;
	char name[] = "gemm<float, \"T\">, µ ✓";
	char bad[] = "x\xff";
	struct gl_report_kernel k[2] = {
		{.kernel = name, .count = 1, .min_us = 5, .max_us = 5, .mean_us = 5,
		 .stddev_us = NAN, .p50_us = 5, .p90_us = 5, .p95_us = 5, .p99_us = 5,
		 .total_us = 5, .mean_mem_mib = INFINITY},
		{.kernel = bad, .count = 1},
	};
	struct gl_report r = {.generator = "gpulog-report", .version = GL_VERSION, .top = 20};
	const size_t n_k = 2;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct gl_output out = {.fp = fp};
	struct gl_err err;
	json_error_t jerr;

	r.window = (struct gl_report_window){1735689600000000LL, 1735776000000000LL, 1};
	/* a hand-made model: the kernels in the kernels section's state */
	assert_int_equal(gl_report_model_init(&r, &err), GL_OK);
	struct gl_kernels_result *kr = (struct gl_kernels_result *)gl_kernels_result(&r);

	kr->kernels = k;
	kr->n_kernels = n_k;
	/* the figures of an empty window where "none" is not zero */
	struct gl_report_summary *sr = (struct gl_report_summary *)gl_summary_result(&r);
	struct gl_report_memory *mr = (struct gl_report_memory *)gl_memory_result(&r);
	struct gl_report_errors *er = (struct gl_report_errors *)gl_errors_result(&r);

	sr->first_ts_us = sr->last_ts_us = GL_TS_NONE;
	mr->peak_mib = mr->last_mib = NAN;
	mr->peak_ts_us = mr->last_ts_us = mr->rmm.peak_ts_us = GL_TS_NONE;
	er->per_1000_events = er->per_hour = NAN;
	assert_int_equal(gl_emit_json(&r, &out, &err), GL_OK);
	fclose(fp);
	assert_null(strstr(buf, "NaN"));
	assert_null(strstr(buf, "nan"));
	/* "inf" only inside the key "inference" */
	for (const char *p = buf; (p = strstr(p, "inf")) != NULL; p++)
		assert_int_equal(strncmp(p, "inference", 9), 0);
	json_t *doc = json_loads(buf, 0, &jerr);
	assert_non_null(doc);
	const char *keys[] = {"generator", "window",	"summary", "kernels", "operations", "trends",
			      "anomalies", "memory", "errors",	"alerts",  "baseline", "metrics",
			      "scopes", "inference", "training", "gpu_health", "devices", "findings"};
	assert_int_equal(json_object_size(doc), 18);
	for (size_t i = 0; i < 18; i++)
		assert_non_null(json_object_get(doc, keys[i]));
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "window"),
							      "since")),
			    "2025-01-01T00:00:00Z");
	json_t *k0 = json_array_get(json_object_get(doc, "kernels"), 0);
	assert_string_equal(json_string_value(json_object_get(k0, "kernel")), name);
	assert_true(json_is_null(json_object_get(k0, "stddev_us")));
	assert_true(json_is_null(json_object_get(k0, "mean_mem_mib")));
	assert_true(json_number_value(json_object_get(k0, "p95_us")) == 5);
	/* a hand-made model has no scopes state: an empty array; a kernel of log lines
	 * has no trace fields */
	assert_int_equal(json_array_size(json_object_get(doc, "scopes")), 0);
	assert_null(json_object_get(k0, "source"));
	assert_null(json_object_get(k0, "hotspot"));
	json_t *k1 = json_array_get(json_object_get(doc, "kernels"), 1);
	assert_string_equal(json_string_value(json_object_get(k1, "kernel")), "x\xEF\xBF\xBD"); /* U+FFFD */
	assert_true(json_is_null(json_object_get(json_object_get(doc, "summary"), "first_ts")));
	assert_true(json_is_null(json_object_get(json_object_get(doc, "errors"), "per_hour")));
	json_decref(doc);
	free(buf);
	gl_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
