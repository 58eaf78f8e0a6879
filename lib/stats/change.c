/*
 * change.c - change points of a series (stats.h: gl_stats_change_find).
 *
 * In: the medians of a series over consecutive time buckets, in time order.
 * Out: its one main change, a window (went up or down, came back), a step
 * (went and stayed) or a trend (moved steadily), with the medians before
 * and during, the change and a p-value; or none.
 *
 * Binary segmentation: split the segment whose best split (least squared
 * error of log values either side, prefix sums, O(n) per segment) is
 * significant (Welch's t-test of the two sides) and large (the two sides'
 * means of logs differ by at least min_change_pct), until no split is (a segment
 * that no single split cuts may still hold a window: its best window, by the same
 * tests with p divided by the series' length, gives two cuts); then the
 * segments whose median is min_change_pct away from the level (the median
 * of the segment whose like hold the most points) form the change, if it is
 * significant itself (inside against outside). A steady trend is split into
 * many small steps: it is told first, by a least-squares line that fits the
 * series better than the best single step and explains most of it (r^2).
 */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define CHANGE_MAX_SEGMENTS 8

static double median_of(const double *x, size_t n, double *tmp)
{
	if (!n)
		return NAN;
	memcpy(tmp, x, n * sizeof(*x));
	gsl_sort(tmp, 1, n);
	return gsl_stats_median_from_sorted_data(tmp, 1, n);
}

/* Mean and variance (n - 1) of y[a..b). */
static void mean_var(const double *y, size_t a, size_t b, double *mean, double *var)
{
	size_t n = b - a;

	*mean = gsl_stats_mean(y + a, 1, n);
	*var = n > 1 ? gsl_stats_variance_m(y + a, 1, n, *mean) : NAN;
}

/* Best split k of y[a..b) (a + m <= k <= b - m) by least squared error; its error in *sse. */
static size_t best_split(const double *y, size_t a, size_t b, size_t m, double *sse)
{
	double s = 0, s2 = 0, l = 0, l2 = 0, best = INFINITY;
	size_t k_best = 0;

	for (size_t i = a; i < b; i++) {
		s += y[i];
		s2 += y[i] * y[i];
	}
	for (size_t k = a; k + m <= b; k++) {
		if (k >= a + m) {
			double nl = (double)(k - a), nr = (double)(b - k);
			double e = (l2 - l * l / nl) + ((s2 - l2) - (s - l) * (s - l) / nr);

			if (e < best) {
				best = e;
				k_best = k;
			}
		}
		l += y[k];
		l2 += y[k] * y[k];
	}
	*sse = best;
	return k_best;
}

/*
 * Best window [*i, *j) of y[a..b) with m points or more inside and outside it, by least
 * squared error of two levels (inside, outside); its gain over one level in *gain. A window
 * in the middle of a segment dilutes every single split: the side that holds it holds as
 * much outside it, and its mean moves by a fraction of the window's change. O(n^2).
 */
static void best_window(const double *y, size_t a, size_t b, size_t m, size_t *wi, size_t *wj,
			double *gain)
{
	double tot = 0, best = -INFINITY, c;
	size_t n = b - a;

	*wi = *wj = 0;
	*gain = 0;
	for (size_t i = a; i < b; i++)
		tot += y[i];
	c = tot * tot / (double)n;
	for (size_t i = a + 1; i + m < b; i++) {
		double in = 0;

		for (size_t j = i; j < b - 1; j++) {
			in += y[j];
			size_t ni = j + 1 - i, no = n - ni;

			if (ni < m || no < m)
				continue;
			double g = in * in / (double)ni + (tot - in) * (tot - in) / (double)no - c;

			if (g > best) {
				best = g;
				*wi = i;
				*wj = j + 1;
			}
		}
	}
	*gain = best > 0 ? best : 0;
}

static double rel_change_pct(double before, double during)
{
	if (before == 0)
		return during == 0 ? 0 : INFINITY;
	return (during - before) / fabs(before) * 100;
}

void gl_stats_change_params_default(struct gl_change_params *p)
{
	p->min_change_pct = 20;
	p->p_value = 0.001;
	p->min_points = 3;
	p->trend_r2 = 0.6;
}

/* Welch p of y[inside] vs y[outside], inside = [s, e). */
static double inside_p(const double *y, size_t n, size_t s, size_t e, double *tmp)
{
	size_t k = 0;
	double mi, vi, mo, vo;

	for (size_t i = 0; i < n; i++)
		if (i < s || i >= e)
			tmp[k++] = y[i];
	mean_var(y, s, e, &mi, &vi);
	if (k < 2)
		return NAN;
	mean_var(tmp, 0, k, &mo, &vo);
	return gl_stats_welch_p(mi, vi, e - s, mo, vo, k);
}

int gl_stats_change_find(const double *x, size_t n, const struct gl_change_params *p,
			 struct gl_change *c)
{
	double *y = NULL, *tmp = NULL, *t = NULL;
	size_t cut[CHANGE_MAX_SEGMENTS + 1], ncut = 2, m = p->min_points ? p->min_points : 3;
	bool logs = true;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->kind = GL_CHANGE_NONE;
	c->before = c->during = c->change_pct = c->p_value = NAN;
	if (n < 3 * m)
		return 0;
	y = malloc(n * sizeof(*y));
	tmp = malloc(n * sizeof(*tmp));
	t = malloc(n * sizeof(*t));
	if (!y || !tmp || !t) {
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		logs = logs && x[i] > 0;
		t[i] = (double)i;
	}
	for (size_t i = 0; i < n; i++)
		y[i] = logs ? log(x[i]) : x[i];

	/* a trend: a line that beats the best single step and explains the series */
	{
		struct gl_fit fit;
		double sse_step, sse_line, ss = 0, mean = gsl_stats_mean(x, 1, n);
		size_t q = n / 10 > m ? n / 10 : m;

		gl_stats_fit_linear(t, x, n, &fit);
		for (size_t i = 0; i < n; i++) {
			double r = x[i] - (fit.intercept + fit.slope * t[i]);

			ss += r * r;
		}
		sse_line = ss;
		best_split(x, 0, n, m, &sse_step);
		double before = median_of(x, q, tmp), during = median_of(x + n - q, q, tmp);
		double ch = rel_change_pct(before, during);

		(void)mean;
		if (fit.r2 >= p->trend_r2 && sse_line < sse_step && fit.p_value < p->p_value &&
		    fabs(ch) >= p->min_change_pct) {
			*c = (struct gl_change){GL_CHANGE_TREND, 0, n, before, during, ch, fit.p_value};
			goto out;
		}
	}

	/* binary segmentation */
	cut[0] = 0;
	cut[1] = n;
	for (;;) {
		size_t best_k = 0, best_seg = 0;
		double best_gain = 0;

		if (ncut > CHANGE_MAX_SEGMENTS)
			break;
		for (size_t s = 0; s + 1 < ncut; s++) {
			size_t a = cut[s], b = cut[s + 1], k;
			double sse, mean, var, ml, vl, mr, vr;

			if (b - a < 2 * m)
				continue;
			k = best_split(y, a, b, m, &sse);
			mean_var(y, a, b, &mean, &var);
			double gain = var * (double)(b - a - 1) - sse;

			mean_var(y, a, k, &ml, &vl);
			mean_var(y, k, b, &mr, &vr);
			double pv = gl_stats_welch_p(ml, vl, k - a, mr, vr, b - k);
			/* the sides' means (of logs), not medians: the first split around a
			 * window leaves the window a minority of one side */
			double ch = logs ? (exp(mr - ml) - 1) * 100 : rel_change_pct(ml, mr);

			if (!(pv < p->p_value) || !(fabs(ch) >= p->min_change_pct))
				continue;
			if (gain > best_gain) {
				best_gain = gain;
				best_k = k;
				best_seg = s;
			}
		}
		if (!best_k) {
			/* no single split: a window inside a segment, both its edges */
			size_t wi = 0, wj = 0, ws = 0;
			double wg = 0;

			for (size_t s = 0; s + 1 < ncut && ncut + 2 <= CHANGE_MAX_SEGMENTS + 1; s++) {
				size_t a = cut[s], b = cut[s + 1], i, j, k = 0;
				double g, mi, vi, mo, vo;

				/* a window is searched among many: at least a 30th of the series,
				 * so that a cluster of spikes makes none */
				size_t wm = n / 30 > m ? n / 30 : m;

				if (b - a < 3 * wm)
					continue;
				best_window(y, a, b, wm, &i, &j, &g);
				if (!j || g <= wg)
					continue;
				for (size_t q = a; q < b; q++)
					if (q < i || q >= j)
						tmp[k++] = y[q];
				mean_var(y, i, j, &mi, &vi);
				mean_var(tmp, 0, k, &mo, &vo);
				double pv = gl_stats_welch_p(mi, vi, j - i, mo, vo, k);
				double ch = logs ? (exp(mi - mo) - 1) * 100 : rel_change_pct(mo, mi);

				/* chosen among about n^2 / 2 windows: a stricter p (divided by n),
				 * else a bimodal series' luckiest stretch is a window */
				if (!(pv < p->p_value / (double)n) || !(fabs(ch) >= p->min_change_pct))
					continue;
				wg = g;
				wi = i;
				wj = j;
				ws = s;
			}
			if (!wj)
				break;
			memmove(cut + ws + 3, cut + ws + 1, (ncut - ws - 1) * sizeof(*cut));
			cut[ws + 1] = wi;
			cut[ws + 2] = wj;
			ncut += 2;
			continue;
		}
		memmove(cut + best_seg + 2, cut + best_seg + 1, (ncut - best_seg - 1) * sizeof(*cut));
		cut[best_seg + 1] = best_k;
		ncut++;
	}
	if (ncut == 2)
		goto out;

	/* the level: the median of the segment whose like (their medians within
	 * min_change_pct of its own) hold the most points, the longest of those: a window
	 * longer than either side of it is still the change, the sides together the level;
	 * the change: the largest run of segments away from it by min_change_pct */
	{
		size_t longest = 0, s0 = 0, s1 = 0, most = 0;
		double level, best = 0, med[CHANGE_MAX_SEGMENTS];

		for (size_t s = 0; s + 1 < ncut; s++)
			med[s] = median_of(x + cut[s], cut[s + 1] - cut[s], tmp);
		for (size_t s = 0; s + 1 < ncut; s++) {
			size_t like = 0;

			for (size_t o = 0; o + 1 < ncut; o++)
				if (fabs(rel_change_pct(med[s], med[o])) < p->min_change_pct)
					like += cut[o + 1] - cut[o];
			if (like > most || (like == most && cut[s + 1] - cut[s] >
							     cut[longest + 1] - cut[longest])) {
				most = like;
				longest = s;
			}
		}
		level = med[longest];
		for (size_t s = 0; s + 1 < ncut;) {
			size_t e = s;
			int dir;

			if (fabs(rel_change_pct(level, med[s])) < p->min_change_pct) {
				s++;
				continue;
			}
			dir = med[s] > level ? 1 : -1;
			while (e + 1 < ncut && fabs(rel_change_pct(level, med[e])) >= p->min_change_pct &&
			       (med[e] > level ? 1 : -1) == dir)
				e++;
			double during = median_of(x + cut[s], cut[e] - cut[s], tmp);
			double score = fabs(log(fabs(during / level))) * (double)(cut[e] - cut[s]);

			if (isnan(score))
				score = fabs(during - level) * (double)(cut[e] - cut[s]);
			if (score > best) {
				best = score;
				s0 = s;
				s1 = e;
			}
			s = e;
		}
		if (best <= 0)
			goto out;
		size_t a = cut[s0], b = cut[s1], k = 0;

		for (size_t i = 0; i < n; i++)
			if (i < a || i >= b)
				tmp[k++] = x[i];
		double before = k ? (gsl_sort(tmp, 1, k), gsl_stats_median_from_sorted_data(tmp, 1, k))
				  : level;
		double during = median_of(x + a, b - a, tmp);

		c->kind = b == n ? GL_CHANGE_STEP : GL_CHANGE_WINDOW;
		c->start = a;
		c->end = b;
		/* a step: before is what came before it, not the series around it */
		if (b == n)
			before = median_of(x, a, tmp);
		c->before = before;
		c->during = during;
		c->change_pct = rel_change_pct(before, during);
		c->p_value = inside_p(y, n, a, b, tmp);
		/* the segments were cut one by one: what they add up to must be significant
		 * too (a bimodal series' cuts can add up to nothing) */
		if (!(c->p_value < p->p_value)) {
			c->kind = GL_CHANGE_NONE;
			c->start = c->end = 0;
			c->before = c->during = c->change_pct = c->p_value = NAN;
		}
	}
out:
	free(y);
	free(tmp);
	free(t);
	return rc;
}
