/*
 * inference_out.h - what the inference section's two files share
 * (sec_inference.c computes, inference_out.c renders): the quantities it
 * describes and where each one's distribution lies in the result, and the
 * four renderings. Only those two files include it.
 */
#ifndef GL_INFERENCE_OUT_H
#define GL_INFERENCE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "report.h"
#include "sec_inference.h"

enum quantity { Q_TPS, Q_TTFT, Q_LATENCY, Q_TOKEN_LATENCY, Q_TOKENS, Q_COUNT };

static const struct {
	const char *name, *unit;
	bool higher_is_better;		/* tokens/s falling is the degradation */
} quantities[Q_COUNT] = {
	{"tokens_per_second", "tokens/s", true},
	{"ttft_ms", "ms", false},
	{"latency_ms", "ms", false},
	{"token_latency_ms", "ms", false},
	{"tokens_generated", "tokens", true},
};

static inline struct gl_report_dist *dist_at(struct gl_report_inference *ri, enum quantity q)
{
	switch (q) {
	case Q_TPS: return &ri->tokens_per_second;
	case Q_TTFT: return &ri->ttft_ms;
	case Q_LATENCY: return &ri->latency_ms;
	case Q_TOKEN_LATENCY: return &ri->token_latency_ms;
	case Q_TOKENS:
	case Q_COUNT: break;
	}
	return &ri->tokens_generated;
}

/* The section's result st (sec_inference.c's state, or NULL: none) as JSON, CSV, text and
 * HTML. */
json_t *gl_inference_emit_json(const struct gl_report *r, const void *st);
void gl_inference_emit_csv(const struct gl_report *r, const void *st, FILE *fp);
void gl_inference_emit_text(const struct gl_report *r, const void *st, FILE *fp);
void gl_inference_emit_html(const struct gl_report *rep, const void *st, FILE *f);

#endif
