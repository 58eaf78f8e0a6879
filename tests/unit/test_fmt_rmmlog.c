/* Tests for lib/ingest/fmt_rmmlog.c: the RMM spdlog debug log. */
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_rmmlog;

#define US(h, m, s, us) ((((int64_t)(h) * 60 + (m)) * 60 + (s)) * 1000000LL + (us))

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
	gl_test_parse(&gl_fmt_rmmlog, &ctx, line, rec);
}


/* The metadata as a jansson object (checks it is valid JSON). Caller decrefs. */
static json_t *meta(const struct gl_rec *rec)
{
	json_error_t e;
	json_t *j;

	assert_non_null(rec->ev.metadata.p);
	j = json_loadb(rec->ev.metadata.p, rec->ev.metadata.len, 0, &e);
	assert_non_null(j);
	assert_true(json_is_object(j));
	return j;
}

static void test_failure_line(void **state)
{
	static const char line[] = "[ 13527][20:13:10:522999][error ] [A][Stream 0x1]"
				   "[Upstream 25000000000B][FAILURE maximum pool size exceeded]";
	struct gl_rec rec;

	(void)state;
	ctx.day_us = 20408LL * 86400 * 1000000;	/* 2025-11-16 */
	parse(line, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	assert_true(rec.ev.ts_us == ctx.day_us + US(20, 13, 10, 522999));
	gl_test_assert_str(rec.ev.component, "rmm");
	gl_test_assert_str(rec.ev.message,
		   "[A][Stream 0x1][Upstream 25000000000B][FAILURE maximum pool size exceeded]");
	/* compact, in this order, exactly */
	gl_test_assert_str(rec.ev.metadata, "{\"thread\":13527,\"op\":\"A\",\"stream\":\"0x1\","
				    "\"upstream_bytes\":25000000000,"
				    "\"failure\":\"maximum pool size exceeded\"}");
	assert_null(rec.ev.kernel.p);
}

static void test_begin_line(void **state)
{
	struct gl_rec rec;
	json_t *j;

	(void)state;
	parse("[ 24740][16:33:00:198816][info  ] ----- RMM LOG BEGIN [PTDS DISABLED] -----", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	assert_true(rec.ev.ts_us == US(16, 33, 0, 198816));
	gl_test_assert_str(rec.ev.message, "----- RMM LOG BEGIN [PTDS DISABLED] -----");
	gl_test_assert_str(rec.ev.metadata, "{\"thread\":24740,\"ptds\":false}");
	parse("[1457727][15:39:53:785777][info  ] ----- RMM LOG BEGIN [PTDS ENABLED] -----", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	j = meta(&rec);
	assert_int_equal(json_integer_value(json_object_get(j, "thread")), 1457727);
	assert_true(json_is_true(json_object_get(j, "ptds")));
	json_decref(j);
}

static void test_old_wording(void **state)
{
	struct gl_rec rec;
	json_t *j;

	(void)state;
	parse("[ 24741][16:33:00:204540][error ] [A][Stream 0x1][Upstream 34940672B]"
	      "[FAILURE max pool size exceeded]", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	j = meta(&rec);
	assert_string_equal(json_string_value(json_object_get(j, "failure")),
			    "max pool size exceeded");
	assert_int_equal(json_integer_value(json_object_get(j, "upstream_bytes")), 34940672);
	json_decref(j);
}

static void test_levels(void **state)
{
	static const struct {
		const char *name;
		enum gl_level level;
	} tab[] = {
		{ "trace ", GL_LEVEL_TRACE }, { "debug ", GL_LEVEL_DEBUG },
		{ "info  ", GL_LEVEL_INFO },  { "warning", GL_LEVEL_WARN },
		{ "warn  ", GL_LEVEL_WARN },  { "error ", GL_LEVEL_ERROR },
		{ "critical", GL_LEVEL_CRITICAL },
	};
	char line[128];
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		snprintf(line, sizeof(line), "[    42][01:02:03:000004][%s] hello", tab[i].name);
		parse(line, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		assert_int_equal(rec.ev.level, tab[i].level);
		gl_test_assert_str(rec.ev.message, "hello");
		gl_test_assert_str(rec.ev.metadata, "{\"thread\":42}");
	}
}

static void test_escaping(void **state)
{
	struct gl_rec rec;
	json_t *j;

	(void)state;
	parse("[ 1][00:00:01:000000][error ] [A][Stream 0x\"7][FAILURE bad \\ \"thing\"\t!]", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	j = meta(&rec);
	assert_string_equal(json_string_value(json_object_get(j, "stream")), "0x\"7");
	assert_string_equal(json_string_value(json_object_get(j, "failure")),
			    "bad \\ \"thing\"\t!");
	json_decref(j);
}

static void test_rejects(void **state)
{
	static const char *const bad[] = {
		"[ 13527][25:13:10:522999][error ] x",		/* hour 25 */
		"[ 13527][20:13:10-522999][error ] x",		/* separator */
		"[ 13527][20:13:10:522999][loud  ] x",		/* level */
		"[ 13527][20:13:10:522999]error x",		/* no level bracket */
		"[ 13527][20:13:10:522999][error x",		/* unclosed level */
		"[ 13527][20:13:10:522999",			/* unclosed time */
		"[ 13527][][info  ] x",				/* empty time */
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i], &rec);
		assert_int_equal(rec.kind, GL_REC_REJECT);
		assert_non_null(rec.reason);
	}
}

static void test_foreign(void **state)
{
	static const char *const other[] = {
		"[2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized",
		"2025-09-09 14:30:22,123 - performance_monitor - WARNING - cpu_usage (91.30) exceeds threshold (85.00)",
		"Thread,Time,Action,Pointer,Size,Stream",
		"23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0",
		"{\"timestamp\": \"2025-11-16T14:30:22.123456Z\", \"level\": \"INFO\"}",
		"Traceback (most recent call last):",
		"[abc][20:13:10:522999][error ] x",		/* thread not a number */
		"[ 13527] [20:13:10:522999][error ] x",		/* not spdlog's pattern */
		"[]",
		"\x89PNG",
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		parse(other[i], &rec);
		assert_int_equal(rec.kind, GL_REC_FOREIGN);
	}
	parse("", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
}

/* The day advances when the clock passes midnight; jitter between threads does not. */
static void test_midnight(void **state)
{
	struct gl_rec rec;
	int64_t day = 20000LL * 86400 * 1000000;

	(void)state;
	ctx.day_us = day;
	ctx.last_tod_us = -1;
	parse("[ 1][23:59:59:900000][info  ] a", &rec);
	assert_true(rec.ev.ts_us == day + US(23, 59, 59, 900000));
	parse("[ 2][23:59:59:850000][info  ] b", &rec);	/* 50 ms back: same day */
	assert_true(rec.ev.ts_us == day + US(23, 59, 59, 850000));
	parse("[ 1][00:00:00:100000][info  ] c", &rec);
	assert_true(rec.ev.ts_us == day + 86400000000LL + US(0, 0, 0, 100000));
	assert_true(ctx.day_us == day + 86400000000LL);
	parse("[ 1][00:00:00:050000][info  ] d", &rec);	/* jitter after the wrap */
	assert_true(rec.ev.ts_us == day + 86400000000LL + US(0, 0, 0, 50000));
	/* a reject does not move the clock */
	parse("[ 1][25:00:00:000000][info  ] e", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_true(ctx.day_us == day + 86400000000LL);
}

/* ---- the real RMM samples ---- */

struct counts {
	long lines, events, errors, infos, other, max_wording;
	uint64_t upstream_sum;
};

static void count_file(const char *path, struct counts *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct gl_rec rec;

	assert_non_null(f);
	memset(c, 0, sizeof(*c));
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	while ((n = getline(&line, &cap, f)) > 0) {
		json_t *j, *up, *fail;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		c->lines++;
		assert_int_equal(gl_ctx_begin_line(&ctx, (size_t)n), 0);
		gl_fmt_rmmlog.parse(&ctx, line, (size_t)n, &rec);
		if (rec.kind != GL_REC_EVENT) {
			print_error("%s:%ld: kind %d (%s)\n", path, c->lines, rec.kind,
				    rec.reason ? rec.reason : "");
			fail();
		}
		c->events++;
		c->errors += rec.ev.level == GL_LEVEL_ERROR;
		c->infos += rec.ev.level == GL_LEVEL_INFO;
		c->other += rec.ev.level != GL_LEVEL_ERROR && rec.ev.level != GL_LEVEL_INFO;
		j = meta(&rec);
		up = json_object_get(j, "upstream_bytes");
		if (up)
			c->upstream_sum += (uint64_t)json_integer_value(up);
		fail = json_object_get(j, "failure");
		if (fail && strcmp(json_string_value(fail), "max pool size exceeded") == 0)
			c->max_wording++;
		json_decref(j);
	}
	free(line);
	fclose(f);
}

static void test_realdata_debug_logs(void **state)
{
	/* Counted with grep/wc on the files; sums of the Upstream sizes by hand. */
	static const struct {
		const char *dir;
		long lines, errors;
		uint64_t upstream_sum;
		long max_wording;
	} want[] = {
		{ "BlazingDB+blazingsql", 4, 3, 35006976ULL + 34940672 + 30506240, 3 },
		{ "GraphBLAS+LAGraph", 2, 1, 15442343680ULL, 0 },
		{ "felipeblazing+sirius", 54, 53, 131557632ULL, 0 },
		{ "harp-lab+gdlog", 2, 1, 15162789376ULL, 0 },
		{ "pyg-team+pytorch_geometric", 1, 0, 0, 0 },
		{ "rapidsai+cugraph", 2, 1, 25000000000ULL, 0 },
		{ "rapidsai+raft", 2, 1, 12452429824ULL, 0 },
		{ "wer-inc+gogooku3", 4, 3, 3 * 42949672960ULL, 0 },
	};
	char dir[1024], path[1600];
	size_t seen = 0;
	DIR *d;
	struct dirent *de;

	(void)state;
	if (!gl_test_realdata(dir, sizeof(dir), "rmm/debug_logs"))
		skip();
	/* Every folder there is checked: a new sample must be added to the table. */
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct counts c;
		size_t i;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (strcmp(want[i].dir, de->d_name) == 0)
				break;
		assert_true(i < sizeof(want) / sizeof(want[0]));
		snprintf(path, sizeof(path), "%s/%s/rmm_log.txt", dir, de->d_name);
		count_file(path, &c);
		assert_int_equal(c.lines, want[i].lines);
		assert_int_equal(c.events, want[i].lines);
		assert_int_equal(c.errors, want[i].errors);
		assert_int_equal(c.infos, 1);
		assert_int_equal(c.other, 0);
		assert_true(c.upstream_sum == want[i].upstream_sum);
		assert_int_equal(c.max_wording, want[i].max_wording);
		seen++;
	}
	closedir(d);
	assert_int_equal(seen, sizeof(want) / sizeof(want[0]));
}

/* Reads a file's first 64 lines and asks detection which format it is. */
static const char *detect_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf[64] = { 0 };
	struct gl_str lines[64];
	size_t n = 0, cap;
	ssize_t len;
	const struct gl_format *fmt;
	const char *why;

	assert_non_null(f);
	while (n < 64) {
		cap = 0;
		len = getline(&buf[n], &cap, f);
		if (len < 0)
			break;
		if (len && buf[n][len - 1] == '\n')
			len--;
		lines[n].p = buf[n];
		lines[n].len = (size_t)len;
		n++;
	}
	fclose(f);
	fmt = gl_format_detect(lines, n, &why);
	for (size_t i = 0; i <= n && i < 64; i++)
		free(buf[i]);
	return fmt ? fmt->name : "(none)";
}

static void test_realdata_detect(void **state)
{
	static const char *const dirs[] = {
		"BlazingDB+blazingsql", "GraphBLAS+LAGraph", "felipeblazing+sirius",
		"harp-lab+gdlog", "pyg-team+pytorch_geometric", "rapidsai+cugraph",
		"rapidsai+raft", "wer-inc+gogooku3",
	};
	char dir[1024], path[1600];

	(void)state;
	if (!gl_test_realdata(dir, sizeof(dir), "rmm/debug_logs"))
		skip();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/rmm_log.txt", dir, dirs[i]);
		assert_string_equal(detect_file(path), "rmmlog");
	}
}

/* No line of the other real samples (RMM CSV, gpufl NDJSON) is taken as this format's. */
static void test_realdata_foreign(void **state)
{
	long lines = 0;

	(void)state;
	if (!gl_test_realdata_tree(&gl_fmt_rmmlog, &ctx, "gpufl", GL_REC_FOREIGN, &lines))
		skip();
	assert_true(lines > 100);
	gl_test_realdata_tree(&gl_fmt_rmmlog, &ctx, "rmm/rapidsai+rmm", GL_REC_FOREIGN, &lines);
}

/* ---- the bundled sample tree (counts from fixtures/README.md, written by its generator) ---- */

static void test_sample_tree(void **state)
{
	static const struct gl_test_counts want = {
		.lines = 4, .none = 0, .event = 4, .mem = 0, .cont = 0, .reject = 0,
		.kernel = 0, .detected = "rmmlog",
	};

	(void)state;
	gl_test_check_fixture(&gl_fmt_rmmlog, &ctx, "fixtures/sample-logs/rmm/rmm_log.txt", &want);
}

/* Random lines from the characters this format cares about, and a huge line. */
static void test_junk(void **state)
{
	static const char alphabet[] = "[]0123456789:.,- ()xAEFIKNOTWabcefilnorstu\"\\\t\xce\xbc\x00";

	(void)state;
	gl_test_junk(&gl_fmt_rmmlog, &ctx, alphabet, sizeof(alphabet) - 1, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_failure_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_wording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_midnight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_debug_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_detect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
