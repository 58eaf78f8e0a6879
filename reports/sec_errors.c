/*
 * sec_errors.c - the errors section: WARN and above by level and component,
 * errors per hour of the data's span and per 1,000 events, the most frequent
 * message shapes (a bounded hash table), mirrored error records left out,
 * components that are error sinks, and the process counters error_count and
 * recovery_attempts read as counters. Chart: errors per hour (day) by
 * component. A backend that counts events on its side (ClickHouse,
 * gl_query_event_counts) gives the counts by level and component at
 * begin; the event pass then reads the records for the shapes, the
 * counters and the chart only.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "emit_png.h"
#include "counter.h"
#include "emit_util.h"
#include "sec_errors.h"
#include "section.h"
#include "sections.h"
#include "table.h"
#include "util/hash.h"
#include "util/timeutil.h"

#define US_PER_HOUR (3600LL * GL_US_PER_S)
#define SAMPLE_MAX 512

struct shape {
	uint64_t hash;			/* 0: empty slot */
	int level;			/* enum gl_level: a shape is counted per level */
	char *text;
	char *sample;
	uint64_t count;
	int64_t first_ts_us, last_ts_us;
};

/*
 * A message seen before, and the slot of its shape: a service repeats its
 * messages word for word (10M events: 1.1M warnings and errors, 387k
 * different), and one found here is counted without being shaped again.
 * Direct-mapped by a hash of the level and the message; a message longer
 * than MEMO_MAX is shaped each time.
 */
#define MEMO_N 8192
#define MEMO_MAX 118

/* An entry's tag (16 bytes: the 128 KiB of tags stay in the cache); its
 * message is memo_msg[the same index], read only where the tag matches. */
struct memo {
	uint64_t hash;			/* of level and message, | 1; 0: empty */
	uint32_t shape;			/* its slot in shapes */
	uint8_t level;
	uint8_t len;
};

/*
 * One source of the running counters: a component on a host, the process
 * that counts. Its files are one series: the service writes each GPU error
 * to gpu.log and error.log, and its WARNINGs (with the counters) to
 * error.log only, so each file sees part of one process counter; read apart,
 * every rise is counted once per file.
 */
struct source {
	int64_t id[2];			/* component, host */
	bool used;
	struct gl_counter ctr[2];	/* error_count, recovery_attempts */
};

struct counter {
	uint64_t increase, max;
};

struct errors {
	struct gl_report_errors res;	/* first: see sec_errors.h */
	uint64_t *comp_warn, *comp_events, *comp_errors;	/* per component id */
	size_t n_ids;
	uint64_t events;		/* of the window: the summary's count, for per_1000_events */
	struct shape *shapes;
	size_t shape_cap, n_shapes;
	struct memo *memo;		/* MEMO_N entries, or NULL (out of memory: none) */
	char (*memo_msg)[MEMO_MAX];	/* their messages */
	struct source *src;
	size_t src_cap, n_src;
	struct source *last_src;	/* the one source_of gave last (most events are of
					 * the source before them); NULL after a rehash */
	struct counter ctr[2];
	bool charts;			/* chart is collected */
	struct gl_errors_chart chart;
	bool counted;			/* by the backend (begin) */
};

/* A count of the backend: what collect and collect_mirrored count, so many at once. */
static int on_count(void *arg, const struct gl_query_event_count *c)
{
	struct errors *b = arg;
	struct gl_report_errors *e = &b->res;
	size_t cs = c->component_id > 0 && (uint64_t)c->component_id < b->n_ids
			    ? (size_t)c->component_id : 0;

	if (c->mirrored) {
		if (c->level >= GL_LEVEL_ERROR)
			e->mirrored += c->n;
		return GL_OK;
	}
	b->comp_events[cs] += c->n;
	b->events += c->n;
	if (c->level < GL_LEVEL_WARN || c->log_alert)
		return GL_OK;
	e->by_level[c->level] += c->n;
	if (c->level >= GL_LEVEL_ERROR) {
		e->errors += c->n;
		b->comp_errors[cs] += c->n;
	} else {
		e->warnings += c->n;
	}
	b->comp_warn[cs] += c->n;
	return GL_OK;
}

static bool is_word(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

/* A unit and its length (sizeof - 1: known at compile time). */
struct unit {
	const char *s;
	size_t n;
};

#define U(str) {str, sizeof(str) - 1}

/* Length of one of units at s when a word ends after it, else 0. The first
 * byte is compared before the rest: most units do not start there. */
static size_t unit_in(const struct unit *units, size_t n_units, const char *s, const char *end)
{
	const size_t room = (size_t)(end - s);

	if (room == 0)
		return 0;
	for (size_t i = 0; i < n_units; i++) {
		const size_t n = units[i].n;

		if (room >= n && s[0] == units[i].s[0] && memcmp(s, units[i].s, n) == 0 &&
		    (n == room || !is_word((unsigned char)s[n]) ||
		     !is_word((unsigned char)units[i].s[n - 1])))
			return n;
	}
	return 0;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Sizes: "512 MiB", "1.5GiB", "64 bytes". */
static const struct unit size_units[] = {
	U("bytes"), U("byte"), U("KiB"), U("MiB"), U("GiB"), U("TiB"),
	U("kB"),    U("KB"),   U("MB"),  U("GB"),  U("TB"),  U("B"),
};

/* Times; "μs" is U+03BC, "µs" U+00B5: both are written by real services. */
static const struct unit time_units[] = {
	U("seconds"), U("second"), U("secs"),	 U("sec"), U("\xCE\xBCs"), U("\xC2\xB5s"), U("us"),
	U("ns"),      U("ms"),	   U("minutes"), U("min"), U("hours"),	 U("s"),	   U("h"),
};

/* Other units: the number is variable, the unit is not worth keeping apart. */
static const struct unit other_units[] = {
	U("tokens/s"), U("tok/s"), U("it/s"), U("req/s"), U("fps"), U("GHz"),
	U("MHz"),      U("kHz"),   U("Hz"),   U("GB/s"),  U("MB/s"), U("\xC2\xB0" "C"),
	U("%"),	       U("W"),	   U("V"),    U("C"),	  U("x"),
};

#undef U

/* The first bytes of the units above: a number followed by another byte
 * (most are: "rank 2 after") has none of them, and unit_in is not called. */
static const bool unit_first[256] = {
	['b'] = true, ['K'] = true, ['M'] = true, ['G'] = true, ['T'] = true, ['k'] = true,
	['B'] = true, ['s'] = true, [0xCE] = true, [0xC2] = true, ['u'] = true, ['n'] = true,
	['m'] = true, ['h'] = true, ['t'] = true, ['i'] = true, ['r'] = true, ['f'] = true,
	['H'] = true, ['%'] = true, ['W'] = true, ['V'] = true, ['C'] = true, ['x'] = true,
};

/*
 * A compound duration at s: "1h2m3s", "2m30s", "1d4h", "3m" (one or more
 * number-unit pairs, unit d h m s ms us ns, glued). Length, or 0.
 */
static size_t duration_len(const char *s, const char *end)
{
	const char *p = s;
	int parts = 0;

	while (p < end && isdigit((unsigned char)*p)) {
		const char *q = p;

		while (q < end && (isdigit((unsigned char)*q) || *q == '.'))
			q++;
		if (q < end - 1 && (q[1] == 's') && strchr("mun", *q))
			q += 2;
		else if (q < end && strchr("dhms", *q))
			q++;
		else
			break;
		p = q;
		parts++;
	}
	if (parts < 2 || (p < end && is_word((unsigned char)*p)))
		return 0;
	return (size_t)(p - s);
}

/*
 * Real lines and their shapes:
 *   "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total)"
 *   "CUDA out of memory. Tried to allocate <size> (GPU <num>; <size> total)"
 *   "performance anomaly in reduce_sum_64M: 109.6us"
 *   "performance anomaly in reduce_sum_64M: <dur>"
 *   "Kernel spring_kernel executed in 462.72μs" -> "Kernel spring_kernel executed in <dur>"
 *   "GPU utilization 45 % at 70.77 W" -> "GPU utilization <num> at <num>"
 */
/* The bytes where a form of gl_message_shape opens: the digits (isdigit's in
 * the C locale, the one the tools run in: none sets another) and '/'. */
static const bool shape_opens[256] = {
	['/'] = true, ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true, ['4'] = true,
	['5'] = true, ['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true,
};

size_t gl_message_shape(const char *msg, size_t len, char *out, size_t n)
{
	const char *s = msg, *end = msg;
	size_t o = 0;

	if (n == 0)
		return 0;
	/* up to the first line break */
	const char *nl = len ? memchr(msg, '\n', len) : NULL;
	const char *cr = len ? memchr(msg, '\r', len) : NULL;

	end = msg + len;
	if (nl)
		end = nl;
	if (cr && cr < end)
		end = cr;
#define PUT(str)                                                                   \
	do {                                                                       \
		const char *p_ = (str);                                           \
		while (*p_ && o + 1 < n)                                           \
			out[o++] = *p_++;                                          \
	} while (0)
	while (s < end && o + 1 < n) {
		unsigned char c = (unsigned char)*s;

		/* each form below opens at a digit or a '/': a run of other bytes
		 * is copied as it is */
		if (!shape_opens[c]) {
			const char *r = s + 1;
			size_t k;

			while (r < end && !shape_opens[(unsigned char)*r])
				r++;
			k = (size_t)(r - s) < n - 1 - o ? (size_t)(r - s) : n - 1 - o;
			memcpy(out + o, s, k);
			o += k;
			s += k;
			continue;
		}
		bool word_start = s == msg || !is_word((unsigned char)s[-1]);
		size_t u;

		if (word_start && c == '0' && s + 2 < end && (s[1] == 'x' || s[1] == 'X') &&
		    isxdigit((unsigned char)s[2])) {
			s += 2;
			while (s < end && isxdigit((unsigned char)*s))
				s++;
			PUT("<hex>");
		} else if (c == '/' && (s == msg || strchr(" \t'\"(=:[", s[-1])) && s + 1 < end &&
			   !isspace((unsigned char)s[1])) {
			while (s < end && !isspace((unsigned char)*s) && !strchr("'\"),;]", *s))
				s++;
			PUT("<path>");
		} else if (word_start && isdigit(c) && (u = duration_len(s, end)) > 0) {
			s += u;
			PUT("<dur>");
		} else if (word_start && isdigit(c)) {
			const char *t = s;

			while (t < end && (isdigit((unsigned char)*t) || *t == '.' || *t == ','))
				t++;
			while (t > s && (t[-1] == '.' || t[-1] == ','))
				t--;
			const char *v = t;
			while (v < end && *v == ' ')
				v++;
			const bool unit = v < end && unit_first[(unsigned char)*v];

			if (unit && (u = unit_in(size_units, N_OF(size_units), v, end)) > 0) {
				s = v + u;
				PUT("<size>");
			} else if (unit && (u = unit_in(time_units, N_OF(time_units), v, end)) > 0) {
				s = v + u;
				PUT("<dur>");
			} else if (unit && (u = unit_in(other_units, N_OF(other_units), v, end)) > 0) {
				s = v + u;
				PUT("<num>");
			} else if (t < end && is_word((unsigned char)*t)) {
				/* "3rd", "2d", "0abc": part of a word, keep it */
				while (s < end && is_word((unsigned char)*s) && o + 1 < n)
					out[o++] = *s++;
			} else {
				s = t;
				PUT("<num>");
			}
		} else {
			out[o++] = (char)c;
			s++;
		}
	}
#undef PUT
	out[o] = '\0';
	return o;
}

static int count_shape(struct gl_section_ctx *cx, struct errors *b, const struct gl_query_event *ev)
{
	struct memo *m = NULL;
	uint64_t mh = 0;

	if (b->memo && ev->message_len <= MEMO_MAX && ev->level >= 0 && ev->level < 256) {
		mh = gl_hash64(ev->message, ev->message_len, (uint64_t)ev->level) | 1;
		m = &b->memo[mh & (MEMO_N - 1)];
		if (m->hash == mh && m->level == ev->level && m->len == ev->message_len &&
		    memcmp(b->memo_msg[m - b->memo], ev->message, ev->message_len) == 0) {
			struct shape *sh = &b->shapes[m->shape];

			sh->count++;
			sh->last_ts_us = ev->ts_us;
			return 0;
		}
	}
	char buf[256];
	size_t len = gl_message_shape(ev->message, ev->message_len, buf, sizeof(buf));
	uint64_t h = (gl_hash64(buf, len, 0x5eed) ^ ((uint64_t)ev->level * 0x9e3779b97f4a7c15ULL)) | 1;
	size_t i = (size_t)h & (b->shape_cap - 1);

	while (b->shapes[i].hash && (b->shapes[i].hash != h || b->shapes[i].level != ev->level ||
				     strcmp(b->shapes[i].text, buf)))
		i = (i + 1) & (b->shape_cap - 1);
	struct shape *sh = &b->shapes[i];
	if (!sh->hash) {
		if (b->n_shapes >= cx->cfg->max_shapes) {
			b->res.shapes_overflow++;
			return 0;
		}
		size_t sl = ev->message_len < SAMPLE_MAX ? ev->message_len : SAMPLE_MAX;
		/* do not cut a UTF-8 sequence in two */
		while (sl > 0 && sl < ev->message_len &&
		       ((unsigned char)ev->message[sl] & 0xC0) == 0x80)
			sl--;
		sh->text = strdup(buf);
		sh->sample = strndup(ev->message, sl);
		if (!sh->text || !sh->sample)
			return gl_section_oom(cx->err);
		sh->hash = h;
		sh->level = ev->level;
		sh->first_ts_us = ev->ts_us;
		b->n_shapes++;
	}
	sh->count++;
	sh->last_ts_us = ev->ts_us;
	if (m) {
		m->hash = mh;
		m->shape = (uint32_t)i;
		m->level = (uint8_t)ev->level;
		m->len = (uint8_t)ev->message_len;
		memcpy(b->memo_msg[m - b->memo], ev->message, ev->message_len);
	}
	return 0;
}

/* The source of ev, added when new; NULL when out of memory. */
static struct source *source_of(struct errors *b, const struct gl_query_event *ev)
{
	const int64_t id[2] = {ev->component_id, ev->host_id};

	if ((b->n_src + 1) * 2 > b->src_cap) {
		size_t cap = b->src_cap ? b->src_cap * 2 : 64;
		struct source *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < b->src_cap; i++) {
			if (!b->src[i].used)
				continue;
			size_t j = (size_t)gl_hash64(b->src[i].id, sizeof(id), 3) & (cap - 1);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = b->src[i];
		}
		free(b->src);
		b->src = t;
		b->src_cap = cap;
		b->last_src = NULL;
	}
	if (b->last_src && b->last_src->id[0] == id[0] && b->last_src->id[1] == id[1])
		return b->last_src;
	size_t i = (size_t)gl_hash64(id, sizeof(id), 3) & (b->src_cap - 1);
	while (b->src[i].used && memcmp(b->src[i].id, id, sizeof(id)))
		i = (i + 1) & (b->src_cap - 1);
	if (!b->src[i].used) {
		b->src[i] = (struct source){{id[0], id[1]}, true, {{0}, {0}}};
		gl_counter_init(&b->src[i].ctr[0]);
		gl_counter_init(&b->src[i].ctr[1]);
		b->n_src++;
	}
	return b->last_src = &b->src[i];
}

/* The error buckets over a span: seconds, minutes, hours or days, at most ~200 of a unit. */
static int64_t bucket_for(int64_t span_us)
{
	if (span_us <= 3 * 60 * GL_US_PER_S)
		return GL_US_PER_S;
	if (span_us <= 3 * 3600 * GL_US_PER_S)
		return 60 * GL_US_PER_S;
	if (span_us <= 3 * GL_US_PER_DAY)
		return 3600 * GL_US_PER_S;
	return GL_US_PER_DAY;
}

int gl_errors_chart_begin(struct gl_errors_chart *c, int64_t t0_us, int64_t t1_us, size_t n_ids,
			  struct gl_err *err)
{
	c->bucket_us = bucket_for(t1_us - t0_us);
	/* buckets start on a whole second, minute, hour or day (UTC) */
	c->bucket0_us = t0_us - t0_us % c->bucket_us;
	c->n_buckets = (size_t)((t1_us - c->bucket0_us + c->bucket_us - 1) / c->bucket_us);
	if (c->n_buckets == 0)
		c->n_buckets = 1;
	if (c->n_buckets > 100000)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL,
				  "window too long to chart (%zu error buckets)", c->n_buckets);
	c->n_ids = n_ids ? n_ids : 1;
	c->rows = calloc(c->n_ids, sizeof(*c->rows));
	return c->rows ? GL_OK : gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

static void free_rows(struct gl_errors_chart *c)
{
	for (size_t i = 0; c->rows && i < c->n_ids; i++)
		free(c->rows[i]);
	free(c->rows);
	c->rows = NULL;
}

void gl_errors_chart_release(struct gl_errors_chart *c)
{
	free_rows(c);
	for (size_t g = 0; g < GL_ERRORS_CHART_GROUPS; g++) {
		free(c->group[g]);
		c->group[g] = NULL;
	}
	free(c->count);
	c->count = NULL;
	c->n_groups = 0;
}

/* Keeps the GL_ERRORS_CHART_GROUPS components with most errors; the rest is "other". */
static int make_groups(struct gl_section_ctx *cx, struct gl_errors_chart *s)
{
	size_t nb = s->n_buckets, n = 0, keep;
	size_t *id = calloc(s->n_ids, sizeof(*id));
	uint64_t *tot = calloc(s->n_ids, sizeof(*tot));
	int rc = GL_OK;

	if (!id || !tot) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t c = 0; c < s->n_ids; c++) {
		if (!s->rows[c])
			continue;
		for (size_t b = 0; b < nb; b++)
			tot[n] += s->rows[c][b];
		id[n++] = c;
	}
	/* Most errors first; ties by name id, so the order does not depend on the walk. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (tot[j] > tot[j - 1] ||
					     (tot[j] == tot[j - 1] && id[j] < id[j - 1])); j--) {
			size_t ti = id[j];
			uint64_t tt = tot[j];

			id[j] = id[j - 1];
			tot[j] = tot[j - 1];
			id[j - 1] = ti;
			tot[j - 1] = tt;
		}
	keep = n > GL_ERRORS_CHART_GROUPS ? GL_ERRORS_CHART_GROUPS - 1 : n;
	s->n_groups = keep + (n > keep);
	s->count = calloc(s->n_groups * nb + 1, sizeof(*s->count));
	if (!s->count) {
		rc = gl_section_oom(cx->err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = i < keep ? i : keep;

		for (size_t b = 0; b < nb; b++)
			s->count[g * nb + b] += s->rows[id[i]][b];
	}
	for (size_t g = 0; g < s->n_groups; g++) {
		const char *name = g < keep && id[g] > 0 ? gl_section_name(cx, (int64_t)id[g]) : NULL;

		s->group[g] = strdup(g == keep ? "other" : name && *name ? name : "(no component)");
		if (!s->group[g]) {
			rc = gl_section_oom(cx->err);
			goto out;
		}
	}
out:
	free(id);
	free(tot);
	return rc;
}

static int begin(struct gl_section_ctx *cx, void *st)
{
	struct errors *b = st;
	int rc;

	b->n_ids = cx->n_ids;
	b->shape_cap = 16;
	while (b->shape_cap < (size_t)cx->cfg->max_shapes * 2)
		b->shape_cap *= 2;
	b->shapes = calloc(b->shape_cap, sizeof(*b->shapes));
	/* none: each message shaped */
	b->memo = calloc(MEMO_N, sizeof(*b->memo));
	b->memo_msg = b->memo ? malloc(MEMO_N * sizeof(*b->memo_msg)) : NULL;
	if (!b->memo_msg) {
		free(b->memo);
		b->memo = NULL;
	}
	b->comp_warn = calloc(cx->n_ids, sizeof(uint64_t));
	b->comp_events = calloc(cx->n_ids, sizeof(uint64_t));
	b->comp_errors = calloc(cx->n_ids, sizeof(uint64_t));
	if (!b->shapes || !b->comp_warn || !b->comp_events || !b->comp_errors)
		return gl_section_oom(cx->err);
	b->charts = cx->rep->axis.charts;
	if (b->charts && (rc = gl_errors_chart_begin(&b->chart, cx->rep->axis.t0_us,
						     cx->rep->axis.t1_us, cx->n_ids, cx->err)) != GL_OK)
		return rc;
	if (gl_query_counts_events(cx->q)) {
		struct gl_query_keep keep;

		rc = gl_section_keep(cx, &keep);
		if (rc == GL_OK)
			rc = gl_query_event_counts(cx->q, cx->p->since_us, cx->p->until_us, &keep,
						   cx->alert_streams, cx->n_alert_streams, on_count,
						   b, cx->err);
		gl_section_keep_release(&keep);
		if (rc != GL_OK && rc != GL_QUERY_NOT_HERE)
			return rc;
		b->counted = rc == GL_OK;
	}
	return GL_OK;
}

static int collect(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	struct errors *b = st;
	struct gl_report_errors *e = &b->res;
	size_t cs = ev->component_id > 0 && (uint64_t)ev->component_id < b->n_ids
			    ? (size_t)ev->component_id : 0;

	if (!b->counted) {
		b->comp_events[cs]++;
		b->events++;
	}
	if (ev->error_count >= 0 || ev->recovery_attempts >= 0) {
		struct source *s = source_of(b, ev);

		if (!s)
			return gl_section_oom(cx->err);
		/*
		 * 0 tells nothing: the service writes "error_count": 0 in its
		 * kernel records between errors that carry the running total
		 * (34, 0, 0, 35); a restart shows at the next smaller value.
		 */
		if (ev->error_count > 0)
			gl_counter_add(&s->ctr[0], (double)ev->error_count);
		if (ev->recovery_attempts > 0)
			gl_counter_add(&s->ctr[1], (double)ev->recovery_attempts);
	}
	if (ev->level < GL_LEVEL_WARN || cx->log_alert)
		return GL_OK;
	if (!b->counted)
		e->by_level[ev->level]++;
	if (ev->level >= GL_LEVEL_ERROR) {
		if (!b->counted) {
			e->errors++;
			b->comp_errors[cs]++;
		}
		if (b->charts) {
			struct gl_errors_chart *c = &b->chart;
			int64_t k = (ev->ts_us - c->bucket0_us) / c->bucket_us;

			if (!c->rows[cs] && !(c->rows[cs] = calloc(c->n_buckets, sizeof(uint64_t))))
				return gl_section_oom(cx->err);
			if (k >= 0 && (size_t)k < c->n_buckets)
				c->rows[cs][k]++;
		}
	} else if (!b->counted) {
		e->warnings++;
	}
	if (!b->counted)
		b->comp_warn[cs]++;
	if (ev->message && count_shape(cx, b, ev) != 0)
		return GL_ENOMEM;
	return GL_OK;
}

static int cmp_shape(const void *pa, const void *pb)
{
	const struct shape *a = pa, *b = pb;

	/* error shapes before warning shapes: 449 anomaly warnings do not hide 115 OOMs */
	if (a->level != b->level)
		return a->level < b->level ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if (a->first_ts_us != b->first_ts_us)
		return a->first_ts_us < b->first_ts_us ? -1 : 1;
	return strcmp(a->text, b->text);
}

static int finish_shapes(struct gl_section_ctx *cx, struct errors *b)
{
	struct gl_report_errors *e = &b->res;
	size_t n = 0;

	for (size_t i = 0; i < b->shape_cap; i++)
		if (b->shapes[i].hash)
			b->shapes[n++] = b->shapes[i];
	for (size_t i = n; i < b->shape_cap; i++)
		b->shapes[i] = (struct shape){0};
	qsort(b->shapes, n, sizeof(*b->shapes), cmp_shape);
	e->shapes = n;
	size_t top = n < cx->p->top ? n : cx->p->top;
	e->top_messages = calloc(top ? top : 1, sizeof(*e->top_messages));
	if (!e->top_messages)
		return gl_section_oom(cx->err);
	for (size_t i = 0; i < top; i++) {
		struct gl_report_shape *s = &e->top_messages[i];

		s->shape = b->shapes[i].text;
		s->sample = b->shapes[i].sample;
		b->shapes[i].text = b->shapes[i].sample = NULL;
		s->count = b->shapes[i].count;
		s->level = b->shapes[i].level;
		s->first_ts_us = b->shapes[i].first_ts_us;
		s->last_ts_us = b->shapes[i].last_ts_us;
	}
	e->n_top_messages = top;
	return GL_OK;
}

static int finish(struct gl_section_ctx *cx, void *st)
{
	struct errors *b = st;
	struct gl_report *rep = cx->rep;
	struct gl_report_errors *e = &b->res;
	const struct gl_report_window *w = &rep->window;
	double hours = w->data_first_ts_us == GL_TS_NONE
			       ? 0 : (double)(w->data_last_ts_us - w->data_first_ts_us) / US_PER_HOUR;

	/* per hour of the data's own span: 234 errors in 5 minutes are 2,808/h, not 9.8/h */
	e->per_hour = hours > 0 ? (double)e->errors / hours : NAN;
	e->per_1000_events = b->events ? (double)e->errors * 1000.0 / (double)b->events : NAN;
	/* a series counts from zero when its process started in the window */
	for (size_t i = 0; i < b->src_cap; i++) {
		if (!b->src[i].used)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct gl_counter *c = &b->src[i].ctr[k];
			double inc = gl_counter_increase(c, cx->data_starts_in_window);

			if (c->n == 0)
				continue;
			if (!isnan(inc))
				b->ctr[k].increase += (uint64_t)inc;
			if ((uint64_t)c->max > b->ctr[k].max)
				b->ctr[k].max = (uint64_t)c->max;
			e->counter_restarts += c->resets;
		}
	}
	e->error_count = b->ctr[0].increase;
	e->error_count_max = b->ctr[0].max;
	e->recovery_attempts = b->ctr[1].increase;
	e->recovery_attempts_max = b->ctr[1].max;
	e->counter_sources = b->n_src;
	for (size_t i = 0; i < b->n_ids; i++)
		e->sink_components += b->comp_events[i] && b->comp_errors[i] == b->comp_events[i];
	int rc = finish_shapes(cx, b);

	if (rc == GL_OK && b->charts) {
		rc = make_groups(cx, &b->chart);
		free_rows(&b->chart);
	}
	return rc == GL_OK ? gl_section_component_counts(cx, b->comp_warn, &e->by_component,
							  &e->n_by_component) : rc;
}

static void release(void *st)
{
	struct errors *b = st;

	for (size_t i = 0; b->shapes && i < b->shape_cap; i++) {
		free(b->shapes[i].text);
		free(b->shapes[i].sample);
	}
	free(b->shapes);
	free(b->memo);
	free(b->memo_msg);
	free(b->comp_warn);
	free(b->comp_events);
	free(b->comp_errors);
	free(b->src);
	gl_errors_chart_release(&b->chart);
	gl_report_counts_free(b->res.by_component, b->res.n_by_component);
	for (size_t i = 0; i < b->res.n_top_messages; i++) {
		free(b->res.top_messages[i].shape);
		free(b->res.top_messages[i].sample);
	}
	free(b->res.top_messages);
}

/* A mirrored record of ERROR or worse: counted here, left out of every other count. */
static int collect_mirrored(struct gl_section_ctx *cx, void *st, const struct gl_query_event *ev)
{
	(void)cx;
	if (ev->level >= GL_LEVEL_ERROR && !((struct errors *)st)->counted)
		((struct errors *)st)->res.mirrored++;
	return GL_OK;
}

/* The results in st; none (no events) for a report without the section's state. */
static const struct gl_report_errors *res_of(const void *st)
{
	static const struct gl_report_errors none = {.per_1000_events = NAN, .per_hour = NAN};

	return st ? &((const struct errors *)st)->res : &none;
}

const struct gl_report_errors *gl_errors_result(const struct gl_report *rep)
{
	return res_of(gl_report_state_of(rep, &gl_sec_errors));
}

static const char *level_name(int level)
{
	return gl_level_name((enum gl_level)level);
}

#define SH(f) offsetof(struct gl_report_shape, f)

/* The level cell's class in HTML: "critical" for ERROR and above, else "warning". */
static const char *level_class(const void *row)
{
	return ((const struct gl_report_shape *)row)->level >= GL_LEVEL_ERROR ? "critical"
										: "warning";
}

/*
 * A message shape: JSON's top_messages items, the HTML table and the CSV's top_messages
 * rows (after the key: the shape as the name, the count as the value, then the columns
 * of their own). The text keeps its own lines (count first, no header, the shape cut
 * from its start).
 */
static const struct gl_col shape_cols[] = {
	{"shape", GL_COL_TEXT, SH(shape), GL_COL_NAME, 0, NULL, 0, 3, "message shape", 0, NULL, 1},
	{"level", GL_COL_ENUM, SH(level), 0, 0, NULL, 0, 1, "level", 0, level_name, 6,
	 .html_class = level_class},
	{"count", GL_COL_U64, SH(count), 0, 0, NULL, 0, 2, "count", 0, NULL, 2},
	{"first_ts", GL_COL_TS, SH(first_ts_us), 0, 0, NULL, 0, 4, "first", 0, NULL, 3},
	{"last_ts", GL_COL_TS, SH(last_ts_us), 0, 0, NULL, 0, 5, "last", 0, NULL, 4},
	{"sample", GL_COL_TEXT, SH(sample), GL_COL_NAME, 0, NULL, 0, 6, "first message", 0, NULL,
	 5},
};

static const struct gl_table shape_table = {shape_cols, sizeof(shape_cols) / sizeof(shape_cols[0]),
					    sizeof(struct gl_report_shape)};

/* A key,name,value row of a count, pad empty cells after it. */
static void count_row(FILE *fp, const char *key, const char *name, uint64_t v, unsigned pad)
{
	gl_csv_text(fp, key);
	gl_csv_sep(fp);
	gl_csv_text(fp, name);
	gl_csv_sep(fp);
	gl_csv_u64(fp, v);
	for (unsigned i = 0; i < pad; i++)
		gl_csv_sep(fp);
	gl_csv_eol(fp);
}

static json_t *components_json(const void *row)
{
	const struct gl_report_errors *e = row;
	struct gl_jb jb = {0};

	return gl_jb_done(&jb, gl_json_counts(&jb, e->by_component, e->n_by_component));
}

static void components_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct gl_report_errors *e = row;

	for (size_t i = 0; i < e->n_by_component; i++)
		count_row(fp, key, e->by_component[i].name, e->by_component[i].count, pad);
}

/* by_level: WARN and above. */
static json_t *levels_json(const void *row)
{
	struct gl_jb jb = {0};

	return gl_jb_done(&jb, gl_json_levels(&jb, ((const struct gl_report_errors *)row)->by_level,
					      GL_LEVEL_WARN));
}

static void levels_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct gl_report_errors *e = row;

	for (int l = GL_LEVEL_WARN; l <= GL_LEVEL_CRITICAL; l++)
		count_row(fp, key, level_name(l), e->by_level[l], pad);
}

static json_t *shapes_json(const void *row)
{
	const struct gl_report_errors *e = row;

	return gl_table_json(&shape_table, e->top_messages, e->n_top_messages);
}

static void shapes_csv(FILE *fp, const char *key, const void *row, unsigned pad)
{
	const struct gl_report_errors *e = row;

	(void)pad;
	gl_table_csv_under(&shape_table, e->top_messages, e->n_top_messages, key, fp);
}

/* Text: the errors and warnings, per 1,000 events and per hour. */
static const char *errors_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_errors *e = row;
	char a[40], b[40];

	snprintf(buf, n, "%llu errors, %llu warnings; %s per 1,000 events, %s per hour",
		 (unsigned long long)e->errors, (unsigned long long)e->warnings,
		 gl_text_num(e->per_1000_events, a, sizeof(a)), gl_text_num(e->per_hour, b, sizeof(b)));
	return buf;
}

/* Text: the mirrored error records, when there are any. */
static const char *mirrored_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_errors *e = row;

	if (!e->mirrored)
		return NULL;
	snprintf(buf, n, "%llu mirrored error records counted once",
		 (unsigned long long)e->mirrored);
	return buf;
}

/* Text: the counters' increase and largest values, when a source carried them. */
static const char *counters_text(const void *row, char *buf, size_t n)
{
	const struct gl_report_errors *e = row;

	if (!e->counter_sources)
		return NULL;
	snprintf(buf, n, "counters (increase over the window): %llu errors (largest value %llu), "
		 "%llu recovery attempts (largest %llu)", (unsigned long long)e->error_count,
		 (unsigned long long)e->error_count_max, (unsigned long long)e->recovery_attempts,
		 (unsigned long long)e->recovery_attempts_max);
	return buf;
}

#define ER(f) offsetof(struct gl_report_errors, f)

/*
 * The section's figures, a record: JSON's object, the CSV's key,name,value rows (four
 * empty cells after each: the header has the message shapes' columns too; the shapes'
 * rows last) and the text's lines (the mirrored and the counters' only when there are
 * any). The HTML says them in a paragraph.
 */
static const struct gl_col errors_cols[] = {
	{"errors", GL_COL_U64, ER(errors), 0, 1, "", 0, 0, NULL, 0, NULL, 1,
	 .text_cell = errors_text},
	{"warnings", GL_COL_U64, ER(warnings), 0, 0, NULL, 0, 0, NULL, 0, NULL, 2},
	{"by_component", GL_COL_U64, ER(by_component), 0, 0, NULL, 0, 0, NULL, 0, NULL, 3,
	 .json_of = components_json, .csv_rows = components_csv},
	{"by_level", GL_COL_U64, ER(by_level), 0, 0, NULL, 0, 0, NULL, 0, NULL, 4,
	 .json_of = levels_json, .csv_rows = levels_csv},
	{"per_1000_events", GL_COL_NUM, ER(per_1000_events), 0, 0, NULL, 0, 0, NULL, 0, NULL, 5},
	{"per_hour", GL_COL_NUM, ER(per_hour), 0, 0, NULL, 0, 0, NULL, 0, NULL, 6},
	{"top_messages", GL_COL_U64, ER(top_messages), 0, 0, NULL, 0, 0, NULL, 0, NULL, 17,
	 .json_of = shapes_json, .csv_rows = shapes_csv},
	{"shapes", GL_COL_U64, ER(shapes), 0, 0, NULL, 0, 0, NULL, 0, NULL, 7},
	{"shapes_overflow", GL_COL_U64, ER(shapes_overflow), 0, 0, NULL, 0, 0, NULL, 0, NULL, 8},
	{"mirrored", GL_COL_U64, ER(mirrored), 0, 2, "", 0, 0, NULL, 0, NULL, 9,
	 .text_cell = mirrored_text},
	{"sink_components", GL_COL_U64, ER(sink_components), 0, 0, NULL, 0, 0, NULL, 0, NULL, 10},
	{"recovery_attempts", GL_COL_U64, ER(recovery_attempts), 0, 0, NULL, 0, 0, NULL, 0, NULL,
	 11},
	{"recovery_attempts_max", GL_COL_U64, ER(recovery_attempts_max), 0, 0, NULL, 0, 0, NULL, 0,
	 NULL, 12},
	{"error_count", GL_COL_U64, ER(error_count), 0, 0, NULL, 0, 0, NULL, 0, NULL, 13},
	{"error_count_max", GL_COL_U64, ER(error_count_max), 0, 0, NULL, 0, 0, NULL, 0, NULL, 14},
	{"counter_sources", GL_COL_U64, ER(counter_sources), 0, 3, "", 0, 0, NULL, 0, NULL, 15,
	 .text_cell = counters_text},
	{"counter_restarts", GL_COL_U64, ER(counter_restarts), 0, 0, NULL, 0, 0, NULL, 0, NULL,
	 16},
};

static const struct gl_table errors_table = {errors_cols,
					     sizeof(errors_cols) / sizeof(errors_cols[0]),
					     sizeof(struct gl_report_errors)};

static json_t *emit_json(const struct gl_report *r, const void *st)
{
	(void)r;
	return gl_record_json(&errors_table, res_of(st));
}

static void emit_csv(const struct gl_report *r, const void *st, FILE *fp)
{
	(void)r;
	fputs("key,name,value,first_ts,last_ts,sample,level", fp);
	gl_csv_eol(fp);
	gl_record_csv(&errors_table, res_of(st), NULL, 4, fp);
}

static void emit_text(const struct gl_report *r, const void *st, FILE *fp)
{
	const struct gl_report_errors *er = res_of(st);

	(void)r;
	gl_record_text(&errors_table, er, fp);
	/* the most frequent shapes: no header, the shape cut from its start */
	for (size_t i = 0; i < er->n_top_messages && i < 10; i++) {
		fprintf(fp, "%8llu  %-8s ", (unsigned long long)er->top_messages[i].count,
			gl_level_name((enum gl_level)er->top_messages[i].level));
		gl_text_last(fp, er->top_messages[i].shape, GL_TEXT_WIDTH - 19);
		fputc('\n', fp);
	}

}

static void emit_html(const struct gl_report *rep, const void *st, FILE *f)
{
	const struct gl_report_errors *e = res_of(st);

	(void)rep;

	fprintf(f, "<p>%llu errors (ERROR and CRITICAL), %llu warnings; ",
		(unsigned long long)e->errors, (unsigned long long)e->warnings);
	gl_html_num(f, e->per_hour, GL_HTML_G3);
	fputs(" errors per hour, ", f);
	gl_html_num(f, e->per_1000_events, GL_HTML_G3);
	fputs(" per 1,000 events.", f);
	if (e->mirrored)
		fprintf(f, " %llu mirrored error records (the same record in two files) counted once.",
			(unsigned long long)e->mirrored);
	if (e->counter_sources)
		fprintf(f, " Counters, increase over the window: %llu errors (largest value %llu), "
			"%llu recovery attempts (largest %llu).",
			(unsigned long long)e->error_count, (unsigned long long)e->error_count_max,
			(unsigned long long)e->recovery_attempts,
			(unsigned long long)e->recovery_attempts_max);
	fputs("</p>\n", f);
	if (e->n_by_component > 0)
		gl_html_counts(f, "component (WARN and above)", e->by_component, e->n_by_component);
	if (e->n_top_messages == 0)
		return;
	gl_table_html(&shape_table, e->top_messages, e->n_top_messages, f);
}

/* "second", "minute", "hour" or "day": the error buckets' unit. */
static const char *bucket_unit(int64_t bucket_us)
{
	return bucket_us >= GL_US_PER_DAY ? "day" : bucket_us >= 3600 * GL_US_PER_S ? "hour"
		: bucket_us >= 60 * GL_US_PER_S ? "minute" : "second";
}

static int chart_errors(const struct gl_report *rep, const void *st, const char *path,
			const struct gl_chart_opts *o, struct gl_err *err)
{
	static const struct gl_errors_chart none;
	const struct errors *b = st;
	const struct gl_errors_chart *s = b && b->charts ? &b->chart : &none;
	char t[GL_PNG_TITLE_MAX], what[64], ylabel[64];

	snprintf(what, sizeof(what), "Errors per %s by component", bucket_unit(s->bucket_us));
	snprintf(ylabel, sizeof(ylabel), "errors per %s", bucket_unit(s->bucket_us));
	gl_png_title(t, what, rep);
	if (s->n_groups == 0)
		return gl_chart_nodata(path, t, "No ERROR or CRITICAL events in this window",
				       o, err);
	return gl_chart_time_bars(path, t, ylabel, s->bucket0_us, s->bucket_us, s->n_buckets,
				  (const char *const *)s->group, s->n_groups, s->count, o,
				  err);
}

const struct gl_errors_chart *gl_errors_chart(const struct gl_report *rep)
{
	const struct errors *b = gl_report_state_of(rep, &gl_sec_errors);

	return b && b->charts ? &b->chart : NULL;
}

static const struct gl_chart_def charts[] = {
	{GL_PNG_ERRORS, "Errors per second, minute, hour or day by component", chart_errors},
	{NULL, NULL, NULL},
};

const struct gl_section gl_sec_errors = {
	.name = "errors",
	.title = "Errors",
	.state_size = sizeof(struct errors),
	.begin = begin,
	.collect = collect,
	.collect_mirrored = collect_mirrored,
	.finish = finish,
	.release = release,
	.emit_json = emit_json,
	.emit_csv = emit_csv,
	.emit_text = emit_text,
	.emit_html = emit_html,
	.charts = charts,
};
