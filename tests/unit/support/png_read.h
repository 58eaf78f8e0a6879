/*
 * png_read.h - a small PNG decoder for the chart tests: signature, chunk
 * CRCs, IHDR, IDAT inflated with zlib, the five row filters. 8-bit grey,
 * grey+alpha, RGB and RGBA, not interlaced: what cairo writes.
 */
#ifndef GL_TEST_PNG_READ_H
#define GL_TEST_PNG_READ_H

#include <stddef.h>
#include <stdint.h>

struct png_image {
	uint32_t width, height;
	unsigned channels;	/* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
	uint8_t *pixels;	/* height rows of width * channels bytes, owned */
	size_t nchunks_idat;
};

/*
 * Decodes buf[0..n). Returns 0, or -1 with a reason in why (static text)
 * when the data is not a PNG this decoder reads.
 */
int png_decode(const uint8_t *buf, size_t n, struct png_image *img, const char **why);

/* Reads and decodes the file at path (same returns). */
int png_read_file(const char *path, struct png_image *img, const char **why);

void png_release(struct png_image *img);

/* Variance of all colour samples (alpha left out), over the whole image. */
double png_variance(const struct png_image *img);

/* Red, green, blue of pixel (x, y); grey images give r == g == b. */
void png_rgb(const struct png_image *img, uint32_t x, uint32_t y, uint8_t rgb[3]);

/* Whole file into *buf (malloc'd), size into *n. Returns 0 or -1. */
int png_slurp(const char *path, uint8_t **buf, size_t *n);

#endif
