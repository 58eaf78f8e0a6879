/*
 * kinds_v7.h - the kind (events.kind, lib/record/record.h) of a row stored
 * before schema 8, which had no such column: as the input formats that
 * wrote the rows tell it.
 *
 * Since schema 8 the parser says what a record is and the store keeps it
 * with the row; a database of schema 7 or older holds only the format of
 * each stream. These definitions are that fact of the past, fixed: the
 * migration to schema 8 fills events.kind and event_kinds with them
 * (store_migrate.c), and gl_query reads a database not migrated yet with
 * them (query.c), so the two agree. This is the one place where SQL of
 * lib/store names an input format; no format added later belongs here.
 *
 * Each GL_KINDS_V7_STREAMS_* is a condition on a streams row: a stream that
 * may hold rows of the kind. Each GL_KINDS_V7_IS_* is a condition on an
 * events row (columns prefixed with e, "" or "e.") within such a stream.
 */
#ifndef GL_KINDS_V7_H
#define GL_KINDS_V7_H

/* Profiler traces (their parsers set a source: events.source is not NULL
 * exactly for their records; a stream of no recorded format may be one). */
#define GL_KINDS_V7_STREAMS_TRACE "(format IS NULL OR format IN ('gpufl', 'kineto', 'nsys'))"
#define GL_KINDS_V7_IS_TRACE(e) "(" e "source IS NOT NULL)"

/* A monitor's alert (jsondoc: an "alerts" entry of metrics_history.json,
 * metadata written as compact JSON; a receipt's holds no "severity"). */
#define GL_KINDS_V7_STREAMS_ALERT "(format = 'jsondoc')"
#define GL_KINDS_V7_IS_ALERT(e)                                                         \
	"(json_valid(" e "metadata) AND json_type(" e "metadata, '$.severity') = 'text')"

/* uvicorn's access line in a vLLM server log:
 * 10.0.3.17:51234 - "POST /v1/completions HTTP/1.1" 200 OK */
#define GL_KINDS_V7_STREAMS_ACCESS "(format = 'vllm')"
#define GL_KINDS_V7_IS_ACCESS(e) "(" e "message GLOB '*\"POST /v1/* HTTP/*\" [1-5][0-9][0-9]*')"
#define GL_KINDS_V7_IS_ACCESS_FAILED(e)                                                 \
	"(" e "message GLOB '*\"POST /v1/* HTTP/*\" [45][0-9][0-9]*')"

/*
 * The same facts in ClickHouse's SQL, over a gpulog_events row shipped by a
 * gpulog-ship that did not ship the kind (lib/ship/ship.c): the DEFAULT of
 * the column kind added to such a table, which ClickHouse computes for the
 * rows stored before, and what a report reads for kind from a table still
 * without it (query_ch.c). In the order the migration fills them: an
 * alert (visitParam reads the compact JSON the parser wrote), a failed
 * access line, a trace's record, an access line, else a log line. (?s):
 * GLOB's '*' crosses a newline.
 */
#define GL_KINDS_V7_CH                                                                     \
	"multiIf(format = 'jsondoc' AND substring(visitParamExtractRaw(ifNull(metadata, ''),"  \
	" 'severity'), 1, 1) = '\"', 2, format = 'vllm' AND match(ifNull(message, ''),"       \
	" '(?s)\"POST /v1/.* HTTP/.*\" [45][0-9][0-9]'), 4, source IS NOT NULL, 1,"            \
	" format = 'vllm' AND match(ifNull(message, ''),"                                       \
	" '(?s)\"POST /v1/.* HTTP/.*\" [1-5][0-9][0-9]'), 3, 0)"

#endif
