/*
 * emit_text.c - the report as a summary for a terminal, at most 100
 * columns: the window and the data's span, then one block per section of
 * the table (section.h) under its title. Undefined numbers print as "-".
 * Names longer than their column are cut with "~" (emit_util.c).
 */
#include "report.h"

#include <math.h>
#include <stdio.h>

#include "emit_util.h"
#include "sec_summary.h"
#include "section.h"
#include "util/timeutil.h"

static void write_text(FILE *fp, const struct gl_report *r)
{
	const struct gl_section_list *l = gl_report_sections(r);
	char a[40], b[40], span[40];

	fprintf(fp, "gpulog-report %s\n", r->version);
	fprintf(fp, "Window   %s .. %s (%s)\n", gl_text_ts(r->window.since_us, a),
		gl_text_ts(r->window.until_us, b),
		gl_text_duration(r->window.days * 86400.0, span, sizeof(span)));
	if (r->window.data_first_ts_us != GL_TS_NONE)
		fprintf(fp, "Data     %s .. %s (%s)\n", gl_text_ts(r->window.data_first_ts_us, a),
			gl_text_ts(r->window.data_last_ts_us, b),
			gl_text_duration((double)(r->window.data_last_ts_us -
						  r->window.data_first_ts_us) / GL_US_PER_S,
					 span, sizeof(span)));
	if (r->window.retained_since_us != GL_TS_NONE &&
	    r->window.since_us < r->window.retained_since_us)
		fprintf(fp, "Note     the window starts before the retained data: rows before %s were"
			" deleted (--keep-days)\n", gl_text_ts(r->window.retained_since_us, a));
	for (size_t i = 0; i < l->n; i++) {
		if (!l->items[i]->emit_text)
			continue;
		/* the summary opens the report without a heading */
		if (l->items[i] != &gl_sec_summary)
			gl_text_heading(fp, l->items[i]->title);
		l->items[i]->emit_text(r, gl_report_section_state(r, i), fp);
	}
}

int gl_emit_text(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	char *tmp = NULL;
	FILE *fp = gl_output_open(out, "report.txt", &tmp, err);

	if (!fp)
		return err ? err->code : GL_EIO;
	write_text(fp, rep);
	return gl_output_commit(out, "report.txt", fp, &tmp, !ferror(fp), err);
}
