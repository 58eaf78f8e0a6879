/*
 * findings_evidence.h - more of a finding's evidence (findings_evidence.c), for the findings
 * section (sec_findings.c): a GPU's clocks event (throttle) reasons, its ECC error counters,
 * and the processes on it as nvidia-smi --query-compute-apps and pmon list them (a new one,
 * a busier one, one whose memory grew), each over a finding's interval against just before.
 *
 * The section hands over the rows of the series table (gl_fev_row) and their samples by time
 * bucket (gl_fev_sample); gl_fev_explain gives a finding's evidence through a callback.
 */
#ifndef GL_FINDINGS_EVIDENCE_H
#define GL_FINDINGS_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "sec_findings.h"
#include "store/query.h"

struct gl_fev;

/* A state for n_rows rows of the series table and n_buckets time buckets; NULL: no memory.
 * Free with gl_fev_free (NULL is a no-op). */
struct gl_fev *gl_fev_new(size_t n_rows, size_t n_buckets);
void gl_fev_free(struct gl_fev *fe);

/* Row `row` (qs, its metric name; both borrowed until gl_fev_free): kept when it is one of
 * the metrics above. Returns GL_OK or GL_ENOMEM. */
int gl_fev_row(struct gl_fev *fe, size_t row, const struct gl_query_series *qs, const char *metric);

/* A sample of row `row` in time bucket b. */
void gl_fev_sample(struct gl_fev *fe, size_t row, size_t b, double value);

/* Called for each piece of evidence; weight: how much it points to its GPU (e->device, the
 * GPU's index where its uuid is known) for the attribution. Returns GL_OK or an error. */
typedef int (*gl_fev_add_fn)(void *arg, const struct gl_finding_evidence *e, double weight);

/*
 * The evidence of host_id's GPUs (a host 0 on either side matches any) over the changed
 * buckets [d0, d1) against [p0, p1). A trend (trend != 0) gets none: its first and last
 * tenth differ in too many ways. Returns GL_OK or add's error.
 */
int gl_fev_explain(const struct gl_fev *fe, int64_t host_id, size_t d0, size_t d1, size_t p0,
		   size_t p1, int trend, gl_fev_add_fn add, void *arg);

/* What the evidence gl_fev_explain gave says of the cause, in a few words into buf; NULL
 * when it gave none of fd's evidence. */
const char *gl_fev_cause(const struct gl_finding *fd, char *buf, size_t n);

#endif
