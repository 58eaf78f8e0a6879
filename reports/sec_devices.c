/*
 * sec_devices.c - the devices section: the GPU inventory of the window, from
 * the nvidia-smi -q reports the ingest read (fmt_nvsmiq.c: events whose
 * metadata holds "inventory"). One row per GPU and host, its latest report:
 * index, name, uuid, PCI bus, driver and CUDA version, VBIOS, ECC mode,
 * memory. JSON: the key devices[].
 *
 * Joined to the telemetry: each metric series of the window (the metrics
 * section's, finished before this one) belongs to the GPU its labels name
 * by uuid (nvidia-smi CSV's uuid, DCGM's UUID), else by PCI bus (pci.bus_id,
 * compared as domain:bus:device whatever the case and the domain's width:
 * "00000000:3B:00.0" is "0000:3b:00.0"), else, for a series whose labels
 * name neither (nvidia-smi dmon: the index only), by its index on the same
 * host. Each device counts its series and names their metrics, and says how
 * they were joined; the join itself (gpu_inventory.c) is shared with the metrics section,
 * which reads the inventory through this section's inventory hook.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "sec_devices.h"
#include "sec_metrics.h"
#include "section.h"
#include "table.h"

struct devices {
	struct gl_devices_result res;
	struct gl_section_ctx *cx;
};

const struct gl_devices_result *gl_devices_result(const void *st)
{
	return st ? &((const struct devices *)st)->res : NULL;
}

/* section.h: inventory. */
static const struct gl_devices_result *inventory(const void *st)
{
	return gl_devices_result(st);
}

static char *sdup(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static void dev_free(struct gl_device *d)
{
	free(d->name);
	free(d->uuid);
	free(d->pci);
	free(d->driver);
	free(d->cuda);
	free(d->vbios);
	free(d->ecc_mode);
	free(d->host);
	free(d->metrics);
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* "uuid,index": the ways a device's series were joined. */
static void joined_names(unsigned mask, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int j = GL_DEVICE_JOIN_UUID; j <= GL_DEVICE_JOIN_INDEX; j++)
		if (mask & (1u << j))
			k += (size_t)snprintf(buf + k, n > k ? n - k : 0, "%s%s", k ? "," : "",
					      gl_device_join_name((enum gl_device_join)j));
}

/* The metric series of the window into the devices they belong to. */
static int join_telemetry(struct gl_section_ctx *cx, struct gl_devices_result *res)
{
	const struct gl_metrics_result *mr = gl_metrics_result(cx->rep);

	for (size_t i = 0; i < mr->n_metrics; i++) {
		const struct gl_report_metric *m = &mr->metrics[i];
		enum gl_device_join by;
		struct gl_device *d = (struct gl_device *)gl_inventory_match(res, m->host, m->device, m->labels, &by);
		size_t have, add;
		char *p;

		if (!d)
			continue;
		d->n_series++;
		d->joined_by |= 1u << by;
		have = d->metrics ? strlen(d->metrics) : 0;
		if (d->metrics) {
			/* distinct names: ",name," inside ",list," */
			const char *q = d->metrics;
			size_t ml = strlen(m->metric);
			int dup = 0;

			while (!dup && (q = strstr(q, m->metric)) != NULL) {
				dup = (q == d->metrics || q[-1] == ',') && (q[ml] == ',' || !q[ml]);
				q += ml;
			}
			if (dup)
				continue;
		}
		add = strlen(m->metric) + 2;
		if (!(p = realloc(d->metrics, have + add)))
			return gl_section_oom(cx->err);
		snprintf(p + have, add, "%s%s", have ? "," : "", m->metric);
		d->metrics = p;
	}
	return GL_OK;
}


static int on_inventory(void *arg, const struct gl_query_fact_event *e)
{
	struct devices *s = arg;
	struct gl_devices_result *res = &s->res;
	json_t *o = json_loads(e->metadata, 0, NULL);
	struct gl_device d = {0}, *slot = NULL;
	json_t *idx;

	if (!o)
		return GL_OK;
	idx = json_object_get(o, "index");
	d.index = json_is_integer(idx) ? (long)json_integer_value(idx) : -1;
	d.name = sdup(o, "name");
	d.uuid = sdup(o, "uuid");
	d.pci = sdup(o, "pci");
	d.driver = sdup(o, "driver");
	d.cuda = sdup(o, "cuda");
	d.vbios = sdup(o, "vbios");
	d.ecc_mode = sdup(o, "ecc_mode");
	d.memory_total_mib = json_is_number(json_object_get(o, "memory_total_mib"))
				     ? json_number_value(json_object_get(o, "memory_total_mib")) : NAN;
	d.ts_us = e->ts_us;
	if (e->host_id > 0 && *gl_section_name(s->cx, e->host_id))
		d.host = strdup(gl_section_name(s->cx, e->host_id));
	json_decref(o);
	for (size_t i = 0; i < res->n; i++)
		if (same(res->dev[i].host, d.host) == (d.host != NULL) &&
		    (same(res->dev[i].uuid, d.uuid) || (!d.uuid && same(res->dev[i].pci, d.pci))))
			slot = &res->dev[i];
	if (!slot) {
		struct gl_device *p = realloc(res->dev, (res->n + 1) * sizeof(*p));

		if (!p) {
			dev_free(&d);
			return GL_ENOMEM;
		}
		res->dev = p;
		slot = &res->dev[res->n++];
	} else {
		dev_free(slot);
	}
	*slot = d;
	return GL_OK;
}

static int cmp_dev(const void *pa, const void *pb)
{
	const struct gl_device *a = pa, *b = pb;
	int c = strcmp(a->host ? a->host : "", b->host ? b->host : "");

	if (c)
		return c;
	return a->index < b->index ? -1 : a->index > b->index;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct devices *s = st;
	int rc;

	s->cx = cx;
	rc = gl_query_fact_events(cx->q, cx->rep->window.since_us, cx->rep->window.until_us,
				  "inventory", on_inventory, s, cx->err);
	s->cx = NULL;
	if (rc == GL_ENOMEM)
		return gl_section_oom(cx->err);
	if (rc == GL_OK && s->res.n) {
		qsort(s->res.dev, s->res.n, sizeof(*s->res.dev), cmp_dev);
		rc = join_telemetry(cx, &s->res);
	}
	return rc;
}

static void release(void *st)
{
	struct devices *s = st;

	for (size_t i = 0; i < s->res.n; i++)
		dev_free(&s->res.dev[i]);
	free(s->res.dev);
}

/* A GPU as shown: the device, and the ways its series were joined as text. */
struct shown {
	struct gl_device d;
	const char *joined_by;		/* by, or NULL when none */
	char by[32];			/* "uuid,index" */
};

#define DV(f) offsetof(struct shown, d.f)

/* HTML: the series' count and, when joined, how: "3 (uuid,index)". */
static void series_cell(FILE *f, const void *row)
{
	const struct shown *s = row;

	fprintf(f, "%llu%s%s%s", (unsigned long long)s->d.n_series, s->joined_by ? " (" : "",
		s->joined_by ? s->joined_by : "", s->joined_by ? ")" : "");
}

/* A GPU of the inventory: JSON (every column), CSV (by csv position: host first, no time
 * nor series) and HTML (the text report writes a sentence per GPU). */
static const struct gl_col cols[] = {
	{"index", GL_COL_INDEX, DV(index), 0, 0, NULL, 0, 2, "index", 0, NULL, 2},
	{"name", GL_COL_TEXT, DV(name), 0, 0, NULL, 0, 3, "name", 0, NULL, 3},
	{"uuid", GL_COL_TEXT, DV(uuid), 0, 0, NULL, 0, 4, "uuid", 0, NULL, 4},
	{"pci", GL_COL_TEXT, DV(pci), 0, 0, NULL, 0, 5, "PCI bus", 0, NULL, 5},
	{"driver", GL_COL_TEXT, DV(driver), 0, 0, NULL, 0, 6, "driver", 0, NULL, 6},
	{"cuda", GL_COL_TEXT, DV(cuda), 0, 0, NULL, 0, 7, "CUDA", 0, NULL, 7},
	{"vbios", GL_COL_TEXT, DV(vbios), 0, 0, NULL, 0, 8, "VBIOS", 0, NULL, 8},
	{"ecc_mode", GL_COL_TEXT, DV(ecc_mode), 0, 0, NULL, 0, 9, "ECC", 0, NULL, 9},
	{"memory_total_mib", GL_COL_NUM, DV(memory_total_mib), 0, 0, NULL, 0, 10, "memory MiB", 0,
	 NULL, 10},
	{"host", GL_COL_TEXT, DV(host), 0, 0, NULL, 0, 1, "host", 0, NULL, 1},
	{"seen", GL_COL_TS, DV(ts_us), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"series", GL_COL_U64, DV(n_series), 0, 0, NULL, 0, 11, "telemetry series (joined by)", 0,
	 NULL, 0, 0, NULL, NULL, NULL, series_cell},
	{"series_joined_by", GL_COL_TEXT, offsetof(struct shown, joined_by), 0, 0, NULL, 0, 0, NULL,
	 0, NULL, 0},
	{"series_metrics", GL_COL_TEXT, DV(metrics), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]), sizeof(struct shown)};

/* The rows as shown (free them); NULL when out of memory. */
static struct shown *shown_of(const struct gl_devices_result *res)
{
	size_t n = res ? res->n : 0;
	struct shown *s = calloc(n ? n : 1, sizeof(*s));

	for (size_t i = 0; s && i < n; i++) {
		s[i].d = res->dev[i];
		joined_names(res->dev[i].joined_by, s[i].by, sizeof(s[i].by));
		s[i].joined_by = *s[i].by ? s[i].by : NULL;
	}
	return s;
}

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_devices_result *res = gl_devices_result(st);
	struct shown *rows = shown_of(res);
	json_t *a = rows ? gl_table_json(&table, rows, res ? res->n : 0) : NULL;

	(void)rep;
	free(rows);
	return a;
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_devices_result *res = gl_devices_result(st);
	struct shown *rows = shown_of(res);

	(void)rep;
	gl_table_csv(&table, rows, rows && res ? res->n : 0, fp);
	free(rows);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_devices_result *res = gl_devices_result(st);
	char a[40];

	(void)rep;
	if (!res || !res->n) {
		fprintf(fp, "no nvidia-smi -q inventory\n");
		return;
	}
	for (size_t i = 0; i < res->n; i++) {
		const struct gl_device *d = &res->dev[i];

		char ix[24];

		/* no index: "-", as in the other text tables */
		if (d->index >= 0)
			snprintf(ix, sizeof(ix), "%ld", d->index);
		else
			snprintf(ix, sizeof(ix), "-");
		fprintf(fp, "GPU %s%s%s: %s, %s, bus %s, driver %s, CUDA %s, VBIOS %s, %s MiB\n", ix,
			d->host ? " on " : "", d->host ? d->host : "", d->name ? d->name : "?",
			d->uuid ? d->uuid : "-", d->pci ? d->pci : "-", d->driver ? d->driver : "-",
			d->cuda ? d->cuda : "-", d->vbios ? d->vbios : "-",
			gl_text_num(d->memory_total_mib, a, sizeof(a)));
		if (d->n_series) {
			char by[32];

			joined_names(d->joined_by, by, sizeof(by));
			fprintf(fp, "  telemetry: %llu series by %s: %s\n", (unsigned long long)d->n_series,
				by, d->metrics ? d->metrics : "");
		}
	}
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_devices_result *res = gl_devices_result(st);
	struct shown *rows;

	(void)rep;
	if (!res || !res->n) {
		fputs("<p>No nvidia-smi -q inventory in this window.</p>\n", f);
		return;
	}
	if ((rows = shown_of(res)) != NULL)
		gl_table_html(&table, rows, res->n, f);
	free(rows);
}

const struct gl_section gl_sec_devices = {
	.name = "devices",
	.title = "Devices (nvidia-smi -q inventory)",
	.state_size = sizeof(struct devices),
	.finish = finish,
	.release = release,
	.inventory = inventory,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
