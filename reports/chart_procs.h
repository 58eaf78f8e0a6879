/*
 * chart_procs.h - draws a report's charts in two processes.
 *
 * PLplot keeps one global state, so one process draws one chart at a time;
 * a chart is mostly PNG encoding (zlib, libpng: 65% of the chart time), on
 * one core. With two cores the report forks once: the two processes take
 * the next chart job from a shared counter until none is left (the 10M-event
 * report's kernel charts take as long as all the others together). A job
 * writes its files into out->dir under their own names, so the two never
 * touch the same file; the child sends back, through a pipe, each job's
 * status, error and paths, and the caller gets them in job order, as if
 * one process had drawn them all: the same files, the same paths, the
 * first error in job order.
 */
#ifndef GL_CHART_PROCS_H
#define GL_CHART_PROCS_H

#include <stddef.h>

#include "report.h"

/*
 * Runs draw(arg, k, o, err) for k in 0..n, each with an output o of
 * out->dir whose paths are then appended to out in order of k; stops
 * taking jobs after one fails and returns the first failure in order of k
 * (its err), else GL_OK. procs: 1 draws all in this process; 2 forks one
 * helper process when n >= 2 (when fork fails, this process draws all).
 * A helper that dies leaves its jobs failed with GL_EIO.
 */
int gl_chart_procs_run(size_t n, int procs,
		       int (*draw)(void *arg, size_t k, struct gl_output *o, struct gl_err *err),
		       void *arg, struct gl_output *out, struct gl_err *err);

#endif
