/*
 * hash.c - streaming 64-bit hash: 8-byte words mixed by multiply-rotate,
 * a final avalanche over the length. Chunking-independent by construction:
 * partial words wait in hs->buf until complete.
 */
#include "hash.h"

#include <string.h>

#define P1 0x9E3779B97F4A7C15ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= rotl(w * P2, 31) * P1;
	return rotl(h, 27) * P1 + P3;
}

static inline uint64_t load64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

/*
 * The last left (1..7) bytes at q as a word padded with zero bytes, what
 * load64 of a zero-filled copy gives, without the copy (a library call per
 * hash): on a little-endian CPU the 8 bytes ending at the end, shifted,
 * when the input (n bytes) has 8; else 4-, 2- and 1-byte loads.
 */
static inline uint64_t load_tail(const unsigned char *q, size_t left, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w = 0;
	size_t k = 0;

	if (n >= 8)
		return load64(q + left - 8) >> (8 * (8 - left));
	if (left >= 4) {
		uint32_t a;

		memcpy(&a, q, 4);
		w = a;
		k = 4;
	}
	if (left - k >= 2) {
		uint16_t b;

		memcpy(&b, q + k, 2);
		w |= (uint64_t)b << (8 * k);
		k += 2;
	}
	if (left > k)
		w |= (uint64_t)q[k] << (8 * k);
	return w;
#else
	unsigned char last[8] = {0};

	(void)n;
	memcpy(last, q, left);
	return load64(last);
#endif
}

static inline uint64_t avalanche(uint64_t h, uint64_t total)
{
	h ^= total * P2;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

void gl_hash_init(struct gl_hash *hs, uint64_t seed)
{
	hs->h = seed ^ P3;
	hs->total = 0;
	hs->nbuf = 0;
}

void gl_hash_update(struct gl_hash *hs, const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = hs->h;

	hs->total += n;
	if (hs->nbuf) {
		while (n && hs->nbuf < 8) {
			hs->buf[hs->nbuf++] = *p++;
			n--;
		}
		if (hs->nbuf < 8) {
			hs->h = h;
			return;
		}
		h = mix(h, load64(hs->buf));
		hs->nbuf = 0;
	}
	for (; n >= 8; n -= 8, p += 8)
		h = mix(h, load64(p));
	memcpy(hs->buf, p, n);
	hs->nbuf = (unsigned)n;
	hs->h = h;
}

uint64_t gl_hash_final(const struct gl_hash *hs)
{
	uint64_t h = hs->h;

	if (hs->nbuf) {
		unsigned char last[8] = {0};

		memcpy(last, hs->buf, hs->nbuf);
		h = mix(h, load64(last));
	}
	return avalanche(h, hs->total);
}

/* The same words and finish as init + update + final, without the carry-over
 * state: one call per line of every file read. */
uint64_t gl_hash64(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *q = p;
	uint64_t h = seed ^ P3;
	size_t left = n;

	for (; left >= 8; left -= 8, q += 8)
		h = mix(h, load64(q));
	if (left)
		h = mix(h, load_tail(q, left, n));
	return avalanche(h, n);
}

void gl_hash64_pair(const void *a, size_t na, const void *b, size_t nb, uint64_t seed,
		    uint64_t *ha, uint64_t *hb)
{
	const unsigned char *p = a, *q = b;
	uint64_t h = seed ^ P3, g = seed ^ P3;
	size_t lp = na, lq = nb;

	for (; lp >= 8 && lq >= 8; lp -= 8, lq -= 8, p += 8, q += 8) {
		h = mix(h, load64(p));
		g = mix(g, load64(q));
	}
	for (; lp >= 8; lp -= 8, p += 8)
		h = mix(h, load64(p));
	for (; lq >= 8; lq -= 8, q += 8)
		g = mix(g, load64(q));
	if (lp)
		h = mix(h, load_tail(p, lp, na));
	if (lq)
		g = mix(g, load_tail(q, lq, nb));
	*ha = avalanche(h, na);
	*hb = avalanche(g, nb);
}

uint64_t gl_hash_chain(uint64_t stream, uint64_t line_hash)
{
	uint64_t h = mix(stream ^ P1, line_hash);

	h ^= h >> 31;
	return h * P2;
}
