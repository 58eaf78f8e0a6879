/*
 * Tests for lib/ingest/inconfig.c: every key of the ingest config read
 * into its field, every kind of error named with its key and entry, the
 * glob rules (name-only patterns, '/' and "**"), first match wins, and
 * starts without a zone turned into UTC in the entry's zone.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ingest/inconfig.h"

static struct gl_inconfig *parse_ok(const char *json)
{
	struct gl_inconfig *cfg = NULL;
	struct gl_err err;
	int rc = gl_inconfig_parse(&cfg, json, strlen(json), "in.json", &err);

	if (rc != GL_OK)
		fail_msg("unexpected error: %s: %s", err.msg, err.cause);
	assert_non_null(cfg);
	return cfg;
}

/* Parses json, expecting GL_ECONFIG with cause containing want. */
static void parse_bad(const char *json, const char *want)
{
	struct gl_inconfig *cfg = NULL;
	struct gl_err err;
	int rc = gl_inconfig_parse(&cfg, json, strlen(json), "in.json", &err);

	assert_int_equal(rc, GL_ECONFIG);
	assert_null(cfg);
	assert_string_equal(err.path, "in.json");
	assert_string_equal(err.msg, "bad ingest config");
	if (!strstr(err.cause, want))
		fail_msg("cause '%s' does not contain '%s'", err.cause, want);
}

static void test_empty_and_top_level(void **state)
{
	struct gl_inconfig *cfg = parse_ok("{}");

	(void)state;
	assert_int_equal(cfg->n, 0);
	assert_null(cfg->tz_name);
	assert_int_equal(cfg->max_rejects, 0);
	assert_int_equal(cfg->keep_days, 0);
	assert_null(gl_inconfig_match(cfg, "a.log"));
	gl_inconfig_free(cfg);

	cfg = parse_ok("{\"timezone\": \"Europe/Berlin\", \"max_rejects\": 250, \"keep_days\": 30,"
		       " \"comment\": \"a note\", \"inputs\": []}");
	assert_string_equal(cfg->tz_name, "Europe/Berlin");
	assert_int_equal(cfg->max_rejects, 250);
	assert_int_equal(cfg->keep_days, 30);
	assert_int_equal(cfg->n, 0);
	gl_inconfig_free(cfg);
	gl_inconfig_free(NULL);
}

static void test_every_input_key(void **state)
{
	struct gl_inconfig *cfg = parse_ok(
		"{\"inputs\": [{\"path\": \"gpu*.csv\", \"format\": \"nvsmi\","
		" \"columns\": [\"timestamp\", \"index\", \"utilization.gpu\"],"
		" \"timezone\": \"America/New_York\", \"host\": \"node7\","
		" \"start\": \"2025-09-08T14:00:00Z\", \"interval_s\": 0.5},"
		" {\"path\": \"junk/**\", \"skip\": true},"
		" {\"path\": \"plain.log\"}]}");
	const struct gl_inconfig_input *in = &cfg->in[0];

	(void)state;
	assert_int_equal(cfg->n, 3);
	assert_string_equal(in->path, "gpu*.csv");
	assert_ptr_equal(in->format, gl_format_find("nvsmi"));
	assert_int_equal(in->hint.n_columns, 3);
	assert_string_equal(in->hint.columns[0], "timestamp");
	assert_string_equal(in->hint.columns[2], "utilization.gpu");
	assert_string_equal(in->tz_name, "America/New_York");
	assert_string_equal(in->host, "node7");
	assert_int_equal(in->skip, 0);
	/* 2025-09-08T14:00:00Z = 20339 days * 86400 s + 14 h */
	assert_true(in->hint.start_us == (20339LL * 86400 + 14 * 3600) * 1000000LL);
	assert_true(in->hint.interval_s == 0.5);

	in = &cfg->in[1];
	assert_int_equal(in->skip, 1);
	assert_null(in->format);
	assert_null(in->host);
	assert_true(in->hint.start_us == GL_TS_NONE);
	assert_true(isnan(in->hint.interval_s));
	assert_int_equal(in->hint.n_columns, 0);

	in = &cfg->in[2];
	assert_int_equal(in->skip, 0);
	assert_null(in->tz_name);
	gl_inconfig_free(cfg);
}

/* "columns" alone implies the format that reads them. */
static void test_columns_imply_nvsmi(void **state)
{
	struct gl_inconfig *cfg =
		parse_ok("{\"inputs\": [{\"path\": \"a.csv\", \"columns\": [\"timestamp\"]}]}");

	(void)state;
	assert_ptr_equal(cfg->in[0].format, gl_format_find("nvsmi"));
	gl_inconfig_free(cfg);
	cfg = parse_ok("{\"inputs\": [{\"path\": \"a.csv\", \"format\": \"dmon\"}]}");
	assert_ptr_equal(cfg->in[0].format, gl_format_find("dmon"));
	gl_inconfig_free(cfg);
}

/*
 * A start without a zone is wall-clock time in the entry's zone, else in
 * the run's: 2025-01-15T12:00:00 in Berlin (CET, +1) is 11:00Z, in New York
 * (EST, -5) 17:00Z, in UTC 12:00Z. 2025-01-15 is day 20103.
 */
static void test_naive_start_resolved(void **state)
{
	struct gl_inconfig *cfg = parse_ok(
		"{\"inputs\": ["
		"{\"path\": \"a\", \"start\": \"2025-01-15T12:00:00\", \"interval_s\": 1,"
		" \"timezone\": \"Europe/Berlin\"},"
		"{\"path\": \"b\", \"start\": \"2025-01-15T12:00:00\", \"interval_s\": 1},"
		"{\"path\": \"c\", \"start\": \"2025-01-15T12:00:00+02:00\", \"interval_s\": 1,"
		" \"timezone\": \"Europe/Berlin\"}]}");
	int64_t day = 20103LL * 86400 * 1000000LL, h = 3600LL * 1000000LL;

	(void)state;
	assert_int_equal(cfg->in[0].start_naive, 1);
	assert_int_equal(cfg->in[2].start_naive, 0);
	gl_inconfig_resolve(cfg, "America/New_York");
	assert_true(cfg->in[0].hint.start_us == day + 11 * h);
	assert_true(cfg->in[1].hint.start_us == day + 17 * h);
	assert_true(cfg->in[2].hint.start_us == day + 10 * h);
	gl_inconfig_free(cfg);

	cfg = parse_ok("{\"inputs\": [{\"path\": \"b\", \"start\": \"2025-01-15T12:00:00.250\","
		       " \"interval_s\": 1}]}");
	gl_inconfig_resolve(cfg, NULL);
	assert_true(cfg->in[0].hint.start_us == day + 12 * h + 250000);
	gl_inconfig_free(cfg);
}

static void test_errors_name_the_key(void **state)
{
	(void)state;
	parse_bad("[1]", "(top level): not a JSON object");
	parse_bad("{\"inputz\": []}", "inputz: unknown key");
	parse_bad("{\"comment\": 1}", "comment: not a string");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"comment\": []}]}", "inputs[0].comment: not a string");
	parse_bad("{\"timezone\": \"Mars/Base\"}", "timezone: unknown time zone 'Mars/Base'");
	parse_bad("{\"timezone\": \"../etc/passwd\"}", "timezone: unknown time zone");
	parse_bad("{\"timezone\": 1}", "timezone: not a string");
	parse_bad("{\"max_rejects\": 0}", "max_rejects: not a whole number of at least 1");
	parse_bad("{\"max_rejects\": 2.5}", "max_rejects: not a whole number");
	parse_bad("{\"keep_days\": \"30\"}", "keep_days: not a whole number");
	parse_bad("{\"keep_days\": -1}", "keep_days: not a whole number of at least 1");
	parse_bad("{\"keep_days\": 99999999}", "keep_days: more than 1000000 days");
	parse_bad("{\"inputs\": {}}", "inputs: not an array");
	parse_bad("{\"inputs\": [\"a\"]}", "inputs[0]: not an object");
	parse_bad("{\"inputs\": [{\"path\": \"a\"}, {\"format\": \"json\"}]}",
		  "inputs[1]: no \"path\"");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"interval\": 1}]}",
		  "inputs[0].interval: unknown key");
	parse_bad("{\"inputs\": [{\"path\": 3}]}", "inputs[0].path: not a string");
	parse_bad("{\"inputs\": [{\"path\": \"\"}]}", "inputs[0].path: an empty string");
	parse_bad("{\"inputs\": [{\"path\": \"/var/log/a\"}]}", "inputs[0].path: glob '/var/log/a' is absolute");
	parse_bad("{\"inputs\": [{\"path\": \"a//b\"}]}", "is an empty component");
	parse_bad("{\"inputs\": [{\"path\": \"logs/\"}]}", "is an empty component");
	parse_bad("{\"inputs\": [{\"path\": \"gpu[0-9.csv\"}]}", "is an unclosed '['");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"format\": \"xml\"}]}",
		  "inputs[0].format: not a known format");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"format\": true}]}", "inputs[0].format: not a string");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"columns\": []}]}", "inputs[0].columns: not a non-empty array");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"columns\": \"timestamp\"}]}", "inputs[0].columns: not");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"columns\": [\"timestamp\", 2]}]}",
		  "inputs[0].columns[1]: not a string");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"timezone\": \"Nowhere\"}]}",
		  "inputs[0].timezone: unknown time zone 'Nowhere'");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"host\": \"\"}]}", "inputs[0].host: an empty string");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"skip\": 1}]}", "inputs[0].skip: not true or false");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"yesterday\", \"interval_s\": 1}]}",
		  "inputs[0].start: not an ISO 8601 time");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-09-08\", \"interval_s\": 1}]}",
		  "inputs[0].start: not an ISO 8601 time");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-13-08T00:00:00Z\", \"interval_s\": 1}]}",
		  "inputs[0].start: not an ISO 8601 time");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": 17, \"interval_s\": 1}]}",
		  "inputs[0].start: not a string");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-09-08T00:00:00Z\", \"interval_s\": 0}]}",
		  "inputs[0].interval_s: not a number of seconds above 0");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-09-08T00:00:00Z\", \"interval_s\": -2}]}",
		  "inputs[0].interval_s: not a number of seconds above 0");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-09-08T00:00:00Z\", \"interval_s\": \"1\"}]}",
		  "inputs[0].interval_s: not a number");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"start\": \"2025-09-08T00:00:00Z\"}]}",
		  "inputs[0]: \"start\" without \"interval_s\"");
	parse_bad("{\"inputs\": [{\"path\": \"a\"}, {\"path\": \"b\", \"interval_s\": 1}]}",
		  "inputs[1]: \"interval_s\" without \"start\"");
}

/* JSON syntax errors come with jansson's line number. */
static void test_syntax_error_line(void **state)
{
	const char *json = "{\"inputs\": [\n  {\"path\": \"a\"},\n  {\"path\": }\n]}";
	struct gl_inconfig *cfg = NULL;
	struct gl_err err;

	(void)state;
	assert_int_equal(gl_inconfig_parse(&cfg, json, strlen(json), "in.json", &err), GL_ECONFIG);
	assert_int_equal(err.line, 3);
	assert_null(cfg);
	/* a key given twice is an error too, not "the last one wins" */
	parse_bad("{\"keep_days\": 1, \"keep_days\": 2}", "duplicate");
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/gl-inconfig-XXXXXX";
	int fd = mkstemp(path);
	const char *json = "{\"keep_days\": 7}";
	struct gl_inconfig *cfg = NULL;
	struct gl_err err;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	assert_int_equal(gl_inconfig_load(&cfg, path, &err), GL_OK);
	assert_int_equal(cfg->keep_days, 7);
	gl_inconfig_free(cfg);
	unlink(path);
	assert_int_equal(gl_inconfig_load(&cfg, path, &err), GL_EIO);
	assert_string_equal(err.path, path);
	assert_null(cfg);
}

static void test_glob_rules(void **state)
{
	(void)state;
	/* no '/': the name, in any directory */
	assert_true(gl_glob_match("*.csv", "gpu.csv"));
	assert_true(gl_glob_match("*.csv", "n1/sub/gpu.csv"));
	assert_false(gl_glob_match("*.csv", "gpu.csv.gz"));
	assert_true(gl_glob_match("gpu-?.log", "x/gpu-3.log"));
	assert_true(gl_glob_match("gpu[0-9].log", "gpu7.log"));
	/* with '/': the whole path, '*' stays within a component */
	assert_true(gl_glob_match("n1/*.csv", "n1/gpu.csv"));
	assert_false(gl_glob_match("n1/*.csv", "n1/sub/gpu.csv"));
	assert_false(gl_glob_match("n1/*.csv", "x/n1/gpu.csv"));
	assert_false(gl_glob_match("*/gpu.csv", "gpu.csv"));
	assert_true(gl_glob_match("*/gpu.csv", "n2/gpu.csv"));
	/* "**" as a component: zero or more directories */
	assert_true(gl_glob_match("**/dmon.txt", "dmon.txt"));
	assert_true(gl_glob_match("**/dmon.txt", "a/b/c/dmon.txt"));
	assert_false(gl_glob_match("**/dmon.txt", "a/b/c/dmon.txt.1"));
	assert_true(gl_glob_match("n1/**/gpu.csv", "n1/gpu.csv"));
	assert_true(gl_glob_match("n1/**/gpu.csv", "n1/x/y/gpu.csv"));
	assert_false(gl_glob_match("n1/**/gpu.csv", "n2/x/gpu.csv"));
	assert_true(gl_glob_match("scratch/**", "scratch/a/b.log"));
	assert_true(gl_glob_match("scratch/**", "scratch/b.log"));
	assert_false(gl_glob_match("scratch/**", "other/b.log"));
	/* "**" inside a component is a plain '*' */
	assert_true(gl_glob_match("a/x**.log", "a/xyz.log"));
	assert_false(gl_glob_match("a/x**.log", "a/b/xyz.log"));
	assert_null(gl_glob_check("n1/**/gpu[0-9].csv"));
	assert_null(gl_glob_check("[]]x"));
}

static void test_first_match_wins(void **state)
{
	struct gl_inconfig *cfg = parse_ok(
		"{\"inputs\": [{\"path\": \"n1/gpu.csv\", \"host\": \"first\"},"
		" {\"path\": \"*.csv\", \"host\": \"second\"},"
		" {\"path\": \"**\", \"skip\": true}]}");

	(void)state;
	assert_string_equal(gl_inconfig_match(cfg, "n1/gpu.csv")->host, "first");
	assert_string_equal(gl_inconfig_match(cfg, "n2/gpu.csv")->host, "second");
	assert_int_equal(gl_inconfig_match(cfg, "n2/gpu.log")->skip, 1);
	assert_null(gl_inconfig_match(NULL, "a"));
	gl_inconfig_free(cfg);
}

static void test_zone_known(void **state)
{
	(void)state;
	assert_true(gl_zone_known("UTC"));
	assert_true(gl_zone_known("Europe/Berlin"));
	assert_false(gl_zone_known(""));
	assert_false(gl_zone_known("Europe"));	/* a directory */
	assert_false(gl_zone_known("/etc/localtime"));
	assert_false(gl_zone_known("Europe/../Europe/Berlin"));
}

/* "date_order": top level and per entry, two words only. */
static void test_date_order(void **state)
{
	struct gl_inconfig *cfg = parse_ok("{\"date_order\": \"day_first\", \"inputs\": ["
					   "{\"path\": \"us/*\", \"date_order\": \"month_first\"},"
					   "{\"path\": \"x.log\"}]}");

	(void)state;
	assert_int_equal(cfg->date_order, GL_DATE_ORDER_DMY);
	assert_int_equal(cfg->in[0].date_order, GL_DATE_ORDER_MDY);
	assert_int_equal(cfg->in[1].date_order, GL_DATE_ORDER_AUTO);
	gl_inconfig_free(cfg);
	cfg = parse_ok("{}");
	assert_int_equal(cfg->date_order, GL_DATE_ORDER_AUTO);
	gl_inconfig_free(cfg);
	parse_bad("{\"date_order\": \"dmy\"}", "date_order: not \"month_first\" or \"day_first\"");
	parse_bad("{\"inputs\": [{\"path\": \"a\", \"date_order\": 1}]}",
		  "inputs[0].date_order: not \"month_first\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_top_level),
		cmocka_unit_test(test_date_order),
		cmocka_unit_test(test_every_input_key),
		cmocka_unit_test(test_columns_imply_nvsmi),
		cmocka_unit_test(test_naive_start_resolved),
		cmocka_unit_test(test_errors_name_the_key),
		cmocka_unit_test(test_syntax_error_line),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_glob_rules),
		cmocka_unit_test(test_first_match_wins),
		cmocka_unit_test(test_zone_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
