/*
 * sec_db.c - the section unit tests' database and report (sec_db.h).
 */
#include "sec_db.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "schema_sql.h"
#include "store/operations.h"
#include "store/store_schema.h"
#include "../../../reports/section.h"
#include "../../../reports/sections.h"

void sec_near(double a, double b)
{
	if (!(fabs(a - b) <= 1e-12 * (1 + fabs(b))))
		fail_msg("%.17g != %.17g", a, b);
}

void sec_db_exec(struct sec_db *d, const char *fmt, ...)
{
	char *sql, *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	assert_non_null(sql);
	if (sqlite3_exec(d->db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_free(sql);
}

void sec_db_open(struct sec_db *d, const char *const *names)
{
	struct gl_err err;
	int fd;

	memset(d, 0, sizeof(*d));
	assert_int_equal(gl_config_defaults(&d->cfg, &err), GL_OK);
	snprintf(d->path, sizeof(d->path), "/tmp/test_sec_db.XXXXXX");
	fd = mkstemp(d->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(d->path, &d->db), SQLITE_OK);
	sec_db_exec(d, "%s", gl_schema_sql);
	sec_db_exec(d, "PRAGMA application_id = 1735420007; PRAGMA user_version = %d;", GL_SCHEMA_VERSION);
	sec_db_exec(d, "INSERT INTO streams(id, first_path, bytes, lines, hash, head_bytes,"
		       " head_hash) VALUES (1, 'f', 0, 0, 0, 0, 0);");
	for (int i = 0; names && names[i]; i++)
		sec_db_exec(d, "INSERT INTO names(id, name) VALUES (%d, %Q);", i + 1, names[i]);
}

void sec_db_build(struct sec_db *d, int64_t since_us, int64_t until_us, unsigned top)
{
	struct gl_report_params p = {.since_us = since_us, .until_us = until_us, .top = top,
				     .top_series = 500};
	struct gl_err err;

	/* the operations the ingest would have stored with the rows written here */
	if (gl_store_fill_operations(d->db, d->path, &err) != GL_OK)
		fail_msg("gl_store_fill_operations: %s", err.msg);
	sqlite3_close(d->db);
	d->db = NULL;
	if (gl_query_open(d->path, &d->q, &err) != GL_OK)
		fail_msg("gl_query_open: %s", err.msg);
	if (gl_report_build(d->q, &p, &d->cfg, &d->rep, &err) != GL_OK)
		fail_msg("gl_report_build: %s", err.msg);
	d->built = 1;
}

void sec_db_close(struct sec_db *d)
{
	if (d->built)
		gl_report_release(&d->rep);
	if (d->q)
		gl_query_close(d->q);
	gl_config_release(&d->cfg);
	if (d->db)
		sqlite3_close(d->db);
	unlink(d->path);
}
