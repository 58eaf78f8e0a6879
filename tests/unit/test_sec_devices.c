/*
 * test_sec_devices.c - reports/sec_devices.c on a small database written by
 * hand (support/sec_db.h): the nvidia-smi -q inventories of the window
 * (kind 7), one row per GPU and host, its latest; ordered by host, then
 * index; each joined to the telemetry series of the window (by uuid, else
 * PCI bus, else index on the same host: gpu_inventory.h), counting them and
 * naming their metrics. The result is read through its getter
 * (sec_devices.h) and the report's inventory (section.h). Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_devices.h"
#include "../../reports/section.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void inventory(struct sec_db *d, int64_t ts, int host, const char *meta, int line)
{
	sec_db_exec(d, "INSERT INTO events(ts_us, level, host_id, message, metadata, kind, stream_id,"
		       " line) VALUES (%lld, 3, %d, 'GPU', %Q, 7, 1, %d);", (long long)ts, host, meta,
		    line);
}

static void test_inventory_joined(void **state)
{
	static const char *const names[] = {"n1", "n2", "gpu.power_w", "gpu.utilization_pct", NULL};
	struct sec_db d;

	(void)state;
	sec_db_open(&d, names);
	sec_db_exec(&d, "INSERT INTO event_kinds(kind) VALUES (7);");
	/* n1: GPU 1 then GPU 0 (listed by index), GPU 0's second report wins; n2: GPU 0 */
	inventory(&d, T(1), 1, "{\"inventory\":1,\"index\":1,\"pci\":\"00000000:5E:00.0\","
			       "\"uuid\":\"GPU-b\",\"name\":\"H100\",\"memory_total_mib\":81559}", 1);
	inventory(&d, T(2), 1, "{\"inventory\":1,\"index\":0,\"pci\":\"00000000:3B:00.0\","
			       "\"uuid\":\"GPU-a\",\"name\":\"H100\",\"driver\":\"550.1\"}", 2);
	inventory(&d, T(3), 1, "{\"inventory\":1,\"index\":0,\"pci\":\"00000000:3B:00.0\","
			       "\"uuid\":\"GPU-a\",\"name\":\"H100\",\"driver\":\"550.2\"}", 3);
	inventory(&d, T(4), 2, "{\"inventory\":1,\"index\":0,\"pci\":\"00000000:3B:00.0\","
			       "\"uuid\":\"GPU-c\",\"name\":\"A100\"}", 4);
	/* series: power of GPU-a by uuid, utilisation of n1's bus 5e by PCI, power of n2's
	 * GPU 0 by index (labels without uuid or bus), utilisation of an unknown uuid */
	sec_db_exec(&d, "INSERT INTO series(id, metric_id, device, host_id, source, labels) VALUES"
			" (1, 3, '0', 1, 'dcgm', '{\"UUID\":\"GPU-a\"}'),"
			" (2, 4, '1', 1, 'nvidia-smi-csv', '{\"pci.bus_id\":\"0000:5e:00.0\"}'),"
			" (3, 3, '0', 2, 'dmon', '{\"gpu\":\"0\"}'),"
			" (4, 4, '0', 1, 'dcgm', '{\"UUID\":\"GPU-zz\"}');");
	for (int s = 1; s <= 4; s++)
		sec_db_exec(&d, "INSERT INTO sample_blocks(series_id, t0_us, t1_us, n, stream_id, line0,"
				" line1, data) VALUES (%d, %lld, %lld, 1, 1, %d, %d, '[[0,50,0]]');",
			    s, (long long)T(10 + s), (long long)T(10 + s), 10 + s, 10 + s);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_devices_result *r =
		gl_devices_result(gl_report_state_of(&d.rep, &gl_sec_devices));

	assert_non_null(r);
	assert_ptr_equal(gl_report_inventory(&d.rep), r);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->dev[0].host, "n1");
	assert_int_equal(r->dev[0].index, 0);
	assert_string_equal(r->dev[0].driver, "550.2");
	assert_int_equal(r->dev[0].ts_us, T(3));
	assert_true(isnan(r->dev[0].memory_total_mib));
	assert_int_equal(r->dev[0].n_series, 1);
	assert_int_equal(r->dev[0].joined_by, 1u << GL_DEVICE_JOIN_UUID);
	assert_string_equal(r->dev[0].metrics, "gpu.power_w");

	assert_string_equal(r->dev[1].host, "n1");
	assert_int_equal(r->dev[1].index, 1);
	sec_near(r->dev[1].memory_total_mib, 81559);
	assert_int_equal(r->dev[1].n_series, 1);
	assert_int_equal(r->dev[1].joined_by, 1u << GL_DEVICE_JOIN_PCI);
	assert_string_equal(r->dev[1].metrics, "gpu.utilization_pct");

	assert_string_equal(r->dev[2].host, "n2");
	assert_string_equal(r->dev[2].uuid, "GPU-c");
	assert_int_equal(r->dev[2].n_series, 1);
	assert_int_equal(r->dev[2].joined_by, 1u << GL_DEVICE_JOIN_INDEX);
	sec_db_close(&d);
}

static void test_no_inventory(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_devices_result *r =
		gl_devices_result(gl_report_state_of(&d.rep, &gl_sec_devices));

	assert_non_null(r);
	assert_int_equal(r->n, 0);
	sec_db_close(&d);
}

/* A GPU without an index: "-" in the text and a dash on the page, never -1 (JSON null and
 * an empty CSV cell come from the column list). */
static void test_no_index_rendered(void **state)
{
	struct sec_db d;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_exec(&d, "INSERT INTO event_kinds(kind) VALUES (7);");
	inventory(&d, T(1), 0, "{\"inventory\":1,\"pci\":\"00000000:3B:00.0\",\"uuid\":\"GPU-a\"}", 1);
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const void *st = gl_report_state_of(&d.rep, &gl_sec_devices);

	assert_int_equal(gl_devices_result(st)->dev[0].index, -1);
	assert_non_null(fp = open_memstream(&buf, &len));
	gl_sec_devices.emit_text(&d.rep, st, fp);
	fclose(fp);
	assert_non_null(strstr(buf, "GPU -: "));
	free(buf);
	assert_non_null(fp = open_memstream(&buf, &len));
	gl_sec_devices.emit_html(&d.rep, st, fp);
	fclose(fp);
	assert_null(strstr(buf, "-1"));
	free(buf);
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory_joined),
		cmocka_unit_test(test_no_inventory),
		cmocka_unit_test(test_no_index_rendered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
