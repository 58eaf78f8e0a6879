/*
 * series.c - collects the series behind the charts (see series.h) during
 * the report's passes: each sample is reduced at once into time columns or
 * bucket counts. Kernel timings come from the kernel pass, for the listed
 * kernels only; at the end the top and trend kernels keep theirs and the
 * rest is freed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "util/timeutil.h"

_Static_assert(GL_CHART_COLUMNS % GL_SERIES_TREND_COLUMNS == 0,
	       "trend columns are whole groups of timeline columns");

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

void gl_series_init(struct gl_series *s, size_t top)
{
	memset(s, 0, sizeof(*s));
	s->top_max = top == 0 ? GL_SERIES_TOP_DEFAULT
		: top > GL_SERIES_TOP_MAX ? GL_SERIES_TOP_MAX : top;
}

/* The error buckets over a span: seconds, minutes, hours or days, at most ~200 of a unit. */
static int64_t bucket_for(int64_t span_us)
{
	if (span_us <= 3 * 60 * GL_US_PER_S)
		return GL_US_PER_S;
	if (span_us <= 3 * 3600 * GL_US_PER_S)
		return 60 * GL_US_PER_S;
	if (span_us <= 3 * GL_US_PER_DAY)
		return 3600 * GL_US_PER_S;
	return GL_US_PER_DAY;
}

int gl_series_begin_span(struct gl_series *s, int64_t since_us, int64_t until_us,
			 int64_t data_first_us, int64_t data_last_us, size_t n_ids,
			 struct gl_err *err)
{
	int rc;

	s->since_us = since_us;
	s->until_us = until_us > since_us ? until_us : since_us + GL_US_PER_S;
	s->t0_us = s->since_us;
	s->t1_us = s->until_us;
	/* the data's span and a margin of 2% (at least 1 s), within the window */
	if (data_first_us != GL_TS_NONE && data_last_us >= data_first_us) {
		int64_t m = (data_last_us - data_first_us) / 50;

		if (m < GL_US_PER_S)
			m = GL_US_PER_S;
		s->t0_us = data_first_us - m > s->since_us ? data_first_us - m : s->since_us;
		s->t1_us = data_last_us + m < s->until_us ? data_last_us + m : s->until_us;
	}
	s->bucket_us = bucket_for(s->t1_us - s->t0_us);
	/* buckets start on a whole second, minute, hour or day (UTC) */
	s->bucket0_us = s->t0_us - s->t0_us % s->bucket_us;
	s->n_buckets = (size_t)((s->t1_us - s->bucket0_us + s->bucket_us - 1) / s->bucket_us);
	if (s->n_buckets == 0)
		s->n_buckets = 1;
	if (s->n_buckets > 100000)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "window too long to chart (%zu error buckets)", s->n_buckets);
	s->n_ids = n_ids ? n_ids : 1;
	s->kcols = calloc(s->n_ids, sizeof(*s->kcols));
	s->err_rows = calloc(s->n_ids, sizeof(*s->err_rows));
	if (!s->kcols || !s->err_rows)
		return oom(err);
	rc = gl_chart_cols_init(&s->mem, s->t0_us, s->t1_us, GL_CHART_COLUMNS, err);
	if (rc == GL_OK)
		rc = gl_chart_cols_init(&s->rmm, s->t0_us, s->t1_us, GL_CHART_COLUMNS, err);
	/* placed at the first RMM row (gl_series_rmm) */
	if (rc == GL_OK)
		rc = gl_chart_cols_init(&s->rmm_zoom, s->t0_us,
					s->t0_us + (s->t1_us - s->t0_us) / 5,
					GL_CHART_COLUMNS, err);
	return rc;
}

int gl_series_begin(struct gl_series *s, int64_t since_us, int64_t until_us, size_t n_ids,
		    struct gl_err *err)
{
	return gl_series_begin_span(s, since_us, until_us, GL_TS_NONE, GL_TS_NONE, n_ids, err);
}

static size_t slot(const struct gl_series *s, int64_t id)
{
	return id > 0 && (uint64_t)id < s->n_ids ? (size_t)id : 0;
}

int gl_series_event(struct gl_series *s, const struct gl_query_event *ev, struct gl_err *err)
{
	if (!isnan(ev->mem_mb))
		gl_chart_cols_add(&s->mem, ev->ts_us, ev->mem_mb, 0);
	if (ev->level >= GL_LEVEL_ERROR) {
		size_t c = slot(s, ev->component_id);
		int64_t b = (ev->ts_us - s->bucket0_us) / s->bucket_us;

		if (!s->err_rows[c] && !(s->err_rows[c] = calloc(s->n_buckets, sizeof(uint64_t))))
			return oom(err);
		if (b >= 0 && (size_t)b < s->n_buckets)
			s->err_rows[c][b]++;
	}
	return GL_OK;
}

int gl_series_kernel_sample(struct gl_series *s, const struct gl_query_event *ev,
			    struct gl_err *err)
{
	size_t k = slot(s, ev->kernel_id);
	struct gl_chart_cols *c = &s->kcols[k];

	if (k == 0)
		return GL_OK;
	if (!c->col && gl_chart_cols_init(c, s->t0_us, s->t1_us, GL_CHART_COLUMNS, err) != GL_OK)
		return GL_ENOMEM;
	gl_chart_cols_add(c, ev->ts_us, ev->dur_us, ev->anomaly == 1);
	return GL_OK;
}

void gl_series_rmm(struct gl_series *s, int64_t ts_us, uint64_t outstanding_bytes)
{
	double mib = (double)outstanding_bytes / (1024.0 * 1024.0);
	struct gl_chart_cols *z = &s->rmm_zoom;

	if (s->rmm_rows++ == 0) {
		int64_t w_us = z->t1_us - z->t0_us;

		s->rmm_first_us = s->rmm_last_us = ts_us;
		z->t0_us = ts_us;
		z->t1_us = ts_us + w_us;
	}
	if (ts_us < s->rmm_first_us)
		s->rmm_first_us = ts_us;
	if (ts_us > s->rmm_last_us)
		s->rmm_last_us = ts_us;
	gl_chart_cols_add(&s->rmm, ts_us, mib, 0);
	if (z->col) {
		gl_chart_cols_add(z, ts_us, mib, 0);
		if (z->dropped > 0)
			gl_chart_cols_release(z);
	}
}

int gl_series_top_kernel(struct gl_series *s, size_t rank, int64_t kernel_id,
			 const struct gl_report_kernel *rk, const double *dur, size_t n,
			 struct gl_err *err)
{
	struct gl_chart_hist *h;
	double lo, hi;
	int rc;

	if (rank >= s->top_max)
		return GL_OK;
	h = &s->top_hist[rank];
	gl_chart_hist_release(h);
	gl_chart_hist_range(rk->min_us, rk->p95_us, rk->max_us, &lo, &hi);
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	rc = gl_chart_hist_init(h, lo, hi, GL_SERIES_HIST_BINS, err);
	if (rc != GL_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		gl_chart_hist_add(h, dur[i]);
	h->p50 = rk->p50_us;
	h->p95 = rk->p95_us;
	s->top_name[rank] = rk->kernel;
	s->top_id[rank] = kernel_id;
	if (rank + 1 > s->n_top)
		s->n_top = rank + 1;
	return GL_OK;
}

/* Sums groups of fine columns into c (GL_SERIES_TREND_COLUMNS wide). */
static int merge_cols(const struct gl_chart_cols *fine, struct gl_chart_cols *c,
		      struct gl_err *err)
{
	size_t per = GL_CHART_COLUMNS / GL_SERIES_TREND_COLUMNS;
	int rc = gl_chart_cols_init(c, fine->t0_us, fine->t1_us, GL_SERIES_TREND_COLUMNS, err);

	if (rc != GL_OK || !fine->col)
		return rc;
	for (size_t i = 0; i < fine->ncols; i++) {
		const struct gl_chart_col *f = &fine->col[i];
		struct gl_chart_col *k = &c->col[i / per];

		if (f->n == 0)
			continue;
		if (k->n == 0 || f->min < k->min)
			k->min = f->min;
		if (k->n == 0 || f->max > k->max)
			k->max = f->max;
		if (f->n_anomaly && (k->n_anomaly == 0 || f->anomaly_max > k->anomaly_max))
			k->anomaly_max = f->anomaly_max;
		k->n += f->n;
		k->n_anomaly += f->n_anomaly;
		k->sum += f->sum;
	}
	c->n = fine->n;
	c->dropped = fine->dropped;
	return GL_OK;
}

/* Keeps the GL_SERIES_ERROR_GROUPS components with most errors; the rest is "other". */
static int make_groups(struct gl_series *s, struct gl_query *q, struct gl_err *err)
{
	size_t nb = s->n_buckets, n = 0, keep;
	size_t *id = calloc(s->n_ids, sizeof(*id));
	uint64_t *tot = calloc(s->n_ids, sizeof(*tot));
	int rc = GL_OK;

	if (!id || !tot) {
		rc = oom(err);
		goto out;
	}
	for (size_t c = 0; c < s->n_ids; c++) {
		if (!s->err_rows[c])
			continue;
		for (size_t b = 0; b < nb; b++)
			tot[n] += s->err_rows[c][b];
		id[n++] = c;
	}
	/* Most errors first; ties by name id, so the order does not depend on the walk. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (tot[j] > tot[j - 1] ||
					     (tot[j] == tot[j - 1] && id[j] < id[j - 1])); j--) {
			size_t ti = id[j];
			uint64_t tt = tot[j];

			id[j] = id[j - 1];
			tot[j] = tot[j - 1];
			id[j - 1] = ti;
			tot[j - 1] = tt;
		}
	keep = n > GL_SERIES_ERROR_GROUPS ? GL_SERIES_ERROR_GROUPS - 1 : n;
	s->n_groups = keep + (n > keep);
	s->count = calloc(s->n_groups * nb + 1, sizeof(*s->count));
	if (!s->count) {
		rc = oom(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = i < keep ? i : keep;

		for (size_t b = 0; b < nb; b++)
			s->count[g * nb + b] += s->err_rows[id[i]][b];
	}
	for (size_t g = 0; g < s->n_groups; g++) {
		const char *name = g < keep && id[g] > 0 ? gl_query_name(q, (int64_t)id[g]) : NULL;

		s->group[g] = strdup(g == keep ? "other" : name && *name ? name : "(no component)");
		if (!s->group[g]) {
			rc = oom(err);
			goto out;
		}
	}
out:
	free(id);
	free(tot);
	return rc;
}

static void free_collection(struct gl_series *s)
{
	for (size_t i = 0; s->kcols && i < s->n_ids; i++)
		gl_chart_cols_release(&s->kcols[i]);
	for (size_t i = 0; s->err_rows && i < s->n_ids; i++)
		free(s->err_rows[i]);
	free(s->kcols);
	free(s->err_rows);
	s->kcols = NULL;
	s->err_rows = NULL;
}

int gl_series_finish(struct gl_series *s, struct gl_query *q, const struct gl_report *rep,
		     struct gl_err *err)
{
	int rc = GL_OK;

	if (!s->kcols)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "series finished before begun");
	for (size_t t = 0; t < rep->n_trends && s->n_trend < GL_SERIES_TOP_MAX && rc == GL_OK;
	     t++) {
		const struct gl_report_trend *tr = &rep->trends[t];
		size_t id = 0;

		if (tr->series != GL_TREND_KERNEL || !tr->kernel ||
		    (tr->verdict != GL_VERDICT_DEGRADING && tr->verdict != GL_VERDICT_IMPROVING))
			continue;
		for (size_t i = 1; i < s->n_ids && !id; i++) {
			const char *name = s->kcols[i].col ? gl_query_name(q, (int64_t)i) : NULL;

			if (name && strcmp(name, tr->kernel) == 0)
				id = i;
		}
		rc = merge_cols(&s->kcols[id], &s->trend_cols[s->n_trend], err);
		s->trend[s->n_trend++] = tr;
	}
	/* The top kernels take their columns over. */
	for (size_t k = 0; k < s->n_top && rc == GL_OK; k++) {
		size_t id = slot(s, s->top_id[k]);

		if (id > 0 && s->kcols[id].col) {
			s->top_cols[k] = s->kcols[id];
			memset(&s->kcols[id], 0, sizeof(s->kcols[id]));
		} else {
			rc = gl_chart_cols_init(&s->top_cols[k], s->t0_us, s->t1_us,
						GL_CHART_COLUMNS, err);
		}
	}
	if (rc == GL_OK)
		rc = make_groups(s, q, err);
	free_collection(s);
	return rc;
}

void gl_series_release(struct gl_series *s)
{
	free_collection(s);
	for (size_t k = 0; k < GL_SERIES_TOP_MAX; k++) {
		gl_chart_cols_release(&s->top_cols[k]);
		gl_chart_hist_release(&s->top_hist[k]);
		gl_chart_cols_release(&s->trend_cols[k]);
	}
	gl_chart_cols_release(&s->mem);
	gl_chart_cols_release(&s->rmm);
	gl_chart_cols_release(&s->rmm_zoom);
	for (size_t g = 0; g < GL_SERIES_ERROR_GROUPS; g++) {
		free(s->group[g]);
		s->group[g] = NULL;
	}
	free(s->count);
	s->count = NULL;
	s->n_top = s->n_trend = s->n_groups = 0;
}
