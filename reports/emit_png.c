/*
 * emit_png.c - the chart emitter: the built report in, PNG files out, into
 * out->dir. It knows no chart: each section lists its own (section.h:
 * charts[], a file name and a draw function each, drawing from the
 * section's state), and the emitter draws them in table order, two
 * processes sharing the sections (chart_procs.h).
 *
 * A chart without data says so (gl_chart_nodata). Each file is drawn to a
 * temporary name, checked whole and renamed, so a reader never sees half a
 * PNG.
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

void gl_png_title(char *buf, const char *what, const struct gl_report *rep)
{
	char w[96];
	int64_t t0 = rep->window.since_us, t1 = rep->window.until_us;

	/* the span drawn (the charts' time axis), not the window: a report of
	 * --days 365 on a 3-minute run is titled with those 3 minutes */
	if (rep->axis.t1_us > rep->axis.t0_us) {
		t0 = rep->axis.t0_us;
		t1 = rep->axis.t1_us;
	}
	gl_chart_window_text(t0, t1, w, sizeof(w));
	snprintf(buf, GL_PNG_TITLE_MAX, "%s \xC2\xB7 %s", what, w);
}

void gl_png_fit(const struct gl_report_trend *tr, const struct gl_report *rep,
		struct gl_chart_fit *f)
{
	double d0 = (double)(tr->first_ts_us - rep->window.since_us) / (double)GL_US_PER_DAY;
	double d1 = (double)(tr->last_ts_us - rep->window.since_us) / (double)GL_US_PER_DAY;

	f->t0_us = tr->first_ts_us;
	f->t1_us = tr->last_ts_us;
	f->y0 = tr->intercept + tr->slope_per_day * d0;
	f->y1 = tr->intercept + tr->slope_per_day * d1;
}

/* Draws chart c of a section into out->dir/c->file, or removes a stale file of that
 * name when the chart has nothing to show (GL_CHART_NONE). */
static int draw_one(const struct gl_report *rep, const void *st, const struct gl_chart_def *c,
		    struct gl_output *out, const struct gl_emit_png_opts *o, struct gl_err *err)
{
	struct target t;
	int rc;

	if ((rc = target_init(&t, out, c->file, err)) != GL_OK)
		return rc;
	rc = c->draw(rep, st, t.tmp, &o->chart, err);
	if (rc == GL_CHART_NONE) {
		remove(t.tmp);
		if (remove(t.path) != 0 && errno != ENOENT)
			return gl_err_set(err, GL_EIO, t.path, 0, strerror(errno), "cannot remove");
		return GL_OK;
	}
	return target_commit(&t, out, rc, err);
}

/*
 * One chart job: one chart of a section (a section's charts are drawn
 * from its state alone, each apart). A job a chart, not a section, so that
 * the two processes share the work evenly: the kernels section's three
 * charts of a 10M-event week were one job, drawn by one process while the
 * other had done the rest (0.66 s against 0.33 s of CPU).
 */
struct chart_jobs {
	const struct gl_report *rep;
	const struct gl_emit_png_opts *opts;
	const struct gl_section_list *l;
	struct {
		size_t section;		/* index in l */
		const struct gl_chart_def *chart;
	} job[128];			/* in table order, then the section's charts' order */
};

static int draw_chart(void *arg, size_t k, struct gl_output *o, struct gl_err *err)
{
	const struct chart_jobs *cj = arg;
	const size_t i = cj->job[k].section;

	return draw_one(cj->rep, gl_report_section_state(cj->rep, i), cj->job[k].chart, o, cj->opts,
			err);
}

int gl_emit_png_with(const struct gl_report *rep, struct gl_output *out,
		     const struct gl_emit_png_opts *opts, struct gl_err *err)
{
	static const struct gl_emit_png_opts defaults;
	struct chart_jobs cj = {rep, opts ? opts : &defaults, gl_report_sections(rep), {{0}}};
	size_t n = 0;

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "charts need an output directory");
	for (size_t i = 0; i < cj.l->n; i++)
		for (const struct gl_chart_def *c = cj.l->items[i]->charts; c && c->file; c++) {
			if (n == sizeof(cj.job) / sizeof(cj.job[0]))
				return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "too many charts");
			cj.job[n].section = i;
			cj.job[n++].chart = c;
		}
	return gl_chart_procs_run(n, opts && opts->procs ? opts->procs : 2, draw_chart, &cj, out,
				  err);
}

int gl_emit_png(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	return gl_emit_png_with(rep, out, NULL, err);
}
