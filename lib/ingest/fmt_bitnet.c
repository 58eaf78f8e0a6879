/*
 * fmt_bitnet.c - BitNet-rs inference metrics, one JSON object per line
 * (serde's serialisation of its PerformanceMetrics, any field may be null):
 *     {"total_latency_ms":812,"tokens_generated":64,"tokens_per_second":78.8,
 *      "first_token_latency_ms":95,"average_token_latency_ms":11.2,
 *      "memory_usage_bytes":1073741824,"cache_hit_rate":0.62,"backend_type":"cuda",
 *      "model_load_time_ms":null,"tokenizer_encode_time_ms":1.5,
 *      "tokenizer_decode_time_ms":0.8,"forward_pass_time_ms":690.1,"sampling_time_ms":12.4}
 * (on one line), or the small variant
 *     {"tokens_per_second":42.5,"latency_ms":150.0,"memory_usage_mb":512.0,"gpu_utilization":85.0}
 * Out: an event per line (component "bitnet", level INFO, a message that
 * sums the record up, the backend in metadata) with the samples
 * inference.tokens_per_second, .ttft_ms, .latency_ms, .token_latency_ms,
 * .tokens_generated, .memory_used_mib, .cache_hit_rate, .model_load_ms,
 * .tokenize_ms, .detokenize_ms, .forward_ms, .sampling_ms,
 * .gpu_utilization_pct (labels {"backend_type": ...} when it is given). BitNet-rs' own validate()
 * rules reject a line: negative tokens/s, a cache hit rate outside [0, 1],
 * a negative latency or time.
 *
 * The records carry no time. The lines new in a run are spread evenly, by
 * byte offset, between the file's modification time at the previous run
 * that read it and its modification time now (ctx->new_bytes_total,
 * ctx->bytes_done); the first time, or when ingest does not say how many
 * bytes are new, they all get the file's modification time. Every time is
 * marked estimated. The two modification times live in ctx->state.
 *
 * A line with "timestamp", "level" or "message" is a service's JSON log
 * (fmt_json.c), not a metrics line: foreign here.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_scan.h"
#include "textfmt.h"

#define BITNET_MAGIC 0x746e7462u	/* "btnt" */
#define MIB (1024.0 * 1024.0)

struct bitnet_state {
	uint32_t magic;
	uint32_t pad;
	int64_t run_mtime_us;		/* the file's mtime in the run that read the last lines */
	int64_t prev_mtime_us;		/* the mtime of the run before it; GL_TS_NONE: none */
};

enum field {
	F_TOTAL_LATENCY,
	F_TOKENS,
	F_TPS,
	F_TTFT,
	F_TOKEN_LATENCY,
	F_MEM_BYTES,
	F_CACHE_HIT,
	F_BACKEND,
	F_LOAD,
	F_ENCODE,
	F_DECODE,
	F_FORWARD,
	F_SAMPLING,
	F_LATENCY,		/* small variant */
	F_MEM_MB,
	F_GPU_UTIL,
	F_COUNT,
};

static const struct {
	const char *key;
	const char *metric;	/* NULL: not a sample */
	double scale;
	int is_time;		/* validate(): a negative value is rejected */
} fields[F_COUNT] = {
	[F_TOTAL_LATENCY] = {"total_latency_ms", "inference.latency_ms", 1, 1},
	[F_TOKENS] = {"tokens_generated", "inference.tokens_generated", 1, 0},
	[F_TPS] = {"tokens_per_second", "inference.tokens_per_second", 1, 0},
	[F_TTFT] = {"first_token_latency_ms", "inference.ttft_ms", 1, 1},
	[F_TOKEN_LATENCY] = {"average_token_latency_ms", "inference.token_latency_ms", 1, 1},
	[F_MEM_BYTES] = {"memory_usage_bytes", "inference.memory_used_mib", 1 / MIB, 0},
	[F_CACHE_HIT] = {"cache_hit_rate", "inference.cache_hit_rate", 1, 0},
	[F_BACKEND] = {"backend_type", NULL, 1, 0},
	[F_LOAD] = {"model_load_time_ms", "inference.model_load_ms", 1, 1},
	[F_ENCODE] = {"tokenizer_encode_time_ms", "inference.tokenize_ms", 1, 1},
	[F_DECODE] = {"tokenizer_decode_time_ms", "inference.detokenize_ms", 1, 1},
	[F_FORWARD] = {"forward_pass_time_ms", "inference.forward_ms", 1, 1},
	[F_SAMPLING] = {"sampling_time_ms", "inference.sampling_ms", 1, 1},
	[F_LATENCY] = {"latency_ms", "inference.latency_ms", 1, 1},
	[F_MEM_MB] = {"memory_usage_mb", "inference.memory_used_mib", 1, 0},
	[F_GPU_UTIL] = {"gpu_utilization", "inference.gpu_utilization_pct", 1, 0},
};

static int key_is(const struct gl_json_val *k, const char *s)
{
	return !(k->flags & GL_JSON_F_ESCAPES) && k->len == strlen(s) && memcmp(k->p, s, k->len) == 0;
}

/* This run's time for a line that ends end_bytes into the run's new bytes. */
static int64_t line_time(struct gl_parse_ctx *ctx, uint64_t end_bytes)
{
	struct bitnet_state *st = (struct bitnet_state *)(void *)ctx->state;
	int64_t now = ctx->file_mtime_us;
	double f;

	if (ctx->state_len != sizeof(*st) || st->magic != BITNET_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = BITNET_MAGIC;
		st->run_mtime_us = now;
		st->prev_mtime_us = GL_TS_NONE;
		ctx->state_len = sizeof(*st);
	} else if (st->run_mtime_us != now) {
		/* the first line of a new run */
		st->prev_mtime_us = st->run_mtime_us;
		st->run_mtime_us = now;
	}
	if (st->prev_mtime_us == GL_TS_NONE || st->prev_mtime_us >= now || !ctx->new_bytes_total)
		return now;
	f = (double)end_bytes / (double)ctx->new_bytes_total;
	if (f > 1)
		f = 1;
	return st->prev_mtime_us + (int64_t)((double)(now - st->prev_mtime_us) * f);
}

static void reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
	rec->n_samples = 0;
}

static void bitnet_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct gl_json_val key, val, backend = {GL_JSON_ABSENT, NULL, 0, 0};
	struct gl_event *ev = &rec->ev;
	double v[F_COUNT];
	int have[F_COUNT] = {0};
	struct gl_json_scan sc;
	struct gl_sample *s;
	size_t n = 0, known = 0;
	int64_t i64, ts;
	char *msg, *meta, *dev = NULL;
	size_t dev_len = 0;
	int rc;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	gl_event_init(ev);
	gl_json_scan_init(&sc, line, len);
	if (len == 0 || line[0] != '{' || gl_json_object_begin(&sc) < 0)
		return;
	while ((rc = gl_json_object_next(&sc, 2, &key, &val)) == 1) {
		if (key_is(&key, "timestamp") || key_is(&key, "level") || key_is(&key, "message"))
			return;
		for (int f = 0; f < F_COUNT; f++) {
			if (!key_is(&key, fields[f].key))
				continue;
			known++;
			if (f == F_BACKEND) {
				if (val.type == GL_JSON_STRING)
					backend = val;
			} else if (val.type == GL_JSON_INT || val.type == GL_JSON_REAL) {
				if (gl_json_number(&val, &i64, &v[f]) == 0)
					have[f] = 1;
			} else if (val.type != GL_JSON_NULL) {
				reject(rec, "a metrics field is not a number or null");
				known = 0;
			}
			break;
		}
		if (rec->kind == GL_REC_REJECT)
			break;
	}
	if (rec->kind == GL_REC_REJECT)
		return;
	/*
	 * Both shapes have tokens_per_second; a line with two of the keys but
	 * not it (null values dropped by a serialiser) is one too.
	 */
	if (!known || (known < 2 && !have[F_TPS]))
		return;
	if (rc < 0 || gl_json_scan_end(&sc) < 0) {
		reject(rec, sc.err ? sc.err : "broken JSON");
		return;
	}
	/* BitNet-rs PerformanceMetrics::validate() */
	if (have[F_TPS] && v[F_TPS] < 0) {
		reject(rec, "validate: negative tokens_per_second");
		return;
	}
	if (have[F_CACHE_HIT] && (v[F_CACHE_HIT] < 0 || v[F_CACHE_HIT] > 1)) {
		reject(rec, "validate: cache_hit_rate outside [0, 1]");
		return;
	}
	for (int f = 0; f < F_COUNT; f++) {
		if (have[f] && fields[f].is_time && v[f] < 0) {
			reject(rec, "validate: negative latency");
			return;
		}
	}
	ts = line_time(ctx, ctx->bytes_done + len + 1);
	if (backend.p) {
		dev = gl_ctx_scratch(ctx, backend.len);
		if (!dev) {
			reject(rec, "out of memory");
			return;
		}
		dev_len = gl_json_unescape(backend.p, backend.len, dev);
	}
	if (dev) {
		struct gl_jsonw w;

		gl_jsonw_begin(&w, NULL, 0);
		gl_jsonw_str(&w, "backend_type", dev, dev_len);
		gl_jsonw_end(&w);
		meta = gl_ctx_scratch(ctx, w.len + 1);
		if (meta) {
			gl_jsonw_begin(&w, meta, w.len + 1);
			gl_jsonw_str(&w, "backend_type", dev, dev_len);
			if (gl_jsonw_end(&w))
				ev->metadata = (struct gl_str){meta, w.len};
		}
	}
	s = gl_ctx_samples(ctx, F_COUNT);
	if (!s) {
		reject(rec, "out of memory");
		return;
	}
	for (int f = 0; f < F_COUNT; f++) {
		if (!have[f] || !fields[f].metric)
			continue;
		/* the small variant's latency_ms and the full one's total_latency_ms are one metric */
		if (f == F_LATENCY && have[F_TOTAL_LATENCY])
			continue;
		if (f == F_MEM_MB && have[F_MEM_BYTES])
			continue;
		s[n].ts_us = ts;
		s[n].ts_estimated = 1;
		s[n].metric = (struct gl_str){fields[f].metric, strlen(fields[f].metric)};
		s[n].value = v[f] * fields[f].scale;
		s[n].labels = ev->metadata;
		n++;
	}
	/* "64 tokens, 78.80 tokens/s, 812.0 ms (cuda)" */
	msg = gl_ctx_scratch(ctx, 160);
	if (msg) {
		int k = 0;

		if (have[F_TOKENS])
			k += snprintf(msg + k, 160 - (size_t)k, "%.0f tokens, ", v[F_TOKENS]);
		if (have[F_TPS])
			k += snprintf(msg + k, 160 - (size_t)k, "%.2f tokens/s, ", v[F_TPS]);
		if (have[F_TOTAL_LATENCY] || have[F_LATENCY])
			k += snprintf(msg + k, 160 - (size_t)k, "%.1f ms, ",
				      have[F_TOTAL_LATENCY] ? v[F_TOTAL_LATENCY] : v[F_LATENCY]);
		if (k >= 2)
			k -= 2;
		if (dev_len && dev_len < 64)
			k += snprintf(msg + k, 160 - (size_t)k, "%s(%.*s)", k ? " " : "", (int)dev_len, dev);
		ev->message = (struct gl_str){msg, (size_t)k};
	}
	ev->ts_us = ts;
	ev->level = GL_LEVEL_INFO;
	ev->component = (struct gl_str){"bitnet", 6};
	rec->samples = s;
	rec->n_samples = n;
	rec->kind = GL_REC_EVENT;
}

const struct gl_format gl_fmt_bitnet = {
	.name = "bitnet",
	.summary = "BitNet-rs PerformanceMetrics JSON lines (no time: placed between file mtimes)",
	.flags = 0,
	.parse = bitnet_parse,
};
