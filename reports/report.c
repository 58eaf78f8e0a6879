/*
 * report.c - lifetime of the report model and the names of its enums.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

void gl_report_counts_free(struct gl_report_count *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

void gl_report_release(struct gl_report *rep)
{
	if (!rep)
		return;
	if (rep->free_states)
		rep->free_states(rep);
	memset(rep, 0, sizeof(*rep));
}

const char *gl_verdict_name(enum gl_verdict v)
{
	static const char *const names[] = {"stable", "degrading", "improving", "leak",
					    "rising", "falling"};

	return (unsigned)v < 6 ? names[v] : "";
}

const char *gl_baseline_verdict_name(enum gl_baseline_verdict v)
{
	static const char *const names[] = {"unchanged", "regression", "improvement"};

	return (unsigned)v < 3 ? names[v] : "";
}

const char *gl_severity_name(enum gl_severity s)
{
	static const char *const names[] = {"info", "warning", "critical"};

	return (unsigned)s < 3 ? names[s] : "";
}

const char *gl_trend_series_name(enum gl_trend_series s)
{
	static const char *const names[] = {"kernel", "memory", "errors", "operation", "metric",
					    "scope", "inference"};

	return (unsigned)s < 7 ? names[s] : "";
}

const char *gl_anomaly_method_name(enum gl_anomaly_method m)
{
	return m == GL_ANOMALY_MAD ? "mad" : "stddev";
}
