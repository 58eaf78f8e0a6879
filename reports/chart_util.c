/*
 * chart_util.c - the parts of the chart layer that need no PLplot: reducing
 * samples to time columns and histograms, and the decisions every chart
 * makes (log axis or not, time-axis ticks, how to shorten a long name).
 * In: samples and names. Out: small structures and strings for chart_plot.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "kname.h"
#include "util/timeutil.h"

/*
 * Okabe-Ito, reordered: blue, orange, bluish green, vermillion, reddish
 * purple, sky blue, yellow, black. Yellow and black come last: yellow is
 * faint on white, black is the colour of the axes.
 */
const uint8_t gl_chart_palette[GL_CHART_NCOLORS][3] = {
	{0x00, 0x72, 0xB2}, {0xE6, 0x9F, 0x00}, {0x00, 0x9E, 0x73}, {0xD5, 0x5E, 0x00},
	{0xCC, 0x79, 0xA7}, {0x56, 0xB4, 0xE9}, {0xF0, 0xE4, 0x42}, {0x00, 0x00, 0x00},
};

int gl_chart_cols_init(struct gl_chart_cols *c, int64_t t0_us, int64_t t1_us,
		       size_t ncols, struct gl_err *err)
{
	memset(c, 0, sizeof(*c));
	if (ncols == 0)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "chart with no columns");
	if (t1_us <= t0_us)
		t1_us = t0_us + GL_US_PER_S;
	c->col = calloc(ncols, sizeof(*c->col));
	if (!c->col)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	c->t0_us = t0_us;
	c->t1_us = t1_us;
	c->ncols = ncols;
	return GL_OK;
}

long gl_chart_cols_index(const struct gl_chart_cols *c, int64_t ts_us)
{
	if (ts_us < c->t0_us || ts_us > c->t1_us)
		return -1;
	/* In double: (ts - t0) * ncols can overflow int64 for long windows. */
	double f = (double)(ts_us - c->t0_us) / (double)(c->t1_us - c->t0_us);
	size_t i = (size_t)(f * (double)c->ncols);

	return (long)(i >= c->ncols ? c->ncols - 1 : i);
}

double gl_chart_cols_center_s(const struct gl_chart_cols *c, size_t i)
{
	double w_us = (double)(c->t1_us - c->t0_us) / (double)c->ncols;

	return ((double)c->t0_us + w_us * ((double)i + 0.5)) / 1e6;
}

void gl_chart_cols_add(struct gl_chart_cols *c, int64_t ts_us, double y, int anomaly)
{
	gl_chart_cols_add_at(c, gl_chart_cols_index(c, ts_us), y, anomaly);
}

void gl_chart_cols_release(struct gl_chart_cols *c)
{
	free(c->col);
	c->col = NULL;
	c->ncols = 0;
}

int gl_chart_want_log(double lo, double hi)
{
	return lo > 0 && isfinite(lo) && isfinite(hi) && hi / lo > 100.0;
}

int gl_chart_hist_init(struct gl_chart_hist *h, double lo, double hi, size_t nbins,
		       struct gl_err *err)
{
	memset(h, 0, sizeof(*h));
	h->p50 = h->p95 = NAN;
	if (nbins == 0 || !isfinite(lo) || !isfinite(hi) || hi < lo)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "bad histogram range [%g, %g] or bin count %zu", lo, hi, nbins);
	if (lo == hi) {
		double d = lo != 0 ? fabs(lo) * 0.1 : 0.5;

		lo -= d;
		hi += d;
	}
	h->count = calloc(nbins, sizeof(*h->count));
	if (!h->count)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	h->lo = lo;
	h->hi = hi;
	h->nbins = nbins;
	h->log_bins = gl_chart_want_log(lo, hi);
	return GL_OK;
}

double gl_chart_hist_edge(const struct gl_chart_hist *h, size_t i)
{
	double f = (double)i / (double)h->nbins;

	if (h->log_bins)
		return pow(10.0, log10(h->lo) + f * (log10(h->hi) - log10(h->lo)));
	return h->lo + f * (h->hi - h->lo);
}

void gl_chart_hist_add(struct gl_chart_hist *h, double v)
{
	double f;

	if (!isfinite(v))
		return;
	if (h->log_bins)
		f = v > 0 ? (log10(v) - log10(h->lo)) / (log10(h->hi) - log10(h->lo)) : 0;
	else
		f = (v - h->lo) / (h->hi - h->lo);
	if (v < h->lo) {
		h->n_below++;
		return;
	}
	if (v > h->hi) {
		h->n_above++;
		return;
	}
	double b = floor(f * (double)h->nbins);
	size_t i = b < 0 ? 0 : b >= (double)h->nbins ? h->nbins - 1 : (size_t)b;

	h->count[i]++;
	h->n++;
}

void gl_chart_hist_release(struct gl_chart_hist *h)
{
	free(h->count);
	h->count = NULL;
	h->nbins = 0;
}

void gl_chart_hist_range(double min, double p95, double max, double *lo, double *hi)
{
	*lo = min;
	*hi = max;
	if (min >= 0 && p95 > 0 && max > 3 * p95 && 1.5 * p95 > min)
		*hi = 1.5 * p95;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t i = (size_t)h;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

int gl_chart_hist_from_values(struct gl_chart_hist *h, const double *v, size_t n,
			      size_t nbins, struct gl_err *err)
{
	double *s = NULL;
	size_t m = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	h->p50 = h->p95 = NAN;
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = v[i];
	if (m == 0) {
		rc = gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "histogram of no finite values");
		goto out;
	}
	qsort(s, m, sizeof(*s), cmp_double);
	double lo, hi;

	gl_chart_hist_range(s[0], quantile_sorted(s, m, 0.95), s[m - 1], &lo, &hi);
	rc = gl_chart_hist_init(h, lo, hi, nbins, err);
	if (rc != GL_OK)
		goto out;
	for (size_t i = 0; i < m; i++)
		gl_chart_hist_add(h, s[i]);
	h->p50 = quantile_sorted(s, m, 0.50);
	h->p95 = quantile_sorted(s, m, 0.95);
out:
	free(s);
	return rc;
}

/* The value a series' line goes through in column k. */
static double line_value(int style, const struct gl_chart_col *k)
{
	return style == GL_CHART_MAXLINE ? k->max : k->sum / (double)k->n;
}

/* The quantile p of the finite line values (top: the drawn tops) of c; NAN when none. */
static double series_quantile(const struct gl_chart_cols *c, int style, int top, double p,
			      double *buf)
{
	size_t m = 0;

	for (size_t i = 0; c && c->col && i < c->ncols; i++) {
		const struct gl_chart_col *k = &c->col[i];
		double v = top && style != GL_CHART_POINTS ? k->max : line_value(style, k);

		if (k->n > 0 && isfinite(v))
			buf[m++] = v;
	}
	if (m == 0)
		return NAN;
	qsort(buf, m, sizeof(*buf), cmp_double);
	return quantile_sorted(buf, m, p);
}

static void range_add(struct gl_chart_yrange *r, double v)
{
	if (!isfinite(v))
		return;
	if (!r->any || v < r->lo)
		r->lo = v;
	if (!r->any || v > r->hi)
		r->hi = v;
	r->any = 1;
}

int gl_chart_panel_yrange(const struct gl_chart_panel *p, struct gl_chart_yrange *r,
			  struct gl_err *err)
{
	size_t most = 1;
	double *buf, band = NAN;

	memset(r, 0, sizeof(*r));
	r->level = NAN;
	r->cap = INFINITY;
	for (size_t s = 0; s < p->nseries; s++)
		if (p->series[s].cols && p->series[s].cols->ncols > most)
			most = p->series[s].cols->ncols;
	buf = malloc(most * sizeof(*buf));
	if (!buf)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	for (size_t s = 0; s < p->nseries; s++) {
		double lv = series_quantile(p->series[s].cols, p->series[s].style, 0, 0.95, buf);
		double bv = series_quantile(p->series[s].cols, p->series[s].style, 1, 0.80, buf);

		if (isfinite(lv) && !(lv <= r->level))
			r->level = lv;
		if (isfinite(bv) && !(bv <= band))
			band = bv;
	}
	free(buf);
	if (!p->linear && r->level > 0) {
		r->cap = GL_CHART_SPIKE_FACTOR * r->level;
		if (band > r->cap)
			r->cap = band;
	}
	for (size_t s = 0; s < p->nseries; s++) {
		const struct gl_chart_cols *c = p->series[s].cols;
		int style = p->series[s].style;

		for (size_t i = 0; c && c->col && i < c->ncols; i++) {
			const struct gl_chart_col *k = &c->col[i];
			double lo = style == GL_CHART_LINE ? k->min : line_value(style, k);
			double hi = style == GL_CHART_POINTS ? line_value(style, k) : k->max;

			if (k->n == 0)
				continue;
			if (hi > r->cap) {
				if (r->n_above == 0 || hi > r->above_max)
					r->above_max = hi;
				r->n_above++;
			} else {
				range_add(r, hi);
			}
			if (lo <= r->cap)
				range_add(r, lo);
		}
	}
	/* fits are drawn within the data's range (gl_chart_fit_clip): they widen
	 * the axis only where there is no data to clip them to */
	for (size_t f = 0; !r->any && f < p->nfits; f++) {
		if (p->fits[f].y0 <= r->cap)
			range_add(r, p->fits[f].y0);
		if (p->fits[f].y1 <= r->cap)
			range_add(r, p->fits[f].y1);
	}
	r->log = !p->linear && r->any && r->lo > 0 && gl_chart_want_log(r->lo, r->hi);
	return GL_OK;
}

/* Steps a reader counts in: seconds, minutes, hours, days, weeks. */
static const double time_steps_s[] = {
	1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
	43200, 86400, 172800, 604800, 1209600, 2419200, 4838400, 9676800, 31449600,
};

/* Width of a tick label's digit at the charts' default size, in pixels. */
#define TICK_CHAR_PX 16

double gl_chart_time_step_s(int64_t t0_us, int64_t t1_us, int plot_px, char *fmt)
{
	double span_s = (double)(t1_us - t0_us) / 1e6;
	int64_t d0 = t0_us / GL_US_PER_DAY - (t0_us % GL_US_PER_DAY < 0);
	int64_t d1 = t1_us / GL_US_PER_DAY - (t1_us % GL_US_PER_DAY < 0);
	int one_day = d0 == d1 || (d1 == d0 + 1 && t1_us % GL_US_PER_DAY == 0);
	size_t n = sizeof(time_steps_s) / sizeof(time_steps_s[0]);
	double step = time_steps_s[n - 1];

	if (span_s <= 0)
		span_s = 1;
	for (size_t i = 0; i < n; i++) {
		const char *f = time_steps_s[i] >= 86400 ? "%Y-%m-%d"
			: !one_day ? "%m-%d %H:%M"
			: time_steps_s[i] < 60 ? "%H:%M:%S" : "%H:%M";
		/* Characters of the label it gives, plus a gap of three. */
		size_t chars = strcmp(f, "%Y-%m-%d") == 0 ? 10
			: strcmp(f, "%m-%d %H:%M") == 0 ? 11
			: strcmp(f, "%H:%M:%S") == 0 ? 8 : 5;
		double max_ticks = (double)plot_px / (double)((chars + 3) * TICK_CHAR_PX);

		step = time_steps_s[i];
		strcpy(fmt, f);
		if (span_s / step <= max_ticks)
			break;
	}
	return step;
}

double gl_chart_nice_step(double span, int max_ticks)
{
	static const double mant[3] = {1, 2, 5};

	if (!(span > 0) || !isfinite(span) || max_ticks < 1)
		return 1;
	double step = pow(10, floor(log10(span / max_ticks)));

	for (;;) {
		for (int i = 0; i < 3; i++)
			if (span / (step * mant[i]) <= max_ticks)
				return step * mant[i];
		step *= 10;
	}
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		return (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))
			return 0;	/* overlong, or a UTF-16 surrogate */
		return 3;
	}
	if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
			return 0;
		if ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

static size_t count_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Byte offset after the first k code points of s. */
static size_t chars_prefix(const char *s, size_t k)
{
	size_t i = 0;

	for (; s[i] && k > 0; k--) {
		i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
	}
	return i;
}

#define LABEL_WORK 4096

/* "(anonymous namespace)" is part of a C++ name, not a parameter list. */
static int is_anon_ns(const char *p)
{
	return strncmp(p, "(anonymous namespace)", 21) == 0;
}

static int is_operator_lt(const char *s, size_t i)
{
	return (i >= 8 && strncmp(s + i - 8, "operator", 8) == 0) ||
	       (i >= 9 && strncmp(s + i - 9, "operator<", 9) == 0);
}

/*
 * Cuts s at its top-level parameter list; returns 1 when there was one. A
 * parameter list follows the name at once ("kernel<4>(int)"); a '(' after
 * a space is prose ("memory in use (MiB)") and stays.
 */
static int drop_params(char *s)
{
	int depth = 0;
	size_t len = strlen(s);

	/* A demangled signature ends with its parameter list: "...)" or "...) const". */
	if (len > 6 && strcmp(s + len - 6, " const") == 0)
		len -= 6;
	if (len == 0 || s[len - 1] != ')')
		return 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '<' && !is_operator_lt(s, i))
			depth++;
		else if (s[i] == '>' && depth > 0 && !(i > 0 && s[i - 1] == '-'))
			depth--;
		else if (s[i] == '(' && depth == 0 && i > 0 && s[i - 1] != ' ' &&
			 !is_anon_ns(s + i)) {
			while (i > 0 && s[i - 1] == ' ')
				i--;
			s[i] = '\0';
			return 1;
		} else if (s[i] == '(' && is_anon_ns(s + i)) {
			i += 20;
		}
	}
	return 0;
}

/* Drops a return type: everything up to the last top-level space. */
static void drop_return_type(char *s)
{
	int depth = 0;
	size_t cut = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '<' && !is_operator_lt(s, i))
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (s[i] == '(' && is_anon_ns(s + i))
			i += 20;
		else if (s[i] == ' ' && depth == 0)
			cut = i + 1;
	}
	if (cut > 0 && s[cut])
		memmove(s, s + cut, strlen(s + cut) + 1);
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/*
 * Replaces every outermost template argument list by "<…>". A template list
 * follows a name ("Array<char*, 1>"); a '<' after anything else is text.
 */
static void elide_templates(char *s)
{
	size_t w = 0;
	int depth = 0;

	for (size_t i = 0; s[i]; i++) {
		char ch = s[i];

		if (ch == '<' && !is_operator_lt(s, i) &&
		    (depth > 0 || (i > 0 && is_ident(s[i - 1])))) {
			if (depth++ == 0) {
				memcpy(s + w, "<\xE2\x80\xA6", 4);
				w += 4;
			}
			continue;
		}
		if (ch == '>' && depth > 0) {
			if (--depth == 0)
				s[w++] = '>';
			continue;
		}
		if (depth == 0)
			s[w++] = ch;
	}
	if (depth > 0)
		s[w++] = '>';
	s[w] = '\0';
}

/* Keeps the last scope components that fit in max_chars, after "…::". */
static void drop_scopes(char *s, size_t max_chars)
{
	int depth = 0;
	size_t starts[256], ns = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (depth == 0 && s[i] == ':' && s[i + 1] == ':' && ns < 256)
			starts[ns++] = i + 2;
	}
	for (size_t k = 0; k < ns; k++) {
		if (count_chars(s + starts[k]) + 3 <= max_chars || k == ns - 1) {
			size_t len = strlen(s + starts[k]);

			memmove(s + 5, s + starts[k], len + 1);
			memcpy(s, "\xE2\x80\xA6::", 5);
			return;
		}
	}
}

char *gl_chart_label(const char *name, size_t max_chars, char *out, size_t n)
{
	char s[LABEL_WORK];
	size_t w = 0;

	if (n == 0)
		return out;
	if (max_chars < 4)
		max_chars = 4;
	/* Clean copy: valid UTF-8 without control characters, spaces trimmed. */
	for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p;) {
		size_t l = utf8_len(p);

		if (w + (l ? l : 1) >= sizeof(s) - 8)
			break;
		if (l == 0 || *p < 0x20 || *p == 0x7F) {
			s[w++] = (l == 0 || *p != '\t') ? '?' : ' ';
			p += l ? l : 1;
			continue;
		}
		memcpy(s + w, p, l);
		w += l;
		p += l;
	}
	while (w > 0 && s[w - 1] == ' ')
		w--;
	s[w] = '\0';
	size_t lead = strspn(s, " ");

	memmove(s, s + lead, strlen(s + lead) + 1);
	/* a kernel's display name keeps its "#xxxx" however short the label */
	if (gl_kname_tagged(s) && max_chars >= 12)
		return gl_kname_fit(s, s, max_chars, out, n);

	if (count_chars(s) > max_chars && drop_params(s))
		drop_return_type(s);
	if (count_chars(s) > max_chars)
		elide_templates(s);
	if (count_chars(s) > max_chars && strstr(s, "::"))
		drop_scopes(s, max_chars);
	if (count_chars(s) > max_chars) {
		size_t cut = chars_prefix(s, max_chars - 1);

		memcpy(s + cut, "\xE2\x80\xA6", 4);
	}
	/* Into out without splitting a character. */
	size_t len = strlen(s);

	if (len >= n) {
		len = n - 1;
		while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
			len--;
	}
	memcpy(out, s, len);
	out[len] = '\0';
	return out;
}

int gl_chart_fit_clip(struct gl_chart_fit *f, double lo, double hi)
{
	double t0 = (double)f->t0_us, t1 = (double)f->t1_us, y0 = f->y0, y1 = f->y1;

	if (!isfinite(y0) || !isfinite(y1) || !(lo <= hi))
		return 0;
	if ((y0 < lo && y1 < lo) || (y0 > hi && y1 > hi))
		return 0;
	for (int e = 0; e < 2; e++) {
		double *y = e ? &y1 : &y0, *t = e ? &t1 : &t0;
		double edge = *y < lo ? lo : *y > hi ? hi : *y;

		if (edge == *y)
			continue;
		/* where the line y0 + (y1 - y0) * (t - t0) / (t1 - t0) meets edge */
		*t = f->t0_us + (double)(f->t1_us - f->t0_us) * (edge - f->y0) / (f->y1 - f->y0);
		*y = edge;
	}
	f->t0_us = (int64_t)llround(t0);
	f->t1_us = (int64_t)llround(t1);
	f->y0 = y0;
	f->y1 = y1;
	return 1;
}

char *gl_chart_window_text(int64_t t0_us, int64_t t1_us, char *buf, size_t n)
{
	int64_t t[2] = {t0_us, t1_us};
	char part[2][32];

	for (int k = 0; k < 2; k++) {
		int64_t s = t[k] / GL_US_PER_S - (t[k] % GL_US_PER_S < 0);
		int64_t days = s / 86400 - (s % 86400 < 0);
		int64_t sod = s - days * 86400;
		int64_t y;
		unsigned m, d;

		gl_civil_from_days(days, &y, &m, &d);
		snprintf(part[k], sizeof(part[k]), "%04lld-%02u-%02u %02lld:%02lld",
			 (long long)y, m, d, (long long)(sod / 3600), (long long)(sod / 60 % 60));
	}
	/* one day: its date once ("2026-11-26 15:45 – 15:48 UTC") */
	if (!strncmp(part[0], part[1], 11))
		snprintf(buf, n, "%s \xE2\x80\x93 %s UTC", part[0], part[1] + 11);
	else
		snprintf(buf, n, "%s \xE2\x80\x93 %s UTC", part[0], part[1]);
	return buf;
}
