/*
 * record.c - a record's fields set to "absent", the names of its
 * sources and the kinds of its facts (record.h).
 */
#include "record.h"

#include <math.h>
#include <string.h>

void gl_event_init(struct gl_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_us = GL_TS_NONE;
	ev->level = GL_LEVEL_NONE;
	ev->dur_us = NAN;
	ev->exec_ms = NAN;
	ev->mem_mb = NAN;
	ev->alloc_mb = NAN;
	ev->peak_mb = NAN;
	ev->util_pct = NAN;
	ev->error_count = -1;
	ev->recovery_attempts = -1;
	ev->anomaly = -1;
	ev->launch_overhead_us = NAN;
	ev->queue_us = NAN;
	ev->occupancy = NAN;
	ev->registers = -1;
	ev->shared_mem_bytes = -1;
	ev->corr_id = -1;
	ev->source = GL_SRC_LOG;
}

void gl_span_init(struct gl_span *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->start_us = GL_TS_NONE;
	sp->dur_us = NAN;
}

const char *gl_ev_source_name(enum gl_ev_source src)
{
	switch (src) {
	case GL_SRC_GPUFL:
		return "gpufl";
	case GL_SRC_KINETO:
		return "kineto";
	case GL_SRC_NSYS:
		return "nsys";
	default:
		return "log";
	}
}

enum gl_ev_kind gl_ev_fact_kind(const char *key)
{
	static const struct {
		const char *key;
		enum gl_ev_kind kind;
	} facts[] = {
		{"train", GL_EV_TRAIN},
		{"xid", GL_EV_XID},
		{"inventory", GL_EV_INVENTORY},
	};

	for (size_t i = 0; key && i < sizeof(facts) / sizeof(facts[0]); i++)
		if (!strcmp(key, facts[i].key))
			return facts[i].kind;
	return GL_EV_LOG;
}
