/*
 * sec_findings.h - the results of the findings section (sec_findings.c),
 * kept in the section's state: what changed (a kernel's or an operation's
 * duration, a training run's iteration time or throughput, an inference
 * latency, time to first token or tokens/s), when, by how much, and what the
 * same host's GPUs did over that interval against just before it.
 */
#ifndef GL_SEC_FINDINGS_H
#define GL_SEC_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "section.h"

extern const struct gl_section gl_sec_findings;

/* One piece of evidence: a GPU metric over the interval against just before it, or a
 * count of events (errors, OOMs, Xid, NCCL warnings, a process) in the same intervals. */
struct gl_finding_evidence {
	char metric[48];		/* "gpu.power_w", "errors", "oom", "xid", "nccl_warnings",
					   "process"; findings_evidence.c: "throttle", "ecc",
					   "process_busier", "process_memory" */
	char device[48];		/* the GPU as written; "" for a host's events */
	char detail[96];		/* a process: its command and pid; throttle: the reasons;
					   ecc: the counter's metric; else "" */
	double before, during;		/* metric: the means of its bucket means; events: counts;
					   process: the share of the buckets it was seen in */
	double change_pct;		/* during vs before; NAN for events from none */
	int event;			/* 1: a count of events, 0: a metric */
	int implicated;			/* 1: of the GPU the finding is attributed to */
};

struct gl_finding {
	char *series;			/* "compact_frontier_kernel", "operation layout_step",
					   "train.iteration_ms job/run1 rank 0", "inference.ttft_ms" */
	char *kernel;			/* source kernel: its full name (series: its display name,
					   sec_kernels.h); else NULL */
	const char *source;		/* "kernel", "operation", "training", "inference" */
	const char *unit;		/* "us", "ms", "tokens/s", "samples/s" */
	const char *kind;		/* "window", "step", "trend" */
	char *host;			/* "" when the records name none */
	char *device;			/* the GPU; NULL when none could be told */
	long rank;			/* -1: none */
	const char *attributed_by;	/* "record" (it names its GPU), "telemetry" (that GPU's
					   state changed then), "none" */
	const char *confidence;		/* "high", "medium", "low" */
	int64_t start_us, end_us;	/* the changed interval */
	double before, during;		/* medians of the series' bucket medians */
	double change_pct;
	double p_value;
	double score;			/* |ln(during / before)| x seconds: the ranking */
	int worse;			/* 1: slower or less throughput */
	struct gl_finding_evidence *evidence;
	size_t n_evidence;
	char *together;			/* other series that changed at the same moment, ", "-joined */
	uint64_t unchanged;		/* series of the same source and host that did not change */
	char *sentence;			/* one plain sentence */
	size_t ser;			/* index of its series in the section's state (charts) */
};

struct gl_findings_result {
	struct gl_finding *items;	/* by score, highest first */
	size_t n;
	size_t tested;			/* series with enough data to be tested */
	size_t skipped;			/* series over the section's limit, not tested */
};

/* The findings of rep; NULL when rep was not built with the section (a hand-made model). */
const struct gl_findings_result *gl_findings_result(const struct gl_report *rep);

/* Charts: one per top finding. */
#define GL_FINDINGS_CHARTS 3

#endif
