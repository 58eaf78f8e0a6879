/*
 * config.h - gpulog-report's configuration: thresholds of the sections and
 * the alert rules. In: a JSON file (share/gpulog.conf.json documents every
 * key; see gpulog-report(1)), or nothing for the built-in defaults, which
 * are the same values. Out: struct gl_report_config. An unknown key, a
 * wrong type or a value out of range is an error (GL_ECONFIG), never
 * silently ignored.
 */
#ifndef GL_REPORT_CONFIG_H
#define GL_REPORT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* What an alert rule measures; its subject is matched against the rule's glob. */
enum gl_rule_kind {
	GL_RULE_KERNEL_P95_US,		/* kernel p95 duration, µs */
	GL_RULE_KERNEL_MEAN_CHANGE_PCT,	/* mean change against the baseline (regressions) */
	GL_RULE_KERNEL_TREND_CHANGE_PCT,	/* change over the window of a degrading kernel */
	GL_RULE_KERNEL_ANOMALY_PCT,	/* anomalous samples per 100 samples */
	GL_RULE_ERROR_RATE_PER_1000,	/* component: ERROR+CRITICAL per 1,000 events */
	GL_RULE_ERRORS_PER_HOUR,	/* all errors per hour of window */
	GL_RULE_MEMORY_TREND_CHANGE_PCT,	/* rise of memory in use (leak or degrading) */
	GL_RULE_RMM_LEAKED_BYTES,	/* RMM bytes outstanding at the window's end */
	GL_RULE_RMM_ALLOCATION_FAILURES,	/* RMM allocation failures */
	GL_RULE_METRIC_ABOVE,		/* a statistic of a metric series at or above */
	GL_RULE_METRIC_BELOW,		/* a statistic of a metric series at or below */
	GL_RULE_METRIC_TREND_CHANGE_PCT,	/* change over the span of a degrading metric */
	GL_RULE_TOKENS_PER_SECOND_BELOW,	/* inference: mean tokens/s at or below */
	GL_RULE_TTFT_P95_ABOVE,		/* inference: p95 time to first token, ms */
	GL_RULE_FAILED_REQUESTS_PCT_ABOVE,	/* inference: failed per 100 requests */
	GL_RULE_FINDING,		/* a finding that made a series worse: |change| in % */
	GL_RULE_XID,			/* driver Xid records of a critical code, per PCI bus and code */
	GL_RULE_COUNT
};

/* Which statistic of a metric series a metric_above/metric_below rule judges. */
enum gl_metric_stat {
	GL_METRIC_MEAN,
	GL_METRIC_MAX,
	GL_METRIC_MIN,
	GL_METRIC_P95,
	GL_METRIC_LAST,
};

struct gl_alert_rule {
	enum gl_rule_kind kind;
	/* glob on the subject; "*" by default. Metric rules: on the metric name ("metric" key). */
	char *match;
	bool has[3];			/* thresholds given, by enum gl_severity */
	/* fires when value >= threshold (metric_below: value <= threshold) */
	double threshold[3];
	enum gl_metric_stat stat;	/* metric_above / metric_below; default mean */
	char *origin;			/* "alert_thresholds.cpu_usage" for a seed rule; else NULL */
};

struct gl_report_config {
	double trend_p_value;		/* trends.p_value: significance of a slope */
	double trend_min_change_pct;	/* trends.min_change_pct: |change| to matter */
	enum gl_anomaly_method anomaly_method;	/* anomalies.method */
	double anomaly_k;		/* anomalies.k */
	unsigned anomaly_window;	/* anomalies.window */
	unsigned anomaly_min_samples;	/* anomalies.min_samples */
	double baseline_p_value;	/* baseline.p_value */
	double baseline_min_change_pct;	/* baseline.min_change_pct */
	unsigned max_shapes;		/* errors.max_shapes: bound of the shape table */
	/*
	 * errors.min_events_for_rate: a component with fewer events in the
	 * window gets no error_rate_per_1000 alert (3 errors in 4 events is
	 * 750 per 1,000 and means nothing).
	 */
	uint64_t min_events_for_rate;
	/*
	 * degradation_detection (the seed performance monitor's shape): a metric
	 * series with at least degrade_window samples whose fitted change over
	 * its span is at least degrade_threshold (a fraction: 0.15 = 15%) is
	 * degrading (falling as much: improving). 0: off, the metric trends get
	 * the trends' significance rule.
	 */
	unsigned degrade_window;
	double degrade_threshold;
	struct gl_alert_rule *rules;	/* alerts[], then the seed's alert_thresholds; owned */
	size_t n_rules;
};

/* Fills cfg with the built-in defaults (the values of share/gpulog.conf.json). */
int gl_config_defaults(struct gl_report_config *cfg, struct gl_err *err);

/* Loads path over the defaults: keys left out keep their default; "alerts" replaces the rules. */
int gl_config_load(const char *path, struct gl_report_config *cfg, struct gl_err *err);

/* Same, from a JSON text (for tests); name is used in messages. */
int gl_config_parse(const char *text, const char *name, struct gl_report_config *cfg,
		    struct gl_err *err);

void gl_config_release(struct gl_report_config *cfg);

/* "kernel_p95_us", ...; static. */
const char *gl_rule_kind_name(enum gl_rule_kind kind);

/* "mean", "max", "min", "p95", "last"; static. */
const char *gl_metric_stat_name(enum gl_metric_stat s);

#endif
