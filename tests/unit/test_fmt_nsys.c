/*
 * Tests for lib/ingest/fmt_nsys.c: Nsight Systems cuda_gpu_trace CSV.
 *
 * The expected numbers for the real file
 * ../shared/realdata/nsys-stats/PranavDani+Flame/torch-ex_cuda_gpu_trace_base.csv
 * were computed by a python3 one-off (csv.DictReader over the file, integer
 * sums of "Duration (ns)" per Name, Start + Duration of the last row), not by
 * this parser:
 *   2,685 rows; vectorized_elementwise_kernel 900 rows, 63,038,854 ns;
 *   [CUDA memcpy Host-to-Device] 122, 4,853,413 ns; [CUDA memset] 81,
 *   75,362 ns; nchwToNhwcKernel 640, 35,205,651 ns; all rows 344,229,156 ns;
 *   2,482 rows with a grid; the first row starts at 1,949,099,896 ns, the
 *   last ends at 2,486,462,999 ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "ingest/reader.h"
#include "support/fmt_check.h"
#include "support/tmpdir.h"

extern const struct gl_format gl_fmt_nsys;

#define REAL "nsys-stats/PranavDani+Flame/torch-ex_cuda_gpu_trace_base.csv"
#define TRANSCRIPT "nsys-stats/YKTian-x2b+AI4Materials_EvaluationTool/torch_gcn_profile_nsys.txt"
#define HEADER "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd," \
	       "StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd," \
	       "Device,Ctx,GreenCtx,Strm,Name"

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

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void parse(const char *line, struct gl_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_nsys, &ctx, line, rec);
}

static int str_is(struct gl_str s, const char *want)
{
	return s.p && s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

/* The real file, prepared and read line by line. */
static void test_real_file(void **state)
{
	char path[512];
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	struct gl_rec rec;
	long rows = 0, none = 0, other = 0, grids = 0, vec = 0, h2d = 0, mset = 0, nchw = 0;
	double all_ns = 0, vec_ns = 0, h2d_ns = 0, mset_ns = 0, nchw_ns = 0;
	int64_t min_ts = INT64_MAX, max_ts = INT64_MIN;
	const int64_t mtime = 1740830400000000LL;	/* 2025-03-01 12:00:00 UTC */

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), REAL)) {
		print_message("skipped: ../shared/realdata absent (%s)\n", REAL);
		skip();
	}
	ctx.file_mtime_us = mtime;
	assert_int_equal(gl_fmt_nsys.prepare(&ctx, path), 0);
	assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
	while (gl_reader_next(r, &ln, &err) == 1) {
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(gl_ctx_begin_line(&ctx, ln.len), 0);
		gl_fmt_nsys.parse(&ctx, ln.p, ln.len, &rec);
		if (rec.kind == GL_REC_NONE) {
			none++;
			continue;
		}
		if (rec.kind != GL_REC_EVENT) {
			other++;
			continue;
		}
		rows++;
		all_ns += rec.ev.dur_us * 1000.0;
		grids += rec.ev.grid.p != NULL;
		if (rec.ev.ts_us < min_ts)
			min_ts = rec.ev.ts_us;
		if (rec.ev.ts_us > max_ts)
			max_ts = rec.ev.ts_us;
		assert_int_equal(rec.ev.source, GL_SRC_NSYS);
		assert_true(str_is(rec.ev.device, "0"));
		if (str_is(rec.ev.kernel, "vectorized_elementwise_kernel")) {
			vec++;
			vec_ns += rec.ev.dur_us * 1000.0;
		} else if (str_is(rec.ev.kernel, "[CUDA memcpy Host-to-Device]")) {
			h2d++;
			h2d_ns += rec.ev.dur_us * 1000.0;
		} else if (str_is(rec.ev.kernel, "[CUDA memset]")) {
			mset++;
			mset_ns += rec.ev.dur_us * 1000.0;
		} else if (str_is(rec.ev.kernel, "nchwToNhwcKernel")) {
			nchw++;
			nchw_ns += rec.ev.dur_us * 1000.0;
		}
	}
	gl_reader_close(r);
	assert_int_equal(none, 1);
	assert_int_equal(other, 0);
	assert_int_equal(rows, 2685);
	assert_int_equal(grids, 2482);
	assert_int_equal(vec, 900);
	assert_int_equal(h2d, 122);
	assert_int_equal(mset, 81);
	assert_int_equal(nchw, 640);
	NEAR(all_ns, 344229156.0, 1e-3);
	NEAR(vec_ns, 63038854.0, 1e-4);
	NEAR(h2d_ns, 4853413.0, 1e-5);
	NEAR(mset_ns, 75362.0, 1e-6);
	NEAR(nchw_ns, 35205651.0, 1e-4);
	/* last end 2,486,462,999 ns at the mtime: the session's 0 is at mtime - 2,486,462 µs */
	assert_true(max_ts == mtime - 2486462 + 2486459);	/* last start 2,486,459,031 ns */
	assert_true(min_ts == mtime - 2486462 + 1949099);	/* first start 1,949,099,896 ns */
}

/* The transcript of nsys profile --stats=true is refused with its reason; the CSV detected. */
static void detect_file(const char *sub, const char **name, const char **why)
{
	char path[512];
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	struct gl_str lines[32];
	char *copy[32] = {0};
	size_t n = 0;
	const struct gl_format *f;

	assert_true(gl_test_realdata(path, sizeof(path), sub));
	assert_int_equal(gl_reader_open(&r, path, &err), GL_OK);
	while (n < 32 && gl_reader_next(r, &ln, &err) == 1) {
		copy[n] = malloc(ln.len + 1);
		assert_non_null(copy[n]);
		memcpy(copy[n], ln.p, ln.len);
		lines[n] = (struct gl_str){copy[n], ln.len};
		n++;
	}
	gl_reader_close(r);
	*why = NULL;
	f = gl_format_detect(lines, n, why);
	*name = f ? f->name : "(none)";
	for (size_t i = 0; i < n; i++)
		free(copy[i]);
}

static void test_real_detection(void **state)
{
	char path[512];
	const char *name, *why;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), REAL) ||
	    !gl_test_realdata(path, sizeof(path), TRANSCRIPT)) {
		print_message("skipped: ../shared/realdata absent (nsys-stats)\n");
		skip();
	}
	detect_file(REAL, &name, &why);
	assert_string_equal(name, "nsys");
	detect_file(TRANSCRIPT, &name, &why);
	assert_string_equal(name, "(none)");
	assert_non_null(why);
	assert_string_equal(why, "an nsys --stats summary, not a trace: export with "
				 "nsys stats --report cuda_gpu_trace --format csv");
}

/* A kernel row: every trace field; SI megabytes of shared memory. */
static void test_kernel_row(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.file_mtime_us = 1000000000000000LL;
	parse(HEADER, &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	/* without prepare, the first row read ends at the mtime: 16,064 ns after its start */
	parse("2486442167,16064,40394,16,2,3,256,1,1,82,0.027,0.049,,,,,NVIDIA RTX A4500 (0),1,,7,"
	      "ampere_sgemm_64x32_sliced1x4_tn", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "ampere_sgemm_64x32_sliced1x4_tn");
	NEAR(rec.ev.dur_us, 16.064, 1e-9);
	/* 1e15 - floor(2,486,458,231 / 1000) + floor(2,486,442,167 / 1000) */
	assert_true(rec.ev.ts_us == 1000000000000000LL - 2486458 + 2486442);
	assert_int_equal(rec.ev.corr_id, 40394);
	gl_test_assert_str(rec.ev.grid, "16,2,3");
	gl_test_assert_str(rec.ev.block, "256,1,1");
	assert_int_equal(rec.ev.registers, 82);
	assert_int_equal(rec.ev.shared_mem_bytes, 27000 + 49000);
	gl_test_assert_str(rec.ev.device, "0");
	gl_test_assert_str(rec.ev.stream, "7");
	gl_test_assert_str(rec.ev.component, "nsys");
	assert_int_equal(rec.ev.source, GL_SRC_NSYS);
	gl_test_assert_str(rec.ev.metadata, "{\"device_name\":\"NVIDIA RTX A4500\",\"context\":\"1\"}");
	/* the next row keeps the clock */
	parse("2486459031,3968,40397,32,4,1,32,16,1,44,0.000,0.000,,,,,NVIDIA RTX A4500 (0),1,,7,"
	      "splitKreduce_kernel", &rec);
	assert_true(rec.ev.ts_us == 1000000000000000LL - 2486458 + 2486459);
}

/* memcpy and memset rows: no grid, bytes from the throughput, kinds in metadata. */
static void test_memcpy_memset(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse(HEADER, &rec);
	parse("1949099896,3552,142,,,,,,,,,,0.038,10594.575,Pageable,Device,NVIDIA RTX A4500 (0),1,,7,"
	      "[CUDA memcpy Host-to-Device]", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "[CUDA memcpy Host-to-Device]");
	assert_null(rec.ev.grid.p);
	assert_null(rec.ev.block.p);
	assert_int_equal(rec.ev.registers, -1);
	assert_int_equal(rec.ev.shared_mem_bytes, -1);
	/* 10,594.575 MB/s * 3,552 ns = 37,632.0 bytes (0.038 MB rounded) */
	gl_test_assert_str(rec.ev.metadata, "{\"device_name\":\"NVIDIA RTX A4500\",\"context\":\"1\","
			   "\"bytes\":37632,\"src_mem_kind\":\"Pageable\",\"dst_mem_kind\":\"Device\"}");
	parse("1964193548,2080,2373,,,,,,,,,,0.011,5169.228,Device,,NVIDIA RTX A4500 (0),1,,13,"
	      "[CUDA memset]", &rec);
	/* 5,169.228 MB/s * 2,080 ns = 10,751.99 -> 10,752 bytes */
	gl_test_assert_str(rec.ev.metadata, "{\"device_name\":\"NVIDIA RTX A4500\",\"context\":\"1\","
			   "\"bytes\":10752,\"src_mem_kind\":\"Device\"}");
	gl_test_assert_str(rec.ev.stream, "13");
	/* no throughput: the Bytes column, SI megabytes */
	parse("1964193548,0,2373,,,,,,,,,,0.011,,Device,,GPU-9a1b,1,,13,[CUDA memset]", &rec);
	gl_test_assert_str(rec.ev.metadata, "{\"context\":\"1\",\"bytes\":11000,\"src_mem_kind\":\"Device\"}");
	gl_test_assert_str(rec.ev.device, "GPU-9a1b");
}

/* Quoted names with commas and "", other units, columns in another order, unknown columns. */
static void test_quoting_units_order(void **state)
{
	struct gl_rec rec;

	(void)state;
	ctx.file_mtime_us = 0;
	parse("\"Start (us)\",\"Name\",\"Pid\",\"Duration (us)\",\"CorrID\",\"StcSMem (KiB)\"", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	parse("2000.5,\"void at::native::kernel<(int)4, \"\"x\"\">(int)\",77,1.25,9,2", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.kernel, "void at::native::kernel<(int)4, \"x\">(int)");
	NEAR(rec.ev.dur_us, 1.25, 1e-12);
	assert_int_equal(rec.ev.corr_id, 9);
	assert_int_equal(rec.ev.shared_mem_bytes, 2048);
	/* end 2,001,750 ns at mtime 0: time 0 is at -2,001 µs, the start 2,000 µs after it */
	assert_true(rec.ev.ts_us == -2001 + 2000);
	assert_null(rec.ev.device.p);
	assert_null(rec.ev.metadata.p);
}

/* Bad rows are rejects with a reason; lines before a header are not nsys's. */
static void test_bad_rows(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("1949099896,3552,142", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse(HEADER, &rec);
	parse("1949099896,3552,142", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "nsys row: fewer fields than the header");
	parse("1949099896,3552,142,,,,,,,,,,0.038,10594.575,Pageable,Device,NVIDIA RTX A4500 (0),1,,7,a,b", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "nsys row: more fields than the header");
	parse("soon,3552,142,,,,,,,,,,,,,,GPU,1,,7,k", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "nsys row: Start or Duration is not a number");
	parse("1,-5,142,,,,,,,,,,,,,,GPU,1,,7,k", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	parse("1,5,142,,,,,,,,,,,,,,GPU,1,,7,", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "nsys row: no Name");
	parse("1,5,142,,,,,,,,,,,,,,GPU,1,,7,\"k", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "nsys row: unclosed quote");
	/* a header without Name is none of ours; a unit we cannot read neither */
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	parse("Start (ns),Duration (ns),CorrId", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("Start (fortnights),Duration (ns),Name", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

/* The column map and the clock survive in ctx->state: a later run continues after the header. */
static void test_state_across_runs(void **state)
{
	unsigned char saved[GL_PARSE_STATE_MAX];
	size_t saved_len;
	struct gl_rec rec;
	int64_t first;

	(void)state;
	ctx.file_mtime_us = 5000000000LL;
	parse(HEADER, &rec);
	parse("1000000,1000,1,,,,,,,,,,,,,,GPU (1),1,,7,k", &rec);
	first = rec.ev.ts_us;
	assert_true(first == 5000000000LL - 1001 + 1000);
	saved_len = ctx.state_len;
	memcpy(saved, ctx.state, saved_len);
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	memcpy(ctx.state, saved, saved_len);
	ctx.state_len = saved_len;
	ctx.file_mtime_us = 9000000000LL;	/* the file grew: a newer mtime changes nothing */
	parse("3000000,1000,2,,,,,,,,,,,,,,GPU (1),1,,7,k", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == first + 2000);
	gl_test_assert_str(rec.ev.device, "1");
}

/* prepare: the header and the last row of a plain file; a missing file is -1. */
static void test_prepare(void **state)
{
	char dir[256], path[300];
	const char *data = HEADER "\n"
		"100000,500,1,,,,,,,,,,,,,,GPU (0),1,,7,a\n"
		"200000,700,2,,,,,,,,,,,,,,GPU (0),1,,7,b\n";
	struct gl_rec rec;

	(void)state;
	gl_test_mkdtemp(dir, sizeof(dir), "nsys");
	snprintf(path, sizeof(path), "%s/trace.csv", dir);
	gl_test_write(path, data, strlen(data));
	ctx.file_mtime_us = 7000000000LL;
	assert_int_equal(gl_fmt_nsys.prepare(&ctx, path), 0);
	parse(HEADER, &rec);
	parse("100000,500,1,,,,,,,,,,,,,,GPU (0),1,,7,a", &rec);
	/* last end 200,700 ns -> 200 µs before the mtime is time 0 */
	assert_true(rec.ev.ts_us == 7000000000LL - 200 + 100);
	gl_test_rmtree(dir);
	assert_int_equal(gl_fmt_nsys.prepare(&ctx, "/nonexistent/trace.csv"), -1);
}

static void test_junk(void **state)
{
	struct gl_rec rec;
	static const char alpha[] = "0123456789,\"() .-abStartDurationName\t";

	(void)state;
	parse(HEADER, &rec);
	gl_test_junk(&gl_fmt_nsys, &ctx, alpha, sizeof(alpha) - 1, 4242);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_real_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_detection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_row, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memcpy_memset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quoting_units_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_across_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
