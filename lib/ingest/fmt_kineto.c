/*
 * fmt_kineto.c - PyTorch profiler (Kineto) traces: the Chrome trace JSON
 * that torch.profiler's export_chrome_trace / tensorboard_trace_handler
 * writes (*.pt.trace.json[.gz]).
 *
 * In: one JSON document per file, pretty-printed by Kineto's writer with one
 * trace event over several lines, tens to hundreds of MB:
 *     {
 *       "schemaVersion": 1,
 *       "deviceProperties": [
 *         {
 *           "id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224,
 *           ...
 *       ],
 *       "traceEvents": [
 *       {
 *         "ph": "X", "cat": "kernel", "name": "void at::native::...", "pid": 0, "tid": 7,
 *         "ts": 1712195495505582.988, "dur": 4.928,
 *         "args": {
 *           "External id": 112,      "queued": 0, "device": 0, "context": 1,      "stream": 7, "correlation": 135071, ...
 *         }
 *       },
 *       ...
 *       ],
 *       "traceName": "./logs/mi250_minitoy_train_ROCm6_2_kineto.json",
 *       "displayTimeUnit": "ms",
 *       "baseTimeNanoseconds": 1735632360000000000
 *     }
 * The lines go through a structural scanner (jsonstream.c) that assembles
 * one array element at a time in a buffer of at most 1 MiB, so memory is
 * bounded whatever the size of the trace. Each element is then parsed with
 * the validating scanner of json_scan.h.
 *
 * Out:
 * - "ph": "X" events of category kernel (2021 traces: Kernel), gpu_memcpy
 *   (Memcpy), gpu_memset (Memset): kernel timings (GL_REC_EVENT, source
 *   kineto): name, ts and dur in µs (displayTimeUnit only tells a viewer
 *   how to display them), device and stream from args.device / args.stream,
 *   else from pid and tid ("tid": "stream 7" in 2021 traces), grid, block,
 *   registers, shared memory, correlation, achieved occupancy.
 * - the launch call of a kernel (category cuda_runtime, cuda_driver; 2021:
 *   Runtime) with the same args.correlation gives its launch overhead (the
 *   call's dur) and queue time (kernel start - call end, at least 0). Kineto
 *   writes a GPU event either after its launch call (ROCm traces) or before
 *   it (CUDA traces: the call follows within a few events), so launch calls
 *   are kept in a bounded map, and a kernel whose call is not known yet is
 *   held for up to KIN_HOLD_UNITS further elements.
 * - user_annotation and gpu_user_annotation (record_function ranges):
 *   spans (GL_REC_SPAN). The path comes from the annotations of the same
 *   category and thread still open when one is read (up to 16 deep, 8
 *   threads): Kineto writes a thread's annotations mostly in start order,
 *   and an annotation written after one it lies inside is a level deeper.
 *   One written before the annotation that encloses it (Kineto does that
 *   for a few) is taken as outermost: the path is what a single pass can
 *   know. Names may hold '|' themselves ("[param|cuda]").
 * - deviceProperties elements: one event each ("device 0: <name>", the
 *   element as metadata), component "kineto".
 * - anything else (cpu_op, flow events, metadata): nothing stored.
 * Time: when the document has baseTimeNanoseconds (ROCm traces write it
 * after the events: the prepare hook reads it from the file's end), ts is
 * µs after it; else ts is µs since the epoch.
 *
 * A trace is one document: a line that is not part of one, or an element
 * that is not JSON, is a reject with the reason; after a structural error
 * (a truncated or corrupt trace) every further line is rejected with the
 * scanner's reason, so nothing is silently dropped.
 */
#define _GNU_SOURCE	/* memmem */
#include "format.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "jsonstream.h"
#include "tracetail.h"
#include "../util/hash.h"

#define KIN_UNIT_MAX (1u << 20)		/* an element over 1 MiB is rejected */
#define KIN_MAP 4096			/* launch calls remembered (direct-mapped by correlation) */
#define KIN_HOLD_UNITS 8		/* elements a kernel waits for its launch call */
#define KIN_STACK 16			/* nested annotations followed per thread */
#define KIN_TIDS 8			/* threads followed per annotation category */

static const char kin_magic[4] = {'K', 'I', 'N', '1'};

/* Plain bytes in ctx->state (persisted with the stream's position). */
struct kin_state {
	char magic[4];
	int32_t started;	/* the document is known to be a trace */
	struct gl_jstream_pos pos;	/* the scanner's place */
	int32_t has_base;
	int64_t base_ns;	/* baseTimeNanoseconds */
	int32_t broken;		/* a structural error was met */
	char why[80];		/* ... and its reason */
};

/*
 * A ts as written, whole µs and the fraction apart: "ts": 1712195495505582.988
 * has 16 significant digits, more than a double keeps exactly at 1e15 µs
 * (a quarter µs), and queue times are differences of such values.
 */
struct kts {
	int64_t whole;
	double frac;		/* 0 <= frac < 1 */
};

struct launch {
	int64_t corr;		/* -1: empty */
	struct kts ts;		/* the call */
	double dur_us;
};

/* A record being built or held: strings point into buf. */
struct slot {
	enum gl_rec_kind kind;
	struct gl_event ev;
	struct gl_span sp;
	struct kts ts;		/* the kernel's ts as written (for the queue time) */
	int waited;		/* elements since it was held */
	char *buf;
	size_t used, cap;
};

struct annot {
	double end_raw;
	size_t off, len;	/* the name in the stack's text */
};

struct astack {
	int64_t tid;
	uint64_t used;		/* when last used, to replace the stalest */
	int n;
	struct annot a[KIN_STACK];
	char text[4096];	/* the names, '|'-separated */
	size_t text_len;
};

struct kin {
	struct gl_jstream js;
	struct kin_state st;	/* working copy; into ctx->state on lines that end with hold 0 */
	int known;		/* a member name of a Kineto trace was seen */
	struct launch map[KIN_MAP];
	struct slot slot[2];
	int held;		/* index of the held slot, -1 none */
	int emitted;		/* index of the slot emitted by the last call, -1 none */
	struct astack stacks[2][KIN_TIDS];	/* per category (user_annotation, gpu_user_annotation), per thread */
	uint64_t stack_clock;
	char reason[160];
	/*
	 * The last line's result when it was one ingest parses a second time
	 * (records.c's classify() tries the other formats on anything but an
	 * event, then parses again): the same line must not be fed twice.
	 */
	int again;
	uint64_t again_hash;
	size_t again_len;
	struct gl_rec again_rec;
	int again_hold;
};

static void kin_free(void *p)
{
	struct kin *k = p;

	gl_jstream_release(&k->js);
	free(k->slot[0].buf);
	free(k->slot[1].buf);
	free(k);
}

/* ctx->state when it is this format's, else NULL. */
static struct kin_state *kstate(struct gl_parse_ctx *ctx)
{
	struct kin_state *st = (struct kin_state *)ctx->state;

	if (ctx->state_len != sizeof(*st) || memcmp(st->magic, kin_magic, 4) != 0)
		return NULL;
	return st;
}

/* The format's heap state, created (from ctx->state, when it is ours) on first use. */
static struct kin *kin_get(struct gl_parse_ctx *ctx)
{
	struct kin_state *st = kstate(ctx);
	struct kin *k;

	if (ctx->priv && ctx->priv_free == kin_free)
		return ctx->priv;
	if (ctx->priv && ctx->priv_free)
		ctx->priv_free(ctx->priv);
	ctx->priv = NULL;
	if (!(k = calloc(1, sizeof(*k))))
		return NULL;
	gl_jstream_init(&k->js, KIN_UNIT_MAX);
	if (st) {
		k->st = *st;
		k->known = st->started;
		if (st->started)
			gl_jstream_restore(&k->js, &st->pos);
		if (st->broken)
			k->js.err = k->st.why;
	} else {
		memcpy(k->st.magic, kin_magic, 4);
	}
	for (size_t i = 0; i < KIN_MAP; i++)
		k->map[i].corr = -1;
	k->held = k->emitted = -1;
	ctx->priv = k;
	ctx->priv_free = kin_free;
	return k;
}

static void kin_drop(struct gl_parse_ctx *ctx)
{
	kin_free(ctx->priv);
	ctx->priv = NULL;
	ctx->priv_free = NULL;
}

/* The top-level members a Kineto trace opens with. */
static int known_key(const char *key)
{
	static const char *const keys[] = {"schemaVersion", "deviceProperties", "traceEvents",
					   "distributedInfo", "traceName", "displayTimeUnit",
					   "baseTimeNanoseconds", NULL};

	for (size_t i = 0; keys[i]; i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

/* --- building records ---------------------------------------------------- */

static int slot_reserve(struct slot *s, size_t n)
{
	if (n > s->cap) {
		char *p = realloc(s->buf, n);

		if (!p)
			return -1;
		s->buf = p;
		s->cap = n;
	}
	s->used = 0;
	return 0;
}

static struct gl_str slot_put(struct slot *s, const char *p, size_t n)
{
	struct gl_str v = {s->buf + s->used, n};

	memcpy(s->buf + s->used, p, n);
	s->used += n;
	return v;
}

/* A scanned string, unescaped, into the slot (reserved for the unit's size). */
static struct gl_str slot_str(struct slot *s, const struct gl_json_val *v)
{
	struct gl_str out = {s->buf + s->used, 0};

	out.len = gl_json_unescape(v->p, v->len, s->buf + s->used);
	s->used += out.len;
	return out;
}

/* The length of the run at p[0..n) of digits, '-', ' ' and ','. */
static size_t strspn_n(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ((p[i] >= '0' && p[i] <= '9') || p[i] == '-' || p[i] == ' ' || p[i] == ','))
		i++;
	return i;
}

/* "grid": [4, 106, 1] -> "4,106,1"; NULL p unless an array of integers. */
static struct gl_str slot_dim(struct slot *s, const struct gl_json_val *v)
{
	struct gl_str out = {NULL, 0};
	struct gl_json_scan sc;
	struct gl_json_val e;
	size_t start = s->used;
	int n = 0;

	if (v->type != GL_JSON_ARRAY)
		return out;
	/*
	 * An array the scanner accepted that holds only digits, '-', ' ' and
	 * ',' between its brackets ("[54, 1, 1]") is a list of integers: the
	 * runs of digits are its elements.
	 */
	if (v->len >= 2 && v->len - 2 == strspn_n(v->p + 1, v->len - 2)) {
		for (size_t i = 1; i + 1 < v->len;) {
			size_t end;

			if (v->p[i] == ' ' || v->p[i] == ',') {
				i++;
				continue;
			}
			for (end = i + 1; end + 1 < v->len && v->p[end] != ' ' && v->p[end] != ','; end++)
				;
			if (n++ == 3) {
				s->used = start;
				return out;
			}
			if (n > 1)
				slot_put(s, ",", 1);
			slot_put(s, v->p + i, end - i);
			i = end;
		}
		out.p = s->buf + start;
		out.len = s->used - start;
		return out;
	}
	gl_json_scan_init(&sc, v->p, v->len);
	sc.pos = 1;
	for (;;) {
		while (sc.pos < sc.len && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == ','))
			sc.pos++;
		if (sc.pos >= sc.len || sc.s[sc.pos] == ']')
			break;
		if (gl_json_scan_value(&sc, 3, &e) < 0 || e.type != GL_JSON_INT || n >= 3) {
			s->used = start;
			return out;
		}
		if (n++)
			slot_put(s, ",", 1);
		slot_put(s, e.p, e.len);
	}
	out.p = s->buf + start;
	out.len = s->used - start;
	return out;
}

static int is_cat(const struct gl_str *c, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (c->len == strlen(names[i]) && memcmp(c->p, names[i], c->len) == 0)
			return 1;
	return 0;
}

static const char *const gpu_cats[] = {"kernel", "Kernel", "gpu_memcpy", "Memcpy",
				       "gpu_memset", "Memset", NULL};
static const char *const launch_cats[] = {"cuda_runtime", "cuda_driver", "Runtime", NULL};
static const char *const annot_cats[] = {"user_annotation", "gpu_user_annotation", NULL};

/* The fields of one trace event that matter here. */
struct tev {
	struct gl_json_val ph, cat, name, pid, tid, ts, dur;
	struct gl_json_val device, stream, corr, regs, smem, grid, block, occ;
};

static int num(const struct gl_json_val *v, double *d)
{
	int64_t i;

	if (v->type != GL_JSON_INT && v->type != GL_JSON_REAL)
		return -1;
	return gl_json_number(v, &i, d);
}

static int key_is(const struct gl_json_val *k, const char *s)
{
	return k->len == strlen(s) && memcmp(k->p, s, k->len) == 0;
}

/*
 * The fast path of scan_event: one walk over the element that reads the
 * members used here and steps over the rest. It checks itself what a
 * Kineto event is mostly made of: keys and strings of plain bytes (no
 * escape, control or non-ASCII byte), plain numbers ("ts":
 * 1735689600001037.509, "dur": 279.027, "correlation": 1) and arrays of
 * them ("grid": [54, 1, 1]). Any other value (objects but args, literals,
 * other strings and numbers) goes to gl_json_scan_value, the validating
 * scan the slow path uses, at the same depth. Returns 0 with *t filled, or
 * -1 for anything else (a key with an escape, a value the scanner refuses,
 * a stray byte): the caller then runs the slow path, which finds the same
 * values or gives the reason.
 */
static const unsigned char plain_byte[256] = {	/* 0x20..0x7f but '"' and '\\' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static const unsigned char ws_byte[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* b[i..] up to the '\0' after the unit (jsonstream.h) holds no blank. */
static size_t skip_ws(const unsigned char *b, size_t i)
{
	while (ws_byte[b[i]])
		i++;
	return i;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A number at b[i] of the form -?(0|[1-9][0-9]*)(.[0-9]+)? with at most 18
 * integer digits (so it fits int64 and cannot overflow a double): its end,
 * *real set when it has a fraction. 0 when it is not of that form.
 */
static size_t plain_number(const unsigned char *b, size_t i, int *real)
{
	size_t j = i + (b[i] == '-'), d0 = j;

	if (b[j] == '0')
		j++;
	else
		while (is_digit(b[j]))
			j++;
	if (j == d0 || j - d0 > 18 || is_digit(b[j]))
		return 0;
	*real = 0;
	if (b[j] == '.') {
		size_t f0 = ++j;

		while (is_digit(b[j]))
			j++;
		if (j == f0)
			return 0;
		*real = 1;
	}
	if (b[j] == 'e' || b[j] == 'E')
		return 0;
	return j;
}

/* An array of plain numbers at b[i] == '[': its end, or 0. *space: blanks inside. */
static size_t plain_array(const unsigned char *b, size_t i, unsigned *space)
{
	size_t j = skip_ws(b, i + 1);
	int real;

	*space = j != i + 1;
	if (b[j] == ']')
		return j + 1;
	for (;;) {
		size_t e;

		if ((b[j] != '-' && !is_digit(b[j])) || !(e = plain_number(b, j, &real)))
			return 0;
		j = skip_ws(b, e);
		*space |= j != e;
		if (b[j] == ']')
			return j + 1;
		if (b[j] != ',')
			return 0;
		e = skip_ws(b, j + 1);
		*space |= e != j + 1;
		j = e;
	}
}

#define KEY_IS(k, kl, lit) ((kl) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* Where a member of the top-level object (args 0) or of args (args 1) goes. */
static struct gl_json_val *member(struct tev *t, const char *k, size_t kl, int args)
{
	if (!args) {
		switch (kl) {
		case 2:
			return KEY_IS(k, kl, "ph") ? &t->ph : KEY_IS(k, kl, "ts") ? &t->ts : NULL;
		case 3:
			if (KEY_IS(k, kl, "cat"))
				return &t->cat;
			if (KEY_IS(k, kl, "pid"))
				return &t->pid;
			if (KEY_IS(k, kl, "tid"))
				return &t->tid;
			return KEY_IS(k, kl, "dur") ? &t->dur : NULL;
		case 4:
			return KEY_IS(k, kl, "name") ? &t->name : NULL;
		default:
			return NULL;
		}
	}
	switch (kl) {
	case 4:
		return KEY_IS(k, kl, "grid") ? &t->grid : NULL;
	case 5:
		return KEY_IS(k, kl, "block") ? &t->block : NULL;
	case 6:
		if (KEY_IS(k, kl, "device"))
			return &t->device;
		return KEY_IS(k, kl, "stream") ? &t->stream : NULL;
	case 11:
		return KEY_IS(k, kl, "correlation") ? &t->corr : NULL;
	case 13:
		return KEY_IS(k, kl, "shared memory") ? &t->smem : NULL;
	case 20:
		return KEY_IS(k, kl, "registers per thread") ? &t->regs : NULL;
	case 25:
		return KEY_IS(k, kl, "est. achieved occupancy %") ? &t->occ : NULL;
	default:
		return NULL;
	}
}

/*
 * p[0..n) is a unit of jsonstream.h, followed by its '\0': the loops stop
 * there (a '\0' is no blank, digit, quote or plain byte) without a bounds
 * check. A '\0' inside the unit stops them too and leads to the slow path.
 */
static int fast_event(const char *p, size_t n, struct tev *t)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i = skip_ws(b, 0);
	int args = 0;	/* walking the members of args */

	memset(t, 0, sizeof(*t));
	if (b[i] != '{')
		return -1;
	i = skip_ws(b, i + 1);
	if (b[i] == '}') {
		i++;
		goto end;
	}
	for (;;) {
		struct gl_json_val v, *dst;
		const char *k;
		size_t kl, j;
		int real;
		unsigned space;

		/* "key" : */
		if (b[i] != '"')
			return -1;
		for (j = i + 1; plain_byte[b[j]]; j++)
			;
		if (b[j] != '"')
			return -1;
		k = p + i + 1;
		kl = j - i - 1;
		i = skip_ws(b, j + 1);
		if (b[i] != ':')
			return -1;
		i = skip_ws(b, i + 1);
		if (i >= n)
			return -1;
		if (!args && b[i] == '{' && KEY_IS(k, kl, "args")) {
			args = 1;
			i = skip_ws(b, i + 1);
			if (b[i] == '}') {
				i++;
				args = 0;
				goto next;
			}
			continue;
		}
		/* the value */
		v.flags = 0;
		if (b[i] == '"') {
			j = i + 1 + gl_json_plain_run(p + i + 1, n - i - 1);
			if (b[j] != '"')
				goto general;
			v.type = GL_JSON_STRING;
			v.p = p + i + 1;
			v.len = j - i - 1;
			i = j + 1;
		} else if ((b[i] == '-' || is_digit(b[i])) && (j = plain_number(b, i, &real))) {
			v.type = real ? GL_JSON_REAL : GL_JSON_INT;
			v.p = p + i;
			v.len = j - i;
			i = j;
		} else if (b[i] == '[' && (j = plain_array(b, i, &space))) {
			v.type = GL_JSON_ARRAY;
			v.p = p + i;
			v.len = j - i;
			v.flags = space ? GL_JSON_F_SPACE : 0;
			i = j;
		} else {
			struct gl_json_scan sc;
general:
			gl_json_scan_init(&sc, p, n);
			sc.pos = i;
			if (gl_json_scan_value(&sc, args ? 3 : 2, &v) < 0)
				return -1;
			i = sc.pos;
		}
		if ((dst = member(t, k, kl, args)))
			*dst = v;
next:
		/* ',' and the next member, or '}' */
		i = skip_ws(b, i);
		if (b[i] == ',') {
			i = skip_ws(b, i + 1);
			continue;
		}
		if (b[i] != '}')
			return -1;
		i++;
		if (!args)
			break;
		args = 0;
		goto next;
	}
end:
	return skip_ws(b, i) == n ? 0 : -1;
}

/*
 * Walks the element's object (and its args object). Returns 0, or -1 with
 * *why. The fast path above takes the elements it can; the rest (and every
 * element that is not valid JSON) get the full validating walk.
 */
static int scan_event(const char *p, size_t n, struct tev *t, const char **why)
{
	struct gl_json_scan sc;
	struct gl_json_val k, v;
	int r;

	if (fast_event(p, n, t) == 0)
		return 0;
	memset(t, 0, sizeof(*t));
	gl_json_scan_init(&sc, p, n);
	if (gl_json_object_begin(&sc) < 0) {
		*why = "trace event: not a JSON object";
		return -1;
	}
	while ((r = gl_json_object_next(&sc, 2, &k, &v)) == 1) {
		if (key_is(&k, "ph"))
			t->ph = v;
		else if (key_is(&k, "cat"))
			t->cat = v;
		else if (key_is(&k, "name"))
			t->name = v;
		else if (key_is(&k, "pid"))
			t->pid = v;
		else if (key_is(&k, "tid"))
			t->tid = v;
		else if (key_is(&k, "ts"))
			t->ts = v;
		else if (key_is(&k, "dur"))
			t->dur = v;
		else if (key_is(&k, "args") && v.type == GL_JSON_OBJECT) {
			struct gl_json_scan as;
			struct gl_json_val ak, av;
			int ar;

			gl_json_scan_init(&as, v.p, v.len);
			gl_json_object_begin(&as);
			while ((ar = gl_json_object_next(&as, 3, &ak, &av)) == 1) {
				if (key_is(&ak, "device"))
					t->device = av;
				else if (key_is(&ak, "stream"))
					t->stream = av;
				else if (key_is(&ak, "correlation"))
					t->corr = av;
				else if (key_is(&ak, "registers per thread"))
					t->regs = av;
				else if (key_is(&ak, "shared memory"))
					t->smem = av;
				else if (key_is(&ak, "grid"))
					t->grid = av;
				else if (key_is(&ak, "block"))
					t->block = av;
				else if (key_is(&ak, "est. achieved occupancy %"))
					t->occ = av;
			}
		}
	}
	if (r < 0 || gl_json_scan_end(&sc) < 0) {
		*why = sc.err ? sc.err : "trace event: not JSON";
		return -1;
	}
	return 0;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
};

static int ts_split(const struct gl_json_val *v, struct kts *t)
{
	int64_t i;
	double d;
	const char *dot;

	if (v->type == GL_JSON_INT) {
		if (gl_json_number(v, &i, &d) < 0)
			return -1;
		t->whole = i;
		t->frac = 0;
		return 0;
	}
	if (v->type != GL_JSON_REAL)
		return -1;
	dot = memchr(v->p, '.', v->len);
	if (dot && dot - v->p <= 18 && v->p[0] != '-' && !memchr(v->p, 'e', v->len) &&
	    !memchr(v->p, 'E', v->len)) {
		char f[40] = "0";
		size_t fl = v->len - (size_t)(dot - v->p);
		uint64_t m = 0;

		t->whole = 0;
		for (const char *c = v->p; c < dot; c++)
			t->whole = t->whole * 10 + (*c - '0');
		/*
		 * ".988" is 988 / 10^3: with at most 15 digits both are exact
		 * doubles and the one division rounds as strtod("0.988") does
		 * (Clinger's fast path).
		 */
		if (FLT_EVAL_METHOD == 0 && fl - 1 <= 15) {
			for (const char *c = dot + 1; c < v->p + v->len; c++)
				m = m * 10 + (uint64_t)(*c - '0');
			t->frac = (double)m / pow10_exact[fl - 1];
			return 0;
		}
		if (fl > sizeof(f) - 2)
			fl = sizeof(f) - 2;
		memcpy(f + 1, dot, fl);
		f[fl + 1] = '\0';
		t->frac = strtod(f, NULL);
		return 0;
	}
	if (gl_json_number(v, &i, &d) < 0 || !isfinite(d))
		return -1;
	t->whole = (int64_t)floor(d);
	t->frac = d - floor(d);
	return 0;
}

/* b - a in µs. */
static double ts_diff(struct kts b, struct kts a)
{
	return (double)(b.whole - a.whole) + (b.frac - a.frac);
}

static int64_t to_us(const struct kin_state *st, struct kts t)
{
	int64_t us = t.whole;
	double frac = t.frac;

	if (st->has_base) {
		us += st->base_ns / 1000;
		frac += (double)(st->base_ns % 1000) / 1000.0;
	}
	return us + (int64_t)llround(frac);
}

/* "stream 7" -> "7"; an integer as text; else NULL p. */
static struct gl_str id_text(struct slot *s, const struct gl_json_val *v, const char *prefix)
{
	struct gl_str none = {NULL, 0};

	if (v->type == GL_JSON_INT)
		return slot_put(s, v->p, v->len);
	if (v->type == GL_JSON_STRING && !(v->flags & GL_JSON_F_ESCAPES)) {
		size_t pl = strlen(prefix);

		if (v->len > pl && memcmp(v->p, prefix, pl) == 0)
			return slot_put(s, v->p + pl, v->len - pl);
	}
	return none;
}

/* A GPU event into slot s. Returns 0, or -1 with *why. */
static int build_kernel(struct kin_state *st, struct slot *s, const struct tev *t,
			const char **why)
{
	struct gl_event *ev = &s->ev;
	struct kts ts;
	double dur, d;
	int64_t i;

	if (t->name.type != GL_JSON_STRING) {
		*why = "GPU event: no name";
		return -1;
	}
	if (ts_split(&t->ts, &ts) < 0 || num(&t->dur, &dur) < 0 || dur < 0) {
		*why = ts_split(&t->ts, &ts) == 0 && num(&t->dur, &dur) == 0
			       ? "GPU event: negative dur"
			       : "GPU event: ts or dur is not a number";
		return -1;
	}
	gl_event_init(ev);
	s->kind = GL_REC_EVENT;
	s->ts = ts;
	ev->source = GL_SRC_KINETO;
	ev->ts_us = to_us(st, ts);
	ev->dur_us = dur;
	ev->level = GL_LEVEL_INFO;
	ev->component = slot_put(s, "kineto", 6);
	ev->kernel = slot_str(s, &t->name);
	ev->device = id_text(s, &t->device, "");
	if (!ev->device.p)
		ev->device = id_text(s, &t->pid, "");
	ev->stream = id_text(s, &t->stream, "");
	if (!ev->stream.p)
		ev->stream = id_text(s, &t->tid, "stream ");
	ev->grid = slot_dim(s, &t->grid);
	ev->block = slot_dim(s, &t->block);
	if (t->regs.type == GL_JSON_INT && gl_json_number(&t->regs, &i, &d) == 0)
		ev->registers = i;
	if (t->smem.type == GL_JSON_INT && gl_json_number(&t->smem, &i, &d) == 0)
		ev->shared_mem_bytes = i;
	if (t->corr.type == GL_JSON_INT && gl_json_number(&t->corr, &i, &d) == 0)
		ev->corr_id = i;
	if (num(&t->occ, &d) == 0)
		ev->occupancy = d / 100.0;
	return 0;
}

/* The launch call's figures into a kernel's event. */
static void apply_launch(struct slot *s, struct kts call_ts, double call_dur)
{
	double q = ts_diff(s->ts, call_ts) - call_dur;

	s->ev.launch_overhead_us = call_dur;
	s->ev.queue_us = q > 0 ? q : 0;
}

/* An annotation into slot s, with its path from the thread's open annotations. */
static int build_span(struct kin *k, struct kin_state *st, struct slot *s, const struct tev *t,
		      int which, const char **why)
{
	struct astack *as = NULL;
	struct kts kt;
	double ts, dur, d;
	int64_t tid = -1;
	struct gl_span *sp = &s->sp;

	if (t->name.type != GL_JSON_STRING || ts_split(&t->ts, &kt) < 0 || num(&t->dur, &dur) < 0 ||
	    dur < 0) {
		*why = "annotation: no name, ts or dur";
		return -1;
	}
	ts = (double)kt.whole + kt.frac;
	if (t->tid.type == GL_JSON_INT)
		gl_json_number(&t->tid, &tid, &d);
	for (int i = 0; i < KIN_TIDS && !as; i++)
		if (k->stacks[which][i].used && k->stacks[which][i].tid == tid)
			as = &k->stacks[which][i];
	if (!as) {
		as = &k->stacks[which][0];
		for (int i = 1; i < KIN_TIDS; i++)
			if (k->stacks[which][i].used < as->used)
				as = &k->stacks[which][i];
		as->n = 0;
		as->text_len = 0;
		as->tid = tid;
	}
	as->used = ++k->stack_clock;
	/* close the annotations that ended before this one starts */
	while (as->n > 0 && as->a[as->n - 1].end_raw <= ts) {
		as->n--;
		as->text_len = as->a[as->n].off ? as->a[as->n].off - 1 : 0;
	}
	gl_span_init(sp);
	s->kind = GL_REC_SPAN;
	sp->source = GL_SRC_KINETO;
	sp->start_us = to_us(st, kt);
	sp->dur_us = dur;
	sp->name = slot_str(s, &t->name);
	sp->depth = as->n;
	sp->device = id_text(s, &t->device, "");
	if (as->n < KIN_STACK && as->text_len + sp->name.len + 1 < sizeof(as->text)) {
		struct annot *a = &as->a[as->n++];

		if (as->text_len)
			as->text[as->text_len++] = '|';
		a->off = as->text_len;
		a->len = sp->name.len;
		a->end_raw = ts + dur;
		memcpy(as->text + as->text_len, sp->name.p, sp->name.len);
		as->text_len += sp->name.len;
		sp->path = slot_put(s, as->text, as->text_len);
	} else {
		sp->path = sp->name;
	}
	return 0;
}

/* A deviceProperties element: "device 0: NVIDIA A100-PG509-200". */
static int build_device(struct slot *s, const char *p, size_t n, const char **why)
{
	struct gl_json_scan sc;
	struct gl_json_val k, v, id = {0}, name = {0};
	char tmp[64];
	int r, len;

	gl_json_scan_init(&sc, p, n);
	if (gl_json_object_begin(&sc) < 0) {
		*why = "deviceProperties: not an object";
		return -1;
	}
	while ((r = gl_json_object_next(&sc, 3, &k, &v)) == 1) {
		if (key_is(&k, "id"))
			id = v;
		else if (key_is(&k, "name"))
			name = v;
	}
	if (r < 0 || id.type != GL_JSON_INT || name.type != GL_JSON_STRING) {
		*why = "deviceProperties: no id or name";
		return -1;
	}
	gl_event_init(&s->ev);
	s->kind = GL_REC_EVENT;
	s->ev.source = GL_SRC_KINETO;
	s->ev.level = GL_LEVEL_INFO;
	s->ev.component = slot_put(s, "kineto", 6);
	s->ev.device = slot_put(s, id.p, id.len);
	len = snprintf(tmp, sizeof(tmp), "device %.*s: ", (int)id.len, id.p);
	s->ev.message = slot_put(s, tmp, (size_t)len);
	s->ev.message.len += slot_str(s, &name).len;
	s->ev.metadata.p = s->buf + s->used;
	s->ev.metadata.len = gl_json_compact(&(struct gl_json_val){GL_JSON_OBJECT, p, n, GL_JSON_F_SPACE},
					     s->buf + s->used);
	s->used += s->ev.metadata.len;
	return 0;
}

/* --- one line -------------------------------------------------------------- */

struct line_out {
	int n;			/* records for this line */
	int slot;		/* the one to emit */
	const char *reject;	/* a reject reason for this line */
};

static int free_slot(const struct kin *k)
{
	return k->held == 0 ? 1 : 0;
}

static void emit(struct line_out *o, int slot)
{
	if (o->n++ == 0)
		o->slot = slot;
}

/*
 * After each element: a held kernel waits for at most KIN_HOLD_UNITS more,
 * then goes with the first element that gives no record of its own (one
 * record per line: a line that gave two would be rejected whole). A kernel
 * waits so when its launch call was read by an earlier run (the map is not
 * kept), or is not in the trace.
 */
static void age_held(struct kin *k, struct line_out *o)
{
	if (k->held >= 0 && ++k->slot[k->held].waited > KIN_HOLD_UNITS && o->n == 0) {
		emit(o, k->held);
		k->held = -1;
	}
}

static void on_event(struct kin *k, struct kin_state *st, struct line_out *o)
{
	struct tev t;
	const char *why = NULL;
	int si = free_slot(k);
	struct slot *s = &k->slot[si];
	double d;

	if (scan_event(k->js.buf, k->js.len, &t, &why) < 0) {
		o->reject = why;
		return;
	}
	if (t.ph.type != GL_JSON_STRING || t.ph.len != 1 || t.ph.p[0] != 'X' ||
	    t.cat.type != GL_JSON_STRING) {
		age_held(k, o);
		return;
	}
	struct gl_str cat = {t.cat.p, t.cat.len};

	if (is_cat(&cat, launch_cats)) {
		struct kts ts;
		double dur;
		int64_t corr;

		if (t.corr.type != GL_JSON_INT || gl_json_number(&t.corr, &corr, &d) < 0 ||
		    ts_split(&t.ts, &ts) < 0 || num(&t.dur, &dur) < 0) {
			age_held(k, o);
			return;
		}
		if (k->held >= 0 && k->slot[k->held].ev.corr_id == corr) {
			apply_launch(&k->slot[k->held], ts, dur);
			emit(o, k->held);
			k->held = -1;
			return;
		}
		struct launch *l = &k->map[(uint64_t)corr % KIN_MAP];

		l->corr = corr;
		l->ts = ts;
		l->dur_us = dur;
		age_held(k, o);
		return;
	}
	if (is_cat(&cat, gpu_cats)) {
		if (slot_reserve(s, 2 * k->js.len + 256) < 0) {
			o->reject = "out of memory";
			return;
		}
		if (build_kernel(st, s, &t, &why) < 0) {
			o->reject = why;
			return;
		}
		s->waited = 0;
		int64_t corr = s->ev.corr_id;
		struct launch *l = corr >= 0 ? &k->map[(uint64_t)corr % KIN_MAP] : NULL;

		if (l && l->corr == corr) {
			apply_launch(s, l->ts, l->dur_us);
			l->corr = -1;
			emit(o, si);
			age_held(k, o);
			return;
		}
		if (corr < 0) {
			emit(o, si);
			age_held(k, o);
			return;
		}
		/* its launch call comes later: hold it (a kernel held before goes now) */
		if (k->held >= 0)
			emit(o, k->held);
		k->held = si;
		return;
	}
	if (is_cat(&cat, annot_cats)) {
		int which = cat.len == strlen("gpu_user_annotation");

		if (slot_reserve(s, 2 * k->js.len + sizeof(k->stacks[0][0].text) + 256) < 0) {
			o->reject = "out of memory";
			return;
		}
		if (build_span(k, st, s, &t, which, &why) < 0)
			o->reject = why;
		else
			emit(o, si);
	}
	age_held(k, o);
}

static void on_unit(struct kin *k, struct kin_state *st, struct line_out *o)
{
	const char *key = k->js.key;

	if (k->js.in_array && strcmp(key, "traceEvents") == 0) {
		on_event(k, st, o);
		return;
	}
	if (k->js.in_array && strcmp(key, "deviceProperties") == 0) {
		int si = free_slot(k);
		const char *why = NULL;

		if (slot_reserve(&k->slot[si], 2 * k->js.len + 256) < 0)
			o->reject = "out of memory";
		else if (build_device(&k->slot[si], k->js.buf, k->js.len, &why) < 0)
			o->reject = why;
		else
			emit(o, si);
		return;
	}
	if (!k->js.in_array && strcmp(key, "baseTimeNanoseconds") == 0) {
		struct gl_json_scan sc;
		struct gl_json_val v;
		int64_t i;
		double d;

		gl_json_scan_init(&sc, k->js.buf, k->js.len);
		if (gl_json_scan_value(&sc, 2, &v) == 0 && v.type == GL_JSON_INT &&
		    gl_json_number(&v, &i, &d) == 0) {
			st->has_base = 1;
			st->base_ns = i;
		}
	}
}

static void kineto_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			 struct gl_rec *rec)
{
	struct kin *k = ctx->priv && ctx->priv_free == kin_free ? ctx->priv : NULL;
	struct line_out o = {0, -1, NULL};
	size_t off = 0;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	rec->samples = NULL;
	rec->n_samples = 0;
	ctx->hold = 0;
	/* before a document: only a line that opens a JSON object may start one */
	if ((!k || !k->js.depth) && (!kstate(ctx) || !kstate(ctx)->started)) {
		size_t i = 0;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] != '{')
			return;
		/* a one-line JSON object without a trace's members is another format's */
		if (memchr(line, '}', len) && !memmem(line, len, "\"traceEvents\"", 13) &&
		    !memmem(line, len, "\"schemaVersion\"", 15))
			return;
	}
	/*
	 * Another format's heap state is never taken over: this parse may be
	 * the trial records.c makes on a line the file's format rejected (a
	 * jsondoc document broken by a "{" line), and freeing that format's
	 * state would lose its document and its reason for the reject.
	 */
	if (!k && ctx->priv)
		return;
	if (!k && !(k = kin_get(ctx))) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	if (k->again) {
		k->again = 0;
		if (len == k->again_len && gl_hash64(line, len, 0) == k->again_hash) {
			*rec = k->again_rec;
			ctx->hold = k->again_hold;
			return;
		}
	}
	if (k->js.err) {
		snprintf(k->reason, sizeof(k->reason), "Kineto trace broken earlier: %s", k->js.err);
		rec->kind = GL_REC_REJECT;
		rec->reason = k->reason;
		return;
	}
	for (;;) {
		enum gl_jstream_ret r = gl_jstream_feed(&k->js, line, len, &off);

		if (!k->known && k->js.key_len && !k->js.key_capture) {
			if (!known_key(k->js.key)) {
				/* a JSON document, but not a trace */
				kin_drop(ctx);
				return;
			}
			k->known = 1;
		}
		if (r == GL_JS_MORE)
			break;
		if (r == GL_JS_END) {
			if (k->held >= 0) {
				emit(&o, k->held);
				k->held = -1;
			}
			continue;
		}
		if (r == GL_JS_ERROR) {
			snprintf(k->reason, sizeof(k->reason), "Kineto trace: %s", k->js.err);
			k->st.broken = 1;
			snprintf(k->st.why, sizeof(k->st.why), "%s", k->js.err);
			k->js.err = k->st.why;
			o.reject = k->reason;
			break;
		}
		if (r == GL_JS_TOOBIG) {
			o.reject = "trace event longer than 1 MiB";
			continue;
		}
		on_unit(k, &k->st, &o);
	}
	if (!k->js.in_array && k->held >= 0) {
		/* the events' array ended: a kernel still held goes now */
		emit(&o, k->held);
		k->held = -1;
	}
	if (o.reject || o.n > 1) {
		rec->kind = GL_REC_REJECT;
		rec->reason = o.reject ? o.reject
				       : "several trace events on one line: only traces written "
					 "one event per line (Kineto's writer) are read";
	} else if (o.n == 1) {
		struct slot *s = &k->slot[o.slot];

		rec->kind = s->kind;
		if (s->kind == GL_REC_SPAN)
			rec->span = s->sp;
		else
			rec->ev = s->ev;
		k->emitted = o.slot;
	} else {
		rec->kind = GL_REC_NONE;
	}
	if (rec->kind == GL_REC_REJECT || rec->kind == GL_REC_SPAN) {
		k->again = 1;
		k->again_hash = gl_hash64(line, len, 0);
		k->again_len = len;
		k->again_rec = *rec;
	}
	/* a unit half read, a kernel held, or a document not yet known keeps the line unclaimed */
	ctx->hold = k->js.in_unit || k->js.key_capture || k->held >= 0 || !k->known;
	if (!ctx->hold) {
		k->st.started = 1;
		gl_jstream_save(&k->js, &k->st.pos);
		memcpy(ctx->state, &k->st, sizeof(k->st));
		ctx->state_len = sizeof(k->st);
	}
	k->again_hold = ctx->hold;
}

/* --- prepare: baseTimeNanoseconds from the end of the document ------------- */

/* What the last lines of a trace say. */
struct tail_scan {
	struct kin_state *st;
	int closed;		/* the last line that is not blank is the document's "}" */
	int relative;		/* an event's ts before 2001: µs after a time base */
};

/* The digits after "key" and its colon: 0 when there are none. */
static int number_after(const char *line, size_t len, const char *key, size_t keylen,
			int64_t *v)
{
	const char *k = memmem(line, len, key, keylen);
	size_t i;
	int digits = 0;

	if (!k)
		return 0;
	i = (size_t)(k - line) + keylen;
	while (i < len && (line[i] == ' ' || line[i] == ':' || line[i] == '\t'))
		i++;
	*v = 0;
	while (i < len && line[i] >= '0' && line[i] <= '9' && digits < 19) {
		*v = *v * 10 + (line[i++] - '0');
		digits++;
	}
	return digits;
}

static void find_base(void *arg, const char *line, size_t len)
{
	struct tail_scan *t = arg;
	size_t a = 0, b = len;
	int64_t v;

	while (a < b && (line[a] == ' ' || line[a] == '\t'))
		a++;
	while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
		b--;
	if (a < b)
		t->closed = b - a == 1 && line[a] == '}';
	if (number_after(line, len, "\"baseTimeNanoseconds\"", 21, &v)) {
		t->st->has_base = 1;
		t->st->base_ns = v;
	}
	/* 1e15 µs: 2001-09-09; Kineto's times after a base are small */
	if (number_after(line, len, "\"ts\"", 4, &v) && v < 1000000000000000LL)
		t->relative = 1;
}

/*
 * Reads baseTimeNanoseconds into ctx->state (and the working copy, if the
 * parse has begun), the only time base a streamed read would meet too late.
 * Returns 1 when it may still come: the document is not closed yet and its
 * last events are timed after a base it has not written (a ROCm trace
 * being written, issue 28 D12); read now, they would land in 1970.
 */
static int kineto_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct kin_state st, *cur = kstate(ctx);
	struct tail_scan t = {&st, 0, 0};
	int rc;

	if (cur)
		st = *cur;
	else {
		memset(&st, 0, sizeof(st));
		memcpy(st.magic, kin_magic, 4);
	}
	rc = gl_trace_tail(path, 64 * 1024, find_base, &t);
	memcpy(ctx->state, &st, sizeof(st));
	ctx->state_len = sizeof(st);
	if (ctx->priv && ctx->priv_free == kin_free)
		((struct kin *)ctx->priv)->st = st;
	if (rc == 0 && !st.has_base && !t.closed && t.relative)
		return 1;
	return rc;
}

/* The file settled in the middle of the document: a kernel held goes. */
static int kineto_settle(struct gl_parse_ctx *ctx, struct gl_rec *rec)
{
	struct kin *k = ctx->priv && ctx->priv_free == kin_free ? ctx->priv : NULL;
	struct slot *s;

	if (!k || k->held < 0)
		return 0;
	s = &k->slot[k->held];
	k->held = -1;
	rec->samples = NULL;
	rec->n_samples = 0;
	rec->kind = s->kind;
	if (s->kind == GL_REC_SPAN)
		rec->span = s->sp;
	else
		rec->ev = s->ev;
	return 1;
}

const struct gl_format gl_fmt_kineto = {
	.name = "kineto",
	.summary = "PyTorch profiler (Kineto) trace JSON: kernels, memcpy/memset, launch overhead, annotations",
	.flags = GL_FMT_DOCUMENT,
	.parse = kineto_parse,
	.prepare = kineto_prepare,
	.settle = kineto_settle,
};
