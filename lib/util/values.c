/*
 * values.c - the narrowest-exact-type array (values.h): growth (heap below
 * 64 KiB, then an anonymous mapping grown by mremap, its pages made ready
 * 256 KiB ahead) and widening (int16 -> float or tenths -> double, each
 * value converted exactly).
 */
#define _GNU_SOURCE		/* mremap, MREMAP_MAYMOVE */
#include "util/values.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FIRST_BYTES ((size_t)512)
#define MAP_BYTES ((size_t)64 << 10)	/* from here on a mapping */
#define READY_BYTES ((size_t)256 << 10)	/* made ready at a time */

static size_t elem_size(enum gl_values_kind k)
{
	return k == GL_VALUES_I16 ? sizeof(int16_t)
	       : k == GL_VALUES_F32 ? sizeof(float)
	       : k == GL_VALUES_T32 ? sizeof(int32_t)
				    : sizeof(double);
}

static void *map_new(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Makes the mapped array's pages ready up to need bytes and READY_BYTES
 * beyond (within the capacity). Where the kernel cannot, the pages fault
 * in as they are written: the same array.
 */
static void make_ready(struct gl_values *vs, size_t need)
{
	size_t to = need + READY_BYTES;

	if (to > vs->cap_bytes)
		to = vs->cap_bytes;
	if (to <= vs->ready_bytes)
		return;
#ifdef MADV_POPULATE_WRITE
	(void)madvise((char *)vs->p + vs->ready_bytes, to - vs->ready_bytes, MADV_POPULATE_WRITE);
#endif
	vs->ready_bytes = to;
}

static void buf_free(void *p, size_t bytes, bool mapped)
{
	if (mapped)
		munmap(p, bytes);
	else
		free(p);
}

/* Room for at least need bytes, by doubling; the first used bytes kept. */
static int grow(struct gl_values *vs, size_t need, size_t used, struct gl_err *err)
{
	size_t cap = vs->cap_bytes ? vs->cap_bytes : FIRST_BYTES;
	void *p;

	if (vs->mapped && need <= cap) {
		make_ready(vs, need);
		return GL_OK;
	}
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		cap *= 2;
	}
	if (cap < MAP_BYTES) {
		p = realloc(vs->p, cap);
	} else if (!vs->mapped) {
		if ((p = map_new(cap)) != NULL) {
			if (used)
				memcpy(p, vs->p, used);
			free(vs->p);
			vs->mapped = true;
		}
	} else {
#ifdef MREMAP_MAYMOVE
		p = mremap(vs->p, vs->cap_bytes, cap, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			p = NULL;
#else
		if ((p = map_new(cap)) != NULL) {
			memcpy(p, vs->p, used);
			munmap(vs->p, vs->cap_bytes);
		}
#endif
	}
	if (!p)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	vs->p = p;
	vs->cap_bytes = cap;
	if (vs->mapped)
		make_ready(vs, need);
	else
		vs->ready_bytes = cap;
	return GL_OK;
}

static double value_at(const struct gl_values *vs, size_t i)
{
	switch (vs->kind) {
	case GL_VALUES_I16:
		return ((const int16_t *)vs->p)[i];
	case GL_VALUES_F32:
		return ((const float *)vs->p)[i];
	case GL_VALUES_T32:
		return (double)((const int32_t *)vs->p)[i] / 10.0;
	case GL_VALUES_F64:
		break;
	}
	return ((const double *)vs->p)[i];
}

/* The array as kind k (wider than its own): a new buffer, each value converted. */
static int widen(struct gl_values *vs, enum gl_values_kind k, struct gl_err *err)
{
	struct gl_values w = {.kind = k};
	int rc = grow(&w, (vs->n + 1) * elem_size(k), 0, err);

	if (rc != GL_OK)
		return rc;
	for (size_t i = 0; i < vs->n; i++)
		if (k == GL_VALUES_F32)
			((float *)w.p)[i] = (float)value_at(vs, i);
		else if (k == GL_VALUES_T32)
			/* from int16: every integer of it is exact in tenths */
			((int32_t *)w.p)[i] = (int32_t)value_at(vs, i) * 10;
		else
			((double *)w.p)[i] = value_at(vs, i);
	w.n = vs->n;
	buf_free(vs->p, vs->cap_bytes, vs->mapped);
	*vs = w;
	return GL_OK;
}

int gl_values_push_slow(struct gl_values *vs, double x, struct gl_err *err)
{
	int32_t tenths = 0;
	bool fits = vs->kind == GL_VALUES_I16	? gl_values_fits_i16(x)
		    : vs->kind == GL_VALUES_F32 ? gl_values_fits_f32(x)
		    : vs->kind == GL_VALUES_T32 ? gl_values_tenths(x, &tenths)
						: true;
	int rc;

	if (!fits) {
		/* from int16 the narrowest that holds x; from float or tenths, double */
		enum gl_values_kind k = vs->kind != GL_VALUES_I16   ? GL_VALUES_F64
					: gl_values_fits_f32(x)	    ? GL_VALUES_F32
					: gl_values_tenths(x, &tenths) ? GL_VALUES_T32
								    : GL_VALUES_F64;

		if ((rc = widen(vs, k, err)) != GL_OK)
			return rc;
	}
	size_t es = elem_size(vs->kind);
	if ((vs->n + 1) * es > vs->ready_bytes &&
	    (rc = grow(vs, (vs->n + 1) * es, vs->n * es, err)) != GL_OK)
		return rc;
	switch (vs->kind) {
	case GL_VALUES_I16:
		((int16_t *)vs->p)[vs->n] = (int16_t)x;
		break;
	case GL_VALUES_F32:
		((float *)vs->p)[vs->n] = (float)x;
		break;
	case GL_VALUES_F64:
		((double *)vs->p)[vs->n] = x;
		break;
	case GL_VALUES_T32:
		((int32_t *)vs->p)[vs->n] = tenths;
		break;
	}
	vs->n++;
	return GL_OK;
}

int gl_values_widen_doubles(struct gl_values *vs, struct gl_err *err)
{
	return vs->kind == GL_VALUES_F64 ? GL_OK : widen(vs, GL_VALUES_F64, err);
}

void gl_values_get(const struct gl_values *vs, double *out)
{
	size_t n = vs->n;

	switch (vs->kind) {
	case GL_VALUES_I16:
		for (size_t i = 0; i < n; i++)
			out[i] = ((const int16_t *)vs->p)[i];
		break;
	case GL_VALUES_F32:
		for (size_t i = 0; i < n; i++)
			out[i] = ((const float *)vs->p)[i];
		break;
	case GL_VALUES_T32:
		for (size_t i = 0; i < n; i++)
			out[i] = (double)((const int32_t *)vs->p)[i] / 10.0;
		break;
	case GL_VALUES_F64:
		if (n)
			memcpy(out, vs->p, n * sizeof(double));
		break;
	}
}

void gl_values_release(struct gl_values *vs)
{
	if (vs->p)
		buf_free(vs->p, vs->cap_bytes, vs->mapped);
	*vs = (struct gl_values){0};
}

double *gl_values_new_doubles(size_t n)
{
	void *p;

	if (n == 0 || n > SIZE_MAX / sizeof(double))
		return NULL;
	p = map_new(n * sizeof(double));
#ifdef MADV_POPULATE_WRITE
	if (p)
		(void)madvise(p, n * sizeof(double), MADV_POPULATE_WRITE);
#endif
	return p;
}

void gl_values_free_doubles(double *p, size_t n)
{
	if (p)
		munmap(p, n * sizeof(double));
}
