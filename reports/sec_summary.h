/*
 * sec_summary.h - the results of the summary section (sec_summary.c), kept
 * in its own state: the events of the window by level and component, the
 * first and last, mirrored records, rejected lines and files. Read by the
 * other sections (errors), the driver's caller (gl_report_run), the HTML
 * page and tests through gl_summary_result.
 */
#ifndef GL_SEC_SUMMARY_H
#define GL_SEC_SUMMARY_H

#include "report.h"
#include "status.h"

struct gl_section;
extern const struct gl_section gl_sec_summary;

struct gl_report_summary {
	uint64_t events;			/* events in the window (after filters) */
	struct gl_report_count *by_component;	/* sorted by name */
	size_t n_by_component;
	uint64_t by_level[GL_LEVEL_CRITICAL + 1];	/* index: enum gl_level */
	int64_t first_ts_us;		/* GL_TS_NONE when the window is empty */
	int64_t last_ts_us;
	uint64_t rejected_lines;	/* rejects in the window (schema 1: all rejects) */
	/* kernel timings that repeat the previous timing of their kernel (same
	 * start, same duration: the service's anomaly WARN copy of an INFO
	 * launch), not counted as timings (launch_once.h) */
	uint64_t launch_copies;
	uint64_t files;			/* rows of table files, whole database */
	uint64_t duplicates;		/* mirrored records left out of every count (dup_of set) */
};

/* The section's results in rep; none (no events) when rep holds no summary state. The
 * result comes first in the state (a hand-made model's to fill). */
const struct gl_report_summary *gl_summary_result(const struct gl_report *rep);

/*
 * The report's verdict (status.h): no data when the window holds no event, no metric sample
 * and no RMM row, else the worst alert severity. Reads the summary, metrics, memory and
 * alerts results: for a built report (every section finished) or a hand-made model.
 */
enum gl_status gl_status_of(const struct gl_report *rep);

#endif
