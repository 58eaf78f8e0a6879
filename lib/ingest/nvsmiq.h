/*
 * nvsmiq.h - the device inventory of one nvidia-smi -q report, shared by
 * its two readers: the text form (fmt_nvsmiq.c) and the XML of -q -x
 * (fmt_nvsmiqx.c). Each reads the whole report in its prepare into a
 * struct gl_nvsmiq_doc (ctx->priv, freed with the parse context); both hand
 * out the same record per GPU through gl_nvsmiq_gpu_record(), so the two
 * forms of one report give the same inventory rows.
 */
#ifndef GL_NVSMIQ_H
#define GL_NVSMIQ_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define GL_NVQ_GPUS 64
#define GL_NVQ_STR 96

/* The numbers of a GPU; NAN where the report says N/A or leaves them out. */
enum gl_nvq_num {
	GL_NVQ_MEM_TOTAL, GL_NVQ_MEM_USED, GL_NVQ_TEMP, GL_NVQ_POWER,
	GL_NVQ_ECC_VOL_CORR, GL_NVQ_ECC_VOL_UNCORR, GL_NVQ_ECC_AGG_CORR, GL_NVQ_ECC_AGG_UNCORR,
	GL_NVQ_RP_SBE, GL_NVQ_RP_DBE, GL_NVQ_RP_PENDING,
	GL_NVQ_RR_CORR, GL_NVQ_RR_UNCORR, GL_NVQ_RR_PENDING, GL_NVQ_RR_FAILURE,
	GL_NVQ_MINOR,
	GL_NVQ_COUNT
};

struct gl_nvsmiq_gpu {
	char pci[32], name[GL_NVQ_STR], uuid[64], vbios[32], ecc_mode[16];
	char reasons[256];		/* active clocks event reasons, as the text form names them */
	double num[GL_NVQ_COUNT];
};

struct gl_nvsmiq_doc {
	char driver[32], cuda[16];
	int64_t ts_us;			/* naive; GL_TS_NONE: no timestamp */
	size_t n;
	struct gl_nvsmiq_gpu gpu[GL_NVQ_GPUS];
	size_t in_line;			/* XML: GPUs of the current line handed out */
};

/* A new, empty doc in ctx->priv (NULL: out of memory, or priv is taken). */
struct gl_nvsmiq_doc *gl_nvsmiq_doc_new(struct gl_parse_ctx *ctx);

/* The doc of ctx, or NULL (prepare failed or was not run). */
struct gl_nvsmiq_doc *gl_nvsmiq_doc_of(struct gl_parse_ctx *ctx);

/* A new GPU of bus bus[0..n) at the end of d, its numbers NAN; NULL past GL_NVQ_GPUS. */
struct gl_nvsmiq_gpu *gl_nvsmiq_gpu_add(struct gl_nvsmiq_doc *d, const char *bus, size_t n);

/* Appends one active reason to g->reasons ("Idle,SW Power Cap"). */
void gl_nvsmiq_reason_add(struct gl_nvsmiq_gpu *g, const char *r, size_t n);

/* "Thu Nov 26 17:44:28 2026" -> naive µs into d->ts_us (left as is when not a time). */
void gl_nvsmiq_timestamp(struct gl_nvsmiq_doc *d, const char *v, size_t n);

/*
 * The record of the k-th GPU of the report (its place in the document),
 * into rec: an event with the inventory metadata and its samples. bus[0..n)
 * is the GPU's bus as the line holding its start names it, for when the doc
 * lacks it (no prepare): then the record has the bus alone.
 */
void gl_nvsmiq_gpu_record(struct gl_parse_ctx *ctx, size_t k, const char *bus, size_t n,
			  struct gl_rec *rec);

#endif
