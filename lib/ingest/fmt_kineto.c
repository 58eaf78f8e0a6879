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
 * bounded whatever the size of the trace. Each element is then mapped to
 * its record by kineto_map.c (kineto.h); this file walks the elements.
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
 *   category and thread (a GPU copy's: device and stream) still open when
 *   one is read and holding it whole (up to 16 deep, 8 threads): Kineto
 *   writes a thread's annotations mostly in start order, and an annotation
 *   written after one it lies inside is a level deeper. GPU copies are on
 *   their pid's device when they carry no args.device.
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

#include "kineto.h"
#include "tracetail.h"
#include "../util/hash.h"

static const char kin_magic[4] = {'K', 'I', 'N', '1'};

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

	if (gl_kin_scan_event(k->js.buf, k->js.len, &t, &why) < 0) {
		o->reject = why;
		return;
	}
	if (t.ph.type != GL_JSON_STRING || t.ph.len != 1 || t.ph.p[0] != 'X' ||
	    t.cat.type != GL_JSON_STRING) {
		age_held(k, o);
		return;
	}
	struct gl_str cat = {t.cat.p, t.cat.len};

	if (gl_kin_is_cat(&cat, gl_kin_launch_cats)) {
		struct kts ts;
		double dur;
		int64_t corr;

		if (t.corr.type != GL_JSON_INT || gl_json_number(&t.corr, &corr, &d) < 0 ||
		    gl_kin_ts_split(&t.ts, &ts) < 0 || gl_kin_num(&t.dur, &dur) < 0) {
			age_held(k, o);
			return;
		}
		if (k->held >= 0 && k->slot[k->held].ev.corr_id == corr) {
			gl_kin_apply_launch(&k->slot[k->held], ts, dur);
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
	if (gl_kin_is_cat(&cat, gl_kin_gpu_cats)) {
		if (gl_kin_slot_reserve(s, 2 * k->js.len + 256) < 0) {
			o->reject = "out of memory";
			return;
		}
		if (gl_kin_build_kernel(st, s, &t, &why) < 0) {
			o->reject = why;
			return;
		}
		s->waited = 0;
		int64_t corr = s->ev.corr_id;
		struct launch *l = corr >= 0 ? &k->map[(uint64_t)corr % KIN_MAP] : NULL;

		if (l && l->corr == corr) {
			gl_kin_apply_launch(s, l->ts, l->dur_us);
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
	if (gl_kin_is_cat(&cat, gl_kin_annot_cats)) {
		int which = cat.len == strlen("gpu_user_annotation");

		if (gl_kin_slot_reserve(s, 2 * k->js.len + sizeof(k->stacks[0][0].text) + 256) < 0) {
			o->reject = "out of memory";
			return;
		}
		if (gl_kin_build_span(k, st, s, &t, which, &why) < 0)
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

		if (gl_kin_slot_reserve(&k->slot[si], 2 * k->js.len + 256) < 0)
			o->reject = "out of memory";
		else if (gl_kin_build_device(&k->slot[si], k->js.buf, k->js.len, &why) < 0)
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
