/*
 * kineto_map.c - one element of a Kineto trace (fmt_kineto.c hands them
 * over, one JSON object in a buffer) to a record: the fields of a trace
 * event found by one walk (a validating scan where the walk gives up),
 * ts kept whole and fractional, a kernel timing, an annotation span with
 * its path, a deviceProperties event. In: the element's bytes; out: the
 * record in a slot (strings in the slot's buffer).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kineto.h"

int gl_kin_slot_reserve(struct slot *s, size_t n)
{
	if (n > s->cap) {
		char *p = realloc(s->buf, n);

		if (!p)
			return -1;
		s->buf = p;
		s->cap = n;
	}
	s->used = 0;
	return 0;
}

static struct gl_str slot_put(struct slot *s, const char *p, size_t n)
{
	struct gl_str v = {s->buf + s->used, n};

	memcpy(s->buf + s->used, p, n);
	s->used += n;
	return v;
}

/* A scanned string, unescaped, into the slot (reserved for the unit's size). */
static struct gl_str slot_str(struct slot *s, const struct gl_json_val *v)
{
	struct gl_str out = {s->buf + s->used, 0};

	out.len = gl_json_unescape(v->p, v->len, s->buf + s->used);
	s->used += out.len;
	return out;
}

/* The length of the run at p[0..n) of digits, '-', ' ' and ','. */
static size_t strspn_n(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ((p[i] >= '0' && p[i] <= '9') || p[i] == '-' || p[i] == ' ' || p[i] == ','))
		i++;
	return i;
}

/* "grid": [4, 106, 1] -> "4,106,1"; NULL p unless an array of integers. */
static struct gl_str slot_dim(struct slot *s, const struct gl_json_val *v)
{
	struct gl_str out = {NULL, 0};
	struct gl_json_scan sc;
	struct gl_json_val e;
	size_t start = s->used;
	int n = 0;

	if (v->type != GL_JSON_ARRAY)
		return out;
	/*
	 * An array the scanner accepted that holds only digits, '-', ' ' and
	 * ',' between its brackets ("[54, 1, 1]") is a list of integers: the
	 * runs of digits are its elements.
	 */
	if (v->len >= 2 && v->len - 2 == strspn_n(v->p + 1, v->len - 2)) {
		for (size_t i = 1; i + 1 < v->len;) {
			size_t end;

			if (v->p[i] == ' ' || v->p[i] == ',') {
				i++;
				continue;
			}
			for (end = i + 1; end + 1 < v->len && v->p[end] != ' ' && v->p[end] != ','; end++)
				;
			if (n++ == 3) {
				s->used = start;
				return out;
			}
			if (n > 1)
				slot_put(s, ",", 1);
			slot_put(s, v->p + i, end - i);
			i = end;
		}
		out.p = s->buf + start;
		out.len = s->used - start;
		return out;
	}
	gl_json_scan_init(&sc, v->p, v->len);
	sc.pos = 1;
	for (;;) {
		while (sc.pos < sc.len && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == ','))
			sc.pos++;
		if (sc.pos >= sc.len || sc.s[sc.pos] == ']')
			break;
		if (gl_json_scan_value(&sc, 3, &e) < 0 || e.type != GL_JSON_INT || n >= 3) {
			s->used = start;
			return out;
		}
		if (n++)
			slot_put(s, ",", 1);
		slot_put(s, e.p, e.len);
	}
	out.p = s->buf + start;
	out.len = s->used - start;
	return out;
}

int gl_kin_is_cat(const struct gl_str *c, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (c->len == strlen(names[i]) && memcmp(c->p, names[i], c->len) == 0)
			return 1;
	return 0;
}

const char *const gl_kin_gpu_cats[] = {"kernel", "Kernel", "gpu_memcpy", "Memcpy",
				       "gpu_memset", "Memset", NULL};
const char *const gl_kin_launch_cats[] = {"cuda_runtime", "cuda_driver", "Runtime", NULL};
const char *const gl_kin_annot_cats[] = {"user_annotation", "gpu_user_annotation", NULL};


int gl_kin_num(const struct gl_json_val *v, double *d)
{
	int64_t i;

	if (v->type != GL_JSON_INT && v->type != GL_JSON_REAL)
		return -1;
	return gl_json_number(v, &i, d);
}

static int key_is(const struct gl_json_val *k, const char *s)
{
	return k->len == strlen(s) && memcmp(k->p, s, k->len) == 0;
}

/*
 * The fast path of scan_event: one walk over the element that reads the
 * members used here and steps over the rest. It checks itself what a
 * Kineto event is mostly made of: keys and strings of plain bytes (no
 * escape, control or non-ASCII byte), plain numbers ("ts":
 * 1735689600001037.509, "dur": 279.027, "correlation": 1) and arrays of
 * them ("grid": [54, 1, 1]). Any other value (objects but args, literals,
 * other strings and numbers) goes to gl_json_scan_value, the validating
 * scan the slow path uses, at the same depth. Returns 0 with *t filled, or
 * -1 for anything else (a key with an escape, a value the scanner refuses,
 * a stray byte): the caller then runs the slow path, which finds the same
 * values or gives the reason.
 */
static const unsigned char plain_byte[256] = {	/* 0x20..0x7f but '"' and '\\' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static const unsigned char ws_byte[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* b[i..] up to the '\0' after the unit (jsonstream.h) holds no blank. */
static size_t skip_ws(const unsigned char *b, size_t i)
{
	while (ws_byte[b[i]])
		i++;
	return i;
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A number at b[i] of the form -?(0|[1-9][0-9]*)(.[0-9]+)? with at most 18
 * integer digits (so it fits int64 and cannot overflow a double): its end,
 * *real set when it has a fraction. 0 when it is not of that form.
 */
static size_t plain_number(const unsigned char *b, size_t i, int *real)
{
	size_t j = i + (b[i] == '-'), d0 = j;

	if (b[j] == '0')
		j++;
	else
		while (is_digit(b[j]))
			j++;
	if (j == d0 || j - d0 > 18 || is_digit(b[j]))
		return 0;
	*real = 0;
	if (b[j] == '.') {
		size_t f0 = ++j;

		while (is_digit(b[j]))
			j++;
		if (j == f0)
			return 0;
		*real = 1;
	}
	if (b[j] == 'e' || b[j] == 'E')
		return 0;
	return j;
}

/* An array of plain numbers at b[i] == '[': its end, or 0. *space: blanks inside. */
static size_t plain_array(const unsigned char *b, size_t i, unsigned *space)
{
	size_t j = skip_ws(b, i + 1);
	int real;

	*space = j != i + 1;
	if (b[j] == ']')
		return j + 1;
	for (;;) {
		size_t e;

		if ((b[j] != '-' && !is_digit(b[j])) || !(e = plain_number(b, j, &real)))
			return 0;
		j = skip_ws(b, e);
		*space |= j != e;
		if (b[j] == ']')
			return j + 1;
		if (b[j] != ',')
			return 0;
		e = skip_ws(b, j + 1);
		*space |= e != j + 1;
		j = e;
	}
}

#define KEY_IS(k, kl, lit) ((kl) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* Where a member of the top-level object (args 0) or of args (args 1) goes. */
static struct gl_json_val *member(struct tev *t, const char *k, size_t kl, int args)
{
	if (!args) {
		switch (kl) {
		case 2:
			return KEY_IS(k, kl, "ph") ? &t->ph : KEY_IS(k, kl, "ts") ? &t->ts : NULL;
		case 3:
			if (KEY_IS(k, kl, "cat"))
				return &t->cat;
			if (KEY_IS(k, kl, "pid"))
				return &t->pid;
			if (KEY_IS(k, kl, "tid"))
				return &t->tid;
			return KEY_IS(k, kl, "dur") ? &t->dur : NULL;
		case 4:
			return KEY_IS(k, kl, "name") ? &t->name : NULL;
		default:
			return NULL;
		}
	}
	switch (kl) {
	case 4:
		return KEY_IS(k, kl, "grid") ? &t->grid : NULL;
	case 5:
		return KEY_IS(k, kl, "block") ? &t->block : NULL;
	case 6:
		if (KEY_IS(k, kl, "device"))
			return &t->device;
		return KEY_IS(k, kl, "stream") ? &t->stream : NULL;
	case 11:
		return KEY_IS(k, kl, "correlation") ? &t->corr : NULL;
	case 13:
		return KEY_IS(k, kl, "shared memory") ? &t->smem : NULL;
	case 20:
		return KEY_IS(k, kl, "registers per thread") ? &t->regs : NULL;
	case 25:
		return KEY_IS(k, kl, "est. achieved occupancy %") ? &t->occ : NULL;
	default:
		return NULL;
	}
}

/*
 * p[0..n) is a unit of jsonstream.h, followed by its '\0': the loops stop
 * there (a '\0' is no blank, digit, quote or plain byte) without a bounds
 * check. A '\0' inside the unit stops them too and leads to the slow path.
 */
static int fast_event(const char *p, size_t n, struct tev *t)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i = skip_ws(b, 0);
	int args = 0;	/* walking the members of args */

	memset(t, 0, sizeof(*t));
	if (b[i] != '{')
		return -1;
	i = skip_ws(b, i + 1);
	if (b[i] == '}') {
		i++;
		goto end;
	}
	for (;;) {
		struct gl_json_val v, *dst;
		const char *k;
		size_t kl, j;
		int real;
		unsigned space;

		/* "key" : */
		if (b[i] != '"')
			return -1;
		for (j = i + 1; plain_byte[b[j]]; j++)
			;
		if (b[j] != '"')
			return -1;
		k = p + i + 1;
		kl = j - i - 1;
		i = skip_ws(b, j + 1);
		if (b[i] != ':')
			return -1;
		i = skip_ws(b, i + 1);
		if (i >= n)
			return -1;
		if (!args && b[i] == '{' && KEY_IS(k, kl, "args")) {
			args = 1;
			i = skip_ws(b, i + 1);
			if (b[i] == '}') {
				i++;
				args = 0;
				goto next;
			}
			continue;
		}
		/* the value */
		v.flags = 0;
		if (b[i] == '"') {
			j = i + 1 + gl_json_plain_run(p + i + 1, n - i - 1);
			if (b[j] != '"')
				goto general;
			v.type = GL_JSON_STRING;
			v.p = p + i + 1;
			v.len = j - i - 1;
			i = j + 1;
		} else if ((b[i] == '-' || is_digit(b[i])) && (j = plain_number(b, i, &real))) {
			v.type = real ? GL_JSON_REAL : GL_JSON_INT;
			v.p = p + i;
			v.len = j - i;
			i = j;
		} else if (b[i] == '[' && (j = plain_array(b, i, &space))) {
			v.type = GL_JSON_ARRAY;
			v.p = p + i;
			v.len = j - i;
			v.flags = space ? GL_JSON_F_SPACE : 0;
			i = j;
		} else {
			struct gl_json_scan sc;
general:
			gl_json_scan_init(&sc, p, n);
			sc.pos = i;
			if (gl_json_scan_value(&sc, args ? 3 : 2, &v) < 0)
				return -1;
			i = sc.pos;
		}
		if ((dst = member(t, k, kl, args)))
			*dst = v;
next:
		/* ',' and the next member, or '}' */
		i = skip_ws(b, i);
		if (b[i] == ',') {
			i = skip_ws(b, i + 1);
			continue;
		}
		if (b[i] != '}')
			return -1;
		i++;
		if (!args)
			break;
		args = 0;
		goto next;
	}
end:
	return skip_ws(b, i) == n ? 0 : -1;
}

/*
 * Walks the element's object (and its args object). Returns 0, or -1 with
 * *why. The fast path above takes the elements it can; the rest (and every
 * element that is not valid JSON) get the full validating walk.
 */
int gl_kin_scan_event(const char *p, size_t n, struct tev *t, const char **why)
{
	struct gl_json_scan sc;
	struct gl_json_val k, v;
	int r;

	if (fast_event(p, n, t) == 0)
		return 0;
	memset(t, 0, sizeof(*t));
	gl_json_scan_init(&sc, p, n);
	if (gl_json_object_begin(&sc) < 0) {
		*why = "trace event: not a JSON object";
		return -1;
	}
	while ((r = gl_json_object_next(&sc, 2, &k, &v)) == 1) {
		if (key_is(&k, "ph"))
			t->ph = v;
		else if (key_is(&k, "cat"))
			t->cat = v;
		else if (key_is(&k, "name"))
			t->name = v;
		else if (key_is(&k, "pid"))
			t->pid = v;
		else if (key_is(&k, "tid"))
			t->tid = v;
		else if (key_is(&k, "ts"))
			t->ts = v;
		else if (key_is(&k, "dur"))
			t->dur = v;
		else if (key_is(&k, "args") && v.type == GL_JSON_OBJECT) {
			struct gl_json_scan as;
			struct gl_json_val ak, av;
			int ar;

			gl_json_scan_init(&as, v.p, v.len);
			gl_json_object_begin(&as);
			while ((ar = gl_json_object_next(&as, 3, &ak, &av)) == 1) {
				if (key_is(&ak, "device"))
					t->device = av;
				else if (key_is(&ak, "stream"))
					t->stream = av;
				else if (key_is(&ak, "correlation"))
					t->corr = av;
				else if (key_is(&ak, "registers per thread"))
					t->regs = av;
				else if (key_is(&ak, "shared memory"))
					t->smem = av;
				else if (key_is(&ak, "grid"))
					t->grid = av;
				else if (key_is(&ak, "block"))
					t->block = av;
				else if (key_is(&ak, "est. achieved occupancy %"))
					t->occ = av;
			}
		}
	}
	if (r < 0 || gl_json_scan_end(&sc) < 0) {
		*why = sc.err ? sc.err : "trace event: not JSON";
		return -1;
	}
	return 0;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
};

int gl_kin_ts_split(const struct gl_json_val *v, struct kts *t)
{
	int64_t i;
	double d;
	const char *dot;

	if (v->type == GL_JSON_INT) {
		if (gl_json_number(v, &i, &d) < 0)
			return -1;
		t->whole = i;
		t->frac = 0;
		return 0;
	}
	if (v->type != GL_JSON_REAL)
		return -1;
	dot = memchr(v->p, '.', v->len);
	if (dot && dot - v->p <= 18 && v->p[0] != '-' && !memchr(v->p, 'e', v->len) &&
	    !memchr(v->p, 'E', v->len)) {
		char f[40] = "0";
		size_t fl = v->len - (size_t)(dot - v->p);
		uint64_t m = 0;

		t->whole = 0;
		for (const char *c = v->p; c < dot; c++)
			t->whole = t->whole * 10 + (*c - '0');
		/*
		 * ".988" is 988 / 10^3: with at most 15 digits both are exact
		 * doubles and the one division rounds as strtod("0.988") does
		 * (Clinger's fast path).
		 */
		if (FLT_EVAL_METHOD == 0 && fl - 1 <= 15) {
			for (const char *c = dot + 1; c < v->p + v->len; c++)
				m = m * 10 + (uint64_t)(*c - '0');
			t->frac = (double)m / pow10_exact[fl - 1];
			return 0;
		}
		if (fl > sizeof(f) - 2)
			fl = sizeof(f) - 2;
		memcpy(f + 1, dot, fl);
		f[fl + 1] = '\0';
		t->frac = strtod(f, NULL);
		return 0;
	}
	if (gl_json_number(v, &i, &d) < 0 || !isfinite(d))
		return -1;
	/* "ts": 1e308 is a number but no time: beyond int64 µs (and what a
	 * base added to it could reach) it is out of range */
	if (!(d > -4.6e18 && d < 4.6e18))
		return -2;
	t->whole = (int64_t)floor(d);
	t->frac = d - floor(d);
	return 0;
}

/* b - a in µs. */
static double ts_diff(struct kts b, struct kts a)
{
	return (double)(b.whole - a.whole) + (b.frac - a.frac);
}

static int64_t to_us(const struct kin_state *st, struct kts t)
{
	int64_t us = t.whole;
	double frac = t.frac;

	if (st->has_base) {
		us += st->base_ns / 1000;
		frac += (double)(st->base_ns % 1000) / 1000.0;
	}
	return us + (int64_t)llround(frac);
}

/* "stream 7" -> "7"; an integer as text; else NULL p. */
static struct gl_str id_text(struct slot *s, const struct gl_json_val *v, const char *prefix)
{
	struct gl_str none = {NULL, 0};

	if (v->type == GL_JSON_INT)
		return slot_put(s, v->p, v->len);
	if (v->type == GL_JSON_STRING && !(v->flags & GL_JSON_F_ESCAPES)) {
		size_t pl = strlen(prefix);

		if (v->len > pl && memcmp(v->p, prefix, pl) == 0)
			return slot_put(s, v->p + pl, v->len - pl);
	}
	return none;
}

/* A GPU event into slot s. Returns 0, or -1 with *why. */
int gl_kin_build_kernel(struct kin_state *st, struct slot *s, const struct tev *t,
			const char **why)
{
	struct gl_event *ev = &s->ev;
	struct kts ts;
	double dur, d;
	int64_t i;

	if (t->name.type != GL_JSON_STRING) {
		*why = "GPU event: no name";
		return -1;
	}
	switch (gl_kin_ts_split(&t->ts, &ts)) {
	case -2:
		*why = "GPU event: ts out of range";
		return -1;
	case -1:
		*why = "GPU event: ts is not a number";
		return -1;
	}
	if (gl_kin_num(&t->dur, &dur) < 0) {
		*why = "GPU event: dur is not a number";
		return -1;
	}
	if (dur < 0) {
		*why = "GPU event: negative dur";
		return -1;
	}
	gl_event_init(ev);
	s->kind = GL_REC_EVENT;
	s->ts = ts;
	ev->source = GL_SRC_KINETO;
	ev->ts_us = to_us(st, ts);
	ev->dur_us = dur;
	ev->level = GL_LEVEL_INFO;
	ev->component = slot_put(s, "kineto", 6);
	ev->kernel = slot_str(s, &t->name);
	ev->device = id_text(s, &t->device, "");
	if (!ev->device.p)
		ev->device = id_text(s, &t->pid, "");
	ev->stream = id_text(s, &t->stream, "");
	if (!ev->stream.p)
		ev->stream = id_text(s, &t->tid, "stream ");
	ev->grid = slot_dim(s, &t->grid);
	ev->block = slot_dim(s, &t->block);
	if (t->regs.type == GL_JSON_INT && gl_json_number(&t->regs, &i, &d) == 0)
		ev->registers = i;
	if (t->smem.type == GL_JSON_INT && gl_json_number(&t->smem, &i, &d) == 0)
		ev->shared_mem_bytes = i;
	if (t->corr.type == GL_JSON_INT && gl_json_number(&t->corr, &i, &d) == 0)
		ev->corr_id = i;
	if (gl_kin_num(&t->occ, &d) == 0)
		ev->occupancy = d / 100.0;
	return 0;
}

/* The launch call's figures into a kernel's event. */
void gl_kin_apply_launch(struct slot *s, struct kts call_ts, double call_dur)
{
	double q = ts_diff(s->ts, call_ts) - call_dur;

	s->ev.launch_overhead_us = call_dur;
	s->ev.queue_us = q > 0 ? q : 0;
}

/* An annotation into slot s, with its path from the thread's open annotations. */
int gl_kin_build_span(struct kin *k, struct kin_state *st, struct slot *s, const struct tev *t,
		      int which, const char **why)
{
	struct astack *as = NULL;
	struct kts kt;
	double ts, dur, d;
	int64_t tid = -1, pid = 0;
	struct gl_span *sp = &s->sp;

	if (gl_kin_ts_split(&t->ts, &kt) == -2) {
		*why = "annotation: ts out of range";
		return -1;
	}
	if (t->name.type != GL_JSON_STRING || gl_kin_ts_split(&t->ts, &kt) < 0 || gl_kin_num(&t->dur, &dur) < 0 ||
	    dur < 0) {
		*why = "annotation: no name, ts or dur";
		return -1;
	}
	ts = (double)kt.whole + kt.frac;
	if (t->tid.type == GL_JSON_INT)
		gl_json_number(&t->tid, &tid, &d);
	/* a GPU copy's tid is a stream: stream 7 of GPU 0 and of GPU 1 are two stacks */
	if (which && t->pid.type == GL_JSON_INT && gl_json_number(&t->pid, &pid, &d) == 0)
		tid = (int64_t)((uint64_t)pid << 32 ^ (uint64_t)tid);
	for (int i = 0; i < KIN_TIDS && !as; i++)
		if (k->stacks[which][i].used && k->stacks[which][i].tid == tid)
			as = &k->stacks[which][i];
	if (!as) {
		as = &k->stacks[which][0];
		for (int i = 1; i < KIN_TIDS; i++)
			if (k->stacks[which][i].used < as->used)
				as = &k->stacks[which][i];
		as->n = 0;
		as->text_len = 0;
		as->tid = tid;
	}
	as->used = ++k->stack_clock;
	/*
	 * close the annotations that do not hold this one: ended before it
	 * starts, started after it (GPU copies are written out of start order:
	 * "Optimizer.step" on stream 7, then the "## backward ##" before it),
	 * or ending before it ends (two GPU copies that overlap, not nested)
	 */
	while (as->n > 0 && (as->a[as->n - 1].end_raw <= ts || as->a[as->n - 1].start_raw > ts ||
			     as->a[as->n - 1].end_raw < ts + dur)) {
		as->n--;
		as->text_len = as->a[as->n].off ? as->a[as->n].off - 1 : 0;
	}
	gl_span_init(sp);
	s->kind = GL_REC_SPAN;
	sp->source = GL_SRC_KINETO;
	sp->start_us = to_us(st, kt);
	sp->dur_us = dur;
	sp->name = slot_str(s, &t->name);
	sp->depth = as->n;
	/*
	 * A GPU-side copy (gpu_user_annotation) is on the device its pid names,
	 * as a kernel without args.device is: {"cat": "gpu_user_annotation",
	 * "pid": 0, "tid": 7, ...}; a CPU range is on no device.
	 */
	sp->device = id_text(s, &t->device, "");
	if (!sp->device.p && which)
		sp->device = id_text(s, &t->pid, "");
	if (as->n < KIN_STACK && as->text_len + sp->name.len + 1 < sizeof(as->text)) {
		struct annot *a = &as->a[as->n++];

		if (as->text_len)
			as->text[as->text_len++] = '|';
		a->off = as->text_len;
		a->len = sp->name.len;
		a->start_raw = ts;
		a->end_raw = ts + dur;
		memcpy(as->text + as->text_len, sp->name.p, sp->name.len);
		as->text_len += sp->name.len;
		sp->path = slot_put(s, as->text, as->text_len);
	} else {
		sp->path = sp->name;
	}
	return 0;
}

/* A deviceProperties element: "device 0: NVIDIA A100-PG509-200". */
int gl_kin_build_device(struct slot *s, const char *p, size_t n, const char **why)
{
	struct gl_json_scan sc;
	struct gl_json_val k, v, id = {0}, name = {0};
	char tmp[64];
	int r, len;

	gl_json_scan_init(&sc, p, n);
	if (gl_json_object_begin(&sc) < 0) {
		*why = "deviceProperties: not an object";
		return -1;
	}
	while ((r = gl_json_object_next(&sc, 3, &k, &v)) == 1) {
		if (key_is(&k, "id"))
			id = v;
		else if (key_is(&k, "name"))
			name = v;
	}
	if (r < 0 || id.type != GL_JSON_INT || name.type != GL_JSON_STRING) {
		*why = "deviceProperties: no id or name";
		return -1;
	}
	gl_event_init(&s->ev);
	s->kind = GL_REC_EVENT;
	s->ev.source = GL_SRC_KINETO;
	s->ev.level = GL_LEVEL_INFO;
	s->ev.component = slot_put(s, "kineto", 6);
	s->ev.device = slot_put(s, id.p, id.len);
	len = snprintf(tmp, sizeof(tmp), "device %.*s: ", (int)id.len, id.p);
	s->ev.message = slot_put(s, tmp, (size_t)len);
	s->ev.message.len += slot_str(s, &name).len;
	s->ev.metadata.p = s->buf + s->used;
	s->ev.metadata.len = gl_json_compact(&(struct gl_json_val){GL_JSON_OBJECT, p, n, GL_JSON_F_SPACE},
					     s->buf + s->used);
	s->used += s->ev.metadata.len;
	return 0;
}
