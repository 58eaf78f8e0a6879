/*
 * kineto.h - internal to lib/ingest: the Kineto trace format in two files.
 * fmt_kineto.c walks a trace's elements (the scanner, the launch-call map,
 * held kernels, one record per line) and kineto_map.c maps one element to a
 * record (its fields, kernel timing, span, device). Shared here: the
 * per-file state and the mapping functions.
 */
#ifndef GL_KINETO_H
#define GL_KINETO_H

#include "format.h"
#include "json_scan.h"
#include "jsonstream.h"

#define KIN_UNIT_MAX (1u << 20)		/* an element over 1 MiB is rejected */
#define KIN_MAP 4096			/* launch calls remembered (direct-mapped by correlation) */
#define KIN_HOLD_UNITS 8		/* elements a kernel waits for its launch call */
#define KIN_STACK 16			/* nested annotations followed per thread */
#define KIN_TIDS 8			/* threads followed per annotation category */


/* Plain bytes in ctx->state (persisted with the stream's position). */
struct kin_state {
	char magic[4];
	int32_t started;	/* the document is known to be a trace */
	struct gl_jstream_pos pos;	/* the scanner's place */
	int32_t has_base;
	int64_t base_ns;	/* baseTimeNanoseconds */
	int32_t broken;		/* a structural error was met */
	char why[80];		/* ... and its reason */
};

/*
 * A ts as written, whole µs and the fraction apart: "ts": 1712195495505582.988
 * has 16 significant digits, more than a double keeps exactly at 1e15 µs
 * (a quarter µs), and queue times are differences of such values.
 */
struct kts {
	int64_t whole;
	double frac;		/* 0 <= frac < 1 */
};

struct launch {
	int64_t corr;		/* -1: empty */
	struct kts ts;		/* the call */
	double dur_us;
};

/* A record being built or held: strings point into buf. */
struct slot {
	enum gl_rec_kind kind;
	struct gl_event ev;
	struct gl_span sp;
	struct kts ts;		/* the kernel's ts as written (for the queue time) */
	int waited;		/* elements since it was held */
	char *buf;
	size_t used, cap;
};

struct annot {
	double start_raw, end_raw;	/* ts and ts + dur as written */
	size_t off, len;	/* the name in the stack's text */
};

struct astack {
	int64_t tid;
	uint64_t used;		/* when last used, to replace the stalest */
	int n;
	struct annot a[KIN_STACK];
	char text[4096];	/* the names, '|'-separated */
	size_t text_len;
};

struct kin {
	struct gl_jstream js;
	struct kin_state st;	/* working copy; into ctx->state on lines that end with hold 0 */
	int known;		/* a member name of a Kineto trace was seen */
	struct launch map[KIN_MAP];
	struct slot slot[2];
	int held;		/* index of the held slot, -1 none */
	int emitted;		/* index of the slot emitted by the last call, -1 none */
	struct astack stacks[2][KIN_TIDS];	/* per category (user_annotation, gpu_user_annotation), per thread */
	uint64_t stack_clock;
	char reason[160];
	/*
	 * The last line's result when it was one ingest parses a second time
	 * (records.c's classify() tries the other formats on anything but an
	 * event, then parses again): the same line must not be fed twice.
	 */
	int again;
	uint64_t again_hash;
	size_t again_len;
	struct gl_rec again_rec;
	int again_hold;
};

/* The fields of one trace event that matter here. */
struct tev {
	struct gl_json_val ph, cat, name, pid, tid, ts, dur;
	struct gl_json_val device, stream, corr, regs, smem, grid, block, occ;
};

/* The event categories: GPU work, launch calls, annotations (NULL-ended). */
extern const char *const gl_kin_gpu_cats[];
extern const char *const gl_kin_launch_cats[];
extern const char *const gl_kin_annot_cats[];

int gl_kin_slot_reserve(struct slot *s, size_t n);
int gl_kin_is_cat(const struct gl_str *c, const char *const *names);
int gl_kin_num(const struct gl_json_val *v, double *d);
int gl_kin_scan_event(const char *p, size_t n, struct tev *t, const char **why);
/* 0 with *t; -1: not a number; -2: a number out of range (1e308). */
int gl_kin_ts_split(const struct gl_json_val *v, struct kts *t);
int gl_kin_build_kernel(struct kin_state *st, struct slot *s, const struct tev *t,
			const char **why);
void gl_kin_apply_launch(struct slot *s, struct kts call_ts, double call_dur);
int gl_kin_build_span(struct kin *k, struct kin_state *st, struct slot *s, const struct tev *t,
		      int which, const char **why);
int gl_kin_build_device(struct slot *s, const char *p, size_t n, const char **why);

#endif
