/*
 * status.h - the report's one-word verdict. In: a built report model
 * (report.h). Out: no_data, ok, warning or critical (gl_status_of,
 * declared in sec_summary.h: the verdict is the summary's), the value of
 * summary.status in JSON, the page's verdict box, the text report's first
 * line and gpulog-report's --fail-on.
 *
 * "No data" is not "all clear": a window with no event (kernel timings and
 * trace kernels included), no metric sample and no RMM row (the service stopped logging, the ingest
 * failed) is no_data, whatever the alerts say. Otherwise the worst alert
 * severity decides: a critical alert makes the status critical, a warning
 * warning, info or none ok.
 */
#ifndef GL_STATUS_H
#define GL_STATUS_H

#include <stdbool.h>

#include "report.h"

enum gl_status {
	GL_STATUS_NO_DATA,
	GL_STATUS_OK,
	GL_STATUS_WARNING,
	GL_STATUS_CRITICAL,
};

/* "no_data", "ok", "warning", "critical" (static). */
const char *gl_status_name(enum gl_status s);

/*
 * Does a report of status s fail --fail-on at severity fail_on (warning or
 * critical)? An empty window fails at every level: nothing proves the node
 * well.
 */
bool gl_status_fails(enum gl_status s, enum gl_severity fail_on);

#endif /* GL_STATUS_H */
