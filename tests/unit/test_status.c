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

#include "../../reports/sec_alerts.h"
#include "../../reports/sec_memory.h"
#include "../../reports/sec_metrics.h"
#include "../../reports/sec_summary.h"
#include "../../reports/sections.h"
#include "../../reports/status.h"

/* A hand-made model whose sections' results the test writes. */
static void model(struct gl_report *rep, struct gl_report_summary **sr,
		  struct gl_metrics_result **mr, struct gl_report_memory **me,
		  struct gl_alerts_result **ar)
{
	struct gl_err err;

	memset(rep, 0, sizeof(*rep));
	assert_int_equal(gl_report_model_init(rep, &err), GL_OK);
	*sr = (struct gl_report_summary *)gl_summary_result(rep);
	*mr = (struct gl_metrics_result *)gl_metrics_result(rep);
	*me = (struct gl_report_memory *)gl_memory_result(rep);
	*ar = (struct gl_alerts_result *)gl_alerts_result(rep);
}

static void test_no_data(void **state)
{
	(void)state;
	struct gl_report rep;
	struct gl_report_alert al = {.severity = GL_SEVERITY_CRITICAL};
	struct gl_report_summary *sr;
	struct gl_metrics_result *mr;
	struct gl_report_memory *me;
	struct gl_alerts_result *ar;

	model(&rep, &sr, &mr, &me, &ar);
	assert_int_equal(gl_status_of(&rep), GL_STATUS_NO_DATA);
	/* an alert (a rule on zero events) does not turn an empty window into data */
	ar->alerts = &al;
	ar->n_alerts = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_NO_DATA);
	assert_string_equal(gl_status_name(GL_STATUS_NO_DATA), "no_data");
	/* metric samples alone, or RMM rows alone, are data */
	ar->n_alerts = 0;
	ar->alerts = NULL;
	mr->samples = 3;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
	mr->samples = 0;
	me->rmm.events = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
	me->rmm.events = 0;
	gl_report_release(&rep);
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
	struct gl_report_summary *sr;
	struct gl_metrics_result *mr;
	struct gl_report_memory *me;
	struct gl_alerts_result *ar;

	model(&rep, &sr, &mr, &me, &ar);
	sr->events = 10;
	ar->alerts = al;
	ar->n_alerts = 1;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_OK);
	ar->n_alerts = 2;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_WARNING);
	assert_string_equal(gl_status_name(gl_status_of(&rep)), "warning");
	ar->n_alerts = 3;
	assert_int_equal(gl_status_of(&rep), GL_STATUS_CRITICAL);
	assert_string_equal(gl_status_name(gl_status_of(&rep)), "critical");
	ar->alerts = NULL;
	ar->n_alerts = 0;
	sr->events = 0;
	gl_report_release(&rep);
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
