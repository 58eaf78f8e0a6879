/*
 * test_sec_errors.c - reports/sec_errors.c on a small database written by
 * hand (support/sec_db.h), its result read through its getter
 * (sec_errors.h): errors (ERROR and CRITICAL) and warnings, per level and
 * per component (WARN and above, by name), the rates per 1,000 events and
 * per hour of the data's own span, and the message shapes (numbers made
 * one shape; error shapes before warning shapes, then by count). Expected
 * figures by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_errors.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void ev(struct sec_db *d, int64_t ts, int level, int comp, const char *msg, int line)
{
	sec_db_exec(d, "INSERT INTO events(ts_us, level, component_id, message, stream_id, line)"
		       " VALUES (%lld, %d, %d, %Q, 1, %d);", (long long)ts, level, comp, msg, line);
}

static void test_counts_rates_shapes(void **state)
{
	static const char *const names[] = {"svc", "db", NULL};
	struct sec_db d;
	int line = 1;

	(void)state;
	sec_db_open(&d, names);
	for (int i = 0; i < 5; i++)
		ev(&d, T(i), GL_LEVEL_INFO, 1, "ok", line++);
	ev(&d, T(5), GL_LEVEL_INFO, 2, "ok", line++);
	ev(&d, T(10), GL_LEVEL_WARN, 1, "slow response", line++);
	ev(&d, T(20), GL_LEVEL_ERROR, 1, "request 17 failed", line++);
	ev(&d, T(30), GL_LEVEL_ERROR, 1, "request 342 failed", line++);
	ev(&d, T(40), GL_LEVEL_CRITICAL, 1, "disk full", line++);
	ev(&d, T(50), GL_LEVEL_WARN, 2, "slow response", line++);
	ev(&d, T(1800), GL_LEVEL_ERROR, 2, "timeout", line++);
	/* after the window: not counted */
	ev(&d, T(3600), GL_LEVEL_ERROR, 2, "timeout", line++);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_errors *e = gl_errors_result(&d.rep);

	assert_non_null(e);
	assert_int_equal(e->errors, 4);
	assert_int_equal(e->warnings, 2);
	assert_int_equal(e->by_level[GL_LEVEL_WARN], 2);
	assert_int_equal(e->by_level[GL_LEVEL_ERROR], 3);
	assert_int_equal(e->by_level[GL_LEVEL_CRITICAL], 1);
	/* WARN and above per component, by name: db 2 (WARN, ERROR), svc 4 */
	assert_int_equal(e->n_by_component, 2);
	assert_string_equal(e->by_component[0].name, "db");
	assert_int_equal(e->by_component[0].count, 2);
	assert_string_equal(e->by_component[1].name, "svc");
	assert_int_equal(e->by_component[1].count, 4);
	/* 4 errors in 12 events; the data span 0 s .. 1800 s is half an hour */
	sec_near(e->per_1000_events, 4000.0 / 12);
	sec_near(e->per_hour, 8);
	/* shapes: CRITICAL "disk full"; ERROR "request N failed" (2), "timeout"; WARN
	 * "slow response" (2) */
	assert_int_equal(e->shapes, 4);
	assert_int_equal(e->n_top_messages, 4);
	assert_int_equal(e->top_messages[0].level, GL_LEVEL_CRITICAL);
	assert_string_equal(e->top_messages[0].sample, "disk full");
	assert_int_equal(e->top_messages[1].level, GL_LEVEL_ERROR);
	assert_int_equal(e->top_messages[1].count, 2);
	assert_string_equal(e->top_messages[1].sample, "request 17 failed");
	assert_int_equal(e->top_messages[1].first_ts_us, T(20));
	assert_int_equal(e->top_messages[1].last_ts_us, T(30));
	assert_string_equal(e->top_messages[2].sample, "timeout");
	assert_int_equal(e->top_messages[2].count, 1);
	assert_int_equal(e->top_messages[3].level, GL_LEVEL_WARN);
	assert_int_equal(e->top_messages[3].count, 2);
	sec_db_close(&d);
}

static void test_top_caps_the_shapes(void **state)
{
	static const char *const names[] = {"svc", NULL};
	static const char *const msg[] = {"alpha", "beta", "gamma"};
	struct sec_db d;
	int line = 1;

	(void)state;
	sec_db_open(&d, names);
	/* alpha 3 times, beta twice, gamma once; --top 2 lists alpha and beta */
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < 3 - m; i++)
			ev(&d, T(line), GL_LEVEL_ERROR, 1, msg[m], line), line++;
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 2);

	const struct gl_report_errors *e = gl_errors_result(&d.rep);

	assert_int_equal(e->errors, 6);
	assert_int_equal(e->shapes, 3);
	assert_int_equal(e->n_top_messages, 2);
	assert_string_equal(e->top_messages[0].sample, "alpha");
	assert_int_equal(e->top_messages[0].count, 3);
	assert_string_equal(e->top_messages[1].sample, "beta");
	assert_int_equal(e->top_messages[1].count, 2);
	sec_db_close(&d);
}

/*
 * Messages repeated word for word are counted from the memo of messages
 * seen (sec_errors.c, struct memo) without being shaped again: the counts
 * and first/last times are those of shaping each. The same text at two
 * levels is two shapes; 20,000 different messages of 40 shapes (more than
 * the memo's 8,192 entries: entries replaced) and messages longer than
 * the memo keeps are all counted under their shapes; the expected counts
 * are computed here from the generating rule.
 */
static void test_repeated_messages(void **state)
{
	static const char *const names[] = {"svc", NULL};
	char msg[300], longtail[200];
	struct sec_db d;
	int line = 1;
	uint64_t want_err[40] = {0}, want_warn = 0, want_long = 0;

	(void)state;
	memset(longtail, 'x', sizeof(longtail) - 1);
	longtail[sizeof(longtail) - 1] = '\0';
	sec_db_open(&d, names);
	sec_db_exec(&d, "BEGIN;");
	for (int i = 0; i < 30000; i++) {
		/* shape k: "op<k> failed on node <num>": k = i % 40, node i % 500 (so
		 * 20,000 different ERROR texts repeated 1.5 times on average) */
		if (i % 3 == 2) {
			/* the same text as an ERROR of i - 1, at WARN: another shape */
			snprintf(msg, sizeof(msg), "op%d failed on node %d", (i - 1) % 40, (i - 1) % 500);
			ev(&d, T(i), GL_LEVEL_WARN, 1, msg, line++);
			want_warn++;
		} else if (i % 7 == 0) {
			/* longer than the memo keeps: shaped each time */
			snprintf(msg, sizeof(msg), "long op failed on node %d %s", i % 13, longtail);
			ev(&d, T(i), GL_LEVEL_ERROR, 1, msg, line++);
			want_long++;
		} else {
			snprintf(msg, sizeof(msg), "op%d failed on node %d", i % 40, i % 500);
			ev(&d, T(i), GL_LEVEL_ERROR, 1, msg, line++);
			want_err[i % 40]++;
		}
	}
	sec_db_exec(&d, "COMMIT;");
	sec_db_build(&d, SEC_T0, SEC_T0 + 40000 * SEC_S_US, 100);

	const struct gl_report_errors *e = gl_errors_result(&d.rep);

	/* 40 ERROR shapes "op<k>...", 1 long ERROR shape, 1 WARN shape: "op<num>
	 * failed on node <num>" is not it: "op3" is a word with a digit, kept */
	uint64_t warn_seen = 0, long_seen = 0, err_seen[40] = {0};

	for (size_t i = 0; i < e->n_top_messages; i++) {
		const struct gl_report_shape *s = &e->top_messages[i];
		int k = -1;

		if (s->level == GL_LEVEL_WARN) {
			warn_seen += s->count;
		} else if (!strncmp(s->shape, "long op", 7)) {
			long_seen += s->count;
		} else {
			assert_int_equal(sscanf(s->shape, "op%d failed", &k), 1);
			assert_true(k >= 0 && k < 40);
			err_seen[k] += s->count;
		}
	}
	assert_int_equal(e->shapes, (size_t)e->n_top_messages);
	assert_int_equal(long_seen, want_long);
	assert_int_equal(warn_seen, want_warn);
	for (int k = 0; k < 40; k++)
		assert_int_equal(err_seen[k], want_err[k]);
	sec_db_close(&d);
}

static void test_no_events(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_report_errors *e = gl_errors_result(&d.rep);

	assert_int_equal(e->errors, 0);
	assert_int_equal(e->shapes, 0);
	/* no events: no rate, not a rate of zero */
	assert_true(isnan(e->per_1000_events));
	assert_true(isnan(e->per_hour));
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_rates_shapes),
		cmocka_unit_test(test_top_caps_the_shapes),
		cmocka_unit_test(test_no_events),
		cmocka_unit_test(test_repeated_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
