/*
 * fmt_pylog.c - Python logging text, format
 * "%(asctime)s - %(name)s - %(levelname)s - %(message)s" (the one the
 * logging docs show), or the same without the name.
 *
 * In: one line. A record starts with the date:
 *     2025-09-09 14:30:22,123 - performance_monitor - WARNING - cpu_usage (91.30) exceeds threshold (85.00)
 *     2025-09-09 14:30:22.123 - WARNING - disk almost full
 * asctime has no zone: it is in the zone of --timezone (default UTC); a comma (Python's default) or a
 * dot stands before the milliseconds. A traceback or a message with
 * newlines goes on in lines that do not start with a date; they continue
 * the record (GL_FMT_MULTILINE):
 *     Traceback (most recent call last):
 *       File "monitor.py", line 42, in sample
 *     RuntimeError: CUDA error: out of memory
 * Out: an event with ts, component = logger name, level, message; a message
 * "Kernel X executed in 512.34μs" also fills kernel and dur_us.
 */
#include "format.h"

#include <string.h>

#include "textfmt.h"

static const char sep[] = " - ";
#define SEP_LEN (sizeof(sep) - 1)

/* The next " - " in s[from..len), or NULL. */
static const char *find_sep(const char *s, size_t len, size_t from)
{
	for (size_t i = from; i + SEP_LEN <= len; i++)
		if (memcmp(s + i, sep, SEP_LEN) == 0)
			return s + i;
	return NULL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "2025-09-09 " or "2025-09-09T": the line starts a record. */
static int starts_with_date(const char *s, size_t len)
{
	static const char shape[] = "dddd-dd-dd";

	if (len < sizeof(shape))
		return 0;
	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
			return 0;
	return s[10] == ' ' || s[10] == 'T';
}

/* asctime with ',' before the fraction: gl_time_parse_rfc3339 wants '.'. */
static int parse_asctime(const char *s, size_t len, int64_t *ts)
{
	char buf[64];

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	if (len > 19 && buf[19] == ',')
		buf[19] = '.';
	return gl_time_parse_rfc3339(buf, len, ts);
}

static void pylog_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	const char *s1, *s2, *s3, *msg, *end = line + len;
	enum gl_level lv;
	int64_t ts;

	(void)ctx;
	rec->kind = GL_REC_CONT;
	rec->reason = NULL;
	gl_event_init(ev);
	if (!starts_with_date(line, len))
		return;
	rec->kind = GL_REC_REJECT;
	s1 = find_sep(line, len, 0);
	if (!s1) {
		rec->reason = "no ' - ' after the time";
		return;
	}
	if (parse_asctime(line, (size_t)(s1 - line), &ts) < 0) {
		rec->reason = "asctime: not YYYY-MM-DD HH:MM:SS,mmm";
		return;
	}
	ev->ts_us = gl_ctx_naive_to_utc(ctx, ts);
	s2 = find_sep(line, len, (size_t)(s1 - line) + SEP_LEN);
	s3 = s2 ? find_sep(line, len, (size_t)(s2 - line) + SEP_LEN) : NULL;
	/* name - LEVEL - message */
	if (s3 && (lv = gl_level_parse(s2 + SEP_LEN, (size_t)(s3 - s2) - SEP_LEN)) != GL_LEVEL_NONE) {
		ev->component.p = s1 + SEP_LEN;
		ev->component.len = (size_t)(s2 - s1) - SEP_LEN;
		msg = s3 + SEP_LEN;
	} else if (s2 && (lv = gl_level_parse(s1 + SEP_LEN, (size_t)(s2 - s1) - SEP_LEN)) !=
				 GL_LEVEL_NONE) {
		/* LEVEL - message */
		msg = s2 + SEP_LEN;
	} else {
		rec->reason = s2 ? "levelname: not a logging level" : "levelname: missing";
		return;
	}
	if (ev->component.p && !ev->component.len)
		ev->component.p = NULL;
	ev->level = lv;
	ev->message.p = msg;
	ev->message.len = (size_t)(end - msg);
	gl_kernel_from_text(ev->message.p, ev->message.len, &ev->kernel, &ev->dur_us);
	rec->kind = GL_REC_EVENT;
}

const struct gl_format gl_fmt_pylog = {
	.name = "pylog",
	.summary = "Python logging text: 2025-09-09 14:30:22,123 - name - LEVEL - message",
	.flags = GL_FMT_MULTILINE,
	.parse = pylog_parse,
};
