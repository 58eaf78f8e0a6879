/*
 * fmt_nvsmiq.c - `nvidia-smi -q` text: the device inventory of a host.
 *
 * In: the report, one "key : value" per line, nested by 4-space indents:
 *     ==============NVSMI LOG==============
 *     Timestamp                                 : Wed Sep 16 16:20:41 2026
 *     Driver Version                            : 610.88 [Deprecated; ...]
 *     CUDA Version                              : 13.3
 *     Attached GPUs                             : 1
 *     GPU 00000000:01:00.0
 *         Product Name                          : NVIDIA GeForce RTX 3060 Laptop GPU
 *         GPU UUID                              : GPU-20606811-3bb2-e6b5-ec74-b477d9c1d1d8
 *         VBIOS Version                         : 94.06.2f.40.02
 *         Clocks Event Reasons                  (older drivers: Clocks Throttle Reasons)
 *             Idle                              : Active
 *         FB Memory Usage
 *             Total                             : 6144 MiB
 *         ECC Errors
 *             Volatile
 *                 DRAM Uncorrectable            : 0          (older: Double Bit / Total)
 *         Retired Pages
 *             Single Bit ECC                    : 0
 *         Remapped Rows                         (or "Remapped Rows : N/A" on one line)
 *             Correctable Error                 : 0
 * Out: one event per GPU, on its "GPU <bus id>" line: component
 * "nvidia-smi", level INFO, "GPU 0: <name> (<bus id>)", metadata
 * {"inventory":1,"index","name","uuid","pci","driver","cuda","vbios",
 * "memory_total_mib","ecc_mode","ecc_volatile_corrected","ecc_volatile_uncorrected",
 * "ecc_aggregate_corrected","ecc_aggregate_uncorrected","retired_pages_sbe",
 * "retired_pages_dbe","retired_pages_pending","remapped_rows_correctable",
 * "remapped_rows_uncorrectable","remapped_rows_pending","remapped_rows_failure",
 * "clocks_event_reasons" (the active ones, comma-separated)}, absent where
 * nvidia-smi says N/A; with the samples gpu.temperature_c, gpu.power_w,
 * gpu.memory_used_mib, gpu.ecc_uncorrected_aggregate and
 * gpu.retired_pages (device = the index, labels {"uuid"}) at the report's
 * Timestamp (naive local time, --timezone). The whole report is read once
 * in prepare (an inventory is a few hundred lines); the other lines hold
 * nothing to store. The index is the GPU's "Minor Number" on Linux, its
 * place in the report where that is N/A (Windows).
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsmiq.h"
#include "reader.h"
#include "textfmt.h"
#include "textts.h"

#define NVQ_MAGIC 0x71736d6eu	/* "nmsq" */

static const char *const num_keys[GL_NVQ_COUNT] = {
	"memory_total_mib", "memory_used_mib", "temperature_c", "power_w",
	"ecc_volatile_corrected", "ecc_volatile_uncorrected", "ecc_aggregate_corrected",
	"ecc_aggregate_uncorrected", "retired_pages_sbe", "retired_pages_dbe",
	"retired_pages_pending", "remapped_rows_correctable", "remapped_rows_uncorrectable",
	"remapped_rows_pending", "remapped_rows_failure", "minor",
};

struct nvq_state {
	uint32_t magic;
	uint32_t headers;		/* GPU header lines seen (the next one's place) */
};

static void copy(char *dst, size_t cap, struct gl_str v);

static void doc_free(void *p)
{
	free(p);
}

struct gl_nvsmiq_doc *gl_nvsmiq_doc_of(struct gl_parse_ctx *ctx)
{
	return ctx->priv && ctx->priv_free == doc_free ? ctx->priv : NULL;
}

struct gl_nvsmiq_doc *gl_nvsmiq_doc_new(struct gl_parse_ctx *ctx)
{
	struct gl_nvsmiq_doc *d;

	if (ctx->priv || !(d = calloc(1, sizeof(*d))))
		return NULL;
	d->ts_us = GL_TS_NONE;
	ctx->priv = d;
	ctx->priv_free = doc_free;
	return d;
}

struct gl_nvsmiq_gpu *gl_nvsmiq_gpu_add(struct gl_nvsmiq_doc *d, const char *bus, size_t n)
{
	struct gl_nvsmiq_gpu *g;

	if (d->n >= GL_NVQ_GPUS)
		return NULL;
	g = &d->gpu[d->n++];
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < GL_NVQ_COUNT; i++)
		g->num[i] = NAN;
	copy(g->pci, sizeof(g->pci), (struct gl_str){bus, n});
	return g;
}

void gl_nvsmiq_reason_add(struct gl_nvsmiq_gpu *g, const char *r, size_t n)
{
	size_t k = strlen(g->reasons);

	snprintf(g->reasons + k, sizeof(g->reasons) - k, "%s%.*s", k ? "," : "", (int)n, r);
}

void gl_nvsmiq_timestamp(struct gl_nvsmiq_doc *d, const char *v, size_t n)
{
	char buf[48];
	struct gl_textts t;

	if (n >= 40)
		return;
	snprintf(buf, sizeof(buf), "[%.*s]", (int)n, v);
	if (gl_textts_scan(buf, strlen(buf), 0, &t) && t.kind == GL_TEXTTS_ISO)
		d->ts_us = t.naive_us;
}

static struct nvq_state *state_of(struct gl_parse_ctx *ctx)
{
	struct nvq_state *st = (struct nvq_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != NVQ_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = NVQ_MAGIC;
		ctx->state_len = sizeof(*st);
	}
	return st;
}

/* "GPU 00000000:01:00.0": the bus id, else NULL. */
static const char *gpu_header(const char *s, size_t len, size_t *n)
{
	if (len < 12 || memcmp(s, "GPU ", 4) != 0)
		return NULL;
	for (size_t i = 4; i < len; i++)
		if (!strchr("0123456789abcdefABCDEF:.", s[i]) || !s[i])
			return NULL;
	*n = len - 4;
	return s + 4;
}

/* v into dst, cut to cap - 1 bytes; "N/A" is nothing. */
static void copy(char *dst, size_t cap, struct gl_str v)
{
	size_t n = v.len < cap - 1 ? v.len : cap - 1;

	if (v.len == 3 && !memcmp(v.p, "N/A", 3))
		n = 0;
	memcpy(dst, v.p, n);
	dst[n] = '\0';
}

/* A number at the start of v ("6144 MiB", "38 C", "12.11 W"); NAN for N/A. */
static double value_num(struct gl_str v)
{
	char buf[32], *e;
	double d;

	copy(buf, sizeof(buf), v);
	d = strtod(buf, &e);
	return e == buf ? NAN : d;
}

/* Does b hold a? */
static int has(struct gl_str b, const char *a)
{
	size_t n = strlen(a);

	for (size_t i = 0; i + n <= b.len; i++)
		if (!memcmp(b.p + i, a, n))
			return 1;
	return 0;
}

/* The value's first word ("610.88" of "610.88 [Deprecated; ...]"). */
static struct gl_str first_word(struct gl_str v)
{
	size_t n = 0;

	while (n < v.len && v.p[n] != ' ')
		n++;
	return (struct gl_str){v.p, n};
}

static int is(const char *a, struct gl_str b)
{
	return strlen(a) == b.len && memcmp(a, b.p, b.len) == 0;
}

#define DEPTH_MAX 6

/* One line of the report into doc; sect[] holds the open section names. */
static void read_line(struct gl_nvsmiq_doc *d, char sect[DEPTH_MAX][48], const char *s, size_t len)
{
	size_t ind = 0, depth;
	const char *colon;
	struct gl_str key, val;
	struct gl_nvsmiq_gpu *g = d->n ? &d->gpu[d->n - 1] : NULL;
	size_t n;
	const char *bus;

	while (ind < len && s[ind] == ' ')
		ind++;
	depth = ind / 4;
	if (depth == 0 && (bus = gpu_header(s, len, &n))) {
		gl_nvsmiq_gpu_add(d, bus, n);
		return;
	}
	colon = memchr(s, ':', len);
	/* a key may hold ':' only after " : "; a section header has none */
	while (colon && !(colon > s && colon[-1] == ' '))
		colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - s));
	if (!colon) {
		key = gl_textfmt_trim(s, len);
		if (depth < DEPTH_MAX) {
			copy(sect[depth], 48, key);
			for (size_t k = depth + 1; k < DEPTH_MAX; k++)
				sect[k][0] = '\0';
		}
		return;
	}
	key = gl_textfmt_trim(s, (size_t)(colon - s));
	val = gl_textfmt_trim(colon + 1, len - (size_t)(colon + 1 - s));
	if (depth < DEPTH_MAX)
		for (size_t k = depth; k < DEPTH_MAX; k++)
			sect[k][0] = '\0';
	if (depth == 0) {
		if (is("Driver Version", key))
			copy(d->driver, sizeof(d->driver), first_word(val));
		else if (is("CUDA Version", key))
			copy(d->cuda, sizeof(d->cuda), first_word(val));
		else if (is("Timestamp", key))
			gl_nvsmiq_timestamp(d, val.p, val.len);
		return;
	}
	if (!g)
		return;
	if (depth == 1) {
		if (is("Product Name", key))
			copy(g->name, sizeof(g->name), val);
		else if (is("GPU UUID", key))
			copy(g->uuid, sizeof(g->uuid), val);
		else if (is("VBIOS Version", key))
			copy(g->vbios, sizeof(g->vbios), val);
		else if (is("Minor Number", key))
			g->num[GL_NVQ_MINOR] = value_num(val);
		return;
	}
	{
		const char *s1 = sect[1], *s2 = sect[2];
		double v = value_num(val);

		if (!strcmp(s1, "FB Memory Usage") && is("Total", key))
			g->num[GL_NVQ_MEM_TOTAL] = v;
		else if (!strcmp(s1, "FB Memory Usage") && is("Used", key))
			g->num[GL_NVQ_MEM_USED] = v;
		else if (!strcmp(s1, "Temperature") && is("GPU Current Temp", key))
			g->num[GL_NVQ_TEMP] = v;
		else if ((!strcmp(s1, "GPU Power Readings") || !strcmp(s1, "Power Readings")) &&
			 (is("Power Draw", key) || is("Average Power Draw", key)))
			g->num[GL_NVQ_POWER] = v;
		else if (!strcmp(s1, "ECC Mode") && is("Current", key))
			copy(g->ecc_mode, sizeof(g->ecc_mode), val);
		else if (!strcmp(s1, "ECC Errors") && !isnan(v) &&
			 (!strcmp(s2, "Volatile") || !strcmp(s2, "Aggregate"))) {
			int agg = !strcmp(s2, "Aggregate"), corr, idx;

			/* old drivers: "Single Bit" / "Double Bit" sections, summed in "Total" */
			if (sect[3][0]) {
				if (!is("Total", key))
					return;
				corr = strstr(sect[3], "Single Bit") != NULL;
			} else {
				if (has(key, "Threshold"))
					return;
				corr = !has(key, "Uncorrectable");
			}
			idx = agg ? (corr ? GL_NVQ_ECC_AGG_CORR : GL_NVQ_ECC_AGG_UNCORR)
				  : (corr ? GL_NVQ_ECC_VOL_CORR : GL_NVQ_ECC_VOL_UNCORR);
			g->num[idx] = (isnan(g->num[idx]) ? 0 : g->num[idx]) + v;
		} else if (!strcmp(s1, "Retired Pages") && !s2[0]) {
			if (is("Single Bit ECC", key))
				g->num[GL_NVQ_RP_SBE] = v;
			else if (is("Double Bit ECC", key))
				g->num[GL_NVQ_RP_DBE] = v;
		} else if (!strcmp(s1, "Retired Pages") && strstr(s2, "Single Bit") && is("Count", key)) {
			g->num[GL_NVQ_RP_SBE] = v;
		} else if (!strcmp(s1, "Retired Pages") && strstr(s2, "Double Bit") && is("Count", key)) {
			g->num[GL_NVQ_RP_DBE] = v;
		} else if (!strcmp(s1, "Retired Pages") && is("Pending Page Blacklist", key)) {
			g->num[GL_NVQ_RP_PENDING] = !strncmp(val.p, "Yes", 3) ? 1 : !strncmp(val.p, "No", 2) ? 0 : NAN;
		} else if (!strcmp(s1, "Remapped Rows")) {
			if (is("Correctable Error", key))
				g->num[GL_NVQ_RR_CORR] = v;
			else if (is("Uncorrectable Error", key))
				g->num[GL_NVQ_RR_UNCORR] = v;
			else if (is("Pending", key))
				g->num[GL_NVQ_RR_PENDING] = !strncmp(val.p, "Yes", 3) ? 1 : !strncmp(val.p, "No", 2) ? 0 : NAN;
			else if (is("Remapping Failure Occurred", key))
				g->num[GL_NVQ_RR_FAILURE] = !strncmp(val.p, "Yes", 3) ? 1 : !strncmp(val.p, "No", 2) ? 0 : NAN;
		} else if ((!strcmp(s1, "Clocks Event Reasons") || !strcmp(s1, "Clocks Throttle Reasons")) &&
			   is("Active", val)) {
			gl_nvsmiq_reason_add(g, key.p, key.len);
		}
	}
}

static int nvq_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct gl_reader *r = NULL;
	struct gl_line ln;
	struct gl_err err;
	struct gl_nvsmiq_doc *d;
	char sect[DEPTH_MAX][48] = {{0}};

	if (!(d = gl_nvsmiq_doc_new(ctx)))
		return -1;
	memset(&err, 0, sizeof(err));
	if (gl_reader_open(&r, path, &err) != GL_OK)
		return -1;
	while (gl_reader_next(r, &ln, &err) == 1)
		read_line(d, sect, ln.p, ln.len);
	gl_reader_close(r);
	return 0;
}

static void write_meta(struct gl_jsonw *w, const struct gl_nvsmiq_doc *d, const struct gl_nvsmiq_gpu *g, long idx)
{
	gl_jsonw_int(w, "inventory", 1);
	gl_jsonw_int(w, "index", idx);
	gl_jsonw_str(w, "pci", g->pci, strlen(g->pci));
	if (g->name[0])
		gl_jsonw_str(w, "name", g->name, strlen(g->name));
	if (g->uuid[0])
		gl_jsonw_str(w, "uuid", g->uuid, strlen(g->uuid));
	if (d && d->driver[0])
		gl_jsonw_str(w, "driver", d->driver, strlen(d->driver));
	if (d && d->cuda[0])
		gl_jsonw_str(w, "cuda", d->cuda, strlen(d->cuda));
	if (g->vbios[0])
		gl_jsonw_str(w, "vbios", g->vbios, strlen(g->vbios));
	if (g->ecc_mode[0])
		gl_jsonw_str(w, "ecc_mode", g->ecc_mode, strlen(g->ecc_mode));
	for (int i = 0; i < GL_NVQ_COUNT; i++)
		if (!isnan(g->num[i]) && i != GL_NVQ_MINOR)
			gl_jsonw_double(w, num_keys[i], g->num[i]);
	gl_jsonw_str(w, "clocks_event_reasons", g->reasons, strlen(g->reasons));
}

void gl_nvsmiq_gpu_record(struct gl_parse_ctx *ctx, size_t k, const char *bus, size_t n,
			  struct gl_rec *rec)
{
	struct gl_nvsmiq_doc *d = gl_nvsmiq_doc_of(ctx);
	struct gl_nvsmiq_gpu one, *g;
	struct gl_jsonw w;
	char *buf, *msg;
	long idx;
	int mlen;

	if (d && k < d->n) {
		g = &d->gpu[k];
	} else {
		memset(&one, 0, sizeof(one));
		for (int i = 0; i < GL_NVQ_COUNT; i++)
			one.num[i] = NAN;
		copy(one.pci, sizeof(one.pci), (struct gl_str){bus, n});
		g = &one;
		d = NULL;
	}
	idx = isnan(g->num[GL_NVQ_MINOR]) ? (long)k : (long)g->num[GL_NVQ_MINOR];
	gl_jsonw_begin(&w, NULL, 0);
	write_meta(&w, d, g, idx);
	gl_jsonw_end(&w);
	buf = gl_ctx_scratch(ctx, w.len + 1);
	msg = gl_ctx_scratch(ctx, 200);
	if (!buf || !msg) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	gl_jsonw_begin(&w, buf, w.len + 1);
	write_meta(&w, d, g, idx);
	gl_jsonw_end(&w);
	mlen = snprintf(msg, 200, "GPU %ld: %s (%s)", idx, g->name[0] ? g->name : "?", g->pci);
	if (d && d->ts_us != GL_TS_NONE) {
		rec->ev.ts_us = gl_ctx_naive_to_utc(ctx, d->ts_us);
	} else {
		rec->ev.ts_us = ctx->file_mtime_us ? ctx->file_mtime_us : gl_time_now_us();
	}
	rec->ev.level = GL_LEVEL_INFO;
	rec->ev.component = (struct gl_str){"nvidia-smi", 10};
	rec->ev.message = (struct gl_str){msg, (size_t)mlen};
	rec->ev.metadata = (struct gl_str){buf, w.len};
	rec->ev.kind = GL_EV_INVENTORY;
	{
		static const struct {
			int num;
			const char *metric;
		} sm[] = {
			{GL_NVQ_TEMP, "gpu.temperature_c"},
			{GL_NVQ_POWER, "gpu.power_w"},
			{GL_NVQ_MEM_USED, "gpu.memory_used_mib"},
			{GL_NVQ_ECC_AGG_UNCORR, "gpu.ecc_uncorrected_aggregate"},
		};
		struct gl_sample *s = gl_ctx_samples(ctx, 5);
		size_t ns = 0;
		char *dev = gl_ctx_scratch(ctx, 24), *lab = gl_ctx_scratch(ctx, 96);
		int dl, ll;

		if (!s || !dev || !lab)
			return;
		dl = snprintf(dev, 24, "%ld", idx);
		ll = g->uuid[0] ? snprintf(lab, 96, "{\"uuid\":\"%.80s\"}", g->uuid) : 0;
		for (size_t i = 0; i < sizeof(sm) / sizeof(sm[0]); i++) {
			if (isnan(g->num[sm[i].num]))
				continue;
			s[ns].metric = (struct gl_str){sm[i].metric, strlen(sm[i].metric)};
			s[ns].value = g->num[sm[i].num];
			s[ns].ts_us = rec->ev.ts_us;
			s[ns].device = (struct gl_str){dev, (size_t)dl};
			s[ns].labels = ll ? (struct gl_str){lab, (size_t)ll} : (struct gl_str){NULL, 0};
			ns++;
		}
		if (!isnan(g->num[GL_NVQ_RP_SBE]) || !isnan(g->num[GL_NVQ_RP_DBE])) {
			s[ns] = s[0];
			s[ns].metric = (struct gl_str){"gpu.retired_pages", 17};
			s[ns].value = (isnan(g->num[GL_NVQ_RP_SBE]) ? 0 : g->num[GL_NVQ_RP_SBE]) +
				     (isnan(g->num[GL_NVQ_RP_DBE]) ? 0 : g->num[GL_NVQ_RP_DBE]);
			s[ns].ts_us = rec->ev.ts_us;
			s[ns].device = (struct gl_str){dev, (size_t)dl};
			s[ns].labels = ll ? (struct gl_str){lab, (size_t)ll} : (struct gl_str){NULL, 0};
			ns++;
		}
		rec->samples = ns ? s : NULL;
		rec->n_samples = ns;
	}
	rec->kind = GL_REC_EVENT;
}

static void nvq_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct nvq_state *st = state_of(ctx);
	const char *bus;
	size_t n;

	gl_event_init(&rec->ev);
	rec->reason = NULL;
	rec->kind = GL_REC_NONE;
	if (len >= 23 && !memcmp(line, "==============NVSMI LOG", 23))
		return;
	if (!(bus = gpu_header(line, len, &n))) {
		/* the report's lines: indented, or "Key   : value", or a blank */
		if (len && line[0] != ' ' && !has((struct gl_str){line, len}, " : "))
			rec->kind = GL_REC_FOREIGN;
		return;
	}
	gl_nvsmiq_gpu_record(ctx, st->headers++, bus, n, rec);
}

const struct gl_format gl_fmt_nvsmiq = {
	.name = "nvsmiq",
	.summary = "nvidia-smi -q report: a device inventory per GPU (name, uuid, bus, driver, ECC, retired pages, clocks event reasons)",
	.flags = 0,
	.parse = nvq_parse,
	.prepare = nvq_prepare,
};
