/*
 * operation.c - an operation timing found in a record (operation.h).
 *
 * Real lines of the GPU analytics service:
 *   {"component": "performance", "message": "Operation layout_step completed in 2.38ms",
 *    "metadata": {"operation": "layout_step", "duration_ms": 2.38, "throughput": 412.5},
 *    "execution_time_ms": 2.38}
 *   2025-11-14 08:57:23,986 - performance - INFO - Operation layout_step completed in 2.38 ms
 * metadata.duration_ms never decides: a record timed by it alone is not an
 * operation (the metadata is read only beside an execution time).
 */
#include "operation.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

bool gl_operation_parse_message(const char *msg, size_t len, char *name, size_t n, double *ms)
{
	static const char head[] = "Operation ", mid[] = " completed in ";
	const char *end = msg + len, *x, *p;

	*ms = NAN;
	if (len < sizeof(head) || strncmp(msg, head, sizeof(head) - 1) != 0)
		return false;
	x = msg + sizeof(head) - 1;
	for (p = x; p + sizeof(mid) - 1 <= end; p++)
		if (!strncmp(p, mid, sizeof(mid) - 1))
			break;
	if (p + sizeof(mid) - 1 > end || p == x || (size_t)(p - x) >= n)
		return false;
	memcpy(name, x, (size_t)(p - x));
	name[p - x] = '\0';
	p += sizeof(mid) - 1;
	char num[48];
	size_t k = 0;
	while (p < end && k + 1 < sizeof(num) && (isdigit((unsigned char)*p) || *p == '.'))
		num[k++] = *p++;
	num[k] = '\0';
	while (p < end && *p == ' ')
		p++;
	if (k == 0)
		return true;
	double v = strtod(num, NULL);
	size_t rest = (size_t)(end - p);
	/* the unit ends the word: "ms", "ms." but not "msec-ish" */
#define UNIT(u) (rest >= sizeof(u) - 1 && !strncmp(p, u, sizeof(u) - 1) && \
		 (rest == sizeof(u) - 1 || !isalnum((unsigned char)p[sizeof(u) - 1])))
	if (UNIT("ms"))
		*ms = v;
	else if (UNIT("us") || UNIT("\xC2\xB5s") || UNIT("\xCE\xBCs"))
		*ms = v / 1000;
	else if (UNIT("ns"))
		*ms = v / 1e6;
	else if (UNIT("s"))
		*ms = v * 1000;
#undef UNIT
	return true;
}

/*
 * Can the metadata text s[0..n) name one of the keys read below? A key
 * without escapes is its own bytes in quotes; a text with a backslash may
 * spell one with escapes. A text that cannot is not parsed: parsed, it
 * would give none of them (most records' metadata, {"device": "cuda:0"},
 * whose parse was a tenth of a 10M-event report's busy thread).
 */
static bool may_name_keys(const char *s, size_t n)
{
	static const struct {
		const char *s;
		size_t n;
	} keys[] = {{"\"operation\"", 11}, {"\"throughput\"", 12}};
	const char *end = s + n;

	if (memchr(s, '\\', n))
		return true;
	for (const char *p = s; (p = memchr(p, '"', (size_t)(end - p))) != NULL; p++)
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if ((size_t)(end - p) >= keys[k].n && memcmp(p, keys[k].s, keys[k].n) == 0)
				return true;
	return false;
}

bool gl_operation_of(const char *msg, size_t msg_len, const char *meta, size_t meta_len,
		     double exec_ms, struct gl_operation *op)
{
	char msg_name[GL_OPERATION_NAME_MAX];
	double ms = exec_ms, msg_ms = NAN;
	json_t *m = NULL;

	op->name[0] = '\0';
	op->ms = op->throughput = NAN;
	if (!msg && !meta)
		return false;
	if (isnan(exec_ms))
		meta = NULL;	/* read only beside an execution time */
	if (meta && may_name_keys(meta, meta_len) && (m = json_loadb(meta, meta_len, 0, NULL))) {
		json_t *v = json_object_get(m, "operation");

		if (json_is_string(v) && json_string_length(v) > 0)
			snprintf(op->name, sizeof(op->name), "%s", json_string_value(v));
		if (json_is_number(v = json_object_get(m, "throughput")))
			op->throughput = json_number_value(v);
		json_decref(m);
	}
	if (msg && gl_operation_parse_message(msg, msg_len, msg_name, sizeof(msg_name), &msg_ms) &&
	    !op->name[0])
		memcpy(op->name, msg_name, sizeof(op->name));
	if (isnan(ms))
		ms = msg_ms;
	if (!isfinite(ms)) {
		op->name[0] = '\0';
		op->throughput = NAN;
		return false;
	}
	op->ms = ms;
	return true;
}
