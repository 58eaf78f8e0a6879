/*
 * test_emit_text.c - reports/emit_text.c: at most 100 columns (counting
 * code points) even with long unicode names, "-" for undefined numbers,
 * the sections a reader looks for.
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

#include "../../reports/emit_util.h"
#include "../../reports/report.h"
#include "../../reports/sec_alerts.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sections.h"
#include "util/timeutil.h"

static void test_text(void **state)
{
	(void)state;
	char name[] = "ünïcode_kernel_with_a_very_long_templated_name<float, 128, 64, true>";
	char msg[300];
	struct gl_report_kernel k[1] = {
		{.kernel = name, .count = 1, .min_us = 5, .max_us = 5, .mean_us = 5,
		 .stddev_us = NAN, .p50_us = 5, .p90_us = 5, .p95_us = 5, .p99_us = 5,
		 .total_us = 5, .mean_mem_mib = NAN},
	};
	struct gl_report_alert al = {.severity = GL_SEVERITY_CRITICAL, .rule = "r",
				     .subject = "s", .message = msg};
	struct gl_report r = {.generator = "gpulog-report", .version = GL_VERSION, .top = 20};
	const size_t n_k = 1;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct gl_output out = {.fp = fp};
	struct gl_err err;

	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	r.window = (struct gl_report_window){1735689600000000LL, 1735776000000000LL, 1};
	/* a hand-made model: the alert in the alerts section's state */
	assert_int_equal(gl_report_model_init(&r, &err), GL_OK);
	struct gl_alerts_result *ar = (struct gl_alerts_result *)gl_alerts_result(&r);
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

	ar->alerts = &al;
	ar->n_alerts = 1;
	assert_int_equal(gl_emit_text(&r, &out, &err), GL_OK);
	fclose(fp);
	size_t cols = 0, max = 0;
	for (const char *p = buf; *p; p++) {
		if (*p == '\n') {
			max = cols > max ? cols : max;
			cols = 0;
		} else if (((unsigned char)*p & 0xC0) != 0x80) {
			cols++;
		}
	}
	assert_true(max <= 100);
	assert_non_null(strstr(buf, "2025-01-01T00:00:00Z .. 2025-01-02T00:00:00Z"));
	assert_non_null(strstr(buf, "ünïcode_kernel"));
	assert_non_null(strstr(buf, "critical"));
	assert_non_null(strstr(buf, "No events in this window."));
	assert_null(strstr(buf, "nan"));
	free(buf);
	gl_report_release(&r);
}

/* Durations by hand: the unit is the largest of which there are 2 (days,
 * h, min) or 1 (s, ms); 3 significant digits below 1000, none above. */
static void test_duration(void **state)
{
	static const struct {
		double s;
		const char *want;
	} c[] = {
		{0, "0 s"},
		{3124224000.0, "36160 days"},	/* 36,160 days */
		{33066000.0, "383 days"},	/* 9,185 h = 382.7 days */
		{604800, "7 days"},
		{172799, "48 h"},		/* 1 s short of 2 days: 47.9997 h */
		{5400, "90 min"},
		{119, "119 s"},
		{0.006192, "6.19 ms"},		/* the 1.72e-06 h of a trends row */
		{1.5e-7, "0.15 \xC2\xB5s"},
		{-30, "-30 s"},
	};
	char buf[40];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(gl_text_duration(c[i].s, buf, sizeof(buf)), c[i].want);
	assert_string_equal(gl_text_duration(NAN, buf, sizeof(buf)), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
