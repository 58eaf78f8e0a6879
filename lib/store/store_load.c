/*
 * store_load.c - the ingest state of earlier runs (files, streams,
 * checkpoints), read once at the start of a run into a gl_state that the
 * parsing thread then keeps current (lib/record/state.h).
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

/* --- state ---------------------------------------------------------- */

static char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (char *)t : NULL;
}

int gl_store_load(struct gl_store *st, struct gl_state *s, struct gl_err *err)
{
	sqlite3_stmt *q = NULL;
	int rc = GL_OK, r;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, format, component, first_path, bytes, lines, hash,"
			       " head_bytes, head_hash, day_us, last_tod_us, created_run, parse_state,"
			       " lines_hashed, open_end FROM streams ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_store_db_err(st, err, "cannot read ingest state");
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct gl_sstream x;

		memset(&x, 0, sizeof(x));
		x.id = sqlite3_column_int64(q, 0);
		snprintf(x.format, sizeof(x.format), "%s",
			 col_text(q, 1) ? col_text(q, 1) : "");
		x.component = col_text(q, 2);
		x.first_path = col_text(q, 3);
		x.pos.bytes = (uint64_t)sqlite3_column_int64(q, 4);
		x.pos.lines = (uint64_t)sqlite3_column_int64(q, 5);
		x.pos.hash = (uint64_t)sqlite3_column_int64(q, 6);
		x.head.bytes = (uint64_t)sqlite3_column_int64(q, 7);
		x.head.hash = (uint64_t)sqlite3_column_int64(q, 8);
		x.has_tod = sqlite3_column_type(q, 9) != SQLITE_NULL;
		x.day_us = sqlite3_column_int64(q, 9);
		x.last_tod_us = sqlite3_column_int64(q, 10);
		x.created_run = sqlite3_column_int64(q, 11);
		x.parse_state = (unsigned char *)sqlite3_column_blob(q, 12);
		x.parse_state_len = x.parse_state ? (size_t)sqlite3_column_bytes(q, 12) : 0;
		x.lines_hashed = sqlite3_column_int(q, 13);
		x.open_end = (uint64_t)sqlite3_column_int64(q, 14);
		if (gl_state_add_stream(s, &x) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		rc = gl_store_db_err(st, err, "cannot read ingest state");
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT stream_id, bytes, lines, hash FROM checkpoints"
			       " ORDER BY stream_id, bytes",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = gl_store_db_err(st, err, "cannot read ingest state");
		goto out;
	}
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		int32_t si = gl_state_stream_by_id(s, sqlite3_column_int64(q, 0));
		struct gl_pos p = {(uint64_t)sqlite3_column_int64(q, 1),
				   (uint64_t)sqlite3_column_int64(q, 2),
				   (uint64_t)sqlite3_column_int64(q, 3)};

		if (si >= 0 && gl_state_add_checkpoint(s, si, p) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		rc = gl_store_db_err(st, err, "cannot read ingest state");
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id, path, dev, ino, size, mtime_ns, raw_head_hash, gzip,"
			       " stream_id, consumed, tail_hash, status, note FROM files ORDER BY id",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = gl_store_db_err(st, err, "cannot read ingest state");
		goto out;
	}
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		struct gl_sfile f;

		memset(&f, 0, sizeof(f));
		f.id = sqlite3_column_int64(q, 0);
		f.path = col_text(q, 1);
		f.dev = sqlite3_column_int64(q, 2);
		f.ino = sqlite3_column_int64(q, 3);
		f.size = sqlite3_column_int64(q, 4);
		f.mtime_ns = sqlite3_column_int64(q, 5);
		f.raw_head_hash = (uint64_t)sqlite3_column_int64(q, 6);
		f.gzip = sqlite3_column_int(q, 7);
		f.stream_id = sqlite3_column_int64(q, 8);
		f.consumed = (uint64_t)sqlite3_column_int64(q, 9);
		f.has_tail = sqlite3_column_type(q, 10) != SQLITE_NULL;
		f.tail_hash = (uint64_t)sqlite3_column_int64(q, 10);
		snprintf(f.status, sizeof(f.status), "%s", col_text(q, 11) ? col_text(q, 11) : "");
		f.note = col_text(q, 12);
		if (gl_state_add_file(s, &f) < 0) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	if (r != SQLITE_DONE)
		rc = gl_store_db_err(st, err, "cannot read ingest state");
out:
	sqlite3_finalize(q);
	return rc;
}
