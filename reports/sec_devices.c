/*
 * sec_devices.c - the devices section: the GPU inventory of the window, from
 * the nvidia-smi -q reports the ingest read (fmt_nvsmiq.c: events whose
 * metadata holds "inventory"). One row per GPU and host, its latest report:
 * index, name, uuid, PCI bus, driver and CUDA version, VBIOS, ECC mode,
 * memory. JSON: the key devices[].
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "sec_devices.h"
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
}

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
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
	static const char *const formats[] = {"nvsmiq", NULL};
	struct devices *s = st;
	int rc;

	s->cx = cx;
	rc = gl_query_fact_events(cx->q, cx->rep->window.since_us, cx->rep->window.until_us,
				  "inventory", formats, on_inventory, s, cx->err);
	s->cx = NULL;
	if (rc == GL_ENOMEM)
		return gl_section_oom(cx->err);
	if (rc == GL_OK && s->res.n)
		qsort(s->res.dev, s->res.n, sizeof(*s->res.dev), cmp_dev);
	return rc;
}

static void release(void *st)
{
	struct devices *s = st;

	for (size_t i = 0; i < s->res.n; i++)
		dev_free(&s->res.dev[i]);
	free(s->res.dev);
}

#define DV(f) offsetof(struct gl_device, f)

/* A GPU of the inventory: JSON (every column), CSV (by csv position: host first, no time)
 * and HTML (the text report writes a sentence per GPU). */
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
};

static const struct gl_table table = {cols, sizeof(cols) / sizeof(cols[0]),
				      sizeof(struct gl_device)};

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_devices_result *res = gl_devices_result(st);

	(void)rep;
	return gl_table_json(&table, res ? res->dev : NULL, res ? res->n : 0);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_devices_result *res = gl_devices_result(st);

	(void)rep;
	gl_table_csv(&table, res ? res->dev : NULL, res ? res->n : 0, fp);
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

		fprintf(fp, "GPU %ld%s%s: %s, %s, bus %s, driver %s, CUDA %s, VBIOS %s, %s MiB\n", d->index,
			d->host ? " on " : "", d->host ? d->host : "", d->name ? d->name : "?",
			d->uuid ? d->uuid : "-", d->pci ? d->pci : "-", d->driver ? d->driver : "-",
			d->cuda ? d->cuda : "-", d->vbios ? d->vbios : "-",
			gl_text_num(d->memory_total_mib, a, sizeof(a)));
	}
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_devices_result *res = gl_devices_result(st);

	(void)rep;
	if (!res || !res->n) {
		fputs("<p>No nvidia-smi -q inventory in this window.</p>\n", f);
		return;
	}
	gl_table_html(&table, res->dev, res->n, f);
}

const struct gl_section gl_sec_devices = {
	.name = "devices",
	.title = "Devices (nvidia-smi -q inventory)",
	.state_size = sizeof(struct devices),
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
