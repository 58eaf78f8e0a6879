/*
 * emit_csv.c - the report as one CSV file per section (RFC 4180), written
 * into out->dir: <name>.csv for every section of the table (section.h) that
 * writes CSV (summary.csv, kernels.csv, operations.csv, ...). Columns are
 * named like the JSON keys; sections that are objects (summary, memory,
 * errors) are written as key,name,value rows.
 *
 * Text cells come from log content ("=HYPERLINK(...)" in a kernel name
 * would run in a spreadsheet): a text cell that begins with = + - @, a tab
 * or a carriage return gets a leading apostrophe (emit_util.c). Numbers are
 * never changed.
 */
#include "report.h"

#include <stdio.h>

#include "section.h"

int gl_emit_csv(const struct gl_report *rep, struct gl_output *out, struct gl_err *err)
{
	const struct gl_section_list *l = gl_report_sections(rep);

	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "the csv format writes files: it needs a directory");
	for (size_t i = 0; i < l->n; i++) {
		char *tmp = NULL, name[128];
		FILE *fp;
		int rc;

		if (!l->items[i]->emit_csv)
			continue;
		snprintf(name, sizeof(name), "%s.csv", l->items[i]->name);
		if (!(fp = gl_output_open(out, name, &tmp, err)))
			return err ? err->code : GL_EIO;
		l->items[i]->emit_csv(rep, gl_report_section_state(rep, i), fp);
		rc = gl_output_commit(out, name, fp, &tmp, !ferror(fp), err);
		if (rc != GL_OK)
			return rc;
	}
	return GL_OK;
}
