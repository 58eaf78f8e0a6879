/* Tests for lib/ingest/xid.c: NVRM Xid lines and the catalogue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/xid.h"

static void str_eq(struct gl_str s, const char *want)
{
	assert_non_null(s.p);
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}

static void test_forms(void **state)
{
	static const char a[] = "NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001";
	static const char b[] = "NVRM: Xid (PCI:0000:01:00): 31, Ch 00000003, engmask 00000101, intr 10000000";
	static const char c[] = "NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics";
	static const char d[] = "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.";
	struct gl_xid x;

	(void)state;
	assert_int_equal(gl_xid_parse(a, strlen(a), &x), 1);
	assert_int_equal(x.code, 45);
	str_eq(x.pci, "0000:dc:00");
	assert_int_equal(x.pid, 1818990);
	str_eq(x.name, "python3");
	assert_int_equal(gl_xid_parse(b, strlen(b), &x), 1);
	assert_int_equal(x.code, 31);
	assert_int_equal(x.pid, -1);
	assert_null(x.name.p);
	assert_int_equal(gl_xid_parse(c, strlen(c), &x), 1);
	assert_int_equal(x.pid, -1);
	assert_null(x.name.p);
	assert_int_equal(gl_xid_parse(d, strlen(d), &x), 1);
	assert_int_equal(x.code, 79);
	str_eq(x.pci, "0000:3b:00");
	assert_int_equal(gl_xid_parse("NVRM: loading module", 20, &x), 0);
}

static void test_catalogue(void **state)
{
	(void)state;
	assert_string_equal(gl_xid_meaning(79), "GPU has fallen off the bus");
	assert_string_equal(gl_xid_meaning(13), "Graphics Engine Exception");
	assert_null(gl_xid_meaning(9999));
	/* the list of codes that mean a failed GPU or lost work */
	static const int crit[] = {48, 63, 64, 74, 79, 92, 94, 95, 119};

	for (size_t i = 0; i < sizeof(crit) / sizeof(crit[0]); i++)
		assert_true(gl_xid_critical(crit[i]));
	assert_false(gl_xid_critical(13));
	assert_false(gl_xid_critical(31));
	assert_false(gl_xid_critical(45));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_catalogue),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
