/*
 * json_fields.c - the record of one JSON line that both paths of the
 * JSON-lines parser fill (json_scan.h, part 2): the known keys and their
 * lookup, the check of the fields' types into a gl_rec
 * (gl_json_fields_finish), and the fast path that fills it from the
 * scanner's slices (gl_json_fast_parse).
 *
 * In: a line the format (fmt_json.c) hands over, or fields the jansson
 * path (json_slow.c) read. Out: a gl_rec. Below both of them: it calls
 * neither.
 */
#include "json_scan.h"

#include <math.h>
#include <string.h>

/* The keys, as fixed rows (no pointer to follow per compare). */
#define KEY_LEN_MAX 24
static const char field_keys[GL_JF_COUNT][KEY_LEN_MAX] = {
	[GL_JF_TIMESTAMP] = "timestamp",
	[GL_JF_LEVEL] = "level",
	[GL_JF_COMPONENT] = "component",
	[GL_JF_MESSAGE] = "message",
	[GL_JF_METADATA] = "metadata",
	[GL_JF_EXEC_MS] = "execution_time_ms",
	[GL_JF_MEM_MB] = "memory_usage_mb",
	[GL_JF_GPU_METRICS] = "gpu_metrics",
	[GL_JF_KERNEL_NAME] = "kernel_name",
	[GL_JF_EXEC_US] = "execution_time_us",
	[GL_JF_ALLOC_MB] = "memory_allocated_mb",
	[GL_JF_PEAK_MB] = "memory_peak_mb",
	[GL_JF_UTIL_PCT] = "gpu_utilization_percent",
	[GL_JF_ERROR_COUNT] = "error_count",
	[GL_JF_RECOVERY] = "recovery_attempts",
	[GL_JF_ANOMALY] = "performance_anomaly",
};

/*
 * The keys of each length, id + 1 (0: none), among the top-level keys
 * ([0]) and the gpu_metrics keys ([1]): no length has more than two. A
 * key is looked up for every member of every line, so the lookup is one
 * table read, a first-byte test and two or three 8-byte compares
 * (test_fmt_json checks every key, every shorter prefix, every one-byte
 * change and every length against a plain compare with each key).
 */
static const unsigned char keys_by_len[2][KEY_LEN_MAX][2] = {
	[0] = {
		[5] = {GL_JF_LEVEL + 1},
		[7] = {GL_JF_MESSAGE + 1},
		[8] = {GL_JF_METADATA + 1},
		[9] = {GL_JF_TIMESTAMP + 1, GL_JF_COMPONENT + 1},
		[11] = {GL_JF_GPU_METRICS + 1},
		[15] = {GL_JF_MEM_MB + 1},
		[17] = {GL_JF_EXEC_MS + 1},
	},
	[1] = {
		[11] = {GL_JF_KERNEL_NAME + 1, GL_JF_ERROR_COUNT + 1},
		[14] = {GL_JF_PEAK_MB + 1},
		[17] = {GL_JF_EXEC_US + 1, GL_JF_RECOVERY + 1},
		[19] = {GL_JF_ALLOC_MB + 1, GL_JF_ANOMALY + 1},
		[23] = {GL_JF_UTIL_PCT + 1},
	},
};

const char *gl_json_field_key(enum gl_json_field_id id)
{
	return field_keys[id];
}

static inline uint64_t load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

static inline uint32_t load4(const char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

/* a[0..len) == b[0..len) for 4 <= len <= 24, by overlapping word loads. */
static inline int same_bytes(const char *a, const char *b, size_t len)
{
	if (len < 8)
		return load4(a) == load4(b) && load4(a + len - 4) == load4(b + len - 4);
	return load8(a) == load8(b) && load8(a + len - 8) == load8(b + len - 8) &&
	       (len <= 16 || load8(a + 8) == load8(b + 8));
}

static inline int field_lookup(const char *key, size_t len, int gpu)
{
	const unsigned char *c;

	if (len < 4 || len >= KEY_LEN_MAX)
		return -1;	/* (no key is that short or long) */
	c = keys_by_len[gpu != 0][len];
	for (int i = 0; i < 2 && c[i]; i++) {
		const char *k = field_keys[c[i] - 1];

		if (k[0] == key[0] && same_bytes(key, k, len))
			return c[i] - 1;
	}
	return -1;
}

int gl_json_field_lookup(const char *key, size_t len, int gpu)
{
	return field_lookup(key, len, gpu);
}

void gl_json_fields_init(struct gl_json_fields *jf)
{
	memset(jf, 0, sizeof(*jf));
	for (int id = 0; id < GL_JF_COUNT; id++)
		jf->f[id].d = NAN;
}

/* A number field: null/absent keeps NAN. Returns -1 on a wrong type. */
static int take_number(const struct gl_json_field *f, double *out)
{
	if (f->type == GL_JSON_INT || f->type == GL_JSON_REAL)
		*out = f->d;
	else if (f->type != GL_JSON_ABSENT && f->type != GL_JSON_NULL)
		return -1;
	return 0;
}

/* A count: a non-negative integer, written 3 or (by a float-minded writer) 3.0. */
static int take_count(const struct gl_json_field *f, int64_t *out)
{
	if (f->type == GL_JSON_ABSENT || f->type == GL_JSON_NULL)
		return 0;
	if (f->type == GL_JSON_INT && f->i >= 0) {
		*out = f->i;
		return 0;
	}
	if (f->type == GL_JSON_REAL && f->d >= 0 && f->d < 9.2e18 && f->d == floor(f->d)) {
		*out = (int64_t)f->d;
		return 0;
	}
	return -1;
}

/* A string field; null/absent leaves *out absent. */
static int take_string(const struct gl_json_field *f, struct gl_str *out)
{
	if (f->type == GL_JSON_STRING)
		*out = f->str;
	else if (f->type != GL_JSON_ABSENT && f->type != GL_JSON_NULL)
		return -1;
	return 0;
}

/*
 * The checks run in a fixed order, so that a line with two wrong fields
 * gets the same reason from both paths.
 */
static const char *fill_event(const struct gl_json_fields *jf, struct gl_event *ev)
{
	const struct gl_json_field *f = jf->f;
	struct gl_str s = {NULL, 0};

	if (take_string(&f[GL_JF_TIMESTAMP], &s) < 0)
		return "timestamp: not a string";
	if (s.p && gl_time_parse_rfc3339(s.p, s.len, &ev->ts_us) < 0)
		return "timestamp: not an RFC 3339 time";
	s.p = NULL;
	if (take_string(&f[GL_JF_LEVEL], &s) < 0)
		return "level: not a string";
	if (s.p)
		ev->level = gl_level_parse(s.p, s.len);
	if (take_string(&f[GL_JF_COMPONENT], &ev->component) < 0)
		return "component: not a string";
	if (take_string(&f[GL_JF_MESSAGE], &ev->message) < 0)
		return "message: not a string";
	/* metadata may be any JSON value; all but null are kept as JSON text
	 * ("metadata": [1, 2] -> [1,2], "metadata": "gpu0" -> "gpu0" quoted). */
	if (f[GL_JF_METADATA].type != GL_JSON_ABSENT && f[GL_JF_METADATA].type != GL_JSON_NULL)
		ev->metadata = f[GL_JF_METADATA].str;
	if (take_number(&f[GL_JF_EXEC_MS], &ev->exec_ms) < 0)
		return "execution_time_ms: not a number";
	if (take_number(&f[GL_JF_MEM_MB], &ev->mem_mb) < 0)
		return "memory_usage_mb: not a number";
	if (f[GL_JF_GPU_METRICS].type == GL_JSON_ABSENT || f[GL_JF_GPU_METRICS].type == GL_JSON_NULL)
		return NULL;
	if (f[GL_JF_GPU_METRICS].type != GL_JSON_OBJECT)
		return "gpu_metrics: not an object";
	if (take_string(&f[GL_JF_KERNEL_NAME], &ev->kernel) < 0)
		return "gpu_metrics.kernel_name: not a string";
	if (take_number(&f[GL_JF_EXEC_US], &ev->dur_us) < 0)
		return "gpu_metrics.execution_time_us: not a number";
	if (take_number(&f[GL_JF_ALLOC_MB], &ev->alloc_mb) < 0)
		return "gpu_metrics.memory_allocated_mb: not a number";
	if (take_number(&f[GL_JF_PEAK_MB], &ev->peak_mb) < 0)
		return "gpu_metrics.memory_peak_mb: not a number";
	if (take_number(&f[GL_JF_UTIL_PCT], &ev->util_pct) < 0)
		return "gpu_metrics.gpu_utilization_percent: not a number";
	if (take_count(&f[GL_JF_ERROR_COUNT], &ev->error_count) < 0)
		return "gpu_metrics.error_count: not a non-negative integer";
	if (take_count(&f[GL_JF_RECOVERY], &ev->recovery_attempts) < 0)
		return "gpu_metrics.recovery_attempts: not a non-negative integer";
	switch (f[GL_JF_ANOMALY].type) {
	case GL_JSON_ABSENT:
	case GL_JSON_NULL:
		break;
	case GL_JSON_TRUE:
		ev->anomaly = 1;
		break;
	case GL_JSON_FALSE:
		ev->anomaly = 0;
		break;
	case GL_JSON_INT:
		if (f[GL_JF_ANOMALY].i == 0 || f[GL_JF_ANOMALY].i == 1) {
			ev->anomaly = (int)f[GL_JF_ANOMALY].i;
			break;
		}
		/* fall through */
	default:
		return "gpu_metrics.performance_anomaly: not a boolean (or 0/1)";
	}
	return NULL;
}

void gl_json_fields_finish(const struct gl_json_fields *jf, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	int known = 0;

	gl_event_init(ev);
	rec->reason = NULL;
	for (int id = 0; id < GL_JF_FIRST_GPU; id++)
		known |= jf->f[id].type != GL_JSON_ABSENT;
	if (!known) {
		rec->kind = GL_REC_FOREIGN;
		return;
	}
	rec->reason = fill_event(jf, ev);
	if (rec->reason) {
		gl_event_init(ev);
		rec->kind = GL_REC_REJECT;
		return;
	}
	/*
	 * No gpu_metrics.kernel_name: the message may still name the kernel,
	 * "Kernel force_pass_kernel executed in 512.34μs". An explicit
	 * execution_time_us is kept over the text's rounded figure.
	 */
	if (!ev->kernel.p && ev->message.p) {
		double text_us;

		if (gl_kernel_from_text(ev->message.p, ev->message.len, &ev->kernel, &text_us) &&
		    isnan(ev->dur_us))
			ev->dur_us = text_us;
	}
	if (ev->kernel.p && isnan(ev->dur_us) && !isnan(ev->exec_ms))
		ev->dur_us = ev->exec_ms * 1000.0;
	rec->kind = GL_REC_EVENT;
}

/* ---------------------------------------------------------------------
 * The fast path: the scanner's slices -> gl_json_fields.
 * ------------------------------------------------------------------- */

/* Longest escaped key worth decoding: every known key written as \u escapes. */
#define KEY_RAW_MAX (6 * 24)

static int lookup_key(const struct gl_json_val *key, int gpu)
{
	char buf[KEY_RAW_MAX];
	size_t n;

	if (!(key->flags & GL_JSON_F_ESCAPES))
		return field_lookup(key->p, key->len, gpu);
	if (key->len > sizeof(buf))
		return -1;
	n = gl_json_unescape(key->p, key->len, buf);
	return gl_json_field_lookup(buf, n, gpu);
}

/* Decodes one scanned value into f. Returns -1 when the fast path cannot. */
static int decode_field(struct gl_parse_ctx *ctx, const struct gl_json_val *v, int id,
			struct gl_json_field *f)
{
	char *out;

	f->type = v->type;
	if (id == GL_JF_METADATA && v->type != GL_JSON_NULL) {
		/* Any value is kept as its compact JSON text: a string with its
		 * quotes and escapes, a number as written. */
		if (v->type == GL_JSON_STRING) {
			f->str.p = v->p - 1;
			f->str.len = v->len + 2;
			return 0;
		}
		if (!(v->flags & GL_JSON_F_SPACE)) {
			f->str.p = v->p;
			f->str.len = v->len;
			return 0;
		}
		out = gl_ctx_scratch(ctx, v->len);
		if (!out)
			return -1;
		f->str.p = out;
		f->str.len = gl_json_compact(v, out);
		return 0;
	}
	switch (v->type) {
	case GL_JSON_STRING:
		if (!(v->flags & GL_JSON_F_ESCAPES)) {
			f->str.p = v->p;
			f->str.len = v->len;
			return 0;
		}
		out = gl_ctx_scratch(ctx, v->len);
		if (!out)
			return -1;
		f->str.p = out;
		f->str.len = gl_json_unescape(v->p, v->len, out);
		return 0;
	case GL_JSON_INT:
	case GL_JSON_REAL:
		return gl_json_number(v, &f->i, &f->d);
	default:
		return 0;
	}
}

/*
 * Walks the gpu_metrics object in place, at sc->pos: its members are kept
 * in vals, replacing those of an earlier gpu_metrics (the last one wins).
 */
static int walk_gpu(struct gl_json_scan *sc, struct gl_json_val *vals)
{
	size_t outer_members = sc->members, start;
	struct gl_json_val key, val;
	int rc, id;

	if (gl_json_object_begin(sc) < 0)
		return -1;
	start = sc->pos - 1;
	while ((rc = gl_json_object_next(sc, 3, &key, &val)) > 0) {
		id = lookup_key(&key, 1);
		if (id >= 0)
			vals[id] = val;
	}
	sc->members = outer_members;
	if (rc < 0)
		return -1;
	vals[GL_JF_GPU_METRICS].type = GL_JSON_OBJECT;
	vals[GL_JF_GPU_METRICS].p = sc->s + start;
	vals[GL_JF_GPU_METRICS].len = sc->pos - start;
	vals[GL_JF_GPU_METRICS].flags = 0;
	return 0;
}

static int next_is_brace(const struct gl_json_scan *sc)
{
	size_t i = sc->pos;

	while (i < sc->len && (sc->s[i] == ' ' || sc->s[i] == '\t' || sc->s[i] == '\r' ||
			       sc->s[i] == '\n'))
		i++;
	return i < sc->len && sc->s[i] == '{';
}

int gl_json_fast_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
		       struct gl_rec *rec, const char **reason, const char **field,
		       size_t *field_len)
{
	struct gl_json_val vals[GL_JF_COUNT], key, val;
	struct gl_json_fields jf;
	struct gl_json_scan sc;
	int rc, id;

	*field = NULL;
	*field_len = 0;
	memset(vals, 0, sizeof(vals));
	gl_json_scan_init(&sc, line, len);
	if (gl_json_object_begin(&sc) < 0)
		goto defer;
	while ((rc = gl_json_object_key(&sc, &key)) > 0) {
		id = lookup_key(&key, 0);
		if (id == GL_JF_GPU_METRICS) {
			for (int k = GL_JF_FIRST_GPU; k < GL_JF_COUNT; k++)
				vals[k].type = GL_JSON_ABSENT;
			if (next_is_brace(&sc)) {
				rc = walk_gpu(&sc, vals);
				if (rc < 0)
					break;
				continue;
			}
		}
		rc = gl_json_scan_value(&sc, 2, &val);
		if (rc < 0)
			break;
		if (id >= 0)
			vals[id] = val;
	}
	if (rc < 0) {
		*field = key.p;
		*field_len = key.len;
		goto defer;
	}
	if (gl_json_scan_end(&sc) < 0)
		goto defer;
	gl_json_fields_init(&jf);
	for (id = 0; id < GL_JF_COUNT; id++) {
		if (decode_field(ctx, &vals[id], id, &jf.f[id]) < 0) {
			sc.err = "value left to jansson";
			goto defer;
		}
	}
	gl_json_fields_finish(&jf, rec);
	return 0;
defer:
	*reason = sc.err;
	return -1;
}
