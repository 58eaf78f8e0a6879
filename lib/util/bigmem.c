/*
 * bigmem.c - large arrays on transparent huge pages (bigmem.h).
 */
#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_ALIGN ((size_t)2 << 20)

/* bytes rounded up to whole system pages; 0 when that overflows */
static size_t mapped_size(size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (bytes > SIZE_MAX - pg)
		return 0;
	return (bytes + pg - 1) / pg * pg;
}

void *gl_big_alloc(size_t bytes)
{
	size_t len, span;
	uint8_t *raw, *p;

	if (bytes < GL_BIG_MIN)
		return malloc(bytes ? bytes : 1);
	if (!(len = mapped_size(bytes)) || len > SIZE_MAX - HUGE_ALIGN)
		return NULL;
	/* map 2 MiB more and give back what lies before and after the aligned part */
	span = len + HUGE_ALIGN;
	raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (uint8_t *)(((uintptr_t)raw + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + span > p + len)
		munmap(p + len, (size_t)(raw + span - (p + len)));
#ifdef MADV_HUGEPAGE
	/* advice only: without THP the region is ordinary pages */
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

void gl_big_free(void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes < GL_BIG_MIN)
		free(p);
	else
		munmap(p, mapped_size(bytes));
}

void *gl_big_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
	void *np;

	if (!p)
		return gl_big_alloc(new_bytes);
	if (old_bytes < GL_BIG_MIN && new_bytes < GL_BIG_MIN)
		return realloc(p, new_bytes ? new_bytes : 1);
	if (!(np = gl_big_alloc(new_bytes)))
		return NULL;
	memcpy(np, p, old_bytes < new_bytes ? old_bytes : new_bytes);
	gl_big_free(p, old_bytes);
	return np;
}
