/*
 * sec_anomalies.h - the results of the anomalies section (sec_anomalies.c),
 * kept in its own state: each kernel timing judged against the timings of
 * the same kernel before it, the largest listed, and the count per kernel.
 * Read by the other sections (kernels, alerts) and tests through the
 * getters below.
 */
#ifndef GL_SEC_ANOMALIES_H
#define GL_SEC_ANOMALIES_H

#include "report.h"

struct gl_section;
extern const struct gl_section gl_sec_anomalies;

/* One anomalous sample. */
struct gl_report_anomaly {
	int64_t ts_us;
	const char *kernel;		/* borrowed from the kernels' list, else owned by the section */
	const char *display;		/* its display name (kname.h), likewise */
	double value_us;
	double mean_us;			/* stddev method: mean; mad method: median */
	double stddev_us;		/* stddev method: stddev; mad method: 1.4826 * MAD */
	double z;			/* (value - mean) / stddev */
};

struct gl_report_anomalies {
	enum gl_anomaly_method method;
	double k;			/* threshold in standard deviations */
	unsigned window;		/* previous samples considered */
	unsigned min_samples;		/* fewer previous samples: not judged */
	uint64_t total;			/* anomalous samples, all kernels */
	uint64_t judged;		/* samples that had enough history */
	uint64_t flagged_by_logs;	/* events with events.anomaly = 1 */
	struct gl_report_anomaly *items;	/* the largest z first, at most top */
	size_t n_items;
};

/* The section's results in rep; NULL when rep holds no anomalies state. Valid while rep
 * lives; a hand-made model's state is the test's to fill (the result comes first in it). */
const struct gl_report_anomalies *gl_anomalies_result(const struct gl_report *rep);

/* Anomalous timings of kernel kernel_id (names.id) in the window; 0 when none or unknown. */
uint64_t gl_anomalies_of_kernel(const struct gl_report *rep, int64_t kernel_id);

#endif
