/*
 * test_emit_csv.c - reports/emit_csv.c: RFC 4180 quoting of names with
 * commas, quotes and unicode, defused formula cells, empty cells for
 * undefined numbers, one file per section, replacement of old files.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../reports/report.h"
#include "../../reports/sec_errors.h"
#include "../../reports/sec_kernels.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sections.h"
#include "util/timeutil.h"

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = calloc(1, 65536);

	assert_non_null(fp);
	fread(buf, 1, 65535, fp);
	fclose(fp);
	return buf;
}

static void test_csv(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_emit_csv.XXXXXX", path[128];
	struct gl_report_kernel k[2] = {
		{.kernel = "gemm<float, \"T\">, µ", .count = 1, .min_us = 5, .max_us = 5,
		 .mean_us = 5, .stddev_us = NAN, .p50_us = 5, .p90_us = 5, .p95_us = 5,
		 .p99_us = 5, .total_us = 5, .mean_mem_mib = NAN},
		{.kernel = "=cmd|' /C calc'!A0", .count = 2, .min_us = -1.5, .max_us = 2,
		 .mean_us = 0.25, .stddev_us = 0, .p50_us = 0.25, .p90_us = 1, .p95_us = 1,
		 .p99_us = 2, .total_us = 0.5, .mean_mem_mib = 3},
	};
	struct gl_report r = {.generator = "gpulog-report", .version = GL_VERSION, .top = 20};
	const size_t n_k = 2;
	struct gl_output out = {0};
	struct gl_err err;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	/* an older file of the same name is replaced */
	snprintf(path, sizeof(path), "%s/kernels.csv", dir);
	fp = fopen(path, "w");
	fputs("old content\n", fp);
	fclose(fp);
	out.dir = dir;
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
	assert_int_equal(gl_emit_csv(&r, &out, &err), GL_OK);
	assert_int_equal(out.n_paths, 16);
	char *s = slurp(path);
	assert_string_equal(s,
		"kernel,count,min_us,max_us,mean_us,stddev_us,p50_us,p90_us,p95_us,p99_us,"
		"total_us,anomalies,flagged_anomalies,mean_mem_mib,launch_overhead_us,queue_us,"
		"occupancy,device,source,hot_stack,hot_scope,hot_count\r\n"
		"\"gemm<float, \"\"T\"\">, µ\",1,5,5,5,,5,5,5,5,5,0,0,,,,,,,,,\r\n"
		"\"'=cmd|' /C calc'!A0\",2,-1.5,2,0.25,0,0.25,1,1,2,0.5,0,0,3,,,,,,,,\r\n");
	free(s);
	const char *names[] = {"summary", "operations", "trends", "anomalies", "memory", "errors",
			       "metrics", "inference", "scopes", "training", "gpu_health", "devices",
			       "alerts", "baseline", "findings"};
	for (size_t i = 0; i < 15; i++) {
		snprintf(path, sizeof(path), "%s/%s.csv", dir, names[i]);
		s = slurp(path);
		assert_true(strchr(s, '\n') != NULL);	/* a header row at least */
		assert_null(strstr(s, "nan"));
		free(s);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/kernels.csv", dir);
	unlink(path);
	gl_output_release(&out);
	assert_int_equal(rmdir(dir), 0);	/* no temporary file left */

	/* csv needs a directory */
	struct gl_output none = {.fp = stdout};
	assert_int_equal(gl_emit_csv(&r, &none, &err), GL_EUSAGE);
	gl_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
