/*
 * inference_out.c - the inference section's four renderings (JSON, CSV,
 * text, HTML) of its result (sec_inference.h): request and failure
 * counts, each quantity's distribution, counters and histograms.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emit_util.h"
#include "inference_out.h"
#include "table.h"

/* The result in st, the first member of the section's state; none (zero) without a state. */
static const struct gl_report_inference *res_of(const void *st)
{
	static const struct gl_report_inference none;

	return st ? st : &none;
}

static const struct gl_report_dist *dist_c(const struct gl_report_inference *ri, enum quantity q)
{
	return dist_at((struct gl_report_inference *)ri, q);
}

/* A quantity's distribution as the tables show it: its name and unit, then the figures. */
struct q_row {
	const char *name, *unit;
	uint64_t count;
	double mean, p50, p95, p99, min, max;
};

#define QR(f) offsetof(struct q_row, f)

/* Text: the unit as it is (GL_COL_LEFT aligns a cell a column writes). */
static const char *unit_cell(const void *row, char *buf, size_t n)
{
	(void)buf;
	(void)n;
	return ((const struct q_row *)row)->unit;
}

/* A quantity: JSON (an object per name, the name its key), text (the quantities with
 * samples) and HTML. */
static const struct gl_col q_cols[] = {
	{"name", GL_COL_TEXT, QR(name), GL_COL_NAME, 1, "", 18, 1, "quantity", 0, NULL, 0},
	{"unit", GL_COL_TEXT, QR(unit), GL_COL_LEFT, 2, "unit", 8, 2, "unit", 0, NULL, 0, 0, NULL,
	 NULL, NULL, NULL, unit_cell},
	{"count", GL_COL_U64, QR(count), 0, 3, "count", 7, 3, "count", 0, NULL, 0},
	{"mean", GL_COL_NUM, QR(mean), 0, 4, "mean", 9, 4, "mean", 0, NULL, 0},
	{"p50", GL_COL_NUM, QR(p50), 0, 5, "p50", 9, 5, "p50", 0, NULL, 0},
	{"p95", GL_COL_NUM, QR(p95), 0, 6, "p95", 9, 6, "p95", 0, NULL, 0},
	{"p99", GL_COL_NUM, QR(p99), 0, 7, "p99", 9, 7, "p99", 0, NULL, 0},
	{"min", GL_COL_NUM, QR(min), 0, 8, "min", 9, 8, "min", 0, NULL, 0},
	{"max", GL_COL_NUM, QR(max), 0, 9, "max", 9, 9, "max", 0, NULL, 0},
};

static const struct gl_table q_table = {q_cols, sizeof(q_cols) / sizeof(q_cols[0]),
					sizeof(struct q_row), NULL, 1};

/* The quantities of ri, in enum quantity's order. */
static void q_rows_of(const struct gl_report_inference *ri, struct q_row rows[Q_COUNT])
{
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);

		rows[q] = (struct q_row){quantities[q].name, quantities[q].unit, d->count, d->mean,
					 d->p50, d->p95, d->p99, d->min, d->max};
	}
}

#define PC(f) offsetof(struct gl_report_prom_counter, f)

/* A Prometheus counter: JSON (every column) and HTML (the CSV row is one of inference.csv's
 * kinds). */
static const struct gl_col counter_cols[] = {
	{"metric", GL_COL_TEXT, PC(metric), GL_COL_NAME, 0, NULL, 0, 1, "counter", 0, NULL, 0},
	{"host", GL_COL_TEXT, PC(host), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"labels", GL_COL_JSON, PC(labels), 0, 0, NULL, 0, 2, "labels", 0, NULL, 0},
	{"samples", GL_COL_U64, PC(samples), 0, 0, NULL, 0, 3, "samples", 0, NULL, 0},
	{"resets", GL_COL_U64, PC(resets), 0, 0, NULL, 0, 4, "resets", 0, NULL, 0},
	{"increase", GL_COL_NUM, PC(increase), 0, 0, NULL, 0, 5, "increase", 0, NULL, 0},
	{"last", GL_COL_NUM, PC(last), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table counter_table = {counter_cols,
					      sizeof(counter_cols) / sizeof(counter_cols[0]),
					      sizeof(struct gl_report_prom_counter)};

/* A histogram as the tables show it: the result's, and where its buckets came from. */
struct h_row {
	const char *metric, *host, *labels;
	const char *from;		/* "cumulative" (one scrape's buckets), "increase" */
	uint64_t buckets;
	double count, p50, p95, p99;
};

#define HR(f) offsetof(struct h_row, f)

/* Text: the observations, "(1927 obs.)". */
static const char *obs_cell(const void *row, char *buf, size_t n)
{
	char num[40];

	snprintf(buf, n, "(%s obs.)", gl_text_num(((const struct h_row *)row)->count, num,
						  sizeof(num)));
	return buf;
}

/* A histogram: JSON (every column), text (a line each that names its figures) and HTML. */
static const struct gl_col h_cols[] = {
	{"metric", GL_COL_TEXT, HR(metric), GL_COL_NAME, 1, NULL, 40, 1, "histogram", 0, NULL, 0},
	{"host", GL_COL_TEXT, HR(host), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"labels", GL_COL_JSON, HR(labels), 0, 0, NULL, 0, 2, "labels", 0, NULL, 0},
	{"from", GL_COL_TEXT, HR(from), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"buckets", GL_COL_U64, HR(buckets), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"count", GL_COL_NUM, HR(count), 0, 5, NULL, 0, 3, "observations", 0, NULL, 0, 0, NULL,
	 NULL, NULL, NULL, obs_cell},
	{"p50", GL_COL_NUM, HR(p50), 0, 2, "p50", 0, 4, "p50", 0, NULL, 0},
	{"p95", GL_COL_NUM, HR(p95), 0, 3, "p95", 0, 5, "p95", 0, NULL, 0},
	{"p99", GL_COL_NUM, HR(p99), 0, 4, "p99", 0, 6, "p99", 0, NULL, 0},
};

static const struct gl_table h_table = {.cols = h_cols,
					.n_cols = sizeof(h_cols) / sizeof(h_cols[0]),
					.row_size = sizeof(struct h_row), .text_gap = 1,
					.text_labelled = true};

/* The histograms of ri as shown (free them); NULL when out of memory. */
static struct h_row *h_rows_of(const struct gl_report_inference *ri)
{
	struct h_row *rows = calloc(ri->n_histograms ? ri->n_histograms : 1, sizeof(*rows));

	for (size_t i = 0; rows && i < ri->n_histograms; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];

		rows[i] = (struct h_row){h->metric, h->host, h->labels,
					 h->cumulative ? "cumulative" : "increase", h->buckets,
					 h->count, h->p50, h->p95, h->p99};
	}
	return rows;
}

/* The requests one kind of server answered (JSON's requests_by_server). */
struct server_row {
	const char *server;
	double requests;
	const char *from;
};

#define SR(f) offsetof(struct server_row, f)

static const struct gl_col server_cols[] = {
	{"server", GL_COL_TEXT, SR(server), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"requests", GL_COL_NUM, SR(requests), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"from", GL_COL_TEXT, SR(from), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table server_table = {server_cols,
					     sizeof(server_cols) / sizeof(server_cols[0]),
					     sizeof(struct server_row)};

/* The requests and failures: JSON's first keys, a record of one row. */
struct req_row {
	double requests, failed, failed_pct;
	const char *failed_from, *requests_from;
};

#define RQ(f) offsetof(struct req_row, f)

static const struct gl_col req_cols[] = {
	{"requests", GL_COL_NUM, RQ(requests), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"failed", GL_COL_NUM, RQ(failed), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"failed_pct", GL_COL_NUM, RQ(failed_pct), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"failed_from", GL_COL_TEXT, RQ(failed_from), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"requests_from", GL_COL_TEXT, RQ(requests_from), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
};

static const struct gl_table req_table = {req_cols, sizeof(req_cols) / sizeof(req_cols[0]),
					  sizeof(struct req_row)};

json_t *gl_inference_emit_json(const struct gl_report *r, const void *st)
{
	const struct gl_report_inference *ri = res_of(st);
	struct gl_jb jb = {0};
	struct q_row qr[Q_COUNT];
	struct h_row *hr;
	const struct req_row req = {ri->requests, ri->failed, ri->failed_pct, ri->failed_from,
				    ri->requests_from};
	json_t *ra = gl_table_json(&req_table, &req, 1);
	json_t *o = json_incref(json_array_get(ra, 0)), *qa;

	(void)r;
	json_decref(ra);
	{
		static const char *const server_name[3] = {"bitnet", "vllm", "other"};
		struct server_row sr[3];
		size_t n = 0;

		for (int v = 0; v < 3; v++)
			if (ri->server_from[v])
				sr[n++] = (struct server_row){server_name[v], ri->server_requests[v],
							      ri->server_from[v]};
		gl_jb_set(&jb, o, "requests_by_server", gl_table_json(&server_table, sr, n));
	}
	/* each quantity's row, its name the key of the rest */
	q_rows_of(ri, qr);
	qa = gl_table_json(&q_table, qr, Q_COUNT);
	for (int q = 0; q < Q_COUNT; q++) {
		json_t *x = json_array_get(qa, (size_t)q);

		if (x && json_object_del(x, "name") == 0)
			gl_jb_set(&jb, o, quantities[q].name, json_incref(x));
		else
			gl_jb_set(&jb, o, quantities[q].name, NULL);
	}
	json_decref(qa);
	gl_jb_set(&jb, o, "counters", gl_table_json(&counter_table, ri->counters, ri->n_counters));
	hr = h_rows_of(ri);
	gl_jb_set(&jb, o, "histograms", hr ? gl_table_json(&h_table, hr, ri->n_histograms) : NULL);
	free(hr);
	return gl_jb_done(&jb, o);
}

/*
 * A row of inference.csv: the requests and failed figures (kind "requests"), a
 * quantity, a counter or a histogram; a figure that does not apply to its kind
 * is NAN (an empty cell), resets only a counter's.
 */
struct csv_row {
	const char *kind, *name, *unit, *host, *labels;
	double count;			/* requests, samples or observations (exact below 1e15) */
	double mean, p50, p95, p99, min, max, increase;
	uint64_t resets;
};

#define CR(f) offsetof(struct csv_row, f)

static bool no_resets(const void *row)
{
	return strcmp(((const struct csv_row *)row)->kind, "counter") != 0;
}

static const struct gl_col csv_cols[] = {
	{"kind", GL_COL_TEXT, CR(kind), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"name", GL_COL_TEXT, CR(name), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"unit", GL_COL_TEXT, CR(unit), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"host", GL_COL_TEXT, CR(host), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"labels", GL_COL_TEXT, CR(labels), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"count", GL_COL_NUM, CR(count), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"mean", GL_COL_NUM, CR(mean), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"p50", GL_COL_NUM, CR(p50), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"p95", GL_COL_NUM, CR(p95), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"p99", GL_COL_NUM, CR(p99), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"min", GL_COL_NUM, CR(min), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"max", GL_COL_NUM, CR(max), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"increase", GL_COL_NUM, CR(increase), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"resets", GL_COL_U64, CR(resets), GL_COL_ABSENT_CSV, 0, NULL, 0, 0, NULL, 0, NULL, 0, 0,
	 no_resets},
};

static const struct gl_table csv_table = {csv_cols, sizeof(csv_cols) / sizeof(csv_cols[0]),
					  sizeof(struct csv_row)};

/* inference.csv's rows of ri (free them); NULL when out of memory. */
static struct csv_row *csv_rows_of(const struct gl_report_inference *ri, size_t *n)
{
	size_t cap = 2 + Q_COUNT + ri->n_counters + ri->n_histograms, k = 0;
	struct csv_row *rows = malloc(cap * sizeof(*rows));
	struct csv_row none = {.count = NAN, .mean = NAN, .p50 = NAN, .p95 = NAN, .p99 = NAN,
			       .min = NAN, .max = NAN, .increase = NAN};

	if (!rows)
		return NULL;
	rows[k] = none;
	rows[k].kind = "requests";
	rows[k].name = rows[k].unit = "requests";
	rows[k].labels = "{}";
	rows[k++].count = ri->requests;
	rows[k] = rows[k - 1];
	rows[k].name = "failed";
	rows[k++].count = ri->failed;
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);

		rows[k] = (struct csv_row){"quantity", quantities[q].name, quantities[q].unit, NULL,
					   "{}", (double)d->count, d->mean, d->p50, d->p95, d->p99,
					   d->min, d->max, NAN, 0};
		k++;
	}
	for (size_t i = 0; i < ri->n_counters; i++) {
		const struct gl_report_prom_counter *c = &ri->counters[i];

		rows[k] = (struct csv_row){"counter", c->metric, "", c->host, c->labels,
					   (double)c->samples, NAN, NAN, NAN, NAN, NAN, NAN,
					   c->increase, c->resets};
		k++;
	}
	for (size_t i = 0; i < ri->n_histograms; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];

		rows[k] = none;
		rows[k].kind = "histogram";
		rows[k].name = h->metric;
		rows[k].unit = "";
		rows[k].host = h->host;
		rows[k].labels = h->labels;
		rows[k].count = h->count;
		rows[k].p50 = h->p50;
		rows[k].p95 = h->p95;
		rows[k++].p99 = h->p99;
	}
	*n = k;
	return rows;
}

/* inference.csv: one row per quantity, counter and histogram, and the requests and failed
 * figures. */
void gl_inference_emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	size_t n = 0;
	struct csv_row *rows = csv_rows_of(res_of(st), &n);

	(void)r;
	gl_table_csv(&csv_table, rows, rows ? n : 0, fp);
	free(rows);
}

static bool empty(const struct gl_report_inference *ri)
{
	for (int q = 0; q < Q_COUNT; q++)
		if (dist_c(ri, (enum quantity)q)->count)
			return false;
	return !ri->n_counters && !ri->n_histograms && isnan(ri->requests);
}

void gl_inference_emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_inference *ri = res_of(st);
	struct q_row qr[Q_COUNT];
	struct h_row *hr;
	size_t n = 0;
	char b[2][40];

	if (empty(ri)) {
		fprintf(fp, "no inference data\n");
		return;
	}
	fprintf(fp, "requests %s, failed %s", gl_text_num(ri->requests, b[0], sizeof(b[0])),
		gl_text_num(ri->failed, b[1], sizeof(b[1])));
	if (!isnan(ri->failed_pct))
		fprintf(fp, " (%.1f%%)", ri->failed_pct);
	if (ri->failed_from)
		fprintf(fp, ", failed from the %s",
			!strcmp(ri->failed_from, "counters") ? "counters" : "access lines");
	fputc('\n', fp);
	/* the quantities with samples */
	q_rows_of(ri, qr);
	for (int q = 0; q < Q_COUNT; q++)
		if (qr[q].count)
			qr[n++] = qr[q];
	gl_table_text(&q_table, qr, n, fp);
	if ((hr = h_rows_of(ri)) != NULL)
		gl_table_text(&h_table, hr, ri->n_histograms < r->top ? ri->n_histograms : r->top, fp);
	free(hr);
	fprintf(fp, "%zu counters, %zu histograms (all in inference.csv)\n", ri->n_counters,
		ri->n_histograms);
}

void gl_inference_emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_inference *ri = res_of(st);
	struct q_row qr[Q_COUNT];

	(void)rep;
	if (empty(ri)) {
		fputs("<p>No inference data in this window.</p>\n", f);
		return;
	}
	fputs("<p>Requests: ", f);
	gl_html_num(f, ri->requests, GL_HTML_G4);
	fputs(", failed: ", f);
	gl_html_num(f, ri->failed, GL_HTML_G4);
	fputs("</p>\n", f);
	q_rows_of(ri, qr);
	gl_table_html(&q_table, qr, Q_COUNT, f);
	if (ri->n_counters)
		gl_table_html(&counter_table, ri->counters, ri->n_counters, f);
	if (ri->n_histograms) {
		struct h_row *hr = h_rows_of(ri);

		if (hr)
			gl_table_html(&h_table, hr, ri->n_histograms, f);
		free(hr);
	}
}
