/*
 * record.h - what a parsed record is: the types the ingest side hands to
 * the store and the store keeps (the event, a span, a memory event, a
 * metric sample) and the kind of record an event is.
 *
 * Layer: below lib/ingest (which fills them) and lib/store (which writes
 * and reads them); above lib/util. Nothing here knows an input format.
 */
#ifndef GL_RECORD_H
#define GL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "../gpulog.h"
#include "../util/timeutil.h"

/* A slice of bytes, not NUL-terminated. p == NULL means absent. */
struct gl_str {
	const char *p;
	size_t len;
};

/*
 * What wrote an event: a service log line, or a profiler trace. A record
 * of another source than GL_SRC_LOG is stored as a GL_EV_TRACE record
 * (gl_event_kind()): the report reads the kernel-trace columns only where
 * the database holds such a record (a new trace format joins the loop of
 * tests/cli/t_report_sources.sh).
 */
enum gl_ev_source {
	GL_SRC_LOG = 0,			/* a log line (JSON, text); the default */
	GL_SRC_GPUFL,			/* GPUFlight client NDJSON */
	GL_SRC_KINETO,			/* PyTorch profiler (Kineto) trace */
	GL_SRC_NSYS,			/* nsys stats cuda_gpu_trace CSV */
};

/* The source's short name ("log", "gpufl", "kineto", "nsys"). */
const char *gl_ev_source_name(enum gl_ev_source src);

/*
 * What a record is, as its parser knew it, stored with it (events.kind,
 * schema 8) so that a report finds a kind of record by it and never by the
 * input format that wrote it. Values are stored: never renumber.
 */
enum gl_ev_kind {
	GL_EV_LOG = 0,			/* a log line (the default) */
	GL_EV_TRACE = 1,		/* a profiler trace's record (gl_event.source not GL_SRC_LOG) */
	GL_EV_ALERT = 2,		/* a monitor's alert: its metadata holds a "severity" text
					 * (metric, value and threshold beside it) */
	GL_EV_ACCESS = 3,		/* an HTTP server's access line of a POST to /v1/ answered
					 * with a status of 100 to 399:
					 * 10.0.3.17:51234 - "POST /v1/completions HTTP/1.1" 200 OK */
	GL_EV_ACCESS_FAILED = 4,	/* ... answered with 400 to 599 */
	/* Since schema 9: a record whose metadata holds a fact its parser
	 * found, under the key gl_ev_fact_kind() maps to the kind. */
	GL_EV_TRAIN = 5,		/* a trainer's step: {"train":"hf_state","run":...,"step":500,...} */
	GL_EV_XID = 6,			/* a driver's Xid: {"xid":79,"pci":"0000:3b:00",...}
					 * (a line that is both an Xid and a step: GL_EV_XID) */
	GL_EV_INVENTORY = 7,		/* a GPU of nvidia-smi -q: {"inventory":1,"index":0,...} */
};
#define GL_EV_KINDS 8

/*
 * The kind of the records whose metadata holds the fact named key ("train",
 * "xid", "inventory"); GL_EV_LOG for a key that names no kind.
 */
enum gl_ev_kind gl_ev_fact_kind(const char *key);

/*
 * One log record, normalized. Absent numbers are NAN (doubles) or -1
 * (counts); absent strings have p == NULL. Units are in the names.
 */
struct gl_event {
	int64_t ts_us;			/* UTC µs; GL_TS_NONE when the line has none */
	enum gl_level level;
	struct gl_str component;	/* "component"; ingest fills it from the file name when absent */
	struct gl_str message;		/* "message", or the text of a text-log record */
	struct gl_str kernel;		/* gpu_metrics.kernel_name, or "Kernel X executed in ..." */
	struct gl_str metadata;		/* JSON text of an object; "metadata", or fields of text formats */
	double dur_us;			/* gpu_metrics.execution_time_us, or the text timing */
	double exec_ms;			/* execution_time_ms */
	double mem_mb;			/* memory_usage_mb */
	double alloc_mb;		/* gpu_metrics.memory_allocated_mb */
	double peak_mb;			/* gpu_metrics.memory_peak_mb */
	double util_pct;		/* gpu_metrics.gpu_utilization_percent */
	int64_t error_count;		/* gpu_metrics.error_count; -1 absent */
	int64_t recovery_attempts;	/* gpu_metrics.recovery_attempts; -1 absent */
	int anomaly;			/* gpu_metrics.performance_anomaly: -1 absent, 0, 1 */
	/*
	 * Kernel-trace fields (profiler traces: gpufl, Kineto, nsys). Absent:
	 * NAN, -1, p NULL. A trace kernel has ts_us = its GPU start and
	 * dur_us = its GPU duration, like a service's kernel timing.
	 */
	double launch_overhead_us;	/* CPU time of the launch call (gpufl api_exit_ns - api_start_ns; Kineto cudaLaunchKernel dur) */
	double queue_us;		/* launch call's end to GPU start, >= 0 */
	double occupancy;		/* achieved occupancy 0..1 (gpufl occupancy; Kineto "est. achieved occupancy %" / 100) */
	struct gl_str device;		/* GPU as text: "0", a uuid or a name */
	struct gl_str stream;		/* CUDA stream as text: "7" */
	struct gl_str grid;		/* "128,1,1" */
	struct gl_str block;		/* "256,1,1" */
	int64_t registers;		/* registers per thread */
	int64_t shared_mem_bytes;	/* static + dynamic shared memory per block */
	int64_t corr_id;		/* CUPTI correlation id */
	struct gl_str scope;		/* enclosing user scopes, outermost first, '|'-separated: "timestep|solve" */
	struct gl_str stack;		/* call stack, '|'-separated */
	enum gl_ev_source source;	/* where the event came from (a service log, a profiler) */
	enum gl_ev_kind kind;		/* what the parser knew the record is; GL_EV_LOG: nothing
					 * more (see gl_event_kind()) */
};

/* Sets every field of ev to "absent" (source GL_SRC_LOG, kind GL_EV_LOG). */
void gl_event_init(struct gl_event *ev);

/*
 * The kind ev is stored with: the one its parser set, or GL_EV_TRACE for a
 * record of a profiler (a source other than GL_SRC_LOG) whose parser set
 * none.
 */
static inline enum gl_ev_kind gl_event_kind(const struct gl_event *ev)
{
	if (ev->kind != GL_EV_LOG)
		return ev->kind;
	return ev->source != GL_SRC_LOG ? GL_EV_TRACE : GL_EV_LOG;
}

/*
 * A timed span: one closed user scope of a profiler trace (gpufl
 * scope_begin/scope_end, Kineto user_annotation / record_function).
 */
struct gl_span {
	int64_t start_us;		/* UTC µs */
	double dur_us;
	struct gl_str name;		/* the scope's own name: "solve" */
	struct gl_str path;		/* enclosing scopes and itself, '|'-separated: "timestep|solve" */
	int depth;			/* 0 for an outermost scope */
	struct gl_str device;		/* GPU as text, p NULL: not per device */
	enum gl_ev_source source;
};

void gl_span_init(struct gl_span *sp);

enum gl_mem_action {
	GL_MEM_ALLOC = 0,		/* "allocate" */
	GL_MEM_FREE = 1,		/* "free" */
	GL_MEM_ALLOC_FAIL = 2,		/* "allocate failure" */
};

/* One RMM memory event (logging_resource_adaptor CSV row). */
struct gl_memev {
	int64_t ts_us;			/* UTC µs (date from the file, see GL_FMT_TIME_OF_DAY) */
	int64_t thread;			/* Thread column */
	enum gl_mem_action action;	/* Action column */
	uint64_t ptr;			/* Pointer column; "(nil)" is 0 */
	int64_t size_bytes;		/* Size column */
	uint64_t cuda_stream;		/* Stream column (hex) */
};

/*
 * One metric sample: a number a source measured at a time (nvidia-smi,
 * dmon, DCGM, gpufl device readings, Prometheus, ...). Metric names are
 * canonical, with the unit in the name ("gpu.utilization_pct",
 * "gpu.memory_used_mib", "gpu.power_w"; the vocabulary is in
 * gpulog-ingest(1)); a field outside the vocabulary keeps its own name under
 * the source's prefix ("nvidia_smi.clocks_event_reasons").
 */
struct gl_sample {
	int64_t ts_us;			/* UTC µs */
	struct gl_str metric;		/* canonical name */
	double value;
	struct gl_str device;		/* GPU index as text ("0"), else uuid or name; p NULL: not per device */
	struct gl_str labels;		/* JSON object text of further labels ({"uuid":"GPU-..","name":".."}); p NULL: none */
	int ts_estimated;		/* 1: ts_us placed, not read (config start + interval_s, a monotonic clock) */
};

#endif
