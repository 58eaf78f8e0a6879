/*
 * job.h - internal to lib/ingest: one file being read (struct job) and the
 * functions that stream.c (the file as a whole), identify.c (which stream
 * does it continue?) and records.c (its lines as batch rows) share.
 */
#ifndef GL_JOB_H
#define GL_JOB_H

#include <stdint.h>

#include "ingest.h"
#include "reader.h"

/*
 * ID_BRANCH: the file starts with lines of a stream it was attached to (the
 * same inode) and then departs from it (truncated in place and written
 * again): a new stream whose first j->branch_lines lines are stored already.
 */
enum identity { ID_NEW, ID_CONTINUE, ID_COPY, ID_BRANCH };

/* A metric sample held with a pending record: strings as offsets into its buf. */
struct pend_sample {
	struct gl_sample s;	/* strings rebuilt at flush */
	size_t metric_off, device_off, labels_off;
	int has_device, has_labels;
};

/* A multi-line record being assembled (continuation lines appended). */
struct pending {
	int active;
	struct pend_sample *samp;	/* the samples of its first line */
	size_t nsamp, capsamp;
	struct gl_event ev;	/* strings point into buf, rebuilt at flush */
	size_t comp_off, comp_len, kern_off, kern_len, meta_off, meta_len, msg_off;
	int has_comp, has_kern, has_meta;
	char *buf;
	size_t len, cap;
	uint64_t line;		/* first line of the record */
	struct gl_pos start;	/* stream position before its first line */
};

/*
 * Rows a trace format gave on lines that end with ctx->hold == 1: they wait
 * for the line that ends the run (hold 0), so that a batch never holds a
 * row whose line it cannot claim. Strings are offsets into buf.
 */
#define HELD_STRS 10
struct held_row {
	enum gl_rec_kind kind;		/* GL_REC_EVENT or GL_REC_SPAN */
	struct gl_event ev;
	struct gl_span sp;
	uint64_t line;
	size_t off[HELD_STRS], len[HELD_STRS];
	unsigned char has[HELD_STRS];
};

struct held {
	struct held_row *row;
	size_t n, cap;
	char *buf;
	size_t len, bcap;
};

/* A run this long is stored without waiting (see records.c). */
#define HELD_ROWS_MAX 1024
#define HELD_BYTES_MAX (1u << 20)

struct job {
	struct gl_producer *p;
	const struct gl_found *f;
	int32_t fi, si;
	struct gl_reader *r;
	int gzip;
	int newstream;
	struct gl_pos pos;		/* after the last line read */
	uint64_t last_cp;		/* bytes of the last checkpoint */
	const struct gl_format *fmt;	/* format of the current record */
	struct gl_parse_ctx ctx;
	struct pending pend;
	const char *status;		/* final file status */
	char note[300];
	int damaged;
	int cut;			/* the open record reached GL_RECORD_MAX */
	uint64_t new_lines;
	int64_t last_ts;		/* time of the last record stored, for rejects */
	uint64_t nrejected;		/* rejected lines stored from this file in this run */
	/* this file's path in the batch being filled (rows share one copy) */
	struct gl_str bpath;
	const struct gl_batch *bpath_b;
	uint64_t bpath_gen;
	/*
	 * The parse state as it was before the line in hand: a batch sent
	 * while a line is handled claims the position before that line, so
	 * it must carry the state before it too.
	 */
	int in_line;
	unsigned char prev_state[GL_PARSE_STATE_MAX];
	size_t prev_state_len;
	/* hashes of the stream's lines lh_first.. read, not yet in a batch
	 * (lh_on: the stream keeps line hashes) */
	int lh_on;
	uint64_t *lh;
	size_t lh_n, lh_cap;
	uint64_t lh_first;
	uint64_t branch_lines;		/* ID_BRANCH: lines already stored */
	/*
	 * A run of lines that ended with ctx.hold == 1 (a trace element read
	 * over several lines): hold_start is the position before its first
	 * line, the furthest this file may claim until a line ends the run.
	 */
	int hold_active;
	struct gl_pos hold_start;
	struct held held;
	/*
	 * The file's last line has no newline and is read (settled): the
	 * record it belongs to starts at rec_start and is stored as an open
	 * record ending at cut_end (gl_sstream.open_end); the file claims no
	 * further than rec_start.
	 */
	int last_cut;
	struct gl_pos rec_start;
	uint64_t cut_end;
	/* the stream's open record from an earlier run still has its rows:
	 * they are dropped before this file stores anything after pos */
	int drop_pending;
	/* the modification time the file's row held before this run (-1: a new row) */
	int64_t prev_mtime_ns;
};

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Arena bytes the state ops of one file take at most: path, first path,
 * component, note, parse state, and the rows' copy of the path. */
#define GL_STATE_ROOM (4 * 4096 + 2048 + GL_PARSE_STATE_MAX)

/* records.c: lines into batch rows, and the state that makes them final */
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
int gl_line_blank(const char *p, size_t len);

/* identify.c: fingerprints and stream identity */
uint64_t gl_fp_raw(const char *path, uint64_t off, uint64_t n, int *ok);
void gl_pos_advance(struct gl_pos *pos, const struct gl_line *ln);
int gl_file_same(const struct gl_sfile *k, const struct gl_found *f);
int gl_file_complete(const struct gl_sfile *k);
int gl_file_grew(const struct gl_state *s, const struct gl_sfile *k, const struct gl_found *f);
enum identity gl_job_identify(struct job *j, int32_t *si_out);
int gl_stream_other_time(const struct gl_state *s, const struct gl_sstream *st, int64_t mtime_ns,
			 int32_t self, int64_t self_mtime_ns);

/* stream.c */
int gl_job_next_line(struct job *j, struct gl_line *ln);
/* Puts the hashes of the stream's lines up to `at` into the batch. */
void gl_job_put_lines(struct job *j, struct gl_pos at);
/* Arena bytes the line hashes held by the job take in a batch. */
size_t gl_job_lines_room(const struct job *j);

#endif
