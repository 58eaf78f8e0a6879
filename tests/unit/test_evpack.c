/*
 * test_evpack.c - lib/store/evpack.c: a packing reads back as the fields it
 * was made of, bit for bit, over the extremes of every field; its size is
 * what the format says (counted here by hand); a BLOB that is not a whole
 * packing of this version (cut short, longer, another version, unknown
 * flags, a level out of range, a NAN where a double is, an overlong
 * varint) is refused, so the report reads that row's columns instead.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpulog.h"
#include "store/evpack.h"

static struct gl_evpack base(void)
{
	return (struct gl_evpack){.level = GL_LEVEL_INFO,
				  .dur_us = NAN,
				  .mem_mb = NAN,
				  .exec_ms = NAN,
				  .recovery_attempts = -1,
				  .error_count = -1,
				  .stream_id = 1,
				  .op_ms = NAN,
				  .op_throughput = NAN};
}

static bool same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0 || (isnan(a) && isnan(b));
}

static void expect_same(const struct gl_evpack *a, const struct gl_evpack *b)
{
	assert_int_equal(a->level, b->level);
	assert_int_equal(a->warn, b->warn);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->has_kernel, b->has_kernel);
	assert_int_equal(a->component_id, b->component_id);
	assert_int_equal(a->host_id, b->host_id);
	assert_int_equal(a->kernel_id, b->kernel_id);
	assert_true(same_double(a->dur_us, b->dur_us));
	assert_true(same_double(a->mem_mb, b->mem_mb));
	assert_true(same_double(a->exec_ms, b->exec_ms));
	assert_int_equal(a->anomaly, b->anomaly);
	assert_int_equal(a->recovery_attempts, b->recovery_attempts);
	assert_int_equal(a->error_count, b->error_count);
	assert_int_equal(a->stream_id, b->stream_id);
	assert_int_equal(a->is_op, b->is_op);
	assert_true(same_double(a->op_ms, b->op_ms));
	assert_true(same_double(a->op_throughput, b->op_throughput));
	assert_int_equal(a->op_name_id, b->op_name_id);
}

/* Varint bytes of a zigzag value, counted the plain way. */
static size_t varint_len(int64_t v)
{
	uint64_t u = v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
	size_t n = 1;

	while (u >= 128) {
		u /= 128;
		n++;
	}
	return n;
}

static void test_round_trip(void **state)
{
	(void)state;
	struct gl_evpack in[12];
	unsigned char buf[GL_EVPACK_MAX];
	size_t k = 0;

	in[k++] = base();	/* every optional field absent */
	in[k] = base();		/* every field present, small */
	in[k].warn = in[k].op = in[k].has_kernel = true;
	in[k].level = GL_LEVEL_CRITICAL;
	in[k].component_id = 1, in[k].host_id = 2, in[k].kernel_id = 3;
	in[k].dur_us = 620.16, in[k].mem_mb = 2520.5, in[k].exec_ms = 0.62016;
	in[k].anomaly = 1, in[k].recovery_attempts = 0, in[k].error_count = 0;
	k++;
	in[k] = in[k - 1];	/* the extremes */
	in[k].component_id = INT64_MAX, in[k].host_id = INT64_MIN, in[k].kernel_id = -1;
	in[k].anomaly = INT32_MIN, in[k].recovery_attempts = INT64_MAX;
	in[k].error_count = INT64_MAX - 1, in[k].stream_id = INT64_MIN;
	in[k].dur_us = -0.0, in[k].mem_mb = INFINITY, in[k].exec_ms = -INFINITY;
	k++;
	in[k] = in[k - 1];
	in[k].anomaly = INT32_MAX, in[k].dur_us = 4.9e-324, in[k].mem_mb = -1.7976931348623157e308;
	in[k].exec_ms = 0x1.fffffffffffffp-1, in[k].level = GL_LEVEL_NONE, in[k].stream_id = 0;
	in[k].has_kernel = true, in[k].kernel_id = 0;	/* a kernel_id of 0 that is not NULL */
	k++;
	in[k] = base();	/* an operation timing (schema 10): its ms alone */
	in[k].exec_ms = 2.5, in[k].is_op = true, in[k].op_ms = 2.5;
	k++;
	in[k] = in[k - 1];	/* ...with its throughput and its name */
	in[k].op_throughput = 412.5, in[k].op_name_id = 300;
	k++;
	for (size_t i = 0; i < k; i++) {
		struct gl_evpack out;
		size_t n = gl_evpack_encode(&in[i], buf);
		size_t want = 4 + varint_len(in[i].stream_id);

		want += in[i].component_id ? varint_len(in[i].component_id) : 0;
		want += in[i].host_id ? varint_len(in[i].host_id) : 0;
		want += in[i].kernel_id ? varint_len(in[i].kernel_id) : 0;
		want += in[i].anomaly ? varint_len(in[i].anomaly) : 0;
		want += in[i].recovery_attempts != -1 ? varint_len(in[i].recovery_attempts) : 0;
		want += in[i].error_count != -1 ? varint_len(in[i].error_count) : 0;
		want += 8 * (!isnan(in[i].dur_us) + !isnan(in[i].mem_mb) + !isnan(in[i].exec_ms));
		want += in[i].is_op ? 8 + (isnan(in[i].op_throughput) ? 0 : 8) : 0;
		want += in[i].op_name_id ? varint_len(in[i].op_name_id) : 0;
		assert_int_equal(n, want);
		assert_true(n <= GL_EVPACK_MAX);
		assert_int_equal(buf[0], GL_EVPACK_VERSION);
		memset(&out, 0x5a, sizeof(out));
		assert_true(gl_evpack_decode(buf, n, &out));
		expect_same(&in[i], &out);
	}
	/* the smallest packing: version, flags, level, stream 1 (zigzag 2) */
	assert_int_equal(gl_evpack_encode(&in[0], buf), 5);
	assert_memory_equal(buf, "\x01\x00\x00\x03\x02", 5);
	/* an operation's ms after exec_ms, flagged 0x1000; name 300: zigzag 600 = 0xd8 0x04 */
	assert_int_equal(gl_evpack_encode(&in[5], buf), 5 + 8 + 8 + 8 + 2);
	assert_int_equal(buf[1], 0x00);
	assert_int_equal(buf[2], (0x0800 | 0x1000 | 0x2000 | 0x4000) >> 8);
	assert_memory_equal(buf + 29, "\xd8\x04", 2);
	/* a throughput or a name without the operation: not a packing */
	buf[2] = 0x08 | 0x20;
	assert_false(gl_evpack_decode(buf, 21, &(struct gl_evpack){0}));
}

static void test_refuses(void **state)
{
	(void)state;
	struct gl_evpack f = base(), out;
	unsigned char buf[GL_EVPACK_MAX + 1], bad[GL_EVPACK_MAX + 1];
	size_t n;

	f.component_id = 300, f.kernel_id = 5, f.has_kernel = true, f.dur_us = 1.5;
	f.error_count = 7;
	n = gl_evpack_encode(&f, buf);
	assert_true(gl_evpack_decode(buf, n, &out));
	for (size_t len = 0; len < n; len++)
		assert_false(gl_evpack_decode(buf, len, &out));
	buf[n] = 0;
	assert_false(gl_evpack_decode(buf, n + 1, &out));	/* a byte more */
	memcpy(bad, buf, n);
	bad[0] = GL_EVPACK_VERSION + 1;
	assert_false(gl_evpack_decode(bad, n, &out));
	memcpy(bad, buf, n);
	bad[2] |= 0x10;						/* flag bit 12: none such */
	assert_false(gl_evpack_decode(bad, n, &out));
	memcpy(bad, buf, n);
	bad[3] = GL_LEVEL_CRITICAL + 1;
	assert_false(gl_evpack_decode(bad, n, &out));
	memcpy(bad, buf, n);
	memcpy(bad + n - 8, "\x00\x00\x00\x00\x00\x00\xf8\x7f", 8);	/* dur_us NAN */
	assert_false(gl_evpack_decode(bad, n, &out));
	/* an 11-byte varint for the stream */
	f = base();
	n = gl_evpack_encode(&f, buf);
	assert_int_equal(n, 5);
	memcpy(bad, buf, 4);
	memset(bad + 4, 0x80, 10);
	bad[14] = 0x01;
	assert_false(gl_evpack_decode(bad, 15, &out));
	/* a 10-byte varint whose last byte overflows 64 bits */
	memset(bad + 4, 0xff, 9);
	bad[13] = 0x02;
	assert_false(gl_evpack_decode(bad, 14, &out));
	bad[13] = 0x01;
	assert_true(gl_evpack_decode(bad, 14, &out));	/* 2^64 - 1: zigzag of INT64_MIN */
	assert_true(out.stream_id == INT64_MIN);
	/* a present id written as its NULL value (0) is not the encoder's */
	memcpy(bad, "\x01\x08\x00\x03\x00\x02", 6);		/* F_COMP with 0 */
	assert_false(gl_evpack_decode(bad, 6, &out));
}

/*
 * Every int field at the edges of each varint length (zigzag values 2^(7k)
 * and one either side, both signs), and every value with a first byte of
 * 0x7f, 0x80 or 0x81: the decoder's one-byte branch and its loop meet there.
 */
static void test_varint_edges(void **state)
{
	(void)state;
	int64_t vals[200];
	size_t nv = 0;
	unsigned char buf[GL_EVPACK_MAX];

	for (int k = 1; k <= 9; k++) {
		int64_t e = (int64_t)1 << (7 * k - 1);	/* zigzag 2^(7k) */

		for (int64_t d = -1; d <= 1; d++) {
			vals[nv++] = e + d;
			vals[nv++] = -(e + d);
		}
	}
	for (int64_t v = 60; v <= 66; v++) {	/* zigzag 120..132 */
		vals[nv++] = v;
		vals[nv++] = -v;
	}
	vals[nv++] = INT64_MAX;
	vals[nv++] = INT64_MIN;
	for (size_t i = 0; i < nv; i++)
		for (int field = 0; field < 6; field++) {
			struct gl_evpack f = base(), out;
			int64_t v = vals[i];

			switch (field) {
			case 0: f.component_id = v; break;
			case 1: f.host_id = v; break;
			case 2: f.kernel_id = v, f.has_kernel = true; break;
			case 3: f.anomaly = v < INT32_MIN || v > INT32_MAX ? (int)(v % 1000) : (int)v; break;
			case 4: f.error_count = v == -1 ? 5 : v; break;
			default: f.stream_id = v; break;
			}
			size_t n = gl_evpack_encode(&f, buf);

			memset(&out, 0x5a, sizeof(out));
			assert_true(gl_evpack_decode(buf, n, &out));
			expect_same(&f, &out);
			/* cut short, in a block of exactly that length: a read past
			 * its end is ASan's to see (make check) */
			for (size_t len = 0; len < n; len++) {
				unsigned char *cut = malloc(len ? len : 1);

				assert_non_null(cut);
				memcpy(cut, buf, len);
				assert_false(gl_evpack_decode(cut, len, &out));
				free(cut);
			}
		}
}

static void test_like_operation(void **state)
{
	(void)state;
	assert_true(gl_evpack_like_operation((const unsigned char *)"Operation a", 11));
	assert_true(gl_evpack_like_operation((const unsigned char *)"oPERATION ", 10));
	assert_false(gl_evpack_like_operation((const unsigned char *)"Operation", 9));
	assert_false(gl_evpack_like_operation((const unsigned char *)"Operationx", 10));
	assert_false(gl_evpack_like_operation((const unsigned char *)"Oper\0tion a", 11));
	assert_false(gl_evpack_like_operation((const unsigned char *)"\xc3\x96peration a", 12));
	assert_false(gl_evpack_like_operation(NULL, 0));
	assert_true(gl_evpack_real(-0.0) == 0.0 && !signbit(gl_evpack_real(-0.0)));
	assert_true(isnan(gl_evpack_real(NAN)));
	assert_true(gl_evpack_real(-2.5) == -2.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_varint_edges),
		cmocka_unit_test(test_like_operation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
