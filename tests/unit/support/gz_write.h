/*
 * gz_write.h - gzip files for the ingest unit tests (test_identify.c,
 * test_ingest.c). Every function fails the running cmocka test on error.
 */
#ifndef GL_TEST_GZ_WRITE_H
#define GL_TEST_GZ_WRITE_H

#include <stddef.h>

/*
 * Compresses data[0..len) as one gzip member and writes to path only the
 * first keep bytes of the result (keep >= the compressed size: all of it).
 * Returns the full compressed size.
 */
size_t gl_test_write_gz(const char *path, const void *data, size_t len, size_t keep);

#endif
