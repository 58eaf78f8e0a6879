/*
 * store_intern.c - the in-memory maps from names, paths and series keys to
 * their rows' ids: loaded from the database at open, added to as a batch
 * stores new ones, freed at close. A batch row asks store_put.c's memo
 * first (by the address of the batch's copy of the name); only a name new
 * to the batch comes here.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../util/hash.h"

/* --- interned names, paths and series ---------------------------------- */

static int intern_grow(struct intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct name_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct name_slot *o = &t->v[i];

		if (!o->id)
			continue;
		size_t j = o->hash & (cap - 1);

		while (v[j].id)
			j = (j + 1) & (cap - 1);
		v[j] = *o;
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
	return 0;
}

static struct name_slot *intern_slot(struct intern *t, const char *p, size_t len, uint64_t h)
{
	size_t j = h & (t->cap - 1);

	while (t->v[j].id) {
		struct name_slot *s = &t->v[j];

		if (s->hash == h && s->len == len && memcmp(s->name, p, len) == 0)
			return s;
		j = (j + 1) & (t->cap - 1);
	}
	return &t->v[j];
}

int gl_store_intern_add(struct intern *t, const char *p, size_t len, int64_t id)
{
	if ((t->n + 1) * 2 > t->cap && intern_grow(t) < 0)
		return -1;
	uint64_t h = gl_hash64(p, len, 7);
	struct name_slot *s = intern_slot(t, p, len, h);

	if (s->id)
		return 0;
	s->name = malloc(len + 1);
	if (!s->name)
		return -1;
	memcpy(s->name, p, len);
	s->name[len] = '\0';
	s->len = len;
	s->hash = h;
	s->id = id;
	t->n++;
	return 0;
}

/* The id of p[0..len) in t, or 0. */
int64_t gl_store_intern_find(struct intern *t, const char *p, size_t len)
{
	return intern_slot(t, p, len, gl_hash64(p, len, 7))->id;
}

void gl_store_intern_clear(struct intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/*
 * The key of a series in st->key: host id, then metric name, device, source
 * and labels, each as a presence byte, a length and the bytes. The metric
 * by name, not id: a sample of a known series costs one hash, and its name
 * is looked up only for a new series. Returns its length, or 0 when memory
 * runs out.
 */
size_t gl_store_series_key(struct gl_store *st, int64_t host_id, struct gl_str metric,
			 struct gl_str device, struct gl_str source, struct gl_str labels)
{
	size_t need = 8 + 4 * 9 + metric.len + device.len + source.len + labels.len, n = 0;
	const struct gl_str part[4] = {metric, device, source, labels};

	if (need > st->keycap) {
		char *v = realloc(st->key, need);

		if (!v)
			return 0;
		st->key = v;
		st->keycap = need;
	}
	memcpy(st->key, &host_id, 8);
	n = 8;
	for (size_t i = 0; i < 4; i++) {
		uint64_t len = part[i].len;

		st->key[n++] = part[i].p != NULL;
		memcpy(st->key + n, &len, 8);
		n += 8;
		if (part[i].len)
			memcpy(st->key + n, part[i].p, part[i].len);
		n += part[i].len;
	}
	return n;
}

static struct gl_str col_str(sqlite3_stmt *s, int i)
{
	struct gl_str v = {NULL, 0};

	if (sqlite3_column_type(s, i) != SQLITE_NULL) {
		v.p = (const char *)sqlite3_column_text(s, i);
		v.len = (size_t)sqlite3_column_bytes(s, i);
	}
	return v;
}

/* Loads names, paths and series into memory (again, after a rollback). */
int gl_store_interns_load(struct gl_store *st, struct gl_err *err)
{
	static const char *const sql[3] = {
		"SELECT id, name FROM names",
		"SELECT id, path FROM paths",
		"SELECT s.id, n.name, s.host_id, s.device, s.source, s.labels"
		" FROM series s JOIN names n ON n.id = s.metric_id",
	};
	struct intern *t[3] = {&st->names, &st->paths, &st->series};
	sqlite3_stmt *s = NULL;
	int rc = SQLITE_DONE;

	st->last_path = NULL;
	for (int k = 0; k < 3; k++) {
		gl_store_intern_clear(t[k]);
		if (intern_grow(t[k]) < 0)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		if (sqlite3_prepare_v2(st->db, sql[k], -1, &s, NULL) != SQLITE_OK)
			return gl_store_db_err(st, err, "cannot read names");
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const char *p;
			size_t len;

			if (k < 2) {
				p = (const char *)sqlite3_column_text(s, 1);
				len = (size_t)sqlite3_column_bytes(s, 1);
			} else {
				len = gl_store_series_key(st, sqlite3_column_int64(s, 2), col_str(s, 1),
						 col_str(s, 3),
						 col_str(s, 4), col_str(s, 5));
				p = st->key;
			}
			if ((k == 2 && !len) || gl_store_intern_add(t[k], p, len, sqlite3_column_int64(s, 0)) < 0) {
				sqlite3_finalize(s);
				return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
			}
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE)
			return gl_store_db_err(st, err, "cannot read names");
	}
	return GL_OK;
}

/* The id of s in table t through statement ins ("INSERT ... VALUES (?)"),
 * inserting it when new; 0 for an absent s. */
int gl_store_intern_id(struct gl_store *st, struct intern *t, sqlite3_stmt *ins, struct gl_str s,
		     int64_t *id, struct gl_err *err)
{
	*id = 0;
	if (!s.p)
		return GL_OK;
	if ((*id = gl_store_intern_find(t, s.p, s.len)) != 0)
		return GL_OK;
	sqlite3_bind_text(ins, 1, s.p, (int)s.len, SQLITE_STATIC);
	if (sqlite3_step(ins) != SQLITE_DONE) {
		sqlite3_reset(ins);
		return gl_store_db_err(st, err, "cannot store name");
	}
	sqlite3_reset(ins);
	*id = sqlite3_last_insert_rowid(st->db);
	if (gl_store_intern_add(t, s.p, s.len, *id) < 0)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	return GL_OK;
}
