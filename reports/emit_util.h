/*
 * emit_util.h - the cell writers every section's emitters share, one group
 * per format: JSON values (jansson), CSV cells (RFC 4180, formula cells
 * defused), text columns (UTF-8 aware, at most 100 columns) and HTML
 * (escaped text, numbers, times). Undefined numbers (NAN, infinities) are
 * null in JSON, an empty cell in CSV, "-" in text and a dash in HTML.
 */
#ifndef GL_EMIT_UTIL_H
#define GL_EMIT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "report.h"

/* ---- JSON: builders return a new reference or NULL (out of memory) ---- */

/* Counts failures of set/append (a NULL value or a failed insert). */
struct gl_jb {
	int failed;
};

void gl_jb_set(struct gl_jb *jb, json_t *obj, const char *key, json_t *v);
void gl_jb_append(struct gl_jb *jb, json_t *arr, json_t *v);
/* Returns o, or NULL (and drops o) when jb saw a failure. */
json_t *gl_jb_done(struct gl_jb *jb, json_t *o);
json_t *gl_json_num(double d);		/* null unless finite */
json_t *gl_json_u64(uint64_t v);
json_t *gl_json_ts(int64_t us);		/* RFC 3339 or null for GL_TS_NONE */
json_t *gl_json_str(const char *s);	/* null for NULL; invalid UTF-8 bytes become U+FFFD */
json_t *gl_json_counts(struct gl_jb *jb, const struct gl_report_count *c, size_t n);
json_t *gl_json_levels(struct gl_jb *jb, const uint64_t *by_level, int from);

/* ---- CSV ------------------------------------------------------------- */

/* A text cell: quoted when needed; = + - @ TAB CR first get a leading '; invalid UTF-8
 * bytes become U+FFFD (as in every writer below). */
void gl_csv_text(FILE *fp, const char *s);
void gl_csv_num(FILE *fp, double d);
void gl_csv_u64(FILE *fp, uint64_t v);
void gl_csv_ts(FILE *fp, int64_t us);
void gl_csv_sep(FILE *fp);
void gl_csv_eol(FILE *fp);		/* CRLF */
/* key,name,value rows of the object sections */
void gl_csv_kv_u64(FILE *fp, const char *key, const char *name, uint64_t v);
void gl_csv_kv_num(FILE *fp, const char *key, const char *name, double v);
void gl_csv_kv_text(FILE *fp, const char *key, const char *name, const char *v);
void gl_csv_kv_ts(FILE *fp, const char *key, int64_t us);

/* ---- text ------------------------------------------------------------- */

#define GL_TEXT_WIDTH 100

/* s left-aligned in exactly w columns, cut with "~"; control characters become '?'. */
void gl_text_cell(FILE *fp, const char *s, size_t w);
/* The last cell of a line: cut like gl_text_cell, never padded. */
void gl_text_last(FILE *fp, const char *s, size_t w);
void gl_text_heading(FILE *fp, const char *title);
/* Formatters writing into buf (n bytes) and returning it; "-" for no value. */
const char *gl_text_num(double v, char *buf, size_t n);	/* 123.4, 12.3k, 1.23M */
const char *gl_text_pct(double v, char *buf, size_t n);	/* +12.3 */
const char *gl_text_p(double v, char *buf, size_t n);	/* 0.012 */
const char *gl_text_bytes(double v, char *buf, size_t n);	/* 1.5 GiB */
/* A duration in seconds for people, never with an exponent: "36160 days",
 * "5.3 h", "7.5 min", "12 s", "3.5 ms", "42 µs" (2 units of the larger
 * one before it is used: 90 min, 36 h). */
const char *gl_text_duration(double s, char *buf, size_t n);
const char *gl_text_ts(int64_t us, char *buf);			/* buf: 40 bytes */

/* ---- HTML ------------------------------------------------------------- */

enum gl_html_num { GL_HTML_G3, GL_HTML_G4, GL_HTML_SIGNED_G4, GL_HTML_F1, GL_HTML_F3,
		   GL_HTML_PCT };

/* Appends s to buf HTML-escaped (& < > " ' and control characters); returns its length. */
size_t gl_html_escape(const char *s, char *buf, size_t n);
void gl_html_text(FILE *f, const char *s);		/* escaped */
void gl_html_num(FILE *f, double v, enum gl_html_num k);	/* a dash for no value */
void gl_html_when(FILE *f, int64_t ts_us);
void gl_html_counts(FILE *f, const char *what, const struct gl_report_count *c, size_t n);

#endif
