/*
 * format.h - the log formats gpulog-ingest understands, and what a parsed
 * line becomes.
 *
 * Pipeline stage: reader (one line, decompressed) -> format parse (this) ->
 * normalized record -> store. A format is one file lib/ingest/fmt_<name>.c
 * that defines `const struct gl_format gl_fmt_<name>`; the Makefile lists
 * every lib/ingest/fmt_*.c into build/gen/formats.h, so adding a format is
 * adding one file.
 */
#ifndef GL_FORMAT_H
#define GL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "../gpulog.h"
#include "../record/record.h"
#include "../util/timeutil.h"
#include "../util/tzfile.h"

/* Where the TZif files of time zones are (Debian's tzdata). */
#define GL_ZONEINFO "/usr/share/zoneinfo"

enum gl_rec_kind {
	GL_REC_FOREIGN = 0,	/* not a line of this format at all */
	GL_REC_NONE,		/* belongs to the format but holds nothing to store (CSV header, blank) */
	GL_REC_EVENT,		/* rec->ev is filled */
	GL_REC_MEM,		/* rec->mem is filled */
	GL_REC_CONT,		/* continues the previous record (traceback, wrapped message) */
	GL_REC_REJECT,		/* a line of this format, but malformed: rec->reason says why */
	GL_REC_SAMPLES,		/* only metric samples: rec->samples[0..n_samples) */
	GL_REC_SPAN,		/* rec->span is filled (samples may come with it) */
};

struct gl_rec {
	enum gl_rec_kind kind;
	struct gl_event ev;
	struct gl_memev mem;
	struct gl_span span;	/* GL_REC_SPAN */
	const char *reason;	/* GL_REC_REJECT: static string or ctx scratch */
	/*
	 * Metric samples of this line (from gl_ctx_samples()); with
	 * GL_REC_SAMPLES they are all the line holds, with GL_REC_EVENT they
	 * come with the event (a JSON record's memory_usage_mb, say). The
	 * caller zeroes both before each parse.
	 */
	struct gl_sample *samples;
	size_t n_samples;
};

/*
 * What the ingest config (gpulog-ingest --config) says about one file, for
 * the formats that need it. Absent: NULL / 0 / GL_TS_NONE / NAN.
 */
struct gl_input_hint {
	const char *const *columns;	/* headerless CSV: column names, nvidia-smi's field names */
	size_t n_columns;
	int64_t start_us;		/* rows without a time: the first row's time (UTC µs) */
	double interval_s;		/* ... and the seconds between rows */
};

/*
 * The order of a text date's two first fields ("03/04/2026") where the file
 * does not tell it: the ingest config's "date_order" (inconfig.h).
 */
enum gl_date_order {
	GL_DATE_ORDER_AUTO = 0,		/* not configured: month/day, as in the US */
	GL_DATE_ORDER_MDY,		/* "month_first" */
	GL_DATE_ORDER_DMY,		/* "day_first" */
};

/* Bytes of per-stream parse state a format may keep (see gl_parse_ctx.state). */
#define GL_PARSE_STATE_MAX 2048

/*
 * Per-file parse state. Owned by the caller (ingest), one per input stream;
 * a format may keep what it needs in it between lines.
 */
struct gl_parse_ctx {
	/*
	 * Formats with GL_FMT_TIME_OF_DAY print only a time of day. ingest
	 * sets day_us to the UTC midnight of the first record's day (derived
	 * from the file's modification time) before the first line. The
	 * parser adds the time of day to day_us; when a time of day is more
	 * than 12 hours before last_tod_us the clock has passed midnight and
	 * the parser advances day_us by one day. last_tod_us is -1 before the
	 * first record.
	 */
	int64_t day_us;
	int64_t last_tod_us;
	/* Growable scratch for unescaped strings; see gl_ctx_scratch(). */
	char *scratch;
	size_t scratch_cap;
	size_t scratch_used;
	/* Overflow for the rare string longer than the line's reserve; see
	 * gl_ctx_spill(). */
	char *spill;
	size_t spill_cap;
	/* The array gl_ctx_samples() hands out. */
	struct gl_sample *samples;
	size_t samples_cap;
	/*
	 * Set by ingest before the first line of a file; formats read them.
	 * file_mtime_us: the file's modification time (UTC µs), to place
	 * files whose clock is relative (gpufl's monotonic ts_ns, nsys'
	 * session-relative starts). tz_name: the zone naive timestamps are
	 * in (--timezone or the config's "timezone"; NULL: UTC); convert with
	 * gl_ctx_naive_to_utc(). hint: the config's entry for this file, or
	 * NULL.
	 */
	int64_t file_mtime_us;
	const char *tz_name;
	const struct gl_input_hint *hint;
	enum gl_date_order date_order;	/* the config's, for dd/dd/yyyy a file leaves open */
	/*
	 * For formats whose lines carry no time (BitNet-rs metrics lines),
	 * which place this run's new lines evenly between the file's previous
	 * and present modification times, by byte offset: new_bytes_total is
	 * the number of bytes of the stream this run reads (set by ingest
	 * before the first line; 0: unknown, then every line gets the
	 * file's mtime), bytes_done those of them before the line being
	 * parsed (ingest updates it before each line).
	 */
	uint64_t new_bytes_total;
	uint64_t bytes_done;
	/*
	 * For rows without a time placed back from the file's modification
	 * time (nvidia-smi dmon recorded without -o DT): the format sets
	 * untimed_group to the sample group of each such row (-1: none), and
	 * ingest, having parsed the whole file once before (prescan), sets
	 * untimed_start_us so that the last group falls on the file's mtime,
	 * one group per period (GL_TS_NONE: not known, such rows are rejected).
	 */
	int64_t untimed_group;
	int64_t untimed_start_us;
	/*
	 * Per-stream parse state that outlives a run: plain bytes (no
	 * pointers) that a format keeps between lines, such as a CSV header's
	 * column map or the GPU counter of a timestamp group. Ingest stores
	 * state[0..state_len) with the stream's position in the same
	 * transaction as the rows, and restores it before the first new line
	 * when the stream continues in a later run (the header was read in an
	 * earlier run and will not be seen again). state_len 0: none.
	 */
	unsigned char state[GL_PARSE_STATE_MAX];
	size_t state_len;
	/*
	 * Set by the format after each line: 1 when the line belongs to a
	 * record the format is still assembling (an event of a Kineto trace
	 * spans many lines). The position before the first line of an unbroken
	 * run of such lines is the furthest a run may claim as stored, and
	 * state[] is kept as of that position (a format changes state only on
	 * lines that end with hold 0). records.c claims no further while the
	 * run lasts, and keeps the rows such lines give until the line that
	 * ends it (rejects and samples go as they come).
	 */
	int hold;
	/*
	 * Set by the format after a line that holds further records it has
	 * not handed out yet (a monitor history written on one line: one
	 * record per entry). Ingest then hands the same line to the format
	 * again, with more reset to 0, until it stays 0; the format keeps its
	 * place in the line itself (in priv) and must not change state[]
	 * before the line's last record (a batch sent in between claims the
	 * position before the line, with state[] as it was there).
	 */
	int more;
	/*
	 * A format's heap memory for the file being parsed (Kineto's element
	 * buffer and correlation map): the format allocates it on first use
	 * and sets priv_free; gl_parse_ctx_release() frees it. Never stored:
	 * what must outlive a run goes into state[].
	 */
	void *priv;
	void (*priv_free)(void *priv);
	/* gl_ctx_naive_to_utc()'s cache: the offset of one naive minute */
	int64_t tz_minute;		/* naive µs / 60 s of the cached minute */
	int64_t tz_offset_us;		/* UTC - naive in that minute */
	const char *tz_cached;		/* the zone it was computed for; NULL: none yet */
	struct gl_tz *tz;		/* tz_loaded's TZif data; NULL: none or unreadable */
	const char *tz_loaded;		/* the zone tz was read for */
};

void gl_parse_ctx_init(struct gl_parse_ctx *ctx);
void gl_parse_ctx_release(struct gl_parse_ctx *ctx);

/*
 * Called by the caller before each parse of a line of len bytes: empties
 * the scratch space and makes sure it holds at least len + 256 bytes, so a
 * parser can always unescape every string of the line into it. Returns 0,
 * or -1 when memory runs out.
 */
int gl_ctx_begin_line(struct gl_parse_ctx *ctx, size_t len);

/*
 * Returns n bytes of scratch space in ctx, valid until the next
 * gl_ctx_begin_line(). NULL when the line's reserve is used up (never for a
 * total up to len + 256).
 */
char *gl_ctx_scratch(struct gl_parse_ctx *ctx, size_t n);

/*
 * n bytes for a string that need not fit the line's reserve (a value a
 * fallback parser re-serialised longer than the input). Valid until the
 * next gl_ctx_begin_line(); one spill per line. NULL when memory runs out.
 */
char *gl_ctx_spill(struct gl_parse_ctx *ctx, size_t n);

/*
 * An array of n samples for the current line, owned by ctx, valid until the
 * next gl_ctx_samples() or gl_ctx_begin_line(); its strings may point into
 * the line or ctx scratch. NULL when memory runs out.
 */
struct gl_sample *gl_ctx_samples(struct gl_parse_ctx *ctx, size_t n);

/*
 * A naive wall-clock time (read as if it were UTC: the µs since 1970 of
 * the written date and time) in ctx's zone (tz_name; NULL or "UTC": none),
 * turned into true UTC µs. A time in the hour a clock skips (02:30 on a
 * spring-forward night) is read as if the clock had not been moved (03:30
 * local); one in the hour it repeats takes the C library's choice. The
 * offset is cached per naive minute (zones change offset on whole minutes).
 */
int64_t gl_ctx_naive_to_utc(struct gl_parse_ctx *ctx, int64_t naive_us);

/* Bytes of the line's scratch reserve still free. */
size_t gl_ctx_scratch_left(const struct gl_parse_ctx *ctx);

/*
 * A mark of the scratch in use, and a return to it: what was handed out
 * after the mark is free again (a parser that gives up on a first attempt
 * hands its fallback the whole reserve).
 */
size_t gl_ctx_scratch_mark(const struct gl_parse_ctx *ctx);
void gl_ctx_scratch_reset(struct gl_parse_ctx *ctx, size_t mark);

/*
 * Applies the time-of-day rule above: tod_us is µs since midnight. Returns
 * the absolute UTC time in µs.
 */
int64_t gl_ctx_time_of_day(struct gl_parse_ctx *ctx, int64_t tod_us);

enum {
	GL_FMT_MULTILINE = 1,		/* lines that start no record continue the previous one */
	GL_FMT_TIME_OF_DAY = 2,		/* timestamps carry no date */
	/*
	 * The writer prints its header once, at its start (nvidia-smi
	 * --query-gpu -l): a file truncated in place (logrotate's
	 * copytruncate) goes on without it. The new stream of such a file
	 * starts with the parse state of the file's previous stream, when
	 * it was of the same format; a header it does print replaces it.
	 */
	GL_FMT_HEADER_ONCE = 4,
	/*
	 * A file is one document written once (a Kineto trace): its streams
	 * keep no hash per line (stream_lines). Those serve to find where a
	 * file truncated in place and written again departs from its stream;
	 * a rewritten document is a new document (its records already stored
	 * are found again by their record hash: dup_of). A trace of 2M
	 * kernels has 28M lines: 224 MB of line hashes, as much as its
	 * events. The stream is still recognised by its first line and
	 * checkpoints, so a re-run or a copy adds nothing.
	 */
	GL_FMT_DOCUMENT = 8,
	/*
	 * A reader of last resort (fmt_text.c: any timestamped text): detection
	 * takes it only when it finds more records in the file's first lines
	 * than every other format (it wins no tie), and a line that the file's own format does not take is tried
	 * in it only after every other format, without the stream switching
	 * to it (the next line is again the file's format's).
	 */
	GL_FMT_FALLBACK = 16,
};

struct gl_format {
	const char *name;	/* short name for --format, e.g. "json" */
	const char *summary;	/* one line for --list-formats */
	unsigned flags;		/* GL_FMT_* */
	/*
	 * Classifies and parses one line (without its '\n'; a trailing '\r'
	 * is already removed). Fills rec. Strings in rec point into line or
	 * into ctx scratch and stay valid until the next call on ctx. Never
	 * fails: a bad line is GL_REC_REJECT with a reason.
	 */
	void (*parse)(struct gl_parse_ctx *ctx, const char *line, size_t len,
		      struct gl_rec *rec);
	/*
	 * Optional (NULL: none). Called by ingest once before the first line
	 * of a file that starts a new stream, with the file's path and
	 * ctx->file_mtime_us set: a format whose times are relative (gpufl's
	 * monotonic ts_ns, nsys' session-relative starts) or whose time base
	 * is written after the events (Kineto's baseTimeNanoseconds) reads what
	 * it needs from the file (plain or gzip) and keeps it in ctx->state.
	 * Returns 0, or -1 when the file cannot be read (the lines are then
	 * parsed without it), or 1 when what it needs is not written yet (a
	 * trace being written, whose time base comes at its end): a file that
	 * has not settled is then left for a later run, read whole then.
	 */
	int (*prepare)(struct gl_parse_ctx *ctx, const char *path);
	/*
	 * Optional (NULL: none). Called by gl_format_detect() when no format
	 * fits a file's first lines: returns a short static reason when they
	 * are other output of this format's tool that holds no records (the
	 * console summary of `nsys profile --stats=true`), else NULL. The
	 * reason says what to write instead.
	 */
	const char *(*refuse)(const struct gl_str *lines, size_t n);
	/*
	 * Optional (NULL: none). Called by ingest once after the last line a
	 * run reads of a file, when that line left ctx->hold set (a record
	 * still being assembled at the end of the file) and the file has
	 * settled (unchanged for GL_SETTLE_US: its writer is not in the middle
	 * of the record). Returns a short static reason when the format knows
	 * the record is cut there (a JSON document without its closing brace),
	 * having forgotten it (ctx->state as after a record). Ingest stores
	 * the reason as a reject of the last line: for a plain file as part of
	 * an open record (gl_sstream.open_end), with ctx->state as it was
	 * before the call, so that a file that grows later (its writer had
	 * paused) is read on from before the record and the reject goes; for
	 * gzip, claiming the held lines. Said once either way. NULL: the lines
	 * stay held and are read again when the file grows.
	 */
	const char *(*end)(struct gl_parse_ctx *ctx);
	/*
	 * Optional (NULL: none). Given a stream's stored parse state, says
	 * whether records of the stream were placed at its file's modification
	 * time (a Prometheus scrape without timestamps: one scrape per file).
	 * The same lines then mean new records when the time differs: such a
	 * stream is continued, copied or branched only by a file with the
	 * modification time of a file that holds it (`curl > m.prom` every
	 * minute, the textfile collector's write-temp-and-rename).
	 */
	int (*at_mtime)(const unsigned char *state, size_t len);
	/*
	 * Optional (NULL: none). Called by ingest after the last line a run
	 * reads of a file that has settled while a run of held lines is open
	 * (a trace whose writer stopped before its closing "]}"): hands out,
	 * one per call, a record the format still holds back (a kernel waiting
	 * for its launch call) and returns 1; returns 0 when none is left.
	 * ctx->state is not changed: the rows of the held run are stored as an
	 * open record (gl_sstream.open_end), replaced when a later run reads
	 * the run again because the file grew.
	 */
	int (*settle)(struct gl_parse_ctx *ctx, struct gl_rec *rec);
};

/* All formats, in detection priority order; NULL-terminated. */
extern const struct gl_format *const gl_formats[];

/* The format called name, or NULL. */
const struct gl_format *gl_format_find(const char *name);

/*
 * Chooses the format of a file from its first lines (lines[0..n), each
 * without '\n'). Returns NULL when no format fits; then *why is set to a
 * short static reason ("binary data", "JSON of an unknown shape", ...).
 */
const struct gl_format *gl_format_detect(const struct gl_str *lines, size_t n,
					 const char **why);
/*
 * The same, with the config's entry for the file (NULL: none): lines that
 * are records only with the entry's start and interval_s (dmon, dcgmi dmon
 * without time columns) count as records (issue 28, D9).
 */
const struct gl_format *gl_format_detect_hint(const struct gl_str *lines, size_t n,
					      const struct gl_input_hint *hint, const char **why);

/*
 * Looks at the first raw bytes of a file: returns a short static reason
 * ("a PNG image", "binary data") when they are not text, else NULL. NUL
 * bytes never decide (a hole left by copytruncate is 4,000 of them before
 * the first line), nor do junk bytes when one clean line is among them.
 */
const char *gl_format_sniff(const char *p, size_t n);

/*
 * Kernel timings written as text, e.g. "Kernel force_pass_kernel executed
 * in 512.34μs" (also µs, us, ns, ms, s). On a match sets *kernel (a slice
 * of msg) and *dur_us and returns 1; else returns 0.
 */
int gl_kernel_from_text(const char *msg, size_t len, struct gl_str *kernel, double *dur_us);

#endif
