/*
 * sec_devices.h - the results of the devices section (sec_devices.c): the
 * GPUs of the nvidia-smi -q inventories in the window (JSON key devices[]),
 * the latest inventory of each GPU (by uuid, else PCI bus).
 */
#ifndef GL_SEC_DEVICES_H
#define GL_SEC_DEVICES_H

#include "gpu_inventory.h"

struct gl_section;
extern const struct gl_section gl_sec_devices;

const struct gl_devices_result *gl_devices_result(const void *st);

#endif
