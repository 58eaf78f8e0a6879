/*
 * alert_group.h - one entry per alert, not per firing. In: the alerts of
 * a report (gpulog's rules, and those the performance monitor wrote: an
 * alert_<ts>.json file each, the same again in metrics_history.json's
 * "alerts"). Out: the same array, one entry per (source, rule, subject,
 * severity), with how many times it fired, when first and last, and its
 * worst value; the entry's message is that of its worst firing.
 *
 * A node whose throughput stays low writes one alert file a minute: 103
 * files become one line "token_throughput below minimum (x103, 10:01 to
 * 10:05)", and the memory and kernel signals stay in sight. Two firings
 * equal in time and value (an alert file and its copy in the history) are
 * one firing.
 */
#ifndef GL_ALERT_GROUP_H
#define GL_ALERT_GROUP_H

#include <stddef.h>

#include "sec_alerts.h"

/*
 * Sorts al[0..*n) (critical first, then source, rule, subject, time) and
 * merges each group into its first entry, freeing the strings of the
 * others; *n becomes the number of groups. "Worst": the largest value, or
 * the smallest when the alert fires below its threshold (value <
 * threshold); NAN values never win. Entries must have count 0 (a single
 * firing, set here) or their count already.
 */
void gl_alert_group(struct gl_report_alert *al, size_t *n);

#endif /* GL_ALERT_GROUP_H */
