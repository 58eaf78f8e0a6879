/*
 * tracetail.h - the last lines of a trace file, for the formats' prepare
 * hooks (format.h): a relative clock is placed by the file's last record,
 * and Kineto writes baseTimeNanoseconds after its events.
 */
#ifndef GL_TRACETAIL_H
#define GL_TRACETAIL_H

#include <stddef.h>

/*
 * Calls fn(arg, line, len) on the complete lines of the last tail_bytes
 * bytes of the content of the file at path, in file order: a plain file
 * is entered by a seek; gzip is inflated to its end (a deflate stream
 * cannot be read from its end) and only its last tail_bytes are kept. A
 * damaged gzip gives the lines of the last tail_bytes before the damage.
 * Returns 0, or -1 when the file cannot be opened or read.
 */
int gl_trace_tail(const char *path, size_t tail_bytes,
		  void (*fn)(void *arg, const char *line, size_t len), void *arg);

#endif
