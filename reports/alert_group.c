/*
 * alert_group.c - one entry per (source, rule, subject, severity)
 * (alert_group.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alert_group.h"

static const char *src_of(const struct gl_report_alert *a)
{
	return a->source ? a->source : "gpulog";
}

static int cmp_key(const struct gl_report_alert *a, const struct gl_report_alert *b)
{
	int c;

	if (a->severity != b->severity)
		return a->severity < b->severity ? 1 : -1;
	if ((c = strcmp(src_of(a), src_of(b))) != 0 || (c = strcmp(a->rule, b->rule)) != 0)
		return c;
	return strcmp(a->subject, b->subject);
}

static int cmp_alert(const void *pa, const void *pb)
{
	const struct gl_report_alert *a = pa, *b = pb;
	int c = cmp_key(a, b);

	if (c)
		return c;
	return a->ts_us < b->ts_us ? -1 : a->ts_us > b->ts_us;
}

/* Is b worse than the group's worst so far, a? */
static bool worse(const struct gl_report_alert *a, const struct gl_report_alert *b)
{
	bool below = !isnan(b->threshold) && !isnan(b->value) && b->value < b->threshold;

	if (isnan(b->value))
		return false;
	if (isnan(a->value))
		return true;
	return below ? b->value < a->value : b->value > a->value;
}

static void drop(struct gl_report_alert *a)
{
	free(a->rule);
	free(a->subject);
	free(a->message);
	a->rule = a->subject = a->message = NULL;
}

void gl_alert_group(struct gl_report_alert *al, size_t *n)
{
	size_t out = 0;

	if (*n == 0)
		return;
	qsort(al, *n, sizeof(*al), cmp_alert);
	for (size_t i = 0; i < *n; i++) {
		struct gl_report_alert *a = &al[i];

		if (a->count == 0)
			a->count = 1;
		if (out > 0 && cmp_key(&al[out - 1], a) == 0) {
			struct gl_report_alert *g = &al[out - 1];
			/* the same firing from two files (alert_<ts>.json and the history) */
			bool same = a->ts_us == g->last_ts_us &&
				    (a->value == g->last_value || (isnan(a->value) && isnan(g->last_value)));

			if (!same) {
				g->count += a->count;
				g->last_ts_us = a->ts_us;
				g->last_value = a->value;
			}
			if (worse(g, a)) {
				char *m = g->message;

				g->value = a->value;
				g->threshold = a->threshold;
				g->message = a->message;
				a->message = m;
			}
			drop(a);
			continue;
		}
		a->first_ts_us = a->ts_us;
		a->last_ts_us = a->ts_us;
		a->last_value = a->value;
		if (out != i)
			al[out] = *a;
		out++;
	}
	*n = out;
}
