/*
 * test_section_table.c - reports/section.h: a section that exists only in
 * this test, added to the table, is built in the one pass (events and RMM
 * rows) and shows up in every format: a JSON key, a CSV file, a text block
 * and an HTML section, in table order, next to the default sections.
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
#include <jansson.h>
#include <sqlite3.h>

#include "schema_sql.h"
#include "../../reports/config.h"
#include "../../reports/emit_png.h"
#include "../../reports/sec_summary.h"
#include "../../reports/section.h"
#include "../../reports/sections.h"
#include "store/query.h"
#include "util/timeutil.h"

#define T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */

struct probe {
	uint64_t warn_events, rmm_rows, seen_order;
	int finished;
};

static int probe_collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct probe *p = st;

	/* the summary section comes first in the table: it has already counted ev */
	p->seen_order += gl_summary_result(cx->rep)->events;
	p->warn_events += ev->level >= GL_LEVEL_WARN;
	return GL_OK;
}

static int probe_mem(struct gl_section_ctx *cx, void *st, const struct gl_query_mem *m)
{
	(void)cx;
	(void)m;
	((struct probe *)st)->rmm_rows++;
	return GL_OK;
}

static int probe_finish(struct gl_section_ctx *cx, void *st)
{
	(void)cx;
	((struct probe *)st)->finished = 1;
	return GL_OK;
}

static json_t *probe_json(const struct gl_report *r, const void *st)
{
	const struct probe *p = st;

	(void)r;
	return json_pack("{s:I, s:I, s:b}", "warn_events", (json_int_t)p->warn_events, "rmm_rows",
			 (json_int_t)p->rmm_rows, "finished", p->finished);
}

static void probe_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct probe *p = st;

	(void)r;
	fprintf(fp, "warn_events,rmm_rows\r\n%llu,%llu\r\n", (unsigned long long)p->warn_events,
		(unsigned long long)p->rmm_rows);
}

static void probe_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct probe *p = st;

	(void)r;
	fprintf(fp, "probe saw %llu warnings and %llu RMM rows\n",
		(unsigned long long)p->warn_events, (unsigned long long)p->rmm_rows);
}

static void probe_html(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)r;
	fprintf(fp, "<p class=\"probe\">%llu</p>\n",
		(unsigned long long)((const struct probe *)st)->warn_events);
}

static const struct gl_section probe_section = {
	.name = "probe",
	.title = "Probe section",
	.state_size = sizeof(struct probe),
	.collect = probe_collect,
	.collect_mem = probe_mem,
	.finish = probe_finish,
	.emit_json = probe_json,
	.emit_csv = probe_csv,
	.emit_text = probe_text,
	.emit_html = probe_html,
};

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = calloc(1, 1 << 20);

	assert_non_null(fp);
	assert_true(fread(buf, 1, (1 << 20) - 1, fp) > 0);
	fclose(fp);
	return buf;
}

static void test_probe_in_every_format(void **state)
{
	(void)state;
	char db[] = "/tmp/test_section_table.XXXXXX", dir[] = "/tmp/test_section_table.dXXXXXX";
	char path[256];
	sqlite3 *s;
	int fd = mkstemp(db);

	assert_true(fd >= 0);
	close(fd);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sqlite3_open(db, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	/* 4 events (2 WARN+), 3 RMM rows, one event outside the window */
	assert_int_equal(
		sqlite3_exec(s,
			     "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
			     "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes,"
			     " head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);"
			     "INSERT INTO events(ts_us, level, message, stream_id, line) VALUES"
			     " (1735689600000000, 3, NULL, 1, 1), (1735689601000000, 4, 'w', 1, 2),"
			     " (1735689602000000, 5, 'e', 1, 3), (1735689603000000, 3, NULL, 1, 4),"
			     " (1735776000000000, 5, 'late', 1, 5);"
			     "INSERT INTO mem_events(ts_us, action, ptr, size_bytes, stream_id, line)"
			     " VALUES (1735689600000000, 0, 1, 64, 1, 1),"
			     " (1735689601000000, 0, 2, 64, 1, 2), (1735689602000000, 1, 1, 0, 1, 3);",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(s);

	/* the default table plus the probe, after the summary */
	const struct gl_section *items[32];
	size_t n = 0, at = 0;
	assert_true(gl_sections.n < 32);
	for (size_t i = 0; i < gl_sections.n; i++) {
		items[n++] = gl_sections.items[i];
		if (gl_sections.items[i] == &gl_sec_summary) {
			at = n;
			items[n++] = &probe_section;
		}
	}
	assert_true(at > 0);
	const struct gl_section_list list = {items, n};

	struct gl_report_config cfg;
	struct gl_query *q = NULL;
	struct gl_report rep;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20,
				     .sections = &list};

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(db, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);
	gl_query_close(q);

	struct gl_output out = {.dir = dir};
	assert_int_equal(gl_emit_json(&rep, &out, &err), GL_OK);
	assert_int_equal(gl_emit_csv(&rep, &out, &err), GL_OK);
	assert_int_equal(gl_emit_text(&rep, &out, &err), GL_OK);
	assert_int_equal(gl_emit_html(&rep, &out, &err), GL_OK);

	/* JSON: the key, with what the one pass gave it; keys in table order */
	snprintf(path, sizeof(path), "%s/report.json", dir);
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	assert_non_null(doc);
	json_t *pr = json_object_get(doc, "probe");
	assert_non_null(pr);
	assert_int_equal(json_integer_value(json_object_get(pr, "warn_events")), 2);
	assert_int_equal(json_integer_value(json_object_get(pr, "rmm_rows")), 3);
	assert_true(json_is_true(json_object_get(pr, "finished")));
	json_decref(doc);
	char *j = slurp(path);
	assert_true(strstr(j, "\"summary\"") < strstr(j, "\"probe\""));
	assert_true(strstr(j, "\"probe\"") < strstr(j, "\"kernels\""));
	free(j);
	/* the summary counted each event before the probe saw it: 1 + 2 + 3 + 4 */
	assert_int_equal(((const struct probe *)gl_report_section_state(&rep, at))->seen_order, 10);

	/* CSV: its own file */
	snprintf(path, sizeof(path), "%s/probe.csv", dir);
	char *c = slurp(path);
	assert_string_equal(c, "warn_events,rmm_rows\r\n2,3\r\n");
	free(c);

	/* text: a block under its title, between the summary and the kernels */
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	char *t = slurp(path);
	const char *blk = strstr(t, "\nProbe section\n-------------\nprobe saw 2 warnings and 3 RMM rows\n");
	assert_non_null(blk);
	assert_true(blk < strstr(t, "Kernels by total time"));
	free(t);

	/* HTML: a section with its id, a nav link, its content */
	snprintf(path, sizeof(path), "%s/index.html", dir);
	char *h = slurp(path);
	assert_non_null(strstr(h, "<section id=\"probe\">\n<h2>Probe section</h2>"));
	assert_non_null(strstr(h, "<a href=\"#probe\">probe</a>"));
	assert_non_null(strstr(h, "<p class=\"probe\">2</p>"));
	free(h);

	for (size_t i = 0; i < out.n_paths; i++)
		assert_int_equal(unlink(out.paths[i]), 0);
	gl_output_release(&out);
	assert_int_equal(rmdir(dir), 0);
	gl_report_release(&rep);
	gl_config_release(&cfg);
	unlink(db);
}

/* The passes' order: each hook's first call appends its letter once. */
struct order {
	char seq[8];
	size_t n;
};

static void order_mark(void *st, char c)
{
	struct order *o = st;

	if (o->n < sizeof(o->seq) - 1 && (o->n == 0 || !strchr(o->seq, c)))
		o->seq[o->n++] = c;
}

static int order_collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	(void)cx, (void)ev;
	order_mark(st, 'e');
	return GL_OK;
}

static int order_plan(struct gl_section_ctx *cx, void *st)
{
	(void)cx;
	order_mark(st, 'p');
	return GL_OK;
}

static int order_kernel(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev,
			bool first)
{
	(void)cx, (void)ev, (void)first;
	order_mark(st, 'k');
	return GL_OK;
}

static int order_samples(struct gl_section_ctx *cx, void *st, const struct gl_query_sample *smp,
			 size_t n)
{
	(void)cx, (void)smp, (void)n;
	order_mark(st, 's');
	return GL_OK;
}

static int order_finish(struct gl_section_ctx *cx, void *st)
{
	(void)cx;
	order_mark(st, 'f');
	return GL_OK;
}

static const struct gl_section order_section = {
	.name = "order",
	.title = "Order",
	.state_size = sizeof(struct order),
	.collect = order_collect,
	.plan = order_plan,
	.collect_kernel = order_kernel,
	.collect_samples = order_samples,
	.finish = order_finish,
};

/*
 * The passes run events, plan, kernels, samples, finish: the kernel pass
 * (which frees the kernel cache as it goes) comes before the samples pass
 * (which keeps a value per sample), so the two never take memory at once.
 */
static void test_pass_order(void **state)
{
	(void)state;
	char db[] = "/tmp/test_section_table.XXXXXX";
	sqlite3 *s;
	int fd = mkstemp(db);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(db, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, gl_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	/* a kernel timing, and one sample of one series */
	assert_int_equal(
		sqlite3_exec(s,
			     "PRAGMA application_id = 1735420007; PRAGMA user_version = 2;"
			     "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes,"
			     " head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);"
			     "INSERT INTO names(id, name) VALUES (1, 'gemm'), (2, 'gpu.power_w');"
			     "INSERT INTO events(ts_us, level, kernel_id, dur_us, stream_id, line)"
			     " VALUES (1735689600000000, 3, 1, 12.5, 1, 1);"
			     "INSERT INTO series(id, metric_id, device, source) VALUES"
			     " (1, 2, '0', 'nvidia-smi-csv');"
			     "INSERT INTO sample_blocks(id, series_id, t0_us, t1_us, n, stream_id,"
			     " line0, line1, data) VALUES (1, 1, 1735689601000000, 1735689601000000,"
			     " 1, 1, 1, 1, '[[0,100,0]]');",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(s);

	const struct gl_section *items[] = {&order_section};
	const struct gl_section_list list = {items, 1};
	struct gl_report_config cfg;
	struct gl_query *q = NULL;
	struct gl_report rep;
	struct gl_err err;
	struct gl_report_params p = {.since_us = T0, .until_us = T0 + GL_US_PER_DAY, .top = 20,
				     .sections = &list};

	assert_int_equal(gl_config_defaults(&cfg, &err), GL_OK);
	assert_int_equal(gl_query_open(db, &q, &err), GL_OK);
	assert_int_equal(gl_report_build(q, &p, &cfg, &rep, &err), GL_OK);
	gl_query_close(q);
	assert_string_equal(((const struct order *)gl_report_section_state(&rep, 0))->seq, "epksf");
	gl_report_release(&rep);
	gl_config_release(&cfg);
	unlink(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_in_every_format),
		cmocka_unit_test(test_pass_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
