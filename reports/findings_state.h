/*
 * findings_state.h - the findings section's state, shared by its two files
 * only: sec_findings.c (collect, test, explain, output) and
 * findings_chart.c (its charts, drawn from the same buckets). Nothing
 * outside them includes it but the section's unit test (bucket_at); the
 * section's results are read through sec_findings.h.
 */
#ifndef GL_FINDINGS_STATE_H
#define GL_FINDINGS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sec_findings.h"
#include "section.h"


#define FB_N 240		/* buckets over the data's span */
#define FB_K 7			/* values a bucket keeps for its median */

struct fser {
	int src;
	int64_t name_id;		/* kernel: names id; else 0 */
	char *name;			/* operation, metric or run; kernel: NULL (from name_id) */
	int64_t host_id;
	char *device;			/* as the records write it; NULL: none */
	long rank;
	const char *unit;
	int higher_worse;
	uint64_t n;
	uint32_t *bn;			/* FB_N counts */
	float *bv;			/* FB_N x FB_K kept values */
	double med[FB_N];		/* finish: bucket medians, NAN when empty */
};

enum { T_UTIL, T_SM, T_POWER, T_TEMP, T_MEM, T_PROC, T_COUNT };
static const char *const t_metrics[T_COUNT] = {
	"gpu.utilization_pct", "gpu.sm_clock_mhz", "gpu.power_w", "gpu.temperature_c",
	"gpu.memory_used_mib", "pmon.utilization_pct",
};

struct tser {
	int met;
	int64_t host_id;
	const char *device;		/* borrowed from the series table */
	const char *labels;		/* pmon: {"pid", "command"} */
	double sum[FB_N];
	uint32_t n[FB_N];
};

enum { E_ERR, E_OOM, E_XID, E_NCCL, E_COUNT };
static const char *const e_names[E_COUNT] = {"errors", "oom", "xid", "nccl_warnings"};

struct hev {
	int64_t host_id;
	uint32_t c[E_COUNT][FB_N];
};

struct findings {
	int64_t t0_us, t1_us;		/* the data's span */
	/* bucket_at: the bucket of the row before and the times it spans,
	 * [bc_lo_us, bc_hi_us); empty at first */
	int64_t bc_lo_us, bc_hi_us;
	size_t bc_b;
	struct fser *s;
	size_t n_s, cap_s;
	uint32_t *hash;			/* index + 1 into s; 0 empty */
	size_t n_hash;
	/* per kernel name id, index + 1 into s of its series last used (of the
	 * host and device of a kernel's rows before: most are of one), or 0 */
	uint32_t *kernel_s;
	size_t n_kernel_s;
	size_t skipped;
	struct gl_section_series ss;
	long *row_t;			/* per series row: its tser, -1 */
	long *row_s;			/* per series row: its fser (inference), -1 */
	struct tser *t;
	size_t n_t;
	struct hev *h;
	size_t n_h;
	uint64_t rng;
	char **names;			/* per host and kernel name id used, for output: copies */
	struct gl_fev *fev;		/* throttle reasons, ECC, processes (findings_evidence.c) */
	struct gl_findings_result res;
	bool loaded;
};

/* The bucket of ts_us. */
static inline size_t bucket_of(const struct findings *f, int64_t ts_us)
{
	if (ts_us <= f->t0_us)
		return 0;
	if (ts_us >= f->t1_us)
		return FB_N - 1;
	return (size_t)((double)(ts_us - f->t0_us) * FB_N / (double)(f->t1_us - f->t0_us + 1));
}

/*
 * bucket_of for rows in time order (each pass is), without its division a
 * row: the bucket of the row before is kept with the times it spans, found
 * by halving (bucket_of is monotone in the time: each step of it is), and
 * looked for again only where the time leaves them.
 */
static inline size_t bucket_at(struct findings *f, int64_t ts_us)
{
	size_t b;
	int64_t a, z;

	if (ts_us >= f->bc_lo_us && ts_us < f->bc_hi_us)
		return f->bc_b;
	b = bucket_of(f, ts_us);
	/* the first time of b: bucket_of(a) < b <= bucket_of(z) */
	if (b == 0)
		f->bc_lo_us = INT64_MIN;
	else {
		for (a = f->t0_us, z = ts_us; z - a > 1;) {
			int64_t m = a + (z - a) / 2;

			*(bucket_of(f, m) < b ? &a : &z) = m;
		}
		f->bc_lo_us = z;
	}
	/* the first time past b: bucket_of(a) <= b < bucket_of(z) */
	if (b == FB_N - 1)
		f->bc_hi_us = INT64_MAX;
	else {
		for (a = ts_us, z = f->t1_us; z - a > 1;) {
			int64_t m = a + (z - a) / 2;

			*(bucket_of(f, m) > b ? &z : &a) = m;
		}
		f->bc_hi_us = z;
	}
	f->bc_b = b;
	return b;
}

/* The start of bucket b. */
static inline int64_t bucket_start(const struct findings *f, size_t b)
{
	return f->t0_us + (int64_t)((double)(f->t1_us - f->t0_us + 1) * (double)b / FB_N);
}

static inline bool host_match(int64_t a, int64_t b)
{
	return a == b || a == 0 || b == 0;
}

/* The implicated evidence of that metric in fd; NULL when none. */
static inline const struct gl_finding_evidence *ev_of(const struct gl_finding *fd, const char *metric)
{
	for (size_t i = 0; i < fd->n_evidence; i++)
		if (fd->evidence[i].implicated && !strcmp(fd->evidence[i].metric, metric))
			return &fd->evidence[i];
	return NULL;
}

/* The charts of the section (findings_chart.c), NULL-ended. */
extern const struct gl_chart_def gl_findings_charts[];

#endif
