/*
 * emit_png.c - the chart emitter: the report model plus the series of
 * series.c in, PNG files out, into out->dir. Each section that has charts
 * (section.h) asks for its own through gl_png_draw; these are the six:
 *
 *   kernel_performance_timeline.png      durations of the top kernels over time
 *   kernel_performance_distribution.png  one histogram per top kernel
 *   memory_usage_trend.png               memory in use with its fit; RMM outstanding
 *                                        (over the RMM events' span when under 1/5 of the window)
 *   error_rate.png                       errors per hour (day) by component
 *   kernel_trends.png                    degrading / improving kernels with their fit
 *   baseline_comparison.png              mean and p95 change against the previous window
 *
 * and the metrics section draws gpu_telemetry.png (chart_telemetry.c)
 * through gl_png_draw_fn.
 *
 * A chart without data says so (gl_chart_nodata). Each file is drawn to a
 * temporary name and renamed, so a reader never sees half a PNG.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_procs.h"
#include "emit_png.h"
#include "section.h"
#include "util/timeutil.h"

#define TITLE_MAX 512

static int record_path(struct gl_output *out, const char *path, struct gl_err *err)
{
	char **p = realloc(out->paths, (out->n_paths + 1) * sizeof(*p));

	if (!p)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	out->paths = p;
	p[out->n_paths] = strdup(path);
	if (!p[out->n_paths])
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	out->n_paths++;
	return GL_OK;
}

/* The chart functions draw into tmp; then tmp becomes dir/name. */
struct target {
	char tmp[4096], path[4096];
};

static int target_init(struct target *t, const struct gl_output *out, const char *name,
		       struct gl_err *err)
{
	if ((size_t)snprintf(t->path, sizeof(t->path), "%s/%s", out->dir, name) >=
		    sizeof(t->path) ||
	    (size_t)snprintf(t->tmp, sizeof(t->tmp), "%s/.%s.tmp", out->dir, name) >=
		    sizeof(t->tmp))
		return gl_err_set(err, GL_EUSAGE, out->dir, 0, NULL, "output path too long");
	return GL_OK;
}

/*
 * PLplot's cairo device writes the image at plend1 and ignores write and
 * close errors (a full disk leaves a cut file behind, with no word). So
 * the file is read back: a PNG is the 8-byte signature, then chunks
 * (4-byte big-endian length, 4-byte type, data, 4-byte CRC) up to IEND,
 * and the file must end there. 0 when whole, else -1.
 */
static int png_complete(const char *path)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	unsigned char h[8];
	FILE *f = fopen(path, "rb");
	int ok = 0;

	if (!f)
		return -1;
	if (fread(h, 1, 8, f) != 8 || memcmp(h, sig, 8) != 0)
		goto out;
	while (fread(h, 1, 8, f) == 8) {
		long len = (long)((uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
				  (uint32_t)h[2] << 8 | h[3]);

		if (len < 0 || fseek(f, len + 4, SEEK_CUR) != 0)
			break;
		if (memcmp(h + 4, "IEND", 4) == 0) {
			long end = ftell(f);

			ok = end > 0 && fseek(f, 0, SEEK_END) == 0 && ftell(f) == end &&
			     fgetc(f) == EOF;
			break;
		}
	}
out:
	fclose(f);
	return ok ? 0 : -1;
}

/*
 * Renames tmp to dir/name once the image is whole. Errors name the chart
 * the user asked for (dir/name), not the temporary file.
 */
static int target_commit(struct target *t, struct gl_output *out, int rc, struct gl_err *err)
{
	if (rc == GL_OK && png_complete(t->tmp) != 0)
		rc = gl_err_set(err, GL_EIO, t->path, 0, "the image was cut short (disk full?)",
				"cannot write");
	if (rc != GL_OK) {
		if (err && !strcmp(err->path, t->tmp))
			snprintf(err->path, sizeof(err->path), "%.1000s", t->path);
		remove(t->tmp);
		return rc;
	}
	if (rename(t->tmp, t->path) != 0) {
		int e = errno;

		remove(t->tmp);
		return gl_err_set(err, GL_EIO, t->path, 0, strerror(e), "cannot write");
	}
	return record_path(out, t->path, err);
}

static void title(char *buf, const char *what, const struct gl_series *s)
{
	char w[96];

	gl_chart_window_text(s->since_us, s->until_us, w, sizeof(w));
	snprintf(buf, TITLE_MAX, "%s \xC2\xB7 %s", what, w);
}

static int chart_timeline(const char *path, const struct gl_series *s,
			  const struct gl_emit_png_opts *o, struct gl_err *err)
{
	struct gl_chart_series ser[GL_SERIES_TOP_MAX];
	struct gl_chart_panel p = {NULL, "duration (\xC2\xB5s)", ser, s->n_top, NULL, 0, 1};
	char t[TITLE_MAX], what[128];

	if (s->n_top == 0) {
		title(t, "Kernel durations", s);
		return gl_chart_nodata(path, t, "No kernel timings in this window", &o->chart, err);
	}
	snprintf(what, sizeof(what), "Kernel durations, top %zu by total time", s->n_top);
	title(t, what, s);
	for (size_t k = 0; k < s->n_top; k++) {
		ser[k].name = s->top_name[k];
		ser[k].cols = &s->top_cols[k];
		ser[k].style = GL_CHART_LINE;
		ser[k].color = -1;
	}
	return gl_chart_timeline(path, t, s->t0_us, s->t1_us, &p, 1, &o->chart, err);
}

static int chart_distribution(const char *path, const struct gl_series *s,
			      const struct gl_emit_png_opts *o, struct gl_err *err)
{
	char t[TITLE_MAX];

	title(t, "Kernel duration distributions, p50 and p95 marked", s);
	if (s->n_top == 0)
		return gl_chart_nodata(path, t, "No kernel timings in this window", &o->chart, err);
	return gl_chart_histograms(path, t, "duration (\xC2\xB5s)", s->top_name, s->top_hist,
				   s->n_top, &o->chart, err);
}

static const struct gl_report_trend *find_trend(const struct gl_report *rep,
						enum gl_trend_series series)
{
	for (size_t i = 0; i < rep->n_trends; i++)
		if (rep->trends[i].series == series)
			return &rep->trends[i];
	return NULL;
}

/*
 * The fitted line over its own points only (first to last sample), never
 * across the empty parts of the window; t in days since the window start.
 */
static void fit_of(const struct gl_report_trend *tr, const struct gl_series *s,
		   struct gl_chart_fit *f)
{
	double d0 = (double)(tr->first_ts_us - s->since_us) / (double)GL_US_PER_DAY;
	double d1 = (double)(tr->last_ts_us - s->since_us) / (double)GL_US_PER_DAY;

	f->t0_us = tr->first_ts_us;
	f->t1_us = tr->last_ts_us;
	f->y0 = tr->intercept + tr->slope_per_day * d0;
	f->y1 = tr->intercept + tr->slope_per_day * d1;
}

static int chart_memory(const char *path, const struct gl_report *rep, const struct gl_series *s,
			const struct gl_emit_png_opts *o, struct gl_err *err)
{
	struct gl_chart_series mem = {"memory in use (MiB)", &s->mem,
				      GL_CHART_LINE, 0};
	struct gl_chart_series rmm = {"RMM outstanding allocations", &s->rmm, GL_CHART_MAXLINE, 2};
	int64_t window_us = s->t1_us - s->t0_us;
	/* RMM activity within a fifth of the time axis gets its own */
	int zoom = s->rmm_zoom.col && s->rmm_zoom.n > 0 &&
		   s->rmm_last_us - s->rmm_first_us <= window_us / 5;
	struct gl_chart_fit fit = {NULL, 0, 0, NAN, NAN, 3};
	struct gl_chart_panel p[2];
	const struct gl_report_trend *tr = find_trend(rep, GL_TREND_MEMORY);
	char t[TITLE_MAX], fit_name[160];
	size_t n = 0;

	title(t, "Memory usage", s);
	if (s->mem.n == 0 && s->rmm.n == 0)
		return gl_chart_nodata(path, t, "No memory samples and no RMM events in this window",
				       &o->chart, err);
	if (s->mem.n > 0) {
		memset(&p[n], 0, sizeof(p[n]));
		p[n].title = "memory in use, from the log events";
		p[n].y_label = "memory (MiB)";
		p[n].series = &mem;
		p[n].nseries = 1;
		p[n].legend = 1;
		if (tr && isfinite(tr->slope_per_day) && isfinite(tr->intercept)) {
			fit_of(tr, s, &fit);
			snprintf(fit_name, sizeof(fit_name), "trend %+.3g MiB/day, %s",
				 tr->slope_per_day, gl_verdict_name(tr->verdict));
			fit.name = fit_name;
			p[n].fits = &fit;
			p[n].nfits = 1;
		}
		n++;
	}
	if (s->rmm.n > 0) {
		memset(&p[n], 0, sizeof(p[n]));
		p[n].title = "RAPIDS RMM: allocated, not yet freed";
		p[n].y_label = "outstanding (MiB)";
		if (zoom) {
			int64_t span_us = s->rmm_last_us - s->rmm_first_us;
			int64_t pad_us = span_us / 40 > 60 * GL_US_PER_S ? span_us / 40
				: 60 * GL_US_PER_S;

			rmm.cols = &s->rmm_zoom;
			/* a small panel's title holds 40 characters */
			p[n].title = "RAPIDS RMM, over the span of its events";
			p[n].t0_us = s->rmm_first_us - pad_us;
			p[n].t1_us = s->rmm_last_us + pad_us;
		}
		/* from zero: a few bytes left over must not stretch a log axis */
		p[n].linear = 1;
		p[n].series = &rmm;
		p[n].nseries = 1;
		p[n].legend = 1;
		n++;
	}
	/* One above the other: the time axes line up (when the RMM panel has not its own). */
	struct gl_chart_opts co = o->chart;

	co.stacked = 1;
	return gl_chart_timeline(path, t, s->t0_us, s->t1_us, p, n, &co, err);
}

/* "second", "minute", "hour" or "day": the error buckets' unit. */
static const char *bucket_unit(int64_t bucket_us)
{
	return bucket_us >= GL_US_PER_DAY ? "day" : bucket_us >= 3600 * GL_US_PER_S ? "hour"
		: bucket_us >= 60 * GL_US_PER_S ? "minute" : "second";
}

static int chart_errors(const char *path, const struct gl_series *s,
			const struct gl_emit_png_opts *o, struct gl_err *err)
{
	char t[TITLE_MAX], what[64], ylabel[64];

	snprintf(what, sizeof(what), "Errors per %s by component", bucket_unit(s->bucket_us));
	snprintf(ylabel, sizeof(ylabel), "errors per %s", bucket_unit(s->bucket_us));
	title(t, what, s);
	if (s->n_groups == 0)
		return gl_chart_nodata(path, t, "No ERROR or CRITICAL events in this window",
				       &o->chart, err);
	return gl_chart_time_bars(path, t, ylabel, s->bucket0_us, s->bucket_us, s->n_buckets,
				  (const char *const *)s->group, s->n_groups, s->count, &o->chart,
				  err);
}

static int chart_trends(const char *path, const struct gl_series *s,
			const struct gl_emit_png_opts *o, struct gl_err *err)
{
	struct gl_chart_series ser[GL_SERIES_TOP_MAX];
	struct gl_chart_fit fit[GL_SERIES_TOP_MAX];
	struct gl_chart_panel p[GL_SERIES_TOP_MAX];
	char names[GL_SERIES_TOP_MAX][160];
	char t[TITLE_MAX];

	title(t, "Kernels with a trend (mean duration per period and the fitted line)", s);
	if (s->n_trend == 0)
		return gl_chart_nodata(path, t,
				       "No kernel is degrading or improving in this window",
				       &o->chart, err);
	for (size_t k = 0; k < s->n_trend; k++) {
		const struct gl_report_trend *tr = s->trend[k];
		int degrading = tr->verdict == GL_VERDICT_DEGRADING;
		char shortname[96];

		gl_chart_label(tr->kernel, 26, shortname, sizeof(shortname));
		if (isfinite(tr->change_pct))
			snprintf(names[k], sizeof(names[k]), "%s: %s %+.0f %%", shortname,
				 gl_verdict_name(tr->verdict), tr->change_pct);
		else
			snprintf(names[k], sizeof(names[k]), "%s: %s", shortname,
				 gl_verdict_name(tr->verdict));
		ser[k].name = tr->kernel;
		ser[k].cols = &s->trend_cols[k];
		ser[k].style = GL_CHART_POINTS;
		ser[k].color = 0;
		fit[k].name = NULL;
		fit[k].color = degrading ? 3 : 2;
		fit_of(tr, s, &fit[k]);
		memset(&p[k], 0, sizeof(p[k]));
		p[k].title = names[k];
		p[k].y_label = "duration (\xC2\xB5s)";
		p[k].series = &ser[k];
		p[k].nseries = 1;
		p[k].fits = &fit[k];
		p[k].nfits = isfinite(tr->slope_per_day) ? 1 : 0;
	}
	return gl_chart_timeline(path, t, s->t0_us, s->t1_us, p, s->n_trend, &o->chart, err);
}

#define BASELINE_ROWS 20

static double bigger_change(const struct gl_report_baseline_kernel *k)
{
	double a = isfinite(k->mean_change_pct) ? fabs(k->mean_change_pct) : 0;
	double b = isfinite(k->p95_change_pct) ? fabs(k->p95_change_pct) : 0;

	return a > b ? a : b;
}

static int chart_baseline(const char *path, const struct gl_report *rep,
			  const struct gl_series *s, const struct gl_emit_png_opts *o,
			  struct gl_err *err)
{
	const struct gl_report_baseline *b = &rep->baseline;
	struct gl_chart_bar_row rows[BASELINE_ROWS];
	const char *vn[2] = {"mean", "p95"};
	size_t idx[BASELINE_ROWS], n = 0;
	char t[TITLE_MAX];

	title(t, "Change against the previous window of equal length", s);
	if (b->n_kernels == 0)
		return gl_chart_nodata(path, t,
				       "No kernel ran in both this and the previous window",
				       &o->chart, err);
	/* The largest changes, largest first (ties: the report's name order). */
	for (size_t i = 0; i < b->n_kernels; i++) {
		size_t j = n < BASELINE_ROWS ? n++ : BASELINE_ROWS;

		if (j == BASELINE_ROWS) {
			if (bigger_change(&b->kernels[i]) <= bigger_change(&b->kernels[idx[n - 1]]))
				continue;
			j = n - 1;
		}
		while (j > 0 && bigger_change(&b->kernels[i]) > bigger_change(&b->kernels[idx[j - 1]])) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (size_t r = 0; r < n; r++) {
		const struct gl_report_baseline_kernel *k = &b->kernels[idx[r]];

		rows[r].name = k->kernel;
		rows[r].value[0] = k->mean_change_pct;
		rows[r].value[1] = k->p95_change_pct;
		rows[r].value[2] = rows[r].value[3] = NAN;
	}
	return gl_chart_bars(path, t, "change against the previous window (%; above 0: slower)",
			     " %", vn, 2, rows, n, &o->chart, err);
}

int gl_png_draw(const char *name, const struct gl_report *rep, const struct gl_series *s,
		struct gl_output *out, const struct gl_emit_png_opts *opts, struct gl_err *err)
{
	static const struct gl_emit_png_opts defaults;
	const struct gl_emit_png_opts *o = opts ? opts : &defaults;
	struct target t;
	int rc;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "charts need an output directory");
	if ((rc = target_init(&t, out, name, err)) != GL_OK)
		return rc;
	if (!strcmp(name, GL_PNG_TIMELINE))
		rc = chart_timeline(t.tmp, s, o, err);
	else if (!strcmp(name, GL_PNG_DISTRIBUTION))
		rc = chart_distribution(t.tmp, s, o, err);
	else if (!strcmp(name, GL_PNG_MEMORY))
		rc = chart_memory(t.tmp, rep, s, o, err);
	else if (!strcmp(name, GL_PNG_ERRORS))
		rc = chart_errors(t.tmp, s, o, err);
	else if (!strcmp(name, GL_PNG_TRENDS))
		rc = chart_trends(t.tmp, s, o, err);
	else if (!strcmp(name, GL_PNG_BASELINE))
		rc = chart_baseline(t.tmp, rep, s, o, err);
	else
		rc = gl_err_set(err, GL_EUSAGE, name, 0, NULL, "no such chart");
	return target_commit(&t, out, rc, err);
}

int gl_png_draw_fn(const char *name, struct gl_output *out,
		   int (*draw)(const char *path, const void *arg, struct gl_err *err),
		   const void *arg, struct gl_err *err)
{
	struct target t;
	int rc;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "charts need an output directory");
	if ((rc = target_init(&t, out, name, err)) != GL_OK)
		return rc;
	return target_commit(&t, out, draw(t.tmp, arg, err), err);
}

/* One chart job: the charts of one section. */
struct chart_jobs {
	const struct gl_report *rep;
	const struct gl_series *s;
	const struct gl_emit_png_opts *opts;
	const struct gl_section_list *l;
	size_t idx[64];		/* the sections with charts, in table order */
};

static int draw_section(void *arg, size_t k, struct gl_output *o, struct gl_err *err)
{
	const struct chart_jobs *cj = arg;
	size_t i = cj->idx[k];

	return cj->l->items[i]->chart(cj->rep, gl_report_section_state(cj->rep, i), cj->s, o,
				      cj->opts, err);
}

int gl_emit_png(const struct gl_report *rep, const struct gl_series *s, struct gl_output *out,
		const struct gl_emit_png_opts *opts, struct gl_err *err)
{
	struct chart_jobs cj = {rep, s, opts, gl_report_sections(rep), {0}};
	size_t n = 0;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "charts need an output directory");
	for (size_t i = 0; i < cj.l->n; i++)
		if (cj.l->items[i]->chart) {
			if (n == sizeof(cj.idx) / sizeof(cj.idx[0]))
				return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
						  "too many sections with charts");
			cj.idx[n++] = i;
		}
	return gl_chart_procs_run(n, opts && opts->procs ? opts->procs : 2, draw_section, &cj,
				  out, err);
}

int gl_report_charts(const struct gl_report *rep, const struct gl_series *s,
		     struct gl_output *out, struct gl_err *err)
{
	int rc = gl_emit_png(rep, s, out, NULL, err);

	return rc == GL_OK ? gl_emit_html(rep, out, err) : rc;
}
