/*
 * xid.h - NVIDIA driver (NVRM) kernel messages: Xid lines and their
 * meaning from NVIDIA's Xid catalogue, for the text reader (fmt_text.c).
 *     NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.
 *     NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ...
 *     NVRM: Xid (PCI:0000:01:00): 31, Ch 00000003, engmask 00000101, intr 10000000
 *     NVRM: The NVIDIA GPU 0000:b3:00.0 ... fallen off the bus   (no Xid number)
 *     Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  (nvidia-smi)
 * The last two are recorded as Xid 79, the code the driver gives a lost GPU.
 */
#ifndef GL_XID_H
#define GL_XID_H

#include <stddef.h>

#include "format.h"

struct gl_xid {
	int code;		/* the Xid number; 79 for "fallen off the bus" without one */
	struct gl_str pci;	/* "0000:3b:00" (slice of the line) */
	long pid;		/* -1: not given or '<unknown>' */
	struct gl_str name;	/* process name; p NULL: not given or <unknown> */
};

/* An Xid (or "fallen off the bus") in msg[0..len): fills x, returns 1; else 0. */
int gl_xid_parse(const char *msg, size_t len, struct gl_xid *x);

/* The same for a message known to be the driver's, its "NVRM:" taken off as
 * the record's component: "fallen off the bus and is not responding ...". */
int gl_xid_parse_nvrm(const char *msg, size_t len, struct gl_xid *x);

/* The catalogue's short description of code ("GPU has fallen off the bus"), or NULL. */
const char *gl_xid_meaning(int code);

/* 1 when the code means a failed GPU or lost work (critical by default). */
int gl_xid_critical(int code);

#endif
