/* Tests for lib/ingest/fmt_text.c: any timestamped text, consoles, NCCL, NVRM Xid. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/format.h"
#include "support/fmt_check.h"

extern const struct gl_format gl_fmt_text;

/* Days since 1970-01-01 (`date -ud DAY +%s` / 86400). */
#define D20261126 20783LL
#define D20240322 19804LL
#define D20251116 20408LL
#define D20260426 20569LL
#define DAY_US 86400000000LL
#define US(h, m, s, us) ((((int64_t)(h) * 60 + (m)) * 60 + (s)) * 1000000LL + (us))

static struct gl_parse_ctx ctx;

static int setup(void **state)
{
	(void)state;
	gl_parse_ctx_init(&ctx);
	/* the file was last written on 2026-11-26 15:00 UTC */
	ctx.file_mtime_us = D20261126 * DAY_US + US(15, 0, 0, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gl_parse_ctx_release(&ctx);
	return 0;
}

static void parse(const char *line, struct gl_rec *rec)
{
	gl_test_parse(&gl_fmt_text, &ctx, line, rec);
}

/* The sample named metric of rec, or NAN. */
static double sample(const struct gl_rec *rec, const char *metric)
{
	for (size_t i = 0; i < rec->n_samples; i++)
		if (rec->samples[i].metric.len == strlen(metric) &&
		    !memcmp(rec->samples[i].metric.p, metric, strlen(metric)))
			return rec->samples[i].value;
	return NAN;
}

static int meta_has(const struct gl_rec *rec, const char *part)
{
	char buf[2048];
	size_t n = rec->ev.metadata.len < sizeof(buf) - 1 ? rec->ev.metadata.len : sizeof(buf) - 1;

	if (!rec->ev.metadata.p)
		return 0;
	memcpy(buf, rec->ev.metadata.p, n);
	buf[n] = '\0';
	return strstr(buf, part) != NULL;
}

static void test_timestamp_styles(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* HF's example format: month/day/year, a logger name */
	parse("11/26/2026 14:02:09 - ERROR - run_clm - CUDA OOM while growing the batch", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 2, 9, 0));
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	gl_test_assert_str(rec.ev.component, "run_clm");
	gl_test_assert_str(rec.ev.message, "CUDA OOM while growing the batch");
	/* DeepSpeed: bracketed ISO time with a comma, [LEVEL], [source] */
	parse("[2026-11-26 14:06:58,985] [INFO] [logging.py:69:log_dist] [Rank 0] hello", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 6, 58, 985000));
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	gl_test_assert_str(rec.ev.component, "logging.py:69:log_dist");
	/* glog / torchrun elastic: no year (the file's), pid, file:line] */
	parse("W1126 14:00:51.228000 653 torch/distributed/run.py:851] Setting OMP_NUM_THREADS", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 0, 51, 228000));
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	gl_test_assert_str(rec.ev.component, "run.py:851");
	gl_test_assert_str(rec.ev.message, "Setting OMP_NUM_THREADS");
	/* syslog with the dmesg time inside: the syslog time, tag "kernel" */
	parse("Nov 26 14:01:04 gpu7 kernel: [82659.755847] NVRM: Xid (PCI:0000:41:00): 13, Graphics "
	      "Exception", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 1, 4, 0));
	gl_test_assert_str(rec.ev.component, "kernel");
	gl_test_assert_str(rec.ev.message, "NVRM: Xid (PCI:0000:41:00): 13, Graphics Exception");
	/* dmesg -T */
	parse("[Sun Apr 26 23:12:26 2026] NVRM: _kgspLogXid119: Note", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20260426 * DAY_US + US(23, 12, 26, 0));
	/* RFC 3339 with nanoseconds and Z after a node prefix (Talos) */
	parse("192.168.11.119: kern: warning: [2026-04-22T21:27:51.291660856Z]: NVRM: TRACE", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	assert_true(rec.ev.ts_us == (D20260426 - 4) * DAY_US + US(21, 27, 51, 291660));
}

static void test_day_month_order(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* 03/04 is ambiguous: month/day until a line says otherwise */
	parse("03/04/2026 10:00:00 - INFO - a - first", &rec);
	assert_true(rec.ev.ts_us == (int64_t)(20516) * DAY_US + US(10, 0, 0, 0));	/* 2026-03-04 */
	parse("26/11/2026 10:00:00 - INFO - a - day first", &rec);
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(10, 0, 0, 0));
	/* from now on day/month for the whole file */
	parse("03/04/2026 10:00:00 - INFO - a - third", &rec);
	assert_true(rec.ev.ts_us == (int64_t)(20546) * DAY_US + US(10, 0, 0, 0));	/* 2026-04-03 */
}

static void test_console(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* torchrun's tee: a bar glued to the next message behind a second prefix */
	parse("[default0]:  0%|   | 37/1000000 [00:04<10:54:26, 25.47it/s][default0]:{'loss': "
	      "'10.42', 'grad_norm': '1.087', 'learning_rate': '5e-05', 'epoch': '0.01'}", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.message, "{'loss': '10.42', 'grad_norm': '1.087', "
			   "'learning_rate': '5e-05', 'epoch': '0.01'}");
	assert_true(meta_has(&rec, "\"rank\":0"));
	assert_true(meta_has(&rec, "\"loss\":10.42"));
	assert_true(meta_has(&rec, "\"bar_step\":37"));
	assert_true(meta_has(&rec, "\"ts_estimated\":1"));
	assert_true(sample(&rec, "train.it_per_s") == 25.47);
	assert_true(sample(&rec, "train.progress_steps") == 37);
	/* an untimed dict gives no train samples (no time to put them at) */
	assert_true(isnan(sample(&rec, "train.loss")));
	/* a bar alone: samples only */
	parse("[default1]: 10%|#         | 100/1000 [00:40<06:00,  2.50s/it]", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	assert_true(sample(&rec, "train.it_per_s") == 0.4);
	/* a dataset map's bar (a description): not the training loop */
	parse("Map: 100%|##########| 5000/5000 [00:01<00:00, 4000.00 examples/s]", &rec);
	assert_int_equal(rec.kind, GL_REC_NONE);
	/* mpirun */
	parse("[1,3]<stdout>:ep 55 train, step 1347, ce 0.324", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(meta_has(&rec, "\"rank\":3"));
	/* c10 warning behind a rank prefix */
	parse("[rank0]:[W1126 14:01:08.431698933 reducer.cpp:1502] Warning: find_unused", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	gl_test_assert_str(rec.ev.component, "reducer.cpp:1502");
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 1, 8, 431698));
}

static void test_train_lines(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse(" [2026-05-28 22:40:02] iteration     9943/   10000 | consumed samples:       636352 | "
	      "elapsed time per iteration (ms): 10206.6 | learning rate: 1.000722E-05 | global batch "
	      "size:    64 | lm loss: 2.746864E+00 | grad norm: 0.211 |", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(sample(&rec, "train.step") == 9943);
	assert_true(sample(&rec, "train.loss") == 2.746864);
	assert_true(sample(&rec, "train.iteration_ms") == 10206.6);
	assert_true(sample(&rec, "train.learning_rate") == 1.000722e-05);
	assert_true(sample(&rec, "train.grad_norm") == 0.211);
	assert_true(meta_has(&rec, "\"train\":\"megatron\""));
	parse("[2026-03-11 02:06:58,985] [INFO] [logging.py:69:log_dist] [Rank 0] step=40, "
	      "skipped=2, lr=[5e-05], mom=[[0.9, 0.999]]", &rec);
	assert_true(sample(&rec, "train.step") == 40);
	assert_true(sample(&rec, "train.learning_rate") == 5e-05);
}

static void test_nccl(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("mew0:65704:65704 [0] NCCL INFO NCCL version 2.27.7+cuda13.0", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "nccl");
	assert_int_equal(rec.ev.level, GL_LEVEL_INFO);
	/* no time: the file's modification time, estimated */
	assert_true(rec.ev.ts_us == ctx.file_mtime_us);
	assert_true(meta_has(&rec, "\"nccl_version\":\"2.27.7+cuda13.0\""));
	assert_true(meta_has(&rec, "\"host\":\"mew0\",\"pid\":65704,\"device\":0"));
	parse("mew0:65704:65722 [0] NCCL INFO Init timings - ncclCommInitRankConfig: rank 0 nranks 2 "
	      "total 0.61 (kernels 0.53, alloc 0.05)", &rec);
	assert_true(meta_has(&rec, "\"nranks\":2"));
	assert_true(meta_has(&rec, "\"init_s\":0.61"));
	parse("mew0:65704:65748 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer/read", &rec);
	assert_true(meta_has(&rec, "\"transport\":\"P2P\""));
	parse("node1:653:712 [0] NCCL WARN Cuda failure 'out of memory'", &rec);
	assert_int_equal(rec.ev.level, GL_LEVEL_WARN);
	/* NCCL_DEBUG_TIMESTAMP_FORMAT's default "[%F %T] " before the prefix: its time */
	parse("[2026-11-26 14:02:09] node1:653:712 [1] NCCL INFO comm 0x1 rank 1 nranks 2 - Init COMPLETE", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "nccl");
	assert_true(rec.ev.ts_us == D20261126 * DAY_US + US(14, 2, 9, 0));
	assert_true(meta_has(&rec, "\"host\":\"node1\",\"pid\":653,\"device\":1"));
	assert_true(meta_has(&rec, "\"init_complete\":true"));
	assert_false(meta_has(&rec, "ts_estimated"));
}

static void test_xid(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("Sep 06 22:24:12 kernel: NVRM: Xid (PCI:0000:01:00): 13, pid=12770, name=Warhammer 40000, "
	      "Graphics Exception: channel 0x00000009", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_ERROR);
	assert_true(meta_has(&rec, "\"xid\":13,\"pci\":\"0000:01:00\",\"pid\":12770,"
			   "\"process\":\"Warhammer 40000\",\"xid_meaning\":\"Graphics Engine Exception\","
			   "\"xid_critical\":false"));
	/* 79: a lost GPU, critical; no time (kernel: only) */
	parse("kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
	      &rec);
	assert_int_equal(rec.ev.level, GL_LEVEL_CRITICAL);
	assert_true(meta_has(&rec, "\"xid_meaning\":\"GPU has fallen off the bus\""));
	/* pid unknown, name in angle brackets: neither stored */
	parse("[93297.029837] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics "
	      "Exception: ESR 0x52ef30=0x0", &rec);
	assert_false(meta_has(&rec, "\"pid\""));
	assert_false(meta_has(&rec, "\"process\""));
	/* dmesg time with no boot time known: the mtime less the first such value, estimated */
	assert_true(meta_has(&rec, "\"ts_estimated\":1"));
	assert_true(rec.ev.ts_us == ctx.file_mtime_us);
}

static void test_continuation(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("2026-11-26 14:02:09,123 - run - ERROR - step failed", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	parse("Traceback (most recent call last):", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("  File \"train.py\", line 88, in <module>", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("torch.OutOfMemoryError: CUDA out of memory.", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	/* after the exception's line, untimed lines of a timed file still continue */
	parse("_n_gpu=1,", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("2026-11-26 14:02:10,000 - run - INFO - next", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
}

static void test_after_bar(void **state)
{
	struct gl_rec rec;

	(void)state;
	parse("03/22/2024 09:51:20 - INFO - __main__ - Training", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	/* a bar alone ends the record before it (ingest stores its samples on their own) */
	parse("100%|##########| 5490/5490 [17:52:38<00:00,  1.17s/it]", &rec);
	assert_int_equal(rec.kind, GL_REC_SAMPLES);
	/* so the untimed line after it is a record of its own, not an orphan continuation */
	parse("Saving model checkpoint to output/adgen/6", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == D20240322 * DAY_US + US(9, 51, 20, 0));
	parse("Configuration saved in output/adgen/6/config.json", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
}

static void test_untimed_stderr(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* an inference server's stderr (issue 29): read as records, not skipped */
	static const char text[] =
		"[transformers] Some weights of the model checkpoint were not used when initializing\n"
		"request 97 failed: prompt exceeds the model's context window\n"
		"[transformers] Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.\n";
	struct gl_str lines[3];
	const char *p = text, *why = NULL;

	for (int i = 0; i < 3; i++) {
		const char *nl = strchr(p, '\n');

		lines[i] = (struct gl_str){p, (size_t)(nl - p)};
		p = nl + 1;
	}
	assert_ptr_equal(gl_format_detect(lines, 3, &why), &gl_fmt_text);
	parse("[transformers] Some weights of the model checkpoint were not used", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.component, "transformers");
	parse("request 97 failed: prompt exceeds the model's context window", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	gl_test_assert_str(rec.ev.message, "request 97 failed: prompt exceeds the model's context window");
}

static void test_not_text(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* prose before any record is no log */
	parse("Hello world", &rec);
	assert_int_equal(rec.kind, GL_REC_REJECT);
	/* JSON is the JSON readers' */
	parse("{\"timestamp\": \"2025-11-16T00:00:00Z\", \"message\": \"cut off", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
	parse("  \"generated_at\": \"2025-11-16T23:59:59Z\",", &rec);
	assert_int_equal(rec.kind, GL_REC_FOREIGN);
}

static void test_junk(void **state)
{
	static const char alphabet[] = "[]:0123456789 -|%/.,'{}ERWIabcNCL\t";

	(void)state;
	gl_test_junk(&gl_fmt_text, &ctx, alphabet, sizeof(alphabet) - 1, 31);
}

/*
 * A line that ends in digits, in a buffer of exactly its bytes (a reader's
 * line is not NUL-terminated): "[1860" (make fuzz found strtol reading past
 * it), "... nranks 8", "... Init timings ... total 0.5", an Xid's code. The
 * numbers after the end are not read: under make check's AddressSanitizer
 * a read past the buffer stops the test.
 */
static void test_ends_in_digits(void **state)
{
	static const char *const lines[] = {
		"[1860",
		"[1,0",
		"node1:4242:4242 [0] NCCL INFO comm 0x1 rank 0 nranks 8",
		"node1:4242:4242 [0] NCCL INFO Init timings: rank 0 nranks 8 total 0.5",
		"2026-11-26 14:00:00 kernel: NVRM: Xid (PCI:0000:3b:00): 79",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t n = strlen(lines[i]);
		char *exact = malloc(n);
		struct gl_rec rec;

		assert_non_null(exact);
		memcpy(exact, lines[i], n);
		gl_ctx_begin_line(&ctx, n);
		memset(&rec, 0, sizeof(rec));
		gl_fmt_text.parse(&ctx, exact, n, &rec);
		if (i == 2)
			assert_true(meta_has(&rec, "\"nranks\":8"));
		if (i == 3)
			assert_true(meta_has(&rec, "\"init_s\":0.5"));
		free(exact);
	}
}

/* A lost GPU as NVSentinel's syslog monitor and nvidia-smi write it: Xid 79 with its bus. */
static void test_lost_gpu(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* dmesg: the first line names the bus, the indented third says what happened */
	parse("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_false(meta_has(&rec, "\"xid\""));
	parse("               NVRM: (PCI ID: 10de:26b5) installed in this system has", &rec);
	assert_int_equal(rec.kind, GL_REC_CONT);
	parse("               NVRM: fallen off the bus and is not responding to commands.", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_int_equal(rec.ev.level, GL_LEVEL_CRITICAL);
	assert_true(meta_has(&rec, "\"xid\":79,\"pci\":\"0000:b3:00\""));
	/* kern.log: every line with its time */
	parse("Nov 26 14:01:04 node1 kernel: NVRM: The NVIDIA GPU 0000:3B:00.0", &rec);
	assert_false(meta_has(&rec, "\"xid\""));
	parse("Nov 26 14:01:04 node1 kernel: NVRM: (PCI ID: 10de:2330) installed in this system has", &rec);
	assert_false(meta_has(&rec, "\"xid\""));
	parse("Nov 26 14:01:04 node1 kernel: NVRM: fallen off the bus and is not responding to commands.",
	      &rec);
	assert_true(meta_has(&rec, "\"xid\":79,\"pci\":\"0000:3b:00\""));
	/* the bus is used once: a later lost GPU without one names none */
	parse("Nov 26 14:01:05 node1 kernel: NVRM: GPU has fallen off the bus.", &rec);
	assert_true(meta_has(&rec, "\"xid\":79"));
	assert_false(meta_has(&rec, "\"pci\""));
	/* nvidia-smi through NVML: "GPU is lost" (NVML_ERROR_GPU_IS_LOST), 8-digit domain */
	parse("Nov 26 14:01:06 node1 gpu-check: Unable to determine the device handle for GPU "
	      "00000000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU", &rec);
	assert_int_equal(rec.ev.level, GL_LEVEL_CRITICAL);
	assert_true(meta_has(&rec, "\"xid\":79,\"pci\":\"0000:3b:00\""));
	/* a GPU the driver does not support is no lost GPU */
	parse("Nov 26 14:01:07 node1 kernel: NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1e07) "
	      "installed in this system is not supported by the 390.xx driver", &rec);
	assert_false(meta_has(&rec, "\"xid\""));
	/* a user's sentence is no Xid */
	parse("Nov 26 14:01:08 node1 app: the GPU is lost in thought", &rec);
	assert_false(meta_has(&rec, "\"xid\""));
}

/* A syslog stamp has no year: Feb 29 is placed in a leap year, never on Mar 1. */
static void test_feb29_without_year(void **state)
{
	struct gl_rec rec;

	(void)state;
	/* a file last written on 2029-03-05 (2029 has no Feb 29): 2028-02-29 */
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = 21613LL * DAY_US + US(12, 0, 0, 0);
	parse("Feb 29 10:00:00 node1 app: the leap day", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == 21243LL * DAY_US + US(10, 0, 0, 0));
	/* the next day of the same file: 2028-03-01 */
	parse("Mar  1 08:00:00 node1 app: the day after", &rec);
	assert_int_equal(rec.kind, GL_REC_EVENT);
	assert_true(rec.ev.ts_us == 21244LL * DAY_US + US(8, 0, 0, 0));

	/* a file whose stamps are in 2027 (mtime 2027-05-01): its "Feb 29" is no date,
	 * not 2027-03-01 */
	gl_parse_ctx_release(&ctx);
	gl_parse_ctx_init(&ctx);
	ctx.file_mtime_us = 20939LL * DAY_US;
	parse("Jan 10 10:00:00 node1 app: in 2027", &rec);
	assert_true(rec.ev.ts_us == 20828LL * DAY_US + US(10, 0, 0, 0));
	parse("Feb 29 10:00:00 node1 app: no such day", &rec);
	assert_false(rec.kind == GL_REC_EVENT && rec.ev.ts_us == 20878LL * DAY_US + US(10, 0, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_timestamp_styles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_feb29_without_year, setup, teardown),
		cmocka_unit_test_setup_teardown(test_day_month_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console, setup, teardown),
		cmocka_unit_test_setup_teardown(test_train_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nccl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continuation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_after_bar, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untimed_stderr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ends_in_digits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_gpu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
