/*
 * api.c - fuzz target: gq serve's request layer (api_handle, server/api.c)
 * and the server behind it, as a hostile client meets them: the route, the
 * query, the headers and the body of every endpoint, the submission and
 * every job action, clock and policy apply included.
 *
 * The input is a small HTTP request: "METHOD PATH[?QUERY]\n", then
 * "Name: value\n" header lines up to an empty line, then the body. It goes
 * to api_handle() of a real server (server_open_bare: the journal, the
 * policy repository, the committer) in a scratch state directory, from a
 * real unix socket whose peer credentials (auth.c) say who asks. What is not
 * here is the transport: libmicrohttpd parses the bytes of a request before
 * http.c hands it to the API, so the request arrives parsed (the five
 * functions of http.h below), and no job is ever started (a fuzzed argv is
 * never run). A long poll's wait is cut to 0. Every 4,096 inputs the server
 * starts again on a fresh directory, so that its journal stays small.
 * Invariants (api.h, codec.h): every request gets a status of the API
 * (gq-api(7)) and a body; a JSON body parses, and an error body is
 * {"error": {"code", "message"}} with the code its status says.
 */
#include "fuzz.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire/codec.h"
#include "server/api.h"
#include "server/http.h"
#include "server/server.h"

#define MAX_PARAMS 16
#define RESTART_EVERY 4096

struct fake_req {
	struct http_req req;
	char *names[MAX_PARAMS], *values[MAX_PARAMS];
	int nq;
	char *hnames[MAX_PARAMS], *hvalues[MAX_PARAMS];
	int nh;
};

/* ---- http.h: the request as libmicrohttpd hands it over ---- */

const char *http_query(const struct http_req *req, const char *name)
{
	const struct fake_req *f = (const struct fake_req *)req;
	for (int i = 0; i < f->nq; i++)
		if (!strcmp(f->names[i], name))
			return f->values[i];
	return NULL;
}

const char *http_header(const struct http_req *req, const char *name)
{
	const struct fake_req *f = (const struct fake_req *)req;
	for (int i = 0; i < f->nh; i++)
		if (!strcasecmp(f->hnames[i], name))
			return f->hvalues[i];
	return NULL;
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

/* server_run's; a bare server never listens. */
int http_start(char *const *addrs, int naddrs, bool mode_world, size_t max_body, http_handler fn,
	       void *arg, struct http_server **out, struct gq_err *e)
{
	return err_set(e, GQ_EINTERNAL, "the API fuzz target does not listen");
}

void http_stop(struct http_server *h)
{
}

/* ---- the server ---- */

static struct server *srv;
static struct server_config cfg;
static char base[4096];
static int peer[2] = {-1, -1};
static unsigned long inputs, generation;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 ? 0 : 0;
}

/* A new server on a new state directory; the last one's is removed. */
static void server_fresh(void)
{
	static char dir[4200];
	server_close_bare(srv);
	if (srv)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(dir, sizeof(dir), "%s/state%lu", base, generation++);
	memset(&cfg, 0, sizeof(cfg));
	cfg.state_dir = dir;
	cfg.manual_clock = true;
	cfg.gpus = 4;
	cfg.gpu_mem_mb = -1;
	cfg.cpus = 4;
	cfg.mem_mb = 16384;
	cfg.exe = "/bin/false";
	struct gq_err e = GQ_ERR_INIT;
	if (!(srv = server_open_bare(&cfg, &e))) {
		fprintf(stderr, "fuzz: api: cannot open a server in '%s': %s\n", dir, e.msg);
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_set_level(LV_ERROR);
	fuzz_tmpdir(base, sizeof(base), "api");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, peer) < 0) {
		perror("socketpair");
		exit(1);
	}
	server_fresh();
	return 0;
}

/* ---- the request ---- */

/* Splits "a=1&b=2" in place into f's parameters (no %-decoding: http.c's
 * libmicrohttpd does that before the handler sees them). */
static void parse_query(struct fake_req *f, char *q)
{
	for (char *save = NULL, *t = strtok_r(q, "&", &save); t && f->nq < MAX_PARAMS;
	     t = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(t, '=');
		if (eq)
			*eq++ = '\0';
		f->names[f->nq] = t;
		/* a long poll would hold the fuzzer for up to a minute */
		static char zero[] = "0";
		f->values[f->nq++] = !strcmp(t, "wait") ? zero : eq ? eq : t + strlen(t);
	}
}

/* The next line of *p (up to '\n', which is cut) or NULL at the end. */
static char *next_line(char **p, char *end)
{
	if (*p >= end)
		return NULL;
	char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = end;
	}
	return s;
}

static bool status_known(int st)
{
	static const int known[] = {200, 201, 400, 401, 403, 404, 405,
				    409, 413, 429, 500, 503, 507};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (st == known[i])
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_str(data, size), *p = in, *end = in + size;
	struct fake_req f;
	memset(&f, 0, sizeof(f));
	char *line = next_line(&p, end);
	char *sp = line ? strchr(line, ' ') : NULL;
	if (!sp) {
		free(in);
		return 0;
	}
	*sp = '\0';
	f.req.method = line;
	char *path = sp + 1, *q = strchr(path, '?');
	if (q) {
		*q++ = '\0';
		parse_query(&f, q);
	}
	f.req.path = path;
	while ((line = next_line(&p, end)) && line[0] && f.nh < MAX_PARAMS) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon++ = '\0';
		while (*colon == ' ')
			colon++;
		f.hnames[f.nh] = line;
		f.hvalues[f.nh++] = colon;
	}
	f.req.body = p;
	f.req.body_len = (size_t)(end - p);
	f.req.unix_socket = true;
	f.req.fd = peer[0];

	if (++inputs % RESTART_EVERY == 0)
		server_fresh();
	struct http_resp resp;
	memset(&resp, 0, sizeof(resp));
	api_handle(srv, &f.req, &resp);
	FUZZ_CHECK(status_known(resp.status), "status %d", resp.status);
	if (resp.stream) {
		/* A streamed answer (GET /v1/jobs unpaged), read as MHD would,
		 * in pieces of the size it asks. */
		FUZZ_CHECK(resp.body == NULL, "a body beside a stream");
		struct buf sb;
		buf_init(&sb, 0);
		char piece[4096];
		size_t k;
		while ((k = resp.stream(resp.stream_cls, piece, sizeof(piece))) > 0)
			buf_add(&sb, piece, k);
		resp.stream_free(resp.stream_cls);
		resp.len = sb.len;
		resp.body = buf_detach(&sb);
	}
	FUZZ_CHECK(resp.body != NULL || resp.len == 0, "no body");
	if (!resp.content_type) {
		json_t *v = NULL;
		struct gq_err e = GQ_ERR_INIT;
		FUZZ_CHECK(codec_parse(resp.body, resp.len, &v, &e) == 0,
			   "the answer is not JSON: %s\n%.300s", e.msg, resp.body);
		if (resp.status >= 400) {
			struct gq_err ae = GQ_ERR_INIT;
			FUZZ_CHECK(codec_error_decode(v, &ae) == 0, "not an error body: %.300s",
				   resp.body);
			FUZZ_CHECK(resp.status == 405 || resp.status == 401 || resp.status == 403 ||
				       err_http_status(ae.code) == resp.status,
				   "status %d for code %s", resp.status, err_code_name(ae.code));
		}
		json_decref(v);
	}
	free(resp.body);
	free(in);
	return 0;
}
