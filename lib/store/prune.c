/*
 * prune.c - retention (gpulog-ingest --keep-days): after a run, the rows
 * older than a horizon are deleted and their space given back.
 *
 * In: the horizon (UTC µs). Out: fewer rows, a smaller file, and the
 * horizon in runs.pruned_before_us for gpulog-report.
 *
 * Deletion goes in transactions of GL_PRUNE_BATCH rows, so a kill loses
 * at most the batch in flight (rolled back by SQLite) and the next pruning
 * run deletes what is left. The ingest state (streams, checkpoints, files)
 * is never touched: the lines the deleted rows came from stay marked as
 * stored and are never read again.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "sblock_db.h"
#include "store.h"

#define GL_PRUNE_BATCH 50000

/* The tables pruned, with the column that holds a row's time and the
 * key of a row (samples, of schema 3, is a WITHOUT ROWID table; schema 4's
 * sample_blocks are pruned by prune_blocks()). */
static const struct {
	const char *table, *ts_col, *key;
} pruned[] = {
	{"events", "ts_us", "rowid"},
	{"mem_events", "ts_us", "rowid"},
	{"samples", "ts_us", "ts_us, id"},
	{"spans", "start_us", "rowid"},
	{"rejects", "ts_us", "rowid"},
};

static int fail(sqlite3 *db, const char *path, struct gl_err *err)
{
	int rc = gl_err_set(err, GL_EDB, path, 0, sqlite3_errmsg(db), "cannot prune database");

	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* 1 when table exists with column col (spans exist in newer schemas only). */
static int has_column(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *s = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &s,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

static int64_t pragma(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Deletes the rows of table i older than before_us, batch by batch. */
static int prune_table(sqlite3 *db, const char *path, size_t i, int64_t before_us, uint64_t *n,
		       struct gl_err *err)
{
	char sql[512];
	sqlite3_stmt *s = NULL;
	int rc = GL_OK, changes;

	/* A reject without a time (a line before any timed record) goes with
	 * the run that stored it. */
	snprintf(sql, sizeof(sql),
		 "DELETE FROM %s WHERE (%s) IN (SELECT %s FROM %s WHERE %s < ?1%s LIMIT %d)",
		 pruned[i].table, pruned[i].key, pruned[i].key, pruned[i].table, pruned[i].ts_col,
		 strcmp(pruned[i].table, "rejects") == 0
			 ? " OR (ts_us IS NULL AND run_id IN (SELECT id FROM runs WHERE started_us < ?1))"
			 : "",
		 GL_PRUNE_BATCH);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(db, path, err);
	sqlite3_bind_int64(s, 1, before_us);
	do {
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_step(s) != SQLITE_DONE) {
			rc = fail(db, path, err);
			break;
		}
		changes = sqlite3_changes(db);
		sqlite3_reset(s);
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
			rc = fail(db, path, err);
			break;
		}
		*n += (uint64_t)changes;
	} while (changes == GL_PRUNE_BATCH);
	sqlite3_finalize(s);
	return rc;
}

/* The samples of sample_blocks older than before_us: blocks before the
 * horizon deleted, the block that holds it rewritten with what is after. */
static int prune_blocks(sqlite3 *db, const char *path, int64_t before_us, uint64_t *n,
			struct gl_err *err)
{
	int more = 1, rc = GL_OK;

	while (more && rc == GL_OK) {
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			return fail(db, path, err);
		rc = gl_sblock_prune(db, path, before_us, GL_PRUNE_BATCH / 100, n, &more, err);
		if (rc != GL_OK)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		else if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			return fail(db, path, err);
	}
	return rc;
}

int gl_store_prune(struct gl_store *st, int64_t run_id, int64_t before_us, uint64_t *n_deleted,
		   struct gl_err *err)
{
	sqlite3 *db = gl_store_db(st);
	const char *path = sqlite3_db_filename(db, "main");
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	*n_deleted = 0;
	/* The horizon first: once anything is deleted, the report must know. */
	if (sqlite3_prepare_v2(db, "UPDATE runs SET pruned_before_us = ?1 WHERE id = ?2", -1, &s,
			       NULL) != SQLITE_OK)
		return fail(db, path, err);
	sqlite3_bind_int64(s, 1, before_us);
	sqlite3_bind_int64(s, 2, run_id);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = fail(db, path, err);
	sqlite3_finalize(s);
	/* the operations of the events that go (schema 10), first: part of
	 * their events, not counted; killed after this, the events go at the
	 * next run (the horizon above tells the report) */
	if (rc == GL_OK && has_column(db, "operations", "event_id") &&
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK) {
		if (sqlite3_prepare_v2(db, "DELETE FROM operations WHERE event_id IN"
					   " (SELECT id FROM events WHERE ts_us < ?1)",
				       -1, &s, NULL) != SQLITE_OK)
			return fail(db, path, err);
		sqlite3_bind_int64(s, 1, before_us);
		rc = sqlite3_step(s) == SQLITE_DONE &&
				     sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK
			     ? GL_OK
			     : fail(db, path, err);
		sqlite3_finalize(s);
	} else if (rc == GL_OK && has_column(db, "operations", "event_id")) {
		rc = fail(db, path, err);
	}
	for (size_t i = 0; rc == GL_OK && i < sizeof(pruned) / sizeof(pruned[0]); i++)
		if (has_column(db, pruned[i].table, pruned[i].ts_col))
			rc = prune_table(db, path, i, before_us, n_deleted, err);
	if (rc == GL_OK && has_column(db, "sample_blocks", "t0_us"))
		rc = prune_blocks(db, path, before_us, n_deleted, err);
	if (rc != GL_OK || pragma(db, "PRAGMA freelist_count") <= 0)
		return rc;
	/*
	 * Space back to the file system. A database created before
	 * auto_vacuum=INCREMENTAL was set at creation must be rebuilt once
	 * (VACUUM: the whole file rewritten, twice its size needed for a
	 * moment); after that, incremental_vacuum moves the free pages to the
	 * end and cuts them off. Each is one transaction: a kill leaves the
	 * free pages for the next pruning run.
	 */
	if (pragma(db, "PRAGMA auto_vacuum") != 2) {
		if (sqlite3_exec(db, "PRAGMA auto_vacuum=INCREMENTAL; VACUUM", NULL, NULL, NULL) !=
		    SQLITE_OK)
			return fail(db, path, err);
	} else if (sqlite3_exec(db, "PRAGMA incremental_vacuum", NULL, NULL, NULL) != SQLITE_OK) {
		return fail(db, path, err);
	}
	/* The WAL holds the moved pages; the file shrinks when they are copied back. */
	sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return GL_OK;
}
