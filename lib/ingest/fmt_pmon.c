/*
 * fmt_pmon.c - nvidia-smi pmon: one row per process per GPU per sample.
 *
 * In (newer drivers; trailing spaces, the command padded):
 *     # gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command
 *     # Idx           #    C/G      %      %      %      %      %      %     MB     MB    name
 *         0     439323     C      0      0      0      0      0      0     10      0    demo
 * a GPU without processes prints a row of `-`:
 *         0          -     -      -      -      -      -      -      -      -      -    -
 * and `-o DT` puts "#Date Time" columns first, as in dmon.
 * Out: headers and idle rows are GL_REC_NONE; a process row is
 * GL_REC_SAMPLES under pmon.* names (a process's share of a GPU is not the
 * GPU's own figure), device = the gpu index, labels {"pid", "type",
 * "command"}. Times follow fmt_dmon.c's rules (-o DT, -o T, or the
 * config's start + interval_s; else the row is rejected).
 */
#include "format.h"
#include "telem.h"

static const struct gl_telem_ws pmon = {
	.magic = 0x6e6f6d70,	/* "pmon" */
	.src = GL_VOCAB_PMON,
	.per_process = 1,
	.dcgmi = 0,
	.no_time = "no time column: record with nvidia-smi pmon -o DT, "
		   "or give start and interval_s in the ingest config",
};

static void pmon_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	gl_telem_ws_parse(&pmon, ctx, line, len, rec);
}

const struct gl_format gl_fmt_pmon = {
	.name = "pmon",
	.summary = "nvidia-smi pmon per-process GPU samples (-o DT for times)",
	.flags = GL_FMT_TIME_OF_DAY,
	.parse = pmon_parse,
};
