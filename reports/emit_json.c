/*
 * emit_json.c - the report as one JSON document, report.json (jansson):
 * generator and window, then one key per section (section.h), in table
 * order. NAN and infinities become null; times are RFC 3339 strings (UTC).
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "emit_util.h"
#include "section.h"
#include "util/timeutil.h"

/* Builds the whole document; NULL when out of memory. */
static json_t *document(const struct gl_report *r)
{
	const struct gl_section_list *l = gl_report_sections(r);
	struct gl_jb jb = {0};
	json_t *root = json_object(), *gen = json_object(), *win = json_object();

	gl_jb_set(&jb, gen, "name", gl_json_str(r->generator));
	gl_jb_set(&jb, gen, "version", gl_json_str(r->version));
	gl_jb_set(&jb, root, "generator", gen);
	gl_jb_set(&jb, win, "since", gl_json_ts(r->window.since_us));
	gl_jb_set(&jb, win, "until", gl_json_ts(r->window.until_us));
	gl_jb_set(&jb, win, "days", gl_json_num(r->window.days));
	gl_jb_set(&jb, win, "data_first_ts", gl_json_ts(r->window.data_first_ts_us));
	gl_jb_set(&jb, win, "data_last_ts", gl_json_ts(r->window.data_last_ts_us));
	gl_jb_set(&jb, win, "data_span_s",
		  gl_json_num(r->window.data_first_ts_us == GL_TS_NONE
				      ? NAN
				      : (double)(r->window.data_last_ts_us -
						 r->window.data_first_ts_us) / GL_US_PER_S));
	gl_jb_set(&jb, win, "retained_since", gl_json_ts(r->window.retained_since_us));
	gl_jb_set(&jb, win, "before_retained",
		  r->window.retained_since_us != GL_TS_NONE &&
				  r->window.since_us < r->window.retained_since_us
			  ? json_true()
			  : json_false());
	gl_jb_set(&jb, root, "window", win);
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i]->emit_json)
			gl_jb_set(&jb, root, l->items[i]->name,
				  l->items[i]->emit_json(r, gl_report_section_state(r, i)));
	return gl_jb_done(&jb, root);
}

int gl_emit_json(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	char *tmp = NULL;
	json_t *doc = document(rep);
	FILE *fp;
	bool ok;

	if (!doc)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	fp = gl_output_open(out, "report.json", &tmp, err);
	if (!fp) {
		json_decref(doc);
		return err ? err->code : GL_EIO;
	}
	ok = json_dumpf(doc, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) == 0 &&
	     fputc('\n', fp) != EOF;
	json_decref(doc);
	return gl_output_commit(out, "report.json", fp, &tmp, ok, err);
}
