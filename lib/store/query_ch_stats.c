/*
 * query_ch_stats.c - the aggregates the ClickHouse backend has the server
 * compute (the optional methods of struct gl_query_backend): the summary's
 * and the errors' counts (gl_query_event_counts), the listed kernels'
 * figures and their trends' sums (gl_query_kernel_stats), the metric
 * series' figures and theirs (gl_query_series_stats). In: the window, the
 * report's filters as name ids, the tables gpulog-ship writes; out: one
 * row per group through the caller's callback, the figures the sections
 * would compute in C from the same rows.
 */
#include "store/query_ch_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "util/timeutil.h"

/* " AND host IN (...) AND component IN (...)" of keep appended to b (its NUL
 * kept): gl_qch_add_in's value. */
static int add_keep(struct gl_buf *b, const struct gl_query *q, const struct gl_query_keep *keep)
{
	int rc = GL_OK;

	if (keep && keep->host_ids) {
		b->len -= b->len > 0;	/* the NUL */
		rc = gl_qch_add_in(b, q, "host", keep->host_ids, keep->n_hosts);
	}
	if (rc == GL_OK && keep && keep->component_ids) {
		b->len -= b->len > 0;
		rc = gl_qch_add_in(b, q, "component", keep->component_ids, keep->n_components);
	}
	return rc;
}

struct event_count_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_event_count *c);
	void *arg;
};

static int event_count_row(void *arg, struct gl_tsv_field *f)
{
	struct event_count_walk *w = arg;
	int64_t level = gl_qch_fint(&f[0]);
	struct gl_query_event_count c = {
		level >= GL_LEVEL_NONE && level <= GL_LEVEL_CRITICAL ? (int)level : GL_LEVEL_NONE,
		gl_qch_name_id(w->q, &f[1]), gl_qch_fint(&f[2]) != 0, gl_qch_fint(&f[3]) != 0,
		(uint64_t)gl_qch_fint(&f[4]), gl_qch_fint(&f[5]), gl_qch_fint(&f[6])};

	return w->fn(w->arg, &c);
}

/*
 * The window's events counted by the server (the summary's and the
 * errors' counts); a stream's id is its node's, (node, stream_id) made one
 * number as the events' reader makes it.
 */
int gl_qch_event_counts(struct gl_query *q, int64_t since_us, int64_t until_us,
			const struct gl_query_keep *keep, const int64_t *alert_streams,
			size_t n_alert_streams,
			int (*fn)(void *arg, const struct gl_query_event_count *c), void *arg,
			struct gl_err *err)
{
	struct event_count_walk w = {q, fn, arg};
	struct gl_buf b = {0}, la = {0};
	int rc = gl_buf_add(&b, "", 1) ? GL_ENOMEM : add_keep(&b, q, keep);
	const char *sql;
	char num[32];

	const char *la0 = n_alert_streams ? "level >= 4 AND intDiv(cityHash64(node, stream_id), 4) IN ("
					  : "0";

	rc = rc ? rc : gl_buf_add(&la, la0, strlen(la0));
	for (size_t i = 0; rc == GL_OK && i < n_alert_streams; i++) {
		int k = snprintf(num, sizeof(num), "%s%" PRId64, i ? ", " : "", alert_streams[i]);

		rc = gl_buf_add(&la, num, (size_t)k);
		if (la.len > NAMES_SQL_MAX)
			rc = 1;
	}
	rc = rc ? rc : gl_buf_add(&la, n_alert_streams ? ")" : "", n_alert_streams ? 2 : 1);

	if (rc == 1) {		/* nothing kept, or what no statement carries */
		gl_buf_release(&b);
		gl_buf_release(&la);
		return keep && ((keep->host_ids && !keep->n_hosts) ||
				(keep->component_ids && !keep->n_components))
			? GL_OK : GL_QUERY_NOT_HERE;
	}
	sql = rc == GL_OK ? gl_qch_sqlf(q, "SELECT level, component, dup_of IS NOT NULL AS m, %s AS la,"
			     " count(), min(ts_us), max(ts_us) FROM gpulog_events WHERE ts_us >= %"
			     PRId64 " AND ts_us < %" PRId64 "%s GROUP BY level, component, m, la"
			     " FORMAT TabSeparated", la.data, since_us, until_us, b.data)
			  : NULL;
	rc = sql ? gl_qch_rows(q, sql, 7, event_count_row, &w, err) : gl_qch_oom(err);
	gl_buf_release(&b);
	gl_buf_release(&la);
	return rc;
}

struct stats_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_kernel_stats *s);
	void *arg;
};

static int stats_row(void *arg, struct gl_tsv_field *f)
{
	struct stats_walk *w = arg;
	struct gl_query_kernel_stats s = {gl_qch_name_id(w->q, &f[0]), (uint64_t)gl_qch_fint(&f[1]),
					  gl_qch_fbits(&f[2]), gl_qch_fbits(&f[3]),
					  gl_qch_fbits(&f[4]), gl_qch_fbits(&f[5]),
					  gl_qch_fbits(&f[6]), gl_qch_fbits(&f[7]),
					  gl_qch_fbits(&f[8]), gl_qch_fbits(&f[9]),
					  gl_qch_fbits(&f[10]), gl_qch_fbits(&f[11]),
					  gl_qch_fbits(&f[12]), gl_qch_fbits(&f[13]),
					  gl_qch_fbits(&f[14]), gl_qch_fbits(&f[15])};

	return s.kernel_id ? w->fn(w->arg, &s) : 0;
}

/* The Float64 that ends at byte length - back of the aggregate state s (toString), as CH_BITS. */
#define CH_STATE(s, back) "hex(substring(" s ", length(" s ") - " back ", 8))"

/* Quantile f of the sorted srt of n: GSL's, as lib/stats/stats.c selects it. */
#define CH_Q(f) "if(toUInt64(floor((n - 1) * " f ")) + 1 >= n OR (n - 1) * " f \
	" - floor((n - 1) * " f ") = 0, srt[toUInt64(floor((n - 1) * " f ")) + 1]," \
	" (1 - ((n - 1) * " f " - floor((n - 1) * " f "))) * srt[toUInt64(floor((n - 1) * " f ")) + 1]" \
	" + ((n - 1) * " f " - floor((n - 1) * " f ")) * srt[toUInt64(floor((n - 1) * " f ")) + 2])"

/*
 * The mean of the n doubles of array a (plus the low parts lo, an
 * expression: " + arraySum(...)" or ""), as <p>mean, to the last bit
 * nearly always the long-double running mean of lib/stats/stats.c, which a
 * plain sum over n misses by some ulps (measured: 2,000 series of 500, one
 * printed digit of the standard deviation differed in 142 with plain sums,
 * none this way). The sum as a double and its error (the running sums,
 * arrayCumSum, and each step's rounding by Knuth's TwoSum), then that
 * double-double divided by n: the quotient's product with n exactly
 * (Dekker's split) and the remainder's share.
 */
#define CH_DD_MEAN(p, a, lo) \
	" arrayCumSum(" a ") AS " p "s, arrayPushFront(arrayPopBack(" p "s), 0) AS " p "p," \
	" arrayMap((x1, x2, x3) -> (x1 - (x3 - (x3 - x1))) + (x2 - (x3 - x1)), " p "p, " a ", " \
	p "s) AS " p "t, " p "s[n] AS " p "hi0, arraySum(" p "t)" lo " AS " p "lo0," \
	" " p "hi0 + " p "lo0 AS " p "hi, " p "lo0 - (" p "hi - " p "hi0) AS " p "lo," \
	" " p "hi / n AS " p "q, 134217729 * " p "q AS " p "qc, " p "qc - (" p "qc - " p "q) AS " \
	p "qh, " p "q - " p "qh AS " p "ql, 134217729 * toFloat64(n) AS " p "nc, " p "nc - (" \
	p "nc - n) AS " p "nh, n - " p "nh AS " p "nl, " p "q * n AS " p "pq, ((" p "qh * " p \
	"nh - " p "pq) + " p "qh * " p "nl + " p "ql * " p "nh) + " p "ql * " p "nl AS " p "pe," \
	" " p "q + (((" p "hi - " p "pq) - " p "pe) + " p "lo) / n AS " p "mean"

/*
 * The kernels' durations described by the server, a statement for ids[0..n).
 * Per kernel, its rows in the report's order (time, node, row: sorted
 * tuples) and the launch rule of reports/launch_once.h on arrays, where a
 * row's copy flag depends on the row before (paired once): a copy is a
 * row of the previous row's duration at its microsecond (a), or within
 * the tolerance at the other level (b) when the previous row was not a
 * copy itself. A row that is not (b) only has its flag from (a) ("reset");
 * in a run of (b) rows after a reset r the flags alternate from r's, so
 * row i's is a(r) XOR (i - r odd). Numbered by arrayEnumerateUniq over
 * (resets so far, a), a (b) row's number u is i - r + 1 after a reset
 * with a(r) 0 (the reset has the same key), i - r after one with a(r) 1
 * (it has its own): either way a copy where u is even. (A lambda that
 * indexes an array copies the array for each element: quadratic, 512 GiB
 * for one kernel of 1M rows; every step here is element by element.) Then over the timings k left, in time
 * order: the sum (arraySum adds in order, as the C code), the mean and the
 * variance around it (CH_DD_MEAN; the squares exact as a double and its
 * error, Dekker), and the sorted array's order statistics.
 *
 * And the least-squares sums of the timings against their times in days
 * since since_us (x as gl_section_days computes it, bit for bit), for the
 * trends section. 18.16 has no simpleLinearRegression; covarPop and varPop
 * are a sum of products less n times the means' product (not the C sums to
 * 1e-9 where a line fits its points closely: r2 near 1 leaves few bits of
 * the residual). varPopStable and covarPopStable are Welford's running
 * recurrence, gl_fit_acc_add's step for step: mean += d / n, m2 += d * (v -
 * mean), and for (y, x) co += (x - old mean x) * (y - new mean y), the C
 * code's product. Their results are divided by n, so the sums are read from
 * their states (the -State combinator, toString: a varint count, then the
 * Float64 means and the sum, little-endian; the last 8 bytes the sum): the
 * C code's sums, bit for bit (its fit then too).
 */
int gl_qch_kernel_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			const int64_t *ids, size_t n, const struct gl_query_keep *keep,
			int (*fn)(void *arg, const struct gl_query_kernel_stats *s), void *arg,
			struct gl_err *err)
{
	struct stats_walk w = {q, fn, arg};
	struct gl_buf b = {0};
	int rc = n ? gl_qch_add_in(&b, q, "kernel", ids, n) : 1;

	if (rc == GL_OK)
		rc = add_keep(&b, q, keep);
	if (rc == 1) {		/* names no statement carries: none described here */
		gl_buf_release(&b);
		return GL_OK;
	}
	const char *sql = rc == GL_OK ? gl_qch_sqlf(q,
		"SELECT kernel, n, " CH_BITS("sm") ", " CH_BITS("srt[1]") ", " CH_BITS("srt[n]") ","
		" " CH_BITS("mmean") ", " CH_BITS("if(n >= 2, sqrt(vmean * (n / (n - 1))), nan)") ","
		" " CH_BITS(CH_Q("0.5")) ", " CH_BITS(CH_Q("0.9")) ", " CH_BITS(CH_Q("0.95")) ","
		" " CH_BITS(CH_Q("0.99")) ", " CH_STATE("fc", "15") ", " CH_STATE("fc", "23") ","
		" " CH_STATE("fx", "7") ", " CH_STATE("fy", "7") ", " CH_STATE("fc", "7")
		" FROM (SELECT kernel, n, srt, sm, mmean, fc, fx, fy, arrayMap(x1 -> x1 - mmean, k) AS d,"
		" arrayMap(x1 -> 134217729 * x1, d) AS dc, arrayMap((x1, x2) -> x1 - (x1 - x2), dc, d) AS dh,"
		" arrayMap((x1, x2) -> x2 - x1, dh, d) AS dl, arrayMap(x1 -> x1 * x1, d) AS sq,"
		" arrayMap((x1, x2, x3) -> ((x1 * x1 - x3) + 2 * x1 * x2) + x2 * x2, dh, dl, sq) AS se,"
		CH_DD_MEAN("v", "sq", " + arraySum(se)")
		" FROM (SELECT kernel, k, length(k) AS n, arraySort(k) AS srt, arraySum(k) AS sm,"
		CH_DD_MEAN("m", "k", "") ","
		" arrayMap(x1 -> (x1 - %" PRId64 ") / %" PRId64 ", kt) AS kx,"
		" toString(arrayReduce('covarPopStableState', k, kx)) AS fc,"
		" toString(arrayReduce('varPopStableState', kx)) AS fx,"
		" toString(arrayReduce('varPopStableState', k)) AS fy"
		" FROM (SELECT kernel,"
		" arraySort(groupArray((ts_us, node, src_id, assumeNotNull(dur_us), level >= %d))) AS r,"
		" arrayMap(x -> tupleElement(x, 1), r) AS t, arrayMap(x -> tupleElement(x, 4), r) AS v,"
		" arrayMap(x -> tupleElement(x, 5), r) AS w, arrayEnumerate(r) AS ix,"
		" arrayPushFront(arrayPopBack(t), 0) AS pt, arrayPushFront(arrayPopBack(v), 0) AS pv,"
		" arrayPushFront(arrayPopBack(w), 0) AS pw,"
		" arrayMap((i, x, px, y, py) -> i > 1 AND x = px AND y = py, ix, v, pv, t, pt) AS a,"
		" arrayMap((i, x, px, y, py, z, pz) -> i > 1 AND x = px AND y - py < %d AND z != pz,"
		" ix, v, pv, t, pt, w, pw) AS b,"
		" arrayMap((x, y) -> x OR NOT y, a, b) AS rs,"
		" arrayEnumerateUniq(arrayCumSum(rs), a) AS u,"
		" arrayMap((y, x, z) -> if(y, x, z %% 2 = 0), rs, a, u) AS cp,"
		" arrayFilter((x, y) -> NOT y, v, cp) AS k, arrayFilter((x, y) -> NOT y, t, cp) AS kt"
		" FROM gpulog_events WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
		" AND dur_us IS NOT NULL AND dup_of IS NULL%s GROUP BY kernel))) FORMAT TabSeparated",
		since_us, (int64_t)GL_US_PER_DAY, GL_LEVEL_WARN, GL_QUERY_LAUNCH_ONCE_TOL_US, since_us,
		until_us, b.data) : NULL;

	rc = rc == GL_OK && sql ? gl_qch_rows(q, sql, 16, stats_row, &w, err) : gl_qch_oom(err);
	gl_buf_release(&b);
	return rc;
}

struct series_count_walk {
	struct gl_query *q;
	uint64_t *count;	/* by series id; UINT64_MAX: not asked for */
	size_t n_ids;		/* ids 1..n_ids - 1 */
};

static int series_count_row(void *arg, struct gl_tsv_field *f)
{
	struct series_count_walk *w = arg;
	int64_t id = gl_qch_series_id(w->q->ch, gl_qch_fuint(&f[0]));

	if (id > 0 && (size_t)id < w->n_ids && w->count[id] != UINT64_MAX)
		w->count[id] = (uint64_t)gl_qch_fint(&f[1]);
	return 0;
}

struct series_stats_walk {
	struct gl_query *q;
	int (*fn)(void *arg, const struct gl_query_series_stats *s);
	void *arg;
};

static int series_stats_row(void *arg, struct gl_tsv_field *f)
{
	struct series_stats_walk *w = arg;
	struct gl_query_series_stats s = {
		gl_qch_series_id(w->q->ch, gl_qch_fuint(&f[0])), (uint64_t)gl_qch_fint(&f[1]),
		gl_qch_fbits(&f[2]), gl_qch_fbits(&f[3]), gl_qch_fbits(&f[4]), gl_qch_fbits(&f[5]),
		gl_qch_fbits(&f[6]), gl_qch_fbits(&f[7]), gl_qch_fbits(&f[8]), gl_qch_fint(&f[9]),
		gl_qch_fint(&f[10]), gl_qch_fbits(&f[11]), gl_qch_fbits(&f[12]),
		gl_qch_fbits(&f[13]), gl_qch_fbits(&f[14]), gl_qch_fbits(&f[15])};

	return s.series_id > 0 && s.n ? w->fn(w->arg, &s) : 0;
}

/* The series of keys in (" AND k IN (...)", its NUL kept) described by the server. */
static int series_group(struct gl_query *q, int64_t since_us, int64_t until_us, const char *in,
			struct series_stats_walk *w, struct gl_err *err)
{
	const char *sql = gl_qch_sqlf(q,
		"SELECT k, n, " CH_BITS("srt[1]") ", " CH_BITS("srt[n]") ", " CH_BITS("mmean") ","
		" " CH_BITS(CH_Q("0.5")) ", " CH_BITS(CH_Q("0.95")) ", " CH_BITS(CH_Q("0.99")) ","
		" " CH_BITS("v[n]") ", t[1], t[n], " CH_STATE("fc", "15") ", " CH_STATE("fc", "23") ","
		" " CH_STATE("fx", "7") ", " CH_STATE("fy", "7") ", " CH_STATE("fc", "7")
		" FROM (SELECT k, v, t, length(v) AS n, arraySort(v) AS srt,"
		CH_DD_MEAN("m", "v", "") ","
		" arrayMap(x1 -> (x1 - %" PRId64 ") / %" PRId64 ", t) AS kx,"
		" toString(arrayReduce('covarPopStableState', v, kx)) AS fc,"
		" toString(arrayReduce('varPopStableState', kx)) AS fx,"
		" toString(arrayReduce('varPopStableState', v)) AS fy"
		" FROM (SELECT " SERIES_KEY " AS k,"
		" arraySort(groupArray((ts_us, node, src_id, idx, value))) AS r,"
		" arrayMap(x -> tupleElement(x, 5), r) AS v, arrayMap(x -> tupleElement(x, 1), r) AS t"
		" FROM gpulog_samples WHERE ts_us >= %" PRId64 " AND ts_us < %" PRId64
		" AND isFinite(value)%s GROUP BY k)) FORMAT TabSeparated",
		since_us, (int64_t)GL_US_PER_DAY, since_us, until_us, in);

	return sql ? gl_qch_rows(q, sql, 16, series_stats_row, w, err) : gl_qch_oom(err);
}

/*
 * The series' samples described by the server: their finite samples
 * counted per series first, then groups of series of at most max_samples
 * (and keys for one statement), a statement each. Per series its samples
 * in the order of ch_samples (time, node, row, index: sorted tuples), then
 * as the kernels' figures: the order statistics of the sorted array, the
 * mean as CH_DD_MEAN, the last value and times, the least-squares sums from
 * Welford's states (gl_fit_acc_add's, bit for bit; see gl_qch_kernel_stats).
 */
int gl_qch_series_stats(struct gl_query *q, int64_t since_us, int64_t until_us,
			const int64_t *ids, size_t n, uint64_t max_samples,
			int (*fn)(void *arg, const struct gl_query_series_stats *s), void *arg,
			struct gl_err *err)
{
	struct series_count_walk cw = {q, NULL, q->ch->n_series + 1};
	struct series_stats_walk w = {q, fn, arg};
	struct gl_buf b = {0};
	const char *sql;
	int rc = GL_OK;

	if (!n || !q->ch->n_series)
		return GL_OK;
	if (!(cw.count = malloc(cw.n_ids * sizeof(*cw.count))))
		return gl_qch_oom(err);
	for (size_t i = 0; i < cw.n_ids; i++)
		cw.count[i] = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		if (ids[i] > 0 && (size_t)ids[i] < cw.n_ids)
			cw.count[ids[i]] = 0;
	sql = gl_qch_sqlf(q, "SELECT " SERIES_KEY " AS k, count() FROM gpulog_samples WHERE ts_us >= %"
			  PRId64 " AND ts_us < %" PRId64 " AND isFinite(value) GROUP BY k"
			  " FORMAT TabSeparated", since_us, until_us);
	rc = sql ? gl_qch_rows(q, sql, 2, series_count_row, &cw, err) : gl_qch_oom(err);
	for (size_t i = 0; rc == GL_OK && i < n;) {
		uint64_t samples = 0;
		size_t in = 0;
		char num[32];

		b.len = 0;
		rc = gl_buf_add(&b, " AND k IN (", 11) ? GL_ENOMEM : GL_OK;
		for (; rc == GL_OK && i < n; i++) {
			int64_t id = ids[i];
			uint64_t c = id > 0 && (size_t)id < cw.n_ids ? cw.count[id] : 0;

			if (!c || c == UINT64_MAX)
				continue;
			if (in && (samples + c > max_samples || b.len > NAMES_SQL_MAX))
				break;
			int k = snprintf(num, sizeof(num), "%s%" PRIu64, in ? ", " : "",
					 q->ch->series_key[id - 1]);

			rc = gl_buf_add(&b, num, (size_t)k) ? GL_ENOMEM : GL_OK;
			samples += c;
			in++;
		}
		if (rc == GL_OK && in)
			rc = gl_buf_add(&b, ")", 2) ? GL_ENOMEM : series_group(q, since_us, until_us,
										b.data, &w, err);
		if (rc == GL_ENOMEM)
			rc = gl_qch_oom(err);
	}
	free(cw.count);
	gl_buf_release(&b);
	return rc;
}
