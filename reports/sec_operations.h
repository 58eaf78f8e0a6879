/*
 * sec_operations.h - the results of the operations section
 * (sec_operations.c), kept in its own state: per operation, its timings in
 * the window. For tests through gl_operations_result.
 */
#ifndef GL_SEC_OPERATIONS_H
#define GL_SEC_OPERATIONS_H

#include "report.h"

/*
 * One operation: records with an execution time and no kernel, named by
 * metadata.operation, else by the message ("Operation layout_step completed
 * in 2.38ms"), else by the component.
 */
struct gl_report_operation {
	char *operation;
	char *component;		/* of its first record; "" when none */
	uint64_t count;
	double min_ms, max_ms, mean_ms;
	double stddev_ms;		/* sample (n - 1); NAN for one sample */
	double p50_ms, p95_ms, p99_ms;	/* linear interpolation */
	double total_ms;
	double mean_throughput;		/* mean metadata.throughput; NAN when none */
	uint64_t throughput_n;		/* records with metadata.throughput */
};

struct gl_operations_result {
	struct gl_report_operation *operations;	/* by total_ms, largest first */
	size_t n_operations;
};

/* The section's results in rep; none when rep holds no operations state. The result
 * comes first in the state (a hand-made model's to fill). */
const struct gl_operations_result *gl_operations_result(const struct gl_report *rep);

#endif
