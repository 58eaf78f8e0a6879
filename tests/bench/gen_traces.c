/*
 * gen_traces - the profiler trace sets of `make bench` (issue 9):
 *
 *   gen_traces kineto FILE KERNELS SEED
 *   gen_traces gpufl FILE KERNELS SEED
 *
 * kineto: a PyTorch profiler trace (name it *.pt.trace.json), pretty-printed
 * the way Kineto's ChromeTraceLogger writes it (fmt_kineto.c's header):
 *
 *     {
 *       "schemaVersion": 1,
 *       "deviceProperties": [
 *         {
 *           "id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85097971712,
 *           "computeMajor": 8, "computeMinor": 0, "numSms": 108
 *         }
 *       ],
 *       "traceEvents": [
 *       {
 *         "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
 *         "ts": 1735689600001000.000, "dur": 5.250,
 *         "args": {
 *           "External id": 1, "cbid": 211, "correlation": 1
 *         }
 *       },
 *       {
 *         "ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_tn", "pid": 0, "tid": 7,
 *         "ts": 1735689600001012.500, "dur": 48.125,
 *         "args": {
 *           "External id": 1, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 1, ...
 *         }
 *       },
 *       ...
 *       ],
 *       "traceName": "bench.pt.trace.json",
 *       "displayTimeUnit": "ms"
 *     }
 *
 * KERNELS kernel events, each with a cudaLaunchKernel of the same
 * args.correlation: for an even kernel the call is written first (as ROCm
 * traces do), for an odd one right after the kernel (as CUDA traces do).
 * A user_annotation "ProfilerStep#n" every 10,000 kernels spans them.
 * Prints "kernels=K launches=K spans=S elements=E bytes=B".
 *
 * gpufl: a GPUFlight client's kernel channel (name it <prefix>.kernel.0.log):
 * an init line, KERNELS kernel_event lines as the client writes them
 * (fmt_gpufl.c's header), a shutdown line. Times are epoch ns.
 * Prints "kernels=K bytes=B".
 *
 * Kernel times follow a reproducible LCG (same SEED, same bytes). Exit 1 on
 * a write error, 2 on a usage error.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0_NS 1735689600000000000LL	/* 2025-01-01T00:00:00Z */
#define STEP_KERNELS 10000

static uint64_t lcg = 1;

static double rnd(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0;
}

/* Kernel names of a training step: short, C++ templates, mangled. */
static const char *const kin_names[] = {
	"ampere_sgemm_128x64_tn",
	"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
	"at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*)",
	"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>"
	"(float*, float const*, int, int, int)",
	"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
	"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float> > >"
	"(at::native::ReduceOp<float, at::native::MeanOps<float, float> >)",
};
#define N_KIN_NAMES (sizeof kin_names / sizeof kin_names[0])

static const char *const gf_names[] = {
	"_Z17force_pass_kernelPK6float4PS_i",
	"_Z9vectorAddPKfS0_Pfi",
	"_Z13reduce_kernelILi256EEvPKfPfi",
	"_Z15integrate_stepsP6float4S0_fi",
	"ampere_sgemm_128x64_tn",
};
#define N_GF_NAMES (sizeof gf_names / sizeof gf_names[0])

/* "1735689600001012.500": ns printed as µs with 3 decimals. */
static void put_us(FILE *fp, int64_t ns)
{
	fprintf(fp, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void kin_event(FILE *fp, unsigned long long *elements)
{
	fputs(*elements ? ",\n  {\n" : "  {\n", fp);
	++*elements;
}

static void kin_launch(FILE *fp, unsigned long long *el, int64_t ts_ns, int64_t dur_ns, long corr)
{
	kin_event(fp, el);
	fputs("    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
	      "\"pid\": 4242, \"tid\": 4242,\n    \"ts\": ", fp);
	put_us(fp, ts_ns);
	fputs(", \"dur\": ", fp);
	put_us(fp, dur_ns);
	fprintf(fp, ",\n    \"args\": {\n      \"External id\": %ld, \"cbid\": 211, \"correlation\": %ld\n"
		    "    }\n  }", corr, corr);
}

static void kin_kernel(FILE *fp, unsigned long long *el, long i, int64_t ts_ns, int64_t dur_ns,
		       long corr)
{
	int grid = 54 << (i % 5), block = 128 << (i % 3);

	kin_event(fp, el);
	fprintf(fp, "    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,\n"
		    "    \"ts\": ", kin_names[i % N_KIN_NAMES]);
	put_us(fp, ts_ns);
	fputs(", \"dur\": ", fp);
	put_us(fp, dur_ns);
	fprintf(fp, ",\n    \"args\": {\n      \"External id\": %ld, \"queued\": 0, \"device\": 0, "
		    "\"context\": 1, \"stream\": 7, \"correlation\": %ld, \"registers per thread\": %d, "
		    "\"shared memory\": %d, \"grid\": [%d, 1, 1], \"block\": [%d, 1, 1], "
		    "\"est. achieved occupancy %%\": %d\n    }\n  }",
		corr, corr, 16 << (i % 3), (int)(i % 4) * 4096, grid, block, 25 + (int)(i % 4) * 25);
}

static int gen_kineto(FILE *fp, long kernels)
{
	unsigned long long el = 0, spans = 0;
	int64_t t = T0_NS + 1000000;

	fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n"
	      "      \"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
	      "      \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108\n    }\n  ],\n"
	      "  \"traceEvents\": [\n", fp);
	for (long i = 0; i < kernels; i++) {
		int64_t launch_dur = 3000 + (int64_t)(rnd() * 9000);
		int64_t start = t + launch_dur + 1000 + (int64_t)(rnd() * 29000);
		int64_t dur = 8000 + (int64_t)(rnd() * 392000);
		long corr = i + 1;

		if (i % STEP_KERNELS == 0) {
			/* the step spans its kernels: STEP_KERNELS at most 450 µs each */
			kin_event(fp, &el);
			fputs("    \"ph\": \"X\", \"cat\": \"user_annotation\", ", fp);
			fprintf(fp, "\"name\": \"ProfilerStep#%lld\", \"pid\": 4242, \"tid\": 4242,\n    \"ts\": ",
				(long long)spans);
			put_us(fp, t);
			fprintf(fp, ", \"dur\": %d.000,\n    \"args\": {\n      \"External id\": %lld\n    }\n  }",
				STEP_KERNELS * 450, (long long)(1000000000 + spans));
			spans++;
		}
		if (i % 2 == 0) {
			kin_launch(fp, &el, t, launch_dur, corr);
			kin_kernel(fp, &el, i, start, dur, corr);
		} else {
			kin_kernel(fp, &el, i, start, dur, corr);
			kin_launch(fp, &el, t, launch_dur, corr);
		}
		t = start + dur + 2000;
	}
	fputs("\n  ],\n  \"traceName\": \"bench.pt.trace.json\",\n  \"displayTimeUnit\": \"ms\"\n}\n", fp);
	if (ferror(fp))
		return -1;
	printf("kernels=%ld launches=%ld spans=%llu elements=%llu ", kernels, kernels, spans, el + 1);
	return 0;
}

static int gen_gpufl(FILE *fp, long kernels)
{
	int64_t t = T0_NS + 2000000000LL;

	fprintf(fp, "{\"type\":\"init\",\"pid\":50840,\"app\":\"bench\",\"logPath\":\"bench\","
		    "\"ts_ns\":%" PRId64 ",\"system_rate_ms\":5}\n", (int64_t)(t - 1000000000));
	for (long i = 0; i < kernels; i++) {
		int64_t api_start = t;
		int64_t api_exit = api_start + 3000 + (int64_t)(rnd() * 6000);
		int64_t start = api_exit + 500 + (int64_t)(rnd() * 39500);
		int64_t end = start + 20000 + (int64_t)(rnd() * 480000);

		fprintf(fp, "{\"type\":\"kernel_event\",\"pid\":50840,\"app\":\"bench\",\"name\":\"%s\","
			    "\"device_id\":\"%ld\",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 ","
			    "\"api_start_ns\":%" PRId64 ",\"api_exit_ns\":%" PRId64 ",\"grid\":\"(%d,1,1)\","
			    "\"block\":\"(256,1,1)\",\"num_regs\":%d,\"dyn_shared_bytes\":0,"
			    "\"static_shared_bytes\":%d,\"occupancy\":%.2f,\"stream_id\":7,\"corr_id\":%ld,"
			    "\"user_scope\":\"step|%s\",\"stack_trace\":\"train.py:88|model.py:41\","
			    "\"cuda_error\":0}\n",
			gf_names[i % N_GF_NAMES], i % 2, start, end, api_start, api_exit,
			128 << (i % 3), 16 << (i % 3), (int)(i % 4) * 4096, 0.25 * (double)(1 + i % 4),
			i + 1, i % 3 ? "forward" : "backward");
		t = end + 2000;
	}
	fprintf(fp, "{\"type\":\"shutdown\",\"pid\":50840,\"app\":\"bench\",\"ts_ns\":%" PRId64 "}\n", t);
	if (ferror(fp))
		return -1;
	printf("kernels=%ld ", kernels);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	FILE *fp;
	long kernels;
	char *end;
	int rc;

	if (argc != 5 || (strcmp(argv[1], "kineto") && strcmp(argv[1], "gpufl")) ||
	    (kernels = strtol(argv[3], &end, 10)) < 1 || *end) {
		fprintf(stderr, "usage: gen_traces kineto|gpufl FILE KERNELS SEED\n");
		return 2;
	}
	lcg = strtoull(argv[4], NULL, 10) + 1;
	if (!(fp = fopen(argv[2], "w"))) {
		perror(argv[2]);
		return 1;
	}
	setvbuf(fp, buf, _IOFBF, sizeof buf);
	rc = !strcmp(argv[1], "kineto") ? gen_kineto(fp, kernels) : gen_gpufl(fp, kernels);
	if (fflush(fp) != 0 || rc != 0) {
		perror(argv[2]);
		fclose(fp);
		return 1;
	}
	{
		long bytes = ftell(fp);

		if (fclose(fp) != 0) {
			perror(argv[2]);
			return 1;
		}
		printf("bytes=%ld\n", bytes);
	}
	return 0;
}
