/*
 * state.h - what earlier runs stored, held in memory for the run: files as
 * last seen, streams with their positions, checkpoints and head
 * fingerprints. Loaded once from the store (which only this run may write:
 * it holds the run lock), then kept current by the parsing thread alongside
 * the batches it sends, so decisions never wait for the database.
 */
#ifndef GL_STATE_H
#define GL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"

struct gl_sfile {
	int64_t id;
	char *path;			/* NULL once renamed away or gone */
	int64_t dev, ino, size, mtime_ns;
	uint64_t raw_head_hash;
	int gzip;
	int64_t stream_id;		/* 0: none */
	uint64_t consumed;
	int has_tail;
	uint64_t tail_hash;
	char status[12];
	char *note;
	int32_t next_path, next_ino;	/* hash chains */
};

struct gl_sstream {
	int64_t id;
	char format[24];
	char *component;
	char *first_path;
	struct gl_pos pos;
	struct gl_pos head;
	int has_tod;
	int64_t day_us, last_tod_us;
	int64_t created_run;
	unsigned char *parse_state;	/* the format's state at pos (gl_parse_ctx.state); owned */
	size_t parse_state_len;		/* 0: none */
	int lines_hashed;		/* the store has the hash of every line (stream_lines) */
	/*
	 * 0, or: the stream's last record ends in a line without its newline
	 * that was stored once settled (its writer paused, or died), ending at
	 * these bytes. pos stays before that record, so the cut line's hash is
	 * in no checkpoint, end or stream_lines; its rows (lines after
	 * pos.lines) are replaced when a later run reads the record again.
	 */
	uint64_t open_end;
	struct gl_pos *cp;		/* checkpoints, ascending by bytes */
	size_t ncp, capcp;
	int32_t next_head, next_id;	/* hash chains */
};

struct gl_state {
	struct gl_sfile *file;
	size_t nfile, capfile;
	struct gl_sstream *stream;
	size_t nstream, capstream;
	int32_t *by_path, *by_ino, *by_head, *by_id;	/* bucket heads, -1 empty */
	size_t nfbuckets, nsbuckets;
	int64_t next_file_id, next_stream_id;
};

void gl_state_init(struct gl_state *s);
void gl_state_release(struct gl_state *s);

/* Adds a copy of f (strings copied). Returns its index or -1 (no memory). */
int32_t gl_state_add_file(struct gl_state *s, const struct gl_sfile *f);
/* Adds a copy of st without checkpoints. Returns its index or -1. */
int32_t gl_state_add_stream(struct gl_state *s, const struct gl_sstream *st);
/* Sets stream si's parse state to p[0..n) (n 0: none). Returns 0 or -1 (no memory). */
int gl_state_set_parse_state(struct gl_state *s, int32_t si, const void *p, size_t n);
/* Appends a checkpoint to stream index si (kept ascending; same bytes replaces). */
int gl_state_add_checkpoint(struct gl_state *s, int32_t si, struct gl_pos pos);

int32_t gl_state_file_by_path(const struct gl_state *s, const char *path);
/* The first file with dev/ino after index `after` (-1 to start); -1 at the end. */
int32_t gl_state_file_by_ino(const struct gl_state *s, int64_t dev, int64_t ino, int32_t after);
int32_t gl_state_stream_by_id(const struct gl_state *s, int64_t id);
/* Streams whose head is exactly (bytes, hash): first, then gl_state_next_head(). */
int32_t gl_state_stream_by_head(const struct gl_state *s, uint64_t bytes, uint64_t hash);
int32_t gl_state_next_head(const struct gl_state *s, int32_t si, uint64_t bytes, uint64_t hash);

/* Sets stream si's head fingerprint (once known) and indexes it. */
void gl_state_set_head(struct gl_state *s, int32_t si, struct gl_pos head);

/* Changes file fi's path (NULL: no path). Returns 0 or -1 (no memory). */
int gl_state_set_path(struct gl_state *s, int32_t fi, const char *path);

#endif
