/*
 * slurm.c - the slurm backend: a Slurm cluster through slurmrestd, over
 * http.h (libcurl). This file is the mapping of gq's operations onto
 * Slurm's requests; every JSON shape is wire/slurm.c's.
 *
 * Authentication is Slurm's: X-SLURM-USER-NAME (the local account) and
 * X-SLURM-USER-TOKEN (SLURM_JWT, what Slurm's own tools read, or the
 * config's tokenFile) on every request; the token decides what the user may
 * do. The API version is negotiated: GET /slurm/v0.0.N/ping newest first
 * (42 … 38), the first that answers wins, and is kept per cluster for
 * API_TTL in the cache (api_load), so a command makes only its own
 * requests; a 404 on a version from the cache negotiates it again.
 *
 * A snapshot is three requests (nodes, partitions, jobs). Slurm orders the
 * queue (ORDER_BACKEND: its priority), gq explains and predicts on that.
 */
#define _GNU_SOURCE /* mkostemp */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "core/runtime.h"
#include "core/sbatch.h"
#include "config.h"
#include "http.h"
#include "wire/slurm.h"
#include "wire/slurmauth.h"
#include "core/depend.h"
#include "wire/wire.h"

#define MAX_ANSWER ((size_t)1 << 30) /* 10,000 jobs are ~32 MB in v0.0.38 */

/* How long slurmdbd's completed runs are reused (in memory, and from the
 * cache file "runs" by a separate command): every user's runs of
 * RUNS_DAYS are one request, not one per command. */
#define HIST_TTL 600
/* How long a negotiated API version is reused from the cache: a version
 * goes away only with an upgrade of slurmrestd, and a 404 on it asks again. */
#define API_TTL 86400

struct slurm {
	struct backend b;
	struct http_conn *conn;
	char *base; /* "http://HOST:PORT" */
	char user[64];
	char *token;
	char *describe;
	int minor;	   /* the negotiated openapi/v0.0.<minor>, 0 before */
	bool minor_cached; /* ... and it comes from the cache, not asked yet */
	bool api_stale;	   /* the cached version got a 404: ask the server */
	struct slurm_meta meta;
	struct slurm_map map;
	/* all_users: gq serve --slurm (every user's jobs, no cache files) */
	bool all_users;
	/* every user's completed runs that slurmdbd lets the caller read,
	 * sorted by (user, name, id), from slurmdbd every HIST_TTL and from
	 * the completed jobs each snapshot shows in between */
	struct slurm_run *runs;
	size_t nruns;
	int64_t runs_t;	  /* when slurmdbd was last asked (our clock), 0 never */
	struct buf cache; /* the last GET /jobs answer */
	int64_t cache_t;  /* ... asked again with update_time=cache_t; 0 none */
	/* slurmctld's clock minus ours (GET /diag's req_time, measured when
	 * the version is negotiated and kept with it): update_time is
	 * slurmctld's time, which ours need not agree with. */
	int64_t clock_offset;
	bool clock_known;
};

static struct slurm *S(struct backend *b)
{
	return b->impl;
}

/* One HTTP exchange; *status the HTTP status. -1 only when no answer came. */
static int http(struct slurm *sl, const char *method, const char *path, const char *body,
		struct buf *out, long *status, struct gq_err *e)
{
	char uh[128], th[4096];
	snprintf(uh, sizeof(uh), "X-SLURM-USER-NAME: %s", sl->user);
	snprintf(th, sizeof(th), "X-SLURM-USER-TOKEN: %s", sl->token);
	const char *hdr[] = {uh, th, NULL};
	struct http_req r = {.method = method, .path = path, .body = body, .headers = hdr};
	return http_do(sl->conn, &r, out, status, e);
}

static bool api_load(struct slurm *sl);
static void api_save(const struct slurm *sl, const struct buf *ping);

/* slurmctld answers slurmrestd -1 both for a token it refuses and when it
 * is down; slurmdbd checks tokens itself: its /diag answers a good one,
 * if only with "access denied" (2002). */
static bool token_accepted(struct slurm *sl)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	struct gq_err pe = GQ_ERR_INIT;
	char path[64];
	long st = 0;
	snprintf(path, sizeof(path), "/slurmdb/v0.0.%d/diag", sl->minor);
	bool ok = http(sl, "GET", path, NULL, &out, &st, &pe) == 0 &&
		  (st == 200 || (slurm_errors(out.data ? out.data : "", out.len, st, &pe) < 0 &&
				 strstr(pe.msg, "(error 2002)")));
	buf_release(&out);
	return ok;
}

/* A request failed: when the token itself is at fault (not a JWT, expired
 * by its own exp claim, or another user's), that is the error, exit 4,
 * whatever slurmrestd said (22.05 answers such a token on /nodes with
 * HTTP 500 and a bare "Unspecified error"). Slurm's bare -1 is a refused
 * token (exit 4) unless slurmdbd accepts the token (token_accepted):
 * then slurmctld does not answer (exit 5). Else Slurm's words stay.
 * Returns -1. */
static int token_fault(struct slurm *sl, struct gq_err *e)
{
	if (!sl->token)
		return -1;
	struct jwt_claims cl;
	struct gq_err pe = GQ_ERR_INIT;
	/* What Slurm said, unless it was already only "refused the token". */
	char said[240] = "";
	if (!strstr(e->msg, "refused the token"))
		snprintf(said, sizeof(said), " (Slurm said: %s)",
			 strncmp(e->msg, "Slurm: ", 7) ? e->msg : e->msg + 7);
	if (jwt_claims_parse(sl->token, &cl, &pe) < 0)
		return err_set(e, GQ_EPERM,
			       "the token gq was given is %s; get one with 'scontrol token' and "
			       "set SLURM_JWT%s",
			       pe.msg, said);
	int64_t now = (int64_t)time(NULL) + (sl->clock_known ? sl->clock_offset : 0);
	if (cl.exp > 0 && cl.exp <= now) {
		char when[32];
		struct tm tm;
		time_t x = (time_t)cl.exp;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&x, &tm));
		return err_set(e, GQ_EPERM,
			       "the Slurm token expired at %s; get a new one with 'scontrol token' "
			       "and set SLURM_JWT%s",
			       when, said);
	}
	if (cl.user[0] && strcmp(cl.user, sl->user))
		return err_set(e, GQ_EPERM,
			       "the Slurm token is %s's, and gq asks as %s; use your own "
			       "('scontrol token')%s",
			       cl.user, sl->user, said);
	/* Slurm's bare -1: a token slurmctld refuses, or slurmctld down. */
	if (!sl->minor || (!strstr(e->msg, "refused the token") && !strstr(e->msg, "(error -1)")))
		return -1;
	if (token_accepted(sl))
		return err_set(e, GQ_EUNAVAIL,
			       "slurmctld does not answer %s (error -1), though the token is good "
			       "(slurmdbd accepts it): slurmctld is down or unreachable; tell the "
			       "cluster's admins",
			       sl->describe);
	return err_set(e, GQ_EPERM,
		       "Slurm refused the token (slurmdbd refuses it too)%s; get a new one with "
		       "'scontrol token' and set SLURM_JWT",
		       said);
}

/* slurmctld's clock against ours: GET /diag's req_time against the middle
 * of the exchange (to the second; jobs_cached allows for the rest).
 * Unknown when /diag does not answer it. */
static void clock_measure(struct slurm *sl)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	struct gq_err e = GQ_ERR_INIT;
	char path[64];
	long st = 0;
	snprintf(path, sizeof(path), "/slurm/v0.0.%d/diag", sl->minor);
	int64_t t0 = time(NULL);
	sl->clock_known = false;
	if (http(sl, "GET", path, NULL, &out, &st, &e) == 0 && st == 200) {
		int64_t t1 = time(NULL);
		int64_t server = slurm_diag_time(out.data ? out.data : "", out.len);
		if (server > 0) {
			sl->clock_offset = server - (t0 + t1) / 2;
			sl->clock_known = true;
		}
	}
	buf_release(&out);
}

/* The version from the cache, else the one slurmrestd says it serves:
 * GET /openapi/v3 names every path, and the newest version gq speaks is
 * pinged (its answer names the Slurm release). A slurmrestd that does not
 * answer that, or whose versions are all newer, is asked version by
 * version, newest first. */
static int negotiate(struct slurm *sl, struct gq_err *e)
{
	if (sl->minor || (!sl->api_stale && api_load(sl)))
		return 0;
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = -1, first = SLURM_API_NEWEST;
	long st = 0;
	if (http(sl, "GET", "/openapi/v3", NULL, &out, &st, e) < 0)
		goto out;
	if (st == 200 && out.data) {
		struct gq_err ignored = GQ_ERR_INIT;
		int v = slurm_openapi_newest(out.data, out.len, &ignored);
		if (v > 0)
			first = v;
	}
	for (int v = first; v >= SLURM_API_OLDEST; v--) {
		char path[64];
		snprintf(path, sizeof(path), "/slurm/v0.0.%d/ping", v);
		if (http(sl, "GET", path, NULL, &out, &st, e) < 0)
			goto out;
		if (st == 404)
			continue;
		const char *t = out.data ? out.data : "";
		if (slurm_errors(t, out.len, st, e) < 0 ||
		    ((st < 200 || st >= 300) &&
		     slurm_http_error(st, t, out.len, sl->describe, e) < 0)) {
			sl->minor = v; /* for the probe of token_fault */
			token_fault(sl, e);
			sl->minor = 0;
			goto out;
		}
		sl->minor = v;
		slurm_meta_decode(t, out.len, &sl->meta, e);
		clock_measure(sl);
		api_save(sl, &out);
		rc = 0;
		goto out;
	}
	err_set(e, GQ_EUNAVAIL,
		"%s offers no Slurm REST API version gq speaks (openapi v0.0.%d to v0.0.%d)",
		sl->describe, SLURM_API_OLDEST, SLURM_API_NEWEST);
out:
	buf_release(&out);
	return rc;
}

/*
 * METHOD /slurm/v0.0.N<rest>: 0 with the body in out; 1 for 304 (not
 * modified); -1 with Slurm's error (errors[] whatever the status).
 */
static int call(struct slurm *sl, const char *method, const char *rest, const char *body,
		struct buf *out, struct gq_err *e)
{
	if (negotiate(sl, e) < 0)
		return -1;
	char path[1024];
	snprintf(path, sizeof(path), "/slurm/v0.0.%d%s", sl->minor, rest);
	long st = 0;
	if (http(sl, method, path, body, out, &st, e) < 0)
		return -1;
	if (st == 404 && sl->minor_cached) {
		/* The cached version may be gone (slurmrestd upgraded):
		 * negotiate again, once, and retry. */
		sl->minor = 0;
		sl->minor_cached = false;
		sl->api_stale = true;
		if (negotiate(sl, e) < 0)
			return -1;
		snprintf(path, sizeof(path), "/slurm/v0.0.%d%s", sl->minor, rest);
		buf_reset(out);
		if (http(sl, method, path, body, out, &st, e) < 0)
			return -1;
	}
	sl->minor_cached = false; /* it answered */
	if (st == 304)
		return 1;
	const char *t = out->data ? out->data : "";
	if (slurm_errors(t, out->len, st, e) < 0 ||
	    ((st < 200 || st >= 300) && slurm_http_error(st, t, out->len, sl->describe, e) < 0))
		return token_fault(sl, e);
	return 0;
}

static int sl_ping(struct backend *b, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = call(S(b), "GET", "/ping", NULL, &out, e);
	if (rc == 0)
		rc = slurm_ping_decode(out.data ? out.data : "", out.len, e);
	buf_release(&out);
	return rc < 0 ? -1 : 0;
}

static int32_t local_tz(time_t now)
{
	struct tm tm;
	localtime_r(&now, &tm);
	return (int32_t)tm.tm_gmtoff;
}

/*
 * The cache per cluster and user: $XDG_CACHE_HOME/gq/slurm-<server>-<user>
 * -jobs.json holds the last GET /jobs answer after a first line
 * "gq-slurm-cache T", T two seconds before it was fetched in slurmctld's
 * clock (ours plus the offset kept with the API version; without one,
 * no cache: our clock need not agree with slurmctld's). The next command
 * asks GET /jobs?update_time=T; v0.0.38 answers 304 with an empty body
 * when no job changed since, and the cached answer is used. (v0.0.39+
 * answer 200 with no jobs instead, which cannot be told from an empty
 * queue: there the cache is not used.) In one process (gq top) the last
 * answer is also kept in memory.
 */
static void cache_path(const struct slurm *sl, const char *what, char *out, size_t size)
{
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char dir[GQ_PATH_MAX];
	if (x && *x)
		snprintf(dir, sizeof(dir), "%s/gq", x);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/gq", home ? home : "/tmp");
	char key[256];
	size_t k = 0;
	for (const char *p = sl->base; *p && k < sizeof(key) - 1; p++)
		key[k++] = isalnum((unsigned char)*p) || *p == '.' ? *p : '_';
	key[k] = '\0';
	/* The API version is the cluster's, the same for every user. */
	if (!strcmp(what, "api"))
		snprintf(out, size, "%s/slurm-%s-%s", dir, key, what);
	else
		snprintf(out, size, "%s/slurm-%s-%s-%s", dir, key, sl->user, what);
}

static void cache_load(struct slurm *sl)
{
	if (sl->cache_t)
		return;
	char path[GQ_PATH_MAX + 512];
	cache_path(sl, "jobs.json", path, sizeof(path));
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	long long t = 0;
	if (fscanf(f, "gq-slurm-cache %lld\n", &t) == 1 && t > 0) {
		char chunk[65536];
		size_t n;
		buf_reset(&sl->cache);
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			if (buf_add(&sl->cache, chunk, n) < 0)
				break;
		sl->cache_t = t;
	}
	fclose(f);
}

/* Replaces cache file `what` with head then body[len], atomically (a
 * reader sees the old file or the new one); a failure leaves no cache. */
static void cache_write(const struct slurm *sl, const char *what, const char *head,
			const char *body, size_t len)
{
	char path[GQ_PATH_MAX + 512], tmp[GQ_PATH_MAX + 600];
	cache_path(sl, what, path, sizeof(path));
	char *slash = strrchr(path, '/');
	*slash = '\0';
	char *up = strrchr(path, '/');
	if (up) { /* $XDG_CACHE_HOME, then its gq/ */
		*up = '\0';
		mkdir(path, 0700);
		*up = '/';
	}
	mkdir(path, 0700);
	*slash = '/';
	/* Written under a unique name (mkostemp's template: 0600, closed on
	 * exec), then renamed over: gq serve --slurm's threads write these
	 * files too, and a reader never sees half of one. */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fputs(head, f);
	fwrite(body, 1, len, f);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

/*
 * The negotiated version per cluster: $XDG_CACHE_HOME/gq/slurm-<server>-api
 * holds "gq-slurm-api N T OFFSET" (openapi/v0.0.N, negotiated at T; OFFSET
 * slurmctld's clock minus ours, left out when /diag did not say) and then
 * the ping answer it came with, for the Slurm release gq version names.
 * Used while younger than API_TTL.
 */
static bool api_load(struct slurm *sl)
{
	char path[GQ_PATH_MAX + 512];
	cache_path(sl, "api", path, sizeof(path));
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	int v = 0;
	long long t = 0, off = 0;
	int64_t now = time(NULL);
	/* "gq-slurm-api N T [OFFSET]": without OFFSET slurmctld's clock is unknown. */
	char head[128];
	int nf = fgets(head, sizeof(head), f)
		     ? sscanf(head, "gq-slurm-api %d %lld %lld", &v, &t, &off)
		     : 0;
	bool ok = nf >= 2 && v >= SLURM_API_OLDEST && v <= SLURM_API_NEWEST && t <= now &&
		  now - t < API_TTL;
	if (ok) {
		sl->clock_known = nf == 3;
		sl->clock_offset = nf == 3 ? off : 0;
	}
	if (ok) {
		char ping[16384];
		size_t n = fread(ping, 1, sizeof(ping) - 1, f);
		ping[n] = '\0';
		struct gq_err me = GQ_ERR_INIT;
		slurm_meta_decode(ping, n, &sl->meta, &me);
		sl->minor = v;
		sl->minor_cached = true;
	}
	fclose(f);
	return ok;
}

static void api_save(const struct slurm *sl, const struct buf *ping)
{
	char head[96];
	if (sl->clock_known)
		snprintf(head, sizeof(head), "gq-slurm-api %d %lld %lld\n", sl->minor,
			 (long long)time(NULL), (long long)sl->clock_offset);
	else
		snprintf(head, sizeof(head), "gq-slurm-api %d %lld\n", sl->minor,
			 (long long)time(NULL));
	cache_write(sl, "api", head, ping->data ? ping->data : "", ping->len);
}

static void cache_save(struct slurm *sl, const struct buf *body, int64_t t)
{
	buf_reset(&sl->cache);
	buf_add(&sl->cache, body->data ? body->data : "", body->len);
	sl->cache_t = t;
	char head[64];
	snprintf(head, sizeof(head), "gq-slurm-cache %lld\n", (long long)t);
	cache_write(sl, "jobs.json", head, body->data ? body->data : "", body->len);
}

/* GET /jobs through the cache. */
static int jobs_cached(struct slurm *sl, struct buf *out, struct gq_err *e)
{
	if (negotiate(sl, e) < 0)
		return -1;
	/* update_time is slurmctld's clock: ours plus the offset measured,
	 * less 2 s for the second the measure may be off and the second
	 * of a change just after the answer. Unknown: no cache. */
	if (sl->minor > 38 || !sl->clock_known)
		return call(sl, "GET", "/jobs", NULL, out, e) == 0 ? 0 : -1;
	int64_t t = time(NULL) + sl->clock_offset - 2;
	cache_load(sl);
	if (sl->cache_t) {
		char path[64];
		snprintf(path, sizeof(path), "/jobs?update_time=%" PRId64, sl->cache_t);
		int rc = call(sl, "GET", path, NULL, out, e);
		if (rc < 0)
			return -1;
		if (rc == 1) { /* 304: nothing changed since */
			buf_reset(out);
			return buf_add(out, sl->cache.data ? sl->cache.data : "", sl->cache.len) < 0
				   ? err_set(e, GQ_ETOOBIG, "cached answer too big")
				   : 0;
		}
	} else if (call(sl, "GET", "/jobs", NULL, out, e) != 0) {
		return -1;
	}
	cache_save(sl, out, t);
	return 0;
}

/* Nodes then jobs (optionally one job) into s. */
static int fetch(struct slurm *sl, struct snapshot *s, const char *jobs_path, bool partitions,
		 struct slurm_job_extra **x, size_t *nx, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	int rc = -1;
	s->now = time(NULL);
	s->tz_offset = local_tz((time_t)s->now);
	s->order = ORDER_BACKEND;
	/* Slurm's priority weights are not exposed: no simulated aging. And
	 * none of gq serve's own rules: no GPUs held back for P0 (headroom),
	 * no starvation permits. */
	s->policy.aging_step = 0;
	s->policy.headroom = 0;
	for (int t = 0; t < TIER_COUNT; t++)
		s->policy.tier[t].wait_limit = INT64_MAX;
	if (call(sl, "GET", "/nodes", NULL, &out, e) != 0)
		goto out;
	/* Now is slurmctld's, as the jobs' times are (the first call has
	 * negotiated the version and measured its clock). */
	if (sl->clock_known) {
		s->now = time(NULL) + sl->clock_offset;
		s->tz_offset = local_tz((time_t)s->now);
	}
	if (slurm_nodes_decode(out.data ? out.data : "", out.len, s, NULL, e) < 0)
		goto out;
	if (partitions &&
	    (call(sl, "GET", "/partitions", NULL, &out, e) != 0 ||
	     slurm_partitions_decode(out.data ? out.data : "", out.len, &s->policy, e) < 0))
		goto out;
	/* Reservations change the predictions (core/resv.h): asked with the
	 * partitions, for a snapshot of the whole cluster. */
	if (partitions && (call(sl, "GET", "/reservations", NULL, &out, e) != 0 ||
			   slurm_reservations_decode(out.data ? out.data : "", out.len, s, e) < 0))
		goto out;
	if (jobs_path &&
	    ((!strcmp(jobs_path, "/jobs") ? jobs_cached(sl, &out, e)
					  : call(sl, "GET", jobs_path, NULL, &out, e)) != 0 ||
	     slurm_jobs_decode(out.data ? out.data : "", out.len, s, &sl->map, x, nx, e) < 0))
		goto out;
	rc = 0;
out:
	buf_release(&out);
	if (rc < 0 && e->code == GQ_EINTERNAL)
		err_prefix(e, "answer from %s", sl->describe);
	return rc;
}

#define ACCT_TRIES 4

/* slurmdbd's accounting records of jobs active in [from, to) (what sacct
 * reads; v0.0.38 has no filter by user), with the query parameters `more`
 * ("&state=..."), into ans: 1, 0 when it has none,
 * -1 on an error. slurmdbd reads neither seconds since the epoch nor a
 * zone: dates in its own local time, asked a day wider on each side (the
 * callers keep what they need of the window), the colons escaped (a bare
 * one is refused). */
static int acct_fetch(struct slurm *sl, int64_t from, int64_t to, const char *more, struct buf *ans,
		      struct gq_err *e)
{
	if (negotiate(sl, e) < 0)
		return -1;
	char path[320], t1[32], t2[32];
	time_t a = (time_t)(from - 86400), z = (time_t)(to + 86400);
	struct tm tm;
	strftime(t1, sizeof(t1), "%Y-%m-%dT%H%%3A%M%%3A%S", gmtime_r(&a, &tm));
	strftime(t2, sizeof(t2), "%Y-%m-%dT%H%%3A%M%%3A%S", gmtime_r(&z, &tm));
	/* Steps included: skip_steps=true sends 40 % less on the kit, but it
	 * was tried only on v0.0.38 and is left out until checked on the
	 * other versions gq speaks. */
	snprintf(path, sizeof(path), "/slurmdb/v0.0.%d/jobs?start_time=%s&end_time=%s%s", sl->minor,
		 t1, t2, more);
	/* slurmrestd 22.05 answers this query HTTP 500 with no error in the
	 * answer for as long as it cannot find the QOS a record of the window
	 * names (its log: "_parser_dump: failed on field qos: Nothing found
	 * with query"; seen after the QOS of jobs just ended was deleted),
	 * while sacct reads the same records. A 500 is asked again all the
	 * same (it is a read; a restarting slurmdbd passes) ACCT_TRIES times
	 * over about 7 s, then the error says what is known of it. */
	static const unsigned pause_ms[ACCT_TRIES - 1] = {500, 1500, 5000};
	for (int i = 0;; i++) {
		long st = 0;
		buf_reset(ans);
		if (http(sl, "GET", path, NULL, ans, &st, e) < 0)
			return -1;
		const char *t = ans->data ? ans->data : "";
		/* A window without a record is an empty one, not a failure. */
		if (slurm_nothing_found(t, ans->len))
			return 0;
		if (slurm_errors(t, ans->len, st, e) < 0)
			return token_fault(sl, e);
		if (st >= 200 && st < 300)
			return 1;
		slurm_http_error(st, t, ans->len, sl->describe, e);
		token_fault(sl, e);
		if (st < 500 || e->code == GQ_EPERM)
			return -1;
		if (i == ACCT_TRIES - 1) {
			if (st == 500 && t[0] == '{')
				err_set(e, GQ_EUNAVAIL,
					"%s failed (HTTP 500) %d times over 7 s and gave no "
					"reason; its log says why",
					sl->describe, ACCT_TRIES);
			return -1;
		}
		struct timespec ts = {pause_ms[i] / 1000, (long)(pause_ms[i] % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* The days of slurmdbd's records the front reads its history from. */
#define RUNS_DAYS 14
/* The days gq history shows without --since. */
#define HISTORY_DAYS 7

static int cmp_run(const void *a, const void *b)
{
	const struct slurm_run *x = a, *y = b;
	int c = strcmp(x->user, y->user);
	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The first run of (user, name) in the sorted v[0..n), n when none. */
static size_t runs_first(const struct slurm_run *v, size_t n, const char *user, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v[mid].user, user);
		if (!c)
			c = strcmp(v[mid].name, name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool runs_same(const struct slurm_run *r, const char *user, const char *name)
{
	return !strcmp(r->user, user) && !strcmp(r->name, name);
}

/* The cache file "runs": "gq-slurm-runs T" (our clock when slurmdbd was
 * asked), then "ID ELAPSED USER NAME" lines. Read once per process while
 * younger than HIST_TTL. */
static void runs_load(struct slurm *sl, int64_t now)
{
	if (sl->runs_t || sl->all_users)
		return;
	char path[GQ_PATH_MAX + 512];
	cache_path(sl, "runs", path, sizeof(path));
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	long long t = 0, id, el;
	if (fscanf(f, "gq-slurm-runs %lld\n", &t) == 1 && t <= now && now - t < HIST_TTL) {
		struct slurm_run r;
		size_t cap = 0;
		while (fscanf(f, "%lld %lld %31s %63[^\n]\n", &id, &el, r.user, r.name) == 4) {
			r.id = id;
			r.elapsed = el;
			GROW(sl->runs, cap, sl->nruns + 1);
			sl->runs[sl->nruns++] = r;
		}
		qsort(sl->runs, sl->nruns, sizeof(*sl->runs), cmp_run);
		sl->runs_t = t;
	}
	fclose(f);
}

static void runs_save(const struct slurm *sl)
{
	if (sl->all_users)
		return;
	struct buf b;
	buf_init(&b, 0);
	char head[64];
	snprintf(head, sizeof(head), "gq-slurm-runs %lld\n", (long long)sl->runs_t);
	for (size_t i = 0; i < sl->nruns; i++) {
		const struct slurm_run *r = &sl->runs[i];
		if (r->user[0] && r->name[0] && !strpbrk(r->user, " \n") && !strchr(r->name, '\n'))
			buf_printf(&b, "%lld %lld %s %s\n", (long long)r->id, (long long)r->elapsed,
				   r->user, r->name);
	}
	cache_write(sl, "runs", head, b.data ? b.data : "", b.len);
	buf_release(&b);
}

/* slurmdbd's completed runs of the last RUNS_DAYS, asked at most every
 * HIST_TTL seconds; the runs seen only in snapshots so far are kept
 * beside them. A failure keeps what there is (history only improves a
 * prediction). */
static void runs_refresh(struct slurm *sl, int64_t now)
{
	runs_load(sl, now);
	if (sl->runs_t && now - sl->runs_t < HIST_TTL)
		return;
	sl->runs_t = now;
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	struct gq_err e = GQ_ERR_INIT;
	struct slurm_run *v = NULL;
	size_t n = 0;
	/* [now - RUNS_DAYS, now + 1 day], acct_fetch's margins included */
	int got = acct_fetch(sl, now - (RUNS_DAYS - 1) * 86400, now, "&state=COMPLETED", &out, &e);
	if (got < 0 || (got && slurm_runs_decode(out.data, out.len, &v, &n, &e) < 0)) {
		buf_release(&out);
		free(v);
		return;
	}
	buf_release(&out);
	qsort(v, n, sizeof(*v), cmp_run);
	size_t nv = n;
	for (size_t i = 0; i < sl->nruns; i++) {
		const struct slurm_run *r = &sl->runs[i];
		if (!bsearch(r, v, nv, sizeof(*v), cmp_run)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = *r;
		}
	}
	if (n > nv)
		qsort(v, n, sizeof(*v), cmp_run);
	free(sl->runs);
	sl->runs = v;
	sl->nruns = n;
	runs_save(sl);
}

/* Every active job's hist_runtime (running or waiting) from its user's
 * completed runs of its name that the caller may read, as gq serve fills
 * it from its own finished jobs; the completed jobs of s join the runs
 * first. Slurm's own estimate assumes every job runs to its limit. */
static void hist_fill(struct slurm *sl, struct snapshot *s)
{
	size_t named = 0;
	for (size_t i = 0; i < s->njobs; i++)
		named += job_state_active(s->jobs[i].state) && s->jobs[i].name[0];
	if (!named) /* nothing to predict: slurmdbd is not asked */
		return;
	runs_refresh(sl, time(NULL));
	size_t n0 = sl->nruns;
	for (size_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (j->state != JOB_COMPLETED || j->start_time <= 0 || j->end_time <= j->start_time)
			continue;
		struct slurm_run r = {.id = j->id, .elapsed = j->end_time - j->start_time};
		snprintf(r.user, sizeof(r.user), "%s", j->user);
		snprintf(r.name, sizeof(r.name), "%s", j->name);
		if (bsearch(&r, sl->runs, n0, sizeof(r), cmp_run))
			continue;
		sl->runs = xrealloc(sl->runs, (sl->nruns + 1) * sizeof(*sl->runs));
		sl->runs[sl->nruns++] = r;
	}
	if (sl->nruns > n0)
		qsort(sl->runs, sl->nruns, sizeof(*sl->runs), cmp_run);
	int64_t *rt = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		if (!job_state_active(j->state) || !j->name[0])
			continue;
		size_t k = runs_first(sl->runs, sl->nruns, j->user, j->name), m = 0;
		for (; k < sl->nruns && runs_same(&sl->runs[k], j->user, j->name); k++) {
			GROW(rt, cap, m + 1);
			rt[m++] = sl->runs[k].elapsed;
		}
		j->hist_runtime = predict_hist_runtime(rt, m);
	}
	free(rt);
}

static int sl_snapshot(struct backend *b, struct snapshot *out, struct gq_err *e)
{
	struct snapshot s;
	snapshot_init(&s);
	if (fetch(S(b), &s, "/jobs", true, NULL, NULL, e) < 0) {
		snapshot_release(&s);
		return -1;
	}
	snapshot_sort(&s);
	hist_fill(S(b), &s);
	snapshot_release(out);
	*out = s;
	return 0;
}

/* Slurm's filename patterns (%j %u %x %A %a %%) for one job. */
static char *expand_path(const char *pat, const struct job *j, const struct slurm_job_extra *x)
{
	if (!pat[0])
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	for (const char *p = pat; *p; p++) {
		if (*p != '%' || !p[1]) {
			buf_add(&b, p, 1);
			continue;
		}
		switch (*++p) {
		case 'j':
			buf_printf(&b, "%" PRId64, j->id);
			break;
		case 'A':
			buf_printf(&b, "%" PRId64, x->array_job_id ? x->array_job_id : j->id);
			break;
		case 'a':
			buf_printf(&b, "%" PRId64, x->array_task_id >= 0 ? x->array_task_id : 0);
			break;
		case 'u':
			buf_addstr(&b, j->user);
			break;
		case 'x':
			buf_addstr(&b, j->name);
			break;
		case '%':
			buf_addstr(&b, "%");
			break;
		default:
			buf_printf(&b, "%%%c", *p);
		}
	}
	return buf_detach(&b);
}

static int sl_job(struct backend *b, int64_t id, struct job_info *out, struct gq_err *e)
{
	struct snapshot s;
	snapshot_init(&s);
	char path[64];
	snprintf(path, sizeof(path), "/job/%" PRId64, id);
	struct slurm_job_extra *x = NULL;
	size_t nx = 0;
	int rc = fetch(S(b), &s, path, false, &x, &nx, e);
	if (rc == 0 && !s.njobs)
		rc = err_set(e, GQ_ENOENT, "no job '%" PRId64 "' on %s", id, S(b)->describe);
	if (rc == 0) {
		memset(out, 0, sizeof(*out));
		out->job = s.jobs[0]; /* moved */
		job_init(&s.jobs[0]);
		/* The allocation's node indexes are the snapshot's: keep them
		 * only when the caller's snapshot has the same nodes (it does:
		 * the same GET /nodes order). */
		const struct slurm_job_extra *xe = &x[0];
		if (xe->cwd[0])
			out->cwd = xstrdup(xe->cwd);
		out->stdout_path = expand_path(
		    xe->stdout_path[0] ? xe->stdout_path : "slurm-%j.out", &out->job, xe);
		if (out->stdout_path && out->stdout_path[0] != '/' && xe->cwd[0]) {
			char *abs = xasprintf("%s/%s", xe->cwd, out->stdout_path);
			free(out->stdout_path);
			out->stdout_path = abs;
		}
		out->stderr_path = expand_path(xe->stderr_path, &out->job, xe);
		if (xe->command[0]) {
			out->argv = xcalloc(2, sizeof(char *));
			out->argv[0] = xstrdup(xe->command);
		}
	}
	free(x);
	snapshot_release(&s);
	return rc;
}

/* ---- submit ---- */

/* Single-quotes s for /bin/sh. */
static void sh_quote(struct buf *b, const char *s)
{
	buf_addstr(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_add(b, s, 1);
	buf_addstr(b, "'");
}

/* The job's environment as a script's "#SBATCH --export" says: ALL (the
 * default: the caller's, as sbatch), NONE, or a list of names (taken from
 * the caller's environment) and NAME=VALUE pairs, with or without ALL.
 * The strings of *owned are the caller's to free with the array; the
 * array's other strings are borrowed from env. */
static char **export_env(char **env, const char *spec, char ***owned)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", spec);
	size_t words = 1;
	for (const char *c = copy; *c; c++)
		words += *c == ',';
	char **out = xcalloc(n + words + 1, sizeof(char *));
	*owned = xcalloc(words + 1, sizeof(char *));
	size_t k = 0, m = 0;
	bool all = false;
	for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		all |= !strcmp(w, "ALL");
	if (all)
		for (size_t i = 0; i < n; i++)
			out[k++] = env[i];
	snprintf(copy, sizeof(copy), "%s", spec);
	for (char *save = NULL, *w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "ALL") || !strcmp(w, "NONE") || !strcmp(w, "NIL") || !*w)
			continue;
		if (strchr(w, '=')) {
			out[k++] = (*owned)[m++] = xstrdup(w);
			continue;
		}
		size_t len = strlen(w);
		for (size_t i = 0; i < n && !all; i++)
			if (!strncmp(env[i], w, len) && env[i][len] == '=') {
				out[k++] = env[i];
				break;
			}
	}
	return out;
}

/* The largest GPU count of one node (of model type when given). */
static int max_node_gpus(const struct snapshot *s, const char *type)
{
	int best = 0;
	for (size_t i = 0; i < s->nnodes; i++)
		if ((!type || !*type || !strcmp(type, s->nodes[i].gpu_model)) &&
		    s->nodes[i].ngpus > best)
			best = s->nodes[i].ngpus;
	return best;
}

static int sl_submit(struct backend *b, const struct submit_req *r, int64_t *id,
		     struct window_stop *win, bool *has_win, struct gq_err *e)
{
	(void)win; /* Slurm has no queue windows */
	*has_win = false;
	struct slurm *sl = S(b);
	const struct job *j = &r->job;
	/* Slurm's mail_type mails an address; a webhook or a command it cannot
	 * do, so --notify is not passed off as mail. */
	if (j->notify[0])
		return backend_records(b, "submit --notify", e);
	/* gq does not pass a script's arguments on to slurmrestd. */
	if (r->script && r->argv && r->argv[0])
		return err_set(
		    e, GQ_EUNAVAIL,
		    "a script's arguments ('%s'...) are not passed on to Slurm; give them "
		    "inside the script",
		    r->argv[0]);
	/* A script's #SBATCH lines (sbatch reads them on the client:
	 * slurmrestd does not); what the user gave gq wins over them. The
	 * options this cannot honour are cmd/submit's to warn about. */
	struct sbatch *sb = xmalloc(sizeof(*sb));
	sbatch_parse(r->script, sb);
	bool sb_any = sb->nlines > 0;
	unsigned given = r->given;
	char **env = r->env, **env_owned = NULL;
	struct snapshot s;
	snapshot_init(&s);
	struct buf out, script;
	buf_init(&out, MAX_ANSWER);
	buf_init(&script, 0);
	int rc = -1;
	/* The nodes: one node's GPUs decide between gres and the total. */
	if (fetch(sl, &s, NULL, false, NULL, NULL, e) < 0)
		goto out;
	struct slurm_submit q = {0};
	q.name = given & SUBMIT_GIVEN_NAME || !sb->name[0] ? j->name : sb->name;
	q.partition = given & SUBMIT_GIVEN_QUEUE || !sb->partition[0]
			  ? (j->queue[0] ? j->queue : NULL)
			  : sb->partition;
	/* The tier's QOS, unless the script names one and no tier was given. */
	const char *tq = slurm_map_qos(&sl->map, j->tier);
	q.qos = given & SUBMIT_GIVEN_TIER || !sb->qos[0] ? tq : sb->qos;
	q.account = sb->account[0] ? sb->account : NULL;
	q.gpus = j->req.gpus;
	q.gpu_type = j->req.gpu_type[0] ? j->req.gpu_type : NULL;
	if (!(given & SUBMIT_GIVEN_GPUS) && sb->gpus >= 0) {
		/* --gres / --gpus-per-node are per node, --gpus the job's. */
		q.gpus = sb->gpus;
		q.gpu_type = sb->gpu_type[0] ? sb->gpu_type : NULL;
		q.gpus_per_node = sb->gpus_per_node;
	} else {
		/* A script with #SBATCH lines and none for GPUs asks for none,
		 * as under sbatch, unless gq's --gpus says otherwise. */
		if (!(given & SUBMIT_GIVEN_GPUS) && sb_any)
			q.gpus = 0;
		int one = max_node_gpus(&s, q.gpu_type);
		q.gpus_per_node = j->req.same_node || q.gpus <= one || one == 0;
	}
	q.nodes_min = sb->nodes_min;
	q.nodes_max = sb->nodes_max;
	q.tasks = sb->ntasks;
	q.tasks_per_node = sb->ntasks_per_node;
	q.constraint = sb->constraint[0] ? sb->constraint : NULL;
	q.exclusive = sb->exclusive[0] ? sb->exclusive : NULL;
	q.mail_type = sb->mail_type[0] ? sb->mail_type : NULL;
	q.mail_user = sb->mail_user[0] ? sb->mail_user : NULL;
	/* A CPU-only job that names no partition goes to one without GPUs. */
	char cpu_part[64];
	if (q.gpus == 0 && !q.partition) {
		if (call(sl, "GET", "/partitions", NULL, &out, e) != 0 ||
		    slurm_cpu_partition(out.data ? out.data : "", out.len, &s, cpu_part,
					sizeof(cpu_part), e) < 0)
			goto out;
		q.partition = cpu_part;
		buf_reset(&out);
	}
	q.cpus = given & SUBMIT_GIVEN_CPUS || !sb->cpus_per_task ? j->req.cpus : sb->cpus_per_task;
	q.mem_mb = given & SUBMIT_GIVEN_MEM || !sb->mem_mb ? j->req.mem_mb : sb->mem_mb;
	q.time_limit =
	    given & SUBMIT_GIVEN_TIME_LIMIT || !sb->time_limit ? j->time_limit : sb->time_limit;
	q.cwd = sb->chdir[0] ? sb->chdir : r->cwd;
	if (sb->export_env[0])
		env = export_env(r->env, sb->export_env, &env_owned);
	q.env = env;
	q.hold = j->held || sb->hold;
	q.array = r->array ? r->array : sb->array[0] ? sb->array : NULL;
	char after[512];
	dep_format(j, after, sizeof(after));
	q.after = after;
	q.stdout_path = r->output ? r->output : sb->output[0] ? sb->output : NULL;
	/* Slurm's patterns are sbatch's: passed as they are */
	q.stderr_path = r->error ? r->error : sb->error[0] ? sb->error : NULL;
	q.begin = sb->begin[0] ? sb->begin : NULL;
	/* gq's --begin, an absolute time, as Slurm's relative form: the
	 * v0.0.38 field is a string ("now+N", seconds), and slurmctld's clock
	 * is the one that counts there. */
	char begin[48];
	if (j->begin_time > 0) {
		int64_t d = j->begin_time - (int64_t)time(NULL);
		snprintf(begin, sizeof(begin), "now+%" PRId64, d > 0 ? d : 0);
		q.begin = begin;
	}
	q.dependency = sb->dependency[0] ? sb->dependency : NULL;
	q.reservation = j->reservation[0]    ? j->reservation
			: sb->reservation[0] ? sb->reservation
					     : NULL;
	/* --signal as the job description's "signal" ("(B:|)sig_num(@sig_time|)"),
	 * the number because Slurm's names and gq's agree on Linux anyway. */
	char sig[32];
	if (j->sig) {
		snprintf(sig, sizeof(sig), "%d@%" PRId64, j->sig, j->sig_before);
		q.signal = sig;
	}
	if (r->script) {
		q.script = r->script;
	} else {
		buf_addstr(&script, "#!/bin/sh\nexec");
		for (char **a = r->argv; a && *a; a++) {
			buf_addstr(&script, " ");
			sh_quote(&script, *a);
		}
		buf_addstr(&script, "\n");
		q.script = script.data;
	}
	char *body = slurm_submit_encode(&q, sl->minor);
	rc = call(sl, "POST", "/job/submit", body, &out, e);
	free(body);
	struct gq_err de = GQ_ERR_INIT;
	if (rc == 0) {
		rc = slurm_submit_decode(out.data ? out.data : "", out.len, id, e);
	} else if (rc < 0 && out.len && slurm_submit_decode(out.data, out.len, id, &de) == 0) {
		/* A job id beside an error (2015, "partition configuration not
		 * available now": the job pends with reason PartitionConfig):
		 * Slurm created the job; its words become a warning. */
		e->code = GQ_OK;
		rc = 0;
	} else if (rc < 0 && e->code == GQ_EINVAL && strstr(e->msg, "2014"))
		err_prefix(e,
			   "no node of %s can ever hold this request (Slurm still records it "
			   "as a failed job)",
			   sl->describe);
	rc = rc == 0 ? 0 : -1;
out:
	buf_release(&out);
	buf_release(&script);
	snapshot_release(&s);
	if (env != r->env)
		free(env);
	for (char **o = env_owned; o && *o; o++)
		free(*o);
	free(env_owned);
	free(sb);
	return rc;
}

/* POST /job/ID with a flat properties body. */
static int update(struct backend *b, int64_t id, char *body, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	char path[64];
	snprintf(path, sizeof(path), "/job/%" PRId64, id);
	int rc = call(S(b), "POST", path, body, &out, e);
	free(body);
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

/* gq update through POST job/ID. Slurm has no estimate; GPUs and their
 * type are a GRES change slurmctld refuses to users on pending jobs in
 * 22.05 *(unverified)*: both are said not available, before anything is
 * sent. */
static int sl_update(struct backend *b, int64_t id, const struct job_update *u, struct gq_err *e)
{
	struct slurm *sl = S(b);
	if (u->set & UPD_NOTIFY)
		return backend_records(b, "update --notify", e);
	if (u->set & (UPD_ESTIMATE | UPD_GPUS | UPD_GPU_TYPE))
		return err_set(e, GQ_EUNAVAIL,
			       "gq update %s is not available on Slurm; change the "
			       "%s there with 'scontrol update' or cancel and resubmit",
			       u->set & UPD_ESTIMATE ? "--estimate" : "--gpus/--gpu-type",
			       u->set & UPD_ESTIMATE ? "time limit" : "GRES");
	/* v0.0.38 (Slurm 22.05) answers a new name with success and keeps
	 * the old one (seen on the kit): never say "updated" for it. */
	if (u->set & UPD_NAME) {
		if (negotiate(sl, e) < 0)
			return -1;
		if (sl->minor <= 38)
			return err_set(
			    e, GQ_EUNAVAIL,
			    "gq update --name is not available on Slurm's openapi "
			    "v0.0.%d: it accepts a new name and keeps the old one; rename "
			    "with 'scontrol update JobId=%" PRId64 " JobName=NAME'",
			    sl->minor, id);
	}
	char begin[48];
	if (u->set & UPD_BEGIN) {
		int64_t d = u->job.begin_time ? u->job.begin_time - (int64_t)time(NULL) : 0;
		snprintf(begin, sizeof(begin), "now+%" PRId64, d > 0 ? d : 0);
	}
	return update(b, id,
		      slurm_update_fields(&u->job, u->set, slurm_map_qos(&sl->map, u->job.tier),
					  begin, sl->minor),
		      e);
}

static int sl_cancel(struct backend *b, int64_t id, struct gq_err *e)
{
	struct buf out;
	buf_init(&out, MAX_ANSWER);
	char path[64];
	snprintf(path, sizeof(path), "/job/%" PRId64, id);
	int rc = call(S(b), "DELETE", path, NULL, &out, e);
	buf_release(&out);
	return rc == 0 ? 0 : -1;
}

static int sl_hold(struct backend *b, int64_t id, const char *reason, struct gq_err *e)
{
	/* A hold in Slurm's REST API is {"hold": true}: no text goes with it.
	 * The job's comment could carry one, but it is the job's own (sbatch
	 * --comment) and writing it would lose what its owner put there. */
	if (reason && *reason)
		return err_set(e, GQ_EUNAVAIL,
			       "job '%" PRId64 "' not held: Slurm's hold keeps no reason text; "
			       "hold it without --reason",
			       id);
	return update(b, id, slurm_update_hold(true, S(b)->minor), e);
}

static int sl_release(struct backend *b, int64_t id, struct gq_err *e)
{
	return update(b, id, slurm_update_hold(false, S(b)->minor), e);
}

static int sl_override(struct backend *b, int64_t id, enum tier tier, bool clear,
		       const char *reason, struct gq_err *e)
{
	struct slurm *sl = S(b);
	if (clear)
		return err_set(e, GQ_EUNAVAIL,
			       "gq prio --clear is not available on Slurm: it keeps no override "
			       "to clear; give the tier the job should have ('gq prio --reason "
			       "TEXT %" PRId64 " P1')",
			       id);
	if (negotiate(sl, e) < 0)
		return -1;
	const char *qos = slurm_map_qos(&sl->map, tier);
	if (!qos)
		return err_set(e, GQ_EINVAL, "no QOS maps to tier %s; set gq.qosMap",
			       tier_name(tier));
	return update(b, id, slurm_update_qos(qos, sl->minor), e);
}

/* The job update's priority: slurmctld lets only operators and admins set
 * it, and its refusal comes back as it is (exit 4 with Slurm's message). */
static int sl_priority(struct backend *b, int64_t id, int64_t prio, struct gq_err *e)
{
	struct slurm *sl = S(b);
	if (negotiate(sl, e) < 0)
		return -1;
	return update(b, id, slurm_update_priority(prio, sl->minor), e);
}

/* What the Slurm backend cannot do is GQ_EUNAVAIL (exit 5, as for the
 * commands built on gq serve's records), one line: what, why, what can. */
static int unsupported(struct backend *b, const char *what, const char *why, struct gq_err *e)
{
	return err_set(e, GQ_EUNAVAIL, "gq %s is not available on Slurm: %s", what, why);
}

/* v0.0.38's OpenAPI (GET /openapi/v3 on the kit) has no requeue path and
 * its job update no requeue action; the versions after it up to v0.0.42
 * neither. */
static int sl_requeue(struct backend *b, int64_t id, struct gq_err *e)
{
	struct slurm *sl = S(b);
	char why[160];
	struct gq_err ne = GQ_ERR_INIT;
	if (negotiate(sl, &ne) == 0 && sl->minor)
		snprintf(why, sizeof(why), "this Slurm's REST API (v0.0.%d) cannot requeue a job",
			 sl->minor);
	else
		snprintf(why, sizeof(why), "this Slurm's REST API cannot requeue a job");
	return err_set(e, GQ_EUNAVAIL,
		       "gq requeue is not available on Slurm: %s; an operator can, with "
		       "'scontrol requeue %" PRId64 "'",
		       why, id);
}

static int sl_confirm(struct backend *b, int64_t id, struct gq_err *e)
{
	return unsupported(b, "confirm",
			   "Slurm does not downgrade unconfirmed jobs, so there is nothing to "
			   "confirm",
			   e);
}

static int sl_checkpoint(struct backend *b, int64_t id, struct gq_err *e)
{
	return unsupported(b, "checkpoint",
			   "Slurm keeps no checkpoint records (its preemption does not ask "
			   "for them)",
			   e);
}

/* gq stats from slurmdbd's accounting records of the window (what sacct
 * reads), through the same core as gq serve's: the records become jobs and
 * events (stats_acct_events) for stats_compute; capacity is the nodes up
 * now, the job counts are the queue's now. Slurm keeps times, not gq's
 * events: what needs those is reported as not recorded. */
static int sl_stats(struct backend *b, int64_t from, int64_t to, struct stats_report *out,
		    struct gq_err *e)
{
	struct slurm *sl = S(b);
	struct snapshot s;
	snapshot_init(&s);
	struct buf ans;
	buf_init(&ans, MAX_ANSWER);
	struct stats_acct *acc = NULL;
	size_t nacc = 0, nev = 0;
	struct event *ev = NULL;
	struct stats_report r;
	memset(&r, 0, sizeof(r));
	int rc = -1;
	if (fetch(sl, &s, "/jobs", false, NULL, NULL, e) < 0)
		goto out;
	r.now = s.now;
	to = to ? to : s.now;
	from = from ? from : to - 86400;
	for (size_t i = 0; i < s.njobs; i++)
		r.counts[s.jobs[i].state]++;
	/* stats_compute clips to the window. */
	int got = acct_fetch(sl, from, to, "", &ans, e);
	if (got < 0 || (got && slurm_acct_decode(ans.data, ans.len, &sl->map, &acc, &nacc, e) < 0))
		goto out;
	/* The queue's jobs give way to the window's records. */
	for (size_t i = 0; i < s.njobs; i++)
		job_release(&s.jobs[i]);
	s.njobs = 0;
	stats_acct_events(acc, nacc, &s, &ev, &nev);
	if (stats_compute(&s, ev, nev, from, to, &r.st, e) < 0)
		goto out;
	r.not_recorded = STATS_NR_OVER_LIMIT | STATS_NR_OVERTAKEN | STATS_NR_WOULD_PREEMPT |
			 STATS_NR_WORK_LOST | STATS_NR_CHARGED;
	r.scheduler = "Slurm";
	*out = r;
	rc = 0;
out:
	if (rc < 0 && e->code == GQ_EINTERNAL)
		err_prefix(e, "slurmdbd's answer from %s", sl->describe);
	free(ev);
	free(acc);
	buf_release(&ans);
	snapshot_release(&s);
	return rc;
}

/* A record of slurmdbd's answer: its job id and its place in the answer. */
struct run_ix {
	int64_t id;
	size_t pos;
};

static int cmp_run_ix(const void *a, const void *b)
{
	const struct run_ix *x = a, *y = b;
	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* gq history from slurmdbd's accounting records, as sacct lists them: the
 * jobs of q's states and user that ended in [since, until); without
 * --since the last HISTORY_DAYS (slurmdbd keeps years). Whose records
 * the caller may see is slurmdbd's decision (PrivateData). */
static int sl_history(struct backend *b, const struct history_query *q, struct job **out, size_t *n,
		      struct gq_err *e)
{
	struct slurm *sl = S(b);
	int64_t now = time(NULL) + sl->clock_offset;
	int64_t until = q->until ? q->until : now + 1;
	int64_t since = q->since ? q->since : until - HISTORY_DAYS * 86400;
	unsigned states = q->states ? q->states
				    : (1u << JOB_COMPLETED) | (1u << JOB_FAILED) |
					  (1u << JOB_CANCELLED) | (1u << JOB_TIMEOUT);
	struct buf ans;
	buf_init(&ans, MAX_ANSWER);
	struct job *v = NULL;
	size_t nv = 0, k = 0;
	/* With the final states, as sacct -s asks: the window then holds every
	 * job that ended in it, a held one cancelled without ever being
	 * eligible too (without, slurmdbd leaves those out). */
	int got =
	    acct_fetch(sl, since, until,
		       "&state=COMPLETED%2CFAILED%2CCANCELLED%2CTIMEOUT%2CPREEMPTED%2CNODE_FAIL"
		       "%2COUT_OF_MEMORY%2CBOOT_FAIL%2CDEADLINE",
		       &ans, e);
	if (got < 0 || (got && slurm_hist_decode(ans.data, ans.len, &sl->map, &v, &nv, e) < 0)) {
		if (got > 0 && e->code == GQ_EINTERNAL)
			err_prefix(e, "slurmdbd's answer from %s", sl->describe);
		jobs_free(v, nv);
		buf_release(&ans);
		return -1;
	}
	buf_release(&ans);
	for (size_t i = 0; i < nv; i++) {
		struct job *j = &v[i];
		if (j->end_time >= since && j->end_time < until && (states & (1u << j->state)) &&
		    (!q->user || !strcmp(j->user, q->user))) {
			if (k != i) {
				v[k] = *j;
				job_init(j);
			}
			k++;
		} else {
			job_release(j);
		}
	}
	/* In id order; a requeued job has a record per run, in order, and its
	 * last is the job's (sacct -X shows that one). */
	struct run_ix *ix = xcalloc(k ? k : 1, sizeof(*ix));
	for (size_t i = 0; i < k; i++)
		ix[i] = (struct run_ix){v[i].id, i};
	if (k)
		qsort(ix, k, sizeof(*ix), cmp_run_ix);
	struct job *w = xcalloc(k ? k : 1, sizeof(*w));
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		struct job *j = &v[ix[i].pos];
		if (i + 1 < k && ix[i + 1].id == ix[i].id)
			job_release(j);
		else
			w[m++] = *j;
	}
	free(ix);
	free(v);
	*out = w;
	*n = m;
	return 0;
}

/* The log is the job's output file, read where gq runs (the cluster's
 * shared file system, or the login node the job ran on). */
static int sl_logs(struct backend *b, int64_t id, const char *stream, int64_t offset,
		   struct buf *out, int64_t *next, struct gq_err *e)
{
	struct job_info ji;
	if (sl_job(b, id, &ji, e) < 0)
		return -1;
	int rc = job_info_file_logs(&ji, stream, offset, out, next, e);
	job_info_release(&ji);
	return rc;
}

static bool sl_logs_are_files(struct backend *b)
{
	return true;
}

/* Slurm has no event stream: wait, then report none, so that a watcher
 * takes a fresh snapshot. */
static int sl_events(struct backend *b, int64_t after, int wait_ms, struct event_list *out,
		     struct gq_err *e)
{
	if (wait_ms > 0) {
		struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	return 0;
}

static int sl_clock(struct backend *b, int64_t delta, int64_t *now, struct gq_err *e)
{
	if (delta)
		return unsupported(b, "clock", "Slurm runs on the real clock only", e);
	*now = time(NULL);
	return 0;
}

static int sl_policy_apply(struct backend *b, const char *rev, char **applied, struct gq_err *e)
{
	return unsupported(b, "policy apply",
			   "Slurm's policy lives in slurm.conf and sacctmgr; 'gq policy export "
			   "slurm' writes it for them",
			   e);
}

static const char *sl_describe(struct backend *b)
{
	struct slurm *sl = S(b);
	if (sl->minor && !strstr(sl->describe, "openapi")) {
		char *d = xasprintf("Slurm %s at '%s' (openapi v0.0.%d, user %s)",
				    sl->meta.release[0] ? sl->meta.release : "?", sl->base,
				    sl->minor, sl->user);
		free(sl->describe);
		sl->describe = d;
		http_set_describe(sl->conn, d);
	}
	return sl->describe;
}

static void sl_close(struct backend *b)
{
	struct slurm *sl = S(b);
	http_close(sl->conn);
	free(sl->base);
	if (sl->token) {
		memset(sl->token, 0, strlen(sl->token));
		free(sl->token);
	}
	free(sl->describe);
	buf_release(&sl->cache);
	free(sl->runs);
	free(sl);
}

static const struct backend_ops slurm_ops = {
    .name = "slurm",
    .scheduler = "Slurm",
    .reads_sbatch = true,
    .logs_are_files = sl_logs_are_files,
    .ping = sl_ping,
    .snapshot = sl_snapshot,
    .job = sl_job,
    .submit = sl_submit,
    .cancel = sl_cancel,
    .hold = sl_hold,
    .release = sl_release,
    .requeue = sl_requeue,
    .override = sl_override,
    .priority = sl_priority,
    .confirm = sl_confirm,
    .checkpoint = sl_checkpoint,
    .logs = sl_logs,
    .events = sl_events,
    .stats = sl_stats,
    .history = sl_history,
    .preemptions = NULL,
    .reclaim = NULL,
    .clock = sl_clock,
    .policy_apply = sl_policy_apply,
    .describe = sl_describe,
    .close = sl_close,
    .update = sl_update,
};

static struct backend *slurm_open(const struct backend_target *t, struct gq_err *e)
{
	if (strncmp(t->server, "http://", 7) && strncmp(t->server, "https://", 8)) {
		err_set(e, GQ_EINVAL,
			"backend slurm needs slurmrestd's URL: set GQ_SERVER=http://HOST:PORT (or "
			"https://)");
		return NULL;
	}
	struct slurm *sl = xcalloc(1, sizeof(*sl));
	sl->b.ops = &slurm_ops;
	sl->b.impl = sl;
	sl->base = xstrdup(t->server);
	size_t n = strlen(sl->base);
	while (n > 8 && sl->base[n - 1] == '/')
		sl->base[--n] = '\0';
	sl->describe = xasprintf("slurmrestd at '%s'", sl->base);
	sl->all_users = t->all_users;
	buf_init(&sl->cache, MAX_ANSWER);
	struct passwd *pw = t->token ? NULL : getpwuid(getuid());
	if (t->token) {
		snprintf(sl->user, sizeof(sl->user), "%s", t->user);
	} else if (!pw) {
		err_set(e, GQ_EINVAL, "cannot find the local account of uid %u",
			(unsigned)getuid());
		goto fail;
	} else {
		snprintf(sl->user, sizeof(sl->user), "%s", pw->pw_name);
	}
	const char *jwt = getenv("SLURM_JWT");
	if (t->token) {
		sl->token = xstrdup(t->token);
	} else if (jwt && *jwt) {
		sl->token = xstrdup(jwt);
	} else if (t->token_file) {
		char tok[4096];
		if (token_read(t->token_file, tok, sizeof(tok), e) < 0)
			goto fail;
		sl->token = xstrdup(tok);
	} else {
		err_set(e, GQ_EPERM,
			"no Slurm token: set SLURM_JWT (from 'scontrol token') or gq.tokenFile");
		goto fail;
	}
	if (slurm_map_parse(t->qos_map, &sl->map, e) < 0) {
		err_prefix(e, "gq.qosMap");
		goto fail;
	}
	struct http_opts o = {
	    .base = sl->base,
	    .ca_file = t->ca_file,
	    .describe = sl->describe,
	    .unreachable_hint = "check GQ_SERVER",
	    .timeout_ms = 120000L,
	    .compressed = true,
	};
	sl->conn = http_open(&o, e);
	if (!sl->conn)
		goto fail;
	return &sl->b;
fail:
	free(sl->base);
	free(sl->token);
	free(sl->describe);
	free(sl);
	return NULL;
}

const struct backend_impl backend_slurm = {
    .name = "slurm",
    .open = slurm_open,
};
