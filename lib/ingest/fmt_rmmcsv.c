/*
 * fmt_rmmcsv.c - RAPIDS RMM memory events, the CSV that
 * rmm::mr::logging_resource_adaptor writes.
 *
 * In: the header and one row per allocation or free:
 *     Thread,Time,Action,Pointer,Size,Stream
 *     23110,22:30:49.650739,allocate,0x7f141ba00000,1024,0x0
 *     23110,22:30:49.650760,free,0x7f141ba00000,1024,0x0
 *     23110,22:30:49.712003,allocate failure,(nil),1099511627776,0x0
 * Out: the header is GL_REC_NONE; a row is a gl_memev. Time is a time of
 * day (GL_FMT_TIME_OF_DAY); a Time that carries a date,
 * "2025-11-16 22:30:49.650739", is taken as an absolute UTC time. Pointer
 * is printed by %p, so a null pointer is "(nil)". Columns after Stream (later
 * RMM versions may append some) are ignored.
 */
#include "format.h"

#include <string.h>
#include <strings.h>

#include "textfmt.h"

enum { COL_THREAD, COL_TIME, COL_ACTION, COL_POINTER, COL_SIZE, COL_STREAM, NCOLS };

static const char *const col_names[NCOLS] = {
	"Thread", "Time", "Action", "Pointer", "Size", "Stream",
};

/* Splits line into its first NCOLS fields; returns how many fields the line has (capped). */
static size_t split(const char *line, size_t len, struct gl_str *col)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len && n < NCOLS; i++) {
		if (i == len || line[i] == ',') {
			col[n].p = line + start;
			col[n].len = i - start;
			n++;
			start = i + 1;
		}
	}
	/* Extra columns after Stream: the sixth field ends at the next comma. */
	return n;
}

static int parse_action(struct gl_str s, enum gl_mem_action *a)
{
	static const struct {
		const char *name;
		enum gl_mem_action action;
	} tab[] = {
		{ "allocate", GL_MEM_ALLOC },
		{ "free", GL_MEM_FREE },
		{ "allocate failure", GL_MEM_ALLOC_FAIL },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (s.len == strlen(tab[i].name) && memcmp(s.p, tab[i].name, s.len) == 0) {
			*a = tab[i].action;
			return 0;
		}
	}
	return -1;
}

/* "22:30:49.650739", or with a date "2025-11-16 22:30:49.650739" (absolute). */
static int parse_time(struct gl_parse_ctx *ctx, struct gl_str s, int64_t *ts_us, int apply)
{
	int64_t tod_us;

	if (gl_textfmt_tod(s.p, s.len, '.', &tod_us) == 0) {
		if (apply)
			*ts_us = gl_ctx_time_of_day(ctx, tod_us);
		return 0;
	}
	return gl_time_parse_rfc3339(s.p, s.len, ts_us);
}

static int parse_ptr(struct gl_str s, uint64_t *v)
{
	if (s.len == 5 && memcmp(s.p, "(nil)", 5) == 0) {
		*v = 0;
		return 0;
	}
	return gl_textfmt_hex(s.p, s.len, v);
}

/* Stream as hex; a null stream may print as "0" or "(nil)". */
static int parse_stream(struct gl_str s, uint64_t *v)
{
	if (s.len == 1 && s.p[0] == '0') {
		*v = 0;
		return 0;
	}
	return parse_ptr(s, v);
}

static int is_header(const struct gl_str *col, size_t n)
{
	if (n < NCOLS)
		return 0;
	for (size_t i = 0; i < NCOLS; i++) {
		struct gl_str c = gl_textfmt_trim(col[i].p, col[i].len);

		if (c.len != strlen(col_names[i]) || strncasecmp(c.p, col_names[i], c.len) != 0)
			return 0;
	}
	return 1;
}

static void rmmcsv_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			 struct gl_rec *rec)
{
	struct gl_str col[NCOLS];
	struct gl_memev *m = &rec->mem;
	size_t n;
	uint64_t u;
	int64_t ts;
	enum gl_mem_action act;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	memset(m, 0, sizeof(*m));
	if (len == 0) {
		rec->kind = GL_REC_NONE;
		return;
	}
	n = split(line, len, col);
	if (is_header(col, n)) {
		rec->kind = GL_REC_NONE;
		return;
	}
	/*
	 * A row of this CSV has six fields and a Time or an Action that reads
	 * as one; anything else is some other text.
	 */
	if (n < NCOLS || (parse_time(ctx, col[COL_TIME], &ts, 0) < 0 &&
			  parse_action(col[COL_ACTION], &act) < 0))
		return;
	rec->kind = GL_REC_REJECT;
	if (gl_textfmt_u64(col[COL_THREAD].p, col[COL_THREAD].len, &u) < 0 || u > INT64_MAX) {
		rec->reason = "Thread: not a thread id";
		return;
	}
	m->thread = (int64_t)u;
	if (parse_time(ctx, col[COL_TIME], &ts, 0) < 0) {
		rec->reason = "Time: not HH:MM:SS.micros";
		return;
	}
	if (parse_action(col[COL_ACTION], &m->action) < 0) {
		rec->reason = "Action: not allocate, free or allocate failure";
		return;
	}
	if (parse_ptr(col[COL_POINTER], &m->ptr) < 0) {
		rec->reason = "Pointer: not a hex address or (nil)";
		return;
	}
	if (gl_textfmt_u64(col[COL_SIZE].p, col[COL_SIZE].len, &u) < 0 || u > INT64_MAX) {
		rec->reason = "Size: not a byte count";
		return;
	}
	m->size_bytes = (int64_t)u;
	if (parse_stream(col[COL_STREAM], &m->cuda_stream) < 0) {
		rec->reason = "Stream: not a hex stream handle";
		return;
	}
	/* Only a row that is whole moves the day clock. */
	parse_time(ctx, col[COL_TIME], &m->ts_us, 1);
	rec->reason = NULL;
	rec->kind = GL_REC_MEM;
}

const struct gl_format gl_fmt_rmmcsv = {
	.name = "rmmcsv",
	.summary = "RAPIDS RMM memory events CSV: Thread,Time,Action,Pointer,Size,Stream",
	.flags = GL_FMT_TIME_OF_DAY,
	.parse = rmmcsv_parse,
};
