/*
 * png_read.c - see png_read.h. Written from the PNG specification (ISO/IEC
 * 15948, W3C PNG 2nd edition), independently of cairo and libpng, so that
 * the chart tests check the files with a second implementation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "png_read.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	if (pa <= pb && pa <= pc)
		return a;
	return pb <= pc ? b : c;
}

int png_decode(const uint8_t *buf, size_t n, struct png_image *img, const char **why)
{
	static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	uint8_t *idat = NULL, *raw = NULL;
	size_t nidat = 0, pos = 8;
	int have_ihdr = 0, have_iend = 0, rc = -1;
	unsigned depth = 0, ctype = 0, interlace = 0;

	memset(img, 0, sizeof(*img));
	*why = "bad signature";
	if (n < 8 || memcmp(buf, sig, 8) != 0)
		return -1;
	while (pos + 12 <= n && !have_iend) {
		uint32_t len = be32(buf + pos);
		const uint8_t *type = buf + pos + 4, *data = buf + pos + 8;

		*why = "truncated chunk";
		if (len > n - pos - 12)
			goto out;
		*why = "bad chunk CRC";
		if (crc32(0, type, len + 4) != be32(data + len))
			goto out;
		if (memcmp(type, "IHDR", 4) == 0) {
			*why = "bad IHDR";
			if (len != 13 || have_ihdr)
				goto out;
			img->width = be32(data);
			img->height = be32(data + 4);
			depth = data[8];
			ctype = data[9];
			interlace = data[12];
			have_ihdr = 1;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			uint8_t *p = realloc(idat, nidat + len + 1);

			*why = "out of memory";
			if (!p)
				goto out;
			idat = p;
			memcpy(idat + nidat, data, len);
			nidat += len;
			img->nchunks_idat++;
		} else if (memcmp(type, "IEND", 4) == 0) {
			have_iend = 1;
		}
		pos += 12 + (size_t)len;
	}
	*why = "missing IHDR, IDAT or IEND";
	if (!have_ihdr || !have_iend || nidat == 0)
		goto out;
	*why = "unsupported PNG type (8-bit, not interlaced only)";
	img->channels = ctype == 0 ? 1 : ctype == 4 ? 2 : ctype == 2 ? 3 : ctype == 6 ? 4 : 0;
	if (depth != 8 || interlace != 0 || img->channels == 0 || img->width == 0 ||
	    img->height == 0 || img->width > 100000 || img->height > 100000)
		goto out;
	size_t stride = (size_t)img->width * img->channels;
	uLongf rawlen = (uLongf)((stride + 1) * img->height);

	raw = malloc(rawlen);
	img->pixels = malloc(stride * img->height);
	*why = "out of memory";
	if (!raw || !img->pixels)
		goto out;
	uLongf got = rawlen;

	*why = "IDAT does not inflate";
	if (uncompress(raw, &got, idat, (uLong)nidat) != Z_OK)
		goto out;
	*why = "IDAT has the wrong size";
	if (got != rawlen)
		goto out;
	for (uint32_t y = 0; y < img->height; y++) {
		const uint8_t *in = raw + y * (stride + 1);
		uint8_t *row = img->pixels + y * stride;
		const uint8_t *up = y > 0 ? row - stride : NULL;
		unsigned bpp = img->channels;

		*why = "bad filter type";
		if (in[0] > 4)
			goto out;
		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? row[i - bpp] : 0;
			int b = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0;
			int pred = in[0] == 0 ? 0 : in[0] == 1 ? a : in[0] == 2 ? b
				: in[0] == 3 ? (a + b) / 2 : paeth(a, b, c);

			row[i] = (uint8_t)(in[1 + i] + pred);
		}
	}
	rc = 0;
	*why = NULL;
out:
	free(idat);
	free(raw);
	if (rc != 0)
		png_release(img);
	return rc;
}

int png_slurp(const char *path, uint8_t **buf, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long len;

	*buf = NULL;
	*n = 0;
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	*buf = malloc((size_t)len + 1);
	if (!*buf || fread(*buf, 1, (size_t)len, f) != (size_t)len) {
		free(*buf);
		*buf = NULL;
		fclose(f);
		return -1;
	}
	fclose(f);
	*n = (size_t)len;
	return 0;
}

int png_read_file(const char *path, struct png_image *img, const char **why)
{
	uint8_t *buf;
	size_t n;
	int rc;

	memset(img, 0, sizeof(*img));
	if (png_slurp(path, &buf, &n) != 0) {
		*why = "cannot read file";
		return -1;
	}
	rc = png_decode(buf, n, img, why);
	free(buf);
	return rc;
}

void png_release(struct png_image *img)
{
	free(img->pixels);
	img->pixels = NULL;
}

double png_variance(const struct png_image *img)
{
	unsigned colour = img->channels == 2 || img->channels == 4 ? img->channels - 1
		: img->channels;
	double sum = 0, sum2 = 0, m = 0;
	size_t npix = (size_t)img->width * img->height;

	for (size_t p = 0; p < npix; p++)
		for (unsigned c = 0; c < colour; c++) {
			double v = img->pixels[p * img->channels + c];

			sum += v;
			sum2 += v * v;
			m++;
		}
	if (m == 0)
		return 0;
	return sum2 / m - (sum / m) * (sum / m);
}

void png_rgb(const struct png_image *img, uint32_t x, uint32_t y, uint8_t rgb[3])
{
	const uint8_t *p = img->pixels + ((size_t)y * img->width + x) * img->channels;

	if (img->channels <= 2) {
		rgb[0] = rgb[1] = rgb[2] = p[0];
	} else {
		rgb[0] = p[0];
		rgb[1] = p[1];
		rgb[2] = p[2];
	}
}
