/*
 * fmt_nsys.c - Nsight Systems GPU traces: the CSV that
 * `nsys stats --report cuda_gpu_trace --format csv` writes, one row per
 * kernel, memcpy and memset on the GPU, in start order.
 *
 * In (nsys 2024, report cuda_gpu_trace:base, an RTX A4500):
 *     Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name
 *     1949099896,3552,142,,,,,,,,,,0.038,10594.575,Pageable,Device,NVIDIA RTX A4500 (0),1,,7,[CUDA memcpy Host-to-Device]
 *     1964193548,2080,2373,,,,,,,,,,0.011,5169.228,Device,,NVIDIA RTX A4500 (0),1,,13,[CUDA memset]
 *     2486442167,16064,40394,16,2,3,256,1,1,82,0.027,0.000,,,,,NVIDIA RTX A4500 (0),1,,7,ampere_sgemm_64x32_sliced1x4_tn
 * Out: the header is GL_REC_NONE; a row is a kernel timing (GL_REC_EVENT,
 * source nsys, component "nsys"): kernel = Name as written (memcpy and
 * memset rows keep their bracketed names), dur_us, corr_id, grid and block
 * "x,y,z", registers, shared_mem_bytes (static + dynamic), device (the
 * index in "NVIDIA RTX A4500 (0)", else the whole text), stream; metadata
 * {"device_name", "context", "green_context", "bytes", "src_mem_kind",
 * "dst_mem_kind"} with what the row has.
 *
 * Quirks:
 * - Columns are found by name in the header, units in parentheses: times
 *   "(ns)" (also us, ms, s with --timeunit), memory "(MB)" in SI units
 *   (DymSMem 0.049 is 49,152 B), throughput "(MB/s)" or "(MBps)". Versions
 *   add columns (GreenCtx, Pid) and name CorrId "CorrID": unknown columns
 *   are ignored. The map is kept in ctx->state, for a later run that
 *   continues the file after its header.
 * - Memory columns carry three decimals of MB; memcpy bytes are taken from
 *   the throughput instead, which nsys computes as bytes * (1e9 / duration):
 *   "0.011,5169.228" over 2080 ns is 10,752 bytes, where 0.011 says only
 *   11,000 +- 500.
 * - Kernel and memcpy rows leave each other's columns empty.
 * - Names with commas (templates, when the report is not :base) are quoted
 *   by nsys, with "" for a quote.
 * Time: Start is ns since the profiling session began, not a wall clock.
 * The file is placed so that its last row's end (Start + Duration) falls at
 * the file's modification time: nsys writes the report after the run ends.
 * The prepare hook reads the header and the last row; the offset it gives
 * is kept in ctx->state, so a later run of a grown file keeps it. Without
 * prepare, the first row read ends at the modification time.
 */
#define _GNU_SOURCE	/* memmem */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "textfmt.h"
#include "tracetail.h"

#define NS_MAX_COLS 40

enum ns_col {
	C_SKIP = 0, C_START, C_DUR, C_CORR, C_GRDX, C_GRDY, C_GRDZ, C_BLKX, C_BLKY, C_BLKZ,
	C_REG, C_SSMEM, C_DSMEM, C_BYTES, C_THRU, C_SRCKD, C_DSTKD, C_DEVICE, C_CTX, C_GREEN,
	C_STRM, C_NAME, C_N
};

/* Header names without their unit; several spellings across nsys versions. */
static const struct {
	const char *name;
	enum ns_col col;
} col_names[] = {
	{"Start", C_START}, {"Duration", C_DUR}, {"CorrId", C_CORR}, {"CorrID", C_CORR},
	{"GrdX", C_GRDX}, {"GrdY", C_GRDY}, {"GrdZ", C_GRDZ},
	{"BlkX", C_BLKX}, {"BlkY", C_BLKY}, {"BlkZ", C_BLKZ},
	{"Reg/Trd", C_REG}, {"StcSMem", C_SSMEM}, {"DymSMem", C_DSMEM},
	{"Bytes", C_BYTES}, {"Throughput", C_THRU}, {"Thru", C_THRU},
	{"SrcMemKd", C_SRCKD}, {"DstMemKd", C_DSTKD}, {"Device", C_DEVICE},
	{"Ctx", C_CTX}, {"GreenCtx", C_GREEN}, {"Strm", C_STRM}, {"Name", C_NAME},
};

static const char ns_magic[4] = {'N', 'S', 'Y', '1'};

/* ctx->state: plain bytes kept across runs. */
struct ns_state {
	char magic[4];
	uint8_t has_header;
	uint8_t ncols;
	uint8_t has_anchor;
	uint8_t has_last;
	int64_t anchor_us;		/* UTC µs of the session's time 0 */
	double last_end_ns;		/* prepare: the last row's Start + Duration */
	uint8_t kind[NS_MAX_COLS];	/* enum ns_col per column */
	double scale[NS_MAX_COLS];	/* times: to ns; memory: to bytes; throughput: to B/s */
};

_Static_assert(sizeof(struct ns_state) <= GL_PARSE_STATE_MAX, "nsys state fits ctx->state");

static struct ns_state *nstate(struct gl_parse_ctx *ctx)
{
	struct ns_state *st = (struct ns_state *)ctx->state;

	if (ctx->state_len != sizeof(*st) || memcmp(st->magic, ns_magic, 4) != 0) {
		memset(st, 0, sizeof(*st));
		memcpy(st->magic, ns_magic, 4);
		ctx->state_len = sizeof(*st);
	}
	return st;
}

/* A CSV field: quoted ("a,b") or not; quoted says whether "" may be inside. */
struct field {
	struct gl_str s;
	int quoted;
};

/*
 * Splits a CSV line (RFC 4180 quoting) into at most max fields. Returns the
 * number of fields (max + 1 when there are more), or -1 for an unclosed quote.
 */
static long split(const char *line, size_t len, struct field *f, size_t max)
{
	size_t n = 0, i = 0;

	for (;;) {
		struct field cur = {{line + i, 0}, 0};

		if (i < len && line[i] == '"') {
			size_t j = ++i;

			cur.quoted = 1;
			for (;;) {
				if (j >= len)
					return -1;
				if (line[j] == '"') {
					if (j + 1 < len && line[j + 1] == '"') {
						j += 2;
						continue;
					}
					break;
				}
				j++;
			}
			cur.s = (struct gl_str){line + i, j - i};
			i = j + 1;
			if (i < len && line[i] != ',')
				return -1;
		} else {
			const char *c = memchr(line + i, ',', len - i);
			size_t end = c ? (size_t)(c - line) : len;

			cur.s = (struct gl_str){line + i, end - i};
			i = end;
		}
		if (n == max)
			return (long)max + 1;
		f[n++] = cur;
		if (i >= len)
			return (long)n;
		i++;	/* the comma */
		if (i == len) {
			if (n == max)
				return (long)max + 1;
			f[n++] = (struct field){{line + i, 0}, 0};
			return (long)n;
		}
	}
}

/* The field's text, "" unescaped into scratch when needed. */
static struct gl_str text(struct gl_parse_ctx *ctx, const struct field *f)
{
	char *out;
	size_t k = 0;

	if (!f->quoted || !memchr(f->s.p, '"', f->s.len))
		return f->s;
	if (!(out = gl_ctx_scratch(ctx, f->s.len)))
		return f->s;
	for (size_t i = 0; i < f->s.len; i++) {
		out[k++] = f->s.p[i];
		if (f->s.p[i] == '"')
			i++;
	}
	return (struct gl_str){out, k};
}

static int eq(struct gl_str s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.p, lit, s.len) == 0;
}

struct unit {
	const char *unit;
	double scale;
};

static const struct unit time_units[] = {
	{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"\xce\xbcs", 1e3}, {"ms", 1e6},
	{"s", 1e9}, {"sec", 1e9}, {NULL, 0},
};
static const struct unit mem_units[] = {
	{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {NULL, 0},
};
static const struct unit thru_units[] = {
	{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
	{"KBps", 1e3}, {"MBps", 1e6}, {"GBps", 1e9}, {NULL, 0},
};

/* The multiplier of a unit in parentheses to ns, bytes or B/s; 0: unknown. */
static double unit_scale(enum ns_col col, struct gl_str u)
{
	const struct unit *tab;

	switch (col) {
	case C_START:
	case C_DUR:
		tab = time_units;
		break;
	case C_SSMEM:
	case C_DSMEM:
	case C_BYTES:
		tab = mem_units;
		break;
	case C_THRU:
		tab = thru_units;
		break;
	default:
		return 1;
	}
	for (; tab->unit; tab++)
		if (eq(u, tab->unit))
			return tab->scale;
	return 0;
}

/*
 * The header: "Start (ns)" first, then the other columns, with Duration
 * and Name among them. Fills st's column map. Returns 0, or -1 when the
 * line is not an nsys cuda_gpu_trace header.
 */
static int header(struct ns_state *st, const struct field *f, long n)
{
	struct ns_state map;
	int seen[C_N] = {0};

	if (n < 3 || n > NS_MAX_COLS)
		return -1;
	memset(&map, 0, sizeof(map));
	for (long i = 0; i < n; i++) {
		struct gl_str name = gl_textfmt_trim(f[i].s.p, f[i].s.len), unit = {NULL, 0};
		const char *par = memchr(name.p, '(', name.len);

		if (par && name.p[name.len - 1] == ')') {
			unit = (struct gl_str){par + 1, (size_t)(name.p + name.len - 1 - (par + 1))};
			name = gl_textfmt_trim(name.p, (size_t)(par - name.p));
		}
		map.kind[i] = C_SKIP;
		map.scale[i] = 1;
		for (size_t k = 0; k < sizeof(col_names) / sizeof(col_names[0]); k++) {
			if (!eq(name, col_names[k].name))
				continue;
			map.kind[i] = (uint8_t)col_names[k].col;
			/* no unit: nsys' defaults, ns and MB */
			if (unit.p)
				map.scale[i] = unit_scale(col_names[k].col, unit);
			else if (col_names[k].col == C_START || col_names[k].col == C_DUR)
				map.scale[i] = 1;
			else
				map.scale[i] = unit_scale(col_names[k].col, (struct gl_str){"MB", 2});
			if (map.scale[i] == 0 || seen[col_names[k].col]++)
				return -1;	/* a unit we cannot read, or a column twice */
		}
	}
	if (map.kind[0] != C_START || !seen[C_DUR] || !seen[C_NAME])
		return -1;
	st->ncols = (uint8_t)n;
	st->has_header = 1;
	memcpy(st->kind, map.kind, sizeof(st->kind));
	memcpy(st->scale, map.scale, sizeof(st->scale));
	return 0;
}

/* A decimal number filling all of s (no sign for counts). Returns 0, or -1. */
static int number(struct gl_str s, double *v)
{
	char buf[64], *end;

	s = gl_textfmt_trim(s.p, s.len);
	if (!s.len || s.len >= sizeof(buf) || !((s.p[0] >= '0' && s.p[0] <= '9') || s.p[0] == '.'))
		return -1;
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' && isfinite(*v) ? 0 : -1;
}

/* "16", "2", "3" -> "16,2,3" in scratch; absent unless all three are numbers. */
static struct gl_str dims(struct gl_parse_ctx *ctx, const struct gl_str *d)
{
	size_t len = d[0].len + d[1].len + d[2].len + 2;
	double v;
	char *out;

	for (int i = 0; i < 3; i++)
		if (number(d[i], &v) < 0)
			return (struct gl_str){NULL, 0};
	if (!(out = gl_ctx_scratch(ctx, len)))
		return (struct gl_str){NULL, 0};
	memcpy(out, d[0].p, d[0].len);
	out[d[0].len] = ',';
	memcpy(out + d[0].len + 1, d[1].p, d[1].len);
	out[d[0].len + 1 + d[1].len] = ',';
	memcpy(out + d[0].len + d[1].len + 2, d[2].p, d[2].len);
	return (struct gl_str){out, len};
}

/* The GPU index of "NVIDIA RTX A4500 (0)" (sets *name to "NVIDIA RTX A4500"), else all of s. */
static struct gl_str device_id(struct gl_str s, struct gl_str *name)
{
	size_t i;

	*name = (struct gl_str){NULL, 0};
	if (s.len < 4 || s.p[s.len - 1] != ')')
		return s;
	for (i = s.len - 2; i > 0 && s.p[i] >= '0' && s.p[i] <= '9'; i--)
		;
	if (s.p[i] != '(' || i == s.len - 2 || i < 2 || s.p[i - 1] != ' ')
		return s;
	*name = gl_textfmt_trim(s.p, i - 1);
	return (struct gl_str){s.p + i + 1, s.len - i - 2};
}

/* Metadata of one row: what the event's columns do not hold. */
struct meta {
	struct gl_str device_name, ctx, green, src, dst;
	int64_t bytes;		/* -1: none */
};

static void meta_write(struct gl_jsonw *w, const struct meta *m, char *buf, size_t cap)
{
	gl_jsonw_begin(w, buf, cap);
	if (m->device_name.len)
		gl_jsonw_str(w, "device_name", m->device_name.p, m->device_name.len);
	if (m->ctx.len)
		gl_jsonw_str(w, "context", m->ctx.p, m->ctx.len);
	if (m->green.len)
		gl_jsonw_str(w, "green_context", m->green.p, m->green.len);
	if (m->bytes >= 0)
		gl_jsonw_int(w, "bytes", m->bytes);
	if (m->src.len)
		gl_jsonw_str(w, "src_mem_kind", m->src.p, m->src.len);
	if (m->dst.len)
		gl_jsonw_str(w, "dst_mem_kind", m->dst.p, m->dst.len);
	gl_jsonw_end(w);
}

static struct gl_str metadata(struct gl_parse_ctx *ctx, const struct meta *m)
{
	struct gl_jsonw w;
	char *out;

	meta_write(&w, m, NULL, 0);
	if (w.fields == 0 || !(out = gl_ctx_scratch(ctx, w.len)))
		return (struct gl_str){NULL, 0};
	meta_write(&w, m, out, w.len);
	return (struct gl_str){out, w.len};
}

static void reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
}

static void row(struct gl_parse_ctx *ctx, struct ns_state *st, const struct field *f, long n,
		struct gl_rec *rec)
{
	struct gl_str col[C_N] = {{NULL, 0}};
	double scale[C_N], start_ns = NAN, dur_ns = NAN, v, ss = NAN, ds = NAN, thru = NAN;
	struct gl_event *ev = &rec->ev;
	struct meta m = {.bytes = -1};

	if (n != st->ncols) {
		reject(rec, n > st->ncols ? "nsys row: more fields than the header"
					  : "nsys row: fewer fields than the header");
		return;
	}
	for (long i = 0; i < n; i++) {
		if (st->kind[i] == C_SKIP)
			continue;
		col[st->kind[i]] = st->kind[i] == C_NAME ? text(ctx, &f[i])
							 : gl_textfmt_trim(f[i].s.p, f[i].s.len);
		scale[st->kind[i]] = st->scale[i];
	}
	if (number(col[C_START], &start_ns) < 0 || number(col[C_DUR], &dur_ns) < 0) {
		reject(rec, "nsys row: Start or Duration is not a number");
		return;
	}
	if (!col[C_NAME].len) {
		reject(rec, "nsys row: no Name");
		return;
	}
	start_ns *= scale[C_START];
	dur_ns *= scale[C_DUR];
	if (!st->has_anchor) {
		double last = st->has_last ? st->last_end_ns : start_ns + dur_ns;

		st->anchor_us = ctx->file_mtime_us - (int64_t)floor(last / 1000.0);
		st->has_anchor = 1;
	}
	gl_event_init(ev);
	rec->kind = GL_REC_EVENT;
	ev->source = GL_SRC_NSYS;
	ev->level = GL_LEVEL_INFO;
	ev->component = (struct gl_str){"nsys", 4};
	ev->ts_us = st->anchor_us + (int64_t)floor(start_ns / 1000.0);
	ev->dur_us = dur_ns / 1000.0;
	ev->kernel = col[C_NAME];
	if (number(col[C_CORR], &v) == 0)
		ev->corr_id = (int64_t)v;
	if (number(col[C_REG], &v) == 0)
		ev->registers = (int64_t)v;
	if (col[C_SSMEM].len && number(col[C_SSMEM], &ss) == 0)
		ss *= scale[C_SSMEM];
	if (col[C_DSMEM].len && number(col[C_DSMEM], &ds) == 0)
		ds *= scale[C_DSMEM];
	if (!isnan(ss) || !isnan(ds))
		ev->shared_mem_bytes = llround((isnan(ss) ? 0 : ss) + (isnan(ds) ? 0 : ds));
	ev->grid = dims(ctx, &col[C_GRDX]);
	ev->block = dims(ctx, &col[C_BLKX]);
	if (col[C_DEVICE].len)
		ev->device = device_id(col[C_DEVICE], &m.device_name);
	if (col[C_STRM].len)
		ev->stream = col[C_STRM];
	m.ctx = col[C_CTX];
	m.green = col[C_GREEN];
	m.src = col[C_SRCKD];
	m.dst = col[C_DSTKD];
	if (col[C_THRU].len && number(col[C_THRU], &thru) == 0 && dur_ns > 0)
		m.bytes = llround(thru * scale[C_THRU] * dur_ns / 1e9);
	else if (col[C_BYTES].len && number(col[C_BYTES], &v) == 0)
		m.bytes = llround(v * scale[C_BYTES]);
	ev->metadata = metadata(ctx, &m);
}

/* A first field "Start (ns)", "Start": a header, perhaps. */
static int starts_start(struct gl_str s)
{
	s = gl_textfmt_trim(s.p, s.len);
	return s.len >= 5 && memcmp(s.p, "Start", 5) == 0;
}

static void nsys_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct field f[NS_MAX_COLS];
	struct ns_state *st;
	long n;

	ctx->hold = 0;
	rec->kind = GL_REC_FOREIGN;
	if (!len)
		return;
	n = split(line, len, f, NS_MAX_COLS);
	if (n > 0 && n <= NS_MAX_COLS && starts_start(f[0].s)) {
		struct ns_state hdr;

		memset(&hdr, 0, sizeof(hdr));
		if (header(&hdr, f, n) == 0) {
			/* a header (again): a new column map, the same clock */
			st = nstate(ctx);
			st->has_header = 1;
			st->ncols = hdr.ncols;
			memcpy(st->kind, hdr.kind, sizeof(st->kind));
			memcpy(st->scale, hdr.scale, sizeof(st->scale));
			rec->kind = GL_REC_NONE;
			return;
		}
	}
	/* Rows are only known after their header (this run's, or the state's). */
	if (ctx->state_len != sizeof(struct ns_state) || memcmp(ctx->state, ns_magic, 4) != 0)
		return;
	st = nstate(ctx);
	if (!st->has_header)
		return;
	if (n < 0) {
		reject(rec, "nsys row: unclosed quote");
		return;
	}
	row(ctx, st, f, n, rec);
}

/* --- prepare: the header and the last row, to place the session clock ------- */

struct tail {
	struct gl_parse_ctx *ctx;
	struct ns_state *st;
};

static void last_row(void *arg, const char *line, size_t len)
{
	struct tail *t = arg;
	struct field f[NS_MAX_COLS];
	struct gl_str start = {NULL, 0}, dur = {NULL, 0};
	double s_ns, d_ns, s_scale = 1, d_scale = 1;
	long n = split(line, len, f, NS_MAX_COLS);

	if (n != t->st->ncols)
		return;
	for (long i = 0; i < n; i++) {
		if (t->st->kind[i] == C_START) {
			start = f[i].s;
			s_scale = t->st->scale[i];
		} else if (t->st->kind[i] == C_DUR) {
			dur = f[i].s;
			d_scale = t->st->scale[i];
		}
	}
	if (number(start, &s_ns) < 0 || number(dur, &d_ns) < 0)
		return;
	t->st->last_end_ns = s_ns * s_scale + d_ns * d_scale;
	t->st->has_last = 1;
}

static int nsys_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct gl_reader *r = NULL;
	struct gl_err err;
	struct gl_line ln;
	struct gl_rec rec;
	struct ns_state *st;
	struct tail t;
	int rc;

	if (gl_reader_open(&r, path, &err) != GL_OK)
		return -1;
	/* the header: the first line that is one (a banner may come before) */
	for (int i = 0; i < 8 && (rc = gl_reader_next(r, &ln, &err)) == 1; i++) {
		memset(&rec, 0, sizeof(rec));
		nsys_parse(ctx, ln.p, ln.len, &rec);
		if (rec.kind == GL_REC_NONE)
			break;
	}
	gl_reader_close(r);
	st = nstate(ctx);
	if (!st->has_header)
		return -1;
	st->has_anchor = 0;
	st->has_last = 0;
	t.ctx = ctx;
	t.st = st;
	return gl_trace_tail(path, 16 * 1024, last_row, &t);
}

/*
 * The console transcript of `nsys profile --stats=true`: summary tables,
 * not a trace.
 *     Generating '/tmp/nsys-report-689b.qdstrm'
 *     [1/8] [========================100%] torch_gcn_profile_nsys.nsys-rep
 *     [3/8] Executing 'nvtx_sum' stats report
 */
static const char *nsys_refuse(const struct gl_str *lines, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = lines[i].p;
		size_t len = lines[i].len;

		if ((memmem(p, len, "Executing '", 11) && memmem(p, len, "' stats report", 14)) ||
		    (memmem(p, len, "Generating '", 12) && memmem(p, len, ".qdstrm'", 8)) ||
		    (memmem(p, len, "nsys profile", 12) && memmem(p, len, "--stats", 7)))
			return "an nsys --stats summary, not a trace: export with "
			       "nsys stats --report cuda_gpu_trace --format csv";
	}
	return NULL;
}

const struct gl_format gl_fmt_nsys = {
	.name = "nsys",
	.summary = "Nsight Systems GPU trace: nsys stats --report cuda_gpu_trace --format csv",
	.flags = 0,
	.parse = nsys_parse,
	.prepare = nsys_prepare,
	.refuse = nsys_refuse,
};
