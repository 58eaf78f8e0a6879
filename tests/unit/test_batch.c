/*
 * Tests for lib/record/batch.c: fixed capacities, when a batch is full,
 * copying strings into the arena (and refusing when it is full), reset;
 * names copied once per batch (gl_batch_name).
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/batch.h"

static struct gl_batch *b;

static int setup(void **state)
{
	(void)state;
	b = gl_batch_new();
	return b ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	gl_batch_free(b);
	b = NULL;
	return 0;
}

static void test_new_is_empty(void **state)
{
	(void)state;
	assert_int_equal(b->used, 0);
	assert_int_equal(b->nev + b->nmem + b->nrej + b->nop + b->nnotice, 0);
	assert_int_equal(b->lines_read + b->files_done + b->files_failed, 0);
	assert_int_equal(b->last, 0);
	assert_int_equal(gl_batch_room(b), 6u * 1024 * 1024);
	assert_false(gl_batch_full(b));
	gl_batch_free(NULL);
}

/* Each array really holds its capacity: the last slot is writable. */
static void test_capacities(void **state)
{
	(void)state;
	/* (the arena and the events are mappings of their own, bigmem.h:
	 * writing their last bytes is the check) */
	assert_true(malloc_usable_size(b->mem) >= GL_BATCH_ROWS * sizeof(*b->mem));
	assert_true(malloc_usable_size(b->rej) >= GL_BATCH_REJECTS * sizeof(*b->rej));
	assert_true(malloc_usable_size(b->op) >= GL_BATCH_OPS * sizeof(*b->op));
	assert_true(malloc_usable_size(b->notice) >= GL_BATCH_NOTICES * sizeof(*b->notice));
	b->arena[GL_BATCH_ARENA - 1] = 'x';
	memset(&b->ev[GL_BATCH_ROWS - 1], 0, sizeof(*b->ev));
	memset(&b->mem[GL_BATCH_ROWS - 1], 0, sizeof(*b->mem));
	memset(&b->rej[GL_BATCH_REJECTS - 1], 0, sizeof(*b->rej));
	memset(&b->op[GL_BATCH_OPS - 1], 0, sizeof(*b->op));
	memset(&b->notice[GL_BATCH_NOTICES - 1], 0, sizeof(*b->notice));
}

static void test_full(void **state)
{
	(void)state;
	/* rows: events and memory events share GL_BATCH_ROWS */
	b->nev = GL_BATCH_ROWS - 1;
	assert_false(gl_batch_full(b));
	b->nev = GL_BATCH_ROWS;
	assert_true(gl_batch_full(b));
	b->nev = GL_BATCH_ROWS / 2;
	b->nmem = GL_BATCH_ROWS / 2 - 1;
	assert_false(gl_batch_full(b));
	b->nmem++;
	assert_true(gl_batch_full(b));
	b->nev = 0;
	b->nmem = GL_BATCH_ROWS;
	assert_true(gl_batch_full(b));
	b->nmem = 0;

	b->nrej = GL_BATCH_REJECTS - 1;
	assert_false(gl_batch_full(b));
	b->nrej = GL_BATCH_REJECTS;
	assert_true(gl_batch_full(b));
	b->nrej = 0;

	/* ops keep 8 slots spare for the state changes that end a file */
	b->nop = GL_BATCH_OPS - 9;
	assert_false(gl_batch_full(b));
	b->nop = GL_BATCH_OPS - 8;
	assert_true(gl_batch_full(b));
	b->nop = 0;

	b->nnotice = GL_BATCH_NOTICES - 1;
	assert_false(gl_batch_full(b));
	b->nnotice = GL_BATCH_NOTICES;
	assert_true(gl_batch_full(b));
	b->nnotice = 0;
	assert_false(gl_batch_full(b));
}

static void test_str_copies(void **state)
{
	char src[] = "Kernel force_pass_kernel executed in 620.16us";
	struct gl_str in = {src, strlen(src)}, a, c, e, absent;
	size_t room = gl_batch_room(b);

	(void)state;
	a = gl_batch_str(b, in);
	assert_non_null(a.p);
	assert_int_equal(a.len, in.len);
	assert_true(a.p != src);
	assert_true(a.p >= b->arena && a.p + a.len <= b->arena + GL_BATCH_ARENA);
	assert_memory_equal(a.p, src, in.len);
	assert_int_equal(gl_batch_room(b), room - in.len);
	/* the copy does not follow the source */
	memset(src, '#', in.len);
	assert_memory_equal(a.p, "Kernel force_pass_kernel", 24);

	/* a part of a line; copies are packed one after another */
	struct gl_str part = {"abcdef" + 2, 3};

	c = gl_batch_str(b, part);
	assert_ptr_equal(c.p, a.p + a.len);
	assert_int_equal(c.len, 3);
	assert_memory_equal(c.p, "cde", 3);

	/* an empty string stays present, unlike an absent one */
	e = gl_batch_str(b, (struct gl_str){"", 0});
	assert_non_null(e.p);
	assert_int_equal(e.len, 0);
	absent = gl_batch_str(b, (struct gl_str){NULL, 0});
	assert_null(absent.p);
	assert_int_equal(absent.len, 0);
	absent = gl_batch_str(b, (struct gl_str){NULL, 5});
	assert_null(absent.p);
	assert_int_equal(absent.len, 0);
	assert_int_equal(gl_batch_room(b), room - in.len - 3);
}

/*
 * gl_batch_name: the same bytes give the same copy within a batch, other
 * bytes their own; names that share a slot (here 200 names, more than the
 * 64 slots) are still right, whatever is shared; a reset forgets them.
 */
static void test_name_shared(void **state)
{
	char line1[] = "{\"component\": \"gpu\"}", line2[] = "{\"component\": \"gpu\"}";
	struct gl_str a, c, d, e, k[200], k2[200];
	char name[64];

	(void)state;
	/* two lines' "gpu": one copy, not either line's bytes */
	a = gl_batch_name(b, (struct gl_str){line1 + 15, 3});
	c = gl_batch_name(b, (struct gl_str){line2 + 15, 3});
	assert_ptr_equal(a.p, c.p);
	assert_int_equal(c.len, 3);
	assert_memory_equal(c.p, "gpu", 3);
	assert_true(a.p >= b->arena && a.p < b->arena + GL_BATCH_ARENA);
	/* a prefix of it is another name */
	d = gl_batch_name(b, (struct gl_str){"gp", 2});
	assert_int_equal(d.len, 2);
	assert_memory_equal(d.p, "gp", 2);
	/* names of one length that differ only in their middle */
	e = gl_batch_name(b, (struct gl_str){"gpu.memory_used_mib", 19});
	c = gl_batch_name(b, (struct gl_str){"gpu.memory_peak_mib", 19});
	assert_memory_equal(e.p, "gpu.memory_used_mib", 19);
	assert_memory_equal(c.p, "gpu.memory_peak_mib", 19);
	assert_ptr_equal(gl_batch_name(b, (struct gl_str){"gpu.memory_used_mib", 19}).p, e.p);
	/* many names, then all again: each copy holds its own bytes */
	for (int i = 0; i < 200; i++) {
		int n = snprintf(name, sizeof(name), "kernel_%d_fwd", i * 7919);

		k[i] = gl_batch_name(b, (struct gl_str){name, (size_t)n});
	}
	for (int i = 0; i < 200; i++) {
		int n = snprintf(name, sizeof(name), "kernel_%d_fwd", i * 7919);

		k2[i] = gl_batch_name(b, (struct gl_str){name, (size_t)n});
		assert_int_equal(k[i].len, (size_t)n);
		assert_memory_equal(k[i].p, name, (size_t)n);
		assert_int_equal(k2[i].len, (size_t)n);
		assert_memory_equal(k2[i].p, name, (size_t)n);
	}
	/* absent stays absent; empty stays present; a long one is copied */
	assert_null(gl_batch_name(b, (struct gl_str){NULL, 0}).p);
	assert_non_null(gl_batch_name(b, (struct gl_str){"", 0}).p);
	char big[GL_BATCH_NAME_MAX + 10];

	memset(big, 'x', sizeof(big));
	a = gl_batch_name(b, (struct gl_str){big, sizeof(big)});
	c = gl_batch_name(b, (struct gl_str){big, sizeof(big)});
	assert_int_equal(a.len, sizeof(big));
	assert_memory_equal(a.p, big, sizeof(big));
	assert_true(a.p != c.p);	/* not kept: copied each time */
	/* after a reset the arena is reused: the name is copied again */
	gl_batch_reset(b);
	memset(b->arena, '#', 64);
	a = gl_batch_name(b, (struct gl_str){"gpu", 3});
	assert_memory_equal(a.p, "gpu", 3);
	assert_int_equal(gl_batch_room(b), GL_BATCH_ARENA - 3);
}

static void test_str_refuses_when_full(void **state)
{
	size_t chunk = 1 << 20;
	char *big = malloc(chunk);
	struct gl_str s, out;
	size_t copies = 0;

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < chunk; i++)
		big[i] = (char)('a' + i % 26);
	s.p = big;
	s.len = chunk;
	while (gl_batch_room(b) >= chunk) {
		out = gl_batch_str(b, s);
		assert_non_null(out.p);
		assert_memory_equal(out.p, big, chunk);
		copies++;
	}
	/* 6 MiB of arena holds six 1 MiB strings exactly */
	assert_int_equal(copies, GL_BATCH_ARENA / chunk);
	assert_int_equal(gl_batch_room(b), 0);
	s.len = 1;
	out = gl_batch_str(b, s);
	assert_null(out.p);
	assert_int_equal(out.len, 0);
	assert_int_equal(b->used, GL_BATCH_ARENA);

	/* exact fit succeeds, one byte more is refused and changes nothing */
	gl_batch_reset(b);
	b->used = GL_BATCH_ARENA - 10;
	s.len = 11;
	out = gl_batch_str(b, s);
	assert_null(out.p);
	assert_int_equal(gl_batch_room(b), 10);
	s.len = 10;
	out = gl_batch_str(b, s);
	assert_ptr_equal(out.p, b->arena + GL_BATCH_ARENA - 10);
	assert_memory_equal(out.p, big, 10);
	assert_int_equal(gl_batch_room(b), 0);
	free(big);
}

static void test_reset(void **state)
{
	char *arena, *ev;

	(void)state;
	arena = b->arena;
	ev = (char *)b->ev;
	gl_batch_str(b, (struct gl_str){"hello", 5});
	b->nev = 3;
	b->nmem = 4;
	b->nrej = 5;
	b->nop = 6;
	b->nnotice = 7;
	b->lines_read = b->lines_continued = b->bytes_uncompressed = b->bytes_raw = 9;
	b->files_done = b->files_new = b->files_unchanged = b->files_rotated = 9;
	b->files_grown = b->files_skipped = b->files_failed = b->files_damaged = 9;
	b->last = 1;
	gl_batch_reset(b);
	assert_int_equal(b->used, 0);
	assert_int_equal(gl_batch_room(b), GL_BATCH_ARENA);
	assert_int_equal(b->nev + b->nmem + b->nrej + b->nop + b->nnotice, 0);
	assert_int_equal(b->lines_read + b->lines_continued + b->bytes_uncompressed + b->bytes_raw, 0);
	assert_int_equal(b->files_done + b->files_new + b->files_unchanged + b->files_rotated, 0);
	assert_int_equal(b->files_grown + b->files_skipped + b->files_failed + b->files_damaged, 0);
	assert_int_equal(b->last, 0);
	assert_false(gl_batch_full(b));
	/* the memory is reused, not reallocated */
	assert_ptr_equal(b->arena, arena);
	assert_ptr_equal((char *)b->ev, ev);
	/* the arena starts over */
	struct gl_str s = gl_batch_str(b, (struct gl_str){"x", 1});

	assert_ptr_equal(s.p, arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capacities, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_str_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_str_refuses_when_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
