/*
 * trainrec.h - a trainer's step as a record, for the parsers of the files a
 * trainer writes beside its console (fmt_trainstate.c: trainer_state.json,
 * fmt_lightning.c: metrics.csv), and the run's name that they and the text
 * reader (fmt_text.c) take from a file's folder.
 */
#ifndef GL_TRAINREC_H
#define GL_TRAINREC_H

#include <stddef.h>

#include "format.h"

/*
 * The last two names of the folder path[0..end) (end: a '/' of path, or
 * path's end): enough to tell runs apart, and no machine path. Empty
 * (len 0) when there is none.
 */
struct gl_str gl_train_run_tail(const char *path, const char *end);

/*
 * One step of a training history into rec: component "train", level INFO,
 * the file's modification time (now without one), kind GL_EV_TRAIN,
 * message "step 500: loss 1.1409" (the loss, else "<eval_label> <eval>",
 * else the step alone), metadata {"train":source,"run":run, keys[i]:v[i]
 * for each value not NAN, in order, "ts_estimated":1}. The strings live in
 * the context's scratch; out of memory, rec is a reject.
 */
struct gl_train_step {
	const char *source;		/* "hf_state", "lightning" */
	const char *run;
	const char *const *keys;	/* the metadata's names of v[0..n) */
	const double *v;
	size_t n;
	double step, loss, eval_loss;	/* for the message */
	const char *eval_label;		/* "eval_loss", "val loss" */
};

void gl_train_step_record(struct gl_parse_ctx *ctx, const struct gl_train_step *t,
			  struct gl_rec *rec);

#endif
