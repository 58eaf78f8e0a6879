/*
 * sec_db.h - a small gpulog database written by hand for the section unit
 * tests (tests/unit/test_sec_*.c), and a report built over it. Every
 * function fails the running cmocka test on error.
 */
#ifndef GL_TEST_SEC_DB_H
#define GL_TEST_SEC_DB_H

#include <stdint.h>

#include <sqlite3.h>

#include "../../../reports/config.h"
#include "../../../reports/report.h"
#include "store/query.h"

#define SEC_T0 1735689600000000LL	/* 2025-01-01T00:00:00Z */
#define SEC_S_US 1000000LL

struct sec_db {
	char path[64];
	sqlite3 *db;			/* open while rows are written */
	struct gl_report_config cfg;
	struct gl_query *q;
	struct gl_report rep;
	int built;
};

/* A new database from share/schema.sql with stream 1 and the names given
 * ("a", "b", ...: ids 1, 2, ... in that order; NULL ends the list); d->cfg
 * holds the configuration's defaults, which the test may change. */
void sec_db_open(struct sec_db *d, const char *const *names);

/* Runs sql on the database being written. */
void sec_db_exec(struct sec_db *d, const char *fmt, ...);

/* Closes the writer and builds the report over [since_us, until_us) with
 * --top top and d->cfg. */
void sec_db_build(struct sec_db *d, int64_t since_us, int64_t until_us, unsigned top);

/* Releases the report, the query and the file. */
void sec_db_close(struct sec_db *d);

/* |a - b| within 1e-12 relative, else the test fails. */
void sec_near(double a, double b);

#endif
