/*
 * vocab.c - the one vocabulary of metric names (see vocab.h).
 *
 * In: a source and one of its field names. Out: the canonical metric and
 * the factor from the source's unit, or the field's own name under the
 * source's prefix.
 */
#include "vocab.h"

#include <string.h>
#include <strings.h>

static const struct gl_vocab_metric metrics[] = {
	{"gpu.utilization_pct", "%", "GPU busy: time a kernel ran in the sample period"},
	{"gpu.memory_utilization_pct", "%", "memory controller busy"},
	{"gpu.memory_used_mib", "MiB", "device memory in use"},
	{"gpu.memory_total_mib", "MiB", "device memory installed"},
	{"gpu.power_w", "W", "board power draw"},
	{"gpu.temperature_c", "C", "GPU core temperature"},
	{"gpu.memory_temperature_c", "C", "memory (HBM) temperature"},
	{"gpu.sm_clock_mhz", "MHz", "SM (graphics) clock"},
	{"gpu.memory_clock_mhz", "MHz", "memory clock"},
	{"gpu.pcie_rx_kib_s", "KiB/s", "PCIe receive throughput"},
	{"gpu.pcie_tx_kib_s", "KiB/s", "PCIe transmit throughput"},
	{"gpu.fan_pct", "%", "fan speed"},
	{"gpu.ecc_errors", "count", "uncorrected (double-bit) ECC errors, volatile"},
	{"host.cpu_pct", "%", "host CPU busy"},
	{"host.memory_used_mib", "MiB", "host memory in use"},
};

struct entry {
	const char *field;
	const char *metric;
	double scale;
};

/*
 * nvidia-smi --query-gpu names (nvidia-smi --help-query-gpu); a header
 * prints them with the unit after them, "memory.used [MiB]", which the
 * parser strips. clocks.sm and clocks.current.sm are the same field.
 */
static const struct entry nvsmi[] = {
	{"utilization.gpu", "gpu.utilization_pct", 1},
	{"utilization.memory", "gpu.memory_utilization_pct", 1},
	{"memory.used", "gpu.memory_used_mib", 1},
	{"memory.total", "gpu.memory_total_mib", 1},
	{"power.draw", "gpu.power_w", 1},
	{"temperature.gpu", "gpu.temperature_c", 1},
	{"temperature.memory", "gpu.memory_temperature_c", 1},
	{"clocks.sm", "gpu.sm_clock_mhz", 1},
	{"clocks.current.sm", "gpu.sm_clock_mhz", 1},
	{"clocks.mem", "gpu.memory_clock_mhz", 1},
	{"clocks.current.memory", "gpu.memory_clock_mhz", 1},
	{"fan.speed", "gpu.fan_pct", 1},
	{"ecc.errors.uncorrected.volatile.total", "gpu.ecc_errors", 1},
	{NULL, NULL, 0},
};

/*
 * nvidia-smi dmon columns, old and new sets:
 *   # gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc dbecc   pci rxpci txpci
 *   # Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  errs  errs  errs  MB/s  MB/s
 * dmon prints MiB as "MB" (fb is the frame buffer in use, which nvidia-smi
 * -q shows in MiB), so rxpci/txpci in "MB/s" are MiB/s: x1024 to KiB/s.
 * pclk is the graphics clock, which drives the SMs. dbecc (double-bit,
 * uncorrectable) is gpu.ecc_errors; sbecc keeps its own name.
 */
static const struct entry dmon[] = {
	{"sm", "gpu.utilization_pct", 1},
	{"mem", "gpu.memory_utilization_pct", 1},
	{"fb", "gpu.memory_used_mib", 1},
	{"pwr", "gpu.power_w", 1},
	{"temp", "gpu.temperature_c", 1},
	{"gtemp", "gpu.temperature_c", 1},
	{"mtemp", "gpu.memory_temperature_c", 1},
	{"pclk", "gpu.sm_clock_mhz", 1},
	{"mclk", "gpu.memory_clock_mhz", 1},
	{"rxpci", "gpu.pcie_rx_kib_s", 1024},
	{"txpci", "gpu.pcie_tx_kib_s", 1024},
	{"dbecc", "gpu.ecc_errors", 1},
	{NULL, NULL, 0},
};

/*
 * nvidia-smi pmon: the figures are one process's share of a GPU, so they
 * are not the GPU's own metrics and stay under pmon.*, with units:
 *   # gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command
 *   # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name
 */
static const struct entry pmon[] = {
	{"sm", "pmon.utilization_pct", 1},
	{"mem", "pmon.memory_utilization_pct", 1},
	{"fb", "pmon.memory_used_mib", 1},
	{"ccpm", "pmon.ccpm_memory_mib", 1},
	{"enc", "pmon.encoder_pct", 1},
	{"dec", "pmon.decoder_pct", 1},
	{"jpg", "pmon.jpeg_pct", 1},
	{"ofa", "pmon.ofa_pct", 1},
	{NULL, NULL, 0},
};

/*
 * DCGM fields by dcgmi dmon tag, DCGM_FI_* name and numeric id (dcgmi dmon
 * -e 155,156,200,... prints the tags POWER TOTEC TXTPT ...). PCIe: the
 * profiling counters 1009/1010 (PCITX/PCIRX, bytes/s) are the canonical
 * ones; the older 200/201 (TXTPT/RXTPT, KB/s) are deprecated and print N/A
 * on current GPUs, so they keep their own names. FB_* are in MiB.
 */
static const struct entry dcgmi[] = {
	{"POWER", "gpu.power_w", 1},
	{"DCGM_FI_DEV_POWER_USAGE", "gpu.power_w", 1},
	{"155", "gpu.power_w", 1},
	{"GTEMP", "gpu.temperature_c", 1},
	{"DCGM_FI_DEV_GPU_TEMP", "gpu.temperature_c", 1},
	{"150", "gpu.temperature_c", 1},
	{"MMTMP", "gpu.memory_temperature_c", 1},
	{"DCGM_FI_DEV_MEMORY_TEMP", "gpu.memory_temperature_c", 1},
	{"140", "gpu.memory_temperature_c", 1},
	{"SMCLK", "gpu.sm_clock_mhz", 1},
	{"DCGM_FI_DEV_SM_CLOCK", "gpu.sm_clock_mhz", 1},
	{"100", "gpu.sm_clock_mhz", 1},
	{"MMCLK", "gpu.memory_clock_mhz", 1},
	{"DCGM_FI_DEV_MEM_CLOCK", "gpu.memory_clock_mhz", 1},
	{"101", "gpu.memory_clock_mhz", 1},
	{"GPUTL", "gpu.utilization_pct", 1},
	{"DCGM_FI_DEV_GPU_UTIL", "gpu.utilization_pct", 1},
	{"203", "gpu.utilization_pct", 1},
	{"MCUTL", "gpu.memory_utilization_pct", 1},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", "gpu.memory_utilization_pct", 1},
	{"204", "gpu.memory_utilization_pct", 1},
	{"FBUSD", "gpu.memory_used_mib", 1},
	{"DCGM_FI_DEV_FB_USED", "gpu.memory_used_mib", 1},
	{"252", "gpu.memory_used_mib", 1},
	{"FBTTL", "gpu.memory_total_mib", 1},
	{"DCGM_FI_DEV_FB_TOTAL", "gpu.memory_total_mib", 1},
	{"250", "gpu.memory_total_mib", 1},
	{"PCITX", "gpu.pcie_tx_kib_s", 1.0 / 1024},
	{"DCGM_FI_PROF_PCIE_TX_BYTES", "gpu.pcie_tx_kib_s", 1.0 / 1024},
	{"1009", "gpu.pcie_tx_kib_s", 1.0 / 1024},
	{"PCIRX", "gpu.pcie_rx_kib_s", 1.0 / 1024},
	{"DCGM_FI_PROF_PCIE_RX_BYTES", "gpu.pcie_rx_kib_s", 1.0 / 1024},
	{"1010", "gpu.pcie_rx_kib_s", 1.0 / 1024},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "gpu.ecc_errors", 1},
	{NULL, NULL, 0},
};

static const struct entry *const tables[GL_VOCAB_NSRC] = {nvsmi, dmon, pmon, dcgmi};
static const char *const prefixes[GL_VOCAB_NSRC] = {"nvidia_smi", "dmon", "pmon", "dcgmi"};

const struct gl_vocab_metric *gl_vocab_metrics(size_t *n)
{
	*n = sizeof(metrics) / sizeof(metrics[0]);
	return metrics;
}

const char *gl_vocab_prefix(enum gl_vocab_src src)
{
	return (unsigned)src < GL_VOCAB_NSRC ? prefixes[src] : "unknown";
}

const char *gl_vocab_lookup(enum gl_vocab_src src, const char *field, size_t len, double *scale)
{
	if (scale)
		*scale = 1;
	if ((unsigned)src >= GL_VOCAB_NSRC)
		return NULL;
	for (const struct entry *e = tables[src]; e->field; e++) {
		if (strlen(e->field) == len && strncasecmp(e->field, field, len) == 0) {
			if (scale)
				*scale = e->scale;
			return e->metric;
		}
	}
	return NULL;
}

size_t gl_vocab_name(enum gl_vocab_src src, const char *field, size_t len, char *buf, size_t cap,
		     double *scale)
{
	const char *m = gl_vocab_lookup(src, field, len, scale);
	const char *pre = gl_vocab_prefix(src);
	size_t k, plen;

	if (!len || !cap)
		return 0;
	if (m) {
		k = strlen(m);
		if (k + 1 > cap)
			return 0;
		memcpy(buf, m, k + 1);
		return k;
	}
	plen = strlen(pre);
	if (plen + 1 + len + 1 > cap)
		return 0;
	memcpy(buf, pre, plen);
	buf[plen] = '.';
	k = plen + 1;
	for (size_t i = 0; i < len; i++) {
		char c = field[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_'))
			c = '_';
		buf[k++] = c;
	}
	buf[k] = '\0';
	return k;
}

const char *gl_vocab_unit(const char *metric)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		if (strcmp(metrics[i].name, metric) == 0)
			return metrics[i].unit;
	return NULL;
}
