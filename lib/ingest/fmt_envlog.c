/*
 * fmt_envlog.c - Rust env_logger's default text format.
 *
 * In: one line. A record starts with a bracketed header:
 *     [2025-09-09T19:28:14Z INFO  webxr::utils::logging] Logging initialized
 *     [2025-09-09T19:28:14.512Z WARN  gpu_service::pool] pool at 91% capacity
 * The timestamp may carry a fraction or an offset, or be left out
 * ("[INFO  webxr] ..."); the level is padded to five columns; the module
 * path may be left out ("[2025-09-09T19:28:14Z ERROR] ..."). A message
 * with newlines or a panic backtrace goes on in lines that start no header;
 * they continue the record (GL_FMT_MULTILINE).
 * Out: an event with ts, level, component = the module path, message; a
 * message "Kernel X executed in 512.34μs" also fills kernel and dur_us.
 */
#include "format.h"

#include <string.h>

#include "textfmt.h"

static void envlog_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			 struct gl_rec *rec)
{
	const char *end = line + len, *p, *q, *close, *tok_end;
	struct gl_event *ev = &rec->ev;
	int64_t ts;

	(void)ctx;
	rec->kind = GL_REC_CONT;
	rec->reason = NULL;
	gl_event_init(ev);
	if (len < 3 || line[0] != '[')
		return;
	close = memchr(line, ']', len);
	if (!close)
		return;
	p = line + 1;
	tok_end = p;
	while (tok_end < close && *tok_end != ' ')
		tok_end++;
	if (gl_time_parse_rfc3339(p, (size_t)(tok_end - p), &ts) == 0) {
		/* A timestamp opens the header: from here on faults are rejects. */
		ev->ts_us = ts;
		p = tok_end;
		while (p < close && *p == ' ')
			p++;
		tok_end = p;
		while (tok_end < close && *tok_end != ' ')
			tok_end++;
		ev->level = gl_level_parse(p, (size_t)(tok_end - p));
		if (ev->level == GL_LEVEL_NONE) {
			rec->kind = GL_REC_REJECT;
			rec->reason = "level: not an env_logger level";
			return;
		}
	} else {
		/* No timestamp: only "[LEVEL module]" makes a header. */
		ev->level = gl_level_parse(p, (size_t)(tok_end - p));
		if (ev->level == GL_LEVEL_NONE)
			return;
	}
	p = tok_end;
	while (p < close && *p == ' ')
		p++;
	for (q = p; q < close && *q != ' '; q++)
		;
	if (q < close) {
		if (ev->ts_us == GL_TS_NONE)
			return;
		rec->kind = GL_REC_REJECT;
		rec->reason = "module path: contains a space";
		return;
	}
	if (close > p) {
		ev->component.p = p;
		ev->component.len = (size_t)(close - p);
	}
	p = close + 1;
	if (p < end && *p == ' ')
		p++;
	ev->message.p = p;
	ev->message.len = (size_t)(end - p);
	gl_kernel_from_text(ev->message.p, ev->message.len, &ev->kernel, &ev->dur_us);
	rec->kind = GL_REC_EVENT;
}

const struct gl_format gl_fmt_envlog = {
	.name = "envlog",
	.summary = "Rust env_logger text: [2025-09-09T19:28:14Z INFO  module::path] message",
	.flags = GL_FMT_MULTILINE,
	.parse = envlog_parse,
};
