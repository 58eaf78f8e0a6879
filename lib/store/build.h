/*
 * build.h - a new database built aside (lib/store only): the file
 * <db>-build, synced in the background while it is written, moved over
 * <db> when finished, deleted when not. The SQLite side (journal mode,
 * closing the connection) stays in store.c.
 */
#ifndef GL_STORE_BUILD_H
#define GL_STORE_BUILD_H

#include <pthread.h>

#include "../gpulog.h"

struct gl_build {
	char *target;		/* the database's real path (symbolic links resolved) */
	char *path;		/* <target>-build; NULL: no build */
	int fd;			/* the syncer's descriptor of it; -1: none */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stop;
};

/*
 * Names the build of db_path (an existing file: a symbolic link is
 * followed, so that the build replaces the file it names) and deletes one
 * a killed run left (the caller holds the run lock: nobody writes it).
 * Leaves b->path NULL, and the database to be written in place, when the
 * path cannot be resolved or is too long to name the build.
 */
int gl_build_begin(struct gl_build *b, const char *db_path, struct gl_err *err);

/*
 * Starts the thread that syncs the build (once it exists) every quarter
 * second, so that the sync before the move has little left to write.
 */
int gl_build_sync_start(struct gl_build *b, struct gl_err *err);

/* Gives the build the owner and mode of the file it replaces, deletes the
 * journal, WAL and shm a killed run left beside that (empty) file, syncs
 * the build, renames it over the file and syncs the directory. The
 * connection to it must be closed. */
int gl_build_move(struct gl_build *b, struct gl_err *err);

/* Deletes an unfinished build (and its companions); frees b's memory. */
void gl_build_discard(struct gl_build *b);

#endif
