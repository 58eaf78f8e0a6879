/* Tests for lib/ingest/fmt_nvsmiqx.c: nvidia-smi -q -x as a device inventory. */
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

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_nvsmiqx;

/*
 * An older driver's shape (a V100 of driver 470: single_bit/double_bit
 * totals, clocks_throttle_reasons, retired page counts), values by hand:
 * volatile corrected 2 + aggregate corrected 5, aggregate uncorrected 1;
 * 3 SBE and 1 DBE retired pages, one pending; SW Power Cap and HW Slowdown
 * active.
 */
static const char doc[] =
	"<?xml version=\"1.0\" ?>\n"
	"<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v11.dtd\">\n"
	"<nvidia_smi_log>\n"
	"\t<timestamp>Sun Nov 16 14:00:00 2025</timestamp>\n"
	"\t<driver_version>470.57.02</driver_version>\n"
	"\t<cuda_version>11.4</cuda_version>\n"
	"\t<!-- a comment <gpu id=\"x\"> is no GPU -->\n"
	"\t<gpu id=\"00000000:3B:00.0\">\n"
	"\t\t<product_name>Tesla V100-SXM2-16GB</product_name>\n"
	"\t\t<uuid>GPU-11111111-2222-3333-4444-555555555555</uuid>\n"
	"\t\t<minor_number>3</minor_number>\n"
	"\t\t<vbios_version>88.00.4F.00.09</vbios_version>\n"
	"\t\t<fb_memory_usage><total>16160 MiB</total><used>2 MiB</used></fb_memory_usage>\n"
	"\t\t<ecc_mode><current_ecc>Enabled</current_ecc></ecc_mode>\n"
	"\t\t<ecc_errors>\n"
	"\t\t\t<volatile>\n"
	"\t\t\t\t<single_bit><device_memory>2</device_memory><total>2</total></single_bit>\n"
	"\t\t\t\t<double_bit><device_memory>0</device_memory><total>0</total></double_bit>\n"
	"\t\t\t</volatile>\n"
	"\t\t\t<aggregate>\n"
	"\t\t\t\t<single_bit><device_memory>5</device_memory><total>5</total></single_bit>\n"
	"\t\t\t\t<double_bit><device_memory>1</device_memory><total>1</total></double_bit>\n"
	"\t\t\t</aggregate>\n"
	"\t\t</ecc_errors>\n"
	"\t\t<retired_pages>\n"
	"\t\t\t<multiple_single_bit_retirement><retired_count>3</retired_count></multiple_single_bit_retirement>\n"
	"\t\t\t<double_bit_retirement><retired_count>1</retired_count></double_bit_retirement>\n"
	"\t\t\t<pending_blacklist>Yes</pending_blacklist>\n"
	"\t\t</retired_pages>\n"
	"\t\t<clocks_throttle_reasons>\n"
	"\t\t\t<clocks_throttle_reason_gpu_idle>Not Active</clocks_throttle_reason_gpu_idle>\n"
	"\t\t\t<clocks_throttle_reason_sw_power_cap>Active</clocks_throttle_reason_sw_power_cap>\n"
	"\t\t\t<clocks_throttle_reason_hw_slowdown>Active</clocks_throttle_reason_hw_slowdown>\n"
	"\t\t</clocks_throttle_reasons>\n"
	"\t\t<temperature><gpu_temp>41 C</gpu_temp></temperature>\n"
	"\t\t<power_readings><power_draw>N/A</power_draw></power_readings>\n"
	"\t</gpu>\n"
	"</nvidia_smi_log>\n";

static int meta_has(const struct gl_rec *rec, const char *part)
{
	char buf[2048];
	size_t n = rec->ev.metadata.len < sizeof(buf) - 1 ? rec->ev.metadata.len : sizeof(buf) - 1;

	memcpy(buf, rec->ev.metadata.p, n);
	buf[n] = '\0';
	return strstr(buf, part) != NULL;
}

static void test_old_driver(void **state)
{
	char path[] = "/tmp/test_nvsmiqx.XXXXXX";
	struct gl_parse_ctx ctx;
	struct gl_rec rec;
	int fd = mkstemp(path), gpus = 0;
	const char *p = doc;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc, sizeof(doc) - 1), (ssize_t)(sizeof(doc) - 1));
	close(fd);
	gl_parse_ctx_init(&ctx);
	assert_int_equal(gl_fmt_nvsmiqx.prepare(&ctx, path), 0);
	while (*p) {
		const char *nl = strchr(p, '\n');
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		p = nl + 1;
		gl_test_parse(&gl_fmt_nvsmiqx, &ctx, line, &rec);
		assert_true(rec.kind == GL_REC_NONE || rec.kind == GL_REC_EVENT);
		if (rec.kind != GL_REC_EVENT)
			continue;
		gpus++;
		/* 2025-11-16 14:00:00 = 1763301600 s (`date -ud ... +%s`) */
		assert_true(rec.ev.ts_us == 1763301600000000LL);
		assert_true(meta_has(&rec, "\"index\":3,\"pci\":\"00000000:3B:00.0\","
					   "\"name\":\"Tesla V100-SXM2-16GB\","
					   "\"uuid\":\"GPU-11111111-2222-3333-4444-555555555555\","
					   "\"driver\":\"470.57.02\",\"cuda\":\"11.4\","
					   "\"vbios\":\"88.00.4F.00.09\",\"ecc_mode\":\"Enabled\","
					   "\"memory_total_mib\":16160,\"memory_used_mib\":2,"
					   "\"temperature_c\":41,"
					   "\"ecc_volatile_corrected\":2,\"ecc_volatile_uncorrected\":0,"
					   "\"ecc_aggregate_corrected\":5,\"ecc_aggregate_uncorrected\":1,"
					   "\"retired_pages_sbe\":3,\"retired_pages_dbe\":1,"
					   "\"retired_pages_pending\":1,"
					   "\"clocks_event_reasons\":\"SW Power Cap,HW Slowdown\""));
		assert_false(meta_has(&rec, "power_w"));
		/* temperature, memory used, aggregate uncorrected ECC, retired pages (3 + 1) */
		assert_int_equal(rec.n_samples, 4);
		assert_true(rec.samples[3].value == 4);
	}
	assert_int_equal(gpus, 1);
	gl_parse_ctx_release(&ctx);
	unlink(path);
}

static void test_foreign(void **state)
{
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	(void)state;
	gl_parse_ctx_init(&ctx);
	gl_test_parse(&gl_fmt_nvsmiqx, &ctx, "<?xml version=\"1.0\" ?>", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	/* another XML document: no report */
	gl_test_parse(&gl_fmt_nvsmiqx, &ctx, "<project name=\"x\">", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	gl_test_parse(&gl_fmt_nvsmiqx, &ctx, "Hello world", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	/* without prepare (detection) a <gpu> line is still an inventory record */
	gl_test_parse(&gl_fmt_nvsmiqx, &ctx, "<nvidia_smi_log>", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	gl_test_parse(&gl_fmt_nvsmiqx, &ctx, "\t<gpu id=\"00000000:01:00.0\">", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(meta_has(&rec, "\"pci\":\"00000000:01:00.0\""));
	gl_parse_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_driver),
		cmocka_unit_test(test_foreign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
