/*
 * http.c - the libmicrohttpd adapter: sockets, bodies, responses, and the
 * limits that keep one client from taking the server from the others.
 */
#define _GNU_SOURCE
#include "http.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "os/mono.h"

/* One uid's open connections on a unix socket, and its requests being
 * handled. */
struct uid_count {
	uint32_t uid;
	unsigned n, active;
};

struct listener {
	struct MHD_Daemon *d;
	int fd;
	bool is_unix;
	char *path; /* unix socket path to unlink */
	struct http_server *h;
	/* Unix sockets only: connections per uid (MHD limits per IP address,
	 * and every local peer has the same one). */
	pthread_mutex_t mu;
	pthread_cond_t turn; /* a uid's active count went down */
	struct uid_count *uids;
	size_t nuids, uids_cap;
	unsigned long refused; /* since the last warning */
	int64_t warned_ms;     /* when the last warning was logged (mono_ms), 0 never */
	/* Unix sockets: our own accept loop (acceptor_main), which counts and
	 * refuses before MHD makes a thread for the connection. */
	pthread_t acceptor;
	bool acceptor_on;
	int stop[2]; /* written to stop the acceptor */
};

struct http_server {
	struct listener *l;
	int n;
	size_t max_body;
	http_handler fn;
	void *arg;
};

/* Per request: the body being read. */
struct reqstate {
	struct buf body;
	bool too_big;
	bool big_answer; /* over BIG_ANSWER: memory is given back once it is sent */
};

/* An answer this big (every job of a long history, a snapshot of
 * thousands) leaves malloc's per-thread arenas holding its size after it
 * is freed; malloc_trim gives it back to the system when the request is
 * over (bench/fair.sh: 95 MB after a flood of 4 MB answers, not 165-209). */
#define BIG_ANSWER (1u << 20)

const char *http_query(const struct http_req *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *http_header(const struct http_req *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

void http_resp_header(struct http_resp *r, const char *name, const char *fmt, ...)
{
	if (r->nheaders >= HTTP_MAX_HEADERS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->hvalue[r->nheaders], sizeof(r->hvalue[0]), fmt, ap);
	va_end(ap);
	r->hname[r->nheaders++] = name;
}

struct stream {
	size_t (*fn)(void *cls, char *buf, size_t max);
	void (*free)(void *cls);
	void *cls;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct stream *st = cls;
	size_t n = st->fn(st->cls, buf, max);
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void stream_done(void *cls)
{
	struct stream *st = cls;
	st->free(st->cls);
	free(st);
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct http_resp *r)
{
	struct MHD_Response *resp;
	if (r->stream) {
		struct stream *st = xmalloc(sizeof(*st));
		*st = (struct stream){r->stream, r->stream_free, r->stream_cls};
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read,
							 st, stream_done);
		if (!resp) {
			stream_done(st);
			return MHD_NO;
		}
	} else {
		resp = MHD_create_response_from_buffer(
		    r->len, r->body ? r->body : (char *)(uintptr_t) "",
		    r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
		if (!resp) {
			free(r->body);
			return MHD_NO;
		}
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type ? r->content_type : "application/json");
	for (int i = 0; i < r->nheaders; i++)
		MHD_add_response_header(resp, r->hname[i], r->hvalue[i]);
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* MHD's own unescaping, except where it would make a NUL: "%00" ends the
 * C string early, and "/v1/ping%00" would be routed as "/v1/ping" (a job
 * id "1%00" as 1). Such a path or value is left as it came, which no
 * route and no number matches. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	if (strstr(s, "%00"))
		return strlen(s);
	return MHD_http_unescape(s);
}

/* The uid of a unix socket's connection (on_connection keeps it), or -1. */
static int64_t conn_uid(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!ci || !ci->socket_context)
		return -1;
	return (int64_t)((uintptr_t)ci->socket_context - 1);
}

/* Waits until the connection's uid has fewer than HTTP_MAX_ACTIVE requests
 * being handled, and counts this one; false when the uid is unknown. */
static bool turn_take(struct listener *l, struct MHD_Connection *c)
{
	int64_t uid = conn_uid(c);
	if (uid < 0)
		return false;
	pthread_mutex_lock(&l->mu);
	struct uid_count *u = NULL;
	for (;;) {
		u = NULL;
		for (size_t i = 0; i < l->nuids; i++)
			if (l->uids[i].uid == (uint32_t)uid)
				u = &l->uids[i];
		if (!u || u->active < HTTP_MAX_ACTIVE)
			break;
		pthread_cond_wait(&l->turn, &l->mu);
	}
	if (u)
		u->active++;
	pthread_mutex_unlock(&l->mu);
	return u != NULL;
}

static void turn_give(struct listener *l, struct MHD_Connection *c)
{
	int64_t uid = conn_uid(c);
	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->nuids; i++)
		if (l->uids[i].uid == (uint32_t)uid && l->uids[i].active > 0)
			l->uids[i].active--;
	pthread_cond_broadcast(&l->turn);
	pthread_mutex_unlock(&l->mu);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct listener *l = cls;
	struct http_server *h = l->h;
	struct reqstate *rs = *con_cls;
	if (!rs) {
		rs = xcalloc(1, sizeof(*rs));
		buf_init(&rs->body, h->max_body);
		*con_cls = rs;
		/* Refuse an announced oversized body before reading it. */
		const char *cl =
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > h->max_body)
			rs->too_big = true;
		else
			return MHD_YES;
	}
	if (*upload_data_size > 0) {
		if (!rs->too_big && buf_add(&rs->body, upload_data, *upload_data_size) < 0)
			rs->too_big = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct http_req req = {
	    .method = method,
	    .path = url,
	    .body = rs->body.data ? rs->body.data : "",
	    .body_len = rs->body.len,
	    .too_big = rs->too_big,
	    .unix_socket = l->is_unix,
	    .fd = ci ? ci->connect_fd : -1,
	    .conn = c,
	};
	(void)version;
	struct http_resp resp;
	memset(&resp, 0, sizeof(resp));
	resp.status = 500;
	bool turn = l->is_unix && !MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait") &&
		    turn_take(l, c);
	h->fn(h->arg, &req, &resp);
	if (turn)
		turn_give(l, c);
	rs->big_answer = resp.len > BIG_ANSWER || resp.stream; /* a stream: a big answer */
	return send_resp(c, &resp);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	struct reqstate *rs = *con_cls;
	if (rs) {
		bool trim = rs->big_answer;
		buf_release(&rs->body);
		free(rs);
		*con_cls = NULL;
		if (trim)
			malloc_trim(0);
	}
}

/* A uid over HTTP_MAX_PER_CLIENT gets this and is hung up on: a plain
 * close would leave a client guessing why. */
static void refuse_uid(struct listener *l, int fd, uint32_t uid)
{
	char body[256], msg[512];
	int bl = snprintf(body, sizeof(body),
			  "{\"error\":{\"code\":\"unavailable\",\"message\":\"uid %u has %d "
			  "connections open to this server; close some and retry\"}}",
			  (unsigned)uid, HTTP_MAX_PER_CLIENT);
	int ml = snprintf(msg, sizeof(msg),
			  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
			  "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
			  bl, body);
	/* A fresh socket's buffer is empty: this does not block. */
	ssize_t w = send(fd, msg, (size_t)ml, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w;
	shutdown(fd, SHUT_RDWR);
	int64_t now = mono_ms();
	l->refused++;
	/* One line a minute at most, however hard a client tries. */
	if (l->warned_ms == 0 || now - l->warned_ms >= 60000) {
		log_warn("%s: refused %lu connections over the limit of %d per uid (last: uid %u)",
			 l->path, l->refused, HTTP_MAX_PER_CLIENT, (unsigned)uid);
		l->warned_ms = now;
		l->refused = 0;
	}
}

/* Counts one more connection of uid, unless it has HTTP_MAX_PER_CLIENT. */
static bool uid_take(struct listener *l, uint32_t uid)
{
	pthread_mutex_lock(&l->mu);
	size_t i = 0;
	while (i < l->nuids && l->uids[i].uid != uid)
		i++;
	if (i == l->nuids) {
		GROW(l->uids, l->uids_cap, l->nuids + 1);
		l->uids[l->nuids++] = (struct uid_count){uid, 0, 0};
	}
	bool ok = l->uids[i].n < HTTP_MAX_PER_CLIENT;
	if (ok)
		l->uids[i].n++;
	pthread_mutex_unlock(&l->mu);
	return ok;
}

static void uid_give(struct listener *l, uint32_t uid)
{
	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->nuids; i++)
		if (l->uids[i].uid == uid) {
			if (--l->uids[i].n == 0)
				l->uids[i] = l->uids[--l->nuids];
			break;
		}
	pthread_mutex_unlock(&l->mu);
}

/* A unix socket's connection, counted by acceptor_main, carries its uid
 * (+ 1) as MHD's socket context; closed, it is counted off. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct listener *l = cls;
	if (!l->is_unix)
		return;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct ucred cr;
		socklen_t len = sizeof(cr);
		if (ci && getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0)
			*socket_context = (void *)(uintptr_t)((uint64_t)cr.uid + 1);
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
		uid_give(l, (uint32_t)((uintptr_t)*socket_context - 1));
		*socket_context = NULL;
	}
}

/* The accept loop of a unix socket. The kernel's queue of connections is
 * shared by every user: one who opens connections as fast as it can must
 * not fill it for the others. So the loop only accepts, asks the kernel who
 * connected, and either hands the connection to MHD (which makes its
 * thread) or, for a uid already at HTTP_MAX_PER_CLIENT, answers 503 and
 * closes it, in microseconds. */
static void *acceptor_main(void *arg)
{
	struct listener *l = arg;
	for (;;) {
		struct pollfd pf[2] = {{l->fd, POLLIN, 0}, {l->stop[0], POLLIN, 0}};
		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		for (;;) {
			struct sockaddr_un sa;
			socklen_t salen = sizeof(sa);
			int c = accept4(l->fd, (struct sockaddr *)&sa, &salen, SOCK_CLOEXEC);
			if (c < 0) {
				if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
				    errno == ENOMEM) {
					struct timespec ts = {0, 10 * 1000 * 1000};
					nanosleep(&ts, NULL); /* out of descriptors: a breath */
				}
				break;
			}
			struct ucred cr;
			socklen_t len = sizeof(cr);
			if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
				close(c);
				continue;
			}
			if (!uid_take(l, cr.uid)) {
				pthread_mutex_lock(&l->mu);
				refuse_uid(l, c, cr.uid);
				pthread_mutex_unlock(&l->mu);
				close(c);
				continue;
			}
			if (MHD_add_connection(l->d, c, (struct sockaddr *)&sa, salen) != MHD_YES)
				uid_give(l, cr.uid); /* MHD closed it */
		}
	}
	return NULL;
}

/* Every connection is a descriptor: make room for the limits. */
static void raise_fd_limit(rlim_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warn("cannot raise the limit of open files to %lu: %s", (unsigned long)want,
			 strerror(errno));
}

static int listen_unix(const char *path, bool world, struct gq_err *e)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set(e, GQ_EINVAL, "socket path '%s' is longer than %zu bytes", path,
			       sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(e, GQ_EIO, "socket: %s", strerror(errno));
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			close(fd);
			return err_set(e, GQ_ECONFLICT,
				       "'%s' exists and is not a socket; remove it", path);
		}
		/* A socket nobody answers on is left over from a server that
		 * died; one that answers belongs to a live server. */
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			close(fd);
			return err_set(e, GQ_ECONFLICT,
				       "a server already listens on '%s'; stop it or use another "
				       "--listen",
				       path);
		}
		close(fd);
		unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return err_set(e, GQ_EIO, "socket: %s", strerror(errno));
	}
	mode_t old = umask(world ? 0111 : 0177);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	/* Non-blocking: acceptor_main accepts until the queue is empty. */
	if (rc < 0 || listen(fd, SOMAXCONN) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		err_set(e, GQ_EIO, "cannot listen on '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int listen_tcp(const char *addr, struct gq_err *e)
{
	const char *colon = strrchr(addr, ':');
	if (!colon || colon == addr || !colon[1])
		return err_set(
		    e, GQ_EINVAL,
		    "--listen '%s': expected unix:PATH or HOST:PORT (e.g. 127.0.0.1:7070)", addr);
	char host[256];
	size_t hl = (size_t)(colon - addr);
	if (hl >= sizeof(host))
		return err_set(e, GQ_EINVAL, "--listen '%s': host name too long", addr);
	memcpy(host, addr, hl);
	host[hl] = '\0';
	char *h = host;
	if (h[0] == '[' && hl > 2 && h[hl - 1] == ']') {
		h[hl - 1] = '\0';
		h++;
	}
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	int g = getaddrinfo(h[0] ? h : NULL, colon + 1, &hints, &res);
	if (g != 0)
		return err_set(e, GQ_EINVAL, "--listen '%s': %s", addr, gai_strerror(g));
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 256) < 0) {
		err_set(e, GQ_EIO, "cannot listen on '%s': %s", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -1;
	}
	freeaddrinfo(res);
	return fd;
}

int http_start(char *const *addrs, int naddrs, bool mode_world, size_t max_body, http_handler fn,
	       void *arg, struct http_server **out, struct gq_err *e)
{
	struct http_server *h = xcalloc(1, sizeof(*h));
	h->l = xcalloc((size_t)naddrs, sizeof(*h->l));
	h->max_body = max_body;
	h->fn = fn;
	h->arg = arg;
	raise_fd_limit((rlim_t)naddrs * HTTP_MAX_CONNS + 256);
	for (int i = 0; i < naddrs; i++) {
		struct listener *l = &h->l[i];
		l->h = h;
		l->stop[0] = l->stop[1] = -1;
		pthread_mutex_init(&l->mu, NULL);
		pthread_cond_init(&l->turn, NULL);
		l->is_unix = !strncmp(addrs[i], "unix:", 5);
		l->fd =
		    l->is_unix ? listen_unix(addrs[i] + 5, mode_world, e) : listen_tcp(addrs[i], e);
		h->n = i + 1;
		if (l->fd < 0)
			goto fail;
		if (l->is_unix)
			l->path = xstrdup(addrs[i] + 5);
		/* A unix socket's connections come from acceptor_main: MHD
		 * gets no listening socket (the option's last entry, cut off
		 * there by MHD_OPTION_END). */
		struct MHD_OptionItem opts[] = {
		    {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, l},
		    {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, l},
		    {MHD_OPTION_CONNECTION_TIMEOUT, HTTP_TIMEOUT, NULL},
		    {MHD_OPTION_CONNECTION_LIMIT, HTTP_MAX_CONNS, NULL},
		    {MHD_OPTION_PER_IP_CONNECTION_LIMIT, l->is_unix ? 0 : HTTP_MAX_PER_CLIENT,
		     NULL},
		    {MHD_OPTION_CONNECTION_MEMORY_LIMIT, 32 * 1024, NULL},
		    {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape, NULL},
		    {l->is_unix ? MHD_OPTION_END : MHD_OPTION_LISTEN_SOCKET, l->fd, NULL},
		    {MHD_OPTION_END, 0, NULL},
		};
		unsigned flags =
		    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
		if (l->is_unix)
			flags |= MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC;
		l->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_ARRAY, opts,
					MHD_OPTION_END);
		if (!l->d) {
			err_set(e, GQ_EIO, "cannot serve HTTP on '%s'", addrs[i]);
			goto fail;
		}
		if (l->is_unix) {
			if (pipe2(l->stop, O_CLOEXEC) < 0 ||
			    pthread_create(&l->acceptor, NULL, acceptor_main, l) != 0) {
				err_set(e, GQ_EIO, "cannot serve HTTP on '%s': %s", addrs[i],
					strerror(errno));
				goto fail;
			}
			l->acceptor_on = true;
		}
		log_info("listening on %s", addrs[i]);
	}
	*out = h;
	return 0;
fail:
	http_stop(h);
	return -1;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->n; i++) {
		struct listener *l = &h->l[i];
		if (l->acceptor_on) {
			ssize_t w = write(l->stop[1], "x", 1);
			(void)w;
			pthread_join(l->acceptor, NULL);
		}
		if (l->stop[0] >= 0) {
			close(l->stop[0]);
			close(l->stop[1]);
		}
		/* The daemon owns a TCP listening socket once started; ours
		 * (unix) stay ours. */
		if (l->d)
			MHD_stop_daemon(l->d);
		if (l->fd >= 0 && (l->is_unix || !l->d))
			close(l->fd);
		if (l->path) {
			unlink(l->path);
			free(l->path);
		}
		free(l->uids);
		pthread_mutex_destroy(&l->mu);
		pthread_cond_destroy(&l->turn);
	}
	free(h->l);
	free(h);
}
