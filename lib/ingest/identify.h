/*
 * identify.h - internal to lib/ingest: identify.c, which stream a file
 * continues (fingerprints of the cheap cases, the content walk). Used by
 * stream.c.
 */
#ifndef GL_IDENTIFY_H
#define GL_IDENTIFY_H

#include "job.h"

/*
 * ID_BRANCH: the file starts with lines of a stream it was attached to (the
 * same inode) and then departs from it (truncated in place and written
 * again): a new stream whose first j->branch_lines lines are stored already.
 */
enum identity { ID_NEW, ID_CONTINUE, ID_COPY, ID_BRANCH };

int gl_file_same(const struct gl_sfile *k, const struct gl_found *f);
int gl_file_complete(const struct gl_sfile *k);
int gl_file_grew(const struct gl_state *s, const struct gl_sfile *k, const struct gl_found *f);
enum identity gl_job_identify(struct job *j, int32_t *si_out);
int gl_stream_other_time(const struct gl_state *s, const struct gl_sstream *st, int64_t mtime_ns,
			 int32_t self, int64_t self_mtime_ns);

#endif
