/*
 * sblock_db.c - table sample_blocks: a batch's samples packed into blocks,
 * and stored blocks rewritten (see sblock_db.h).
 *
 * In: samples one at a time from the store (put_sample), each with its
 * series and origin. Out: rows of sample_blocks, one per block. A sample
 * costs a hash lookup and a copy here, its share of one sort check and
 * its JSON text: a B-tree row per sample cost the telemetry ingest most of
 * its time (29M rows of 8 GPUs x 7 days).
 */
#include "sblock_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sblock.h"

#define GL_SBW_RECENT 16

/* The samples of one block key in the batch being put. */
struct bucket {
	int64_t series, stream_id, file_id, path_id;
	int ts_estimated;
	struct gl_sblock_sample *s;
	size_t n, cap;
};

struct gl_sbw {
	sqlite3 *db;
	const char *path;
	sqlite3_stmt *ins;
	struct bucket *bk;	/* bk[0..nbk) in use; the arrays of the rest kept */
	size_t nbk, capbk;
	uint32_t *slot;		/* key hash -> bucket index + 1; nslot a power of two */
	size_t nslot;
	struct gl_sblock_sample *tmp;	/* merge sort scratch */
	size_t tmpcap;
	char *text;
	size_t textcap;
	size_t nadded;		/* samples in the batch */
	/* the bucket last used per series_id % GL_SBW_RECENT (index + 1; 0:
	 * none): a line's samples take turns among a few series, and most
	 * samples find their bucket here without hashing the key */
	uint32_t recent[GL_SBW_RECENT];
	int v4;			/* the table of schema 4 to 10: blocks have no column open */
	/* the batch's staged samples (buckets of fewer than GL_SBLOCK_OPEN_MIN)
	 * and their origins, one row of sample_stage */
	sqlite3_stmt *stage_ins;
	struct gl_stage_sample *st;
	size_t nst, capst;
	int64_t (*org)[3];
	size_t norg, caporg;
	char *otext;
	size_t otextcap;
};

/* Samples converted per flush by gl_sblock_migrate (a multiple of a
 * block: a key's run is cut at a flush only past this many). */
#define GL_MIGRATE_BATCH (16 * GL_SBLOCK_MAX)

static int db_fail(sqlite3 *db, const char *path, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, path, 0, sqlite3_errmsg(db), "%s", what);
}

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static const char ins_sql[] =
	"INSERT INTO sample_blocks (series_id, t0_us, t1_us, n, ts_estimated, stream_id, line0,"
	" line1, file_id, path_id, data, open) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)";

/* Schema 4 to 10 (the migration 3 -> 4): no column open. */
static const char ins_v4_sql[] =
	"INSERT INTO sample_blocks (series_id, t0_us, t1_us, n, ts_estimated, stream_id, line0,"
	" line1, file_id, path_id, data) VALUES (?,?,?,?,?,?,?,?,?,?,?)";

static struct gl_sbw *sbw_open(sqlite3 *db, const char *path, int v4, struct gl_err *err)
{
	struct gl_sbw *w = calloc(1, sizeof(*w));

	if (!w) {
		oom(err);
		return NULL;
	}
	w->db = db;
	w->path = path;
	w->nslot = 256;
	if (!(w->slot = calloc(w->nslot, sizeof(*w->slot)))) {
		free(w);
		oom(err);
		return NULL;
	}
	w->v4 = v4;
	if (sqlite3_prepare_v3(db, v4 ? ins_v4_sql : ins_sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &w->ins, NULL) != SQLITE_OK ||
	    (!v4 && sqlite3_prepare_v3(db, "INSERT INTO sample_stage (n, origins, data)"
					   " VALUES (?,?,?)", -1, SQLITE_PREPARE_PERSISTENT,
				       &w->stage_ins, NULL) != SQLITE_OK)) {
		db_fail(db, path, err, "cannot prepare statement");
		gl_sbw_close(w);
		return NULL;
	}
	return w;
}

struct gl_sbw *gl_sbw_open(sqlite3 *db, const char *path, struct gl_err *err)
{
	return sbw_open(db, path, 0, err);
}

void gl_sbw_close(struct gl_sbw *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->ins);
	sqlite3_finalize(w->stage_ins);
	free(w->st);
	free(w->org);
	free(w->otext);
	for (size_t i = 0; i < w->capbk; i++)
		free(w->bk[i].s);
	free(w->bk);
	free(w->slot);
	free(w->tmp);
	free(w->text);
	free(w);
}

static uint64_t key_hash(int64_t series, int64_t stream_id, int64_t file_id, int64_t path_id,
			 int est)
{
	uint64_t h = (uint64_t)series * 0x9E3779B97F4A7C15ULL;

	h ^= (uint64_t)stream_id * 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
	h ^= (uint64_t)file_id * 0x165667B19E3779F9ULL + (h << 6) + (h >> 2);
	h ^= (uint64_t)path_id * 0x27D4EB2F165667C5ULL + (h << 6) + (h >> 2);
	h ^= (uint64_t)est + (h << 6) + (h >> 2);
	return h ^ (h >> 29);
}

static int same_key(const struct bucket *b, int64_t series, int64_t stream_id, int64_t file_id,
		    int64_t path_id, int est)
{
	return b->series == series && b->stream_id == stream_id && b->file_id == file_id &&
	       b->path_id == path_id && b->ts_estimated == est;
}

/* Doubles the slot table and places the buckets in use again. */
static int slots_grow(struct gl_sbw *w)
{
	size_t n = w->nslot * 2;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < w->nbk; i++) {
		const struct bucket *b = &w->bk[i];
		size_t j = key_hash(b->series, b->stream_id, b->file_id, b->path_id,
				    b->ts_estimated) & (n - 1);

		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(w->slot);
	w->slot = s;
	w->nslot = n;
	return 0;
}

int gl_sbw_add(struct gl_sbw *w, int64_t series_id, int64_t stream_id, int64_t file_id,
	       int64_t path_id, int ts_estimated, int64_t ts_us, double value, int64_t line,
	       struct gl_err *err)
{
	uint32_t *recent = &w->recent[(uint64_t)series_id % GL_SBW_RECENT];
	size_t j;
	struct bucket *b = NULL;

	if (*recent && *recent <= w->nbk) {
		b = &w->bk[*recent - 1];
		if (same_key(b, series_id, stream_id, file_id, path_id, ts_estimated))
			goto add;
		b = NULL;
	}
	j = key_hash(series_id, stream_id, file_id, path_id, ts_estimated) & (w->nslot - 1);
	for (; w->slot[j]; j = (j + 1) & (w->nslot - 1)) {
		b = &w->bk[w->slot[j] - 1];
		if (same_key(b, series_id, stream_id, file_id, path_id, ts_estimated))
			break;
		b = NULL;
	}
	if (!b) {
		if ((w->nbk + 1) * 2 > w->nslot) {
			if (slots_grow(w) < 0)
				return oom(err);
			return gl_sbw_add(w, series_id, stream_id, file_id, path_id, ts_estimated,
					  ts_us, value, line, err);
		}
		if (w->nbk == w->capbk) {
			size_t cap = w->capbk ? w->capbk * 2 : 64;
			struct bucket *v = realloc(w->bk, cap * sizeof(*v));

			if (!v)
				return oom(err);
			memset(v + w->capbk, 0, (cap - w->capbk) * sizeof(*v));
			w->bk = v;
			w->capbk = cap;
		}
		b = &w->bk[w->nbk];
		b->series = series_id;
		b->stream_id = stream_id;
		b->file_id = file_id;
		b->path_id = path_id;
		b->ts_estimated = ts_estimated;
		b->n = 0;
		w->slot[j] = (uint32_t)++w->nbk;
	}
	*recent = (uint32_t)(b - w->bk) + 1;
add:
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		struct gl_sblock_sample *v = realloc(b->s, cap * sizeof(*v));

		if (!v)
			return oom(err);
		b->s = v;
		b->cap = cap;
	}
	b->s[b->n].ts_us = ts_us;
	b->s[b->n].value = value;
	b->s[b->n].line = line;
	b->n++;
	w->nadded++;
	return GL_OK;
}

void gl_sbw_reset(struct gl_sbw *w)
{
	w->nst = w->norg = 0;
	w->nbk = 0;
	w->nadded = 0;
	memset(w->slot, 0, w->nslot * sizeof(*w->slot));
	memset(w->recent, 0, sizeof(w->recent));
}

/* Stable sort of s[0..n) by time (bottom-up merge; tmp holds n). */
static void sort_by_time(struct gl_sblock_sample *s, struct gl_sblock_sample *tmp, size_t n)
{
	struct gl_sblock_sample *a = s, *b = tmp;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				b[k++] = a[j].ts_us < a[i].ts_us ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		struct gl_sblock_sample *t = a;

		a = b;
		b = t;
	}
	if (a != s)
		memcpy(s, a, n * sizeof(*s));
}

/* Inserts s[0..n) of bucket b (time order, within one block's limits) as
 * one block. */
static int put_block(struct gl_sbw *w, const struct bucket *b, const struct gl_sblock_sample *s,
		     size_t n, struct gl_err *err)
{
	sqlite3_stmt *ins = w->ins;
	int64_t line0 = s[0].line, line1 = s[0].line;
	size_t len;
	int rc;

	for (size_t i = 1; i < n; i++) {
		if (s[i].line < line0)
			line0 = s[i].line;
		if (s[i].line > line1)
			line1 = s[i].line;
	}
	if (!(len = gl_sblock_encode(s, n, s[0].ts_us, line0, &w->text, &w->textcap)))
		return oom(err);
	sqlite3_bind_int64(ins, 1, b->series);
	sqlite3_bind_int64(ins, 2, s[0].ts_us);
	sqlite3_bind_int64(ins, 3, s[n - 1].ts_us);
	sqlite3_bind_int64(ins, 4, (int64_t)n);
	sqlite3_bind_int(ins, 5, b->ts_estimated);
	sqlite3_bind_int64(ins, 6, b->stream_id);
	sqlite3_bind_int64(ins, 7, line0);
	sqlite3_bind_int64(ins, 8, line1);
	if (b->file_id)
		sqlite3_bind_int64(ins, 9, b->file_id);
	else
		sqlite3_bind_null(ins, 9);
	if (b->path_id)
		sqlite3_bind_int64(ins, 10, b->path_id);
	else
		sqlite3_bind_null(ins, 10);
	sqlite3_bind_text(ins, 11, w->text, (int)len, SQLITE_STATIC);
	if (!w->v4)
		sqlite3_bind_int(ins, 12, 0);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	return rc == SQLITE_DONE ? GL_OK : db_fail(w->db, w->path, err, "cannot store samples");
}

/* The length of the block that starts s[0..n): GL_SBLOCK_MAX samples at
 * most, GL_SBLOCK_SPAN_US at most. */
static size_t block_len(const struct gl_sblock_sample *s, size_t n)
{
	size_t j = 1;

	while (j < n && j < GL_SBLOCK_MAX && s[j].ts_us - s[0].ts_us <= GL_SBLOCK_SPAN_US)
		j++;
	return j;
}

/* Adds bucket b's samples to the batch's stage row. */
static int stage_bucket(struct gl_sbw *w, const struct bucket *b, struct gl_err *err)
{
	size_t o = w->norg;

	/* a file's buckets mostly follow one another: its origin is the last */
	while (o > 0 && (w->org[o - 1][0] != b->stream_id || w->org[o - 1][1] != b->file_id ||
			 w->org[o - 1][2] != b->path_id))
		o--;
	if (o == 0) {
		if (w->norg == w->caporg) {
			size_t c = w->caporg ? w->caporg * 2 : 64;
			int64_t(*v)[3] = realloc(w->org, c * sizeof(*v));

			if (!v)
				return oom(err);
			w->org = v;
			w->caporg = c;
		}
		w->org[w->norg][0] = b->stream_id;
		w->org[w->norg][1] = b->file_id;
		w->org[w->norg][2] = b->path_id;
		o = ++w->norg;
	}
	if (w->nst + b->n > w->capst) {
		size_t c = w->capst ? w->capst : 1024;
		struct gl_stage_sample *v;

		while (c < w->nst + b->n)
			c *= 2;
		if (!(v = realloc(w->st, c * sizeof(*v))))
			return oom(err);
		w->st = v;
		w->capst = c;
	}
	for (size_t i = 0; i < b->n; i++)
		w->st[w->nst++] = (struct gl_stage_sample){b->series, b->s[i].ts_us, b->s[i].line,
							   b->s[i].value, (uint32_t)(o - 1),
							   b->ts_estimated};
	return GL_OK;
}

/* Writes the batch's stage row. */
static int put_stage(struct gl_sbw *w, struct gl_err *err)
{
	size_t len, olen = 0;
	int rc;

	if (!(len = gl_sblock_stage_encode(w->st, w->nst, &w->text, &w->textcap)))
		return oom(err);
	if (w->otextcap < 2 + w->norg * 66) {
		char *t = realloc(w->otext, 2 + w->norg * 66);

		if (!t)
			return oom(err);
		w->otext = t;
		w->otextcap = 2 + w->norg * 66;
	}
	w->otext[olen++] = '[';
	for (size_t i = 0; i < w->norg; i++)
		olen += (size_t)snprintf(w->otext + olen, w->otextcap - olen, "%s[%lld,%lld,%lld]",
					 i ? "," : "", (long long)w->org[i][0],
					 (long long)w->org[i][1], (long long)w->org[i][2]);
	w->otext[olen++] = ']';
	sqlite3_bind_int64(w->stage_ins, 1, (int64_t)w->nst);
	sqlite3_bind_text(w->stage_ins, 2, w->otext, (int)olen, SQLITE_STATIC);
	sqlite3_bind_text(w->stage_ins, 3, w->text, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(w->stage_ins);
	sqlite3_reset(w->stage_ins);
	sqlite3_clear_bindings(w->stage_ins);
	return rc == SQLITE_DONE ? GL_OK : db_fail(w->db, w->path, err, "cannot store samples");
}

/* Sorts bucket b's samples by time and stores them as blocks (a few
 * samples: staged, unsorted). */
static int put_bucket(struct gl_sbw *w, struct bucket *b, struct gl_err *err)
{
	int sorted = 1;
	int rc = GL_OK;

	if (!w->v4 && b->n < GL_SBLOCK_OPEN_MIN)
		return stage_bucket(w, b, err);
	for (size_t i = 1; i < b->n && sorted; i++)
		sorted = b->s[i].ts_us >= b->s[i - 1].ts_us;
	if (!sorted) {
		if (w->tmpcap < b->n) {
			struct gl_sblock_sample *t = realloc(w->tmp, b->n * sizeof(*t));

			if (!t)
				return oom(err);
			w->tmp = t;
			w->tmpcap = b->n;
		}
		sort_by_time(b->s, w->tmp, b->n);
	}
	for (size_t i = 0; i < b->n && rc == GL_OK;) {
		size_t len = block_len(b->s + i, b->n - i);

		rc = put_block(w, b, b->s + i, len, err);
		i += len;
	}
	return rc;
}

int gl_sbw_flush(struct gl_sbw *w, struct gl_err *err)
{
	int rc = GL_OK;

	w->nst = w->norg = 0;
	for (size_t i = 0; i < w->nbk && rc == GL_OK; i++)
		rc = put_bucket(w, &w->bk[i], err);
	if (rc == GL_OK && w->nst)
		rc = put_stage(w, err);
	gl_sbw_reset(w);
	return rc;
}

/* --- rewriting stored blocks ------------------------------------------- */

/* A stored block's row. */
struct stored {
	int64_t id, t0_us, line0;
	size_t n;
	int origins;		/* several origins: each entry's is in *org */
};

/* Decodes the current row of s (columns id, t0_us, n, line0, data,
 * origins IS NOT NULL) into *buf (and each sample's origin into *org).
 * Returns the count, -1 (GL_EDB set) for a damaged block. */
static long read_block(const char *path, sqlite3_stmt *s,
		       struct gl_sblock_sample **buf, uint32_t **org, size_t *cap, struct stored *b,
		       struct gl_err *err)
{
	const char *text = (const char *)sqlite3_column_text(s, 4);
	size_t len = (size_t)sqlite3_column_bytes(s, 4);
	long n;

	b->id = sqlite3_column_int64(s, 0);
	b->t0_us = sqlite3_column_int64(s, 1);
	b->n = (size_t)sqlite3_column_int64(s, 2);
	b->line0 = sqlite3_column_int64(s, 3);
	b->origins = sqlite3_column_int(s, 5);
	if (b->n > *cap) {
		struct gl_sblock_sample *v = realloc(*buf, b->n * sizeof(*v));
		uint32_t *o = v ? realloc(*org, b->n * sizeof(*o)) : NULL;

		if (v)
			*buf = v;
		if (!o) {
			oom(err);
			return -1;
		}
		*org = o;
		*cap = b->n;
	}
	n = text ? gl_sblock_decode_origins(text, len, b->t0_us, b->line0, *buf, *org, b->n) : -1;
	if (n < 0 || (size_t)n != b->n) {
		gl_err_set(err, GL_EDB, path, 0, "damaged block of samples",
			   "cannot read sample_blocks row %lld", (long long)b->id);
		return -1;
	}
	return n;
}

/*
 * Rewrites the blocks whose ids sel selects (bound by the caller) keeping
 * the samples keep() accepts: a block that keeps none is deleted, one that
 * keeps some gets them back (same id). The ids are read first: no row
 * changes under the statement that finds them.
 */
static int rewrite(sqlite3 *db, const char *path, sqlite3_stmt *sel,
		   int (*keep)(const struct gl_sblock_sample *x, int64_t arg), int64_t arg,
		   uint64_t *dropped, struct gl_err *err)
{
	sqlite3_stmt *get = NULL, *del = NULL, *upd = NULL;
	struct gl_sblock_sample *buf = NULL;
	uint32_t *org = NULL;
	int64_t *ids = NULL;
	size_t cap = 0, textcap = 0, nid = 0, idcap = 0;
	char *text = NULL;
	int rc = GL_OK, r;

	while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
		if (nid == idcap) {
			size_t c = idcap ? idcap * 2 : 64;
			int64_t *v = realloc(ids, c * sizeof(*v));

			if (!v) {
				rc = oom(err);
				goto out;
			}
			ids = v;
			idcap = c;
		}
		ids[nid++] = sqlite3_column_int64(sel, 0);
	}
	if (r != SQLITE_DONE) {
		rc = db_fail(db, path, err, "cannot read sample_blocks");
		goto out;
	}
	if (nid == 0)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT id, t0_us, n, line0, data, origins IS NOT NULL"
				   " FROM sample_blocks WHERE id = ?1", -1, &get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM sample_blocks WHERE id = ?1", -1, &del, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE sample_blocks SET t0_us = ?2, t1_us = ?3, n = ?4,"
				   " line0 = ?5, line1 = ?6, data = ?7 WHERE id = ?1",
			       -1, &upd, NULL) != SQLITE_OK) {
		rc = db_fail(db, path, err, "cannot rewrite samples");
		goto out;
	}
	for (size_t q = 0; q < nid; q++) {
		struct stored b;
		long n;
		size_t k = 0;

		sqlite3_bind_int64(get, 1, ids[q]);
		if (sqlite3_step(get) != SQLITE_ROW) {
			rc = db_fail(db, path, err, "cannot read sample_blocks");
			goto out;
		}
		n = read_block(path, get, &buf, &org, &cap, &b, err);
		sqlite3_reset(get);
		if (n < 0) {
			rc = GL_EDB;
			goto out;
		}
		for (long i = 0; i < n; i++)
			if (keep(&buf[i], arg)) {
				org[k] = org[i];
				buf[k++] = buf[i];
			}
		if (dropped)
			*dropped += (uint64_t)n - k;
		if (k == (size_t)n)
			continue;
		if (k == 0) {
			sqlite3_bind_int64(del, 1, b.id);
			r = sqlite3_step(del);
			sqlite3_reset(del);
		} else {
			int64_t line0 = buf[0].line, line1 = buf[0].line;
			size_t len;

			for (size_t i = 1; i < k; i++) {
				line0 = buf[i].line < line0 ? buf[i].line : line0;
				line1 = buf[i].line > line1 ? buf[i].line : line1;
			}
			/* a block of several origins keeps its list (an index
			 * no sample names any more is harmless) and line0 0 */
			if (b.origins)
				line0 = 0;
			if (!(len = gl_sblock_encode_origins(buf, b.origins ? org : NULL, k,
							     buf[0].ts_us, line0, &text, &textcap))) {
				rc = oom(err);
				goto out;
			}
			sqlite3_bind_int64(upd, 1, b.id);
			sqlite3_bind_int64(upd, 2, buf[0].ts_us);
			sqlite3_bind_int64(upd, 3, buf[k - 1].ts_us);
			sqlite3_bind_int64(upd, 4, (int64_t)k);
			sqlite3_bind_int64(upd, 5, line0);
			sqlite3_bind_int64(upd, 6, line1);
			sqlite3_bind_text(upd, 7, text, (int)len, SQLITE_STATIC);
			r = sqlite3_step(upd);
			sqlite3_reset(upd);
		}
		if (r != SQLITE_DONE) {
			rc = db_fail(db, path, err, "cannot rewrite samples");
			goto out;
		}
	}
out:
	sqlite3_finalize(get);
	sqlite3_finalize(del);
	sqlite3_finalize(upd);
	free(ids);
	free(buf);
	free(org);
	free(text);
	return rc;
}

static int line_at_most(const struct gl_sblock_sample *x, int64_t after_line)
{
	return x->line <= after_line;
}

/* The index of stream_id's origins in a stage row's list [[stream, file,
 * path], ...]: flags[i] 1 for each; -1 when the list is damaged. */
static int stage_origins_of(const char *text, size_t len, int64_t stream_id, unsigned char **flags,
			    size_t *n)
{
	json_t *a = text ? json_loadb(text, len, 0, NULL) : NULL;
	size_t i;
	json_t *x;

	*n = 0;
	if (!json_is_array(a) || !(*flags = realloc(*flags, json_array_size(a) + 1))) {
		json_decref(a);
		return -1;
	}
	json_array_foreach(a, i, x)
		(*flags)[i] = json_integer_value(json_array_get(x, 0)) == stream_id;
	*n = json_array_size(a);
	json_decref(a);
	return 0;
}

/* The staged samples of stream_id after after_line go (rows rewritten or
 * deleted): a few rows, those of the run under way (sblock_merge.h). */
static int drop_staged_after(sqlite3 *db, const char *path, int64_t stream_id, int64_t after_line,
			     struct gl_err *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL, *del = NULL;
	struct gl_stage_sample *s = NULL;
	unsigned char *mine = NULL;
	char *text = NULL;
	size_t cap = 0, textcap = 0, norg;
	int rc = GL_OK, r;

	if (sqlite3_prepare_v2(db, "SELECT id, n, origins, data FROM sample_stage", -1, &sel,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE sample_stage SET n = ?2, data = ?3 WHERE id = ?1", -1, &upd,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM sample_stage WHERE id = ?1", -1, &del, NULL) !=
		    SQLITE_OK) {
		rc = db_fail(db, path, err, "cannot replace an open record");
		goto out;
	}
	while (rc == GL_OK && (r = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(sel, 0), n = sqlite3_column_int64(sel, 1);
		long k = -1;
		size_t kept = 0;

		if (n >= 0 && (size_t)n + 1 > cap) {
			struct gl_stage_sample *v = realloc(s, ((size_t)n + 1) * sizeof(*v));

			if (!v) {
				rc = oom(err);
				break;
			}
			s = v;
			cap = (size_t)n + 1;
		}
		if (n >= 0)
			k = gl_sblock_stage_decode((const char *)sqlite3_column_text(sel, 3),
						   (size_t)sqlite3_column_bytes(sel, 3), s, (size_t)n);
		if (k != n || stage_origins_of((const char *)sqlite3_column_text(sel, 2),
					       (size_t)sqlite3_column_bytes(sel, 2), stream_id, &mine,
					       &norg) < 0) {
			rc = gl_err_set(err, GL_EDB, path, 0, "damaged samples",
					"sample stage row %lld is malformed", (long long)id);
			break;
		}
		for (long i = 0; i < k; i++)
			if (s[i].origin >= norg || !mine[s[i].origin] || s[i].line <= after_line)
				s[kept++] = s[i];
		if (kept == (size_t)k)
			continue;
		if (kept == 0) {
			sqlite3_bind_int64(del, 1, id);
			r = sqlite3_step(del);
			sqlite3_reset(del);
		} else {
			size_t len = gl_sblock_stage_encode(s, kept, &text, &textcap);

			if (!len) {
				rc = oom(err);
				break;
			}
			sqlite3_bind_int64(upd, 1, id);
			sqlite3_bind_int64(upd, 2, (int64_t)kept);
			sqlite3_bind_text(upd, 3, text, (int)len, SQLITE_STATIC);
			r = sqlite3_step(upd);
			sqlite3_reset(upd);
		}
		if (r != SQLITE_DONE)
			rc = db_fail(db, path, err, "cannot replace an open record");
	}
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	sqlite3_finalize(del);
	free(s);
	free(mine);
	free(text);
	return rc;
}

int gl_sblock_drop_after(sqlite3 *db, const char *path, int64_t stream_id, int64_t after_line,
			 struct gl_err *err)
{
	sqlite3_stmt *sel = NULL;
	int rc;

	/* rare (a writer paused mid-line): a scan of the blocks' rows, whose
	 * data is read only for the stream's. A block of several origins
	 * holds settled samples only (sblock_merge.c): none of an open record. */
	if (sqlite3_prepare_v2(db, "SELECT id FROM sample_blocks WHERE stream_id = ?1 AND line1 > ?2"
				   " AND origins IS NULL", -1, &sel, NULL) != SQLITE_OK)
		return db_fail(db, path, err, "cannot replace an open record");
	sqlite3_bind_int64(sel, 1, stream_id);
	sqlite3_bind_int64(sel, 2, after_line);
	rc = rewrite(db, path, sel, line_at_most, after_line, NULL, err);
	sqlite3_finalize(sel);
	return rc == GL_OK ? drop_staged_after(db, path, stream_id, after_line, err) : rc;
}

static int not_before(const struct gl_sblock_sample *x, int64_t before_us)
{
	return x->ts_us >= before_us;
}

int gl_sblock_prune(sqlite3 *db, const char *path, int64_t before_us, int64_t max_blocks,
		    uint64_t *n_samples, int *more, struct gl_err *err)
{
	sqlite3_stmt *sel = NULL;
	int64_t found = 0;
	int rc;

	*more = 0;
	/* a block holding a sample before the horizon starts before it */
	if (sqlite3_prepare_v2(db, "SELECT id FROM sample_blocks WHERE t0_us < ?1"
				   " ORDER BY t0_us LIMIT ?2", -1, &sel, NULL) != SQLITE_OK)
		return db_fail(db, path, err, "cannot prune samples");
	sqlite3_bind_int64(sel, 1, before_us);
	sqlite3_bind_int64(sel, 2, max_blocks);
	rc = rewrite(db, path, sel, not_before, before_us, n_samples, err);
	sqlite3_finalize(sel);
	if (rc != GL_OK)
		return rc;
	/* a block cut at the horizon starts at or after it now: any block
	 * still starting before it was beyond the LIMIT */
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM (SELECT 1 FROM sample_blocks"
				   " WHERE t0_us < ?1 LIMIT 1)", -1, &sel, NULL) != SQLITE_OK)
		return db_fail(db, path, err, "cannot prune samples");
	sqlite3_bind_int64(sel, 1, before_us);
	if (sqlite3_step(sel) == SQLITE_ROW)
		found = sqlite3_column_int64(sel, 0);
	else
		rc = db_fail(db, path, err, "cannot prune samples");
	sqlite3_finalize(sel);
	*more = found > 0;
	return rc;
}

int gl_sblock_migrate(sqlite3 *db, const char *path, struct gl_err *err)
{
	sqlite3_stmt *sel = NULL;
	struct gl_sbw *w;
	int rc = GL_OK, r = SQLITE_DONE;

	if (!(w = sbw_open(db, path, 1, err)))
		return err->code;
	/* in key order: a writer's batch holds few keys at a time */
	if (sqlite3_prepare_v2(db, "SELECT series_id, stream_id, ifnull(file_id, 0),"
				   " ifnull(path_id, 0), ts_estimated, ts_us, value, line FROM samples"
				   " ORDER BY series_id, stream_id, file_id, path_id, ts_estimated,"
				   " ts_us, id", -1, &sel, NULL) != SQLITE_OK) {
		rc = db_fail(db, path, err, "cannot convert samples");
		goto out;
	}
	while (rc == GL_OK && (r = sqlite3_step(sel)) == SQLITE_ROW) {
		rc = gl_sbw_add(w, sqlite3_column_int64(sel, 0), sqlite3_column_int64(sel, 1),
				sqlite3_column_int64(sel, 2), sqlite3_column_int64(sel, 3),
				sqlite3_column_int(sel, 4), sqlite3_column_int64(sel, 5),
				sqlite3_column_double(sel, 6), sqlite3_column_int64(sel, 7), err);
		/* memory stays bounded: the blocks so far go out */
		if (rc == GL_OK && w->nadded >= GL_MIGRATE_BATCH)
			rc = gl_sbw_flush(w, err);
	}
	if (rc == GL_OK && r != SQLITE_DONE)
		rc = db_fail(db, path, err, "cannot convert samples");
	if (rc == GL_OK)
		rc = gl_sbw_flush(w, err);
out:
	sqlite3_finalize(sel);
	gl_sbw_close(w);
	return rc;
}
