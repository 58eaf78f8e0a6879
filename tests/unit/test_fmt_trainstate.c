/* Tests for lib/ingest/fmt_trainstate.c: trainer_state.json's log_history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_trainstate;

static const char *const doc[] = {
	"{",
	"  \"best_metric\": null,",
	"  \"global_step\": 1000,",
	"  \"log_history\": [",
	"    {",
	"      \"epoch\": 0.91,",
	"      \"grad_norm\": 2.757542133331299,",
	"      \"learning_rate\": 1.817850637522769e-05,",
	"      \"loss\": 1.1409,",
	"      \"step\": 500",
	"    },",
	"    {",
	"      \"epoch\": 1.0,",
	"      \"eval_loss\": 0.6597685217857361,",
	"      \"step\": 549",
	"    },",
	"    {",
	"      \"epoch\": 1.0,",
	"      \"predict_loss\": 0.66",
	"    }",
	"  ],",
	"  \"max_steps\": 5490",
	"}",
};

static int meta_has(const struct gl_rec *rec, const char *part)
{
	char buf[1024];
	size_t n = rec->ev.metadata.len < sizeof(buf) - 1 ? rec->ev.metadata.len : sizeof(buf) - 1;

	memcpy(buf, rec->ev.metadata.p, n);
	buf[n] = '\0';
	return strstr(buf, part) != NULL;
}

static void test_history(void **state)
{
	struct gl_parse_ctx ctx;
	struct gl_rec rec;
	int events = 0;

	(void)state;
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = 1700000000000000LL;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		gl_test_parse(&gl_fmt_trainstate, &ctx, doc[i], &rec);
		assert_true(rec.kind == GL_REC_NONE || rec.kind == GL_REC_EVENT);
		if (rec.kind != GL_REC_EVENT)
			continue;
		events++;
		assert_true(rec.ev.ts_us == ctx.file_mtime_us);
		gl_test_assert_str(rec.ev.component, "train");
		if (events == 1) {
			gl_test_assert_str(rec.ev.message, "step 500: loss 1.1409");
			assert_true(meta_has(&rec, "\"step\":500,\"loss\":1.1409,\"grad_norm\":2.757542133,"
					   "\"learning_rate\":1.817850638e-05,\"epoch\":0.91,\"ts_estimated\":1"));
		} else {
			assert_true(meta_has(&rec, "\"step\":549,\"eval_loss\":0.6597685218"));
		}
	}
	/* two entries with a step; trainer.predict's has none */
	assert_int_equal(events, 2);
	gl_parse_ctx_release(&ctx);
}

static void test_detect(void **state)
{
	struct gl_str lines[sizeof(doc) / sizeof(doc[0])];
	const char *why = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++)
		lines[i] = (struct gl_str){doc[i], strlen(doc[i])};
	assert_ptr_equal(gl_format_detect(lines, sizeof(doc) / sizeof(doc[0]), &why), &gl_fmt_trainstate);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
