/*
 * sec_training.c - the training section: what the node's training jobs
 * did in the window, from the train records the parsers stored (events
 * whose metadata holds "train": fmt_text.c's console dicts, DeepSpeed and
 * Megatron lines; fmt_trainstate.c's log_history; fmt_lightning.c's rows),
 * and the job's failures from the event pass.
 *
 * One step is one row whatever the number of sources: records are keyed by
 * (run, rank, step). The run is the output folder the parsers named; a
 * record without a rank (trainer_state.json, written by rank 0) joins rank
 * 0 where the run has ranked records. A console log dict has no step: it
 * takes the step of a record with the same loss and epoch (the state file's
 * entry; its own run first, else any run, which it then joins: a console is
 * often not in the Trainer's output folder), else the progress bar's count
 * before it.
 * Of the records of one step the first with a real time gives the time
 * (the others are marked estimated); each value comes from the first record
 * that has it, except that trainer_state.json's full numbers replace a
 * console dict's four digits. The iteration time is the trainer's own (Megatron's elapsed
 * time per iteration), else the time between two timed steps over the
 * steps between them.
 *
 * Per run and rank: steps, the loss at the start and at the end (medians of
 * the first and last tenth of the steps that have one: robust to one noisy
 * step) and its change, the least loss, the iteration time's p50 and p95
 * and its change (last tenth against first tenth), and, where a run has
 * several ranks, how much slower each rank's median iteration is than the
 * fastest rank's (a straggler). Failures: records whose message says CUDA
 * out of memory, holds a Python traceback, NCCL WARN records and
 * ProcessGroupNCCL watchdog timeouts.
 *
 * Charts: training_loss.png and training_iteration.png, the loss and the
 * iteration time over the step, one line per run and rank.
 */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "emit_png.h"
#include "emit_util.h"
#include "sec_training.h"
#include "section.h"
#include "table.h"
#include "util/timeutil.h"

#define STRAGGLER_MIN_PCT 10.0

struct rec {
	int64_t stream_id;
	char *run;
	long rank;
	double bar_step;
	const char *source;		/* static: "hf", "hf_state", ... */
	struct gl_training_step s;
};

/* A stream's failures: counted for the streams that hold train records. */
struct stream_fail {
	int64_t stream_id;
	uint64_t oom, tracebacks;
};

struct training {
	struct rec *recs;
	size_t n, cap;
	struct stream_fail *sf;
	size_t n_sf;
	struct gl_training_result res;
};

const struct gl_training_result *gl_training_result(const void *st)
{
	return st ? &((const struct training *)st)->res : NULL;
}

static const char *const sources[] = {"hf", "hf_state", "deepspeed", "megatron", "lightning"};

static const char *source_of(const char *s)
{
	for (size_t i = 0; s && i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!strcmp(s, sources[i]))
			return sources[i];
	return "other";
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int on_fact(void *arg, const struct gl_query_fact_event *e)
{
	struct training *t = arg;
	json_t *o = json_loads(e->metadata, 0, NULL);
	struct rec *r;
	json_t *run;

	if (!o)
		return GL_OK;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct rec *p = realloc(t->recs, cap * sizeof(*p));

		if (!p) {
			json_decref(o);
			return GL_ENOMEM;
		}
		t->recs = p;
		t->cap = cap;
	}
	r = &t->recs[t->n];
	memset(r, 0, sizeof(*r));
	run = json_object_get(o, "run");
	r->run = strdup(json_is_string(run) ? json_string_value(run) : ".");
	if (!r->run) {
		json_decref(o);
		return GL_ENOMEM;
	}
	r->rank = json_is_integer(json_object_get(o, "rank")) ? (long)json_integer_value(json_object_get(o, "rank")) : -1;
	r->source = source_of(json_string_value(json_object_get(o, "train")));
	r->stream_id = e->stream_id;
	r->s.step = num(o, "step");
	r->bar_step = num(o, "bar_step");
	r->s.ts_us = e->ts_us;
	r->s.ts_estimated = json_is_integer(json_object_get(o, "ts_estimated"));
	r->s.loss = num(o, "loss");
	r->s.eval_loss = num(o, "eval_loss");
	r->s.grad_norm = num(o, "grad_norm");
	r->s.learning_rate = num(o, "learning_rate");
	r->s.epoch = num(o, "epoch");
	r->s.iteration_ms = num(o, "iteration_ms");
	r->s.samples_per_s = num(o, "samples_per_s");
	r->s.tokens_per_s = num(o, "tokens_per_s");
	json_decref(o);
	t->n++;
	return GL_OK;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct training *t = st;
	unsigned ph;
	int oom, tb;

	if (ev->dup_of || !ev->message)
		return GL_OK;
	ph = gl_section_phrases(cx, ev);
	oom = (ph & (GL_PHRASE_OOM_TEXT | GL_PHRASE_OOM_ERROR)) != 0;
	tb = (ph & GL_PHRASE_TRACEBACK) != 0;
	if (oom || tb) {
		struct stream_fail *f = NULL;

		for (size_t i = 0; i < t->n_sf && !f; i++)
			if (t->sf[i].stream_id == ev->stream_id)
				f = &t->sf[i];
		if (!f) {
			struct stream_fail *p = realloc(t->sf, (t->n_sf + 1) * sizeof(*p));

			if (!p)
				return gl_section_oom(cx->err);
			t->sf = p;
			f = &t->sf[t->n_sf++];
			memset(f, 0, sizeof(*f));
			f->stream_id = ev->stream_id;
		}
		f->oom += oom;
		f->tracebacks += tb;
	}
	if (ph & GL_PHRASE_WATCHDOG)
		t->res.watchdog_timeouts++;
	if (ev->level == GL_LEVEL_WARN && !strcmp(gl_section_name(cx, ev->component_id), "nccl"))
		t->res.nccl_warnings++;
	return GL_OK;
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);

	if (c)
		return c;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->s.step != b->s.step)
		return a->s.step < b->s.step ? -1 : 1;
	if (a->s.ts_estimated != b->s.ts_estimated)
		return a->s.ts_estimated - b->s.ts_estimated;
	return a->s.ts_us < b->s.ts_us ? -1 : a->s.ts_us > b->s.ts_us;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Quantile q of sorted v[0..n) (linear interpolation). */
static double quantile(const double *v, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	return i + 1 < n ? v[i] + frac * (v[i + 1] - v[i]) : v[i];
}

/* Median of v[from..to) (copied, sorted). */
static double median_of(const double *v, size_t from, size_t to)
{
	double tmp[512];
	size_t n = to - from < 512 ? to - from : 512;

	if (n) {
		memcpy(tmp, v + from, n * sizeof(*tmp));
		qsort(tmp, n, sizeof(*tmp), cmp_double);
	}
	return quantile(tmp, n, 0.5);
}

/* Medians of the first and last tenth (at least one value each) and the change. */
static void ends(const double *v, size_t n, double *first, double *last, double *pct)
{
	size_t k = n / 10 ? n / 10 : 1;

	*first = *last = *pct = NAN;
	if (!n)
		return;
	*first = median_of(v, 0, k);
	*last = median_of(v, n - k, n);
	if (n >= 2 && *first != 0)
		*pct = (*last - *first) / fabs(*first) * 100.0;
}

/* Equal as far as a console prints them (transformers 5 writes 4 significant digits: '6.884'). */
static int near(double a, double b)
{
	return fabs(a - b) <= 6e-4 * fmax(fabs(a), fabs(b)) + 1e-12;
}

/*
 * A console dict without a step: the step of a record with the same loss and
 * epoch (the state file's entry), looked for in its own run first, then in
 * any run (the console is often not in the Trainer's output folder: it then
 * joins that run); else the progress bar's count before it.
 */
static int find_steps(struct training *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct rec *r = &t->recs[i];
		const struct rec *hit = NULL;

		if (!isnan(r->s.step))
			continue;
		for (int pass = 0; pass < 2 && !hit; pass++) {
			for (size_t j = 0; j < t->n && !hit; j++) {
				const struct rec *o = &t->recs[j];
				double lr = !isnan(r->s.loss) ? r->s.loss : r->s.eval_loss;
				double lo = !isnan(r->s.loss) ? o->s.loss : o->s.eval_loss;

				if (isnan(o->s.step) || (pass == 0) != !strcmp(o->run, r->run) || isnan(lr) ||
				    isnan(lo))
					continue;
				if (near(lr, lo) && (isnan(r->s.epoch) || isnan(o->s.epoch) ||
						     fabs(r->s.epoch - o->s.epoch) <= 1e-3 * fmax(1, fabs(o->s.epoch))))
					hit = o;
			}
		}
		if (hit) {
			r->s.step = hit->s.step;
			if (strcmp(r->run, hit->run)) {
				char *run = strdup(hit->run);

				if (!run)
					return GL_ENOMEM;
				free(r->run);
				r->run = run;
			}
		} else if (!isnan(r->bar_step)) {
			r->s.step = r->bar_step;
		}
	}
	return GL_OK;
}

static void fill(double *dst, double v)
{
	if (isnan(*dst))
		*dst = v;
}

static int add_source(char **list, const char *s)
{
	size_t n = *list ? strlen(*list) : 0;
	char *p;

	if (*list) {
		const char *q = *list;
		size_t k = strlen(s);

		for (; (q = strstr(q, s)); q += k)
			if ((q == *list || q[-1] == ',') && (q[k] == ',' || !q[k]))
				return 0;
	}
	p = realloc(*list, n + strlen(s) + 2);
	if (!p)
		return -1;
	snprintf(p + n, strlen(s) + 2, "%s%s", n ? "," : "", s);
	*list = p;
	return 0;
}

static int finish_run(struct gl_training_run *run)
{
	double *loss = malloc((run->n_steps + 1) * sizeof(*loss));
	double *it = malloc((run->n_steps + 1) * sizeof(*it));
	size_t nl = 0, ni = 0;
	double first, last;

	if (!loss || !it) {
		free(loss);
		free(it);
		return GL_ENOMEM;
	}
	for (size_t i = 0; i < run->n_steps; i++) {
		struct gl_training_step *s = &run->steps[i];

		if (isnan(s->iteration_ms) && i > 0 && !s->ts_estimated && !run->steps[i - 1].ts_estimated &&
		    s->step > run->steps[i - 1].step && s->ts_us > run->steps[i - 1].ts_us)
			s->iteration_ms = (double)(s->ts_us - run->steps[i - 1].ts_us) / 1000.0 /
					  (s->step - run->steps[i - 1].step);
		if (!isnan(s->loss))
			loss[nl++] = s->loss;
		if (!isnan(s->iteration_ms))
			it[ni++] = s->iteration_ms;
	}
	run->step_first = run->n_steps ? run->steps[0].step : NAN;
	run->step_last = run->n_steps ? run->steps[run->n_steps - 1].step : NAN;
	ends(loss, nl, &run->loss_first, &run->loss_last, &run->loss_change_pct);
	run->loss_min = NAN;
	for (size_t i = 0; i < nl; i++)
		if (isnan(run->loss_min) || loss[i] < run->loss_min)
			run->loss_min = loss[i];
	ends(it, ni, &first, &last, &run->iter_change_pct);
	qsort(it, ni, sizeof(*it), cmp_double);
	run->iter_ms_p50 = quantile(it, ni, 0.5);
	run->iter_ms_p95 = quantile(it, ni, 0.95);
	run->straggler_pct = NAN;
	free(loss);
	free(it);
	return GL_OK;
}

static int build_runs(struct training *t)
{
	struct gl_training_result *res = &t->res;

	/* a record without a rank joins rank 0 where its run has ranked records */
	for (size_t i = 0; i < t->n; i++) {
		if (t->recs[i].rank >= 0)
			continue;
		for (size_t j = 0; j < t->n; j++)
			if (t->recs[j].rank >= 0 && !strcmp(t->recs[j].run, t->recs[i].run)) {
				t->recs[i].rank = 0;
				break;
			}
	}
	if (find_steps(t) != GL_OK)
		return GL_ENOMEM;
	/* a record without a rank joins rank 0 where its run has ranked records (again: a
	 * console dict may have just joined the state file's run) */
	for (size_t i = 0; i < t->n; i++) {
		if (t->recs[i].rank >= 0)
			continue;
		for (size_t j = 0; j < t->n; j++)
			if (t->recs[j].rank >= 0 && !strcmp(t->recs[j].run, t->recs[i].run)) {
				t->recs[i].rank = 0;
				break;
			}
	}
	if (t->n)	/* recs is NULL when the window holds no train record */
		qsort(t->recs, t->n, sizeof(*t->recs), cmp_rec);
	const char *last_src = NULL;	/* the source of the last step's values */

	for (size_t i = 0; i < t->n; i++) {
		struct rec *r = &t->recs[i];
		struct gl_training_run *run = res->n ? &res->runs[res->n - 1] : NULL;
		struct gl_training_step *last;

		if (isnan(r->s.step))
			continue;
		if (!run || strcmp(run->run, r->run) || run->rank != r->rank) {
			struct gl_training_run *p = realloc(res->runs, (res->n + 1) * sizeof(*p));

			if (!p)
				return GL_ENOMEM;
			res->runs = p;
			run = &res->runs[res->n++];
			memset(run, 0, sizeof(*run));
			run->rank = r->rank;
			if (!(run->run = strdup(r->run)))
				return GL_ENOMEM;
		}
		if (add_source(&run->sources, r->source) < 0)
			return GL_ENOMEM;
		last = run->n_steps ? &run->steps[run->n_steps - 1] : NULL;
		if (last && last->step == r->s.step) {
			run->duplicates++;
			/* trainer_state.json holds the full numbers; a console dict 4 digits of them */
			if (last_src && !strcmp(last_src, "hf") && !strcmp(r->source, "hf_state")) {
				last->loss = !isnan(r->s.loss) ? r->s.loss : last->loss;
				last->eval_loss = !isnan(r->s.eval_loss) ? r->s.eval_loss : last->eval_loss;
				last->grad_norm = !isnan(r->s.grad_norm) ? r->s.grad_norm : last->grad_norm;
				last->learning_rate = !isnan(r->s.learning_rate) ? r->s.learning_rate
										 : last->learning_rate;
				last->epoch = !isnan(r->s.epoch) ? r->s.epoch : last->epoch;
				last_src = r->source;
			}
			fill(&last->loss, r->s.loss);
			fill(&last->eval_loss, r->s.eval_loss);
			fill(&last->grad_norm, r->s.grad_norm);
			fill(&last->learning_rate, r->s.learning_rate);
			fill(&last->epoch, r->s.epoch);
			fill(&last->iteration_ms, r->s.iteration_ms);
			fill(&last->samples_per_s, r->s.samples_per_s);
			fill(&last->tokens_per_s, r->s.tokens_per_s);
			continue;
		}
		last = realloc(run->steps, (run->n_steps + 1) * sizeof(*last));
		if (!last)
			return GL_ENOMEM;
		run->steps = last;
		run->steps[run->n_steps++] = r->s;
		last_src = r->source;
	}
	for (size_t i = 0; i < res->n; i++)
		if (finish_run(&res->runs[i]) != GL_OK)
			return GL_ENOMEM;
	/* stragglers: a rank's median iteration against the fastest rank's of its run */
	for (size_t i = 0; i < res->n;) {
		size_t j = i;
		double best = NAN;

		while (j < res->n && !strcmp(res->runs[j].run, res->runs[i].run))
			j++;
		for (size_t k = i; k < j; k++)
			if (!isnan(res->runs[k].iter_ms_p50) && (isnan(best) || res->runs[k].iter_ms_p50 < best))
				best = res->runs[k].iter_ms_p50;
		for (size_t k = i; k < j && j - i > 1; k++)
			if (!isnan(res->runs[k].iter_ms_p50) && best > 0)
				res->runs[k].straggler_pct = (res->runs[k].iter_ms_p50 - best) / best * 100.0;
		i = j;
	}
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct training *t = st;
	int rc = gl_query_fact_events(cx->q, cx->rep->window.since_us, cx->rep->window.until_us,
				      "train", on_fact, t, cx->err);

	if (rc != GL_OK)
		return rc;
	t->res.records = t->n;
	/* a job's out-of-memory errors and tracebacks: those of the streams holding its train
	 * records (a service's OOMs in the same window are not the training's) */
	for (size_t i = 0; i < t->n_sf; i++) {
		for (size_t j = 0; j < t->n; j++) {
			if (t->recs[j].stream_id == t->sf[i].stream_id) {
				t->res.oom += t->sf[i].oom;
				t->res.tracebacks += t->sf[i].tracebacks;
				break;
			}
		}
	}
	if (build_runs(t) != GL_OK)
		return gl_section_oom(cx->err);
	return GL_OK;
}

static void release(void *st)
{
	struct training *t = st;

	for (size_t i = 0; i < t->n; i++)
		free(t->recs[i].run);
	free(t->recs);
	free(t->sf);
	for (size_t i = 0; i < t->res.n; i++) {
		free(t->res.runs[i].run);
		free(t->res.runs[i].sources);
		free(t->res.runs[i].steps);
	}
	free(t->res.runs);
}

#define TR(f) offsetof(struct gl_training_run, f)

/* size_t counted as a u64 column */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "n_steps is read as a uint64_t");

/* A run's rank in HTML; an empty cell for a run of no rank. */
static void rank_html(FILE *f, const void *row)
{
	const struct gl_training_run *r = row;

	if (r->rank >= 0)
		fprintf(f, "%ld", r->rank);
}

/* "run [rank]" in text, the run alone when it has no rank. */
static const char *label_text(const void *row, char *buf, size_t n)
{
	const struct gl_training_run *r = row;

	if (r->rank >= 0)
		snprintf(buf, n, "%s [%ld]", r->run, r->rank);
	else
		snprintf(buf, n, "%s", r->run);
	return buf;
}

/* The percentages in text: signed, one decimal. */
static const char *loss_change_text(const void *row, char *buf, size_t n)
{
	return gl_text_pct(((const struct gl_training_run *)row)->loss_change_pct, buf, n);
}

static const char *iter_change_text(const void *row, char *buf, size_t n)
{
	return gl_text_pct(((const struct gl_training_run *)row)->iter_change_pct, buf, n);
}

static const char *straggler_text(const void *row, char *buf, size_t n)
{
	return gl_text_pct(((const struct gl_training_run *)row)->straggler_pct, buf, n);
}

/* A run (and rank): JSON's runs, the CSV (which leaves duplicates out: no CSV position),
 * the HTML table and the text table (the first --top). */
static const struct gl_col run_cols[] = {
	{"run", GL_COL_TEXT, TR(run), GL_COL_NAME, 1, "run [rank]", 28, 1, "run", 0, NULL, 1,
	 .text_cell = label_text},
	{"rank", GL_COL_INDEX, TR(rank), 0, 0, NULL, 0, 2, "rank", 0, NULL, 2,
	 .html_cell = rank_html},
	{"sources", GL_COL_TEXT, TR(sources), 0, 0, NULL, 0, 3, "sources", 0, NULL, 3},
	{"steps", GL_COL_U64, TR(n_steps), 0, 2, "steps", 6, 4, "steps", 0, NULL, 4},
	{"duplicates", GL_COL_U64, TR(duplicates), 0, 0, NULL, 0, 0, NULL, 0, NULL, 0},
	{"step_first", GL_COL_NUM, TR(step_first), 0, 0, NULL, 0, 0, NULL, 0, NULL, 5},
	{"step_last", GL_COL_NUM, TR(step_last), 0, 3, "last", 9, 5, "last step", 0, NULL, 6},
	{"loss_first", GL_COL_NUM, TR(loss_first), 0, 4, "loss0", 9, 6, "loss first", 0, NULL, 7},
	{"loss_last", GL_COL_NUM, TR(loss_last), 0, 5, "loss", 9, 7, "loss last", 0, NULL, 8},
	{"loss_min", GL_COL_NUM, TR(loss_min), 0, 0, NULL, 0, 8, "loss min", 0, NULL, 9},
	{"loss_change_pct", GL_COL_NUM, TR(loss_change_pct), 0, 6, "change%", 8, 9, "change %", 0,
	 NULL, 10, .text_cell = loss_change_text},
	{"iteration_ms_p50", GL_COL_NUM, TR(iter_ms_p50), 0, 7, "iter p50", 9, 10,
	 "iteration p50 ms", 0, NULL, 11},
	{"iteration_ms_p95", GL_COL_NUM, TR(iter_ms_p95), 0, 8, "iter p95", 9, 11, "p95 ms", 0,
	 NULL, 12},
	{"iteration_change_pct", GL_COL_NUM, TR(iter_change_pct), 0, 9, "change%", 8, 12,
	 "change %", 0, NULL, 13, .text_cell = iter_change_text},
	{"straggler_pct", GL_COL_NUM, TR(straggler_pct), 0, 10, "slower%", 9, 13,
	 "slower than the fastest rank %", 0, NULL, 14, .text_cell = straggler_text},
};

static const struct gl_table run_table = {run_cols, sizeof(run_cols) / sizeof(run_cols[0]),
					  sizeof(struct gl_training_run), NULL, true};

static json_t *emit_json(const struct gl_report *rep, const void *st)
{
	const struct gl_training_result *res = gl_training_result(st);
	struct gl_jb jb = {0};
	json_t *o = json_object(), *a = gl_table_json(&run_table, res ? res->runs : NULL,
						   res ? res->n : 0);

	(void)rep;
	gl_jb_set(&jb, o, "runs", a);
	gl_jb_set(&jb, o, "records", gl_json_u64(res ? res->records : 0));
	gl_jb_set(&jb, o, "oom", gl_json_u64(res ? res->oom : 0));
	gl_jb_set(&jb, o, "tracebacks", gl_json_u64(res ? res->tracebacks : 0));
	gl_jb_set(&jb, o, "nccl_warnings", gl_json_u64(res ? res->nccl_warnings : 0));
	gl_jb_set(&jb, o, "watchdog_timeouts", gl_json_u64(res ? res->watchdog_timeouts : 0));
	return gl_jb_done(&jb, o);
}

static void emit_csv(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_training_result *res = gl_training_result(st);

	(void)rep;
	gl_table_csv(&run_table, res ? res->runs : NULL, res ? res->n : 0, fp);
}

static void emit_text(const struct gl_report *rep, const void *st, FILE *fp)
{
	const struct gl_training_result *res = gl_training_result(st);

	if (!res || (!res->n && !res->oom && !res->tracebacks && !res->nccl_warnings)) {
		fprintf(fp, "no training records\n");
		return;
	}
	if (res->n)
		gl_table_text(&run_table, res->runs, res->n < rep->top ? res->n : rep->top, fp);
	fprintf(fp, "failures: %llu CUDA out of memory, %llu tracebacks, %llu NCCL warnings, "
		"%llu watchdog timeouts\n", (unsigned long long)res->oom,
		(unsigned long long)res->tracebacks, (unsigned long long)res->nccl_warnings,
		(unsigned long long)res->watchdog_timeouts);
}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_training_result *res = gl_training_result(st);

	(void)rep;
	if (!res || !res->n) {
		fputs("<p>No training records in this window.</p>\n", f);
	} else {
		gl_table_html(&run_table, res->runs, res->n, f);
	}
	if (res)
		fprintf(f, "<p>Failures: %llu CUDA out of memory, %llu tracebacks, %llu NCCL warnings, "
			"%llu NCCL watchdog timeouts.</p>\n", (unsigned long long)res->oom,
			(unsigned long long)res->tracebacks, (unsigned long long)res->nccl_warnings,
			(unsigned long long)res->watchdog_timeouts);
}

struct chart_arg {
	const struct gl_report *rep;
	const struct gl_training_result *res;
	const struct gl_chart_opts *o;
	int iteration;			/* 0: loss, 1: iteration time */
};

#define TRAIN_CHART_LINES 8

static int draw(const char *path, const void *arg, struct gl_err *err)
{
	static const struct gl_chart_opts defaults;
	const struct chart_arg *a = arg;
	const struct gl_chart_opts *co = a->o ? a->o : &defaults;
	struct gl_chart_xy_line lines[TRAIN_CHART_LINES];
	char names[TRAIN_CHART_LINES][200], title[160];
	double *buf = NULL;
	size_t n = 0, total = 0, off = 0;
	int rc;

	for (size_t i = 0; a->res && i < a->res->n; i++)
		total += a->res->runs[i].n_steps;
	snprintf(title, sizeof(title), a->iteration ? "Iteration time over the steps"
						    : "Training loss over the steps");
	buf = malloc((2 * total + 1) * sizeof(*buf));
	if (!buf)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	/* the runs that have the value, the first TRAIN_CHART_LINES of them */
	for (size_t i = 0; a->res && i < a->res->n && n < TRAIN_CHART_LINES; i++) {
		const struct gl_training_run *r = &a->res->runs[i];
		const char *base = strrchr(r->run, '/');
		size_t k = 0;

		lines[n].x = buf + off;
		lines[n].y = buf + off + r->n_steps;
		for (size_t j = 0; j < r->n_steps; j++) {
			double y = a->iteration ? r->steps[j].iteration_ms : r->steps[j].loss;

			if (isnan(y))
				continue;
			lines[n].x[k] = r->steps[j].step;
			lines[n].y[k] = y;
			k++;
		}
		if (!k)
			continue;
		lines[n].n = k;
		off += 2 * r->n_steps;
		/* the run's last folder name: the legend has room for about 30 characters */
		base = base && strlen(r->run) > 30 ? base + 1 : r->run;
		if (r->rank >= 0)
			snprintf(names[n], sizeof(names[n]), "%s rank %ld", base, r->rank);
		else
			snprintf(names[n], sizeof(names[n]), "%s", base);
		lines[n].name = names[n];
		n++;
	}
	if (!n) {
		free(buf);
		return gl_chart_nodata(path, title, a->iteration ? "No iteration times (no timed steps)"
								: "No training losses", co, err);
	}
	rc = gl_chart_xy_lines(path, title, "step", a->iteration ? "iteration time (ms)" : "loss",
			       lines, n, co, err);
	free(buf);
	return rc;
}

static int chart_loss(const struct gl_report *rep, const void *st, const char *path,
		      const struct gl_chart_opts *o, struct gl_err *err)
{
	struct chart_arg a = {rep, gl_training_result(st), o, 0};

	return draw(path, &a, err);
}

static int chart_iteration(const struct gl_report *rep, const void *st, const char *path,
			   const struct gl_chart_opts *o, struct gl_err *err)
{
	struct chart_arg a = {rep, gl_training_result(st), o, 1};

	return draw(path, &a, err);
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_TRAIN_LOSS, "Training loss over the steps, per run and rank", chart_loss},
	{GL_PNG_TRAIN_ITER, "Iteration time over the steps, per run and rank", chart_iteration},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_training = {
	.name = "training",
	.title = "Training (loss and iteration time per run and rank)",
	.state_size = sizeof(struct training),
	.collect = collect,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
