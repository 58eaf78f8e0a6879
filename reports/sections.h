/*
 * sections.h - builds a struct gl_report from a gpulog database. In: an
 * open query handle, the window and filters, the configuration, the table
 * of sections (section.h). Out: every section of the report model
 * (report.h). Passes over the database: each section's begin (the baseline
 * reads the kernel samples of the preceding window there), then every event
 * of the window in time order, handed to every section, then the RMM rows,
 * then the metric samples. The sections collect their charts' data in the
 * same passes when charts are asked for.
 *
 * Mirrored records (schema 3: events.dup_of set, the same record read from
 * two files) reach no section: they are counted in summary.duplicates and,
 * when ERROR or worse, errors.mirrored.
 */
#ifndef GL_SECTIONS_H
#define GL_SECTIONS_H

#include "config.h"
#include "report.h"
#include "store/query.h"

/*
 * The times a report accepts: the window lies in [GL_REPORT_MIN_US,
 * GL_REPORT_MAX_US] = [1970-01-01T00:00:00Z, 10000-01-01T00:00:00Z) and
 * spans at most GL_REPORT_MAX_DAYS days; else gl_report_build fails with
 * GL_EUSAGE.
 */
#define GL_REPORT_MIN_US 0LL
#define GL_REPORT_MAX_US 253402300800000000LL
#define GL_REPORT_MAX_DAYS 36525	/* a hundred years */

struct gl_report_params {
	int64_t since_us, until_us;	/* [since, until) */
	const char *const *components;	/* globs (fnmatch); none: all */
	size_t ncomponents;
	const char *const *kernels;	/* globs; limit the kernel sections only */
	size_t nkernels;
	const char *const *hosts;	/* globs; apply to events, RMM rows and metric series */
	size_t nhosts;
	const char *const *metrics;	/* globs on metric names; limit the metrics section */
	size_t nmetrics;
	size_t top;			/* cap on listed items (>= 1) */
	size_t top_series;		/* cap on listed metric series and their trends (>= 1) */
	/*
	 * Charts asked for: the sections collect their charts' data during the
	 * same passes (rep->axis), chart_top kernels charted (0:
	 * GL_CHART_TOP_DEFAULT; at most GL_CHART_TOP_MAX).
	 */
	bool charts;
	size_t chart_top;
	/*
	 * Kernel timings kept from the event pass for the kernel pass
	 * (kernel_cache.h); 0: GL_KCACHE_MAX_TIMINGS. Past it the kernel pass
	 * reads the database again; the report is the same either way.
	 */
	size_t kernel_cache_max;
	/* The sections to build; NULL: gl_sections (section.h). Borrowed; must outlive rep. */
	const struct gl_section_list *sections;
};

/*
 * The charts' time axis (report.h) of the window [since_us, until_us) whose
 * data runs from data_first_us to data_last_us (GL_TS_NONE: none).
 */
void gl_report_axis_init(struct gl_report_axis *a, int64_t since_us, int64_t until_us,
			 int64_t data_first_us, int64_t data_last_us);

/*
 * For tests: makes rep (its window, top and sections set, results none) a
 * hand-made model: a zeroed state for each section of its table, which the
 * test fills through the sections' headers. gl_report_release frees the
 * states but nothing they point to (that stays the test's). On failure
 * gl_report_release still frees what was made.
 */
int gl_report_model_init(struct gl_report *rep, struct gl_err *err);

/* Fills rep (zeroed first); on failure rep is released. */
int gl_report_build(struct gl_query *q, const struct gl_report_params *p,
		    const struct gl_report_config *cfg, struct gl_report *rep,
		    struct gl_err *err);

/*
 * Replaces the variable parts of a log message by placeholders, so that
 * "cudaMalloc failed for 512 MiB at 0x7f3a2c000000" and "... 1.5 GiB at
 * 0x7f..." count as one: <hex>, <size> (a number with a size unit), <dur>
 * (a number with a time unit, "109.6us", "462.72μs", or a duration such as
 * "1h2m3s"), <num> (a plain number, or one with another unit: "45 %",
 * "70.77 W", "1024 tokens/s", "2x"), <path>. Only the first line is used.
 * Writes at most n bytes (NUL included) to out; returns its length.
 */
size_t gl_message_shape(const char *msg, size_t len, char *out, size_t n);

#endif
