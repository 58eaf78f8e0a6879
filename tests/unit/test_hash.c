/*
 * Tests for lib/util/hash.c: the streaming hash gives the one-shot result
 * for every way of cutting the input, matches an independent whole-buffer
 * reference, depends on seed and length, and tells near-identical lines
 * apart; the chain is order-sensitive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hash.h"

/* xorshift64*: a fixed, reproducible sequence for random inputs and splits. */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

/*
 * The documented construction, written as one pass over a zero-padded copy
 * of the whole buffer (no carry-over state): little-endian 8-byte words
 * mixed by multiply-rotate, then the length and an avalanche.
 */
#define P1 0x9E3779B97F4A7C15ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t ref_hash(const unsigned char *p, size_t n, uint64_t seed)
{
	size_t words = (n + 7) / 8;
	unsigned char *pad = calloc(words * 8 + 1, 1);
	uint64_t h = seed ^ P3;

	assert_non_null(pad);
	if (n)
		memcpy(pad, p, n);
	for (size_t i = 0; i < words; i++) {
		uint64_t w = 0;

		for (int k = 7; k >= 0; k--)
			w = (w << 8) | pad[i * 8 + (size_t)k];
		h ^= rotl(w * P2, 31) * P1;
		h = rotl(h, 27) * P1 + P3;
	}
	free(pad);
	h ^= (uint64_t)n * P2;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

static int is_little_endian(void)
{
	uint32_t one = 1;
	unsigned char c;

	memcpy(&c, &one, 1);
	return c == 1;
}

static void test_matches_reference(void **state)
{
	unsigned char buf[300];

	(void)state;
	if (!is_little_endian())
		skip();
	fill(buf, sizeof(buf));
	for (size_t n = 0; n <= sizeof(buf); n++)
		for (uint64_t seed = 0; seed < 3; seed++)
			assert_true(gl_hash64(buf, n, seed) == ref_hash(buf, n, seed));
}

/* The pair gives each input's one-shot hash: every pair of lengths 0..40,
 * then random lengths up to 3000, at every alignment of 0..7. */
static void test_pair_matches_one_shot(void **state)
{
	unsigned char buf[6100];

	(void)state;
	fill(buf, sizeof(buf));
	for (size_t na = 0; na <= 40; na++)
		for (size_t nb = 0; nb <= 40; nb++) {
			uint64_t ha, hb;

			gl_hash64_pair(buf + 1, na, buf + 3000 + (na % 8), nb, 0, &ha, &hb);
			assert_true(ha == gl_hash64(buf + 1, na, 0));
			assert_true(hb == gl_hash64(buf + 3000 + (na % 8), nb, 0));
			if (is_little_endian())
				assert_true(ha == ref_hash(buf + 1, na, 0));
		}
	for (int i = 0; i < 2000; i++) {
		size_t na = rnd() % 3000, nb = rnd() % 3000, oa = rnd() % 8, ob = 3008 + rnd() % 8;
		uint64_t seed = rnd(), ha, hb;

		gl_hash64_pair(buf + oa, na, buf + ob, nb, seed, &ha, &hb);
		assert_true(ha == gl_hash64(buf + oa, na, seed));
		assert_true(hb == gl_hash64(buf + ob, nb, seed));
	}
}

/* Every split into two parts and into three parts, lengths 0..64. */
static void test_every_split_small(void **state)
{
	unsigned char buf[64];

	(void)state;
	fill(buf, sizeof(buf));
	for (size_t n = 0; n <= sizeof(buf); n++) {
		uint64_t want = gl_hash64(buf, n, 42);

		for (size_t i = 0; i <= n; i++) {
			for (size_t j = i; j <= n; j++) {
				struct gl_hash hs;

				gl_hash_init(&hs, 42);
				gl_hash_update(&hs, buf, i);
				gl_hash_update(&hs, buf + i, j - i);
				gl_hash_update(&hs, buf + j, n - j);
				assert_true(gl_hash_final(&hs) == want);
			}
		}
	}
}

static void test_byte_by_byte(void **state)
{
	unsigned char buf[257];
	struct gl_hash hs;

	(void)state;
	fill(buf, sizeof(buf));
	gl_hash_init(&hs, 7);
	for (size_t i = 0; i < sizeof(buf); i++) {
		gl_hash_update(&hs, buf + i, 1);
		/* final does not disturb the running state */
		assert_true(gl_hash_final(&hs) == gl_hash64(buf, i + 1, 7));
	}
	assert_true(gl_hash_final(&hs) == gl_hash_final(&hs));
}

static void test_random_splits_large(void **state)
{
	size_t n = 1 << 20;
	unsigned char *buf = malloc(n);

	(void)state;
	assert_non_null(buf);
	fill(buf, n);
	for (int trial = 0; trial < 40; trial++) {
		size_t len = n - (size_t)(rnd() % 4096);
		uint64_t want = gl_hash64(buf, len, (uint64_t)trial);
		struct gl_hash hs;
		size_t off = 0;
		/* small pieces, big pieces, and empty ones */
		size_t maxpiece = trial % 2 ? 17 : 70000;

		gl_hash_init(&hs, (uint64_t)trial);
		while (off < len) {
			size_t k = (size_t)(rnd() % (maxpiece + 1));

			if (k > len - off)
				k = len - off;
			gl_hash_update(&hs, buf + off, k);
			off += k;
		}
		assert_true(gl_hash_final(&hs) == want);
	}
	free(buf);
}

static void test_seed_changes_result(void **state)
{
	const char *inputs[] = {"", "a", "gpu.log", "{\"level\": \"INFO\"}",
				"exactly8", "a line that is longer than sixteen bytes"};

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		size_t len = strlen(inputs[i]);
		uint64_t h0 = gl_hash64(inputs[i], len, 0);

		assert_true(h0 == gl_hash64(inputs[i], len, 0));
		for (uint64_t seed = 1; seed < 64; seed++)
			assert_true(gl_hash64(inputs[i], len, seed) != h0);
		assert_true(gl_hash64(inputs[i], len, UINT64_MAX) != h0);
	}
}

/* Trailing zero bytes pad the last word, so only the length tells these apart. */
static void test_length_matters(void **state)
{
	static const unsigned char z[16];
	uint64_t h[17];

	(void)state;
	for (size_t n = 0; n <= 16; n++) {
		h[n] = gl_hash64(z, n, 0);
		for (size_t k = 0; k < n; k++)
			assert_true(h[k] != h[n]);
	}
	assert_true(gl_hash64("a", 1, 0) != gl_hash64("a\0", 2, 0));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void assert_all_distinct(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1] != v[i]);
}

/* 10 000 log lines that differ only in one digit position group. */
static void test_near_identical_lines(void **state)
{
	enum { N = 10000 };
	uint64_t *h = malloc(N * sizeof(*h)), *c = malloc(N * sizeof(*c));
	char line[256];
	uint64_t chain = 0;

	(void)state;
	assert_non_null(h);
	assert_non_null(c);
	for (int i = 0; i < N; i++) {
		int len = snprintf(line, sizeof(line),
				   "{\"timestamp\": \"2025-11-14T00:03:14.1%05dZ\", \"level\": \"INFO\", "
				   "\"message\": \"Kernel force_pass_kernel executed in 620.16us\"}",
				   i);

		h[i] = gl_hash64(line, (size_t)len, 0);
		chain = gl_hash_chain(chain, h[i]);
		c[i] = chain;
	}
	assert_all_distinct(h, N);
	/* every prefix of the stream has its own fingerprint */
	assert_all_distinct(c, N);
	free(h);
	free(c);
}

/* Flipping any one bit of a line changes its hash, and no two flips collide. */
static void test_single_bit_flips(void **state)
{
	char line[] = "[2025-11-15T00:23:44.144Z DEBUG webxr::render::gpu] shade_tiles 1.664ms";
	size_t len = strlen(line), n = 0;
	uint64_t *h = malloc((len * 8 + 1) * sizeof(*h));

	(void)state;
	assert_non_null(h);
	h[n++] = gl_hash64(line, len, 0);
	for (size_t i = 0; i < len; i++) {
		for (int b = 0; b < 8; b++) {
			line[i] ^= (char)(1 << b);
			h[n++] = gl_hash64(line, len, 0);
			line[i] ^= (char)(1 << b);
		}
	}
	assert_all_distinct(h, n);
	free(h);
}

static void test_chain(void **state)
{
	uint64_t a = gl_hash64("line one", 8, 0), b = gl_hash64("line two", 8, 0);
	uint64_t ab = gl_hash_chain(gl_hash_chain(0, a), b);
	uint64_t ba = gl_hash_chain(gl_hash_chain(0, b), a);

	(void)state;
	assert_true(ab != ba);
	assert_true(ab == gl_hash_chain(gl_hash_chain(0, a), b));
	/* both arguments matter */
	assert_true(gl_hash_chain(0, a) != gl_hash_chain(1, a));
	assert_true(gl_hash_chain(0, a) != gl_hash_chain(0, b));
	/* a repeated line still moves the fingerprint */
	assert_true(gl_hash_chain(gl_hash_chain(0, a), a) != gl_hash_chain(0, a));
	/* an empty line is a line */
	assert_true(gl_hash_chain(0, gl_hash64("", 0, 0)) != 0);
	assert_true(gl_hash_chain(gl_hash_chain(0, a), gl_hash64("", 0, 0)) != gl_hash_chain(0, a));
}

/* Lines joined differently give different stream fingerprints even when the bytes agree. */
static void test_chain_line_boundaries(void **state)
{
	uint64_t one = gl_hash_chain(0, gl_hash64("abcdef", 6, 0));
	uint64_t two = gl_hash_chain(gl_hash_chain(0, gl_hash64("abc", 3, 0)),
				     gl_hash64("def", 3, 0));

	(void)state;
	assert_true(one != two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_reference),
		cmocka_unit_test(test_pair_matches_one_shot),
		cmocka_unit_test(test_every_split_small),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_random_splits_large),
		cmocka_unit_test(test_seed_changes_result),
		cmocka_unit_test(test_length_matters),
		cmocka_unit_test(test_near_identical_lines),
		cmocka_unit_test(test_single_bit_flips),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_chain_line_boundaries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
