/*
 * sec_devices.h - the results of the devices section (sec_devices.c): the
 * GPUs of the nvidia-smi -q inventories in the window (JSON key devices[]),
 * the latest inventory of each GPU (by uuid, else PCI bus).
 */
#ifndef GL_SEC_DEVICES_H
#define GL_SEC_DEVICES_H

#include <stddef.h>
#include <stdint.h>

struct gl_device {
	long index;
	char *name, *uuid, *pci, *driver, *cuda, *vbios, *ecc_mode, *host;
	double memory_total_mib;	/* NAN: not given */
	int64_t ts_us;			/* the inventory's time */
};

struct gl_devices_result {
	struct gl_device *dev;		/* by host, then index */
	size_t n;
};

const struct gl_devices_result *gl_devices_result(const void *st);

#endif
