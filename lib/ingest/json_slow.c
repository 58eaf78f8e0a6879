/*
 * json_slow.c - the jansson path of the JSON-lines parser.
 *
 * In: a line the fast scanner refused or left alone, e.g.
 *     {"timestamp": "2025-09-09T14:30:22Z", "execution_time_ms": NaN}
 * Out: the same gl_rec the fast path would give for a line jansson accepts
 * (through gl_json_fields_finish), or GL_REC_REJECT with jansson's own
 * error text and column. The only user of jansson for reading logs.
 */
#include "json_slow.h"
#include "json_scan.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Copies n bytes into scratch; the copy stays valid until the next line. */
static int keep(struct gl_parse_ctx *ctx, const char *p, size_t n, struct gl_str *out)
{
	char *dst = gl_ctx_scratch(ctx, n);

	if (!dst)
		return -1;
	memcpy(dst, p, n);
	out->p = dst;
	out->len = n;
	return 0;
}

/*
 * Metadata as compact JSON text. jansson writes reals with 17 digits
 * (0.1 -> 0.10000000000000001), so the text can outgrow its source and the
 * line's scratch reserve; then it goes to the context's spill buffer. Only
 * when memory runs out is the metadata left out (the event is kept).
 */
static void keep_dump(struct gl_parse_ctx *ctx, const json_t *v, struct gl_str *out)
{
	size_t need = json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
	char *dst;

	out->p = NULL;
	out->len = 0;
	if (need == 0)
		return;
	/* Reals come back with 17 digits, so the text can outgrow the line's
	 * reserve: then it goes to the spill buffer rather than being lost. */
	dst = need <= gl_ctx_scratch_left(ctx) ? gl_ctx_scratch(ctx, need) : gl_ctx_spill(ctx, need);
	if (!dst)
		return;
	out->p = dst;
	out->len = json_dumpb(v, dst, need, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* One jansson value -> one field. Returns -1 when scratch runs out. */
static int take(struct gl_parse_ctx *ctx, const json_t *v, int id, struct gl_json_field *f)
{
	if (!v)
		return 0;
	switch (json_typeof(v)) {
	case JSON_NULL:
		f->type = GL_JSON_NULL;
		break;
	case JSON_TRUE:
		f->type = GL_JSON_TRUE;
		break;
	case JSON_FALSE:
		f->type = GL_JSON_FALSE;
		break;
	case JSON_INTEGER:
		f->type = GL_JSON_INT;
		f->i = json_integer_value(v);
		f->d = (double)f->i;
		break;
	case JSON_REAL:
		f->type = GL_JSON_REAL;
		f->d = json_real_value(v);
		break;
	case JSON_STRING:
		f->type = GL_JSON_STRING;
		if (id != GL_JF_METADATA)
			return keep(ctx, json_string_value(v), json_string_length(v), &f->str);
		break;
	case JSON_ARRAY:
		f->type = GL_JSON_ARRAY;
		break;
	case JSON_OBJECT:
		f->type = GL_JSON_OBJECT;
		break;
	}
	/* metadata of any type but null is kept as compact JSON text */
	if (id == GL_JF_METADATA && f->type != GL_JSON_NULL)
		keep_dump(ctx, v, &f->str);
	return 0;
}

static void reject(struct gl_parse_ctx *ctx, const char *text, int column, const char *field,
		   size_t field_len, struct gl_rec *rec)
{
	char buf[512];
	int n;
	char *dst;

	gl_event_init(&rec->ev);
	rec->kind = GL_REC_REJECT;
	/* Name the key only when it reads well: short, no quote to confuse. */
	if (field && (field_len > 64 || memchr(field, '"', field_len) || memchr(field, '\\', field_len)))
		field = NULL;
	if (field)
		n = snprintf(buf, sizeof(buf), "invalid JSON: %s at column %d in \"%.*s\"", text,
			     column, (int)field_len, field);
	else
		n = snprintf(buf, sizeof(buf), "invalid JSON: %s at column %d", text, column);
	rec->reason = "invalid JSON";
	if (n < 0 || (size_t)n >= sizeof(buf))
		return;
	dst = gl_ctx_scratch(ctx, (size_t)n + 1);
	if (dst) {
		memcpy(dst, buf, (size_t)n + 1);
		rec->reason = dst;
	}
}

void gl_json_slow_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, int col_offset,
			const char *field, size_t field_len, struct gl_rec *rec)
{
	const char *nul = memchr(line, '\0', len);
	struct gl_json_fields jf;
	json_error_t jerr;
	json_t *root;
	const json_t *gpu;
	int rc = 0;

	/*
	 * RFC 8259 allows no raw NUL byte, but jansson drops one that follows
	 * a number or a literal ({"a":1<NUL>} loads): refuse those lines here.
	 */
	if (nul) {
		int column = col_offset + 1;

		for (const char *p = line; p < nul; p++)
			column += ((unsigned char)*p & 0xC0) != 0x80;
		reject(ctx, "NUL byte", column, field, field_len, rec);
		return;
	}
	root = json_loadb(line, len, 0, &jerr);
	if (!root) {
		reject(ctx, jerr.text, jerr.column + col_offset, field, field_len, rec);
		return;
	}
	gl_json_fields_init(&jf);
	for (int id = 0; id < GL_JF_FIRST_GPU && rc == 0; id++)
		rc = take(ctx, json_object_get(root, gl_json_field_key(id)), id, &jf.f[id]);
	gpu = json_object_get(root, "gpu_metrics");
	if (json_is_object(gpu))
		for (int id = GL_JF_FIRST_GPU; id < GL_JF_COUNT && rc == 0; id++)
			rc = take(ctx, json_object_get(gpu, gl_json_field_key(id)), id, &jf.f[id]);
	if (rc < 0) {
		/* Only when scratch, sized for the line, cannot hold its strings. */
		gl_event_init(&rec->ev);
		rec->kind = GL_REC_REJECT;
		rec->reason = "line too large to unpack";
		goto out;
	}
	gl_json_fields_finish(&jf, rec);
out:
	json_decref(root);
}
