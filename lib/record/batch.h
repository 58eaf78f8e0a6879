/*
 * batch.h - a unit of work from the parsing thread to the writing thread.
 *
 * A batch holds parsed rows (events, memory events, rejects) and the state
 * changes (streams, checkpoints, files) that make them final. The store
 * writes a whole batch in one transaction, so the rows and the ingest state
 * that says "these lines are stored" always commit together: a run killed at
 * any instant leaves a database from which the next run continues exactly.
 *
 * Memory is fixed per batch: every string lives in the batch's arena, and
 * the arrays have fixed capacities; a full batch is sent and a fresh one
 * taken. Strings in a batch (struct gl_str) point into its arena.
 */
#ifndef GL_BATCH_H
#define GL_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define GL_BATCH_ARENA (6u << 20)	/* bytes of strings per batch */
#define GL_BATCH_ROWS 8192		/* events + memory events + spans per batch */
#define GL_BATCH_SAMPLES 16384		/* metric samples per batch */
#define GL_BATCH_REJECTS 1024
#define GL_BATCH_OPS 512
#define GL_BATCH_NOTICES 64
#define GL_EXCERPT_MAX 1024		/* bytes of a rejected line kept */
#define GL_LINES_CHUNK 4096		/* line hashes per stream_lines row */

/*
 * Every row carries the path it was read from (in the arena; rows of one
 * file in one batch share one copy), so the store can name it in the
 * append-only paths table: files rows are reused, paths rows never.
 */
struct gl_bev {
	struct gl_event ev;
	int64_t stream_id;
	int64_t file_id;
	struct gl_str path;
	uint64_t line;			/* 1-based line of the record's first line */
	int comp_from_path;		/* ev.component is the file's, the record names none */
	/* gl_store_rec_hash() of the record as written (without a component
	 * taken from the file name) and the batch's host: computed on the
	 * parsing thread, which has time to spare, not on the writing one. */
	uint64_t rec_hash;
};

struct gl_bmem {
	struct gl_memev m;
	int64_t stream_id;
	int64_t file_id;
	struct gl_str path;
	uint64_t line;
};

struct gl_bsample {
	struct gl_sample s;		/* strings in the arena */
	/*
	 * 1 + the index in ev[] of the event the sample came with (a JSON
	 * record's memory_usage_mb, a gpufl init's device readings); 0: none.
	 * A sample of an event the store marks as a mirror of another file's
	 * record is not stored again: one record, one sample.
	 */
	size_t ev_plus1;
	const char *source;		/* static: the format's name */
	int64_t stream_id;
	int64_t file_id;
	struct gl_str path;
	uint64_t line;
};

/* A span of a profiler trace (spans table). */
struct gl_bspan {
	struct gl_span sp;		/* strings in the arena */
	int64_t stream_id;
	int64_t file_id;
	struct gl_str path;
	uint64_t line;			/* the line that closed it */
};

struct gl_brej {
	int64_t ts_us;			/* the last record's time before it, or GL_TS_NONE */
	int64_t stream_id;		/* 0: none (damage found before any stream) */
	int64_t file_id;
	struct gl_str path;		/* {NULL,0}: none */
	uint64_t line;			/* 0: not a line (file damage) */
	uint64_t offset;
	uint64_t length;
	struct gl_str reason;
	struct gl_str excerpt;
};

/* Where a stream stands: a line boundary of its content. */
struct gl_pos {
	uint64_t bytes;
	uint64_t lines;
	uint64_t hash;
};

struct gl_bstream {
	int64_t id;
	const char *format;		/* static (gl_format.name) */
	struct gl_str component;
	struct gl_str first_path;
	struct gl_pos pos;
	struct gl_pos head;
	int has_tod;			/* day_us/last_tod_us are meaningful */
	int64_t day_us;
	int64_t last_tod_us;
	int64_t created_run;
	struct gl_str parse_state;	/* bytes of gl_parse_ctx.state at pos; p NULL: none */
	int lines_hashed;		/* stream_lines holds the hash of each of its lines */
	uint64_t open_end;		/* 0, or: the rows after pos are an open record, cut at these bytes */
};

struct gl_bfile {
	int64_t id;
	struct gl_str path;
	int64_t dev, ino, size, mtime_ns;
	uint64_t raw_head_hash;
	int gzip;
	int64_t stream_id;		/* 0: none */
	uint64_t consumed;
	int has_tail;
	uint64_t tail_hash;
	const char *status;		/* static: "read", "damaged", "skipped", "copy", "empty" */
	struct gl_str note;
};

enum gl_bop_kind {
	GL_BOP_STREAM,			/* insert or update a stream */
	GL_BOP_CHECKPOINT,		/* add a checkpoint */
	GL_BOP_FILE,			/* insert or update a file */
	GL_BOP_UNPATH,			/* a file's path now belongs to another file */
	GL_BOP_LINES,			/* hashes of a stream's next lines */
};

struct gl_bop {
	enum gl_bop_kind kind;
	union {
		struct gl_bstream stream;
		struct {
			int64_t stream_id;
			struct gl_pos pos;
		} cp;
		struct gl_bfile file;
		int64_t unpath_id;
		struct {
			int64_t stream_id;
			uint64_t first;		/* line number of the first hash */
			uint64_t n;
			const char *hashes;	/* n * 8 bytes in the arena */
		} lines;
	} u;
};

/*
 * Rows of an open record (a last line stored cut, see gl_sstream.open_end)
 * that the record read again replaces: every row of the stream after line
 * after_line. The store deletes them before it inserts the batch's rows.
 */
#define GL_BATCH_DROPS 64
struct gl_bdrop {
	int64_t stream_id;
	uint64_t after_line;
};

struct gl_batch {
	char *arena;
	size_t used;
	struct gl_bev *ev;
	size_t nev;
	struct gl_bmem *mem;
	size_t nmem;
	struct gl_bsample *samp;
	size_t nsamp;
	struct gl_bspan *span;		/* up to GL_BATCH_ROWS with ev and mem */
	size_t nspan;
	struct gl_brej *rej;
	size_t nrej;
	struct gl_bop *op;
	size_t nop;
	struct gl_bdrop drop[GL_BATCH_DROPS];
	size_t ndrop;
	struct gl_err *notice;		/* problems to tell the user, in order */
	size_t nnotice;
	/* counters for the run summary, as of this batch */
	uint64_t lines_read, lines_continued, bytes_uncompressed, bytes_raw;
	uint64_t files_done, files_new, files_unchanged, files_rotated, files_grown;
	uint64_t files_reread;		/* every line rejected before, read again (stream.c) */
	uint64_t files_skipped, files_failed, files_damaged;
	uint64_t rejects_unstored, files_rejects_capped;
	int last;			/* the producer is done after this batch */
	const char *host;		/* host label of every row (--host or the ingest config's;
					 * borrowed for the run); NULL: none */
	uint64_t gen;			/* incremented by each reset: arena copies of older
					 * generations are gone */
	struct gl_str names[64];	/* gl_batch_name's recent copies (len 0: none) */
};

struct gl_batch *gl_batch_new(void);
void gl_batch_free(struct gl_batch *b);
/* Empties b for reuse. */
void gl_batch_reset(struct gl_batch *b);

/* Copies s into the arena; returns the copy, or {NULL,0} for an absent s. */
struct gl_str gl_batch_str(struct gl_batch *b, struct gl_str s);

/*
 * Asks the CPU to take ownership (prefetch for writing) of the batch memory
 * the next event and its strings will be written to. A batch's memory was
 * last read by the writing thread, on the other core: without this, every
 * new cache line of the arena was a wait for that core to give it up, and
 * the parsing thread spent an eighth of its time in put_event's copies
 * behind those writes (perf, 1M bench set; tests/bench/README.md,
 * 2026-11-23, "the SQLite writer and the parser in balance"). A hint
 * only: nothing changes but when the memory is fetched.
 */
void gl_batch_warm(const struct gl_batch *b);

/*
 * Copies a name into the arena (component, kernel, metric, scope, ...: a
 * short string that repeats from record to record) and returns the copy,
 * or an earlier copy of the same bytes in this batch: the store then finds
 * the name's id by the copy's address (store.c, name_id) instead of hashing
 * its bytes for every row. Strings over GL_BATCH_NAME_MAX bytes are copied
 * as gl_batch_str copies them. {NULL,0} for an absent s, or no room.
 */
#define GL_BATCH_NAME_MAX 128
struct gl_str gl_batch_name(struct gl_batch *b, struct gl_str s);

/* Free arena bytes. */
size_t gl_batch_room(const struct gl_batch *b);

/* 1 when any fixed capacity is reached and the batch must be sent (the
 * samples array counts as full when it cannot take GL_BATCH_SAMPLES / 8 more). */
int gl_batch_full(const struct gl_batch *b);

#endif
