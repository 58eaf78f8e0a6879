/*
 * inflate.c - reference figures for the input stage.
 *
 *   inflate [--reader] PATH...
 *
 * Reads every regular file under the PATHs (directories walked recursively)
 * and counts lines and decompressed bytes. By default it uses zlib's inflate
 * alone (256 KiB in, 1 MiB out, memchr to count '\n'), the decoder zcat
 * uses. With --reader it goes through gl_reader_next() (igzip), hashing and
 * all, as gpulog-ingest does. Prints one machine-readable line:
 *
 *   files=24 lines=1000000 bytes=424905624 raw_bytes=... cpu_s=... wall_s=... lines_per_s=... mb_per_s=...
 *
 * (mb_per_s counts decompressed MB, 10^6 bytes.) Plain files are read too;
 * gzip files are told apart by their magic bytes, as the reader does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "ingest/reader.h"

#define IN_CAP ((size_t)256 << 10)
#define OUT_CAP ((size_t)1 << 20)

struct tally {
	uint64_t files, lines, bytes, raw_bytes;
	int failed;
};

static int use_reader;
static unsigned char *inbuf, *outbuf;

static uint64_t count_nl(const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	uint64_t k = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/* zlib alone: every member inflated, lines counted. */
static void file_inflate(const char *path, struct tally *t)
{
	int fd = open(path, O_RDONLY);
	z_stream zs;
	ssize_t got;
	int gz = -1, zrc = Z_OK;
	unsigned char last = '\n';

	if (fd < 0) {
		fprintf(stderr, "inflate: cannot open '%s': %s\n", path, strerror(errno));
		t->failed = 1;
		return;
	}
	memset(&zs, 0, sizeof(zs));
	while ((got = read(fd, inbuf, IN_CAP)) > 0) {
		t->raw_bytes += (uint64_t)got;
		if (gz < 0) {
			gz = got >= 2 && inbuf[0] == 0x1f && inbuf[1] == 0x8b;
			if (gz && inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
				fprintf(stderr, "inflate: inflateInit2 failed\n");
				exit(1);
			}
		}
		if (!gz) {
			t->lines += count_nl(inbuf, (size_t)got);
			t->bytes += (uint64_t)got;
			last = inbuf[got - 1];
			continue;
		}
		zs.next_in = inbuf;
		zs.avail_in = (uInt)got;
		while (zs.avail_in > 0) {
			size_t n;

			if (zrc == Z_STREAM_END)
				inflateReset(&zs);
			zs.next_out = outbuf;
			zs.avail_out = OUT_CAP;
			zrc = inflate(&zs, Z_NO_FLUSH);
			if (zrc != Z_OK && zrc != Z_STREAM_END && zrc != Z_BUF_ERROR) {
				fprintf(stderr, "inflate: '%s': %s\n", path, zs.msg ? zs.msg : "error");
				t->failed = 1;
				goto out;
			}
			n = OUT_CAP - zs.avail_out;
			if (n) {
				t->lines += count_nl(outbuf, n);
				t->bytes += n;
				last = outbuf[n - 1];
			}
		}
	}
	if (last != '\n')
		t->lines++;
out:
	if (gz > 0)
		inflateEnd(&zs);
	close(fd);
	t->files++;
}

static void file_reader(const char *path, struct tally *t)
{
	struct gl_reader *r = NULL;
	struct gl_line line;
	struct gl_err err;
	int rc;

	if (gl_reader_open(&r, path, &err) != GL_OK) {
		fprintf(stderr, "inflate: cannot open '%s': %s\n", path, err.cause);
		t->failed = 1;
		return;
	}
	while ((rc = gl_reader_next(r, &line, &err)) == 1) {
		t->lines++;
		t->bytes += line.full_len;
	}
	if (rc < 0) {
		fprintf(stderr, "inflate: '%s': %s\n", path, err.cause);
		t->failed = 1;
	}
	t->raw_bytes += gl_reader_raw_offset(r);
	t->files++;
	gl_reader_close(r);
}

static void walk(const char *path, struct tally *t)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "inflate: cannot stat '%s': %s\n", path, strerror(errno));
		t->failed = 1;
		return;
	}
	if (S_ISREG(st.st_mode)) {
		if (use_reader)
			file_reader(path, t);
		else
			file_inflate(path, t);
		return;
	}
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while ((de = readdir(d)) != NULL) {
		char sub[4096];

		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		walk(sub, t);
	}
	closedir(d);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct tally t = {0};
	double w0, c0, wall_s, cpu_s;
	int a = 1;

	if (a < argc && strcmp(argv[a], "--reader") == 0) {
		use_reader = 1;
		a++;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: inflate [--reader] PATH...\n");
		return 2;
	}
	inbuf = malloc(IN_CAP);
	outbuf = malloc(OUT_CAP);
	if (!inbuf || !outbuf)
		return 1;
	w0 = clock_s(CLOCK_MONOTONIC);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (; a < argc; a++)
		walk(argv[a], &t);
	wall_s = clock_s(CLOCK_MONOTONIC) - w0;
	cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("files=%" PRIu64 " lines=%" PRIu64 " bytes=%" PRIu64 " raw_bytes=%" PRIu64
	       " cpu_s=%.3f wall_s=%.3f lines_per_s=%.0f mb_per_s=%.1f\n",
	       t.files, t.lines, t.bytes, t.raw_bytes, cpu_s, wall_s,
	       wall_s > 0 ? (double)t.lines / wall_s : 0.0,
	       wall_s > 0 ? (double)t.bytes / 1e6 / wall_s : 0.0);
	free(inbuf);
	free(outbuf);
	return t.failed;
}
