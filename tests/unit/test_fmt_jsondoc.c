/*
 * Tests for lib/ingest/fmt_jsondoc.c (files that are one indented JSON
 * document): a BitNet-rs receipt, a performance monitor alert, a
 * metrics_history.json read twice as rewritten (the same entry gives the
 * same record, its natural key being its timestamp and component, so the
 * store mirrors it), a document cut at the end of the file (the end hook),
 * a document broken by a line that opens another (its own reason), and a
 * history written on one line (one record per entry, ctx->more).
 *
 * Expected values are written out by hand from the documents below.
 */
#define _GNU_SOURCE	/* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_jsondoc;

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
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_jsondoc, &ctx, line, rec);
}

/* Feeds lines[0..n-1) (each wanting no record and hold 1), then the last into rec. */
static void feed(const char *const *lines, size_t n, struct gl_rec *rec)
{
	for (size_t i = 0; i + 1 < n; i++) {
		parse(lines[i], rec);
		assert_int_equal(rec->kind, GL_REC_NONE);
		assert_int_equal(ctx.hold, 1);
	}
	parse(lines[n - 1], rec);
}

static const struct gl_sample *find(const struct gl_rec *rec, const char *m)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(m) &&
		    !memcmp(rec->samples[i].metric.p, m, strlen(m)))
			return &rec->samples[i];
	return NULL;
}

static int has_text(struct gl_str s, const char *part)
{
	return s.p && memmem(s.p, s.len, part, strlen(part)) != NULL;
}

static void test_receipt(void **state)
{
	static const char *const doc[] = {
		"{",
		"  \"backend\": \"cpu\",",
		"  \"kernels\": [",
		"    \"embedding_lookup\",",
		"    \"i2s_gemv\"",
		"  ],",
		"  \"schema_version\": \"1.0.0\",",
		"  \"timestamp\": \"2025-01-01T00:00:01.5Z\",",
		"  \"tokens_generated\": 128,",
		"  \"tokens_per_second\": 42.5",
		"}",
	};
	struct gl_rec rec;

	(void)state;
	feed(doc, sizeof(doc) / sizeof(doc[0]), &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(ctx.hold, 0);
	/* 2025-01-01T00:00:00Z = 1735689600 s */
	assert_true(rec.ev.ts_us == 1735689601500000LL);
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	gl_test_assert_str(rec.ev.component, "bitnet");
	gl_test_assert_str(rec.ev.message, "receipt: 128 tokens at 42.5 tokens/s (cpu)");
	assert_true(has_text(rec.ev.metadata, "\"kernels\":[\"embedding_lookup\",\"i2s_gemv\"]"));
	assert_int_equal(rec.n_samples, 2);
	assert_true(find(&rec, "inference.tokens_per_second")->value == 42.5);
	assert_true(find(&rec, "inference.tokens_generated")->value == 128);
	assert_true(find(&rec, "inference.tokens_per_second")->ts_us == 1735689601500000LL);
	gl_test_assert_str(find(&rec, "inference.tokens_generated")->labels,
			   "{\"backend_type\":\"cpu\"}");
}

static void test_alert(void **state)
{
	static const char *const doc[] = {
		"{",
		"  \"timestamp\": 1718000000.25,",
		"  \"severity\": \"critical\",",
		"  \"component\": \"echo_gpu\",",
		"  \"message\": \"GPU utilization low\",",
		"  \"metric\": \"gpu_utilization\",",
		"  \"value\": 3,",
		"  \"threshold\": 10",
		"}",
	};
	struct gl_rec rec;

	(void)state;
	feed(doc, sizeof(doc) / sizeof(doc[0]), &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == 1718000000250000LL);
	assert_int_equal(rec.ev.level, GL_LEVEL_CRITICAL);
	gl_test_assert_str(rec.ev.component, "echo_gpu");
	gl_test_assert_str(rec.ev.message, "GPU utilization low");
	/* every member but timestamp, component and message, keys sorted */
	gl_test_assert_str(rec.ev.metadata, "{\"metric\":\"gpu_utilization\",\"severity\":\"critical\","
					    "\"threshold\":10,\"value\":3}");
	assert_int_equal(rec.n_samples, 0);
}

/* An entry of a history as the monitor indents it (json.dump(indent=2)). */
#define ENTRY(ts, comp, cpu, closing)                                                    \
	"    {", "      \"timestamp\": " ts ",", "      \"component_id\": \"" comp "\",",   \
		"      \"cpu_usage\": " cpu ",", "      \"status\": \"ok\"", "    }" closing

struct rec_copy {
	int64_t ts_us;
	char component[32], message[64], metadata[256];
	size_t n_samples;
	double cpu;
};

/* Parses a history into copies of its records (each entry's). Returns how many. */
static size_t read_history(const char *const *lines, size_t n, struct rec_copy *out)
{
	struct gl_rec rec;
	size_t k = 0;

	gl_parse_ctx_release(&ctx);	/* a rewrite is a new stream: a new context */
	for (size_t i = 0; i < n; i++) {
		parse(lines[i], &rec);
		if (rec.kind != GL_REC_EVENT)
			continue;
		out[k].ts_us = rec.ev.ts_us;
		snprintf(out[k].component, sizeof(out[k].component), "%.*s",
			 (int)rec.ev.component.len, rec.ev.component.p);
		snprintf(out[k].message, sizeof(out[k].message), "%.*s", (int)rec.ev.message.len,
			 rec.ev.message.p);
		snprintf(out[k].metadata, sizeof(out[k].metadata), "%.*s",
			 (int)rec.ev.metadata.len, rec.ev.metadata.p);
		out[k].n_samples = rec.n_samples;
		assert_non_null(find(&rec, "cpu_usage"));
		gl_test_assert_str(find(&rec, "cpu_usage")->labels,
				   "{\"component_id\":\"" "echo_core" "\"}");
		out[k].cpu = find(&rec, "cpu_usage")->value;
		k++;
	}
	return k;
}

static void test_history_rewritten(void **state)
{
	static const char *const first[] = {
		"{", "  \"metrics\": [",
		ENTRY("1718000000", "echo_core", "10.5", ","),
		ENTRY("1718000060", "echo_core", "11.5", ""),
		"  ],", "  \"alerts\": []", "}",
	};
	static const char *const second[] = {
		"{", "  \"metrics\": [",
		ENTRY("1718000000", "echo_core", "10.5", ","),
		ENTRY("1718000060", "echo_core", "11.5", ","),
		ENTRY("1718000120", "echo_core", "12.5", ""),
		"  ],", "  \"alerts\": []", "}",
	};
	struct rec_copy a[4], b[4];

	(void)state;
	assert_int_equal(read_history(first, sizeof(first) / sizeof(first[0]), a), 2);
	assert_int_equal(read_history(second, sizeof(second) / sizeof(second[0]), b), 3);
	/* entry 1: 1718000000 s, echo_core, one sample (cpu_usage; status is text) */
	assert_true(a[0].ts_us == 1718000000000000LL && a[1].ts_us == 1718000060000000LL);
	assert_string_equal(a[0].component, "echo_core");
	assert_string_equal(a[0].message, "metrics of echo_core");
	assert_int_equal(a[0].n_samples, 1);
	assert_true(a[0].cpu == 10.5 && a[1].cpu == 11.5 && b[2].cpu == 12.5);
	/* the same entry in the rewrite is the same record: the store mirrors it */
	for (int i = 0; i < 2; i++) {
		assert_true(a[i].ts_us == b[i].ts_us);
		assert_string_equal(a[i].component, b[i].component);
		assert_string_equal(a[i].message, b[i].message);
		assert_string_equal(a[i].metadata, b[i].metadata);
	}
	assert_true(b[2].ts_us == 1718000120000000LL);
}

/*
 * The monitor's files as it really writes them: the history opens with its
 * own timestamp, an entry nests metadata.gpu; the snapshot nests system,
 * process.performance and alerts counts. Expected by hand from the lines.
 */
static void test_real_shapes(void **state)
{
	static const char *const hist[] = {
		"{", "  \"timestamp\": 1718000300.0,", "  \"metrics\": [", "    {",
		"      \"timestamp\": 1718000000,", "      \"component_id\": \"echo_inference\",",
		"      \"token_throughput\": 71.5,", "      \"metadata\": {",
		"        \"gpu\": {", "          \"utilization\": 64.5,",
		"          \"temperature_c\": 61", "        }", "      }", "    }", "  ],",
		"  \"alerts\": [", "    {", "      \"timestamp\": 1718000010.25,",
		"      \"severity\": \"warning\",", "      \"component\": \"echo_inference\",",
		"      \"message\": \"token_throughput below minimum\"", "    }", "  ]", "}",
	};
	static const char *const snap[] = {
		"{", "  \"timestamp\": 1718000300.0,", "  \"team_member\": \"echo\",",
		"  \"uptime\": 300,", "  \"system\": {", "    \"cpu_usage\": 41.5", "  },",
		"  \"process\": {", "    \"pid\": 4242,", "    \"performance\": {",
		"      \"token_throughput\": 70.25", "    }", "  },",
		"  \"alerts\": {", "    \"total\": 3,", "    \"warning\": 3", "  }", "}",
	};
	struct gl_rec rec;
	int events = 0, alerts = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(hist) / sizeof(hist[0]); i++) {
		parse(hist[i], &rec);
		if (rec.kind != GL_REC_EVENT)
			continue;
		if (rec.ev.level == GL_LEVEL_WARN) {
			alerts++;
			gl_test_assert_str(rec.ev.message, "token_throughput below minimum");
			continue;
		}
		events++;
		assert_true(rec.ev.ts_us == 1718000000000000LL);
		gl_test_assert_str(rec.ev.component, "echo_inference");
		assert_int_equal(rec.n_samples, 3);
		assert_true(find(&rec, "token_throughput")->value == 71.5);
		assert_true(find(&rec, "gpu.utilization")->value == 64.5);
		assert_true(find(&rec, "gpu.temperature_c")->value == 61);
	}
	assert_int_equal(events, 1);
	assert_int_equal(alerts, 1);
	gl_parse_ctx_release(&ctx);
	feed(snap, sizeof(snap) / sizeof(snap[0]), &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "echo");
	assert_true(rec.ev.ts_us == 1718000300000000LL);
	/* uptime, system.cpu_usage, process.performance.token_throughput, alerts.total,
	 * alerts.warning; the pid is no metric */
	assert_int_equal(rec.n_samples, 5);
	assert_true(find(&rec, "uptime")->value == 300);
	assert_true(find(&rec, "system.cpu_usage")->value == 41.5);
	assert_true(find(&rec, "process.performance.token_throughput")->value == 70.25);
	assert_true(find(&rec, "alerts.total")->value == 3);
	assert_null(find(&rec, "process.pid"));
}

static void test_cut_at_end(void **state)
{
	static const char *const history[] = {
		"{", "  \"metrics\": [",
		ENTRY("1718000000", "echo_core", "10.5", ","),
		"    {", "      \"timestamp\": 1718000060,",
	};
	static const char *const receipt[] = {
		"{", "  \"schema_version\": \"1.0.0\",", "  \"backend\": \"cpu\",",
	};
	struct gl_rec rec;
	const char *why;
	size_t events = 0;

	(void)state;
	assert_non_null(gl_fmt_jsondoc.end);
	/* nothing read: nothing cut */
	assert_null(gl_fmt_jsondoc.end(&ctx));
	for (size_t i = 0; i < sizeof(history) / sizeof(history[0]); i++) {
		parse(history[i], &rec);
		events += rec.kind == GL_REC_EVENT;
	}
	assert_int_equal(events, 1);
	assert_int_equal(ctx.hold, 1);
	assert_true(ctx.state_len > 0);		/* the history's place after entry 1 */
	why = gl_fmt_jsondoc.end(&ctx);
	assert_non_null(why);
	assert_string_equal(why, "monitor history cut at the end of the file: the entry or the "
				 "document is not closed");
	/* forgotten: state[] as after a record, no document open */
	assert_int_equal(ctx.state_len, 0);
	assert_null(gl_fmt_jsondoc.end(&ctx));

	gl_parse_ctx_release(&ctx);
	for (size_t i = 0; i < sizeof(receipt) / sizeof(receipt[0]); i++) {
		parse(receipt[i], &rec);
		assert_int_equal(rec.kind, GL_REC_NONE);
	}
	assert_int_equal(ctx.hold, 1);
	assert_string_equal(gl_fmt_jsondoc.end(&ctx),
			    "JSON document cut at the end of the file: no closing brace");
}

static void test_broken_document(void **state)
{
	static const char *const doc[] = {
		"{", "  \"timestamp\": 1718003700,", "  \"severity\": \"warning\",",
		"  \"component\": \"x\",",
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		parse(doc[i], &rec);
		assert_int_equal(rec.kind, GL_REC_NONE);
	}
	parse("{", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "JSON document: a member name expected");
	parse("  \"a\": 1", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	assert_string_equal(rec.reason, "JSON document broken earlier: a member name expected");
	/* a broken document is no cut one */
	assert_null(gl_fmt_jsondoc.end(&ctx));
}

static void test_one_line_history(void **state)
{
	static const char line[] =
		"{\"metrics\": [{\"timestamp\": 1718000000, \"component_id\": \"echo_core\", "
		"\"cpu_usage\": 10.5}, {\"timestamp\": 1718000060, \"component_id\": \"echo_mem\", "
		"\"cpu_usage\": 11.5, \"gpu_utilization\": 40}, {\"timestamp\": 1718000120, "
		"\"component_id\": \"echo_core\", \"cpu_usage\": 12.5}], \"alerts\": "
		"[{\"timestamp\": 1718000030, \"severity\": \"warning\", \"component\": \"echo_core\", "
		"\"message\": \"High CPU usage\", \"metric\": \"cpu_usage\", \"value\": 93.1, "
		"\"threshold\": 90}]}";
	static const struct {
		int64_t ts_us;
		const char *component, *message;
		size_t n_samples;
		int more;
	} want[] = {
		{1718000000000000LL, "echo_core", "metrics of echo_core", 1, 1},
		{1718000060000000LL, "echo_mem", "metrics of echo_mem", 2, 1},
		{1718000120000000LL, "echo_core", "metrics of echo_core", 1, 1},
		{1718000030000000LL, "echo_core", "High CPU usage", 0, 0},
	};
	const struct gl_format *det;
	struct gl_str first = {line, strlen(line)};
	const char *why = NULL;
	struct gl_rec rec;

	(void)state;
	det = gl_format_detect(&first, 1, &why);
	assert_non_null(det);
	assert_string_equal(det->name, "jsondoc");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t state_len = ctx.state_len;

		parse(line, &rec);
		assert_int_equal(rec.kind, GL_REC_EVENT);
		assert_true(rec.ev.ts_us == want[i].ts_us);
		gl_test_assert_str(rec.ev.component, want[i].component);
		gl_test_assert_str(rec.ev.message, want[i].message);
		assert_int_equal(rec.n_samples, want[i].n_samples);
		assert_int_equal(ctx.more, want[i].more);
		assert_int_equal(ctx.hold, 0);
		/* state[] changes only with the line's last record */
		if (want[i].more)
			assert_int_equal(ctx.state_len, state_len);
	}
	assert_true(find(&rec, "cpu_usage") == NULL);
	/* the second entry's gpu_utilization, labelled with its component */
	gl_parse_ctx_release(&ctx);
	parse(line, &rec);
	parse(line, &rec);
	assert_true(find(&rec, "gpu_utilization")->value == 40);
	gl_test_assert_str(find(&rec, "gpu_utilization")->labels,
			   "{\"component_id\":\"echo_mem\"}");
	/* a one-line object of another shape stays another format's (JSON lines) */
	gl_parse_ctx_release(&ctx);
	parse("{\"timestamp\": 1718000000, \"severity\": \"warning\", \"message\": \"x\"}", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	assert_int_equal(ctx.more, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_receipt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_at_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_document, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_line_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_shapes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
