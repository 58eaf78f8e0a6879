/*
 * fmt_jsondoc.c - files that are one indented JSON document of a known
 * shape:
 * - BitNet-rs inference receipts (ci/inference.json, docs/baselines/<date>-cpu.json):
 *       {
 *         "backend": "cpu",
 *         "kernels": [
 *           "embedding_lookup",
 *           ...
 *         ],
 *         "schema_version": "1.0.0",
 *         "timestamp": "2025-10-23T00:39:09.569365214+00:00",
 *         "tokens_generated": 1,
 *         "tokens_per_second": 0.0,
 *         ...
 *       }
 *   -> one event (component "bitnet", level INFO, "receipt: 1 tokens at
 *   0 tokens/s (cpu)", the whole document as metadata) with the samples
 *   inference.tokens_per_second, inference.tokens_generated (labelled
 *   {"backend_type": ...}) at the document's timestamp.
 * - the Deep Tree Echo performance monitor's alert_<unix seconds>.json:
 *       {
 *         "timestamp": 1718000000.5,
 *         "severity": "warning",
 *         "component": "echo_core",
 *         "message": "High CPU usage",
 *         "metric": "cpu_usage",
 *         "value": 93.1,
 *         "threshold": 90.0
 *       }
 *   -> one event: level from severity (info, warning, critical, ...),
 *   component, message; metric, value and threshold in metadata; the time
 *   is "timestamp", seconds since the epoch (an RFC 3339 text works too).
 * - its performance_metrics.json snapshot, one entry
 *       {"timestamp": ..., "component_id": "echo_core", "cpu_usage": 41.5, ...}
 *   or, as the monitor really writes it, nested (is_snapshot):
 *       {"timestamp": ..., "team_member": "echo", "uptime": 300, "system": {...},
 *        "process": {"pid": 4242, "performance": {...}}, "alerts": {"total": 3}}
 *   and metrics_history.json, {"metrics": [entry, ...], "alerts": [alert, ...]},
 *   also with its own "timestamp" first, {"timestamp": ..., "metrics": [...], ...}:
 *   every entry -> one event (component = component_id, level INFO,
 *   "metrics of <component_id>") whose samples are its numeric fields, each
 *   under its own name ("cpu_usage", "token_throughput", ...), nested ones
 *   under dotted names (metadata.gpu.utilization -> "gpu.utilization",
 *   flatten()), labelled {"component_id": ...}; every alert -> an event as
 *   above.
 *
 * These files are rewritten in place: each rewrite is a new stream of the
 * same path (stream.c), read from its start. An entry already stored from
 * an earlier rewrite is the same record again (same time, same fields), so
 * the store marks it a mirror (events.dup_of) and does not store its samples
 * again: a history rewritten every minute adds only its new entries. That
 * is why a history entry is an event with samples and not bare samples
 * (bare samples are not de-duplicated).
 *
 * Reading: the lines go through the structural scanner of jsonstream.c.
 * The elements of a history's "metrics" and "alerts" arrays are handed
 * out one at a time, each parsed with jansson and emitted on the line that
 * closes it. The members of any other document are collected (at most
 * JD_DOC_MAX bytes) and the document becomes its record on the line of its
 * closing brace. While a record is incomplete ctx->hold is 1, so a run that
 * stops inside one re-reads it next time. A document of none of these
 * shapes (a Kineto trace, any other JSON) is foreign: detection never takes
 * it. A history written on one line (json.dump without indent),
 *     {"metrics": [{"timestamp": ..., "component_id": ...}, ...], "alerts": [...]}
 * gives one record per entry: the line is handed out again while entries
 * are left in it (ctx->more, format.h), the place kept in d->resume_off.
 * A document cut at the end of a settled file is a reject (jsondoc_end).
 */
#define _GNU_SOURCE	/* vasprintf */
#include "format.h"

#include <jansson.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstream.h"
#include "../util/hash.h"

#define JD_DOC_MAX (4u << 20)		/* a document (or one history entry) over 4 MiB is rejected */
#define JD_KEEP 8			/* strings a record points to, freed at the next call */

static const char jd_magic[4] = {'J', 'D', 'O', '1'};

/* Plain bytes in ctx->state, kept between history entries. */
struct jd_state {
	char magic[4];
	int32_t history;		/* the document is a metrics history */
	struct gl_jstream_pos pos;
};

struct jd {
	struct gl_jstream js;
	struct jd_state st;
	int started;			/* a document was opened */
	int decided;			/* its first key was read */
	json_t *doc;			/* the members collected so far (not a history) */
	size_t doc_bytes;
	int too_big;
	json_t *unit;			/* the parsed entry the last record points into */
	char *keep[JD_KEEP];
	int nkeep;
	char reason[160];
	/* the last line's result, for the second parse records.c makes of a non-record */
	int again;
	uint64_t again_hash;
	size_t again_len;
	struct gl_rec again_rec;
	int again_hold, again_more;
	/* a line holding several units (a history on one line): where the next begins */
	int resume;
	uint64_t resume_hash;
	size_t resume_len, resume_off;
};

static void jd_clear_out(struct jd *d)
{
	for (int i = 0; i < d->nkeep; i++)
		free(d->keep[i]);
	d->nkeep = 0;
	if (d->unit)
		json_decref(d->unit);
	d->unit = NULL;
}

static void jd_free(void *p)
{
	struct jd *d = p;

	jd_clear_out(d);
	if (d->doc)
		json_decref(d->doc);
	gl_jstream_release(&d->js);
	free(d);
}

static struct jd_state *jstate(struct gl_parse_ctx *ctx)
{
	struct jd_state *st = (struct jd_state *)ctx->state;

	if (ctx->state_len != sizeof(*st) || memcmp(st->magic, jd_magic, 4) != 0)
		return NULL;
	return st;
}

static struct jd *jd_get(struct gl_parse_ctx *ctx)
{
	struct jd_state *st = jstate(ctx);
	struct jd *d;

	if (!(d = calloc(1, sizeof(*d))))
		return NULL;
	gl_jstream_init(&d->js, JD_DOC_MAX);
	if (st && st->history) {
		d->st = *st;
		d->started = d->decided = 1;
		gl_jstream_restore(&d->js, &st->pos);
	} else {
		memcpy(d->st.magic, jd_magic, 4);
	}
	ctx->priv = d;
	ctx->priv_free = jd_free;
	return d;
}

static void jd_drop(struct gl_parse_ctx *ctx)
{
	jd_free(ctx->priv);
	ctx->priv = NULL;
	ctx->priv_free = NULL;
}

/* A string for the record, owned until the next call. */
static struct gl_str keep(struct jd *d, char *s)
{
	if (!s)
		return (struct gl_str){NULL, 0};
	if (d->nkeep == JD_KEEP) {
		free(s);
		return (struct gl_str){NULL, 0};
	}
	d->keep[d->nkeep++] = s;
	return (struct gl_str){s, strlen(s)};
}

static struct gl_str strf(struct jd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static struct gl_str strf(struct jd *d, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return keep(d, n < 0 ? NULL : s);
}

/* "timestamp": epoch seconds (a number) or RFC 3339 text. Returns 0, or -1. */
static int doc_time(json_t *v, int64_t *us)
{
	if (json_is_number(v)) {
		double s = json_number_value(v);

		if (!isfinite(s) || s < 0 || s > 1e11)
			return -1;
		*us = (int64_t)llround(s * 1e6);
		return 0;
	}
	if (json_is_string(v))
		return gl_time_parse_rfc3339(json_string_value(v), json_string_length(v), us);
	return -1;
}

static int has(json_t *o, const char *k)
{
	return json_object_get(o, k) != NULL;
}

/* --- the shapes ------------------------------------------------------- */

static int is_receipt(json_t *o)
{
	return has(o, "schema_version") && has(o, "backend") &&
	       (has(o, "tokens_per_second") || has(o, "tokens_generated"));
}

static int is_alert(json_t *o)
{
	return json_is_string(json_object_get(o, "severity")) &&
	       json_is_string(json_object_get(o, "message")) && has(o, "timestamp");
}

static int is_entry(json_t *o)
{
	return json_is_string(json_object_get(o, "component_id")) && has(o, "timestamp");
}

/*
 * The monitor's performance_metrics.json as it writes it:
 *     {"timestamp": ..., "team_member": "echo", "uptime": 300,
 *      "system": {"cpu_usage": 41.5, ...}, "process": {"pid": 4242,
 *      "performance": {"token_throughput": 71.2}}, "alerts": {"total": 3, ...}}
 * read as an entry of the component team_member (else
 * "performance_monitor").
 */
static int is_snapshot(json_t *o)
{
	return has(o, "timestamp") && !has(o, "component_id") &&
	       (json_is_object(json_object_get(o, "system")) ||
		json_is_object(json_object_get(o, "process")));
}

static void receipt(struct gl_parse_ctx *ctx, struct jd *d, json_t *o, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	json_t *tps = json_object_get(o, "tokens_per_second");
	json_t *tok = json_object_get(o, "tokens_generated");
	json_t *be = json_object_get(o, "backend");
	const char *backend = json_is_string(be) ? json_string_value(be) : "";
	struct gl_sample *s;
	struct gl_str labels = {NULL, 0};
	size_t n = 0;
	int64_t ts;

	if (doc_time(json_object_get(o, "timestamp"), &ts) < 0) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "BitNet-rs receipt: no timestamp (RFC 3339 text or epoch seconds)";
		return;
	}
	if ((tps && !json_is_number(tps) && !json_is_null(tps)) ||
	    (json_is_number(tps) && json_number_value(tps) < 0)) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "BitNet-rs receipt: tokens_per_second is not a number >= 0";
		return;
	}
	if (!(s = gl_ctx_samples(ctx, 2))) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	if (*backend) {
		json_t *l = json_pack("{ss}", "backend_type", backend);

		labels = keep(d, l ? json_dumps(l, JSON_COMPACT) : NULL);
		json_decref(l);
	}
	if (json_is_number(tps))
		s[n++] = (struct gl_sample){ts, {"inference.tokens_per_second", 27},
					    json_number_value(tps), {NULL, 0}, labels, 0};
	if (json_is_number(tok))
		s[n++] = (struct gl_sample){ts, {"inference.tokens_generated", 26},
					    json_number_value(tok), {NULL, 0}, labels, 0};
	gl_event_init(ev);
	ev->ts_us = ts;
	ev->level = GL_LEVEL_INFO;
	ev->component = (struct gl_str){"bitnet", 6};
	ev->message = strf(d, "receipt: %.17g tokens at %.17g tokens/s (%s)",
			   json_is_number(tok) ? json_number_value(tok) : NAN,
			   json_is_number(tps) ? json_number_value(tps) : NAN,
			   *backend ? backend : "unknown backend");
	ev->metadata = keep(d, json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS));
	rec->samples = s;
	rec->n_samples = n;
	rec->kind = GL_REC_EVENT;
}

/* The monitor's severities; anything else by gl_level_parse(). */
static enum gl_level severity(const char *s, size_t len)
{
	enum gl_level l = gl_level_parse(s, len);

	return l == GL_LEVEL_NONE ? GL_LEVEL_WARN : l;
}

static void alert(struct jd *d, json_t *o, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	json_t *sev = json_object_get(o, "severity");
	json_t *comp = json_object_get(o, "component");
	json_t *meta;
	const char *k;
	json_t *v;
	int64_t ts;

	if (doc_time(json_object_get(o, "timestamp"), &ts) < 0) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "monitor alert: timestamp is not epoch seconds or RFC 3339 text";
		return;
	}
	gl_event_init(ev);
	ev->ts_us = ts;
	ev->level = severity(json_string_value(sev), json_string_length(sev));
	if (json_is_string(comp) && json_string_length(comp))
		ev->component = keep(d, strdup(json_string_value(comp)));
	ev->message = keep(d, strdup(json_string_value(json_object_get(o, "message"))));
	/* metadata: every member but those the event's columns hold */
	meta = json_object();
	json_object_foreach(o, k, v) {
		if (strcmp(k, "timestamp") && strcmp(k, "component") && strcmp(k, "message"))
			json_object_set(meta, k, v);
	}
	ev->metadata = keep(d, json_dumps(meta, JSON_COMPACT | JSON_SORT_KEYS));
	json_decref(meta);
	rec->kind = GL_REC_EVENT;
}

/*
 * The numbers of nested objects, flat under dotted names, into flat: the
 * monitor's history entry
 *     {"timestamp": ..., "component_id": "echo_core", "cpu_usage": 41.5,
 *      "metadata": {"gpu": {"utilization": 71.0, "temperature_c": 64}}}
 * gives gpu.utilization and gpu.temperature_c ("metadata." is no part of a
 * name); its performance_metrics.json gives system.cpu_usage,
 * process.performance.token_throughput, alerts.total. A pid is no metric.
 */
static void flatten(json_t *o, const char *prefix, json_t *flat, int depth)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		char name[256];

		if (!strcmp(k, "timestamp") || !strcmp(k, "pid"))
			continue;
		if (!*prefix && !strcmp(k, "metadata") && json_is_object(v)) {
			if (depth < 4)
				flatten(v, "", flat, depth + 1);
			continue;
		}
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v) && depth < 4)
			flatten(v, name, flat, depth + 1);
		else if (json_is_number(v) && isfinite(json_number_value(v)) && *prefix)
			json_object_set_new(flat, name, json_real(json_number_value(v)));
	}
}

static void entry(struct gl_parse_ctx *ctx, struct jd *d, json_t *o, struct gl_rec *rec)
{
	struct gl_event *ev = &rec->ev;
	const char *cid = json_string_value(json_object_get(o, "component_id"));
	struct gl_sample *s;
	struct gl_str labels;
	size_t n = 0;
	const char *k;
	json_t *v, *l;
	int64_t ts;

	if (doc_time(json_object_get(o, "timestamp"), &ts) < 0) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "monitor metrics: timestamp is not epoch seconds or RFC 3339 text";
		return;
	}
	/* nested numbers, under names that live as long as the entry (in o) */
	json_t *flat = json_object();

	if (flat) {
		flatten(o, "", flat, 0);
		json_object_set_new(o, "\x01flat", flat);
	}
	json_object_foreach(o, k, v) {
		if (json_is_number(v) && strcmp(k, "timestamp"))
			n++;
	}
	n += flat ? json_object_size(flat) : 0;
	if (!(s = gl_ctx_samples(ctx, n ? n : 1))) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	l = json_pack("{ss}", "component_id", cid);
	labels = keep(d, l ? json_dumps(l, JSON_COMPACT) : NULL);
	json_decref(l);
	n = 0;
	json_object_foreach(o, k, v) {
		if (!json_is_number(v) || !strcmp(k, "timestamp") || !isfinite(json_number_value(v)))
			continue;
		/* k lives as long as the entry (d->unit) */
		s[n++] = (struct gl_sample){ts, {k, strlen(k)}, json_number_value(v), {NULL, 0},
					    labels, 0};
	}
	if (flat)
		json_object_foreach(flat, k, v)
			s[n++] = (struct gl_sample){ts, {k, strlen(k)}, json_number_value(v),
						    {NULL, 0}, labels, 0};
	gl_event_init(ev);
	ev->ts_us = ts;
	ev->level = GL_LEVEL_INFO;
	ev->component = keep(d, strdup(cid));
	ev->message = strf(d, "metrics of %s", cid);
	/* metadata without flat, whose keys the samples' names point into: held, put back */
	if (flat) {
		json_incref(flat);
		json_object_del(o, "\x01flat");
	}
	ev->metadata = keep(d, json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS));
	if (flat)
		json_object_set_new(o, "\x01flat", flat);
	rec->samples = s;
	rec->n_samples = n;
	rec->kind = GL_REC_EVENT;
}

/* --- the scanner's units -------------------------------------------- */

struct out {
	int n;			/* records made on this line */
	int foreign;		/* the document closed is of no known shape */
	const char *reject;
};

/* A unit of a history array: an entry or an alert, parsed and made a record. */
static void history_unit(struct gl_parse_ctx *ctx, struct jd *d, struct gl_rec *rec,
			 struct out *o)
{
	json_error_t jerr;
	json_t *u = json_loadb(d->js.buf, d->js.len, 0, &jerr);
	int alerts = strcmp(d->js.key, "alerts") == 0;

	if (!u || !json_is_object(u)) {
		json_decref(u);
		o->reject = alerts ? "monitor history: an alert that is not a JSON object"
				   : "monitor history: an entry that is not a JSON object";
		return;
	}
	if (o->n++) {
		json_decref(u);
		o->reject = "monitor history: several entries close on one line (only indented "
			    "documents, one entry over several lines, are read)";
		return;
	}
	jd_clear_out(d);
	d->unit = u;
	if (alerts && is_alert(u))
		alert(d, u, rec);
	else if (!alerts && is_entry(u))
		entry(ctx, d, u, rec);
	else
		o->reject = alerts ? "monitor history alert: no severity, message or timestamp"
				   : "monitor history entry: no component_id or timestamp";
}

/* A unit of any other document: into d->doc. */
static void collect_unit(struct jd *d, struct out *o)
{
	json_error_t jerr;
	json_t *u;

	if (d->too_big)
		return;
	d->doc_bytes += d->js.len + strlen(d->js.key) + 4;
	if (d->doc_bytes > JD_DOC_MAX) {
		d->too_big = 1;
		return;
	}
	if (!(u = json_loadb(d->js.buf, d->js.len, JSON_DECODE_ANY, &jerr))) {
		o->reject = "JSON document: a member that is not JSON";
		return;
	}
	if (!d->doc)
		d->doc = json_object();
	if (d->js.in_array) {
		json_t *a = json_object_get(d->doc, d->js.key);

		if (!json_is_array(a)) {
			a = json_array();
			json_object_set_new(d->doc, d->js.key, a);
		}
		json_array_append_new(a, u);
	} else {
		json_object_set_new(d->doc, d->js.key, u);
	}
}

/* The document closed: its record, when it is not a history. */
static void doc_end(struct gl_parse_ctx *ctx, struct jd *d, struct gl_rec *rec, struct out *o)
{
	json_t *doc = d->doc;

	if (d->st.history)
		return;
	if (d->too_big) {
		o->reject = "JSON document longer than 4 MiB";
		return;
	}
	if (!doc)
		return;
	if (o->n++) {
		o->reject = "JSON document: several records close on one line";
		return;
	}
	jd_clear_out(d);
	d->unit = doc;
	d->doc = NULL;
	if (is_receipt(doc))
		receipt(ctx, d, doc, rec);
	else if (is_alert(doc))
		alert(d, doc, rec);
	else if (is_entry(doc))
		entry(ctx, d, doc, rec);
	else if (is_snapshot(doc)) {
		json_t *tm = json_object_get(doc, "team_member");

		json_object_set_new(doc, "component_id",
				    json_string(json_is_string(tm) && json_string_length(tm)
							? json_string_value(tm) : "performance_monitor"));
		entry(ctx, d, doc, rec);
	} else
		o->foreign = 1;	/* another JSON document: detection must not take it */
}

/* A top-level key that says which document this is; -1: not one of ours. */
static int first_key(struct jd *d)
{
	static const char *const kineto[] = {"schemaVersion", "deviceProperties", "traceEvents",
					     "distributedInfo", "traceName", "displayTimeUnit",
					     "baseTimeNanoseconds", NULL};

	for (size_t i = 0; kineto[i]; i++)
		if (strcmp(d->js.key, kineto[i]) == 0)
			return -1;
	if (strcmp(d->js.key, "metrics") == 0 || strcmp(d->js.key, "alerts") == 0)
		d->st.history = 1;
	return 0;
}

static void jsondoc_parse(struct gl_parse_ctx *ctx, const char *line, size_t len,
			  struct gl_rec *rec)
{
	struct jd *d = ctx->priv && ctx->priv_free == jd_free ? ctx->priv : NULL;
	struct out o = {0, 0, NULL};
	size_t off = 0;

	rec->kind = GL_REC_FOREIGN;
	rec->reason = NULL;
	ctx->hold = 0;
	ctx->more = 0;
	/* another format's heap state is never taken over */
	if (ctx->priv && !d)
		return;
	if (!d || !d->started) {
		struct jd_state *st = jstate(ctx);
		size_t i = 0;

		if (!(st && st->history)) {
			/*
			 * A document starts on a line that opens an object and does
			 * not close it; or a history written on one line:
			 *     {"metrics": [{"timestamp": ...}, ...], "alerts": [...]}
			 */
			while (i < len && (line[i] == ' ' || line[i] == '\t'))
				i++;
			if (i == len || line[i] != '{')
				return;
			if (memchr(line, '}', len)) {
				size_t k = i + 1;

				while (k < len && (line[k] == ' ' || line[k] == '\t'))
					k++;
				if (!(len - k >= 9 && !memcmp(line + k, "\"metrics\"", 9)) &&
				    !(len - k >= 8 && !memcmp(line + k, "\"alerts\"", 8)))
					return;
			}
		}
	}
	if (!d && !(d = jd_get(ctx))) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	if (d->again) {
		d->again = 0;
		if (len == d->again_len && gl_hash64(line, len, 0) == d->again_hash) {
			*rec = d->again_rec;
			ctx->hold = d->again_hold;
			ctx->more = d->again_more;
			return;
		}
	}
	if (d->resume) {
		d->resume = 0;
		if (len == d->resume_len && gl_hash64(line, len, 0) == d->resume_hash)
			off = d->resume_off;
	}
	d->started = 1;
	if (d->js.err) {
		snprintf(d->reason, sizeof(d->reason), "JSON document broken earlier: %s", d->js.err);
		rec->kind = GL_REC_REJECT;
		rec->reason = d->reason;
		return;
	}
	for (;;) {
		enum gl_jstream_ret r = gl_jstream_feed(&d->js, line, len, &off);

		/* the first member's key decides: a history, another document, or not ours */
		if (!d->decided && d->js.key_len && !d->js.key_capture) {
			if (first_key(d) < 0) {
				jd_drop(ctx);
				return;
			}
			d->decided = 1;
		}
		if (r == GL_JS_MORE)
			break;
		if (r == GL_JS_END) {
			doc_end(ctx, d, rec, &o);
			continue;
		}
		if (r == GL_JS_ERROR) {
			snprintf(d->reason, sizeof(d->reason), "JSON document: %s", d->js.err);
			o.reject = d->reason;
			break;
		}
		if (r == GL_JS_TOOBIG) {
			if (d->st.history)
				o.reject = "monitor history: an entry longer than 4 MiB";
			else
				d->too_big = 1;
			continue;
		}
		/*
		 * The history as the monitor writes it opens with its own time,
		 *     {"timestamp": 1763633100.0, "metrics": [...], "alerts": [...]}
		 * so its first key does not tell: the "metrics" or "alerts" array does.
		 */
		if (!d->st.history && d->js.in_array && !d->too_big &&
		    (!strcmp(d->js.key, "metrics") || !strcmp(d->js.key, "alerts")) &&
		    (!d->doc || json_object_size(d->doc) == json_is_number(
						json_object_get(d->doc, "timestamp")))) {
			d->st.history = 1;
			if (d->doc)
				json_decref(d->doc);
			d->doc = NULL;
		}
		if (d->st.history && d->js.in_array &&
		    (!strcmp(d->js.key, "metrics") || !strcmp(d->js.key, "alerts"))) {
			history_unit(ctx, d, rec, &o);
			/* another unit on this line: handed out by the next call (format.h: more) */
			if (off < len && memchr(line + off, '{', len - off)) {
				d->resume = 1;
				d->resume_hash = gl_hash64(line, len, 0);
				d->resume_len = len;
				d->resume_off = off;
				ctx->more = 1;
				break;
			}
		} else if (!d->st.history) {
			collect_unit(d, &o);
		}
	}
	if (o.reject) {
		rec->kind = GL_REC_REJECT;
		rec->reason = o.reject;
		rec->samples = NULL;
		rec->n_samples = 0;
	} else if (o.foreign) {
		rec->kind = GL_REC_FOREIGN;
	} else if (!o.n || rec->kind == GL_REC_FOREIGN) {
		rec->kind = GL_REC_NONE;
	}
	/* a history is claimed entry by entry; any other document only whole */
	ctx->hold = d->js.in_unit || d->js.key_capture || (!d->st.history && !d->js.ended);
	/* state[] changes only after a line's last record (format.h: more) */
	if (d->st.history && !ctx->hold && !ctx->more && !d->js.err) {
		gl_jstream_save(&d->js, &d->st.pos);
		memcpy(ctx->state, &d->st, sizeof(d->st));
		ctx->state_len = sizeof(d->st);
	}
	if (rec->kind == GL_REC_REJECT) {
		d->again = 1;
		d->again_hash = gl_hash64(line, len, 0);
		d->again_len = len;
		d->again_rec = *rec;
		d->again_hold = ctx->hold;
		d->again_more = ctx->more;
	}
}

/*
 * The end of the file inside a document: it is cut (the writer died, or the
 * disk filled), never completed by more lines of this file once its writer
 * stopped. Said once per run, with where the document stands.
 */
static const char *jsondoc_end(struct gl_parse_ctx *ctx)
{
	struct jd *d = ctx->priv && ctx->priv_free == jd_free ? ctx->priv : NULL;

	int history;

	if (!d || !d->started || d->js.err)
		return NULL;
	history = d->st.history;
	jd_drop(ctx);
	ctx->state_len = 0;
	return history ? "monitor history cut at the end of the file: the entry or the document "
			 "is not closed"
		       : "JSON document cut at the end of the file: no closing brace";
}

const struct gl_format gl_fmt_jsondoc = {
	.name = "jsondoc",
	.summary = "one indented JSON document: BitNet-rs receipts, performance monitor alerts, "
		   "metrics snapshots and histories",
	.flags = 0,
	.parse = jsondoc_parse,
	.end = jsondoc_end,
};
