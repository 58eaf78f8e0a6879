/*
 * sblock_merge.c - the end of an ingest run: staged samples merged into
 * their series' blocks (see sblock_merge.h for the rules).
 *
 * In: the rows of sample_stage in id order, a chunk of about
 * GL_MERGE_CHUNK samples at a time, and the open blocks of their series.
 * Out: blocks per (series, ts_estimated), closed ones first, then open
 * ones; the stage rows and open blocks used deleted; the unsettled samples
 * staged again; one transaction per chunk. Then the open blocks moved
 * above the closed ones where they are not. A stage row holds a batch's
 * small samples of many series: 2.4M samples of 240 scrape files are some
 * 150 rows to read, not 2.4M blocks.
 */
#include "sblock_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sblock.h"

/* One sample of a chunk, with its group and its origin in the chunk. */
struct entry {
	int64_t ts_us;
	double value;
	int64_t line;
	uint32_t group;
	uint32_t origin;
};

struct origin {
	int64_t stream_id, file_id, path_id;
};

/* The samples of one (series, ts_estimated) in the chunk. */
struct group {
	int64_t series;
	int est;
};

/* A stream whose last record is open: its lines past lines may change. */
struct unsettled {
	int64_t id, lines;
};

/* An open block: its (series, est) and id; id 0 once merged. */
struct openb {
	int64_t series, id;
	int est;
};

/* An output block of the chunk: entries [a, b) of group g. */
struct out_block {
	size_t a, b;
	uint32_t g;
};

struct merge {
	sqlite3 *db;
	const char *path;
	int64_t now_us;
	void (*committed)(void *arg, unsigned k);	/* after each COMMIT (tests) */
	void *committed_arg;
	unsigned ncommits;
	struct gl_sblock_merged *st;
	sqlite3_stmt *sel, *ins, *del, *get, *restage;
	struct unsettled *uns;
	size_t nuns;
	struct openb *ob;	/* the open blocks, by (series, est, id) */
	size_t nob, capob;
	int ob_sorted;
	struct entry *e, *tmp;
	size_t ne, cape;
	struct group *g;
	size_t ng, capg;
	uint32_t *gslot;	/* (series, est) -> group index + 1 */
	size_t ngslot;
	struct origin *o;
	size_t no, capo;
	uint32_t *oslot;	/* origin -> index + 1 */
	size_t noslot;
	uint32_t *local;	/* origin -> its index in the block being written + 1 */
	uint32_t *lorg;		/* the block's entries' local origins */
	struct gl_sblock_sample *bs;	/* the block's samples */
	size_t capb;
	int64_t *used;		/* open blocks merged in the chunk */
	size_t nused, capused;
	struct out_block *later;	/* the open blocks, written after the closed ones */
	size_t nlater, caplater;
	struct gl_stage_sample *sdec;	/* a stage row decoded */
	size_t capsdec;
	struct gl_stage_sample *left;	/* unsettled samples, staged again */
	size_t nleft, capleft;
	struct gl_sblock_sample *dec;	/* an open block decoded */
	uint32_t *decorg;
	size_t capdec;
	uint32_t *borg;		/* a stage row's origins, chunk indices */
	size_t nborg, capborg;
	uint32_t *oborg;	/* an open block's */
	size_t noborg, capoborg;
	char *text, *otext;
	size_t textcap, otextcap;
	uint32_t *blk_orgs;	/* the block's distinct origins, chunk indices */
};

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static int db_fail(struct merge *m, struct gl_err *err, const char *what)
{
	return gl_err_set(err, GL_EDB, m->path, 0, sqlite3_errmsg(m->db), "%s", what);
}

static int malformed(struct merge *m, struct gl_err *err, const char *what, int64_t id)
{
	return gl_err_set(err, GL_EDB, m->path, 0, "damaged samples", "%s %lld is malformed", what,
			  (long long)id);
}

static int exec(struct merge *m, const char *sql, struct gl_err *err)
{
	if (sqlite3_exec(m->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	if (!strcmp(sql, "COMMIT") && m->committed)
		m->committed(m->committed_arg, ++m->ncommits);
	return GL_OK;
}

static int one_int(struct merge *m, const char *sql, int64_t arg, int64_t *v, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	if (sqlite3_bind_parameter_count(s) > 0)
		sqlite3_bind_int64(s, 1, arg);
	if (sqlite3_step(s) == SQLITE_ROW)
		*v = sqlite3_column_int64(s, 0);
	else
		rc = db_fail(m, err, "cannot merge samples");
	sqlite3_finalize(s);
	return rc;
}
/* Grows *p (of *cap elements of size sz) to hold need. */
static int grow(void *p, size_t *cap, size_t need, size_t sz)
{
	void **pp = p;
	size_t c = *cap ? *cap : 64;
	void *v;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	if (!(v = realloc(*pp, c * sz)))
		return -1;
	*pp = v;
	*cap = c;
	return 0;
}

/* *pp (an array) reallocated to n elements of size sz (n 0: 1). */
static int resize(void *pp, size_t n, size_t sz)
{
	void **p = pp;
	void *v = realloc(*p, (n ? n : 1) * sz);

	if (!v)
		return -1;
	*p = v;
	return 0;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* Sets *slot (n a power of two, load at most half) to a fresh table of n. */
static int slots_new(uint32_t **slot, size_t *n, size_t want)
{
	size_t c = 256;

	while (c < want * 2)
		c *= 2;
	free(*slot);
	*slot = calloc(c, sizeof(**slot));
	*n = *slot ? c : 0;
	return *slot ? 0 : -1;
}

static uint64_t group_hash(int64_t series, int est)
{
	return mix((uint64_t)series * 2 + (uint64_t)(est != 0));
}

static uint64_t origin_hash(const struct origin *o)
{
	return mix((uint64_t)o->stream_id * 0x9E3779B97F4A7C15ULL ^
		   mix((uint64_t)o->file_id + 0xC2B2AE3D27D4EB4FULL * (uint64_t)o->path_id));
}

/* The chunk's index of origin o; UINT32_MAX: no memory. */
static uint32_t origin_of(struct merge *m, const struct origin *o)
{
	size_t j;

	if ((m->no + 1) * 2 > m->noslot) {
		if (slots_new(&m->oslot, &m->noslot, m->no + 1) < 0)
			return UINT32_MAX;
		for (size_t i = 0; i < m->no; i++) {
			j = origin_hash(&m->o[i]) & (m->noslot - 1);
			while (m->oslot[j])
				j = (j + 1) & (m->noslot - 1);
			m->oslot[j] = (uint32_t)i + 1;
		}
	}
	j = origin_hash(o) & (m->noslot - 1);
	for (; m->oslot[j]; j = (j + 1) & (m->noslot - 1)) {
		const struct origin *x = &m->o[m->oslot[j] - 1];

		if (x->stream_id == o->stream_id && x->file_id == o->file_id &&
		    x->path_id == o->path_id)
			return m->oslot[j] - 1;
	}
	if (grow(&m->o, &m->capo, m->no + 1, sizeof(*m->o)) < 0)
		return UINT32_MAX;
	m->o[m->no] = *o;
	m->oslot[j] = (uint32_t)m->no + 1;
	return (uint32_t)m->no++;
}

static int settled(const struct merge *m, int64_t stream_id, int64_t line)
{
	size_t lo = 0, hi = m->nuns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->uns[mid].id < stream_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == m->nuns || m->uns[lo].id != stream_id || line <= m->uns[lo].lines;
}

static int load_unsettled(struct merge *m, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int r;

	if (sqlite3_prepare_v2(m->db, "SELECT id, lines FROM streams WHERE open_end != 0"
				      " ORDER BY id", -1, &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	m->nuns = 0;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct unsettled *v = realloc(m->uns, (m->nuns + 1) * sizeof(*v));

		if (!v) {
			sqlite3_finalize(s);
			return oom(err);
		}
		m->uns = v;
		m->uns[m->nuns].id = sqlite3_column_int64(s, 0);
		m->uns[m->nuns++].lines = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return r == SQLITE_DONE ? GL_OK : db_fail(m, err, "cannot merge samples");
}

static int ob_cmp(const void *a, const void *b)
{
	const struct openb *x = a, *y = b;

	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	if (x->est != y->est)
		return x->est < y->est ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int load_open(struct merge *m, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int r;

	if (sqlite3_prepare_v2(m->db, "SELECT id, series_id, ts_estimated FROM sample_blocks"
				      " WHERE open = 1", -1, &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		if (grow(&m->ob, &m->capob, m->nob + 1, sizeof(*m->ob)) < 0) {
			sqlite3_finalize(s);
			return oom(err);
		}
		m->ob[m->nob++] = (struct openb){sqlite3_column_int64(s, 1),
						 sqlite3_column_int64(s, 0), sqlite3_column_int(s, 2)};
	}
	sqlite3_finalize(s);
	if (m->nob)
		qsort(m->ob, m->nob, sizeof(*m->ob), ob_cmp);
	m->ob_sorted = 1;
	return r == SQLITE_DONE ? GL_OK : db_fail(m, err, "cannot merge samples");
}

/* The origins [[stream, file, path], ...] of a row, in (*out)[0..*n) (chunk
 * indices; *cap its room): 0, -1 when the text is not such a list, -2 no
 * memory. */
static int parse_origins(struct merge *m, const char *text, size_t len, uint32_t **out,
			 size_t *n, size_t *cap)
{
	json_t *a = text ? json_loadb(text, len, 0, NULL) : NULL;
	size_t i;
	json_t *x;
	int rc = 0;

	*n = 0;
	if (!json_is_array(a) || json_array_size(a) == 0) {
		json_decref(a);
		return -1;
	}
	json_array_foreach(a, i, x) {
		struct origin o;

		if (!json_is_array(x) || json_array_size(x) != 3 ||
		    !json_is_integer(json_array_get(x, 0)) || !json_is_integer(json_array_get(x, 1)) ||
		    !json_is_integer(json_array_get(x, 2))) {
			rc = -1;
			break;
		}
		o.stream_id = json_integer_value(json_array_get(x, 0));
		o.file_id = json_integer_value(json_array_get(x, 1));
		o.path_id = json_integer_value(json_array_get(x, 2));
		if (grow(out, cap, *n + 1, sizeof(**out)) < 0 ||
		    ((*out)[*n] = origin_of(m, &o)) == UINT32_MAX) {
			rc = -2;
			break;
		}
		(*n)++;
	}
	json_decref(a);
	return rc;
}

static int add_entry(struct merge *m, const struct entry *x, struct gl_err *err)
{
	if (grow(&m->e, &m->cape, m->ne + 1, sizeof(*m->e)) < 0)
		return oom(err);
	m->e[m->ne++] = *x;
	return GL_OK;
}

/* Adds the samples of open block id (group g) to the chunk, first of its group. */
static int add_open_block(struct merge *m, int64_t id, uint32_t g, struct gl_err *err)
{
	int rc = GL_OK;

	sqlite3_bind_int64(m->get, 1, id);
	if (sqlite3_step(m->get) != SQLITE_ROW) {
		sqlite3_reset(m->get);
		return db_fail(m, err, "cannot merge samples");
	}
	int64_t t0 = sqlite3_column_int64(m->get, 0), n = sqlite3_column_int64(m->get, 1);
	struct origin o = {sqlite3_column_int64(m->get, 2), sqlite3_column_int64(m->get, 3),
			   sqlite3_column_int64(m->get, 4)};
	int64_t line0 = sqlite3_column_int64(m->get, 5);
	int multi = sqlite3_column_type(m->get, 6) != SQLITE_NULL;
	const char *data = (const char *)sqlite3_column_text(m->get, 7);
	size_t dlen = (size_t)sqlite3_column_bytes(m->get, 7);
	uint32_t o1 = 0;
	long k = -1;

	if (n >= 1 && n <= GL_SBLOCK_MAX) {
		if (grow(&m->dec, &m->capdec, (size_t)n, sizeof(*m->dec)) < 0 ||
		    resize(&m->decorg, m->capdec, sizeof(*m->decorg)) < 0) {
			rc = oom(err);
			goto out;
		}
		k = data ? gl_sblock_decode_origins(data, dlen, t0, line0, m->dec, m->decorg,
						    (size_t)n) : -1;
	}
	if (k != n) {
		rc = malformed(m, err, "sample block", id);
		goto out;
	}
	if (multi) {
		int p = parse_origins(m, (const char *)sqlite3_column_text(m->get, 6),
				      (size_t)sqlite3_column_bytes(m->get, 6), &m->oborg, &m->noborg,
				      &m->capoborg);

		for (long i = 0; i < k && p == 0; i++)
			if (m->decorg[i] >= m->noborg)
				p = -1;
		if (p < 0) {
			rc = p == -2 ? oom(err) : malformed(m, err, "sample block", id);
			goto out;
		}
	} else if ((o1 = origin_of(m, &o)) == UINT32_MAX) {
		rc = oom(err);
		goto out;
	}
	for (long i = 0; i < k && rc == GL_OK; i++)
		rc = add_entry(m, &(struct entry){m->dec[i].ts_us, m->dec[i].value, m->dec[i].line, g,
						  multi ? m->oborg[m->decorg[i]] : o1}, err);
	if (rc == GL_OK && grow(&m->used, &m->capused, m->nused + 1, sizeof(*m->used)) < 0)
		rc = oom(err);
	if (rc == GL_OK) {
		m->used[m->nused++] = id;
		m->st->open_in++;
	}
out:
	sqlite3_reset(m->get);
	return rc;
}

/* Registers an open block written in this merge (a later chunk's samples
 * of its series join it). */
static int note_open(struct merge *m, int64_t series, int est, int64_t id, struct gl_err *err)
{
	if (grow(&m->ob, &m->capob, m->nob + 1, sizeof(*m->ob)) < 0)
		return oom(err);
	m->ob[m->nob++] = (struct openb){series, id, est};
	m->ob_sorted = 0;
	return GL_OK;
}

/* The chunk's group of (series, est), made when new with the samples of
 * the series' open blocks; *g UINT32_MAX on failure (rc set). */
static int group_of(struct merge *m, int64_t series, int est, uint32_t *g, struct gl_err *err)
{
	size_t j;

	*g = UINT32_MAX;
	if ((m->ng + 1) * 2 > m->ngslot) {
		if (slots_new(&m->gslot, &m->ngslot, m->ng + 1) < 0)
			return oom(err);
		for (size_t i = 0; i < m->ng; i++) {
			j = group_hash(m->g[i].series, m->g[i].est) & (m->ngslot - 1);
			while (m->gslot[j])
				j = (j + 1) & (m->ngslot - 1);
			m->gslot[j] = (uint32_t)i + 1;
		}
	}
	j = group_hash(series, est) & (m->ngslot - 1);
	for (; m->gslot[j]; j = (j + 1) & (m->ngslot - 1)) {
		const struct group *x = &m->g[m->gslot[j] - 1];

		if (x->series == series && x->est == est) {
			*g = m->gslot[j] - 1;
			return GL_OK;
		}
	}
	if (grow(&m->g, &m->capg, m->ng + 1, sizeof(*m->g)) < 0)
		return oom(err);
	m->g[m->ng] = (struct group){series, est};
	m->gslot[j] = (uint32_t)m->ng + 1;
	*g = (uint32_t)m->ng++;
	/* the series' open blocks come first, in id order */
	if (!m->ob_sorted && m->nob) {
		qsort(m->ob, m->nob, sizeof(*m->ob), ob_cmp);
		m->ob_sorted = 1;
	}
	size_t lo = 0, hi = m->nob;
	struct openb key = {series, INT64_MIN, est};

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ob_cmp(&m->ob[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->nob && m->ob[lo].series == series && m->ob[lo].est == est; lo++) {
		int rc;

		if (!m->ob[lo].id)
			continue;
		if ((rc = add_open_block(m, m->ob[lo].id, *g, err)) != GL_OK)
			return rc;
		m->ob[lo].id = 0;
	}
	return GL_OK;
}

/* Stages again an unsettled sample (origin: chunk index). */
static int leave(struct merge *m, const struct gl_stage_sample *x, uint32_t origin,
		 struct gl_err *err)
{
	if (grow(&m->left, &m->capleft, m->nleft + 1, sizeof(*m->left)) < 0)
		return oom(err);
	m->left[m->nleft] = *x;
	m->left[m->nleft++].origin = origin;
	return GL_OK;
}

/* Settled staged samples per series (open addressing; ids > 0). */
struct counts {
	int64_t *id;
	uint64_t *n;
	size_t cap, used;
};

static int count_add(struct counts *c, int64_t id)
{
	size_t j;

	if ((c->used + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		int64_t *ids = calloc(cap, sizeof(*ids));
		uint64_t *ns = calloc(cap, sizeof(*ns));

		if (!ids || !ns) {
			free(ids);
			free(ns);
			return -1;
		}
		for (size_t i = 0; i < c->cap; i++) {
			if (!c->n[i])
				continue;
			for (j = mix((uint64_t)c->id[i]) & (cap - 1); ns[j]; j = (j + 1) & (cap - 1))
				;
			ids[j] = c->id[i];
			ns[j] = c->n[i];
		}
		free(c->id);
		free(c->n);
		c->id = ids;
		c->n = ns;
		c->cap = cap;
	}
	for (j = mix((uint64_t)id) & (c->cap - 1); c->n[j] && c->id[j] != id; j = (j + 1) & (c->cap - 1))
		;
	if (!c->n[j]) {
		c->id[j] = id;
		c->used++;
	}
	c->n[j]++;
	return 0;
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Reads every stage row up to hi and takes the samples of the series in
 * [slo, shi]: the settled ones with group and origin into m->e (after their
 * series' open blocks' samples), the unsettled ones into m->left.
 * count (not NULL): only counts each series' settled samples there.
 */
static int read_pass(struct merge *m, int64_t hi, int64_t slo, int64_t shi,
		     struct counts *count, struct gl_err *err)
{
	int r, rc = GL_OK;

	m->ne = m->ng = m->no = m->nused = m->nleft = 0;
	if (m->gslot)
		memset(m->gslot, 0, m->ngslot * sizeof(*m->gslot));
	if (m->oslot)
		memset(m->oslot, 0, m->noslot * sizeof(*m->oslot));
	sqlite3_bind_int64(m->sel, 1, hi);
	while ((r = sqlite3_step(m->sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(m->sel, 0);
		int64_t n = sqlite3_column_int64(m->sel, 1);
		const char *data = (const char *)sqlite3_column_text(m->sel, 3);
		size_t dlen = (size_t)sqlite3_column_bytes(m->sel, 3);
		long k = -1;
		int p;

		if (n >= 0 && n <= INT32_MAX) {
			if (grow(&m->sdec, &m->capsdec, (size_t)n + 1, sizeof(*m->sdec)) < 0) {
				rc = oom(err);
				break;
			}
			k = data ? gl_sblock_stage_decode(data, dlen, m->sdec, (size_t)n) : -1;
		}
		p = parse_origins(m, (const char *)sqlite3_column_text(m->sel, 2),
				  (size_t)sqlite3_column_bytes(m->sel, 2), &m->borg, &m->nborg,
				  &m->capborg);
		for (long i = 0; i < k && p == 0; i++)
			if (m->sdec[i].origin >= m->nborg)
				p = -1;
		if (k != n || p < 0) {
			rc = p == -2 ? oom(err) : malformed(m, err, "sample stage row", id);
			break;
		}
		for (long i = 0; i < k && rc == GL_OK; i++) {
			const struct gl_stage_sample *x = &m->sdec[i];
			uint32_t o = m->borg[x->origin], g;

			if (x->series_id < slo || x->series_id > shi)
				continue;
			if (!settled(m, m->o[o].stream_id, x->line)) {
				if (!count)
					rc = leave(m, x, o, err);
				continue;
			}
			if (count) {
				rc = count_add(count, x->series_id) < 0 ? oom(err) : GL_OK;
				continue;
			}
			if ((rc = group_of(m, x->series_id, x->ts_estimated, &g, err)) == GL_OK)
				rc = add_entry(m, &(struct entry){x->ts_us, x->value, x->line, g, o},
					       err);
			m->st->staged++;
		}
		if (rc != GL_OK)
			break;
	}
	if (rc == GL_OK && r != SQLITE_DONE)
		rc = db_fail(m, err, "cannot merge samples");
	sqlite3_reset(m->sel);
	return rc;
}

/* Stable sort of m->e by (group, ts_us): bottom-up merge through m->tmp. */
static int sort_entries(struct merge *m)
{
	struct entry *a = m->e, *b;
	size_t n = m->ne;

	if (resize(&m->tmp, n, sizeof(*m->tmp)) < 0)
		return -1;
	b = m->tmp;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				const struct entry *x = &a[i], *y = &a[j];
				int later = y->group < x->group ||
					    (y->group == x->group && y->ts_us < x->ts_us);

				b[k++] = later ? a[j++] : a[i++];
			}
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		struct entry *t = a;

		a = b;
		b = t;
	}
	if (a != m->e) {
		/* the sorted entries are in tmp: swap the buffers */
		m->tmp = m->e;
		m->e = a;
		m->cape = n ? n : 1;
	}
	return 0;
}

/* Writes the origins m->blk_orgs[0..n) as JSON into m->otext; its length. */
static size_t origins_text(struct merge *m, const uint32_t *orgs, size_t n)
{
	size_t len = 0;

	m->otext[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		const struct origin *o = &m->o[orgs[i]];

		len += (size_t)snprintf(m->otext + len, m->otextcap - len, "%s[%lld,%lld,%lld]",
					i ? "," : "", (long long)o->stream_id,
					(long long)o->file_id, (long long)o->path_id);
	}
	m->otext[len++] = ']';
	return len;
}

/* Writes entries [a, b) of group g as one block (open or closed). */
static int put_block(struct merge *m, size_t a, size_t b, uint32_t g, int open,
		     struct gl_err *err)
{
	const struct group *gr = &m->g[g];
	size_t n = b - a, nloc = 0, len, olen = 0;
	int64_t line0, line1;
	sqlite3_stmt *ins = m->ins;
	int r;

	if (grow(&m->bs, &m->capb, n, sizeof(*m->bs)) < 0 ||
	    resize(&m->lorg, m->capb, sizeof(*m->lorg)) < 0 ||
	    resize(&m->blk_orgs, m->capb, sizeof(*m->blk_orgs)) < 0 ||
	    resize(&m->local, m->no, sizeof(*m->local)) < 0)
		return oom(err);
	for (size_t i = a; i < b; i++)
		m->local[m->e[i].origin] = 0;
	line0 = line1 = m->e[a].line;
	for (size_t i = a; i < b; i++) {
		const struct entry *x = &m->e[i];

		if (!m->local[x->origin]) {
			m->blk_orgs[nloc] = x->origin;
			m->local[x->origin] = (uint32_t)++nloc;
		}
		m->lorg[i - a] = m->local[x->origin] - 1;
		m->bs[i - a] = (struct gl_sblock_sample){x->ts_us, x->value, x->line};
		line0 = x->line < line0 ? x->line : line0;
		line1 = x->line > line1 ? x->line : line1;
	}
	if (nloc > 1) {
		/* several origins: listed, each entry naming its own; line0 0 */
		line0 = 0;
		if (grow(&m->otext, &m->otextcap, 2 + nloc * 66, 1) < 0)
			return oom(err);
		olen = origins_text(m, m->blk_orgs, nloc);
	}
	len = gl_sblock_encode_origins(m->bs, nloc > 1 ? m->lorg : NULL, n, m->bs[0].ts_us, line0,
				       &m->text, &m->textcap);
	if (!len)
		return oom(err);
	const struct origin *o0 = &m->o[m->blk_orgs[0]];

	sqlite3_bind_int64(ins, 1, gr->series);
	sqlite3_bind_int64(ins, 2, m->bs[0].ts_us);
	sqlite3_bind_int64(ins, 3, m->bs[n - 1].ts_us);
	sqlite3_bind_int64(ins, 4, (int64_t)n);
	sqlite3_bind_int(ins, 5, gr->est);
	sqlite3_bind_int64(ins, 6, o0->stream_id);
	sqlite3_bind_int64(ins, 7, line0);
	sqlite3_bind_int64(ins, 8, line1);
	if (o0->file_id)
		sqlite3_bind_int64(ins, 9, o0->file_id);
	else
		sqlite3_bind_null(ins, 9);
	if (o0->path_id)
		sqlite3_bind_int64(ins, 10, o0->path_id);
	else
		sqlite3_bind_null(ins, 10);
	sqlite3_bind_text(ins, 11, m->text, (int)len, SQLITE_STATIC);
	sqlite3_bind_int(ins, 12, open);
	if (nloc > 1)
		sqlite3_bind_text(ins, 13, m->otext, (int)olen, SQLITE_STATIC);
	else
		sqlite3_bind_null(ins, 13);
	r = sqlite3_step(ins);
	sqlite3_reset(ins);
	sqlite3_clear_bindings(ins);
	if (r != SQLITE_DONE)
		return db_fail(m, err, "cannot store samples");
	m->st->blocks_out++;
	return open ? note_open(m, gr->series, gr->est, sqlite3_last_insert_rowid(m->db), err)
		    : GL_OK;
}

/* Writes the unsettled samples m->left as one stage row. */
static int restage(struct merge *m, struct gl_err *err)
{
	uint32_t *orgs = NULL;
	size_t norg = 0, len, olen;
	int r, rc = GL_OK;

	/* the row's own origins: chunk indices renumbered from 0 */
	if (resize(&m->local, m->no, sizeof(*m->local)) < 0 ||
	    !(orgs = malloc((m->nleft ? m->nleft : 1) * sizeof(*orgs))))
		return oom(err);
	for (size_t i = 0; i < m->nleft; i++)
		m->local[m->left[i].origin] = 0;
	for (size_t i = 0; i < m->nleft; i++) {
		uint32_t o = m->left[i].origin;

		if (!m->local[o]) {
			orgs[norg] = o;
			m->local[o] = (uint32_t)++norg;
		}
		m->left[i].origin = m->local[o] - 1;
	}
	if (grow(&m->otext, &m->otextcap, 2 + norg * 66, 1) < 0 ||
	    !(len = gl_sblock_stage_encode(m->left, m->nleft, &m->text, &m->textcap))) {
		free(orgs);
		return oom(err);
	}
	olen = origins_text(m, orgs, norg);
	sqlite3_bind_int64(m->restage, 1, (int64_t)m->nleft);
	sqlite3_bind_text(m->restage, 2, m->otext, (int)olen, SQLITE_STATIC);
	sqlite3_bind_text(m->restage, 3, m->text, (int)len, SQLITE_STATIC);
	r = sqlite3_step(m->restage);
	sqlite3_reset(m->restage);
	if (r != SQLITE_DONE)
		rc = db_fail(m, err, "cannot store samples");
	m->st->restaged += m->nleft;
	free(orgs);
	return rc;
}

/* The length of the block that starts e[0..n): as the writer cuts, and at
 * most GL_SBLOCK_MULTI_MAX samples once they are of several origins. */
static size_t block_len(const struct entry *e, size_t n)
{
	size_t j = 1;
	int one = 1;	/* e[0..j) all of e[0]'s origin */

	while (j < n && j < GL_SBLOCK_MAX && e[j].ts_us - e[0].ts_us <= GL_SBLOCK_SPAN_US) {
		one = one && e[j].origin == e[0].origin;
		if (!one && j >= GL_SBLOCK_MULTI_MAX)
			break;
		j++;
	}
	return j;
}

/* Merges the samples read: closed blocks, then open ones, the unsettled
 * samples staged again, the open blocks used deleted. */
static int merge_read(struct merge *m, struct gl_err *err)
{
	int rc = GL_OK;

	if (sort_entries(m) < 0)
		return oom(err);
	m->nlater = 0;
	for (size_t a = 0; a < m->ne && rc == GL_OK;) {
		uint32_t g = m->e[a].group;
		size_t end = a;

		while (end < m->ne && m->e[end].group == g)
			end++;
		for (size_t i = a; i < end && rc == GL_OK;) {
			size_t len = block_len(m->e + i, end - i);
			int open = i + len == end && len < GL_SBLOCK_OPEN_MIN &&
				   m->e[i].ts_us + GL_SBLOCK_SPAN_US > m->now_us;

			if (!open)
				rc = put_block(m, i, i + len, g, 0, err);
			else if (grow(&m->later, &m->caplater, m->nlater + 1, sizeof(*m->later)) < 0)
				rc = oom(err);
			else
				m->later[m->nlater++] = (struct out_block){i, i + len, g};
			i += len;
		}
		a = end;
	}
	for (size_t i = 0; i < m->nlater && rc == GL_OK; i++)
		rc = put_block(m, m->later[i].a, m->later[i].b, m->later[i].g, 1, err);
	if (rc == GL_OK && m->nleft)
		rc = restage(m, err);
	/* the sources go after every block made of them is written: a new
	 * block's id is above every id stored before */
	for (size_t i = 0; i < m->nused && rc == GL_OK; i++) {
		sqlite3_bind_int64(m->del, 1, m->used[i]);
		if (sqlite3_step(m->del) != SQLITE_DONE)
			rc = db_fail(m, err, "cannot merge samples");
		sqlite3_reset(m->del);
	}
	return rc;
}

/*
 * The series ranges of the passes: each about GL_MERGE_CHUNK settled
 * samples at most (a series whole in one). Counted in a first pass only
 * when the stage holds more than that. (*lo)[k], (*hi)[k] for k < *n.
 */
static int plan_passes(struct merge *m, int64_t hi, int64_t from, int64_t **lo, int64_t **up,
		       size_t *n, struct gl_err *err)
{
	struct counts c = {0};
	int64_t total = 0, *ids = NULL;
	size_t k = 0, cap = 0;
	uint64_t acc = 0;
	int rc;

	*n = 0;
	if ((rc = one_int(m, "SELECT ifnull(sum(n), 0) FROM sample_stage", 0, &total, err)) != GL_OK)
		return rc;
	if ((uint64_t)total <= GL_MERGE_CHUNK) {
		if (!(*lo = malloc(sizeof(**lo))) || !(*up = malloc(sizeof(**up))))
			return oom(err);
		(*lo)[0] = from;
		(*up)[0] = INT64_MAX;
		*n = 1;
		return GL_OK;
	}
	if ((rc = read_pass(m, hi, from, INT64_MAX, &c, err)) != GL_OK)
		goto out;
	if (!(ids = malloc((c.used ? c.used : 1) * sizeof(*ids)))) {
		rc = oom(err);
		goto out;
	}
	for (size_t i = 0; i < c.cap; i++)
		if (c.n[i])
			ids[k++] = c.id[i];
	qsort(ids, k, sizeof(*ids), i64_cmp);
	for (size_t i = 0; i < k; i++) {
		size_t j;
		uint64_t cnt;

		for (j = mix((uint64_t)ids[i]) & (c.cap - 1); c.id[j] != ids[i] || !c.n[j];
		     j = (j + 1) & (c.cap - 1))
			;
		cnt = c.n[j];
		if (*n == 0 || (acc + cnt > GL_MERGE_CHUNK && acc > 0)) {
			if (grow(lo, &cap, *n + 1, sizeof(**lo)) < 0 || resize(up, cap, sizeof(**up)) < 0) {
				rc = oom(err);
				goto out;
			}
			(*lo)[*n] = *n ? ids[i] : from;
			if (*n)
				(*up)[*n - 1] = ids[i] - 1;
			(*n)++;
			acc = 0;
		}
		acc += cnt;
	}
	if (*n == 0) {
		if (!(*lo = malloc(sizeof(**lo))) || !(*up = malloc(sizeof(**up)))) {
			rc = oom(err);
			goto out;
		}
		(*lo)[0] = from;
		*n = 1;
	}
	(*up)[*n - 1] = INT64_MAX;
out:
	free(ids);
	free(c.id);
	free(c.n);
	return rc;
}

/*
 * The stage rows up to hi go (their samples are in blocks or staged again),
 * 32 rows a transaction (a transaction's undo is in memory while a first
 * run builds its database aside), the mark kept till the last is gone.
 * Outside any transaction.
 */
static int drop_stage(struct merge *m, int64_t hi, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK, more = 1;

	if (sqlite3_prepare_v2(m->db, "DELETE FROM sample_stage WHERE id IN (SELECT id FROM"
				      " sample_stage WHERE id <= ?1 ORDER BY id LIMIT 32)", -1, &s,
			       NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	sqlite3_bind_int64(s, 1, hi);
	while (more && rc == GL_OK) {
		if ((rc = exec(m, "BEGIN IMMEDIATE", err)) != GL_OK)
			break;
		if (sqlite3_step(s) != SQLITE_DONE) {
			rc = db_fail(m, err, "cannot merge samples");
			sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
			break;
		}
		more = sqlite3_changes(m->db) > 0;
		sqlite3_reset(s);
		rc = exec(m, "COMMIT", err);
	}
	sqlite3_finalize(s);
	return rc;
}

static int close_old(struct merge *m, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (sqlite3_prepare_v2(m->db, "UPDATE sample_blocks SET open = 0 WHERE open = 1"
				      " AND t0_us <= ?1", -1, &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	sqlite3_bind_int64(s, 1, m->now_us - GL_SBLOCK_SPAN_US);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_fail(m, err, "cannot merge samples");
	else
		m->st->closed += (uint64_t)sqlite3_changes(m->db);
	sqlite3_finalize(s);
	return rc;
}

/*
 * Moves every open block above the closed ones when one closed block is
 * above an open one (a block that stayed open among closed ones written
 * after it, or a chunk's open blocks below the next chunk's closed ones):
 * each copied to a new id, the old rows deleted after.
 */
static int lift_open(struct merge *m, struct gl_err *err)
{
	int64_t lo = 0, above = 0, *ids = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL, *cp = NULL;
	int rc, r;

	if ((rc = one_int(m, "SELECT ifnull(min(id), 0) FROM sample_blocks WHERE open = 1", 0, &lo,
			  err)) != GL_OK || lo == 0 ||
	    (rc = one_int(m, "SELECT EXISTS (SELECT 1 FROM sample_blocks WHERE id > ?1 AND open = 0)",
			  lo, &above, err)) != GL_OK || !above)
		return rc;
	if ((rc = exec(m, "BEGIN IMMEDIATE", err)) != GL_OK)
		return rc;
	if (sqlite3_prepare_v2(m->db, "SELECT id FROM sample_blocks WHERE open = 1 ORDER BY id", -1,
			       &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(m->db, "INSERT INTO sample_blocks (series_id, t0_us, t1_us, n,"
				      " ts_estimated, stream_id, line0, line1, file_id, path_id, data,"
				      " open, origins) SELECT series_id, t0_us, t1_us, n, ts_estimated,"
				      " stream_id, line0, line1, file_id, path_id, data, open, origins"
				      " FROM sample_blocks WHERE id = ?1", -1, &cp, NULL) != SQLITE_OK) {
		rc = db_fail(m, err, "cannot merge samples");
		goto out;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		if (grow(&ids, &cap, n + 1, sizeof(*ids)) < 0) {
			rc = oom(err);
			goto out;
		}
		ids[n++] = sqlite3_column_int64(s, 0);
	}
	if (r != SQLITE_DONE) {
		rc = db_fail(m, err, "cannot merge samples");
		goto out;
	}
	for (size_t i = 0; i < n && rc == GL_OK; i++) {
		sqlite3_bind_int64(cp, 1, ids[i]);
		if (sqlite3_step(cp) != SQLITE_DONE)
			rc = db_fail(m, err, "cannot merge samples");
		sqlite3_reset(cp);
	}
	for (size_t i = 0; i < n && rc == GL_OK; i++) {
		sqlite3_bind_int64(m->del, 1, ids[i]);
		if (sqlite3_step(m->del) != SQLITE_DONE)
			rc = db_fail(m, err, "cannot merge samples");
		sqlite3_reset(m->del);
	}
	m->st->blocks_moved += n;
out:
	sqlite3_finalize(s);
	sqlite3_finalize(cp);
	free(ids);
	if (rc == GL_OK)
		return exec(m, "COMMIT", err);
	sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Records that the stage rows up to hi have their samples of the series
 * up to done merged (one row of sample_merge; the caller's transaction). */
static int set_marker(struct merge *m, int64_t hi, int64_t done, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc = GL_OK;

	if (exec(m, "DELETE FROM sample_merge", err) != GL_OK ||
	    sqlite3_prepare_v2(m->db, "INSERT INTO sample_merge (stage_hi, series_done) VALUES (?,?)",
			       -1, &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	sqlite3_bind_int64(s, 1, hi);
	sqlite3_bind_int64(s, 2, done);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_fail(m, err, "cannot merge samples");
	sqlite3_finalize(s);
	return rc;
}

/*
 * Merges the samples of the stage rows up to hi of the series above done
 * (INT64_MIN: all), a pass of series at a time, each pass in a transaction
 * that records how far it got (sample_merge): a run killed between two
 * passes leaves the passes done in blocks and their samples still staged,
 * and the next merge goes on from the mark instead of merging them again.
 * The stage rows go with the mark in the last transaction.
 */
static int merge_stage(struct merge *m, int64_t hi, int64_t done, struct gl_err *err)
{
	int64_t *lo = NULL, *up = NULL;
	size_t npass = 0;
	int rc;

	m->nob = 0;
	if ((rc = exec(m, "BEGIN IMMEDIATE", err)) != GL_OK)
		return rc;
	if (done != INT64_MAX &&
	    ((rc = load_open(m, err)) != GL_OK ||
	     (rc = plan_passes(m, hi, done == INT64_MIN ? INT64_MIN : done + 1, &lo, &up, &npass,
			       err)) != GL_OK))
		goto fail;
	for (size_t k = 0; k < npass; k++) {
		if ((k > 0 && (rc = exec(m, "BEGIN IMMEDIATE", err)) != GL_OK) ||
		    (rc = read_pass(m, hi, lo[k], up[k], NULL, err)) != GL_OK ||
		    (rc = merge_read(m, err)) != GL_OK || (rc = set_marker(m, hi, up[k], err)) != GL_OK ||
		    (rc = exec(m, "COMMIT", err)) != GL_OK)
			goto fail;
	}
	if (npass == 0 && ((rc = set_marker(m, hi, INT64_MAX, err)) != GL_OK ||
			   (rc = exec(m, "COMMIT", err)) != GL_OK))
		goto fail;
	/* every pass done: the mark says so (INT64_MAX) while the rows go */
	if ((rc = drop_stage(m, hi, err)) != GL_OK ||
	    (rc = exec(m, "BEGIN IMMEDIATE", err)) != GL_OK)
		goto out;
	if ((rc = exec(m, "DELETE FROM sample_merge", err)) != GL_OK ||
	    (rc = exec(m, "COMMIT", err)) != GL_OK)
		goto fail;
	goto out;
fail:
	sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
out:
	free(lo);
	free(up);
	return rc;
}

/* The mark of a merge a killed run left (sample_merge): *hi 0 when none. */
static int read_marker(struct merge *m, int64_t *hi, int64_t *done, struct gl_err *err)
{
	sqlite3_stmt *s = NULL;
	int r;

	*hi = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT stage_hi, series_done FROM sample_merge LIMIT 1", -1,
			       &s, NULL) != SQLITE_OK)
		return db_fail(m, err, "cannot merge samples");
	if ((r = sqlite3_step(s)) == SQLITE_ROW) {
		*hi = sqlite3_column_int64(s, 0);
		*done = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return r == SQLITE_ROW || r == SQLITE_DONE ? GL_OK : db_fail(m, err, "cannot merge samples");
}

/*
 * The stage rows' pages are free once merged, and the next run's stage
 * takes them again; a file more than a quarter free (a first run of many
 * scrapes: 88 of 280 MB) gives them back to the file system
 * (incremental_vacuum: auto_vacuum is INCREMENTAL from a database's
 * creation; a no-op for an older one without it).
 */
static int give_back(struct merge *m, struct gl_err *err)
{
	int64_t free_pages = 0, pages = 0;
	int rc;

	if ((rc = one_int(m, "PRAGMA freelist_count", 0, &free_pages, err)) != GL_OK ||
	    (rc = one_int(m, "PRAGMA page_count", 0, &pages, err)) != GL_OK ||
	    free_pages * 4 <= pages)
		return rc;
	/* 1,024 pages a transaction: a first run's undo is in memory */
	for (int64_t left = free_pages; left > 0; left -= 1024)
		if (sqlite3_exec(m->db, "PRAGMA incremental_vacuum(1024)", NULL, NULL, NULL) !=
		    SQLITE_OK)
			return db_fail(m, err, "cannot give free pages back");
	return GL_OK;
}

int gl_sblock_merge_open(sqlite3 *db, const char *path, int64_t now_us,
			 struct gl_sblock_merged *out, struct gl_err *err)
{
	return gl_sblock_merge_open_hook(db, path, now_us, NULL, NULL, out, err);
}

int gl_sblock_merge_open_hook(sqlite3 *db, const char *path, int64_t now_us,
			      void (*committed)(void *arg, unsigned k), void *arg,
			      struct gl_sblock_merged *out, struct gl_err *err)
{
	struct gl_sblock_merged stats = {0};
	struct merge m = {.db = db, .path = path, .now_us = now_us, .st = &stats,
			  .committed = committed, .committed_arg = arg};
	int64_t hi = 0, mark_hi = 0, mark_done = INT64_MIN;
	int rc;

	if ((rc = read_marker(&m, &mark_hi, &mark_done, err)) != GL_OK ||
	    (rc = one_int(&m, "SELECT ifnull(max(id), 0) FROM sample_stage", 0, &hi, err)) != GL_OK ||
	    (rc = load_unsettled(&m, err)) != GL_OK)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT id, n, origins, data FROM sample_stage"
				   " WHERE id <= ?1 ORDER BY id", -1, &m.sel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT t0_us, n, stream_id, ifnull(file_id, 0),"
				   " ifnull(path_id, 0), line0, origins, data FROM sample_blocks"
				   " WHERE id = ?1", -1, &m.get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO sample_blocks (series_id, t0_us, t1_us, n,"
				   " ts_estimated, stream_id, line0, line1, file_id, path_id, data,"
				   " open, origins) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &m.ins,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO sample_stage (n, origins, data) VALUES (?,?,?)",
			       -1, &m.restage, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "DELETE FROM sample_blocks WHERE id = ?1", -1, &m.del,
			       NULL) != SQLITE_OK) {
		rc = db_fail(&m, err, "cannot merge samples");
		goto out;
	}
	/* a merge a killed run left first, from its mark; then the rest */
	if (mark_hi > 0 && (rc = merge_stage(&m, mark_hi, mark_done, err)) != GL_OK)
		goto out;
	if (hi > mark_hi && (rc = merge_stage(&m, hi, INT64_MIN, err)) != GL_OK)
		goto out;
	/* a block left open whose hour has passed can no longer grow */
	if ((rc = exec(&m, "BEGIN IMMEDIATE", err)) != GL_OK)
		goto out;
	if ((rc = close_old(&m, err)) != GL_OK || (rc = exec(&m, "COMMIT", err)) != GL_OK) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if (hi > 0 && (rc = lift_open(&m, err)) == GL_OK)
		rc = give_back(&m, err);
out:
	sqlite3_finalize(m.sel);
	sqlite3_finalize(m.get);
	sqlite3_finalize(m.ins);
	sqlite3_finalize(m.restage);
	sqlite3_finalize(m.del);
	free(m.uns);
	free(m.ob);
	free(m.e);
	free(m.tmp);
	free(m.g);
	free(m.gslot);
	free(m.o);
	free(m.oslot);
	free(m.local);
	free(m.lorg);
	free(m.bs);
	free(m.used);
	free(m.later);
	free(m.sdec);
	free(m.left);
	free(m.dec);
	free(m.decorg);
	free(m.borg);
	free(m.oborg);
	free(m.text);
	free(m.otext);
	free(m.blk_orgs);
	if (out)
		*out = stats;
	return rc;
}
