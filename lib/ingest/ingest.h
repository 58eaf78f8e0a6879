/*
 * ingest.h - internal interface between the pipeline (ingest.c: threads,
 * queue, progress) and the per-file work (stream.c: which stream a file
 * continues, and reading its new lines into batches).
 */
#ifndef GL_INGEST_H
#define GL_INGEST_H

#include <stdatomic.h>
#include <stdint.h>

#include "../record/batch.h"
#include "discover.h"
#include "format.h"
#include "../record/state.h"

/* Raw bytes fingerprinted at the start (and before the end) of a file. */
#define GL_HEAD_BYTES 4096
/* A checkpoint about every this many bytes of a stream. */
#define GL_CHECKPOINT_BYTES (1u << 20)
/* A multi-line record is cut at this size; the rest of it is rejected. */
#define GL_RECORD_MAX (1u << 20)
/* A final line without '\n' in a plain file modified this recently may
 * still be being written: it is left for the next run. */
#define GL_SETTLE_US (60LL * 1000000)

/* The parsing side of the pipeline: one per run, used by one thread. */
struct gl_producer {
	struct gl_state *state;
	const struct gl_format *forced;	/* --format or the config's, for the file in hand; NULL: detect */
	uint64_t max_rejects;		/* rejected lines stored per file */
	int64_t run_id;
	int64_t now_us;
	const char *tz_name;		/* zone of naive times of the file in hand; NULL: UTC */
	const struct gl_input_hint *hint;	/* the ingest config's entry for it, or NULL */
	enum gl_date_order date_order;	/* the config's "date_order" for it */
	const char *host;		/* host label of its rows (set in each batch); NULL: none */
	struct gl_batch *b;		/* the batch being filled */
	/* Hands p->b to the writer and puts an empty batch in p->b.
	 * Returns GL_OK, or a negative code when the run is aborting. */
	int (*send)(struct gl_producer *p);
	/*
	 * Reads the stored hashes of lines first..first+n-1 of a stream into
	 * out (*got of them), after everything sent so far is committed. For
	 * the rare file that no longer continues its stream; NULL: not
	 * available (identity falls back to checkpoints alone).
	 */
	int (*line_hashes)(struct gl_producer *p, int64_t stream_id, uint64_t first, uint64_t n,
			   uint64_t *out, uint64_t *got);
	void *pipe;			/* ingest.c's queue */
	atomic_uint_fast64_t bytes_done;	/* raw bytes of files finished */
	atomic_uint_fast64_t bytes_current;	/* raw bytes read of the file in hand */
	atomic_uint_fast64_t files_done;
};

/*
 * Reads file f: decides whether it is unchanged, a renamed or rotated copy
 * of known content, known content grown, or new, and puts its new lines
 * into batches (sending them as they fill) together with the state that
 * marks them stored. Problems with the file are notices in the batch, not
 * errors. Returns GL_OK, or a negative code when the run must stop (the
 * writer failed, out of memory).
 */
int gl_stream_file(struct gl_producer *p, const struct gl_found *f);

/*
 * The component a file name implies: "gpu.log", "gpu.log.3.gz",
 * "archived/gpu_20250909_143022.log.gz" -> "gpu". Writes into buf (n bytes).
 */
void gl_component_from_path(const char *path, char *buf, size_t n);

#endif
