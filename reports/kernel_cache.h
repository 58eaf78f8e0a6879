/*
 * kernel_cache.h - the kernel timings of the event pass, kept so that the
 * kernel pass (section.h) can be replayed from memory instead of read
 * again from the database.
 *
 * Why: the kernel pass reads the window's kernel timings ordered by
 * (kernel_id, ts_us, id) through the index events_kernel_ts, and every row
 * costs a lookup of the table row; kernels alternate in time, so each
 * kernel's rows are spread over the whole table and the pass reads it
 * again once per kernel (measured: 10M events over 7 days, 20 kernels,
 * 12 s of a 23 s report). The event pass already sees every timing in
 * (ts_us, id) order, and within one kernel that is the order of the
 * kernel pass: keeping each kernel's timings in arrival order and handing
 * them out kernel by kernel, ascending id, gives the same rows in the same
 * order.
 *
 * Kept per timing: ts_us, dur_us and whether anomaly == 1, as a 32-bit
 * word of the time's step from the kernel's previous timing (zigzag, with
 * the flag in its low bit; a step past 2^30 us, 18 minutes, is escaped and
 * follows in 8 bytes) and the double's 8 bytes: 12 bytes, at most 20 (the
 * 10M-event bench: 108 MB for 9M timings, against 144 MB as two words).
 * Per kernel the timings live in a chain of blocks growing from 32 bytes
 * to 2 MiB (on huge pages: util/bigmem.h), so that a kernel with one
 * timing costs little and a long one wastes at most one block's tail.
 *
 * Memory is bounded by max_timings: past it, or when an allocation fails,
 * the cache drops what it holds and says so (gl_kcache_ok false); the
 * driver then reads the kernel pass from the database again with
 * gl_kcache_pass_db, a group of kernels at a time.
 */
#ifndef GL_KERNEL_CACHE_H
#define GL_KERNEL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/query.h"

/* The default bound: 12M timings, about 144 MB (10M events of the bench: 9M timings, 108 MB). */
#define GL_KCACHE_MAX_TIMINGS 12000000u

struct gl_kcache;

/* A cache for kernel ids 0 .. n_ids - 1, at most max_timings timings; NULL: out of memory. */
struct gl_kcache *gl_kcache_new(size_t n_ids, size_t max_timings);

/*
 * Appends a timing of kernel_id (< n_ids, > 0) at ts_us (0 .. INT64_MAX / 4,
 * past the year 9999 of any report's window). After the
 * bound is passed or an allocation failed, does nothing: the cache is
 * dropped (gl_kcache_ok false) and stays so.
 */
void gl_kcache_add(struct gl_kcache *c, int64_t kernel_id, int64_t ts_us, double dur_us,
		   bool anomaly);

/* Does the cache hold every timing added? */
bool gl_kcache_ok(const struct gl_kcache *c);

/* Timings held. */
size_t gl_kcache_count(const struct gl_kcache *c);

/*
 * Calls fn for each timing, kernel by kernel in ascending id, each
 * kernel's in the order added, with an event of ts_us, kernel_id, dur_us
 * and anomaly (1 or 0) set, dup_of 0, mem_mb and exec_ms NAN, counters -1,
 * ids and text 0 / NULL (the driver filtered on component and host
 * already). Each kernel's
 * blocks are freed once handed out, so the cache is empty afterwards. fn
 * returns 0 to go on, else the walk stops and that value is returned.
 */
int gl_kcache_replay(struct gl_kcache *c, int (*fn)(void *arg, const struct gl_query_event *ev),
		     void *arg);

void gl_kcache_free(struct gl_kcache *c);

/*
 * The kernel pass from the database, when the cache could not hold it:
 * calls fn for the window's kernel timings that keep() accepts (the same
 * rows the event pass counted into kernel_n[id], id < n_ids), kernel by
 * kernel in ascending id, each kernel's in (ts_us, id) order: the order
 * the cache replays.
 *
 * There is no (kernel_id, ts_us) index (schema 5 dropped it: it was a
 * fifth of a kernel trace's ingest); the window is read again in time
 * order (gl_query_events, GL_QUERY_KERNELS_ONLY) once per group of
 * kernels of ascending id whose timings, by kernel_n, fit max_timings,
 * each group cached and replayed. A kernel with more timings than that
 * alone is a group of its own whose rows go to fn as they are read (in
 * time order, which for one kernel is the pass's order). A group whose
 * cache fails (out of memory, a time before 1970) is read again kernel by
 * kernel that way. Events handed to fn from a cache carry what
 * gl_kcache_replay sets; the others are the rows as read.
 *
 * Returns GL_OK, a gl_query error, or fn's nonzero value.
 */
int gl_kcache_pass_db(struct gl_query *q, int64_t since_us, int64_t until_us,
		      const uint64_t *kernel_n, size_t n_ids, size_t max_timings,
		      bool (*keep)(void *arg, const struct gl_query_event *ev),
		      int (*fn)(void *arg, const struct gl_query_event *ev), void *arg,
		      struct gl_err *err);

#endif
