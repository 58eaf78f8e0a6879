/*
 * Tests for lib/ingest/batch.c: fixed capacities, when a batch is full,
 * copying strings into the arena (and refusing when it is full), reset.
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

#include "ingest/batch.h"

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
	assert_true(malloc_usable_size(b->arena) >= GL_BATCH_ARENA);
	assert_true(malloc_usable_size(b->ev) >= GL_BATCH_ROWS * sizeof(*b->ev));
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
		cmocka_unit_test_setup_teardown(test_str_refuses_when_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
