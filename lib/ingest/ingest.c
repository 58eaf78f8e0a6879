/*
 * ingest.c - gl_ingest_run(): the pipeline of one ingest run.
 *
 *   discover (paths -> files) -> [parser thread] per file: identify its
 *   stream, read, decompress, parse new lines into batches -> queue of at
 *   most GL_PIPE_BATCHES batches -> [calling thread] one SQLite transaction
 *   per batch.
 *
 * Two threads because the work splits evenly on two cores: inflating and
 * parsing on one, SQLite on the other. The queue is bounded, so memory is
 * bounded whatever the input size.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest.h"
#include "inconfig.h"
#include "../store/store.h"
#include "../util/timeutil.h"

#define GL_PIPE_BATCHES 3

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct gl_batch *all[GL_PIPE_BATCHES];
	struct gl_batch *freeq[GL_PIPE_BATCHES];
	size_t nfree;
	struct gl_batch *fullq[GL_PIPE_BATCHES];
	size_t fhead, nfull;
	int abort;		/* the writer failed: the producer stops */
	struct gl_producer prod;
	const struct gl_found_list *found;
	int prod_rc;
	struct gl_store *store;
	/* the run's settings, which an ingest config entry overrides per file */
	const struct gl_inconfig *config;
	const struct gl_format *forced;
	const char *tz_name;
	const char *host;
};

static int pipe_send(struct gl_producer *p)
{
	struct pipe *q = p->pipe;
	int aborted;

	pthread_mutex_lock(&q->mu);
	q->fullq[(q->fhead + q->nfull) % GL_PIPE_BATCHES] = p->b;
	q->nfull++;
	pthread_cond_broadcast(&q->cv);
	while (!q->nfree)
		pthread_cond_wait(&q->cv, &q->mu);
	p->b = q->freeq[--q->nfree];
	aborted = q->abort;
	pthread_mutex_unlock(&q->mu);
	gl_batch_reset(p->b);
	p->b->host = p->host;
	return aborted ? GL_EDB : GL_OK;
}

/*
 * The writer is idle once every batch but the producer's own is free again:
 * then the database holds all that was sent and the producer may read it
 * (the connection is serialized; the writer does not touch it while idle).
 */
static int pipe_line_hashes(struct gl_producer *p, int64_t stream_id, uint64_t first,
			    uint64_t n, uint64_t *out, uint64_t *got)
{
	struct pipe *q = p->pipe;
	struct gl_batch *b = p->b;
	struct gl_err e;
	int aborted, rc;

	if ((b->nev || b->nmem || b->nsamp || b->nspan || b->nrej || b->nop || b->nnotice) &&
	    (rc = p->send(p)) != GL_OK)
		return rc;
	pthread_mutex_lock(&q->mu);
	while (q->nfree < GL_PIPE_BATCHES - 1 && !q->abort)
		pthread_cond_wait(&q->cv, &q->mu);
	aborted = q->abort;
	pthread_mutex_unlock(&q->mu);
	if (aborted)
		return GL_EDB;
	return gl_store_line_hashes(q->store, stream_id, first, n, out, got, &e);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * Applies the ingest config's entry for file f (or the run's settings)
 * to the producer. The host is per batch: a batch holding rows of another
 * host is sent first. Returns 1 when the config skips the file (counted
 * and told here), 0 when it is to be read, or a negative code.
 */
static int apply_config(struct pipe *q, const struct gl_found *f)
{
	struct gl_producer *p = &q->prod;
	const struct gl_inconfig_input *in = gl_inconfig_match(q->config, f->path + f->rel);
	const char *host = in && in->host ? in->host : q->host;
	struct gl_batch *b = p->b;
	int rc;

	if (in && in->skip) {
		if (b->nnotice == GL_BATCH_NOTICES && (rc = p->send(p)) != GL_OK)
			return rc;
		b = p->b;
		gl_err_set(&b->notice[b->nnotice++], GL_OK, f->path, 0, "skipped by the config",
			   "skipped");
		b->files_skipped++;
		b->files_done++;
		atomic_fetch_add(&p->bytes_done, (uint64_t)f->size);
		atomic_fetch_add(&p->files_done, 1);
		return 1;
	}
	p->forced = in && in->format ? in->format : q->forced;
	p->tz_name = in && in->tz_name ? in->tz_name : q->tz_name;
	if (p->tz_name && strcmp(p->tz_name, "UTC") == 0)
		p->tz_name = NULL;
	p->hint = in ? &in->hint : NULL;
	p->date_order = in && in->date_order ? in->date_order
			: q->config ? q->config->date_order : GL_DATE_ORDER_AUTO;
	if (!same_str(host, b->host)) {
		p->host = host;
		if ((b->nev || b->nmem || b->nsamp || b->nrej) && (rc = p->send(p)) != GL_OK)
			return rc;
		p->b->host = host;
	}
	return 0;
}

static void *producer_main(void *arg)
{
	struct pipe *q = arg;
	struct gl_producer *p = &q->prod;
	int rc = GL_OK;

	for (size_t i = 0; i < q->found->n && rc == GL_OK; i++) {
		rc = apply_config(q, &q->found->v[i]);
		if (rc == 0)
			rc = gl_stream_file(p, &q->found->v[i]);
		else if (rc == 1)
			rc = GL_OK;
	}
	q->prod_rc = rc;
	p->b->last = 1;
	pthread_mutex_lock(&q->mu);
	q->fullq[(q->fhead + q->nfull) % GL_PIPE_BATCHES] = p->b;
	q->nfull++;
	p->b = NULL;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void tell(const struct gl_ingest_opts *o, const struct gl_err *e)
{
	if (o->notice)
		o->notice(o->notice_arg, e);
}

/* The store's notices (waiting for the database, migrating it) as the run's. */
static void store_notice(void *arg, const struct gl_err *e)
{
	tell(arg, e);
}

static void account(struct gl_ingest_stats *st, const struct gl_batch *b)
{
	st->lines_read += b->lines_read;
	st->lines_continued += b->lines_continued;
	st->lines_stored += b->nev + b->nmem;
	st->samples_stored += b->nsamp;
	st->spans_stored += b->nspan;
	for (size_t i = 0; i < b->nrej; i++)
		if (b->rej[i].line)
			st->lines_rejected++;
	st->lines_rejected += b->rejects_unstored;
	st->lines_rejected_unstored += b->rejects_unstored;
	st->files_rejects_capped += b->files_rejects_capped;
	st->bytes_uncompressed += b->bytes_uncompressed;
	st->files_new += b->files_new;
	st->files_unchanged += b->files_unchanged;
	st->files_rotated += b->files_rotated;
	st->files_grown += b->files_grown;
	st->files_reread += b->files_reread;
	st->files_skipped += b->files_skipped;
	st->files_failed += b->files_failed;
	st->files_damaged += b->files_damaged;
}

int gl_ingest_run(const struct gl_ingest_opts *o, struct gl_ingest_stats *st, struct gl_err *err)
{
	struct gl_found_list found;
	struct gl_store *store = NULL;
	struct gl_state state;
	struct pipe q;
	struct timespec t0, last;
	pthread_t th;
	int64_t run_id = 0, keep_days;
	struct gl_inconfig *cfg = NULL;
	const char *tz;
	int rc, started = 0, store_rc = GL_OK, stopping = 0;
	char dbabs[4096];

	memset(st, 0, sizeof(*st));
	memset(&q, 0, sizeof(q));
	gl_state_init(&state);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	last = t0;

	if (o->format && !gl_format_find(o->format))
		return gl_err_set(err, GL_EUSAGE, NULL, 0, "see --list-formats",
				  "unknown format '%s'", o->format);
	/* The config is read whole and checked before the database is touched. */
	if (o->config_path && (rc = gl_inconfig_load(&cfg, o->config_path, err)) != GL_OK) {
		if (rc == GL_EIO)
			err->code = rc = GL_ECONFIG;
		return rc;
	}
	tz = o->tz_name ? o->tz_name : cfg ? cfg->tz_name : NULL;
	keep_days = o->keep_days ? o->keep_days : cfg ? cfg->keep_days : 0;
	gl_inconfig_resolve(cfg, tz);
	if ((rc = gl_store_open(&store, o->db_path,
				(o->nowait ? GL_STORE_NOWAIT : 0) | (o->in_place ? 0 : GL_STORE_BUILD),
				store_notice, (void *)o, err)) != GL_OK) {
		/* A database that cannot be opened is never "some input could not
		 * be read" (GL_EIO): the run did not start. */
		if (rc == GL_EIO || rc == GL_EDB) {
			err->code = rc = GL_EDB;
			snprintf(err->msg, sizeof(err->msg), "cannot open database");
		}
		goto out_store;
	}
	if (!realpath(o->db_path, dbabs))
		dbabs[0] = '\0';
	if ((rc = gl_discover(&found, o->paths, o->npaths, dbabs[0] ? dbabs : NULL, err)) != GL_OK)
		goto out_store;
	gl_found_sort_by_age(&found);
	for (size_t i = 0; i < found.nproblems; i++)
		tell(o, &found.problems[i]);
	st->files_failed = found.nproblems;
	st->files_seen = found.n;
	for (size_t i = 0; i < found.n; i++)
		st->bytes_total += (uint64_t)found.v[i].size;

	if ((rc = gl_store_load(store, &state, err)) != GL_OK ||
	    (rc = gl_store_run_begin(store, o->host, &run_id, err)) != GL_OK)
		goto out;

	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.cv, NULL);
	for (size_t i = 0; i < GL_PIPE_BATCHES; i++) {
		q.all[i] = gl_batch_new();
		if (!q.all[i]) {
			rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			goto out;
		}
	}
	q.prod.b = q.all[0];
	for (size_t i = 1; i < GL_PIPE_BATCHES; i++)
		q.freeq[q.nfree++] = q.all[i];
	q.prod.state = &state;
	q.forced = o->format ? gl_format_find(o->format) : NULL;
	q.tz_name = tz;
	q.host = o->host;
	q.config = cfg;
	q.prod.host = q.all[0]->host = o->host;
	q.prod.max_rejects = o->max_rejects ? o->max_rejects
			   : cfg && cfg->max_rejects ? cfg->max_rejects : GL_MAX_REJECTS_DEFAULT;
	q.prod.run_id = run_id;
	q.prod.now_us = gl_time_now_us();
	q.prod.send = pipe_send;
	q.prod.line_hashes = pipe_line_hashes;
	q.store = store;
	q.prod.pipe = &q;
	q.found = &found;
	atomic_init(&q.prod.bytes_done, 0);
	atomic_init(&q.prod.files_done, 0);
	atomic_init(&q.prod.bytes_current, 0);
	if (pthread_create(&th, NULL, producer_main, &q) != 0) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "cannot start thread");
		goto out;
	}
	started = 1;

	for (;;) {
		struct gl_batch *b;

		pthread_mutex_lock(&q.mu);
		while (!q.nfull) {
			struct timespec dl;

			gl_time_deadline(&dl, 100);
			pthread_cond_timedwait(&q.cv, &q.mu, &dl);
			if (o->stop && *o->stop && !stopping) {
				/* The producer stops at its next batch; what it
				 * has queued is dropped, its state with it. */
				stopping = q.abort = 1;
				pthread_cond_broadcast(&q.cv);
			}
			if (!q.nfull && o->progress && seconds_since(&last) >= 0.1) {
				pthread_mutex_unlock(&q.mu);
				st->bytes_done = atomic_load(&q.prod.bytes_done) + atomic_load(&q.prod.bytes_current);
				st->files_done = atomic_load(&q.prod.files_done);
				st->elapsed_s = seconds_since(&t0);
				o->progress(o->progress_arg, st);
				clock_gettime(CLOCK_MONOTONIC, &last);
				pthread_mutex_lock(&q.mu);
			}
		}
		b = q.fullq[q.fhead];
		q.fhead = (q.fhead + 1) % GL_PIPE_BATCHES;
		q.nfull--;
		pthread_mutex_unlock(&q.mu);

		if (o->stop && *o->stop)
			stopping = 1;
		if (store_rc == GL_OK && !stopping) {
			store_rc = gl_store_put(store, b, run_id, b->host, err);
			if (store_rc == GL_OK) {
				for (size_t i = 0; i < b->nnotice; i++)
					tell(o, &b->notice[i]);
				account(st, b);
			}
		}
		int lastb = b->last;

		pthread_mutex_lock(&q.mu);
		if (store_rc != GL_OK || stopping)
			q.abort = 1;
		q.freeq[q.nfree++] = b;
		pthread_cond_broadcast(&q.cv);
		pthread_mutex_unlock(&q.mu);
		if (o->progress && seconds_since(&last) >= 0.1) {
			st->bytes_done = atomic_load(&q.prod.bytes_done) + atomic_load(&q.prod.bytes_current);
			st->files_done = atomic_load(&q.prod.files_done);
			st->elapsed_s = seconds_since(&t0);
			o->progress(o->progress_arg, st);
			clock_gettime(CLOCK_MONOTONIC, &last);
		}
		if (lastb)
			break;
	}
	pthread_join(th, NULL);
	started = 0;
	if (store_rc != GL_OK) {
		rc = store_rc;
		goto out;
	}
	if (stopping) {
		st->bytes_done = atomic_load(&q.prod.bytes_done);
		st->files_done = atomic_load(&q.prod.files_done);
		rc = gl_err_set(err, GL_EINTR, NULL, 0,
				"what was stored is kept; the next run reads on from there",
				"interrupted");
		goto out;
	}
	if (q.prod_rc != GL_OK) {
		rc = gl_err_set(err, q.prod_rc, NULL, 0, NULL, "ingest stopped: out of memory");
		goto out;
	}
	st->bytes_done = atomic_load(&q.prod.bytes_done) + atomic_load(&q.prod.bytes_current);
	st->files_done = atomic_load(&q.prod.files_done);
	st->elapsed_s = seconds_since(&t0);
	st->events_duplicate = gl_store_duplicates(store);
	st->samples_stored = gl_store_samples(store);
	if ((rc = gl_store_merge_samples(store, o->merge_committed, o->merge_arg, err)) != GL_OK ||
	    (rc = gl_store_run_end(store, run_id, st, err)) != GL_OK)
		goto out;
	if (keep_days > 0) {
		st->pruned_before_us = q.prod.now_us - keep_days * GL_US_PER_DAY;
		if ((rc = gl_store_prune(store, run_id, st->pruned_before_us, &st->rows_pruned, err)) !=
		    GL_OK)
			goto out;
		st->elapsed_s = seconds_since(&t0);
	}
	if (o->progress)
		o->progress(o->progress_arg, st);
	rc = st->files_failed || st->files_damaged ? GL_EIO : GL_OK;
out:
	if (started)
		pthread_join(th, NULL);
	for (size_t i = 0; i < GL_PIPE_BATCHES; i++)
		gl_batch_free(q.all[i]);
	if (q.all[0]) {
		pthread_mutex_destroy(&q.mu);
		pthread_cond_destroy(&q.cv);
	}
	gl_state_release(&state);
	gl_found_list_release(&found);
	/*
	 * A new database built aside is moved into place whatever ended the
	 * run: every batch in it was committed whole or rolled back, with
	 * its state, so it is consistent, and the next run reads on.
	 */
	if (store) {
		struct gl_err ferr;
		int frc = gl_store_finish(store, &ferr);

		if (frc != GL_OK && (rc == GL_OK || rc == GL_EIO || rc == GL_EINTR)) {
			*err = ferr;
			rc = frc;
		}
	}
out_store:
	gl_store_close(store);
	gl_inconfig_free(cfg);
	st->elapsed_s = seconds_since(&t0);
	return rc;
}
