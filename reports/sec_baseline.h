/*
 * sec_baseline.h - the results of the baseline section (sec_baseline.c),
 * kept in its own state: the listed kernels against the preceding window
 * of equal length, and the kernels new or gone. Read by the other sections
 * (alerts) and tests through gl_baseline_result.
 */
#ifndef GL_SEC_BASELINE_H
#define GL_SEC_BASELINE_H

#include "report.h"

struct gl_section;
extern const struct gl_section gl_sec_baseline;

/* One kernel present in both windows. */
struct gl_report_baseline_kernel {
	char *kernel;
	char *display;			/* its display name (kname.h) */
	uint64_t count_before, count;
	double mean_before_us, mean_us;
	double p95_before_us, p95_us;
	double mean_change_pct;		/* NAN when mean_before_us is 0 */
	double p95_change_pct;
	double p_value;			/* Welch's t-test; NAN when undefined */
	enum gl_baseline_verdict verdict;
};

struct gl_report_baseline {
	int64_t since_us;		/* preceding window of equal length */
	int64_t until_us;		/* = window.since_us */
	uint64_t samples;		/* kernel samples in the preceding window */
	struct gl_report_baseline_kernel *kernels;	/* the listed kernels (report.kernels) in both windows, by name */
	size_t n_kernels;
	char **new_kernels;		/* in this window only, sorted; at most top */
	size_t n_new_kernels;
	size_t n_new_kernels_total;
	char **vanished_kernels;	/* in the preceding window only, sorted; at most top */
	size_t n_vanished_kernels;
	size_t n_vanished_kernels_total;
};

/* The section's results in rep; none (no kernels) when rep holds no baseline state. The
 * result comes first in the state (a hand-made model's to fill). */
const struct gl_report_baseline *gl_baseline_result(const struct gl_report *rep);

#endif
