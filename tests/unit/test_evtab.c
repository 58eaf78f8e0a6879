/*
 * test_evtab.c - lib/store/evtab.c, the virtual table a batch's events are
 * inserted from: each column holds what the events table stores for it
 * (NULL for an absent number, id or string; a log line's kernel-trace
 * columns NULL even when set), the values written out by hand below; SQLite
 * inserts each row before it asks for the next (the store's mirror probe of
 * row i must see rows 0..i-1, checked here by counting the rows from inside
 * the row callback); a row that fails ends the INSERT with its error and
 * leaves no row of it behind. gl_batch_logs, the table for a run of log
 * lines, gives the same rows without the kernel-trace columns, over the
 * source's range [first, end).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpulog.h"
#include "record/batch.h"
#include "store/evtab.h"

#define NEV 4

struct src {
	sqlite3 *db;
	struct gl_bev ev[NEV];
	long seen[NEV];		/* rows in t when row i was asked for */
	size_t fail_at;		/* NEV: none */
	int fail_code;		/* what row fail_at returns */
	int calls;
};

static struct gl_str str(const char *s)
{
	return (struct gl_str){s, strlen(s)};
}

static int row(void *arg, size_t i, struct gl_evrow *r)
{
	struct src *s = arg;
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_prepare_v2(s->db, "SELECT count(*) FROM t", -1, &q, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	s->seen[i] = (long)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	s->calls++;
	if (i == s->fail_at)
		return s->fail_code;
	memset(r, 0, sizeof(*r));
	r->b = &s->ev[i];
	r->comp_id = 10 + (int64_t)i;
	r->kernel_id = i == 1 ? 77 : 0;
	r->scope_id = i == 1 ? 8 : 0;
	r->stack_id = i == 2 ? 9 : 0;	/* a log line: not stored */
	r->dup_of = i == 3 ? 1 : 0;
	r->packed[0] = 0xAB;
	r->packed[1] = (unsigned char)i;
	r->packed_len = 2;
	return GL_OK;
}

static void setup_src(struct src *s)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(sqlite3_open(":memory:", &s->db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s->db,
				      "CREATE TABLE t(id INTEGER PRIMARY KEY, " GL_EVTAB_ROW_COLUMNS ")",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	for (size_t i = 0; i < NEV; i++) {
		gl_event_init(&s->ev[i].ev);
		s->ev[i].stream_id = 3;
		s->ev[i].line = 100 + i;
		s->ev[i].file_id = 4;
		s->ev[i].rec_hash = 0x8000000000000001ULL + i;	/* stored as a signed 64-bit */
	}
	/* 0: a log line with every number absent */
	s->ev[0].ev.ts_us = 1700000000000000;
	s->ev[0].ev.level = GL_LEVEL_INFO;
	s->ev[0].ev.message = str("Kernel matmul executed in 2.5 ms");
	/* 1: a kernel-trace event with every field */
	s->ev[1].ev.ts_us = 1700000000000001;
	s->ev[1].ev.source = GL_SRC_KINETO;
	s->ev[1].ev.dur_us = 12.5;
	s->ev[1].ev.launch_overhead_us = 3.25;
	s->ev[1].ev.queue_us = 0;
	s->ev[1].ev.occupancy = 0.5;
	s->ev[1].ev.device = str("0");
	s->ev[1].ev.stream = str("7");
	s->ev[1].ev.grid = str("128,1,1");
	s->ev[1].ev.block = str("256,1,1");
	s->ev[1].ev.registers = 32;
	s->ev[1].ev.shared_mem_bytes = 0;
	s->ev[1].ev.corr_id = 99;
	/* 2: no time; numbers of the JSON service; trace fields on a log line */
	s->ev[2].ev.level = GL_LEVEL_ERROR;
	s->ev[2].ev.exec_ms = 1.5;
	s->ev[2].ev.mem_mb = 512;
	s->ev[2].ev.alloc_mb = 256.25;
	s->ev[2].ev.peak_mb = 300;
	s->ev[2].ev.util_pct = 87.5;
	s->ev[2].ev.error_count = 0;
	s->ev[2].ev.recovery_attempts = 2;
	s->ev[2].ev.anomaly = 1;
	s->ev[2].ev.metadata = str("{\"a\":1}");
	s->ev[2].ev.registers = 64;
	s->ev[2].ev.device = str("1");
	/* 3: an empty (not absent) message */
	s->ev[3].ev.ts_us = 5;
	s->ev[3].ev.message = str("");
}

static struct gl_evtab_src evsrc;

/* One of the INSERTs the store runs (logs: gl_batch_logs), over s's
 * events first .. end - 1, with the run's stream 3, file 4, path 5 and no
 * host bound as the store binds them. */
static sqlite3_stmt *prepare_insert(struct src *s, size_t first, size_t end, int logs)
{
	sqlite3_stmt *ins;

	evsrc.row = row;
	evsrc.arg = s;
	evsrc.first = first;
	evsrc.end = end;
	assert_int_equal(gl_evtab_register(s->db, &evsrc), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s->db,
					    logs ? GL_EVTAB_INSERT_LOGS("t")
						 : GL_EVTAB_INSERT_EVENTS("t"),
					    -1, &ins, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_bind_int64(ins, GL_EVTAB_P_STREAM, 3), SQLITE_OK);
	assert_int_equal(sqlite3_bind_int64(ins, GL_EVTAB_P_FILE, 4), SQLITE_OK);
	assert_int_equal(sqlite3_bind_int64(ins, GL_EVTAB_P_PATH, 5), SQLITE_OK);
	assert_int_equal(sqlite3_bind_null(ins, GL_EVTAB_P_HOST), SQLITE_OK);
	assert_int_equal(sqlite3_bind_int(ins, GL_EVTAB_P_KIND, 2), SQLITE_OK);
	assert_int_equal(sqlite3_bind_parameter_count(ins), 5);
	return ins;
}

static int insert_all(struct src *s)
{
	sqlite3_stmt *ins = prepare_insert(s, 0, NEV, 0);
	int rc;

	rc = sqlite3_step(ins);
	sqlite3_finalize(ins);
	return rc;
}

/* Row i of t as text: quote() of every column, '|'-separated. */
static void dump_row(sqlite3 *db, int i, char *out, size_t cap)
{
	char sql[2048] = "SELECT ";
	const char *cols = GL_EVTAB_ROW_COLUMNS;
	sqlite3_stmt *q;
	size_t n = strlen(sql);

	/* quote(a) || '|' || quote(b) ... */
	while (*cols) {
		const char *end = strchr(cols, ',');
		size_t len = end ? (size_t)(end - cols) : strlen(cols);

		while (*cols == ' ')
			cols++, len--;
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "quote(%.*s)%s", (int)len, cols,
				      end ? " || '|' || " : "");
		cols += len + (end ? 1 : 0);
	}
	snprintf(sql + n, sizeof(sql) - n, " FROM t WHERE id = %d", i + 1);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	snprintf(out, cap, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
}

/* ts, level, comp, host, kernel, dur, exec, mem, alloc, peak, util,
 * errors, recovery, anomaly, message, metadata, stream, line, file,
 * path, rec_hash, dup_of, launch, queue, occupancy, device, stream,
 * grid, block, registers, shared, corr, scope, stack, source, packed,
 * kind (the INSERT's parameter, 2 here) */
static const char *const want[NEV] = {
	"1700000000000000|3|10|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|"
	"'Kernel matmul executed in 2.5 ms'|NULL|3|100|4|5|-9223372036854775807|NULL|"
	"NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|X'AB00'|2",
	"1700000000000001|0|11|NULL|77|12.5|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|"
	"NULL|NULL|3|101|4|5|-9223372036854775806|NULL|"
	"3.25|0.0|0.5|'0'|'7'|'128,1,1'|'256,1,1'|32|0|99|8|NULL|'kineto'|X'AB01'|2",
	"NULL|5|12|NULL|NULL|NULL|1.5|512.0|256.25|300.0|87.5|0|2|1|"
	"NULL|'{\"a\":1}'|3|102|4|5|-9223372036854775805|NULL|"
	"NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|X'AB02'|2",
	"5|0|13|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|"
	"''|NULL|3|103|4|5|-9223372036854775804|1|"
	"NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|X'AB03'|2",
};

static void test_columns(void **state)
{
	struct src s;
	char got[2048];

	(void)state;
	setup_src(&s);
	s.fail_at = NEV;
	assert_int_equal(insert_all(&s), SQLITE_DONE);
	for (int i = 0; i < NEV; i++) {
		dump_row(s.db, i, got, sizeof(got));
		assert_string_equal(got, want[i]);
		/* each row was asked for after the ones before it were inserted */
		assert_int_equal(s.seen[i], i);
	}
	sqlite3_close(s.db);
}

/*
 * A run of log lines through gl_batch_logs: events 2 and 3 (a range not
 * starting at 0; event 2 has trace fields set, which stay NULL) give the
 * rows gl_batch_events gives for them, every column of the table compared;
 * the columns the log table leaves out are NULL.
 */
static void test_log_columns(void **state)
{
	struct src s;
	sqlite3_stmt *ins;
	char got[2048];

	(void)state;
	setup_src(&s);
	s.fail_at = NEV;
	ins = prepare_insert(&s, 2, NEV, 1);
	assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
	sqlite3_finalize(ins);
	assert_int_equal(s.calls, 2);
	for (int i = 0; i < 2; i++) {
		dump_row(s.db, i, got, sizeof(got));
		assert_string_equal(got, want[2 + i]);
		assert_int_equal(s.seen[2 + i], i);
	}
	sqlite3_close(s.db);
}

static long count_rows(sqlite3 *db)
{
	sqlite3_stmt *q;
	long n;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	n = (long)sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

static void test_row_fails(void **state)
{
	struct src s;

	(void)state;
	/* out of memory in row 2: SQLITE_NOMEM, rows 0 and 1 undone */
	setup_src(&s);
	s.fail_at = 2;
	s.fail_code = GL_ENOMEM;
	assert_int_equal(insert_all(&s), SQLITE_NOMEM);
	assert_int_equal(count_rows(s.db), 0);
	assert_int_equal(s.seen[2], 2);
	sqlite3_close(s.db);

	/* another failure: SQLITE_ERROR, saying which event */
	setup_src(&s);
	s.fail_at = 1;
	s.fail_code = GL_EIO;
	assert_int_equal(insert_all(&s), SQLITE_ERROR);
	assert_non_null(strstr(sqlite3_errmsg(s.db), "event 1 of the batch was not stored"));
	assert_int_equal(count_rows(s.db), 0);
	sqlite3_close(s.db);
}

static void test_empty(void **state)
{
	struct src s;
	sqlite3_stmt *ins;

	(void)state;
	setup_src(&s);
	s.fail_at = NEV;
	ins = prepare_insert(&s, 0, 0, 0);
	assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
	assert_int_equal(s.calls, 0);
	assert_int_equal(count_rows(s.db), 0);
	/* the same statement again, over a batch of NEV */
	sqlite3_reset(ins);
	evsrc.end = NEV;
	assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
	assert_int_equal(count_rows(s.db), NEV);
	sqlite3_finalize(ins);
	sqlite3_close(s.db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_log_columns),
		cmocka_unit_test(test_row_fails),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
