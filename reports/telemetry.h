/*
 * telemetry.h - the series of the chart gpu_telemetry.png: metric samples
 * of the window reduced, while the metrics section reads them, to
 * min/mean/max per time column (chart.h's gl_chart_cols) for each GPU and
 * quantity; and the chart drawn from them (chart_telemetry.c).
 *
 * Layout: one panel per quantity (utilisation, memory in use with the
 * memory installed, power, temperature), stacked so the time axes line
 * up, and one line per GPU (host and device) in each: the GPUs are the
 * small multiples' lines, at most GL_TELEMETRY_GPUS of them (one colour
 * each); further GPUs are counted and said in the title, not drawn. The
 * time axis is the data's span: the first and last sample of the window.
 *
 * Memory: GL_TELEMETRY_GPUS x 5 x GL_CHART_COLUMNS columns, whatever the
 * number of samples.
 */
#ifndef GL_TELEMETRY_H
#define GL_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chart.h"
#include "report.h"

#define GL_TELEMETRY_GPUS 8
#define GL_PNG_TELEMETRY "gpu_telemetry.png"

enum gl_telemetry_qty {
	GL_TEL_UTIL,		/* gpu.utilization_pct */
	GL_TEL_MEM_USED,	/* gpu.memory_used_mib */
	GL_TEL_MEM_TOTAL,	/* gpu.memory_total_mib (drawn in the memory panel) */
	GL_TEL_POWER,		/* gpu.power_w */
	GL_TEL_TEMP,		/* gpu.temperature_c */
	GL_TEL_NQTY,
};

struct gl_telemetry {
	int64_t t0_us, t1_us;		/* the data's span; t1 < t0: no sample */
	char *gpu[GL_TELEMETRY_GPUS];	/* "node1 GPU 0", "GPU 0": the drawn GPUs, owned */
	size_t n_gpus;
	char **more;			/* further GPUs (host/device), counted once each, owned */
	size_t n_more;
	struct gl_chart_cols cols[GL_TELEMETRY_GPUS][GL_TEL_NQTY];
	int ready;			/* columns allocated */
	/* the column of the last sample's time (all columns share one range) */
	bool col_known;
	int64_t col_ts_us;
	long col;
};

/* Zeroes tel; the span is set by gl_telemetry_span. */
void gl_telemetry_init(struct gl_telemetry *tel, int64_t since_us, int64_t until_us);

/* The data's span [t0_us, t1_us] (first and last sample); allocates the columns. */
int gl_telemetry_span(struct gl_telemetry *tel, int64_t t0_us, int64_t t1_us,
		      struct gl_err *err);

/*
 * Where the samples of one series go: *qty (enum gl_telemetry_qty) and
 * *gpu, or -1 in both when the metric is not charted, the series has no
 * device, or its GPU is past the cap (then counted in n_more).
 */
int gl_telemetry_assign(struct gl_telemetry *tel, const char *metric, const char *device,
			const char *host, int *qty, int *gpu, struct gl_err *err);

/* Inline: once per metric sample. */
static inline void gl_telemetry_add(struct gl_telemetry *tel, int qty, int gpu, int64_t ts_us,
				    double v)
{
	if (!tel->ready || qty < 0 || qty >= GL_TEL_NQTY || gpu < 0 || gpu >= GL_TELEMETRY_GPUS)
		return;
	/* samples come in time order, a GPU's several metrics at one time */
	if (!tel->col_known || ts_us != tel->col_ts_us) {
		tel->col = gl_chart_cols_index(&tel->cols[0][0], ts_us);
		tel->col_ts_us = ts_us;
		tel->col_known = true;
	}
	gl_chart_cols_add_at(&tel->cols[gpu][qty], tel->col, v, 0);
}

void gl_telemetry_release(struct gl_telemetry *tel);

/*
 * Draws the telemetry chart into path from tel (a "no data" chart when tel
 * is NULL or holds no sample).
 */
int gl_telemetry_draw(const struct gl_telemetry *tel, const char *path,
		      const struct gl_chart_opts *o, struct gl_err *err);

#endif
