/*
 * gpu_inventory.h - the GPU inventory of a report and its join to the
 * telemetry, below the sections that use them: the devices section
 * (sec_devices.c) builds the inventory and offers it through its inventory
 * hook (section.h: gl_report_inventory); the devices and metrics sections
 * join their telemetry series to it with gl_inventory_match.
 */
#ifndef GL_GPU_INVENTORY_H
#define GL_GPU_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

struct gl_device {
	long index;
	char *name, *uuid, *pci, *driver, *cuda, *vbios, *ecc_mode, *host;
	double memory_total_mib;	/* NAN: not given */
	int64_t ts_us;			/* the inventory's time */
	/* the telemetry series of the window that are this GPU's (gl_inventory_match) */
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

/*
 * The inventory device of a telemetry series in res (may be NULL), or NULL:
 * the series' host ("" none), device (the GPU index as text) and labels
 * (JSON object text) as the metrics section holds them (struct
 * gl_report_metric). A uuid in the labels decides, else a PCI bus, else,
 * when the labels name neither, the index on the same host; *by (may be
 * NULL) says which.
 */
const struct gl_device *gl_inventory_match(const struct gl_devices_result *res, const char *host,
					   const char *device, const char *labels,
					   enum gl_device_join *by);

/* "uuid", "pci", "index"; "" for none. Static. */
const char *gl_device_join_name(enum gl_device_join by);

#endif
