/*
 * test_alert_group.c - reports/alert_group.c: one entry per (source, rule,
 * subject, severity), with count, first and last time and the worst value
 * (smallest for a below-threshold alert, largest else); a firing seen in
 * two files (same time, same value) counted once. Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/alert_group.h"

static struct gl_report_alert mk(enum gl_severity sev, const char *src, const char *rule,
				 const char *subject, double v, double thr, int64_t ts)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "%s %g", rule, v);
	return (struct gl_report_alert){.severity = sev, .rule = strdup(rule),
		.subject = strdup(subject), .value = v, .threshold = thr, .message = strdup(msg),
		.source = src, .ts_us = ts};
}

static void test_group(void **state)
{
	(void)state;
	struct gl_report_alert al[8];
	size_t n = 0;

	/* throughput below 50, four files a minute apart, the third also in the history */
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "token_throughput", "svc", 48, 50, 180);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "token_throughput", "svc", 49, 50, 60);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "token_throughput", "svc", 41, 50, 120);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "token_throughput", "svc", 41, 50, 120);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "token_throughput", "svc", 45, 50, 240);
	/* a critical of the same rule: its own entry, listed first */
	al[n++] = mk(GL_SEVERITY_CRITICAL, "log", "token_throughput", "svc", 9, 10, 300);
	/* cpu above 90: the worst is the largest */
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "cpu_usage", "svc", 93, 90, 10);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "cpu_usage", "svc", 97, 90, 20);
	gl_alert_group(al, &n);
	assert_int_equal(n, 3);
	assert_int_equal(al[0].severity, GL_SEVERITY_CRITICAL);
	assert_int_equal(al[0].count, 1);
	assert_string_equal(al[1].rule, "cpu_usage");
	assert_int_equal(al[1].count, 2);
	assert_true(al[1].value == 97);
	assert_string_equal(al[1].message, "cpu_usage 97");
	assert_true(al[1].first_ts_us == 10 && al[1].last_ts_us == 20);
	assert_string_equal(al[2].rule, "token_throughput");
	assert_int_equal(al[2].count, 4);
	assert_true(al[2].value == 41);
	assert_string_equal(al[2].message, "token_throughput 41");
	assert_true(al[2].first_ts_us == 60 && al[2].last_ts_us == 240);
	for (size_t i = 0; i < n; i++) {
		free(al[i].rule);
		free(al[i].subject);
		free(al[i].message);
	}
}

static void test_sources_apart(void **state)
{
	(void)state;
	struct gl_report_alert al[2];
	size_t n = 0;

	al[n++] = mk(GL_SEVERITY_WARNING, NULL, "memory_usage", "svc", 70, 65, 0);
	al[n++] = mk(GL_SEVERITY_WARNING, "log", "memory_usage", "svc", 70, 65, 5);
	gl_alert_group(al, &n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(al[i].count, 1);
		free(al[i].rule);
		free(al[i].subject);
		free(al[i].message);
	}
	n = 0;
	gl_alert_group(al, &n);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_sources_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
