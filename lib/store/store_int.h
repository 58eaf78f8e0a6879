/*
 * store_int.h - what the files of the store's write side share: struct
 * gl_store and the helpers each lifetime uses. Not for use outside
 * lib/store.
 *
 *   store.c          open (lock, header, pragmas, statements), close, runs
 *   store_db.c       the SQLite helpers below all of them
 *   store_migrate.c  creation of a new database and migrations
 *   store_load.c     the ingest state loaded at the start of a run
 *   store_intern.c   the maps of names, paths and series to their ids
 *   store_put.c      a batch into its transaction (the row writer's hot
 *                    path: a row's names by address, its probe, its packing)
 *   store_hash.c     the record hash
 */
#ifndef GL_STORE_INT_H
#define GL_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>
#include <sqlite3.h>

#include "store.h"
#include "evtab.h"
#include "build.h"
#include "sblock_db.h"

struct name_slot {
	uint64_t hash;
	int64_t id;		/* 0: empty slot */
	char *name;
	size_t len;
};

/*
 * An in-memory map from bytes to the id of their row, loaded at open and
 * kept in step with the table: names (components, kernels, hosts,
 * metrics), paths, and series (keyed by series_key()).
 */
struct intern {
	struct name_slot *v;
	size_t n, cap;		/* cap: power of two */
};

/* A WAL longer than this is checkpointed (in the background). */
#define GL_CHECKPOINT_BYTES_WAL (16 << 20)
#define GL_MEMO_SLOTS 64	/* struct gl_store's name_memo and series_memo */
/*
 * A writer that commits without pause never lets SQLite start the WAL
 * over, even when every frame is copied; past this size the writer waits
 * for the background checkpoint in progress and makes the WAL restart
 * (most frames are copied already; what is left is the rest and a sync).
 */
#define GL_RESTART_BYTES_WAL (128 << 20)
/* Page size of new databases: fewer, shallower B-tree pages per row. */
#define GL_PAGE_SIZE 16384

/*
 * Checkpoints run on their own thread and connection: copying the WAL into
 * the database and the fsyncs around it then never stall the thread that
 * inserts (they did: 1.5 s of waiting in a 4 s ingest of 1M lines).
 */
struct checkpointer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sqlite3 *db;
	int64_t page_size;	/* of the database (an old one may have 4 KiB pages) */
	int started, wanted, stop;
	int running;		/* a background checkpoint is in progress */
	int held;		/* the writer is restarting the WAL: start none */
};

struct gl_store {
	sqlite3 *db;
	struct checkpointer ck;
	int lock_fd;
	char *path;
	struct gl_build build;	/* a new database built aside; build.path NULL: in place */
	sqlite3_stmt *ins_ev, *ins_log, *ins_mem, *ins_rej, *put_stream, *put_cp, *put_file, *unpath,
		*ins_name, *ins_path, *ins_series, *dup_probe, *dup_probe_nots, *get_lines, *set_lines, *ins_span,
		*put_kind, *ins_op;
	struct gl_sbw *sbw;	/* the batch's samples, stored as blocks */
	struct intern names, paths, series;
	/* the last path looked up: rows of one file in a batch share its copy */
	const char *last_path;
	size_t last_path_len;
	int64_t last_path_id;
	/*
	 * Ids by string address, for the put under way: a batch's names are
	 * copied once per batch and shared by its rows (gl_batch_name), and
	 * within one put an address and a length name one string, so a
	 * name's id is found without hashing its bytes again. Emptied at the
	 * start of every put (the batch memory is reused for other strings).
	 */
	struct memo { const char *p, *q, *r, *src; size_t len, qlen, rlen; int64_t host, id; }
		name_memo[GL_MEMO_SLOTS], series_memo[GL_MEMO_SLOTS];
	char *key;		/* series_key() buffer */
	size_t keycap;
	uint64_t duplicates;	/* events marked dup_of since open */
	uint64_t samples;	/* samples stored since open */
	unsigned char *ev_dup;	/* per event of the batch being put: 1 marked as a mirror */
	unsigned char *ev_maybe;	/* per event: 1 when the filter (bloom_pass) knew its hash */
	/* the operation timings among the rows of the INSERT under way, as
	 * gl_store_ev_row finds them (its packing carries each), for
	 * put_operations() to store once the rows have their ids */
	struct gl_store_op {
		size_t i;		/* the event's index in the batch */
		int64_t name_id;	/* 0: not named */
		double ms, throughput;	/* throughput NAN: none */
	} *ev_ops;
	size_t n_ev_ops, ev_ops_cap;
	size_t ev_dup_cap;	/* of both */
	/*
	 * Which events need the mirror probe (an index lookup per event, a
	 * tenth of the writer's time): one with a time after every event
	 * stored before this connection opened (pre_max_ts) whose record hash
	 * is not in the Bloom filter of the events put since cannot have an
	 * original, and is not looked up. The filter has no false negatives,
	 * so every event that may have one still is.
	 */
	int64_t pre_max_ts;	/* max(events.ts_us) at open; INT64_MIN: none */
	uint64_t *bloom;	/* GL_BLOOM_BITS bits, allocated at the first event */
	/*
	 * The last probe's answer per (time, record hash), by slot. The probe
	 * walks every stored row of its (ts_us, rec_hash) until one of another
	 * stream: for the same record repeated in one stream (a retry loop
	 * logging one line many times within a second of a format with
	 * second-resolution times) that is every earlier copy, each time:
	 * quadratic (30,000 copies took 40 s). The answer for a record of
	 * stream S stays the same until a record with its key is put from
	 * another stream, which always passes here (the Bloom filter knows the
	 * key) and takes the slot. Emptied when rows are deleted or a batch is
	 * rolled back.
	 */
	struct probe_hit *probes;	/* GL_PROBE_SLOTS, allocated with the filter */
	/* ins_ev's rows (evtab.h) and the put they belong to, for ev_row() */
	struct gl_evtab_src evsrc;
	const struct gl_batch *put_batch;
	int64_t put_host_id;
	struct gl_err *put_err;
	int put_rc;		/* what ev_row() failed with */
	void (*notice)(void *arg, const struct gl_err *e);	/* see gl_store_open */
	void *notice_arg;
};

#define GL_PROBE_SLOTS 4096

struct probe_hit {
	int64_t ts_us;
	uint64_t hash;
	int64_t stream_id;	/* 0: empty */
	int64_t dup;		/* the probe's answer: the original's id, or 0 */
};

/* 4 MiB; both bits of a hash in one 64-bit word, so one cache miss: 0.48% false
 * positives at 1M events (two words: 0.33%, two misses; simulated) */
#define GL_BLOOM_BITS (1u << 25)

/*
 * The connection of a database built aside (build.h): no other connection
 * ever opens the -build file, so it keeps its lock from the first
 * transaction to the close (EXCLUSIVE: without it, every transaction took
 * and dropped its locks, looked for a hot journal and reread the header,
 * ~40 system calls per batch), rolls back from memory and is not synced
 * until it is moved into place.
 */
#define GL_BUILD_PRAGMAS                                                                 \
	"PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"

/* The database's error as err (GL_EDB), what being what failed. */
int gl_store_db_err(struct gl_store *st, struct gl_err *err, const char *what);
/* Runs sql (statements without rows); GL_OK or GL_EDB. */
int gl_store_exec(struct gl_store *st, const char *sql, struct gl_err *err);
/* The first column of sql's first row into *v (kept when no row). */
int gl_store_pragma_int(struct gl_store *st, const char *sql, int64_t *v, struct gl_err *err);

/* Creates the schema in a fresh database (fresh: the file is new) or
 * migrates an older one to GL_SCHEMA_VERSION (store_migrate.c). */
int gl_store_migrate(struct gl_store *st, int fresh, struct gl_err *err);

/* The names, paths and series tables into st's maps (store_intern.c). */
int gl_store_interns_load(struct gl_store *st, struct gl_err *err);
void gl_store_intern_clear(struct intern *t);
/* The id of p[0..len) in t, 0: none; t gains p with id (copied; -1: no memory). */
int64_t gl_store_intern_find(struct intern *t, const char *p, size_t len);
int gl_store_intern_add(struct intern *t, const char *p, size_t len, int64_t id);
/* The id of s in table t through statement ins ("INSERT ... VALUES (?)"),
 * inserting it when new; 0 for an absent s. */
int gl_store_intern_id(struct gl_store *st, struct intern *t, sqlite3_stmt *ins, struct gl_str s,
		       int64_t *id, struct gl_err *err);
/* A series' key into st->key (see store_intern.c); its length, 0: no memory. */
size_t gl_store_series_key(struct gl_store *st, int64_t host_id, struct gl_str metric,
			   struct gl_str device, struct gl_str source, struct gl_str labels);
/* SQL gl_rec_hash(): gl_store_rec_hash() of a stored row (store_hash.c). */
void gl_store_sql_rec_hash(sqlite3_context *c, int n, sqlite3_value **a);
/* Row i of the batch being put: the gl_evtab_src callback (store_put.c). */
int gl_store_ev_row(void *arg, size_t i, struct gl_evrow *r);

#endif
