/*
 * fmt_rmmlog.c - the RMM debug log (spdlog), "rmm_log.txt".
 *
 * In: one line in spdlog's pattern "[%6t][%H:%M:%S:%f][%-6l] %v":
 *     [ 13527][20:13:10:522999][error ] [A][Stream 0x1][Upstream 25000000000B][FAILURE maximum pool size exceeded]
 *     [ 24740][16:33:00:198816][info  ] ----- RMM LOG BEGIN [PTDS DISABLED] -----
 * Out: an event with component "rmm", the level, the text after the level
 * bracket as message, and the thread plus the bracketed fields of the
 * message as JSON metadata:
 *     {"thread":13527,"op":"A","stream":"0x1","upstream_bytes":25000000000,
 *      "failure":"maximum pool size exceeded"}
 * The time has no date (GL_FMT_TIME_OF_DAY). The thread id is right-aligned
 * in 6 columns and wider ids push it out: "[1457727][15:39:53:785777]".
 * Older RMM wrote "FAILURE max pool size exceeded"; it is kept as written.
 */
#include "format.h"

#include <string.h>

#include "textfmt.h"

/* The fields found in the leading "[..][..]" groups of a message. */
struct rmm_fields {
	uint64_t thread;
	struct gl_str op;		/* "[A]" */
	struct gl_str stream;		/* "[Stream 0x1]" */
	int has_upstream;
	uint64_t upstream_bytes;	/* "[Upstream 25000000000B]" */
	int has_bytes;
	uint64_t bytes;			/* "[1024B]" */
	struct gl_str failure;		/* "[FAILURE maximum pool size exceeded]" */
	int ptds;			/* "RMM LOG BEGIN [PTDS ENABLED]": 1, DISABLED: 0, else -1 */
};

static int starts_with(struct gl_str s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.len >= n && memcmp(s.p, prefix, n) == 0;
}

/* "25000000000B" -> 25000000000. */
static int scan_bytes(struct gl_str s, uint64_t *v)
{
	return s.len >= 2 && s.p[s.len - 1] == 'B' ? gl_textfmt_u64(s.p, s.len - 1, v) : -1;
}

static void scan_groups(struct gl_str msg, struct rmm_fields *f)
{
	const char *p = msg.p, *end = msg.p + msg.len;
	static const char begin[] = "RMM LOG BEGIN [PTDS ";

	while (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		struct gl_str g;

		if (!close)
			break;
		g.p = p + 1;
		g.len = (size_t)(close - p - 1);
		if (g.len == 1 && (g.p[0] == 'A' || g.p[0] == 'D'))
			f->op = g;
		else if (starts_with(g, "Stream "))
			f->stream = gl_textfmt_trim(g.p + 7, g.len - 7);
		else if (starts_with(g, "Upstream ") &&
			 scan_bytes(gl_textfmt_trim(g.p + 9, g.len - 9), &f->upstream_bytes) == 0)
			f->has_upstream = 1;
		else if (starts_with(g, "FAILURE ") || starts_with(g, "Failure "))
			f->failure = gl_textfmt_trim(g.p + 8, g.len - 8);
		else if (scan_bytes(g, &f->bytes) == 0)
			f->has_bytes = 1;
		p = close + 1;
	}
	for (size_t i = 0; i + sizeof(begin) - 1 <= msg.len; i++) {
		if (memcmp(msg.p + i, begin, sizeof(begin) - 1) == 0) {
			struct gl_str rest = { msg.p + i + sizeof(begin) - 1,
					       msg.len - i - (sizeof(begin) - 1) };

			if (starts_with(rest, "ENABLED]"))
				f->ptds = 1;
			else if (starts_with(rest, "DISABLED]"))
				f->ptds = 0;
			break;
		}
	}
}

static void write_fields(struct gl_jsonw *w, char *buf, size_t cap, const struct rmm_fields *f)
{
	gl_jsonw_begin(w, buf, cap);
	gl_jsonw_uint(w, "thread", f->thread);
	if (f->op.p)
		gl_jsonw_str(w, "op", f->op.p, f->op.len);
	if (f->stream.p)
		gl_jsonw_str(w, "stream", f->stream.p, f->stream.len);
	if (f->has_upstream)
		gl_jsonw_uint(w, "upstream_bytes", f->upstream_bytes);
	if (f->has_bytes)
		gl_jsonw_uint(w, "bytes", f->bytes);
	if (f->failure.p)
		gl_jsonw_str(w, "failure", f->failure.p, f->failure.len);
	if (f->ptds >= 0)
		gl_jsonw_bool(w, "ptds", f->ptds);
	gl_jsonw_end(w);
}

/* The metadata JSON in ctx scratch; absent when scratch runs out. */
static struct gl_str metadata(struct gl_parse_ctx *ctx, const struct rmm_fields *f)
{
	struct gl_jsonw w;
	struct gl_str out = { NULL, 0 };
	char *buf;

	write_fields(&w, NULL, 0, f);
	buf = gl_ctx_scratch(ctx, w.len);
	if (!buf)
		return out;
	write_fields(&w, buf, w.len, f);
	out.p = buf;
	out.len = w.len;
	return out;
}

static void reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
}

static void rmmlog_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			 struct gl_rec *rec)
{
	const char *end = line + len, *p, *close;
	struct rmm_fields f = { 0 };
	struct gl_str tid, tod, lvl;
	int64_t tod_us;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	gl_event_init(&rec->ev);
	f.ptds = -1;
	if (len == 0) {
		rec->kind = GL_REC_NONE;
		return;
	}
	/* "[ 13527][": a bracketed thread id followed at once by the time bracket. */
	if (line[0] != '[')
		return;
	close = memchr(line, ']', len);
	if (!close || close + 1 >= end || close[1] != '[')
		return;
	tid = gl_textfmt_trim(line + 1, (size_t)(close - line - 1));
	if (gl_textfmt_u64(tid.p, tid.len, &f.thread) < 0)
		return;
	/* From here the line has the shape of this format: faults are rejects. */
	p = close + 2;
	close = memchr(p, ']', (size_t)(end - p));
	if (!close) {
		reject(rec, "time: no closing bracket");
		return;
	}
	tod = gl_textfmt_trim(p, (size_t)(close - p));
	if (gl_textfmt_tod(tod.p, tod.len, ':', &tod_us) < 0 &&
	    gl_textfmt_tod(tod.p, tod.len, '.', &tod_us) < 0) {
		reject(rec, "time: not HH:MM:SS:micros");
		return;
	}
	p = close + 1;
	if (p >= end || *p != '[') {
		reject(rec, "level: missing");
		return;
	}
	close = memchr(p, ']', (size_t)(end - p));
	if (!close) {
		reject(rec, "level: no closing bracket");
		return;
	}
	lvl = gl_textfmt_trim(p + 1, (size_t)(close - p - 1));
	rec->ev.level = gl_level_parse(lvl.p, lvl.len);
	if (rec->ev.level == GL_LEVEL_NONE) {
		reject(rec, "level: not a spdlog level");
		return;
	}
	p = close + 1;
	if (p < end && *p == ' ')
		p++;
	rec->ev.ts_us = gl_ctx_time_of_day(ctx, tod_us);
	rec->ev.component.p = "rmm";
	rec->ev.component.len = 3;
	rec->ev.message.p = p;
	rec->ev.message.len = (size_t)(end - p);
	scan_groups(rec->ev.message, &f);
	rec->ev.metadata = metadata(ctx, &f);
	rec->kind = GL_REC_EVENT;
}

const struct gl_format gl_fmt_rmmlog = {
	.name = "rmmlog",
	.summary = "RMM debug log (spdlog): [thread][HH:MM:SS:us][level] message",
	.flags = GL_FMT_TIME_OF_DAY,
	.parse = rmmlog_parse,
};
