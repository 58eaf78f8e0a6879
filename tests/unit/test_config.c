/*
 * test_config.c - reports/config.c: defaults, the shipped file, partial
 * files, and bad input (unknown keys, wrong types, out-of-range values,
 * broken JSON, missing file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../reports/config.h"

static void test_defaults_match_shipped_file(void **state)
{
	(void)state;
	struct gl_report_config a, b;
	struct gl_err err;

	assert_int_equal(gl_config_defaults(&a, &err), GL_OK);
	assert_int_equal(gl_config_load("share/gpulog.conf.json", &b, &err), GL_OK);
	assert_true(a.trend_p_value == 0.01 && b.trend_p_value == 0.01);
	assert_true(a.trend_min_change_pct == 10 && b.trend_min_change_pct == 10);
	assert_int_equal(a.anomaly_method, GL_ANOMALY_STDDEV);
	assert_true(a.anomaly_k == 3 && b.anomaly_k == 3);
	assert_int_equal(a.anomaly_window, 100);
	assert_int_equal(a.anomaly_min_samples, 10);
	assert_int_equal(b.anomaly_window, 100);
	assert_int_equal(a.max_shapes, b.max_shapes);
	assert_int_equal(a.min_events_for_rate, 50);
	assert_int_equal(b.min_events_for_rate, 50);
	assert_true(a.baseline_p_value == b.baseline_p_value);
	assert_int_equal(a.n_rules, b.n_rules);
	assert_true(a.n_rules >= 5);
	for (size_t i = 0; i < a.n_rules; i++) {
		assert_int_equal(a.rules[i].kind, b.rules[i].kind);
		assert_string_equal(a.rules[i].match, b.rules[i].match);
		for (int s = 0; s < 3; s++) {
			assert_int_equal(a.rules[i].has[s], b.rules[i].has[s]);
			if (a.rules[i].has[s])
				assert_true(a.rules[i].threshold[s] == b.rules[i].threshold[s]);
		}
	}
	gl_config_release(&a);
	gl_config_release(&b);
}

static void test_partial(void **state)
{
	(void)state;
	struct gl_report_config c;
	struct gl_err err;

	assert_int_equal(gl_config_parse("{\"anomalies\": {\"method\": \"mad\", \"k\": 4.5}}", "t",
					 &c, &err),
			 GL_OK);
	assert_int_equal(c.anomaly_method, GL_ANOMALY_MAD);
	assert_true(c.anomaly_k == 4.5);
	assert_int_equal(c.anomaly_window, 100);	/* default kept */
	assert_int_equal(c.min_events_for_rate, 50);
	assert_true(c.n_rules >= 5);			/* default rules kept */
	gl_config_release(&c);

	assert_int_equal(gl_config_parse("{\"alerts\": [{\"rule\": \"kernel_p95_us\","
					 " \"critical\": 5000}]}", "t", &c, &err),
			 GL_OK);
	assert_int_equal(c.n_rules, 1);
	assert_string_equal(c.rules[0].match, "*");
	assert_true(c.rules[0].has[2] && !c.rules[0].has[1] && !c.rules[0].has[0]);
	gl_config_release(&c);
}

static void expect_bad(const char *text, const char *needle)
{
	struct gl_report_config c;
	struct gl_err err;

	assert_int_equal(gl_config_parse(text, "x.json", &c, &err), GL_ECONFIG);
	assert_string_equal(err.path, "x.json");
	if (!strstr(err.cause, needle))
		fail_msg("'%s' lacks '%s'", err.cause, needle);
	assert_int_equal(c.n_rules, 0);
}

static void test_bad(void **state)
{
	(void)state;
	expect_bad("{\"colour\": 1}", "unknown key 'colour'");
	expect_bad("{\"trends\": {\"p\": 0.1}}", "unknown key 'p' in trends");
	expect_bad("{\"trends\": {\"p_value\": 2}}", "trends.p_value must be between");
	expect_bad("{\"trends\": {\"p_value\": \"low\"}}", "trends.p_value must be a number");
	expect_bad("{\"anomalies\": {\"window\": 10.5}}", "anomalies.window must be an integer");
	expect_bad("{\"anomalies\": {\"method\": \"iqr\"}}", "method must be");
	expect_bad("{\"errors\": {\"min_events_for_rate\": -1}}",
		   "errors.min_events_for_rate must be between");
	expect_bad("{\"errors\": {\"min_events_for_rate\": 2.5}}",
		   "errors.min_events_for_rate must be an integer");
	expect_bad("{\"anomalies\": {\"window\": 5}}", "min_samples must not exceed");
	expect_bad("{\"alerts\": [{\"rule\": \"nope\", \"warning\": 1}]}", "unknown rule 'nope'");
	expect_bad("{\"alerts\": [{\"rule\": \"kernel_p95_us\"}]}", "no info, warning or critical");
	expect_bad("{\"alerts\": [{\"rule\": \"kernel_p95_us\", \"warn\": 1}]}",
		   "unknown key 'warn'");
	expect_bad("{\"alerts\": {}}", "alerts must be an array");
	expect_bad("[1, 2]", "must be a JSON object");
	expect_bad("{\"trends\": {", "");
}

/*
 * The performance monitor's configuration file as the seed documents it:
 * its own settings accepted, token_throughput a below-threshold rule on the
 * monitor's token_throughput metric (judged on its minimum), the
 * degradation switch.
 */
static void test_monitor_config(void **state)
{
	(void)state;
	struct gl_report_config c;
	struct gl_err err;
	const char *text = "{\"monitoring_interval\": 1.0, \"max_metrics_history\": 1000,"
			   " \"alert_thresholds\": {\"cpu_usage\": 80.0, \"token_throughput\": 50.0},"
			   " \"degradation_detection\": {\"enabled\": true, \"window_size\": 60,"
			   " \"threshold\": 0.2}}";
	const struct gl_alert_rule *tt = NULL;

	assert_int_equal(gl_config_parse(text, "monitor.json", &c, &err), GL_OK);
	for (size_t i = 0; i < c.n_rules; i++)
		if (c.rules[i].origin && !strcmp(c.rules[i].origin, "alert_thresholds.token_throughput"))
			tt = &c.rules[i];
	assert_non_null(tt);
	assert_int_equal(tt->kind, GL_RULE_METRIC_BELOW);
	assert_int_equal(tt->stat, GL_METRIC_MIN);
	assert_string_equal(tt->match, "token_throughput");
	assert_true(tt->has[GL_SEVERITY_WARNING] && tt->threshold[GL_SEVERITY_WARNING] == 50.0);
	assert_true(c.degrade_threshold == 0.2);
	assert_int_equal(c.degrade_window, 60);
	gl_config_release(&c);
	/* detection switched off: no degradation rule, no degradation verdicts */
	assert_int_equal(gl_config_parse("{\"degradation_detection\": {\"enabled\": false}}", "m",
					 &c, &err), GL_OK);
	assert_true(c.degrade_threshold == 0);
	for (size_t i = 0; i < c.n_rules; i++)
		assert_false(c.rules[i].origin && !strcmp(c.rules[i].origin, "degradation_detection"));
	gl_config_release(&c);
	expect_bad("{\"monitoring_interval\": \"1s\"}", "monitoring_interval must be a number");
	expect_bad("{\"max_metrics_history\": 0}", "max_metrics_history must be between");
}

static void test_missing_file(void **state)
{
	(void)state;
	struct gl_report_config c;
	struct gl_err err;

	assert_int_equal(gl_config_load("/nonexistent/gpulog.conf.json", &c, &err), GL_ECONFIG);
	assert_string_equal(err.msg, "cannot open");
	assert_string_equal(err.cause, "No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_match_shipped_file),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_monitor_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
