/*
 * Tests for lib/record/state.c: the in-memory index of files (by path, by
 * dev/inode) and streams (by id, by head fingerprint), checkpoints, and
 * growth to thousands of entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/state.h"

static struct gl_state st;

static int setup(void **state)
{
	(void)state;
	gl_state_init(&st);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_state_release(&st);
	return 0;
}

static int32_t add_file(int64_t id, const char *path, int64_t dev, int64_t ino)
{
	struct gl_sfile f;
	int32_t i;

	memset(&f, 0, sizeof(f));
	f.id = id;
	f.path = (char *)path;
	f.dev = dev;
	f.ino = ino;
	f.size = 1000 + id;
	snprintf(f.status, sizeof(f.status), "read");
	i = gl_state_add_file(&st, &f);
	assert_true(i >= 0);
	return i;
}

static int32_t add_stream(int64_t id, uint64_t head_bytes, uint64_t head_hash)
{
	struct gl_sstream s;
	int32_t i;

	memset(&s, 0, sizeof(s));
	s.id = id;
	snprintf(s.format, sizeof(s.format), "json");
	s.component = "gpu";
	s.first_path = "/var/log/gpu.log";
	s.head.bytes = head_bytes;
	s.head.hash = head_hash;
	s.pos = s.head;
	i = gl_state_add_stream(&st, &s);
	assert_true(i >= 0);
	return i;
}

/* The indices gl_state_file_by_ino walks through, as a bit set over [0, 64). */
static uint64_t ino_set(int64_t dev, int64_t ino)
{
	uint64_t set = 0;
	int n = 0;

	for (int32_t i = gl_state_file_by_ino(&st, dev, ino, -1); i >= 0;
	     i = gl_state_file_by_ino(&st, dev, ino, i)) {
		assert_true(i < 64);
		assert_false(set & (1ULL << i));	/* each once */
		set |= 1ULL << i;
		assert_true(++n <= 64);
	}
	return set;
}

static uint64_t head_set(uint64_t bytes, uint64_t hash)
{
	uint64_t set = 0;
	int n = 0;

	for (int32_t i = gl_state_stream_by_head(&st, bytes, hash); i >= 0;
	     i = gl_state_next_head(&st, i, bytes, hash)) {
		assert_true(i < 64);
		assert_false(set & (1ULL << i));
		set |= 1ULL << i;
		assert_true(++n <= 64);
	}
	return set;
}

static void test_empty(void **state)
{
	(void)state;
	assert_int_equal(st.next_file_id, 1);
	assert_int_equal(st.next_stream_id, 1);
	assert_int_equal(gl_state_file_by_path(&st, "/a"), -1);
	assert_int_equal(gl_state_file_by_ino(&st, 1, 2, -1), -1);
	assert_int_equal(gl_state_stream_by_id(&st, 1), -1);
	assert_int_equal(gl_state_stream_by_head(&st, 4096, 7), -1);
}

static void test_files_by_path(void **state)
{
	char buf[64];
	int32_t a, b, c;

	(void)state;
	snprintf(buf, sizeof(buf), "/logs/gpu.log");
	a = add_file(1, buf, 2049, 100);
	/* the path was copied: the caller's buffer is its own */
	snprintf(buf, sizeof(buf), "/logs/XXX.log");
	b = add_file(2, "/logs/gpu.log.1", 2049, 101);
	c = add_file(7, NULL, 2049, 102);	/* renamed away earlier */
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log"), a);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log.1"), b);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/XXX.log"), -1);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.lo"), -1);
	assert_int_equal(gl_state_file_by_path(&st, ""), -1);
	assert_null(st.file[c].path);
	assert_string_equal(st.file[a].status, "read");
	assert_int_equal(st.file[b].size, 1002);
	/* ids: the next is one past the highest seen */
	assert_int_equal(st.next_file_id, 8);
	add_file(3, "/logs/x", 1, 1);
	assert_int_equal(st.next_file_id, 8);
}

static void test_files_by_ino(void **state)
{
	int32_t a, b, c, d, e;

	(void)state;
	/* a file and its hard links / renamed copies share one inode */
	a = add_file(1, "/logs/gpu.log", 2049, 500);
	b = add_file(2, "/logs/gpu.log.1", 2049, 501);
	c = add_file(3, "/logs/old/gpu.log", 2049, 500);
	d = add_file(4, "/mnt/gpu.log", 2050, 500);	/* same inode number, other device */
	e = add_file(5, "/logs/gpu.log.bak", 2049, 500);
	assert_true(ino_set(2049, 500) == ((1ULL << a) | (1ULL << c) | (1ULL << e)));
	assert_true(ino_set(2049, 501) == (1ULL << b));
	assert_true(ino_set(2050, 500) == (1ULL << d));
	assert_true(ino_set(2049, 502) == 0);
	assert_true(ino_set(2051, 501) == 0);
}

static void test_set_path(void **state)
{
	int32_t a, b;
	char buf[64];

	(void)state;
	a = add_file(1, "/logs/gpu.log", 2049, 500);
	b = add_file(2, "/logs/server.log", 2049, 501);
	/* gpu.log was rotated to gpu.log.1 */
	snprintf(buf, sizeof(buf), "/logs/gpu.log.1");
	assert_int_equal(gl_state_set_path(&st, a, buf), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log"), -1);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log.1"), a);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/server.log"), b);
	assert_string_equal(st.file[a].path, "/logs/gpu.log.1");
	/* still found by inode */
	assert_true(ino_set(2049, 500) == (1ULL << a));
	/* the old path can be taken by a new file */
	int32_t c = add_file(3, "/logs/gpu.log", 2049, 502);

	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log"), c);
	/* no path at all: removed */
	assert_int_equal(gl_state_set_path(&st, b, NULL), 0);
	assert_null(st.file[b].path);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/server.log"), -1);
	assert_true(ino_set(2049, 501) == (1ULL << b));
	/* and given one back */
	assert_int_equal(gl_state_set_path(&st, b, "/logs/archived/server.log"), 0);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/archived/server.log"), b);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log.1"), a);
	assert_int_equal(gl_state_file_by_path(&st, "/logs/gpu.log"), c);
}

static void test_streams(void **state)
{
	int32_t s1, s2, s3, s4, s5;

	(void)state;
	s1 = add_stream(10, 4096, 0xAAAA);
	s2 = add_stream(11, 4096, 0xBBBB);
	/* two streams whose first 4 KiB are the same lines (the same service restarted) */
	s3 = add_stream(12, 4096, 0xAAAA);
	s4 = add_stream(20, 0, 0);	/* head not known yet */
	s5 = add_stream(13, 5000, 0xAAAA);	/* same hash, other length */
	assert_int_equal(gl_state_stream_by_id(&st, 10), s1);
	assert_int_equal(gl_state_stream_by_id(&st, 11), s2);
	assert_int_equal(gl_state_stream_by_id(&st, 12), s3);
	assert_int_equal(gl_state_stream_by_id(&st, 20), s4);
	assert_int_equal(gl_state_stream_by_id(&st, 13), s5);
	assert_int_equal(gl_state_stream_by_id(&st, 14), -1);
	assert_int_equal(gl_state_stream_by_id(&st, 0), -1);
	assert_int_equal(st.next_stream_id, 21);
	assert_true(head_set(4096, 0xAAAA) == ((1ULL << s1) | (1ULL << s3)));
	assert_true(head_set(4096, 0xBBBB) == (1ULL << s2));
	assert_true(head_set(5000, 0xAAAA) == (1ULL << s5));
	assert_true(head_set(4096, 0xCCCC) == 0);
	/* a stream without head is not found by an empty head */
	assert_true(head_set(0, 0) == 0);
	/* strings were copied */
	assert_string_equal(st.stream[s1].component, "gpu");
	assert_string_equal(st.stream[s1].first_path, "/var/log/gpu.log");
	assert_ptr_not_equal(st.stream[s1].component, st.stream[s2].component);
	assert_null(st.stream[s1].cp);
	assert_int_equal(st.stream[s1].ncp, 0);
}

static void test_set_head(void **state)
{
	int32_t s1, s2, s3;

	(void)state;
	s1 = add_stream(1, 4096, 0x1111);
	s2 = add_stream(2, 0, 0);
	s3 = add_stream(3, 0, 0);
	/* the first lines of stream 2 are now known: the same as stream 1's */
	gl_state_set_head(&st, s2, (struct gl_pos){4096, 40, 0x1111});
	assert_true(head_set(4096, 0x1111) == ((1ULL << s1) | (1ULL << s2)));
	assert_int_equal(st.stream[s2].head.lines, 40);
	gl_state_set_head(&st, s3, (struct gl_pos){812, 9, 0x3333});
	assert_true(head_set(812, 0x3333) == (1ULL << s3));
	/* a head that changes (a short stream grew past 4 KiB) moves in the index */
	gl_state_set_head(&st, s3, (struct gl_pos){4100, 45, 0x4444});
	assert_true(head_set(812, 0x3333) == 0);
	assert_true(head_set(4100, 0x4444) == (1ULL << s3));
	assert_true(head_set(4096, 0x1111) == ((1ULL << s1) | (1ULL << s2)));
	/* ids still work after the re-index */
	assert_int_equal(gl_state_stream_by_id(&st, 1), s1);
	assert_int_equal(gl_state_stream_by_id(&st, 2), s2);
	assert_int_equal(gl_state_stream_by_id(&st, 3), s3);
}

static void assert_cps(int32_t si, const uint64_t *bytes, const uint64_t *hash, size_t n)
{
	const struct gl_sstream *s = &st.stream[si];

	assert_int_equal(s->ncp, n);
	for (size_t i = 0; i < n; i++) {
		if (s->cp[i].bytes != bytes[i] || s->cp[i].hash != hash[i])
			fail_msg("checkpoint %zu: (%llu, %llx), want (%llu, %llx)", i,
				 (unsigned long long)s->cp[i].bytes, (unsigned long long)s->cp[i].hash,
				 (unsigned long long)bytes[i], (unsigned long long)hash[i]);
	}
}

static void test_checkpoints(void **state)
{
	int32_t si;

	(void)state;
	si = add_stream(1, 4096, 1);
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){100, 1, 0xa}), 0);
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){300, 3, 0xc}), 0);
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){200, 2, 0xb}), 0);
	{
		const uint64_t b[] = {100, 200, 300}, h[] = {0xa, 0xb, 0xc};

		assert_cps(si, b, h, 3);
	}
	/* the same bytes again (the last one): replaced, not added */
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){300, 3, 0xcc}), 0);
	{
		const uint64_t b[] = {100, 200, 300}, h[] = {0xa, 0xb, 0xcc};

		assert_cps(si, b, h, 3);
	}
	/* the same bytes as one in the middle or at the start: replaced too */
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){200, 2, 0xbb}), 0);
	assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){100, 1, 0xaa}), 0);
	{
		const uint64_t b[] = {100, 200, 300}, h[] = {0xaa, 0xbb, 0xcc};

		assert_cps(si, b, h, 3);
	}
	assert_int_equal(st.stream[si].cp[1].lines, 2);
}

static void test_checkpoints_many(void **state)
{
	enum { N = 1000 };
	uint64_t order[N];
	int32_t si, other;

	(void)state;
	si = add_stream(1, 4096, 1);
	other = add_stream(2, 4096, 2);
	for (int i = 0; i < N; i++)
		order[i] = (uint64_t)(i + 1) << 20;
	/* a fixed shuffle */
	uint64_t x = 12345;

	for (int i = N - 1; i > 0; i--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int j = (int)((x >> 33) % (uint64_t)(i + 1));
		uint64_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < N; i++)
		assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){order[i], order[i] >> 10,
										     order[i] ^ 0x55}), 0);
	/* half of them again, with new hashes */
	for (int i = 0; i < N; i += 2)
		assert_int_equal(gl_state_add_checkpoint(&st, si, (struct gl_pos){order[i], order[i] >> 10,
										     order[i] ^ 0x77}), 0);
	assert_int_equal(st.stream[si].ncp, N);
	for (int i = 0; i < N; i++) {
		uint64_t want = (uint64_t)(i + 1) << 20;

		assert_true(st.stream[si].cp[i].bytes == want);
		assert_true(st.stream[si].cp[i].lines == want >> 10);
		assert_true((st.stream[si].cp[i].hash ^ want) == 0x55 ||
			    (st.stream[si].cp[i].hash ^ want) == 0x77);
	}
	for (int i = 0; i < N; i += 2) {
		int64_t k = (int64_t)(order[i] >> 20) - 1;

		assert_true(st.stream[si].cp[k].hash == (order[i] ^ 0x77));
	}
	/* checkpoints belong to their stream */
	assert_int_equal(st.stream[other].ncp, 0);
}

/* 10 000 files and streams: every table grows and rehashes many times. */
static void test_growth(void **state)
{
	enum { N = 10000 };
	char path[64];

	(void)state;
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/logs/host%02d/gpu_%05d.log", i % 37, i);
		/* three files per inode */
		assert_int_equal(add_file(i + 1, path, 2049, i / 3), i);
		/* ids spread out; 100 streams share each head */
		assert_int_equal(add_stream((int64_t)i * 7 + 3, 4096, (uint64_t)(i % 100) + 1), i);
	}
	assert_int_equal(st.nfile, N);
	assert_int_equal(st.nstream, N);
	assert_int_equal(st.next_file_id, N + 1);
	assert_int_equal(st.next_stream_id, (int64_t)(N - 1) * 7 + 4);
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/logs/host%02d/gpu_%05d.log", i % 37, i);
		assert_int_equal(gl_state_file_by_path(&st, path), i);
		assert_int_equal(gl_state_stream_by_id(&st, (int64_t)i * 7 + 3), i);
		assert_int_equal(gl_state_stream_by_id(&st, (int64_t)i * 7 + 4), -1);
	}
	/* each inode: exactly its three files */
	for (int ino = 0; ino < N / 3; ino++) {
		int seen = 0;

		for (int32_t i = gl_state_file_by_ino(&st, 2049, ino, -1); i >= 0;
		     i = gl_state_file_by_ino(&st, 2049, ino, i)) {
			assert_int_equal(i / 3, ino);
			seen |= 1 << (i % 3);
		}
		assert_int_equal(seen, 7);
	}
	/* each head: exactly its 100 streams */
	for (uint64_t h = 1; h <= 100; h++) {
		int n = 0;

		for (int32_t i = gl_state_stream_by_head(&st, 4096, h); i >= 0;
		     i = gl_state_next_head(&st, i, 4096, h)) {
			assert_true((uint64_t)(i % 100) + 1 == h);
			n++;
		}
		assert_int_equal(n, 100);
	}
	/* moving files around in a big table */
	for (int i = 0; i < N; i += 97) {
		char np[64];

		snprintf(path, sizeof(path), "/logs/host%02d/gpu_%05d.log", i % 37, i);
		snprintf(np, sizeof(np), "/archive/gpu_%05d.log.gz", i);
		assert_int_equal(gl_state_set_path(&st, i, np), 0);
		assert_int_equal(gl_state_file_by_path(&st, path), -1);
		assert_int_equal(gl_state_file_by_path(&st, np), i);
	}
	snprintf(path, sizeof(path), "/logs/host%02d/gpu_%05d.log", 1 % 37, 1);
	assert_int_equal(gl_state_file_by_path(&st, path), 1);
	/* a head set late in a big table */
	int32_t late = add_stream(999999, 0, 0);

	gl_state_set_head(&st, late, (struct gl_pos){4096, 50, 1000});
	assert_int_equal(gl_state_stream_by_head(&st, 4096, 1000), late);
	assert_int_equal(gl_state_next_head(&st, late, 4096, 1000), -1);
}

static void test_release_and_reuse(void **state)
{
	(void)state;
	add_file(5, "/a", 1, 1);
	add_stream(5, 4096, 1);
	gl_state_add_checkpoint(&st, 0, (struct gl_pos){1, 1, 1});
	gl_state_release(&st);
	assert_int_equal(st.nfile, 0);
	assert_int_equal(st.nstream, 0);
	assert_int_equal(st.next_file_id, 1);
	assert_int_equal(st.next_stream_id, 1);
	assert_int_equal(gl_state_file_by_path(&st, "/a"), -1);
	assert_int_equal(gl_state_stream_by_id(&st, 5), -1);
	assert_int_equal(add_file(1, "/a", 1, 1), 0);
	assert_int_equal(gl_state_file_by_path(&st, "/a"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_by_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_by_ino, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_and_reuse, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
