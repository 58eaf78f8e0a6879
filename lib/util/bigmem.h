/*
 * bigmem.h - large arrays on transparent huge pages. The report keeps up
 * to 12M kernel timings (192 MB) and the top kernels' durations; in 4 KiB
 * pages that is tens of thousands of page faults, and in a virtual machine
 * each fault is a trip through the hypervisor (the 10M-event report on the
 * 2-core bench machine: 60,000 faults before, 24,000 after; 5.0 s before,
 * 4.6 s after, side by side). An allocation of at
 * least GL_BIG_MIN bytes is its own mapping, aligned to 2 MiB and advised
 * MADV_HUGEPAGE, so the kernel can back each whole 2 MiB of it with one
 * page (THP "madvise" or "always"; with "never" it is plain pages, as
 * before). The tail that does not fill 2 MiB stays in small pages, so the
 * resident size grows by nothing. Smaller allocations are malloc's.
 */
#ifndef GL_BIGMEM_H
#define GL_BIGMEM_H

#include <stddef.h>

/* Size from which gl_big_alloc maps its own huge-page region: 2 MiB. */
#define GL_BIG_MIN ((size_t)2 << 20)

/* bytes of uninitialised memory (never NULL for bytes 0), or NULL when out
 * of memory. Free with gl_big_free(p, bytes), the same bytes. */
void *gl_big_alloc(size_t bytes);

/* Frees p (NULL: nothing) of gl_big_alloc(bytes) or gl_big_realloc(.., bytes). */
void gl_big_free(void *p, size_t bytes);

/* p (of old_bytes; NULL with 0) grown or shrunk to new_bytes, its first
 * min(old, new) bytes kept; NULL when out of memory (p is then unchanged). */
void *gl_big_realloc(void *p, size_t old_bytes, size_t new_bytes);

#endif
