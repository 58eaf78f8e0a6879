/*
 * fmt_gpufl.c - GPUFlight (gpufl) client NDJSON: <prefix>.kernel.N.log,
 * .scope.N.log, .system.N.log (rotated N > 0, maybe gzipped).
 *
 * In: one JSON object per line with a "type":
 *     {"type":"init","pid":50840,"app":"PythonDemo","logPath":"gpufl_basic","ts_ns":533815390771200,
 *      "system_rate_ms":5,"host":{"cpu_pct":6.9,"ram_used_mib":24531,"ram_total_mib":32189},
 *      "devices":[{"id":0,"name":"NVIDIA GeForce RTX 5060 Laptop GPU",...,"used_mib":341,
 *      "total_mib":8151,"util_gpu":0,"util_mem":0,"temp_c":34,"power_mw":12885,"clk_sm":180,"clk_mem":405}]}
 *     {"type":"scope_begin","pid":50840,"app":"PythonDemo","name":"DataLoading","tag":"io-bound","ts_ns":...}
 *     {"type":"scope_end", ... "ts_ns":...}                   (2025-12-16 client)
 *     {"type":"scope_end", ... "ts_start_ns":...,"ts_end_ns":...,"duration_ns":...}   (2025-12-13)
 *     {"type":"kernel_event","name":"vectorAdd","device_id":"0","start_ns":..,"end_ns":..,
 *      "api_start_ns":..,"api_exit_ns":..,"grid":"(4,1,1)","block":"(256,1,1)","num_regs":16,
 *      "dyn_shared_bytes":0,"static_shared_bytes":0,"occupancy":0.75,"stream_id":1,"corr_id":132,
 *      "user_scope":"global|main_loop","stack_trace":"main|run","cuda_error":0}
 *     {"type":"kernel_start",...,"corr_id":7,...}  {"type":"kernel_end",...,"corr_id":7,...}
 * Out:
 * - kernel_event and the older kernel: a kernel timing (GL_REC_EVENT,
 *   source gpufl): duration end_ns - start_ns, launch overhead
 *   api_exit_ns - api_start_ns, queue max(0, start_ns - api_exit_ns); a
 *   non-zero cuda_error makes it an ERROR. kernel_start/kernel_end: the
 *   start waits in ctx->state (so a pair split by a run boundary still
 *   meets) and the end gives the timing; at most GF_OPEN_KERNELS starts
 *   wait at once: one more is a reject that says so.
 * - scope_begin/scope_end: a span (GL_REC_SPAN) at scope_end, matched by
 *   pid and name, innermost first; the open scopes are kept in ctx->state
 *   (at most GF_OPEN_SCOPES); the path is the names of the pid's open
 *   scopes, outermost first. An old scope_end carries ts_start_ns and
 *   duration_ns itself.
 * - init, shutdown: an event (component "gpufl"); the client repeats init
 *   and shutdown in every channel file.
 * - device readings ("devices", "host" of any line; system_sample,
 *   system_start, system_stop, scope_sample, profile_sample hold nothing
 *   else) become metric samples:
 *   util_gpu, util_mem -> gpu.utilization_pct, gpu.memory_utilization_pct;
 *   used_mib, total_mib -> gpu.memory_used_mib, gpu.memory_total_mib;
 *   temp_c; power_mw / 1000 -> gpu.power_w; clk_sm, clk_mem (MHz);
 *   pcie_rx_bw, pcie_tx_bw (bytes/s, / 1024 -> gpu.pcie_rx_kib_s,
 *   gpu.pcie_tx_kib_s; stored unscaled before issue 28); host cpu_pct and
 *   ram_used_mib -> host.cpu_pct, host.memory_used_mib. Quirks: a
 *   system_sample's host block is {"cpu_pct":0.0,"ram_used_mib":0,
 *   "ram_total_mib":0} (not measured: left out when ram_total_mib is 0);
 *   the earliest client writes "temp_c":0,"power_mw":0 for a GPU it cannot
 *   read (both 0: left out).
 * Time: ts_ns (start_ns for kernels) is ns since the epoch in current
 * clients. Older ones wrote a monotonic clock (values far below 1e17, days
 * since boot): the file is placed so that its last record falls at the
 * file's modification time; the prepare hook reads that last record. With
 * no prepare, the first record read is placed at the modification time.
 */
#define _GNU_SOURCE	/* memmem */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "tracetail.h"
#include "../util/hash.h"

#define GF_OPEN_SCOPES 12
#define GF_OPEN_KERNELS 6
#define GF_NAME 56
#define GF_KNAME 96
#define GF_EPOCH_NS 100000000000000000LL	/* 1e17 ns = 1973: below it, a monotonic clock */
#define GF_MAX_SAMPLES 160

static const char gf_magic[4] = {'G', 'F', 'L', '1'};

struct gf_scope {
	int64_t pid;
	int64_t start_ns;
	char name[GF_NAME];
};

struct gf_kstart {
	int64_t corr, start_ns, api_start_ns, api_exit_ns;
	char name[GF_KNAME];
	char device[16];
};

/* ctx->state: plain bytes kept across runs. */
struct gf_state {
	char magic[4];
	int32_t has_anchor;
	int64_t anchor_us;	/* added to a monotonic time in µs */
	int32_t has_last;
	int64_t last_ns;	/* the file's last record's time (prepare) */
	int32_t nscopes, nkernels;
	struct gf_scope scope[GF_OPEN_SCOPES];
	struct gf_kstart kstart[GF_OPEN_KERNELS];
};

_Static_assert(sizeof(struct gf_state) <= GL_PARSE_STATE_MAX, "gpufl state fits ctx->state");

/*
 * ctx->priv: the state as it was before the last line, when that line's
 * result is one ingest parses a second time (records.c's classify() tries
 * the other formats on anything but an event, then parses again): the
 * second parse starts from the same state, so a scope or a kernel_start is
 * not taken twice.
 */
struct gf_again {
	int armed;
	uint64_t hash;
	size_t len;
	unsigned char snap[GL_PARSE_STATE_MAX];
	size_t snap_len;
};

static void gf_again_free(void *p)
{
	free(p);
}

static struct gf_state *gstate(struct gl_parse_ctx *ctx)
{
	struct gf_state *st = (struct gf_state *)ctx->state;

	if (ctx->state_len != sizeof(*st) || memcmp(st->magic, gf_magic, 4) != 0) {
		memset(st, 0, sizeof(*st));
		memcpy(st->magic, gf_magic, 4);
		ctx->state_len = sizeof(*st);
	}
	return st;
}

enum gf_key {
	K_TYPE, K_PID, K_APP, K_NAME, K_TS, K_START, K_END, K_API_START, K_API_EXIT, K_GRID,
	K_BLOCK, K_REGS, K_DYN_SMEM, K_STATIC_SMEM, K_OCC, K_DEVICE, K_STREAM, K_CORR, K_STACK,
	K_SCOPE, K_ERROR, K_TS_START, K_DURATION, K_HOST, K_DEVICES, K_SESSION, K_TS_END, K_COUNT
};

/* The member names read, with their lengths (compared first: no strlen per key). */
#define GF_KEY(s) {s, sizeof(s) - 1}
static const struct gf_keyname {
	const char *s;
	size_t len;
} gf_keys[K_COUNT] = {
	GF_KEY("type"), GF_KEY("pid"), GF_KEY("app"), GF_KEY("name"), GF_KEY("ts_ns"),
	GF_KEY("start_ns"), GF_KEY("end_ns"), GF_KEY("api_start_ns"), GF_KEY("api_exit_ns"),
	GF_KEY("grid"), GF_KEY("block"), GF_KEY("num_regs"), GF_KEY("dyn_shared_bytes"),
	GF_KEY("static_shared_bytes"), GF_KEY("occupancy"), GF_KEY("device_id"),
	GF_KEY("stream_id"), GF_KEY("corr_id"), GF_KEY("stack_trace"), GF_KEY("user_scope"),
	GF_KEY("cuda_error"), GF_KEY("ts_start_ns"), GF_KEY("duration_ns"), GF_KEY("host"),
	GF_KEY("devices"), GF_KEY("session_id"), GF_KEY("ts_end_ns"),
};

static int key_is(const struct gl_json_val *k, const char *s)
{
	return k->len == strlen(s) && memcmp(k->p, s, k->len) == 0;
}

/*
 * An integer member: 0 with *out; -1 when absent or not a number; -2 for a
 * number beyond int64 ("start_ns": 1e308, 1e27: no time of any clock).
 */
static int ival(const struct gl_json_val *v, int64_t *out)
{
	double d;

	if (v->type == GL_JSON_INT)
		return gl_json_number(v, out, &d);
	if (v->type == GL_JSON_REAL && gl_json_number(v, out, &d) == 0) {
		if (!(d > -9.2e18 && d < 9.2e18))
			return -2;
		*out = (int64_t)d;
		return 0;
	}
	return -1;
}

static void reject(struct gl_rec *rec, const char *why);

/* A time member of the record beyond int64: a reject that says so. */
static int ts_out_of_range(const struct gl_json_val *val, struct gl_rec *rec)
{
	static const int keys[] = {K_TS, K_START, K_END, K_TS_START, K_TS_END};
	int64_t v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (ival(&val[keys[i]], &v) == -2) {
			reject(rec, "gpufl: a time in ns out of range (beyond 64 bits)");
			return 1;
		}
	return 0;
}

static int dval(const struct gl_json_val *v, double *out)
{
	int64_t i;

	if (v->type != GL_JSON_INT && v->type != GL_JSON_REAL)
		return -1;
	return gl_json_number(v, &i, out);
}

/* A string value unescaped into scratch, or an integer's digits; p NULL otherwise. */
static struct gl_str text(struct gl_parse_ctx *ctx, const struct gl_json_val *v)
{
	struct gl_str s = {NULL, 0};
	char *out;

	if (v->type == GL_JSON_INT) {
		s.p = v->p;
		s.len = v->len;
	} else if (v->type == GL_JSON_STRING) {
		if (!(v->flags & GL_JSON_F_ESCAPES)) {
			s.p = v->p;
			s.len = v->len;
		} else if ((out = gl_ctx_scratch(ctx, v->len + 1))) {
			s.p = out;
			s.len = gl_json_unescape(v->p, v->len, out);
		}
	}
	return s;
}

/* "(4,1,1)" -> "4,1,1". */
static struct gl_str dims(struct gl_parse_ctx *ctx, const struct gl_json_val *v)
{
	struct gl_str s = text(ctx, v);

	if (s.p && s.len >= 2 && s.p[0] == '(' && s.p[s.len - 1] == ')') {
		s.p++;
		s.len -= 2;
	}
	return s;
}

/* ns on the file's clock -> UTC µs. */
static int64_t place(struct gl_parse_ctx *ctx, struct gf_state *st, int64_t ns)
{
	if (ns >= GF_EPOCH_NS)
		return ns / 1000;
	if (!st->has_anchor) {
		int64_t last = st->has_last ? st->last_ns : ns;

		st->anchor_us = ctx->file_mtime_us - last / 1000;
		st->has_anchor = 1;
	}
	return ns / 1000 + st->anchor_us;
}

/* --- samples ----------------------------------------------------------------- */

struct sbuf {
	struct gl_sample s[GF_MAX_SAMPLES];
	size_t n;
	int estimated;	/* the time was placed from a monotonic clock (see place()) */
};

static void add(struct sbuf *b, int64_t ts, const char *metric, double v, struct gl_str dev)
{
	if (b->n >= GF_MAX_SAMPLES || !isfinite(v))
		return;
	b->s[b->n].ts_us = ts;
	b->s[b->n].metric = (struct gl_str){metric, strlen(metric)};
	b->s[b->n].value = v;
	b->s[b->n].device = dev;
	b->s[b->n].labels = (struct gl_str){NULL, 0};
	b->s[b->n].ts_estimated = b->estimated;
	b->n++;
}

static void device_samples(struct gl_parse_ctx *ctx, const struct gl_json_val *obj, int64_t ts,
			   struct sbuf *b)
{
	static const struct {
		const char *key, *metric;
		double scale;
	} map[] = {
		{"util_gpu", "gpu.utilization_pct", 1}, {"util_mem", "gpu.memory_utilization_pct", 1},
		{"used_mib", "gpu.memory_used_mib", 1}, {"total_mib", "gpu.memory_total_mib", 1},
		{"temp_c", "gpu.temperature_c", 1}, {"power_mw", "gpu.power_w", 0.001},
		{"clk_sm", "gpu.sm_clock_mhz", 1}, {"clk_mem", "gpu.memory_clock_mhz", 1},
		/* bytes/s as the client writes them (3.6e9 on a PCIe 4 link) */
		{"pcie_rx_bw", "gpu.pcie_rx_kib_s", 1.0 / 1024},
		{"pcie_tx_bw", "gpu.pcie_tx_kib_s", 1.0 / 1024},
	};
	double val[sizeof(map) / sizeof(map[0])];
	int has[sizeof(map) / sizeof(map[0])] = {0};
	struct gl_json_scan sc;
	struct gl_json_val k, v;
	struct gl_str dev = {NULL, 0};

	gl_json_scan_init(&sc, obj->p, obj->len);
	if (gl_json_object_begin(&sc) < 0)
		return;
	while (gl_json_object_next(&sc, 4, &k, &v) == 1) {
		if (key_is(&k, "id")) {
			dev = text(ctx, &v);
			continue;
		}
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (key_is(&k, map[i].key) && dval(&v, &val[i]) == 0)
				has[i] = 1;
	}
	/* temp_c 0 and power_mw 0 together: a GPU the client could not read */
	if (has[4] && has[5] && val[4] == 0 && val[5] == 0)
		has[4] = has[5] = 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (has[i])
			add(b, ts, map[i].metric, val[i] * map[i].scale, dev);
}

static void host_samples(const struct gl_json_val *obj, int64_t ts, struct sbuf *b)
{
	struct gl_json_scan sc;
	struct gl_json_val k, v;
	double cpu = NAN, used = NAN, total = NAN, d;
	struct gl_str none = {NULL, 0};

	gl_json_scan_init(&sc, obj->p, obj->len);
	if (gl_json_object_begin(&sc) < 0)
		return;
	while (gl_json_object_next(&sc, 3, &k, &v) == 1) {
		if (dval(&v, &d) < 0)
			continue;
		if (key_is(&k, "cpu_pct"))
			cpu = d;
		else if (key_is(&k, "ram_used_mib"))
			used = d;
		else if (key_is(&k, "ram_total_mib"))
			total = d;
	}
	if (total == 0)
		return;	/* system_sample's unmeasured host block */
	add(b, ts, "host.cpu_pct", cpu, none);
	add(b, ts, "host.memory_used_mib", used, none);
}

static void readings(struct gl_parse_ctx *ctx, const struct gl_json_val *val, int64_t ts,
		     int estimated, struct gl_rec *rec)
{
	struct sbuf b;
	struct gl_sample *out;

	b.n = 0;
	b.estimated = estimated;
	if (val[K_HOST].type == GL_JSON_OBJECT)
		host_samples(&val[K_HOST], ts, &b);
	if (val[K_DEVICES].type == GL_JSON_ARRAY) {
		struct gl_json_scan sc;
		struct gl_json_val e;

		gl_json_scan_init(&sc, val[K_DEVICES].p, val[K_DEVICES].len);
		sc.pos = 1;
		for (;;) {
			while (sc.pos < sc.len && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == ','))
				sc.pos++;
			if (sc.pos >= sc.len || sc.s[sc.pos] == ']' ||
			    gl_json_scan_value(&sc, 3, &e) < 0)
				break;
			if (e.type == GL_JSON_OBJECT)
				device_samples(ctx, &e, ts, &b);
		}
	}
	if (!b.n || !(out = gl_ctx_samples(ctx, b.n)))
		return;
	memcpy(out, b.s, b.n * sizeof(*out));
	rec->samples = out;
	rec->n_samples = b.n;
}

/* --- records ----------------------------------------------------------------- */

static void reject(struct gl_rec *rec, const char *why)
{
	rec->kind = GL_REC_REJECT;
	rec->reason = why;
	rec->samples = NULL;
	rec->n_samples = 0;
}

static void kernel_event(struct gl_parse_ctx *ctx, struct gf_state *st,
			 const struct gl_json_val *val, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	int64_t start, end, a0, a1, i;
	double d;

	if (val[K_NAME].type != GL_JSON_STRING)
		{ reject(rec, "gpufl kernel: no name"); return; }
	if (ival(&val[K_START], &start) < 0 || ival(&val[K_END], &end) < 0 || end < start)
		{ reject(rec, "gpufl kernel: start_ns/end_ns missing or end before start"); return; }
	ev->source = GL_SRC_GPUFL;
	ev->level = GL_LEVEL_INFO;
	ev->component = (struct gl_str){"gpufl", 5};
	ev->kernel = text(ctx, &val[K_NAME]);
	ev->ts_us = place(ctx, st, start);
	ev->dur_us = (double)(end - start) / 1000.0;
	if (ival(&val[K_API_START], &a0) == 0 && ival(&val[K_API_EXIT], &a1) == 0 && a1 >= a0) {
		ev->launch_overhead_us = (double)(a1 - a0) / 1000.0;
		ev->queue_us = start > a1 ? (double)(start - a1) / 1000.0 : 0.0;
	}
	ev->grid = dims(ctx, &val[K_GRID]);
	ev->block = dims(ctx, &val[K_BLOCK]);
	if (ival(&val[K_REGS], &i) == 0)
		ev->registers = i;
	if (ival(&val[K_DYN_SMEM], &i) == 0)
		ev->shared_mem_bytes = i;
	if (ival(&val[K_STATIC_SMEM], &i) == 0)
		ev->shared_mem_bytes = (ev->shared_mem_bytes > 0 ? ev->shared_mem_bytes : 0) + i;
	if (dval(&val[K_OCC], &d) == 0)
		ev->occupancy = d;
	ev->device = text(ctx, &val[K_DEVICE]);
	ev->stream = text(ctx, &val[K_STREAM]);
	if (ival(&val[K_CORR], &i) == 0)
		ev->corr_id = i;
	ev->stack = text(ctx, &val[K_STACK]);
	ev->scope = text(ctx, &val[K_SCOPE]);
	if ((val[K_ERROR].type == GL_JSON_INT && !(val[K_ERROR].len == 1 && val[K_ERROR].p[0] == '0')) ||
	    (val[K_ERROR].type == GL_JSON_STRING && val[K_ERROR].len &&
	     !(val[K_ERROR].len == 7 && memcmp(val[K_ERROR].p, "SUCCESS", 7) == 0))) {
		struct gl_str e = text(ctx, &val[K_ERROR]);
		char *m = gl_ctx_scratch(ctx, e.len + 16);

		ev->level = GL_LEVEL_ERROR;
		if (m) {
			int n = snprintf(m, e.len + 16, "cuda_error %.*s", (int)e.len, e.p);

			ev->message = (struct gl_str){m, (size_t)n};
		}
	}
	rec->kind = GL_REC_EVENT;
}

static void copy_name(char *dst, size_t n, struct gl_str s)
{
	size_t k = s.p ? (s.len < n - 1 ? s.len : n - 1) : 0;

	memcpy(dst, s.p ? s.p : "", k);
	dst[k] = '\0';
}

static void kernel_start(struct gl_parse_ctx *ctx, struct gf_state *st,
			 const struct gl_json_val *val, struct gl_rec *rec)
{
	struct gf_kstart *k;
	struct gl_str name = text(ctx, &val[K_NAME]);
	int64_t corr, start;

	if (ival(&val[K_CORR], &corr) < 0)
		{ reject(rec, "gpufl kernel_start: no corr_id"); return; }
	if (ival(&val[K_START], &start) < 0 && ival(&val[K_TS], &start) < 0)
		{ reject(rec, "gpufl kernel_start: no start_ns"); return; }
	if (!name.p || name.len >= GF_KNAME)
		{ reject(rec, "gpufl kernel_start: name missing or too long to keep open"); return; }
	if (st->nkernels >= GF_OPEN_KERNELS)
		{ reject(rec, "gpufl kernel_start: more than 6 kernels open, this one is not kept"); return; }
	k = &st->kstart[st->nkernels++];
	memset(k, 0, sizeof(*k));
	k->corr = corr;
	k->start_ns = start;
	if (ival(&val[K_API_START], &k->api_start_ns) < 0)
		k->api_start_ns = -1;
	if (ival(&val[K_API_EXIT], &k->api_exit_ns) < 0)
		k->api_exit_ns = -1;
	copy_name(k->name, sizeof(k->name), name);
	copy_name(k->device, sizeof(k->device), text(ctx, &val[K_DEVICE]));
	rec->kind = GL_REC_NONE;
}

static void kernel_end(struct gl_parse_ctx *ctx, struct gf_state *st, struct gl_json_val *val,
		       struct gl_rec *rec)
{
	int64_t corr, end;
	int32_t i;
	char *p;

	if (ival(&val[K_CORR], &corr) < 0)
		{ reject(rec, "gpufl kernel_end: no corr_id"); return; }
	if (ival(&val[K_END], &end) < 0 && ival(&val[K_TS], &end) < 0)
		{ reject(rec, "gpufl kernel_end: no end_ns"); return; }
	for (i = 0; i < st->nkernels && st->kstart[i].corr != corr; i++)
		;
	if (i == st->nkernels)
		{ reject(rec, "gpufl kernel_end without its kernel_start"); return; }
	struct gf_kstart k = st->kstart[i];

	memmove(&st->kstart[i], &st->kstart[i + 1], (size_t)(st->nkernels - i - 1) * sizeof(k));
	st->nkernels--;
	/* the start's fields stand in for those the end does not repeat */
	if (val[K_NAME].type == GL_JSON_ABSENT && (p = gl_ctx_scratch(ctx, strlen(k.name)))) {
		memcpy(p, k.name, strlen(k.name));
		val[K_NAME] = (struct gl_json_val){GL_JSON_STRING, p, strlen(k.name), 0};
	}
	if (val[K_DEVICE].type == GL_JSON_ABSENT && k.device[0] && (p = gl_ctx_scratch(ctx, strlen(k.device)))) {
		memcpy(p, k.device, strlen(k.device));
		val[K_DEVICE] = (struct gl_json_val){GL_JSON_STRING, p, strlen(k.device), 0};
	}
	char nums[3][24];
	int64_t v[3] = {k.start_ns, k.api_start_ns, k.api_exit_ns};
	enum gf_key keys[3] = {K_START, K_API_START, K_API_EXIT};

	for (int j = 0; j < 3; j++) {
		if (v[j] < 0 || val[keys[j]].type != GL_JSON_ABSENT)
			continue;
		snprintf(nums[j], sizeof(nums[j]), "%lld", (long long)v[j]);
		if ((p = gl_ctx_scratch(ctx, strlen(nums[j])))) {
			memcpy(p, nums[j], strlen(nums[j]));
			val[keys[j]] = (struct gl_json_val){GL_JSON_INT, p, strlen(nums[j]), 0};
		}
	}
	char e[24];

	snprintf(e, sizeof(e), "%lld", (long long)end);
	if ((p = gl_ctx_scratch(ctx, strlen(e)))) {
		memcpy(p, e, strlen(e));
		val[K_END] = (struct gl_json_val){GL_JSON_INT, p, strlen(e), 0};
	}
	kernel_event(ctx, st, val, rec);
}

static void scope_begin(struct gl_parse_ctx *ctx, struct gf_state *st,
			const struct gl_json_val *val, struct gl_rec *rec, int64_t ts_ns)
{
	struct gl_str name = text(ctx, &val[K_NAME]);
	struct gf_scope *s;
	int64_t pid = -1;

	ival(&val[K_PID], &pid);
	if (!name.p || name.len >= GF_NAME)
		{ reject(rec, "gpufl scope_begin: name missing or too long to keep open"); return; }
	if (st->nscopes >= GF_OPEN_SCOPES)
		{ reject(rec, "gpufl scope_begin: more than 12 scopes open, this one is not kept"); return; }
	s = &st->scope[st->nscopes++];
	s->pid = pid;
	s->start_ns = ts_ns;
	copy_name(s->name, sizeof(s->name), name);
	rec->kind = GL_REC_NONE;
}

static void scope_end(struct gl_parse_ctx *ctx, struct gf_state *st,
		      const struct gl_json_val *val, struct gl_rec *rec, int64_t ts_ns)
{
	struct gl_str name = text(ctx, &val[K_NAME]);
	struct gl_span *sp = &rec->span;
	int64_t pid = -1, start = -1, dur;
	int32_t i, depth = 0;
	char *path;
	size_t plen = 0;

	ival(&val[K_PID], &pid);
	if (!name.p)
		{ reject(rec, "gpufl scope_end: no name"); return; }
	for (i = st->nscopes - 1; i >= 0; i--)
		if (st->scope[i].pid == pid && strlen(st->scope[i].name) == name.len &&
		    memcmp(st->scope[i].name, name.p, name.len) == 0)
			break;
	if (ival(&val[K_TS_START], &start) < 0) {
		if (i < 0)
			{ reject(rec, "gpufl scope_end without its scope_begin"); return; }
		start = st->scope[i].start_ns;
	}
	if (ival(&val[K_DURATION], &dur) < 0)
		dur = ts_ns - start;
	if (dur < 0)
		{ reject(rec, "gpufl scope_end before its scope_begin"); return; }
	path = gl_ctx_scratch(ctx, (size_t)GF_OPEN_SCOPES * GF_NAME + name.len + 1);
	if (!path)
		{ reject(rec, "out of memory"); return; }
	for (int32_t j = 0; j < (i >= 0 ? i : st->nscopes); j++) {
		if (st->scope[j].pid != pid)
			continue;
		plen += (size_t)sprintf(path + plen, "%s|", st->scope[j].name);
		depth++;
	}
	memcpy(path + plen, name.p, name.len);
	plen += name.len;
	if (i >= 0) {
		memmove(&st->scope[i], &st->scope[i + 1],
			(size_t)(st->nscopes - i - 1) * sizeof(st->scope[0]));
		st->nscopes--;
	}
	gl_span_init(sp);
	sp->source = GL_SRC_GPUFL;
	sp->start_us = place(ctx, st, start);
	sp->dur_us = (double)dur / 1000.0;
	sp->name = name;
	sp->path = (struct gl_str){path, plen};
	sp->depth = depth;
	rec->kind = GL_REC_SPAN;
}

static void life_event(struct gl_parse_ctx *ctx, const struct gl_json_val *val, struct gl_rec *rec,
		       int64_t ts_us, const char *what)
{
	struct gl_str app = text(ctx, &val[K_APP]);
	int64_t pid = -1;
	size_t n = strlen(what) + app.len + 64;
	char *m = gl_ctx_scratch(ctx, n);

	ival(&val[K_PID], &pid);
	rec->ev.source = GL_SRC_GPUFL;
	rec->ev.level = GL_LEVEL_INFO;
	rec->ev.component = (struct gl_str){"gpufl", 5};
	rec->ev.ts_us = ts_us;
	if (m)
		rec->ev.message = (struct gl_str){m, (size_t)snprintf(m, n, "%s app=%.*s pid=%lld", what,
								       (int)app.len, app.p ? app.p : "",
								       (long long)pid)};
	rec->kind = GL_REC_EVENT;
}

static void parse_record(struct gl_parse_ctx *ctx, struct gf_state *st, struct gl_json_val *val,
			 struct gl_rec *rec, int t, int64_t ts_ns);

static int type_is(const struct gl_json_val *t, const char *s)
{
	return t->type == GL_JSON_STRING && key_is(t, s);
}

static void gpufl_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct gl_json_val val[K_COUNT], k, v;
	struct gl_json_scan sc;
	struct gf_state *st;
	int64_t ts_ns = -1;
	int r;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	rec->samples = NULL;
	rec->n_samples = 0;
	gl_event_init(&rec->ev);
	ctx->hold = 0;
	if (len < 10 || line[0] != '{' || !memmem(line, len < 64 ? len : 64, "\"type\"", 6))
		return;
	memset(val, 0, sizeof(val));
	gl_json_scan_init(&sc, line, len);
	if (gl_json_object_begin(&sc) < 0)
		return;
	while ((r = gl_json_object_next(&sc, 2, &k, &v)) == 1)
		for (int i = 0; i < K_COUNT; i++)
			if (k.len == gf_keys[i].len && memcmp(k.p, gf_keys[i].s, k.len) == 0) {
				val[i] = v;
				break;
			}
	static const char *const types[] = {
		"kernel_event", "kernel", "kernel_start", "kernel_end", "scope_begin", "scope_end",
		"scope_sample", "profile_sample", "system_sample", "init", "shutdown",
		"system_start", "system_stop", NULL,
	};
	int t = -1;

	for (int i = 0; types[i]; i++)
		if (type_is(&val[K_TYPE], types[i]))
			t = i;
	if (t < 0)
		return;
	if (r < 0 || gl_json_scan_end(&sc) < 0)
		{ reject(rec, "gpufl: broken JSON"); return; }
	struct gf_again *ag = ctx->priv_free == gf_again_free ? ctx->priv : NULL;
	uint64_t h = gl_hash64(line, len, 0);

	if (!ag && !ctx->priv && (ag = calloc(1, sizeof(*ag)))) {
		ctx->priv = ag;
		ctx->priv_free = gf_again_free;
	}
	if (ag) {
		if (ag->armed && ag->len == len && ag->hash == h) {
			memcpy(ctx->state, ag->snap, ag->snap_len);
			ctx->state_len = ag->snap_len;
		} else {
			memcpy(ag->snap, ctx->state, ctx->state_len);
			ag->snap_len = ctx->state_len;
		}
		ag->armed = 0;
	}
	st = gstate(ctx);
	parse_record(ctx, st, val, rec, t, ts_ns);
	if (ag && rec->kind != GL_REC_EVENT && rec->kind != GL_REC_NONE) {
		ag->armed = 1;
		ag->hash = h;
		ag->len = len;
	}
}

static void parse_record(struct gl_parse_ctx *ctx, struct gf_state *st, struct gl_json_val *val,
			 struct gl_rec *rec, int t, int64_t ts_ns)
{
	int64_t ts_us = GL_TS_NONE;

	ts_ns = -1;
	if (ts_out_of_range(val, rec))
		return;
	if (ival(&val[K_TS], &ts_ns) == 0 || ival(&val[K_END], &ts_ns) == 0 ||
	    ival(&val[K_TS_END], &ts_ns) == 0)
		ts_us = place(ctx, st, ts_ns);
	switch (t) {
	case 0:
	case 1:
		kernel_event(ctx, st, val, rec);
		break;
	case 2:
		kernel_start(ctx, st, val, rec);
		break;
	case 3:
		kernel_end(ctx, st, val, rec);
		break;
	case 4:
		if (ts_ns < 0)
			{ reject(rec, "gpufl scope_begin: no ts_ns"); return; }
		scope_begin(ctx, st, val, rec, ts_ns);
		break;
	case 5:
		scope_end(ctx, st, val, rec, ts_ns);
		break;
	case 9:
		life_event(ctx, val, rec, ts_us, "init");
		break;
	case 10:
		life_event(ctx, val, rec, ts_us, "shutdown");
		break;
	default:
		rec->kind = GL_REC_NONE;
	}
	if (rec->kind == GL_REC_REJECT || ts_us == GL_TS_NONE)
		return;
	readings(ctx, val, ts_us, ts_ns < GF_EPOCH_NS, rec);
	if (rec->kind == GL_REC_NONE && rec->n_samples)
		rec->kind = GL_REC_SAMPLES;
}

/* --- prepare: the last record's time, to place a monotonic clock ------------ */

/* The last record's "ts_ns" (else "end_ns"), written "ts_ns":1 or, by
 * Python's json.dumps, "ts_ns": 1. */
static void last_ts(void *arg, const char *line, size_t len)
{
	struct gf_state *st = arg;
	const char *k = memmem(line, len, "\"ts_ns\"", 7);
	int64_t v = 0;
	size_t i;

	if (!k)
		k = memmem(line, len, "\"end_ns\"", 8);
	if (!k)
		return;
	i = (size_t)(k - line) + (k[1] == 't' ? 7 : 8);
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= len || line[i] != ':')
		return;
	for (i++; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i >= len || line[i] < '0' || line[i] > '9')
		return;
	while (i < len && line[i] >= '0' && line[i] <= '9' && v < INT64_MAX / 10)
		v = v * 10 + (line[i++] - '0');
	st->has_last = 1;
	st->last_ns = v;
}

static int gpufl_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct gf_state *st = gstate(ctx);

	st->has_anchor = 0;
	return gl_trace_tail(path, 16 * 1024, last_ts, st);
}

const struct gl_format gl_fmt_gpufl = {
	.name = "gpufl",
	.summary = "GPUFlight client NDJSON: kernels, scopes, init/shutdown, device samples",
	.flags = 0,
	.parse = gpufl_parse,
	.prepare = gpufl_prepare,
};
