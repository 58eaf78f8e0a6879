/*
 * utf8.h - strict UTF-8 checks for the report's writers. Log content and
 * file names are bytes: a component named after "caf\xe9.log" is Latin-1,
 * not UTF-8. Every output format (JSON, HTML, CSV, text, chart labels)
 * writes such bytes as U+FFFD (EF BF BD), one per invalid byte, so that a
 * document stays valid and the rest of the name stays readable.
 */
#ifndef GL_UTF8_H
#define GL_UTF8_H

#include <stddef.h>

/* The UTF-8 bytes of U+FFFD REPLACEMENT CHARACTER. */
#define GL_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0 when the byte
 * at s does not start one. s is NUL-terminated; *s is not NUL.
 */
size_t gl_utf8_seq(const char *s);

/* Is s (NUL-terminated) well-formed UTF-8? */
int gl_utf8_valid(const char *s);

/*
 * s itself when it is well-formed (or NULL), else a new string (the caller
 * frees *owned) with each invalid byte replaced by U+FFFD. Returns NULL
 * when out of memory; *owned is always set (NULL when nothing was made).
 */
const char *gl_utf8_clean(const char *s, char **owned);

#endif
