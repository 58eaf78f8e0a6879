/*
 * pngcheck - checks a chart for the CLI tests with the unit tests' own PNG
 * decoder (tests/unit/support/png_read.c, independent of PLplot and cairo):
 *
 *   pngcheck FILE WIDTH HEIGHT
 *
 * prints "FILE: WIDTHxHEIGHT variance V" and exits 0 when FILE decodes
 * (signature, chunk CRCs, IHDR, IDAT), has the size given and is not blank
 * (colour variance above 1); else says why and exits 1. Usage errors: 2.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/support/png_read.c"

int main(int argc, char **argv)
{
	struct png_image img;
	const char *why = NULL;
	double var;
	int ok;

	if (argc != 4) {
		fprintf(stderr, "usage: pngcheck FILE WIDTH HEIGHT\n");
		return 2;
	}
	if (png_read_file(argv[1], &img, &why) != 0) {
		printf("%s: not a PNG: %s\n", argv[1], why ? why : "unreadable");
		return 1;
	}
	var = png_variance(&img);
	printf("%s: %ux%u variance %.1f\n", argv[1], (unsigned)img.width, (unsigned)img.height,
	       var);
	ok = img.width == (uint32_t)atol(argv[2]) && img.height == (uint32_t)atol(argv[3]) &&
	     var > 1.0;
	png_release(&img);
	return ok ? 0 : 1;
}
