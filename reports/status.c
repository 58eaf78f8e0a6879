/*
 * status.c - the report's one-word verdict (status.h): no data, or the
 * worst alert severity.
 */
#include <stdbool.h>

#include "sec_alerts.h"
#include "sec_memory.h"
#include "sec_metrics.h"
#include "sec_summary.h"
#include "status.h"

enum gl_status gl_status_of(const struct gl_report *rep)
{
	const struct gl_alerts_result *al = gl_alerts_result(rep);
	enum gl_status s = GL_STATUS_OK;

	if (gl_summary_result(rep)->events == 0 && gl_metrics_result(rep)->samples == 0 &&
	    gl_memory_result(rep)->rmm.events == 0)
		return GL_STATUS_NO_DATA;
	for (size_t i = 0; i < al->n_alerts; i++) {
		if (al->alerts[i].severity == GL_SEVERITY_CRITICAL)
			return GL_STATUS_CRITICAL;
		if (al->alerts[i].severity == GL_SEVERITY_WARNING)
			s = GL_STATUS_WARNING;
	}
	return s;
}

const char *gl_status_name(enum gl_status s)
{
	switch (s) {
	case GL_STATUS_NO_DATA:
		return "no_data";
	case GL_STATUS_OK:
		return "ok";
	case GL_STATUS_WARNING:
		return "warning";
	case GL_STATUS_CRITICAL:
		return "critical";
	}
	return "no_data";
}

bool gl_status_fails(enum gl_status s, enum gl_severity fail_on)
{
	switch (s) {
	case GL_STATUS_NO_DATA:
		return true;
	case GL_STATUS_CRITICAL:
		return true;
	case GL_STATUS_WARNING:
		return fail_on <= GL_SEVERITY_WARNING;
	case GL_STATUS_OK:
		return false;
	}
	return true;
}
