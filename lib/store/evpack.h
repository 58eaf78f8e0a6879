/*
 * evpack.h - the report's fields of an events row, packed in one BLOB
 * (events.packed, schema 6).
 *
 * The report reads 11 numeric columns of every event and SQLite's cost is
 * per column read (about 25 ns each on the bench machine: 10M events x 11
 * columns were 2 of the 4.5 s of reading). The ingest writes those values
 * once more, packed, and the report reads one column instead. The columns
 * stay the data (views, exports and the sqlite3 shell read them); packed is
 * derived from them and never the only copy:
 *
 *   - gpulog-ingest writes it with the row (store.c);
 *   - the migration to schema 6 fills it with the SQL function gl_ev_pack()
 *     over the stored columns (gl_evpack_register);
 *   - the trigger events_packed_stale sets it NULL when an UPDATE changes a
 *     column it is made of;
 *   - a reader that finds it NULL or not a packing of this version reads the
 *     columns of that row instead (lib/store/query.c).
 *
 * The fields are the values the report's reader makes of the columns
 * (gl_evpack_from_values), so reading the packing or the columns gives the
 * same event; tests/unit/test_evpack.c and tests/cli/t_ingest_migrate6.sh
 * check the ingest's packing against the one made from the stored columns.
 *
 * The BLOB: a version byte (1); two bytes of flags (little-endian); the
 * level; then, when present, component_id, host_id, kernel_id, anomaly,
 * recovery_attempts, error_count as varints (anomaly zigzag), stream_id
 * (zigzag varint, always); then dur_us, mem_mb, exec_ms when present, each
 * 8 bytes of the double's bits, little-endian.
 *
 * Schema 10: a row that is an operation timing (table operations) also
 * carries it, flagged: its ms, its throughput when it has one (8 bytes
 * each) and its name's id when named (a varint), after exec_ms. The ingest
 * packs it with the row; the migration to schema 10 adds it to the stored
 * packings of the rows it finds to be one (gl_ev_pack_op()). A packing
 * without it says nothing of an operation: the reader then looks the row
 * up in table operations, as it does for a packing made of the columns.
 */
#ifndef GL_EVPACK_H
#define GL_EVPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define GL_EVPACK_VERSION 1
#define GL_EVPACK_MAX 128	/* bytes a packing takes at most */

/* The columns a packing is made of, in the order gl_evpack_from_values and
 * gl_ev_pack() take them. */
#define GL_EVPACK_COLUMNS                                                                   \
	"level, component_id, host_id, kernel_id, dur_us, mem_mb, anomaly,"                 \
	" recovery_attempts, message, error_count, stream_id, exec_ms"
#define GL_EVPACK_NCOLS 12

struct gl_evpack {
	int level;		/* enum gl_level; out of range: GL_LEVEL_NONE */
	bool warn;		/* SQL's "level >= 4" on the stored value */
	bool op;		/* SQL's "message LIKE 'Operation %'" */
	bool has_kernel;	/* kernel_id is not NULL */
	int64_t component_id;	/* 0 when NULL */
	int64_t host_id;	/* 0 when NULL */
	int64_t kernel_id;	/* 0 when NULL */
	double dur_us;		/* NAN when NULL */
	double mem_mb;		/* NAN when NULL */
	double exec_ms;		/* NAN when NULL */
	int anomaly;		/* 0 when NULL */
	int64_t recovery_attempts;	/* -1 when NULL or negative */
	int64_t error_count;	/* -1 when NULL or negative */
	int64_t stream_id;
	/* schema 10: the row's operation timing (lib/record/operation.h), when packed */
	bool is_op;		/* the fields below are the row's operation */
	double op_ms;
	double op_throughput;	/* NAN when none */
	int64_t op_name_id;	/* 0 when not named */
};

/* Writes the packing of f into out (GL_EVPACK_MAX bytes); returns its length. */
size_t gl_evpack_encode(const struct gl_evpack *f, unsigned char *out);

/* Reads a packing; false when p[0..n) is not one of this version (f is then
 * undefined). */
bool gl_evpack_decode(const void *p, size_t n, struct gl_evpack *f);

/* The fields the report makes of the stored columns v[0..GL_EVPACK_NCOLS),
 * in the order of GL_EVPACK_COLUMNS. */
void gl_evpack_from_values(sqlite3_value *const *v, struct gl_evpack *f);

/* SQL's "s LIKE 'Operation %'" on the text s[0..n) (ASCII case folding). */
bool gl_evpack_like_operation(const unsigned char *s, size_t n);

/* What a double reads back as from a REAL column it was bound to: NAN
 * stays NAN (bound as NULL), -0.0 becomes 0.0 (SQLite stores a REAL of
 * integer value as that integer). */
double gl_evpack_real(double v);

/* Registers gl_ev_pack(<GL_EVPACK_COLUMNS>) on db: the packing of a row's
 * stored columns (for the migration to schema 6 and for tests); and
 * gl_ev_pack_op(packed, ms, throughput, name_id): the packing with the
 * row's operation added (NULL for a NULL or unreadable packing). */
int gl_evpack_register(sqlite3 *db);

#endif
