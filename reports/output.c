/*
 * output.c - where emitters write: named files in a directory, each
 * written to a temporary file and renamed over the old one, or one stream.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *gl_output_open(struct gl_output *out, const char *name, char **tmp_path,
		     struct gl_err *err)
{
	FILE *fp;
	int fd;

	*tmp_path = NULL;
	if (!out->dir)
		return out->fp;
	size_t n = strlen(out->dir) + strlen(name) + 16;
	char *tmp = malloc(n);
	if (!tmp) {
		gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		return NULL;
	}
	/* mkstemp() replaces the template's last six characters, which must
	 * be the letter X, with a unique suffix */
	int k = snprintf(tmp, n, "%s/.%s.", out->dir, name);

	memset(tmp + k, 'X', 6);
	tmp[k + 6] = '\0';
	fd = mkstemp(tmp);
	if (fd < 0) {
		gl_err_set(err, GL_EIO, out->dir, 0, strerror(errno), "cannot write into");
		free(tmp);
		return NULL;
	}
	fchmod(fd, 0644);
	fp = fdopen(fd, "w");
	if (!fp) {
		gl_err_set(err, GL_EIO, tmp, 0, strerror(errno), "cannot write");
		close(fd);
		unlink(tmp);
		free(tmp);
		return NULL;
	}
	*tmp_path = tmp;
	return fp;
}

int gl_output_commit(struct gl_output *out, const char *name, FILE *fp, char **tmp_path,
		     bool ok, struct gl_err *err)
{
	char *final = NULL, **paths;
	int rc = GL_OK;

	if (!out->dir) {
		/*
		 * A stream that failed while the report was written (a text
		 * report longer than stdio's buffer, to a full disk) has its
		 * error flag set already: say why, as for a failed flush.
		 */
		int saved = errno;
		bool stream_bad = ferror(fp) != 0;

		if (fflush(fp) != 0 || ferror(fp)) {
			if (!stream_bad)
				saved = errno;
			rc = ok || stream_bad ? gl_err_set(err, GL_EIO, NULL, 0,
							   strerror(saved ? saved : EIO),
							   "cannot write the report") : GL_EIO;
		}
		return ok ? rc : (rc != GL_OK ? rc : GL_EIO);
	}
	bool failed = fflush(fp) != 0 || ferror(fp);
	int saved = errno;
	if (fclose(fp) != 0 && !failed) {
		failed = true;
		saved = errno;
	}
	size_t n = strlen(out->dir) + strlen(name) + 2;
	final = malloc(n);
	if (!ok || failed || !final) {
		unlink(*tmp_path);
		if (ok)
			rc = final ? gl_err_set(err, GL_EIO, *tmp_path, 0, strerror(saved),
						"cannot write")
				   : gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		else
			rc = GL_EIO;
		goto out;
	}
	snprintf(final, n, "%s/%s", out->dir, name);
	if (rename(*tmp_path, final) != 0) {
		rc = gl_err_set(err, GL_EIO, final, 0, strerror(errno), "cannot write");
		unlink(*tmp_path);
		goto out;
	}
	paths = realloc(out->paths, (out->n_paths + 1) * sizeof(*paths));
	if (!paths) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		goto out;
	}
	out->paths = paths;
	out->paths[out->n_paths++] = final;
	final = NULL;
out:
	free(final);
	free(*tmp_path);
	*tmp_path = NULL;
	return rc;
}

void gl_output_release(struct gl_output *out)
{
	for (size_t i = 0; i < out->n_paths; i++)
		free(out->paths[i]);
	free(out->paths);
	out->paths = NULL;
	out->n_paths = 0;
}
