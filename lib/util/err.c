/*
 * err.c - struct gl_err helpers and level names. The library reports
 * failures through these; only cmd/ prints them.
 */
#include "../gpulog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gl_err_clear(struct gl_err *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

int gl_err_set(struct gl_err *err, int code, const char *path, uint64_t line,
	       const char *cause, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	gl_err_clear(err);
	err->code = code;
	err->line = line;
	if (path)
		snprintf(err->path, sizeof(err->path), "%s", path);
	if (cause)
		snprintf(err->cause, sizeof(err->cause), "%s", cause);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

char *gl_err_format(const struct gl_err *err, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s", err->msg[0] ? err->msg : "error");

	if (err->path[0] && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, " '%s'", err->path);
	if (err->line && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, " line %llu", (unsigned long long)err->line);
	if (err->cause[0] && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, ": %s", err->cause);
	return buf;
}

static const char *const level_names[] = {
	"", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "CRITICAL",
};

const char *gl_level_name(enum gl_level level)
{
	return level >= GL_LEVEL_NONE && level <= GL_LEVEL_CRITICAL ? level_names[level] : "";
}

/* s[0..n) equals lower[0..n) (ASCII letters) in any case: a byte folds to
 * a letter only when it is that letter in either case. */
static int letters_eq(const char *s, const char *lower, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] | 0x20) != (unsigned char)lower[i])
			return 0;
	return 1;
}

enum gl_level gl_level_parse(const char *s, size_t len)
{
	/* Called for every line: the length and first letter pick the one
	 * name to compare (strncasecmp per name was 1% of the parsing thread). */
	static const struct {
		const char *name;
		unsigned char len;
		enum gl_level level;
	} tab[] = {
		{"trace", 5, GL_LEVEL_TRACE},	 {"debug", 5, GL_LEVEL_DEBUG},
		{"info", 4, GL_LEVEL_INFO},	 {"warn", 4, GL_LEVEL_WARN},
		{"warning", 7, GL_LEVEL_WARN},	 {"error", 5, GL_LEVEL_ERROR},
		{"err", 3, GL_LEVEL_ERROR},	 {"critical", 8, GL_LEVEL_CRITICAL},
		{"crit", 4, GL_LEVEL_CRITICAL},	 {"fatal", 5, GL_LEVEL_CRITICAL},
	};

	if (len < 3 || len > 8)
		return GL_LEVEL_NONE;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].len == len && ((unsigned char)s[0] | 0x20) == (unsigned char)tab[i].name[0] &&
		    letters_eq(s + 1, tab[i].name + 1, len - 1))
			return tab[i].level;
	return GL_LEVEL_NONE;
}
