/*
 * chart_telemetry.c - gpu_telemetry.png: the GPUs' utilisation, memory in
 * use (the installed amount in the panel's title), power and temperature
 * over time, over the span of the samples it draws. In: the metric
 * samples the metrics section reduced into columns (telemetry.h). Out: one
 * PNG through the chart layer (chart.h), one stacked panel per quantity,
 * one line per GPU.
 */
#include "telemetry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "util/timeutil.h"

static const char *const qty_metric[GL_TEL_NQTY] = {
	"gpu.utilization_pct", "gpu.memory_used_mib", "gpu.memory_total_mib", "gpu.power_w",
	"gpu.temperature_c",
};

void gl_telemetry_init(struct gl_telemetry *tel, int64_t since_us, int64_t until_us)
{
	memset(tel, 0, sizeof(*tel));
	tel->t0_us = since_us;
	tel->t1_us = until_us;
}

int gl_telemetry_span(struct gl_telemetry *tel, int64_t t0_us, int64_t t1_us,
		      struct gl_err *err)
{
	tel->t0_us = t0_us;
	tel->t1_us = t1_us;
	tel->col_known = false;
	if (t0_us == GL_TS_NONE)
		return GL_OK;
	for (size_t g = 0; g < GL_TELEMETRY_GPUS; g++)
		for (size_t q = 0; q < GL_TEL_NQTY; q++) {
			int rc = gl_chart_cols_init(&tel->cols[g][q], t0_us, t1_us,
						    GL_CHART_COLUMNS, err);
			if (rc != GL_OK)
				return rc;
		}
	tel->ready = 1;
	return GL_OK;
}

int gl_telemetry_assign(struct gl_telemetry *tel, const char *metric, const char *device,
			const char *host, int *qty, int *gpu, struct gl_err *err)
{
	char label[256];
	int q = -1;

	*qty = *gpu = -1;
	for (int k = 0; k < GL_TEL_NQTY; k++)
		if (!strcmp(metric, qty_metric[k]))
			q = k;
	if (q < 0 || !device || !*device)
		return GL_OK;
	snprintf(label, sizeof(label), "%s%sGPU %s", host ? host : "", host && *host ? " " : "",
		 device);
	for (size_t g = 0; g < tel->n_gpus; g++)
		if (!strcmp(tel->gpu[g], label)) {
			*qty = q;
			*gpu = (int)g;
			return GL_OK;
		}
	if (tel->n_gpus < GL_TELEMETRY_GPUS) {
		if (!(tel->gpu[tel->n_gpus] = strdup(label)))
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		*qty = q;
		*gpu = (int)tel->n_gpus++;
		return GL_OK;
	}
	for (size_t i = 0; i < tel->n_more; i++)
		if (!strcmp(tel->more[i], label))
			return GL_OK;
	char **m = realloc(tel->more, (tel->n_more + 1) * sizeof(*m));
	if (!m)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	tel->more = m;
	if (!(m[tel->n_more] = strdup(label)))
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	tel->n_more++;
	return GL_OK;
}

void gl_telemetry_release(struct gl_telemetry *tel)
{
	for (size_t g = 0; g < GL_TELEMETRY_GPUS; g++) {
		free(tel->gpu[g]);
		for (size_t q = 0; q < GL_TEL_NQTY; q++)
			gl_chart_cols_release(&tel->cols[g][q]);
	}
	for (size_t i = 0; i < tel->n_more; i++)
		free(tel->more[i]);
	free(tel->more);
	memset(tel, 0, sizeof(*tel));
}

static uint64_t samples_of(const struct gl_telemetry *tel, int q)
{
	uint64_t n = 0;

	for (size_t g = 0; g < tel->n_gpus; g++)
		n += tel->cols[g][q].n;
	return n;
}

static double col_max(const struct gl_chart_cols *c)
{
	double m = -INFINITY;

	for (size_t i = 0; i < c->ncols; i++)
		if (c->col[i].n && c->col[i].max > m)
			m = c->col[i].max;
	return m;
}

int gl_telemetry_draw(const struct gl_telemetry *tel, const char *path,
		      const struct gl_chart_opts *o, struct gl_err *err)
{
	static const struct {
		const char *title, *y_label;
		int qty;
	} panels[] = {
		{"GPU utilisation", "utilisation (%)", GL_TEL_UTIL},
		{"memory in use", "memory (MiB)", GL_TEL_MEM_USED},
		{"power draw", "power (W)", GL_TEL_POWER},
		{"temperature", "temperature (C)", GL_TEL_TEMP},
	};
	struct gl_chart_panel p[4];
	struct gl_chart_series ser[4][2 * GL_TELEMETRY_GPUS];
	struct gl_chart_opts co = *o;
	char title[512], span[96], more[96] = "", mem_title[96] = "";
	size_t np = 0;

	if (!tel || !tel->ready || tel->n_gpus == 0)
		return gl_chart_nodata(path, "GPU telemetry",
				       "No GPU utilisation, memory, power or temperature samples"
				       " in this window",
				       &co, err);
	gl_chart_window_text(tel->t0_us, tel->t1_us, span, sizeof(span));
	if (tel->n_more)
		snprintf(more, sizeof(more), " (%zu more not drawn)", tel->n_more);
	snprintf(title, sizeof(title), "GPU telemetry, %zu GPU%s%s \xC2\xB7 %s", tel->n_gpus,
		 tel->n_gpus == 1 ? "" : "s", more, span);
	for (size_t k = 0; k < sizeof(panels) / sizeof(panels[0]); k++) {
		int q = panels[k].qty;
		size_t ns = 0;

		if (samples_of(tel, q) == 0 && (q != GL_TEL_MEM_USED || !samples_of(tel, GL_TEL_MEM_TOTAL)))
			continue;
		for (size_t g = 0; g < tel->n_gpus; g++) {
			if (tel->cols[g][q].n)
				ser[np][ns++] = (struct gl_chart_series){tel->gpu[g], &tel->cols[g][q],
									 GL_CHART_LINE, (int)g};
		}
		/*
		 * Installed memory is a level many times what is in use (40 GiB
		 * against 2): drawn as a line it flattens the lines that matter,
		 * so the panel's title gives it (the largest GPU's).
		 */
		double installed = -INFINITY;

		for (size_t g = 0; q == GL_TEL_MEM_USED && g < tel->n_gpus; g++)
			if (tel->cols[g][GL_TEL_MEM_TOTAL].n &&
			    col_max(&tel->cols[g][GL_TEL_MEM_TOTAL]) > installed)
				installed = col_max(&tel->cols[g][GL_TEL_MEM_TOTAL]);
		if (q == GL_TEL_MEM_USED && isfinite(installed))
			snprintf(mem_title, sizeof(mem_title), "memory in use (installed: %.0f MiB)",
				 installed);
		if (!ns)
			continue;
		memset(&p[np], 0, sizeof(p[np]));
		p[np].title = q == GL_TEL_MEM_USED && mem_title[0] ? mem_title : panels[k].title;
		p[np].y_label = panels[k].y_label;
		p[np].series = ser[np];
		p[np].nseries = ns;
		p[np].legend = 1;
		p[np].linear = 1;
		np++;
	}
	co.stacked = 1;
	/* stacked panels need more height than the 900 px of the other charts: about
	 * 300 px a panel, the title and the time axis beside */
	if (!co.height_px)
		co.height_px = np > 2 ? 200 + 300 * (int)np : 900;
	return gl_chart_timeline(path, title, tel->t0_us, tel->t1_us, p, np, &co, err);
}
