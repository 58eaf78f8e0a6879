/*
 * sec_alerts.h - the results of the alerts section (sec_alerts.c), kept in
 * its own state: gpulog's own alerts (the configuration's rules judged
 * against every other section's results, through their getters: it
 * finishes last) and the alerts the logs wrote. Read by gl_report_run (the
 * exit status), the HTML page and tests through gl_alerts_result.
 */
#ifndef GL_SEC_ALERTS_H
#define GL_SEC_ALERTS_H

#include "report.h"

/*
 * An alert: gpulog's own (a rule of the configuration crossed; source
 * "gpulog") or one a log wrote (the performance monitor's alert documents;
 * source "log": rule is the document's metric, else "log", subject its
 * component, value and threshold as written, NAN when absent, at ts_us).
 */
struct gl_report_alert {
	enum gl_severity severity;
	char *rule;			/* rule name from the config; log: the metric or "log" */
	char *subject;			/* kernel, component, or "memory" / "rmm" */
	double value;
	double threshold;		/* the threshold of severity that was crossed */
	char *message;
	const char *source;		/* "gpulog" or "log" (static); NULL: "gpulog" */
	int64_t ts_us;			/* log: when it was written; gpulog: GL_TS_NONE */
	/*
	 * Grouped (alert_group.h): firings of this (source, rule, subject,
	 * severity), the first and last one's time (GL_TS_NONE for gpulog's);
	 * value, threshold and message are those of the worst firing.
	 */
	uint64_t count;
	int64_t first_ts_us, last_ts_us;
	double last_value;		/* the last firing's value: a copy of it is no new firing */
};

struct gl_alerts_result {
	struct gl_report_alert *alerts;	/* critical first, then warning, info */
	size_t n_alerts;
};

/* The section's results in rep; none when rep holds no alerts state. The result comes
 * first in the state (a hand-made model's to fill). */
const struct gl_alerts_result *gl_alerts_result(const struct gl_report *rep);

#endif
