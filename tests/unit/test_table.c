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

/* A record: one row as key/value pairs (a section's summary). */
struct rec {
	const char *state;
	uint64_t n;
	double v;
	double w_ms;
	int64_t ts_us;
	uint64_t by[2];		/* by "a", by "b" */
	double lo, hi;
};

#define RC(f) offsetof(struct rec, f)

static json_t *by_json(const void *row)
{
	const struct rec *r = row;
	json_t *o = json_object();

	json_object_set_new(o, "a", json_integer((json_int_t)r->by[0]));
	json_object_set_new(o, "b", json_integer((json_int_t)r->by[1]));
	return o;
}

static void by_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct rec *r = row;

	for (int i = 0; i < 2; i++) {
		fprintf(fp, "%s,%c,%llu", key, 'a' + i, (unsigned long long)r->by[i]);
		for (unsigned k = 0; k < pad; k++)
			fputc(',', fp);
		fputs("\r\n", fp);
	}
}

static const char *by_text(const void *row, char *buf, size_t n)
{
	const struct rec *r = row;

	snprintf(buf, n, "a %llu b %llu", (unsigned long long)r->by[0],
		 (unsigned long long)r->by[1]);
	return buf;
}

static void by_html(FILE *f, const void *row)
{
	const struct rec *r = row;

	fprintf(f, "a %llu, b %llu", (unsigned long long)r->by[0], (unsigned long long)r->by[1]);
}

static bool always(const void *row)
{
	(void)row;
	return true;
}

static void test_record(void **state)
{
	/* text: State, Count, Mean, By; HTML: count, w (in s), when, by; "gone" never applies */
	static const struct gl_col rc[] = {
		{"state", GL_COL_TEXT, RC(state), 0, 1, "State", 7, 0, NULL, 0},
		{"n", GL_COL_U64, RC(n), 0, 2, "Count", 7, 1, "count", 0},
		{"gone", GL_COL_U64, RC(n), 0, 0, NULL, 0, 0, NULL, 0, .absent = always},
		{"v", GL_COL_NUM, RC(v), 0, 3, "Mean", 5, 0, NULL, 0},
		{"w_ms", GL_COL_NUM, RC(w_ms), 0, 0, NULL, 0, 2, "w s", 1e3},
		{"ts", GL_COL_TS, RC(ts_us), 0, 0, NULL, 0, 3, "when", 0},
		{"by", GL_COL_U64, RC(by), 0, 4, "By", 3, 4, "by", 0, .json_of = by_json,
		 .html_cell = by_html, .text_cell = by_text, .csv_rows = by_csv},
	};
	static const struct gl_table rt = {rc, 7, sizeof(struct rec)};
	static const struct gl_col qc[] = {
		{"min", GL_COL_NUM, RC(lo), 0, 0, NULL, 0, 0, NULL, 0},
		{"max", GL_COL_NUM, RC(hi), 0, 0, NULL, 0, 0, NULL, 0},
	};
	static const struct gl_table qt = {qc, 2, sizeof(struct rec)};
	static const struct rec r = {"a,b", 3, 1.5, 2500, 1735689600000000LL, {1, 2}, 0.5, 4};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	json_t *o = gl_record_json(&rt, &r);
	const char *want[6] = {"state", "n", "v", "w_ms", "ts", "by"}, *key;
	json_t *v;
	size_t i = 0;

	(void)state;
	/* JSON: one object, the keys in list order, "gone" left out */
	assert_true(json_is_object(o));
	json_object_foreach(o, key, v) {
		assert_true(i < 6 && v != NULL);
		assert_string_equal(key, want[i++]);
	}
	assert_int_equal(i, 6);
	assert_string_equal(json_string_value(json_object_get(o, "state")), "a,b");
	assert_int_equal(json_integer_value(json_object_get(o, "n")), 3);
	assert_true(json_real_value(json_object_get(o, "w_ms")) == 2500);
	assert_string_equal(json_string_value(json_object_get(o, "ts")), "2025-01-01T00:00:00Z");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "by"), "b")), 2);
	json_decref(o);

	/* CSV: key,name,value rows under a prefix, one empty cell after each value */
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	gl_record_csv(&rt, &r, "s.", 1, fp);
	gl_record_csv_named(&qt, &r, "q", 0, fp);
	fclose(fp);
	assert_string_equal(buf, "s.state,,\"a,b\",\r\n"
				 "s.n,,3,\r\n"
				 "s.v,,1.5,\r\n"
				 "s.w_ms,,2500,\r\n"
				 "s.ts,,2025-01-01T00:00:00Z,\r\n"
				 "s.by,a,1,\r\n"
				 "s.by,b,2,\r\n"
				 "q,min,0.5\r\n"
				 "q,max,4\r\n");
	free(buf);

	/* text: the head left-aligned in its width, then the value */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	gl_record_text(&rt, &r, fp);
	fclose(fp);
	assert_string_equal(buf, "State  a,b\n"
				 "Count  3\n"
				 "Mean 1.5\n"
				 "By a 1 b 2\n");
	free(buf);

	/* HTML: a row per column, <th> the head */
	buf = NULL;
	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	gl_record_html(&rt, &r, fp);
	fclose(fp);
	assert_string_equal(buf, "<table><tr><th>count</th><td class=\"n\">3</td></tr>\n"
				 "<tr><th>w s</th><td class=\"n\">2.5</td></tr>\n"
				 "<tr><th>when</th><td>2025-01-01T00:00:00Z</td></tr>\n"
				 "<tr><th>by</th><td class=\"n\">a 1, b 2</td></tr>\n"
				 "</table>\n");
	free(buf);
}

/* A record's HTML table opened by the table's own opening. */
static void test_record_html_open(void **state)
{
	static const struct gl_col oc[] = {
		{"n", GL_COL_U64, RC(n), 0, 0, NULL, 0, 1, "count", 0},
	};
	static const struct gl_table ot = {oc, 1, sizeof(struct rec), NULL, 0, .record_html_open = "<table>\n"};
	static const struct rec r = {"x", 7, 0, 0, 0, {0, 0}, 0, 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	gl_record_html(&ot, &r, fp);
	fclose(fp);
	assert_string_equal(buf, "<table>\n<tr><th>count</th><td class=\"n\">7</td></tr>\n"
				 "</table>\n");
	free(buf);
}

/* A table's rows under a key, without a header (a list in a key,name,value CSV). */
static void test_csv_under(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	gl_table_csv_under(&table, rows, 2, "top", fp);
	fclose(fp);
	/* the rows of test_csv, each after "top," */
	assert_string_equal(buf, "top,\"a,b\",3,1.5,2500,2025-01-01T00:00:00Z\r\n"
				 "top,<x>,0,,,\r\n");
	free(buf);
}

static const char *n_text(const void *row, char *buf, size_t n)
{
	const struct rec *r = row;

	if (!r->n)
		return NULL;
	snprintf(buf, n, "%llu of them", (unsigned long long)r->n);
	return buf;
}

/* A record's text line left out where its text_cell gives none. */
static void test_record_text_none(void **state)
{
	static const struct gl_col nc[] = {
		{"state", GL_COL_TEXT, RC(state), 0, 1, "", 0, 0, NULL, 0},
		{"n", GL_COL_U64, RC(n), 0, 2, "n:", 3, 0, NULL, 0, .text_cell = n_text},
	};
	static const struct gl_table nt = {nc, 2, sizeof(struct rec)};
	static const struct rec r[2] = {{"one", 2, 0, 0, 0, {0, 0}, 0, 0},
					{"two", 0, 0, 0, 0, {0, 0}, 0, 0}};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	gl_record_text(&nt, &r[0], fp);
	gl_record_text(&nt, &r[1], fp);
	fclose(fp);
	assert_string_equal(buf, "one\nn: 2 of them\ntwo\n");
	free(buf);
}

/* A record as one row across the page: a header row, then the cells. */
static void test_record_html_across(void **state)
{
	static const struct gl_col ac[] = {
		{"n", GL_COL_U64, RC(n), 0, 0, NULL, 0, 2, "count", 0},
		{"state", GL_COL_TEXT, RC(state), GL_COL_NAME, 0, NULL, 0, 1, "state", 0},
		{"v", GL_COL_NUM, RC(v), 0, 0, NULL, 0, 0, NULL, 0},
	};
	static const struct gl_table at_ = {ac, 3, sizeof(struct rec)};
	static const struct rec r = {"<ok>", 4, 1.5, 0, 0, {0, 0}, 0, 0};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	gl_record_html_across(&at_, &r, fp);
	fclose(fp);
	assert_string_equal(buf, "<table><tr><th>state</th><th>count</th></tr>\n"
				 "<tr><td class=\"k\">&lt;ok&gt;</td><td class=\"n\">4</td>"
				 "</tr></table>\n");
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

/* A second header line of units, under the heads of the columns that have one. */
static void test_text_units(void **state)
{
	static const struct gl_col uc[] = {
		{.name = "name", .kind = GL_COL_TEXT, .offset = R(name), .text_pos = 1,
		 .text_head = "gpu", .text_w = 5},
		{.name = "v", .kind = GL_COL_NUM, .offset = R(v), .text_pos = 2, .text_head = "util",
		 .text_w = 5, .text_unit = "%"},
		{.name = "n", .kind = GL_COL_U64, .offset = R(n), .text_pos = 3, .text_head = "n",
		 .text_w = 3},
		{.name = "w_ms", .kind = GL_COL_NUM, .offset = R(w_ms), .text_pos = 4,
		 .text_head = "w", .text_w = 4, .text_unit = "ms"},
	};
	static const struct gl_table ut = {uc, 4, sizeof(struct row)};
	static const struct row ur[1] = {{"a", 7, 12.5, 3, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_text, &ut, ur, 1);
	assert_string_equal(buf, "gpu   util   n    w\n"
				 "         %       ms\n"
				 "a     12.5   7    3\n");
	free(buf);
}

/* A class on the <table> when the table gives one. */
static void test_table_class(void **state)
{
	static const struct gl_col tc[] = {
		{"n", GL_COL_U64, R(n), 0, 0, NULL, 0, 1, "n", 0},
	};
	static const struct gl_table tt = {tc, 1, sizeof(struct row), NULL, 0, .html_class = "gpus"};
	static const struct row tr[1] = {{"a", 4, 0, 0, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_html, &tt, tr, 1);
	assert_string_equal(buf, "<table class=\"gpus\"><tr><th>n</th></tr>\n"
				 "<tr><td class=\"n\">4</td></tr>\n</table>\n");
	free(buf);
}

static void gpu_group(FILE *f, const void *row)
{
	fprintf(f, "GPU %s", ((const struct crow *)row)->dev);
}

static bool same_gpu(const void *prev, const void *row)
{
	return !strcmp(((const struct crow *)prev)->dev, ((const struct crow *)row)->dev);
}

/* A heading row before the first row and before each row of another group. */
static void test_html_group(void **state)
{
	static const struct gl_col gc[] = {
		{"name", GL_COL_TEXT, C(name), GL_COL_NAME, 0, NULL, 0, 1, "scope", 0},
		{"ms", GL_COL_NUM, C(ms), 0, 0, NULL, 0, 2, "ms", 0},
	};
	static const struct gl_table gt = {.cols = gc, .n_cols = 2, .row_size = sizeof(struct crow),
					   .html_group = gpu_group, .same_group = same_gpu};
	static const struct crow gr[3] = {{"fwd", "0", 2, 0}, {"bwd", "0", 4, 0}, {"fwd", "1", 3, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_html, &gt, gr, 3);
	assert_string_equal(buf, "<table><tr><th>scope</th><th>ms</th></tr>\n"
				 "<tr><th colspan=\"2\" class=\"grp\">GPU 0</th></tr>\n"
				 "<tr><td class=\"k\">fwd</td><td class=\"n\">2</td></tr>\n"
				 "<tr><td class=\"k\">bwd</td><td class=\"n\">4</td></tr>\n"
				 "<tr><th colspan=\"2\" class=\"grp\">GPU 1</th></tr>\n"
				 "<tr><td class=\"k\">fwd</td><td class=\"n\">3</td></tr>\n"
				 "</table>\n");
	free(buf);
}

static const char *obs_cell(const void *row, char *buf, size_t n)
{
	snprintf(buf, n, "(%llu obs.)", (unsigned long long)((const struct row *)row)->n);
	return buf;
}

/* Lines that name their figures: no header, "head value" two spaces apart. */
static void test_text_labelled(void **state)
{
	static const struct gl_col lc[] = {
		{.name = "name", .kind = GL_COL_TEXT, .offset = R(name), .text_pos = 1, .text_w = 6},
		{.name = "v", .kind = GL_COL_NUM, .offset = R(v), .text_pos = 2, .text_head = "p50"},
		{.name = "w_ms", .kind = GL_COL_NUM, .offset = R(w_ms), .text_pos = 3,
		 .text_head = "p95", .text_w = 4},
		{.name = "n", .kind = GL_COL_U64, .offset = R(n), .text_pos = 4, .text_cell = obs_cell},
	};
	static const struct gl_table lt = {.cols = lc, .n_cols = 4, .row_size = sizeof(struct row),
					   .text_gap = 1, .text_labelled = true};
	static const struct row lr[2] = {{"ttft", 12, 0.25, 3, 0}, {"a_very_long", 5, NAN, 40, 0}};
	char *buf = NULL;

	(void)state;
	buf = render_of(gl_table_text, &lt, lr, 2);
	assert_string_equal(buf, "ttft   p50 0.2  p95    3  (12 obs.)\n"
				 "a_ver~ p50 -  p95   40  (5 obs.)\n");
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
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_record_html_open),
		cmocka_unit_test(test_csv_under),
		cmocka_unit_test(test_record_text_none),
		cmocka_unit_test(test_record_html_across),
		cmocka_unit_test(test_text_before_no_head),
		cmocka_unit_test(test_cut_uncut_last),
		cmocka_unit_test(test_text_units),
		cmocka_unit_test(test_table_class),
		cmocka_unit_test(test_html_group),
		cmocka_unit_test(test_text_labelled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
