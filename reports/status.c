/*
 * status.c - the names of the report's one-word verdict (status.h) and what
 * fails --fail-on. The verdict itself is the summary section's
 * (gl_status_of, sec_summary.c), which reads the alerts when it is emitted.
 */
#include <stdbool.h>

#include "status.h"

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
