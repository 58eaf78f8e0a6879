/*
 * xid.c - Xid lines of the NVIDIA driver's kernel messages, and the
 * meaning of each Xid code.
 *
 * The meanings are the "Description" column of NVIDIA's Xid catalogue
 * ("Xid Errors", https://docs.nvidia.com/deploy/xid-errors/ and its
 * "Analyzing Xid Errors with the Xid Catalog" table for Ampere and newer
 * GPUs, https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html,
 * whose "Resolution Bucket" column says RESTART_APP, RESET_GPU, ...), cut
 * to a few words. The critical set is the codes whose
 * catalogue action is a GPU reset, a node drain or a support case: a lost
 * GPU (79), uncorrectable or contained/uncontained memory errors (48, 94,
 * 95, 140), page retirement / row remapping events and failures (63, 64),
 * a high single-bit ECC rate (92), NVLink errors (74), GSP timeouts and
 * errors (119, 120) and GPU initialisation failures (143).
 */
#include "xid.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	int code;
	int critical;
	const char *meaning;
} catalogue[] = {
	{8, 0, "GPU stopped processing"},
	{11, 0, "Invalid or corrupted push buffer stream"},
	{13, 0, "Graphics Engine Exception"},
	{31, 0, "GPU memory page fault"},
	{32, 0, "Invalid or corrupted push buffer stream"},
	{38, 0, "Driver firmware error"},
	{43, 0, "GPU stopped processing"},
	{44, 0, "Graphics Engine fault during context switch"},
	{45, 0, "Preemptive cleanup, due to previous errors"},
	{48, 1, "Double Bit ECC Error"},
	{56, 0, "Display Engine error"},
	{57, 0, "Error programming video memory interface"},
	{58, 0, "Unstable video memory interface detected"},
	{61, 0, "Internal micro-controller breakpoint/warning"},
	{62, 0, "Internal micro-controller halt"},
	{63, 1, "ECC page retirement or row remapping recording event"},
	{64, 1, "ECC page retirement or row remapper recording failure"},
	{68, 0, "NVDEC0 Exception"},
	{69, 0, "Graphics Engine class error"},
	{74, 1, "NVLink Error"},
	{79, 1, "GPU has fallen off the bus"},
	{92, 1, "High single-bit ECC error rate"},
	{94, 1, "Contained ECC error"},
	{95, 1, "Uncontained ECC error"},
	{109, 0, "Context Switch Timeout Error"},
	{119, 1, "GSP RPC Timeout"},
	{120, 1, "GSP Error"},
	{121, 0, "C2C Link corrected error"},
	{140, 1, "Unrecovered ECC Error"},
	{143, 1, "GPU Initialization Failure"},
	{144, 0, "NVLink SAW Error"},
	{145, 0, "NVLink RLW Error"},
	{146, 0, "NVLink TLW Error"},
	{147, 0, "NVLink TREX Error"},
	{148, 0, "NVLink NVLPW_CTRL Error"},
	{149, 0, "NVLink NETIR Error"},
	{150, 0, "NVLink MSE Error"},
	{154, 0, "GPU Recovery Action Changed"},
};

static int find(int code)
{
	for (size_t i = 0; i < sizeof(catalogue) / sizeof(catalogue[0]); i++)
		if (catalogue[i].code == code)
			return (int)i;
	return -1;
}

const char *gl_xid_meaning(int code)
{
	int i = find(code);

	return i < 0 ? NULL : catalogue[i].meaning;
}

int gl_xid_critical(int code)
{
	int i = find(code);

	return i >= 0 && catalogue[i].critical;
}

static const char *find_str(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, needle, n) == 0)
			return s + i;
	return NULL;
}

/* key=value up to ", " (or the end); value slice in *v. */
static int field(const char *s, size_t len, const char *key, struct gl_str *v)
{
	const char *p = find_str(s, len, key), *end = s + len, *q;

	if (!p)
		return 0;
	p += strlen(key);
	q = p;
	while (q < end && !(q[0] == ',' && (q + 1 == end || q[1] == ' ')))
		q++;
	v->p = p;
	v->len = (size_t)(q - p);
	return 1;
}

/* The digits at p (before end) as a number: a line is not NUL-terminated,
 * and strtol would read past one that ends in digits. */
static long digits(const char *p, const char *end)
{
	long v = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++)
		v = v < 100000000 ? v * 10 + (*p - '0') : v;
	return v;
}

static int xid_parse(const char *msg, size_t len, int nvrm, struct gl_xid *x)
{
	const char *p = find_str(msg, len, "Xid (PCI:"), *end = msg + len, *q;
	struct gl_str v;

	memset(x, 0, sizeof(*x));
	x->pid = -1;
	if (!p) {
		/*
		 * "NVRM: GPU at 0000:01:00.0 has fallen off the bus." / "The NVIDIA GPU 0000:b3:00.0",
		 * and NVML's word for the same state through nvidia-smi ("GPU is lost",
		 * NVML_ERROR_GPU_IS_LOST: "the GPU has fallen off the bus or has otherwise
		 * become inaccessible"):
		 *     Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU
		 */
		int handle = find_str(msg, len, "device handle for") != NULL;

		nvrm = nvrm || find_str(msg, len, "NVRM:") != NULL;
		if (!((nvrm || handle) && find_str(msg, len, "fallen off the bus")) &&
		    !(handle && find_str(msg, len, "GPU is lost")))
			return 0;
		x->code = 79;
		if ((p = find_str(msg, len, "0000:")) || (p = find_str(msg, len, "PCI:"))) {
			if (p[0] == 'P')
				p += 4;
			for (q = p; q < end && *q && (strchr("0123456789abcdefABCDEF:.", *q)); q++)
				;
			x->pci.p = p;
			x->pci.len = (size_t)(q - p);
			while (x->pci.len && (p[x->pci.len - 1] == '.' || p[x->pci.len - 1] == ':'))
				x->pci.len--;
			/* "0000:3b:00.0" -> "0000:3b:00", the bus as an Xid line writes it */
			if (x->pci.len > 2 && p[x->pci.len - 2] == '.')
				x->pci.len -= 2;
		}
		return 1;
	}
	p += strlen("Xid (PCI:");
	q = memchr(p, ')', (size_t)(end - p));
	if (!q)
		return 0;
	x->pci.p = p;
	x->pci.len = (size_t)(q - p);
	p = q + 1;
	if (p < end && *p == ':')
		p++;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	x->code = (int)digits(p, end);
	if (field(p, (size_t)(end - p), "pid=", &v)) {
		if (v.len && v.p[0] == '\'')
			x->pid = -1;
		else
			x->pid = digits(v.p, v.p + v.len);
	}
	if (field(p, (size_t)(end - p), "name=", &v) && !(v.len && v.p[0] == '<'))
		x->name = v;
	return 1;
}

int gl_xid_parse(const char *msg, size_t len, struct gl_xid *x)
{
	return xid_parse(msg, len, 0, x);
}

int gl_xid_parse_nvrm(const char *msg, size_t len, struct gl_xid *x)
{
	return xid_parse(msg, len, 1, x);
}
