/*
 * Tests for lib/ingest/format.c: the format registry, detection from the
 * first lines of a file, the parse context's scratch space and time-of-day
 * rule, and gl_event_init.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "ingest/format.h"

#define MAXLINES 64

struct lines {
	struct gl_str v[MAXLINES];
	size_t n;
};

/* Splits text into lines the way the reader hands them over: no '\n', no trailing '\r'. */
static void split(const char *text, size_t len, struct lines *l)
{
	size_t start = 0;

	l->n = 0;
	for (size_t i = 0; i <= len && l->n < MAXLINES; i++) {
		if (i == len && start == len)
			break;
		if (i == len || text[i] == '\n') {
			size_t n = i - start;

			if (n && text[start + n - 1] == '\r')
				n--;
			l->v[l->n].p = text + start;
			l->v[l->n].len = n;
			l->n++;
			start = i + 1;
		}
	}
}

static const struct gl_format *detect(const char *text, size_t len, const char **why)
{
	struct lines l;

	split(text, len, &l);
	*why = "unset";
	return gl_format_detect(l.v, l.n, why);
}

static void expect_format(const char *text, const char *name)
{
	const char *why;
	const struct gl_format *f = detect(text, strlen(text), &why);

	if (!f)
		fail_msg("no format (%s), want %s", why ? why : "(null)", name);
	assert_string_equal(f->name, name);
}

/* No format; the reason is why_prefix exactly, or starts with it when it ends in "not". */
static void expect_none(const char *text, size_t len, const char *why_prefix)
{
	size_t plen = strlen(why_prefix);
	int prefix = plen >= 3 && strcmp(why_prefix + plen - 3, "not") == 0;
	const char *why = NULL;
	const struct gl_format *f = detect(text, len, &why);

	if (f)
		fail_msg("detected %s, want none", f->name);
	assert_non_null(why);
	if (prefix ? strncmp(why, why_prefix, plen) != 0 : strcmp(why, why_prefix) != 0)
		fail_msg("reason '%s', want '%s...'", why, why_prefix);
}

static const char json_lines[] =
	"{\"timestamp\": \"2025-11-14T00:03:14.100025Z\", \"level\": \"INFO\", \"component\": \"gpu\", "
	"\"message\": \"Kernel force_pass_kernel executed in 620.16\xce\xbcs\", \"metadata\": {\"device\": 0}, "
	"\"execution_time_ms\": 0.62016, \"memory_usage_mb\": 2520.5, \"gpu_metrics\": {\"kernel_name\": "
	"\"force_pass_kernel\", \"execution_time_us\": 620.16, \"error_count\": 0, \"performance_anomaly\": false}}\n"
	"{\"timestamp\": \"2025-11-09T00:35:33.323365Z\", \"level\": \"INFO\", \"component\": \"server\", "
	"\"message\": \"GET /api/v1/analyze 200 9.8 ms\", \"metadata\": {\"route\": \"/api/v1/analyze\"}, "
	"\"execution_time_ms\": 9.8}\n"
	"{\"timestamp\": \"2025-11-05T06:38:14.679502Z\", \"level\": \"WARNING\", \"component\": \"gpu\", "
	"\"message\": \"ECC error detected on GPU 0 (single-bit, corrected)\", \"memory_usage_mb\": 1091.5}\n";

static const char pylog_lines[] =
	"2025-11-06 00:45:06,618 - performance_monitor - INFO - cpu_usage (22.36) within threshold\n"
	"2025-11-06 00:57:20,215 - performance_monitor - INFO - cpu_usage (73.86) within threshold\n"
	"2025-11-06 01:23:09,084 - gpu_profiler - INFO - Kernel reduce_sum_kernel executed in 1176.55\xc2\xb5s\n"
	"2025-11-06 01:46:15,794 - performance_monitor - WARNING - cpu_usage (86.75) exceeds threshold (85.00)\n";

static const char envlog_lines[] =
	"[2025-11-15T00:18:52.599Z INFO  webxr::utils::logging] Logging initialized\n"
	"[2025-11-15T00:23:44.144Z DEBUG webxr::render::gpu] Kernel shade_tiles executed in 1.664ms\n"
	"[2025-11-15T00:30:25.324Z DEBUG webxr::render::gpu] Kernel cull_meshes executed in 303.7us\n"
	"[2025-11-15T00:34:56.228Z INFO  webxr::session] frame 1003 presented\n";

static const char rmmcsv_lines[] =
	"Thread,Time,Action,Pointer,Size,Stream\n"
	"48211,09:12:19.950313,allocate,0x7f3a2c000000,1024,0x55d0c1a3e2f0\n"
	"48219,09:13:05.631147,allocate,0x7f3a2c001000,8388608,0x0\n"
	"48220,09:13:30.825859,free,0x7f3a2c001000,8388608,0x0\n";

static const char rmmlog_lines[] =
	"[ 48211][09:12:03:249871][info  ] ----- RMM LOG BEGIN [PTDS DISABLED] -----\n"
	"[ 48211][09:13:24:118204][error ] [A][Stream 0x55d0c1a3e2f0][Upstream 34359738368B]"
	"[FAILURE maximum pool size exceeded]\n"
	"[ 48219][11:40:02:553017][error ] [A][Stream 0x1][Upstream 17179869184B]"
	"[FAILURE maximum pool size exceeded]\n";

static void test_detect_each_format(void **state)
{
	(void)state;
	expect_format(json_lines, "json");
	expect_format(pylog_lines, "pylog");
	expect_format(envlog_lines, "envlog");
	expect_format(rmmcsv_lines, "rmmcsv");
	expect_format(rmmlog_lines, "rmmlog");
	/* CRLF line ends are the same file */
	expect_format("2025-11-06 00:45:06,618 - m - INFO - a\r\n"
		      "2025-11-06 00:45:07,618 - m - INFO - b\r\n", "pylog");
	/* a detected format leaves why alone or NULL: no reason for a success */
	const char *why = "unset";
	struct lines l;

	split(json_lines, strlen(json_lines), &l);
	assert_non_null(gl_format_detect(l.v, l.n, &why));
}

static void test_detect_binary(void **state)
{
	/* mostly NUL and control bytes: binary; a few NULs in a log: still that log */
	static const char nul[] = "\0\0\0\0\0\0\0\0{\"a\":1}\0\0\0\0\0\0\0\0\n\0\0\0\0\0\0";
	static const char some_nul[] = "{\"level\": \"INFO\"}\n{\"level\": \"WARN\"}\n{\"le\0\0\n";
	static const char elf[] = "\x7f" "ELF\x02\x01\x01";
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
	static const char ctl[] = "\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0e\x0f\x10\x11\x12" "abc";

	(void)state;
	expect_none(nul, sizeof(nul) - 1, "binary data (NUL bytes)");
	expect_none(elf, sizeof(elf) - 1, "an ELF binary");
	{
		const char *why = NULL;
		const struct gl_format *f = detect(some_nul, sizeof(some_nul) - 1, &why);

		assert_non_null(f);
		assert_string_equal(f->name, "json");
	}
	expect_none(png, sizeof(png) - 1, "a PNG image");
	expect_none(ctl, sizeof(ctl) - 1, "binary data");
	/* D3: a copytruncate hole (4,000 NULs) before the first line, or one
	 * JSON line before a long junk line, is no binary file */
	{
		static char hole[4096];
		static const char line1[] = "{\"level\": \"INFO\", \"message\": \"m\"}\n";
		char junk[4096];

		memset(hole, 0, 4000);
		memcpy(hole + 4000, line1, sizeof(line1) - 1);
		assert_null(gl_format_sniff(hole, 4000 + sizeof(line1) - 1));
		assert_null(gl_format_sniff(hole, 4000));
		memcpy(junk, line1, sizeof(line1) - 1);
		for (size_t i = sizeof(line1) - 1; i < sizeof(junk); i++)
			junk[i] = (char)(i * 131 % 251 + 1);	/* many control bytes, no '\n' */
		for (size_t i = sizeof(line1) - 1; i < sizeof(junk); i++)
			if (junk[i] == '\n')
				junk[i] = 1;
		assert_null(gl_format_sniff(junk, sizeof(junk)));
		assert_string_equal(gl_format_sniff(junk + sizeof(line1) - 1, sizeof(junk) - sizeof(line1) + 1),
				    "binary data");
	}
	/* one escape sequence or tab in a text log is not binary */
	expect_format("2025-11-06 00:45:06,618 - m - INFO - \x1b[32mgreen\x1b[0m\tok\n"
		      "2025-11-06 00:45:07,618 - m - INFO - plain\n", "pylog");
}

static void test_detect_empty(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_null(gl_format_detect(NULL, 0, &why));
	assert_string_equal(why, "no content");
	expect_none("\n\n\r\n\n", 5, "no content");
}

static void test_detect_foreign_json_and_csv(void **state)
{
	/* a pretty-printed JSON report (aggregated/daily_report_2025-11-16.json) */
	static const char pretty[] =
		"{\n"
		"  \"generated_at\": \"2025-11-16T23:59:59Z\",\n"
		"  \"period\": {\n"
		"    \"start\": \"2025-11-05T00:00:00Z\",\n"
		"    \"end\": \"2025-11-16T23:59:59Z\"\n"
		"  },\n"
		"  \"kernels\": [\n"
		"    {\n"
		"      \"name\": \"force_pass_kernel\",\n"
		"      \"calls\": 100\n"
		"    }\n"
		"  ]\n"
		"}\n";
	/* a CSV of no known tool (nvidia-smi's CSV is format nvsmi: test_fmt_nvsmi.c) */
	static const char csv[] =
		"epoch_s,host,load\n"
		"1763284339,node1,0.87\n"
		"1763284340,node1,0.91\n";
	static const char text[] = "Hello world\nthis is a README\n";
	/* a JSON array of objects */
	static const char array[] = "[{\"a\": 1}, {\"a\": 2}]\n";

	(void)state;
	expect_none(pretty, sizeof(pretty) - 1, "JSON, but not");
	expect_none(csv, sizeof(csv) - 1, "CSV or text of no known format");
	expect_none(text, sizeof(text) - 1, "text of no known format");
	expect_none(array, sizeof(array) - 1, "JSON, but not");
}

static int realdata(char *buf, size_t n, const char *sub)
{
	const char *root = getenv("GL_REALDATA");
	struct stat sb;

	snprintf(buf, n, "%s/%s", root && *root ? root : "../shared/realdata", sub);
	return stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Reads up to the first 32 lines of path into buf; returns the bytes kept. */
static size_t head_of(const char *path, char *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n, cut = 0, lines = 0;

	assert_non_null(fp);
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	for (size_t i = 0; i < n && lines < 32; i++)
		if (buf[i] == '\n') {
			lines++;
			cut = i + 1;
		}
	return cut ? cut : n;
}

static void walk_gpufl(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[4096];
		struct stat sb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			walk_gpufl(path, count);
		} else if (strstr(de->d_name, ".log")) {
			static char buf[1 << 18];
			size_t len = head_of(path, buf, sizeof(buf));
			const char *why = NULL;
			const struct gl_format *f = detect(buf, len, &why);

			if (!f || strcmp(f->name, "gpufl") != 0)
				fail_msg("%s detected as %s (%s)", path, f ? f->name : "nothing",
					 why ? why : "");
			(*count)++;
		}
	}
	closedir(d);
}

/* gpufl NDJSON of all three client versions is detected as gpufl (fmt_gpufl.c). */
static void test_detect_gpufl_realdata(void **state)
{
	char dir[4096];
	int count = 0;

	(void)state;
	if (!realdata(dir, sizeof(dir), "gpufl"))
		skip();
	walk_gpufl(dir, &count);
	assert_true(count >= 1);
}

static void test_detect_mixed(void **state)
{
	/* a few cut-off or broken lines do not change a JSON log's format */
	static const char json_damaged[] =
		"{\"timestamp\": \"2025-11-14T00:03:14.100025Z\", \"level\": \"INFO\", \"message\": \"a\"}\n"
		"{\"timestamp\": \"2025-11-14T00:03:15.100025Z\", \"level\": \"INFO\", \"message\": \"b\"}\n"
		"{\"timestamp\": \"2025-11-14T00:03:16.100025Z\", \"level\": \"INFO\", \"mess\n"
		"{\"timestamp\": \"2025-11-14T00:03:17.100025Z\", \"level\": \"INFO\", \"message\": \"c\"}\n"
		"{\"timestamp\": \"2025-11-14T00:03:18.100025Z\", \"memory_usage_mb\": NaN}\n"
		"{\"timestamp\": \"2025-11-14T00:03:19.100025Z\", \"level\": \"INFO\", \"message\": \"d\"}\n";
	/* a traceback continues the record: still Python logging */
	static const char pylog_tb[] =
		"2025-11-06 00:45:06,618 - performance_monitor - ERROR - sampling failed\n"
		"Traceback (most recent call last):\n"
		"  File \"monitor.py\", line 42, in sample\n"
		"    value = read_counter()\n"
		"RuntimeError: CUDA error: out of memory\n"
		"2025-11-06 00:45:07,618 - performance_monitor - INFO - recovered\n";
	/* blank lines first */
	static const char blank_first[] =
		"\n\n[2025-11-15T00:18:52.599Z INFO  webxr::utils::logging] Logging initialized\n"
		"[2025-11-15T00:18:53.599Z INFO  webxr::utils::logging] again\n";
	char mixed[8192];
	size_t k = 0;

	(void)state;
	expect_format(json_damaged, "json");
	expect_format(pylog_tb, "pylog");
	expect_format(blank_first, "envlog");

	/* D3: JSON lines alternating with plain stdout lines: JSON, not skipped */
	k = 0;
	for (int i = 0; i < 16; i++)
		k += (size_t)snprintf(mixed + k, sizeof(mixed) - k,
				      "{\"timestamp\": \"2025-11-14T00:03:%02d.1Z\", \"message\": \"j%d\"}\n"
				      "Epoch %d/16: loss=0.%03d\n", i, i, i + 1, 500 - i);
	expect_format(mixed, "json");

	/* 7 JSON lines and 3 Python logging lines: the format of most lines wins */
	for (int i = 0; i < 7; i++)
		k += (size_t)snprintf(mixed + k, sizeof(mixed) - k,
				      "{\"timestamp\": \"2025-11-14T00:03:1%d.1Z\", \"level\": \"INFO\", "
				      "\"message\": \"m%d\"}\n", i, i);
	for (int i = 0; i < 3; i++)
		k += (size_t)snprintf(mixed + k, sizeof(mixed) - k,
				      "2025-11-06 00:45:0%d,618 - mon - INFO - line %d\n", i, i);
	expect_format(mixed, "json");

	k = 0;
	for (int i = 0; i < 3; i++)
		k += (size_t)snprintf(mixed + k, sizeof(mixed) - k,
				      "{\"timestamp\": \"2025-11-14T00:03:1%d.1Z\", \"level\": \"INFO\", "
				      "\"message\": \"m%d\"}\n", i, i);
	for (int i = 0; i < 7; i++)
		k += (size_t)snprintf(mixed + k, sizeof(mixed) - k,
				      "2025-11-06 00:45:0%d,618 - mon - INFO - line %d\n", i, i);
	expect_format(mixed, "pylog");
}

static void test_find(void **state)
{
	static const char *const names[] = {"bitnet", "dcgmi", "dmon", "envlog", "gpufl", "json", "jsondoc", "kineto", "lightning",
					    "nsys", "nvsmi", "nvsmiq", "nvsmiqx", "pmon", "prom", "pylog", "rmmcsv", "rmmlog", "text", "trainstate", "vllm"};
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct gl_format *f = gl_format_find(names[i]);

		assert_non_null(f);
		assert_string_equal(f->name, names[i]);
		assert_non_null(f->parse);
		assert_true(strlen(f->summary) > 0);
	}
	for (; gl_formats[n]; n++)
		assert_ptr_equal(gl_format_find(gl_formats[n]->name), gl_formats[n]);
	assert_int_equal(n, sizeof(names) / sizeof(names[0]));
	assert_null(gl_format_find("JSON"));
	assert_null(gl_format_find("json "));
	assert_null(gl_format_find("js"));
	assert_null(gl_format_find(""));
	assert_null(gl_format_find("csv"));
	/* time-of-day formats say so */
	assert_true(gl_format_find("rmmcsv")->flags & GL_FMT_TIME_OF_DAY);
	assert_true(gl_format_find("pylog")->flags & GL_FMT_MULTILINE);
	assert_false(gl_format_find("json")->flags & GL_FMT_TIME_OF_DAY);
	assert_true(gl_format_find("vllm")->flags & GL_FMT_MULTILINE);
}

/* BitNet-rs metrics lines are bitnet, not json; the service's JSON stays json. */
static void test_detect_bitnet_not_json(void **state)
{
	static const char bn[] = "{\"tokens_per_second\":42.5,\"latency_ms\":150.0,\"memory_usage_mb\":512.0,"
				 "\"gpu_utilization\":85.0}";
	static const char js[] = "{\"timestamp\":\"2025-09-09T14:30:22Z\",\"level\":\"INFO\",\"component\":\"gpu\","
				 "\"message\":\"ok\",\"tokens_per_second\":3}";
	struct gl_str one;
	const char *why = NULL;
	const struct gl_format *f;

	(void)state;
	one = (struct gl_str){bn, sizeof(bn) - 1};
	f = gl_format_detect(&one, 1, &why);
	assert_non_null(f);
	assert_string_equal(f->name, "bitnet");
	one = (struct gl_str){js, sizeof(js) - 1};
	f = gl_format_detect(&one, 1, &why);
	assert_non_null(f);
	assert_string_equal(f->name, "json");
}

static void test_format_list_text(void **state)
{
	char buf[4096], small[16];
	size_t lines = 0;

	(void)state;
	gl_format_list_text(buf, sizeof(buf));
	for (size_t i = 0; gl_formats[i]; i++) {
		char want[256];

		snprintf(want, sizeof(want), "%s\t%s\n", gl_formats[i]->name, gl_formats[i]->summary);
		assert_non_null(strstr(buf, want));
	}
	/* one line per format, nothing else */
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	for (size_t i = 0; gl_formats[i]; i++)
		lines--;
	assert_int_equal(lines, 0);
	/* too small for even one line: empty, terminated */
	memset(small, 'x', sizeof(small));
	gl_format_list_text(small, sizeof(small));
	assert_string_equal(small, "");
}

static void test_scratch(void **state)
{
	struct gl_parse_ctx ctx;
	size_t lens[] = {0, 1, 100, 3840, 3841, 5000, 1 << 20, 10};

	(void)state;
	gl_parse_ctx_init(&ctx);
	assert_int_equal(ctx.last_tod_us, -1);
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
		size_t len = lens[t], total = 0;
		char *first = NULL, *prev_end = NULL;

		assert_int_equal(gl_ctx_begin_line(&ctx, len), 0);
		assert_true(ctx.scratch_cap >= len + 256);
		/* the line's reserve in uneven pieces: never NULL, never overlapping */
		for (size_t piece = 1; total < len + 256; piece = piece * 3 + 1) {
			size_t k = piece < len + 256 - total ? piece : len + 256 - total;
			char *p = gl_ctx_scratch(&ctx, k);

			assert_non_null(p);
			if (!first)
				first = p;
			if (prev_end)
				assert_ptr_equal(p, prev_end);
			memset(p, 'x', k);	/* every byte is writable (ASan) */
			prev_end = p + k;
			total += k;
		}
		/* a new line starts from the beginning again */
		assert_int_equal(gl_ctx_begin_line(&ctx, len), 0);
		assert_ptr_equal(gl_ctx_scratch(&ctx, 1), first);
		/* past the buffer: NULL, and the buffer is not given away */
		size_t left = ctx.scratch_cap - ctx.scratch_used;

		assert_null(gl_ctx_scratch(&ctx, left + 1));
		assert_null(gl_ctx_scratch(&ctx, SIZE_MAX));
		assert_non_null(gl_ctx_scratch(&ctx, left));
		assert_null(gl_ctx_scratch(&ctx, 1));
	}
	gl_parse_ctx_release(&ctx);
	assert_null(ctx.scratch);
	assert_int_equal(ctx.scratch_cap, 0);
	assert_int_equal(ctx.last_tod_us, -1);
	/* released twice is harmless */
	gl_parse_ctx_release(&ctx);
}

#define H(h) ((int64_t)(h) * 3600 * GL_US_PER_S)
#define MS(ms) ((int64_t)(ms) * 1000)

static void test_time_of_day(void **state)
{
	struct gl_parse_ctx ctx;
	int64_t day = 20340 * GL_US_PER_DAY;	/* 2025-09-09 */
	int64_t t2359 = H(23) + MS(59 * 60000 + 59500);	/* 23:59:59.500 */

	(void)state;
	gl_parse_ctx_init(&ctx);
	ctx.day_us = day;
	/* the first record never advances the day, whatever its time */
	assert_true(gl_ctx_time_of_day(&ctx, 0) == day);
	assert_true(gl_ctx_time_of_day(&ctx, t2359) == day + t2359);
	/* 23:59:59.5 -> 00:00:00.2: past midnight */
	assert_true(gl_ctx_time_of_day(&ctx, MS(200)) == day + GL_US_PER_DAY + MS(200));
	/* threads a little out of order: same day */
	assert_true(gl_ctx_time_of_day(&ctx, MS(100)) == day + GL_US_PER_DAY + MS(100));
	assert_true(gl_ctx_time_of_day(&ctx, H(11)) == day + GL_US_PER_DAY + H(11));
	/* exactly 12 hours back is not a new day ... */
	assert_true(gl_ctx_time_of_day(&ctx, H(23)) == day + GL_US_PER_DAY + H(23));
	assert_true(gl_ctx_time_of_day(&ctx, H(11)) == day + GL_US_PER_DAY + H(11));
	/* ... one microsecond more is */
	assert_true(gl_ctx_time_of_day(&ctx, H(23)) == day + GL_US_PER_DAY + H(23));
	assert_true(gl_ctx_time_of_day(&ctx, H(11) - 1) == day + 2 * GL_US_PER_DAY + H(11) - 1);
	assert_true(ctx.day_us == day + 2 * GL_US_PER_DAY);
	assert_true(ctx.last_tod_us == H(11) - 1);
	gl_parse_ctx_release(&ctx);

	/* a run of days: 08:00, 20:00, 07:00, 19:00, 06:00 ... advances once per wrap */
	gl_parse_ctx_init(&ctx);
	ctx.day_us = day;
	for (int d = 0; d < 30; d++) {
		assert_true(gl_ctx_time_of_day(&ctx, H(8) - MS(d)) == day + d * GL_US_PER_DAY + H(8) - MS(d));
		assert_true(gl_ctx_time_of_day(&ctx, H(20)) == day + d * GL_US_PER_DAY + H(20));
	}
	gl_parse_ctx_release(&ctx);
}

static void test_event_init(void **state)
{
	struct gl_event ev;

	(void)state;
	memset(&ev, 0xab, sizeof(ev));
	gl_event_init(&ev);
	assert_true(ev.ts_us == GL_TS_NONE);
	assert_true(ev.ts_us == INT64_MIN);
	assert_int_equal(ev.level, GL_LEVEL_NONE);
	assert_null(ev.component.p);
	assert_int_equal(ev.component.len, 0);
	assert_null(ev.message.p);
	assert_int_equal(ev.message.len, 0);
	assert_null(ev.kernel.p);
	assert_int_equal(ev.kernel.len, 0);
	assert_null(ev.metadata.p);
	assert_int_equal(ev.metadata.len, 0);
	assert_true(isnan(ev.dur_us));
	assert_true(isnan(ev.exec_ms));
	assert_true(isnan(ev.mem_mb));
	assert_true(isnan(ev.alloc_mb));
	assert_true(isnan(ev.peak_mb));
	assert_true(isnan(ev.util_pct));
	assert_int_equal(ev.error_count, -1);
	assert_int_equal(ev.recovery_attempts, -1);
	assert_int_equal(ev.anomaly, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect_each_format),
		cmocka_unit_test(test_detect_binary),
		cmocka_unit_test(test_detect_empty),
		cmocka_unit_test(test_detect_foreign_json_and_csv),
		cmocka_unit_test(test_detect_gpufl_realdata),
		cmocka_unit_test(test_detect_mixed),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_detect_bitnet_not_json),
		cmocka_unit_test(test_format_list_text),
		cmocka_unit_test(test_scratch),
		cmocka_unit_test(test_time_of_day),
		cmocka_unit_test(test_event_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
