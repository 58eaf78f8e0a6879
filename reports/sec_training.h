/*
 * sec_training.h - the results of the training section (sec_training.c),
 * kept in the section's state: per run and rank, the logged steps (one per
 * step whatever the number of sources: console, trainer_state.json and its
 * checkpoint copies, metrics.csv), the loss and the iteration time with
 * their trends, stragglers between ranks, and the job's failures (CUDA
 * out of memory, tracebacks, NCCL warnings and watchdog timeouts).
 */
#ifndef GL_SEC_TRAINING_H
#define GL_SEC_TRAINING_H

#include <stddef.h>
#include <stdint.h>

/* One logged step. Absent values NAN. */
struct gl_training_step {
	double step;
	int64_t ts_us;
	int ts_estimated;		/* 1: no source gave its time */
	double loss, eval_loss, grad_norm, learning_rate, epoch;
	double iteration_ms;		/* the trainer's own (Megatron), else from the times of timed steps */
	double samples_per_s, tokens_per_s;
};

struct gl_training_run {
	char *run;			/* the output folder ("job/run1") */
	long rank;			/* -1: not per rank */
	char *sources;			/* "hf,hf_state" */
	struct gl_training_step *steps;	/* by step */
	size_t n_steps;
	uint64_t duplicates;		/* records of a step already seen (another source, a checkpoint copy) */
	double step_first, step_last;
	double loss_first, loss_last, loss_min;	/* medians of the first and last tenth of the steps with a loss; min */
	double loss_change_pct;		/* last vs first; NAN with fewer than 2 losses */
	double iter_ms_p50, iter_ms_p95;
	double iter_change_pct;		/* last tenth vs first tenth of the iteration times */
	double straggler_pct;		/* this rank's p50 iteration time above the run's fastest rank's; NAN: one rank */
};

struct gl_training_result {
	struct gl_training_run *runs;	/* by run, then rank */
	size_t n;
	uint64_t records;		/* train records read (before removing duplicates) */
	uint64_t oom;			/* records that say CUDA out of memory */
	uint64_t tracebacks;		/* records holding a Python traceback */
	uint64_t nccl_warnings;		/* NCCL WARN records */
	uint64_t watchdog_timeouts;	/* ProcessGroupNCCL watchdog timeouts */
};

/* The results in st, the training section's state (NULL: none). */
const struct gl_training_result *gl_training_result(const void *st);

#define GL_PNG_TRAIN_LOSS "training_loss.png"
#define GL_PNG_TRAIN_ITER "training_iteration.png"

#endif
