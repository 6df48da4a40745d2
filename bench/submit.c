/*
 * submit.c - benchmark of gq serve's durable submissions and snapshots,
 * over its unix socket, against the real server (build/gq serve, started
 * here on a scratch state directory with a manual clock and 8 slots).
 *
 * Prints: acknowledged submits per second with 1 and with 8 concurrent
 * clients (each on its own keep-alive connection; a submit is answered
 * only after its journal commit, so every one counted is on disk), for
 * held jobs (the journal alone) and for jobs that queue up behind a
 * running one (the journal and a scheduling pass per commit); then the
 * p50/p99 latency of GET /v1/snapshot with 10,000 jobs in the queue.
 * Asserts nothing.
 *
 *   build/bench/submit [SUBMITS_PER_RUN] [SNAPSHOT_JOBS]
 */
#include <curl/curl.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "os/mono.h"

static char sock[256], dir[128];

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	if (b)
		buf_add(b, p, size * n);
	return size * n;
}

static CURL *conn(struct buf *out)
{
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, sock);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	return c;
}

static pid_t srv;

/* CPU seconds the server has used so far (user + system). */
static double server_cpu(void)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)srv);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	/* Fields after the command: state ppid pgrp ... utime (14) stime (15). */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

struct worker {
	int n;
	const char *body;
	int failed;
};

static void *submitter(void *arg)
{
	struct worker *w = arg;
	CURL *c = conn(NULL);
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_URL, "http://gq/v1/jobs");
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, w->body);
	for (int i = 0; i < w->n; i++) {
		long code = 0;
		if (curl_easy_perform(c) != CURLE_OK ||
		    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK || code != 201)
			w->failed++;
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

static double last_cpu_us; /* server CPU per acknowledged submit in the last run */

/* n submits from k concurrent clients; returns acknowledged per second. */
static double run(int k, int n, const char *body, int *failed)
{
	pthread_t t[8];
	struct worker w[8];
	double c0 = server_cpu();
	double t0 = mono_s();
	for (int i = 0; i < k; i++) {
		w[i].n = n / k;
		w[i].body = body;
		w[i].failed = 0;
		pthread_create(&t[i], NULL, submitter, &w[i]);
	}
	*failed = 0;
	for (int i = 0; i < k; i++) {
		pthread_join(t[i], NULL);
		*failed += w[i].failed;
	}
	double dt = mono_s() - t0;
	int ok = n / k * k - *failed;
	last_cpu_us = ok > 0 ? (server_cpu() - c0) * 1e6 / ok : 0;
	return (double)ok / dt;
}

static const char *loadavg(void)
{
	static char b[128];
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f || !fgets(b, sizeof(b), f))
		strcpy(b, "?\n");
	if (f)
		fclose(f);
	return b;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static pid_t start_server(const char *gq)
{
	pid_t p = fork();
	if (p == 0) {
		char *log = xasprintf("%s/server.log", dir), *st = xasprintf("%s/state", dir);
		char *lst = xasprintf("unix:%s", sock);
		if (!freopen(log, "w", stderr))
			_exit(127);
		execl(gq, "gq", "serve", "--listen", lst, "--state-dir", st, "--manual-clock",
		      "--gpus", "8", "--log-level", "warn", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		struct stat sb;
		if (stat(sock, &sb) == 0)
			return p;
		usleep(20000);
	}
	fprintf(stderr, "bench/submit: the server did not start; see %s/server.log\n", dir);
	exit(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2500;
	int snap_jobs = argc > 2 ? atoi(argv[2]) : 10000;
	const char *build = getenv("BUILD");
	char *gq = xasprintf("%s/gq", build ? build : "build");
	snprintf(dir, sizeof(dir), "/tmp/gqbench.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	srv = start_server(gq);

	static const char held[] = "{\"argv\":[\"true\"],\"held\":true,\"name\":\"bench\"}";
	static const char queued[] = "{\"argv\":[\"sleep\",\"1000\"],\"req\":{\"gpus\":4},"
				     "\"name\":\"bench\"}";
	int failed;
	printf("durable submits over the unix socket (acknowledged after commit, %d each):\n", n);
	double r1 = run(1, n, held, &failed);
	printf("  held jobs,   1 client:   %7.0f submits/s, server CPU %4.0f us each (%d failed)\n",
	       r1, last_cpu_us, failed);
	double r8 = run(8, n, held, &failed);
	printf("  held jobs,   8 clients:  %7.0f submits/s, server CPU %4.0f us each (%d failed)\n",
	       r8, last_cpu_us, failed);
	double q1 = run(1, n, queued, &failed);
	printf("  queued jobs, 1 client:   %7.0f submits/s, server CPU %4.0f us each (%d failed)\n",
	       q1, last_cpu_us, failed);
	double q8 = run(8, n, queued, &failed);
	printf("  queued jobs, 8 clients:  %7.0f submits/s, server CPU %4.0f us each (%d failed)\n",
	       q8, last_cpu_us, failed);

	int have = 4 * n;
	if (have < snap_jobs)
		run(8, snap_jobs - have, held, &failed);
	struct buf out;
	buf_init(&out, 0);
	CURL *c = conn(&out);
	curl_easy_setopt(c, CURLOPT_URL, "http://gq/v1/snapshot");
	enum { SAMPLES = 100 };
	double lat[SAMPLES];
	size_t bytes = 0;
	for (int i = 0; i < SAMPLES; i++) {
		buf_reset(&out);
		double t0 = mono_s();
		curl_easy_perform(c);
		lat[i] = (mono_s() - t0) * 1e3;
		bytes = out.len;
	}
	qsort(lat, SAMPLES, sizeof(lat[0]), cmp_dbl);
	printf("load average during the run: %s", loadavg());
	printf("GET /v1/snapshot with %d jobs (%zu kB): p50 %.1f ms, p99 %.1f ms\n",
	       have > snap_jobs ? have : snap_jobs, bytes / 1024, lat[SAMPLES / 2],
	       lat[SAMPLES * 99 / 100]);
	curl_easy_cleanup(c);
	buf_release(&out);

	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	/* The one running job outlives the server, as it should; end it. */
	char *run = xasprintf("%s/state/run", dir);
	DIR *d = opendir(run);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *pidf = xasprintf("%s/%s/pid", run, de->d_name);
		FILE *f = fopen(pidf, "r");
		long pid = 0;
		if (f && fscanf(f, "%ld", &pid) == 1 && pid > 1)
			kill((pid_t)-pid, SIGKILL);
		if (f)
			fclose(f);
		free(pidf);
	}
	if (d)
		closedir(d);
	free(run);
	usleep(200000); /* let the supervisor record the exit before the files go */
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench/submit: could not clean up %s\n", dir);
	free(cmd);
	free(gq);
	curl_global_cleanup();
	return 0;
}
