/*
 * sec_gpu_health.c - the gpu_health section: the GPUs' own error reports
 * in the window, from the facts the parsers stored:
 * - NVRM Xid records of kernel logs (fmt_text.c: metadata "xid", "pci",
 *   "process", "xid_meaning", "xid_critical"), one row per PCI bus and code
 *   with the count, the first and last time, the processes named and the
 *   meaning from NVIDIA's Xid catalogue ("GPU has fallen off the bus");
 * - nvidia-smi -q inventories (fmt_nvsmiq.c: metadata "inventory"): per GPU
 *   (by PCI bus) its latest ECC counts, retired pages and remapped rows, and
 *   the clocks event (throttle) reasons that were active.
 * No chart: a table is what an operator reads here.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_util.h"
#include "sec_gpu_health.h"
#include "section.h"
#include "table.h"

struct health {
	struct gl_gpu_health_result res;
};

const struct gl_gpu_health_result *gl_gpu_health_result(const void *st)
{
	return st ? &((const struct health *)st)->res : NULL;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int on_xid(void *arg, const struct gl_query_fact_event *e)
{
	struct gl_gpu_health_result *res = arg;
	json_t *o = json_loads(e->metadata, 0, NULL);
	const char *pci, *proc;
	int code;
	struct gl_health_xid *x = NULL;

	if (!o)
		return GL_OK;
	code = (int)num(o, "xid");
	pci = str(o, "pci");
	proc = str(o, "process");
	if (!pci)
		pci = "";
	for (size_t i = 0; i < res->n_xid; i++)
		if (res->xid[i].code == code && !strcmp(res->xid[i].pci, pci))
			x = &res->xid[i];
	if (!x) {
		struct gl_health_xid *p = realloc(res->xid, (res->n_xid + 1) * sizeof(*p));

		if (!p)
			goto oom;
		res->xid = p;
		x = &res->xid[res->n_xid++];
		memset(x, 0, sizeof(*x));
		x->code = code;
		x->first_us = e->ts_us;
		if (!(x->pci = strdup(pci)))
			goto oom;
		x->meaning = dup_or_null(str(o, "xid_meaning"));
		x->critical = json_is_true(json_object_get(o, "xid_critical"));
	}
	x->count++;
	x->last_us = e->ts_us;
	res->xid_records++;
	res->xid_critical += x->critical;
	if (proc && (!x->processes || (!strstr(x->processes, proc) && strlen(x->processes) < 200))) {
		size_t n = x->processes ? strlen(x->processes) : 0;
		char *p = realloc(x->processes, n + strlen(proc) + 2);

		if (!p)
			goto oom;
		snprintf(p + n, strlen(proc) + 2, "%s%s", n ? "," : "", proc);
		x->processes = p;
	}
	json_decref(o);
	return GL_OK;
oom:
	json_decref(o);
	return GL_ENOMEM;
}

static int add_reason(struct gl_gpu_health_result *res, const char *r, size_t n)
{
	char **p;

	for (size_t i = 0; i < res->n_throttle; i++)
		if (strlen(res->throttle[i]) == n && !memcmp(res->throttle[i], r, n))
			return GL_OK;
	p = realloc(res->throttle, (res->n_throttle + 1) * sizeof(*p));
	if (!p)
		return GL_ENOMEM;
	res->throttle = p;
	if (!(p[res->n_throttle] = strndup(r, n)))
		return GL_ENOMEM;
	res->n_throttle++;
	return GL_OK;
}

static int on_inventory(void *arg, const struct gl_query_fact_event *e)
{
	struct gl_gpu_health_result *res = arg;
	json_t *o = json_loads(e->metadata, 0, NULL);
	const char *pci, *reasons;
	struct gl_health_ecc *g = NULL;

	if (!o)
		return GL_OK;
	pci = str(o, "pci");
	if (!pci)
		pci = "";
	for (size_t i = 0; i < res->n_ecc; i++)
		if (!strcmp(res->ecc[i].pci, pci))
			g = &res->ecc[i];
	if (!g) {
		struct gl_health_ecc *p = realloc(res->ecc, (res->n_ecc + 1) * sizeof(*p));

		if (!p)
			goto oom;
		res->ecc = p;
		g = &res->ecc[res->n_ecc++];
		memset(g, 0, sizeof(*g));
		if (!(g->pci = strdup(pci)))
			goto oom;
	}
	/* the latest inventory wins (events come in time order) */
	free(g->uuid);
	free(g->clocks_event_reasons);
	g->uuid = dup_or_null(str(o, "uuid"));
	g->volatile_uncorrected = num(o, "ecc_volatile_uncorrected");
	g->volatile_corrected = num(o, "ecc_volatile_corrected");
	g->aggregate_uncorrected = num(o, "ecc_aggregate_uncorrected");
	g->aggregate_corrected = num(o, "ecc_aggregate_corrected");
	g->retired_sbe = num(o, "retired_pages_sbe");
	g->retired_dbe = num(o, "retired_pages_dbe");
	g->retired_pending = num(o, "retired_pages_pending");
	g->remapped_correctable = num(o, "remapped_rows_correctable");
	g->remapped_uncorrectable = num(o, "remapped_rows_uncorrectable");
	g->remapped_pending = num(o, "remapped_rows_pending");
	g->remapped_failure = num(o, "remapped_rows_failure");
	reasons = str(o, "clocks_event_reasons");
	g->clocks_event_reasons = strdup(reasons ? reasons : "");
	if (!g->clocks_event_reasons)
		goto oom;
	for (const char *p = g->clocks_event_reasons; *p;) {
		size_t n = strcspn(p, ",");

		if (n && add_reason(res, p, n) != GL_OK)
			goto oom;
		p += n + (p[n] == ',');
	}
	json_decref(o);
	return GL_OK;
oom:
	json_decref(o);
	return GL_ENOMEM;
}

static int cmp_xid(const void *pa, const void *pb)
{
	const struct gl_health_xid *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if ((c = strcmp(a->pci, b->pci)))
		return c;
	return a->code - b->code;
}

static int cmp_ecc(const void *pa, const void *pb)
{
	return strcmp(((const struct gl_health_ecc *)pa)->pci, ((const struct gl_health_ecc *)pb)->pci);
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct gl_gpu_health_result *res = &((struct health *)st)->res;
	int64_t t0 = cx->rep->window.since_us, t1 = cx->rep->window.until_us;
	int rc = gl_query_fact_events(cx->q, t0, t1, "xid", on_xid, res, cx->err);

	if (rc == GL_OK)
		rc = gl_query_fact_events(cx->q, t0, t1, "inventory", on_inventory, res,
					  cx->err);
	if (rc == GL_ENOMEM)
		return gl_section_oom(cx->err);
	if (rc != GL_OK)
		return rc;
	if (res->n_xid)
		qsort(res->xid, res->n_xid, sizeof(*res->xid), cmp_xid);
	if (res->n_ecc)
		qsort(res->ecc, res->n_ecc, sizeof(*res->ecc), cmp_ecc);
	return GL_OK;
}

static void release(void *st)
{
	struct gl_gpu_health_result *res = &((struct health *)st)->res;

	for (size_t i = 0; i < res->n_xid; i++) {
		free(res->xid[i].pci);
		free(res->xid[i].meaning);
		free(res->xid[i].processes);
	}
	free(res->xid);
	for (size_t i = 0; i < res->n_ecc; i++) {
		free(res->ecc[i].pci);
		free(res->ecc[i].uuid);
		free(res->ecc[i].clocks_event_reasons);
	}
	free(res->ecc);
	for (size_t i = 0; i < res->n_throttle; i++)
		free(res->throttle[i]);
	free(res->throttle);
}

#define EC(f) offsetof(struct gl_health_ecc, f)

/* Two figures of a GPU in one HTML cell: "0 / 2". */
static void html_pair(FILE *f, double a, double b)
{
	gl_html_num(f, a, GL_HTML_G4);
	fputs(" / ", f);
	gl_html_num(f, b, GL_HTML_G4);
}

static void ecc_uncorrected(FILE *f, const void *row)
{
	const struct gl_health_ecc *g = row;

	html_pair(f, g->volatile_uncorrected, g->aggregate_uncorrected);
}

static void ecc_corrected(FILE *f, const void *row)
{
	const struct gl_health_ecc *g = row;

	html_pair(f, g->volatile_corrected, g->aggregate_corrected);
}

static void retired_pages(FILE *f, const void *row)
{
	const struct gl_health_ecc *g = row;

	html_pair(f, g->retired_sbe, g->retired_dbe);
}

static void remapped_rows(FILE *f, const void *row)
{
	const struct gl_health_ecc *g = row;

	html_pair(f, g->remapped_correctable, g->remapped_uncorrectable);
}

/* The active clocks event reasons; "none" when there are none. */
static void clock_reasons(FILE *f, const void *row)
{
	const struct gl_health_ecc *g = row;
	const char *reasons = g->clocks_event_reasons;

	gl_html_text(f, reasons && *reasons ? reasons : "none");
}

/* The text's PCI bus id as it is (not cut; "(null)" as printf writes none) */
static const char *ecc_pci(const void *row, char *buf, size_t n)
{
	(void)buf, (void)n;
	return ((const struct gl_health_ecc *)row)->pci;
}

/* The text's retired pages: SBE and DBE together ("-" when neither is known). */
static const char *retired_sum(const void *row, char *buf, size_t n)
{
	const struct gl_health_ecc *g = row;

	return gl_text_num(isnan(g->retired_sbe) && isnan(g->retired_dbe) ? NAN
			   : (isnan(g->retired_sbe) ? 0 : g->retired_sbe) +
			     (isnan(g->retired_dbe) ? 0 : g->retired_dbe), buf, n);
}

static const char *text_reasons(const void *row, char *buf, size_t n)
{
	const char *reasons = ((const struct gl_health_ecc *)row)->clocks_event_reasons;

	(void)buf, (void)n;
	return reasons && *reasons ? reasons : "none";
}

/* A GPU of the nvidia-smi -q inventory: JSON's ecc items, the HTML table (a volatile /
 * aggregate pair per cell) and the text's line per GPU ("GPU pci: ECC uncorrected 0
 * (aggregate), retired pages 0, clocks event reasons: none"). */
static const struct gl_col ecc_cols[] = {
	{"pci", GL_COL_TEXT, EC(pci), GL_COL_NAME | GL_COL_UNCUT, 1, NULL, 0, 1, "GPU (PCI bus)", 0,
	 NULL, 0, .text_cell = ecc_pci, .text_before = "GPU "},
	{"uuid", GL_COL_TEXT, EC(uuid), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"ecc_volatile_uncorrected", GL_COL_NUM, EC(volatile_uncorrected), 0, 0, NULL, 0, 2,
	 "ECC uncorrected (volatile / aggregate)", 0, NULL, 0, .html_cell = ecc_uncorrected},
	{"ecc_volatile_corrected", GL_COL_NUM, EC(volatile_corrected), 0, 0, NULL, 0, 3,
	 "ECC corrected (volatile / aggregate)", 0, NULL, 0, .html_cell = ecc_corrected},
	{"ecc_aggregate_uncorrected", GL_COL_NUM, EC(aggregate_uncorrected), 0, 2, NULL, 0, 0, NULL,
	 0, NULL, 0, .text_before = ": ECC uncorrected "},
	{"ecc_aggregate_corrected", GL_COL_NUM, EC(aggregate_corrected), 0, 0, NULL, 0, 0, NULL, 0,
	 NULL, 0},
	{"retired_pages_sbe", GL_COL_NUM, EC(retired_sbe), 0, 3, NULL, 0, 4,
	 "retired pages SBE / DBE", 0, NULL, 0, .html_cell = retired_pages,
	 .text_cell = retired_sum, .text_before = " (aggregate), retired pages "},
	{"retired_pages_dbe", GL_COL_NUM, EC(retired_dbe), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"retired_pages_pending", GL_COL_NUM, EC(retired_pending), 0, 0, NULL, 0, 0, NULL, 0, NULL,
	 0},
	{"remapped_rows_correctable", GL_COL_NUM, EC(remapped_correctable), 0, 0, NULL, 0, 5,
	 "remapped rows corr. / uncorr.", 0, NULL, 0, .html_cell = remapped_rows},
	{"remapped_rows_uncorrectable", GL_COL_NUM, EC(remapped_uncorrectable), 0, 0, NULL, 0, 0,
	 NULL, 0, NULL, 0},
	{"remapped_rows_pending", GL_COL_NUM, EC(remapped_pending), 0, 0, NULL, 0, 0, NULL, 0, NULL,
	 0},
	{"remapped_rows_failure", GL_COL_NUM, EC(remapped_failure), 0, 0, NULL, 0, 0, NULL, 0, NULL,
	 0},
	{"clocks_event_reasons", GL_COL_TEXT, EC(clocks_event_reasons), 0, 4, NULL, 0, 6,
	 "active clocks event reasons", 0, NULL, 0, .html_cell = clock_reasons,
	 .text_cell = text_reasons, .text_before = ", clocks event reasons: "},
};

static const struct gl_table ecc_table = {ecc_cols, sizeof(ecc_cols) / sizeof(ecc_cols[0]),
					  sizeof(struct gl_health_ecc), .text_no_head = true};

#define XI(f) offsetof(struct gl_health_xid, f)

/* What the catalogue says of an Xid, a bold mark after a critical one. */
static void xid_meaning(FILE *f, const void *row)
{
	const struct gl_health_xid *x = row;

	gl_html_text(f, x->meaning ? x->meaning : "(not in the catalogue)");
	if (x->critical)
		fputs(" <b>critical</b>", f);
}

/* The HTML row of a critical Xid is of class "crit". */
static const char *xid_row_class(const void *row)
{
	return ((const struct gl_health_xid *)row)->critical ? "crit" : NULL;
}

static const char *xid_pci(const void *row, char *buf, size_t n)
{
	(void)buf, (void)n;
	return ((const struct gl_health_xid *)row)->pci;
}

/* The text's meaning of an Xid, " [critical]" after a critical one. */
static const char *xid_text_meaning(const void *row, char *buf, size_t n)
{
	const struct gl_health_xid *x = row;

	snprintf(buf, n, "%s%s", x->meaning ? x->meaning : "(not in the Xid catalogue)",
		 x->critical ? " [critical]" : "");
	return buf;
}

static const char *xid_last(const void *row, char *buf, size_t n)
{
	(void)n;
	return gl_text_ts(((const struct gl_health_xid *)row)->last_us, buf);
}

/* An Xid code of a GPU: JSON's xid items, the CSV, the HTML table and the text's (the top
 * few, with the last time). */
static const struct gl_col xid_cols[] = {
	{"pci", GL_COL_TEXT, XI(pci), GL_COL_NAME | GL_COL_UNCUT | GL_COL_LEFT, 1, "PCI bus", 14, 1,
	 "PCI bus", 0, NULL, 0, .text_cell = xid_pci},
	{"code", GL_COL_INT, XI(code), 0, 2, "Xid", 5, 2, "Xid", 0, NULL, 0},
	{"count", GL_COL_U64, XI(count), 0, 3, "count", 7, 3, "count", 0, NULL, 0},
	{"meaning", GL_COL_TEXT, XI(meaning), 0, 5, "meaning", 0, 4,
	 "meaning (NVIDIA Xid catalogue)", 0, NULL, 0, .html_cell = xid_meaning,
	 .text_cell = xid_text_meaning},
	{"critical", GL_COL_FLAG, XI(critical), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"first", GL_COL_TS, XI(first_us), 0, 0, NULL, 0, 5, "first", 0, NULL, 0},
	{"last", GL_COL_TS, XI(last_us), GL_COL_LEFT, 4, "last", 26, 6, "last", 0, NULL, 0,
	 .text_cell = xid_last, .text_before = "  "},
	{"processes", GL_COL_TEXT, XI(processes), 0, 0, NULL, 0, 7, "processes", 0, NULL, 0},
};

static const struct gl_table xid_table = {xid_cols, sizeof(xid_cols) / sizeof(xid_cols[0]),
					  sizeof(struct gl_health_xid), xid_row_class, 1};

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_gpu_health_result *res = gl_gpu_health_result(st);
	struct gl_jb jb = {0};
	json_t *o = json_object(), *ta = json_array();
	json_t *xa = gl_table_json(&xid_table, res ? res->xid : NULL, res ? res->n_xid : 0);
	json_t *ea = gl_table_json(&ecc_table, res ? res->ecc : NULL, res ? res->n_ecc : 0);

	(void)rep;
	for (size_t i = 0; ta && res && i < res->n_throttle; i++)
		gl_jb_append(&jb, ta, gl_json_str(res->throttle[i]));
	gl_jb_set(&jb, o, "xid", xa);
	gl_jb_set(&jb, o, "xid_records", gl_json_u64(res ? res->xid_records : 0));
	gl_jb_set(&jb, o, "xid_critical", gl_json_u64(res ? res->xid_critical : 0));
	gl_jb_set(&jb, o, "ecc", ea);
	gl_jb_set(&jb, o, "throttle_reasons", ta);
	return gl_jb_done(&jb, o);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_gpu_health_result *res = gl_gpu_health_result(st);

	(void)rep;
	gl_table_csv(&xid_table, res ? res->xid : NULL, res ? res->n_xid : 0, fp);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_gpu_health_result *res = gl_gpu_health_result(st);

	if (!res || (!res->n_xid && !res->n_ecc)) {
		fprintf(fp, "no Xid errors and no nvidia-smi -q inventory\n");
		return;
	}
	if (res->n_xid)
		gl_table_text(&xid_table, res->xid, res->n_xid < rep->top ? res->n_xid : rep->top, fp);
	else
		fprintf(fp, "no Xid errors\n");
	gl_table_text(&ecc_table, res->ecc, res->n_ecc, fp);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_gpu_health_result *res = gl_gpu_health_result(st);

	(void)rep;
	if (!res || !res->n_xid) {
		fputs("<p>No Xid errors of the NVIDIA driver in this window.</p>\n", f);
	} else {
		gl_table_html(&xid_table, res->xid, res->n_xid, f);
	}
	if (!res || !res->n_ecc) {
		fputs("<p>No nvidia-smi -q inventory in this window (ECC, retired pages, throttle reasons).</p>\n", f);
		return;
	}
	gl_table_html(&ecc_table, res->ecc, res->n_ecc, f);
}

const struct gl_section gl_sec_gpu_health = {
	.name = "gpu_health",
	.title = "GPU health (driver Xid errors, ECC, retired pages, throttle reasons)",
	.state_size = sizeof(struct health),
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
};
