/*
 * fmt_vllm.c - vLLM server logs (vllm serve's stdout/stderr).
 *
 * In: one line. vLLM's own lines carry a level, a date without a year and
 * the source file, after an optional process prefix that is wrapped in ANSI
 * colour codes when the output was a terminal:
 *     INFO 08-07 13:49:04 [loggers.py:122] Engine 000: Avg prompt throughput: 0.0 tokens/s, ...
 *     (APIServer pid=868061) INFO 04-21 07:37:18 [loggers.py:259] Engine 000: Avg prompt ...
 *     ESC[0;36m(APIServer pid=960769)ESC[0;0m INFO 02-04 11:27:23 [utils.py:325] ...
 *     (Worker_TP0_EP0 pid=868402) WARNING 04-21 07:29:02 [...] ...
 * uvicorn's access lines have a level and no time:
 *     (APIServer pid=868061) INFO:     127.0.0.1:51906 - "GET /metrics HTTP/1.1" 200 OK
 * and the rest is other libraries' output, wrapper lines and tracebacks:
 *     START 20:59:05 MAX_JOBS=1
 *     (APIServer pid=868061) Traceback (most recent call last):
 *     (APIServer pid=868061)   File "/usr/local/lib/python3.12/.../routing.py", line 73, in app
 *     (APIServer pid=868061) vllm.exceptions.VLLMValidationError: This model's maximum ...
 * Out: an event per line, component = the process prefix's name
 * ("APIServer", "EngineCore_DP0", "Worker_TP0_EP0"), else "vllm"; the
 * message with ANSI escapes removed. A "Traceback" line starts an ERROR
 * event whose following lines, up to the next line with a level, are its
 * continuation (GL_FMT_MULTILINE); indented lines continue the record
 * before them too. The date has no year: it is the year of the file's
 * modification time, or the year before when that would put the line more
 * than a day after the file was last written; a date that goes back by
 * more than half a year from the line before is a new year (a log across
 * New Year's Eve). Times are naive local time (ctx->tz_name). Lines
 * without a time take the time of the line before them (none at the top of
 * a file). The periodic throughput and speculative decoding lines
 *     ... Avg prompt throughput: 8149.1 tokens/s, Avg generation throughput: 979.0 tokens/s,
 *         Running: 127 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.3%, Prefix cache hit rate: 13.5%
 *     ... SpecDecoding metrics: Mean acceptance length: 3.62, Accepted throughput: 2.87 tokens/s,
 *         Drafted throughput: 16.42 tokens/s, Accepted: 76 tokens, Drafted: 435 tokens, ...,
 *         Avg Draft acceptance rate: 17.5%
 * also give metric samples (vllm.*; "Swapped:" in older versions counts as
 * waiting). The year, the last time and whether a traceback is open live in
 * ctx->state.
 */
#include "format.h"

#include <stdlib.h>
#include <string.h>

#include "textfmt.h"

#define VLLM_MAGIC 0x6d6c6c76u	/* "vllm" */
#define HALF_YEAR_US (183 * GL_US_PER_DAY)

struct vllm_state {
	uint32_t magic;
	int32_t in_tb;			/* 1: the lines after a "Traceback" line continue it */
	int64_t year;			/* 0: not known yet */
	int64_t last_naive_us;		/* naive time of the last timed line, GL_TS_NONE: none */
	int64_t last_us;		/* its UTC time */
};

static struct vllm_state *state_of(struct gl_parse_ctx *ctx)
{
	struct vllm_state *st = (struct vllm_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != VLLM_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = VLLM_MAGIC;
		st->last_naive_us = GL_TS_NONE;
		st->last_us = GL_TS_NONE;
		ctx->state_len = sizeof(*st);
	}
	return st;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* s[0..len) without ANSI CSI sequences (ESC [ ... final byte), into scratch when it has any. */
static struct gl_str strip_ansi(struct gl_parse_ctx *ctx, const char *s, size_t len)
{
	char *out;
	size_t n = 0;

	if (!memchr(s, 0x1b, len))
		return (struct gl_str){s, len};
	out = gl_ctx_scratch(ctx, len);
	if (!out)
		return (struct gl_str){s, len};
	for (size_t i = 0; i < len; i++) {
		if (s[i] == 0x1b && i + 1 < len && s[i + 1] == '[') {
			i += 2;
			while (i < len && !(s[i] >= 0x40 && s[i] <= 0x7e))
				i++;
			continue;
		}
		out[n++] = s[i];
	}
	return (struct gl_str){out, n};
}

/* "(APIServer pid=960769) ": sets *name and returns the bytes it takes, else 0. */
static size_t scan_prefix(struct gl_str s, struct gl_str *name)
{
	size_t i = 1, ne;

	if (!s.len || s.p[0] != '(')
		return 0;
	while (i < s.len && (s.p[i] == '_' || is_digit(s.p[i]) || (s.p[i] >= 'A' && s.p[i] <= 'Z') ||
			     (s.p[i] >= 'a' && s.p[i] <= 'z')))
		i++;
	ne = i;
	if (ne == 1 || s.len - i < 6 || memcmp(s.p + i, " pid=", 5) != 0)
		return 0;
	i += 5;
	if (!is_digit(s.p[i]))
		return 0;
	while (i < s.len && is_digit(s.p[i]))
		i++;
	if (i >= s.len || s.p[i] != ')')
		return 0;
	*name = (struct gl_str){s.p + 1, ne - 1};
	i++;
	return i < s.len && s.p[i] == ' ' ? i + 1 : i;
}

/* The level word at s: its length, or 0. */
static size_t scan_level(struct gl_str s, enum gl_level *lv)
{
	size_t i = 0;

	while (i < s.len && s.p[i] >= 'A' && s.p[i] <= 'Z')
		i++;
	if (i < 4 || (*lv = gl_level_parse(s.p, i)) == GL_LEVEL_NONE)
		return 0;
	return i;
}

/* "08-07 13:49:04" at s: month, day, µs of the day. Returns 0, or -1. */
static int scan_date(const char *s, size_t len, unsigned *mo, unsigned *d, int64_t *tod)
{
	if (len < 14 || !is_digit(s[0]) || !is_digit(s[1]) || s[2] != '-' || !is_digit(s[3]) ||
	    !is_digit(s[4]) || s[5] != ' ')
		return -1;
	/* the most days of each month in any year: the year is not written */
	static const unsigned mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	*mo = (unsigned)(s[0] - '0') * 10 + (unsigned)(s[1] - '0');
	*d = (unsigned)(s[3] - '0') * 10 + (unsigned)(s[4] - '0');
	if (*mo < 1 || *mo > 12 || *d < 1 || *d > mdays[*mo - 1])
		return -1;
	return gl_textfmt_tod(s + 6, 8, '.', tod);
}

/* s holds the shape of a vLLM date, "NN-NN NN:NN:NN", whatever its numbers. */
static int date_shape(const char *s, size_t len)
{
	static const char shape[] = "00-00 00:00:00";

	if (len < sizeof(shape) - 1)
		return 0;
	for (size_t i = 0; i < sizeof(shape) - 1; i++)
		if (shape[i] == '0' ? !is_digit(s[i]) : s[i] != shape[i])
			return 0;
	return 1;
}

/* The naive time of month-day tod in the stream's year (see the top of the file). */
static int64_t place_in_year(struct gl_parse_ctx *ctx, struct vllm_state *st, unsigned mo, unsigned d,
			     int64_t tod)
{
	int64_t naive;

	if (!st->year) {
		int64_t y;
		unsigned m0, d0;
		int64_t mt = ctx->file_mtime_us;

		gl_civil_from_days((mt >= 0 ? mt : mt - GL_US_PER_DAY + 1) / GL_US_PER_DAY, &y, &m0, &d0);
		st->year = y;
		naive = gl_days_from_civil(y, mo, d) * GL_US_PER_DAY + tod;
		if (naive > mt + GL_US_PER_DAY)
			st->year = y - 1;
	}
	naive = gl_days_from_civil(st->year, mo, d) * GL_US_PER_DAY + tod;
	if (st->last_naive_us != GL_TS_NONE && naive < st->last_naive_us - HALF_YEAR_US) {
		st->year++;
		naive = gl_days_from_civil(st->year, mo, d) * GL_US_PER_DAY + tod;
	}
	return naive;
}

/* The number after "key" in msg, up to the next ',' or the end. Returns 0, or -1. */
static int field_num(struct gl_str msg, const char *key, double *v)
{
	size_t kl = strlen(key);
	char buf[48], *end;
	size_t i, n = 0;

	for (i = 0; i + kl <= msg.len; i++)
		if (memcmp(msg.p + i, key, kl) == 0)
			break;
	if (i + kl > msg.len)
		return -1;
	i += kl;
	while (i < msg.len && msg.p[i] == ' ')
		i++;
	while (i < msg.len && n + 1 < sizeof(buf) &&
	       (is_digit(msg.p[i]) || msg.p[i] == '.' || msg.p[i] == '-' || msg.p[i] == 'e' || msg.p[i] == '+'))
		buf[n++] = msg.p[i++];
	buf[n] = '\0';
	if (!n)
		return -1;
	*v = strtod(buf, &end);
	return *end == '\0' ? 0 : -1;
}

struct stat_field {
	const char *key;
	const char *metric;
	int optional;
};

static const struct stat_field throughput[] = {
	{"Avg prompt throughput:", "vllm.prompt_throughput_tps", 0},
	{"Avg generation throughput:", "vllm.generation_throughput_tps", 0},
	{"Running:", "vllm.running_requests", 0},
	{"Waiting:", "vllm.waiting_requests", 1},
	{"Swapped:", "vllm.waiting_requests", 1},
	{"GPU KV cache usage:", "vllm.kv_cache_usage_pct", 1},
	{"Prefix cache hit rate:", "vllm.prefix_cache_hit_rate_pct", 1},
	{NULL, NULL, 0},
};

static const struct stat_field specdec[] = {
	{"Mean acceptance length:", "vllm.spec_decode_acceptance_length", 1},
	{"Accepted throughput:", "vllm.spec_decode_accepted_tps", 1},
	{"Drafted throughput:", "vllm.spec_decode_drafted_tps", 1},
	{"Accepted:", "vllm.spec_decode_accepted_tokens", 1},
	{"Drafted:", "vllm.spec_decode_drafted_tokens", 1},
	{"acceptance rate:", "vllm.spec_decode_acceptance_rate_pct", 1},
	{NULL, NULL, 0},
};

static int contains(struct gl_str s, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; i + n <= s.len; i++)
		if (memcmp(s.p + i, lit, n) == 0)
			return 1;
	return 0;
}

/*
 * Samples of a throughput or SpecDecoding line. Returns the count (0: not
 * such a line), or -1 when a field that every version writes is missing.
 */
static int stat_samples(struct gl_parse_ctx *ctx, struct gl_str msg, int64_t ts, struct gl_rec *rec)
{
	const struct stat_field *tab;
	struct gl_sample *s;
	size_t n = 0, at;
	double v;

	if (contains(msg, "Avg prompt throughput:")) {
		tab = throughput;
	} else if (contains(msg, "SpecDecoding metrics:")) {
		tab = specdec;
	} else {
		return 0;
	}
	if (ts == GL_TS_NONE)
		return -1;
	s = gl_ctx_samples(ctx, 8);
	if (!s)
		return -1;
	for (const struct stat_field *f = tab; f->key; f++) {
		struct gl_str where = msg;

		if (tab == specdec && !strcmp(f->key, "acceptance rate:")) {
			/* the overall rate, not the per-position list */
			for (at = 0; at + 10 <= msg.len && memcmp(msg.p + at, "Avg Draft ", 10) != 0; at++)
				;
			where = (struct gl_str){msg.p + at, msg.len - at};
		}
		if (field_num(where, f->key, &v) < 0) {
			if (!f->optional)
				return -1;
			continue;
		}
		s[n].ts_us = ts;
		s[n].metric = (struct gl_str){f->metric, strlen(f->metric)};
		s[n].value = v;
		n++;
	}
	rec->samples = s;
	rec->n_samples = n;
	return (int)n;
}

static int is_traceback(struct gl_str s)
{
	return s.len >= 9 && memcmp(s.p, "Traceback", 9) == 0;
}

/* The position of the first n bytes of lit in p[0..len), or NULL. */
static const char *find(const char *p, size_t len, const char *lit, size_t n)
{
	while (len >= n) {
		const char *c = memchr(p, lit[0], len - n + 1);

		if (!c)
			return NULL;
		if (memcmp(c, lit, n) == 0)
			return c;
		len -= (size_t)(c - p) + 1;
		p = c + 1;
	}
	return NULL;
}

/*
 * Does s hold an access line's request and status, '"POST /v1/' then
 * ' HTTP/' then '" ' and three digits, the first from lo to hi:
 *     10.0.3.17:51234 - "POST /v1/completions HTTP/1.1" 200 OK
 * Each part is taken where it first occurs after the one before: when the
 * parts occur in this order at all, they do so there too. Read up to a NUL.
 */
static int access_status(struct gl_str s, char lo, char hi)
{
	const char *p = s.p, *nul = memchr(s.p, '\0', s.len);
	size_t len = nul ? (size_t)(nul - s.p) : s.len;
	const char *end = p + len;

	if (!(p = find(p, len, "\"POST /v1/", 10)) ||
	    !(p = find(p + 10, (size_t)(end - p - 10), " HTTP/", 6)))
		return 0;
	for (p += 6; end - p >= 5; p++)
		if (p[0] == '"' && p[1] == ' ' && p[2] >= lo && p[2] <= hi && p[3] >= '0' &&
		    p[3] <= '9' && p[4] >= '0' && p[4] <= '9')
			return 1;
	return 0;
}

/* The kind of a record whose message is s: a uvicorn access line of a POST
 * to an OpenAI-style endpoint, answered or failed (400 and above). */
static enum gl_ev_kind access_kind(struct gl_str s)
{
	if (!s.p)
		return GL_EV_LOG;
	if (access_status(s, '4', '5'))
		return GL_EV_ACCESS_FAILED;
	return access_status(s, '1', '5') ? GL_EV_ACCESS : GL_EV_LOG;
}

static void parse_line(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	struct vllm_state *st = state_of(ctx);
	struct gl_str s = strip_ansi(ctx, line, len), comp = {NULL, 0}, rest;
	enum gl_level lv = GL_LEVEL_NONE;
	size_t pre = scan_prefix(s, &comp), k;
	unsigned mo, d;
	int64_t tod, naive;
	int vllm_line = 0;

	gl_event_init(ev);
	rec->reason = NULL;
	rest = (struct gl_str){s.p + pre, s.len - pre};
	ev->component = comp.p ? comp : (struct gl_str){"vllm", 4};
	ev->ts_us = st->last_us;
	ev->message = rest;
	rec->kind = GL_REC_EVENT;
	k = scan_level(rest, &lv);
	if (k && rest.len > k + 1 && rest.p[k] == ' ' && scan_date(rest.p + k + 1, rest.len - k - 1, &mo, &d, &tod) == 0) {
		/* "INFO 08-07 13:49:04 [loggers.py:122] message" */
		size_t m = k + 15;

		naive = place_in_year(ctx, st, mo, d, tod);
		st->last_naive_us = naive;
		st->last_us = gl_ctx_naive_to_utc(ctx, naive);
		st->in_tb = 0;
		ev->ts_us = st->last_us;
		ev->level = lv;
		while (m < rest.len && rest.p[m] == ' ')
			m++;
		if (m < rest.len && rest.p[m] == '[') {
			const char *rb = memchr(rest.p + m, ']', rest.len - m);

			if (rb)
				m = (size_t)(rb - rest.p) + 1;
			while (m < rest.len && rest.p[m] == ' ')
				m++;
		}
		ev->message = (struct gl_str){rest.p + m, rest.len - m};
		vllm_line = 1;
	} else if (k && rest.len > k + 1 && rest.p[k] == ' ' &&
		   date_shape(rest.p + k + 1, rest.len - k - 1)) {
		/* "INFO 02-31 10:00:00 [...]", "INFO 13-01 ...", "INFO 11-13 25:00:00 ...":
		 * a vLLM line whose date is in no calendar */
		rec->kind = GL_REC_REJECT;
		rec->reason = "vLLM line: a month, day or time out of range";
		return;
	} else if (k && rest.len > k && rest.p[k] == ':') {
		/* uvicorn: "INFO:     127.0.0.1:51906 - "GET /metrics HTTP/1.1" 200 OK" */
		size_t m = k + 1;

		while (m < rest.len && rest.p[m] == ' ')
			m++;
		st->in_tb = 0;
		ev->level = lv;
		ev->message = (struct gl_str){rest.p + m, rest.len - m};
	} else if (is_traceback(rest)) {
		st->in_tb = 1;
		ev->level = GL_LEVEL_ERROR;
	} else if (st->in_tb || (rest.len && (rest.p[0] == ' ' || rest.p[0] == '\t'))) {
		rec->kind = GL_REC_CONT;
		ev->message = rest;
		/* a prefix alone, "(EngineCore pid=23397) ", is an empty line of that process */
		if (!pre || rest.len)
			return;
		rec->kind = GL_REC_EVENT;
	}
	if (vllm_line) {
		int n = stat_samples(ctx, ev->message, ev->ts_us, rec);

		if (n < 0) {
			rec->kind = GL_REC_REJECT;
			rec->reason = "throughput line: a field is missing";
			rec->n_samples = 0;
		}
		return;
	}
	/*
	 * A line of no vLLM shape (no level, no process prefix) before the
	 * first vLLM line of the stream is not taken: otherwise any text file
	 * would be read as a vLLM log. Other formats may read it, else it is
	 * rejected with its text kept.
	 */
	if (!pre && lv == GL_LEVEL_NONE && !st->year)
		rec->kind = GL_REC_FOREIGN;
}

static void vllm_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	parse_line(ctx, line, len, rec);
	if (rec->kind == GL_REC_EVENT || rec->kind == GL_REC_CONT)
		rec->ev.kind = access_kind(rec->ev.message);
}

const struct gl_format gl_fmt_vllm = {
	.name = "vllm",
	.summary = "vLLM server log (\"INFO 08-07 13:49:04 [file.py:N] ...\", process prefixes, throughput lines)",
	.flags = GL_FMT_MULTILINE,
	.parse = vllm_parse,
};
