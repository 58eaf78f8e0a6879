/*
 * emit_util.c - the cell writers of emit_util.h, shared by the sections'
 * emitters (reports/sec_*.c) and the document emitters (emit_*.c).
 */
#include "emit_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/utf8.h"

/* ---- JSON ---- */

void gl_jb_set(struct gl_jb *jb, json_t *obj, const char *key, json_t *v)
{
	if (!obj || !v || json_object_set_new(obj, key, v) != 0)
		jb->failed = 1;
}

void gl_jb_append(struct gl_jb *jb, json_t *arr, json_t *v)
{
	if (!arr || !v || json_array_append_new(arr, v) != 0)
		jb->failed = 1;
}

json_t *gl_jb_done(struct gl_jb *jb, json_t *o)
{
	if (jb->failed || !o) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *gl_json_num(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

json_t *gl_json_u64(uint64_t v)
{
	return json_integer((json_int_t)(v > (uint64_t)INT64_MAX ? INT64_MAX : v));
}

json_t *gl_json_ts(int64_t us)
{
	char buf[40];

	return us == GL_TS_NONE ? json_null() : json_string(gl_time_format(us, buf));
}

/* Log content and file names are bytes: invalid UTF-8 becomes U+FFFD (util/utf8.h). */
json_t *gl_json_str(const char *s)
{
	char *owned;
	const char *c;
	json_t *v;

	if (!s)
		return json_null();
	if (!(c = gl_utf8_clean(s, &owned)))
		return NULL;
	v = json_string(c);
	free(owned);
	return v;
}

json_t *gl_json_counts(struct gl_jb *jb, const struct gl_report_count *c, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < n; i++) {
		char *owned;
		const char *key = gl_utf8_clean(c[i].name ? c[i].name : "", &owned);

		if (!key)
			jb->failed = 1;
		else
			gl_jb_set(jb, o, key, gl_json_u64(c[i].count));
		free(owned);
	}
	return o;
}

json_t *gl_json_levels(struct gl_jb *jb, const uint64_t *by_level, int from)
{
	json_t *o = json_object();

	for (int l = from; o && l <= GL_LEVEL_CRITICAL; l++)
		gl_jb_set(jb, o, l ? gl_level_name((enum gl_level)l) : "NONE", gl_json_u64(by_level[l]));
	return o;
}

/*
 * A character of log text that would act on a terminal or a viewer instead
 * of being shown: a C0 control other than tab, CR and LF, DEL (ESC starts
 * a terminal's escape sequence, BS erases), or a bidirectional override or
 * isolate (U+202A..U+202E, U+2066..U+2069: "U+202E" turns the rest of a
 * line around, a kernel name can hide what follows it). Its length in
 * bytes at p, else 0; such characters are written as '?' (issue 28).
 */
static size_t unsafe_len(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	if ((u[0] < 0x20 && u[0] != '\t' && u[0] != '\r' && u[0] != '\n' && u[0]) || u[0] == 0x7f)
		return 1;
	if (u[0] == 0xE2 && ((u[1] == 0x80 && u[2] >= 0xAA && u[2] <= 0xAE) ||
			     (u[1] == 0x81 && u[2] >= 0xA6 && u[2] <= 0xA9)))
		return 3;
	return 0;
}

/* ---- CSV ---- */

void gl_csv_text(FILE *fp, const char *s)
{
	bool defuse, quote;

	if (!s)
		s = "";
	defuse = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
	quote = defuse || strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', fp);
	if (defuse)
		fputc('\'', fp);
	for (const char *p = s; *p;) {
		size_t n = gl_utf8_seq(p);

		if (!n) {
			fputs(GL_UTF8_REPLACEMENT, fp);
			p++;
			continue;
		}
		if (unsafe_len(p)) {
			fputc('?', fp);
			p += unsafe_len(p);
			continue;
		}
		if (*p == '"')
			fputc('"', fp);
		fwrite(p, 1, n, fp);
		p += n;
	}
	if (quote)
		fputc('"', fp);
}

void gl_csv_num(FILE *fp, double d)
{
	if (isfinite(d))
		fprintf(fp, "%.15g", d);
}

void gl_csv_u64(FILE *fp, uint64_t v)
{
	fprintf(fp, "%llu", (unsigned long long)v);
}

void gl_csv_ts(FILE *fp, int64_t us)
{
	char buf[40];

	if (us != GL_TS_NONE)
		fputs(gl_time_format(us, buf), fp);
}

void gl_csv_sep(FILE *fp)
{
	fputc(',', fp);
}

void gl_csv_eol(FILE *fp)
{
	fputs("\r\n", fp);
}

static void kv_head(FILE *fp, const char *key, const char *name)
{
	gl_csv_text(fp, key);
	gl_csv_sep(fp);
	gl_csv_text(fp, name);
	gl_csv_sep(fp);
}

void gl_csv_kv_u64(FILE *fp, const char *key, const char *name, uint64_t v)
{
	kv_head(fp, key, name);
	gl_csv_u64(fp, v);
	gl_csv_eol(fp);
}

void gl_csv_kv_num(FILE *fp, const char *key, const char *name, double v)
{
	kv_head(fp, key, name);
	gl_csv_num(fp, v);
	gl_csv_eol(fp);
}

void gl_csv_kv_text(FILE *fp, const char *key, const char *name, const char *v)
{
	kv_head(fp, key, name);
	gl_csv_text(fp, v);
	gl_csv_eol(fp);
}

void gl_csv_kv_ts(FILE *fp, const char *key, int64_t us)
{
	char buf[40];

	gl_csv_kv_text(fp, key, "", us == GL_TS_NONE ? "" : gl_time_format(us, buf));
}

/* ---- text ---- */

/* Bytes of s that fit in w code points; *cols gets the code points used. */
static size_t fit_utf8(const char *s, size_t w, size_t *cols)
{
	size_t i = 0, c = 0;

	while (s[i] && c < w) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		c++;
	}
	*cols = c;
	return i;
}

static size_t cols_of(const char *s)
{
	size_t c = 0;

	for (; *s; s++)
		c += ((unsigned char)*s & 0xC0) != 0x80;
	return c;
}

/* Writes s left-aligned in exactly w columns; control characters and
 * bidirectional overrides become '?'. */
void gl_text_cell(FILE *fp, const char *str, size_t w)
{
	size_t cols, n;
	char *owned;
	const char *s = gl_utf8_clean(str ? str : "", &owned);

	if (!s)
		s = "?";
	if (cols_of(s) > w) {
		n = fit_utf8(s, w - 1, &cols);
		cols++;
	} else {
		n = fit_utf8(s, w, &cols);
	}
	for (size_t i = 0; i < n; i++) {
		size_t u = unsafe_len(s + i);

		fputc(u || (unsigned char)s[i] < 0x20 ? '?' : s[i], fp);
		i += u ? u - 1 : 0;
	}
	if (n < strlen(s))
		fputc('~', fp);
	for (; cols < w; cols++)
		fputc(' ', fp);
	free(owned);
}

/* The last cell of a line: cut like put_cell, never padded. */
void gl_text_last(FILE *fp, const char *str, size_t w)
{
	char *owned;
	const char *s = gl_utf8_clean(str ? str : "", &owned);
	size_t n = cols_of(s ? s : "?");

	free(owned);
	s = str;

	gl_text_cell(fp, s, n < w ? n : w);
}

/* A number in at most 9 columns: 123.4, 12.3k, 1.23M, or "-". */
const char *gl_text_num(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1e9)
		snprintf(buf, n, "%.3gG", v / 1e9);
	else if (fabs(v) >= 1e6)
		snprintf(buf, n, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else if (v == floor(v))
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.1f", v);
	return buf;
}

const char *gl_text_duration(double s, char *buf, size_t n)
{
	static const struct {
		double per, from;	/* seconds per unit; used from this many seconds */
		const char *unit;
	} u[] = {
		{86400, 2 * 86400, "days"}, {3600, 2 * 3600, "h"}, {60, 2 * 60, "min"},
		{1, 1, "s"}, {1e-3, 1e-3, "ms"}, {1e-6, 0, "\xC2\xB5s"},
	};
	size_t k = 0;
	double v;

	if (!isfinite(s)) {
		snprintf(buf, n, "-");
		return buf;
	}
	while (k + 1 < sizeof(u) / sizeof(u[0]) && fabs(s) < u[k].from)
		k++;
	v = s / u[k].per;
	if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f %s", v, u[k].unit);
	else if (fabs(v) < 0.001)
		snprintf(buf, n, "0 %s", s == 0 ? "s" : u[k].unit);
	else
		snprintf(buf, n, "%.3g %s", v, u[k].unit);
	return buf;
}

const char *gl_text_pct(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f", v);
	return buf;
}

const char *gl_text_p(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2g", v);
	return buf;
}

const char *gl_text_bytes(double v, char *buf, size_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = 0;

	if (!isfinite(v))
		return snprintf(buf, n, "-"), buf;
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *gl_text_ts(int64_t us, char *buf)
{
	if (us == GL_TS_NONE)
		return strcpy(buf, "-");
	gl_time_format(us - us % GL_US_PER_S, buf);
	return buf;
}

void gl_text_heading(FILE *fp, const char *title)
{
	size_t n = strlen(title);

	fprintf(fp, "\n%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('-', fp);
	fputc('\n', fp);
}

/* ---- HTML ---- */

size_t gl_html_escape(const char *s, char *buf, size_t n)
{
	size_t w = 0;

	if (n == 0)
		return 0;
	for (; s && *s; s++) {
		char one[8];
		const char *rep = one;
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
				rep = "\xEF\xBF\xBD";	/* U+FFFD: controls are not text */
			else {
				one[0] = (char)c;
				one[1] = '\0';
			}
		}
		size_t l = strlen(rep);

		if (w + l >= n)
			break;
		memcpy(buf + w, rep, l);
		w += l;
	}
	buf[w] = '\0';
	return w;
}

void gl_html_text(FILE *f, const char *str)
{
	char buf[512], *owned;
	const char *s = gl_utf8_clean(str, &owned);

	/* Escape in pieces; a piece never ends inside an entity. */
	while (s && *s) {
		size_t take = 0;
		char piece[96];

		while (s[take] && take < sizeof(piece) - 1)
			take++;
		memcpy(piece, s, take);
		piece[take] = '\0';
		gl_html_escape(piece, buf, sizeof(buf));
		fputs(buf, f);
		s += take;
	}
	free(owned);
}

/* A number, or a dash for "no value" (NAN, infinities). */
void gl_html_num(FILE *f, double v, enum gl_html_num k)
{
	if (!isfinite(v)) {
		fputs("&ndash;", f);
		return;
	}
	/* %g would write 1510 as 1.51e+03: large values keep all their digits */
	switch (k) {
	case GL_HTML_G3: fprintf(f, fabs(v) >= 1e3 ? "%.0f" : "%.3g", v); break;
	case GL_HTML_G4: fprintf(f, fabs(v) >= 1e4 ? "%.0f" : "%.4g", v); break;
	case GL_HTML_SIGNED_G4: fprintf(f, fabs(v) >= 1e4 ? "%+.0f" : "%+.4g", v); break;
	case GL_HTML_F1: fprintf(f, "%.1f", v); break;
	case GL_HTML_F3: fprintf(f, "%.3f", v); break;
	default: fprintf(f, "%+.1f", v); break;
	}
}

void gl_html_when(FILE *f, int64_t ts_us)
{
	char b[40];

	if (ts_us == GL_TS_NONE) {
		fputs("&ndash;", f);
		return;
	}
	gl_time_format(ts_us, b);
	fputs(b, f);
}

void gl_html_counts(FILE *f, const char *what, const struct gl_report_count *c, size_t n)
{
	fprintf(f, "<table><tr><th>%s</th><th>events</th></tr>\n", what);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td class=\"k\">", f);
		gl_html_text(f, c[i].name && *c[i].name ? c[i].name : "(none)");
		fprintf(f, "</td><td class=\"n\">%llu</td></tr>\n", (unsigned long long)c[i].count);
	}
	fputs("</table>\n", f);
}
