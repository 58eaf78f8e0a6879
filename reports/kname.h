/*
 * kname.h - a kernel's display name (kname.c): the one name a person reads
 * for a kernel in tables, alerts, trends, legends and text; JSON keeps the
 * full name beside it.
 */
#ifndef GL_KNAME_H
#define GL_KNAME_H

#include <stddef.h>

/* Longest display name, in characters (code points). */
#define GL_KNAME_MAX 48

/* Bytes a display name needs, its NUL included (a character is at most 4 bytes). */
#define GL_KNAME_BUF (GL_KNAME_MAX * 4 + 8)

/*
 * The display name of kernel name (as logged: demangled, mangled, cut or
 * plain) into out[0..n); returns out. A name that lost template arguments
 * or was cut ends with "#" and 4 hex digits of a hash of name.
 */
char *gl_kname_display(const char *name, char *out, size_t n);

/*
 * The display name with the "#xxxx" of name's hash whenever it differs from
 * name: for two kernels whose display names are equal (force_pass_kernel as
 * one tool logs it and _Z17force_pass_kernelPK6float4PS_i as another does).
 */
char *gl_kname_distinct(const char *name, char *out, size_t n);

/*
 * display (from gl_kname_display of name) fitted to max_chars for a narrow
 * column: leading namespaces dropped, then the end cut with "…", its
 * "#xxxx" kept (added when the cut made one necessary). Returns out.
 */
char *gl_kname_fit(const char *name, const char *display, size_t max_chars, char *out,
		   size_t n);

/* 1 when s ends with a display name's "#xxxx". */
int gl_kname_tagged(const char *s);

#endif
