/*
 * test_sec_memory.c - reports/sec_memory.c on a small database written by
 * hand (support/sec_db.h), its result read through its getter
 * (sec_memory.h): the events' memory samples (peak, last), and the RMM
 * allocation log replayed: outstanding bytes and their peak, frees of a
 * pointer never allocated, failures, what is still allocated at the window's
 * end (the leaks, largest first), the allocation sizes' quantiles and their
 * power-of-two histogram. Expected figures by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_memory.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void mem(struct sec_db *d, int64_t ts, int action, long long ptr, long long size, int line)
{
	sec_db_exec(d, "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
		       " VALUES (%lld, %d, %lld, %lld, 1, %d);", (long long)ts, action, ptr, size, line);
}

static void test_samples_and_rmm(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, mem_mb, message, stream_id, line) VALUES"
			" (%lld, 3, 100, 'a', 1, 1), (%lld, 3, 300, 'b', 1, 2),"
			" (%lld, 3, 200, 'c', 1, 3), (%lld, 3, NULL, 'd', 1, 4);",
		    (long long)T(1), (long long)T(2), (long long)T(3), (long long)T(4));
	/* allocate 1000 at 0x10 and 3000 at 0x20 (outstanding 4000: the peak), free 0x10,
	 * allocate 500 at 0x30 (3500), free 0x99 (never allocated), one failure */
	mem(&d, T(10), 0, 0x10, 1000, 10);
	mem(&d, T(11), 0, 0x20, 3000, 11);
	mem(&d, T(12), 1, 0x10, 0, 12);
	mem(&d, T(13), 0, 0x30, 500, 13);
	mem(&d, T(14), 1, 0x99, 0, 14);
	mem(&d, T(15), 2, 0, 1000000000, 15);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_memory *m = gl_memory_result(&d.rep);

	assert_non_null(m);
	assert_int_equal(m->samples, 3);
	sec_near(m->peak_mib, 300);
	assert_int_equal(m->peak_ts_us, T(2));
	sec_near(m->last_mib, 200);
	assert_int_equal(m->last_ts_us, T(3));

	const struct gl_report_rmm *r = &m->rmm;

	assert_int_equal(r->events, 6);
	assert_int_equal(r->allocations, 3);
	assert_int_equal(r->frees, 2);
	assert_int_equal(r->unmatched_frees, 1);
	assert_int_equal(r->allocation_failures, 1);
	assert_int_equal(r->peak_outstanding_bytes, 4000);
	assert_int_equal(r->peak_ts_us, T(11));
	assert_int_equal(r->leaked_allocations, 2);
	assert_int_equal(r->leaked_bytes, 3500);
	assert_int_equal(r->n_leaks, 2);
	assert_int_equal(r->leaks[0].ptr, 0x20);
	assert_int_equal(r->leaks[0].size_bytes, 3000);
	assert_int_equal(r->leaks[0].ts_us, T(11));
	assert_int_equal(r->leaks[1].ptr, 0x30);
	/* sizes 500, 1000, 3000 (failures are no allocation) */
	sec_near(r->size_min_bytes, 500);
	sec_near(r->size_p50_bytes, 1000);
	sec_near(r->size_p90_bytes, 2600);	/* rank 1.8: 1000 + 0.8 x 2000 */
	sec_near(r->size_max_bytes, 3000);
	/* 500 in [256, 512), 1000 in [512, 1024), 3000 in [2048, 4096) */
	assert_int_equal(r->n_histogram, 3);
	assert_int_equal(r->histogram[0].lo_bytes, 256);
	assert_int_equal(r->histogram[1].lo_bytes, 512);
	assert_int_equal(r->histogram[2].lo_bytes, 2048);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(r->histogram[i].count, 1);
	sec_db_close(&d);
}

static void test_lost_free_and_nothing(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	/* 0x10 allocated twice with no free between: the first is taken as freed */
	mem(&d, T(1), 0, 0x10, 100, 1);
	mem(&d, T(2), 0, 0x10, 40, 2);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_memory *m = gl_memory_result(&d.rep);

	assert_int_equal(m->samples, 0);
	assert_true(isnan(m->peak_mib));
	assert_int_equal(m->rmm.allocations, 2);
	assert_int_equal(m->rmm.peak_outstanding_bytes, 100);
	assert_int_equal(m->rmm.leaked_allocations, 1);
	assert_int_equal(m->rmm.leaked_bytes, 40);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_and_rmm),
		cmocka_unit_test(test_lost_free_and_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
