/*
 * test_gpu_inventory.c - reports/gpu_inventory.c: the join of a telemetry
 * series to the GPU inventory. The inventory and the labels are written by
 * hand here; which device each series must find (and how) follows from the
 * rule in gpu_inventory.h: a uuid in the labels decides, else a PCI bus
 * compared as domain:bus:device whatever its case and the domain's width,
 * else, when the labels name neither, the index on the same host.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../reports/gpu_inventory.h"

static struct gl_device devs[] = {
	{.index = 0, .uuid = "GPU-aaaa", .pci = "00000000:3B:00.0", .host = "n1"},
	{.index = 1, .uuid = "GPU-bbbb", .pci = "00000000:5E:00.0", .host = "n1"},
	{.index = 0, .uuid = "GPU-cccc", .pci = "00000000:3B:00.0", .host = "n2"},
	{.index = 2, .uuid = NULL, .pci = NULL, .host = NULL},
};
static const struct gl_devices_result inv = {devs, 4};

static void test_uuid_decides(void **state)
{
	enum gl_device_join by = GL_DEVICE_JOIN_NONE;

	(void)state;
	/* the uuid wins over a bus and an index that name another GPU */
	assert_ptr_equal(gl_inventory_match(&inv, "n1", "0",
					    "{\"uuid\":\"GPU-bbbb\",\"pci.bus_id\":\"3b:00.0\"}", &by),
			 &devs[1]);
	assert_int_equal(by, GL_DEVICE_JOIN_UUID);
	assert_string_equal(gl_device_join_name(by), "uuid");
	/* DCGM's key; the host must agree */
	assert_ptr_equal(gl_inventory_match(&inv, "n2", NULL, "{\"UUID\":\"GPU-cccc\"}", &by),
			 &devs[2]);
	assert_null(gl_inventory_match(&inv, "n2", NULL, "{\"UUID\":\"GPU-aaaa\"}", &by));
	assert_int_equal(by, GL_DEVICE_JOIN_NONE);
	/* a uuid that is nobody's is not replaced by the bus or the index */
	assert_null(gl_inventory_match(&inv, "n1", "0",
				       "{\"uuid\":\"GPU-zzzz\",\"pci_bus_id\":\"00000000:3B:00.0\"}", &by));
}

static void test_pci_normalised(void **state)
{
	enum gl_device_join by = GL_DEVICE_JOIN_NONE;

	(void)state;
	/* "0000:5e:00.0" (4-digit domain, lower case) is "00000000:5E:00.0" */
	assert_ptr_equal(gl_inventory_match(&inv, "n1", NULL, "{\"pci.bus_id\":\"0000:5e:00.0\"}", &by),
			 &devs[1]);
	assert_int_equal(by, GL_DEVICE_JOIN_PCI);
	assert_string_equal(gl_device_join_name(by), "pci");
	/* no domain at all */
	assert_ptr_equal(gl_inventory_match(&inv, "n2", NULL, "{\"bus_id\":\"3B:00.0\"}", &by),
			 &devs[2]);
	/* a bus on another host */
	assert_null(gl_inventory_match(&inv, "n3", NULL, "{\"pci\":\"0000:3b:00.0\"}", &by));
}

static void test_index_only_without_labels(void **state)
{
	enum gl_device_join by = GL_DEVICE_JOIN_NONE;

	(void)state;
	assert_ptr_equal(gl_inventory_match(&inv, "n1", "1", "{\"gpu\":\"1\"}", &by), &devs[1]);
	assert_int_equal(by, GL_DEVICE_JOIN_INDEX);
	assert_string_equal(gl_device_join_name(by), "index");
	/* no host on either side is the same host */
	assert_ptr_equal(gl_inventory_match(&inv, "", "2", NULL, &by), &devs[3]);
	assert_ptr_equal(gl_inventory_match(&inv, NULL, "2", "", &by), &devs[3]);
	/* an index that is not a number, or a bus that named nobody, finds nothing */
	assert_null(gl_inventory_match(&inv, "n1", "1a", NULL, &by));
	assert_null(gl_inventory_match(&inv, "n1", "1", "{\"pci\":\"0000:99:00.0\"}", &by));
	/* no inventory */
	assert_null(gl_inventory_match(NULL, "n1", "1", NULL, &by));
	assert_int_equal(by, GL_DEVICE_JOIN_NONE);
	assert_string_equal(gl_device_join_name(GL_DEVICE_JOIN_NONE), "");
	assert_string_equal(gl_device_join_name((enum gl_device_join)9), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uuid_decides),
		cmocka_unit_test(test_pci_normalised),
		cmocka_unit_test(test_index_only_without_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
