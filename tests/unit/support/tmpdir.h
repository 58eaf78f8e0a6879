/*
 * tmpdir.h - scratch directories and small files for unit tests.
 * Every function fails the running cmocka test on error.
 */
#ifndef GL_TEST_TMPDIR_H
#define GL_TEST_TMPDIR_H

#include <stddef.h>

/* Creates /tmp/gl_<tag>_XXXXXX and writes its real (symlink-free) path into buf. */
void gl_test_mkdtemp(char *buf, size_t n, const char *tag);

/* Removes path and everything under it, without following symbolic links. */
void gl_test_rmtree(const char *path);

/* Writes len bytes to path (created or truncated). */
void gl_test_write(const char *path, const void *data, size_t len);

/* Reads the whole file; *len is its size. The caller frees the result. */
unsigned char *gl_test_read(const char *path, size_t *len);

#endif
