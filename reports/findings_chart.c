/*
 * findings_chart.c - the findings section's charts: per top finding, its
 * series' bucket medians with the changed interval shaded, and under it the
 * same host's GPUs (the metrics that moved, else power and utilisation)
 * over the same time, the implicated GPU in orange. In: the section's
 * state (findings_state.h). Out: finding_1.png .. finding_3.png.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "findings_state.h"


static const int t_chart[] = {T_POWER, T_UTIL, T_SM, T_TEMP, T_MEM};
static const char *const t_label[] = {
	[T_POWER] = "power (W)", [T_UTIL] = "utilisation (%)", [T_SM] = "SM clock (MHz)",
	[T_TEMP] = "temperature (\xC2\xB0" "C)", [T_MEM] = "memory used (MiB)",
};

static int draw_finding(const struct findings *f, size_t which, const char *path,
			const struct gl_chart_opts *o, struct gl_err *err)
{
	const struct gl_finding *fd = &f->res.items[which];
	const struct fser *s = &f->s[fd->ser];
	struct gl_chart_cols cols[1 + 5 * 8];
	struct gl_chart_series ser[1 + 5 * 8];
	struct gl_chart_panel pan[6];
	char names[5 * 8][64], title[300], ylab[64], tit[6][96];
	size_t nc = 0, np = 0;
	int rc = GL_OK;

	memset(cols, 0, sizeof(cols));
	memset(pan, 0, sizeof(pan));
	if ((rc = gl_chart_cols_init(&cols[0], f->t0_us, f->t1_us + 1, FB_N, err)) != GL_OK)
		return rc;
	nc = 1;
	for (size_t b = 0; b < FB_N; b++)
		if (!isnan(s->med[b]))
			gl_chart_cols_add(&cols[0], bucket_start(f, b), s->med[b], 0);
	ser[0] = (struct gl_chart_series){fd->series, &cols[0], GL_CHART_LINE, 0};
	snprintf(ylab, sizeof(ylab), "median (%s)", !strcmp(fd->unit, "us") ? "\xC2\xB5s" : fd->unit);
	snprintf(tit[0], sizeof(tit[0]), "%s (%s)", fd->series, fd->kind);
	pan[np++] = (struct gl_chart_panel){tit[0], ylab, &ser[0], 1, NULL, 0, 1, 0, 0, 0,
					     fd->start_us, fd->end_us};
	/* the metrics that moved on the implicated GPU, else power and utilisation: three
	 * panels at most under the series (a stacked panel needs its height) */
	int want[T_COUNT] = {0}, n_want = 0;

	for (size_t m = 0; m < sizeof(t_chart) / sizeof(t_chart[0]); m++)
		if (ev_of(fd, t_metrics[t_chart[m]]) && n_want < 3) {
			want[t_chart[m]] = 1;
			n_want++;
		}
	if (!n_want)
		want[T_POWER] = want[T_UTIL] = 1;
	for (size_t m = 0; m < sizeof(t_chart) / sizeof(t_chart[0]) && np < 4; m++) {
		size_t first = nc, k = 0;

		if (!want[t_chart[m]])
			continue;

		for (size_t i = 0; i < f->n_t && nc < sizeof(cols) / sizeof(cols[0]); i++) {
			const struct tser *t = &f->t[i];
			bool mine;

			if (t->met != t_chart[m] || !host_match(t->host_id, s->host_id))
				continue;
			mine = fd->device && !strcmp(fd->device, t->device);
			if ((rc = gl_chart_cols_init(&cols[nc], f->t0_us, f->t1_us + 1, FB_N, err)) != GL_OK)
				goto out;
			for (size_t b = 0; b < FB_N; b++)
				if (t->n[b])
					gl_chart_cols_add(&cols[nc], bucket_start(f, b), t->sum[b] / t->n[b], 0);
			snprintf(names[nc - 1], sizeof(names[0]), "GPU %s", t->device);
			/* the implicated GPU in orange (palette 1), the others black (7) */
			ser[nc] = (struct gl_chart_series){names[nc - 1], &cols[nc],
							    mine ? GL_CHART_LINE : GL_CHART_MAXLINE,
							    mine ? 1 : 7};
			nc++;
			k++;
		}
		if (!k)
			continue;
		snprintf(tit[np], sizeof(tit[0]), "%s%s%s%s", t_label[t_chart[m]],
			 fd->device ? " \xC2\xB7 GPU " : "", fd->device ? fd->device : "",
			 fd->device ? " in orange" : "");
		pan[np] = (struct gl_chart_panel){tit[np], t_label[t_chart[m]], &ser[first], k,
						   NULL, 0, 1, 1, 0, 0, fd->start_us, fd->end_us};
		np++;
	}
	snprintf(title, sizeof(title), "Finding %zu: %s", which + 1, fd->series);
	{
		struct gl_chart_opts co = o ? *o : (struct gl_chart_opts){0};

		co.stacked = 1;
		if (!co.height_px)
			co.height_px = 500 + 300 * (int)np;
		rc = gl_chart_timeline(path, title, f->t0_us, f->t1_us + 1, pan, np, &co, err);
	}
out:
	for (size_t i = 0; i < nc; i++)
		gl_chart_cols_release(&cols[i]);
	return rc;
}

#define CHART_FN(k)                                                                         \
	static int chart_##k(const struct gl_report *rep, const void *st, const char *path,  \
			     const struct gl_chart_opts *o, struct gl_err *err)               \
	{                                                                                   \
		const struct findings *f = st;                                              \
		(void)rep;                                                                  \
		return f && f->res.n > k ? draw_finding(f, k, path, o, err) : GL_CHART_NONE; \
	}
CHART_FN(0)
CHART_FN(1)
CHART_FN(2)

const struct gl_chart_def gl_findings_charts[] = {
	{"finding_1.png", "The top finding's series with its interval shaded, and the host's GPUs "
			  "over the same time", chart_0},
	{"finding_2.png", "The second finding", chart_1},
	{"finding_3.png", "The third finding", chart_2},
	{NULL, NULL, NULL},
};
