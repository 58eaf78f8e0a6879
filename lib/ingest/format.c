/*
 * format.c - the format registry and per-file detection (the helpers every
 * format shares, parse context, scratch space and time of day, are in
 * parse_ctx.c, below the formats).
 *
 * In: the first lines of a file. Out: the format that parses most of them.
 */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GL_FORMAT(name) extern const struct gl_format gl_fmt_##name;
#include "formats.h"
#undef GL_FORMAT

/*
 * Detection order matters only for ties: a line that two formats both
 * accept goes to the one listed first. The generated list is alphabetical.
 */
const struct gl_format *const gl_formats[] = {
#define GL_FORMAT(name) &gl_fmt_##name,
#include "formats.h"
#undef GL_FORMAT
	NULL,
};

const struct gl_format *gl_format_find(const char *name)
{
	for (size_t i = 0; gl_formats[i]; i++)
		if (strcmp(gl_formats[i]->name, name) == 0)
			return gl_formats[i];
	return NULL;
}

void gl_format_list_text(char *buf, size_t n)
{
	size_t k = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; gl_formats[i] && k < n; i++) {
		size_t need = strlen(gl_formats[i]->name) + strlen(gl_formats[i]->summary) + 2;

		if (k + need >= n)
			break;
		k += (size_t)snprintf(buf + k, n - k, "%s\t%s\n", gl_formats[i]->name,
				      gl_formats[i]->summary);
	}
}

/*
 * A clean line: at least this many bytes, all printable ASCII or tab.
 * Random binary data almost never holds one (0.37^16 for a given run of
 * 16 bytes), where a shorter or looser rule made a core dump pass for text
 * now and then.
 */
#define CLEAN_MIN 16

/*
 * Binary content: the magic number of a common binary file; or not one
 * clean line of text and more than one byte in 20 (NULs aside) a control
 * byte (random binary data has one in 10). NUL bytes alone never make a
 * file binary: a run of them is what a crash, or copytruncate under a
 * writer without O_APPEND, leaves in a log (a hole of 4,000 NULs before
 * the first line); those lines become rejects and the rest is read. One
 * clean line is enough for the file to be read: junk lines become rejects.
 */
static const char *binary_reason(const struct gl_str *lines, size_t n, int nul_decides)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} magics[] = {
		{"\x89PNG", 4, "a PNG image"},
		{"\xff\xd8\xff", 3, "a JPEG image"},
		{"%PDF-", 5, "a PDF document"},
		{"\x7f" "ELF", 4, "an ELF binary"},
		{"PK\x03\x04", 4, "a ZIP archive"},
		{"SQLite format 3", 16, "an SQLite database"},
	};
	size_t ctl = 0, nul = 0, total = 0, clean_lines = 0;

	for (size_t m = 0; n && m < sizeof(magics) / sizeof(magics[0]); m++)
		if (lines[0].len >= magics[m].len && memcmp(lines[0].p, magics[m].magic, magics[m].len) == 0)
			return magics[m].what;
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		int dirty = 0;

		/* a slice may hold several lines (raw bytes): '\n' ends one */
		for (size_t j = 0; j <= lines[i].len; j++) {
			unsigned char c = j < lines[i].len ? (unsigned char)lines[i].p[j] : '\n';

			if (c == '\n') {
				clean_lines += len >= CLEAN_MIN && !dirty;
				len = 0;
				dirty = 0;
				continue;
			}
			len++;
			if (c == 0) {
				nul++;
				dirty = 1;
			} else if (c < 0x20 && c != '\t' && c != '\r' && c != '\f' && c != 0x1b) {
				ctl++;
				dirty = 1;
			} else if (c >= 0x7f || (c < 0x20 && c != '\t')) {
				dirty = 1;
			}
		}
		total += lines[i].len;
	}
	if (clean_lines)
		return NULL;
	if (total > nul && ctl * 20 > total - nul)
		return "binary data";
	return nul && nul_decides ? "binary data (NUL bytes)" : NULL;
}

const char *gl_format_sniff(const char *p, size_t n)
{
	struct gl_str all = {p, n};

	return binary_reason(&all, 1, 0);
}

const struct gl_format *gl_format_detect(const struct gl_str *lines, size_t n, const char **why)
{
	return gl_format_detect_hint(lines, n, NULL, why);
}

const struct gl_format *gl_format_detect_hint(const struct gl_str *lines, size_t n,
					      const struct gl_input_hint *hint, const char **why)
{
	const struct gl_format *best = NULL;
	long best_score = 0;
	size_t nonblank = 0, first = n;
	struct gl_parse_ctx ctx;
	struct gl_rec rec;

	*why = binary_reason(lines, n, 1);
	if (*why)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (lines[i].len) {
			nonblank++;
			if (first == n)
				first = i;
		}
	}
	if (!nonblank) {
		*why = "no content";
		return NULL;
	}
	gl_parse_ctx_init(&ctx);
	ctx.hint = hint;
	const struct gl_format *broken = NULL, *fallback = NULL;
	long broken_bad = 0, fallback_good = 0, best_good = 0;

	for (size_t f = 0; gl_formats[f]; f++) {
		long good = 0, bad = 0, foreign = 0;

		ctx.day_us = 0;
		ctx.last_tod_us = -1;
		/* each format reads the lines from the start, with no state of another
		 * (nor its heap state: a format never takes over another's priv) */
		ctx.state_len = 0;
		if (ctx.priv && ctx.priv_free)
			ctx.priv_free(ctx.priv);
		ctx.priv = NULL;
		ctx.priv_free = NULL;
		for (size_t i = 0; i < n; i++) {
			if (!lines[i].len)
				continue;
			if (gl_ctx_begin_line(&ctx, lines[i].len) < 0)
				break;
			gl_formats[f]->parse(&ctx, lines[i].p, lines[i].len, &rec);
			switch (rec.kind) {
			case GL_REC_EVENT:
			case GL_REC_MEM:
			case GL_REC_SAMPLES:
			case GL_REC_SPAN:	/* a gpufl scope channel holds only spans */
				good++;
				break;
			case GL_REC_REJECT:
				bad++;
				break;
			case GL_REC_FOREIGN:
				foreign++;
				break;
			default:
				break;
			}
		}
		/*
		 * The format with the most records wins: a file may mix shapes
		 * (JSON lines between plain stdout lines), and every line is
		 * tried in every format later anyway (records.c), so a single
		 * record is enough to read the file; the lines of no format
		 * become rejects. Ties go to the fewer foreign lines, then to
		 * the format listed first. A file whose first lines are all
		 * broken records of one format is still read as that format,
		 * so its lines become rejects instead of the file being
		 * skipped.
		 */
		long score = good * 65536 - foreign;

		if (gl_formats[f]->flags & GL_FMT_FALLBACK) {
			if (good > 0 && !fallback) {
				fallback = gl_formats[f];
				fallback_good = good;
			}
			continue;
		}
		if (good > best_good && score > best_score)
			best_good = good;
		if (good > 0 && score > best_score) {
			best = gl_formats[f];
			best_score = score;
		}
		if (!good && !foreign && bad > broken_bad) {
			broken = gl_formats[f];
			broken_bad = bad;
		}
	}
	/* the fallback reads a file whose first lines it takes more of than any other format */
	if (fallback && fallback_good > best_good)
		best = fallback;
	if (!best)
		best = broken;
	gl_parse_ctx_release(&ctx);
	if (!best) {
		char c = lines[first].p[0];

		for (size_t f = 0; gl_formats[f]; f++)
			if (gl_formats[f]->refuse && (*why = gl_formats[f]->refuse(lines, n)))
				return NULL;
		if (c == '{' || c == '[')
			*why = "JSON, but not JSON lines of a known shape";
		else if (memchr(lines[first].p, ',', lines[first].len))
			*why = "CSV or text of no known format";
		else
			*why = "text of no known format";
	}
	return best;
}
