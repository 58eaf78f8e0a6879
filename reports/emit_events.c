/*
 * emit_events.c - the events of the window, for users who continue in a
 * spreadsheet, pandas or DuckDB. In: the rows of v_events, streamed one at
 * a time (lib/store/export.h); out: events.csv (RFC 4180, CRLF, formula
 * cells defused like every CSV of the report) or events.ndjson (one JSON
 * object per line). Nothing is kept between rows, so memory does not grow
 * with the window.
 *
 * Columns (CSV header, and the keys of each JSON object, in this order):
 * time (RFC 3339, µs), ts_us, level, component, host, kernel, dur_us,
 * exec_ms, mem_mb, message, metadata (the stored JSON text; in NDJSON the
 * value itself when it parses), path, line. Empty cell / null: no value.
 */
#include "emit_events.h"

#include <fnmatch.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "emit_util.h"
#include "store/export.h"
#include "util/timeutil.h"

struct writer {
	const struct gl_events_opts *o;
	FILE *fp;
	uint64_t rows;
};

static bool glob_ok(const char *const *globs, size_t n, const char *name)
{
	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name ? name : "", 0) == 0)
			return true;
	return false;
}

static void csv_row(FILE *fp, const struct gl_export_event *ev)
{
	char t[40];

	gl_csv_text(fp, gl_time_format(ev->ts_us, t));
	fprintf(fp, ",%lld,", (long long)ev->ts_us);
	gl_csv_text(fp, ev->level);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->component);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->host);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->kernel);
	gl_csv_sep(fp);
	gl_csv_num(fp, ev->dur_us);
	gl_csv_sep(fp);
	gl_csv_num(fp, ev->exec_ms);
	gl_csv_sep(fp);
	gl_csv_num(fp, ev->mem_mb);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->message);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->metadata);
	gl_csv_sep(fp);
	gl_csv_text(fp, ev->path);
	gl_csv_sep(fp);
	if (ev->line > 0)
		fprintf(fp, "%lld", (long long)ev->line);
	gl_csv_eol(fp);
}

/* 0, or -1 when out of memory. */
static int json_row(FILE *fp, const struct gl_export_event *ev)
{
	struct gl_jb jb = {0};
	json_t *o = json_object(), *meta = NULL;
	int rc;

	gl_jb_set(&jb, o, "time", gl_json_ts(ev->ts_us));
	gl_jb_set(&jb, o, "ts_us", json_integer(ev->ts_us));
	gl_jb_set(&jb, o, "level", gl_json_str(ev->level));
	gl_jb_set(&jb, o, "component", gl_json_str(ev->component));
	gl_jb_set(&jb, o, "host", gl_json_str(ev->host));
	gl_jb_set(&jb, o, "kernel", gl_json_str(ev->kernel));
	gl_jb_set(&jb, o, "dur_us", gl_json_num(ev->dur_us));
	gl_jb_set(&jb, o, "exec_ms", gl_json_num(ev->exec_ms));
	gl_jb_set(&jb, o, "mem_mb", gl_json_num(ev->mem_mb));
	gl_jb_set(&jb, o, "message", gl_json_str(ev->message));
	if (ev->metadata)
		meta = json_loads(ev->metadata, JSON_DECODE_ANY, NULL);
	gl_jb_set(&jb, o, "metadata", meta ? meta : gl_json_str(ev->metadata));
	gl_jb_set(&jb, o, "path", gl_json_str(ev->path));
	gl_jb_set(&jb, o, "line", ev->line > 0 ? json_integer(ev->line) : json_null());
	if (!(o = gl_jb_done(&jb, o)))
		return -1;
	rc = json_dumpf(o, fp, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	fputc('\n', fp);
	json_decref(o);
	return rc == 0 || ferror(fp) ? 0 : -1;
}

static int on_row(void *arg, const struct gl_export_event *ev)
{
	struct writer *w = arg;
	const struct gl_events_opts *o = w->o;

	if (ev->duplicate || !glob_ok(o->components, o->ncomponents, ev->component) ||
	    !glob_ok(o->hosts, o->nhosts, ev->host))
		return 0;
	/* --kernel keeps the events of the matching kernels only */
	if (o->nkernels && (!ev->kernel || !glob_ok(o->kernels, o->nkernels, ev->kernel)))
		return 0;
	if (o->ndjson) {
		if (json_row(w->fp, ev) != 0)
			return GL_ENOMEM;
	} else {
		csv_row(w->fp, ev);
	}
	w->rows++;
	/* a full disk stops the walk at once; the commit reports it */
	return ferror(w->fp) ? GL_EIO : 0;
}

int gl_emit_events(const struct gl_events_opts *o, struct gl_output *out, uint64_t *rows,
		   struct gl_err *err)
{
	const char *name = o->ndjson ? "events.ndjson" : "events.csv";
	struct writer w = {.o = o};
	char *tmp = NULL;
	int rc, c;

	*rows = 0;
	if (!out->dir)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "--events writes a file: it needs a directory");
	if (!(w.fp = gl_output_open(out, name, &tmp, err)))
		return err ? err->code : GL_EIO;
	if (!o->ndjson) {
		fputs("time,ts_us,level,component,host,kernel,dur_us,exec_ms,mem_mb,message,"
		      "metadata,path,line",
		      w.fp);
		gl_csv_eol(w.fp);
	}
	rc = gl_export_events(o->db_path, o->since_us, o->until_us, on_row, &w, err);
	if (rc == GL_ENOMEM)
		gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	*rows = w.rows;
	/* a failed write (GL_EIO from on_row): the commit names the file and the cause */
	if (rc == GL_EIO && ferror(w.fp))
		rc = GL_OK;
	c = gl_output_commit(out, name, w.fp, &tmp, rc == GL_OK, err);
	return rc != GL_OK ? rc : c;
}
