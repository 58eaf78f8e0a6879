/*
 * records.h - internal to lib/ingest: records.c, a file's lines into batch
 * rows and the state that makes them final. Used by stream.c.
 */
#ifndef GL_RECORDS_H
#define GL_RECORDS_H

#include "job.h"

/* Makes sure the batch can take a file's state ops (sending it if not). */
int gl_job_room_for_state(struct job *j);
/* Drops the rows of the stream's open record (job.drop_pending) in this batch. */
void gl_job_drop_open(struct job *j);
void gl_job_notice(struct job *j, int code, const char *what, const char *cause,
		   const char *more);
void gl_job_put_state(struct job *j, struct gl_pos at, int checkpoint, const char *status);
struct gl_pos gl_job_committed(const struct job *j);
int gl_job_reject(struct job *j, uint64_t line, uint64_t offset, uint64_t length,
		  const char *p, size_t len, const char *reason);
int gl_job_flush(struct job *j);
void gl_job_release(struct job *j);
/* Sends the batch mid-file, with the state that makes its rows final. */
int gl_job_send(struct job *j);
int gl_job_line(struct job *j, const struct gl_line *ln, uint64_t lineno);
/* The file settled inside a run of held lines: its rows as an open record
 * (last_offset: the last line's, for the reject of a cut). */
int gl_job_settle(struct job *j, uint64_t last_offset);

#endif
