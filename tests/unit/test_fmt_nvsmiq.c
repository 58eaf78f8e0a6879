/* Tests for lib/ingest/fmt_nvsmiq.c: nvidia-smi -q as a device inventory. */
#include <math.h>
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

extern const struct gl_format gl_fmt_nvsmiq;

/* The sample tree's report: 2 H100s, written by fixtures/sample-logs.gen.py. */
#define SAMPLE "fixtures/sample-logs/node/nvidia-smi-q.txt"

static int meta_has(const struct gl_rec *rec, const char *part)
{
	char buf[2048];
	size_t n = rec->ev.metadata.len < sizeof(buf) - 1 ? rec->ev.metadata.len : sizeof(buf) - 1;

	memcpy(buf, rec->ev.metadata.p, n);
	buf[n] = '\0';
	return strstr(buf, part) != NULL;
}

static void test_sample(void **state)
{
	struct gl_parse_ctx ctx;
	struct gl_rec rec;
	char line[512];
	FILE *f;
	int gpus = 0;

	(void)state;
	gl_parse_ctx_init(&ctx);
	assert_int_equal(gl_fmt_nvsmiq.prepare(&ctx, SAMPLE), 0);
	f = fopen(SAMPLE, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		gl_test_parse(&gl_fmt_nvsmiq, &ctx, line, &rec);
		assert_true(rec.kind == GL_REC_NONE || rec.kind == GL_REC_EVENT);
		if (rec.kind != GL_REC_EVENT)
			continue;
		/* Timestamp : Sun Nov 16 14:00:00 2025 = 1763301600 s (`date -ud ... +%s`) */
		assert_true(rec.ev.ts_us == 1763301600000000LL);
		assert_true(meta_has(&rec, "\"driver\":\"550.54.15\",\"cuda\":\"12.4\""));
		assert_true(meta_has(&rec, "\"memory_total_mib\":81559"));
		if (gpus == 0) {
			assert_true(meta_has(&rec, "\"index\":0,\"pci\":\"00000000:18:00.0\""));
			assert_true(meta_has(&rec, "\"clocks_event_reasons\":\"\""));
		} else {
			/* GPU 1: DRAM uncorrectable 2 (aggregate), 1 retired SBE page, SW Power Cap active */
			assert_true(meta_has(&rec, "\"index\":1,\"pci\":\"00000000:3B:00.0\""));
			assert_true(meta_has(&rec, "\"ecc_aggregate_uncorrected\":2"));
			assert_true(meta_has(&rec, "\"ecc_volatile_corrected\":3"));
			assert_true(meta_has(&rec, "\"retired_pages_sbe\":1"));
			assert_true(meta_has(&rec, "\"remapped_rows_uncorrectable\":2"));
			assert_true(meta_has(&rec, "\"clocks_event_reasons\":\"SW Power Cap\""));
			/* temperature, power, memory used, aggregate uncorrected ECC, retired pages */
			assert_int_equal(rec.n_samples, 5);
		}
		gpus++;
	}
	fclose(f);
	assert_int_equal(gpus, 2);
	gl_parse_ctx_release(&ctx);
}

static void test_foreign(void **state)
{
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	(void)state;
	gl_parse_ctx_init(&ctx);
	gl_test_parse(&gl_fmt_nvsmiq, &ctx, "Hello world", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	/* without prepare (detection) a GPU line is still an inventory record */
	gl_test_parse(&gl_fmt_nvsmiq, &ctx, "GPU 00000000:01:00.0", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_parse_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_foreign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
