/*
 * job.h - internal to lib/ingest: one file being read (struct job) and
 * job.c, the functions below stream.c (the file as a whole), identify.c
 * (which stream does it continue? identify.h) and records.c (its lines as
 * batch rows, records.h). Those three include this file; only stream.c
 * includes the other two, so they form no circle.
 */
#ifndef GL_JOB_H
#define GL_JOB_H

#include <stdint.h>

#include "ingest.h"
#include "reader.h"

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

/* Line hashes held before a batch is sent anyway (512 KiB). */
#define LH_SEND 65536

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

/* job.c: the file's lines, their hashes and fingerprints */
/* Has the file changed within GL_SETTLE_US (its writer may be at it)? */
int gl_job_fresh(const struct job *j);
/* Next line, or 0 at the end (a held-back unfinished line is the end), -1 damaged. */
int gl_job_next_line(struct job *j, struct gl_line *ln);
/* Keeps the hash of the next line read, while the stream keeps line hashes. */
int gl_job_hash_line(struct job *j, uint64_t h);
/* Puts the hashes of the stream's lines up to `at` into the batch. */
void gl_job_put_lines(struct job *j, struct gl_pos at);
/* Arena bytes the line hashes held by the job take in a batch. */
size_t gl_job_lines_room(const struct job *j);
int gl_line_blank(const char *p, size_t len);
uint64_t gl_fp_raw(const char *path, uint64_t off, uint64_t n, int *ok);
void gl_pos_advance(struct gl_pos *pos, const struct gl_line *ln);

#endif
