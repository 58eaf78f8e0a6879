/*
 * counter.h - the increase of a running total read in time order: a
 * service's gpu_metrics.error_count and recovery_attempts, a Prometheus
 * counter (*_total). In: the values, oldest first, of ONE process's counter
 * (the caller keys the series by process and host, not by file: a
 * service's gpu.log and its mirrored error.log are two views of one
 * counter, and reading each apart counts every rise twice). Out: the
 * increase, the resets, the largest value.
 *
 * A fall is a restart: the process counted from zero since (Prometheus'
 * increase() without extrapolation to the window's edges). The first value
 * is either a base (the process ran before the series starts: only rises
 * after it count) or, when the caller knows the series starts with its
 * process, itself an increase from zero: a counter whose first scrape
 * already holds one failure counts that failure.
 */
#ifndef GL_COUNTER_H
#define GL_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

struct gl_counter {
	uint64_t n;		/* values read */
	uint64_t resets;	/* falls */
	double first, prev;	/* the first and the last value */
	double rises;		/* sum of the rises after the first value, restarts from 0 */
	double max;		/* the largest value */
};

void gl_counter_init(struct gl_counter *c);

/* Reads the next value (finite, >= 0; others are ignored). */
void gl_counter_add(struct gl_counter *c, double v);

/*
 * The increase over the series: the rises after the first value, plus the
 * first value itself when from_zero (the series starts with its process).
 * NAN when no value was read, or only one and not from_zero.
 */
double gl_counter_increase(const struct gl_counter *c, bool from_zero);

#endif /* GL_COUNTER_H */
