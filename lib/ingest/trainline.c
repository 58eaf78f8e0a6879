/*
 * trainline.c - training metrics and progress bars in text lines
 * (trainline.h). In: a message. Out: numbers; nothing is stored here.
 */
#include "trainline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gl_train_init(struct gl_train *t)
{
	t->step = -1;
	t->loss = t->eval_loss = t->grad_norm = t->learning_rate = t->epoch = NAN;
	t->iteration_ms = t->samples_per_s = t->tokens_per_s = NAN;
	t->source = NULL;
}

static const char *find(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(s + i, needle, n) == 0)
			return s + i;
	return NULL;
}

/* A number at p (spaces and one quote before it allowed); NAN when none. */
static double number(const char *p, const char *end)
{
	char buf[48];
	size_t n = 0;
	char *e;
	double v;

	while (p < end && (*p == ' ' || *p == '\'' || *p == '"' || *p == '['))
		p++;
	while (p < end && n < sizeof(buf) - 1 && strchr("0123456789+-.eE", *p) && *p)
		buf[n++] = *p++;
	buf[n] = '\0';
	if (!n)
		return NAN;
	v = strtod(buf, &e);
	return e == buf ? NAN : v;
}

/* 'key': value in an HF dict; NAN when absent. */
static double dict_val(const char *s, size_t len, const char *key)
{
	char pat[64];
	const char *p;
	size_t n = strlen(key);

	if (n + 4 > sizeof(pat))
		return NAN;
	pat[0] = '\'';
	memcpy(pat + 1, key, n);
	memcpy(pat + 1 + n, "':", 3);
	p = find(s, len, pat);
	return p ? number(p + n + 3, s + len) : NAN;
}

/* "label: value" of a Megatron line ("lm loss: 2.746864E+00"). */
static double bar_val(const char *s, size_t len, const char *label)
{
	const char *p = find(s, len, label);

	return p ? number(p + strlen(label), s + len) : NAN;
}

int gl_train_parse(const char *s, size_t len, struct gl_train *t)
{
	const char *p, *end = s + len;

	gl_train_init(t);
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	if (len > 2 && s[0] == '{' && s[1] == '\'' && s[len - 1] == '}') {
		t->loss = dict_val(s, len, "loss");
		t->eval_loss = dict_val(s, len, "eval_loss");
		if (isnan(t->loss) && isnan(t->eval_loss))
			return 0;
		t->grad_norm = dict_val(s, len, "grad_norm");
		t->learning_rate = dict_val(s, len, "learning_rate");
		t->epoch = dict_val(s, len, "epoch");
		t->step = dict_val(s, len, "step");
		if (isnan(t->step))
			t->step = -1;
		t->source = "hf";
		return 1;
	}
	if ((p = find(s, len, "iteration ")) && find(s, len, "lm loss:")) {
		t->step = number(p + 10, end);
		if (isnan(t->step))
			return 0;
		t->loss = bar_val(s, len, "lm loss:");
		t->iteration_ms = bar_val(s, len, "elapsed time per iteration (ms):");
		t->learning_rate = bar_val(s, len, "learning rate:");
		t->grad_norm = bar_val(s, len, "grad norm:");
		t->tokens_per_s = bar_val(s, len, "tokens per second:");
		t->source = "megatron";
		return 1;
	}
	if ((p = find(s, len, "step=")) && find(s, len, "skipped=")) {
		t->step = number(p + 5, end);
		if (isnan(t->step))
			return 0;
		t->learning_rate = bar_val(s, len, "lr=");
		t->source = "deepspeed";
		return 1;
	}
	if ((p = find(s, len, "SamplesPerSec=")) != NULL) {
		const char *slash = memchr(s, '/', (size_t)(p - s));

		t->samples_per_s = number(p + 14, end);
		if (slash)
			t->step = number(slash + 1, end);
		if (isnan(t->step))
			t->step = -1;
		t->source = "deepspeed";
		return !isnan(t->samples_per_s);
	}
	return 0;
}

/* mm:ss or h:mm:ss -> seconds; NAN when not one. */
static double clock_s(const char *p, const char *end)
{
	double v = 0, part = 0;
	int digits = 0;

	for (; p < end && (*p == ':' || (*p >= '0' && *p <= '9')); p++) {
		if (*p == ':') {
			v = (v + part) * 60;
			part = 0;
		} else {
			part = part * 10 + (*p - '0');
			digits++;
		}
	}
	return digits ? v + part : NAN;
}

int gl_tqdm_parse(const char *s, size_t len, struct gl_tqdm *b)
{
	const char *end = s + len, *pct, *bar2, *p, *q;

	memset(b, 0, sizeof(*b));
	b->it_per_s = b->elapsed_s = NAN;
	pct = find(s, len, "%|");
	if (!pct)
		return 0;
	/* the percentage's digits, then the text before them */
	p = pct;
	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == pct)
		return 0;
	b->start = (size_t)(p - s);
	for (q = s; q < p; q++)
		if (*q != ' ')
			b->has_desc = 1;
	bar2 = memchr(pct + 2, '|', (size_t)(end - pct - 2));
	if (!bar2)
		return 0;
	p = bar2 + 1;
	while (p < end && *p == ' ')
		p++;
	b->done = number(p, end);
	q = memchr(p, '/', (size_t)(end - p));
	if (isnan(b->done) || !q)
		return 0;
	b->total = number(q + 1, end);
	p = q + 1;
	while (p < end && *p != '[' && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	b->end = (size_t)(p - s);
	if (p >= end || *p != '[')
		return 1;
	b->elapsed_s = clock_s(p + 1, end);
	q = memchr(p, ',', (size_t)(end - p));
	if (!q) {
		b->end = len;
		return 1;
	}
	q++;
	while (q < end && *q == ' ')
		q++;
	{
		double r = number(q, end);
		const char *u = q;

		while (u < end && strchr("0123456789.", *u) && *u)
			u++;
		if (!isnan(r) && u + 4 <= end && memcmp(u, "it/s", 4) == 0)
			b->it_per_s = r;
		else if (!isnan(r) && r > 0 && u + 4 <= end && memcmp(u, "s/it", 4) == 0)
			b->it_per_s = 1.0 / r;
		/* the bar ends at its ']' or, cut off, after the rate's unit */
		p = memchr(q, ']', (size_t)(end - q));
		if (p && p - q < 32) {
			b->end = (size_t)(p + 1 - s);
		} else {
			while (u < end && strchr("it/s", *u) && *u)
				u++;
			b->end = (size_t)(u - s);
		}
	}
	return 1;
}
