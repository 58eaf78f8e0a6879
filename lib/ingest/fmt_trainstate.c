/*
 * fmt_trainstate.c - Hugging Face Trainer's trainer_state.json (also the
 * copies in checkpoint-N/ folders, which hold earlier prefixes of the same
 * history). The Trainer writes it with indent=2:
 *     {
 *       "best_metric": null,
 *       "global_step": 5490,
 *       "log_history": [
 *         {
 *           "epoch": 0.91,
 *           "grad_norm": 2.757542133331299,
 *           "learning_rate": 1.817850637522769e-05,
 *           "loss": 1.1409,
 *           "step": 500
 *         },
 *         {
 *           "epoch": 1.0,
 *           "eval_loss": 0.6597685217857361,
 *           ...
 * In: one line. Each entry of "log_history" becomes one event, on the line
 * that closes it: component "train", level INFO, "step 500: loss 1.1409",
 * metadata {"train":"hf_state","run":...,"step":500,"loss":...,
 * "grad_norm":...,"learning_rate":...,"epoch":...,"eval_loss":...,
 * "ts_estimated":1}. The file has no times: every entry takes the file's
 * modification time, marked estimated; the training section orders them by
 * step and takes times from a console of the same run where there is one.
 * No samples: the steps of a history are the console's steps again, and a
 * checkpoint's copy is the same steps once more (the training section keeps
 * one per run and step). The run is the file's folder, a checkpoint-N folder
 * counting as its parent (fmt_text.c names runs the same way).
 *
 * The entry being read lives in priv (the lines of an entry are held,
 * ctx->hold); state[] holds only whether the history has begun.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "trainrec.h"

#define TS_MAGIC 0x74737468u	/* "htst" */
#define TS_RUN_MAX 192

struct ts_state {
	uint32_t magic;
	int32_t in_history;
	char run[TS_RUN_MAX];
};

struct ts_entry {
	int open;
	double step, loss, eval_loss, grad_norm, learning_rate, epoch;
};

static const char *const keys[] = {"step", "loss", "eval_loss", "grad_norm", "learning_rate", "epoch"};

static struct ts_state *state_of(struct gl_parse_ctx *ctx)
{
	struct ts_state *st = (struct ts_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != TS_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = TS_MAGIC;
		snprintf(st->run, sizeof(st->run), ".");
		ctx->state_len = sizeof(*st);
	}
	return st;
}

static void entry_free(void *p)
{
	free(p);
}

/* The entry in priv, when priv is this format's; NULL otherwise. */
static struct ts_entry *entry_of(struct gl_parse_ctx *ctx, int create)
{
	if (ctx->priv && ctx->priv_free == entry_free)
		return ctx->priv;
	if (!create || ctx->priv)
		return NULL;
	ctx->priv = calloc(1, sizeof(struct ts_entry));
	if (ctx->priv)
		ctx->priv_free = entry_free;
	return ctx->priv;
}

/* The run: the file's folder, the parent of a checkpoint-N folder; last two names. */
static int ts_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct ts_state *st = state_of(ctx);
	const char *end = strrchr(path, '/'), *b;
	struct gl_str run;

	if (!end)
		return 0;
	b = end;
	while (b > path && b[-1] != '/')
		b--;
	if (end - b > 11 && !memcmp(b, "checkpoint-", 11) && b > path)
		end = b - 1;
	run = gl_train_run_tail(path, end);
	if (run.len) {
		size_t n = run.len < sizeof(st->run) - 1 ? run.len : sizeof(st->run) - 1;

		memcpy(st->run, run.p, n);
		st->run[n] = '\0';
	}
	return 0;
}

static struct gl_str trim(const char *s, size_t len)
{
	return gl_textfmt_trim(s, len);
}

static void emit(struct gl_parse_ctx *ctx, const struct ts_state *st, const struct ts_entry *e,
		 struct gl_rec *rec)
{
	const double v[] = {e->step, e->loss, e->eval_loss, e->grad_norm, e->learning_rate, e->epoch};
	const struct gl_train_step t = {
		.source = "hf_state", .run = st->run, .keys = keys, .v = v,
		.n = sizeof(keys) / sizeof(keys[0]), .step = e->step, .loss = e->loss,
		.eval_loss = e->eval_loss, .eval_label = "eval_loss",
	};

	gl_train_step_record(ctx, &t, rec);
}

static void ts_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct ts_state *st = state_of(ctx);
	struct gl_str t = trim(line, len);
	struct ts_entry *e;

	gl_event_init(&rec->ev);
	rec->kind = GL_REC_NONE;
	rec->reason = NULL;
	if (!t.len)
		return;
	if (!st->in_history) {
		if (t.len >= 14 && !memcmp(t.p, "\"log_history\":", 14))
			st->in_history = 1;
		else if (t.p[0] != '"' && t.p[0] != '{' && t.p[0] != '}' && t.p[0] != ']')
			rec->kind = GL_REC_FOREIGN;
		return;
	}
	e = entry_of(ctx, 1);
	if (!e) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "out of memory";
		return;
	}
	if (!e->open) {
		if (t.p[0] == '{') {
			e->open = 1;
			e->step = -1;
			e->loss = e->eval_loss = e->grad_norm = e->learning_rate = e->epoch = NAN;
			ctx->hold = 1;
		} else if (t.p[0] == ']') {
			st->in_history = 0;
		} else {
			rec->kind = GL_REC_FOREIGN;
		}
		return;
	}
	if (t.p[0] == '}') {
		e->open = 0;
		/* trainer.predict()'s entries (predict_loss, ...) have no step: no training step */
		if (e->step < 0)
			return;
		emit(ctx, st, e, rec);
		return;
	}
	ctx->hold = 1;
	if (t.p[0] != '"') {
		rec->kind = GL_REC_REJECT;
		rec->reason = "not a \"key\": value line of a log_history entry";
		return;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t k = strlen(keys[i]);
		double *slot[] = {&e->step, &e->loss, &e->eval_loss, &e->grad_norm, &e->learning_rate,
				  &e->epoch};

		if (t.len > k + 3 && !memcmp(t.p + 1, keys[i], k) && t.p[k + 1] == '"' && t.p[k + 2] == ':') {
			char *endp;
			double v = strtod(t.p + k + 3, &endp);

			if (endp != t.p + k + 3)
				*slot[i] = v;
		}
	}
}

/* An entry cut at the end of a settled file. */
static const char *ts_end(struct gl_parse_ctx *ctx)
{
	struct ts_entry *e = entry_of(ctx, 0);

	if (e)
		e->open = 0;
	return "log_history entry cut off at the end of the file";
}

const struct gl_format gl_fmt_trainstate = {
	.name = "trainstate",
	.summary = "Hugging Face Trainer trainer_state.json: log_history entries (loss, grad_norm, ...) per step",
	.flags = 0,
	.parse = ts_parse,
	.prepare = ts_prepare,
	.end = ts_end,
};
