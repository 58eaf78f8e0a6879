/*
 * sec_metrics.h - the results of the metrics section (sec_metrics.c), kept
 * in its own state: one row per metric series of the window. Read by the
 * other sections (alerts), gl_report_run and tests through
 * gl_metrics_result.
 */
#ifndef GL_SEC_METRICS_H
#define GL_SEC_METRICS_H

#include "report.h"

struct gl_section;
extern const struct gl_section gl_sec_metrics;

/*
 * One metric series in the window (tables series and samples): its samples'
 * statistics in the metric's unit. Percentiles as for the kernels
 * (gl_stats_describe, linear interpolation).
 */
struct gl_report_metric {
	char *metric;			/* canonical name, "gpu.power_w" */
	const char *unit;		/* "%", "MiB", "W", ... ; "" when unknown (static) */
	char *device;			/* GPU index as text, else uuid or name; "" when none */
	char *device_name;		/* labels.name ("NVIDIA A100-SXM4-80GB"); "" when none */
	char *host;			/* "" when none */
	char *source;			/* format that read it ("nvidia-smi-csv") */
	char *labels;			/* JSON object text; "{}" when none */
	uint64_t count;
	double min, max, mean;
	double p50, p95, p99;
	double last;			/* value of the last sample */
	int64_t first_ts_us, last_ts_us;
	bool unlisted;			/* beyond top_series by relevance: counted, not listed */
};

struct gl_metrics_result {
	struct gl_report_metric *metrics;	/* by host, device (GPU index numerically), metric */
	size_t n_metrics;		/* every series */
	size_t n_unlisted;		/* of them, beyond rep->top_series by relevance (flag unlisted) */
	size_t n_trends_unlisted;	/* trends of the series not listed (not emitted) */
	uint64_t samples;		/* samples in the window (after --metric and --host) */
};

/* The section's results in rep; none when rep holds no metrics state. The result comes
 * first in the state (a hand-made model's to fill). */
const struct gl_metrics_result *gl_metrics_result(const struct gl_report *rep);

#endif
