/*
 * tracetail.h - the last lines of a trace file, for the formats' prepare
 * hooks (format.h): a relative clock is placed by the file's last record,
 * and Kineto writes baseTimeNanoseconds after its events.
 */
#ifndef GL_TRACETAIL_H
#define GL_TRACETAIL_H

#include <stddef.h>

/*
 * Calls fn(arg, line, len) on lines at the end of the file at path, in file
 * order: for a plain file on the complete lines of its last tail_bytes
 * bytes (a seek); for gzip on every line (inflated through: a gzip stream
 * cannot be read from its end), so fn should keep what it finds last.
 * Lines longer than the reader's limit are passed cut. Returns 0, or -1
 * when the file cannot be opened or read.
 */
int gl_trace_tail(const char *path, size_t tail_bytes,
		  void (*fn)(void *arg, const char *line, size_t len), void *arg);

#endif
