/*
 * fmt_nvsmi.c - `nvidia-smi --query-gpu=... --format=csv`: one row per GPU
 * per sample.
 *
 * In, units in the header and in the values, the header before every row
 * when the script calls nvidia-smi once per sample:
 *     timestamp, index, name, pci.bus_id, utilization.gpu [%], memory.used [MiB], memory.total [MiB]
 *     2023/06/22 18:56:56.252, 0, NVIDIA GeForce RTX 2070, 00000000:01:00.0, 22 %, 841 MiB, 8192 MiB
 * `-l 1` with the header once: "2026/06/11 15:24:31.269, 20.13 W, 33, 195 MHz, ..., P8";
 * `noheader,nounits` with four GPUs per sample and no index column (the
 * columns come from the ingest config, ctx->hint->columns):
 *     2025/09/08 14:14:37.120, 0, 11409
 *     2025/09/08 14:14:37.121, 0, 10851
 * and a Windows cmd.exe transcript (CRLF, removed by the reader) whose CSV
 * blocks have no timestamp column; the time is in the `date /T` and
 * `time /T` echoes before each block, on a 12-hour clock:
 *     C:\Users\dustin\Desktop\monitoring>date /T
 *     Tue 08/18/2020
 *     C:\Users\dustin\Desktop\monitoring>time /T
 *     03:44 PM
 *     C:\Users\dustin\Desktop\monitoring>nvidia-smi --query-gpu=utilization.gpu,... --format=csv
 *     utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.free [MiB], memory.used [MiB]
 *     0 %, 0 %, 11264 MiB, 11049 MiB, 215 MiB
 * Out: headers, prompts and echoes are GL_REC_NONE; a row is
 * GL_REC_SAMPLES, one sample per metric column with a value (names from
 * vocab.c; `[N/A]`, `[Not Supported]`, `N/A` are missing). device = the
 * index column, else the row's place among the rows of its sample (GPU 0,
 * 1, ...). A sample ends at a header, at a date/time echo, when the
 * timestamp moves on by more than 50 ms (nvidia-smi stamps each GPU's row
 * separately, a few ms apart), or when a uuid or pci.bus_id repeats.
 * uuid, name and pci.bus_id are labels. `--query-compute-apps=timestamp,gpu_uuid,pid,
 *     process_name,used_gpu_memory`, one row per process on a GPU:
 *     2026/11/26 15:46:43.012, GPU-9a490a6e-de65-ed0f-6014-06ebea8fd5d8, 70001, python3, 1530 MiB
 * gives compute_apps.memory_used_mib with device = the GPU's uuid (as
 * written: that output has no index) and labels {"uuid", "pid", "command"};
 * a reason column of --query-gpu, "Active" / "Not Active", is 1 / 0. Timestamps are naive local time
 * (ctx->tz_name). Rows without any time take the config's start +
 * k * interval_s; else they are rejected. The column map, the GPU counter
 * and the echoed time live in ctx->state, so a run that stops between two
 * rows of one sample goes on where it stopped.
 */
#include "format.h"

#include <stdio.h>
#include <string.h>

#include "telem.h"
#include "textfmt.h"

#define NVSMI_MAGIC 0x69736d6eu	/* "nmsi" */
#define GROUP_GAP_US 50000

static int tok_is(struct gl_str t, const char *s)
{
	return t.len == strlen(s) && memcmp(t.p, s, t.len) == 0;
}

/* Splits a CSV line at commas into trimmed fields; returns the count (max + 1: more). */
static size_t split_csv(const char *line, size_t len, struct gl_str *f, size_t max)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i == len || line[i] == ',') {
			if (n == max)
				return max + 1;
			f[n++] = gl_textfmt_trim(line + start, i - start);
			start = i + 1;
		}
	}
	return n;
}

/*
 * A header field: "utilization.gpu [%]" or "timestamp". Sets *name to the
 * field name without its unit. Returns 0, or -1 when it is not one.
 */
static int header_field(struct gl_str f, struct gl_str *name)
{
	size_t i = 0;

	while (i < f.len && ((f.p[i] >= 'a' && f.p[i] <= 'z') || (f.p[i] >= '0' && f.p[i] <= '9') ||
			     f.p[i] == '.' || f.p[i] == '_'))
		i++;
	if (!i || (f.p[0] >= '0' && f.p[0] <= '9'))
		return -1;
	name->p = f.p;
	name->len = i;
	if (i == f.len)
		return 0;
	/* " [unit]" */
	if (f.len - i < 3 || f.p[i] != ' ' || f.p[i + 1] != '[' || f.p[f.len - 1] != ']')
		return -1;
	for (size_t j = i + 2; j < f.len - 1; j++)
		if (f.p[j] == '[' || f.p[j] == ']')
			return -1;
	return 0;
}

static enum gl_telem_kind field_kind(struct gl_str name)
{
	if (tok_is(name, "timestamp"))
		return GL_TK_TS;
	if (tok_is(name, "index"))
		return GL_TK_GPU;
	if (tok_is(name, "uuid") || tok_is(name, "gpu_uuid"))
		return GL_TK_UUID;
	/* --query-compute-apps: one row per process on a GPU */
	if (tok_is(name, "pid"))
		return GL_TK_PID;
	if (tok_is(name, "process_name"))
		return GL_TK_CMD;
	if (tok_is(name, "name") || tok_is(name, "gpu_name"))
		return GL_TK_NAME;
	if (tok_is(name, "pci.bus_id") || tok_is(name, "gpu_bus_id"))
		return GL_TK_PCI;
	return GL_TK_METRIC;
}

/*
 * Whether the fields are a header: all field names, one of them nvidia-smi's
 * own (timestamp, uuid, pci.bus_id or a vocabulary field).
 */
static int is_header(const struct gl_str *f, size_t n)
{
	int known = 0;
	struct gl_str name;

	for (size_t i = 0; i < n; i++) {
		if (header_field(f[i], &name) < 0)
			return 0;
		/* "name" or "index" alone are any CSV's ("name,value") */
		known |= tok_is(name, "timestamp") || tok_is(name, "uuid") || tok_is(name, "pci.bus_id") ||
			 tok_is(name, "gpu_uuid") || tok_is(name, "gpu_bus_id") ||
			 gl_vocab_lookup(GL_VOCAB_NVSMI, name.p, name.len, NULL) != NULL;
	}
	return known;
}

/* Takes the columns f[0..n) (header fields or the config's names) into st. Returns 0, or -1. */
static int take_columns(struct gl_telem_state *st, const struct gl_str *f, size_t n)
{
	struct gl_str name;

	gl_telem_cols_reset(st);
	gl_telem_group_break(st);
	for (size_t i = 0; i < n; i++) {
		if (header_field(f[i], &name) < 0 ||
		    gl_telem_col_add(st, field_kind(name), GL_VOCAB_NVSMI, name.p, name.len) < 0) {
			gl_telem_cols_reset(st);
			return -1;
		}
	}
	st->has_header = 1;
	return 0;
}

static int two_digits(const char *p, unsigned *v)
{
	if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
		return -1;
	*v = (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0');
	return 0;
}

/* "2023/06/22 18:56:56.252": naive µs. Returns 0, or -1. */
static int parse_ts(struct gl_str s, int64_t *us)
{
	unsigned y1, y2, mo, d;
	int64_t tod;

	if (s.len < 19 || s.p[4] != '/' || s.p[7] != '/' || s.p[10] != ' ' || two_digits(s.p, &y1) < 0 ||
	    two_digits(s.p + 2, &y2) < 0 || two_digits(s.p + 5, &mo) < 0 || two_digits(s.p + 8, &d) < 0 ||
	    !gl_civil_valid(y1 * 100 + y2, mo, d) || gl_textfmt_tod(s.p + 11, s.len - 11, '.', &tod) < 0)
		return -1;
	*us = gl_days_from_civil(y1 * 100 + y2, mo, d) * GL_US_PER_DAY + tod;
	return 0;
}

/* `date /T`: "Tue 08/18/2020" or "08/18/2020" (US order): naive midnight. */
static int parse_echo_date(struct gl_str s, int64_t *us)
{
	unsigned mo, d, y1, y2;

	if (s.len > 4 && s.p[3] == ' ') {
		s.p += 4;
		s.len -= 4;
	}
	if (s.len != 10 || s.p[2] != '/' || s.p[5] != '/' || two_digits(s.p, &mo) < 0 ||
	    two_digits(s.p + 3, &d) < 0 || two_digits(s.p + 6, &y1) < 0 || two_digits(s.p + 8, &y2) < 0 ||
	    !gl_civil_valid(y1 * 100 + y2, mo, d))
		return -1;
	*us = gl_days_from_civil(y1 * 100 + y2, mo, d) * GL_US_PER_DAY;
	return 0;
}

/* `time /T`: "03:44 PM" (12-hour) or "15:44" (24-hour): µs since midnight. */
static int parse_echo_time(struct gl_str s, int64_t *tod)
{
	unsigned h, m;

	if (s.len < 5 || s.p[2] != ':' || two_digits(s.p, &h) < 0 || two_digits(s.p + 3, &m) < 0 || m > 59)
		return -1;
	if (s.len == 8 && s.p[5] == ' ' && (s.p[6] == 'A' || s.p[6] == 'P') && s.p[7] == 'M') {
		if (h < 1 || h > 12)
			return -1;
		h = h % 12 + (s.p[6] == 'P' ? 12 : 0);
	} else if (s.len != 5 || h > 23) {
		return -1;
	}
	*tod = ((int64_t)h * 60 + m) * 60 * GL_US_PER_S;
	return 0;
}

/* A cmd.exe prompt: "C:\Users\dustin\Desktop\monitoring>date /T"; sets *cmd. */
static int is_prompt(struct gl_str s, struct gl_str *cmd)
{
	const char *gt;

	if (s.len < 4 || !((s.p[0] >= 'A' && s.p[0] <= 'Z') || (s.p[0] >= 'a' && s.p[0] <= 'z')) ||
	    s.p[1] != ':' || s.p[2] != '\\')
		return 0;
	gt = memchr(s.p, '>', s.len);
	if (!gt)
		return 0;
	*cmd = gl_textfmt_trim(gt + 1, (size_t)(s.p + s.len - gt - 1));
	return 1;
}

/*
 * A value of a column outside the vocabulary that is still a number: "P8" (pstate), "0x..4"
 * (clocks_event_reasons.active, a bit mask), "Active" / "Not Active" (one reason's column,
 * clocks_event_reasons.sw_thermal_slowdown): 1 / 0.
 */
static int loose_number(struct gl_str v, double *d)
{
	uint64_t u;

	if (gl_telem_number(v, d) == 0)
		return 0;
	if (tok_is(v, "Active") || tok_is(v, "Not Active")) {
		*d = tok_is(v, "Active");
		return 0;
	}
	if (v.len >= 2 && v.p[0] == 'P' && gl_textfmt_u64(v.p + 1, v.len - 1, &u) == 0) {
		*d = (double)u;
		return 0;
	}
	if (gl_textfmt_hex(v.p, v.len, &u) == 0) {
		*d = (double)u;
		return 0;
	}
	return -1;
}

static void set_reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
	rec->n_samples = 0;
}

/* A row of the transcript echoes or the prompt; returns 1 when the line was one. */
static int transcript_line(struct gl_parse_ctx *ctx, struct gl_telem_state *st, struct gl_str s,
			   struct gl_rec *rec)
{
	struct gl_str cmd;
	int64_t v;

	if (is_prompt(s, &cmd)) {
		if (!st && !(st = gl_telem_state_new(ctx, NVSMI_MAGIC)))
			return 0;
		st->expect = tok_is(cmd, "date /T") || tok_is(cmd, "date /t") ? 1
			   : tok_is(cmd, "time /T") || tok_is(cmd, "time /t") ? 2 : 0;
		rec->kind = GL_REC_NONE;
		return 1;
	}
	if (!st || !st->expect)
		return 0;
	if (st->expect == 1) {
		st->expect = 0;
		if (parse_echo_date(s, &v) < 0) {
			set_reject(rec, "date /T output: not [Day ]MM/DD/YYYY");
			return 1;
		}
		st->echo_day_us = v;
	} else {
		st->expect = 0;
		if (parse_echo_time(s, &v) < 0 || st->echo_day_us == GL_TS_NONE) {
			set_reject(rec, st->echo_day_us == GL_TS_NONE ? "time /T output without a date /T before it"
								    : "time /T output: not HH:MM AM/PM or HH:MM");
			return 1;
		}
		st->echo_us = gl_telem_to_utc(ctx, st, st->echo_day_us + v);
		gl_telem_group_break(st);
	}
	rec->kind = GL_REC_NONE;
	return 1;
}

/*
 * Builds {"uuid":..,"name":..,"pci_bus_id":..,"pid":..,"command":..} of the present ones into
 * ctx scratch.
 */
static struct gl_str make_labels(struct gl_parse_ctx *ctx, struct gl_str uuid, struct gl_str name,
				 struct gl_str pci, struct gl_str pid, struct gl_str cmd)
{
	struct gl_str out = {NULL, 0};
	struct gl_jsonw w;
	char *buf = NULL;

	if (!uuid.p && !name.p && !pci.p && !pid.p)
		return out;
	for (int pass = 0; pass < 2; pass++) {
		gl_jsonw_begin(&w, buf, buf ? out.len + 1 : 0);
		if (uuid.p)
			gl_jsonw_str(&w, "uuid", uuid.p, uuid.len);
		if (name.p)
			gl_jsonw_str(&w, "name", name.p, name.len);
		if (pci.p)
			gl_jsonw_str(&w, "pci_bus_id", pci.p, pci.len);
		if (pid.p)
			gl_jsonw_str(&w, "pid", pid.p, pid.len);
		if (cmd.p)
			gl_jsonw_str(&w, "command", cmd.p, cmd.len);
		gl_jsonw_end(&w);
		if (pass == 0) {
			out.len = w.len;
			buf = gl_ctx_scratch(ctx, out.len + 1);
			if (!buf)
				return out;
		}
	}
	out.p = buf;
	return out;
}

static void nvsmi_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct gl_str f[GL_TELEM_MAX_COLS + 1], s, dev = {NULL, 0}, uuid = {NULL, 0};
	struct gl_str name = {NULL, 0}, pci = {NULL, 0}, tscol = {NULL, 0};
	struct gl_str pid = {NULL, 0}, cmd = {NULL, 0};
	struct gl_telem_state *st = gl_telem_state(ctx, NVSMI_MAGIC);
	struct gl_sample *smp;
	size_t n, nm = 0, k = 0;
	int64_t naive, ts = GL_TS_NONE, grp;
	int estimated = 0;	/* the time is the config's start + k * interval_s */
	uint64_t key = 0;
	int64_t dummy;
	uint64_t u;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	rec->n_samples = 0;
	s = gl_textfmt_trim(line, len);
	if (!s.len) {
		rec->kind = GL_REC_NONE;
		return;
	}
	if (transcript_line(ctx, st, s, rec))
		return;
	n = split_csv(s.p, s.len, f, GL_TELEM_MAX_COLS);
	if (n <= GL_TELEM_MAX_COLS && is_header(f, n)) {
		if (!st && !(st = gl_telem_state_new(ctx, NVSMI_MAGIC)))
			return;
		rec->kind = GL_REC_NONE;
		if (take_columns(st, f, n) < 0)
			set_reject(rec, "header: too many columns");
		return;
	}
	if ((!st || !st->has_header) && ctx->hint && ctx->hint->n_columns) {
		/* noheader: the columns the ingest config names */
		struct gl_str hc[GL_TELEM_MAX_COLS];
		size_t nh = ctx->hint->n_columns;

		if (!st && !(st = gl_telem_state_new(ctx, NVSMI_MAGIC)))
			return;
		for (size_t i = 0; i < nh && i < GL_TELEM_MAX_COLS; i++)
			hc[i] = gl_textfmt_trim(ctx->hint->columns[i], strlen(ctx->hint->columns[i]));
		if (nh > GL_TELEM_MAX_COLS || take_columns(st, hc, nh) < 0) {
			set_reject(rec, "the ingest config's \"columns\" are not nvidia-smi field names");
			return;
		}
	}
	if (!st || !st->has_header) {
		/* a row of "noheader" output: it starts with nvidia-smi's timestamp */
		if (n && parse_ts(f[0], &dummy) == 0)
			set_reject(rec, "CSV without a header: give its columns in the ingest config "
					"(\"columns\")");
		return;
	}
	if (n != st->ncols) {
		if (n && parse_ts(f[0], &dummy) == 0)
			set_reject(rec, n < st->ncols ? "fewer fields than the header"
						      : "more fields than the header");
		return;
	}
	for (size_t i = 0; i < st->ncols; i++)
		nm += st->kind[i] == GL_TK_METRIC;
	smp = gl_ctx_samples(ctx, nm ? nm : 1);
	if (!smp) {
		set_reject(rec, "out of memory");
		return;
	}
	for (size_t i = 0; i < st->ncols; i++) {
		struct gl_str v = f[i], mname;
		double d;

		switch (st->kind[i]) {
		case GL_TK_TS:
			tscol = v;
			break;
		case GL_TK_GPU:
			if (gl_textfmt_u64(v.p, v.len, &u) < 0) {
				set_reject(rec, "index: not a GPU index");
				return;
			}
			dev = v;
			break;
		case GL_TK_UUID:
			if (!gl_telem_missing(v))
				uuid = v;
			break;
		case GL_TK_NAME:
			if (!gl_telem_missing(v))
				name = v;
			break;
		case GL_TK_PCI:
			if (!gl_telem_missing(v))
				pci = v;
			break;
		case GL_TK_PID:
			if (!gl_telem_missing(v))
				pid = v;
			break;
		case GL_TK_CMD:
			if (!gl_telem_missing(v))
				cmd = v;
			break;
		case GL_TK_METRIC:
			if (gl_telem_missing(v))
				break;
			mname = gl_telem_col_name(st, i);
			if (gl_vocab_unit(mname.p)) {
				if (gl_telem_number(v, &d) < 0) {
					char *buf = gl_ctx_scratch(ctx, 96);

					set_reject(rec, "a value is not a number");
					if (buf) {
						snprintf(buf, 96, "%.60s: not a number", mname.p);
						rec->reason = buf;
					}
					return;
				}
			} else if (loose_number(v, &d) < 0) {
				break;	/* text: driver_version, compute_mode, ... */
			}
			smp[k].metric = mname;
			smp[k].value = d * st->scale[i];
			k++;
			break;
		default:
			break;
		}
	}
	if (tscol.p) {
		if (parse_ts(tscol, &naive) < 0) {
			set_reject(rec, "timestamp: not YYYY/MM/DD HH:MM:SS.mmm");
			return;
		}
		if (st->prev_naive_us != GL_TS_NONE &&
		    (naive - st->prev_naive_us > GROUP_GAP_US || naive < st->prev_naive_us))
			gl_telem_group_break(st);
		st->prev_naive_us = naive;
		ts = gl_telem_to_utc(ctx, st, naive);
	}
	/* the row's place in its sample: its GPU when there is no index column */
	if (uuid.p || pci.p)
		key = gl_telem_hash(uuid.p ? uuid.p : pci.p, uuid.p ? uuid.len : pci.len);
	else if (dev.p)
		key = gl_telem_hash(dev.p, dev.len);
	else
		key = 0x9e3779b97f4a7c15ULL * (st->in_group + 1);
	if (pid.p)
		key ^= gl_telem_hash(pid.p, pid.len) * 31;
	grp = gl_telem_group_row(st, key);
	/* a process row names its GPU by uuid (or bus id), not by its place among the rows */
	if (!dev.p && pid.p && (uuid.p || pci.p))
		dev = uuid.p ? uuid : pci;
	if (!dev.p) {
		char *buf = gl_ctx_scratch(ctx, 12);

		if (!buf) {
			set_reject(rec, "out of memory");
			return;
		}
		dev.len = (size_t)snprintf(buf, 12, "%u", (unsigned)(st->in_group - 1));
		dev.p = buf;
	}
	if (!tscol.p) {
		if (st->echo_us != GL_TS_NONE)
			ts = st->echo_us;
		else if (gl_telem_hint_time(ctx, grp, &ts) < 0) {
			set_reject(rec, "no time: add timestamp to --query-gpu, "
					"or give start and interval_s in the ingest config");
			return;
		} else
			estimated = 1;
	}
	struct gl_str labels = make_labels(ctx, uuid, name, pci, pid, cmd);

	for (size_t i = 0; i < k; i++) {
		smp[i].ts_us = ts;
		smp[i].ts_estimated = estimated;
		smp[i].device = dev;
		smp[i].labels = labels;
	}
	rec->samples = smp;
	rec->n_samples = k;
	rec->kind = k ? GL_REC_SAMPLES : GL_REC_NONE;
}

const struct gl_format gl_fmt_nvsmi = {
	.name = "nvsmi",
	.summary = "nvidia-smi --query-gpu CSV (units or nounits, header or config columns)",
	.flags = GL_FMT_HEADER_ONCE,
	.parse = nvsmi_parse,
};
