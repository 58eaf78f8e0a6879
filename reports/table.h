/*
 * table.h - one description of a section's rows, four renderings (in the
 * spirit of SQLite's result formatter). A section lists its columns once:
 * the name (the JSON key and the CSV header), the kind of value and where it
 * lies in the row struct, and how the text and HTML tables show it (their
 * header, width, position, unit change); JSON, CSV, text and HTML are drawn from
 * that list. A new statistic is one more line in the list.
 *
 * JSON shows every column but those marked GL_COL_NO_JSON, in list order, and
 * CSV every column unless the columns give CSV positions; text and HTML show the columns that have a position
 * for them, in that order. Undefined numbers
 * (NAN, infinities) are null in JSON, an empty cell in CSV, "-" in text and
 * a dash in HTML (emit_util.h). Rows are borrowed for the call.
 */
#ifndef GL_TABLE_H
#define GL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

enum gl_col_kind {
	GL_COL_TEXT,		/* const char * (NULL: null, empty cell) */
	GL_COL_U64,		/* uint64_t */
	GL_COL_NUM,		/* double */
	GL_COL_TS,		/* int64_t µs, GL_TS_NONE: none */
	GL_COL_ENUM,		/* an enum, shown as name_of(value) */
	GL_COL_JSON,		/* const char *, a JSON object's text: an object in JSON
				 * (anything else: {}), the text in the others */
	GL_COL_INDEX,		/* long, a GPU index or rank; negative: none (null in JSON,
				 * an empty cell in CSV, "-" in text, a dash in HTML) */
	GL_COL_INT,		/* int */
	GL_COL_FLAG,		/* int, 0 or not: true/false in JSON, 0/1 in the others */
	GL_COL_HEX,		/* uint64_t shown 0x1f (a string in JSON) */
};

#define GL_COL_NAME 1u		/* a name: its HTML cell is of class "k" */
#define GL_COL_TITLE 2u		/* HTML: the cell's title attribute is the text at
				 * title_offset (a full name behind a short one) */
#define GL_COL_NO_JSON 4u	/* not in JSON (a CSV or text form of another column) */
#define GL_COL_ABSENT_CSV 8u	/* absent (below) also empties the CSV cell */
#define GL_COL_LEFT 16u		/* text: left-aligned (a column other than the first) */
#define GL_COL_BLANK 32u	/* GL_COL_INDEX none, or an undefined number: an empty cell in
				 * text and HTML, not a dash */
/* text: how a cell is cut (high bits, clear of the flags other tables may add) */
#define GL_COL_CUT 0x400u	/* cut and padded to its width as the first column is
				 * (gl_text_cell), header too */
#define GL_COL_UNCUT 0x800u	/* a first column written as the others are: not cut */
#define GL_COL_LAST 0x1000u	/* the line's last cell, cut by gl_text_last and never padded:
				 * to text_w columns, or (text_w 0) to what GL_TEXT_WIDTH
				 * leaves after the cells before it (counted in bytes where not
				 * cut); its header as it is */

struct gl_col {
	const char *name;		/* JSON key, CSV header: "mean_ms" */
	enum gl_col_kind kind;
	size_t offset;			/* of the value in the row struct (offsetof) */
	unsigned flags;			/* GL_COL_NAME */
	/* text table: position (1, 2, ...; 0: not shown), header, width in columns */
	unsigned text_pos;
	const char *text_head;
	int text_w;
	/* HTML table: position (0: not shown), header, divisor of a number (0: none; 1e3:
	 * ms shown in s) */
	unsigned html_pos;
	const char *html_head;
	double html_div;
	const char *(*name_of)(int value);	/* GL_COL_ENUM: its name (static) */
	/* CSV: position (1, 2, ...); when no column of the table has one, every column in
	 * list order, else those that have one, in that order */
	unsigned csv_pos;
	/* GL_COL_TITLE: offset of the const char * shown as the HTML cell's title */
	size_t title_offset;
	/* Optional: true when the value does not apply to the row (a trace's figure of a
	 * kernel of log lines): no key in JSON, and with GL_COL_ABSENT_CSV an empty CSV cell */
	bool (*absent)(const void *row);
	/* Optional: the JSON value of the row's cell, a new reference (an object made of
	 * several fields); NULL when out of memory. Overrides the kind in JSON. */
	json_t *(*json_of)(const void *row);
	/* Optional: the HTML cell's class for the row (a static name, "warning"; NULL: none),
	 * in place of the kind's ("k" for a name, "n" for a number) */
	const char *(*html_class)(const void *row);
	/* Optional: writes the HTML cell's content after its <td> (already escaped; two figures
	 * in one cell, a mark after the text; html_div is not applied); the cell's class is
	 * still the kind's or html_class's */
	void (*html_cell)(FILE *f, const void *row);
	/* Optional: the text cell's content (into buf of n bytes), aligned to text_w as a text
	 * column is (the first column left, the others right unless GL_COL_LEFT) */
	const char *(*text_cell)(const void *row, char *buf, size_t n);
	/* Optional: text: what is written before the cell and its header in place of the
	 * spaces between columns (NULL: those spaces; "": nothing), the first column
	 * included: "  slope " puts a label between two figures of a line */
	const char *text_before;
	/* Optional, a record's CSV (gl_record_csv): writes the column's rows itself under key
	 * (key,name,value: a count per component), each ended by the line end; pad is the
	 * record's empty cells after a value, for rows of its shape (rows that fill the
	 * CSV's other columns, or of a three-column CSV, where it is 0, need none) */
	void (*csv_rows)(FILE *fp, const char *key, const void *row, unsigned pad);
	/* Optional: text: the column's unit, on a second header line under text_head ("%",
	 * "MiB"); the line is written when a shown column has one ("" for the others) */
	const char *text_unit;
};

struct gl_table {
	const struct gl_col *cols;
	size_t n_cols;
	size_t row_size;		/* sizeof the row struct */
	/* Optional: the class of the row's HTML <tr> (a static name; NULL: none) */
	const char *(*row_class)(const void *row);
	unsigned text_gap;		/* text: spaces after the first column (0: none) */
	bool text_no_head;		/* text: no header line (rows written as sentences) */
	/* Optional, gl_record_html: what opens the table (NULL: "<table>") */
	const char *record_html_open;
	const char *html_class;		/* Optional: the HTML <table>'s class (NULL: none) */
	/* Optional: HTML: a heading row, <tr><th colspan="(the columns shown)" class="grp">
	 * and what html_group writes (escaped), before the first row and before each row
	 * that same_group(previous row, row) says is of another group (rows of one GPU) */
	void (*html_group)(FILE *f, const void *row);
	bool (*same_group)(const void *prev, const void *row);
	/* text: lines that name their figures, no header line: each column after the first is
	 * its text_head, a space and its value (the value alone without a head), two spaces
	 * apart: "name p50 0.2  p95 0.6" */
	bool text_labelled;
};

/* rows[0..n) as a JSON array of objects; a new reference, NULL when out of memory. */
json_t *gl_table_json(const struct gl_table *t, const void *rows, size_t n);

/* The CSV header line and rows[0..n). */
void gl_table_csv(const struct gl_table *t, const void *rows, size_t n, FILE *fp);

/*
 * The text table's header line and rows[0..n): the first column left-aligned
 * and cut to its width, the others right-aligned, numbers as gl_text_num.
 */
void gl_table_text(const struct gl_table *t, const void *rows, size_t n, FILE *fp);

/*
 * The HTML table of rows[0..n): text cells escaped (class "k" for a name),
 * numbers right-aligned (class "n", gl_html_num GL_HTML_G4), times as
 * gl_html_when.
 */
void gl_table_html(const struct gl_table *t, const void *rows, size_t n, FILE *fp);

/*
 * A record: one row of a table shown as key/value pairs, drawn from the same column list
 * (the summary of a section). JSON: an object, gl_table_json's item. CSV: key,name,value
 * rows. Text: a line per column with a text position, its text_head left-aligned in
 * text_w, then its value (text_cell's, else the kind's, not padded). HTML: a table of a
 * row per column with an HTML position, <th>html_head</th> and the cell as
 * gl_table_html writes it.
 */

/* The row as a JSON object; a new reference, NULL when out of memory. */
json_t *gl_record_json(const struct gl_table *t, const void *row);

/*
 * A key,name,value row per CSV column (no header): the key is the column's name after
 * prefix (NULL: none), the name empty, the value as gl_table_csv writes it; a column with
 * csv_rows writes its rows itself; an absent column has none. pad empty cells end each
 * row (a CSV of more columns than three).
 */
void gl_record_csv(const struct gl_table *t, const void *row, const char *prefix,
		   unsigned pad, FILE *fp);

/* As gl_record_csv, each row's key key and its name the column's name (one key's
 * named figures: quantiles). */
void gl_record_csv_named(const struct gl_table *t, const void *row, const char *key,
			 unsigned pad, FILE *fp);

/* The text lines of the row: head left-aligned in text_w, then the value; none for a
 * column whose text_cell gives NULL (a line said only when it applies). */
void gl_record_text(const struct gl_table *t, const void *row, FILE *fp);

/* The HTML table of the row: <tr><th>head</th><td>value</td></tr> per column. */
void gl_record_html(const struct gl_table *t, const void *row, FILE *fp);

/*
 * rows[0..n) as gl_table_csv writes them, without the header line, each row opened by a
 * key cell (a list among a record's key,name,value rows).
 */
void gl_table_csv_under(const struct gl_table *t, const void *rows, size_t n, const char *key,
			FILE *fp);

/*
 * The record as a one-row HTML table across the page: a header row of the columns with an
 * HTML position (<th>html_head</th>), then a row of their cells as gl_table_html writes
 * them, closed on its line (</tr></table>).
 */
void gl_record_html_across(const struct gl_table *t, const void *row, FILE *fp);

#endif
