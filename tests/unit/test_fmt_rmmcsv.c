/* Tests for lib/ingest/fmt_rmmcsv.c: RMM logging_resource_adaptor CSV. */
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

extern const struct gl_format gl_fmt_rmmcsv;

#define US(h, m, s, us) ((((int64_t)(h) * 60 + (m)) * 60 + (s)) * 1000000LL + (us))
#define DAY_US 86400000000LL

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
	gl_test_parse(&gl_fmt_rmmcsv, &ctx, line, rec);
}

static void test_header_and_rows(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.day_us = 18948 * DAY_US;	/* 2021-11-17 */
	parse("Thread,Time,Action,Pointer,Size,Stream", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_int_equal(rec.mem.thread, 23110);
	assert_true(rec.mem.ts_us == 18948 * DAY_US + US(22, 30, 49, 650739));
	assert_int_equal(rec.mem.action, GL_MEM_ALLOC);
	assert_true(rec.mem.ptr == 0x7f141ba00000ULL);
	assert_int_equal(rec.mem.size_bytes, 1024);
	assert_true(rec.mem.cuda_stream == 0);
	parse("23110,22:30:49.650760,free,0x7f141ba00000,1024,0x0", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_int_equal(rec.mem.action, GL_MEM_FREE);
	assert_true(rec.mem.ts_us == 18948 * DAY_US + US(22, 30, 49, 650760));
}

static void test_failure_nil_and_streams(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("7,01:00:00.5,allocate failure,(nil),1099511627776,0x7f00deadbeef", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_int_equal(rec.mem.action, GL_MEM_ALLOC_FAIL);
	assert_true(rec.mem.ptr == 0);
	assert_true(rec.mem.size_bytes == 1099511627776LL);
	assert_true(rec.mem.cuda_stream == 0x7f00deadbeefULL);
	assert_true(rec.mem.ts_us == US(1, 0, 0, 500000));
	/* a null stream printed as 0 or (nil) */
	parse("7,01:00:01.000001,free,0xABCDEF,16,0", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_true(rec.mem.ptr == 0xabcdef);
	assert_true(rec.mem.cuda_stream == 0);
	parse("7,01:00:01.000002,free,0x10,16,(nil)", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_true(rec.mem.cuda_stream == 0);
}

static void test_newer_shapes(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* a header with more columns, rows with more fields */
	parse("Thread,Time,Action,Pointer,Size,Stream,Provider", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0,pool", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_true(rec.mem.cuda_stream == 0);
	assert_int_equal(rec.mem.size_bytes, 1024);
	/* a Time with a date is absolute and leaves the day clock alone */
	ctx.day_us = 5 * DAY_US;
	parse("23110,2025-11-16 22:30:49.650739,free,0x7f141ba00000,1024,0x0", &rec);
	assert_int_equal(rec.kind, GL_REC_MEM);
	assert_true(rec.mem.ts_us == 20408 * DAY_US + US(22, 30, 49, 650739));
	assert_true(ctx.day_us == 5 * DAY_US);
}

static void test_rejects_name_the_field(void **state)
{
	static const struct {
		const char *line, *field;
	} bad[] = {
		{ "x23,22:30:49.650739,allocate,0x1,1024,0x0", "Thread" },
		{ ",22:30:49.650739,allocate,0x1,1024,0x0", "Thread" },
		{ "23,22:30:61.650739,allocate,0x1,1024,0x0", "Time" },
		{ "23,22:30:49.650739,alloc,0x1,1024,0x0", "Action" },
		{ "23,22:30:49.650739,allocate,7f14,1024,0x0", "Pointer" },
		{ "23,22:30:49.650739,allocate,0x,1024,0x0", "Pointer" },
		{ "23,22:30:49.650739,allocate,0x1,-5,0x0", "Size" },
		{ "23,22:30:49.650739,allocate,0x1,1e3,0x0", "Size" },
		{ "23,22:30:49.650739,allocate,0x1,99999999999999999999,0x0", "Size" },
		{ "23,22:30:49.650739,allocate,0x1,1024,stream0", "Stream" },
		{ "23,22:30:49.650739,allocate,0x1,1024,", "Stream" },
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i].line, &rec);
		assert_int_equal(rec.kind, GL_REC_REJECT);
		assert_non_null(rec.reason);
		assert_int_equal(strncmp(rec.reason, bad[i].field, strlen(bad[i].field)), 0);
	}
	/* rejects do not move the day clock */
	assert_true(ctx.last_tod_us == -1);
}

static void test_foreign(void **state)
{
	static const char *const other[] = {
		"[2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized",
		"2025-09-09 14:30:22,123 - performance_monitor - WARNING - cpu_usage (91.30) exceeds threshold (85.00)",
		"[ 13527][20:13:10:522999][error ] [A][Stream 0x1][Upstream 25000000000B][FAILURE maximum pool size exceeded]",
		"{\"timestamp\": \"2025-11-16T14:30:22.123456Z\", \"level\": \"INFO\", \"message\": \"a,b,c,d,e,f\"}",
		"a,b,c,d,e,f",
		"timestamp,kernel,duration_us,grid,block,stream",
		"1,2,3",
		"  File \"monitor.py\", line 42, in sample",
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		parse(other[i], &rec);
		assert_int_equal(rec.kind, GL_REC_FOREIGN);
	}
}

static void test_midnight(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.day_us = 100 * DAY_US;
	parse("1,23:59:59.9,allocate,0x10,8,0x0", &rec);
	assert_true(rec.mem.ts_us == 100 * DAY_US + US(23, 59, 59, 900000));
	parse("2,23:59:59.7,allocate,0x20,8,0x0", &rec);	/* another thread, a bit behind */
	assert_true(rec.mem.ts_us == 100 * DAY_US + US(23, 59, 59, 700000));
	parse("1,00:00:00.1,free,0x10,8,0x0", &rec);
	assert_true(rec.mem.ts_us == 101 * DAY_US + US(0, 0, 0, 100000));
	parse("1,11:00:00.0,free,0x20,8,0x0", &rec);	/* same day, later */
	assert_true(rec.mem.ts_us == 101 * DAY_US + US(11, 0, 0, 0));
	parse("1,00:00:00.2,free,0x20,8,0x0", &rec);	/* 11 h back: not a new day */
	assert_true(rec.mem.ts_us == 101 * DAY_US + US(0, 0, 0, 200000));
}

static void test_realdata_csv(void **state)
{
	char path[1024];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long none = 0, mem = 0, other = 0;
	struct gl_rec rec;
	int64_t ts[2] = { 0, 0 };
	enum gl_mem_action act[2] = { GL_MEM_ALLOC_FAIL, GL_MEM_ALLOC_FAIL };
	char *keep[8];
	struct gl_str lines[8];
	size_t nkeep = 0;
	const struct gl_format *fmt;
	const char *why;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), "rmm/rapidsai+rmm/rmm_adaptor_test_log.txt"))
		skip();
	f = fopen(path, "r");
	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		assert_int_equal(gl_ctx_begin_line(&ctx, (size_t)n), 0);
		gl_fmt_rmmcsv.parse(&ctx, line, (size_t)n, &rec);
		if (nkeep < 8) {
			keep[nkeep] = strndup(line, (size_t)n);
			lines[nkeep].p = keep[nkeep];
			lines[nkeep].len = (size_t)n;
			nkeep++;
		}
		if (rec.kind == GL_REC_NONE) {
			none++;
		} else if (rec.kind == GL_REC_MEM) {
			if (mem < 2) {
				ts[mem] = rec.mem.ts_us;
				act[mem] = rec.mem.action;
			}
			assert_true(rec.mem.ptr == 0x7f141ba00000ULL);
			assert_int_equal(rec.mem.size_bytes, 1024);
			mem++;
		} else {
			other++;
		}
	}
	free(line);
	fclose(f);
	/* the file: one header, one allocate, one free 21 µs later */
	assert_int_equal(none, 1);
	assert_int_equal(mem, 2);
	assert_int_equal(other, 0);
	assert_int_equal(act[0], GL_MEM_ALLOC);
	assert_int_equal(act[1], GL_MEM_FREE);
	assert_true(ts[1] - ts[0] == 21);
	/* detection among all formats picks this one */
	fmt = gl_format_detect(lines, nkeep, &why);
	assert_non_null(fmt);
	assert_string_equal(fmt->name, "rmmcsv");
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
}

/* Every line of the RMM debug logs and of the gpufl NDJSON is foreign to this format. */
static void test_realdata_foreign(void **state)
{
	char dir[1024];
	long lines = 0;

	(void)state;
	if (!gl_test_realdata(dir, sizeof(dir), "gpufl") ||
	    !gl_test_realdata_tree(&gl_fmt_rmmcsv, &ctx, "rmm/debug_logs", GL_REC_FOREIGN, &lines))
		skip();
	assert_int_equal(lines, 71);	/* wc -l over the eight rmm_log.txt */
	gl_test_tree_kind(&gl_fmt_rmmcsv, &ctx, dir, GL_REC_FOREIGN, &lines);	/* dir: gpufl */
	assert_true(lines > 71);
}

/* ---- the bundled sample tree (counts from fixtures/README.md, written by its generator) ---- */

static void test_sample_tree(void **state)
{
	static const struct gl_test_counts want = {
		.lines = 421, .none = 1, .event = 0, .mem = 420, .cont = 0, .reject = 0,
		.kernel = 0, .detected = "rmmcsv",
	};

	(void)state;
	gl_test_check_fixture(&gl_fmt_rmmcsv, &ctx, "fixtures/sample-logs/rmm/rmm_log.dev0.csv", &want);
}

/* Pairs the sample's allocations with their frees: what stays is the leak the README names. */
static void test_sample_leaks(void **state)
{
	FILE *f = fopen("fixtures/sample-logs/rmm/rmm_log.dev0.csv", "r");
	char *line = NULL;
	size_t cap = 0, nlive = 0;
	ssize_t n;
	struct gl_rec rec;
	static uint64_t live_ptr[512];
	static int64_t live_size[512];
	long alloc = 0, freed = 0, failed = 0;
	int64_t leaked = 0, prev_ts = INT64_MIN;

	(void)state;
	assert_non_null(f);
	ctx.day_us = 20408 * DAY_US;	/* 2025-11-16 */
	while ((n = getline(&line, &cap, f)) > 0) {
		size_t i;

		if (line[n - 1] == '\n')
			n--;
		assert_int_equal(gl_ctx_begin_line(&ctx, (size_t)n), 0);
		gl_fmt_rmmcsv.parse(&ctx, line, (size_t)n, &rec);
		if (rec.kind != GL_REC_MEM)
			continue;
		/* one process, in time order, all on 2025-11-16 */
		assert_true(rec.mem.ts_us >= prev_ts);
		assert_true(rec.mem.ts_us / DAY_US == 20408);
		prev_ts = rec.mem.ts_us;
		switch (rec.mem.action) {
		case GL_MEM_ALLOC:
			assert_true(nlive < 512);
			live_ptr[nlive] = rec.mem.ptr;
			live_size[nlive++] = rec.mem.size_bytes;
			alloc++;
			break;
		case GL_MEM_FREE:
			for (i = 0; i < nlive && live_ptr[i] != rec.mem.ptr; i++)
				;
			assert_true(i < nlive);	/* every free matches an allocation */
			assert_int_equal(live_size[i], rec.mem.size_bytes);
			live_ptr[i] = live_ptr[--nlive];
			live_size[i] = live_size[nlive];
			freed++;
			break;
		case GL_MEM_ALLOC_FAIL:
			assert_true(rec.mem.ptr == 0);
			failed++;
			break;
		}
	}
	free(line);
	fclose(f);
	for (size_t i = 0; i < nlive; i++)
		leaked += live_size[i];
	assert_int_equal(alloc, 211);
	assert_int_equal(freed, 208);
	assert_int_equal(failed, 1);
	assert_int_equal(nlive, 3);
	assert_true(leaked == 134217984);
}


/* Random lines from the characters this format cares about, and a huge line. */
static void test_junk(void **state)
{
	static const char alphabet[] = "[]0123456789:.,- ()xAEFIKNOTWabcefilnorstu\"\\\t\xce\xbc\x00";

	(void)state;
	gl_test_junk(&gl_fmt_rmmcsv, &ctx, alphabet, sizeof(alphabet) - 1, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_header_and_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_nil_and_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_name_the_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_midnight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_realdata_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_leaks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
