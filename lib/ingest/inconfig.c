/*
 * inconfig.c - the ingest config: JSON text in, a checked struct
 * gl_inconfig out; and the glob that picks a file's entry.
 *
 * Checked strictly and whole before the run starts (gpulog-ingest exits 2
 * with the key named, nothing written): a typo in a key ("interval":
 * instead of "interval_s") would otherwise silently drop the times of a
 * whole dmon file.
 */
#include "inconfig.h"

#include <errno.h>
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "telem.h"

#define ZONEINFO "/usr/share/zoneinfo"
#define GL_STR_(x) #x
#define GL_STR(x) GL_STR_(x)

int gl_zone_known(const char *zone)
{
	char path[1024];
	struct stat sb;

	if (strcmp(zone, "UTC") == 0)
		return 1;
	if (!*zone || zone[0] == '/' || strstr(zone, "..") ||
	    snprintf(path, sizeof(path), ZONEINFO "/%s", zone) >= (int)sizeof(path))
		return 0;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *gl_glob_check(const char *pattern)
{
	size_t n = strlen(pattern);

	if (!n)
		return "empty";
	if (pattern[0] == '/')
		return "absolute (it is matched against the path below the PATH argument)";
	if (pattern[n - 1] == '/' || strstr(pattern, "//"))
		return "an empty component";
	for (const char *p = pattern; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			/* fnmatch takes "]" right after "[" or "[!" as a member */
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']' && *q != '/')
				q++;
			if (*q != ']')
				return "an unclosed '['";
			p = q;
		}
	}
	return NULL;
}

/* The length of the component at s (up to '/' or the end). */
static size_t comp_len(const char *s)
{
	const char *e = strchr(s, '/');

	return e ? (size_t)(e - s) : strlen(s);
}

/* Matches the components of pat against those of path, "**" spanning any number. */
static int match_comps(const char *pat, const char *path)
{
	char pc[1024], sc[1024];
	size_t pl = comp_len(pat), sl;

	if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
		const char *rest = pat[2] ? pat + 3 : NULL;

		if (!rest)
			return 1;	/* a trailing "**": everything below */
		for (const char *s = path;; s += comp_len(s) + 1) {
			if (match_comps(rest, s))
				return 1;
			if (!s[comp_len(s)])
				return 0;
		}
	}
	sl = comp_len(path);
	if (pl >= sizeof(pc) || sl >= sizeof(sc))
		return 0;
	memcpy(pc, pat, pl);
	pc[pl] = '\0';
	memcpy(sc, path, sl);
	sc[sl] = '\0';
	if (fnmatch(pc, sc, 0) != 0)
		return 0;
	if (!pat[pl] || !path[sl])
		return !pat[pl] && !path[sl];
	return match_comps(pat + pl + 1, path + sl + 1);
}

int gl_glob_match(const char *pattern, const char *rel)
{
	if (!strchr(pattern, '/')) {
		const char *base = strrchr(rel, '/');

		return fnmatch(pattern, base ? base + 1 : rel, 0) == 0;
	}
	return match_comps(pattern, rel);
}

const struct gl_inconfig_input *gl_inconfig_match(const struct gl_inconfig *cfg, const char *rel)
{
	if (!cfg)
		return NULL;
	for (size_t i = 0; i < cfg->n; i++)
		if (gl_glob_match(cfg->in[i].path, rel))
			return &cfg->in[i];
	return NULL;
}

void gl_inconfig_free(struct gl_inconfig *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++) {
		struct gl_inconfig_input *in = &cfg->in[i];

		free(in->path);
		free(in->tz_name);
		free(in->host);
		for (size_t k = 0; k < in->hint.n_columns; k++)
			free((char *)in->hint.columns[k]);
		free((void *)in->hint.columns);
	}
	free(cfg->in);
	free(cfg->tz_name);
	free(cfg);
}

/* Records a config error at key (already formatted) and returns GL_ECONFIG. */
static int bad(struct gl_err *err, const char *name, const char *key, const char *what)
{
	char cause[256];

	snprintf(cause, sizeof(cause), "%.100s: %.150s", key, what);
	return gl_err_set(err, GL_ECONFIG, name, 0, cause, "bad ingest config");
}

static int oom(struct gl_err *err)
{
	return gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
}

/* A string value at key: non-empty; copied into *out. */
static int get_str(json_t *v, const char *name, const char *key, char **out, struct gl_err *err)
{
	if (!json_is_string(v))
		return bad(err, name, key, "not a string");
	if (!json_string_length(v) || strlen(json_string_value(v)) != json_string_length(v))
		return bad(err, name, key, "an empty string or one with a NUL byte");
	if (!(*out = strdup(json_string_value(v))))
		return oom(err);
	return GL_OK;
}

static int get_zone(json_t *v, const char *name, const char *key, char **out, struct gl_err *err)
{
	char what[200];
	int rc = get_str(v, name, key, out, err);

	if (rc != GL_OK)
		return rc;
	if (!gl_zone_known(*out)) {
		snprintf(what, sizeof(what), "unknown time zone '%.80s' (not in " ZONEINFO ")", *out);
		return bad(err, name, key, what);
	}
	return GL_OK;
}

/* A whole number >= 1 at key. */
static int get_count(json_t *v, const char *name, const char *key, int64_t *out, struct gl_err *err)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return bad(err, name, key, "not a whole number of at least 1");
	*out = (int64_t)json_integer_value(v);
	return GL_OK;
}

/*
 * "start": an ISO 8601 time, YYYY-MM-DDThh:mm:ss[.f][Z|+hh:mm]. Without a
 * zone it is a wall-clock time in the input's zone (like the times files
 * write), turned into UTC by gl_inconfig_resolve().
 */
static int get_start(json_t *v, const char *name, const char *key, struct gl_inconfig_input *in,
		     struct gl_err *err)
{
	const char *s;
	size_t len;

	if (!json_is_string(v))
		return bad(err, name, key, "not a string");
	s = json_string_value(v);
	len = strlen(s);
	if (len < 19 || gl_time_parse_rfc3339(s, len, &in->hint.start_us) < 0)
		return bad(err, name, key,
			   "not an ISO 8601 time YYYY-MM-DDThh:mm:ss[.fff][Z|+hh:mm]");
	in->start_naive = !strpbrk(s + 10, "Zz+-");
	return GL_OK;
}

static int get_columns(json_t *v, const char *name, const char *key, struct gl_inconfig_input *in,
		       struct gl_err *err)
{
	char k[160], what[96];
	size_t n;
	char **cols;

	if (!json_is_array(v) || !(n = json_array_size(v)))
		return bad(err, name, key, "not a non-empty array of nvidia-smi field names");
	if (n > GL_TELEM_MAX_COLS) {
		snprintf(what, sizeof(what), "more than %d columns", GL_TELEM_MAX_COLS);
		return bad(err, name, key, what);
	}
	if (!(cols = calloc(n, sizeof(*cols))))
		return oom(err);
	in->hint.columns = (const char *const *)cols;
	for (size_t i = 0; i < n; i++) {
		int rc;

		snprintf(k, sizeof(k), "%.100s[%zu]", key, i);
		if ((rc = get_str(json_array_get(v, i), name, k, &cols[i], err)) != GL_OK)
			return rc;
		in->hint.n_columns = i + 1;
	}
	return GL_OK;
}

/* "date_order": "month_first" (03/04/2026 is March 4) or "day_first" (April 3). */
static int get_date_order(json_t *v, const char *name, const char *key, enum gl_date_order *out,
			  struct gl_err *err)
{
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	if (!strcmp(s, "month_first"))
		*out = GL_DATE_ORDER_MDY;
	else if (!strcmp(s, "day_first"))
		*out = GL_DATE_ORDER_DMY;
	else
		return bad(err, name, key, "not \"month_first\" or \"day_first\"");
	return GL_OK;
}

static int parse_input(json_t *e, size_t idx, const char *name, struct gl_inconfig_input *in,
		       struct gl_err *err)
{
	const char *key;
	json_t *v;
	char k[128];
	int rc = GL_OK, has_start = 0;

	in->hint.start_us = GL_TS_NONE;
	in->hint.interval_s = NAN;
	snprintf(k, sizeof(k), "inputs[%zu]", idx);
	if (!json_is_object(e))
		return bad(err, name, k, "not an object");
	json_object_foreach(e, key, v) {
		snprintf(k, sizeof(k), "inputs[%zu].%.60s", idx, key);
		if (strcmp(key, "path") == 0) {
			if ((rc = get_str(v, name, k, &in->path, err)) == GL_OK && gl_glob_check(in->path)) {
				char what[160];

				snprintf(what, sizeof(what), "glob '%.60s' is %s", in->path,
					 gl_glob_check(in->path));
				rc = bad(err, name, k, what);
			}
		} else if (strcmp(key, "format") == 0) {
			if (!json_is_string(v))
				rc = bad(err, name, k, "not a string");
			else if (!(in->format = gl_format_find(json_string_value(v))))
				rc = bad(err, name, k, "not a known format (see --list-formats)");
		} else if (strcmp(key, "columns") == 0) {
			rc = get_columns(v, name, k, in, err);
		} else if (strcmp(key, "timezone") == 0) {
			rc = get_zone(v, name, k, &in->tz_name, err);
		} else if (strcmp(key, "host") == 0) {
			rc = get_str(v, name, k, &in->host, err);
		} else if (strcmp(key, "skip") == 0) {
			if (!json_is_boolean(v))
				rc = bad(err, name, k, "not true or false");
			in->skip = json_is_true(v);
		} else if (strcmp(key, "start") == 0) {
			rc = get_start(v, name, k, in, err);
			has_start = 1;
		} else if (strcmp(key, "interval_s") == 0) {
			if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
			    json_number_value(v) <= 0)
				rc = bad(err, name, k, "not a number of seconds above 0");
			in->interval_s_given = 1;
			in->hint.interval_s = json_number_value(v);
		} else if (strcmp(key, "date_order") == 0) {
			rc = get_date_order(v, name, k, &in->date_order, err);
		} else if (strcmp(key, "comment") == 0) {
			if (!json_is_string(v))
				rc = bad(err, name, k, "not a string");
		} else {
			rc = bad(err, name, k,
				 "unknown key (known: path, format, columns, timezone, host, skip, "
				 "start, interval_s, date_order, comment)");
		}
		if (rc != GL_OK)
			return rc;
	}
	snprintf(k, sizeof(k), "inputs[%zu]", idx);
	if (!in->path)
		return bad(err, name, k, "no \"path\"");
	if (has_start != in->interval_s_given)
		return bad(err, name, k, has_start ? "\"start\" without \"interval_s\""
						   : "\"interval_s\" without \"start\"");
	if (in->hint.n_columns && !in->format)
		in->format = gl_format_find("nvsmi");
	return GL_OK;
}

int gl_inconfig_parse(struct gl_inconfig **out, const char *text, size_t len, const char *name,
		      struct gl_err *err)
{
	struct gl_inconfig *cfg = NULL;
	json_error_t je;
	json_t *root, *v;
	const char *key;
	int rc = GL_OK;

	*out = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return gl_err_set(err, GL_ECONFIG, name, (uint64_t)(je.line > 0 ? je.line : 0),
				  je.text, "bad ingest config");
	if (!json_is_object(root)) {
		rc = bad(err, name, "(top level)", "not a JSON object");
		goto out;
	}
	if (!(cfg = calloc(1, sizeof(*cfg)))) {
		rc = oom(err);
		goto out;
	}
	json_object_foreach(root, key, v) {
		char k[80];

		snprintf(k, sizeof(k), "%.60s", key);
		if (strcmp(key, "timezone") == 0) {
			rc = get_zone(v, name, k, &cfg->tz_name, err);
		} else if (strcmp(key, "max_rejects") == 0) {
			int64_t n = 0;

			rc = get_count(v, name, k, &n, err);
			cfg->max_rejects = (uint64_t)n;
		} else if (strcmp(key, "keep_days") == 0) {
			rc = get_count(v, name, k, &cfg->keep_days, err);
			if (rc == GL_OK && cfg->keep_days > GL_KEEP_DAYS_MAX)
				rc = bad(err, name, k, "more than " GL_STR(GL_KEEP_DAYS_MAX) " days");
		} else if (strcmp(key, "inputs") == 0) {
			size_t n = json_is_array(v) ? json_array_size(v) : 0;

			if (!json_is_array(v)) {
				rc = bad(err, name, k, "not an array");
			} else if (n && !(cfg->in = calloc(n, sizeof(*cfg->in)))) {
				rc = oom(err);
			} else {
				for (size_t i = 0; i < n && rc == GL_OK; i++) {
					cfg->n = i + 1;
					rc = parse_input(json_array_get(v, i), i, name, &cfg->in[i], err);
				}
			}
		} else if (strcmp(key, "date_order") == 0) {
			rc = get_date_order(v, name, k, &cfg->date_order, err);
		} else if (strcmp(key, "comment") == 0) {
			if (!json_is_string(v))
				rc = bad(err, name, k, "not a string");
		} else {
			rc = bad(err, name, k,
				 "unknown key (known: inputs, timezone, max_rejects, keep_days, date_order, "
				 "comment)");
		}
		if (rc != GL_OK)
			goto out;
	}
out:
	json_decref(root);
	if (rc != GL_OK) {
		gl_inconfig_free(cfg);
		return rc;
	}
	*out = cfg;
	return GL_OK;
}

int gl_inconfig_load(struct gl_inconfig **out, const char *path, struct gl_err *err)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	if (!fp)
		return gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot open ingest config");
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *b = cap > (16u << 20) ? NULL : realloc(buf, cap * 2 + 4096);

			if (!b) {
				fclose(fp);
				free(buf);
				return gl_err_set(err, GL_ECONFIG, path, 0, "larger than 16 MiB",
						  "bad ingest config");
			}
			buf = b;
			cap = cap * 2 + 4096;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		rc = gl_err_set(err, GL_EIO, path, 0, strerror(errno), "cannot read ingest config");
		fclose(fp);
		free(buf);
		return rc;
	}
	fclose(fp);
	rc = gl_inconfig_parse(out, buf, len, path, err);
	free(buf);
	return rc;
}

void gl_inconfig_resolve(struct gl_inconfig *cfg, const char *run_tz)
{
	for (size_t i = 0; cfg && i < cfg->n; i++) {
		struct gl_inconfig_input *in = &cfg->in[i];
		const char *tz = in->tz_name ? in->tz_name : run_tz;
		struct gl_parse_ctx ctx;

		if (!in->start_naive || in->hint.start_us == GL_TS_NONE)
			continue;
		gl_parse_ctx_init(&ctx);
		ctx.tz_name = tz && strcmp(tz, "UTC") != 0 ? tz : NULL;
		in->hint.start_us = gl_ctx_naive_to_utc(&ctx, in->hint.start_us);
		in->start_naive = 0;
		gl_parse_ctx_release(&ctx);
	}
}
