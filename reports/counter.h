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

/*
 * Does a counter series' first value in the window count from zero? In:
 * before (the series has a sample before the window), first_us (its first
 * sample in it), interval_us (its scrape interval, 0 when unknown), since_us
 * (the window's start), created_us (its own _created sample: when it was 0)
 * and start_us (process_start_time_seconds of its job and instance); each
 * start GL_TS_NONE when unknown.
 *
 * - A sample before the window: no, the first value is a base.
 * - _created known: yes when the series was created in the window, else no.
 * - The process start known, and the first sample not before it (else the
 *   start is a later process's, and the rule below holds): yes when the
 *   process started in the window (every count since is the window's), or
 *   the series starts with it (first sample within one scrape interval);
 *   no when the process counted before the window and the series' first
 *   value may hold counts from before it.
 * - Nothing known: yes (the series starts in the window: a failure counter
 *   whose first scrape holds one failure counts it).
 */
bool gl_counter_from_zero(bool before, int64_t first_us, int64_t interval_us,
			  int64_t since_us, int64_t created_us, int64_t start_us);

#endif /* GL_COUNTER_H */
