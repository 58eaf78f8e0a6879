/*
 * sec_devices.h - the results of the devices section (sec_devices.c): the
 * GPUs of the nvidia-smi -q inventories in the window (JSON key devices[]),
 * the latest inventory of each GPU (by uuid, else PCI bus).
 */
#ifndef GL_SEC_DEVICES_H
#define GL_SEC_DEVICES_H

#include <stddef.h>
#include <stdint.h>

struct gl_section;
extern const struct gl_section gl_sec_devices;

struct gl_device {
	long index;
	char *name, *uuid, *pci, *driver, *cuda, *vbios, *ecc_mode, *host;
	double memory_total_mib;	/* NAN: not given */
	int64_t ts_us;			/* the inventory's time */
	/* the telemetry series of the window that are this GPU's (gl_devices_of_series) */
	uint64_t n_series;
	unsigned joined_by;		/* 1 << enum gl_device_join of each of them */
	char *metrics;			/* their distinct metric names, comma-separated; NULL: none */
};

/* How a telemetry series was found to be an inventory device's. */
enum gl_device_join {
	GL_DEVICE_JOIN_NONE,
	GL_DEVICE_JOIN_UUID,		/* the series' labels name its uuid (nvidia-smi CSV, DCGM) */
	GL_DEVICE_JOIN_PCI,		/* ... its PCI bus ("00000000:3B:00.0" = "0000:3b:00.0") */
	GL_DEVICE_JOIN_INDEX,		/* no uuid nor bus in the labels (dmon): the index on the host */
};

struct gl_devices_result {
	struct gl_device *dev;		/* by host, then index */
	size_t n;
};

const struct gl_devices_result *gl_devices_result(const void *st);

struct gl_report;

/*
 * The inventory device of a telemetry series, or NULL: the series' host
 * ("" none), device (the GPU index as text) and labels (JSON object text)
 * as the metrics section holds them (struct gl_report_metric). A uuid in
 * the labels decides, else a PCI bus, else, when the labels name neither,
 * the index on the same host; *by (may be NULL) says which. For the
 * metrics section's per-GPU figures; valid while rep lives, after the
 * devices section finished.
 */
const struct gl_device *gl_devices_of_series(const struct gl_report *rep, const char *host,
					     const char *device, const char *labels,
					     enum gl_device_join *by);

/* "uuid", "pci", "index"; "" for none. Static. */
const char *gl_device_join_name(enum gl_device_join by);

#endif
