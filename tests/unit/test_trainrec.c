/* Tests for lib/ingest/trainrec.c: a trainer's step as a record, a run's name. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "ingest/trainrec.h"

static void check_tail(const char *path, size_t end, const char *want)
{
	struct gl_str s = gl_train_run_tail(path, path + end);

	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}

static void test_run_tail(void **state)
{
	(void)state;
	/* the last two names of the folder before end */
	check_tail("logs/node/job/train.log", 13, "node/job");
	check_tail("/srv/logs/node/job/train.log", 18, "node/job");
	check_tail("job/train.log", 3, "job");
	check_tail("/job/train.log", 4, "job");
	/* no folder: nothing (a file in / once read before its path) */
	check_tail("/train.log", 0, "");
	check_tail("train.log", 0, "");
}

static void check_str(struct gl_str s, const char *want)
{
	assert_non_null(s.p);
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}

static void test_step_record(void **state)
{
	static const char *const keys[] = {"step", "loss", "eval_loss", "epoch"};
	const double v[] = {500, 1.1409, NAN, 0.91}, w[] = {9, NAN, 0.5, NAN};
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	(void)state;
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = 1763334000000000;	/* 2025-11-16T23:00:00Z */
	assert_int_equal(gl_ctx_begin_line(&ctx, 64), 0);	/* the line's scratch */
	gl_event_init(&rec.ev);
	gl_train_step_record(&ctx, &(struct gl_train_step){.source = "hf_state", .run = "node/job",
		.keys = keys, .v = v, .n = 4, .step = v[0], .loss = v[1], .eval_loss = v[2],
		.eval_label = "eval_loss"}, &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.kind, GL_EV_TRAIN);
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	assert_int_equal(rec.ev.ts_us, 1763334000000000);
	check_str(rec.ev.component, "train");
	check_str(rec.ev.message, "step 500: loss 1.1409");
	/* the values not NAN, in the keys' order, then ts_estimated */
	check_str(rec.ev.metadata, "{\"train\":\"hf_state\",\"run\":\"node/job\",\"step\":500,"
				   "\"loss\":1.1409,\"epoch\":0.91,\"ts_estimated\":1}");
	/* no loss: the evaluation's, under its label; neither: the step alone */
	gl_event_init(&rec.ev);
	gl_train_step_record(&ctx, &(struct gl_train_step){.source = "lightning", .run = "eval",
		.keys = keys, .v = w, .n = 4, .step = w[0], .loss = w[1], .eval_loss = w[2],
		.eval_label = "val loss"}, &rec);
	check_str(rec.ev.message, "step 9: val loss 0.5");
	check_str(rec.ev.metadata, "{\"train\":\"lightning\",\"run\":\"eval\",\"step\":9,"
				   "\"eval_loss\":0.5,\"ts_estimated\":1}");
	gl_event_init(&rec.ev);
	gl_train_step_record(&ctx, &(struct gl_train_step){.source = "lightning", .run = "eval",
		.keys = keys, .v = w, .n = 1, .step = 9, .loss = NAN, .eval_loss = NAN,
		.eval_label = "val loss"}, &rec);
	check_str(rec.ev.message, "step 9");
	gl_parse_ctx_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_tail),
		cmocka_unit_test(test_step_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
