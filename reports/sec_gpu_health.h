/*
 * sec_gpu_health.h - the results of the gpu_health section
 * (sec_gpu_health.c), kept in the section's state: the NVIDIA driver's Xid
 * errors per PCI bus and code with the catalogue's meaning, and the ECC
 * counts, retired pages, remapped rows and active clocks event (throttle)
 * reasons of the nvidia-smi -q inventories in the window.
 */
#ifndef GL_SEC_GPU_HEALTH_H
#define GL_SEC_GPU_HEALTH_H

#include <stddef.h>
#include <stdint.h>

struct gl_health_xid {
	char *pci;			/* "0000:3b:00" as the driver wrote it */
	int code;
	uint64_t count;
	char *meaning;			/* NVIDIA's Xid catalogue; NULL: not in it */
	int critical;			/* a failed GPU or lost work */
	int64_t first_us, last_us;
	char *processes;		/* "python3,NvmlTaskRunner" (the first few); NULL: none named */
};

/* One GPU's memory health, from its latest inventory. Absent: NAN. */
struct gl_health_ecc {
	char *pci, *uuid;
	double volatile_uncorrected, volatile_corrected, aggregate_uncorrected, aggregate_corrected;
	double retired_sbe, retired_dbe, retired_pending;
	double remapped_correctable, remapped_uncorrectable, remapped_pending, remapped_failure;
	char *clocks_event_reasons;	/* active ones, comma-separated; "" none */
};

struct gl_gpu_health_result {
	struct gl_health_xid *xid;	/* by count, largest first (ties: pci, code) */
	size_t n_xid;
	uint64_t xid_records, xid_critical;
	struct gl_health_ecc *ecc;	/* per GPU, by pci */
	size_t n_ecc;
	char **throttle;		/* distinct active clocks event reasons seen */
	size_t n_throttle;
};

/* The results in st, the gpu_health section's state (NULL: none). */
const struct gl_gpu_health_result *gl_gpu_health_result(const void *st);

#endif
