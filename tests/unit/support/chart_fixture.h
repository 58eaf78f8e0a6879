/*
 * chart_fixture.h - a small gpulog database for the chart and HTML tests,
 * written with plain SQLite from share/schema.sql: one day of kernel
 * timings (names with '<script>', unicode and a long C++ template name),
 * memory samples, errors by component, RMM allocations, and the previous
 * day for the baseline.
 */
#ifndef GL_TEST_CHART_FIXTURE_H
#define GL_TEST_CHART_FIXTURE_H

#include <stdint.h>

#define FIX_DAY0_US (20340LL * 86400 * 1000000)	/* 2025-09-09T00:00:00Z */
#define FIX_DAY_US (86400LL * 1000000)

/* Kernel names stored in the fixture. */
extern const char *const fix_kernels[4];

/* Writes the database at path (replacing it). Returns 0, or -1. */
int fix_make_db(const char *path);

/* mkdtemp under /tmp into buf (64 bytes); "rm -rf" it. Return 0 or -1. */
int fix_tmpdir(char *buf);
int fix_rmdir(const char *dir);

#endif
