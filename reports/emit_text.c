/*
 * emit_text.c - the report as a summary for a terminal, at most 100
 * columns: window, event counts, the top kernels, alerts, degrading trends,
 * memory, top errors. Undefined numbers print as "-". Names longer than
 * their column are cut with "~" (counted in UTF-8 code points).
 */
#include "report.h"

#include <math.h>
#include <string.h>

#include "util/timeutil.h"

#define WIDTH 100

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

/* Writes s left-aligned in exactly w columns; control characters become '?'. */
static void put_cell(FILE *fp, const char *s, size_t w)
{
	size_t cols, n;

	if (!s)
		s = "";
	if (cols_of(s) > w) {
		n = fit_utf8(s, w - 1, &cols);
		cols++;
	} else {
		n = fit_utf8(s, w, &cols);
	}
	for (size_t i = 0; i < n; i++)
		fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i], fp);
	if (n < strlen(s))
		fputc('~', fp);
	for (; cols < w; cols++)
		fputc(' ', fp);
}

/* The last cell of a line: cut like put_cell, never padded. */
static void put_last(FILE *fp, const char *s, size_t w)
{
	size_t n = cols_of(s ? s : "");

	put_cell(fp, s, n < w ? n : w);
}

/* A number in at most 9 columns: 123.4, 12.3k, 1.23M, or "-". */
static const char *fmt_num(double v, char *buf, size_t n)
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

static const char *fmt_pct(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f", v);
	return buf;
}

static const char *fmt_p(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2g", v);
	return buf;
}

static const char *fmt_bytes(double v, char *buf, size_t n)
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

static const char *fmt_ts(int64_t us, char *buf)
{
	if (us == GL_TS_NONE)
		return strcpy(buf, "-");
	gl_time_format(us - us % GL_US_PER_S, buf);
	return buf;
}

static void heading(FILE *fp, const char *title)
{
	size_t n = strlen(title);

	fprintf(fp, "\n%s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('-', fp);
	fputc('\n', fp);
}

static void write_text(FILE *fp, const struct gl_report *r)
{
	char a[40], b[40], c[40], d[40], e[40], f[40];
	const struct gl_report_summary *s = &r->summary;

	fprintf(fp, "gpulog-report %s\n", r->version);
	fprintf(fp, "Window   %s .. %s (%.4g days)\n", fmt_ts(r->window.since_us, a),
		fmt_ts(r->window.until_us, b), r->window.days);
	fprintf(fp, "Events   %llu", (unsigned long long)s->events);
	if (s->events)
		fprintf(fp, ", first %s, last %s", fmt_ts(s->first_ts_us, a), fmt_ts(s->last_ts_us, b));
	fputc('\n', fp);
	fprintf(fp, "Levels  ");
	for (int l = GL_LEVEL_NONE; l <= GL_LEVEL_CRITICAL; l++)
		if (s->by_level[l])
			fprintf(fp, " %s %llu", l ? gl_level_name((enum gl_level)l) : "(none)",
				(unsigned long long)s->by_level[l]);
	fprintf(fp, "\nDatabase %llu files, %llu rejected lines\n", (unsigned long long)s->files,
		(unsigned long long)s->rejected_lines);
	if (s->events == 0)
		fprintf(fp, "\nNo events in this window.\n");

	if (r->n_kernels) {
		heading(fp, "Kernels by total time (us)");
		put_cell(fp, "kernel", 26);
		fprintf(fp, "%8s %9s %9s %9s %9s %9s %9s %5s\n", "count", "mean", "stddev", "p50",
			"p95", "p99", "total", "anom");
		for (size_t i = 0; i < r->n_kernels && i < r->top; i++) {
			const struct gl_report_kernel *k = &r->kernels[i];

			put_cell(fp, k->kernel, 26);
			fprintf(fp, "%8llu %9s %9s %9s %9s %9s %9s %5llu\n",
				(unsigned long long)k->count, fmt_num(k->mean_us, a, sizeof(a)),
				fmt_num(k->stddev_us, b, sizeof(b)), fmt_num(k->p50_us, c, sizeof(c)),
				fmt_num(k->p95_us, d, sizeof(d)), fmt_num(k->p99_us, e, sizeof(e)),
				fmt_num(k->total_us, f, sizeof(f)), (unsigned long long)k->anomalies);
		}
		if (r->n_kernels > r->top)
			fprintf(fp, "(%zu more kernels)\n", r->n_kernels - r->top);
	}

	heading(fp, "Alerts");
	if (!r->n_alerts)
		fprintf(fp, "none\n");
	for (size_t i = 0; i < r->n_alerts && i < r->top; i++) {
		put_cell(fp, gl_severity_name(r->alerts[i].severity), 9);
		put_last(fp, r->alerts[i].message, WIDTH - 9);
		fputc('\n', fp);
	}
	if (r->n_alerts > r->top)
		fprintf(fp, "(%zu more alerts)\n", r->n_alerts - r->top);

	heading(fp, "Trends (least squares over the window)");
	size_t shown = 0;
	for (size_t i = 0; i < r->n_trends; i++) {
		const struct gl_report_trend *t = &r->trends[i];

		if (t->verdict == GL_VERDICT_STABLE)
			continue;
		if (shown++ >= r->top)
			continue;
		char name[64];
		snprintf(name, sizeof(name), "%s", t->series == GL_TREND_KERNEL ? "" :
			 gl_trend_series_name(t->series));
		put_cell(fp, t->series == GL_TREND_KERNEL ? t->kernel : name, 34);
		fprintf(fp, " %-10s %9s%%  slope %9s %s/day  p %s\n", gl_verdict_name(t->verdict),
			fmt_pct(t->change_pct, b, sizeof(b)), fmt_num(t->slope_per_day, a, sizeof(a)),
			t->unit, fmt_p(t->p_value, c, sizeof(c)));
	}
	if (!shown)
		fprintf(fp, "all stable\n");
	else if (shown > r->top)
		fprintf(fp, "(%zu more)\n", shown - r->top);

	const struct gl_report_anomalies *an = &r->anomalies;
	heading(fp, "Anomalies");
	fprintf(fp, "%llu of %llu judged samples (%s, k = %g, window %u); %llu flagged by the logs\n",
		(unsigned long long)an->total, (unsigned long long)an->judged,
		gl_anomaly_method_name(an->method), an->k, an->window,
		(unsigned long long)an->flagged_by_logs);
	for (size_t i = 0; i < an->n_items && i < 5; i++) {
		fprintf(fp, "  %s  ", fmt_ts(an->items[i].ts_us, a));
		put_cell(fp, an->items[i].kernel, 34);
		fprintf(fp, " %9s us  z %.1f\n", fmt_num(an->items[i].value_us, b, sizeof(b)),
			an->items[i].z);
	}

	const struct gl_report_memory *m = &r->memory;
	heading(fp, "Memory");
	if (m->samples)
		fprintf(fp, "in use: peak %s MiB at %s, last %s MiB at %s, %s\n",
			fmt_num(m->peak_mib, a, sizeof(a)), fmt_ts(m->peak_ts_us, b),
			fmt_num(m->last_mib, c, sizeof(c)), fmt_ts(m->last_ts_us, d),
			gl_verdict_name(m->verdict));
	else
		fprintf(fp, "in use: no samples\n");
	if (m->rmm.events) {
		fprintf(fp, "RMM: %llu allocations, %llu frees, %llu failures; peak %s at %s\n",
			(unsigned long long)m->rmm.allocations, (unsigned long long)m->rmm.frees,
			(unsigned long long)m->rmm.allocation_failures,
			fmt_bytes((double)m->rmm.peak_outstanding_bytes, a, sizeof(a)),
			fmt_ts(m->rmm.peak_ts_us, b));
		fprintf(fp, "RMM: %llu allocations (%s) outstanding at the end\n",
			(unsigned long long)m->rmm.leaked_allocations,
			fmt_bytes((double)m->rmm.leaked_bytes, a, sizeof(a)));
		for (size_t i = 0; i < m->rmm.n_leaks && i < 5; i++)
			fprintf(fp, "  0x%llx  %s  since %s\n", (unsigned long long)m->rmm.leaks[i].ptr,
				fmt_bytes((double)m->rmm.leaks[i].size_bytes, a, sizeof(a)),
				fmt_ts(m->rmm.leaks[i].ts_us, b));
	}

	const struct gl_report_errors *er = &r->errors;
	heading(fp, "Errors");
	fprintf(fp, "%llu errors, %llu warnings; %s per 1,000 events, %s per hour\n",
		(unsigned long long)er->errors, (unsigned long long)er->warnings,
		fmt_num(er->per_1000_events, a, sizeof(a)), fmt_num(er->per_hour, b, sizeof(b)));
	if (er->recovery_attempts)
		fprintf(fp, "%llu recovery attempts in %llu events\n",
			(unsigned long long)er->recovery_attempts,
			(unsigned long long)er->events_with_recovery);
	for (size_t i = 0; i < er->n_top_messages && i < 10; i++) {
		fprintf(fp, "%8llu  ", (unsigned long long)er->top_messages[i].count);
		put_last(fp, er->top_messages[i].shape, WIDTH - 10);
		fputc('\n', fp);
	}

	const struct gl_report_baseline *bl = &r->baseline;
	size_t changed = 0;
	for (size_t i = 0; i < bl->n_kernels; i++)
		changed += bl->kernels[i].verdict != GL_BASELINE_UNCHANGED;
	heading(fp, "Against the preceding window");
	fprintf(fp, "%zu kernels compared, %zu changed, %zu new, %zu vanished\n", bl->n_kernels,
		changed, bl->n_new_kernels, bl->n_vanished_kernels);
	for (size_t i = 0, k = 0; i < bl->n_kernels && k < r->top; i++) {
		const struct gl_report_baseline_kernel *x = &bl->kernels[i];

		if (x->verdict == GL_BASELINE_UNCHANGED)
			continue;
		k++;
		fprintf(fp, "  ");
		put_cell(fp, x->kernel, 34);
		fprintf(fp, " %-11s mean %s -> %s us (%s%%)  p %s\n",
			gl_baseline_verdict_name(x->verdict), fmt_num(x->mean_before_us, a, sizeof(a)),
			fmt_num(x->mean_us, b, sizeof(b)), fmt_pct(x->mean_change_pct, c, sizeof(c)),
			fmt_p(x->p_value, d, sizeof(d)));
	}
}

int gl_emit_text(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	char *tmp = NULL;
	FILE *fp = gl_output_open(out, "report.txt", &tmp, err);

	if (!fp)
		return err ? err->code : GL_EIO;
	write_text(fp, rep);
	return gl_output_commit(out, "report.txt", fp, &tmp, true, err);
}
