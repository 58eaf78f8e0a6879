/*
 * counter.c - the increase of a running total read in time order
 * (counter.h).
 */
#include <math.h>

#include "counter.h"
#include "util/timeutil.h"

void gl_counter_init(struct gl_counter *c)
{
	*c = (struct gl_counter){.first = NAN, .prev = NAN, .max = NAN};
}

void gl_counter_add(struct gl_counter *c, double v)
{
	if (!isfinite(v) || v < 0)
		return;
	if (c->n == 0) {
		c->first = v;
	} else if (v >= c->prev) {
		c->rises += v - c->prev;
	} else {
		c->rises += v;	/* restarted: counted from zero since */
		c->resets++;
	}
	if (c->n == 0 || v > c->max)
		c->max = v;
	c->prev = v;
	c->n++;
}

double gl_counter_increase(const struct gl_counter *c, bool from_zero)
{
	if (c->n == 0 || (c->n == 1 && !from_zero))
		return NAN;
	return c->rises + (from_zero ? c->first : 0);
}

bool gl_counter_from_zero(bool before, int64_t first_us, int64_t interval_us,
			  int64_t since_us, int64_t created_us, int64_t start_us)
{
	if (before)
		return false;
	if (created_us != GL_TS_NONE)
		return created_us >= since_us;
	if (start_us == GL_TS_NONE || first_us < start_us - interval_us)
		return true;
	return start_us >= since_us || first_us - start_us <= interval_us;
}
