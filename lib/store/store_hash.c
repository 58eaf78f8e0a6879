/*
 * store_hash.c - the record hash (events.rec_hash): computed on the parsing
 * thread for each record, and by SQL (gl_rec_hash()) for the rows the
 * migration to schema 3 hashed.
 */
#include "store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../util/bigmem.h"
#include "../util/hash.h"
#include "../util/timeutil.h"
#include "evpack.h"

/* --- record hash ------------------------------------------------------ */

/*
 * The record's fields go into the hash as one byte string: per field a
 * tag byte (present or not), then for a string its length (8 bytes) and
 * bytes, for a number its 8 bytes. The string is gathered in a buffer
 * and hashed in pieces (the hash does not depend on how it is cut): one
 * call per 512 bytes instead of two or three calls per field (about 35 a
 * kernel record). test_store checks it against the field-by-field form.
 */
struct rec_buf {
	struct gl_hash h;
	size_t n;
	unsigned char b[512];
};

static inline void rb_bytes(struct rec_buf *rb, const void *p, size_t n)
{
	if (n > sizeof(rb->b) - rb->n) {
		gl_hash_update(&rb->h, rb->b, rb->n);
		rb->n = 0;
		if (n > sizeof(rb->b)) {
			gl_hash_update(&rb->h, p, n);
			return;
		}
	}
	memcpy(rb->b + rb->n, p, n);
	rb->n += n;
}

static inline void hash_str(struct rec_buf *rb, struct gl_str s)
{
	unsigned char tag = s.p != NULL;
	uint64_t len = s.len;

	rb_bytes(rb, &tag, 1);
	if (!s.p)
		return;
	rb_bytes(rb, &len, 8);
	rb_bytes(rb, s.p, s.len);
}

static inline void hash_int(struct rec_buf *rb, int present, int64_t v)
{
	unsigned char tag = (unsigned char)(present != 0);

	rb_bytes(rb, &tag, 1);
	if (present)
		rb_bytes(rb, &v, 8);
}

static inline void hash_real(struct rec_buf *rb, double v)
{
	unsigned char tag = !isnan(v);

	rb_bytes(rb, &tag, 1);
	if (tag) {
		if (v == 0)
			v = 0;	/* -0.0 and 0.0 are one value */
		rb_bytes(rb, &v, 8);
	}
}

uint64_t gl_store_rec_hash(const struct gl_event *e, struct gl_str host)
{
	struct rec_buf rb;

	gl_hash_init(&rb.h, 0x7265635f68617368ULL);
	rb.n = 0;
	hash_int(&rb, e->ts_us != GL_TS_NONE, e->ts_us);
	hash_int(&rb, 1, (int64_t)e->level);
	hash_str(&rb, e->component);
	hash_str(&rb, host);
	hash_str(&rb, e->kernel);
	hash_str(&rb, e->message);
	hash_str(&rb, e->metadata);
	hash_real(&rb, e->dur_us);
	hash_real(&rb, e->exec_ms);
	hash_real(&rb, e->mem_mb);
	hash_real(&rb, e->alloc_mb);
	hash_real(&rb, e->peak_mb);
	hash_real(&rb, e->util_pct);
	hash_int(&rb, e->error_count >= 0, e->error_count);
	hash_int(&rb, e->recovery_attempts >= 0, e->recovery_attempts);
	hash_int(&rb, e->anomaly >= 0, e->anomaly);
	/*
	 * The kernel-trace fields, only when the record has one (a log line's
	 * hash stays what it was, and what the migration computed for rows
	 * stored before): two launches of one kernel at one time on two
	 * streams are two records.
	 */
	if (e->source != GL_SRC_LOG || e->corr_id >= 0 || e->device.p || e->stream.p ||
	    !isnan(e->launch_overhead_us) || !isnan(e->queue_us) || !isnan(e->occupancy) ||
	    e->grid.p || e->block.p || e->registers >= 0 || e->shared_mem_bytes >= 0 ||
	    e->scope.p || e->stack.p) {
		hash_int(&rb, 1, (int64_t)e->source);
		hash_real(&rb, e->launch_overhead_us);
		hash_real(&rb, e->queue_us);
		hash_real(&rb, e->occupancy);
		hash_str(&rb, e->device);
		hash_str(&rb, e->stream);
		hash_str(&rb, e->grid);
		hash_str(&rb, e->block);
		hash_int(&rb, e->registers >= 0, e->registers);
		hash_int(&rb, e->shared_mem_bytes >= 0, e->shared_mem_bytes);
		hash_int(&rb, e->corr_id >= 0, e->corr_id);
		hash_str(&rb, e->scope);
		hash_str(&rb, e->stack);
	}
	gl_hash_update(&rb.h, rb.b, rb.n);
	return gl_hash_final(&rb.h);
}

static struct gl_str value_str(sqlite3_value *v)
{
	struct gl_str s = {NULL, 0};

	if (sqlite3_value_type(v) != SQLITE_NULL) {
		s.p = (const char *)sqlite3_value_text(v);
		s.len = (size_t)sqlite3_value_bytes(v);
		if (!s.p)
			s.p = "";
	}
	return s;
}

static double value_real(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? NAN : sqlite3_value_double(v);
}

static int64_t value_count(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? -1 : sqlite3_value_int64(v);
}

/*
 * SQL gl_rec_hash(ts_us, level, component, host, kernel, message, metadata,
 * dur_us, exec_ms, mem_mb, alloc_mb, peak_mb, util_pct, error_count,
 * recovery_attempts, anomaly): gl_store_rec_hash() of a stored row, for the
 * migration of rows stored before version 3.
 */
void gl_store_sql_rec_hash(sqlite3_context *c, int n, sqlite3_value **a)
{
	struct gl_event e;

	(void)n;
	gl_event_init(&e);
	e.ts_us = sqlite3_value_type(a[0]) == SQLITE_NULL ? GL_TS_NONE : sqlite3_value_int64(a[0]);
	e.level = (enum gl_level)sqlite3_value_int(a[1]);
	e.component = value_str(a[2]);
	e.kernel = value_str(a[4]);
	e.message = value_str(a[5]);
	e.metadata = value_str(a[6]);
	e.dur_us = value_real(a[7]);
	e.exec_ms = value_real(a[8]);
	e.mem_mb = value_real(a[9]);
	e.alloc_mb = value_real(a[10]);
	e.peak_mb = value_real(a[11]);
	e.util_pct = value_real(a[12]);
	e.error_count = value_count(a[13]);
	e.recovery_attempts = value_count(a[14]);
	e.anomaly = (int)value_count(a[15]);
	sqlite3_result_int64(c, (int64_t)gl_store_rec_hash(&e, value_str(a[3])));
}
