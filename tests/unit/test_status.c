/*
 * test_status.c - reports/status.c: an empty window is no_data whatever
 * the alerts; otherwise the worst alert decides; --fail-on fails on
 * no_data at every level.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/status.h"

static void test_no_data(void **state)
{
	(void)state;
	struct gl_report rep;
	struct gl_report_alert al = {.severity = GL_SEVERITY_CRITICAL};

	memset(&rep, 0, sizeof(rep));
	assert_int_equal(gl_status_of(&rep), GL_STATUS_NO_DATA);
	/* an alert (a rule on zero events) does not turn an empty window into data */
	rep.alerts = &al;
	rep.n_alerts = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_NO_DATA);
	assert_string_equal(gl_status_name(GL_STATUS_NO_DATA), "no_data");
	/* metric samples alone, or RMM rows alone, are data */
	rep.n_alerts = 0;
	rep.metric_samples = 3;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
	rep.metric_samples = 0;
	rep.memory.rmm.events = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
}

static void test_worst_alert(void **state)
{
	(void)state;
	struct gl_report rep;
	struct gl_report_alert al[3] = {
		{.severity = GL_SEVERITY_INFO},
		{.severity = GL_SEVERITY_WARNING},
		{.severity = GL_SEVERITY_CRITICAL},
	};

	memset(&rep, 0, sizeof(rep));
	rep.summary.events = 10;
	rep.alerts = al;
	rep.n_alerts = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
	rep.n_alerts = 2;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_WARNING);
	assert_string_equal(gl_status_name(gl_status_of(&rep)), "warning");
	rep.n_alerts = 3;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_CRITICAL);
	assert_string_equal(gl_status_name(gl_status_of(&rep)), "critical");
}

static void test_fails(void **state)
{
	(void)state;
	assert_true(gl_status_fails(GL_STATUS_NO_DATA, GL_SEVERITY_CRITICAL));
	assert_true(gl_status_fails(GL_STATUS_NO_DATA, GL_SEVERITY_WARNING));
	assert_false(gl_status_fails(GL_STATUS_OK, GL_SEVERITY_WARNING));
	assert_true(gl_status_fails(GL_STATUS_WARNING, GL_SEVERITY_WARNING));
	assert_false(gl_status_fails(GL_STATUS_WARNING, GL_SEVERITY_CRITICAL));
	assert_true(gl_status_fails(GL_STATUS_CRITICAL, GL_SEVERITY_CRITICAL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_data),
		cmocka_unit_test(test_worst_alert),
		cmocka_unit_test(test_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
