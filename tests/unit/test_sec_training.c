/*
 * test_sec_training.c - reports/sec_training.c on a small database written
 * by hand (support/sec_db.h): trainer step records (kind 5, their metadata as
 * lib/ingest/trainrec.c writes it) grouped into runs and ranks; a step read
 * twice (another source) counted once and as a duplicate; the loss's first
 * and last tenth and change; iteration times from the trainer's own figure
 * or from the times of timed steps; a rank's straggling against the fastest
 * rank; CUDA out-of-memory errors and tracebacks counted only in the streams
 * that hold train records. The result is read through its getter
 * (sec_training.h). Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_training.h"
#include "../../reports/section.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static int line;

static void step(struct sec_db *d, int64_t ts, const char *meta)
{
	sec_db_exec(d, "INSERT INTO events(ts_us, level, message, metadata, kind, stream_id, line)"
		       " VALUES (%lld, 3, 'step', %Q, 5, 1, %d);", (long long)ts, meta, ++line);
}

static void test_runs(void **state)
{
	struct sec_db d;
	char meta[256];

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_exec(&d, "INSERT INTO event_kinds(kind) VALUES (5);"
			"INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes, head_hash)"
			" VALUES (2, 'svc', 0, 0, 0, 0, 0);");
	/* job/r1: steps 1..10 every 2 s, loss 10 down to 1; step 5 again from the state file */
	for (int i = 1; i <= 10; i++) {
		snprintf(meta, sizeof(meta), "{\"train\":\"hf\",\"run\":\"job/r1\",\"step\":%d,"
					     "\"loss\":%d}", i, 11 - i);
		step(&d, T(2 * i), meta);
	}
	step(&d, T(100), "{\"train\":\"hf_state\",\"run\":\"job/r1\",\"step\":5,\"loss\":6,"
			 "\"ts_estimated\":1}");
	/* job/ddp: ranks 0 and 1, five steps each, the trainer's own iteration times */
	for (int r = 0; r < 2; r++)
		for (int i = 1; i <= 5; i++) {
			snprintf(meta, sizeof(meta), "{\"train\":\"megatron\",\"run\":\"job/ddp\","
						     "\"rank\":%d,\"step\":%d,\"iteration_ms\":%d}",
				 r, i, r ? 1500 : 1000);
			step(&d, T(200 + 2 * i), meta);
		}
	/* an OOM and a traceback in the job's stream; an OOM of a service elsewhere */
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, message, stream_id, line) VALUES"
			" (%lld, 5, 'torch.OutOfMemoryError: CUDA out of memory. Tried', 1, 90),"
			" (%lld, 5, 'Traceback (most recent call last):\n  File x', 1, 91),"
			" (%lld, 5, 'CUDA out of memory', 2, 1);",
		    (long long)T(300), (long long)T(301), (long long)T(302));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_training_result *t =
		gl_training_result(gl_report_state_of(&d.rep, &gl_sec_training));

	assert_non_null(t);
	assert_int_equal(t->records, 21);
	assert_int_equal(t->oom, 1);
	assert_int_equal(t->tracebacks, 1);
	/* by run, then rank: job/ddp 0, job/ddp 1, job/r1 */
	assert_int_equal(t->n, 3);

	const struct gl_training_run *d0 = &t->runs[0], *d1 = &t->runs[1], *r1 = &t->runs[2];

	assert_string_equal(d0->run, "job/ddp");
	assert_int_equal(d0->rank, 0);
	assert_int_equal(d0->n_steps, 5);
	sec_near(d0->iter_ms_p50, 1000);
	sec_near(d0->straggler_pct, 0);
	assert_int_equal(d1->rank, 1);
	sec_near(d1->iter_ms_p50, 1500);
	sec_near(d1->straggler_pct, 50);		/* 1500 against 1000 */

	assert_string_equal(r1->run, "job/r1");
	assert_int_equal(r1->rank, -1);
	assert_string_equal(r1->sources, "hf,hf_state");
	assert_int_equal(r1->n_steps, 10);
	assert_int_equal(r1->duplicates, 1);
	sec_near(r1->step_first, 1);
	sec_near(r1->step_last, 10);
	/* ten losses: the first tenth is step 1's (10), the last step 10's (1) */
	sec_near(r1->loss_first, 10);
	sec_near(r1->loss_last, 1);
	sec_near(r1->loss_min, 1);
	sec_near(r1->loss_change_pct, -90);
	/* one run of ranks: no straggling; steps 2 s apart: 2000 ms an iteration */
	assert_true(isnan(r1->straggler_pct));
	sec_near(r1->iter_ms_p50, 2000);
	sec_near(r1->iter_ms_p95, 2000);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
