/*
 * operation.h - an operation timing: a record that says an operation took
 * a time ("Operation layout_step completed in 2.38ms", or a record with an
 * execution_time_ms and metadata.operation), its name, time and throughput.
 *
 * Layer: with record.h, below lib/ingest (which stores what it finds, table
 * operations, schema 10) and lib/store (whose readers find it again, with
 * the same function, in a database stored before schema 10).
 */
#ifndef GL_OPERATION_H
#define GL_OPERATION_H

#include <stdbool.h>
#include <stddef.h>

#define GL_OPERATION_NAME_MAX 200	/* bytes of a name, its NUL included */

struct gl_operation {
	char name[GL_OPERATION_NAME_MAX];	/* "": not named (a report names it by its component) */
	double ms;			/* the time; finite */
	double throughput;		/* metadata.throughput; NAN: none */
};

/*
 * "Operation <name> completed in <number><unit>" at the start of msg[0..len):
 * true with the name in name[0..n) (false when it does not fit) and *ms in
 * milliseconds (unit ms, s, us/µs/μs, ns; NAN without a number or a unit).
 */
bool gl_operation_parse_message(const char *msg, size_t len, char *name, size_t n, double *ms);

/*
 * Is the record of message msg[0..msg_len), metadata text meta[0..meta_len)
 * (either NULL: absent) and execution time exec_ms (NAN: none), which has
 * no kernel, an operation timing? Its name is metadata.operation (a
 * non-empty string; read only beside an execution time), else the
 * message's; its time exec_ms, else the message's; its throughput
 * metadata.throughput (beside an execution time). A record without message
 * and metadata, or without a finite time, is none: false.
 */
bool gl_operation_of(const char *msg, size_t msg_len, const char *meta, size_t meta_len,
		     double exec_ms, struct gl_operation *op);

#endif
