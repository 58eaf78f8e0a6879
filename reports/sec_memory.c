/*
 * sec_memory.c - the memory section: memory in use from the log events
 * (events.mem_mb: peak, last, verdict of its trend) and the RAPIDS RMM
 * allocations replayed over the window (table mem_events, its own row
 * source: collect_mem): outstanding bytes, peak, what is still allocated at
 * the end, size quantiles and histogram. Memory: a table of outstanding
 * allocations plus one double per allocation size. Chart: memory in use
 * with its fit, RMM outstanding bytes.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "emit_util.h"
#include "sec_memory.h"
#include "section.h"
#include "sections.h"
#include "sec_trends.h"
#include "stats/stats.h"
#include "table.h"
#include "util/hash.h"
#include "util/timeutil.h"

struct rmm_slot {
	uint64_t ptr;
	uint64_t size_bytes;
	int64_t ts_us;
	bool used;
};

struct memory {
	struct gl_report_memory res;	/* first: see sec_memory.h */
	struct rmm_slot *rmm;
	size_t rmm_cap, rmm_used;
	double *sizes;
	size_t n_sizes, cap_sizes;
	uint64_t outstanding;
	bool charts;			/* chart holds columns */
	struct gl_memory_chart chart;
};

int gl_memory_chart_init(struct gl_memory_chart *c, int64_t t0_us, int64_t t1_us,
			 struct gl_err *err)
{
	int rc = gl_chart_cols_init(&c->mem, t0_us, t1_us, GL_CHART_COLUMNS, err);

	if (rc == GL_OK)
		rc = gl_chart_cols_init(&c->rmm, t0_us, t1_us, GL_CHART_COLUMNS, err);
	/* placed at the first RMM row (gl_memory_chart_rmm) */
	if (rc == GL_OK)
		rc = gl_chart_cols_init(&c->rmm_zoom, t0_us, t0_us + (t1_us - t0_us) / 5,
					GL_CHART_COLUMNS, err);
	return rc;
}

void gl_memory_chart_rmm(struct gl_memory_chart *s, int64_t ts_us, uint64_t outstanding_bytes)
{
	double mib = (double)outstanding_bytes / (1024.0 * 1024.0);
	struct gl_chart_cols *z = &s->rmm_zoom;

	if (s->rmm_rows++ == 0) {
		int64_t w_us = z->t1_us - z->t0_us;

		s->rmm_first_us = s->rmm_last_us = ts_us;
		z->t0_us = ts_us;
		z->t1_us = ts_us + w_us;
	}
	if (ts_us < s->rmm_first_us)
		s->rmm_first_us = ts_us;
	if (ts_us > s->rmm_last_us)
		s->rmm_last_us = ts_us;
	gl_chart_cols_add(&s->rmm, ts_us, mib, 0);
	if (z->col) {
		gl_chart_cols_add(z, ts_us, mib, 0);
		if (z->dropped > 0)
			gl_chart_cols_release(z);
	}
}

void gl_memory_chart_release(struct gl_memory_chart *c)
{
	gl_chart_cols_release(&c->mem);
	gl_chart_cols_release(&c->rmm);
	gl_chart_cols_release(&c->rmm_zoom);
}

const struct gl_memory_chart *gl_memory_chart(const struct gl_report *rep)
{
	const struct memory *b = gl_report_state_of(rep, &gl_sec_memory);

	return b && b->charts ? &b->chart : NULL;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct memory *b = st;
	struct gl_report_memory *m = &b->res;

	m->peak_mib = m->last_mib = NAN;
	m->peak_ts_us = m->last_ts_us = GL_TS_NONE;
	m->rmm.peak_ts_us = GL_TS_NONE;
	m->rmm.histogram = calloc(GL_REPORT_SIZE_BUCKETS, sizeof(struct gl_report_bucket));
	if (!m->rmm.histogram)
		return gl_section_oom(cx->err);
	b->charts = cx->rep->axis.charts;
	return b->charts ? gl_memory_chart_init(&b->chart, cx->rep->axis.t0_us,
						cx->rep->axis.t1_us, cx->err)
			 : GL_OK;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct memory *b = st;
	struct gl_report_memory *m = &b->res;

	(void)cx;
	if (isnan(ev->mem_mb))
		return GL_OK;
	if (b->charts)
		gl_chart_cols_add(&b->chart.mem, ev->ts_us, ev->mem_mb, 0);
	m->samples++;
	if (isnan(m->peak_mib) || ev->mem_mb > m->peak_mib) {
		m->peak_mib = ev->mem_mb;
		m->peak_ts_us = ev->ts_us;
	}
	m->last_mib = ev->mem_mb;
	m->last_ts_us = ev->ts_us;
	return GL_OK;
}

static struct rmm_slot *rmm_find(struct memory *b, uint64_t ptr)
{
	size_t i = (size_t)(gl_hash64(&ptr, sizeof(ptr), 7) & (b->rmm_cap - 1));

	while (b->rmm[i].used && b->rmm[i].ptr != ptr)
		i = (i + 1) & (b->rmm_cap - 1);
	return &b->rmm[i];
}

/* Backward-shift deletion keeps linear probing correct without tombstones. */
static void rmm_remove(struct memory *b, struct rmm_slot *slot)
{
	size_t mask = b->rmm_cap - 1, i = (size_t)(slot - b->rmm), j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (!b->rmm[j].used)
			break;
		size_t home = (size_t)(gl_hash64(&b->rmm[j].ptr, sizeof(uint64_t), 7) & mask);
		/* can the entry at j move to i? only if home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			b->rmm[i] = b->rmm[j];
			i = j;
		}
	}
	b->rmm[i].used = false;
	b->rmm_used--;
}

static int rmm_grow(struct memory *b)
{
	struct rmm_slot *old = b->rmm;
	size_t old_cap = b->rmm_cap, cap = old_cap ? old_cap * 2 : 1024;

	b->rmm = calloc(cap, sizeof(*b->rmm));
	if (!b->rmm) {
		b->rmm = old;
		return -1;
	}
	b->rmm_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].used)
			*rmm_find(b, old[i].ptr) = old[i];
	free(old);
	return 0;
}

static int rmm_row(struct gl_section_ctx *cx, struct memory *b, const struct gl_query_mem *m)
{
	struct gl_report_rmm *r = &b->res.rmm;

	r->events++;
	if (m->action == 2) {
		r->allocation_failures++;
		return 0;
	}
	if (m->action == 1) {
		struct rmm_slot *s = b->rmm_cap ? rmm_find(b, m->ptr) : NULL;

		r->frees++;
		if (!s || !s->used) {
			r->unmatched_frees++;
			return 0;
		}
		b->outstanding -= s->size_bytes;
		rmm_remove(b, s);
		return 0;
	}
	if (m->action != 0)
		return 0;
	r->allocations++;
	if ((b->rmm_used + 1) * 2 > b->rmm_cap && rmm_grow(b) != 0)
		return gl_section_oom(cx->err);
	struct rmm_slot *s = rmm_find(b, m->ptr);
	if (s->used) {
		/* allocated twice without a free in between: the free was lost */
		b->outstanding -= s->size_bytes;
	} else {
		b->rmm_used++;
	}
	*s = (struct rmm_slot){m->ptr, m->size_bytes, m->ts_us, true};
	b->outstanding += m->size_bytes;
	if (b->outstanding > r->peak_outstanding_bytes || r->peak_ts_us == GL_TS_NONE) {
		r->peak_outstanding_bytes = b->outstanding;
		r->peak_ts_us = m->ts_us;
	}
	if (b->n_sizes == b->cap_sizes) {
		size_t cap = b->cap_sizes ? b->cap_sizes * 2 : 256;
		double *d = realloc(b->sizes, cap * sizeof(*d));

		if (!d)
			return gl_section_oom(cx->err);
		b->sizes = d;
		b->cap_sizes = cap;
	}
	b->sizes[b->n_sizes++] = (double)m->size_bytes;
	r->histogram[m->size_bytes ? 64 - __builtin_clzll(m->size_bytes) : 0].count++;
	return 0;
}

static int collect_mem(struct gl_section_ctx *cx, void *st, const struct gl_query_mem *m)
{
	struct memory *b = st;
	int rc = rmm_row(cx, b, m);

	if (rc == GL_OK && b->charts)
		gl_memory_chart_rmm(&b->chart, m->ts_us, b->outstanding);
	return rc;
}

static int cmp_leak(const void *pa, const void *pb)
{
	const struct gl_report_leak *a = pa, *b = pb;

	if (a->size_bytes != b->size_bytes)
		return a->size_bytes < b->size_bytes ? 1 : -1;
	return a->ts_us < b->ts_us ? -1 : a->ts_us > b->ts_us;
}

static int rmm_finish(struct gl_section_ctx *cx, struct memory *b)
{
	struct gl_report_rmm *r = &b->res.rmm;
	struct gl_report_bucket *all = r->histogram;
	struct gl_stats_desc d;
	size_t nl = 0, nh = 0;

	gl_stats_describe(b->sizes, b->n_sizes, &d);
	r->size_min_bytes = d.min;
	r->size_p50_bytes = d.p50;
	r->size_p90_bytes = d.p90;
	r->size_p99_bytes = d.p99;
	r->size_max_bytes = d.max;
	/* keep the non-empty buckets only */
	for (size_t i = 0; i < GL_REPORT_SIZE_BUCKETS; i++)
		if (all[i].count)
			all[nh++] = (struct gl_report_bucket){i ? 1ULL << (i - 1) : 0, all[i].count};
	r->n_histogram = nh;
	if (b->rmm_used == 0)
		return GL_OK;
	struct gl_report_leak *l = malloc(b->rmm_used * sizeof(*l));
	if (!l)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < b->rmm_cap; i++) {
		if (!b->rmm[i].used)
			continue;
		l[nl++] = (struct gl_report_leak){b->rmm[i].ts_us, b->rmm[i].ptr,
						   b->rmm[i].size_bytes};
		r->leaked_bytes += b->rmm[i].size_bytes;
	}
	r->leaked_allocations = nl;
	qsort(l, nl, sizeof(*l), cmp_leak);
	r->n_leaks = nl < cx->p->top ? nl : cx->p->top;
	r->leaks = l;
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	const struct gl_report_trend *t = gl_trends_of(cx->rep, GL_TREND_MEMORY, NULL);

	((struct memory *)st)->res.verdict = t ? t->verdict : GL_VERDICT_STABLE;
	return rmm_finish(cx, st);
}

static void release(void *st)
{
	struct memory *b = st;

	free(b->rmm);
	free(b->sizes);
	gl_memory_chart_release(&b->chart);
	free(b->res.rmm.leaks);
	free(b->res.rmm.histogram);
}

/* The results in st; none (no samples) for a report without the section's state. */
static const struct gl_report_memory *res_of(const void *st)
{
	static const struct gl_report_memory none = {
		.peak_mib = NAN, .peak_ts_us = GL_TS_NONE, .last_mib = NAN,
		.last_ts_us = GL_TS_NONE, .rmm = {.peak_ts_us = GL_TS_NONE}};

	return st ? &((const struct memory *)st)->res : &none;
}

const struct gl_report_memory *gl_memory_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_memory));
}

#define BU(f) offsetof(struct gl_report_bucket, f)

/*
 * A size bucket of the RMM allocations: JSON's rmm.size_histogram items and the CSV's
 * rmm.size_histogram rows beside the section's other figures (gl_table_csv_under: the
 * bucket's lower bound as the name); the text and HTML do not list them.
 */
static const struct gl_col bucket_cols[] = {
	{"lo_bytes", GL_COL_U64, BU(lo_bytes), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"count", GL_COL_U64, BU(count), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table bucket_table = {bucket_cols,
					     sizeof(bucket_cols) / sizeof(bucket_cols[0]),
					     sizeof(struct gl_report_bucket)};

#define LK(f) offsetof(struct gl_report_leak, f)

/*
 * An allocation outstanding at the end: JSON's rmm.leaks items. The CSV writes two
 * key,name,value rows per leak (the pointer as the name), the text a line of its own.
 */
static const struct gl_col leak_cols[] = {
	{"ts", GL_COL_TS, LK(ts_us), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"ptr", GL_COL_HEX, LK(ptr), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"size_bytes", GL_COL_U64, LK(size_bytes), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table leak_table = {leak_cols, sizeof(leak_cols) / sizeof(leak_cols[0]),
					   sizeof(struct gl_report_leak)};

/* rmm.leaks in the CSV: two rows per leak (size, time) under key.size_bytes and key.ts,
 * the pointer as the name. */
static void leaks_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct gl_report_rmm *rm = row;
	char k_size[64], k_ts[64], ptr[32], when[40];

	(void)pad;
	snprintf(k_size, sizeof(k_size), "%s.size_bytes", key);
	snprintf(k_ts, sizeof(k_ts), "%s.ts", key);
	for (size_t i = 0; i < rm->n_leaks; i++) {
		snprintf(ptr, sizeof(ptr), "0x%llx", (unsigned long long)rm->leaks[i].ptr);
		gl_csv_kv_u64(fp, k_size, ptr, rm->leaks[i].size_bytes);
		gl_csv_kv_text(fp, k_ts, ptr, gl_time_format(rm->leaks[i].ts_us, when));
	}
}

static json_t *leaks_json(const void *row)
{
	const struct gl_report_rmm *rm = row;

	return gl_table_json(&leak_table, rm->leaks, rm->n_leaks);
}

#define RM(f) offsetof(struct gl_report_rmm, f)

/* rmm.size_quantiles_bytes: a JSON object, CSV rows of the key named min ... max. */
static const struct gl_col quantile_cols[] = {
	{"min", GL_COL_NUM, RM(size_min_bytes), 0, 0, NULL, 0, 0, NULL, 0},
	{"p50", GL_COL_NUM, RM(size_p50_bytes), 0, 0, NULL, 0, 0, NULL, 0},
	{"p90", GL_COL_NUM, RM(size_p90_bytes), 0, 0, NULL, 0, 0, NULL, 0},
	{"p99", GL_COL_NUM, RM(size_p99_bytes), 0, 0, NULL, 0, 0, NULL, 0},
	{"max", GL_COL_NUM, RM(size_max_bytes), 0, 0, NULL, 0, 0, NULL, 0},
};

static const struct gl_table quantile_table = {
	quantile_cols, sizeof(quantile_cols) / sizeof(quantile_cols[0]),
	sizeof(struct gl_report_rmm)};

static json_t *quantiles_json(const void *row)
{
	return gl_record_json(&quantile_table, row);
}

static void quantiles_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	gl_record_csv_named(&quantile_table, row, key, pad, fp);
}

static json_t *histogram_json(const void *row)
{
	const struct gl_report_rmm *rm = row;

	return gl_table_json(&bucket_table, rm->histogram, rm->n_histogram);
}

/* rmm.size_histogram in the CSV: a row per bucket under the key (its lower bound as the
 * name, its count as the value). */
static void histogram_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct gl_report_rmm *rm = row;

	(void)pad;
	gl_table_csv_under(&bucket_table, rm->histogram, rm->n_histogram, key, fp);
}

/* Text: the allocations, frees and failures, the peak outstanding and its time. */
static const char *allocations_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_rmm *rm = row;
	char a[40], b[40];

	snprintf(buf, n, "%llu allocations, %llu frees, %llu failures; peak %s at %s",
		 (unsigned long long)rm->allocations, (unsigned long long)rm->frees,
		 (unsigned long long)rm->allocation_failures,
		 gl_text_bytes((double)rm->peak_outstanding_bytes, a, sizeof(a)),
		 gl_text_ts(rm->peak_ts_us, b));
	return buf;
}

/* Text: the allocations and bytes outstanding at the end. */
static const char *leaked_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_rmm *rm = row;
	char a[40];

	snprintf(buf, n, "%llu allocations (%s) outstanding at the end",
		 (unsigned long long)rm->leaked_allocations,
		 gl_text_bytes((double)rm->leaked_bytes, a, sizeof(a)));
	return buf;
}

/* HTML: the allocations and bytes outstanding at the end in one cell. */
static void leaked_html(FILE *f, const void *row)
{
	const struct gl_report_rmm *rm = row;

	fprintf(f, "%llu allocations, %llu bytes", (unsigned long long)rm->leaked_allocations,
		(unsigned long long)rm->leaked_bytes);
}

/*
 * The RMM allocations, a record: JSON's rmm object, the CSV's rmm.* rows, the text's two
 * RMM lines and the HTML's second key-value table (the text and HTML show them when the
 * window has RMM events).
 */
static const struct gl_col rmm_cols[] = {
	{"events", GL_COL_U64, RM(events), 0, 0, NULL, 0, 1, "RMM events", 0},
	{"allocations", GL_COL_U64, RM(allocations), 0, 1, "RMM:", 5, 2, "allocations", 0,
	 .text_cell = allocations_text},
	{"frees", GL_COL_U64, RM(frees), 0, 0, NULL, 0, 3, "frees", 0},
	{"allocation_failures", GL_COL_U64, RM(allocation_failures), 0, 0, NULL, 0, 4,
	 "allocation failures", 0},
	{"unmatched_frees", GL_COL_U64, RM(unmatched_frees), 0, 0, NULL, 0, 0, NULL, 0},
	{"peak_outstanding_bytes", GL_COL_U64, RM(peak_outstanding_bytes), 0, 0, NULL, 0, 5,
	 "peak outstanding bytes", 0},
	{"peak_ts", GL_COL_TS, RM(peak_ts_us), 0, 0, NULL, 0, 0, NULL, 0},
	{"leaked_allocations", GL_COL_U64, RM(leaked_allocations), 0, 2, "RMM:", 5, 6,
	 "outstanding at the end", 0, .html_cell = leaked_html, .text_cell = leaked_text},
	{"leaked_bytes", GL_COL_U64, RM(leaked_bytes), 0, 0, NULL, 0, 0, NULL, 0},
	{"leaks", GL_COL_U64, RM(leaks), 0, 0, NULL, 0, 0, NULL, 0, .json_of = leaks_json,
	 .csv_rows = leaks_csv},
	{"size_quantiles_bytes", GL_COL_NUM, 0, 0, 0, NULL, 0, 0, NULL, 0,
	 .json_of = quantiles_json, .csv_rows = quantiles_csv},
	{"size_histogram", GL_COL_U64, RM(histogram), 0, 0, NULL, 0, 0, NULL, 0,
	 .json_of = histogram_json, .csv_rows = histogram_csv},
};

static const struct gl_table rmm_table = {rmm_cols, sizeof(rmm_cols) / sizeof(rmm_cols[0]),
					  sizeof(struct gl_report_rmm)};

static json_t *rmm_json(const void *row)
{
	return gl_record_json(&rmm_table, &((const struct gl_report_memory *)row)->rmm);
}

/* The rmm record's rows under "rmm." */
static void rmm_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s.", key);
	gl_record_csv(&rmm_table, &((const struct gl_report_memory *)row)->rmm, prefix, pad, fp);
}

static const char *verdict_name(int v)
{
	return gl_verdict_name((enum gl_verdict)v);
}

/* Text: the peak and last memory in use and their times, the trend's verdict. */
static const char *in_use_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_memory *m = row;
	char a[40], b[40], c[40], d[40];

	if (!m->samples)
		return "no samples";
	snprintf(buf, n, "peak %s MiB at %s, last %s MiB at %s, %s",
		 gl_text_num(m->peak_mib, a, sizeof(a)), gl_text_ts(m->peak_ts_us, b),
		 gl_text_num(m->last_mib, c, sizeof(c)), gl_text_ts(m->last_ts_us, d),
		 gl_verdict_name(m->verdict));
	return buf;
}

/* HTML: the peak (one decimal) and its time (none without samples). */
static void peak_html(FILE *f, const void *row)
{
	const struct gl_report_memory *m = row;

	gl_html_num(f, m->peak_mib, GL_HTML_F1);
	fputs(" at ", f);
	gl_html_when(f, m->samples ? m->peak_ts_us : GL_TS_NONE);
}

static void last_html(FILE *f, const void *row)
{
	gl_html_num(f, ((const struct gl_report_memory *)row)->last_mib, GL_HTML_F1);
}

#define ME(f) offsetof(struct gl_report_memory, f)

/*
 * The memory section, a record: JSON's object (rmm nested), the CSV's key,name,value rows,
 * the text's "in use:" line and the HTML's first key-value table.
 */
static const struct gl_col memory_cols[] = {
	{"samples", GL_COL_U64, ME(samples), 0, 1, "in use:", 8, 1, "samples", 0,
	 .text_cell = in_use_text},
	{"peak_mib", GL_COL_NUM, ME(peak_mib), 0, 0, NULL, 0, 2, "peak MiB", 0,
	 .html_cell = peak_html},
	{"peak_ts", GL_COL_TS, ME(peak_ts_us), 0, 0, NULL, 0, 0, NULL, 0},
	{"last_mib", GL_COL_NUM, ME(last_mib), 0, 0, NULL, 0, 3, "last MiB", 0,
	 .html_cell = last_html},
	{"last_ts", GL_COL_TS, ME(last_ts_us), 0, 0, NULL, 0, 0, NULL, 0},
	{"verdict", GL_COL_ENUM, ME(verdict), 0, 0, NULL, 0, 4, "verdict", 0, verdict_name},
	{"rmm", GL_COL_U64, ME(rmm), 0, 0, NULL, 0, 0, NULL, 0, .json_of = rmm_json,
	 .csv_rows = rmm_csv},
};

static const struct gl_table memory_table = {
	memory_cols, sizeof(memory_cols) / sizeof(memory_cols[0]),
	sizeof(struct gl_report_memory), .record_html_open = "<table>\n"};

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	(void)r;
	return gl_record_json(&memory_table, res_of(st));
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)r;
	fputs("key,name,value", fp);
	gl_csv_eol(fp);
	gl_record_csv(&memory_table, res_of(st), NULL, 0, fp);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_memory *m = res_of(st);
	char a[40], b[40];

	(void)r;
	gl_record_text(&memory_table, m, fp);
	if (!m->rmm.events)
		return;
	gl_record_text(&rmm_table, &m->rmm, fp);
	/* the largest leaks: no header, the words between the cells */
	for (size_t i = 0; i < m->rmm.n_leaks && i < 5; i++)
		fprintf(fp, "  0x%llx  %s  since %s\n", (unsigned long long)m->rmm.leaks[i].ptr,
			gl_text_bytes((double)m->rmm.leaks[i].size_bytes, a, sizeof(a)),
			gl_text_ts(m->rmm.leaks[i].ts_us, b));
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_memory *m = res_of(st);

	(void)rep;

	gl_record_html(&memory_table, m, f);
	if (m->rmm.events == 0) {
		fputs("<p>No RMM events in this window.</p>\n", f);
		return;
	}
	gl_record_html(&rmm_table, &m->rmm, f);
}

static int chart_memory(const struct gl_report *rep, const void *st, const char *path,
			const struct gl_chart_opts *o, struct gl_err *err)
{
	static const struct gl_memory_chart empty;
	const struct memory *b = st;
	const struct gl_memory_chart *s = b && b->charts ? &b->chart : &empty;
	struct gl_chart_series mem = {"memory in use (MiB)", &s->mem,
				      GL_CHART_LINE, 0};
	struct gl_chart_series rmm = {"RMM outstanding allocations", &s->rmm, GL_CHART_MAXLINE, 2};
	int64_t window_us = rep->axis.t1_us - rep->axis.t0_us;
	/* RMM activity within a fifth of the time axis gets its own */
	int zoom = s->rmm_zoom.col && s->rmm_zoom.n > 0 &&
		   s->rmm_last_us - s->rmm_first_us <= window_us / 5;
	struct gl_chart_fit fit = {NULL, 0, 0, NAN, NAN, 3};
	struct gl_chart_panel p[2];
	const struct gl_report_trend *tr = gl_trends_of(rep, GL_TREND_MEMORY, NULL);
	char t[GL_PNG_TITLE_MAX], fit_name[160];
	size_t n = 0;

	gl_png_title(t, "Memory usage", rep);
	if (s->mem.n == 0 && s->rmm.n == 0)
		return gl_chart_nodata(path, t, "No memory samples and no RMM events in this window",
				       o, err);
	if (s->mem.n > 0) {
		memset(&p[n], 0, sizeof(p[n]));
		p[n].title = "memory in use, from the log events";
		p[n].y_label = "memory (MiB)";
		p[n].series = &mem;
		p[n].nseries = 1;
		p[n].legend = 1;
		if (tr && isfinite(tr->slope_per_day) && isfinite(tr->intercept)) {
			gl_png_fit(tr, rep, &fit);
			snprintf(fit_name, sizeof(fit_name), "trend %+.3g MiB/day, %s",
				 tr->slope_per_day, gl_verdict_name(tr->verdict));
			fit.name = fit_name;
			p[n].fits = &fit;
			p[n].nfits = 1;
		}
		n++;
	}
	if (s->rmm.n > 0) {
		memset(&p[n], 0, sizeof(p[n]));
		p[n].title = "RAPIDS RMM: allocated, not yet freed";
		p[n].y_label = "outstanding (MiB)";
		if (zoom) {
			int64_t span_us = s->rmm_last_us - s->rmm_first_us;
			int64_t pad_us = span_us / 40 > 60 * GL_US_PER_S ? span_us / 40
				: 60 * GL_US_PER_S;

			rmm.cols = &s->rmm_zoom;
			/* a small panel's title holds 40 characters */
			p[n].title = "RAPIDS RMM, over the span of its events";
			p[n].t0_us = s->rmm_first_us - pad_us;
			p[n].t1_us = s->rmm_last_us + pad_us;
		}
		/* from zero: a few bytes left over must not stretch a log axis */
		p[n].linear = 1;
		p[n].series = &rmm;
		p[n].nseries = 1;
		p[n].legend = 1;
		n++;
	}
	/* One above the other: the time axes line up (when the RMM panel has not its own). */
	struct gl_chart_opts co = *o;

	co.stacked = 1;
	return gl_chart_timeline(path, t, rep->axis.t0_us, rep->axis.t1_us, p, n, &co, err);
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_MEMORY, "Memory in use over time with the fitted trend; RMM outstanding bytes",
	 chart_memory},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_memory = {
	.name = "memory",
	.title = "Memory",
	.state_size = sizeof(struct memory),
	.begin = begin,
	.collect = collect,
	.collect_mem = collect_mem,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
