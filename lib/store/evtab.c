/*
 * evtab.c - gl_batch_events, the virtual table a batch's events are inserted
 * from (evtab.h says why). In: a gl_evtab_src that fills one gl_evrow per
 * event. Out: one row per event, its columns valued as the events table
 * stores them.
 */
#include "evtab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../gpulog.h"

/* A table's source and its columns. */
struct evtab_kind {
	struct gl_evtab_src *src;
	int logs;		/* 1: gl_batch_logs (column 18 is packed) */
};

/* The aux of both modules, freed with the connection (logs first: its
 * address is the allocation's, which gl_batch_logs' destructor frees). */
struct evtab_aux {
	struct evtab_kind logs, all;
};

struct evtab {
	sqlite3_vtab base;
	const struct evtab_kind *kind;
};

struct evtab_cursor {
	sqlite3_vtab_cursor base;
	size_t i;
	struct gl_evrow row;
};

static int evtab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			 sqlite3_vtab **out, char **errmsg)
{
	const struct evtab_kind *k = aux;
	struct evtab *t;
	int rc;

	(void)argc;
	(void)argv;
	(void)errmsg;
	rc = sqlite3_declare_vtab(db, k->logs ? "CREATE TABLE x(" GL_EVTAB_LOG_COLUMNS ")"
					      : "CREATE TABLE x(" GL_EVTAB_COLUMNS ")");
	if (rc != SQLITE_OK)
		return rc;
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->kind = k;
	*out = &t->base;
	return SQLITE_OK;
}

static int evtab_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Only a whole scan, in the batch's order. */
static int evtab_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const struct gl_evtab_src *src = ((const struct evtab *)vt)->kind->src;
	size_t n = src->end > src->first ? src->end - src->first : 0;

	info->estimatedCost = (double)n + 1;
	info->estimatedRows = (sqlite3_int64)n;
	return SQLITE_OK;
}

static int evtab_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct evtab_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int evtab_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Fills the cursor's row for event c->i, when there is one. */
static int evtab_fill(struct evtab_cursor *c)
{
	struct evtab *t = (struct evtab *)c->base.pVtab;
	const struct gl_evtab_src *src = t->kind->src;
	int rc;

	if (c->i >= src->end)
		return SQLITE_OK;
	rc = src->row(src->arg, c->i, &c->row);
	if (rc == GL_OK)
		return SQLITE_OK;
	sqlite3_free(t->base.zErrMsg);
	/* (SQLite's printf has no %zu: its %z is a string to free) */
	t->base.zErrMsg = sqlite3_mprintf("event %llu of the batch was not stored",
					  (unsigned long long)c->i);
	return rc == GL_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
}

static int evtab_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
			sqlite3_value **argv)
{
	struct evtab_cursor *c = (struct evtab_cursor *)cur;

	(void)idx_num;
	(void)idx_str;
	(void)argc;
	(void)argv;
	c->i = ((const struct evtab *)cur->pVtab)->kind->src->first;
	return evtab_fill(c);
}

static int evtab_next(sqlite3_vtab_cursor *cur)
{
	struct evtab_cursor *c = (struct evtab_cursor *)cur;

	c->i++;
	return evtab_fill(c);
}

static int evtab_eof(sqlite3_vtab_cursor *cur)
{
	const struct evtab_cursor *c = (const struct evtab_cursor *)cur;

	return c->i >= ((const struct evtab *)cur->pVtab)->kind->src->end;
}

static void result_str(sqlite3_context *ctx, struct gl_str v)
{
	if (v.p)
		sqlite3_result_text(ctx, v.p, (int)v.len, SQLITE_STATIC);
}

static void result_real(sqlite3_context *ctx, double v)
{
	if (!isnan(v))
		sqlite3_result_double(ctx, v);
}

static void result_id(sqlite3_context *ctx, int64_t v)
{
	if (v)
		sqlite3_result_int64(ctx, v);
}

static void result_count(sqlite3_context *ctx, int64_t v)
{
	if (v >= 0)
		sqlite3_result_int64(ctx, v);
}

/*
 * Column col of the row, in GL_EVTAB_COLUMNS' order (gl_batch_logs' column
 * 18, packed, is column 31 here). A result left unset is NULL. Strings
 * point into the batch, which outlives the INSERT; packed is the cursor's
 * and changes at the next row, so SQLite copies it.
 */
static int evtab_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct gl_evrow *r = &((const struct evtab_cursor *)cur)->row;
	const struct gl_bev *b = r->b;
	const struct gl_event *e = &b->ev;

	if (col == 18 && ((const struct evtab *)cur->pVtab)->kind->logs)
		col = 31;
	else if (col >= 18 && col <= 30 && e->source == GL_SRC_LOG)
		return SQLITE_OK;	/* a log line: no kernel-trace fields */
	switch (col) {
	case 0:
		if (e->ts_us != GL_TS_NONE)
			sqlite3_result_int64(ctx, e->ts_us);
		break;
	case 1: sqlite3_result_int(ctx, (int)e->level); break;
	case 2: result_id(ctx, r->comp_id); break;
	case 3: result_id(ctx, r->kernel_id); break;
	case 4: result_real(ctx, e->dur_us); break;
	case 5: result_real(ctx, e->exec_ms); break;
	case 6: result_real(ctx, e->mem_mb); break;
	case 7: result_real(ctx, e->alloc_mb); break;
	case 8: result_real(ctx, e->peak_mb); break;
	case 9: result_real(ctx, e->util_pct); break;
	case 10: result_count(ctx, e->error_count); break;
	case 11: result_count(ctx, e->recovery_attempts); break;
	case 12: result_count(ctx, e->anomaly); break;
	case 13: result_str(ctx, e->message); break;
	case 14: result_str(ctx, e->metadata); break;
	case 15: sqlite3_result_int64(ctx, (int64_t)b->line); break;
	case 16: sqlite3_result_int64(ctx, (int64_t)b->rec_hash); break;
	case 17: result_id(ctx, r->dup_of); break;
	case 18: result_real(ctx, e->launch_overhead_us); break;
	case 19: result_real(ctx, e->queue_us); break;
	case 20: result_real(ctx, e->occupancy); break;
	case 21: result_str(ctx, e->device); break;
	case 22: result_str(ctx, e->stream); break;
	case 23: result_str(ctx, e->grid); break;
	case 24: result_str(ctx, e->block); break;
	case 25: result_count(ctx, e->registers); break;
	case 26: result_count(ctx, e->shared_mem_bytes); break;
	case 27: result_count(ctx, e->corr_id); break;
	case 28: result_id(ctx, r->scope_id); break;
	case 29: result_id(ctx, r->stack_id); break;
	case 30: sqlite3_result_text(ctx, gl_ev_source_name(e->source), -1, SQLITE_STATIC); break;
	case 31:
		sqlite3_result_blob(ctx, r->packed, (int)r->packed_len, SQLITE_TRANSIENT);
		break;
	default:
		break;
	}
	return SQLITE_OK;
}

static int evtab_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((const struct evtab_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module evtab_module = {
	.iVersion = 0,
	.xCreate = NULL,	/* eponymous only */
	.xConnect = evtab_connect,
	.xBestIndex = evtab_best_index,
	.xDisconnect = evtab_disconnect,
	.xDestroy = evtab_disconnect,
	.xOpen = evtab_open,
	.xClose = evtab_close,
	.xFilter = evtab_filter,
	.xNext = evtab_next,
	.xEof = evtab_eof,
	.xColumn = evtab_column,
	.xRowid = evtab_rowid,
};

int gl_evtab_register(sqlite3 *db, struct gl_evtab_src *src)
{
	struct evtab_aux *aux = sqlite3_malloc(sizeof(*aux));
	int rc;

	if (!aux)
		return SQLITE_NOMEM;
	aux->all.src = aux->logs.src = src;
	aux->all.logs = 0;
	aux->logs.logs = 1;
	/* gl_batch_logs frees aux when the connection closes, or at once when
	 * it cannot be registered (then gl_batch_events is dropped again) */
	rc = sqlite3_create_module_v2(db, "gl_batch_events", &evtab_module, &aux->all, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_free(aux);
		return rc;
	}
	rc = sqlite3_create_module_v2(db, "gl_batch_logs", &evtab_module, &aux->logs,
				      sqlite3_free);
	if (rc != SQLITE_OK)
		sqlite3_create_module(db, "gl_batch_events", NULL, NULL);
	return rc;
}
