/*
 * kernel_trace.h - what the kernels section adds for kernels read from
 * profiler traces (events.source set: gpufl, kineto, nsys): mean launch
 * overhead, queue time and occupancy, the devices and sources seen, and the
 * most frequent (call stack, scope) pair of each kernel, the hotspot. Kept
 * apart from sec_kernels.c so that section's per-kernel state stays small.
 *
 * source is the list of sources, "log" among them when some timings came
 * from log lines; a kernel of log lines only has no source (and no trace
 * fields in the output).
 *
 * Memory per kernel: a few sums, at most GL_KTRACE_DEVICES device strings
 * (packed in one allocation) and at most GL_KTRACE_PAIRS distinct (stack,
 * scope) pairs (later pairs are counted in other_n, never as a hotspot):
 * 96 bytes and the devices' and pairs' arrays (1,000,000 distinct kernels
 * made 1,000,000 of these; 176 bytes each with the devices inline).
 */
#ifndef GL_KERNEL_TRACE_H
#define GL_KERNEL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "sec_kernels.h"
#include "section.h"

#define GL_KTRACE_DEVICES 8
#define GL_KTRACE_PAIRS 256

struct gl_ktrace_pair {
	int64_t stack_id, scope_id;	/* names ids; 0: none */
	uint64_t n;
};

struct gl_ktrace {
	double overhead_sum, queue_sum, occ_sum;
	uint64_t overhead_n, queue_n, occ_n;
	uint64_t other_n;
	char *devs;			/* the devices seen, in order, each ending in NUL */
	struct gl_ktrace_pair *pairs;
	uint32_t devs_len;		/* bytes of devs */
	uint32_t n_pairs, cap_pairs, last;
	unsigned sources;		/* bit per source: gpufl, kineto, nsys, other, log lines */
	uint8_t n_dev;			/* at most GL_KTRACE_DEVICES */
	uint8_t dev_more;		/* a device beyond GL_KTRACE_DEVICES was seen */
};

/* The bit of gl_ktrace.sources for log lines (after gpufl, kineto, nsys, another source). */
#define GL_KTRACE_LOG_LINES (1u << 4)

/* gl_ktrace_add of a profiler trace's timing (ev->source set). */
int gl_ktrace_add_trace(struct gl_ktrace *t, const struct gl_query_event *ev,
			struct gl_err *err);

/* Adds the trace columns of one kernel timing (nothing for a log line);
 * inline: most timings are log lines, one a kernel line of 10M events. */
static inline int gl_ktrace_add(struct gl_ktrace *t, const struct gl_query_event *ev,
				struct gl_err *err)
{
	if (!ev->source) {
		t->sources |= GL_KTRACE_LOG_LINES;
		return GL_OK;
	}
	return gl_ktrace_add_trace(t, ev, err);
}

/* Fills the trace fields of rk (launch_overhead_us ... hot_count) from t. */
int gl_ktrace_finish(const struct gl_ktrace *t, const struct gl_section_ctx *cx,
		     struct gl_report_kernel *rk, struct gl_err *err);

void gl_ktrace_release(struct gl_ktrace *t);

#endif
