/*
 * Tests for lib/ingest/fmt_vllm.c (vLLM server logs): hand-written lines
 * for each shape, the year rule, and the four real logs under
 * ../shared/realdata/inference-server-logs against counts made by a
 * separate python3 regex count and grep (numbers in the comments).
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
#include "support/fmt_check.h"
#include "support/sample_check.h"

extern const struct gl_format gl_fmt_vllm;

static struct gl_parse_ctx ctx;

/* 2025-08-10T00:00:00Z */
#define MTIME_US 1754784000000000LL

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

static void parse(const char *line, struct gl_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	gl_test_parse(&gl_fmt_vllm, &ctx, line, rec);
}

static double sample(const struct gl_rec *rec, const char *m)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(m) && !memcmp(rec->samples[i].metric.p, m, strlen(m)))
			return rec->samples[i].value;
	fail_msg("no sample %s", m);
	return NAN;
}

static void test_shapes(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* before any vLLM line, a line of no vLLM shape is not taken */
	parse("START 20:59:05 MAX_JOBS=1", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("\x1b[0;36m(APIServer pid=960769)\x1b[0;0m INFO 08-04 11:28:51 [loggers.py:257] Engine 000: "
	      "Avg prompt throughput: 8149.1 tokens/s, Avg generation throughput: 979.0 tokens/s, Running: 127 reqs, "
	      "Waiting: 3 reqs, GPU KV cache usage: 10.3%, Prefix cache hit rate: 13.5%", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "APIServer");
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	/* 2025-08-04T11:28:51Z: the file's year (mtime 2025-08-10) */
	assert_true(rec.ev.ts_us == 1754306931000000LL);
	assert_int_equal(rec.n_samples, 6);
	assert_true(sample(&rec, "vllm.prompt_throughput_tps") == 8149.1);
	assert_true(sample(&rec, "vllm.generation_throughput_tps") == 979.0);
	assert_true(sample(&rec, "vllm.running_requests") == 127);
	assert_true(sample(&rec, "vllm.waiting_requests") == 3);
	assert_true(sample(&rec, "vllm.kv_cache_usage_pct") == 10.3);
	assert_true(sample(&rec, "vllm.prefix_cache_hit_rate_pct") == 13.5);
	assert_true(rec.samples[0].ts_us == rec.ev.ts_us);
	assert_int_equal(rec.samples[0].ts_estimated, 0);
	/* older wording: Swapped, no prefix cache */
	parse("INFO 08-04 11:28:52 metrics.py:341] Avg prompt throughput: 1.0 tokens/s, Avg generation "
	      "throughput: 2.0 tokens/s, Running: 1 reqs, Swapped: 4 reqs, Pending: 0 reqs, GPU KV cache usage: 0.5%", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "vllm");
	assert_int_equal(rec.n_samples, 5);
	assert_true(sample(&rec, "vllm.waiting_requests") == 4);
	/* uvicorn: no time, the line before's */
	parse("(APIServer pid=868061) INFO:     127.0.0.1:51906 - \"GET /metrics HTTP/1.1\" 200 OK", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.message, "127.0.0.1:51906 - \"GET /metrics HTTP/1.1\" 200 OK");
	assert_true(rec.ev.ts_us == 1754306932000000LL);
	/* a traceback: an ERROR event, then continuations up to the next line with a level */
	parse("(APIServer pid=868061) Traceback (most recent call last):", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	parse("(APIServer pid=868061)   File \"/usr/lib/routing.py\", line 73, in app", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("(APIServer pid=868061) vllm.exceptions.VLLMValidationError: too long", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("(Worker_TP0_EP0 pid=868402) WARNING 08-04 11:29:02 [cuda.py:1] x", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "Worker_TP0_EP0");
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	gl_test_assert_str(rec.ev.message, "x");
	/* other output after a vLLM line is an event of its own */
	parse("(EngineCore pid=23397) [transformers] Unrecognized keys", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_NONE);
	/* SpecDecoding: the overall rate, not the per-position list */
	parse("(APIServer pid=23283) INFO 08-04 21:24:09 [metrics.py:120] SpecDecoding metrics: Mean acceptance "
	      "length: 3.62, Accepted throughput: 2.87 tokens/s, Drafted throughput: 16.42 tokens/s, Accepted: 76 "
	      "tokens, Drafted: 435 tokens, Per-position acceptance rate: 0.793, 0.552, Avg Draft acceptance rate: 17.5%",
	      &rec);
	assert_int_equal(rec.n_samples, 6);
	assert_true(sample(&rec, "vllm.spec_decode_acceptance_length") == 3.62);
	assert_true(sample(&rec, "vllm.spec_decode_accepted_tokens") == 76);
	assert_true(sample(&rec, "vllm.spec_decode_drafted_tps") == 16.42);
	assert_true(sample(&rec, "vllm.spec_decode_acceptance_rate_pct") == 17.5);
	/* a throughput line missing what every version writes */
	parse("INFO 08-04 21:24:10 [loggers.py:1] Avg prompt throughput: 1.0 tokens/s", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
}

static void test_year(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* mtime 2025-01-02: a December line is from 2024, then January is 2025 */
	ctx.file_mtime_us = 1735776000000000LL;
	parse("INFO 12-31 23:59:58 [a.py:1] old year", &rec);
	assert_true(rec.ev.ts_us == 1735689598000000LL);	/* 2024-12-31T23:59:58Z */
	parse("INFO 01-01 00:00:03 [a.py:1] new year", &rec);
	assert_true(rec.ev.ts_us == 1735689603000000LL);	/* 2025-01-01T00:00:03Z */
	/* the state carries the year into a later run */
	{
		struct gl_parse_ctx later;

		gl_parse_ctx_init(&later);
		memcpy(later.state, ctx.state, ctx.state_len);
		later.state_len = ctx.state_len;
		later.file_mtime_us = 1767225600000000LL;	/* 2026-01-01: a later mtime */
		gl_ctx_begin_line(&later, 64);
		memset(&rec, 0, sizeof(rec));
		gl_fmt_vllm.parse(&later, "INFO 01-05 10:00:00 [a.py:1] x", 30, &rec);
		assert_true(rec.ev.ts_us == 1736071200000000LL);	/* 2025-01-05T10:00:00Z */
		gl_parse_ctx_release(&later);
	}
	/* a zone: naive local time */
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = MTIME_US;
	ctx.tz_name = "Asia/Tokyo";
	parse("INFO 08-07 13:49:04 [loggers.py:122] x", &rec);
	assert_true(rec.ev.ts_us == 1754542144000000LL);	/* 2025-08-07T04:49:04Z */
}

struct counts {
	long lines, event, cont, foreign, reject, tput;
	double gen_sum, running_sum, spec_rate_sum;
	long access, failed;	/* events of kind GL_EV_ACCESS, GL_EV_ACCESS_FAILED */
};

/* Reads path line by line as ingest does ('\n' split, '\r' removed). */
static void read_log(const char *path, struct counts *c)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	struct gl_rec rec;

	assert_non_null(f);
	memset(c, 0, sizeof(*c));
	while ((n = getline(&buf, &cap, f)) > 0) {
		size_t len = (size_t)n;
		char *line;

		if (buf[len - 1] == '\n')
			len--;
		if (len && buf[len - 1] == '\r')
			len--;
		c->lines++;
		line = malloc(len + 1);
		assert_non_null(line);
		memcpy(line, buf, len);
		gl_ctx_begin_line(&ctx, len);
		memset(&rec, 0, sizeof(rec));
		gl_fmt_vllm.parse(&ctx, line, len, &rec);
		switch (rec.kind) {
		case GL_REC_EVENT:
			c->event++;
			c->access += rec.ev.kind == GL_EV_ACCESS;
			c->failed += rec.ev.kind == GL_EV_ACCESS_FAILED;
			for (size_t i = 0; i < rec.n_samples; i++) {
				struct gl_str m = rec.samples[i].metric;

				if (m.len == 30 && !memcmp(m.p, "vllm.generation_throughput_tps", 30)) {
					c->tput++;
					c->gen_sum += rec.samples[i].value;
				}
				if (m.len == 21 && !memcmp(m.p, "vllm.running_requests", 21))
					c->running_sum += rec.samples[i].value;
				if (m.len == 36 && !memcmp(m.p, "vllm.spec_decode_acceptance_rate_pct", 36))
					c->spec_rate_sum += rec.samples[i].value;
			}
			break;
		case GL_REC_CONT:
			c->cont++;
			break;
		case GL_REC_FOREIGN:
			c->foreign++;
			break;
		case GL_REC_REJECT:
			c->reject++;
			break;
		default:
			fail_msg("unexpected kind %d", rec.kind);
		}
		free(line);
	}
	free(buf);
	fclose(f);
}

static void test_real_logs(void **state)
{
	/*
	 * lines: wc -l; tput: grep -ac 'Avg prompt throughput' (SOURCES.md:
	 * 122, 181, 65, 25); events/continuations/foreign: /tmp one-off python3
	 * regex walk (a level line, a uvicorn line, a Traceback opening, an
	 * indented line or one inside a traceback, a line before any vLLM
	 * line). DaisukeTakai's 25th throughput line sits behind 125,485 NUL
	 * bytes (a copytruncate hole, not spaces): it is not a vLLM line, and
	 * ingest rejects it for its NULs before any format sees it.
	 */
	/* access, failed: grep -aE '"POST /v1/.* HTTP/.*" [1-5][0-9][0-9]' without
	 * the lines that also match [45][0-9][0-9], and those (every such line
	 * is a record's first line) */
	static const struct {
		const char *sub;
		long lines, event, cont, foreign, tput, access, failed;
	} logs[] = {
		{"inference-server-logs/SemiAnalysisAI+InferenceX/vllm-0.15.0_tp1_bs128_offloadoff/server.log",
		 6510, 6510, 0, 0, 122, 5127, 0},
		{"inference-server-logs/SemiAnalysisAI+InferenceX/vllm-0.19.1_dsr1_tp4_conc128_b200/server.log",
		 2723, 2540, 183, 0, 181, 390, 2},
		{"inference-server-logs/DaisukeTakai+eval_dataset/vllm.log", 74, 42, 31, 1, 24, 12, 0},
		{"inference-server-logs/sostrowsk+dgx-spark-local-llm/vllm.log", 518, 516, 1, 1, 65, 92, 3},
	};
	char path[512];
	struct counts c;

	(void)state;
	if (!gl_test_realdata(path, sizeof(path), logs[0].sub))
		skip();
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		gl_parse_ctx_release(&ctx);
		gl_parse_ctx_init(&ctx);
		ctx.file_mtime_us = MTIME_US;
		assert_true(gl_test_realdata(path, sizeof(path), logs[i].sub));
		read_log(path, &c);
		assert_int_equal(c.lines, logs[i].lines);
		assert_int_equal(c.event, logs[i].event);
		assert_int_equal(c.cont, logs[i].cont);
		assert_int_equal(c.foreign, logs[i].foreign);
		assert_int_equal(c.reject, 0);
		assert_int_equal(c.tput, logs[i].tput);
		assert_int_equal(c.access, logs[i].access);
		assert_int_equal(c.failed, logs[i].failed);
		assert_string_equal(gl_test_detect_path(path), "vllm");
		if (i == 1)	/* awk -F'Avg generation throughput: ' '{split($2,a," "); s+=a[1]}' */
			assert_true(fabs(c.gen_sum - 47635.0) < 1e-6);
		if (i == 0)	/* the same over 'Running: ' */
			assert_true(c.running_sum == 14995);
		if (i == 3)	/* the same over 'Avg Draft acceptance rate: ' */
			assert_true(fabs(c.spec_rate_sum - 396.6) < 1e-6);
	}
}

/*
 * The kind of each record: uvicorn's access line of a POST to /v1/ is
 * GL_EV_ACCESS, or GL_EV_ACCESS_FAILED when answered with 400 to 599;
 * the text may stand anywhere in the message, as long as its parts come in
 * order ('"POST /v1/', ' HTTP/', '" ' and three digits).
 */
static void test_access_kind(void **state)
{
	static const struct {
		const char *line;
		enum gl_ev_kind kind;
	} cases[] = {
		{"(APIServer pid=868061) INFO:     127.0.0.1:51906 - \"POST /v1/completions HTTP/1.1\" 200 OK",
		 GL_EV_ACCESS},
		{"INFO:     10.0.3.17:51234 - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request",
		 GL_EV_ACCESS_FAILED},
		{"INFO:     10.0.3.17:51234 - \"POST /v1/completions HTTP/1.1\" 503 Service Unavailable",
		 GL_EV_ACCESS_FAILED},
		{"INFO:     10.0.3.17:51234 - \"POST /v1/completions HTTP/1.1\" 101 Switching",
		 GL_EV_ACCESS},
		{"INFO:     10.0.3.17:51234 - \"POST /v1/completions HTTP/1.1\" 399", GL_EV_ACCESS},
		/* not a POST to /v1/, no status of three digits from 1 to 5, a gap */
		{"(APIServer pid=868061) INFO:     127.0.0.1:51906 - \"GET /metrics HTTP/1.1\" 200 OK",
		 GL_EV_LOG},
		{"INFO:     1.2.3.4:5 - \"POST /v2/completions HTTP/1.1\" 200 OK", GL_EV_LOG},
		{"INFO:     1.2.3.4:5 - \"POST /v1/completions HTTP/1.1\" 600 Odd", GL_EV_LOG},
		{"INFO:     1.2.3.4:5 - \"POST /v1/completions HTTP/1.1\" 20", GL_EV_LOG},
		{"INFO:     1.2.3.4:5 - \"POST /v1/completions HTTP/1.1\"  200 OK", GL_EV_LOG},
		{"INFO:     1.2.3.4:5 - \"POST /v1/completions\" 200 OK", GL_EV_LOG},
		{"INFO:     HTTP/1.1\" 200 then \"POST /v1/completions", GL_EV_LOG},
		/* anywhere in a vLLM line; a later failed status decides */
		{"INFO 08-07 13:49:04 [proxy.py:9] upstream said \"POST /v1/x HTTP/2\" 404 Not Found",
		 GL_EV_ACCESS_FAILED},
		{"INFO:     \"POST /v1/a HTTP/1.1\" 200 OK, then \"POST /v1/b HTTP/1.1\" 500",
		 GL_EV_ACCESS_FAILED},
		{"INFO:     \"POST /v1/a HTTP/1.1\" x\" 201", GL_EV_ACCESS},
		{"INFO 08-07 13:49:04 [loggers.py:122] Engine 000: Avg prompt throughput: 0.0 tokens/s, "
		 "Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, "
		 "GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%",
		 GL_EV_LOG},
	};
	struct gl_rec rec;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(cases[i].line, &rec);
		if (rec.kind != GL_REC_EVENT || rec.ev.kind != cases[i].kind)
			fail_msg("case %zu: rec kind %d, event kind %d, want %d", i, rec.kind,
				 rec.ev.kind, cases[i].kind);
		assert_int_equal(gl_event_kind(&rec.ev), cases[i].kind);
	}
}

static void test_junk(void **state)
{
	static const char alphabet[] = "(AP pid=1) INFO 08-07 13:49:04 [a.py:1] Avg prompt throughput: Running: % \x1b[0;36m\t";

	(void)state;
	gl_test_junk(&gl_fmt_vllm, &ctx, alphabet, sizeof(alphabet) - 1, 4242);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_year, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_logs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
