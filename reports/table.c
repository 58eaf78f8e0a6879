/*
 * table.c - the four renderings of a section's rows from their one
 * description (table.h), through the cell writers of emit_util.h.
 */
#include "table.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "emit_util.h"

static const void *cell(const struct gl_col *c, const void *rows, size_t size, size_t i)
{
	return (const char *)rows + i * size + c->offset;
}

static const char *text_of(const void *v)
{
	return *(const char *const *)v;
}

static uint64_t u64_of(const void *v)
{
	uint64_t x;

	memcpy(&x, v, sizeof(x));
	return x;
}

static double num_of(const void *v)
{
	double x;

	memcpy(&x, v, sizeof(x));
	return x;
}

/* A GL_COL_HEX value as 0x1f into buf. */
static const char *hex_of(const void *v, char *buf, size_t n)
{
	snprintf(buf, n, "0x%llx", (unsigned long long)u64_of(v));
	return buf;
}

static const char *enum_of(const struct gl_col *c, const void *v)
{
	int x;

	memcpy(&x, v, sizeof(x));
	return c->name_of(x);
}

/* A JSON object's text as an object; {} when it is none. */
static json_t *object_of(const char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;

	if (json_is_object(o))
		return o;
	json_decref(o);
	return json_object();
}

static long long_of(const void *v)
{
	long x;

	memcpy(&x, v, sizeof(x));
	return x;
}

static int int_of(const void *v)
{
	int x;

	memcpy(&x, v, sizeof(x));
	return x;
}

static int64_t ts_of(const void *v)
{
	int64_t x;

	memcpy(&x, v, sizeof(x));
	return x;
}

json_t *gl_table_json(const struct gl_table *t, const void *rows, size_t n)
{
	struct gl_jb jb = {0};
	char hx[24];
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *o = json_object();

		for (size_t k = 0; k < t->n_cols; k++) {
			const struct gl_col *c = &t->cols[k];
			const void *row = (const char *)rows + i * t->row_size;
			const void *v = cell(c, rows, t->row_size, i);

			if ((c->flags & GL_COL_NO_JSON) || (c->absent && c->absent(row)))
				continue;
			json_t *j = c->json_of ? c->json_of(row)
				    : c->kind == GL_COL_TEXT ? gl_json_str(text_of(v))
				    : c->kind == GL_COL_JSON ? object_of(text_of(v))
				    : c->kind == GL_COL_ENUM ? gl_json_str(enum_of(c, v))
				    : c->kind == GL_COL_U64 ? gl_json_u64(u64_of(v))
				    : c->kind == GL_COL_HEX ? json_string(hex_of(v, hx, sizeof(hx)))
				    : c->kind == GL_COL_NUM ? gl_json_num(num_of(v))
				    : c->kind == GL_COL_INT ? json_integer(int_of(v))
				    : c->kind == GL_COL_FLAG ? json_boolean(int_of(v))
				    : c->kind == GL_COL_INDEX ? (long_of(v) >= 0 ? json_integer(long_of(v))
										 : json_null())
							    : gl_json_ts(ts_of(v));

			gl_jb_set(&jb, o, c->name, j);
		}
		gl_jb_append(&jb, a, o);
	}
	return gl_jb_done(&jb, a);
}

/* The column of CSV position pos (1, 2, ...) when the columns give positions, else the
 * pos-th of the list; NULL past the last. */
static const struct gl_col *csv_at(const struct gl_table *t, unsigned pos)
{
	bool given = false;

	for (size_t k = 0; k < t->n_cols; k++) {
		if (t->cols[k].csv_pos == pos)
			return &t->cols[k];
		given |= t->cols[k].csv_pos != 0;
	}
	return !given && pos <= t->n_cols ? &t->cols[pos - 1] : NULL;
}

/* Column c's CSV value in row (gl_table_csv, a record's rows). */
static void csv_value(FILE *fp, const struct gl_col *c, const void *row)
{
	const void *v = (const char *)row + c->offset;
	char hx[24];

	switch (c->kind) {
	case GL_COL_TEXT:
	case GL_COL_JSON: gl_csv_text(fp, text_of(v)); break;
	case GL_COL_U64: gl_csv_u64(fp, u64_of(v)); break;
	case GL_COL_HEX: fputs(hex_of(v, hx, sizeof(hx)), fp); break;
	case GL_COL_NUM: gl_csv_num(fp, num_of(v)); break;
	case GL_COL_TS: gl_csv_ts(fp, ts_of(v)); break;
	case GL_COL_ENUM: gl_csv_text(fp, enum_of(c, v)); break;
	case GL_COL_INDEX:
		if (long_of(v) >= 0)
			fprintf(fp, "%ld", long_of(v));
		break;
	case GL_COL_INT: fprintf(fp, "%d", int_of(v)); break;
	case GL_COL_FLAG: fprintf(fp, "%d", int_of(v) != 0); break;
	}
}

void gl_table_csv(const struct gl_table *t, const void *rows, size_t n, FILE *fp)
{
	const struct gl_col *c;

	for (unsigned p = 1; (c = csv_at(t, p)) != NULL; p++)
		fprintf(fp, "%s%s", p > 1 ? "," : "", c->name);
	gl_csv_eol(fp);
	for (size_t i = 0; i < n; i++) {
		for (unsigned p = 1; (c = csv_at(t, p)) != NULL; p++) {
			const void *row = (const char *)rows + i * t->row_size;

			if (p > 1)
				gl_csv_sep(fp);
			if ((c->flags & GL_COL_ABSENT_CSV) && c->absent && c->absent(row))
				continue;
			csv_value(fp, c, row);
		}
		gl_csv_eol(fp);
	}
}

/* The column shown at position pos (1, 2, ...) of the text (html false) or HTML table. */
static const struct gl_col *at(const struct gl_table *t, unsigned pos, bool html)
{
	for (size_t k = 0; k < t->n_cols; k++)
		if ((html ? t->cols[k].html_pos : t->cols[k].text_pos) == pos)
			return &t->cols[k];
	return NULL;
}

/* The spaces before text column p (2, 3, ...): one between columns, text_gap after the first. */
static const char *gap(const struct gl_table *t, unsigned p)
{
	static const char spaces[] = "        ";

	if (p > 2)
		return t->text_labelled ? "  " : " ";
	return spaces + sizeof(spaces) - 1 - (t->text_gap < sizeof(spaces) - 1 ? t->text_gap
										: sizeof(spaces) - 1);
}

/* Whether text column c at position p is cut and padded to its width (gl_text_cell). */
static bool text_cut(const struct gl_col *c, unsigned p)
{
	return (p == 1 && !(c->flags & GL_COL_UNCUT)) || (c->flags & GL_COL_CUT);
}

/* The second header line, of the columns' units, when a shown column has one. */
static void text_units(const struct gl_table *t, FILE *fp)
{
	const struct gl_col *c;
	bool any = false;

	for (unsigned p = 1; (c = at(t, p, false)) != NULL; p++)
		any |= c->text_unit != NULL;
	if (!any)
		return;
	for (unsigned p = 1; (c = at(t, p, false)) != NULL; p++) {
		const char *u = c->text_unit ? c->text_unit : "";

		if (p == 1)
			gl_text_cell(fp, u, (size_t)c->text_w);
		else
			fprintf(fp, c->flags & GL_COL_LEFT ? "%s%-*s" : "%s%*s", gap(t, p), c->text_w,
				u);
	}
	fputc('\n', fp);
}

void gl_table_text(const struct gl_table *t, const void *rows, size_t n, FILE *fp)
{
	const struct gl_col *c;
	char buf[512];

	for (unsigned p = 1; !t->text_no_head && !t->text_labelled && (c = at(t, p, false)) != NULL;
	     p++) {
		fputs(c->text_before ? c->text_before : p > 1 ? gap(t, p) : "", fp);
		if (c->flags & GL_COL_LAST)
			fputs(c->text_head, fp);
		else if (text_cut(c, p))
			gl_text_cell(fp, c->text_head, (size_t)c->text_w);
		else
			fprintf(fp, c->flags & GL_COL_LEFT ? "%-*s" : "%*s", c->text_w, c->text_head);
	}
	if (!t->text_no_head && !t->text_labelled) {
		fputc('\n', fp);
		text_units(t, fp);
	}
	for (size_t i = 0; i < n; i++) {
		size_t used = 0;	/* columns written on the line (bytes where not cut) */

		for (unsigned p = 1; (c = at(t, p, false)) != NULL; p++) {
			const void *v = cell(c, rows, t->row_size, i);
			const void *row = (const char *)rows + i * t->row_size;
			const char *before = c->text_before ? c->text_before : p > 1 ? gap(t, p) : "";
			const char *s = c->text_cell ? c->text_cell(row, buf, sizeof(buf))
					: c->kind == GL_COL_TEXT ? text_of(v) : NULL;
			int r = 0;

			fputs(before, fp);
			used += strlen(before);
			if (c->flags & GL_COL_LAST) {
				gl_text_last(fp, s, c->text_w > 0 ? (size_t)c->text_w
						    : used < GL_TEXT_WIDTH ? GL_TEXT_WIDTH - used : 0);
				continue;
			}
			if (text_cut(c, p)) {
				gl_text_cell(fp, s, (size_t)c->text_w);
				used += (size_t)c->text_w;
				continue;
			}
			if (t->text_labelled && c->text_head && *c->text_head) {
				r = fprintf(fp, "%s ", c->text_head);
				used += r > 0 ? (size_t)r : 0;
			}
			if (c->text_cell) {
				r = fprintf(fp, c->flags & GL_COL_LEFT ? "%-*s" : "%*s", c->text_w, s);
				used += r > 0 ? (size_t)r : 0;
				continue;
			}
			switch (c->kind) {
			case GL_COL_TEXT:
			case GL_COL_JSON:
				r = fprintf(fp, "%*s", c->text_w, text_of(v) ? text_of(v) : "-");
				break;
			case GL_COL_U64:
				r = fprintf(fp, "%*llu", c->text_w, (unsigned long long)u64_of(v));
				break;
			case GL_COL_HEX:
				r = fprintf(fp, "%*s", c->text_w, hex_of(v, buf, sizeof(buf)));
				break;
			case GL_COL_NUM:
				r = fprintf(fp, "%*s", c->text_w,
					    !isfinite(num_of(v)) && (c->flags & GL_COL_BLANK)
						    ? "" : gl_text_num(num_of(v), buf, sizeof(buf)));
				break;
			case GL_COL_TS:
				r = fprintf(fp, "%*s", c->text_w, gl_text_ts(ts_of(v), buf));
				break;
			case GL_COL_ENUM:
				r = fprintf(fp, "%*s", c->text_w, enum_of(c, v));
				break;
			case GL_COL_INDEX:
				if (long_of(v) >= 0)
					r = fprintf(fp, "%*ld", c->text_w, long_of(v));
				else
					r = fprintf(fp, "%*s", c->text_w,
						    c->flags & GL_COL_BLANK ? "" : "-");
				break;
			case GL_COL_INT:
			case GL_COL_FLAG:
				r = fprintf(fp, "%*d", c->text_w,
					    c->kind == GL_COL_FLAG ? int_of(v) != 0 : int_of(v));
				break;
			}
			used += r > 0 ? (size_t)r : 0;
		}
		fputc('\n', fp);
	}
}

/* The class of a cell of column c by its kind: "k" for a name, "n" for a number; NULL: none. */
static const char *html_class_of(const struct gl_col *c)
{
	switch (c->kind) {
	case GL_COL_TEXT:
	case GL_COL_JSON:
		return c->flags & GL_COL_NAME ? "k" : NULL;
	case GL_COL_TS:
	case GL_COL_ENUM:
		return NULL;
	default:
		return "n";
	}
}

/* The content of row i's cell of column c, by its kind. */
static void html_value(FILE *fp, const struct gl_col *c, const void *rows, size_t size, size_t i)
{
	const void *v = cell(c, rows, size, i);

	switch (c->kind) {
	case GL_COL_TEXT:
	case GL_COL_JSON:
		gl_html_text(fp, text_of(v) ? text_of(v) : "");
		break;
	case GL_COL_U64:
		fprintf(fp, "%llu", (unsigned long long)u64_of(v));
		break;
	case GL_COL_HEX: {
		char hx[24];

		fputs(hex_of(v, hx, sizeof(hx)), fp);
		break;
	}
	case GL_COL_NUM:
		if (!isfinite(num_of(v)) && (c->flags & GL_COL_BLANK))
			break;
		gl_html_num(fp, c->html_div ? num_of(v) / c->html_div : num_of(v), GL_HTML_G4);
		break;
	case GL_COL_TS:
		gl_html_when(fp, ts_of(v));
		break;
	case GL_COL_ENUM:
		gl_html_text(fp, enum_of(c, v));
		break;
	case GL_COL_INDEX:
		if (long_of(v) >= 0)
			fprintf(fp, "%ld", long_of(v));
		else if (!(c->flags & GL_COL_BLANK))
			gl_html_num(fp, NAN, GL_HTML_G4);
		break;
	case GL_COL_INT:
	case GL_COL_FLAG:
		fprintf(fp, "%d", c->kind == GL_COL_FLAG ? int_of(v) != 0 : int_of(v));
		break;
	}
}

/* The group heading before row (prev: the row before it, NULL for the first), when it
 * starts a group. */
static void html_group_head(const struct gl_table *t, const void *prev, const void *row, FILE *fp)
{
	unsigned cols = 0;

	if (!t->html_group || (prev && (!t->same_group || t->same_group(prev, row))))
		return;
	while (at(t, cols + 1, true))
		cols++;
	fprintf(fp, "<tr><th colspan=\"%u\" class=\"grp\">", cols);
	t->html_group(fp, row);
	fputs("</th></tr>\n", fp);
}

/* Column c's HTML cell of row: <td> with its class (the column's html_class,
 * else its kind's) and its title (GL_COL_TITLE), its content, </td>. */
static void html_td(FILE *fp, const struct gl_col *c, const void *row)
{
	const char *cls = c->html_class ? c->html_class(row) : html_class_of(c);

	fputs("<td", fp);
	if (cls)
		fprintf(fp, " class=\"%s\"", cls);
	if (c->flags & GL_COL_TITLE) {
		const char *title = text_of((const char *)row + c->title_offset);

		fputs(" title=\"", fp);
		gl_html_text(fp, title ? title : "");
		fputc('"', fp);
	}
	fputc('>', fp);
	if (c->html_cell)
		c->html_cell(fp, row);
	else
		html_value(fp, c, row, 0, 0);
	fputs("</td>", fp);
}

void gl_table_html(const struct gl_table *t, const void *rows, size_t n, FILE *fp)
{
	const struct gl_col *c;

	if (t->html_class)
		fprintf(fp, "<table class=\"%s\"><tr>", t->html_class);
	else
		fputs("<table><tr>", fp);
	for (unsigned p = 1; (c = at(t, p, true)) != NULL; p++)
		fprintf(fp, "<th>%s</th>", c->html_head);
	fputs("</tr>\n", fp);
	for (size_t i = 0; i < n; i++) {
		const void *row = (const char *)rows + i * t->row_size;
		const char *rc = t->row_class ? t->row_class(row) : NULL;

		html_group_head(t, i ? (const char *)row - t->row_size : NULL, row, fp);

		if (rc)
			fprintf(fp, "<tr class=\"%s\">", rc);
		else
			fputs("<tr>", fp);
		for (unsigned p = 1; (c = at(t, p, true)) != NULL; p++) {
			html_td(fp, c, row);
		}
		fputs("</tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

/* ---- a record: one row as key/value pairs ---- */

json_t *gl_record_json(const struct gl_table *t, const void *row)
{
	json_t *a = gl_table_json(t, row, 1), *o = json_incref(json_array_get(a, 0));

	json_decref(a);
	return o;
}

/* The key,name,value rows of the row: keys prefix + name (named: key, names the columns'). */
static void record_csv(const struct gl_table *t, const void *row, const char *key, bool named,
		       unsigned pad, FILE *fp)
{
	const struct gl_col *c;
	char full[256];

	for (unsigned p = 1; (c = csv_at(t, p)) != NULL; p++) {
		if (c->absent && c->absent(row))
			continue;
		if (!named)
			snprintf(full, sizeof(full), "%s%s", key ? key : "", c->name);
		if (c->csv_rows) {
			c->csv_rows(fp, named ? key : full, row, pad);
			continue;
		}
		gl_csv_text(fp, named ? key : full);
		gl_csv_sep(fp);
		gl_csv_text(fp, named ? c->name : "");
		gl_csv_sep(fp);
		csv_value(fp, c, row);
		for (unsigned i = 0; i < pad; i++)
			gl_csv_sep(fp);
		gl_csv_eol(fp);
	}
}

void gl_record_csv(const struct gl_table *t, const void *row, const char *prefix,
		   unsigned pad, FILE *fp)
{
	record_csv(t, row, prefix, false, pad, fp);
}

void gl_record_csv_named(const struct gl_table *t, const void *row, const char *key,
			 unsigned pad, FILE *fp)
{
	record_csv(t, row, key, true, pad, fp);
}

/* Column c's text value in row (not padded) into buf of n bytes (at least 40). */
static const char *text_value(const struct gl_col *c, const void *row, char *buf, size_t n)
{
	const void *v = (const char *)row + c->offset;

	if (c->text_cell)
		return c->text_cell(row, buf, n);
	switch (c->kind) {
	case GL_COL_TEXT:
	case GL_COL_JSON:
		return text_of(v) ? text_of(v) : "-";
	case GL_COL_U64:
		snprintf(buf, n, "%llu", (unsigned long long)u64_of(v));
		return buf;
	case GL_COL_HEX:
		return hex_of(v, buf, n);
	case GL_COL_NUM:
		return !isfinite(num_of(v)) && (c->flags & GL_COL_BLANK)
			       ? "" : gl_text_num(num_of(v), buf, n);
	case GL_COL_TS:
		return gl_text_ts(ts_of(v), buf);
	case GL_COL_ENUM:
		return enum_of(c, v);
	case GL_COL_INDEX:
		if (long_of(v) < 0)
			return c->flags & GL_COL_BLANK ? "" : "-";
		snprintf(buf, n, "%ld", long_of(v));
		return buf;
	case GL_COL_INT:
	case GL_COL_FLAG:
		snprintf(buf, n, "%d", c->kind == GL_COL_FLAG ? int_of(v) != 0 : int_of(v));
		return buf;
	}
	return "";
}

void gl_record_text(const struct gl_table *t, const void *row, FILE *fp)
{
	const struct gl_col *c;
	char buf[512];

	for (unsigned p = 1; (c = at(t, p, false)) != NULL; p++) {
		const char *v = text_value(c, row, buf, sizeof(buf));

		if (v)
			fprintf(fp, "%-*s%s\n", c->text_w, c->text_head, v);
	}
}

void gl_record_html(const struct gl_table *t, const void *row, FILE *fp)
{
	const struct gl_col *c;

	fputs(t->record_html_open ? t->record_html_open : "<table>", fp);
	for (unsigned p = 1; (c = at(t, p, true)) != NULL; p++) {
		fprintf(fp, "<tr><th>%s</th>", c->html_head);
		html_td(fp, c, row);
		fputs("</tr>\n", fp);
	}
	fputs("</table>\n", fp);
}

void gl_table_csv_under(const struct gl_table *t, const void *rows, size_t n, const char *key,
			FILE *fp)
{
	const struct gl_col *c;

	for (size_t i = 0; i < n; i++) {
		const void *row = (const char *)rows + i * t->row_size;

		gl_csv_text(fp, key);
		for (unsigned p = 1; (c = csv_at(t, p)) != NULL; p++) {
			gl_csv_sep(fp);
			if (!((c->flags & GL_COL_ABSENT_CSV) && c->absent && c->absent(row)))
				csv_value(fp, c, row);
		}
		gl_csv_eol(fp);
	}
}

void gl_record_html_across(const struct gl_table *t, const void *row, FILE *fp)
{
	const struct gl_col *c;

	fputs("<table><tr>", fp);
	for (unsigned p = 1; (c = at(t, p, true)) != NULL; p++)
		fprintf(fp, "<th>%s</th>", c->html_head);
	fputs("</tr>\n<tr>", fp);
	for (unsigned p = 1; (c = at(t, p, true)) != NULL; p++) {
		html_td(fp, c, row);
	}
	fputs("</tr></table>\n", fp);
}
