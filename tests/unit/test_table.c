/*
 * test_table.c - reports/table.c: one description of rows, four renderings.
 * Two rows (one with every value undefined) through JSON, CSV, text and
 * HTML; the expected outputs are written by hand from table.h's rules and
 * emit_util.h's cell formats (%.15g in CSV, gl_text_num, %.4g in HTML).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../reports/emit_util.h"
#include "../../reports/table.h"
#include "gpulog.h"
#include "util/timeutil.h"

struct row {
	const char *name;
	uint64_t n;
	double v;
	double w_ms;
	int64_t ts_us;
};

#define R(f) offsetof(struct row, f)

/* JSON/CSV: name, n, v, w_ms, ts; text: name, v, n; HTML: name, n, w (in s), ts. */
static const struct gl_col cols[] = {
	{"name", GL_COL_TEXT, R(name), GL_COL_NAME, 1, "name", 6, 1, "name", 0},
	{"n", GL_COL_U64, R(n), 0, 3, "n", 4, 2, "n", 0},
	{"v", GL_COL_NUM, R(v), 0, 2, "v", 7, 0, NULL, 0},
	{"w_ms", GL_COL_NUM, R(w_ms), 0, 0, NULL, 0, 3, "w s", 1e3},
	{"ts", GL_COL_TS, R(ts_us), 0, 0, NULL, 0, 4, "when", 0},
};

static const struct gl_table table = {cols, 5, sizeof(struct row)};

static struct row rows[2] = {
	{"a,b", 3, 1.5, 2500, 1735689600000000LL},	/* 2025-01-01T00:00:00Z */
	{"<x>", 0, NAN, NAN, GL_TS_NONE},
};

/* Runs fn into a memory stream; returns what it wrote (caller frees). */
static char *render(void (*fn)(const struct gl_table *, const void *, size_t, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	fn(&table, rows, 2, fp);
	fclose(fp);
	return buf;
}

static void test_json(void **state)
{
	json_t *a = gl_table_json(&table, rows, 2), *o;

	(void)state;
	assert_non_null(a);
	assert_int_equal(json_array_size(a), 2);
	o = json_array_get(a, 0);
	assert_int_equal(json_object_size(o), 5);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "a,b");
	assert_int_equal(json_integer_value(json_object_get(o, "n")), 3);
	assert_true(json_real_value(json_object_get(o, "v")) == 1.5);
	assert_true(json_real_value(json_object_get(o, "w_ms")) == 2500);
	assert_string_equal(json_string_value(json_object_get(o, "ts")), "2025-01-01T00:00:00Z");
	/* undefined: null, never NaN */
	o = json_array_get(a, 1);
	assert_true(json_is_null(json_object_get(o, "v")));
	assert_true(json_is_null(json_object_get(o, "w_ms")));
	assert_true(json_is_null(json_object_get(o, "ts")));
	/* the object's keys in list order */
	const char *want[5] = {"name", "n", "v", "w_ms", "ts"}, *key;
	size_t i = 0;
	json_t *v;

	json_object_foreach(json_array_get(a, 0), key, v) {
		assert_true(i < 5 && v != NULL);
		assert_string_equal(key, want[i++]);
	}
	assert_int_equal(i, 5);
	json_decref(a);
}

static void test_csv(void **state)
{
	char *s = render(gl_table_csv);

	(void)state;
	assert_string_equal(s, "name,n,v,w_ms,ts\r\n"
			       "\"a,b\",3,1.5,2500,2025-01-01T00:00:00Z\r\n"
			       "<x>,0,,,\r\n");
	free(s);
}

static void test_text(void **state)
{
	char *s = render(gl_table_text);

	(void)state;
	/* name in 6 columns; v right-aligned in 7; one space; n in 4 */
	assert_string_equal(s, "name        v    n\n"
			       "a,b       1.5    3\n"
			       "<x>         -    0\n");
	free(s);
}

static void test_html(void **state)
{
	char *s = render(gl_table_html);

	(void)state;
	assert_string_equal(s, "<table><tr><th>name</th><th>n</th><th>w s</th><th>when</th></tr>\n"
			       "<tr><td class=\"k\">a,b</td><td class=\"n\">3</td>"
			       "<td class=\"n\">2.5</td><td>2025-01-01T00:00:00Z</td></tr>\n"
			       "<tr><td class=\"k\">&lt;x&gt;</td><td class=\"n\">0</td>"
			       "<td class=\"n\">&ndash;</td><td>&ndash;</td></tr>\n"
			       "</table>\n");
	free(s);
}

static const char *color_name(int v)
{
	return v == 0 ? "red" : v == 1 ? "green" : "";
}

/* An enum column: its name in every rendering. */
static void test_enum(void **state)
{
	enum color { RED, GREEN };
	struct crow {
		const char *name;
		enum color c;
	} cr[2] = {{"a", GREEN}, {"b", RED}};
	static const struct gl_col ccols[] = {
		{"name", GL_COL_TEXT, offsetof(struct crow, name), GL_COL_NAME, 1, "name", 4, 1,
		 "name", 0, NULL},
		{"color", GL_COL_ENUM, offsetof(struct crow, c), 0, 2, "color", 6, 2, "color", 0,
		 color_name},
	};
	const struct gl_table ct = {ccols, 2, sizeof(struct crow)};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	json_t *a = gl_table_json(&ct, cr, 2);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "color")),
			    "green");
	json_decref(a);
	gl_table_csv(&ct, cr, 2, fp);
	gl_table_text(&ct, cr, 2, fp);
	gl_table_html(&ct, cr, 1, fp);
	fclose(fp);
	assert_string_equal(buf, "name,color\r\na,green\r\nb,red\r\n"
				 "name color\na    green\nb      red\n"
				 "<table><tr><th>name</th><th>color</th></tr>\n"
				 "<tr><td class=\"k\">a</td><td>green</td></tr>\n</table>\n");
	free(buf);
}

/* A JSON object's text: an object in JSON ({} for what is not one), the text in CSV. */
static void test_json_column(void **state)
{
	struct lrow {
		const char *labels;
	} lr[2] = {{"{\"gpu\": \"0\"}"}, {"[1]"}};
	static const struct gl_col lcols[] = {
		{"labels", GL_COL_JSON, offsetof(struct lrow, labels), 0, 0, NULL, 0, 0, NULL, 0,
		 NULL},
	};
	const struct gl_table lt = {lcols, 1, sizeof(struct lrow)};
	json_t *a = gl_table_json(&lt, lr, 2);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_array_get(a, 0), "labels"), "gpu")),
			    "0");
	assert_true(json_is_object(json_object_get(json_array_get(a, 1), "labels")));
	assert_int_equal(json_object_size(json_object_get(json_array_get(a, 1), "labels")), 0);
	json_decref(a);
	gl_table_csv(&lt, lr, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "labels\r\n\"{\"\"gpu\"\": \"\"0\"\"}\"\r\n[1]\r\n");
	free(buf);
}

/*
 * A GPU index (none when negative), an int and a flag, and CSV positions: CSV shows the
 * columns that have one, in that order (the flag first, the int left out); JSON every
 * column in list order.
 */
static void test_index_int_flag_csv_pos(void **state)
{
	struct irow {
		long index;
		int code;
		int critical;
	} ir[2] = {{3, 79, 1}, {-1, 13, 0}};
	static const struct gl_col icols[] = {
		{"index", GL_COL_INDEX, offsetof(struct irow, index), 0, 1, "gpu", 3, 1, "GPU", 0,
		 NULL, 2},
		{"code", GL_COL_INT, offsetof(struct irow, code), 0, 2, "xid", 4, 2, "Xid", 0, NULL,
		 0},
		{"critical", GL_COL_FLAG, offsetof(struct irow, critical), 0, 3, "crit", 4, 3,
		 "critical", 0, NULL, 1},
	};
	const struct gl_table it = {icols, 3, sizeof(struct irow)};
	json_t *a = gl_table_json(&it, ir, 2), *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	const char *key;
	json_t *v;
	size_t i = 0;

	(void)state;
	o = json_array_get(a, 0);
	assert_int_equal(json_integer_value(json_object_get(o, "index")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "code")), 79);
	assert_true(json_is_true(json_object_get(o, "critical")));
	json_object_foreach(o, key, v)
		assert_string_equal(key, i++ == 0 ? "index" : i == 2 ? "code" : "critical");
	o = json_array_get(a, 1);
	assert_true(json_is_null(json_object_get(o, "index")));
	assert_true(json_is_false(json_object_get(o, "critical")));
	json_decref(a);
	gl_table_csv(&it, ir, 2, fp);
	/* the first column of a text table is a name: a number there is left empty */
	gl_table_text(&it, ir, 2, fp);
	gl_table_html(&it, ir, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "critical,index\r\n1,3\r\n0,\r\n"
				 /* gpu in 3, xid right in 4 just after it, then a space, crit in 4 */
				 "gpu xid crit\n"
				 "     79    1\n"
				 "     13    0\n"
				 "<table><tr><th>GPU</th><th>Xid</th><th>critical</th></tr>\n"
				 "<tr><td class=\"n\">3</td><td class=\"n\">79</td>"
				 "<td class=\"n\">1</td></tr>\n"
				 "<tr><td class=\"n\">&ndash;</td><td class=\"n\">13</td>"
				 "<td class=\"n\">0</td></tr>\n</table>\n");
	free(buf);
}

/* A row of a kernel with a short and a full name; the trace figure and the hot count
 * do not apply to every row. */
struct krow {
	const char *full, *shown;
	double occ;
	uint64_t hot;
	int trace;
};

#define K(f) offsetof(struct krow, f)

static bool no_trace(const void *row)
{
	return !((const struct krow *)row)->trace;
}

static bool no_hot(const void *row)
{
	return ((const struct krow *)row)->hot == 0;
}

static json_t *hot_obj(const void *row)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)((const struct krow *)row)->hot));
	return o;
}

static void test_title_absent_json_of(void **state)
{
	/* JSON: full, shown, occ (trace rows only), hot (an object, when not 0); the CSV
	 * form of hot (hot_count, empty when 0) is not in JSON; CSV: full, occ (empty
	 * when no trace), hot_count; HTML: shown with the full name as its title */
	static const struct gl_col kc[] = {
		{"full", GL_COL_TEXT, K(full), 0, 0, NULL, 0, 0, NULL, 0, NULL, 1},
		{"shown", GL_COL_TEXT, K(shown), GL_COL_NAME | GL_COL_TITLE, 0, NULL, 0, 1, "kernel",
		 0, NULL, 0, K(full)},
		{"occ", GL_COL_NUM, K(occ), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0, NULL, 2, 0,
		 no_trace},
		{"hot", GL_COL_U64, K(hot), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0, no_hot, hot_obj},
		{"hot_count", GL_COL_U64, K(hot), GL_COL_NO_JSON | GL_COL_ABSENT_CSV, 0, NULL, 0, 0,
		 NULL, 0, NULL, 3, 0, no_hot},
	};
	static const struct gl_table kt = {kc, 5, sizeof(struct krow)};
	static const struct krow kr[2] = {
		{"void k<int>(int*)", "k<int>", 0.5, 7, 1},
		{"log_kernel", "log_kernel", 0.25, 0, 0},
	};
	char *buf = NULL, *js;
	size_t len = 0;
	FILE *fp;
	json_t *a;

	(void)state;
	a = gl_table_json(&kt, kr, 2);
	assert_non_null(a);
	js = json_dumps(a, JSON_COMPACT);
	assert_string_equal(js, "[{\"full\":\"void k<int>(int*)\",\"shown\":\"k<int>\",\"occ\":0.5,"
				"\"hot\":{\"count\":7}},"
				"{\"full\":\"log_kernel\",\"shown\":\"log_kernel\"}]");
	free(js);
	json_decref(a);

	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_csv(&kt, kr, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "full,occ,hot_count\r\nvoid k<int>(int*),0.5,7\r\nlog_kernel,,\r\n");
	free(buf);

	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_html(&kt, kr, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "<table><tr><th>kernel</th></tr>\n"
				 "<tr><td class=\"k\" title=\"void k&lt;int&gt;(int*)\">k&lt;int&gt;</td></tr>\n"
				 "<tr><td class=\"k\" title=\"log_kernel\">log_kernel</td></tr>\n"
				 "</table>\n");
	free(buf);
}

/* The class of a row's count cell: "critical" from 3 up, none below. */
static const char *n_class(const void *row)
{
	return ((const struct row *)row)->n >= 3 ? "critical" : NULL;
}

/* html_class: the cell's class comes from the row (in place of "n"; none when NULL), the
 * other renderings are as without it. */
static void test_html_class(void **state)
{
	static const struct gl_col cc[] = {
		{"name", GL_COL_TEXT, R(name), 0, 0, NULL, 0, 2, "name", 0},
		{"n", GL_COL_U64, R(n), 0, 0, NULL, 0, 1, "n", 0, NULL, 0, 0, NULL, NULL, n_class},
	};
	static const struct gl_table ct = {cc, 2, sizeof(struct row)};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_html(&ct, rows, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "<table><tr><th>n</th><th>name</th></tr>\n"
				 "<tr><td class=\"critical\">3</td><td>a,b</td></tr>\n"
				 "<tr><td>0</td><td>&lt;x&gt;</td></tr>\n"
				 "</table>\n");
	free(buf);

	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_csv(&ct, rows, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "name,n\r\n\"a,b\",3\r\n<x>,0\r\n");
	free(buf);
}

/* A row of a count of 3 and more is "hot". */
static const char *hot_row(const void *row)
{
	return ((const struct row *)row)->n >= 3 ? "hot" : NULL;
}

/* The n and v of a row in one cell: "3 / 1.5", a mark after it when n is not 0. */
static void n_and_v(FILE *fp, const void *row)
{
	const struct row *r = row;

	fprintf(fp, "%llu / ", (unsigned long long)r->n);
	gl_html_num(fp, r->v, GL_HTML_G4);
	if (r->n)
		fputs(" <b>!</b>", fp);
}

/* row_class: the <tr>'s class from the row (none when NULL); html_of: the cell's content
 * from the row, in a cell of the kind's class; JSON and CSV as without them. */
static void test_row_class_html_of(void **state)
{
	static const struct gl_col cc[] = {
		{"name", GL_COL_TEXT, R(name), GL_COL_NAME, 0, NULL, 0, 1, "name", 0},
		{"n", GL_COL_U64, R(n), 0, 0, NULL, 0, 2, "n / v", 0, .html_of = n_and_v},
	};
	static const struct gl_table ct = {cc, 2, sizeof(struct row), hot_row};
	char *buf = NULL, *js;
	size_t len = 0;
	FILE *fp;
	json_t *a;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_html(&ct, rows, 2, fp);
	fclose(fp);
	assert_string_equal(buf, "<table><tr><th>name</th><th>n / v</th></tr>\n"
				 "<tr class=\"hot\"><td class=\"k\">a,b</td>"
				 "<td class=\"n\">3 / 1.5 <b>!</b></td></tr>\n"
				 "<tr><td class=\"k\">&lt;x&gt;</td><td class=\"n\">0 / &ndash;</td></tr>\n"
				 "</table>\n");
	free(buf);

	a = gl_table_json(&ct, rows, 2);
	assert_non_null(a);
	js = json_dumps(a, JSON_COMPACT);
	assert_string_equal(js, "[{\"name\":\"a,b\",\"n\":3},{\"name\":\"<x>\",\"n\":0}]");
	free(js);
	json_decref(a);
}

/* GL_COL_HTML_NUM: a number cell in the style the column names (a percent, three figures),
 * the others in %.4g. */
static void test_html_num(void **state)
{
	static const struct gl_col cc[] = {
		{"v", GL_COL_NUM, R(v), GL_COL_HTML_NUM, 0, NULL, 0, 1, "v %", 0, .html_num = GL_HTML_PCT},
		{"w_ms", GL_COL_NUM, R(w_ms), GL_COL_HTML_NUM, 0, NULL, 0, 2, "w", 0,
		 .html_num = GL_HTML_G3},
		{"w4", GL_COL_NUM, R(w_ms), 0, 0, NULL, 0, 3, "w4", 0},
	};
	static const struct gl_table ct = {cc, 3, sizeof(struct row)};
	static const struct row r1[1] = {{"a", 1, 12.34, 1.23456, 0}};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&buf, &len));
	gl_table_html(&ct, r1, 1, fp);
	fclose(fp);
	/* percent: %+.1f; G3: %.3g; G4: %.4g */
	assert_string_equal(buf, "<table><tr><th>v %</th><th>w</th><th>w4</th></tr>\n"
				 "<tr><td class=\"n\">+12.3</td><td class=\"n\">1.23</td>"
				 "<td class=\"n\">1.235</td></tr>\n</table>\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_json_column),
		cmocka_unit_test(test_index_int_flag_csv_pos),
		cmocka_unit_test(test_title_absent_json_of),
		cmocka_unit_test(test_html_class),
		cmocka_unit_test(test_row_class_html_of),
		cmocka_unit_test(test_html_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
