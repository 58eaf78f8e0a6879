/*
 * telem.c - pieces shared by the telemetry formats (see telem.h).
 */
#include "telem.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "textfmt.h"

_Static_assert(sizeof(struct gl_telem_state) <= GL_PARSE_STATE_MAX,
	       "the telemetry state must fit in gl_parse_ctx.state");

struct gl_telem_state *gl_telem_state(struct gl_parse_ctx *ctx, uint32_t magic)
{
	struct gl_telem_state *st = (struct gl_telem_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != magic)
		return NULL;
	return st;
}

struct gl_telem_state *gl_telem_state_new(struct gl_parse_ctx *ctx, uint32_t magic)
{
	struct gl_telem_state *st = (struct gl_telem_state *)(void *)ctx->state;

	if (ctx->state_len && !(ctx->state_len == sizeof(*st) && st->magic == magic))
		return NULL;
	memset(st, 0, sizeof(*st));
	st->magic = magic;
	st->group = -1;
	st->prev_naive_us = GL_TS_NONE;
	st->echo_day_us = GL_TS_NONE;
	st->echo_us = GL_TS_NONE;
	st->zone_naive_s = INT64_MIN;
	ctx->state_len = sizeof(*st);
	return st;
}

void gl_telem_cols_reset(struct gl_telem_state *st)
{
	st->ncols = 0;
	st->pool_used = 0;
	st->has_header = 0;
}

int gl_telem_col_add(struct gl_telem_state *st, enum gl_telem_kind kind, enum gl_vocab_src src,
		     const char *field, size_t len)
{
	size_t i = st->ncols, n = 0;
	double scale = 1;

	if (i >= GL_TELEM_MAX_COLS)
		return -1;
	st->kind[i] = (uint8_t)kind;
	st->name_off[i] = st->pool_used;
	st->scale[i] = 1;
	if (kind == GL_TK_METRIC) {
		char *out = st->pool + st->pool_used;
		size_t cap = GL_TELEM_POOL - st->pool_used;

		n = gl_vocab_name(src, field, len, out, cap, &scale);
		for (size_t j = 0; n && j < i; j++) {
			if (st->kind[j] == GL_TK_METRIC && strcmp(st->pool + st->name_off[j], out) == 0) {
				/* a second column of one metric: its own name */
				const char *pre = gl_vocab_prefix(src);
				size_t plen = strlen(pre);

				n = 0;
				scale = 1;
				if (plen + 1 + len + 1 <= cap) {
					memcpy(out, pre, plen);
					out[plen] = '.';
					n = plen + 1;
					for (size_t k = 0; k < len; k++) {
						char c = field[k];

						if (c >= 'A' && c <= 'Z')
							c = (char)(c - 'A' + 'a');
						if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
						      c == '.' || c == '_'))
							c = '_';
						out[n++] = c;
					}
					out[n] = '\0';
				}
				break;
			}
		}
		if (!n)
			return -1;
		st->scale[i] = scale;
		st->pool_used = (uint16_t)(st->pool_used + n + 1);
	} else if (st->pool_used < GL_TELEM_POOL) {
		st->pool[st->pool_used] = '\0';
		st->pool_used++;
	} else {
		return -1;
	}
	st->ncols++;
	return 0;
}

size_t gl_telem_split_ws(const char *line, size_t len, struct gl_str *tok, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		if (n == max)
			return max + 1;
		tok[n].p = line + i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		tok[n].len = (size_t)(line + i - tok[n].p);
		n++;
	}
	return n;
}

int gl_telem_missing(struct gl_str v)
{
	if (v.len == 1 && v.p[0] == '-')
		return 1;
	if (v.len == 3 && memcmp(v.p, "N/A", 3) == 0)
		return 1;
	return v.len >= 2 && v.p[0] == '[' && v.p[v.len - 1] == ']';
}

int gl_telem_number(struct gl_str v, double *out)
{
	char buf[64], *end;
	size_t i = 0, n;
	double d;

	/* the number: sign, digits, point, exponent */
	while (i < v.len && i < sizeof(buf) - 1 &&
	       ((v.p[i] >= '0' && v.p[i] <= '9') || v.p[i] == '.' || v.p[i] == '-' || v.p[i] == '+' ||
		((v.p[i] == 'e' || v.p[i] == 'E') && i > 0)))
		i++;
	if (!i)
		return -1;
	memcpy(buf, v.p, i);
	buf[i] = '\0';
	d = strtod(buf, &end);
	if ((size_t)(end - buf) != i || !isfinite(d))
		return -1;
	/* then nothing, or one space and a unit without digits: "W", "%", "MiB", "KB/s" */
	if (i < v.len) {
		if (v.p[i] != ' ' || i + 1 == v.len)
			return -1;
		for (n = i + 1; n < v.len; n++) {
			char c = v.p[n];

			if ((c >= '0' && c <= '9') || c == ' ' || c == ',')
				return -1;
		}
	}
	*out = d;
	return 0;
}

int gl_telem_has_hint_time(const struct gl_parse_ctx *ctx)
{
	return ctx->hint && ctx->hint->start_us != GL_TS_NONE && isfinite(ctx->hint->interval_s) &&
	       ctx->hint->interval_s > 0;
}

int gl_telem_hint_time(const struct gl_parse_ctx *ctx, int64_t g, int64_t *ts_us)
{
	if (!gl_telem_has_hint_time(ctx) || g < 0)
		return -1;
	*ts_us = ctx->hint->start_us + (int64_t)llround((double)g * ctx->hint->interval_s * 1e6);
	return 0;
}

int64_t gl_telem_group_row(struct gl_telem_state *st, uint64_t key)
{
	int again = st->group < 0 || st->in_group == 0;

	for (uint32_t i = 0; !again && i < st->n_seen && i < GL_TELEM_SEEN; i++)
		again = st->seen[i] == key;
	if (again) {
		st->group++;
		st->n_seen = 0;
		st->in_group = 0;
	}
	if (st->n_seen < GL_TELEM_SEEN)
		st->seen[st->n_seen++] = key;
	st->in_group++;
	return st->group;
}

void gl_telem_group_break(struct gl_telem_state *st)
{
	st->in_group = 0;
	st->n_seen = 0;
}

int64_t gl_telem_to_utc(struct gl_parse_ctx *ctx, struct gl_telem_state *st, int64_t naive_us)
{
	int64_t s = naive_us / GL_US_PER_S - (naive_us % GL_US_PER_S < 0);

	if (!ctx->tz_name)
		return naive_us;
	if (s != st->zone_naive_s) {
		st->zone_off_us = gl_ctx_naive_to_utc(ctx, s * GL_US_PER_S) - s * GL_US_PER_S;
		st->zone_naive_s = s;
	}
	return naive_us + st->zone_off_us;
}

uint64_t gl_telem_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* "20230413" (dmon -o D): naive midnight in µs. */
static int parse_yyyymmdd(struct gl_str s, int64_t *us)
{
	unsigned v[8];

	if (s.len != 8)
		return -1;
	for (size_t i = 0; i < 8; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v[i] = (unsigned)(s.p[i] - '0');
	}
	unsigned y = v[0] * 1000 + v[1] * 100 + v[2] * 10 + v[3], m = v[4] * 10 + v[5], d = v[6] * 10 + v[7];

	if (!gl_civil_valid(y, m, d))
		return -1;
	*us = gl_days_from_civil(y, m, d) * GL_US_PER_DAY;
	return 0;
}

static int tok_eq(struct gl_str t, const char *s)
{
	size_t n = strlen(s);

	if (t.len != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char a = t.p[i], b = s[i];

		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return 0;
	}
	return 1;
}

static int all_digits(struct gl_str t)
{
	if (!t.len)
		return 0;
	for (size_t i = 0; i < t.len; i++)
		if (t.p[i] < '0' || t.p[i] > '9')
			return 0;
	return 1;
}

/* Sets rec to a reject whose reason is pre, a[0..alen) (60 bytes at most), post. */
static void reject(struct gl_parse_ctx *ctx, struct gl_rec *rec, const char *pre, const char *a,
		   size_t alen, const char *post)
{
	char *buf = gl_ctx_scratch(ctx, 160);

	rec->kind = GL_REC_REJECT;
	rec->n_samples = 0;
	if (!buf) {
		rec->reason = "malformed row";
		return;
	}
	snprintf(buf, 160, "%s%.*s%s", pre, (int)(alen > 60 ? 60 : alen), a ? a : "", post);
	rec->reason = buf;
}

/*
 * A header's names line, '#' removed: "gpu pwr gtemp ...", "Date Time gpu
 * pid type sm ...", "Entity POWER TOTEC ...". Returns 1 when it is the
 * format's and was taken, 0 when it is not the format's.
 */
static int ws_header(const struct gl_telem_ws *spec, struct gl_parse_ctx *ctx, struct gl_str *tok,
		     size_t n, struct gl_rec *rec)
{
	struct gl_telem_state *st;
	int has_gpu = 0, has_pid = 0;

	for (size_t i = 0; i < n && i < GL_TELEM_MAX_COLS + 1; i++) {
		has_gpu |= tok_eq(tok[i], spec->dcgmi ? "Entity" : "gpu");
		has_pid |= tok_eq(tok[i], "pid");
	}
	if (!has_gpu || (spec->dcgmi && !tok_eq(tok[0], "Entity")) || has_pid != spec->per_process)
		return 0;
	st = gl_telem_state(ctx, spec->magic);
	if (!st)
		st = gl_telem_state_new(ctx, spec->magic);
	if (!st)
		return 0;
	gl_telem_cols_reset(st);
	gl_telem_group_break(st);
	rec->kind = GL_REC_NONE;
	for (size_t i = 0; i < n; i++) {
		enum gl_telem_kind k = GL_TK_METRIC;

		if (spec->dcgmi && i == 0)
			k = GL_TK_ENTITY;
		else if (!spec->dcgmi && tok_eq(tok[i], "gpu"))
			k = GL_TK_GPU;
		else if (!spec->dcgmi && tok_eq(tok[i], "Date"))
			k = GL_TK_DATE;
		else if (!spec->dcgmi && tok_eq(tok[i], "Time"))
			k = GL_TK_TIME;
		else if (spec->per_process && tok_eq(tok[i], "pid"))
			k = GL_TK_PID;
		else if (spec->per_process && tok_eq(tok[i], "type"))
			k = GL_TK_TYPE;
		else if (spec->per_process && tok_eq(tok[i], "command"))
			k = GL_TK_CMD;
		if (i >= GL_TELEM_MAX_COLS || gl_telem_col_add(st, k, spec->src, tok[i].p, tok[i].len) < 0) {
			gl_telem_cols_reset(st);
			rec->kind = GL_REC_REJECT;
			rec->reason = "header: too many columns";
			return 1;
		}
	}
	st->has_header = 1;
	return 1;
}

void gl_telem_ws_parse(const struct gl_telem_ws *spec, struct gl_parse_ctx *ctx, const char *line,
		       size_t len, struct gl_rec *rec)
{
	struct gl_str tok[GL_TELEM_MAX_COLS + 3], body, dev = {NULL, 0}, pid = {NULL, 0};
	struct gl_str type = {NULL, 0}, cmd = {NULL, 0}, date = {NULL, 0}, tod = {NULL, 0};
	struct gl_telem_state *st;
	struct gl_sample *smp;
	size_t n, want, t = 0, nm = 0, k = 0;
	int64_t ts = GL_TS_NONE, day_us, tod_us, grp;
	int estimated = 0;	/* the time is the config's start + k * interval_s */
	char *labels = NULL;
	size_t labels_len = 0;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	rec->n_samples = 0;
	body = gl_textfmt_trim(line, len);
	if (!body.len) {
		rec->kind = GL_REC_NONE;
		return;
	}
	if (body.p[0] == '#') {
		n = gl_telem_split_ws(body.p + 1, body.len - 1, tok, GL_TELEM_MAX_COLS + 2);
		if (!n)
			return;
		if (ws_header(spec, ctx, tok, n, rec))
			return;
		/* dmon/pmon units line: "# Idx  W  C  %", "#YYYYMMDD HH:MM:SS Idx ..." */
		for (size_t i = 0; !spec->dcgmi && i < n && i < 3; i++)
			if (tok_eq(tok[i], "Idx"))
				rec->kind = GL_REC_NONE;
		return;
	}
	st = gl_telem_state(ctx, spec->magic);
	if (!st || !st->has_header)
		return;
	n = gl_telem_split_ws(body.p, body.len, tok, GL_TELEM_MAX_COLS + 2);
	/* dcgmi's units row: "ID   W   mJ   KB/   KB/" */
	if (spec->dcgmi && n && tok_eq(tok[0], "ID")) {
		rec->kind = GL_REC_NONE;
		return;
	}
	want = st->ncols + (spec->dcgmi ? 1 : 0);
	/* pmon's command is the rest of the line */
	if (spec->per_process && st->ncols && st->kind[st->ncols - 1] == GL_TK_CMD && n > want) {
		cmd.p = tok[want - 1].p;
		cmd.len = (size_t)(body.p + body.len - cmd.p);
		n = want;
	}
	if (n != want) {
		if (n && (all_digits(tok[0]) || (spec->dcgmi && tok_eq(tok[0], "GPU"))))
			reject(ctx, rec, n < want ? "fewer fields than the header" :
				   "more fields than the header", NULL, 0, "");
		return;
	}
	for (size_t i = 0; i < st->ncols; i++)
		nm += st->kind[i] == GL_TK_METRIC;
	smp = gl_ctx_samples(ctx, nm ? nm : 1);
	if (!smp) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	for (size_t i = 0; i < st->ncols; i++, t++) {
		struct gl_str v = tok[t];
		double d;

		switch (st->kind[i]) {
		case GL_TK_ENTITY:
			/* "GPU 0"; other entities ("GPU-I 3") keep both tokens */
			if (!all_digits(tok[t + 1])) {
				if (!all_digits(tok[0]) && !tok_eq(tok[0], "GPU"))
					return;
				reject(ctx, rec, "entity id '", tok[t + 1].p, tok[t + 1].len,
				       "' is not a number");
				return;
			}
			if (tok_eq(v, "GPU")) {
				dev = tok[t + 1];
			} else {
				dev.p = v.p;
				dev.len = (size_t)(tok[t + 1].p + tok[t + 1].len - v.p);
			}
			t++;
			break;
		case GL_TK_GPU:
			if (!all_digits(v)) {
				if (i == 0)
					return;
				reject(ctx, rec, "gpu '", v.p, v.len, "' is not an index");
				return;
			}
			dev = v;
			break;
		case GL_TK_DATE:
			date = v;
			break;
		case GL_TK_TIME:
			tod = v;
			break;
		case GL_TK_PID:
			pid = v;
			break;
		case GL_TK_TYPE:
			type = v;
			break;
		case GL_TK_CMD:
			if (!cmd.p)
				cmd = v;
			break;
		case GL_TK_METRIC:
			if (gl_telem_missing(v))
				break;
			if (gl_telem_number(v, &d) < 0) {
				struct gl_str name = gl_telem_col_name(st, i);

				reject(ctx, rec, "", name.p, name.len, ": not a number");
				return;
			}
			smp[k].metric = gl_telem_col_name(st, i);
			smp[k].value = d * st->scale[i];
			k++;
			break;
		default:
			break;
		}
	}
	/* pmon with no process on a GPU: "    0          -     -      -  ..." */
	if (spec->per_process && (!pid.p || (pid.len == 1 && pid.p[0] == '-'))) {
		rec->kind = GL_REC_NONE;
		return;
	}
	if (date.p || tod.p) {
		if (tod.p && gl_textfmt_tod(tod.p, tod.len, '.', &tod_us) < 0) {
			reject(ctx, rec, "Time '", tod.p, tod.len, "' is not HH:MM:SS");
			return;
		}
		if (date.p && parse_yyyymmdd(date, &day_us) < 0) {
			reject(ctx, rec, "Date '", date.p, date.len, "' is not YYYYMMDD");
			return;
		}
		if (!tod.p) {
			rec->kind = GL_REC_REJECT;
			rec->reason = spec->no_time;
			return;
		}
		ts = gl_telem_to_utc(ctx, st, date.p ? day_us + tod_us : gl_ctx_time_of_day(ctx, tod_us));
	} else {
		uint64_t key = gl_telem_hash(dev.p ? dev.p : "", dev.len);

		if (pid.p)
			key ^= gl_telem_hash(pid.p, pid.len) * 31;
		grp = gl_telem_group_row(st, key);
		if (gl_telem_hint_time(ctx, grp, &ts) < 0) {
			rec->kind = GL_REC_REJECT;
			rec->reason = spec->no_time;
			return;
		}
		estimated = 1;
	}
	if (spec->per_process) {
		struct gl_jsonw w;

		gl_jsonw_begin(&w, NULL, 0);
		gl_jsonw_str(&w, "pid", pid.p, pid.len);
		if (type.p)
			gl_jsonw_str(&w, "type", type.p, type.len);
		if (cmd.p)
			gl_jsonw_str(&w, "command", cmd.p, gl_textfmt_trim(cmd.p, cmd.len).len);
		gl_jsonw_end(&w);
		labels_len = w.len;
		labels = gl_ctx_scratch(ctx, labels_len + 1);
		if (labels) {
			gl_jsonw_begin(&w, labels, labels_len + 1);
			gl_jsonw_str(&w, "pid", pid.p, pid.len);
			if (type.p)
				gl_jsonw_str(&w, "type", type.p, type.len);
			if (cmd.p)
				gl_jsonw_str(&w, "command", cmd.p, gl_textfmt_trim(cmd.p, cmd.len).len);
			gl_jsonw_end(&w);
		}
	}
	for (size_t i = 0; i < k; i++) {
		smp[i].ts_us = ts;
		smp[i].ts_estimated = estimated;
		smp[i].device = dev;
		smp[i].labels.p = labels;
		smp[i].labels.len = labels ? labels_len : 0;
	}
	rec->samples = smp;
	rec->n_samples = k;
	rec->kind = k ? GL_REC_SAMPLES : GL_REC_NONE;
}
