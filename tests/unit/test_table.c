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

/* Runs fn on table t's rows into a memory stream; returns what it wrote (caller frees). */
static char *render_of(void (*fn)(const struct gl_table *, const void *, size_t, FILE *),
		       const struct gl_table *t, const void *r, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	fn(t, r, n, fp);
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

	buf = render_of(gl_table_csv, &kt, kr, 2);
	assert_string_equal(buf, "full,occ,hot_count\r\nvoid k<int>(int*),0.5,7\r\nlog_kernel,,\r\n");
	free(buf);

	buf = render_of(gl_table_html, &kt, kr, 2);
	assert_string_equal(buf, "<table><tr><th>kernel</th></tr>\n"
				 "<tr><td class=\"k\" title=\"void k&lt;int&gt;(int*)\">k&lt;int&gt;</td></tr>\n"
				 "<tr><td class=\"k\" title=\"log_kernel\">log_kernel</td></tr>\n"
				 "</table>\n");
	free(buf);
}

/* A row whose cells are written by the columns themselves. */
struct crow {
	const char *name, *dev;
	double ms;
	int bad;
};

#define C(f) offsetof(struct crow, f)

static const char *label_cell(const void *row, char *buf, size_t n)
{
	const struct crow *r = row;

	snprintf(buf, n, "%s%s%s", r->name, r->dev ? " @" : "", r->dev ? r->dev : "");
	return buf;
}

static const char *verdict_cell(const void *row, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ((const struct crow *)row)->bad ? "worse" : "same");
	return buf;
}

static void ms_cell(FILE *f, const void *row)
{
	fprintf(f, "%.1f ms", ((const struct crow *)row)->ms);
}

static const char *verdict_class(const void *row)
{
	return ((const struct crow *)row)->bad ? "warning" : NULL;
}

static void test_cells_written_by_columns(void **state)
{
	/* text: a label of two fields (10 wide), a gap of one space, ms (6 wide), the verdict
	 * left-aligned (6 wide); HTML: the label's name, ms as "x.y ms" in class "n", the
	 * verdict with class "warning" when worse, else none */
	static const struct gl_col cc[] = {
		{"name", GL_COL_TEXT, C(name), GL_COL_NAME, 1, "scope", 10, 1, "scope", 0, NULL, 0, 0,
		 NULL, NULL, NULL, NULL, label_cell},
		{"ms", GL_COL_NUM, C(ms), 0, 2, "ms", 6, 2, "time", 0, NULL, 0, 0, NULL, NULL, NULL,
		 ms_cell},
		{"verdict", GL_COL_TEXT, C(name), GL_COL_LEFT, 3, "verdict", 6, 3, "verdict", 0, NULL,
		 0, 0, NULL, NULL, verdict_class, NULL, verdict_cell},
	};
	static const struct gl_table ct = {cc, 3, sizeof(struct crow), NULL, 1};
	static const struct crow cr[2] = {{"step", "0", 2.5, 1}, {"fwd", NULL, 10, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_text, &ct, cr, 2);
	assert_string_equal(buf, "scope          ms verdict\n"
				 "step @0       2.5 worse \n"
				 "fwd            10 same  \n");
	free(buf);

	buf = render_of(gl_table_html, &ct, cr, 2);
	assert_string_equal(buf, "<table><tr><th>scope</th><th>time</th><th>verdict</th></tr>\n"
				 "<tr><td class=\"k\">step</td><td class=\"n\">2.5 ms</td>"
				 "<td class=\"warning\">step</td></tr>\n"
				 "<tr><td class=\"k\">fwd</td><td class=\"n\">10.0 ms</td>"
				 "<td>fwd</td></tr>\n</table>\n");
	free(buf);
}

/* A pointer in hex and a rank and a figure that may be missing, shown blank. */
struct hrow {
	uint64_t ptr;
	long rank;
	double v;
};

#define H(f) offsetof(struct hrow, f)

static void test_hex_blank(void **state)
{
	static const struct gl_col hc[] = {
		{"ptr", GL_COL_HEX, H(ptr), 0, 1, "ptr", 6, 1, "ptr", 0},
		{"rank", GL_COL_INDEX, H(rank), GL_COL_BLANK, 2, "rank", 4, 2, "rank", 0},
		{"v", GL_COL_NUM, H(v), GL_COL_BLANK, 3, "v", 3, 3, "v", 0},
	};
	static const struct gl_table ht = {hc, 3, sizeof(struct hrow)};
	static const struct hrow hr[2] = {{0x1f, 3, 2}, {0, -1, NAN}};
	char *buf = NULL, *js;
	json_t *a;

	(void)state;
	a = gl_table_json(&ht, hr, 2);
	js = json_dumps(a, JSON_COMPACT);
	assert_string_equal(js, "[{\"ptr\":\"0x1f\",\"rank\":3,\"v\":2.0},"
				"{\"ptr\":\"0x0\",\"rank\":null,\"v\":null}]");
	free(js);
	json_decref(a);

	buf = render_of(gl_table_csv, &ht, hr, 2);
	assert_string_equal(buf, "ptr,rank,v\r\n0x1f,3,2\r\n0x0,,\r\n");
	free(buf);

	buf = render_of(gl_table_text, &ht, hr, 2);
	/* the first column is a text cell: a hex number there shows nothing (as a number would) */
	assert_string_equal(buf, "ptr   rank   v\n"
				 "         3   2\n"
				 "              \n");
	free(buf);

	buf = render_of(gl_table_html, &ht, hr, 2);
	assert_string_equal(buf, "<table><tr><th>ptr</th><th>rank</th><th>v</th></tr>\n"
				 "<tr><td class=\"n\">0x1f</td><td class=\"n\">3</td>"
				 "<td class=\"n\">2</td></tr>\n"
				 "<tr><td class=\"n\">0x0</td><td class=\"n\"></td>"
				 "<td class=\"n\"></td></tr>\n</table>\n");
	free(buf);
}

static const char *odd_row(const void *row)
{
	return ((const struct hrow *)row)->rank < 0 ? "none" : NULL;
}

/* A class on the row's <tr> when the table gives one for it. */
static void test_row_class(void **state)
{
	static const struct gl_col rc[] = {
		{"rank", GL_COL_INDEX, H(rank), GL_COL_BLANK, 0, NULL, 0, 1, "rank", 0},
	};
	static const struct gl_table rt = {rc, 1, sizeof(struct hrow), odd_row};
	static const struct hrow rr[2] = {{0, 3, 0}, {0, -1, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_html, &rt, rr, 2);
	assert_string_equal(buf, "<table><tr><th>rank</th></tr>\n"
				 "<tr><td class=\"n\">3</td></tr>\n"
				 "<tr class=\"none\"><td class=\"n\"></td></tr>\n</table>\n");
	free(buf);
}

/* Rows written as sentences: no header line, a label before a cell in place of the gap. */
static void test_text_before_no_head(void **state)
{
	static const struct gl_col sc[] = {
		{"name", GL_COL_TEXT, R(name), 0, 1, "name", 4, .text_before = "  "},
		{"v", GL_COL_NUM, R(v), 0, 2, "v", 5, .text_before = ": v "},
		{"n", GL_COL_U64, R(n), 0, 3, "n", 0, .text_before = " in "},
		{"ts", GL_COL_TS, R(ts_us), 0, 0, NULL, 0},
	};
	static const struct gl_table st = {sc, 4, sizeof(struct row), .text_no_head = true};
	static const struct gl_table ht = {sc, 4, sizeof(struct row)};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_text, &st, rows, 2);
	assert_string_equal(buf, "  a,b : v   1.5 in 3\n"
				 "  <x> : v     - in 0\n");
	free(buf);
	/* with its header line: the labels before the headers too */
	buf = render_of(gl_table_text, &ht, rows, 1);
	assert_string_equal(buf, "  name: v     v in n\n"
				 "  a,b : v   1.5 in 3\n");
	free(buf);
}

/* Cells cut as the first column is (GL_COL_CUT) in any place, a first column not cut
 * (GL_COL_UNCUT), and a line's last cell cut to a width or to the rest of the line. */
static void test_cut_uncut_last(void **state)
{
	static const struct gl_col lc[] = {
		{"n", GL_COL_U64, R(n), GL_COL_UNCUT, 1, "n", 3},
		{"name", GL_COL_TEXT, R(name), GL_COL_CUT, 2, "name", 3},
		{"all", GL_COL_TEXT, R(name), GL_COL_LAST | GL_COL_NO_JSON, 3, "all", 0},
	};
	static const struct gl_col wc[] = {
		{"n", GL_COL_U64, R(n), GL_COL_UNCUT, 1, "n", 3},
		{"name", GL_COL_TEXT, R(name), GL_COL_LAST, 2, "name", 4},
	};
	static const struct gl_table lt = {lc, 3, sizeof(struct row), NULL, 1};
	static const struct gl_table wt = {wc, 2, sizeof(struct row), NULL, 1};
	char longname[101], want[256], *buf = NULL;
	struct row lr[2] = {{"abcdef", 3, 0, 0, 0}, {longname, 12345, 0, 0, 0}};

	(void)state;
	memset(longname, 'x', 100);
	longname[100] = 0;
	/* the second line: 5 + 1 + 3 + 1 columns written, 90 left of 100: 89 x and a ~ */
	snprintf(want, sizeof(want), "  n na~ all\n  3 ab~ abcdef\n12345 xx~ %.89s~\n",
		 longname);
	buf = render_of(gl_table_text, &lt, lr, 2);
	assert_string_equal(buf, want);
	free(buf);

	buf = render_of(gl_table_text, &wt, lr, 1);
	assert_string_equal(buf, "  n name\n  3 abc~\n");
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
		cmocka_unit_test(test_cells_written_by_columns),
		cmocka_unit_test(test_hex_blank),
		cmocka_unit_test(test_row_class),
		cmocka_unit_test(test_text_before_no_head),
		cmocka_unit_test(test_cut_uncut_last),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
