/*
 * sec_trends.h - the results of the trends section (sec_trends.c): the
 * least-squares lines of the listed kernels, memory in use and errors per
 * hour, kept in its own state, followed by the trend lines the other
 * sections keep in theirs (section.h: trend_list), in table order. Read by
 * the other sections (memory, alerts), the HTML page and tests through the
 * getters below.
 */
#ifndef GL_SEC_TRENDS_H
#define GL_SEC_TRENDS_H

#include "report.h"

struct gl_section;
extern const struct gl_section gl_sec_trends;

/* Every trend line of rep: gl_trends_at(rep, i) is the i-th of gl_trends_n(rep); NULL past
 * the last. Valid while rep lives. */
size_t gl_trends_n(const struct gl_report *rep);
const struct gl_report_trend *gl_trends_at(const struct gl_report *rep, size_t i);

/* The first trend of series (and name for kernels and operations), or NULL. */
const struct gl_report_trend *gl_trends_of(const struct gl_report *rep,
					   enum gl_trend_series series, const char *name);

#endif
