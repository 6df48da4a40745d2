/*
 * http.c - the libcurl adapter (http.h): one easy handle per connection,
 * reset before every request so that no option of one request leaks into
 * the next, and curl's failures turned into gq's errors.
 */
#include "http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct http_conn {
	CURL *curl;
	char *base, *unix_path, *ca_file, *describe;
	char *unreachable_hint, *timeout_hint;
	long timeout_ms;
	bool compressed;
	const struct http_req *req; /* the request under way, for its header callback */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct http_conn *http_open(const struct http_opts *o, struct gq_err *e)
{
	static bool curl_ready;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			err_set(e, GQ_EINTERNAL, "libcurl failed to initialise");
			return NULL;
		}
		curl_ready = true;
	}
	CURL *c = curl_easy_init();
	if (!c) {
		err_set(e, GQ_EINTERNAL, "libcurl failed to create a handle");
		return NULL;
	}
	struct http_conn *h = xcalloc(1, sizeof(*h));
	h->curl = c;
	h->base = xstrdup(o->base);
	h->unix_path = dup_or_null(o->unix_path);
	h->ca_file = dup_or_null(o->ca_file);
	h->describe = xstrdup(o->describe ? o->describe : o->base);
	h->unreachable_hint = xstrdup(o->unreachable_hint ? o->unreachable_hint : "");
	h->timeout_hint = dup_or_null(o->timeout_hint);
	h->timeout_ms = o->timeout_ms ? o->timeout_ms : 30000L;
	h->compressed = o->compressed;
	return h;
}

void http_close(struct http_conn *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->curl);
	free(h->base);
	free(h->unix_path);
	free(h->ca_file);
	free(h->describe);
	free(h->unreachable_hint);
	free(h->timeout_hint);
	free(h);
}

void http_set_describe(struct http_conn *h, const char *describe)
{
	char *d = xstrdup(describe);
	free(h->describe);
	h->describe = d;
}

char *http_escape(struct http_conn *h, const char *s)
{
	char *c = curl_easy_escape(h->curl, s, 0);
	if (!c)
		oom(strlen(s) * 3 + 1);
	char *r = xstrdup(c);
	curl_free(c);
	return r;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct buf *out = arg;
	return buf_add(out, p, size * n) < 0 ? 0 : size * n;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A header line "Name: value\r\n" to the request's callback; the status
 * line and the blank line end have no colon and are passed over. */
static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct http_conn *h = arg;
	size_t len = size * n;
	const char *colon = memchr(p, ':', len);
	if (colon && h->req->on_header) {
		size_t nlen = (size_t)(colon - p);
		const char *v = colon + 1;
		size_t vlen = len - nlen - 1;
		while (vlen && is_space(*v))
			v++, vlen--;
		while (vlen && is_space(v[vlen - 1]))
			vlen--;
		h->req->on_header(h->req->header_arg, p, nlen, v, vlen);
	}
	return len;
}

/* Does a server listen on unix socket path (its queue of connections full
 * now, EAGAIN, or no longer)? A connection it takes is closed at once. */
static bool unix_listening(const char *path)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int err = errno;
	close(fd);
	return rc == 0 || err == EAGAIN;
}

int http_do(struct http_conn *h, const struct http_req *r, struct buf *out, long *status,
	    struct gq_err *e)
{
	CURL *c = h->curl;
	char url[8192];
	if ((size_t)snprintf(url, sizeof(url), "%s%s", h->base, r->path) >= sizeof(url))
		return err_set(e, GQ_EINVAL, "request path too long");
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (h->unix_path)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, h->unix_path);
	if (h->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
	if (h->compressed)
		curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->timeout_ms ? r->timeout_ms : h->timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r->method);
	struct curl_slist *hdr = curl_slist_append(NULL, "Accept: application/json");
	for (const char *const *x = r->headers; x && *x; x++)
		hdr = curl_slist_append(hdr, *x);
	if (r->body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, r->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(r->body));
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	h->req = r;
	CURLcode cc;
	/* A unix socket whose queue of connections is full (a busy server,
	 * or another user flooding it) took nothing of the request: try again
	 * for up to 5 s, pausing 10 ms, then longer. curl does not say why it
	 * could not connect; unix_listening() asks. No server: no retry. */
	for (long pause_ms = 10, waited = 0;;
	     waited += pause_ms, pause_ms = pause_ms < 160 ? pause_ms * 2 : 200) {
		buf_reset(out);
		cc = curl_easy_perform(c);
		if (cc != CURLE_COULDNT_CONNECT || !h->unix_path || waited >= 5000 ||
		    !unix_listening(h->unix_path))
			break;
		struct timespec ts = {0, pause_ms * 1000000L};
		nanosleep(&ts, NULL);
	}
	h->req = NULL;
	curl_slist_free_all(hdr);
	if (cc != CURLE_OK) {
		if (cc == CURLE_WRITE_ERROR)
			return err_set(e, GQ_ETOOBIG, "answer from %s is over %zu MiB", h->describe,
				       out->max >> 20);
		if (cc == CURLE_OPERATION_TIMEDOUT && h->timeout_hint)
			return err_set(e, GQ_EUNAVAIL, "%s did not answer in time; %s", h->describe,
				       h->timeout_hint);
		return err_set(e, GQ_EUNAVAIL, "cannot reach %s: %s; %s", h->describe,
			       curl_easy_strerror(cc), h->unreachable_hint);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}
