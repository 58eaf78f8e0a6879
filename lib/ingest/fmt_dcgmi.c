/*
 * fmt_dcgmi.c - `dcgmi dmon -e <field ids>`: DCGM field values per GPU,
 * columns separated by spaces.
 *
 * In (every line space-padded to 334 characters; the units row cut short,
 * "KB/" for KB/s; the header pair repeated; GPUs interleaved):
 *     #Entity   POWER             TOTEC                   TXTPT          RXTPT          GPUTL ...
 *     ID         W                 mJ                     KB/            KB/
 *     GPU 1     26.810            20848390074             N/A            N/A            0     ...
 *     GPU 0     28.696            22351345411             N/A            N/A            0     ...
 * Out: the header pair is GL_REC_NONE; a row is GL_REC_SAMPLES, one per
 * field with a value (`N/A` is missing), names from vocab.c by tag
 * (POWER -> gpu.power_w, others dcgmi.<tag>), device = the GPU id. The
 * entity is two tokens, "GPU 0"; other entities ("GPU-I 3") become the
 * device as printed. dcgmi writes no times: a row is rejected unless the
 * ingest config gives start and interval_s (ctx->hint); then sample k (a
 * GPU seen again, or a header, starts the next) is at start + k * interval.
 */
#include "format.h"
#include "telem.h"

static const struct gl_telem_ws dcgmi = {
	.magic = 0x696d6764,	/* "dgmi" */
	.src = GL_VOCAB_DCGMI,
	.per_process = 0,
	.dcgmi = 1,
	.no_time = "no time column: dcgmi dmon writes none; "
		   "give start and interval_s in the ingest config",
};

static void dcgmi_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, struct gl_rec *rec)
{
	gl_telem_ws_parse(&dcgmi, ctx, line, len, rec);
}

const struct gl_format gl_fmt_dcgmi = {
	.name = "dcgmi",
	.summary = "dcgmi dmon DCGM field samples (times from the ingest config)",
	.flags = 0,
	.parse = dcgmi_parse,
};
