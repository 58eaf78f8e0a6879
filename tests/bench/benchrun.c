/*
 * benchrun.c - runs one command and reports what it cost.
 *
 *   benchrun -- CMD ARGS...
 *
 * The command runs with benchrun's stdin, stdout and stderr. When it ends,
 * benchrun prints one machine-readable line on stdout:
 *
 *   wall_s=1.234 user_s=1.100 sys_s=0.120 maxrss_kib=45678 status=0
 *
 * maxrss_kib is the child's peak resident set (wait4 rusage, ru_maxrss,
 * which Linux gives in KiB). status is the command's exit status, or
 * 128 + the signal that killed it, or 127 when it could not be started.
 * benchrun exits with the same status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, wall_s;
	int wstatus = 0, status;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: benchrun -- CMD ARGS...\n");
		return 2;
	}
	fflush(stdout);
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "benchrun: cannot fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "benchrun: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &wstatus, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "benchrun: wait4: %s\n", strerror(errno));
			return 127;
		}
	}
	wall_s = now_s() - t0;
	status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
		 : WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 127;
	printf("wall_s=%.3f user_s=%.3f sys_s=%.3f maxrss_kib=%ld status=%d\n", wall_s,
	       tv_s(ru.ru_utime), tv_s(ru.ru_stime), ru.ru_maxrss, status);
	return status;
}
