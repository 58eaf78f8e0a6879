/*
 * counter.c - the increase of a running total read in time order
 * (counter.h).
 */
#include <math.h>

#include "counter.h"

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
