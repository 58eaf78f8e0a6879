/*
 * json_slow.h - the jansson path of the JSON-lines parser: it decides every
 * line the fast scanner (json_scan.c) refuses or leaves alone.
 */
#ifndef GL_JSON_SLOW_H
#define GL_JSON_SLOW_H

#include <stddef.h>

#include "format.h"

/*
 * Parses line[0..len) with json_loadb(..., 0, ...) and fills rec through
 * gl_json_fields_finish(), or, when jansson refuses the line, makes it
 * GL_REC_REJECT with reason
 *     invalid JSON: invalid token near 'NaN' at column 56 in "execution_time_ms"
 * (jansson's text and column; the column counts characters from the start of
 * the line: col_offset is added, 1 when a BOM was cut off before line).
 * field[0..field_len), when not NULL, names the top-level key in whose value
 * the fast scanner stopped. Uses ctx scratch for strings and the reason.
 */
void gl_json_slow_parse(struct gl_parse_ctx *ctx, const char *line, size_t len, int col_offset,
			const char *field, size_t field_len, struct gl_rec *rec);

#endif
