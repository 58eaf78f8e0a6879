/*
 * chttp.c - ClickHouse's HTTP interface through libcurl (the only file that
 * includes curl.h and zlib.h). A query goes as the POST body; an INSERT
 * goes in the URL's query parameter with its rows, gzip-compressed, as the
 * body (Content-Encoding: gzip, which ClickHouse 18.16 decompresses).
 * ClickHouse answers 200 with the result, else an error code with its
 * message as the body:
 *     Code: 62, e.displayText() = DB::Exception: Syntax error: ...
 * 5xx and the transport errors mean "not now" (GL_EUNAVAIL, the caller
 * retries); 4xx means the request itself is wrong (GL_EDB).
 */
#include "chttp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <zlib.h>

struct gl_chttp {
	CURL *curl;
	char *url;		/* as given, without a trailing '?' or '&' */
	char *shown;		/* url without user:password@, for messages */
	long timeout_s;
	char curl_msg[CURL_ERROR_SIZE];
};

int gl_buf_add(struct gl_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		char *d;

		while (c < b->len + n + 1)
			c *= 2;
		if (!(d = realloc(b->data, c)))
			return GL_ENOMEM;
		b->data = d;
		b->cap = c;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return GL_OK;
}

void gl_buf_release(struct gl_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

struct gl_chttp *gl_chttp_new(const char *url, long timeout_s, struct gl_err *err)
{
	static int global_done;
	struct gl_chttp *c;
	size_t n = strlen(url);

	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		gl_err_set(err, GL_EUSAGE, url, 0, "not an http:// or https:// URL",
			   "cannot use the server");
		return NULL;
	}
	if (!global_done) {
		/* Once per process, before the first handle (not thread-safe, and
		 * the shipper is one thread). */
		curl_global_init(CURL_GLOBAL_DEFAULT);
		global_done = 1;
	}
	if (!(c = calloc(1, sizeof(*c))) || !(c->url = strdup(url)) ||
	    !(c->curl = curl_easy_init())) {
		gl_chttp_free(c);
		gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		return NULL;
	}
	while (n > 0 && (c->url[n - 1] == '?' || c->url[n - 1] == '&'))
		c->url[--n] = '\0';
	/* http://user:secret@host/ is shown as http://host/ */
	const char *host = strstr(c->url, "://") + 3, *at = strchr(host, '@'),
		   *slash = strchr(host, '/');
	if (!(c->shown = malloc(strlen(c->url) + 1))) {
		gl_chttp_free(c);
		gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
		return NULL;
	}
	if (at && (!slash || at < slash))
		snprintf(c->shown, strlen(c->url) + 1, "%.*s%s", (int)(host - c->url), c->url, at + 1);
	else
		strcpy(c->shown, c->url);
	c->timeout_s = timeout_s > 0 ? timeout_s : 300;
	return c;
}

void gl_chttp_free(struct gl_chttp *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->url);
	free(c->shown);
	free(c);
}

const char *gl_chttp_url(const struct gl_chttp *c)
{
	return c->shown;
}

struct sink {
	struct gl_buf *out;	/* 200: the answer goes here (NULL: dropped) */
	int (*fn)(void *arg, const char *p, size_t n);
	void *arg;
	int fn_rc;
	struct gl_buf errbody;	/* not 200: the server's message */
	CURL *curl;
	int oom;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		if (s->errbody.len < 4096 && gl_buf_add(&s->errbody, p, n) != GL_OK)
			s->oom = 1;
		return n;
	}
	if (s->fn) {
		s->fn_rc = s->fn(s->arg, p, n);
		return s->fn_rc ? 0 : n;
	}
	if (s->out && gl_buf_add(s->out, p, n) != GL_OK) {
		s->oom = 1;
		return 0;
	}
	return n;
}

/* The server's message, first line, without "Code: N, e.displayText() = ". */
static void server_message(struct gl_buf *b, char *msg, size_t n)
{
	const char *p = b->data ? b->data : "";
	const char *d = strstr(p, "e.displayText() = ");
	size_t k;

	if (d)
		p = d + strlen("e.displayText() = ");
	k = strcspn(p, "\n");
	snprintf(msg, n, "%.*s", (int)(k < n ? k : n - 1), p);
}

/* One request: url with its query string, body[0..n) as POST data. */
static int request(struct gl_chttp *c, const char *url, const char *body, size_t n,
		   struct curl_slist *headers, struct sink *s, struct gl_err *err)
{
	CURL *h = c->curl;
	CURLcode cc;
	long status = 0;
	char msg[512];
	int rc;

	curl_easy_reset(h);
	s->curl = h;
	c->curl_msg[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_msg);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout_s);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (s->oom) {
		rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
	} else if (cc == CURLE_WRITE_ERROR && s->fn_rc) {
		rc = s->fn_rc;
	} else if (cc != CURLE_OK) {
		rc = gl_err_set(err, GL_EUNAVAIL, c->shown, 0,
				c->curl_msg[0] ? c->curl_msg : curl_easy_strerror(cc),
				"cannot reach the server");
	} else if (status >= 500 || status == 0) {
		server_message(&s->errbody, msg, sizeof(msg));
		rc = gl_err_set(err, GL_EUNAVAIL, c->shown, 0, msg, "the server answered %ld", status);
	} else if (status != 200) {
		server_message(&s->errbody, msg, sizeof(msg));
		rc = gl_err_set(err, GL_EDB, c->shown, 0, msg, "the server refused a request (%ld)",
				status);
	} else {
		rc = GL_OK;
	}
	gl_buf_release(&s->errbody);
	return rc;
}

int gl_chttp_query(struct gl_chttp *c, const char *sql, struct gl_buf *out, struct gl_err *err)
{
	struct sink s = {.out = out};

	return request(c, c->url, sql, strlen(sql), NULL, &s, err);
}

int gl_chttp_stream(struct gl_chttp *c, const char *sql,
		    int (*fn)(void *arg, const char *p, size_t n), void *arg, struct gl_err *err)
{
	struct sink s = {.fn = fn, .arg = arg};

	return request(c, c->url, sql, strlen(sql), NULL, &s, err);
}

/* gzip (RFC 1952) of in[0..n) into out, at level 1: the network is rarely
 * the bottleneck of a node's nightly ship, its two cores are. */
static int gzip_buf(const char *in, size_t n, struct gl_buf *out)
{
	z_stream z = {0};
	int zr;

	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return GL_ENOMEM;
	size_t bound = deflateBound(&z, (uLong)n) + 32;
	if (out->cap < bound) {
		char *d = realloc(out->data, bound);

		if (!d) {
			deflateEnd(&z);
			return GL_ENOMEM;
		}
		out->data = d;
		out->cap = bound;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)out->data;
	z.avail_out = (uInt)out->cap;
	zr = deflate(&z, Z_FINISH);
	out->len = z.total_out;
	deflateEnd(&z);
	return zr == Z_STREAM_END ? GL_OK : GL_ENOMEM;
}

int gl_chttp_insert(struct gl_chttp *c, const char *sql, const char *query_id, const char *tsv,
		    size_t n, size_t *gz_bytes, struct gl_err *err)
{
	struct sink s = {0};
	struct gl_buf gz = {0}, url = {0};
	struct curl_slist *headers = NULL;
	char *esc_sql = NULL, *esc_id = NULL;
	int rc;

	if (n > 0xffffffffu)
		return gl_err_set(err, GL_EUSAGE, NULL, 0, NULL, "a batch of over 4 GiB");
	if ((rc = gzip_buf(tsv, n, &gz)) != GL_OK)
		goto oom;
	*gz_bytes = gz.len;
	esc_sql = curl_easy_escape(c->curl, sql, 0);
	esc_id = curl_easy_escape(c->curl, query_id, 0);
	if (!esc_sql || !esc_id)
		goto oom;
	const char *sep = strchr(c->url, '?') ? "&" : (c->url[strlen(c->url) - 1] == '/' ? "?" : "/?");
	if (gl_buf_add(&url, c->url, strlen(c->url)) || gl_buf_add(&url, sep, strlen(sep)) ||
	    gl_buf_add(&url, "query=", 6) || gl_buf_add(&url, esc_sql, strlen(esc_sql)) ||
	    gl_buf_add(&url, "&query_id=", 10) || gl_buf_add(&url, esc_id, strlen(esc_id)))
		goto oom;
	if (!(headers = curl_slist_append(NULL, "Content-Encoding: gzip")))
		goto oom;
	rc = request(c, url.data, gz.data, gz.len, headers, &s, err);
	goto out;
oom:
	rc = gl_err_set(err, GL_ENOMEM, NULL, 0, NULL, "out of memory");
out:
	curl_slist_free_all(headers);
	curl_free(esc_sql);
	curl_free(esc_id);
	gl_buf_release(&gz);
	gl_buf_release(&url);
	return rc;
}
