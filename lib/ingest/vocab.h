/*
 * vocab.h - the one vocabulary of metric names.
 *
 * Pipeline stage: used by the telemetry formats (fmt_nvsmi, fmt_dmon,
 * fmt_pmon, fmt_dcgmi) while they read a header: each field a source
 * writes ("utilization.gpu", dmon's "fb", dcgmi's "POWER") becomes a
 * canonical name with its unit in the name ("gpu.utilization_pct") and a
 * scale factor from the source's unit to the canonical one (dmon's rxpci in
 * MB/s -> gpu.pcie_rx_kib_s: 1024). A field outside the vocabulary keeps
 * its own name under the source's prefix ("nvidia_smi.clocks_event_reasons.active",
 * "dmon.enc", "dcgmi.smact"). The table is in gpulog-ingest(1), section
 * METRIC VOCABULARY.
 */
#ifndef GL_VOCAB_H
#define GL_VOCAB_H

#include <stddef.h>

enum gl_vocab_src {
	GL_VOCAB_NVSMI = 0,	/* nvidia-smi --query-gpu field names, units stripped */
	GL_VOCAB_DMON,		/* nvidia-smi dmon column names */
	GL_VOCAB_PMON,		/* nvidia-smi pmon column names (per process) */
	GL_VOCAB_DCGMI,		/* dcgmi dmon tags, DCGM_FI_* names, numeric field ids */
	GL_VOCAB_NSRC,
};

/* A canonical metric: name, the unit the name carries, what it measures. */
struct gl_vocab_metric {
	const char *name;
	const char *unit;
	const char *what;
};

/* The canonical metrics, in the man page's order; n in *n. */
const struct gl_vocab_metric *gl_vocab_metrics(size_t *n);

/* "nvidia_smi", "dmon", "pmon", "dcgmi". */
const char *gl_vocab_prefix(enum gl_vocab_src src);

/*
 * The canonical name of field[0..len) of src (ASCII case ignored), or NULL
 * when the field is outside the vocabulary. *scale (may be NULL) gets the
 * factor from the source's unit to the canonical unit (1 for NULL).
 */
const char *gl_vocab_lookup(enum gl_vocab_src src, const char *field, size_t len, double *scale);

/*
 * Writes the metric name of field[0..len) into buf (NUL-terminated): the
 * canonical name, else "<prefix>.<field>" with the field lowercased and
 * every byte other than [a-z0-9._] turned into '_'. Sets *scale. Returns
 * the name's length, or 0 when it does not fit in cap or field is empty.
 */
size_t gl_vocab_name(enum gl_vocab_src src, const char *field, size_t len, char *buf, size_t cap,
		     double *scale);

/* The unit of a canonical metric name ("%", "MiB", "W", ...), or NULL for other names. */
const char *gl_vocab_unit(const char *metric);

#endif
