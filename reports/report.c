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
	for (size_t i = 0; i < rep->n_trends; i++) {
		free(rep->trends[i].kernel);
		free(rep->trends[i].device);
		free(rep->trends[i].host);
	}
	free(rep->trends);
	if (rep->free_states)
		rep->free_states(rep);
	memset(rep, 0, sizeof(*rep));
}

const struct gl_report_trend *gl_report_trend_of(const struct gl_report *rep,
						 enum gl_trend_series series, const char *name)
{
	for (size_t i = 0; i < rep->n_trends; i++) {
		const struct gl_report_trend *t = &rep->trends[i];

		if (t->series == series && (!name || (t->kernel && !strcmp(t->kernel, name))))
			return t;
	}
	return NULL;
}

const char *gl_verdict_name(enum gl_verdict v)
{
	static const char *const names[] = {"stable", "degrading", "improving", "leak"};

	return (unsigned)v < 4 ? names[v] : "";
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
