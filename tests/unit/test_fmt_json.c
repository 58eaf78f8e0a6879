/*
 * Tests for lib/ingest/fmt_json.c and json_slow.c: the JSON-lines format.
 *
 * Expected timestamps come from timegm(), a different method than the
 * parser's; expected numbers are the literals of the lines. The
 * differential test runs the fast path and the jansson path on 120k
 * generated and mutated lines and wants the same answer from both.
 * test_bench prints lines/s of both paths (no thresholds).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "ingest/format.h"
#include "ingest/json_scan.h"
#include "ingest/json_slow.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_json;

static struct gl_parse_ctx ctx;
static char *cur;		/* the line last parsed, in a buffer of its exact size */

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
	free(cur);
	cur = NULL;
	return 0;
}

/* Parses line[0..n) as ingest would. rec's strings stay valid until the next call. */
static void parse_n(const char *line, size_t n, struct gl_rec *rec)
{
	free(cur);
	cur = malloc(n ? n : 1);
	assert_non_null(cur);
	memcpy(cur, line, n);
	assert_int_equal(gl_ctx_begin_line(&ctx, n), 0);
	gl_fmt_json.parse(&ctx, cur, n, rec);
}

static void parse(const char *line, struct gl_rec *rec)
{
	parse_n(line, strlen(line), rec);
}

/* Parses line through the jansson path alone. */
static void slow(const char *line, struct gl_rec *rec)
{
	size_t n = strlen(line);

	free(cur);
	cur = malloc(n + 1);
	assert_non_null(cur);
	memcpy(cur, line, n + 1);
	assert_int_equal(gl_ctx_begin_line(&ctx, n), 0);
	gl_json_slow_parse(&ctx, cur, n, 0, NULL, 0, rec);
}

static int64_t utc_us(int y, int mo, int d, int h, int mi, int s, int64_t us)
{
	struct tm tm = {0};

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return (int64_t)timegm(&tm) * 1000000 + us;
}

static void assert_str(struct gl_str s, const char *want)
{
	if (!want) {
		assert_null(s.p);
		return;
	}
	assert_non_null(s.p);
	if (s.len != strlen(want) || memcmp(s.p, want, s.len) != 0)
		fail_msg("got '%.*s' want '%s'", (int)s.len, s.p, want);
}

static void assert_reason(const struct gl_rec *rec, const char *want)
{
	assert_int_equal(rec->kind, GL_REC_REJECT);
	assert_non_null(rec->reason);
	if (strcmp(rec->reason, want) != 0)
		fail_msg("reason '%s', want '%s'", rec->reason, want);
}

static void assert_reason_has(const struct gl_rec *rec, const char *part)
{
	assert_int_equal(rec->kind, GL_REC_REJECT);
	assert_non_null(rec->reason);
	if (!strstr(rec->reason, part))
		fail_msg("reason '%s' lacks '%s'", rec->reason, part);
}

static const char sample[] =
	"{\"timestamp\": \"2025-09-09T14:30:22.123456Z\", \"level\": \"INFO\", \"component\": "
	"\"gpu\", \"message\": \"Kernel force_pass_kernel executed in 512.34\xce\xbcs\", "
	"\"metadata\": {\"batch\": 3, \"device\": \"cuda:0\"}, \"execution_time_ms\": 0.51234, "
	"\"memory_usage_mb\": 1024.5, \"gpu_metrics\": {\"kernel_name\": \"force_pass_kernel\", "
	"\"execution_time_us\": 512.34, \"memory_allocated_mb\": 256.0, \"memory_peak_mb\": 300.5, "
	"\"gpu_utilization_percent\": 85.2, \"error_count\": 0, \"recovery_attempts\": 0, "
	"\"performance_anomaly\": false}}";

static void test_every_field(void **state)
{
	struct gl_rec rec;
	const struct gl_event *ev = &rec.ev;

	(void)state;
	parse(sample, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(ev->ts_us == utc_us(2025, 9, 9, 14, 30, 22, 123456));
	assert_int_equal(ev->level, GL_LEVEL_INFO);
	assert_str(ev->component, "gpu");
	assert_str(ev->message, "Kernel force_pass_kernel executed in 512.34\xce\xbcs");
	assert_str(ev->kernel, "force_pass_kernel");
	assert_str(ev->metadata, "{\"batch\":3,\"device\":\"cuda:0\"}");
	assert_true(ev->dur_us == 512.34);
	assert_true(ev->exec_ms == 0.51234);
	assert_true(ev->mem_mb == 1024.5);
	assert_true(ev->alloc_mb == 256.0);
	assert_true(ev->peak_mb == 300.5);
	assert_true(ev->util_pct == 85.2);
	assert_true(ev->error_count == 0);
	assert_true(ev->recovery_attempts == 0);
	assert_int_equal(ev->anomaly, 0);
	/* strings without escapes are slices of the line itself */
	assert_true(ev->component.p > cur && ev->component.p < cur + strlen(sample));

	parse("{\"gpu_metrics\": {\"error_count\": 7, \"recovery_attempts\": 2.0, "
	      "\"performance_anomaly\": true}}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(ev->error_count == 7);
	assert_true(ev->recovery_attempts == 2);
	assert_int_equal(ev->anomaly, 1);
	parse("{\"gpu_metrics\": {\"performance_anomaly\": 1}}", &rec);
	assert_int_equal(ev->anomaly, 1);
	parse("{\"gpu_metrics\": {\"performance_anomaly\": 0}}", &rec);
	assert_int_equal(ev->anomaly, 0);
	parse("{\"execution_time_ms\": 3, \"memory_usage_mb\": -1.5e2}", &rec);
	assert_true(ev->exec_ms == 3.0);
	assert_true(ev->mem_mb == -150.0);
}

static void assert_all_absent(const struct gl_event *ev)
{
	assert_true(ev->ts_us == GL_TS_NONE);
	assert_int_equal(ev->level, GL_LEVEL_NONE);
	assert_null(ev->component.p);
	assert_null(ev->message.p);
	assert_null(ev->kernel.p);
	assert_null(ev->metadata.p);
	assert_true(isnan(ev->dur_us) && isnan(ev->exec_ms) && isnan(ev->mem_mb));
	assert_true(isnan(ev->alloc_mb) && isnan(ev->peak_mb) && isnan(ev->util_pct));
	assert_true(ev->error_count == -1 && ev->recovery_attempts == -1);
	assert_int_equal(ev->anomaly, -1);
}

static void test_absent_and_null(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"timestamp\": null, \"level\": null, \"component\": null, \"message\": null, "
	      "\"metadata\": null, \"execution_time_ms\": null, \"memory_usage_mb\": null, "
	      "\"gpu_metrics\": null}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_all_absent(&rec.ev);
	parse("{\"gpu_metrics\": {\"kernel_name\": null, \"execution_time_us\": null, "
	      "\"memory_allocated_mb\": null, \"memory_peak_mb\": null, "
	      "\"gpu_utilization_percent\": null, \"error_count\": null, "
	      "\"recovery_attempts\": null, \"performance_anomaly\": null}}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_all_absent(&rec.ev);
	parse("{\"gpu_metrics\": {}}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_all_absent(&rec.ev);
	parse("{\"message\": \"\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.message, "");
	/* metadata that is not an object is kept as its JSON text (D10) */
	parse("{\"message\": \"m\", \"metadata\": [1, 2]}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.metadata, "[1,2]");
	parse("{\"message\": \"m\", \"metadata\": \"text\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.metadata, "\"text\"");
	parse("{\"message\": \"m\", \"metadata\": \"a\\\"b\"}", &rec);
	assert_str(rec.ev.metadata, "\"a\\\"b\"");
	parse("{\"metadata\": 42, \"message\": \"m\"}", &rec);
	assert_str(rec.ev.metadata, "42");
	parse("{\"metadata\": -0.5}", &rec);
	assert_str(rec.ev.metadata, "-0.5");
	parse("{\"metadata\": false}", &rec);
	assert_str(rec.ev.metadata, "false");
	parse("{\"metadata\": [ {\"a\" : 1} , \"x y\" ]}", &rec);
	assert_str(rec.ev.metadata, "[{\"a\":1},\"x y\"]");
	/* null is no metadata */
	parse("{\"metadata\": null}", &rec);
	assert_null(rec.ev.metadata.p);
	/* the jansson path says the same */
	slow("{\"metadata\": [1, \"t\"]}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.metadata, "[1,\"t\"]");
	slow("{\"metadata\": \"a\\\"b\"}", &rec);
	assert_str(rec.ev.metadata, "\"a\\\"b\"");
	slow("{\"metadata\": 7}", &rec);
	assert_str(rec.ev.metadata, "7");
	slow("{\"metadata\": true}", &rec);
	assert_str(rec.ev.metadata, "true");
	slow("{\"metadata\": null}", &rec);
	assert_null(rec.ev.metadata.p);
	parse("{\"metadata\": {}}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.metadata, "{}");
}

static void test_unknown_fields(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"host\": \"n1\", \"message\": \"m\", \"extra\": {\"a\": [1, {\"b\": null}]}, "
	      "\"gpu_metrics\": {\"sm_clock\": 1500, \"kernel_name\": \"k\", \"x\": \"\\u00e9\"}, "
	      "\"z\": 1e300}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.message, "m");
	assert_str(rec.ev.kernel, "k");
	/* a wrongly typed unknown field is no reason to reject */
	parse("{\"message\": \"m\", \"error_count\": \"lots\", \"kernel_name\": 5}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_null(rec.ev.kernel.p);
	assert_true(rec.ev.error_count == -1);
}

static void test_duplicates(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"message\": \"first\", \"message\": \"second\"}", &rec);
	assert_str(rec.ev.message, "second");
	/* the wrongly typed first value is gone, as in jansson */
	parse("{\"level\": 5, \"level\": \"ERROR\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	parse("{\"level\": \"ERROR\", \"level\": 5}", &rec);
	assert_reason(&rec, "level: not a string");
	/* the same key spelled with an escape is the same key */
	parse("{\"message\": \"a\", \"m\\u0065ssage\": \"b\"}", &rec);
	assert_str(rec.ev.message, "b");
	/* the last gpu_metrics object replaces the whole first one */
	parse("{\"gpu_metrics\": {\"kernel_name\": \"a\", \"error_count\": 1}, "
	      "\"gpu_metrics\": {\"execution_time_us\": 3}}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_null(rec.ev.kernel.p);
	assert_true(rec.ev.error_count == -1);
	assert_true(rec.ev.dur_us == 3.0);
	parse("{\"gpu_metrics\": {\"error_count\": 1, \"error_count\": 4}}", &rec);
	assert_true(rec.ev.error_count == 4);
}

static void test_timestamps(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"timestamp\": \"2025-09-09T14:30:22+05:30\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == utc_us(2025, 9, 9, 9, 0, 22, 0));
	parse("{\"timestamp\": \"2025-09-09T14:30:22.123456789Z\"}", &rec);
	assert_true(rec.ev.ts_us == utc_us(2025, 9, 9, 14, 30, 22, 123456));
	parse("{\"timestamp\": \"2025-09-09T14:30:22.5-02:00\"}", &rec);
	assert_true(rec.ev.ts_us == utc_us(2025, 9, 9, 16, 30, 22, 500000));
	parse("{\"timestamp\": \"2025-09-09T14:30:22\"}", &rec);
	assert_true(rec.ev.ts_us == utc_us(2025, 9, 9, 14, 30, 22, 0));
	parse("{\"timestamp\": \"2024-02-29 23:59:59.000001z\"}", &rec);
	assert_true(rec.ev.ts_us == utc_us(2024, 2, 29, 23, 59, 59, 1));
	/* escapes in a timestamp are decoded first */
	parse("{\"timestamp\": \"2025-09-09T14:30:22\\u002E25Z\"}", &rec);
	assert_true(rec.ev.ts_us == utc_us(2025, 9, 9, 14, 30, 22, 250000));

	parse("{\"timestamp\": \"2025-13-09T14:30:22Z\"}", &rec);
	assert_reason(&rec, "timestamp: not an RFC 3339 time");
	parse("{\"timestamp\": \"yesterday\"}", &rec);
	assert_reason(&rec, "timestamp: not an RFC 3339 time");
	parse("{\"timestamp\": \"2025-09-09T14:30:22.1234567890Z\"}", &rec);
	assert_reason(&rec, "timestamp: not an RFC 3339 time");
	parse("{\"timestamp\": 1757428222}", &rec);
	assert_reason(&rec, "timestamp: not a string");
}

static void test_levels(void **state)
{
	static const struct {
		const char *name;
		enum gl_level want;
	} cases[] = {
		{"INFO", GL_LEVEL_INFO}, {"info", GL_LEVEL_INFO}, {"WARN", GL_LEVEL_WARN},
		{"Warning", GL_LEVEL_WARN}, {"ERROR", GL_LEVEL_ERROR}, {"debug", GL_LEVEL_DEBUG},
		{"TRACE", GL_LEVEL_TRACE}, {"critical", GL_LEVEL_CRITICAL},
		{"NOTICE", GL_LEVEL_NONE}, {"", GL_LEVEL_NONE},
	};
	struct gl_rec rec;
	char line[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "{\"level\": \"%s\", \"message\": \"m\"}", cases[i].name);
		parse(line, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		assert_int_equal(rec.ev.level, cases[i].want);
	}
}

static void test_wrong_types(void **state)
{
	static const struct {
		const char *line, *reason;
	} cases[] = {
		{"{\"level\": 3}", "level: not a string"},
		{"{\"level\": [\"INFO\"]}", "level: not a string"},
		{"{\"component\": true}", "component: not a string"},
		{"{\"message\": {\"text\": \"m\"}}", "message: not a string"},
		{"{\"execution_time_ms\": \"0.5\"}", "execution_time_ms: not a number"},
		{"{\"memory_usage_mb\": false}", "memory_usage_mb: not a number"},
		{"{\"gpu_metrics\": [1]}", "gpu_metrics: not an object"},
		{"{\"gpu_metrics\": \"none\"}", "gpu_metrics: not an object"},
		{"{\"gpu_metrics\": {\"kernel_name\": 12}}", "gpu_metrics.kernel_name: not a string"},
		{"{\"gpu_metrics\": {\"execution_time_us\": \"512\"}}",
		 "gpu_metrics.execution_time_us: not a number"},
		{"{\"gpu_metrics\": {\"memory_allocated_mb\": {}}}",
		 "gpu_metrics.memory_allocated_mb: not a number"},
		{"{\"gpu_metrics\": {\"memory_peak_mb\": true}}",
		 "gpu_metrics.memory_peak_mb: not a number"},
		{"{\"gpu_metrics\": {\"gpu_utilization_percent\": \"85%\"}}",
		 "gpu_metrics.gpu_utilization_percent: not a number"},
		{"{\"gpu_metrics\": {\"error_count\": 1.5}}",
		 "gpu_metrics.error_count: not a non-negative integer"},
		{"{\"gpu_metrics\": {\"error_count\": -1}}",
		 "gpu_metrics.error_count: not a non-negative integer"},
		{"{\"gpu_metrics\": {\"error_count\": \"3\"}}",
		 "gpu_metrics.error_count: not a non-negative integer"},
		{"{\"gpu_metrics\": {\"recovery_attempts\": 1e30}}",
		 "gpu_metrics.recovery_attempts: not a non-negative integer"},
		{"{\"gpu_metrics\": {\"performance_anomaly\": 2}}",
		 "gpu_metrics.performance_anomaly: not a boolean (or 0/1)"},
		{"{\"gpu_metrics\": {\"performance_anomaly\": \"false\"}}",
		 "gpu_metrics.performance_anomaly: not a boolean (or 0/1)"},
		/* the first wrong field in the fixed order is the one named */
		{"{\"message\": 1, \"level\": 2}", "level: not a string"},
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(cases[i].line, &rec);
		assert_reason(&rec, cases[i].reason);
	}
}

/* Columns below are counted by hand: jansson's column is the character after the bad token. */
static void test_invalid_json(void **state)
{
	struct gl_rec rec;
	char line[256];

	(void)state;
	parse("{\"message\": \"a\",}", &rec);
	assert_reason(&rec, "invalid JSON: string or '}' expected near '}' at column 17");
	parse("{\"execution_time_ms\": NaN}", &rec);
	assert_reason(&rec, "invalid JSON: invalid token near 'NaN' at column 25 in "
		      "\"execution_time_ms\"");
	parse("{\"memory_usage_mb\": Infinity}", &rec);
	assert_reason_has(&rec, "invalid token near 'Infinity'");
	assert_reason_has(&rec, "\"memory_usage_mb\"");
	parse("{\"memory_usage_mb\": -Infinity}", &rec);
	assert_reason_has(&rec, "\"memory_usage_mb\"");
	/* truncated line */
	parse("{\"message\": \"abc", &rec);
	assert_reason(&rec, "invalid JSON: premature end of input near '\"abc' at column 16 in "
		      "\"message\"");
	parse("{\"message\": \"abc\"", &rec);
	assert_reason(&rec, "invalid JSON: '}' expected near end of file at column 17");
	parse(sample, &rec);
	memcpy(line, sample, 100);
	parse_n(line, 100, &rec);
	assert_reason_has(&rec, "invalid JSON: ");
	/* trailing garbage */
	parse("{\"message\": \"m\"} x", &rec);
	assert_reason(&rec, "invalid JSON: end of file expected near 'x' at column 18");
	/* invalid UTF-8 in a value names the field */
	parse("{\"component\": \"gpu\", \"message\": \"caf\xe9\"}", &rec);
	assert_reason_has(&rec, "invalid JSON: unable to decode byte 0xe9");
	assert_reason_has(&rec, "in \"message\"");
	parse("{\"component\": \"a\\u0000b\"}", &rec);
	assert_reason_has(&rec, "\\u0000 is not allowed");
	assert_reason_has(&rec, "in \"component\"");
	parse("{\"message\": \"\\ud800\"}", &rec);
	assert_reason_has(&rec, "invalid Unicode");
	parse("{\"execution_time_ms\": 1e999}", &rec);
	assert_reason_has(&rec, "real number overflow");
	parse("{\"gpu_metrics\": {\"error_count\": 99999999999999999999}}", &rec);
	assert_reason_has(&rec, "too big integer");
	assert_reason_has(&rec, "in \"gpu_metrics\"");
	/* binary junk after a '{' */
	parse_n("{\x00\x01\x02\xff\xfe\x89PNG", 10, &rec);
	assert_reason_has(&rec, "invalid JSON: ");
	/* a raw NUL byte, which jansson would drop after a number */
	parse_n("{\"message\": \"a\x00" "b\"}", 19, &rec);
	assert_reason(&rec, "invalid JSON: NUL byte at column 15 in \"message\"");
	parse_n("{\"execution_time_ms\": 1\x00}", 26, &rec);
	assert_reason(&rec, "invalid JSON: NUL byte at column 24");
	/* a BOM is one character of the column */
	parse("\xef\xbb\xbf{\"message\": \"a\",}", &rec);
	assert_reason(&rec, "invalid JSON: string or '}' expected near '}' at column 18");
}

static void test_huge_lines(void **state)
{
	size_t n = 1u << 20;
	char *line = malloc(n);
	struct gl_rec rec;
	const char head[] = "{\"level\": \"INFO\", \"message\": \"";

	(void)state;
	assert_non_null(line);
	/* a whole 1 MiB line: its long message is kept */
	memcpy(line, head, sizeof(head) - 1);
	memset(line + sizeof(head) - 1, 'x', n - (sizeof(head) - 1) - 2);
	memcpy(line + n - 2, "\"}", 2);
	parse_n(line, n, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.message.len, n - (sizeof(head) - 1) - 2);
	/* the reader's cut-off at 1 MiB: the object never closes */
	memset(line + n - 2, 'x', 2);
	parse_n(line, n, &rec);
	assert_reason_has(&rec, "invalid JSON: premature end of input");
	/* 1 MiB of escapes decoded into scratch */
	memcpy(line, head, sizeof(head) - 1);
	for (size_t i = sizeof(head) - 1; i + 8 <= n; i += 6)
		memcpy(line + i, "\\u00e9", 6);
	{
		size_t body = (n - (sizeof(head) - 1) - 2) / 6 * 6, end = sizeof(head) - 1 + body;

		memcpy(line + end, "\"}", 2);
		parse_n(line, end + 2, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		assert_int_equal(rec.ev.message.len, body / 6 * 2);
		assert_memory_equal(rec.ev.message.p, "\xc3\xa9\xc3\xa9", 4);
	}
	/* 1 MiB of binary junk */
	for (size_t i = 0; i < n; i++)
		line[i] = (char)(i * 131 + 7);
	line[0] = '{';
	parse_n(line, n, &rec);
	assert_reason_has(&rec, "invalid JSON: ");
	free(line);
}

static void test_foreign(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("2025-09-09 14:30:22 INFO gpu: hello", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("[1, 2]", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("\"just a string\"", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("{}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("{\"type\":\"init\",\"pid\":34936,\"app\":\"Heavy_Stress_App\",\"ts_ns\":191093942715200}",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	/* a known key only inside gpu_metrics-like nesting does not count */
	parse("{\"data\": {\"message\": \"m\", \"level\": \"INFO\"}}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse(" \t ", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	/* a BOM, then blanks, then the object */
	parse("\xef\xbb\xbf  {\"message\": \"m\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.message, "m");
	parse("\xef\xbb\xbfhello", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

/* gpufl's flight-recorder NDJSON is valid JSON of another shape. */
static void test_realdata_gpufl(void **state)
{
	long lines = 0;

	(void)state;
	if (!gl_test_realdata_tree(&gl_fmt_json, &ctx, "gpufl", GL_REC_FOREIGN, &lines))
		skip();
	assert_int_equal(lines, 137);	/* wc -l over the 7 files */
}

static void test_kernel_from_message(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"message\": \"Kernel force_pass_kernel executed in 512.34\xce\xbcs\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.kernel, "force_pass_kernel");
	assert_true(rec.ev.dur_us == 512.34);
	/* the kernel is a slice of the message */
	assert_true(rec.ev.kernel.p > rec.ev.message.p);
	/* an escaped message is decoded first: \u03bc is the mu of "μs" */
	parse("{\"message\": \"Kernel k2 executed in 2.5\\u03bcs\"}", &rec);
	assert_str(rec.ev.kernel, "k2");
	assert_true(rec.ev.dur_us == 2.5);
	/* an explicit kernel_name wins over the message */
	parse("{\"message\": \"Kernel a executed in 5us\", \"gpu_metrics\": {\"kernel_name\": \"b\"}}",
	      &rec);
	assert_str(rec.ev.kernel, "b");
	/* ... and with no execution_time_us, execution_time_ms gives the duration */
	assert_true(isnan(rec.ev.dur_us));
	parse("{\"message\": \"x\", \"execution_time_ms\": 0.25, \"gpu_metrics\": {\"kernel_name\": "
	      "\"b\"}}", &rec);
	assert_true(rec.ev.dur_us == 250.0);
	/* an explicit execution_time_us stays over the message's figure */
	parse("{\"message\": \"Kernel a executed in 5us\", \"gpu_metrics\": "
	      "{\"execution_time_us\": 5.125}}", &rec);
	assert_str(rec.ev.kernel, "a");
	assert_true(rec.ev.dur_us == 5.125);
	/* no kernel anywhere: execution_time_ms is not a kernel duration */
	parse("{\"message\": \"batch done\", \"execution_time_ms\": 3}", &rec);
	assert_null(rec.ev.kernel.p);
	assert_true(isnan(rec.ev.dur_us));
}

static void test_escapes(void **state)
{
	struct gl_rec rec;
	const char *line = "{\"message\": \"tab\\there \\\"q\\\" \\ud83d\\ude00\", \"component\": \"gpu\"}";

	(void)state;
	parse(line, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_str(rec.ev.message, "tab\there \"q\" \xf0\x9f\x98\x80");
	/* the decoded string lives in scratch, not in the line */
	assert_true(rec.ev.message.p < cur || rec.ev.message.p >= cur + strlen(line));
	assert_true(rec.ev.component.p > cur && rec.ev.component.p < cur + strlen(line));
	/* metadata keeps its escapes: it is JSON text */
	parse("{\"metadata\": { \"k\" : \"a\\\"b\\u00e9\" , \"n\" : [ 1 , 2 ] }}", &rec);
	assert_str(rec.ev.metadata, "{\"k\":\"a\\\"b\\u00e9\",\"n\":[1,2]}");
}

/* ---------------------------------------------------------------------
 * The differential test: fast path vs jansson path.
 * ------------------------------------------------------------------- */

struct gen {
	uint64_t s;
	char *buf;
	size_t n, cap;
};

static uint64_t rnd(struct gen *g)
{
	/* xorshift64*: deterministic, seeded below */
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 0x2545F4914F6CDD1DULL;
}

static unsigned pick(struct gen *g, unsigned n)
{
	return (unsigned)(rnd(g) >> 33) % n;
}

static void put_n(struct gen *g, const char *s, size_t n)
{
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->buf = realloc(g->buf, g->cap);
		assert_non_null(g->buf);
	}
	memcpy(g->buf + g->n, s, n);
	g->n += n;
}

static void put(struct gen *g, const char *s)
{
	put_n(g, s, strlen(s));
}

static void putf(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct gen *g, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put_n(g, tmp, (size_t)n);
}

static void gen_ws(struct gen *g)
{
	static const char *const ws[] = {" ", "  ", "\t", " \r\n ", "\n"};

	if (pick(g, 3) == 0)
		put(g, ws[pick(g, 5)]);
}

static void gen_string_body(struct gen *g)
{
	static const char *const esc[] = {"\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r"};
	static const char *const raw[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xce\xbc",
					  "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf"};
	unsigned pieces = pick(g, 8);

	for (unsigned k = 0; k < pieces; k++) {
		switch (pick(g, 8)) {
		case 0:
			put(g, esc[pick(g, 8)]);
			break;
		case 1: {
			static const unsigned lo[] = {0x01, 0x20, 0x80, 0x800, 0xE000};
			static const unsigned hi[] = {0x1f, 0x7e, 0x7ff, 0xd7ff, 0xffff};
			unsigned r = pick(g, 5);
			unsigned cp = lo[r] + pick(g, hi[r] - lo[r] + 1);

			putf(g, pick(g, 2) ? "\\u%04x" : "\\u%04X", cp);
			break;
		}
		case 2:
			unsigned hi = 0xD800 + pick(g, 0x400), lo = 0xDC00 + pick(g, 0x400);

			putf(g, "\\u%04x\\u%04x", hi, lo);
			break;
		case 3:
			put(g, raw[pick(g, 6)]);
			break;
		case 4:
			unsigned kn = pick(g, 50), whole = pick(g, 1000), frac = pick(g, 100);

			putf(g, "Kernel k%u executed in %u.%u%s", kn, whole, frac,
			     pick(g, 2) ? "\xce\xbcs" : "ms");
			break;
		default: {
			char w[8];
			unsigned len = 1 + pick(g, 6);

			for (unsigned j = 0; j < len; j++)
				w[j] = (char)(pick(g, 3) ? 'a' + pick(g, 26) : ' ' + pick(g, 95));
			for (unsigned j = 0; j < len; j++)
				if (w[j] == '"' || w[j] == '\\')
					w[j] = '_';
			put_n(g, w, len);
		}
		}
	}
}

static void gen_string(struct gen *g)
{
	put(g, "\"");
	gen_string_body(g);
	put(g, "\"");
}

static void gen_number(struct gen *g)
{
	unsigned a, b, c;
	int neg;
	char e;
	const char *sign;
	double x;

	static const char *const fixed[] = {
		"0", "-0", "0.0", "-0.0", "1e-400", "4.9e-324", "1.7976931348623157e308",
		"9223372036854775807", "-9223372036854775808", "1E+2", "2.5e-3",
		"12345678901234567890123e-5", "0.1", "100000000000000000000000.0", "1e22", "1e23",
		"179769313486231570000e288", "9007199254740993",
	};

	switch (pick(g, 6)) {
	case 0:
		put(g, fixed[pick(g, sizeof(fixed) / sizeof(fixed[0]))]);
		break;
	case 1:
		putf(g, "%d", (int)pick(g, 2000) - 1000);
		break;
	case 2:
		neg = pick(g, 4) == 0;
		a = pick(g, 100000);
		b = 1 + pick(g, 6);
		c = pick(g, 100000);
		putf(g, "%s%u.%0*u", neg ? "-" : "", a, (int)b, c);
		break;
	case 3:
		a = pick(g, 10);
		b = pick(g, 1000);
		e = pick(g, 2) ? 'e' : 'E';
		sign = pick(g, 3) == 0 ? "-" : pick(g, 2) ? "+" : "";
		c = pick(g, 40);
		putf(g, "%u.%u%c%s%u", a, b, e, sign, c);
		break;
	case 4:
		a = pick(g, 64);
		putf(g, "%llu", (unsigned long long)(rnd(g) >> a));
		break;
	default:
		x = (double)(rnd(g) >> 11);
		putf(g, "%.17g", x / (double)(1 + (rnd(g) >> 40)));
		break;
	}
}

static void gen_value(struct gen *g, int depth)
{
	unsigned r = pick(g, depth < 4 ? 9 : 6);

	switch (r) {
	case 0:
		put(g, "null");
		break;
	case 1:
		put(g, pick(g, 2) ? "true" : "false");
		break;
	case 2:
	case 3:
		gen_number(g);
		break;
	case 4:
	case 5:
		gen_string(g);
		break;
	case 6:
	case 7: {
		unsigned n = pick(g, 4);

		put(g, "{");
		gen_ws(g);
		for (unsigned k = 0; k < n; k++) {
			if (k) {
				put(g, ",");
				gen_ws(g);
			}
			gen_string(g);
			gen_ws(g);
			put(g, ":");
			gen_ws(g);
			gen_value(g, depth + 1);
			gen_ws(g);
		}
		put(g, "}");
		break;
	}
	default: {
		unsigned n = pick(g, 4);

		put(g, "[");
		gen_ws(g);
		for (unsigned k = 0; k < n; k++) {
			if (k) {
				put(g, ",");
				gen_ws(g);
			}
			gen_value(g, depth + 1);
			gen_ws(g);
		}
		put(g, "]");
	}
	}
}

static void gen_timestamp(struct gen *g)
{
	static const char *const zone[] = {"Z", "z", "+05:30", "-08:00", "", "+0100", "+5:30", "Q"};

	unsigned v[7];

	/* one draw per statement: argument order is unspecified in C */
	v[0] = 1990 + pick(g, 60);
	v[1] = 1 + pick(g, 13);
	v[2] = 1 + pick(g, 31);
	v[3] = pick(g, 8) ? 'T' : ' ';
	v[4] = pick(g, 25);
	v[5] = pick(g, 60);
	v[6] = pick(g, 61);
	putf(g, "\"%04u-%02u-%02u%c%02u:%02u:%02u", v[0], v[1], v[2], (char)v[3], v[4], v[5], v[6]);
	if (pick(g, 2)) {
		unsigned nd = pick(g, 11);

		put(g, ".");
		for (unsigned k = 0; k < nd; k++)
			putf(g, "%u", pick(g, 10));
	}
	put(g, zone[pick(g, 8)]);
	put(g, "\"");
}

static void gen_key(struct gen *g, int id)
{
	const char *k = gl_json_field_key(id);

	if (pick(g, 20) == 0) {
		/* the same key with its first letter escaped */
		putf(g, "\"\\u%04x%s\"", (unsigned)k[0], k + 1);
		return;
	}
	putf(g, "\"%s\"", k);
}

static void gen_field_value(struct gen *g, int id)
{
	static const char *const levels[] = {"INFO", "warn", "WARNING", "Error", "DEBUG", "trace",
					     "CRITICAL", "NOTICE"};
	unsigned r = pick(g, 10);

	if (r == 0) {
		put(g, "null");
		return;
	}
	if (r == 1) {
		gen_value(g, 2);
		return;
	}
	switch (id) {
	case GL_JF_TIMESTAMP:
		gen_timestamp(g);
		break;
	case GL_JF_LEVEL:
		putf(g, "\"%s\"", levels[pick(g, 8)]);
		break;
	case GL_JF_COMPONENT:
	case GL_JF_MESSAGE:
	case GL_JF_KERNEL_NAME:
		gen_string(g);
		break;
	case GL_JF_METADATA:
		put(g, "{\"batch\": ");
		gen_number(g);
		put(g, ", \"x\": ");
		gen_value(g, 3);
		put(g, "}");
		break;
	case GL_JF_ERROR_COUNT:
	case GL_JF_RECOVERY:
		r = pick(g, 4);
		putf(g, r ? "%u" : "%u.0", pick(g, 20));
		break;
	case GL_JF_ANOMALY:
		put(g, pick(g, 3) == 0 ? (pick(g, 2) ? "1" : "0") : pick(g, 2) ? "true" : "false");
		break;
	case GL_JF_GPU_METRICS: {
		int first = 1;

		put(g, "{");
		gen_ws(g);
		for (int k = GL_JF_FIRST_GPU; k < GL_JF_COUNT; k++) {
			unsigned times = pick(g, 3) ? 1 : pick(g, 3);

			for (unsigned t = 0; t < times; t++) {
				if (!first) {
					put(g, ",");
					gen_ws(g);
				}
				first = 0;
				gen_key(g, k);
				gen_ws(g);
				put(g, ":");
				gen_ws(g);
				gen_field_value(g, k);
			}
		}
		put(g, "}");
		break;
	}
	default:
		gen_number(g);
	}
}

/* One line of the service's shape, with random types, order, duplicates, unknown keys. */
static void gen_record(struct gen *g)
{
	int order[GL_JF_FIRST_GPU + 3];
	int n = 0, first = 1, foreign = pick(g, 20) == 0;

	g->n = 0;
	if (pick(g, 10) == 0)
		gen_ws(g);
	for (int id = 0; id < GL_JF_FIRST_GPU && !foreign; id++)
		if (pick(g, 10) < 7)
			order[n++] = id;
	for (int k = pick(g, 4); k > 0; k--)
		order[n++] = -1;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)pick(g, (unsigned)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	put(g, "{");
	for (int i = 0; i < n; i++) {
		unsigned times = pick(g, 12) ? 1 : 2;

		for (unsigned t = 0; t < times; t++) {
			if (!first)
				put(g, ",");
			first = 0;
			gen_ws(g);
			if (order[i] < 0) {
				gen_string(g);
				put(g, ":");
				gen_value(g, 2);
				continue;
			}
			gen_key(g, order[i]);
			gen_ws(g);
			put(g, ":");
			gen_ws(g);
			gen_field_value(g, order[i]);
		}
	}
	gen_ws(g);
	put(g, "}");
	if (pick(g, 10) == 0)
		gen_ws(g);
}

/* Byte-level damage: what a torn write, a bad encoder or a bit flip leaves. */
static void mutate(struct gen *g)
{
	static const char interesting[] = "\"\\{}[],:0123456789eE.-+ nultrfaNI\x00\x01\x1f\x7f"
					  "\x80\xbf\xc0\xc3\xe2\xed\xf0\xf4\xff u";
	unsigned ops = 1 + pick(g, 3);

	for (unsigned k = 0; k < ops && g->n > 0; k++) {
		size_t at = pick(g, (unsigned)g->n);
		char c = interesting[pick(g, sizeof(interesting) - 1)];

		switch (pick(g, 5)) {
		case 0:		/* delete a byte */
			memmove(g->buf + at, g->buf + at + 1, g->n - at - 1);
			g->n--;
			break;
		case 1:		/* insert a byte */
			put_n(g, &c, 1);
			memmove(g->buf + at + 1, g->buf + at, g->n - at - 1);
			g->buf[at] = c;
			break;
		case 2:		/* replace a byte */
			g->buf[at] = c;
			break;
		case 3:		/* truncate */
			g->n = at;
			break;
		default:	/* flip a bit */
			g->buf[at] ^= (char)(1u << pick(g, 8));
		}
	}
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static int same_str(struct gl_str a, struct gl_str b)
{
	if (!a.p || !b.p)
		return !a.p && !b.p;
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* Metadata texts mean the same JSON value (jansson reads both). */
static int same_json(struct gl_str a, struct gl_str b)
{
	json_t *ja, *jb;
	int eq;

	if (!a.p || !b.p)
		return !a.p && !b.p;
	if (a.len == b.len && memcmp(a.p, b.p, a.len) == 0)
		return 1;
	ja = json_loadb(a.p, a.len, JSON_DECODE_ANY, NULL);
	jb = json_loadb(b.p, b.len, JSON_DECODE_ANY, NULL);
	eq = ja && jb && json_equal(ja, jb);
	json_decref(ja);
	json_decref(jb);
	return eq;
}

/* Returns NULL when both records say the same, else what differs. */
static const char *rec_diff(const struct gl_rec *a, const struct gl_rec *b)
{
	const struct gl_event *x = &a->ev, *y = &b->ev;

	if (a->kind != b->kind)
		return "kind";
	if (a->kind != GL_REC_EVENT)
		return NULL;
	if (x->ts_us != y->ts_us)
		return "ts_us";
	if (x->level != y->level)
		return "level";
	if (!same_str(x->component, y->component))
		return "component";
	if (!same_str(x->message, y->message))
		return "message";
	if (!same_str(x->kernel, y->kernel))
		return "kernel";
	if (!same_json(x->metadata, y->metadata))
		return "metadata";
	if (!same_double(x->dur_us, y->dur_us) || !same_double(x->exec_ms, y->exec_ms) ||
	    !same_double(x->mem_mb, y->mem_mb) || !same_double(x->alloc_mb, y->alloc_mb) ||
	    !same_double(x->peak_mb, y->peak_mb) || !same_double(x->util_pct, y->util_pct))
		return "a number";
	if (x->error_count != y->error_count || x->recovery_attempts != y->recovery_attempts ||
	    x->anomaly != y->anomaly)
		return "a count";
	return NULL;
}

static void print_line(const char *what, const char *p, size_t n)
{
	fprintf(stderr, "%s: \"", what);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	fprintf(stderr, "\"\n");
}

struct diff_stats {
	long compared, fast_ok, deferred, events, rejects, foreign;
};

static void diff_one(const char *line, size_t n, struct gl_parse_ctx *cf, struct gl_parse_ctx *cs,
		     struct gl_parse_ctx *cc, struct diff_stats *st)
{
	struct gl_rec rf, rs, rc;
	const char *why = NULL, *field, *d;
	size_t flen, i = 0;
	int fast;

	while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
		i++;
	if (i == n || line[i] != '{')
		return;
	st->compared++;
	assert_int_equal(gl_ctx_begin_line(cf, n), 0);
	assert_int_equal(gl_ctx_begin_line(cs, n), 0);
	assert_int_equal(gl_ctx_begin_line(cc, n), 0);
	fast = gl_json_fast_parse(cf, line, n, &rf, &why, &field, &flen);
	gl_json_slow_parse(cs, line, n, 0, NULL, 0, &rs);
	gl_fmt_json.parse(cc, line, n, &rc);
	if (fast < 0) {
		st->deferred++;
		/* The scanner refused it: jansson must refuse it as well. */
		if (rs.kind != GL_REC_REJECT || strncmp(rs.reason, "invalid JSON:", 13) != 0) {
			print_line("line", line, n);
			fail_msg("fast path refused (%s), jansson says kind %d", why, rs.kind);
		}
	} else {
		st->fast_ok++;
		d = rec_diff(&rf, &rs);
		if (!d && rf.kind == GL_REC_REJECT && strcmp(rf.reason, rs.reason) != 0)
			d = "reason";
		if (d) {
			print_line("line", line, n);
			fprintf(stderr, "fast: kind %d reason %s; jansson: kind %d reason %s\n", rf.kind,
				rf.reason ? rf.reason : "-", rs.kind, rs.reason ? rs.reason : "-");
			fail_msg("fast path and jansson differ in %s", d);
		}
	}
	/* What ingest sees is jansson's answer in every case. */
	d = rec_diff(&rc, &rs);
	if (d) {
		print_line("line", line, n);
		fail_msg("gl_fmt_json and jansson differ in %s", d);
	}
	st->events += rs.kind == GL_REC_EVENT;
	st->rejects += rs.kind == GL_REC_REJECT;
	st->foreign += rs.kind == GL_REC_FOREIGN;
}

static void test_differential(void **state)
{
	static const char *const edge[] = {
		"{}", "{\"message\":\"m\"}", "{\"message\":\"m\"", "{\"message\":\"m\"}}",
		"{\"message\":\"\\u0000\"}", "{\"message\":\"\\ud800\\udc00\"}",
		"{\"message\":\"\\udc00\\ud800\"}", "{\"a\":[[[[[[]]]]]],\"level\":\"x\"}",
		"{\"execution_time_ms\":1e308,\"memory_usage_mb\":-1e-308}",
		"{\"execution_time_ms\":1.8e308}", "{\"execution_time_ms\":-0}",
		"{\"gpu_metrics\":{\"error_count\":9223372036854775807}}",
		"{\"gpu_metrics\":{\"error_count\":9.2e18}}",
		"{\"gpu_metrics\":{\"error_count\":-0.0}}",
		"{\"level\":\"INFO\"} ", " {\"level\":\"INFO\"}", "{\"level\":\"INFO\"}\r",
		"{\"\":1,\"message\":\"m\"}", "{\"metadata\":{\"a\":{\"b\":[1,2,{\"c\":null}]}}}",
		"{\"metadata\":{\"a\":1,\"a\":2}}", sample,
	};
	struct gl_parse_ctx cf, cs, cc;
	struct gen g = {0x243F6A8885A308D3ULL, NULL, 0, 0};
	struct diff_stats st = {0};

	(void)state;
	gl_parse_ctx_init(&cf);
	gl_parse_ctx_init(&cs);
	gl_parse_ctx_init(&cc);
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		diff_one(edge[i], strlen(edge[i]), &cf, &cs, &cc, &st);
	for (long k = 0; k < 120000; k++) {
		gen_record(&g);
		if (k % 2)
			mutate(&g);
		diff_one(g.buf, g.n, &cf, &cs, &cc, &st);
	}
	/* every kind of answer is well represented */
	assert_true(st.compared >= 100000);
	assert_true(st.fast_ok > 50000);
	assert_true(st.deferred > 20000);
	assert_true(st.events > 20000);
	assert_true(st.rejects > 20000);
	assert_true(st.foreign > 100);
	print_message("differential: %ld lines, fast path decided %ld, deferred %ld; "
		      "%ld events, %ld rejects, %ld foreign\n",
		      st.compared, st.fast_ok, st.deferred, st.events, st.rejects, st.foreign);
	free(g.buf);
	gl_parse_ctx_release(&cf);
	gl_parse_ctx_release(&cs);
	gl_parse_ctx_release(&cc);
}

/* ---------------------------------------------------------------------
 * Throughput, printed only.
 * ------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each known key finds its own id, among the top-level or the gpu_metrics keys only. */
static void test_field_table(void **state)
{
	(void)state;
	for (int id = 0; id < GL_JF_COUNT; id++) {
		const char *k = gl_json_field_key(id);
		int gpu = id >= GL_JF_FIRST_GPU;

		assert_int_equal(gl_json_field_lookup(k, strlen(k), gpu), id);
		assert_int_equal(gl_json_field_lookup(k, strlen(k), !gpu), -1);
		assert_int_equal(gl_json_field_lookup(k, strlen(k) - 1, gpu), -1);
	}
	assert_int_equal(gl_json_field_lookup("Message", 7, 0), -1);
}

/* The lookup by a plain compare with every key of the group. */
static int lookup_ref(const char *key, size_t len, int gpu)
{
	for (int id = gpu ? GL_JF_FIRST_GPU : 0; id < (gpu ? GL_JF_COUNT : GL_JF_FIRST_GPU); id++) {
		const char *k = gl_json_field_key(id);

		if (strlen(k) == len && memcmp(k, key, len) == 0)
			return id;
	}
	return -1;
}

/* key[0..len) copied to a block of exactly len bytes (ASan sees any read past it). */
static int lookup_exact(const char *key, size_t len, int gpu)
{
	char *p = malloc(len ? len : 1);
	int id;

	assert_non_null(p);
	memcpy(p, key, len);
	id = gl_json_field_lookup(p, len, gpu);
	free(p);
	return id;
}

/*
 * Every key, each of its prefixes, each one-byte change of it (every
 * position, several new bytes), each key with a byte added, and strings
 * of every length to 40: the lookup answers what a plain compare does.
 */
static void test_field_lookup_all(void **state)
{
	static const unsigned char flips[] = {0x01, 0x02, 0x20, 0x40, 0x80, 0xff};
	char buf[64];

	(void)state;
	for (int id = 0; id < GL_JF_COUNT; id++) {
		const char *k = gl_json_field_key(id);
		size_t n = strlen(k);

		for (int gpu = 0; gpu < 2; gpu++) {
			for (size_t len = 0; len <= n; len++)
				assert_int_equal(lookup_exact(k, len, gpu), lookup_ref(k, len, gpu));
			for (size_t i = 0; i < n; i++)
				for (size_t f = 0; f < sizeof(flips); f++) {
					memcpy(buf, k, n);
					buf[i] = (char)(buf[i] ^ flips[f]);
					assert_int_equal(lookup_exact(buf, n, gpu), -1);
					assert_int_equal(lookup_ref(buf, n, gpu), -1);
				}
			memcpy(buf, k, n);
			buf[n] = 's';
			assert_int_equal(lookup_exact(buf, n + 1, gpu), lookup_ref(buf, n + 1, gpu));
		}
	}
	for (size_t len = 0; len <= 40; len++) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)('a' + (i * 7 + len) % 26);
		for (int gpu = 0; gpu < 2; gpu++)
			assert_int_equal(lookup_exact(buf, len, gpu), lookup_ref(buf, len, gpu));
	}
}

static void test_bench(void **state)
{
	enum { NLINES = 4096 };
	struct gen g = {0x9E3779B97F4A7C15ULL, NULL, 0, 0};
	char **lines = calloc(NLINES, sizeof(*lines));
	size_t *lens = calloc(NLINES, sizeof(*lens)), bytes = 0;
	struct gl_parse_ctx c;
	struct gl_rec rec;
	double t0, fast_s, slow_s;
	long passes_fast = 0, passes_slow = 0;

	(void)state;
	assert_true(lines && lens);
	gl_parse_ctx_init(&c);
	for (int i = 0; i < NLINES; i++) {
		/* one draw per statement: argument order is unspecified in C */
		static const unsigned mod[19] = {28, 24, 60, 60, 1000000, 8, 40, 2000, 100, 100, 8,
						 100000, 8192, 10, 2000, 100, 4096, 4096, 100};
		unsigned r[19];

		for (int k = 0; k < 19; k++)
			r[k] = pick(&g, mod[k]);
		g.n = 0;
		putf(&g, "{\"timestamp\": \"2025-09-%02uT%02u:%02u:%02u.%06uZ\", \"level\": \"%s\", "
			 "\"component\": \"gpu\", ", 1 + r[0], r[1], r[2], r[3], r[4],
		     r[5] ? "INFO" : "WARN");
		putf(&g, "\"message\": \"Kernel kernel_%u executed in %u.%02u\xce\xbcs\", ", r[6], r[7],
		     r[8]);
		putf(&g, "\"metadata\": {\"batch\": %u, \"device\": \"cuda:%u\"}, ", r[9], r[10]);
		putf(&g, "\"execution_time_ms\": 0.%05u, \"memory_usage_mb\": %u.%u, ", r[11], r[12],
		     r[13]);
		putf(&g, "\"gpu_metrics\": {\"kernel_name\": \"kernel_%u\", \"execution_time_us\": "
			 "%u.%02u, ", r[6], r[14], r[15]);
		putf(&g, "\"memory_allocated_mb\": %u.0, \"memory_peak_mb\": %u.5, "
			 "\"gpu_utilization_percent\": %u.%u, ", r[16], r[17], r[18], r[13]);
		putf(&g, "\"error_count\": %u, \"recovery_attempts\": %u, \"performance_anomaly\": %s}}",
		     r[10] % 2, r[9] % 2, r[5] == 7 ? "true" : "false");
		lines[i] = malloc(g.n);
		assert_non_null(lines[i]);
		memcpy(lines[i], g.buf, g.n);
		lens[i] = g.n;
		bytes += g.n;
	}
	t0 = now_s();
	do {
		for (int i = 0; i < NLINES; i++) {
			assert_int_equal(gl_ctx_begin_line(&c, lens[i]), 0);
			gl_fmt_json.parse(&c, lines[i], lens[i], &rec);
			assert_int_equal(rec.kind, GL_REC_EVENT);
		}
		passes_fast++;
	} while ((fast_s = now_s() - t0) < 0.5);
	t0 = now_s();
	do {
		for (int i = 0; i < NLINES; i++) {
			assert_int_equal(gl_ctx_begin_line(&c, lens[i]), 0);
			gl_json_slow_parse(&c, lines[i], lens[i], 0, NULL, 0, &rec);
			assert_int_equal(rec.kind, GL_REC_EVENT);
		}
		passes_slow++;
	} while ((slow_s = now_s() - t0) < 0.5);
	print_message("bench: %zu-byte lines on average; fast path %.0f lines/s (%.0f MB/s), "
		      "jansson path %.0f lines/s\n", bytes / NLINES,
		      (double)passes_fast * NLINES / fast_s,
		      (double)passes_fast * (double)bytes / fast_s / 1e6,
		      (double)passes_slow * NLINES / slow_s);
	for (int i = 0; i < NLINES; i++)
		free(lines[i]);
	free(lines);
	free(lens);
	free(g.buf);
	gl_parse_ctx_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_gpufl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_from_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_field_lookup_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_differential, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bench, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
