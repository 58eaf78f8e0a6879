/*
 * gz_write.c - gzip files for the ingest unit tests, written with zlib's
 * deflate (gzip wrapper: windowBits 16 + MAX_WBITS).
 */
#include "gz_write.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <zlib.h>

#include "tmpdir.h"

size_t gl_test_write_gz(const char *path, const void *data, size_t len, size_t keep)
{
	z_stream zs = {0};
	size_t cap = len + len / 8 + 256;
	unsigned char *out = malloc(cap);
	size_t total;

	if (!out)
		fail_msg("out of memory");
	if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		fail_msg("deflateInit2 failed");
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		fail_msg("deflate did not finish");
	total = zs.total_out;
	deflateEnd(&zs);
	gl_test_write(path, out, keep < total ? keep : total);
	free(out);
	return total;
}
