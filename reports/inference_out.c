/*
 * inference_out.c - the inference section's four renderings (JSON, CSV,
 * text, HTML) of its result (sec_inference.h): request and failure
 * counts, each quantity's distribution, counters and histograms.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "emit_util.h"
#include "inference_out.h"

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

static json_t *labels_json(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);

	if (json_is_object(o))
		return o;
	json_decref(o);
	return json_object();
}

json_t *gl_inference_emit_json(const struct gl_report *r, const void *st)
{
	const struct gl_report_inference *ri = res_of(st);
	struct gl_jb jb = {0};
	json_t *o = json_object(), *ca = json_array(), *ha = json_array();

	(void)r;
	gl_jb_set(&jb, o, "requests", gl_json_num(ri->requests));
	gl_jb_set(&jb, o, "failed", gl_json_num(ri->failed));
	gl_jb_set(&jb, o, "failed_pct", gl_json_num(ri->failed_pct));
	gl_jb_set(&jb, o, "failed_from", gl_json_str(ri->failed_from));
	gl_jb_set(&jb, o, "requests_from", gl_json_str(ri->requests_from));
	{
		static const char *const server_name[3] = {"bitnet", "vllm", "other"};
		json_t *by = json_array();

		for (int v = 0; v < 3; v++) {
			json_t *x;

			if (!ri->server_from[v])
				continue;
			x = json_object();
			gl_jb_set(&jb, x, "server", json_string(server_name[v]));
			gl_jb_set(&jb, x, "requests", gl_json_num(ri->server_requests[v]));
			gl_jb_set(&jb, x, "from", json_string(ri->server_from[v]));
			gl_jb_append(&jb, by, x);
		}
		gl_jb_set(&jb, o, "requests_by_server", by);
	}
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);
		json_t *x = json_object();

		gl_jb_set(&jb, x, "unit", gl_json_str(quantities[q].unit));
		gl_jb_set(&jb, x, "count", gl_json_u64(d->count));
		gl_jb_set(&jb, x, "mean", gl_json_num(d->mean));
		gl_jb_set(&jb, x, "p50", gl_json_num(d->p50));
		gl_jb_set(&jb, x, "p95", gl_json_num(d->p95));
		gl_jb_set(&jb, x, "p99", gl_json_num(d->p99));
		gl_jb_set(&jb, x, "min", gl_json_num(d->min));
		gl_jb_set(&jb, x, "max", gl_json_num(d->max));
		gl_jb_set(&jb, o, quantities[q].name, x);
	}
	for (size_t i = 0; ca && i < ri->n_counters; i++) {
		const struct gl_report_prom_counter *c = &ri->counters[i];
		json_t *x = json_object();

		gl_jb_set(&jb, x, "metric", gl_json_str(c->metric));
		gl_jb_set(&jb, x, "host", gl_json_str(c->host));
		gl_jb_set(&jb, x, "labels", labels_json(c->labels));
		gl_jb_set(&jb, x, "samples", gl_json_u64(c->samples));
		gl_jb_set(&jb, x, "resets", gl_json_u64(c->resets));
		gl_jb_set(&jb, x, "increase", gl_json_num(c->increase));
		gl_jb_set(&jb, x, "last", gl_json_num(c->last));
		gl_jb_append(&jb, ca, x);
	}
	gl_jb_set(&jb, o, "counters", ca);
	for (size_t i = 0; ha && i < ri->n_histograms; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];
		json_t *x = json_object();

		gl_jb_set(&jb, x, "metric", gl_json_str(h->metric));
		gl_jb_set(&jb, x, "host", gl_json_str(h->host));
		gl_jb_set(&jb, x, "labels", labels_json(h->labels));
		gl_jb_set(&jb, x, "from", gl_json_str(h->cumulative ? "cumulative" : "increase"));
		gl_jb_set(&jb, x, "buckets", gl_json_u64(h->buckets));
		gl_jb_set(&jb, x, "count", gl_json_num(h->count));
		gl_jb_set(&jb, x, "p50", gl_json_num(h->p50));
		gl_jb_set(&jb, x, "p95", gl_json_num(h->p95));
		gl_jb_set(&jb, x, "p99", gl_json_num(h->p99));
		gl_jb_append(&jb, ha, x);
	}
	gl_jb_set(&jb, o, "histograms", ha);
	return gl_jb_done(&jb, o);
}

/*
 * inference.csv: one row per quantity (kind "quantity"), counter and
 * histogram, and the requests and failed figures (kind "requests").
 */
void gl_inference_emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_inference *ri = res_of(st);
	const double none = NAN;

	(void)r;
	fputs("kind,name,unit,host,labels,count,mean,p50,p95,p99,min,max,increase,resets", fp);
	gl_csv_eol(fp);
	fputs("requests,requests,requests,,{},", fp);
	gl_csv_num(fp, ri->requests);
	fputs(",,,,,,,,", fp);
	gl_csv_eol(fp);
	fputs("requests,failed,requests,,{},", fp);
	gl_csv_num(fp, ri->failed);
	fputs(",,,,,,,,", fp);
	gl_csv_eol(fp);
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);
		const double v[] = {d->mean, d->p50, d->p95, d->p99, d->min, d->max, none};

		fprintf(fp, "quantity,%s,%s,,{},", quantities[q].name, quantities[q].unit);
		gl_csv_u64(fp, d->count);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			gl_csv_sep(fp);
			gl_csv_num(fp, v[j]);
		}
		gl_csv_sep(fp);
		gl_csv_eol(fp);
	}
	for (size_t i = 0; i < ri->n_counters; i++) {
		const struct gl_report_prom_counter *c = &ri->counters[i];

		fputs("counter,", fp);
		gl_csv_text(fp, c->metric);
		fputs(",,", fp);
		gl_csv_text(fp, c->host);
		gl_csv_sep(fp);
		gl_csv_text(fp, c->labels);
		gl_csv_sep(fp);
		gl_csv_u64(fp, c->samples);
		fputs(",,,,,,,", fp);
		gl_csv_num(fp, c->increase);
		gl_csv_sep(fp);
		gl_csv_u64(fp, c->resets);
		gl_csv_eol(fp);
	}
	for (size_t i = 0; i < ri->n_histograms; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];

		fputs("histogram,", fp);
		gl_csv_text(fp, h->metric);
		fputs(",,", fp);
		gl_csv_text(fp, h->host);
		gl_csv_sep(fp);
		gl_csv_text(fp, h->labels);
		gl_csv_sep(fp);
		gl_csv_num(fp, h->count);
		fputs(",,", fp);
		gl_csv_num(fp, h->p50);
		gl_csv_sep(fp);
		gl_csv_num(fp, h->p95);
		gl_csv_sep(fp);
		gl_csv_num(fp, h->p99);
		fputs(",,,,", fp);
		gl_csv_eol(fp);
	}
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
	char b[8][40];

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
	fprintf(fp, "%-18s %-8s %7s %9s %9s %9s %9s %9s %9s\n", "", "unit", "count", "mean", "p50",
		"p95", "p99", "min", "max");
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);

		if (!d->count)
			continue;
		fprintf(fp, "%-18s %-8s %7llu %9s %9s %9s %9s %9s %9s\n", quantities[q].name,
			quantities[q].unit, (unsigned long long)d->count,
			gl_text_num(d->mean, b[0], sizeof(b[0])), gl_text_num(d->p50, b[1], sizeof(b[1])),
			gl_text_num(d->p95, b[2], sizeof(b[2])), gl_text_num(d->p99, b[3], sizeof(b[3])),
			gl_text_num(d->min, b[4], sizeof(b[4])), gl_text_num(d->max, b[5], sizeof(b[5])));
	}
	for (size_t i = 0; i < ri->n_histograms && i < r->top; i++) {
		const struct gl_report_prom_histogram *h = &ri->histograms[i];

		gl_text_cell(fp, h->metric, 40);
		fprintf(fp, " p50 %s  p95 %s  p99 %s  (%s obs.)\n", gl_text_num(h->p50, b[0], sizeof(b[0])),
			gl_text_num(h->p95, b[1], sizeof(b[1])), gl_text_num(h->p99, b[2], sizeof(b[2])),
			gl_text_num(h->count, b[3], sizeof(b[3])));
	}
	fprintf(fp, "%zu counters, %zu histograms (all in inference.csv)\n", ri->n_counters,
		ri->n_histograms);
}

static void html_row(FILE *f, const char *name, const char *labels, const double *v, size_t n)
{
	fputs("<tr><td class=\"k\">", f);
	gl_html_text(f, name);
	fputs("</td><td>", f);
	gl_html_text(f, labels);
	fputs("</td>", f);
	for (size_t j = 0; j < n; j++) {
		fputs("<td class=\"n\">", f);
		gl_html_num(f, v[j], GL_HTML_G4);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

void gl_inference_emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_inference *ri = res_of(st);

	(void)rep;
	if (empty(ri)) {
		fputs("<p>No inference data in this window.</p>\n", f);
		return;
	}
	fputs("<p>Requests: ", f);
	gl_html_num(f, ri->requests, GL_HTML_G4);
	fputs(", failed: ", f);
	gl_html_num(f, ri->failed, GL_HTML_G4);
	fputs("</p>\n<table><tr><th>quantity</th><th>unit</th><th>count</th><th>mean</th>"
	      "<th>p50</th><th>p95</th><th>p99</th><th>min</th><th>max</th></tr>\n", f);
	for (int q = 0; q < Q_COUNT; q++) {
		const struct gl_report_dist *d = dist_c(ri, (enum quantity)q);
		const double v[] = {(double)d->count, d->mean, d->p50, d->p95, d->p99, d->min, d->max};

		html_row(f, quantities[q].name, quantities[q].unit, v, sizeof(v) / sizeof(v[0]));
	}
	fputs("</table>\n", f);
	if (ri->n_counters) {
		fputs("<table><tr><th>counter</th><th>labels</th><th>samples</th><th>resets</th>"
		      "<th>increase</th></tr>\n", f);
		for (size_t i = 0; i < ri->n_counters; i++) {
			const struct gl_report_prom_counter *c = &ri->counters[i];
			const double v[] = {(double)c->samples, (double)c->resets, c->increase};

			html_row(f, c->metric, c->labels, v, 3);
		}
		fputs("</table>\n", f);
	}
	if (ri->n_histograms) {
		fputs("<table><tr><th>histogram</th><th>labels</th><th>observations</th><th>p50</th>"
		      "<th>p95</th><th>p99</th></tr>\n", f);
		for (size_t i = 0; i < ri->n_histograms; i++) {
			const struct gl_report_prom_histogram *h = &ri->histograms[i];
			const double v[] = {h->count, h->p50, h->p95, h->p99};

			html_row(f, h->metric, h->labels, v, 4);
		}
		fputs("</table>\n", f);
	}
}
