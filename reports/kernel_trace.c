/*
 * kernel_trace.c - the profiler-trace fields of the kernels section's rows
 * (see kernel_trace.h). In: the trace columns of each kernel timing. Out:
 * means, devices, sources and the hotspot pair of a struct gl_report_kernel.
 */
#include "kernel_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bits of gl_ktrace.sources: these, then another trace source, then log lines. */
static const char *const src_names[] = {"gpufl", "kineto", "nsys"};
#define N_SRC (sizeof(src_names) / sizeof(src_names[0]))

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

_Static_assert(GL_KTRACE_LOG_LINES == 1u << (N_SRC + 1), "the log lines' bit");

int gl_ktrace_add_trace(struct gl_ktrace *t, const struct gl_query_event *ev,
			struct gl_err *err)
{
	size_t i;

	for (i = 0; i < N_SRC && strcmp(ev->source, src_names[i]); i++)
		;
	t->sources |= 1u << i;	/* i == N_SRC: another source */
	if (!isnan(ev->launch_overhead_us)) {
		t->overhead_sum += ev->launch_overhead_us;
		t->overhead_n++;
	}
	if (!isnan(ev->queue_us)) {
		t->queue_sum += ev->queue_us;
		t->queue_n++;
	}
	if (!isnan(ev->occupancy)) {
		t->occ_sum += ev->occupancy;
		t->occ_n++;
	}
	if (ev->device) {
		size_t at = 0, len = strlen(ev->device) + 1;

		while (at < t->devs_len && strcmp(t->devs + at, ev->device))
			at += strlen(t->devs + at) + 1;
		if (at == t->devs_len) {
			char *d;

			if (t->n_dev == GL_KTRACE_DEVICES || len > UINT32_MAX - t->devs_len) {
				t->dev_more = 1;
			} else {
				if (!(d = realloc(t->devs, t->devs_len + len)))
					return oom(err);
				memcpy(d + t->devs_len, ev->device, len);
				t->devs = d;
				t->devs_len += (uint32_t)len;
				t->n_dev++;
			}
		}
	}
	if (ev->stack_id <= 0 && ev->scope_id <= 0)
		return GL_OK;
	/* the same pair as last time is the common case (a loop launching it) */
	if (t->last < t->n_pairs && t->pairs[t->last].stack_id == ev->stack_id &&
	    t->pairs[t->last].scope_id == ev->scope_id) {
		t->pairs[t->last].n++;
		return GL_OK;
	}
	for (i = 0; i < t->n_pairs; i++)
		if (t->pairs[i].stack_id == ev->stack_id && t->pairs[i].scope_id == ev->scope_id)
			break;
	if (i == t->n_pairs) {
		if (t->n_pairs == GL_KTRACE_PAIRS) {
			t->other_n++;
			return GL_OK;
		}
		if (t->n_pairs == t->cap_pairs) {
			uint32_t cap = t->cap_pairs ? t->cap_pairs * 2 : 4;
			struct gl_ktrace_pair *p = realloc(t->pairs, cap * sizeof(*p));

			if (!p)
				return oom(err);
			t->pairs = p;
			t->cap_pairs = cap;
		}
		t->pairs[i] = (struct gl_ktrace_pair){ev->stack_id, ev->scope_id, 0};
		t->n_pairs++;
	}
	t->pairs[i].n++;
	t->last = (uint32_t)i;
	return GL_OK;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

int gl_ktrace_finish(const struct gl_ktrace *t, const struct gl_section_ctx *cx,
		     struct gl_report_kernel *rk, struct gl_err *err)
{
	char buf[512];
	size_t len = 0, best = 0;

	rk->launch_overhead_us = t->overhead_n ? t->overhead_sum / (double)t->overhead_n : NAN;
	rk->queue_us = t->queue_n ? t->queue_sum / (double)t->queue_n : NAN;
	rk->occupancy = t->occ_n ? t->occ_sum / (double)t->occ_n : NAN;
	/* a kernel of log lines only has no source; one also in a trace says "log" too */
	if (t->sources & ~(1u << (N_SRC + 1))) {
		buf[0] = '\0';
		for (size_t i = 0; i <= N_SRC + 1; i++)
			if (t->sources & (1u << i))
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
							len ? "," : "",
							i < N_SRC ? src_names[i]
							: i == N_SRC ? "other" : "log");
		if (!(rk->source = strdup(buf)))
			return oom(err);
	}
	if (t->n_dev) {
		len = 0;
		buf[0] = '\0';
		for (size_t at = 0; at < t->devs_len && len < sizeof(buf); at += strlen(t->devs + at) + 1)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
						at ? "," : "", t->devs + at);
		if (t->dev_more && len < sizeof(buf))
			snprintf(buf + len, sizeof(buf) - len, ",...");
		if (!(rk->device = strdup(buf)))
			return oom(err);
	}
	if (!t->n_pairs)
		return GL_OK;
	/* the most frequent pair; on a tie the one seen first */
	for (size_t i = 1; i < t->n_pairs; i++)
		if (t->pairs[i].n > t->pairs[best].n)
			best = i;
	rk->hot_count = t->pairs[best].n;
	rk->hot_stack = dup_or_null(gl_section_name(cx, t->pairs[best].stack_id));
	rk->hot_scope = dup_or_null(gl_section_name(cx, t->pairs[best].scope_id));
	if ((t->pairs[best].stack_id > 0 && !rk->hot_stack) ||
	    (t->pairs[best].scope_id > 0 && !rk->hot_scope))
		return oom(err);
	return GL_OK;
}

void gl_ktrace_release(struct gl_ktrace *t)
{
	free(t->devs);
	free(t->pairs);
	memset(t, 0, sizeof(*t));
}
