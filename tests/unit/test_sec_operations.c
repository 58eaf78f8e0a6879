/*
 * test_sec_operations.c - reports/sec_operations.c on a small database
 * written by hand (support/sec_db.h), its result read through its getter
 * (sec_operations.h): records with a time and no kernel grouped by
 * operation (metadata.operation, else the message's "Operation X completed
 * in T", else the component); the time from execution_time_ms, else the
 * message (in s, ms or us); mean throughput of the records
 * that carry one; operations by total, largest first. Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_operations.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void test_operations(void **state)
{
	static const char *const names[] = {"performance", "gemm", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	sec_db_exec(&d,
		    "INSERT INTO events(ts_us, level, component_id, kernel_id, exec_ms, message, metadata,"
		    " stream_id, line) VALUES"
		    /* load: 10, 20, 30 ms from execution_time_ms; throughput on two */
		    " (%lld, 3, 1, NULL, 10, 'Operation load completed in 10ms',"
		    "  '{\"operation\": \"load\", \"throughput\": 100}', 1, 1),"
		    " (%lld, 3, 1, NULL, 20, 'Operation load completed in 20ms',"
		    "  '{\"operation\": \"load\", \"throughput\": 200}', 1, 2),"
		    " (%lld, 3, 1, NULL, 30, 'Operation load completed in 30ms',"
		    "  '{\"operation\": \"load\"}', 1, 3),"
		    /* save: 1.5 s and 500000 us from the message alone */
		    " (%lld, 3, 1, NULL, NULL, 'Operation save completed in 1.5 s', NULL, 1, 4),"
		    " (%lld, 3, 1, NULL, NULL, 'Operation save completed in 500000us', NULL, 1, 5),"
		    /* a kernel timing is not an operation */
		    " (%lld, 3, 1, 2, 99, 'Kernel gemm executed in 99ms', NULL, 1, 6),"
		    /* no time anywhere: not an operation */
		    " (%lld, 3, 1, NULL, NULL, 'Operation idle started', NULL, 1, 7);",
		    (long long)T(1), (long long)T(2), (long long)T(3), (long long)T(4),
		    (long long)T(5), (long long)T(6), (long long)T(7));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_operations_result *r = gl_operations_result(&d.rep);

	assert_non_null(r);
	assert_int_equal(r->n_operations, 2);

	const struct gl_report_operation *save = &r->operations[0], *load = &r->operations[1];

	assert_string_equal(save->operation, "save");
	assert_string_equal(save->component, "performance");
	assert_int_equal(save->count, 2);
	sec_near(save->total_ms, 2000);
	sec_near(save->mean_ms, 1000);
	sec_near(save->min_ms, 500);
	sec_near(save->max_ms, 1500);
	assert_int_equal(save->throughput_n, 0);
	assert_true(isnan(save->mean_throughput));

	assert_string_equal(load->operation, "load");
	assert_int_equal(load->count, 3);
	sec_near(load->total_ms, 60);
	sec_near(load->mean_ms, 20);
	sec_near(load->stddev_ms, 10);
	sec_near(load->p50_ms, 20);
	sec_near(load->p95_ms, 29);		/* rank 1.9: 20 + 0.9 x 10 */
	sec_near(load->p99_ms, 29.8);		/* rank 1.98 */
	assert_int_equal(load->throughput_n, 2);
	sec_near(load->mean_throughput, 150);
	sec_db_close(&d);
}

static void test_component_names_an_unnamed_timing(void **state)
{
	static const char *const names[] = {"loader", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	/* a time and no operation name: the component's name; one record: no stddev */
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, exec_ms, message, stream_id,"
			" line) VALUES (%lld, 3, 1, 4.5, 'batch ready', 1, 1);", (long long)T(1));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_operations_result *r = gl_operations_result(&d.rep);

	assert_int_equal(r->n_operations, 1);
	assert_string_equal(r->operations[0].operation, "loader");
	assert_int_equal(r->operations[0].count, 1);
	sec_near(r->operations[0].p99_ms, 4.5);
	assert_true(isnan(r->operations[0].stddev_ms));
	sec_db_close(&d);
}

/* a name past NAME_MAX_BYTES (200) is cut to its first 199 bytes */
static void test_long_name_cut(void **state)
{
	char comp[251], want[200];
	const char *names[] = {comp, NULL};
	struct sec_db d;

	(void)state;
	memset(comp, 'c', 250);
	comp[250] = '\0';
	memset(want, 'c', 199);
	want[199] = '\0';
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, exec_ms, message, stream_id,"
			" line) VALUES (%lld, 3, 1, 2.5, 'step', 1, 1);", (long long)T(1));
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_operations_result *r = gl_operations_result(&d.rep);

	assert_int_equal(r->n_operations, 1);
	assert_string_equal(r->operations[0].operation, want);
	assert_int_equal(r->operations[0].count, 1);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operations),
		cmocka_unit_test(test_component_names_an_unnamed_timing),
		cmocka_unit_test(test_long_name_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
