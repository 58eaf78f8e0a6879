/*
 * Tests for lib/ingest/fmt_bitnet.c (BitNet-rs PerformanceMetrics JSON
 * lines): both shapes, validate()'s rejects, lines that belong to the json
 * format, and the time estimate across two runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_bitnet;

static struct gl_parse_ctx ctx;
#define T0_US 1735689600000000LL	/* 2025-01-01T00:00:00Z */

static const char full[] =
	"{\"total_latency_ms\":812,\"tokens_generated\":64,\"tokens_per_second\":78.8,"
	"\"first_token_latency_ms\":95,\"average_token_latency_ms\":11.2,\"memory_usage_bytes\":1073741824,"
	"\"cache_hit_rate\":0.62,\"backend_type\":\"cuda\",\"model_load_time_ms\":null,"
	"\"tokenizer_encode_time_ms\":1.5,\"tokenizer_decode_time_ms\":0.8,\"forward_pass_time_ms\":690.1,"
	"\"sampling_time_ms\":12.4}";

static int setup(void **state)
{
	(void)state;
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = T0_US;
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
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_bitnet, &ctx, line, rec);
}

static const struct gl_sample *find(const struct gl_rec *rec, const char *m)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(m) && !memcmp(rec->samples[i].metric.p, m, strlen(m)))
			return &rec->samples[i];
	return NULL;
}

static void test_full_record(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse(full, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "bitnet");
	gl_test_assert_str(rec.ev.message, "64 tokens, 78.80 tokens/s, 812.0 ms (cuda)");
	gl_test_assert_str(rec.ev.metadata, "{\"backend_type\":\"cuda\"}");
	/* 12 numeric fields, model_load_time_ms null */
	assert_int_equal(rec.n_samples, 11);
	assert_true(find(&rec, "inference.tokens_per_second")->value == 78.8);
	assert_true(find(&rec, "inference.ttft_ms")->value == 95);
	assert_true(find(&rec, "inference.latency_ms")->value == 812);
	assert_true(find(&rec, "inference.token_latency_ms")->value == 11.2);
	assert_true(find(&rec, "inference.tokens_generated")->value == 64);
	assert_true(find(&rec, "inference.memory_used_mib")->value == 1024);	/* 2^30 bytes */
	assert_true(find(&rec, "inference.cache_hit_rate")->value == 0.62);
	assert_null(find(&rec, "inference.model_load_ms"));
	gl_test_assert_str(find(&rec, "inference.forward_ms")->labels, "{\"backend_type\":\"cuda\"}");
	for (size_t i = 0; i < rec.n_samples; i++) {
		assert_int_equal(rec.samples[i].ts_estimated, 1);
		assert_true(rec.samples[i].ts_us == T0_US);	/* first run: the mtime */
	}
}

static void test_small_variant(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("{\"tokens_per_second\":42.5,\"latency_ms\":150.0,\"memory_usage_mb\":512.0,\"gpu_utilization\":85.0}",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.n_samples, 4);
	assert_true(find(&rec, "inference.latency_ms")->value == 150);
	assert_true(find(&rec, "inference.memory_used_mib")->value == 512);
	assert_true(find(&rec, "inference.gpu_utilization_pct")->value == 85);
	assert_null(rec.ev.metadata.p);
}

static void want_reject(const char *line, const char *why)
{
	struct gl_rec rec;

	parse(line, &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, why);
	assert_int_equal(rec.n_samples, 0);
}

static void test_validate(void **state)
{
	(void)state;
	want_reject("{\"tokens_per_second\":-0.5,\"latency_ms\":150.0}", "validate: negative tokens_per_second");
	want_reject("{\"tokens_per_second\":1,\"cache_hit_rate\":1.01}", "validate: cache_hit_rate outside [0, 1]");
	want_reject("{\"tokens_per_second\":1,\"cache_hit_rate\":-0.1}", "validate: cache_hit_rate outside [0, 1]");
	want_reject("{\"tokens_per_second\":1,\"first_token_latency_ms\":-3}", "validate: negative latency");
	want_reject("{\"tokens_per_second\":1,\"latency_ms\":-1}", "validate: negative latency");
	want_reject("{\"tokens_per_second\":\"fast\",\"latency_ms\":1}", "a metrics field is not a number or null");
}

static void test_not_ours(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* the service's JSON log: timestamp/level/message, even with tokens_per_second */
	parse("{\"timestamp\":\"2025-09-09T14:30:22Z\",\"level\":\"INFO\",\"message\":\"x\",\"tokens_per_second\":3}",
	      &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	/* a receipt's first line, an unrelated object */
	parse("{", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("{\"latency_ms\":3}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("INFO 08-07 13:49:04 [loggers.py:122] x", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

/*
 * Two runs: the first reads 2 lines (mtime T0: both at T0); the file grows
 * by 3 lines of 100, 100 and 200 bytes (with '\n') and is modified at
 * T0 + 400 s. The new lines end at 100, 200 and 400 of 400 new bytes:
 * T0 + 100 s, + 200 s, + 400 s.
 */
static void test_two_runs(void **state)
{
	struct gl_parse_ctx later;
	struct gl_rec rec;
	char line[256];
	static const size_t sizes[] = {100, 100, 200};
	static const int64_t want_s[] = {100, 200, 400};
	uint64_t done = 0;

	(void)state;
	parse("{\"tokens_per_second\":1,\"latency_ms\":1}", &rec);
	assert_true(rec.ev.ts_us == T0_US);
	parse("{\"tokens_per_second\":2,\"latency_ms\":1}", &rec);
	assert_true(rec.ev.ts_us == T0_US);
	gl_parse_ctx_init(&later);
	memcpy(later.state, ctx.state, ctx.state_len);
	later.state_len = ctx.state_len;
	later.file_mtime_us = T0_US + 400 * 1000000LL;
	later.new_bytes_total = 400;
	for (size_t i = 0; i < 3; i++) {
		/* a line of sizes[i] - 1 bytes: padded with spaces before the '}' */
		int k = snprintf(line, sizeof(line), "{\"tokens_per_second\":%zu,\"latency_ms\":1", i + 3);

		memset(line + k, ' ', sizes[i] - 2 - (size_t)k);
		line[sizes[i] - 2] = '}';
		line[sizes[i] - 1] = '\0';
		later.bytes_done = done;
		memset(&rec, 0, sizeof(rec));
		gl_test_parse(&gl_fmt_bitnet, &later, line, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		assert_true(rec.ev.ts_us == T0_US + want_s[i] * 1000000LL);
		assert_true(rec.samples[0].ts_us == rec.ev.ts_us);
		assert_int_equal(rec.samples[0].ts_estimated, 1);
		done += sizes[i];
	}
	gl_parse_ctx_release(&later);
}

static void test_junk(void **state)
{
	static const char alphabet[] = "{\"tokens_per_second\":1.5e-,null}[]\\ latency_ms cache_hit_rate";

	(void)state;
	gl_test_junk(&gl_fmt_bitnet, &ctx, alphabet, sizeof(alphabet) - 1, 4242);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_variant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
