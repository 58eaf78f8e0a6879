/*
 * history.h - the nightly folder's memory of past reports. In the dated
 * layout (gpulog-reports/YYYY-MM-DD/, no --output-dir) each report leaves
 * its verdict beside its files (verdict.txt), and the root gets index.html,
 * one row per past report, newest first, with its verdict, and "latest", a
 * symbolic link to the newest report's directory [pgBadger's incremental
 * mode keeps the same two].
 */
#ifndef GL_HISTORY_H
#define GL_HISTORY_H

#include "report.h"

#define GL_HISTORY_VERDICT "verdict.txt"
#define GL_HISTORY_LATEST "latest"

/*
 * Writes rep's verdict into out->dir (which is root/day, day a
 * YYYY-MM-DD name), then root/index.html from every root/YYYY-MM-DD
 * directory, and points root/latest at the newest one. Each file is
 * written to a temporary file and renamed, so a reader never sees half of
 * one; the paths written are added to out->paths. Returns GL_OK or a
 * negative code with err filled.
 */
int gl_history_update(const char *root, const struct gl_report *rep, struct gl_output *out,
		      struct gl_err *err);

#endif /* GL_HISTORY_H */
