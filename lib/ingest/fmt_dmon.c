/*
 * fmt_dmon.c - nvidia-smi dmon: one row per GPU per sample, columns
 * separated by spaces, a two-line header repeated every screenful.
 *
 * In, newer drivers (`nvidia-smi dmon -s u`; every line ends with a space):
 *     # gpu     sm    mem    enc    dec    jpg    ofa
 *     # Idx      %      %      %      %      %      %
 *         0     46     26      0      1      0      0
 * older drivers, all groups (`temp`, not `gtemp`/`mtemp`; `-` is missing):
 *     # gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk pviol tviol    fb  bar1 sbecc dbecc   pci rxpci txpci
 *     # Idx     W     C     %     %     %     %   MHz   MHz     %  bool    MB    MB  errs  errs  errs  MB/s  MB/s
 *         0    15    59     3     4     0     0   405    27     0     0   145     5     -     -     0     5     0
 * and with `-o DT`, date and time columns first:
 *     #Date       Time        gpu    pwr  gtemp ...
 *     #YYYYMMDD   HH:MM:SS    Idx      W      C ...
 *      20230413   10:20:15      0     40     35 ...
 * Out: the headers are GL_REC_NONE; a row is GL_REC_SAMPLES, one sample
 * per column with a value (names from vocab.c, device = the gpu index).
 * Times are local (ctx->tz_name). `-o T` alone gives a time of day
 * (GL_FMT_TIME_OF_DAY: the date comes from the file's modification time).
 * Without time columns a row has no time. When the ingest config gives
 * start and interval_s (ctx->hint), sample group k (GPU 0, 1, ... again,
 * or after a header) is at start + k * interval_s. Else the groups are
 * placed back from the file's modification time, the last group on it,
 * one per period (interval_s, else dmon's default of 1 s): ingest parses
 * the file once before (it is GL_FMT_TIME_OF_DAY) to learn the last group
 * (ctx->untimed_start_us). Both are marked estimated. Lines a later run
 * reads go on from the same start.
 */
#include "format.h"
#include "telem.h"

static const struct gl_telem_ws dmon = {
	.magic = 0x6e6f6d64,	/* "dmon" */
	.src = GL_VOCAB_DMON,
	.per_process = 0,
	.dcgmi = 0,
	.no_time = "no time column: record with nvidia-smi dmon -o DT, "
		   "or give start and interval_s in the ingest config",
	.place_by_mtime = 1,
};

static void dmon_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	gl_telem_ws_parse(&dmon, ctx, line, len, rec);
}

const struct gl_format gl_fmt_dmon = {
	.name = "dmon",
	.summary = "nvidia-smi dmon GPU samples (-o DT for times)",
	.flags = GL_FMT_TIME_OF_DAY,
	.parse = dmon_parse,
};
