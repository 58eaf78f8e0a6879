/*
 * build.c - a new database built aside: see build.h and the top of
 * store.c. In: the database's path. Out: <db>-build, moved over <db>.
 */
#include "build.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/timeutil.h"

#define GL_BUILD_SUFFIX "-build"

/* The companions SQLite may leave beside a database when killed. */
static void unlink_companions(const char *path)
{
	static const char *const sfx[] = {"-journal", "-wal", "-shm"};
	char p[4200];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
}

static void unlink_all(const char *path)
{
	unlink(path);
	unlink_companions(path);
}

int gl_build_begin(struct gl_build *b, const char *db_path, struct gl_err *err)
{
	size_t n;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->target = realpath(db_path, NULL);
	if (!b->target)
		return errno == ENOMEM ? gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory")
				       : GL_OK;
	n = strlen(b->target);
	if (n > 4000)
		return GL_OK;
	b->path = malloc(n + sizeof(GL_BUILD_SUFFIX));
	if (!b->path)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	memcpy(b->path, b->target, n);
	memcpy(b->path + n, GL_BUILD_SUFFIX, sizeof(GL_BUILD_SUFFIX));
	unlink_all(b->path);
	return GL_OK;
}

/*
 * Without it the pages written with synchronous=OFF pile up in the page
 * cache and the sync before the move wrote them all at the end: 0.2 s of
 * waiting for a 340 MB database, on the critical path.
 */
static void *syncer_main(void *arg)
{
	struct gl_build *b = arg;

	pthread_mutex_lock(&b->mu);
	while (!b->stop) {
		struct timespec dl;

		gl_time_deadline(&dl, 250);
		pthread_cond_timedwait(&b->cv, &b->mu, &dl);
		if (b->stop)
			break;
		pthread_mutex_unlock(&b->mu);
		fdatasync(b->fd);
		pthread_mutex_lock(&b->mu);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

int gl_build_sync_start(struct gl_build *b, struct gl_err *err)
{
	if (!b->path)
		return GL_OK;
	b->fd = open(b->path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		return gl_err_set(err, GL_EIO, b->path, 0, strerror(errno), "cannot open database");
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	if (pthread_create(&b->th, NULL, syncer_main, b) != 0) {
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->cv);
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "cannot start thread");
	}
	b->started = 1;
	return GL_OK;
}

static void sync_stop(struct gl_build *b)
{
	if (!b->started)
		return;
	pthread_mutex_lock(&b->mu);
	b->stop = 1;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	pthread_join(b->th, NULL);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	b->started = 0;
}

int gl_build_move(struct gl_build *b, struct gl_err *err)
{
	const char *db_path = b->target;
	struct stat sb;
	char *dir;
	int fd;

	sync_stop(b);
	if (b->fd < 0 && (b->fd = open(b->path, O_RDWR | O_CLOEXEC)) < 0)
		return gl_err_set(err, GL_EIO, b->path, 0, strerror(errno),
				  "cannot move the new database into place");
	/* A file made private (or shared with a group) stays so. */
	if (stat(db_path, &sb) == 0) {
		if (fchown(b->fd, sb.st_uid, sb.st_gid) < 0 && errno != EPERM)
			return gl_err_set(err, GL_EIO, b->path, 0, strerror(errno),
					  "cannot move the new database into place");
		if (fchmod(b->fd, sb.st_mode & 07777) < 0)
			return gl_err_set(err, GL_EIO, b->path, 0, strerror(errno),
					  "cannot move the new database into place");
	}
	/*
	 * The file replaced is empty, so any journal or WAL beside it is a
	 * killed run's (an --in-place creation killed after writing its
	 * journal): left there, SQLite would take it for the new database's
	 * and roll the database back to nothing at the next open.
	 */
	unlink_companions(db_path);
	if (fsync(b->fd) < 0 || rename(b->path, db_path) < 0)
		return gl_err_set(err, GL_EIO, b->path, 0, strerror(errno),
				  "cannot move the new database into place");
	close(b->fd);
	b->fd = -1;
	free(b->path);
	b->path = NULL;
	/* The rename is durable once the directory is synced. */
	if ((dir = strdup(db_path))) {
		char *slash = strrchr(dir, '/');

		if (slash)
			slash[slash == dir] = '\0';
		fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
		free(dir);
	}
	return GL_OK;
}

void gl_build_discard(struct gl_build *b)
{
	sync_stop(b);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	if (b->path)
		unlink_all(b->path);
	free(b->path);
	free(b->target);
	b->path = b->target = NULL;
}
