/*
 * gpu_inventory.c - the join of a telemetry series to the GPU inventory
 * (gpu_inventory.h): by the uuid its labels name, else by PCI bus (compared
 * as domain:bus:device whatever the case and the domain's width:
 * "00000000:3B:00.0" is "0000:3b:00.0"), else, for a series whose labels
 * name neither (nvidia-smi dmon: the index only), by its index on the same
 * host.
 */
#include "gpu_inventory.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* "00000000:3B:00.0", "0000:3b:00", "3b:00.0" -> "0000:3b:00" into out; 0: not a bus. */
static int pci_key(const char *s, char *out, size_t n)
{
	unsigned dom = 0, bus, dev;

	if (!s)
		return 0;
	if (sscanf(s, "%x:%x:%x", &dom, &bus, &dev) != 3) {
		dom = 0;
		if (sscanf(s, "%x:%x", &bus, &dev) != 2)
			return 0;
	}
	snprintf(out, n, "%04x:%02x:%02x", dom & 0xffff, bus & 0xff, dev & 0xff);
	return 1;
}

static const char *label_of(json_t *o, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++) {
		json_t *v = json_object_get(o, keys[i]);

		if (json_is_string(v) && *json_string_value(v))
			return json_string_value(v);
	}
	return NULL;
}

static int same_host(const char *inv, const char *series)
{
	return !strcmp(inv ? inv : "", series ? series : "");
}

const struct gl_device *gl_inventory_match(const struct gl_devices_result *res, const char *host,
					   const char *device, const char *labels,
					   enum gl_device_join *by)
{
	static const char *const uuid_keys[] = {"uuid", "UUID", "gpu_uuid", NULL};
	static const char *const pci_keys[] = {"pci_bus_id", "pci.bus_id", "pci", "bus_id", NULL};
	json_t *o = labels && *labels ? json_loads(labels, 0, NULL) : NULL;
	const char *uuid = o ? label_of(o, uuid_keys) : NULL, *pci = o ? label_of(o, pci_keys) : NULL;
	const struct gl_device *hit = NULL;
	enum gl_device_join how = GL_DEVICE_JOIN_NONE;
	char a[32], b[32];
	char *end;
	long idx;

	for (size_t i = 0; res && uuid && !hit && i < res->n; i++)
		if (same(res->dev[i].uuid, uuid) && same_host(res->dev[i].host, host))
			hit = &res->dev[i], how = GL_DEVICE_JOIN_UUID;
	for (size_t i = 0; res && !uuid && pci_key(pci, a, sizeof(a)) && !hit && i < res->n; i++)
		if (pci_key(res->dev[i].pci, b, sizeof(b)) && !strcmp(a, b) &&
		    same_host(res->dev[i].host, host))
			hit = &res->dev[i], how = GL_DEVICE_JOIN_PCI;
	if (res && !uuid && !pci && device && *device) {
		idx = strtol(device, &end, 10);
		for (size_t i = 0; !*end && !hit && i < res->n; i++)
			if (res->dev[i].index == idx && same_host(res->dev[i].host, host))
				hit = &res->dev[i], how = GL_DEVICE_JOIN_INDEX;
	}
	json_decref(o);
	if (by)
		*by = how;
	return hit;
}

const char *gl_device_join_name(enum gl_device_join by)
{
	static const char *const names[] = {"", "uuid", "pci", "index"};

	return (unsigned)by < sizeof(names) / sizeof(names[0]) ? names[by] : "";
}

