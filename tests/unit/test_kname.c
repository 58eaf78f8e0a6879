/*
 * test_kname.c - reports/kname.c: a kernel's display name. The names in are
 * real: demangled ones from the AlexNet Kineto trace of HolisticTraceAnalysis
 * (../shared/realdata/kineto-trace), ones nsys cut with U+2026 from an nsys
 * stats transcript (../shared/realdata/nsys-stats), mangled ones from the
 * sample logs' gpufl and nsys files. The names expected were written by hand
 * from the rule (function with its namespaces, short template arguments kept,
 * long ones "<…>", 48 characters at most); the 4 hex digits of "#xxxx" are
 * FNV-1a (32 bits, its halves xor-ed) of the full name, computed by a Python
 * script apart from the program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/kname.h"

#define ELL "\xE2\x80\xA6"

static const char *disp(const char *name)
{
	static char buf[GL_KNAME_BUF];

	return gl_kname_display(name, buf, sizeof(buf));
}

static void test_demangled(void **state)
{
	(void)state;
	/* return type, parameters and the anonymous namespace go; short arguments stay */
	assert_string_equal(disp("void at::native::(anonymous namespace)::adaptive_average_pool<float>"
				 "(float const*, float*, int, int, int, int, long, long, long)"),
			    "at::native::adaptive_average_pool<float>");
	/* two kernels that differ only in template arguments stay two names */
	assert_string_equal(disp("void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, "
				 "int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, "
				 "bool, int2, int, int)"),
			    "fft2d_r2c_32x32<float, false, 5u, true>");
	assert_string_equal(disp("void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, "
				 "int, int, int, int, int, int, int, int, int, cudnn::reduced_divisor, "
				 "bool, int2, int, int)"),
			    "fft2d_r2c_32x32<float, false, 0u, false>");
	/* long arguments elided: the hash of the full name tells it apart */
	assert_string_equal(disp("void fft2d_c2r_32x32<float, false, false, 0u, false, false>(float*, "
				 "float2 const*, int, int, int, int, int, int, int, int, int, float, "
				 "float, cudnn::reduced_divisor, bool, float*, float*, int2, int, int)"),
			    "fft2d_c2r_32x32<" ELL ">#f388");
	assert_string_equal(disp("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
				 "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, "
				 "float const*, float*)"),
			    "cudnn::ops::nchwToNhwcKernel<" ELL ">#cf47");
}

static void test_plain_and_long(void **state)
{
	(void)state;
	assert_string_equal(disp("ampere_sgemm_32x32_sliced1x4_tn"), "ampere_sgemm_32x32_sliced1x4_tn");
	/* prose with parentheses is no signature */
	assert_string_equal(disp("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
	assert_string_equal(disp("[CUDA memset]"), "[CUDA memset]");
	/* 155 characters: 42 kept, "…", the hash: 48 */
	assert_string_equal(disp("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_"
				 "tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_"
				 "execute_kernel_cudnn"),
			    "sm80_xmma_fprop_implicit_gemm_indexed_tf32" ELL "#c7c0");
}

static void test_nsys_cut(void **state)
{
	(void)state;
	/* cut inside the parameters: the namespaces go before the name is cut */
	assert_string_equal(disp("void at::native::batch_norm_transform_input_channels_last_kernel<float, "
				 "float, float, (int)4>(const" ELL),
			    "batch_norm_transform_input_channels_last_k" ELL "#a8f3");
	/* nsys's "<unnamed>" namespace goes as "(anonymous namespace)" does */
	assert_string_equal(disp("void at::native::<unnamed>::CatArrayBatchedCopy<float, unsigned int, "
				 "(int)3, (int)64, (int)64>(T1 *" ELL),
			    "at::native::CatArrayBatchedCopy<" ELL ">#70d1");
}

static void test_mangled(void **state)
{
	(void)state;
	/* gpufl: no "(...)" after the name any more */
	assert_string_equal(disp("_Z17force_pass_kernelPK6float4PS_i"), "force_pass_kernel");
	assert_string_equal(disp("_Z16integrate_kernelP6float4S0_fi"), "integrate_kernel");
	/* nested, in the anonymous namespace, templated: arguments not decoded */
	assert_string_equal(disp("_ZN2at6native12_GLOBAL__N_121max_pool_forward_nchwIffEEviPKfPf"),
			    "at::native::max_pool_forward_nchw<" ELL ">#e8f8");
	/* not a mangled name after all: as written */
	assert_string_equal(disp("_Zoom"), "_Zoom");
}

static void test_fit(void **state)
{
	char out[GL_KNAME_BUF];
	const char *full = "void at::native::(anonymous namespace)::adaptive_average_pool<float>"
			   "(float const*, float*, int, int, int, int, long, long, long)";

	(void)state;
	/* 25 characters: the namespaces go, then the cut with the hash of the full name */
	assert_string_equal(gl_kname_fit(full, disp(full), 25, out, sizeof(out)),
			    "adaptive_average_po" ELL "#b778");
	/* fits already: unchanged, its hash kept */
	assert_string_equal(gl_kname_fit("x", "fft2d_c2r_32x32<" ELL ">#f388", 25, out, sizeof(out)),
			    "fft2d_c2r_32x32<" ELL ">#f388");
	/* a short buffer: never more than n - 1 bytes */
	gl_kname_display(full, out, 8);
	assert_int_equal(strlen(out), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangled),
		cmocka_unit_test(test_plain_and_long),
		cmocka_unit_test(test_nsys_cut),
		cmocka_unit_test(test_mangled),
		cmocka_unit_test(test_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
