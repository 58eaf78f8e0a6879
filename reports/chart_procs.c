/*
 * chart_procs.c - chart jobs drawn by this process and one forked helper
 * (chart_procs.h).
 *
 * In: n jobs and the function that draws one. Out: their paths in out, in
 * job order, and the first failure in job order. The two processes share
 * one page (MAP_SHARED): the counter of the next job and a "one failed"
 * flag; the helper writes its results to a pipe when it is done and
 * leaves with _exit (no atexit handler, no stdio buffer flushed twice).
 */
#include "chart_procs.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct job {
	int drawn;		/* 1: rc, err and paths are this job's */
	int rc;
	struct gl_err err;
	char **paths;
	size_t n_paths;
};

struct shared {
	size_t next;		/* the next job to take */
	int failed;		/* a job failed: take no more */
};

typedef int (*draw_fn)(void *arg, size_t k, struct gl_output *o, struct gl_err *err);

static void job_release(struct job *j)
{
	for (size_t i = 0; i < j->n_paths; i++)
		free(j->paths[i]);
	free(j->paths);
	j->paths = NULL;
	j->n_paths = 0;
}

/* Takes jobs until none is left or one failed (in either process). */
static void work(size_t n, struct shared *sh, draw_fn draw, void *arg, const char *dir,
		 struct job *jobs)
{
	while (!__atomic_load_n(&sh->failed, __ATOMIC_ACQUIRE)) {
		size_t k = __atomic_fetch_add(&sh->next, 1, __ATOMIC_ACQ_REL);

		if (k >= n)
			break;
		struct gl_output o = {.dir = dir};
		struct job *j = &jobs[k];

		gl_err_clear(&j->err);
		j->rc = draw(arg, k, &o, &j->err);
		j->paths = o.paths;
		j->n_paths = o.n_paths;
		j->drawn = 1;
		if (j->rc != GL_OK)
			__atomic_store_n(&sh->failed, 1, __ATOMIC_RELEASE);
	}
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The helper's results: per drawn job, k, rc, err, n_paths, then each
 * path's length and bytes. */
static int send_jobs(int fd, const struct job *jobs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct job *j = &jobs[k];

		if (!j->drawn)
			continue;
		if (write_all(fd, &k, sizeof(k)) || write_all(fd, &j->rc, sizeof(j->rc)) ||
		    write_all(fd, &j->err, sizeof(j->err)) ||
		    write_all(fd, &j->n_paths, sizeof(j->n_paths)))
			return -1;
		for (size_t i = 0; i < j->n_paths; i++) {
			size_t len = strlen(j->paths[i]);

			if (write_all(fd, &len, sizeof(len)) || write_all(fd, j->paths[i], len))
				return -1;
		}
	}
	return 0;
}

/* Reads all of fd into *buf (*len bytes); -1 when out of memory or on a read error. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 4096;

	*len = 0;
	if (!(*buf = malloc(cap)))
		return -1;
	for (;;) {
		if (*len == cap) {
			char *b = realloc(*buf, cap * 2);

			if (!b)
				return -1;
			*buf = b;
			cap *= 2;
		}
		ssize_t r = read(fd, *buf + *len, cap - *len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		*len += (size_t)r;
	}
}

static int take(const char *buf, size_t len, size_t *at, void *p, size_t n)
{
	if (len - *at < n)
		return -1;
	memcpy(p, buf + *at, n);
	*at += n;
	return 0;
}

/* The helper's results into jobs (the jobs it drew); -1 when cut short or out of memory. */
static int receive_jobs(const char *buf, size_t len, struct job *jobs, size_t n)
{
	size_t at = 0;

	while (at < len) {
		size_t k, np;
		struct job j = {.drawn = 1};

		if (take(buf, len, &at, &k, sizeof(k)) || k >= n || jobs[k].drawn ||
		    take(buf, len, &at, &j.rc, sizeof(j.rc)) ||
		    take(buf, len, &at, &j.err, sizeof(j.err)) ||
		    take(buf, len, &at, &np, sizeof(np)) || np > len)
			return -1;
		if (np && !(j.paths = calloc(np, sizeof(*j.paths))))
			return -1;
		jobs[k] = j;
		for (size_t i = 0; i < np; i++) {
			size_t pl;

			if (take(buf, len, &at, &pl, sizeof(pl)) || len - at < pl ||
			    !(jobs[k].paths[i] = malloc(pl + 1)))
				return -1;
			memcpy(jobs[k].paths[i], buf + at, pl);
			jobs[k].paths[i][pl] = '\0';
			jobs[k].n_paths = i + 1;
			at += pl;
		}
	}
	return 0;
}

/* The helper: draws, sends, leaves. */
static void helper(int fd, size_t n, struct shared *sh, draw_fn draw, void *arg,
		   const char *dir, struct job *jobs)
{
	work(n, sh, draw, arg, dir, jobs);
	_exit(send_jobs(fd, jobs, n) == 0 ? 0 : 1);
}

int gl_chart_procs_run(size_t n, int procs, draw_fn draw, void *arg, struct gl_output *out,
		       struct gl_err *err)
{
	struct job *jobs = calloc(n ? n : 1, sizeof(*jobs));
	struct shared local = {0}, *sh = &local;
	pid_t pid = -1;
	int fd[2] = {-1, -1}, status = 0, rc = GL_OK;
	char *buf = NULL;
	size_t len = 0;
	const char *lost = NULL;

	if (!jobs)
		return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	if (procs >= 2 && n >= 2) {
		void *m = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			       -1, 0);

		if (m != MAP_FAILED && pipe(fd) == 0) {
			sh = m;
			memset(sh, 0, sizeof(*sh));
			fflush(NULL);
			pid = fork();
			if (pid == 0) {
				close(fd[0]);
				helper(fd[1], n, sh, draw, arg, out->dir, jobs);
			}
		}
		if (pid < 0) {	/* no helper: this process draws all */
			if (fd[0] >= 0) {
				close(fd[0]);
				close(fd[1]);
				fd[0] = fd[1] = -1;
			}
			if (m != MAP_FAILED)
				munmap(m, sizeof(*sh));
			sh = &local;
		}
	}
	if (pid > 0)
		close(fd[1]);
	work(n, sh, draw, arg, out->dir, jobs);
	if (pid > 0) {
		if (read_all(fd[0], &buf, &len) != 0)
			lost = "cannot read the chart helper's results";
		close(fd[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!lost && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			lost = "the chart helper process failed";
		if (!lost && receive_jobs(buf, len, jobs, n) != 0)
			lost = "cannot read the chart helper's results";
		free(buf);
		munmap(sh, sizeof(*sh));
	}
	/* in job order, as one process would have: paths, then the first failure */
	for (size_t k = 0; k < n && rc == GL_OK; k++) {
		struct job *j = &jobs[k];

		if (!j->drawn) {
			/* jobs stop only after a failure, which comes first in order */
			rc = gl_err_set(err, GL_EIO, out->dir, 0, lost ? lost : "a chart was not drawn",
					"cannot draw the charts");
			break;
		}
		if (j->n_paths) {
			char **p = realloc(out->paths, (out->n_paths + j->n_paths) * sizeof(*p));

			if (!p) {
				rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
				break;
			}
			out->paths = p;
		}
		for (size_t i = 0; i < j->n_paths; i++)
			out->paths[out->n_paths++] = j->paths[i];
		free(j->paths);
		j->paths = NULL;
		j->n_paths = 0;
		if (j->rc != GL_OK) {
			rc = j->rc;
			if (err)
				*err = j->err;
		}
	}
	for (size_t k = 0; k < n; k++)
		job_release(&jobs[k]);
	free(jobs);
	return rc;
}
