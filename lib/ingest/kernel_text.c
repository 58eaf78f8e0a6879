/*
 * kernel_text.c - kernel timings written as text in a log message.
 *
 * In: a message such as
 *     Kernel force_pass_kernel executed in 512.34μs
 * Out: the kernel name (a slice of the message) and the duration in µs.
 * Used by every text format and by the JSON parser when gpu_metrics is
 * missing. The unit may be μs (U+03BC, what the service writes), µs
 * (U+00B5, the micro sign), us, ns, ms or s; a space may stand between
 * number and unit. The phrase may sit anywhere in the message, e.g.
 *     [stream 3] Kernel reduce_sum executed in 1.2 ms (slow path)
 */
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A plain decimal number at s[0..len): digits, optional fraction, optional
 * exponent. Sets *n to the bytes used; returns 0, or -1 when none is there.
 * No sign, no "nan"/"inf": a duration is never negative or infinite.
 */
static int scan_number(const char *s, size_t len, size_t *n, double *val)
{
	char buf[64];
	size_t i = 0, digits = 0;
	char *end;

	while (i < len && is_digit(s[i])) {
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && is_digit(s[i])) {
			i++;
			digits++;
		}
	}
	if (!digits)
		return -1;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;

		if (j < len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < len && is_digit(s[j])) {
			while (j < len && is_digit(s[j]))
				j++;
			i = j;
		}
	}
	if (i >= sizeof(buf))
		return -1;
	memcpy(buf, s, i);
	buf[i] = '\0';
	*val = strtod(buf, &end);
	if (end != buf + i || !isfinite(*val))
		return -1;
	*n = i;
	return 0;
}

/* The unit at s[0..len), which must end at a word boundary; returns µs per unit or 0. */
static double scan_unit(const char *s, size_t len)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {
		{ "\xce\xbcs", 1.0 },	/* μs, GREEK SMALL LETTER MU */
		{ "\xc2\xb5s", 1.0 },	/* µs, MICRO SIGN */
		{ "us", 1.0 },
		{ "ns", 1e-3 },
		{ "ms", 1e3 },
		{ "s", 1e6 },
	};

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t n = strlen(units[u].name);

		if (len >= n && memcmp(s, units[u].name, n) == 0 && (len == n || !is_alnum(s[n])))
			return units[u].us;
	}
	return 0;
}

/* Tries the phrase starting at msg[at], where "Kernel " was found. */
static int match_at(const char *msg, size_t len, size_t at, struct gl_str *kernel, double *dur_us)
{
	static const char executed[] = "executed in";
	size_t i = at + 6, name, name_len, n;
	double val, scale;

	if (i >= len || !is_space(msg[i]))
		return 0;
	while (i < len && is_space(msg[i]))
		i++;
	name = i;
	while (i < len && !is_space(msg[i]))
		i++;
	name_len = i - name;
	if (!name_len)
		return 0;
	while (i < len && is_space(msg[i]))
		i++;
	if (len - i < sizeof(executed) - 1 || memcmp(msg + i, executed, sizeof(executed) - 1) != 0)
		return 0;
	i += sizeof(executed) - 1;
	if (i >= len || !is_space(msg[i]))
		return 0;
	while (i < len && is_space(msg[i]))
		i++;
	if (scan_number(msg + i, len - i, &n, &val) < 0)
		return 0;
	i += n;
	while (i < len && is_space(msg[i]))
		i++;
	scale = scan_unit(msg + i, len - i);
	if (scale == 0)
		return 0;
	kernel->p = msg + name;
	kernel->len = name_len;
	*dur_us = val * scale;
	return 1;
}

int gl_kernel_from_text(const char *msg, size_t len, struct gl_str *kernel, double *dur_us)
{
	if (!msg)
		return 0;
	for (size_t i = 0; i + 6 < len; i++) {
		if ((msg[i] != 'K' && msg[i] != 'k') || memcmp(msg + i + 1, "ernel", 5) != 0)
			continue;
		if (i > 0 && is_alnum(msg[i - 1]))
			continue;
		if (match_at(msg, len, i, kernel, dur_us))
			return 1;
	}
	return 0;
}
