/*
 * fmt_nvsmiqx.c - `nvidia-smi -q -x`: the XML form of the device inventory
 * (fmt_nvsmiq.c reads the text form of the same report).
 *
 * In: the document nvidia-smi writes (nvsmi_device_v*.dtd), one element a
 * line, tabs for indents:
 *     <?xml version="1.0" ?>
 *     <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">
 *     <nvidia_smi_log>
 *         <timestamp>Thu Nov 26 17:44:28 2026</timestamp>
 *         <driver_version>580.159.04</driver_version>
 *         <gpu id="00000000:00:06.0">
 *             <product_name>NVIDIA H100 80GB HBM3</product_name>
 *             <ecc_errors><volatile><dram_uncorrectable>0</dram_uncorrectable> ...
 *             <clocks_event_reasons>
 *                 <clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>
 * Out: the same records as the text form (nvsmiq.h): one event per GPU on
 * the line that opens its <gpu> element, with the same metadata and
 * samples; the element names are mapped to the text form's keys, the
 * clocks event reasons to its words ("Idle", "SW Power Cap").
 *
 * No XML library: the document is a fixed shape of elements, text and one
 * attribute (the gpu's id), and nothing else of XML occurs in it. prepare
 * reads the whole document (a few hundred lines a GPU) with a small
 * tokenizer that takes elements however they are laid out (one a line, or
 * all on one line), skips the declaration, DOCTYPE, comments and CDATA,
 * and decodes the five predefined entities (&amp; in a product name). A
 * document that is not well formed (a truncated file) keeps what was read
 * up to the break. Other XML (any root but nvidia_smi_log) is no report.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvsmiq.h"
#include "reader.h"

#define NVQX_MAGIC 0x78716d6eu	/* "nmqx" */
#define NVQX_DEPTH 12
#define NVQX_NAME 64
#define NVQX_DOC_MAX (64u << 20)	/* a report of 64 GPUs is < 2 MiB */

struct nvqx_state {
	uint32_t magic;
	uint32_t root;			/* <nvidia_smi_log> was seen */
	uint32_t gpus;			/* <gpu> elements handed out before this line */
};

static struct nvqx_state *state_of(struct gl_parse_ctx *ctx)
{
	struct nvqx_state *st = (struct nvqx_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != NVQX_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = NVQX_MAGIC;
		ctx->state_len = sizeof(*st);
	}
	return st;
}

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; s + n <= end; s++)
		if (memcmp(s, needle, n) == 0)
			return s;
	return NULL;
}

/* The tokenizer's walk: the open elements, the text of the innermost. */
struct walk {
	struct gl_nvsmiq_doc *d;
	struct gl_nvsmiq_gpu *g;	/* the open <gpu>; NULL outside one */
	char name[NVQX_DEPTH][NVQX_NAME];
	size_t depth;			/* open elements (may pass NVQX_DEPTH: not kept) */
	int leaf;			/* no element opened since the innermost */
	char text[256];
	size_t text_len;
};

/* Text with the five predefined entities decoded, trimmed, into w->text. */
static void take_text(struct walk *w, const char *p, const char *end)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	w->text_len = 0;
	while (p < end && w->text_len + 1 < sizeof(w->text)) {
		char c = *p++;

		if (c == '&')
			for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
				if ((size_t)(end - p + 1) >= strlen(ents[i].ent) &&
				    !memcmp(p - 1, ents[i].ent, strlen(ents[i].ent))) {
					c = ents[i].c;
					p += strlen(ents[i].ent) - 1;
					break;
				}
		w->text[w->text_len++] = c;
	}
	w->text[w->text_len] = '\0';
}

static int at(const struct walk *w, size_t i, const char *name)
{
	return w->depth > i && i < NVQX_DEPTH && !strcmp(w->name[i], name);
}

static int contains(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

/* A number at the start of the text ("81559 MiB", "36 C"); NAN: "N/A", none. */
static double text_num(const struct walk *w)
{
	char *e;
	double v = strtod(w->text, &e);

	return e == w->text ? NAN : v;
}

static double yes_no(const struct walk *w)
{
	return !strncmp(w->text, "Yes", 3) ? 1 : !strncmp(w->text, "No", 2) ? 0 : NAN;
}

static void set_str(char *dst, size_t cap, const struct walk *w)
{
	size_t n = strcmp(w->text, "N/A") ? w->text_len : 0;

	if (n > cap - 1)
		n = cap - 1;
	memcpy(dst, w->text, n);
	dst[n] = '\0';
}

/* The text form's word for a clocks event reason element. */
static const char *reason_word(const char *el)
{
	static const struct {
		const char *suffix, *word;
	} words[] = {
		{"gpu_idle", "Idle"},
		{"applications_clocks_setting", "Applications Clocks Setting"},
		{"sw_power_cap", "SW Power Cap"},
		{"hw_slowdown", "HW Slowdown"},
		{"hw_thermal_slowdown", "HW Thermal Slowdown"},
		{"hw_power_brake_slowdown", "HW Power Brake Slowdown"},
		{"sync_boost", "Sync Boost"},
		{"sw_thermal_slowdown", "SW Thermal Slowdown"},
		{"display_clocks_setting", "Display Clock Setting"},
	};
	const char *u = strstr(el, "_reason_");

	if (!u)
		return NULL;
	u += strlen("_reason_");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(u, words[i].suffix))
			return words[i].word;
	return NULL;
}

/* A leaf element of the open <gpu> closed: its text into the GPU. */
static void gpu_leaf(struct walk *w, const char *el)
{
	struct gl_nvsmiq_gpu *g = w->g;
	double v = text_num(w);

	if (w->depth == 3) {
		if (!strcmp(el, "product_name"))
			set_str(g->name, sizeof(g->name), w);
		else if (!strcmp(el, "uuid"))
			set_str(g->uuid, sizeof(g->uuid), w);
		else if (!strcmp(el, "vbios_version"))
			set_str(g->vbios, sizeof(g->vbios), w);
		else if (!strcmp(el, "minor_number"))
			g->num[GL_NVQ_MINOR] = v;
		return;
	}
	if (at(w, 2, "fb_memory_usage") && w->depth == 4) {
		if (!strcmp(el, "total"))
			g->num[GL_NVQ_MEM_TOTAL] = v;
		else if (!strcmp(el, "used"))
			g->num[GL_NVQ_MEM_USED] = v;
	} else if (at(w, 2, "temperature") && !strcmp(el, "gpu_temp")) {
		g->num[GL_NVQ_TEMP] = v;
	} else if ((at(w, 2, "gpu_power_readings") || at(w, 2, "power_readings")) &&
		   (!strcmp(el, "power_draw") || !strcmp(el, "average_power_draw"))) {
		g->num[GL_NVQ_POWER] = v;
	} else if (at(w, 2, "ecc_mode") && !strcmp(el, "current_ecc")) {
		set_str(g->ecc_mode, sizeof(g->ecc_mode), w);
	} else if (at(w, 2, "ecc_errors") && (at(w, 3, "volatile") || at(w, 3, "aggregate")) &&
		   !isnan(v)) {
		int agg = at(w, 3, "aggregate"), corr, idx;

		/* old drivers: <single_bit>/<double_bit> with their <total> */
		if (w->depth == 6) {
			if (strcmp(el, "total"))
				return;
			corr = contains(w->name[4], "single_bit");
		} else if (w->depth == 5) {
			if (contains(el, "threshold"))
				return;
			corr = !contains(el, "uncorrectable");
		} else {
			return;
		}
		idx = agg ? (corr ? GL_NVQ_ECC_AGG_CORR : GL_NVQ_ECC_AGG_UNCORR)
			  : (corr ? GL_NVQ_ECC_VOL_CORR : GL_NVQ_ECC_VOL_UNCORR);
		g->num[idx] = (isnan(g->num[idx]) ? 0 : g->num[idx]) + v;
	} else if (at(w, 2, "retired_pages")) {
		if (at(w, 3, "multiple_single_bit_retirement") && !strcmp(el, "retired_count"))
			g->num[GL_NVQ_RP_SBE] = v;
		else if (at(w, 3, "double_bit_retirement") && !strcmp(el, "retired_count"))
			g->num[GL_NVQ_RP_DBE] = v;
		else if (w->depth == 4 && !strcmp(el, "pending_blacklist"))
			g->num[GL_NVQ_RP_PENDING] = yes_no(w);
	} else if (at(w, 2, "remapped_rows") && w->depth == 4) {
		if (!strcmp(el, "remapped_row_corr"))
			g->num[GL_NVQ_RR_CORR] = v;
		else if (!strcmp(el, "remapped_row_unc"))
			g->num[GL_NVQ_RR_UNCORR] = v;
		else if (!strcmp(el, "remapped_row_pending"))
			g->num[GL_NVQ_RR_PENDING] = yes_no(w);
		else if (!strcmp(el, "remapped_row_failure"))
			g->num[GL_NVQ_RR_FAILURE] = yes_no(w);
	} else if ((at(w, 2, "clocks_event_reasons") || at(w, 2, "clocks_throttle_reasons")) &&
		   w->depth == 4 && !strcmp(w->text, "Active")) {
		const char *word = reason_word(el);

		if (word)
			gl_nvsmiq_reason_add(g, word, strlen(word));
	}
}

/* An element closed: a leaf's text goes where it belongs. */
static void close_el(struct walk *w)
{
	const char *el = w->depth <= NVQX_DEPTH ? w->name[w->depth - 1] : "";

	if (w->leaf && w->depth == 2 && at(w, 0, "nvidia_smi_log")) {
		if (!strcmp(el, "timestamp")) {
			gl_nvsmiq_timestamp(w->d, w->text, w->text_len);
		} else if (!strcmp(el, "driver_version") || !strcmp(el, "cuda_version")) {
			char *dst = el[0] == 'd' ? w->d->driver : w->d->cuda;
			size_t cap = el[0] == 'd' ? sizeof(w->d->driver) : sizeof(w->d->cuda);
			size_t n = strcspn(w->text, " ");

			snprintf(dst, cap, "%.*s", (int)n, strcmp(w->text, "N/A") ? w->text : "");
		}
	} else if (w->leaf && w->g && w->depth >= 3 && w->depth <= NVQX_DEPTH) {
		gpu_leaf(w, el);
	}
	if (w->depth == 2 && at(w, 1, "gpu"))
		w->g = NULL;
	w->depth--;
	w->leaf = 0;
}

/* An element opened at tag[0..n) ("gpu id=\"00000000:00:06.0\""). */
static void open_el(struct walk *w, const char *tag, size_t n)
{
	size_t k = strcspn(tag, " \t\r\n/>");

	if (k > n)
		k = n;
	if (w->depth < NVQX_DEPTH)
		snprintf(w->name[w->depth], NVQX_NAME, "%.*s", (int)k, tag);
	w->depth++;
	w->leaf = 1;
	w->text_len = 0;
	w->text[0] = '\0';
	if (w->depth == 2 && at(w, 0, "nvidia_smi_log") && at(w, 1, "gpu")) {
		const char *id = find(tag, tag + n, "id=\""), *q = NULL;

		if (id)
			q = memchr(id + 4, '"', (size_t)(tag + n - id - 4));
		w->g = gl_nvsmiq_gpu_add(w->d, id && q ? id + 4 : "", id && q ? (size_t)(q - id - 4) : 0);
	}
}

/* The document buf[0..len) into d. */
static void walk_doc(struct gl_nvsmiq_doc *d, const char *buf, size_t len)
{
	static struct walk w0;
	struct walk *w = malloc(sizeof(*w));
	const char *p = buf, *end = buf + len, *text = buf;

	if (!w)
		return;
	*w = w0;
	w->d = d;
	while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		const char *gt, *skip = NULL;

		if (w->leaf)
			take_text(w, text, p);
		if (end - p >= 4 && !memcmp(p, "<!--", 4))
			skip = find(p, end, "-->");
		else if (end - p >= 9 && !memcmp(p, "<![CDATA[", 9))
			skip = find(p, end, "]]>");
		if (skip) {
			p = skip + 3;
			continue;
		}
		if (!(gt = memchr(p, '>', (size_t)(end - p))))
			break;
		if (p[1] == '?' || p[1] == '!') {
			/* the declaration, DOCTYPE */
		} else if (p[1] == '/') {
			if (w->depth)
				close_el(w);
		} else {
			open_el(w, p + 1, (size_t)(gt - p - 1));
			if (gt[-1] == '/')
				close_el(w);
		}
		p = gt + 1;
		text = p;
	}
	free(w);
}

static int nvqx_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct gl_reader *r = NULL;
	struct gl_line ln;
	struct gl_err err;
	struct gl_nvsmiq_doc *d;
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!(d = gl_nvsmiq_doc_new(ctx)))
		return -1;
	memset(&err, 0, sizeof(err));
	if (gl_reader_open(&r, path, &err) != GL_OK)
		return -1;
	while (gl_reader_next(r, &ln, &err) == 1 && len + ln.len + 1 <= NVQX_DOC_MAX) {
		if (len + ln.len + 1 > cap) {
			size_t nc = (len + ln.len + 1) * 2;
			char *nb = realloc(buf, nc);

			if (!nb)
				break;
			buf = nb;
			cap = nc;
		}
		memcpy(buf + len, ln.p, ln.len);
		len += ln.len;
		buf[len++] = '\n';
	}
	gl_reader_close(r);
	if (buf)
		walk_doc(d, buf, len);
	free(buf);
	return 0;
}

/* Is p inside a comment opened on its line (line[0..p))? */
static int in_comment(const char *line, const char *p)
{
	const char *c = NULL, *q = line;

	while ((q = find(q, p, "<!--")) != NULL)
		c = q++;
	return c && !find(c, p, "-->");
}

/* The next "<gpu " or "<gpu>" of the line at or after s, outside comments; NULL: none. */
static const char *gpu_open(const char *line, const char *s, const char *end)
{
	for (const char *p = s; (p = find(p, end, "<gpu")) != NULL; p += 4)
		if (p + 4 < end && (p[4] == ' ' || p[4] == '>') && !in_comment(line, p))
			return p;
	return NULL;
}

static void nvqx_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct nvqx_state *st = state_of(ctx);
	struct gl_nvsmiq_doc *d = gl_nvsmiq_doc_of(ctx);
	const char *end = line + len, *p = line, *g, *id, *q;
	size_t in_line = d ? d->in_line : 0, k = 0, total = 0;

	gl_event_init(&rec->ev);
	rec->reason = NULL;
	rec->kind = GL_REC_NONE;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!st->root) {
		/* before the root: the declaration, the DOCTYPE, blanks */
		if (find(p, end, "<nvidia_smi_log")) {
			st->root = 1;
		} else if (p == end || (end - p >= 2 && (!memcmp(p, "<?", 2) || !memcmp(p, "<!", 2)) &&
					 (p[1] == '?' || find(p, end, "nvidia_smi_log")))) {
			return;
		} else {
			rec->kind = GL_REC_FOREIGN;
			return;
		}
	}
	for (const char *s = line; (s = gpu_open(line, s, end)) != NULL; s += 4)
		total++;
	if (!total)
		return;
	/* the in_line-th <gpu> of this line (a document on one line holds them all) */
	for (g = gpu_open(line, line, end); k < in_line && g; k++)
		g = gpu_open(line, g + 4, end);
	if (!g)
		return;
	id = find(g, end, "id=\"");
	q = id ? memchr(id + 4, '"', (size_t)(end - id - 4)) : NULL;
	gl_nvsmiq_gpu_record(ctx, st->gpus + in_line, id && q ? id + 4 : "",
			     id && q ? (size_t)(q - id - 4) : 0, rec);
	if (in_line + 1 < total && d) {
		d->in_line++;
		ctx->more = 1;
	} else {
		if (d)
			d->in_line = 0;
		st->gpus += (uint32_t)total;
	}
}

const struct gl_format gl_fmt_nvsmiqx = {
	.name = "nvsmiqx",
	.summary = "nvidia-smi -q -x XML report: the same device inventory as nvsmiq",
	.flags = 0,
	.parse = nvqx_parse,
	.prepare = nvqx_prepare,
};
