/*
 * launch_once.h - one launch is one timing. In: the kernel timings of the
 * window in time order (the event pass, or the kernel pass read again from
 * the database). Out: for each, whether it is a copy of the previous timing
 * of its kernel.
 *
 * The analytics service logs a slow launch twice: the INFO record of the
 * launch, then an anomaly WARN record carrying the same gpu_metrics,
 *
 *   {"timestamp": "2025-11-20T10:00:04.125000Z", "level": "INFO", "message":
 *    "Kernel growing_gemm executed in 4123.50μs", "gpu_metrics":
 *    {"kernel_name": "growing_gemm", "execution_time_us": 4123.5, ...}}
 *   {"timestamp": "2025-11-20T10:00:04.125000Z", "level": "WARNING", "message":
 *    "Performance anomaly detected: growing_gemm took 4123.50μs", "gpu_metrics":
 *    {"kernel_name": "growing_gemm", "execution_time_us": 4123.5, ...}}
 *
 * and the copies are exactly the slow launches: counted, they bias mean and
 * p95 up. A timing of the same kernel, at the same microsecond, of the same
 * duration as the kernel's previous timing is that launch again: its record
 * stays (a WARN in the errors section), its timing is not counted.
 *
 * The WARN is a second logging call: its time may be a few microseconds
 * after the INFO's, or written at millisecond resolution (".125Z" for the
 * INFO's ".125431Z", so before it). So a timing of the same kernel and
 * duration less than GL_LAUNCH_ONCE_TOL_US from the previous one is a copy
 * too when one of the two is a warning record and the other is not, and
 * each record pairs once: two launches of one kernel logged at INFO (or two
 * at WARN) are only one launch at the same microsecond, and INFO, WARN,
 * INFO of equal duration within the tolerance are two launches.
 */
#ifndef GL_LAUNCH_ONCE_H
#define GL_LAUNCH_ONCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How far apart an INFO record and its WARN copy may be stamped. */
#define GL_LAUNCH_ONCE_TOL_US 1000

struct gl_launch_once {
	int64_t *ts_us;		/* per kernel id: its previous timing's start XOR INT64_MIN
				 * (0: none; zeroed pages are not touched) */
	double *dur_us;		/* ... and duration */
	unsigned char *warn;	/* ... its record's level was WARN or worse (bit 0),
				   it was paired already (bit 1) */
	size_t n_ids;
	uint64_t copies;	/* timings found to be copies */
};

/* For kernel ids 0 .. n_ids - 1; GL_OK or GL_ENOMEM. Release with _release. */
int gl_launch_once_init(struct gl_launch_once *l, size_t n_ids);

void gl_launch_once_release(struct gl_launch_once *l);

/*
 * Is this timing a copy of the kernel's previous one? Call for each timing
 * of a pass, in time order; warn: its record's level is WARN or worse. A
 * pass that starts again (a time before the kernel's previous one by more
 * than the tolerance) starts the kernel afresh. Ids past n_ids: never.
 */
bool gl_launch_once_copy(struct gl_launch_once *l, int64_t kernel_id, int64_t ts_us,
			 double dur_us, bool warn);

#endif /* GL_LAUNCH_ONCE_H */
