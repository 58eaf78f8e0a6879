/*
 * err.c - struct gl_err helpers and level names. The library reports
 * failures through these; only cmd/ prints them.
 */
#include "../gpulog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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

enum gl_level gl_level_parse(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum gl_level level;
	} tab[] = {
		{"trace", GL_LEVEL_TRACE},     {"debug", GL_LEVEL_DEBUG},
		{"info", GL_LEVEL_INFO},       {"warn", GL_LEVEL_WARN},
		{"warning", GL_LEVEL_WARN},    {"error", GL_LEVEL_ERROR},
		{"err", GL_LEVEL_ERROR},       {"critical", GL_LEVEL_CRITICAL},
		{"crit", GL_LEVEL_CRITICAL},   {"fatal", GL_LEVEL_CRITICAL},
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].name) == len && strncasecmp(tab[i].name, s, len) == 0)
			return tab[i].level;
	return GL_LEVEL_NONE;
}
