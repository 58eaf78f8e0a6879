/*
 * test_bigmem.c - lib/util/bigmem.c: large arrays on their own 2 MiB-aligned
 * mappings advised MADV_HUGEPAGE, smaller ones from malloc.
 *
 * What the kernel made of each allocation is read back from
 * /proc/self/smaps (the mapping holding the pointer, its size and its
 * VmFlags: "hg" is MADV_HUGEPAGE); the contents are the test's own byte
 * pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/bigmem.h"

#define MIB ((size_t)1 << 20)

struct mapping {
	bool found;
	uintptr_t lo, hi;
	bool hugepage_advised;	/* VmFlags has "hg" */
};

/* The mapping of /proc/self/smaps that holds p; found false when none does
 * (or there is no /proc). */
static struct mapping mapping_of(const void *p)
{
	struct mapping m = {0};
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;

	if (!f)
		return m;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			if (in) {
				m.found = true;
				m.lo = lo;
				m.hi = hi;
			}
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			m.hugepage_advised = strstr(line, " hg") != NULL;
		}
	}
	fclose(f);
	return m;
}

static bool have_proc(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");

	if (f)
		fclose(f);
	return f != NULL;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 131u + seed) >> 3);
}

static bool holds(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)((i * 131u + seed) >> 3))
			return false;
	return true;
}

/* Below GL_BIG_MIN: malloc's memory, usable to its last byte, no mapping of its own. */
static void test_small_is_malloc(void **state)
{
	(void)state;
	size_t sizes[] = {0, 1, 4096, GL_BIG_MIN - 1};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = gl_big_alloc(sizes[i]);

		assert_non_null(p);
		fill(p, sizes[i], 7);
		assert_true(holds(p, sizes[i], 7));
		if (have_proc()) {
			struct mapping m = mapping_of(p);

			/* malloc's heap or arena: not a 2 MiB-aligned region that starts at p */
			assert_true(m.found);
			assert_false(m.lo == (uintptr_t)p && m.hugepage_advised);
		}
		gl_big_free(p, sizes[i]);
	}
	gl_big_free(NULL, 0);
	gl_big_free(NULL, GL_BIG_MIN);
}

/* From GL_BIG_MIN: a mapping that starts at p, 2 MiB-aligned, advised
 * huge pages, exactly the size rounded to pages; gone after the free. */
static void test_big_is_own_mapping(void **state)
{
	(void)state;
	size_t sizes[] = {GL_BIG_MIN, GL_BIG_MIN + 1, 5 * MIB + 3, 16 * MIB};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = gl_big_alloc(sizes[i]);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % (2 * MIB), 0);
		fill(p, sizes[i], (unsigned)i);
		assert_true(holds(p, sizes[i], (unsigned)i));
		if (!have_proc()) {
			gl_big_free(p, sizes[i]);
			continue;
		}
		struct mapping m = mapping_of(p);

		assert_true(m.found);
		assert_int_equal(m.lo, (uintptr_t)p);
		/* sizes[i] rounded up to 4 KiB pages: the aligned part only */
		assert_int_equal(m.hi - m.lo, (sizes[i] + 4095) / 4096 * 4096);
#ifdef MADV_HUGEPAGE
		/* a kernel built without THP takes no advice */
		if (access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0)
			assert_true(m.hugepage_advised);
#endif
		gl_big_free(p, sizes[i]);
		m = mapping_of(p);
		/* the range may be reused by a neighbour's mapping, never with p's size */
		assert_false(m.found && m.lo == (uintptr_t)p && m.hi - m.lo == sizes[i]);
	}
}

/* gl_big_realloc keeps the contents across the threshold, both ways. */
static void test_realloc_keeps_contents(void **state)
{
	(void)state;
	size_t steps[] = {100, GL_BIG_MIN - 8, GL_BIG_MIN, 3 * MIB, 7 * MIB + 5, 2 * MIB + 1,
			  GL_BIG_MIN - 1, 64, 0, 10};
	unsigned char *p = NULL;
	size_t have = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t keep = have < steps[i] ? have : steps[i];
		unsigned char *np = gl_big_realloc(p, have, steps[i]);

		assert_non_null(np);
		assert_true(holds(np, keep, 3));
		if (steps[i] >= GL_BIG_MIN)
			assert_int_equal((uintptr_t)np % (2 * MIB), 0);
		p = np;
		have = steps[i];
		fill(p, have, 3);
	}
	gl_big_free(p, have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_is_malloc),
		cmocka_unit_test(test_big_is_own_mapping),
		cmocka_unit_test(test_realloc_keeps_contents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
