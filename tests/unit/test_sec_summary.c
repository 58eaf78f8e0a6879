/*
 * test_sec_summary.c - reports/sec_summary.c on a small database written by
 * hand (support/sec_db.h), its result read through its getters
 * (sec_summary.h): events per component and level in the window, the data's
 * first and last time, rejected lines of the window, the files of the whole
 * database, mirrored records (dup_of set) left out of every count, and the
 * status: no_data for an empty window, ok for a window of INFO records.
 * Expected figures by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_summary.h"
#include "util/timeutil.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)
#define HOUR (3600 * SEC_S_US)

static void test_counts(void **state)
{
	static const char *const names[] = {"a", "b", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO events(id, ts_us, level, component_id, message, stream_id, line)"
			" VALUES (1, %lld, 3, 1, 'x', 1, 1), (2, %lld, 3, 1, 'y', 1, 2),"
			" (3, %lld, 4, 2, 'z', 1, 3), (4, %lld, 3, 2, 'w', 1, 4),"
			/* a mirror of record 1 (another file held the same line) */
			" (5, %lld, 3, 1, 'x', 1, 5),"
			/* before the window */
			" (6, %lld, 5, 2, 'old', 1, 6);",
		    (long long)T(1), (long long)T(2), (long long)T(3), (long long)T(4),
		    (long long)T(1), (long long)T(-100));
	sec_db_exec(&d, "UPDATE events SET dup_of = 1 WHERE id = 5;");
	sec_db_exec(&d, "INSERT INTO rejects(reason, ts_us, line) VALUES ('bad', %lld, 7),"
			" ('bad', %lld, 8), ('bad', %lld, 9);",
		    (long long)T(10), (long long)T(20), (long long)(SEC_T0 + 2 * HOUR));
	sec_db_exec(&d, "INSERT INTO files(path, status) VALUES ('/l/1', 'read'), ('/l/2', 'read'),"
			" ('/l/3', 'skipped');");
	sec_db_build(&d, SEC_T0, SEC_T0 + HOUR, 20);

	const struct gl_report_summary *s = gl_summary_result(&d.rep);

	assert_non_null(s);
	assert_int_equal(s->events, 4);
	assert_int_equal(s->duplicates, 1);
	assert_int_equal(s->n_by_component, 2);
	assert_string_equal(s->by_component[0].name, "a");
	assert_int_equal(s->by_component[0].count, 2);
	assert_string_equal(s->by_component[1].name, "b");
	assert_int_equal(s->by_component[1].count, 2);
	assert_int_equal(s->by_level[GL_LEVEL_INFO], 3);
	assert_int_equal(s->by_level[GL_LEVEL_WARN], 1);
	assert_int_equal(s->by_level[GL_LEVEL_ERROR], 0);
	assert_int_equal(s->first_ts_us, T(1));
	assert_int_equal(s->last_ts_us, T(4));
	assert_int_equal(s->rejected_lines, 2);
	assert_int_equal(s->files, 3);
	sec_db_close(&d);
}

static void test_status(void **state)
{
	static const char *const names[] = {"a", NULL};
	struct sec_db d;

	(void)state;
	/* nothing in the window: no data, never "ok" */
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, message, stream_id, line)"
			" VALUES (%lld, 3, 1, 'x', 1, 1);", (long long)(SEC_T0 + 5 * HOUR));
	sec_db_build(&d, SEC_T0, SEC_T0 + HOUR, 20);
	assert_int_equal(gl_summary_result(&d.rep)->events, 0);
	assert_int_equal(gl_summary_result(&d.rep)->first_ts_us, GL_TS_NONE);
	assert_int_equal(gl_status_of(&d.rep), GL_STATUS_NO_DATA);
	assert_string_equal(gl_status_name(gl_status_of(&d.rep)), "no_data");
	sec_db_close(&d);

	/* INFO records only: ok */
	sec_db_open(&d, names);
	for (int i = 0; i < 3; i++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, message, stream_id,"
				" line) VALUES (%lld, 3, 1, 'x', 1, %d);", (long long)T(i), i + 1);
	sec_db_build(&d, SEC_T0, SEC_T0 + HOUR, 20);
	assert_int_equal(gl_summary_result(&d.rep)->events, 3);
	assert_int_equal(gl_status_of(&d.rep), GL_STATUS_OK);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
