/*
 * Tests for lib/record/record.c and record.h: a record's "absent" values
 * and the kind it is stored with (gl_event_kind).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/record.h"

static void test_event_init(void **state)
{
	struct gl_event ev;

	(void)state;
	memset(&ev, 0x5a, sizeof(ev));
	gl_event_init(&ev);
	assert_true(ev.ts_us == GL_TS_NONE);
	assert_true(isnan(ev.dur_us) && isnan(ev.exec_ms) && isnan(ev.occupancy));
	assert_true(ev.error_count == -1 && ev.anomaly == -1 && ev.corr_id == -1);
	assert_null(ev.message.p);
	assert_int_equal(ev.source, GL_SRC_LOG);
	assert_int_equal(ev.kind, GL_EV_LOG);
}

/* The parser's kind stands; a profiler's record without one is a trace
 * record; a log line without one is a log line. */
static void test_event_kind(void **state)
{
	static const struct {
		enum gl_ev_source source;
		enum gl_ev_kind set, want;
	} cases[] = {
		{GL_SRC_LOG, GL_EV_LOG, GL_EV_LOG},
		{GL_SRC_KINETO, GL_EV_LOG, GL_EV_TRACE},
		{GL_SRC_GPUFL, GL_EV_LOG, GL_EV_TRACE},
		{GL_SRC_NSYS, GL_EV_LOG, GL_EV_TRACE},
		{GL_SRC_LOG, GL_EV_ALERT, GL_EV_ALERT},
		{GL_SRC_LOG, GL_EV_ACCESS, GL_EV_ACCESS},
		{GL_SRC_LOG, GL_EV_ACCESS_FAILED, GL_EV_ACCESS_FAILED},
		{GL_SRC_NSYS, GL_EV_ALERT, GL_EV_ALERT},
	};
	struct gl_event ev;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gl_event_init(&ev);
		ev.source = cases[i].source;
		ev.kind = cases[i].set;
		assert_int_equal(gl_event_kind(&ev), cases[i].want);
	}
	/* the stored values (share/schema.sql, events.kind) */
	assert_int_equal(GL_EV_LOG, 0);
	assert_int_equal(GL_EV_TRACE, 1);
	assert_int_equal(GL_EV_ALERT, 2);
	assert_int_equal(GL_EV_ACCESS, 3);
	assert_int_equal(GL_EV_ACCESS_FAILED, 4);
	assert_int_equal(GL_EV_TRAIN, 5);
	assert_int_equal(GL_EV_XID, 6);
	assert_int_equal(GL_EV_INVENTORY, 7);
	assert_int_equal(GL_EV_KINDS, 8);
}

/* the key each parser writes its fact under (fmt_text.c, fmt_trainstate.c,
 * fmt_lightning.c, fmt_nvsmiq.c) names its kind; no other key does */
static void test_fact_kind(void **state)
{
	(void)state;
	assert_int_equal(gl_ev_fact_kind("train"), GL_EV_TRAIN);
	assert_int_equal(gl_ev_fact_kind("xid"), GL_EV_XID);
	assert_int_equal(gl_ev_fact_kind("inventory"), GL_EV_INVENTORY);
	assert_int_equal(gl_ev_fact_kind("trai"), GL_EV_LOG);
	assert_int_equal(gl_ev_fact_kind("xid_meaning"), GL_EV_LOG);
	assert_int_equal(gl_ev_fact_kind("severity"), GL_EV_LOG);
	assert_int_equal(gl_ev_fact_kind(""), GL_EV_LOG);
	assert_int_equal(gl_ev_fact_kind(NULL), GL_EV_LOG);
}

static void test_source_names(void **state)
{
	(void)state;
	assert_string_equal(gl_ev_source_name(GL_SRC_LOG), "log");
	assert_string_equal(gl_ev_source_name(GL_SRC_GPUFL), "gpufl");
	assert_string_equal(gl_ev_source_name(GL_SRC_KINETO), "kineto");
	assert_string_equal(gl_ev_source_name(GL_SRC_NSYS), "nsys");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_init),
		cmocka_unit_test(test_event_kind),
		cmocka_unit_test(test_fact_kind),
		cmocka_unit_test(test_source_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
