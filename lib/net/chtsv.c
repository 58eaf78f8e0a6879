/*
 * chtsv.c - a ClickHouse TabSeparated answer as rows (chtsv.h), for the
 * report's ClickHouse reader (lib/store/query_ch.c).
 */
#include "net/chtsv.h"

#include <stdio.h>
#include <string.h>

struct rows {
	struct gl_buf carry;
	int ncols;
	int (*row)(void *arg, struct gl_tsv_field *f);
	void *arg;
	int bad;		/* a line without ncols fields */
};

/* ClickHouse's TabSeparated escapes, undone in place. */
static void unescape(struct gl_tsv_field *f)
{
	char *w = f->s;

	f->null = f->n == 2 && f->s[0] == '\\' && f->s[1] == 'N';
	if (f->null || !(w = memchr(f->s, '\\', f->n)))
		return;
	for (size_t i = (size_t)(w - f->s); i < f->n; i++) {
		char c = f->s[i];

		if (c == '\\' && i + 1 < f->n) {
			switch (f->s[++i]) {
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'r': c = '\r'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '0': c = '\0'; break;
			case 'a': c = '\a'; break;
			case 'v': c = '\v'; break;
			default: c = f->s[i]; break;
			}
		}
		*w++ = c;
	}
	f->n = (size_t)(w - f->s);
	*w = '\0';
}

static int on_line(struct rows *r, char *line, size_t n)
{
	struct gl_tsv_field f[GL_TSV_MAX_FIELDS];
	int k = 0;
	char *p = line, *end = line + n;

	for (;;) {
		char *tab = memchr(p, '\t', (size_t)(end - p));

		if (k == r->ncols) {
			r->bad = 1;
			return 1;
		}
		f[k].s = p;
		f[k].n = (size_t)((tab ? tab : end) - p);
		k++;
		if (!tab)
			break;
		p = tab + 1;
	}
	if (k != r->ncols) {
		r->bad = 1;
		return 1;
	}
	for (int i = 0; i < k; i++) {
		f[i].s[f[i].n] = '\0';
		unescape(&f[i]);
	}
	return r->row(r->arg, f);
}

static int on_chunk(void *arg, const char *p, size_t n)
{
	struct rows *r = arg;
	size_t start = 0;
	int rc = 0;

	if (gl_buf_add(&r->carry, p, n) != GL_OK)
		return GL_ENOMEM;
	for (char *nl, *p0 = r->carry.data + r->carry.len - n, *end = r->carry.data + r->carry.len;
	     rc == 0 && (nl = memchr(p0, '\n', (size_t)(end - p0))); p0 = nl + 1) {
		size_t i = (size_t)(nl - r->carry.data);

		*nl = '\0';
		rc = on_line(r, r->carry.data + start, i - start);
		start = i + 1;
	}
	memmove(r->carry.data, r->carry.data + start, r->carry.len - start);
	r->carry.len -= start;
	return rc;
}

int gl_chttp_rows(struct gl_chttp *c, const char *sql, int ncols,
		  int (*row)(void *arg, struct gl_tsv_field *f), void *arg, struct gl_err *err)
{
	struct rows r = {.ncols = ncols, .row = row, .arg = arg};
	int rc = gl_chttp_stream(c, sql, on_chunk, &r, err);

	if (rc == GL_ENOMEM && !r.bad)
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	if ((rc == 1 && r.bad) || (rc == GL_OK && r.carry.len > 0)) {
		char cut[120];

		snprintf(cut, sizeof(cut), "%.100s", r.carry.data ? r.carry.data : "");
		rc = gl_err_set(err, GL_EDB, NULL, 0, cut, "unexpected answer from the server");
	}
	gl_buf_release(&r.carry);
	return rc;
}
