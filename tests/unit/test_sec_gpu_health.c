/*
 * test_sec_gpu_health.c - reports/sec_gpu_health.c on a small database
 * written by hand (support/sec_db.h): Xid records (kind 6, their metadata as
 * the kernel-log parser writes it) counted per PCI bus and code, largest
 * first, with the processes named and the critical ones; the latest
 * nvidia-smi -q inventory of each GPU (kind 7) giving its ECC counters and
 * active clocks event reasons; an inventory before the window left out.
 * The result is read through its getter (sec_gpu_health.h). Expected by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "support/sec_db.h"
#include "../../reports/sec_gpu_health.h"
#include "../../reports/section.h"

#define T(s) (SEC_T0 + (int64_t)(s) * SEC_S_US)

static void fact(struct sec_db *d, int64_t ts, int kind, const char *meta)
{
	static int line;

	sec_db_exec(d, "INSERT INTO events(ts_us, level, message, metadata, kind, stream_id, line)"
		       " VALUES (%lld, 5, 'NVRM: Xid', %Q, %d, 1, %d);", (long long)ts, meta, kind,
		    ++line);
}

static void test_xid_and_ecc(void **state)
{
	struct sec_db d;

	(void)state;
	sec_db_open(&d, NULL);
	sec_db_exec(&d, "INSERT INTO event_kinds(kind) VALUES (6), (7);");
	/* bus 41: Xid 13 three times (python3 twice, then trainer); bus 3b: Xid 79 once */
	fact(&d, T(10), 6, "{\"xid\":13,\"pci\":\"0000:41:00\",\"process\":\"python3\","
			   "\"xid_meaning\":\"Graphics Engine Exception\",\"xid_critical\":false}");
	fact(&d, T(20), 6, "{\"xid\":79,\"pci\":\"0000:3b:00\",\"xid_meaning\":\"GPU has fallen"
			   " off the bus\",\"xid_critical\":true}");
	fact(&d, T(30), 6, "{\"xid\":13,\"pci\":\"0000:41:00\",\"process\":\"python3\","
			   "\"xid_critical\":false}");
	fact(&d, T(40), 6, "{\"xid\":13,\"pci\":\"0000:41:00\",\"process\":\"trainer\","
			   "\"xid_critical\":false}");
	/* GPU 3b's inventory before the window, then twice in it: the latest counts */
	fact(&d, T(-50), 7, "{\"inventory\":1,\"pci\":\"00000000:3B:00.0\",\"uuid\":\"GPU-x\","
			    "\"ecc_volatile_uncorrected\":99,\"clocks_event_reasons\":\"HW Slowdown\"}");
	fact(&d, T(50), 7, "{\"inventory\":1,\"pci\":\"00000000:3B:00.0\",\"uuid\":\"GPU-x\","
			   "\"ecc_volatile_uncorrected\":1,\"clocks_event_reasons\":\"Idle\"}");
	fact(&d, T(60), 7, "{\"inventory\":1,\"pci\":\"00000000:3B:00.0\",\"uuid\":\"GPU-x\","
			   "\"ecc_volatile_uncorrected\":2,\"ecc_aggregate_corrected\":7,"
			   "\"clocks_event_reasons\":\"SW Power Cap,SW Thermal Slowdown\"}");
	sec_db_build(&d, SEC_T0, SEC_T0 + 3600 * SEC_S_US, 20);

	const struct gl_gpu_health_result *h =
		gl_gpu_health_result(gl_report_state_of(&d.rep, &gl_sec_gpu_health));

	assert_non_null(h);
	assert_int_equal(h->xid_records, 4);
	assert_int_equal(h->xid_critical, 1);
	assert_int_equal(h->n_xid, 2);
	assert_string_equal(h->xid[0].pci, "0000:41:00");
	assert_int_equal(h->xid[0].code, 13);
	assert_int_equal(h->xid[0].count, 3);
	assert_int_equal(h->xid[0].critical, 0);
	assert_int_equal(h->xid[0].first_us, T(10));
	assert_int_equal(h->xid[0].last_us, T(40));
	assert_string_equal(h->xid[0].meaning, "Graphics Engine Exception");
	assert_string_equal(h->xid[0].processes, "python3,trainer");
	assert_string_equal(h->xid[1].pci, "0000:3b:00");
	assert_int_equal(h->xid[1].code, 79);
	assert_int_equal(h->xid[1].critical, 1);
	assert_null(h->xid[1].processes);

	assert_int_equal(h->n_ecc, 1);
	assert_string_equal(h->ecc[0].uuid, "GPU-x");
	sec_near(h->ecc[0].volatile_uncorrected, 2);
	sec_near(h->ecc[0].aggregate_corrected, 7);
	assert_true(isnan(h->ecc[0].retired_dbe));
	assert_string_equal(h->ecc[0].clocks_event_reasons, "SW Power Cap,SW Thermal Slowdown");
	/* every distinct reason seen in the window: Idle, then the two of the latest */
	assert_int_equal(h->n_throttle, 3);
	assert_string_equal(h->throttle[0], "Idle");
	assert_string_equal(h->throttle[1], "SW Power Cap");
	assert_string_equal(h->throttle[2], "SW Thermal Slowdown");
	sec_db_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_and_ecc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
