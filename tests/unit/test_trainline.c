/* Tests for lib/ingest/trainline.c: trainers' metrics lines and tqdm bars. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/trainline.h"

static void test_hf(void **state)
{
	static const char a[] = "{'loss': 1.1409, 'grad_norm': 2.757542133331299, 'learning_rate': "
				"1.817850637522769e-05, 'epoch': 0.91}";
	static const char b[] = "{'loss': '10.45', 'grad_norm': '1.087', 'learning_rate': '5e-05', 'epoch': '0.01'}";
	static const char c[] = "{'train_runtime': 6.1, 'train_samples_per_second': 3.2}";
	struct gl_train t;

	(void)state;
	assert_int_equal(gl_train_parse(a, strlen(a), &t), 1);
	assert_true(t.loss == 1.1409 && t.epoch == 0.91 && t.grad_norm == 2.757542133331299);
	assert_true(t.step == -1);
	assert_string_equal(t.source, "hf");
	assert_int_equal(gl_train_parse(b, strlen(b), &t), 1);
	assert_true(t.loss == 10.45 && t.learning_rate == 5e-05);
	/* the run's summary is no step */
	assert_int_equal(gl_train_parse(c, strlen(c), &t), 0);
}

static void test_megatron_deepspeed(void **state)
{
	static const char m[] = " iteration     9943/   10000 | consumed samples:       636352 | elapsed time "
				"per iteration (ms): 10206.6 | learning rate: 1.000722E-05 | lm loss: 2.746864E+00 |";
	static const char d[] = "[Rank 0] step=40, skipped=2, lr=[5e-05], mom=[[0.9, 0.999]]";
	static const char s[] = "0/40, SamplesPerSec=83.48609168106144, MemAllocated=0.26GB";
	struct gl_train t;

	(void)state;
	assert_int_equal(gl_train_parse(m, strlen(m), &t), 1);
	assert_true(t.step == 9943 && t.loss == 2.746864 && t.iteration_ms == 10206.6);
	assert_int_equal(gl_train_parse(d, strlen(d), &t), 1);
	assert_true(t.step == 40 && t.learning_rate == 5e-05);
	assert_int_equal(gl_train_parse(s, strlen(s), &t), 1);
	assert_true(t.step == 40 && t.samples_per_s == 83.48609168106144);
}

static void test_tqdm(void **state)
{
	static const char a[] = " 10%|###    | 549/5490 [05:02<38:38,  2.13it/s]The following columns";
	static const char b[] = "  70%|x| 1211/1737 [31:07<13:30,  1.54sWARNING:torch.distributed";
	static const char c[] = "Map: 100%|#####| 5000/5000 [00:01<00:00, 4000.00 examples/s]";
	struct gl_tqdm bar;

	(void)state;
	assert_int_equal(gl_tqdm_parse(a, strlen(a), &bar), 1);
	assert_false(bar.has_desc);
	assert_true(bar.done == 549 && bar.total == 5490 && bar.it_per_s == 2.13);
	assert_true(bar.elapsed_s == 302);
	assert_string_equal(a + bar.end, "The following columns");
	/* a rate cut by the terminal: the glued text starts after "1.54s" */
	assert_int_equal(gl_tqdm_parse(b, strlen(b), &bar), 1);
	assert_true(isnan(bar.it_per_s));
	assert_string_equal(b + bar.end, "WARNING:torch.distributed");
	assert_int_equal(gl_tqdm_parse(c, strlen(c), &bar), 1);
	assert_true(bar.has_desc);
	assert_int_equal(gl_tqdm_parse("100% done", 9, &bar), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hf),
		cmocka_unit_test(test_megatron_deepspeed),
		cmocka_unit_test(test_tqdm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
