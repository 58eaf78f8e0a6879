/*
 * gen.c - writes a realistic GPU log tree for the benchmarks.
 *
 *   gen [-f NFILES] [-l BYTES] DIR LINES [SEED]
 *
 * One stream of JSON lines, in time order, spread over the files a rotating
 * logger leaves behind (oldest first):
 *
 *   DIR/archived/gpu_YYYYmmdd_HHMMSS.log.gz   archived rotations, named by the
 *                                            time of their last line
 *   DIR/gpu.log.N.gz ... DIR/gpu.log.2.gz     logrotate's compressed copies
 *   DIR/gpu.log.1                             delaycompress: still plain
 *   DIR/gpu.log                               the live file
 *
 * NFILES (default 24) is the number of files in all; the two plain files hold
 * 7% of the lines and the gzip files the rest, archived ones two thirds of
 * them. About 70% of the lines are kernel timings of component "gpu", e.g.
 *
 * {"timestamp": "2025-11-16T14:30:22.123456Z", "level": "INFO", "component": "gpu", "message": "Kernel force_pass_kernel executed in 512.34μs", "metadata": {"batch": 3, "device": "cuda:0"}, "execution_time_ms": 0.51234, "memory_usage_mb": 1024.5, "gpu_metrics": {"kernel_name": "force_pass_kernel", "execution_time_us": 512.34, "memory_allocated_mb": 256.0, "memory_peak_mb": 300.5, "gpu_utilization_percent": 85.2, "error_count": 0, "recovery_attempts": 0, "performance_anomaly": false}}
 *
 * the rest server requests, memory reports, performance notes, warnings and
 * errors. -k KERNELS (default 10, at most 60) names that many kernels: the
 * ten above, then variants of them ("gemm_fp16_kernel_v2", ...) with their
 * own typical times. -d DAYS spreads the LINES evenly over DAYS days (the
 * mean gap between lines is DAYS days / LINES) instead of the default mean
 * gap of 0.2 s; issue 34's report bench uses -k 43 -d 7. -l BYTES pads every line shorter than BYTES to BYTES with a
 * "trace_id" member of random hex digits (or blanks) before its closing brace (issue
 * 12's variant with longer lines: -l 512). The output depends only on
 * LINES, NFILES, BYTES and SEED (default 1): the same arguments give the
 * same bytes, file names and mtimes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <zlib.h>

/* 2025-11-16T00:00:00Z: where the stream starts. */
#define START_S 1763251200LL

struct kernel {
	const char *name;
	double base_us;		/* typical execution time */
	double alloc_mb;	/* typical memory_allocated_mb */
};

static const struct kernel kernels[] = {
	{"force_pass_kernel", 512.0, 256.0},
	{"neighbor_list_kernel", 1830.0, 512.0},
	{"integrate_kernel", 96.5, 64.0},
	{"gemm_fp16_kernel", 2410.0, 1024.0},
	{"attention_fwd_kernel", 3120.0, 1536.0},
	{"softmax_kernel", 74.2, 32.0},
	{"layernorm_kernel", 58.9, 16.0},
	{"conv2d_fwd_kernel", 1405.0, 768.0},
	{"reduce_sum_kernel", 41.3, 8.0},
	{"allreduce_ring_kernel", 4870.0, 2048.0},
};

#define NBASE (sizeof(kernels) / sizeof(kernels[0]))
#define MAX_KERNELS 60

/* -k: the kernels in use; the first NBASE are kernels[], the rest variants. */
static struct kernel kern_all[MAX_KERNELS];
static char kern_names[MAX_KERNELS][48];
static int nkernels = (int)NBASE;

static void kernels_init(int n)
{
	for (int i = 0; i < n; i++) {
		const struct kernel *b = &kernels[(size_t)i % NBASE];

		kern_all[i] = *b;
		if ((size_t)i >= NBASE) {
			snprintf(kern_names[i], sizeof(kern_names[i]), "%s_v%d", b->name,
				 (int)((size_t)i / NBASE) + 1);
			kern_all[i].name = kern_names[i];
			/* a variant of a kernel runs somewhat longer or shorter than it */
			kern_all[i].base_us = b->base_us * (0.6 + 0.2 * (double)((size_t)i / NBASE) +
							    0.03 * (double)((size_t)i % NBASE));
		}
	}
	nkernels = n;
}

static const char *const routes[] = {
	"/v1/infer", "/v1/embed", "/v1/models", "/v1/batch", "/healthz", "/metrics",
};

static const char *const models[] = {
	"resnet50-v1.5", "bert-large-uncased", "llama-7b-int8", "vit-b16", "whisper-small",
};

struct gen {
	uint64_t rng;
	int64_t t_us;		/* timestamp of the current line */
	int batch;
	int step;
	double mem_mb;		/* running memory_usage_mb, a slow random walk */
	double peak_mb;
	uint64_t bytes;		/* uncompressed bytes written */
	int pad_to;		/* -l: pad shorter lines to this length; 0: none */
	uint64_t gap_us;	/* -d: the mean gap between lines; 0: the default 0.2 s */
	uint64_t pad_rng;	/* the padding's own sequence: the lines stay as without -l */
};

/* splitmix64: small, fast, and the same on every platform. */
static uint64_t splitmix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct gen *g)
{
	return splitmix(&g->rng);
}

/* Uniform in [0, 1). */
static double unif(struct gen *g)
{
	return (double)(rnd(g) >> 11) * (1.0 / 9007199254740992.0);
}

static int pick(struct gen *g, int n)
{
	return (int)(rnd(g) % (uint64_t)n);
}

/* A positive factor around 1 with a long right tail (sum of uniforms, squared). */
static double jitter(struct gen *g)
{
	double u = (unif(g) + unif(g) + unif(g)) / 1.5;

	return 0.55 + 0.45 * u * u;
}

static void fmt_ts(char *buf, size_t n, int64_t t_us)
{
	time_t s = (time_t)(t_us / 1000000);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06uZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(t_us % 1000000) % 1000000u);
}

static int line_kernel(struct gen *g, char *buf, size_t n, const char *ts)
{
	const struct kernel *k = &kern_all[pick(g, nkernels)];
	int anomaly = unif(g) < 0.02;
	double us = k->base_us * jitter(g) * (anomaly ? 3.0 + 5.0 * unif(g) : 1.0);
	double alloc = k->alloc_mb * (0.75 + 0.5 * unif(g));
	double peak = alloc * (1.05 + 0.3 * unif(g));
	double util = anomaly ? 20.0 + 40.0 * unif(g) : 70.0 + 29.9 * unif(g);
	const char *level = anomaly ? "WARNING" : unif(g) < 0.04 ? "DEBUG" : "INFO";

	if (unif(g) < 0.05)
		g->batch++;
	return snprintf(buf, n,
			"{\"timestamp\": \"%s\", \"level\": \"%s\", \"component\": \"gpu\", "
			"\"message\": \"Kernel %s executed in %.2f\xce\xbcs\", "
			"\"metadata\": {\"batch\": %d, \"device\": \"cuda:%d\"}, "
			"\"execution_time_ms\": %.5f, \"memory_usage_mb\": %.1f, "
			"\"gpu_metrics\": {\"kernel_name\": \"%s\", \"execution_time_us\": %.2f, "
			"\"memory_allocated_mb\": %.1f, \"memory_peak_mb\": %.1f, "
			"\"gpu_utilization_percent\": %.1f, \"error_count\": 0, "
			"\"recovery_attempts\": 0, \"performance_anomaly\": %s}}\n",
			ts, level, k->name, us, g->batch, pick(g, 8), us / 1000.0, g->mem_mb,
			k->name, us, alloc, peak, util, anomaly ? "true" : "false");
}

static int line_server(struct gen *g, char *buf, size_t n, const char *ts)
{
	const char *route = routes[pick(g, 6)];
	double r = unif(g), ms = 4.0 + 60.0 * jitter(g) * jitter(g);
	int status = r < 0.01 ? 500 : r < 0.03 ? 429 : r < 0.05 ? 404 : 200;
	const char *level = status == 500 ? "ERROR" : status == 200 ? "INFO" : "WARNING";

	if (unif(g) < 0.1)
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"server\", "
				"\"message\": \"Model %s loaded in %.1fs\", "
				"\"metadata\": {\"model\": \"%s\", \"device\": \"cuda:%d\"}}\n",
				ts, models[pick(g, 5)], 1.5 + 20.0 * unif(g), models[pick(g, 5)],
				pick(g, 8));
	return snprintf(buf, n,
			"{\"timestamp\": \"%s\", \"level\": \"%s\", \"component\": \"server\", "
			"\"message\": \"%s %s completed in %.1fms with status %d\", "
			"\"metadata\": {\"request_id\": \"req-%08" PRIx64 "\", \"client\": \"10.0.%d.%d\", "
			"\"status\": %d}, \"execution_time_ms\": %.3f}\n",
			ts, level, pick(g, 3) ? "POST" : "GET", route, ms, status,
			rnd(g) & 0xffffffffu, pick(g, 16), 2 + pick(g, 250), status, ms);
}

static int line_memory(struct gen *g, char *buf, size_t n, const char *ts)
{
	double reserved, pct;
	int dev = pick(g, 8);

	g->mem_mb += (unif(g) - 0.5) * 64.0;
	if (g->mem_mb < 512.0)
		g->mem_mb = 512.0 + 64.0 * unif(g);
	if (g->mem_mb > 38000.0)
		g->mem_mb = 30000.0;
	if (g->mem_mb > g->peak_mb)
		g->peak_mb = g->mem_mb;
	reserved = g->mem_mb * (1.1 + 0.2 * unif(g));
	pct = 100.0 * reserved / 40960.0;
	if (pct > 85.0)
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"WARNING\", \"component\": \"memory\", "
				"\"message\": \"High memory pressure on cuda:%d: %.1f%% of 40960MB reserved\", "
				"\"metadata\": {\"device\": \"cuda:%d\", \"reserved_mb\": %.1f}, "
				"\"memory_usage_mb\": %.1f}\n",
				ts, dev, pct, dev, reserved, g->mem_mb);
	if (unif(g) < 0.2)
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"DEBUG\", \"component\": \"memory\", "
				"\"message\": \"Freed %d cached blocks (%.1fMB) on cuda:%d\", "
				"\"metadata\": {\"device\": \"cuda:%d\"}, \"memory_usage_mb\": %.1f}\n",
				ts, 1 + pick(g, 400), 256.0 * unif(g), dev, dev, g->mem_mb);
	return snprintf(buf, n,
			"{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"memory\", "
			"\"message\": \"Memory usage: allocated=%.1fMB reserved=%.1fMB peak=%.1fMB\", "
			"\"metadata\": {\"device\": \"cuda:%d\"}, \"memory_usage_mb\": %.1f, "
			"\"gpu_metrics\": {\"memory_allocated_mb\": %.1f, \"memory_peak_mb\": %.1f}}\n",
			ts, g->mem_mb, reserved, g->peak_mb, dev, g->mem_mb, g->mem_mb, g->peak_mb);
}

static int line_perf(struct gen *g, char *buf, size_t n, const char *ts)
{
	double r = unif(g);

	g->step++;
	if (r < 0.15)
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"WARNING\", \"component\": \"performance\", "
				"\"message\": \"GPU utilization low on cuda:%d: %.1f%% over the last %ds\", "
				"\"metadata\": {\"device\": \"cuda:%d\", \"window_s\": 60}, "
				"\"gpu_metrics\": {\"gpu_utilization_percent\": %.1f, \"performance_anomaly\": true}}\n",
				ts, pick(g, 8), 10.0 + 30.0 * unif(g), 60, pick(g, 8), 10.0 + 30.0 * unif(g));
	if (r < 0.55)
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"performance\", "
				"\"message\": \"Step %d time %.1fms (p50 %.1fms, p99 %.1fms)\", "
				"\"metadata\": {\"step\": %d}, \"execution_time_ms\": %.1f}\n",
				ts, g->step, 80.0 * jitter(g), 75.0, 75.0 + 60.0 * unif(g), g->step,
				80.0 * jitter(g));
	return snprintf(buf, n,
			"{\"timestamp\": \"%s\", \"level\": \"INFO\", \"component\": \"performance\", "
			"\"message\": \"Throughput %.1f samples/s over the last %d batches\", "
			"\"metadata\": {\"batch\": %d, \"world_size\": 8}}\n",
			ts, 900.0 + 400.0 * unif(g), 10 + pick(g, 90), g->batch);
}

static int line_error(struct gen *g, char *buf, size_t n, const char *ts)
{
	const struct kernel *k = &kern_all[pick(g, nkernels)];
	int dev = pick(g, 8), attempt = 1 + pick(g, 3);

	switch (pick(g, 5)) {
	case 0:
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"ERROR\", \"component\": \"error\", "
				"\"message\": \"CUDA error: out of memory (tried to allocate %.1fMB on cuda:%d)\", "
				"\"metadata\": {\"device\": \"cuda:%d\", \"kernel\": \"%s\"}, "
				"\"memory_usage_mb\": %.1f, \"gpu_metrics\": {\"kernel_name\": \"%s\", "
				"\"error_count\": 1, \"recovery_attempts\": %d, \"performance_anomaly\": false}}\n",
				ts, 64.0 + 4096.0 * unif(g), dev, dev, k->name, g->mem_mb, k->name, attempt);
	case 1:
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"ERROR\", \"component\": \"error\", "
				"\"message\": \"NCCL watchdog timeout on rank %d after %dms (collective ALLREDUCE)\", "
				"\"metadata\": {\"rank\": %d, \"device\": \"cuda:%d\"}, "
				"\"gpu_metrics\": {\"error_count\": 1, \"recovery_attempts\": 0}}\n",
				ts, dev, 30000 + 10000 * pick(g, 4), dev, dev);
	case 2:
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"WARNING\", \"component\": \"error\", "
				"\"message\": \"Retrying kernel %s after launch failure (attempt %d/3)\", "
				"\"metadata\": {\"device\": \"cuda:%d\"}, \"gpu_metrics\": {\"kernel_name\": \"%s\", "
				"\"error_count\": 1, \"recovery_attempts\": %d}}\n",
				ts, k->name, attempt, dev, k->name, attempt);
	case 3:
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"ERROR\", \"component\": \"error\", "
				"\"message\": \"Kernel %s failed: an illegal memory access was encountered at 0x7f%010" PRIx64 "\", "
				"\"metadata\": {\"device\": \"cuda:%d\", \"batch\": %d}, \"gpu_metrics\": {\"kernel_name\": \"%s\", "
				"\"error_count\": %d, \"recovery_attempts\": 0}}\n",
				ts, k->name, (uint64_t)(rnd(g) & 0xffffffffffULL), dev, g->batch, k->name, 1 + pick(g, 3));
	default:
		return snprintf(buf, n,
				"{\"timestamp\": \"%s\", \"level\": \"CRITICAL\", \"component\": \"error\", "
				"\"message\": \"ECC uncorrectable error on cuda:%d, device reset required\", "
				"\"metadata\": {\"device\": \"cuda:%d\", \"xid\": 48}, "
				"\"gpu_metrics\": {\"error_count\": %d, \"recovery_attempts\": 1}}\n",
				ts, dev, dev, 1 + pick(g, 2));
	}
}

/*
 * -l: a line of k bytes ("...}\n") shorter than g->pad_to becomes exactly
 * pad_to bytes: ', "trace_id": "<hex>"' goes before the closing brace, or
 * blanks when fewer than 18 bytes are missing.
 */
static int pad_line(struct gen *g, char *buf, size_t n, int k)
{
	static const char head[] = ", \"trace_id\": \"";
	static const char hex[] = "0123456789abcdef";
	int extra = g->pad_to - k, digits = extra - (int)(sizeof(head) - 1) - 1;

	if (g->pad_to == 0 || extra <= 0 || (size_t)g->pad_to >= n)
		return k;
	k -= 2;				/* before "}\n" */
	if (digits < 1) {
		/* too little room for the member: blanks, which JSON allows */
		memset(buf + k, ' ', (size_t)extra);
		memcpy(buf + k + extra, "}\n", 2);
		return g->pad_to;
	}
	memcpy(buf + k, head, sizeof(head) - 1);
	k += (int)(sizeof(head) - 1);
	for (int i = 0; i < digits; i++)
		buf[k++] = hex[splitmix(&g->pad_rng) & 15];
	memcpy(buf + k, "\"}\n", 3);
	return k + 3;
}

/* The next line of the stream into buf; returns its length. */
static int gen_line(struct gen *g, char *buf, size_t n)
{
	char ts[64];
	double r;
	int k;

	if (g->gap_us)
		g->t_us += 1 + (int64_t)(rnd(g) % (2 * g->gap_us - 1));
	else
		g->t_us += 1000 + (int64_t)(rnd(g) % 400000);
	fmt_ts(ts, sizeof(ts), g->t_us);
	r = unif(g);
	if (r < 0.70)
		k = line_kernel(g, buf, n, ts);
	else if (r < 0.80)
		k = line_server(g, buf, n, ts);
	else if (r < 0.88)
		k = line_memory(g, buf, n, ts);
	else if (r < 0.94)
		k = line_perf(g, buf, n, ts);
	else
		k = line_error(g, buf, n, ts);
	if (k < 0 || (size_t)k >= n) {
		fprintf(stderr, "gen: line too long\n");
		exit(1);
	}
	k = pad_line(g, buf, n, k);
	g->bytes += (uint64_t)k;
	return k;
}

static void die_errno(const char *what, const char *path)
{
	fprintf(stderr, "gen: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die_errno("cannot create", path);
}

/* Sets the mtime of path to the time of its last line, as a logger would. */
static void set_mtime(const char *path, int64_t t_us)
{
	struct timeval tv[2];

	tv[0].tv_sec = tv[1].tv_sec = (time_t)(t_us / 1000000);
	tv[0].tv_usec = tv[1].tv_usec = (suseconds_t)(t_us % 1000000);
	if (utimes(path, tv) < 0)
		die_errno("cannot set the time of", path);
}

/* Writes nlines lines of the stream to path, gzipped or plain. */
static void write_file(struct gen *g, const char *path, uint64_t nlines, int gz)
{
	char line[2048];
	gzFile zf = NULL;
	FILE *f = NULL;

	if (gz) {
		zf = gzopen(path, "wb6");
		if (!zf || gzbuffer(zf, 256 << 10) != 0)
			die_errno("cannot create", path);
	} else {
		f = fopen(path, "wb");
		if (!f)
			die_errno("cannot create", path);
	}
	for (uint64_t i = 0; i < nlines; i++) {
		int k = gen_line(g, line, sizeof(line));

		if (gz ? gzwrite(zf, line, (unsigned)k) != k : fwrite(line, 1, (size_t)k, f) != (size_t)k)
			die_errno("cannot write", path);
	}
	if (gz ? gzclose(zf) != Z_OK : fclose(f) != 0)
		die_errno("cannot write", path);
	set_mtime(path, g->t_us);
}

static void usage(void)
{
	fprintf(stderr, "usage: gen [-f NFILES] [-l BYTES] [-k KERNELS] [-d DAYS] DIR LINES [SEED]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct gen g = {0};
	uint64_t lines, seed = 1, live, prev, in_gz, done = 0;
	long nfiles = 24, ngz, narch, nrot, nk = (long)NBASE, days = 0;
	int64_t last_name_s = 0;
	const char *dir;
	char path[4096];
	int a = 1;

	for (;;) {
		if (a + 1 < argc && strcmp(argv[a], "-f") == 0) {
			nfiles = strtol(argv[a + 1], NULL, 10);
			a += 2;
		} else if (a + 1 < argc && strcmp(argv[a], "-l") == 0) {
			long l = strtol(argv[a + 1], NULL, 10);

			if (l < 0 || l > 2000)
				usage();
			g.pad_to = (int)l;
			a += 2;
		} else if (a + 1 < argc && strcmp(argv[a], "-k") == 0) {
			nk = strtol(argv[a + 1], NULL, 10);
			if (nk < 1 || nk > MAX_KERNELS)
				usage();
			a += 2;
		} else if (a + 1 < argc && strcmp(argv[a], "-d") == 0) {
			days = strtol(argv[a + 1], NULL, 10);
			if (days < 1 || days > 3650)
				usage();
			a += 2;
		} else {
			break;
		}
	}
	if (argc - a < 2 || argc - a > 3 || nfiles < 3)
		usage();
	dir = argv[a];
	lines = strtoull(argv[a + 1], NULL, 10);
	if (argc - a == 3)
		seed = strtoull(argv[a + 2], NULL, 10);

	kernels_init((int)nk);
	if (days > 0 && lines > 0) {
		g.gap_us = (uint64_t)days * 86400000000ULL / lines;
		if (g.gap_us < 1)
			g.gap_us = 1;
	}
	g.rng = seed;
	g.pad_rng = ~seed;
	g.t_us = START_S * 1000000LL;
	g.mem_mb = 8192.0;
	g.peak_mb = g.mem_mb;
	live = lines * 3 / 100;
	prev = lines * 4 / 100;
	in_gz = lines - live - prev;
	ngz = nfiles - 2;
	narch = ngz * 2 / 3;
	nrot = ngz - narch;

	make_dir(dir);
	snprintf(path, sizeof(path), "%s/archived", dir);
	make_dir(path);
	for (long i = 0; i < ngz; i++) {
		/* File i holds lines [in_gz*i/ngz, in_gz*(i+1)/ngz) of the gzip share. */
		uint64_t n = in_gz * (uint64_t)(i + 1) / (uint64_t)ngz - done;
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s/gen.tmp.gz", dir);
		write_file(&g, tmp, n, 1);
		done += n;
		if (i < narch) {
			int64_t s = g.t_us / 1000000;
			time_t ts;
			struct tm tm;

			if (s <= last_name_s)
				s = last_name_s + 1;
			last_name_s = s;
			ts = (time_t)s;
			gmtime_r(&ts, &tm);
			snprintf(path, sizeof(path),
				 "%s/archived/gpu_%04d%02d%02d_%02d%02d%02d.log.gz", dir,
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
				 tm.tm_min, tm.tm_sec);
		} else {
			snprintf(path, sizeof(path), "%s/gpu.log.%ld.gz", dir, ngz - i + 1);
		}
		if (rename(tmp, path) < 0)
			die_errno("cannot rename to", path);
	}
	snprintf(path, sizeof(path), "%s/gpu.log.1", dir);
	write_file(&g, path, prev, 0);
	snprintf(path, sizeof(path), "%s/gpu.log", dir);
	write_file(&g, path, live, 0);
	printf("files=%ld archived=%ld rotated=%ld lines=%" PRIu64 " bytes=%" PRIu64 "\n",
	       nfiles, narch, nrot + 1, lines, g.bytes);
	return 0;
}
