/*
 * kinds_v8.h - the kinds of fact (events.kind 5 to 7, lib/record/record.h)
 * of a row stored before schema 9, which kept them only in the metadata:
 * as the input formats that wrote the rows tell it.
 *
 * Since schema 9 the parser that writes such a fact into a record's
 * metadata gives the record its kind. These definitions are the fact of
 * the past, fixed, as kinds_v7.h's are: the migration to schema 9 fills
 * events.kind and event_kinds with them (store_migrate.c), and gl_query
 * reads a database not migrated yet with them (query.c), so the two agree.
 * No format added later belongs here.
 *
 * Each row: the kind, the metadata key that holds the fact, and a
 * condition on a streams row (a stream that may hold rows of the kind).
 * A row is of the kind when its stream is such a stream and its metadata
 * holds the key. The rows are in the order the migration applies them, a
 * row's kind given only to rows of none yet: an Xid line that is also a
 * trainer's step is an Xid, as the text parser says since.
 */
#ifndef GL_KINDS_V8_H
#define GL_KINDS_V8_H

#include "store/kinds_v7.h"

#define GL_KINDS_V8_IS_FACT(e, key)                                                     \
	"(json_valid(" e "metadata) AND json_type(" e "metadata, '$." key "') IS NOT NULL)"

#define GL_KINDS_V8_FACTS(X)                                                            \
	/* a driver's Xid in a kernel log (text) */                                     \
	X(6, "xid", "(format = 'text')")                                                \
	/* a trainer's step (text: console lines; trainstate, lightning) */             \
	X(5, "train", "(format IN ('text', 'trainstate', 'lightning'))")                \
	/* a GPU of nvidia-smi -q (nvsmiq) */                                           \
	X(7, "inventory", "(format = 'nvsmiq')")

/*
 * The same rule over a ClickHouse row (gpulog_events, lib/ship/ship.h),
 * for rows shipped before they had a kind: their metadata's key found by
 * visitParamHas, the fact itself checked by SQLite's JSON functions when
 * the row is read (query_ch.c). GL_KINDS_CH: the kind of such a row, as the
 * migrations to schema 8 and 9 would give it (kinds_v7.h first).
 */
#define GL_KINDS_V8_CH                                                                  \
	"multiIf(format = 'text' AND visitParamHas(ifNull(metadata, ''), 'xid'), 6,"        \
	" format IN ('text', 'trainstate', 'lightning') AND"                                \
	" visitParamHas(ifNull(metadata, ''), 'train'), 5,"                                 \
	" format = 'nvsmiq' AND visitParamHas(ifNull(metadata, ''), 'inventory'), 7, 0)"
#define GL_KINDS_CH "if((" GL_KINDS_V7_CH ") != 0, (" GL_KINDS_V7_CH "), " GL_KINDS_V8_CH ")"

#endif
