/*
 * values.h - a growing array of numbers, stored in the narrowest type that
 * keeps every value exactly: int16 while all are integers in
 * [-32768, 32767] (a utilisation in %, a temperature, a clock in MHz),
 * float while all are floats (most readings in MiB), double from the first
 * value that needs it (a power of 70.77 W); the array widens once per step
 * and never narrows. Values written with one decimal that a float does not
 * keep (85.2 %, 2295.7 MiB: a service's JSON figures) are kept as int32
 * tenths instead, k for k / 10.0, where that gives back the value exactly;
 * int16 widens to float or to tenths, either of them to double. gl_values_get
 * gives them back as doubles, bit for bit.
 *
 * Why: the report keeps one value per metric sample of the window for exact
 * percentiles, and writing new memory is what that costs. On the 2-core VM
 * of the benchmarks a week of 8 GPUs' 1 s readings (29M samples) as doubles
 * was 232 MB, and the kernel's clearing of fresh pages plus one page fault
 * per 4 KiB took 0.6-0.9 s of the report's busy thread. Stored narrow it
 * is 106 MB. An array past 64 KiB lives in its own anonymous mapping that
 * grows by mremap (which moves page tables, not bytes) and whose pages are
 * made ready 256 KiB at a time ahead of the writes (madvise
 * MADV_POPULATE_WRITE: one call instead of 64 faults; 106 MB in 0.08 s
 * against 0.30 s by faults there). Where mremap or MADV_POPULATE_WRITE is
 * missing (not Linux, a kernel before 5.14), copying and faults do.
 */
#ifndef GL_VALUES_H
#define GL_VALUES_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulog.h"

enum gl_values_kind { GL_VALUES_I16, GL_VALUES_F32, GL_VALUES_F64, GL_VALUES_T32 };

struct gl_values {
	void *p;			/* n values of kind, owned */
	size_t n;
	size_t cap_bytes;
	size_t ready_bytes;		/* <= cap_bytes: the part the fast path writes */
	enum gl_values_kind kind;
	bool mapped;			/* p is a mapping of cap_bytes, not a heap block */
};

/* Appends x, widening the array first when x needs it. GL_OK or GL_ENOMEM. */
int gl_values_push_slow(struct gl_values *vs, double x, struct gl_err *err);

/* x as an int16 without loss (-0.0 is not: its sign would be). */
static inline bool gl_values_fits_i16(double x)
{
	return x >= -32768.0 && x <= 32767.0 && (double)(int16_t)x == x && (x != 0 || !signbit(x));
}

static inline bool gl_values_fits_f32(double x)
{
	return fabs(x) <= FLT_MAX && (double)(float)x == x;
}

/* The int32 k with k / 10.0 == x exactly (not -0.0), if any: 1 and *k, else 0. */
static inline bool gl_values_tenths(double x, int32_t *k)
{
	double r = x * 10.0;

	if (!(r >= -2147483648.0 && r <= 2147483647.0))
		return false;	/* also NaN */
	*k = (int32_t)(r < 0 ? r - 0.5 : r + 0.5);
	return (double)*k / 10.0 == x && (x != 0 || !signbit(x));
}

static inline int gl_values_push(struct gl_values *vs, double x, struct gl_err *err)
{
	size_t end = vs->n + 1;

	switch (vs->kind) {
	case GL_VALUES_I16:
		if (end * sizeof(int16_t) <= vs->ready_bytes && gl_values_fits_i16(x)) {
			((int16_t *)vs->p)[vs->n++] = (int16_t)x;
			return GL_OK;
		}
		break;
	case GL_VALUES_F32:
		if (end * sizeof(float) <= vs->ready_bytes && gl_values_fits_f32(x)) {
			((float *)vs->p)[vs->n++] = (float)x;
			return GL_OK;
		}
		break;
	case GL_VALUES_F64:
		if (end * sizeof(double) <= vs->ready_bytes) {
			((double *)vs->p)[vs->n++] = x;
			return GL_OK;
		}
		break;
	case GL_VALUES_T32: {
		int32_t k;

		if (end * sizeof(int32_t) <= vs->ready_bytes && gl_values_tenths(x, &k)) {
			((int32_t *)vs->p)[vs->n++] = k;
			return GL_OK;
		}
		break;
	}
	}
	return gl_values_push_slow(vs, x, err);
}

/* The values as doubles into out[0..n): exactly the ones pushed, in order. */
void gl_values_get(const struct gl_values *vs, double *out);

/* Stores the values as doubles from now on (they are the same values):
 * GL_OK, or GL_ENOMEM with err set and vs as it was. */
int gl_values_widen_doubles(struct gl_values *vs, struct gl_err *err);

/* The values in place when they are doubles already, else NULL. */
static inline double *gl_values_doubles(struct gl_values *vs)
{
	return vs->kind == GL_VALUES_F64 ? vs->p : NULL;
}

/* Frees the values; vs is zeroed (it may be zeroed or released already). */
void gl_values_release(struct gl_values *vs);

/*
 * Room for n doubles (n > 0) with its pages made ready in one call, for
 * gl_values_get into a scratch array that is written whole; NULL when out
 * of memory. Freed by gl_values_free_doubles with the same n.
 */
double *gl_values_new_doubles(size_t n);
void gl_values_free_doubles(double *p, size_t n);

#endif
