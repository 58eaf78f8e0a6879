/*
 * fmt_prom.c - Prometheus text exposition (version 0.0.4): a saved
 * `/metrics` scrape, a cron `curl`, a node-exporter textfile.
 *
 * In: one line. Comments, the family's help and type:
 *     # HELP vllm:num_requests_running Number of requests in model execution batches.
 *     # TYPE vllm:num_requests_running gauge
 * and samples, `name{labels} value [timestamp_ms]`:
 *     vllm:num_requests_running{engine="0",model_name="Qwen/Qwen1.5-0.5B-Chat"} 0.0
 *     process_virtual_memory_bytes 8.982228992e+09
 *     vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="..."} 0.0
 *     DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-c452...",...,pod="vllm-agg-0-...",pod_uid=""} 0
 *     http_requests_total{method="post",code="400"} 3 1395066363000
 * Label values escape '\\', '"' and newline as \\, \" and \n; they are
 * decoded, and an empty value ("pod_uid") is kept.
 * Out: `#` lines are GL_REC_NONE (a TYPE line also sets the family's type
 * in ctx->state); a sample line is GL_REC_SAMPLES with one sample named as
 * written (histogram `_bucket`, `_sum`, `_count` and `_created` samples
 * under their own names, `le` and `quantile` kept as labels), its labels as
 * a JSON object with the names sorted. A DCGM exporter name in the GPU
 * vocabulary becomes its canonical name (DCGM_FI_DEV_GPU_UTIL ->
 * gpu.utilization_pct) with device = the `gpu` label; other DCGM fields
 * keep their name and get the device too. The time is the sample's own
 * timestamp, else the file's modification time (one scrape per file),
 * then marked estimated. NaN and +-Inf values are rejected with that
 * reason (an SQLite REAL holds no NaN, and an infinite gauge has no
 * statistics), so the raw line stays in the rejects table; so is a
 * negative counter, or a histogram's `_bucket` without `le`.
 */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "vocab.h"

#define PROM_MAGIC 0x6d6f7270u	/* "prom" */
#define PROM_LABELS_MAX 64
#define PROM_FAMILY_MAX 200

enum prom_type {
	PT_UNTYPED = 0,
	PT_COUNTER,
	PT_GAUGE,
	PT_HISTOGRAM,
	PT_SUMMARY,
	PT_GAUGE_HISTOGRAM,
	PT_INFO,
	PT_STATESET,
};

/* ctx->state: the family of the last TYPE line (a family's samples follow it). */
struct prom_state {
	uint32_t magic;
	uint32_t type;			/* enum prom_type */
	uint32_t family_len;		/* 0: none (a name longer than PROM_FAMILY_MAX is forgotten) */
	char family[PROM_FAMILY_MAX];
	uint32_t at_mtime;		/* a sample took the file's modification time */
};

struct label {
	struct gl_str name;
	struct gl_str value;	/* decoded, in scratch or the line */
};

static struct prom_state *state_of(struct gl_parse_ctx *ctx)
{
	struct prom_state *st = (struct prom_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != PROM_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = PROM_MAGIC;
		ctx->state_len = sizeof(*st);
	}
	return st;
}

static int name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

/* A metric or label name at s[i..): its end, or i when there is none. */
static size_t scan_name(const char *s, size_t i, size_t len, int metric)
{
	size_t j = i;

	if (j >= len || !name_start(s[j]) || (!metric && s[j] == ':'))
		return i;
	while (j < len && name_char(s[j]) && (metric || s[j] != ':'))
		j++;
	return j;
}

static int str_is(struct gl_str s, const char *lit)
{
	return s.len == strlen(lit) && memcmp(s.p, lit, s.len) == 0;
}

static int ends_with(struct gl_str s, const char *suf)
{
	size_t n = strlen(suf);

	return s.len >= n && memcmp(s.p + s.len - n, suf, n) == 0;
}

static enum prom_type type_parse(struct gl_str t)
{
	static const char *const names[] = {"untyped", "counter", "gauge", "histogram",
					    "summary", "gaugehistogram", "info", "stateset"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (str_is(t, names[i]))
			return (enum prom_type)i;
	return (enum prom_type)-1;
}

/* "# TYPE name type": remembers the family. Any other comment is nothing. */
static void comment_line(struct gl_parse_ctx *ctx, const char *s, size_t len, struct gl_rec *rec)
{
	struct prom_state *st;
	size_t i = skip_blanks(s, 1, len), ne;
	struct gl_str name, type;
	int t;

	rec->kind = GL_REC_NONE;
	if (len - i < 5 || memcmp(s + i, "TYPE", 4) != 0 || !is_blank(s[i + 4]))
		return;
	i = skip_blanks(s, i + 4, len);
	ne = scan_name(s, i, len, 1);
	if (ne == i || ne >= len || !is_blank(s[ne])) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "TYPE line: no metric name";
		return;
	}
	name = (struct gl_str){s + i, ne - i};
	i = skip_blanks(s, ne, len);
	type = gl_textfmt_trim(s + i, len - i);
	t = (int)type_parse(type);
	if (t < 0) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "TYPE line: not counter, gauge, histogram, summary or untyped";
		return;
	}
	st = state_of(ctx);
	st->type = (uint32_t)t;
	st->family_len = name.len <= PROM_FAMILY_MAX ? (uint32_t)name.len : 0;
	memcpy(st->family, name.p, st->family_len);
}

/*
 * The labels "{a="x",b="y\"z"}" starting at s[*i] == '{'. Decodes escaped
 * values into scratch. Returns the count, or -1 with *why.
 */
static int scan_labels(struct gl_parse_ctx *ctx, const char *s, size_t len, size_t *i,
		       struct label *lab, const char **why)
{
	size_t k = *i + 1;
	int n = 0;

	for (;;) {
		size_t ne, vs, j;
		char *dst;
		size_t dn = 0;
		int esc = 0;

		k = skip_blanks(s, k, len);
		if (k < len && s[k] == '}')
			break;
		ne = scan_name(s, k, len, 0);
		if (ne == k) {
			*why = "labels: not a label name";
			return -1;
		}
		if (n == PROM_LABELS_MAX) {
			*why = "labels: more than 64";
			return -1;
		}
		lab[n].name = (struct gl_str){s + k, ne - k};
		k = skip_blanks(s, ne, len);
		if (k >= len || s[k] != '=') {
			*why = "labels: no '=' after a label name";
			return -1;
		}
		k = skip_blanks(s, k + 1, len);
		if (k >= len || s[k] != '"') {
			*why = "labels: value not in double quotes";
			return -1;
		}
		vs = ++k;
		for (j = vs; j < len && s[j] != '"'; j++) {
			if (s[j] == '\\') {
				esc = 1;
				j++;
				/* as Prometheus' parser: \\, \" and \n only; another
				 * (\x) would be altered silently */
				if (j < len && s[j] != '\\' && s[j] != '"' && s[j] != 'n') {
					*why = "labels: an escape other than \\\\, \\\" or \\n in a value";
					return -1;
				}
			}
		}
		if (j >= len) {
			*why = "labels: unterminated value";
			return -1;
		}
		if (!esc) {
			lab[n].value = (struct gl_str){s + vs, j - vs};
		} else {
			dst = gl_ctx_scratch(ctx, j - vs);
			if (!dst) {
				*why = "labels: out of memory";
				return -1;
			}
			for (size_t m = vs; m < j; m++) {
				if (s[m] == '\\' && m + 1 < j) {
					m++;
					dst[dn++] = s[m] == 'n' ? '\n' : s[m];
				} else {
					dst[dn++] = s[m];
				}
			}
			lab[n].value = (struct gl_str){dst, dn};
		}
		n++;
		k = skip_blanks(s, j + 1, len);
		if (k < len && s[k] == ',') {
			k++;
			continue;
		}
		if (k < len && s[k] == '}')
			break;
		*why = "labels: no ',' or '}' after a value";
		return -1;
	}
	*i = k + 1;
	return n;
}

/* "1.5e+09", "NaN", "+Inf", "-Inf" (all of s). Returns 0, or -1. */
static int parse_value(struct gl_str s, double *v)
{
	char buf[64], *end;

	if (!s.len || s.len >= sizeof(buf))
		return -1;
	if (str_is(s, "NaN")) {
		*v = NAN;
		return 0;
	}
	if (str_is(s, "+Inf") || str_is(s, "Inf")) {
		*v = INFINITY;
		return 0;
	}
	if (str_is(s, "-Inf")) {
		*v = -INFINITY;
		return 0;
	}
	for (size_t i = 0; i < s.len; i++) {
		char c = s.p[i];

		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
			return -1;
	}
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	*v = strtod(buf, &end);
	return end == buf + s.len ? 0 : -1;
}

/* "1395066363000" or "-1" (all of s): ms. Returns 0, or -1. */
static int parse_ts_ms(struct gl_str s, int64_t *ms)
{
	uint64_t u;
	int neg = s.len && s.p[0] == '-';

	if (gl_textfmt_u64(s.p + neg, s.len - (size_t)neg, &u) < 0 || u > (uint64_t)INT64_MAX / 1000)
		return -1;
	*ms = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static int label_cmp(const void *a, const void *b)
{
	const struct label *x = a, *y = b;
	size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
	int c = memcmp(x->name.p, y->name.p, n);

	return c ? c : (x->name.len > y->name.len) - (x->name.len < y->name.len);
}

/* The labels but skip (may be NULL) as a JSON object in scratch; p NULL when none are left. */
static int labels_json(struct gl_parse_ctx *ctx, const struct label *lab, int n, const struct label *skip,
		       struct gl_str *out)
{
	struct gl_jsonw w;
	char key[256];
	char *buf;

	*out = (struct gl_str){NULL, 0};
	if (n == 0 || (n == 1 && skip))
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		buf = NULL;
		if (pass) {
			buf = gl_ctx_scratch(ctx, w.len + 1);
			if (!buf)
				return -1;
		}
		gl_jsonw_begin(&w, buf, pass ? w.len + 1 : 0);
		for (int i = 0; i < n; i++) {
			if (&lab[i] == skip)
				continue;
			/* label names are [a-zA-Z_][a-zA-Z0-9_]*: no escaping, bounded by the line */
			if (lab[i].name.len >= sizeof(key))
				return -1;
			memcpy(key, lab[i].name.p, lab[i].name.len);
			key[lab[i].name.len] = '\0';
			gl_jsonw_str(&w, key, lab[i].value.p, lab[i].value.len);
		}
		if (!gl_jsonw_end(&w) && pass)
			return -1;
	}
	*out = (struct gl_str){buf, w.len};
	return 0;
}

/* Whether name is a sample of the remembered family (name itself or name + suffix). */
static int of_family(const struct prom_state *st, struct gl_str name)
{
	static const char *const suffixes[] = {"", "_total", "_bucket", "_sum", "_count", "_created",
					       "_gcount", "_gsum", "_info"};

	if (!st->family_len || name.len < st->family_len || memcmp(name.p, st->family, st->family_len))
		return 0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (name.len - st->family_len == strlen(suffixes[i]) &&
		    memcmp(name.p + st->family_len, suffixes[i], strlen(suffixes[i])) == 0)
			return 1;
	return 0;
}

static void reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
	rec->n_samples = 0;
}

static int all_digits(struct gl_str s)
{
	size_t k = s.len && (s.p[0] == '-' || s.p[0] == '+');

	if (k == s.len)
		return 0;
	for (; k < s.len; k++)
		if (s.p[k] < '0' || s.p[k] > '9')
			return 0;
	return 1;
}

static void prom_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct label lab[PROM_LABELS_MAX];
	const struct label *gpu = NULL;
	struct prom_state *st;
	struct gl_str name, val, tss = {NULL, 0}, labels;
	struct gl_sample *s;
	const char *why = NULL, *canon = NULL;
	size_t i = skip_blanks(line, 0, len), ne, vs;
	double v, scale = 1;
	int64_t ms = 0;
	int n = 0, own_ts = 0;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	if (i == len) {
		rec->kind = GL_REC_NONE;
		return;
	}
	if (line[i] == '#') {
		comment_line(ctx, line + i, len - i, rec);
		return;
	}
	ne = scan_name(line, i, len, 1);
	if (ne == i || ne == len || (line[ne] != '{' && !is_blank(line[ne])))
		return;
	name = (struct gl_str){line + i, ne - i};
	i = ne;
	if (line[i] == '{') {
		n = scan_labels(ctx, line, len, &i, lab, &why);
		if (n < 0) {
			reject(rec, why);
			return;
		}
	}
	/* value, then an optional timestamp */
	i = skip_blanks(line, i, len);
	vs = i;
	while (i < len && !is_blank(line[i]))
		i++;
	val = (struct gl_str){line + vs, i - vs};
	i = skip_blanks(line, i, len);
	if (i < len) {
		tss = (struct gl_str){line + i, 0};
		while (i < len && !is_blank(line[i]))
			i++;
		tss.len = (size_t)(i - (size_t)(tss.p - line));
		i = skip_blanks(line, i, len);
	}
	if (parse_value(val, &v) < 0) {
		/* "Loading weights took 3 s": a word then text, not a sample */
		if (n == 0)
			return;
		reject(rec, "value: not a number, NaN or +-Inf");
		return;
	}
	if (i < len || (tss.p && parse_ts_ms(tss, &ms) < 0)) {
		/* a word then text is no sample; a number then digits is one
		 * whose timestamp is out of reach (20 digits) */
		if (n == 0 && (i < len || !all_digits(tss)))
			return;
		/* "m 3 12345678901234567890": an integer, but past any time */
		reject(rec, i == len && tss.p[0] != '+' && all_digits(tss)
				    ? "timestamp: integer milliseconds out of range"
				    : "timestamp: not integer milliseconds");
		return;
	}
	own_ts = tss.p != NULL;
	if (isnan(v)) {
		reject(rec, "value NaN: not stored (a REAL column holds no NaN)");
		return;
	}
	if (isinf(v)) {
		reject(rec, v > 0 ? "value +Inf: not stored" : "value -Inf: not stored");
		return;
	}
	st = state_of(ctx);
	if (of_family(st, name)) {
		int has_le = 0;

		for (int k = 0; k < n; k++)
			has_le |= str_is(lab[k].name, "le");
		if (st->type == PT_COUNTER && v < 0 && !ends_with(name, "_created")) {
			reject(rec, "counter: negative value");
			return;
		}
		if ((st->type == PT_HISTOGRAM || st->type == PT_GAUGE_HISTOGRAM) &&
		    ends_with(name, "_bucket") && !has_le) {
			reject(rec, "histogram bucket without an le label");
			return;
		}
	}
	qsort(lab, (size_t)n, sizeof(lab[0]), label_cmp);
	for (int k = 1; k < n; k++) {
		if (label_cmp(&lab[k - 1], &lab[k]) == 0) {
			reject(rec, "labels: a label name twice");
			return;
		}
	}
	/* DCGM exporter: the GPU vocabulary, per device */
	if (name.len > 8 && memcmp(name.p, "DCGM_FI_", 8) == 0) {
		canon = gl_vocab_lookup(GL_VOCAB_DCGMI, name.p, name.len, &scale);
		for (int k = 0; k < n; k++)
			if (str_is(lab[k].name, "gpu"))
				gpu = &lab[k];
	}
	if (labels_json(ctx, lab, n, gpu, &labels) < 0) {
		reject(rec, "labels: too long");
		return;
	}
	s = gl_ctx_samples(ctx, 1);
	if (!s) {
		reject(rec, "out of memory");
		return;
	}
	s->metric = canon ? (struct gl_str){canon, strlen(canon)} : name;
	s->value = v * scale;
	s->device = gpu ? gpu->value : (struct gl_str){NULL, 0};
	s->labels = labels;
	s->ts_us = own_ts ? ms * 1000 : ctx->file_mtime_us;
	s->ts_estimated = !own_ts;
	st->at_mtime |= !own_ts;
	rec->samples = s;
	rec->n_samples = 1;
	rec->kind = GL_REC_SAMPLES;
}

static int prom_at_mtime(const unsigned char *state, size_t len)
{
	struct prom_state st;

	if (len != sizeof(st))
		return 0;
	memcpy(&st, state, sizeof(st));
	return st.magic == PROM_MAGIC && st.at_mtime;
}

const struct gl_format gl_fmt_prom = {
	.name = "prom",
	.summary = "Prometheus text exposition (/metrics scrape: vLLM, DCGM exporter, ...)",
	.flags = 0,
	.parse = prom_parse,
	.at_mtime = prom_at_mtime,
};
