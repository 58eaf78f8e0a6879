/*
 * Tests for lib/ingest/fmt_gpufl.c: GPUFlight client NDJSON.
 *
 * Expected numbers for the real files in ../shared/realdata/gpufl come from
 * a separate Python script (json.loads per line): record types, samples per
 * the metric table of fmt_gpufl.c with its two quirk rules, the sum of
 * power_mw / 1000, scope spans by matching begin/end per pid and name
 * (innermost first), and placement of the monotonic clock so that the file's
 * last ts_ns falls at the modification time the test sets (MTIME_US):
 * ts_us = ts_ns // 1000 + MTIME_US - last_ts_ns // 1000. The real files hold
 * no kernel records (SOURCES.md), so kernels are tested on hand-written
 * lines of the client's kernel_event shape, with the arithmetic done by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "ingest/reader.h"
#include "support/fmt_check.h"
#include "support/tmpdir.h"

extern const struct gl_format gl_fmt_gpufl;

#define MTIME_US 1765000000000000LL
#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static struct gl_parse_ctx ctx;

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

struct span_want {
	const char *path;
	int depth;
	double dur_us;
	int64_t start_us;
};

struct tally {
	long events, spans, samples, rejects, none;
	double power_w;
	int64_t first_ts;
	struct span_want span[4];
	char path[4][64];
};

static void run_file(const char *path, struct tally *t)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	struct gl_rec rec;

	memset(t, 0, sizeof(*t));
	t->first_ts = GL_TS_NONE;
	assert_int_equal(gl_fmt_gpufl.prepare(&ctx, path), 0);
	assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
	while (gl_reader_next(r, &ln, &err) == 1) {
		if (!ln.len)
			continue;
		assert_int_equal(gl_ctx_begin_line(&ctx, ln.len), 0);
		memset(&rec, 0, sizeof(rec));
		gl_fmt_gpufl.parse(&ctx, ln.p, ln.len, &rec);
		switch (rec.kind) {
		case GL_REC_EVENT:
			if (t->first_ts == GL_TS_NONE)
				t->first_ts = rec.ev.ts_us;
			t->events++;
			break;
		case GL_REC_SPAN:
			if (t->spans < 4) {
				snprintf(t->path[t->spans], 64, "%.*s", (int)rec.span.path.len, rec.span.path.p);
				t->span[t->spans] = (struct span_want){t->path[t->spans], rec.span.depth,
								       rec.span.dur_us, rec.span.start_us};
			}
			t->spans++;
			break;
		case GL_REC_REJECT:
			t->rejects++;
			break;
		case GL_REC_NONE:
			t->none++;
			break;
		case GL_REC_SAMPLES:
			break;
		default:
			fail_msg("unexpected kind %d", rec.kind);
		}
		for (size_t i = 0; i < rec.n_samples; i++) {
			t->samples++;
			if (rec.samples[i].metric.len == 11 && !memcmp(rec.samples[i].metric.p, "gpu.power_w", 11))
				t->power_w += rec.samples[i].value;
		}
	}
	gl_reader_close(r);
}

static int real(char *buf, size_t n, const char *sub)
{
	char s[300];

	snprintf(s, sizeof(s), "gpufl/gpufl+gpufl-client/%s", sub);
	if (!gl_test_realdata(buf, n, s)) {
		print_message("skipped: ../shared/realdata absent (%s)\n", s);
		return 0;
	}
	return 1;
}

static void check_spans(const struct tally *t, const struct span_want *want, long n)
{
	assert_int_equal(t->spans, n);
	for (long i = 0; i < n; i++) {
		assert_string_equal(t->span[i].path, want[i].path);
		assert_int_equal(t->span[i].depth, want[i].depth);
		NEAR(t->span[i].dur_us, want[i].dur_us, 1e-6);
		assert_true(t->span[i].start_us == want[i].start_us);
	}
}

static void test_real_viz(void **state)
{
	char p[512];
	struct tally t;
	static const struct span_want spans[] = {
		{"Initialization", 0, 516867.2, 1764999999257702LL},
		{"DataLoading", 0, 207337.5, 1764999999775344LL},
	};

	(void)state;
	if (!real(p, sizeof(p), "example/python/viz/gpufl_basic.kernel.0.log"))
		skip();
	run_file(p, &t);
	assert_int_equal(t.events, 2);
	assert_int_equal(t.samples, 1);
	assert_true(t.first_ts == 1764999999239646LL);
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = MTIME_US;
	real(p, sizeof(p), "example/python/viz/gpufl_basic.scope.0.log");
	run_file(p, &t);
	assert_int_equal(t.events, 2);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.samples, 41);
	NEAR(t.power_w, 46.207, 1e-9);
	check_spans(&t, spans, 2);
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = MTIME_US;
	real(p, sizeof(p), "example/python/viz/gpufl_basic.system.0.log");
	run_file(p, &t);
	assert_int_equal(t.events, 2);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.samples, 377);
	NEAR(t.power_w, 527.830, 1e-9);
}

static void test_real_beb96ec(void **state)
{
	char p[512];
	struct tally t;
	static const struct span_want spans[] = {
		{"Initialization", 0, 505664.9, 1764999999279577LL},
		{"DataLoading", 0, 200519.1, 1764999999785521LL},
	};

	(void)state;
	if (!real(p, sizeof(p), "root-beb96ec/gpufl_basic.scope.0.log"))
		skip();
	run_file(p, &t);
	assert_int_equal(t.events, 2);
	assert_int_equal(t.samples, 50);
	NEAR(t.power_w, 59.996, 1e-9);
	assert_true(t.first_ts == 1764999999263391LL);
	check_spans(&t, spans, 2);
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = MTIME_US;
	real(p, sizeof(p), "root-beb96ec/gpufl_basic.system.0.log");
	run_file(p, &t);
	assert_int_equal(t.samples, 370);
	NEAR(t.power_w, 527.756, 1e-9);
}

/* The earliest client: scope_end carries ts_start_ns and duration_ns; unreadable GPU. */
static void test_real_stress(void **state)
{
	char p[512];
	struct tally t;
	static const struct span_want spans[] = {
		{"Allocation_Phase", 0, 210228.0, 1764999947227817LL},
		{"Heavy_Compute_Loop", 0, 51066971.7, 1764999948932934LL},
	};

	(void)state;
	if (!real(p, sizeof(p), "stress-345cdef/stress.scope.log"))
		skip();
	run_file(p, &t);
	assert_int_equal(t.events, 2);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.samples, 138);
	NEAR(t.power_w, 0.0, 1e-12);	/* temp_c 0 and power_mw 0: left out */
	assert_true(t.first_ts == 1764999947227505LL);
	check_spans(&t, spans, 2);
}

static void parse(const char *line, struct gl_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_gpufl, &ctx, line, rec);
}

/* kernel_event with epoch ns: every field, computed by hand. */
static void test_kernel_event(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"type\":\"kernel_event\",\"pid\":1,\"app\":\"demo\",\"name\":\"_Z9vectorAddPKfS0_Pfi\","
	      "\"device_id\":\"0\",\"start_ns\":1765000000000002000,\"end_ns\":1765000000000007500,"
	      "\"api_start_ns\":1765000000000000000,\"api_exit_ns\":1765000000000001200,"
	      "\"grid\":\"(4,1,1)\",\"block\":\"(256,1,1)\",\"num_regs\":16,\"dyn_shared_bytes\":1024,"
	      "\"static_shared_bytes\":512,\"occupancy\":0.75,\"stream_id\":3,\"corr_id\":132,"
	      "\"user_scope\":\"timestep|solve\",\"stack_trace\":\"main|run|step\",\"cuda_error\":0}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "_Z9vectorAddPKfS0_Pfi");	/* kept mangled */
	assert_true(rec.ev.ts_us == 1765000000000002LL);
	NEAR(rec.ev.dur_us, 5.5, 1e-12);		/* 7500 - 2000 ns */
	NEAR(rec.ev.launch_overhead_us, 1.2, 1e-12);	/* 1200 - 0 ns */
	NEAR(rec.ev.queue_us, 0.8, 1e-12);		/* 2000 - 1200 ns */
	gl_test_assert_str(rec.ev.grid, "4,1,1");
	gl_test_assert_str(rec.ev.block, "256,1,1");
	assert_int_equal(rec.ev.registers, 16);
	assert_int_equal(rec.ev.shared_mem_bytes, 1536);
	NEAR(rec.ev.occupancy, 0.75, 1e-12);
	gl_test_assert_str(rec.ev.device, "0");
	gl_test_assert_str(rec.ev.stream, "3");
	assert_int_equal(rec.ev.corr_id, 132);
	gl_test_assert_str(rec.ev.scope, "timestep|solve");
	gl_test_assert_str(rec.ev.stack, "main|run|step");
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	assert_int_equal(rec.ev.source, GL_SRC_GPUFL);
	/* the older "kernel" type, a CUDA error, and the queue when the kernel starts before the call returns */
	parse("{\"type\":\"kernel\",\"name\":\"k\",\"device_id\":0,\"start_ns\":1765000000000001000,"
	      "\"end_ns\":1765000000000002000,\"api_start_ns\":1765000000000000000,"
	      "\"api_exit_ns\":1765000000000003000,\"cuda_error\":\"cudaErrorLaunchFailure\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	NEAR(rec.ev.queue_us, 0.0, 1e-12);
	NEAR(rec.ev.launch_overhead_us, 3.0, 1e-12);
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	gl_test_assert_str(rec.ev.message, "cuda_error cudaErrorLaunchFailure");
	gl_test_assert_str(rec.ev.device, "0");
	parse("{\"type\":\"kernel_event\",\"name\":\"k\",\"start_ns\":5,\"end_ns\":4}", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	parse("{\"type\":\"kernel_event\",\"name\":\"k\",\"start_ns\":5,", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	parse("{\"timestamp\":\"2025-01-01T00:00:00Z\",\"message\":\"x\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

/* kernel_start/kernel_end by corr_id, interleaved, and across a run boundary (state copied). */
static void test_start_end_pairs(void **state)
{
	struct gl_rec rec;
	unsigned char saved[GL_PARSE_STATE_MAX];
	size_t n;

	(void)state;
	parse("{\"type\":\"kernel_start\",\"name\":\"a\",\"corr_id\":1,\"device_id\":\"1\",\"start_ns\":1765000000000001000,"
	      "\"api_start_ns\":1765000000000000000,\"api_exit_ns\":1765000000000000400}", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("{\"type\":\"kernel_start\",\"name\":\"b\",\"corr_id\":2,\"start_ns\":1765000000000002000}", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("{\"type\":\"kernel_end\",\"corr_id\":2,\"end_ns\":1765000000000002500}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "b");
	NEAR(rec.ev.dur_us, 0.5, 1e-12);
	assert_true(isnan(rec.ev.launch_overhead_us));
	/* a later run: only the state survives */
	memcpy(saved, ctx.state, ctx.state_len);
	n = ctx.state_len;
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	memcpy(ctx.state, saved, n);
	ctx.state_len = n;
	parse("{\"type\":\"kernel_end\",\"corr_id\":1,\"end_ns\":1765000000000004000}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "a");
	gl_test_assert_str(rec.ev.device, "1");
	NEAR(rec.ev.dur_us, 3.0, 1e-12);
	NEAR(rec.ev.launch_overhead_us, 0.4, 1e-12);
	NEAR(rec.ev.queue_us, 0.6, 1e-12);
	parse("{\"type\":\"kernel_end\",\"corr_id\":1,\"end_ns\":1765000000000004000}", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);	/* already paired */
	/* more open than the state holds: the extra one is a reject that says so */
	for (int i = 0; i < 7; i++) {
		char l[160];

		snprintf(l, sizeof(l), "{\"type\":\"kernel_start\",\"name\":\"k\",\"corr_id\":%d,\"start_ns\":1765000000000000000}", 10 + i);
		parse(l, &rec);
		assert_int_equal(rec.kind, i < 6 ? GL_REC_NONE : GL_REC_REJECT);
	}
	assert_non_null(strstr(rec.reason, "more than 6"));
}

/* Nested scopes per pid, matched innermost first; an end without a begin. */
static void test_scope_nesting(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"type\":\"scope_begin\",\"pid\":1,\"name\":\"timestep\",\"ts_ns\":1765000000000000000}", &rec);
	parse("{\"type\":\"scope_begin\",\"pid\":2,\"name\":\"other\",\"ts_ns\":1765000000000000500}", &rec);
	parse("{\"type\":\"scope_begin\",\"pid\":1,\"name\":\"solve\",\"ts_ns\":1765000000000001000}", &rec);
	parse("{\"type\":\"scope_begin\",\"pid\":1,\"name\":\"solve\",\"ts_ns\":1765000000000002000}", &rec);
	parse("{\"type\":\"scope_end\",\"pid\":1,\"name\":\"solve\",\"ts_ns\":1765000000000003000}", &rec);
	assert_int_equal(rec.kind, GL_REC_SPAN);
	gl_test_assert_str(rec.span.path, "timestep|solve|solve");
	assert_int_equal(rec.span.depth, 2);
	NEAR(rec.span.dur_us, 1.0, 1e-12);
	parse("{\"type\":\"scope_end\",\"pid\":1,\"name\":\"solve\",\"ts_ns\":1765000000000005000}", &rec);
	gl_test_assert_str(rec.span.path, "timestep|solve");
	assert_int_equal(rec.span.depth, 1);
	NEAR(rec.span.dur_us, 4.0, 1e-12);
	assert_true(rec.span.start_us == 1765000000000001LL);
	parse("{\"type\":\"scope_end\",\"pid\":1,\"name\":\"timestep\",\"ts_ns\":1765000000000009000}", &rec);
	gl_test_assert_str(rec.span.path, "timestep");
	assert_int_equal(rec.span.depth, 0);
	NEAR(rec.span.dur_us, 9.0, 1e-12);
	parse("{\"type\":\"scope_end\",\"pid\":2,\"name\":\"other\",\"ts_ns\":1765000000000009500}", &rec);
	gl_test_assert_str(rec.span.path, "other");
	parse("{\"type\":\"scope_end\",\"pid\":1,\"name\":\"nope\",\"ts_ns\":1765000000000009500}", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
}

/*
 * Ingest parses a line again after trying other formats on it (anything but
 * an event): the second parse gives the same span, not a scope taken twice.
 */
static void test_parse_again(void **state)
{
	const char *end = "{\"type\":\"scope_end\",\"pid\":1,\"name\":\"inner\",\"ts_ns\":1765000000000003000}";
	struct gl_rec rec;

	(void)state;
	parse("{\"type\":\"scope_begin\",\"pid\":1,\"name\":\"outer\",\"ts_ns\":1765000000000000000}", &rec);
	parse("{\"type\":\"scope_begin\",\"pid\":1,\"name\":\"inner\",\"ts_ns\":1765000000000001000}", &rec);
	for (int i = 0; i < 2; i++) {
		parse(end, &rec);
		assert_int_equal(rec.kind, GL_REC_SPAN);
		gl_test_assert_str(rec.span.path, "outer|inner");
		NEAR(rec.span.dur_us, 2.0, 1e-12);
	}
	parse("{\"type\":\"scope_end\",\"pid\":1,\"name\":\"outer\",\"ts_ns\":1765000000000004000}", &rec);
	gl_test_assert_str(rec.span.path, "outer");
	parse(end, &rec);	/* now truly a second end: no begin is open */
	assert_int_equal(rec.kind, GL_REC_REJECT);
}

/* Without prepare, a monotonic file's first record is placed at the modification time. */
static void test_monotonic_without_prepare(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"type\":\"init\",\"pid\":1,\"app\":\"x\",\"ts_ns\":5000000000}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == MTIME_US);
	gl_test_assert_str(rec.ev.message, "init app=x pid=1");
	parse("{\"type\":\"shutdown\",\"pid\":1,\"app\":\"x\",\"ts_ns\":5002000000}", &rec);
	assert_true(rec.ev.ts_us == MTIME_US + 2000);
}

/* Device readings: read times are not estimated, times placed from a
 * monotonic clock are (the field was once left as the stack had it). */
static void test_readings_estimated(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"type\":\"init\",\"pid\":1,\"app\":\"x\",\"ts_ns\":1765000000000000000,"
	      "\"devices\":[{\"id\":0,\"util_gpu\":50,\"used_mib\":100,\"total_mib\":200}]}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.n_samples, 3);	/* util_gpu, used_mib, total_mib */
	for (size_t i = 0; i < rec.n_samples; i++) {
		assert_int_equal(rec.samples[i].ts_estimated, 0);
		assert_true(rec.samples[i].ts_us == 1765000000000000LL);
	}
	parse("{\"type\":\"system_sample\",\"pid\":1,\"app\":\"x\",\"ts_ns\":5000000000,"
	      "\"devices\":[{\"id\":0,\"util_gpu\":60,\"used_mib\":110,\"total_mib\":200}]}", &rec);
	assert_int_equal(rec.n_samples, 3);
	for (size_t i = 0; i < rec.n_samples; i++)
		assert_int_equal(rec.samples[i].ts_estimated, 1);
}

/* prepare on a gzip file reads through to its last record. */
static void test_prepare_gzip(void **state)
{
	char dir[128], path[256], cmd[400];
	struct gl_rec rec;
	const char *text = "{\"type\":\"init\",\"pid\":1,\"app\":\"x\",\"ts_ns\":1000000}\n"
			   "{\"type\":\"shutdown\",\"pid\":1,\"app\":\"x\",\"ts_ns\":9000000}\n";

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "gpufl");
	snprintf(path, sizeof(path), "%s/a.kernel.1.log", dir);
	gl_test_write(path, text, strlen(text));
	snprintf(cmd, sizeof(cmd), "gzip -n '%s'", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, ".gz");
	assert_int_equal(gl_fmt_gpufl.prepare(&ctx, path), 0);
	parse("{\"type\":\"init\",\"pid\":1,\"app\":\"x\",\"ts_ns\":1000000}", &rec);
	assert_true(rec.ev.ts_us == MTIME_US - 8000);	/* (9000000 - 1000000) ns before the end */
	gl_test_rmtree(dir);
	assert_int_equal(gl_fmt_gpufl.prepare(&ctx, "/nonexistent/gpufl.log"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_viz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_beb96ec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_stress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_end_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scope_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readings_estimated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monotonic_without_prepare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare_gzip, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
