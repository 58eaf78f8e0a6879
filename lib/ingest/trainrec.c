/*
 * trainrec.c - a trainer's step as a record, and a run's name from its
 * file's folder (trainrec.h). In: the values a parser read. Out: a gl_rec.
 */
#include "trainrec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "textfmt.h"

struct gl_str gl_train_run_tail(const char *path, const char *end)
{
	const char *b = end;
	int slashes = 0;

	while (b > path && slashes < 2) {
		b--;
		if (*b == '/')
			slashes++;
	}
	if (*b == '/')
		b++;
	return (struct gl_str){b, end > b ? (size_t)(end - b) : 0};
}

static void write_meta(struct gl_jsonw *w, const struct gl_train_step *t)
{
	gl_jsonw_str(w, "train", t->source, strlen(t->source));
	gl_jsonw_str(w, "run", t->run, strlen(t->run));
	for (size_t i = 0; i < t->n; i++)
		if (!isnan(t->v[i]))
			gl_jsonw_double(w, t->keys[i], t->v[i]);
	gl_jsonw_int(w, "ts_estimated", 1);
}

void gl_train_step_record(struct gl_parse_ctx *ctx, const struct gl_train_step *t,
			  struct gl_rec *rec)
{
	struct gl_jsonw w;
	char *buf, *msg;
	int n;

	gl_jsonw_begin(&w, NULL, 0);
	write_meta(&w, t);
	gl_jsonw_end(&w);
	buf = gl_ctx_scratch(ctx, w.len + 1);
	msg = gl_ctx_scratch(ctx, 96);
	if (!buf || !msg) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	gl_jsonw_begin(&w, buf, w.len + 1);
	write_meta(&w, t);
	gl_jsonw_end(&w);
	if (!isnan(t->loss))
		n = snprintf(msg, 96, "step %.0f: loss %.6g", t->step, t->loss);
	else if (!isnan(t->eval_loss))
		n = snprintf(msg, 96, "step %.0f: %s %.6g", t->step, t->eval_label, t->eval_loss);
	else
		n = snprintf(msg, 96, "step %.0f", t->step);
	rec->ev.ts_us = ctx->file_mtime_us ? ctx->file_mtime_us : gl_time_now_us();
	rec->ev.level = GL_LEVEL_INFO;
	rec->ev.component = (struct gl_str){"train", 5};
	rec->ev.message = (struct gl_str){msg, (size_t)n};
	rec->ev.metadata = (struct gl_str){buf, w.len};
	rec->ev.kind = GL_EV_TRAIN;
	rec->kind = GL_REC_EVENT;
}
