/*
 * fmt_json.c - the "json" format: one JSON object per line, as the GPU
 * analytics service writes them:
 *
 * {"timestamp": "2025-09-09T14:30:22.123456Z", "level": "INFO", "component": "gpu",
 *  "message": "Kernel force_pass_kernel executed in 512.34μs", "metadata": {"batch": 3},
 *  "execution_time_ms": 0.51234, "memory_usage_mb": 1024.5, "gpu_metrics":
 *  {"kernel_name": "force_pass_kernel", "execution_time_us": 512.34, ...}}
 *
 * In: one line. Out: GL_REC_EVENT, GL_REC_FOREIGN (not a '{' line, or JSON
 * with none of our keys, such as gpufl's {"type":"init","pid":34936,...}),
 * or GL_REC_REJECT with a reason. Every line goes through the validating
 * scanner of json_scan.c first (about 10x jansson's speed); a line it
 * refuses or leaves alone is decided by jansson (json_slow.c), so a scanner
 * bug can cost speed, never a line. Both paths fill the record of
 * json_fields.c.
 */
#include "json_scan.h"
#include "json_slow.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * The format.
 * ------------------------------------------------------------------- */

/*
 * The service's own figures become metric samples of the vocabulary too,
 * so that a chart shows them next to nvidia-smi's; the event keeps its
 * columns. The service writes megabytes of 2^20 bytes (its
 * torch.cuda.memory_allocated() / 1024**2), hence MiB:
 *   {"timestamp": "...", "memory_usage_mb": 2048.5,
 *    "gpu_metrics": {"gpu_utilization_percent": 87.5, "memory_peak_mb": 3100}}
 * The service names no device: the samples have none.
 */
#define GL_METRIC_MEMORY_USED "gpu.memory_used_mib"
#define GL_METRIC_MEMORY_PEAK "gpu.memory_peak_mib"
#define GL_METRIC_UTILIZATION "gpu.utilization_pct"

static void add_samples(struct gl_parse_ctx *ctx, struct gl_rec *rec)
{
	static const struct gl_str names[3] = {
		{GL_METRIC_MEMORY_USED, sizeof(GL_METRIC_MEMORY_USED) - 1},
		{GL_METRIC_MEMORY_PEAK, sizeof(GL_METRIC_MEMORY_PEAK) - 1},
		{GL_METRIC_UTILIZATION, sizeof(GL_METRIC_UTILIZATION) - 1},
	};
	const double v[3] = {rec->ev.mem_mb, rec->ev.peak_mb, rec->ev.util_pct};
	size_t n = 0, k = 0;
	struct gl_sample *out;

	if (rec->kind != GL_REC_EVENT || rec->ev.ts_us == GL_TS_NONE)
		return;
	for (size_t i = 0; i < 3; i++)
		n += !isnan(v[i]);
	if (!n || !(out = gl_ctx_samples(ctx, n)))
		return;
	for (size_t i = 0; i < 3; i++) {
		if (isnan(v[i]))
			continue;
		out[k].ts_us = rec->ev.ts_us;
		out[k].metric = names[i];
		out[k].value = v[i];
		k++;
	}
	rec->samples = out;
	rec->n_samples = n;
}

static void json_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
		       struct gl_rec *rec)
{
	size_t start = 0, i, mark = gl_ctx_scratch_mark(ctx), field_len;
	const char *why, *field;
	int bom = 0;

	/* Some Windows writers put a BOM before the first line. */
	if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
		start = 3;
		bom = 1;
	}
	for (i = start; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n')
			break;
	if (i == len || line[i] != '{') {
		gl_event_init(&rec->ev);
		rec->reason = NULL;
		rec->kind = i == len ? GL_REC_NONE : GL_REC_FOREIGN;
		return;
	}
	if (gl_json_fast_parse(ctx, line + start, len - start, rec, &why, &field, &field_len) != 0) {
		/* Whatever the fast path put in scratch is dead: give jansson the room. */
		gl_ctx_scratch_reset(ctx, mark);
		gl_json_slow_parse(ctx, line + start, len - start, bom, field, field_len, rec);
	}
	add_samples(ctx, rec);
}

const struct gl_format gl_fmt_json = {
	.name = "json",
	.summary = "JSON lines of the GPU analytics service (timestamp, level, gpu_metrics, ...)",
	.flags = 0,
	.parse = json_parse,
};
