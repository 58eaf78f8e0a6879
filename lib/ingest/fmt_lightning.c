/*
 * fmt_lightning.c - PyTorch Lightning's CSVLogger file
 * (lightning_logs/version_N/metrics.csv): a header naming the logged
 * metrics, "epoch" and "step" among them (any order, metric names may hold
 * '/'), then one row per logging call, sparse (a validation row leaves the
 * training columns empty):
 *     epoch,step,train/entropy,train/loss,train/reward,val/reward
 *     0,49,25.98388671875,-0.02284548431634903,-5.757747173309326,
 *     9,4889,,,,-5.83
 *     train_loss,train_acc,epoch,step
 *     compression_ratio_step,epoch,step,train_loss_step,train_mae_step
 * Out: one event per row: component "train", level INFO, "step 49: loss
 * -0.0228", metadata {"train":"lightning","run":...,"step","epoch","loss",
 * "eval_loss","ts_estimated":1}. The loss is the shortest column name that
 * starts with "train" and holds "loss" (train_loss, train/loss,
 * train_loss_step), else "loss"; the validation loss the shortest that
 * starts with "val" and holds "loss". The file has no times: every row
 * takes the file's modification time, marked estimated (the training
 * section orders rows by step). The run is the folder above version_N
 * and its lightning_logs folder. The header's column places live in
 * ctx->state (GL_FMT_HEADER_ONCE).
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "trainrec.h"

#define PL_MAGIC 0x6c746e6cu	/* "lntl" */
#define PL_COLS 256

/* the metadata's names of a row's step, epoch, loss and validation loss */
static const char *const keys[] = {"step", "epoch", "loss", "eval_loss"};

struct pl_state {
	uint32_t magic;
	int16_t ncol, epoch, step, loss, val_loss;
	char run[160];
};

static struct pl_state *state_of(struct gl_parse_ctx *ctx)
{
	struct pl_state *st = (struct pl_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != PL_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = PL_MAGIC;
		st->ncol = 0;
		snprintf(st->run, sizeof(st->run), ".");
		ctx->state_len = sizeof(*st);
	}
	return st;
}

/* The run: what is above lightning_logs/version_N/, its last two names. */
static int pl_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct pl_state *st = state_of(ctx);
	const char *end = strrchr(path, '/'), *b;
	struct gl_str run;
	int up = 0;

	if (!end)
		return 0;
	/* drop version_N and lightning_logs when they are the folders */
	for (up = 0; up < 2 && end > path; up++) {
		b = end;
		while (b > path && b[-1] != '/')
			b--;
		if ((up == 0 && !strncmp(b, "version_", 8)) || (up == 1 && !strncmp(b, "lightning_logs/", 15)))
			end = b > path ? b - 1 : b;
		else
			break;
	}
	run = gl_train_run_tail(path, end);
	if (run.len) {
		size_t n = run.len < sizeof(st->run) - 1 ? run.len : sizeof(st->run) - 1;

		memcpy(st->run, run.p, n);
		st->run[n] = '\0';
	}
	return 0;
}

static int has(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);

	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, lit, k))
			return 1;
	return 0;
}

/* The header: 1 when it names epoch and step. */
static int header(struct pl_state *st, const char *line, size_t len)
{
	size_t best_loss = 0, best_val = 0;
	int16_t col = 0;
	const char *p = line, *end = line + len;

	st->epoch = st->step = st->loss = st->val_loss = -1;
	while (p <= end && col < PL_COLS) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t n = c ? (size_t)(c - p) : (size_t)(end - p);

		if (n == 5 && !memcmp(p, "epoch", 5))
			st->epoch = col;
		else if (n == 4 && !memcmp(p, "step", 4))
			st->step = col;
		else if (has(p, n, "loss") && (!memcmp(p, "train", n < 5 ? n : 5) || (n == 4)) &&
			 (!best_loss || n < best_loss)) {
			st->loss = col;
			best_loss = n;
		} else if (has(p, n, "loss") && n > 3 && !memcmp(p, "val", 3) && (!best_val || n < best_val)) {
			st->val_loss = col;
			best_val = n;
		}
		for (size_t i = 0; i < n; i++)
			if (p[i] == ' ' || p[i] == '"' || (p[i] >= '0' && p[i] <= '9' && i == 0))
				return 0;
		col++;
		if (!c)
			break;
		p = c + 1;
	}
	st->ncol = col;
	return st->epoch >= 0 && st->step >= 0 && col >= 3;
}

static void pl_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct pl_state *st = state_of(ctx);
	double v[4] = {NAN, NAN, NAN, NAN};	/* step, epoch, loss, val loss */
	const int16_t want[4] = {st->step, st->epoch, st->loss, st->val_loss};
	const char *p = line, *end = line + len;
	int16_t col = 0;

	gl_event_init(&rec->ev);
	rec->reason = NULL;
	rec->kind = GL_REC_FOREIGN;
	if (!len)
		return;
	if ((line[0] < '0' || line[0] > '9') && line[0] != '-' && line[0] != ',') {
		struct pl_state save = *st;

		if (header(st, line, len)) {
			rec->kind = GL_REC_NONE;
			return;
		}
		*st = save;
		return;
	}
	if (st->ncol == 0)
		return;
	while (p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t k = c ? (size_t)(c - p) : (size_t)(end - p);

		for (int i = 0; i < 4; i++) {
			if (want[i] == col && k) {
				char tmp[48], *e;

				if (k >= sizeof(tmp))
					break;
				memcpy(tmp, p, k);
				tmp[k] = '\0';
				v[i] = strtod(tmp, &e);
				if (*e) {
					rec->kind = GL_REC_REJECT;
					rec->reason = "not a number in a metrics.csv column";
					return;
				}
			}
		}
		col++;
		if (!c)
			break;
		p = c + 1;
	}
	if (col != st->ncol) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "a row with another number of columns than the header";
		return;
	}
	if (isnan(v[0])) {
		rec->kind = GL_REC_REJECT;
		rec->reason = "a row without a step";
		return;
	}
	gl_train_step_record(ctx, &(struct gl_train_step){
		.source = "lightning", .run = st->run, .keys = keys, .v = v, .n = 4, .step = v[0],
		.loss = v[2], .eval_loss = v[3], .eval_label = "val loss"}, rec);
}

const struct gl_format gl_fmt_lightning = {
	.name = "lightning",
	.summary = "PyTorch Lightning CSVLogger metrics.csv: epoch, step and the logged metrics per row",
	.flags = GL_FMT_HEADER_ONCE,
	.parse = pl_parse,
	.prepare = pl_prepare,
};
