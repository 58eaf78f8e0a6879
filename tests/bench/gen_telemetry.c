/*
 * gen_telemetry - the telemetry data set of `make bench`: one nvidia-smi
 * `--query-gpu=... --format=csv -l 1` log with units in the header and in
 * the values, GPUS rows (one per GPU, with an index column) per second:
 *
 *   gen_telemetry FILE GPUS SECONDS SEED
 *
 * writes FILE (header once, then GPUS * SECONDS rows from
 * 2025/01/01 00:00:00.000) and prints "rows=N bytes=B". Values follow a
 * slow daily wave plus noise (a reproducible LCG), so the report has
 * spread to describe. Exit 1 on a write error, 2 on a usage error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static uint64_t lcg = 1;

static double rnd(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
	FILE *fp;
	long gpus, secs;
	unsigned long long rows = 0;

	if (argc != 5 || (gpus = atol(argv[2])) < 1 || (secs = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: gen_telemetry FILE GPUS SECONDS SEED\n");
		return 2;
	}
	lcg = strtoull(argv[4], NULL, 10) + 1;
	if (!(fp = fopen(argv[1], "w"))) {
		perror(argv[1]);
		return 1;
	}
	fputs("timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
	      "memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu\n", fp);
	for (long s = 0; s < secs; s++) {
		long day = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;

		for (long g = 0; g < gpus; g++) {
			double wave = 0.5 + 0.4 * sin((double)s / 86400 * 6.2831853 + (double)g);
			double util = fmin(100, fmax(0, 100 * wave + 10 * (rnd() - 0.5)));
			double mem = 20000 + 50000 * wave + 500 * rnd();

			fprintf(fp, "2025/01/%02ld %02ld:%02ld:%02ld.%03ld, %ld, NVIDIA H100 80GB HBM3, "
				    "%.0f %%, %.0f %%, %.0f MiB, 81559 MiB, %.2f W, %.0f\n",
				day + 1, h, m, sec, g * 3, g, util, util * 0.6, mem,
				70 + 6 * util + 20 * rnd(), 30 + util * 0.45 + 2 * rnd());
			rows++;
		}
	}
	if (fclose(fp) != 0) {
		perror(argv[1]);
		return 1;
	}
	FILE *f = fopen(argv[1], "rb");
	long long bytes = 0;
	if (f && fseek(f, 0, SEEK_END) == 0)
		bytes = ftell(f);
	if (f)
		fclose(f);
	printf("rows=%llu bytes=%lld\n", rows, bytes);
	return 0;
}
