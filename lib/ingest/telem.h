/*
 * telem.h - pieces shared by the telemetry formats (fmt_nvsmi, fmt_dmon,
 * fmt_pmon, fmt_dcgmi): the column map they keep in ctx->state, values
 * with units and missing markers, times from the ingest config's hint, and
 * the sample-group counter.
 *
 * The column map lives in the per-stream state (gl_parse_ctx.state), so it
 * is plain bytes: metric names are offsets into a pool inside the map. A
 * format recognises its own state by magic; a state another format wrote
 * is never read or overwritten.
 */
#ifndef GL_TELEM_H
#define GL_TELEM_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "vocab.h"

#define GL_TELEM_MAX_COLS 48
#define GL_TELEM_POOL 720
#define GL_TELEM_SEEN 24

/* What a column holds. */
enum gl_telem_kind {
	GL_TK_SKIP = 0,		/* text that is neither a metric nor a label */
	GL_TK_METRIC,		/* a number: sample of names[i] */
	GL_TK_TS,		/* nvidia-smi timestamp "2023/06/22 18:56:56.252" */
	GL_TK_DATE,		/* dmon -o D: "20230413" */
	GL_TK_TIME,		/* dmon -o T: "10:20:15" */
	GL_TK_GPU,		/* GPU index: device */
	GL_TK_UUID,		/* label uuid */
	GL_TK_NAME,		/* label name */
	GL_TK_PCI,		/* label pci_bus_id */
	GL_TK_PID,		/* pmon: label pid */
	GL_TK_TYPE,		/* pmon: label type (C/G) */
	GL_TK_CMD,		/* pmon: label command */
	GL_TK_ENTITY,		/* dcgmi: "GPU 0", two tokens */
};

/*
 * The per-stream state of a telemetry format. Everything a run needs to go
 * on reading a stream whose header an earlier run saw.
 */
struct gl_telem_state {
	uint32_t magic;			/* the format's; anything else: no state */
	uint16_t ncols;
	uint8_t has_header;		/* columns known (header seen or taken from the hint) */
	uint8_t expect;			/* nvsmi transcript: next line is date /T (1) or time /T (2) output */
	int64_t group;			/* sample group of the last row (-1 none): hint-timed rows */
	uint32_t in_group;		/* rows in the current group (nvsmi: the next GPU index) */
	uint32_t n_seen;		/* keys of the current group (devices or device+pid) */
	uint64_t seen[GL_TELEM_SEEN];
	int64_t prev_naive_us;		/* naive time of the last row, GL_TS_NONE: none */
	int64_t echo_day_us;		/* nvsmi transcript: naive midnight from date /T, GL_TS_NONE */
	/*
	 * nvsmi transcript: the UTC time from time /T; a format that places
	 * rows from the file's mtime (gl_telem_ws.place_by_mtime): the time of
	 * sample group 0, kept for the lines a later run reads. GL_TS_NONE.
	 */
	int64_t echo_us;
	int64_t zone_naive_s;		/* naive second last converted, and its offset: */
	int64_t zone_off_us;		/* UTC = naive + offset (a cache of gl_ctx_naive_to_utc) */
	uint8_t kind[GL_TELEM_MAX_COLS];
	uint16_t name_off[GL_TELEM_MAX_COLS];
	double scale[GL_TELEM_MAX_COLS];
	uint16_t pool_used;
	char pool[GL_TELEM_POOL];
};

/* The state of ctx when it is the format's (magic), else NULL. */
struct gl_telem_state *gl_telem_state(struct gl_parse_ctx *ctx, uint32_t magic);

/*
 * A fresh state of the format in ctx (overwriting nothing of another
 * format: returns NULL when ctx holds another format's state).
 */
struct gl_telem_state *gl_telem_state_new(struct gl_parse_ctx *ctx, uint32_t magic);

/* Empties the column map of st (a new header follows). */
void gl_telem_cols_reset(struct gl_telem_state *st);

/*
 * Adds column ncols of the given kind; a GL_TK_METRIC column gets its
 * metric name from the vocabulary of src. A metric a column earlier in the
 * same header already maps to keeps the field's own name instead, so one
 * row never gives two samples of one metric. Returns 0, or -1 when the map
 * is full.
 */
int gl_telem_col_add(struct gl_telem_state *st, enum gl_telem_kind kind, enum gl_vocab_src src,
		     const char *field, size_t len);

/* The metric name of column i (NUL-terminated, inside st). */
static inline struct gl_str gl_telem_col_name(const struct gl_telem_state *st, size_t i)
{
	struct gl_str s = {st->pool + st->name_off[i], 0};

	while (s.p[s.len])
		s.len++;
	return s;
}

/*
 * Splits line into fields separated by runs of spaces/tabs; at most max.
 * Returns the number of fields (max + 1 when there are more).
 */
size_t gl_telem_split_ws(const char *line, size_t len, struct gl_str *tok, size_t max);

/*
 * A missing value: "-" (dmon), "N/A" (dcgmi, noheader CSV), or anything in
 * brackets ("[N/A]", "[Not Supported]", "[Unknown Error]").
 */
int gl_telem_missing(struct gl_str v);

/*
 * A number, with an optional unit after it ("70.77 W", "45 %", "8000 MiB",
 * "1530 MHz"): sets *v and returns 0, or -1.
 */
int gl_telem_number(struct gl_str v, double *v_out);

/*
 * The time of row group g for a hint-timed stream: start + g * interval.
 * Returns 0, or -1 when ctx has no start and interval_s.
 */
int gl_telem_hint_time(const struct gl_parse_ctx *ctx, int64_t g, int64_t *ts_us);

/* Whether ctx's hint gives start and interval_s. */
int gl_telem_has_hint_time(const struct gl_parse_ctx *ctx);

/*
 * Counts sample groups for rows without their own time: a row opens a new
 * group when its key was seen in the current one (dmon prints GPU 0, 1, ...
 * then 0 again) or after a header (gl_telem_group_break). Returns the
 * row's group number (0 for the first row).
 */
int64_t gl_telem_group_row(struct gl_telem_state *st, uint64_t key);

/* The next row starts a new group. */
void gl_telem_group_break(struct gl_telem_state *st);

/* Naive wall-clock µs -> UTC µs through ctx's zone, cached per second in st. */
int64_t gl_telem_to_utc(struct gl_parse_ctx *ctx, struct gl_telem_state *st, int64_t naive_us);

/* A small hash of s (for group keys of text ids). */
uint64_t gl_telem_hash(const char *s, size_t len);

/*
 * Whitespace-column telemetry (nvidia-smi dmon and pmon, dcgmi dmon): what
 * differs between the three. The parser itself is gl_telem_ws_parse().
 */
struct gl_telem_ws {
	uint32_t magic;			/* of the format's state */
	enum gl_vocab_src src;
	int per_process;		/* pmon: header has pid, rows carry pid/type/command */
	int dcgmi;			/* "#Entity" header, "ID" units row, entity "GPU 0" */
	const char *no_time;		/* reject reason for rows without a time */
	/*
	 * 1: rows without a time and without the config's start are placed
	 * back from the file's modification time (ctx->untimed_start_us), one
	 * sample group per period (the config's interval_s, else 1 s), and
	 * marked estimated.
	 */
	int place_by_mtime;
};

/* The period of placed rows when the config gives no interval_s: dmon's default (-d 1). */
#define GL_TELEM_DEFAULT_PERIOD_S 1.0

/* The period of rows placed without a time: the config's interval_s, else the default. */
double gl_telem_period_s(const struct gl_parse_ctx *ctx);

/* Parses one line of a whitespace-column telemetry format described by spec. */
void gl_telem_ws_parse(const struct gl_telem_ws *spec, struct gl_parse_ctx *ctx, const char *line,
		       size_t len, struct gl_rec *rec);

#endif
