/*
 * Tests for lib/ingest/fmt_kineto.c: PyTorch profiler (Kineto) traces.
 *
 * The expected numbers for the real traces in ../shared/realdata/kineto-trace
 * were computed by a separate Python script (json.load of the whole document,
 * Decimal arithmetic): GPU events are the "ph": "X" events of category
 * kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset; a kernel's launch
 * overhead is the dur of the cuda_runtime/cuda_driver/Runtime event with the
 * same args.correlation anywhere in the file, its queue time max(0, kernel ts -
 * (call ts + call dur)); ts is ts + baseTimeNanoseconds / 1000 when the
 * document has that member; nesting depths of annotations are by true time
 * containment among the same category and thread (only used where the trace
 * is written in time order per thread, where that equals what one pass sees).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "ingest/jsonstream.h"
#include "ingest/reader.h"
#include "support/fmt_check.h"
#include "support/tmpdir.h"

extern const struct gl_format gl_fmt_kineto;

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

/* What one trace gave. */
struct tally {
	long lines, gpu, with_launch, spans, devices, rejects, none, name_hits;
	long depth[4];
	double sum_dur, sum_launch, sum_queue;
	const char *name;	/* count the GPU events of this name */
	struct gl_event first;	/* first GPU event (strings copied below) */
	char first_kernel[128], first_device[16], first_stream[16], first_grid[32], first_block[32];
	char first_reason[160];
	int have_first;
	int hold;		/* ctx->hold after the last line */
};

static void copy_str(char *dst, size_t n, struct gl_str s)
{
	snprintf(dst, n, "%.*s", s.p ? (int)s.len : 0, s.p ? s.p : "");
}

static void tally_rec(struct tally *t, const struct gl_rec *rec)
{
	switch (rec->kind) {
	case GL_REC_EVENT:
		if (!rec->ev.kernel.p) {
			t->devices++;
			break;
		}
		assert_int_equal(rec->ev.source, GL_SRC_KINETO);
		t->gpu++;
		t->sum_dur += rec->ev.dur_us;
		if (!isnan(rec->ev.launch_overhead_us)) {
			t->with_launch++;
			t->sum_launch += rec->ev.launch_overhead_us;
			t->sum_queue += rec->ev.queue_us;
		}
		if (t->name && rec->ev.kernel.len == strlen(t->name) &&
		    memcmp(rec->ev.kernel.p, t->name, rec->ev.kernel.len) == 0)
			t->name_hits++;
		if (!t->have_first) {
			t->have_first = 1;
			t->first = rec->ev;
			copy_str(t->first_kernel, sizeof(t->first_kernel), rec->ev.kernel);
			copy_str(t->first_device, sizeof(t->first_device), rec->ev.device);
			copy_str(t->first_stream, sizeof(t->first_stream), rec->ev.stream);
			copy_str(t->first_grid, sizeof(t->first_grid), rec->ev.grid);
			copy_str(t->first_block, sizeof(t->first_block), rec->ev.block);
		}
		break;
	case GL_REC_SPAN:
		t->spans++;
		t->depth[rec->span.depth < 3 ? rec->span.depth : 3]++;
		break;
	case GL_REC_REJECT:
		if (!t->rejects++)
			snprintf(t->first_reason, sizeof(t->first_reason), "%s", rec->reason);
		break;
	case GL_REC_NONE:
		t->none++;
		break;
	default:
		fail_msg("unexpected kind %d", rec->kind);
	}
}

/* Every line of the file (plain or gzip) through the format, after its prepare hook. */
static void run_file(const char *path, struct tally *t)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	struct gl_rec rec;
	int rc;

	assert_int_equal(gl_fmt_kineto.prepare(&ctx, path), 0);
	assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
	while ((rc = gl_reader_next(r, &ln, &err)) == 1) {
		t->lines++;
		if (!ln.len)
			continue;
		assert_int_equal(gl_ctx_begin_line(&ctx, ln.len), 0);
		memset(&rec, 0, sizeof(rec));
		gl_fmt_kineto.parse(&ctx, ln.p, ln.len, &rec);
		tally_rec(t, &rec);
	}
	t->hold = ctx.hold;
	gl_reader_close(r);
}

static int real_trace(char *buf, size_t n, const char *name)
{
	char sub[300];

	snprintf(sub, sizeof(sub), "kineto-trace/%s", name);
	if (!gl_test_realdata(buf, n, sub)) {
		print_message("skipped: ../shared/realdata absent (%s)\n", sub);
		return 0;
	}
	return 1;
}

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* AlexNet on A100: 8 devices, 98 GPU events, every one with its launch call after it. */
static void test_real_a100(void **state)
{
	char path[512];
	struct tally t = {.name = "Memcpy HtoD (Pageable -> Device)"};

	(void)state;
	if (!real_trace(path, sizeof(path),
			"facebookresearch+HolisticTraceAnalysis/benchmark_result_2869224_1695835535_trace.json.gz"))
		skip();
	run_file(path, &t);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.devices, 8);
	assert_int_equal(t.gpu, 98);
	assert_int_equal(t.with_launch, 98);
	assert_int_equal(t.name_hits, 16);
	NEAR(t.sum_dur, 66203.0, 1e-6);
	NEAR(t.sum_launch, 3113616.0, 1e-6);
	NEAR(t.sum_queue, 39283.0, 1e-6);
	/* written in time order per thread: depths 0:1, 1:1, 2:2, 3+:4 */
	assert_int_equal(t.spans, 8);
	assert_int_equal(t.depth[0], 1);
	assert_int_equal(t.depth[1], 1);
	assert_int_equal(t.depth[2], 2);
	assert_int_equal(t.depth[3], 4);
	/* the first GPU event: ts 1695835572943613, dur 12, launch 54, queue 1 */
	assert_true(t.first.ts_us == 1695835572943613LL);
	NEAR(t.first.dur_us, 12.0, 1e-9);
	NEAR(t.first.launch_overhead_us, 54.0, 1e-9);
	NEAR(t.first.queue_us, 1.0, 1e-9);
	assert_string_equal(t.first_device, "0");
	assert_string_equal(t.first_stream, "7");
	assert_int_equal(t.first.corr_id, 14);
	assert_int_equal(t.hold, 0);
}

/* ROCm MI250: ts relative to baseTimeNanoseconds, written after the events. */
static void test_real_mi250_base_time(void **state)
{
	char path[512];
	struct tally t = {.name = "Memcpy HtoD (Host -> Device)"};

	(void)state;
	if (!real_trace(path, sizeof(path),
			"facebookresearch+HolisticTraceAnalysis/mi250_minitoy_train_ROCm6_2_kineto.json.gz"))
		skip();
	run_file(path, &t);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.devices, 4);
	assert_int_equal(t.gpu, 16);
	assert_int_equal(t.with_launch, 16);	/* launch calls come before the kernels here */
	assert_int_equal(t.name_hits, 2);
	assert_int_equal(t.spans, 5);
	NEAR(t.sum_dur, 149.042, 1e-6);
	NEAR(t.sum_launch, 6734.333, 1e-6);
	NEAR(t.sum_queue, 92.319, 1e-6);
	/* 1735632360000000000 ns / 1000 + 4203669603454.206 = 1739836029603454.206 */
	assert_true(llabs(t.first.ts_us - 1739836029603454LL) <= 1);
	NEAR(t.first.dur_us, 22.441, 1e-9);
	NEAR(t.first.launch_overhead_us, 60.204, 1e-9);
	assert_string_equal(t.first_device, "2");
	assert_string_equal(t.first_stream, "0");
}

/* V100 ResNet, 68,692 events over 411k lines: grid, block, registers, occupancy. */
static void test_real_v100_ns(void **state)
{
	char path[512];
	struct tally t = {.name = "Memcpy DtoD (Device -> Device)"};

	(void)state;
	if (!real_trace(path, sizeof(path),
			"facebookresearch+HolisticTraceAnalysis/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"))
		skip();
	run_file(path, &t);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.devices, 8);
	assert_int_equal(t.gpu, 6095);
	assert_int_equal(t.with_launch, 6095);
	assert_int_equal(t.name_hits, 1600);
	assert_int_equal(t.spans, 85);
	NEAR(t.sum_dur, 472454.441, 1e-3);
	NEAR(t.sum_launch, 266051.433, 1e-3);
	NEAR(t.sum_queue, 418637223.421, 1e-1);
	assert_true(llabs(t.first.ts_us - 1712195495505583LL) <= 1);
	NEAR(t.first.dur_us, 4.928, 1e-9);
	NEAR(t.first.launch_overhead_us, 41.768, 1e-9);
	NEAR(t.first.queue_us, 0.0, 1e-9);
	assert_string_equal(t.first_grid, "4,106,1");
	assert_string_equal(t.first_block, "128,1,1");
	assert_int_equal(t.first.registers, 30);
	assert_int_equal(t.first.shared_mem_bytes, 0);
	NEAR(t.first.occupancy, 0.33, 1e-12);
	assert_string_equal(t.first_stream, "7");
}

/* 2021: capitalised categories, "tid": "stream 7", launch calls named Runtime. */
static void test_real_2021_categories(void **state)
{
	char path[512];
	struct tally t = {.name = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)"};

	(void)state;
	if (!real_trace(path, sizeof(path), "pytorch+kineto/worker0.1623213129365.pt.trace.json.gz"))
		skip();
	run_file(path, &t);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(t.devices, 4);
	assert_int_equal(t.gpu, 9258);
	assert_int_equal(t.with_launch, 9258);
	assert_int_equal(t.name_hits, 3090);
	assert_int_equal(t.spans, 0);
	NEAR(t.sum_dur, 612158.0, 1e-6);
	NEAR(t.sum_launch, 186945.0, 1e-6);
	NEAR(t.sum_queue, 81859450.0, 1e-3);
	assert_true(t.first.ts_us == 1623212760175835LL);
	NEAR(t.first.launch_overhead_us, 45697.0, 1e-9);
	assert_string_equal(t.first_stream, "7");
	assert_string_equal(t.first_device, "0");
}

/* Detection picks kineto from a trace's first lines. */
static void test_detect(void **state)
{
	static const char *const head[] = {
		"", "{", "  \"schemaVersion\": 1,", "  \"deviceProperties\": [", "    {",
		"      \"id\": 0, \"name\": \"NVIDIA A100-PG509-200\", \"totalGlobalMem\": 42297524224,",
		"      \"computeMajor\": 8, \"computeMinor\": 0", "    }", "  ],",
		"  \"traceEvents\": [", "  {",
	};
	struct gl_str lines[sizeof(head) / sizeof(head[0])];
	const char *why = NULL;
	const struct gl_format *f;

	(void)state;
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		lines[i] = (struct gl_str){head[i], strlen(head[i])};
	f = gl_format_detect(lines, sizeof(head) / sizeof(head[0]), &why);
	assert_non_null(f);
	assert_string_equal(f->name, "kineto");
}

/* Feeds NUL-terminated lines; tallies. */
static void feed(const char *const *lines, size_t n, struct tally *t, struct gl_rec *last_ev)
{
	struct gl_rec rec;

	for (size_t i = 0; i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, lines[i], &rec);
		tally_rec(t, &rec);
		if (last_ev && rec.kind == GL_REC_EVENT)
			*last_ev = rec;
	}
}

/* Kernel before its launch call (CUDA order) and after it (ROCm order). */
static void test_launch_pairing(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		/* kernel first: held until its call, 3 elements on */
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7,",
		" \"ts\": 1000, \"dur\": 10, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 5}",
		"},",
		"{\"ph\": \"f\", \"id\": 5, \"pid\": 0, \"tid\": 7, \"ts\": 1000, \"cat\": \"ac2g\", \"name\": \"ac2g\"},",
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,",
		" \"ts\": 990, \"dur\": 4.5, \"args\": {\"correlation\": 5}",
		"},",
		/* call first */
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,",
		" \"ts\": 2000, \"dur\": 3, \"args\": {\"correlation\": 6}",
		"},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7,",
		" \"ts\": 2001, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 6}",
		"},",
		/* no call at all: goes out at the end of the array */
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\", \"pid\": 0, \"tid\": 7,",
		" \"ts\": 3000, \"dur\": 30, \"args\": {\"correlation\": 7}",
		"}",
		"]",
		"}",
	};
	struct gl_rec rec;
	int seen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[i], &rec);
		if (i == 3 || i == 4 || i == 5 || i == 6 || i == 7)
			assert_int_equal(ctx.hold, 1);	/* k1 is held: its lines are not claimed */
		if (rec.kind != GL_REC_EVENT)
			continue;
		seen++;
		if (seen == 1) {
			assert_int_equal(i, 8);	/* at its call's last line */
			gl_test_assert_str(rec.ev.kernel, "k1");
			NEAR(rec.ev.launch_overhead_us, 4.5, 1e-12);
			NEAR(rec.ev.queue_us, 1000 - 994.5, 1e-12);
			assert_true(rec.ev.ts_us == 1000);
		} else if (seen == 2) {
			gl_test_assert_str(rec.ev.kernel, "k2");
			NEAR(rec.ev.launch_overhead_us, 3.0, 1e-12);
			NEAR(rec.ev.queue_us, 0.0, 1e-12);	/* 2001 - 2003 < 0 */
		} else {
			assert_int_equal(i, 18);	/* the array's end */
			gl_test_assert_str(rec.ev.kernel, "k3");
			assert_true(isnan(rec.ev.launch_overhead_us));
			assert_true(rec.ev.device.p == NULL || rec.ev.device.len == 1);
		}
	}
	assert_int_equal(seen, 3);
	assert_int_equal(ctx.hold, 0);
}

/*
 * Strings holding what is structure outside them (brackets, braces, an
 * escaped quote, an escaped backslash before the closing quote) and nested
 * arrays over several lines: the element is cut where the JSON says, and
 * the name comes out decoded. The decoded name is written here by hand:
 * k<"{[x]}\"> y\ (the JSON below escapes each " and \).
 */
static void test_strings_with_structure(void **state)
{
	static const char *const doc[] = {
		"{", "  \"traceEvents\": [",
		"  {",
		"    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k<\\\"{[x]}\\\\\\\">] y\\\\\", \"pid\": 0, \"tid\": 7,",
		"    \"ts\": 1000, \"dur\": 10,",
		"    \"args\": {",
		"      \"note\": \"}]}]\", \"grid\": [",
		"        [1, 2], {\"a\": \"[\"}",
		"      ], \"device\": 0, \"stream\": 7, \"correlation\": 9",
		"    }",
		"  },",
		"  {",
		"    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,",
		"    \"ts\": 990, \"dur\": 2.5, \"args\": {\"correlation\": 9}",
		"  }",
		"  ],",
		"  \"traceName\": \"t\\\"]}\"",
		"}",
	};
	struct gl_rec rec;
	int seen = 0, rejects = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[i], &rec);
		rejects += rec.kind == GL_REC_REJECT;
		if (rec.kind != GL_REC_EVENT)
			continue;
		seen++;
		assert_int_equal(i, 14);	/* at its launch call's closing line */
		gl_test_assert_str(rec.ev.kernel, "k<\"{[x]}\\\">] y\\");
		NEAR(rec.ev.launch_overhead_us, 2.5, 1e-12);
		NEAR(rec.ev.dur_us, 10.0, 1e-12);
	}
	assert_int_equal(seen, 1);
	assert_int_equal(rejects, 0);
	assert_int_equal(ctx.hold, 0);
}

/*
 * Trace events of many shapes, one per line: the fast walk of an element
 * (plain keys, strings and numbers) and the validating walk it leaves the
 * rest to must read the same values, and an element that is not JSON is a
 * reject with the scanner's reason. Expected values by hand from the JSON.
 */
struct shape {
	const char *line;	/* the element, with its ',' */
	const char *reason;	/* a reject's reason holds this; NULL: an event */
	const char *kernel, *device, *stream, *grid, *block;	/* NULL: absent */
	int64_t ts_us;
	double dur_us;
	int64_t registers;
};

static void check_str(struct gl_str s, const char *want)
{
	if (!want)
		assert_null(s.p);
	else
		gl_test_assert_str(s, want);
}

static void test_event_shapes(void **state)
{
	static const struct shape shapes[] = {
		/* all plain: the fast walk alone */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7, "
		 "\"ts\": 1000.5, \"dur\": 2.25, \"args\": {\"device\": 3, \"stream\": 9, "
		 "\"grid\": [4, 5, 6], \"block\": [128,1,1], \"registers per thread\": 32}},",
		 NULL, "k1", "3", "9", "4,5,6", "128,1,1", 1001, 2.25, 32},
		/* no blanks at all, and tabs */
		{"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"ts\":10,\"dur\":1,"
		 "\"args\":{\"grid\":[1,2,3]}},",
		 NULL, "k2", NULL, NULL, "1,2,3", NULL, 10, 1.0, -1},
		{"{\t\"ph\"\t:\t\"X\" ,\t\"cat\": \"kernel\",\"name\": \"k3\", \"ts\": 10.25 ,\"dur\" : 1.5 ,"
		 " \"args\" : { \"grid\" : [ 1 , 2 ] } } ,",
		 NULL, "k3", NULL, NULL, "1,2", NULL, 10, 1.5, -1},
		/* escapes and UTF-8 in a value: "a\u00e9\"b" is a, e-acute, '"', b */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\\u00e9\\\"b\", \"ts\": 5, \"dur\": 1},",
		 NULL, "a\xc3\xa9\"b", NULL, NULL, NULL, NULL, 5, 1.0, -1},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"caf\xc3\xa9\", \"ts\": 5, \"dur\": 1},",
		 NULL, "caf\xc3\xa9", NULL, NULL, NULL, NULL, 5, 1.0, -1},
		/* an exponent, a duplicated member (the last counts), args twice */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k6\", \"ts\": 7, \"dur\": 2.5e1, "
		 "\"dur\": 1.25E+1, \"args\": {\"device\": 1}, \"args\": {\"stream\": 4}},",
		 NULL, "k6", "1", "4", NULL, NULL, 7, 12.5, -1},
		/* args not an object: ignored; device and stream from pid and tid */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k7\", \"pid\": 5, \"tid\": \"stream 8\", "
		 "\"ts\": 7, \"dur\": 1, \"args\": [1, {\"device\": 2}]},",
		 NULL, "k7", "5", "8", NULL, NULL, 7, 1.0, -1},
		/* nested values in args; grid of arrays, of reals, of four: no grid */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k8\", \"ts\": 7, \"dur\": 1, "
		 "\"args\": {\"x\": {\"y\": [true, null, false]}, \"grid\": [[1, 2], [3]], "
		 "\"block\": [1.5, 2], \"registers per thread\": 1e2}},",
		 NULL, "k8", NULL, NULL, NULL, NULL, 7, 1.0, -1},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k9\", \"ts\": -3, \"dur\": 0, "
		 "\"args\": {}, \"args\": {\"grid\": [1, 2, 3, 4], \"block\": [-0, 7]}},",
		 NULL, "k9", NULL, NULL, NULL, "-0,7", -3, 0.0, -1},
		/* 19 integer digits: past the fast number, still an int64 */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k10\", \"ts\": 1000000000000000000, "
		 "\"dur\": 1, \"args\": {\"registers per thread\": 1000000000000000001}},",
		 NULL, "k10", NULL, NULL, NULL, NULL, 1000000000000000000, 1.0, 1000000000000000001},
		/* a key with an escape is that key as written: "na\u006de" is no "name" */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"na\\u006de\": \"k11\", \"ts\": 7, \"dur\": 1},",
		 "GPU event: no name"},
		/* not JSON: rejected with the scanner's reason */
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k12\", \"ts\": 7, \"dur\": 01},",
		 "leading zero"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k13\", \"ts\": 7, \"dur\": 1, "
		 "\"args\": {\"correlation\": 99999999999999999999}},",
		 "integer out of range"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\xff\", \"ts\": 7, \"dur\": 1},",
		 "invalid UTF-8"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k15\", \"ts\": 7, \"dur\": 1,},",
		 "string expected"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k16\", \"ts\": 7 \"dur\": 1},",
		 "',' or '}' expected"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k17\", \"ts\": 7, \"dur\": tru},",
		 "invalid token"},
		{"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k18\", \"ts\": 7, \"dur\": 1., \"x\": 1},",
		 "no digit after '.'"},
	};
	struct gl_rec rec;

	(void)state;
	gl_test_parse(&gl_fmt_kineto, &ctx, "{", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "\"traceEvents\": [", &rec);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *sh = &shapes[i];

		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, sh->line, &rec);
		if (sh->reason) {
			if (rec.kind != GL_REC_REJECT || !strstr(rec.reason, sh->reason))
				fail_msg("shape %zu: kind %d, reason '%s', want a reject '%s'", i,
					 rec.kind, rec.kind == GL_REC_REJECT ? rec.reason : "", sh->reason);
			continue;
		}
		if (rec.kind != GL_REC_EVENT)
			fail_msg("shape %zu: kind %d (%s), want an event", i, rec.kind,
				 rec.kind == GL_REC_REJECT ? rec.reason : "");
		check_str(rec.ev.kernel, sh->kernel);
		check_str(rec.ev.device, sh->device);
		check_str(rec.ev.stream, sh->stream);
		check_str(rec.ev.grid, sh->grid);
		check_str(rec.ev.block, sh->block);
		assert_int_equal(rec.ev.ts_us, sh->ts_us);
		assert_true(rec.ev.dur_us == sh->dur_us);
		assert_int_equal(rec.ev.registers, sh->registers);
	}
	gl_test_parse(&gl_fmt_kineto, &ctx, "{\"ph\": \"i\"}", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "]}", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
}

/*
 * ts split into whole µs and fraction: the fraction is 988 / 10^3 for
 * ".988", which must be the double strtod("0.988") gives. Kernel and
 * launch call 0.001 µs apart in the fraction only: the queue time is the
 * exact difference of the fractions.
 */
static void test_ts_fraction(void **state)
{
	static const char *const fracs[] = {"0.988", "0.1", "0.3", "0.123456789012345",
					    "0.000000000000001", "0.999999999999999"};
	struct gl_rec rec;
	char line[256];

	(void)state;
	gl_test_parse(&gl_fmt_kineto, &ctx, "{", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "\"traceEvents\": [", &rec);
	for (size_t i = 0; i < sizeof(fracs) / sizeof(fracs[0]); i++) {
		double want_q = strtod(fracs[i], NULL) - strtod("0.0005", NULL) - 0.25;

		snprintf(line, sizeof(line),
			 "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"l\", \"ts\": "
			 "1712195495505582.0005, \"dur\": 0.25, \"args\": {\"correlation\": %zu}},",
			 i + 1);
		gl_test_parse(&gl_fmt_kineto, &ctx, line, &rec);
		assert_int_equal(rec.kind, GL_REC_NONE);
		snprintf(line, sizeof(line),
			 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1712195495505582%s, "
			 "\"dur\": 1, \"args\": {\"correlation\": %zu}},",
			 fracs[i] + 1, i + 1);
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, line, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		/* (whole - whole) + (frac - frac) - dur, each term as strtod reads it */
		if (want_q < 0)
			want_q = 0;
		assert_true(rec.ev.queue_us == want_q);
		assert_true(rec.ev.launch_overhead_us == 0.25);
	}
}

/* Annotations nested by time on one thread; another thread has its own stack. */
static void test_annotation_nesting(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"timestep\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"solve\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 20},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"other\", \"pid\": 1, \"tid\": 2, \"ts\": 12, \"dur\": 1},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"inner\", \"pid\": 1, \"tid\": 1, \"ts\": 11, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"io\", \"pid\": 1, \"tid\": 1, \"ts\": 40, \"dur\": 5},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"next\", \"pid\": 1, \"tid\": 1, \"ts\": 200, \"dur\": 5}",
		"]}",
	};
	static const struct {
		const char *path;
		int depth;
	} want[] = {
		{"timestep", 0}, {"timestep|solve", 1}, {"other", 0}, {"timestep|solve|inner", 2},
		{"timestep|io", 1}, {"next", 0},
	};
	struct gl_rec rec;
	size_t k = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[i], &rec);
		if (rec.kind != GL_REC_SPAN)
			continue;
		assert_true(k < sizeof(want) / sizeof(want[0]));
		gl_test_assert_str(rec.span.path, want[k].path);
		assert_int_equal(rec.span.depth, want[k].depth);
		k++;
	}
	assert_int_equal(k, 6);
}

/*
 * GPU-side copies (gpu_user_annotation) as Kineto writes them: under pid =
 * the device, no args.device, out of start order, copies of one name that
 * overlap. Each is nested only in a copy that holds it whole; they are on
 * their device, a tree apart from the CPU ranges, which are on none, and
 * apart from another device's copies on a stream of the same number.
 */
static void test_gpu_annotations(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"Optimizer.step\", \"pid\": 0, \"tid\": 7, \"ts\": 500, \"dur\": 100},",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"## backward ##\", \"pid\": 0, \"tid\": 7, \"ts\": 100, \"dur\": 50},",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"## backward ##\", \"pid\": 0, \"tid\": 7, \"ts\": 120, \"dur\": 60},",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"forward\", \"pid\": 0, \"tid\": 7, \"ts\": 0, \"dur\": 1000},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"step\", \"pid\": 9, \"tid\": 9, \"ts\": 0, \"dur\": 1000},",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"inner\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5},",
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"copy\", \"pid\": 1, \"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"device\": 3}}",
		"]}",
	};
	static const struct {
		const char *path, *device;
		int depth;
	} want[] = {
		{"Optimizer.step", "0", 0}, {"## backward ##", "0", 0}, {"## backward ##", "0", 0},
		{"forward", "0", 0}, {"step", NULL, 0}, {"forward|inner", "0", 1}, {"copy", "3", 0},
	};
	struct gl_rec rec;
	size_t k = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[i], &rec);
		if (rec.kind != GL_REC_SPAN)
			continue;
		assert_true(k < sizeof(want) / sizeof(want[0]));
		gl_test_assert_str(rec.span.path, want[k].path);
		assert_int_equal(rec.span.depth, want[k].depth);
		if (want[k].device)
			gl_test_assert_str(rec.span.device, want[k].device);
		else
			assert_true(rec.span.device.p == NULL || rec.span.device.len == 0);
		k++;
	}
	assert_int_equal(k, 7);
}

/* Ingest parses a span or reject line again: the same result, the line not fed twice. */
static void test_parse_again(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"a\", \"tid\": 1, \"ts\": 0, \"dur\": 100},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\", \"ts\": 1x, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"b\", \"tid\": 1, \"ts\": 5, \"dur\": 1}",
		"]}",
	};
	struct gl_rec rec;

	(void)state;
	feed(doc, 2, &(struct tally){0}, NULL);
	for (int i = 0; i < 2; i++) {
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[2], &rec);
		assert_int_equal(rec.kind, GL_REC_SPAN);
		gl_test_assert_str(rec.span.path, "a");
	}
	for (int i = 0; i < 2; i++) {
		gl_test_parse(&gl_fmt_kineto, &ctx, doc[3], &rec);
		assert_int_equal(rec.kind, GL_REC_REJECT);
	}
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[4], &rec);
	assert_int_equal(rec.kind, GL_REC_SPAN);
	gl_test_assert_str(rec.span.path, "a|b");
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[5], &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
}

/* A bad element is one reject; a structural break rejects the rest, with reasons. */
static void test_corrupt(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ok\", \"ts\": 1, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\", \"ts\": 1x, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"nodur\", \"ts\": 1},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ok2\", \"ts\": 3, \"dur\": 4},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ok3\", \"ts\": 3, \"dur\": 4}}",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"after\", \"ts\": 3, \"dur\": 4},",
	};
	struct tally t = {0};
	struct gl_rec rec;

	(void)state;
	feed(doc, 6, &t, NULL);
	assert_int_equal(t.gpu, 2);
	assert_int_equal(t.rejects, 2);
	memset(&rec, 0, sizeof(rec));
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[6], &rec);	/* "}}" closes the array's place */
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "Kineto trace: "));
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[7], &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_non_null(strstr(rec.reason, "broken earlier"));
}

/* A trace cut inside an element: nothing made of it, and the lines stay unclaimed. */
static void test_truncated(void **state)
{
	static const char *const doc[] = {
		"{", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ok\", \"ts\": 1, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"cut\",",
		"  \"ts\": 1,",
	};
	struct tally t = {0};

	(void)state;
	feed(doc, 3, &t, NULL);
	assert_int_equal(ctx.hold, 0);
	feed(doc + 3, 2, &t, NULL);
	assert_int_equal(t.gpu, 1);
	assert_int_equal(t.rejects, 0);
	assert_int_equal(ctx.hold, 1);
}

/* State kept at unclaimed-free lines lets a later run go on from there. */
static void test_resume_from_state(void **state)
{
	static const char *const doc[] = {
		"{", "\"baseTimeNanoseconds\": 1000000000,", "\"traceEvents\": [",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"ts\": 1, \"dur\": 2},",
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\",",
		" \"ts\": 5, \"dur\": 2},",
		"]}",
	};
	struct gl_rec rec;
	unsigned char saved[GL_PARSE_STATE_MAX];
	size_t saved_len;

	(void)state;
	feed(doc, 4, &(struct tally){0}, NULL);
	assert_int_equal(ctx.hold, 0);
	memcpy(saved, ctx.state, ctx.state_len);
	saved_len = ctx.state_len;
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	memcpy(ctx.state, saved, saved_len);
	ctx.state_len = saved_len;
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[4], &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[5], &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "b");
	assert_true(rec.ev.ts_us == 1000000 + 5);	/* the base came back with the state */
	gl_test_parse(&gl_fmt_kineto, &ctx, doc[6], &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
}

/* Other JSON: JSON lines and documents that are not traces are not this format's. */
static void test_foreign(void **state)
{
	struct gl_rec rec;

	(void)state;
	gl_test_parse(&gl_fmt_kineto, &ctx, "{\"timestamp\": \"2025-01-01T00:00:00Z\", \"message\": \"x\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_test_parse(&gl_fmt_kineto, &ctx, "2025-01-01 INFO started", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_test_parse(&gl_fmt_kineto, &ctx, "{", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "  \"name\": \"package.json\",", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_test_parse(&gl_fmt_kineto, &ctx, "{", &rec);
	assert_int_not_equal(rec.kind, GL_REC_EVENT);
}

static long rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * 200,000 generated events, 6 lines each, fed line by line: every kernel is
 * counted and the element buffer's high-water mark stays at one element's
 * size; the process' peak RSS grows by far less than the 100+ MB document.
 */
static void test_bounded_memory(void **state)
{
	char line[512];
	struct gl_rec rec;
	long gpu = 0, launches = 0, before = rss_kib();
	const long n = 200000;

	(void)state;
	gl_test_parse(&gl_fmt_kineto, &ctx, "{", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "  \"schemaVersion\": 1,", &rec);
	gl_test_parse(&gl_fmt_kineto, &ctx, "  \"traceEvents\": [", &rec);
	for (long i = 0; i < n; i++) {
		const char *cat = i % 2 ? "kernel" : "cuda_runtime";
		const char *lines[6];
		char l2[160], l3[160];

		snprintf(l2, sizeof(l2), "    \"ph\": \"X\", \"cat\": \"%s\", \"name\": \"gen_kernel_%ld\", \"pid\": 0, \"tid\": 7,", cat, i % 10);
		snprintf(l3, sizeof(l3), "    \"ts\": %ld, \"dur\": 3, \"args\": {\"correlation\": %ld, \"device\": 0, \"stream\": 7}", 1700000000000000L + i * 10, i / 2);
		lines[0] = "  {";
		lines[1] = l2;
		lines[2] = l3;
		lines[3] = "    ,\"pad\": \"................................................................\"";
		lines[4] = "  }";
		lines[5] = i + 1 < n ? "  ," : "  ]";
		for (int j = 0; j < 6; j++) {
			snprintf(line, sizeof(line), "%s", lines[j]);
			memset(&rec, 0, sizeof(rec));
			assert_int_equal(gl_ctx_begin_line(&ctx, strlen(line)), 0);
			gl_fmt_kineto.parse(&ctx, line, strlen(line), &rec);
			if (rec.kind == GL_REC_EVENT && rec.ev.kernel.p) {
				gpu++;
				launches += !isnan(rec.ev.launch_overhead_us);
			} else if (rec.kind == GL_REC_REJECT) {
				fail_msg("reject: %s", rec.reason);
			}
		}
	}
	gl_test_parse(&gl_fmt_kineto, &ctx, "}", &rec);
	assert_int_equal(gpu, n / 2);
	assert_int_equal(launches, n / 2);	/* each call comes just before its kernel */
	/* the element buffer: struct kin starts with its jstream */
	const struct gl_jstream *js = ctx.priv;

	assert_non_null(js);
	assert_true(js->units == (uint64_t)n + 1);
	assert_true(js->high_water < 512);
	assert_true(rss_kib() - before < 16 * 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_a100, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_mi250_base_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_v100_ns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_2021_categories, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_pairing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings_with_structure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ts_fraction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_annotation_nesting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_annotations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_from_state, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded_memory, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
