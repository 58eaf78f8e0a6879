/*
 * test_sec_alerts.c - reports/sec_alerts.c on a small database written by
 * hand (support/sec_db.h) with the rules of a configuration written here:
 * a kernel p95 rule on the kernels its glob matches, the error rate per
 * component (only above errors.min_events_for_rate events), RMM allocation
 * failures; each alert at the worst severity whose threshold was crossed,
 * critical ones first. The result is read through its getter
 * (sec_alerts.h). Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_alerts.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static const char conf[] =
	"{\"errors\": {\"min_events_for_rate\": 5},"
	" \"alerts\": ["
	"  {\"rule\": \"kernel_p95_us\", \"match\": \"gemm*\", \"warning\": 50, \"critical\": 100},"
	"  {\"rule\": \"error_rate_per_1000\", \"warning\": 10, \"critical\": 100},"
	"  {\"rule\": \"rmm_allocation_failures\", \"warning\": 1, \"critical\": 100}]}";

static const struct gl_report_alert *find(const struct gl_alerts_result *r, const char *rule,
					  const char *subject)
{
	for (size_t i = 0; i < r->n_alerts; i++)
		if (!strcmp(r->alerts[i].rule, rule) && !strcmp(r->alerts[i].subject, subject))
			return &r->alerts[i];
	return NULL;
}

static void test_rules(void **state)
{
	static const char *const names[] = {"gemm_x", "conv_y", "gemm_small", "svc", "db", NULL};
	static const double gx[] = {40, 60, 80, 120}, cy[] = {1000, 1000}, gs[] = {10, 10, 10};
	const double *k[] = {gx, cy, gs};
	const int nk[] = {4, 2, 3};
	struct sec_db d;
	struct gl_err err;
	int line = 0;

	(void)state;
	sec_db_open(&d, names);
	gl_config_release(&d.cfg);
	assert_int_equal(gl_config_parse(conf, "test", &d.cfg, &err), GL_OK);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < nk[i]; j++, line++)
			sec_db_exec(&d, "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id,"
					" line) VALUES (%lld, 3, %d, %g, 1, %d);",
				    (long long)T(line), i + 1, k[i][j], line + 1);
	/* svc: 10 events, 2 errors (200 per 1,000); db: 3 errors in 3 events, too few */
	for (int i = 0; i < 10; i++, line++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, message, stream_id,"
				" line) VALUES (%lld, %d, 4, 'm', 1, %d);", (long long)T(line),
			    i < 2 ? 5 : 3, line + 1);
	for (int i = 0; i < 3; i++, line++)
		sec_db_exec(&d, "INSERT INTO events(ts_us, level, component_id, message, stream_id,"
				" line) VALUES (%lld, 5, 5, 'e', 1, %d);", (long long)T(line), line + 1);
	for (int i = 0; i < 2; i++, line++)
		sec_db_exec(&d, "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
				" VALUES (%lld, 2, 0, 4096, 1, %d);", (long long)T(line), line + 1);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_alerts_result *r = gl_alerts_result(&d.rep);
	const struct gl_report_alert *a;

	assert_non_null(r);
	assert_int_equal(r->n_alerts, 3);
	/* gemm_x's p95: rank 2.85 of 40, 60, 80, 120: 80 + 0.85 x 40 = 114, critical */
	assert_non_null(a = find(r, "kernel_p95_us", "gemm_x"));
	assert_int_equal(a->severity, GL_SEVERITY_CRITICAL);
	sec_near(a->value, 114);
	sec_near(a->threshold, 100);
	assert_null(find(r, "kernel_p95_us", "conv_y"));	/* the glob does not match */
	assert_null(find(r, "kernel_p95_us", "gemm_small"));	/* 10 us */
	assert_non_null(a = find(r, "error_rate_per_1000", "svc"));
	assert_int_equal(a->severity, GL_SEVERITY_CRITICAL);
	sec_near(a->value, 200);
	assert_null(find(r, "error_rate_per_1000", "db"));
	assert_non_null(a = find(r, "rmm_allocation_failures", "rmm"));
	assert_int_equal(a->severity, GL_SEVERITY_WARNING);
	sec_near(a->value, 2);
	sec_near(a->threshold, 1);
	/* critical ones first */
	assert_int_equal(r->alerts[0].severity, GL_SEVERITY_CRITICAL);
	assert_int_equal(r->alerts[1].severity, GL_SEVERITY_CRITICAL);
	assert_int_equal(r->alerts[2].severity, GL_SEVERITY_WARNING);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
