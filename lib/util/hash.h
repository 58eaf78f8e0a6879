/*
 * hash.h - a fast 64-bit streaming hash used to fingerprint log content.
 *
 * Not cryptographic: it identifies rotated copies of log streams, where
 * inputs are not adversarial. The result depends only on the bytes, never on
 * how they were split across gl_hash_update() calls.
 */
#ifndef GL_HASH_H
#define GL_HASH_H

#include <stddef.h>
#include <stdint.h>

struct gl_hash {
	uint64_t h;
	uint64_t total;		/* bytes hashed so far */
	unsigned char buf[8];	/* bytes not yet forming a whole word */
	unsigned nbuf;
};

void gl_hash_init(struct gl_hash *hs, uint64_t seed);
void gl_hash_update(struct gl_hash *hs, const void *p, size_t n);
uint64_t gl_hash_final(const struct gl_hash *hs);

/* One-shot: gl_hash_init + gl_hash_update + gl_hash_final. */
uint64_t gl_hash64(const void *p, size_t n, uint64_t seed);

/*
 * gl_hash64(a, na, seed) into *ha and gl_hash64(b, nb, seed) into *hb, the
 * two computed side by side: each word of a hash waits for the one before
 * (a chain of multiplies), so two independent chains take about the time
 * of one. For the reader, which hashes every line.
 */
void gl_hash64_pair(const void *a, size_t na, const void *b, size_t nb, uint64_t seed,
		    uint64_t *ha, uint64_t *hb);

/*
 * Chains the hash of one line into the running hash of a stream:
 * stream' = gl_hash_chain(stream, line_hash). A stream's fingerprint at a
 * line boundary is the chain over all its lines so far, starting from 0.
 */
uint64_t gl_hash_chain(uint64_t stream, uint64_t line_hash);

#endif
