/*
 * fmt_text.c - any text log of a GPU node that no specific format claims:
 * timestamped lines in the common styles (textts.h), a training job's
 * console, NCCL's debug files, kernel messages of the NVIDIA driver.
 *
 * In: one line. A record starts at
 * - a line with a timestamp at or near its start (within 48 bytes):
 *       03/22/2024 09:51:20 - INFO - __main__ - Training/evaluation parameters ...
 *       [2022-03-11 02:06:58,985] [INFO] [logging.py:69:log_dist] [Rank 0] step=40, ...
 *       W1126 14:00:51.228000 653 torch/distributed/run.py:851] *****
 *       Nov 26 14:01:04 host kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, ...
 *       [ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0       (dmesg: since boot)
 *       192.168.11.119: kern: warning: [2026-04-22T21:27:51.291660856Z]: NVRM: ...
 * - a line of a known shape without a time:
 *       ljm:803564:803604 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct
 *   (with NCCL_DEBUG_TIMESTAMP_FORMAT set, "[2026-11-26 14:02:09] ljm:803564:..."
 *   is that record at that time)
 *       [rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout
 *       WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3584288 closing signal SIGTERM
 *       {'loss': 1.1409, 'grad_norm': 2.757542133331299, 'learning_rate': 1.8e-05, 'epoch': 0.91}
 *       [transformers] Some weights of the model checkpoint were not used
 *       kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001
 *       Traceback (most recent call last):
 * - in a file that has shown no timestamp yet (a console capture), any
 *   line that does not start with a space: "request 97 failed: prompt exceeds ...".
 * Other lines continue the record before them (tracebacks, wrapped lines,
 * argument dumps); before the first record they are rejects ("text before
 * the first record"), so a README is still no log.
 *
 * Launcher prefixes come off first and give the record's rank: torchrun's
 * "[default0]:" and "[rank0]:", mpirun's "[1,0]<stdout>:". A tqdm bar is no
 * record: a bar without a description (the training loop's) gives the
 * samples train.it_per_s and train.progress_steps; text glued behind a bar
 * (a console that lost its '\r', torchrun's tee) is a record of its own:
 *       [default0]:  0%|   | 37/1000 [00:04<10:54, 25.47it/s][default0]:{'loss': '10.42', ...}
 *  10%|███▉  | 549/5490 [05:02<38:38,  2.13it/s]The following columns in the evaluation set ...
 *
 * Out: an event (ts, level, component, message; metadata: rank, and the
 * facts the line holds: Xid code, PCI bus, pid, process, the catalogue's
 * meaning; NCCL version, ranks, init time, transport; a trainer's step
 * values) with train.* samples for a trainer's metrics line (trainline.h),
 * labelled {"run", "rank"}. The run is the file's folder (a checkpoint-N
 * folder counts as its parent), so the console and trainer_state.json of one
 * output folder are one run.
 *
 * Times: a stamp with a zone is UTC; others are naive wall clock in the zone
 * of --timezone. A date without a year takes the year of the file's
 * modification time (the year before when that would put it a day past the
 * file's last write). dd/dd/yyyy is decided per file by its first date with
 * a field above 12 (read in prepare, so the lines before it follow it too):
 * the first field above 12 is day/month, the second month/day; a file with
 * no such date follows the ingest config's "date_order" (ctx->date_order),
 * else month/day. dmesg's
 * seconds since boot are placed from the boot time: the file's modification
 * time less the largest such value in the file (read in prepare); such
 * times, and records without a time (which take the last time of the file,
 * or, behind the training loop's progress bar, the bar's start plus its
 * elapsed time where that is later; else its modification time), carry
 * "ts_estimated":1 in their metadata. The bar's start: a bar of elapsed e
 * written after a line of real time t began at t - e or later; the latest
 * such bound of the loop (a bar whose count falls starts a new one):
 *     [default0]:11/26/2026 15:33:59 - WARNING - run_clm - Process rank: 0 ...
 *     [default0]:  6%|▌   | 7/120 [00:01<00:09, 12.32it/s][default0]:{'loss': '6.884', ...}
 * puts that dict at 15:34:00.
 */
#include "format.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "textfmt.h"
#include "textts.h"
#include "trainline.h"
#include "trainrec.h"
#include "xid.h"

#define TEXT_MAGIC 0x74786574u	/* "text" */
#define TS_MAX_START 48
#define RUN_MAX 192

enum {
	F_RECORD = 1,		/* a record was seen: untimed lines continue it */
	F_TIMED = 2,		/* a timestamped line was seen: untimed generic lines continue */
	F_DMY = 4,		/* dd/dd/yyyy is day/month */
	F_DMY_KNOWN = 8,
	F_IN_TB = 16,		/* inside a Python traceback: the first unindented line ends it */
	F_AFTER_BAR = 32,	/* the line before was a progress bar alone: no record to continue */
};

struct text_state {
	uint32_t magic;
	uint32_t flags;
	int64_t last_us;	/* the last record's time; GL_TS_NONE: none yet */
	int64_t boot_us;	/* dmesg boot time; GL_TS_NONE: not known */
	int64_t year;		/* for dates without a year; 0: not known yet */
	double last_done;	/* the last progress bar's count; -1: none */
	/*
	 * The training loop's bar placed in time: its start and the time of the
	 * last bar (start + its elapsed time). A bar of elapsed e written after
	 * a line of real time t says the loop began at t - e or later: the start
	 * is the latest such bound over the bars of one loop, so no bar is
	 * placed before a real time written ahead of it. GL_TS_NONE: no bar, or
	 * no real time before it.
	 */
	int64_t bar_t0_us, bar_us;
	char run[RUN_MAX];	/* the run: the file's folder */
	int32_t path_rank;	/* torchrun's ".../attempt_0/<rank>/stdout.log"; -1: none */
	char lost_pci[24];	/* "0000:b3:00" of "NVRM: The NVIDIA GPU 0000:b3:00.0" awaiting its
				 * "fallen off the bus" line; "": none */
};

static struct text_state *state_of(struct gl_parse_ctx *ctx)
{
	struct text_state *st = (struct text_state *)(void *)ctx->state;

	if (ctx->state_len != sizeof(*st) || st->magic != TEXT_MAGIC) {
		memset(st, 0, sizeof(*st));
		st->magic = TEXT_MAGIC;
		st->last_us = GL_TS_NONE;
		st->boot_us = GL_TS_NONE;
		st->last_done = -1;
		st->bar_t0_us = GL_TS_NONE;
		st->bar_us = GL_TS_NONE;
		st->path_rank = -1;
		ctx->state_len = sizeof(*st);
	}
	return st;
}

/*
 * torchrun's per-rank files (--log-dir, --redirects/--tee): the local rank
 * is the folder of the file, its lines carry no prefix:
 *     <log-dir>/<run id>/attempt_0/1/stderr.log
 * Returns the rank and sets *run_len to the length of the path up to the
 * run id's folder (the run: that folder); -1 for any other path.
 */
static long torchrun_rank(const char *path, size_t *run_len)
{
	const char *base = strrchr(path, '/'), *r, *a;
	long rank = 0;

	if (!base || (strcmp(base, "/stdout.log") && strcmp(base, "/stderr.log")))
		return -1;
	for (r = base; r > path && r[-1] != '/'; r--)
		;
	if (r == base || r == path || base - r > 6)
		return -1;
	for (const char *q = r; q < base; q++) {
		if (*q < '0' || *q > '9')
			return -1;
		rank = rank * 10 + (*q - '0');
	}
	for (a = r - 1; a > path && a[-1] != '/'; a--)
		;
	if ((size_t)(r - 1 - a) <= 8 || memcmp(a, "attempt_", 8) || a == path)
		return -1;
	*run_len = (size_t)(a - 1 - path);
	return rank;
}

/* The run of a file: its folder, or the folder above a checkpoint-N folder. */
static void run_of_path(const char *path, char *run, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	const char *base;

	for (int k = 0; k < 2 && len; k++) {
		base = path + len;
		while (base > path && base[-1] != '/')
			base--;
		if (k == 0 && (size_t)(path + len - base) > 11 && !memcmp(base, "checkpoint-", 11))
			len = base > path ? (size_t)(base - 1 - path) : 0;
		else
			break;
	}
	/* keep the last two folder names: enough to tell runs apart, no machine paths */
	{
		struct gl_str tail = gl_train_run_tail(path, path + len);

		len = tail.len < n ? tail.len : n - 1;
		memcpy(run, tail.p, len);
		run[len] = '\0';
	}
	if (!run[0])
		snprintf(run, n, ".");
}

/*
 * prepare: the run name from the path, and for dmesg the boot time: the
 * file's modification time less the largest "[ seconds.micro]" in it.
 */
/* 13/04/2026 is day/month, 04/13/2026 month/day: for the whole file (st->flags). */
static void slash_order(struct text_state *st, const struct gl_textts *t)
{
	if (!(st->flags & F_DMY_KNOWN) && (t->a > 12 || t->b > 12)) {
		st->flags |= F_DMY_KNOWN;
		if (t->a > 12)
			st->flags |= F_DMY;
	}
}

static int text_prepare(struct gl_parse_ctx *ctx, const char *path)
{
	struct text_state *st = state_of(ctx);
	struct gl_reader *r = NULL;
	struct gl_line ln;
	struct gl_err err;
	int64_t max_rel = -1;
	int rc;

	{
		size_t run_len;
		long rank = torchrun_rank(path, &run_len);
		char *dir;

		st->path_rank = (int32_t)rank;
		/* the run of a per-rank file: the run id's folder ("torchrun_logs/none_hrvl9dad") */
		if (rank >= 0 && (dir = malloc(run_len + 3)) != NULL) {
			memcpy(dir, path, run_len);
			memcpy(dir + run_len, "/x", 3);
			run_of_path(dir, st->run, sizeof(st->run));
			free(dir);
		} else {
			run_of_path(path, st->run, sizeof(st->run));
		}
	}
	memset(&err, 0, sizeof(err));
	if (gl_reader_open(&r, path, &err) != GL_OK)
		return -1;
	while ((rc = gl_reader_next(r, &ln, &err)) == 1) {
		struct gl_textts t;

		if (ln.len && ln.p[0] == '[' && gl_textts_scan(ln.p, ln.len, 0, &t) &&
		    t.kind == GL_TEXTTS_BOOT && t.naive_us > max_rel)
			max_rel = t.naive_us;
		/* the file's first unambiguous dd/dd/yyyy decides its order for every line */
		if (!(st->flags & F_DMY_KNOWN) &&
		    memchr(ln.p, '/', ln.len < TS_MAX_START + 10 ? ln.len : TS_MAX_START + 10) &&
		    gl_textts_scan(ln.p, ln.len, TS_MAX_START, &t) && t.kind == GL_TEXTTS_SLASH)
			slash_order(st, &t);
	}
	gl_reader_close(r);
	if (max_rel >= 0 && ctx->file_mtime_us)
		st->boot_us = ctx->file_mtime_us - max_rel;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int starts(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - s) >= n && memcmp(s, lit, n) == 0;
}

static const char *find(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; s + n <= end; s++)
		if (memcmp(s, needle, n) == 0)
			return s;
	return NULL;
}

/* The digits at *q (before end; strtol would read past a line that ends
 * in digits: the line is not NUL-terminated), *q moved past them. */
static long digits_at(const char **q, const char *end)
{
	long v = 0;

	for (; *q < end && is_digit(**q); (*q)++)
		v = v < 100000000 ? v * 10 + (**q - '0') : v;
	return v;
}

/* The number at p (before end) as strtod reads it, never past end. */
static double num_before(const char *p, const char *end)
{
	char buf[40];
	size_t n = end > p ? (size_t)(end - p) : 0;

	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return strtod(buf, NULL);
}

/*
 * One launcher prefix at *p: "[default0]:", "[rank0]:", "[1,0]<stdout>:".
 * Advances *p and sets *rank; returns 1, else 0.
 */
static int launcher_prefix(const char **p, const char *end, long *rank)
{
	const char *s = *p, *q;
	long a = -1, b = -1;

	if (s >= end || *s != '[')
		return 0;
	q = s + 1;
	if (starts(q, end, "default"))
		q += 7;
	else if (starts(q, end, "rank"))
		q += 4;
	if (q >= end || !is_digit(*q))
		return 0;
	a = digits_at(&q, end);
	if (q < end && *q == ',' && q + 1 < end && is_digit(q[1])) {
		q++;
		b = digits_at(&q, end);
		if (q >= end || *q != ']')
			return 0;
		q++;
		if (starts(q, end, "<stdout>:"))
			q += 9;
		else if (starts(q, end, "<stderr>:"))
			q += 9;
		else
			return 0;
		*rank = b;
		*p = q;
		return 1;
	}
	/* "[1866] " (a pasted line number) is no launcher prefix: ':' must follow */
	if (q + 1 >= end || q[0] != ']' || q[1] != ':')
		return 0;
	*rank = a;
	*p = q + 2;
	return 1;
}

/* A level word: INFO, [INFO], WARNING:, <warn>, ... in s[0..n). */
static enum gl_level level_word(const char *s, size_t n)
{
	while (n && strchr("[(<", *s)) {
		s++;
		n--;
	}
	while (n && strchr("]):>,", s[n - 1]))
		n--;
	if (n < 3 || n > 8)
		return GL_LEVEL_NONE;
	return gl_level_parse(s, n);
}

/* The next space-separated token of [*p, end): its slice; *p moves past it. */
static struct gl_str token(const char **p, const char *end)
{
	const char *s = *p;
	struct gl_str t;

	while (s < end && is_space(*s))
		s++;
	t.p = s;
	while (s < end && !is_space(*s))
		s++;
	t.len = (size_t)(s - t.p);
	*p = s;
	return t;
}

static const char *skip_seps(const char *p, const char *end)
{
	while (p < end && (is_space(*p) || *p == '-' || *p == ':' || *p == ']' || *p == '|' ||
			   *p == ')'))
		p++;
	return p;
}

struct line_info {
	long rank;			/* -1: none */
	int ts_estimated;
	int bar_placed;			/* the time is the training loop's bar's (estimated) */
	int64_t ts_us;
	enum gl_level level;
	struct gl_str component;
	const char *msg, *msg_end;
	struct gl_train train;
	int has_train;
	struct gl_tqdm bar;
	int has_bar;
	struct gl_xid xid;
	int has_xid;
	int bad_date;			/* its stamp's date is in no calendar or out of range */
	/* NCCL */
	int nccl;
	struct gl_str nccl_host;
	long nccl_pid, nccl_dev;
};

/* "host:pid:tid [dev] NCCL INFO msg": fills li, returns 1. */
static int nccl_line(const char *p, const char *end, struct line_info *li)
{
	const char *n = find(p, end > p + 96 ? p + 96 : end, " NCCL ");
	const char *c1, *c2, *br;
	enum gl_level lv = GL_LEVEL_NONE;
	const char *q;

	if (!n)
		return 0;
	c1 = memchr(p, ':', (size_t)(n - p));
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(n - c1 - 1)) : NULL;
	br = memchr(p, '[', (size_t)(n - p));
	if (!c1 || !c2 || !br || c2 > br || !is_digit(c1[1]))
		return 0;
	q = n + 6;
	if (starts(q, end, "INFO "))
		lv = GL_LEVEL_INFO, q += 5;
	else if (starts(q, end, "WARN "))
		lv = GL_LEVEL_WARN, q += 5;
	else if (starts(q, end, "ERROR "))
		lv = GL_LEVEL_ERROR, q += 6;
	else if (starts(q, end, "TRACE "))
		lv = GL_LEVEL_TRACE, q += 6;
	else
		return 0;
	li->nccl = 1;
	/* "   67108864 ... -1mew0:65704:65704 [1] NCCL INFO ...": a record glued
	 * behind a row of nccl-tests' table keeps the row in its message */
	{
		const char *h = c1;

		while (h > p && !is_space(h[-1]))
			h--;
		li->nccl_host = (struct gl_str){h, (size_t)(c1 - h)};
		if (h != p) {
			li->level = lv;
			li->component = (struct gl_str){"nccl", 4};
			li->nccl_pid = strtol(c1 + 1, NULL, 10);
			li->nccl_dev = strtol(br + 1, NULL, 10);
			li->msg = p;
			li->msg_end = end;
			return 1;
		}
	}
	li->nccl_pid = strtol(c1 + 1, NULL, 10);
	li->nccl_dev = strtol(br + 1, NULL, 10);
	li->level = lv;
	li->component = (struct gl_str){"nccl", 4};
	li->msg = q;
	li->msg_end = end;
	return 1;
}

/* "[E ProcessGroupNCCL.cpp:563] msg" (glog without a time). */
static int glog_untimed(const char *p, const char *end, struct line_info *li)
{
	const char *q, *close;

	if (end - p < 6 || p[0] != '[' || !strchr("IWEF", p[1]) || p[2] != ' ')
		return 0;
	close = memchr(p, ']', (size_t)(end - p));
	if (!close || close - p > 96)
		return 0;
	for (q = p + 3; q < close; q++)
		if (is_space(*q))
			return 0;
	li->level = p[1] == 'I' ? GL_LEVEL_INFO : p[1] == 'W' ? GL_LEVEL_WARN
			: p[1] == 'E' ? GL_LEVEL_ERROR : GL_LEVEL_CRITICAL;
	li->component = (struct gl_str){p + 3, (size_t)(close - p - 3)};
	li->msg = skip_seps(close + 1, end);
	li->msg_end = end;
	return 1;
}

/* "WARNING:torch.distributed.elastic...:msg" (Python's basicConfig). */
static int pylog_basic(const char *p, const char *end, struct line_info *li)
{
	const char *c1 = memchr(p, ':', (size_t)(end - p) < 10 ? (size_t)(end - p) : 10), *c2;
	enum gl_level lv;

	if (!c1 || (lv = gl_level_parse(p, (size_t)(c1 - p))) == GL_LEVEL_NONE)
		return 0;
	for (const char *q = p; q < c1; q++)
		if (*q < 'A' || *q > 'Z')
			return 0;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!c2)
		return 0;
	for (const char *q = c1 + 1; q < c2; q++)
		if (is_space(*q))
			return 0;
	li->level = lv;
	li->component = (struct gl_str){c1 + 1, (size_t)(c2 - c1 - 1)};
	li->msg = c2 + 1;
	li->msg_end = end;
	return 1;
}

/* "[transformers] msg", "srun: error: ...", "kernel: NVRM: ...", "NVRM: ...". */
static int tagged(const char *p, const char *end, struct line_info *li)
{
	static const char *const tags[] = {"srun: ", "slurmstepd: ", "kernel: ", "NVRM: ",
					   "terminate called", "Traceback (most recent call last)"};
	const char *close;

	if (p < end && *p == '[' && (close = memchr(p, ']', (size_t)(end - p))) && close - p < 40 &&
	    close + 1 < end && close[1] == ' ') {
		for (const char *q = p + 1; q < close; q++)
			if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
			      *q == '-' || *q == '.'))
				return 0;
		if (close == p + 1)
			return 0;
		li->component = (struct gl_str){p + 1, (size_t)(close - p - 1)};
		li->msg = close + 2;
		li->msg_end = end;
		return 1;
	}
	{
		/* "libibverbs: Warning: couldn't open ..." */
		const char *q = p;
		struct gl_str a = token(&q, end), b = token(&q, end);
		enum gl_level lv;

		if (a.len > 1 && a.len < 32 && a.p == p && a.p[a.len - 1] == ':' && b.len &&
		    b.p[b.len - 1] == ':' && (lv = level_word(b.p, b.len)) != GL_LEVEL_NONE) {
			li->component = (struct gl_str){a.p, a.len - 1};
			li->level = lv;
			li->msg = skip_seps(q, end);
			li->msg_end = end;
			return 1;
		}
	}
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (!starts(p, end, tags[i]))
			continue;
		if (i < 3) {
			li->component = (struct gl_str){p, strlen(tags[i]) - 2};
			li->msg = p + strlen(tags[i]);
		} else {
			li->msg = p;
			if (i == 3)
				li->component = (struct gl_str){"kernel", 6};
			if (i >= 4)
				li->level = GL_LEVEL_ERROR;
		}
		li->msg_end = end;
		return 1;
	}
	return 0;
}

/*
 * After a timestamp: level, component, message. pre is the text before the
 * stamp (the Talos "192.168.11.119: kern: warning:", vLLM's "INFO").
 */
static void after_stamp(const char *pre, const char *pre_end, const char *p, const char *end,
			const struct gl_textts *t, struct line_info *li)
{
	const char *q;
	struct gl_str tok;

	li->level = GL_LEVEL_NONE;
	if (t->glog_level) {
		li->level = t->glog_level == 'I' ? GL_LEVEL_INFO : t->glog_level == 'W' ? GL_LEVEL_WARN
			    : t->glog_level == 'E' ? GL_LEVEL_ERROR : GL_LEVEL_CRITICAL;
		/* " 653 torch/distributed/run.py:851] msg" */
		q = p;
		tok = token(&q, end);
		if (tok.len && is_digit(tok.p[0])) {
			tok = token(&q, end);
			if (tok.len && tok.p[tok.len - 1] == ']') {
				const char *slash = tok.p + tok.len;

				while (slash > tok.p && slash[-1] != '/')
					slash--;
				li->component = (struct gl_str){slash, (size_t)(tok.p + tok.len - 1 - slash)};
				p = q;
			}
		} else if (tok.len && tok.p[tok.len - 1] == ']') {
			/* c10: "[W1126 14:01:08.431698933 reducer.cpp:1502] msg": tok is the file */
			li->component = (struct gl_str){tok.p, tok.len - 1};
			p = q;
		}
		li->msg = skip_seps(p, end);
		li->msg_end = end;
		return;
	}
	/* a level before the stamp: "INFO 09-15 14:42:21", "kern: warning: [..]" */
	for (q = pre; q < pre_end;) {
		tok = token(&q, pre_end);
		if (!tok.len)
			break;
		if ((li->level = level_word(tok.p, tok.len)) != GL_LEVEL_NONE)
			break;
	}
	p = skip_seps(p, end);
	if (li->level == GL_LEVEL_NONE) {
		q = p;
		tok = token(&q, end);
		if ((li->level = level_word(tok.p, tok.len)) != GL_LEVEL_NONE)
			p = skip_seps(q, end);
	}
	/* a component: "[logging.py:69:log_dist]", "name - msg", syslog "host tag: msg" */
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && close - p < 64 && !memchr(p, ' ', (size_t)(close - p))) {
			li->component = (struct gl_str){p + 1, (size_t)(close - p - 1)};
			p = skip_seps(close + 1, end);
		}
	} else if (t->kind == GL_TEXTTS_NOYEAR || t->kind == GL_TEXTTS_BOOT) {
		struct gl_str a, b;

		q = p;
		a = token(&q, end);
		b = token(&q, end);
		if (a.len > 1 && a.p[a.len - 1] == ':') {
			li->component = (struct gl_str){a.p, a.len - 1};
			p = a.p + a.len;
		} else if (b.len > 1 && b.p[b.len - 1] == ':' && t->kind == GL_TEXTTS_NOYEAR) {
			li->component = (struct gl_str){b.p, b.len - 1};
			p = b.p + b.len;
		}
		if (li->component.p) {
			/* "gala[1773]" -> "gala" */
			const char *br = memchr(li->component.p, '[', li->component.len);

			if (br)
				li->component.len = (size_t)(br - li->component.p);
		}
	} else {
		const char *sep = find(p, end > p + 80 ? p + 80 : end, " - ");

		if (sep && sep > p && !memchr(p, ' ', (size_t)(sep - p))) {
			li->component = (struct gl_str){p, (size_t)(sep - p)};
			p = sep + 3;
		}
	}
	if (t->kind == GL_TEXTTS_NOYEAR || t->kind == GL_TEXTTS_BOOT) {
		/* "kernel: [82659.755847] NVRM: ..." keeps the dmesg time out of the message */
		struct gl_textts t2;

		p = skip_seps(p, end);
		if (p < end && *p == '[' && gl_textts_scan(p, (size_t)(end - p), 0, &t2) &&
		    t2.kind == GL_TEXTTS_BOOT)
			p += t2.end;
	}
	li->msg = skip_seps(p, end);
	li->msg_end = end;
}

/* The UTC time of a stamp; *est 1 when placed, not read. GL_TS_NONE: impossible date. */
static int64_t stamp_time(struct gl_parse_ctx *ctx, struct text_state *st, const struct gl_textts *t,
			  int *est)
{
	int64_t mtime = ctx->file_mtime_us ? ctx->file_mtime_us : gl_time_now_us();
	int64_t v;

	*est = 0;
	switch (t->kind) {
	case GL_TEXTTS_ISO:
		return t->has_zone ? t->naive_us : gl_ctx_naive_to_utc(ctx, t->naive_us);
	case GL_TEXTTS_SLASH:
		slash_order(st, t);
		v = gl_textts_slash(t, (st->flags & F_DMY_KNOWN) ? (st->flags & F_DMY) != 0
								 : ctx->date_order == GL_DATE_ORDER_DMY);
		return v < 0 ? GL_TS_NONE : gl_ctx_naive_to_utc(ctx, v);
	case GL_TEXTTS_NOYEAR:
		if (!st->year) {
			int64_t y;
			unsigned m, d;

			gl_civil_from_days(mtime / GL_US_PER_DAY, &y, &m, &d);
			st->year = y = gl_textts_year_back(t, y);
			if (gl_ctx_naive_to_utc(ctx, gl_textts_in_year(t, y)) > mtime + GL_US_PER_DAY)
				st->year = gl_textts_year_back(t, y - 1);
		}
		v = gl_ctx_naive_to_utc(ctx, gl_textts_in_year(t, st->year));
		if (st->last_us != GL_TS_NONE && v < st->last_us - 183 * GL_US_PER_DAY) {
			st->year++;
			v = gl_ctx_naive_to_utc(ctx, gl_textts_in_year(t, st->year));
		}
		/* Feb 29 in a year without one (the file's stamps fix it): no date, not Mar 1 */
		return gl_civil_valid(st->year, t->a, t->b) ? v : GL_TS_NONE;
	case GL_TEXTTS_BOOT:
		*est = 1;
		if (st->boot_us == GL_TS_NONE)
			st->boot_us = mtime - t->naive_us;
		return st->boot_us + t->naive_us;
	default:
		return GL_TS_NONE;
	}
}

/* "torch.OutOfMemoryError: CUDA out of memory. ..." (a Python exception's last line). */
static int exception_line(const char *p, const char *end, struct line_info *li)
{
	const char *q = p, *colon;

	while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || is_digit(*q) ||
			   *q == '_' || *q == '.'))
		q++;
	colon = q;
	if (colon >= end || *colon != ':' || colon - p < 5 ||
	    !(find(p, colon, "Error") || find(p, colon, "Exception")))
		return 0;
	li->level = GL_LEVEL_ERROR;
	li->msg = p;
	li->msg_end = end;
	return 1;
}

/* Classifies the text after the prefixes: 1 when it starts a record. */
static int classify(struct gl_parse_ctx *ctx, struct text_state *st, const char *p,
		    const char *end, struct line_info *li)
{
	struct gl_textts t;

	/* NCCL_DEBUG_TIMESTAMP_FORMAT's "[2026-11-26 14:02:09] host:pid:tid [0] NCCL INFO ..." */
	if (gl_textts_scan(p, (size_t)(end - p), 1, &t)) {
		const char *q = p + t.end;
		int est;

		while (q < end && (is_space(*q) || *q == ']'))
			q++;
		if (nccl_line(q, end, li)) {
			int64_t ts = stamp_time(ctx, st, &t, &est);

			if (ts != GL_TS_NONE) {
				li->ts_us = ts;
				li->ts_estimated = est;
				if (!est)
					st->flags |= F_TIMED;
			}
			return 1;
		}
	}
	if (nccl_line(p, end, li))
		return 1;
	if (gl_textts_scan(p, (size_t)(end - p), TS_MAX_START, &t)) {
		int est;
		int64_t ts;

		if (t.kind == GL_TEXTTS_BAD) {
			li->bad_date = 1;
			return 1;
		}
		ts = stamp_time(ctx, st, &t, &est);

		if (ts != GL_TS_NONE) {
			li->ts_us = ts;
			li->ts_estimated = est;
			after_stamp(p, p + t.start, p + t.end, end, &t, li);
			if (!est)
				st->flags |= F_TIMED;
			return 1;
		}
	}
	if (glog_untimed(p, end, li) || pylog_basic(p, end, li) || tagged(p, end, li) ||
	    exception_line(p, end, li))
		return 1;
	if (gl_train_parse(p, (size_t)(end - p), &li->train)) {
		li->msg = p;
		li->msg_end = end;
		return 1;
	}
	return 0;
}

/* Labels {"run":..., "rank":...} of train samples, in scratch. */
static struct gl_str sample_labels(struct gl_parse_ctx *ctx, const struct text_state *st, long rank)
{
	struct gl_jsonw w;
	char *buf;

	gl_jsonw_begin(&w, NULL, 0);
	gl_jsonw_str(&w, "run", st->run, strlen(st->run));
	if (rank >= 0)
		gl_jsonw_int(&w, "rank", rank);
	gl_jsonw_end(&w);
	buf = gl_ctx_scratch(ctx, w.len + 1);
	if (!buf)
		return (struct gl_str){NULL, 0};
	gl_jsonw_begin(&w, buf, w.len + 1);
	gl_jsonw_str(&w, "run", st->run, strlen(st->run));
	if (rank >= 0)
		gl_jsonw_int(&w, "rank", rank);
	gl_jsonw_end(&w);
	return (struct gl_str){buf, w.len};
}

struct sample_set {
	struct gl_sample v[16];
	size_t n;
};

static void add_sample(struct sample_set *s, const char *metric, double value)
{
	if (isnan(value) || s->n >= sizeof(s->v) / sizeof(s->v[0]))
		return;
	s->v[s->n].metric = (struct gl_str){metric, strlen(metric)};
	s->v[s->n].value = value;
	s->n++;
}

/* The NCCL facts of a message, into w. */
static void nccl_facts(struct gl_jsonw *w, const char *m, const char *end)
{
	const char *p;

	if ((p = find(m, end, "NCCL version ")) != NULL) {
		const char *q = p + 13;

		while (q < end && !is_space(*q))
			q++;
		gl_jsonw_str(w, "nccl_version", p + 13, (size_t)(q - p - 13));
	}
	if ((p = find(m, end, " nranks ")) != NULL) {
		const char *q = p + 8;

		gl_jsonw_int(w, "nranks", digits_at(&q, end));
	}
	if ((p = find(m, end, "Init COMPLETE")) != NULL)
		gl_jsonw_bool(w, "init_complete", 1);
	if ((p = find(m, end, "Init timings")) != NULL && (p = find(p, end, " total ")) != NULL)
		gl_jsonw_double(w, "init_s", num_before(p + 7, end));
	if ((p = find(m, end, " via ")) != NULL) {
		const char *q = p + 5;

		while (q < end && *q != '/' && !is_space(*q))
			q++;
		gl_jsonw_str(w, "transport", p + 5, (size_t)(q - p - 5));
	}
}

/* Metadata of a record, written twice (count, then into scratch). */
static void write_meta(struct gl_jsonw *w, const struct text_state *st, const struct line_info *li)
{
	if (li->rank >= 0 || st->path_rank >= 0)
		gl_jsonw_int(w, "rank", li->rank >= 0 ? li->rank : st->path_rank);
	if (li->ts_estimated)
		gl_jsonw_int(w, "ts_estimated", 1);
	if (li->has_xid) {
		const char *m = gl_xid_meaning(li->xid.code);

		gl_jsonw_int(w, "xid", li->xid.code);
		if (li->xid.pci.p && li->xid.pci.len < 32) {
			/* nvidia-smi writes "0000:3B:00", the driver "0000:3b:00": one bus */
			char pci[32];

			for (size_t i = 0; i < li->xid.pci.len; i++)
				pci[i] = (char)tolower((unsigned char)li->xid.pci.p[i]);
			gl_jsonw_str(w, "pci", pci, li->xid.pci.len);
		}
		if (li->xid.pid >= 0)
			gl_jsonw_int(w, "pid", li->xid.pid);
		if (li->xid.name.p)
			gl_jsonw_str(w, "process", li->xid.name.p, li->xid.name.len);
		if (m)
			gl_jsonw_str(w, "xid_meaning", m, strlen(m));
		gl_jsonw_bool(w, "xid_critical", gl_xid_critical(li->xid.code));
	}
	if (li->nccl) {
		gl_jsonw_str(w, "host", li->nccl_host.p, li->nccl_host.len);
		gl_jsonw_int(w, "pid", li->nccl_pid);
		gl_jsonw_int(w, "device", li->nccl_dev);
		nccl_facts(w, li->msg, li->msg_end);
	}
	if (li->has_train) {
		const struct gl_train *t = &li->train;

		gl_jsonw_str(w, "train", t->source, strlen(t->source));
		gl_jsonw_str(w, "run", st->run, strlen(st->run));
		if (t->step >= 0)
			gl_jsonw_double(w, "step", t->step);
		else if (st->last_done >= 0)
			gl_jsonw_double(w, "bar_step", st->last_done);
		if (!isnan(t->loss))
			gl_jsonw_double(w, "loss", t->loss);
		if (!isnan(t->eval_loss))
			gl_jsonw_double(w, "eval_loss", t->eval_loss);
		if (!isnan(t->grad_norm))
			gl_jsonw_double(w, "grad_norm", t->grad_norm);
		if (!isnan(t->learning_rate))
			gl_jsonw_double(w, "learning_rate", t->learning_rate);
		if (!isnan(t->epoch))
			gl_jsonw_double(w, "epoch", t->epoch);
		if (!isnan(t->iteration_ms))
			gl_jsonw_double(w, "iteration_ms", t->iteration_ms);
		if (!isnan(t->samples_per_s))
			gl_jsonw_double(w, "samples_per_s", t->samples_per_s);
		if (!isnan(t->tokens_per_s))
			gl_jsonw_double(w, "tokens_per_s", t->tokens_per_s);
	}
}

static struct gl_str metadata(struct gl_parse_ctx *ctx, const struct text_state *st,
			      const struct line_info *li)
{
	struct gl_jsonw w;
	char *buf;

	gl_jsonw_begin(&w, NULL, 0);
	write_meta(&w, st, li);
	gl_jsonw_end(&w);
	if (w.fields == 0)
		return (struct gl_str){NULL, 0};
	buf = gl_ctx_scratch(ctx, w.len + 1);
	if (!buf)
		return (struct gl_str){NULL, 0};
	gl_jsonw_begin(&w, buf, w.len + 1);
	write_meta(&w, st, li);
	gl_jsonw_end(&w);
	return (struct gl_str){buf, w.len};
}

/* Hands the record's samples to rec (train values, the progress bar). */
static void put_samples(struct gl_parse_ctx *ctx, const struct text_state *st,
			const struct line_info *li, struct gl_rec *rec)
{
	struct sample_set s = {.n = 0};
	struct gl_sample *out;
	struct gl_str labels;

	if (li->has_bar && !li->bar.has_desc) {
		add_sample(&s, "train.it_per_s", li->bar.it_per_s);
		add_sample(&s, "train.progress_steps", li->bar.done);
	}
	/* a trainer's values at a time of their own: read, or placed by the bar (estimated) */
	if (li->has_train && (!li->ts_estimated || li->bar_placed)) {
		const struct gl_train *t = &li->train;

		if (t->step >= 0)
			add_sample(&s, "train.step", t->step);
		add_sample(&s, "train.loss", t->loss);
		add_sample(&s, "train.eval_loss", t->eval_loss);
		add_sample(&s, "train.grad_norm", t->grad_norm);
		add_sample(&s, "train.learning_rate", t->learning_rate);
		add_sample(&s, "train.epoch", t->epoch);
		add_sample(&s, "train.iteration_ms", t->iteration_ms);
		add_sample(&s, "train.samples_per_s", t->samples_per_s);
		add_sample(&s, "train.tokens_per_s", t->tokens_per_s);
	}
	if (!s.n || !(out = gl_ctx_samples(ctx, s.n)))
		return;
	labels = sample_labels(ctx, st, li->rank >= 0 ? li->rank : st->path_rank);
	for (size_t i = 0; i < s.n; i++) {
		out[i] = s.v[i];
		out[i].ts_us = li->ts_us;
		out[i].labels = labels;
		out[i].ts_estimated = li->ts_estimated;
	}
	rec->samples = out;
	rec->n_samples = s.n;
}

/*
 * "NVRM: The NVIDIA GPU 0000:b3:00.0" at a line's end: the first line of a
 * lost GPU's message, whose "fallen off the bus" comes on a later line;
 * keeps the bus ("0000:b3:00", as an Xid line writes it) in st.
 */
static void lost_gpu_line(struct text_state *st, const char *m, const char *end)
{
	const char *p = find(m, end, "The NVIDIA GPU "), *q;
	size_t n;

	if (!p)
		return;
	p += strlen("The NVIDIA GPU ");
	for (q = p; q < end && (is_digit(*q) || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F') ||
				*q == ':' || *q == '.'); q++)
		;
	n = (size_t)(q - p);
	if (n > 2 && p[n - 2] == '.')
		n -= 2;
	if (n < 7 || n >= sizeof(st->lost_pci))
		return;
	memcpy(st->lost_pci, p, n);
	st->lost_pci[n] = '\0';
}

static int64_t untimed_ts(struct gl_parse_ctx *ctx, const struct text_state *st)
{
	/* behind a bar: its start plus its elapsed time, when that is later */
	if (st->bar_us != GL_TS_NONE && (st->last_us == GL_TS_NONE || st->bar_us > st->last_us))
		return st->bar_us;
	if (st->last_us != GL_TS_NONE)
		return st->last_us;
	return ctx->file_mtime_us ? ctx->file_mtime_us : gl_time_now_us();
}

static void text_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	struct text_state *st = state_of(ctx);
	const char *p = line, *end = line + len, *cr;
	struct line_info li;
	long rank = -1;
	int starts_record, after_bar = (st->flags & F_AFTER_BAR) != 0;

	gl_event_init(&rec->ev);
	rec->reason = NULL;
	rec->samples = NULL;
	rec->n_samples = 0;
	memset(&li, 0, sizeof(li));
	li.rank = -1;
	li.ts_us = GL_TS_NONE;
	/* tqdm's '\r' updates in one line: the last part is what the terminal showed */
	while ((cr = memchr(p, '\r', (size_t)(end - p))) != NULL && cr + 1 < end)
		p = cr + 1;
	/* "[1860] " pasted line numbers (an issue's log) */
	if (p + 3 < end && *p == '[' && is_digit(p[1])) {
		const char *q = p + 1;

		while (q < end && is_digit(*q))
			q++;
		if (q + 1 < end && *q == ']' && q[1] == ' ')
			p = q + 2;
		else if (q + 1 == end && *q == ']')
			p = end;
	}
	while (launcher_prefix(&p, end, &rank))
		;
	li.rank = rank;
	/* "[default0]:   " (tqdm clearing its line): nothing to store */
	if (rank >= 0) {
		const char *q = p;

		while (q < end && is_space(*q))
			q++;
		if (q == end) {
			rec->kind = GL_REC_NONE;
			return;
		}
	}
	if (gl_tqdm_parse(p, (size_t)(end - p), &li.bar) &&
	    (!li.bar.has_desc || li.bar.start < 96)) {
		const char *after = p + li.bar.end;

		li.has_bar = 1;
		if (!li.bar.has_desc) {
			/* "[00:04<10:54:26, 25.47it/s]": 4 s since the loop began; a bar
			 * whose count falls is a new loop (the next epoch's, an eval's) */
			if (!isnan(li.bar.elapsed_s)) {
				int64_t el_us = (int64_t)(li.bar.elapsed_s * 1e6);

				if (li.bar.done < st->last_done)
					st->bar_t0_us = GL_TS_NONE;
				if (st->last_us != GL_TS_NONE &&
				    (st->bar_t0_us == GL_TS_NONE || st->last_us - el_us > st->bar_t0_us))
					st->bar_t0_us = st->last_us - el_us;
				st->bar_us = st->bar_t0_us == GL_TS_NONE ? GL_TS_NONE : st->bar_t0_us + el_us;
			}
			st->last_done = li.bar.done;
		}
		while (launcher_prefix(&after, end, &rank))
			;
		if (rank >= 0)
			li.rank = rank;
		p = after;
		if (p >= end) {
			li.ts_us = untimed_ts(ctx, st);
			li.ts_estimated = 1;
			put_samples(ctx, st, &li, rec);
			rec->kind = rec->n_samples ? GL_REC_SAMPLES : GL_REC_NONE;
			/* a samples line ends the record before it (ingest stores it) */
			if (rec->kind == GL_REC_SAMPLES)
				st->flags |= F_AFTER_BAR;
			return;
		}
	}
	/* JSON (a broken JSON record is the JSON reader's reject, not text) */
	{
		const char *q = p;

		while (q < end && is_space(*q))
			q++;
		if ((q < end && (*q == '"' || *q == '}' || *q == ']')) ||
		    (q + 1 < end && (*q == '{' || *q == '[') &&
		     (q[1] == '"' || q[1] == '{' || q[1] == '[' || (*q == '{' && q[1] == ' ')))) {
			rec->kind = (st->flags & F_RECORD) ? GL_REC_CONT : GL_REC_FOREIGN;
			return;
		}
	}
	/* a traceback continues the record before it in a timestamped log, up to
	 * and with the exception's line (the first unindented line after it) */
	if ((st->flags & (F_TIMED | F_RECORD)) == (F_TIMED | F_RECORD) &&
	    starts(p, end, "Traceback (most recent call last)")) {
		st->flags |= F_IN_TB;
		rec->kind = GL_REC_CONT;
		return;
	}
	if (st->flags & F_IN_TB) {
		struct gl_textts t;

		if (!gl_textts_scan(p, (size_t)(end - p), TS_MAX_START, &t) && !nccl_line(p, end, &li)) {
			if (p < end && !is_space(*p))
				st->flags &= ~(uint32_t)F_IN_TB;
			rec->kind = GL_REC_CONT;
			return;
		}
		st->flags &= ~(uint32_t)F_IN_TB;
		memset(&li, 0, sizeof(li));
		li.rank = rank;
		li.ts_us = GL_TS_NONE;
	}
	st->flags &= ~(uint32_t)F_AFTER_BAR;
	starts_record = classify(ctx, st, p, end, &li);
	if (!starts_record && (li.rank >= 0 || li.has_bar) && p < end && !is_space(*p))
		starts_record = 1;
	if (!starts_record && !(st->flags & F_TIMED) && (st->flags & F_RECORD) && p < end &&
	    !is_space(*p))
		starts_record = 1;
	/* what follows a bar alone has no record to continue: it is one */
	if (!starts_record && after_bar && p < end)
		starts_record = 1;
	/* the driver's lost GPU over three lines, the last two indented (dmesg's
	 * continuation, as NVSentinel's syslog monitor reads it from journald):
	 *     [ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0
	 *                    NVRM: (PCI ID: 10de:26b5) installed in this system has
	 *                    NVRM: fallen off the bus and is not responding to commands.
	 * the last line is the Xid 79 record of the bus the first one named */
	if (!starts_record && st->lost_pci[0] && (st->flags & F_RECORD) &&
	    find(p, end, "NVRM:") && find(p, end, "fallen off the bus")) {
		starts_record = 1;
		li.msg = find(p, end, "NVRM:");
		li.msg_end = end;
	}
	if (!starts_record) {
		if (st->flags & F_RECORD) {
			rec->kind = GL_REC_CONT;
			return;
		}
		rec->kind = p < end ? GL_REC_REJECT : GL_REC_NONE;
		rec->reason = "text before the first record";
		return;
	}
	if (li.bad_date) {
		/* "2026-02-31 10:00:00 INFO ...", "1900-01-01 ...": no time to place it at */
		rec->kind = GL_REC_REJECT;
		rec->reason = "a date or time not in the calendar, or before 1970 or after 9999";
		return;
	}
	if (!li.msg) {
		li.msg = p;
		li.msg_end = end;
	}
	if (li.ts_us == GL_TS_NONE) {
		li.ts_us = untimed_ts(ctx, st);
		li.ts_estimated = 1;
		li.bar_placed = st->bar_us != GL_TS_NONE && li.ts_us == st->bar_us;
	} else if (!li.ts_estimated) {
		st->last_us = li.ts_us;
	}
	st->flags |= F_RECORD;
	if (starts(li.msg, li.msg_end, "Traceback (most recent call last)")) {
		st->flags |= F_IN_TB;
		if (li.level == GL_LEVEL_NONE)
			li.level = GL_LEVEL_ERROR;
	}
	li.has_train = li.train.source ? 1 : gl_train_parse(li.msg, (size_t)(li.msg_end - li.msg),
							    &li.train);
	if (li.component.len == 4 && !memcmp(li.component.p, "NVRM", 4))
		li.has_xid = gl_xid_parse_nvrm(li.msg, (size_t)(li.msg_end - li.msg), &li.xid);
	else
		li.has_xid = gl_xid_parse(li.msg, (size_t)(li.msg_end - li.msg), &li.xid);
	if (li.has_xid) {
		li.level = gl_xid_critical(li.xid.code) ? GL_LEVEL_CRITICAL : GL_LEVEL_ERROR;
		if (li.xid.code == 79 && !li.xid.pci.len && st->lost_pci[0])
			li.xid.pci = (struct gl_str){st->lost_pci, strlen(st->lost_pci)};
	} else {
		lost_gpu_line(st, li.msg, li.msg_end);
	}
	rec->ev.ts_us = li.ts_us;
	rec->ev.level = li.level;
	if (li.component.p && li.component.len)
		rec->ev.component = li.component;
	rec->ev.message = (struct gl_str){li.msg, (size_t)(li.msg_end - li.msg)};
	rec->ev.metadata = metadata(ctx, st, &li);
	if (rec->ev.metadata.p && (li.has_xid || li.has_train))
		rec->ev.kind = li.has_xid ? GL_EV_XID : GL_EV_TRAIN;
	if (li.has_xid)
		st->lost_pci[0] = '\0';	/* used (li.xid.pci pointed here) */
	put_samples(ctx, st, &li, rec);
	rec->kind = GL_REC_EVENT;
}

const struct gl_format gl_fmt_text = {
	.name = "text",
	.summary = "timestamped text, training consoles, NCCL debug, kernel (NVRM Xid) logs",
	.flags = GL_FMT_MULTILINE | GL_FMT_FALLBACK,
	.parse = text_parse,
	.prepare = text_prepare,
};
