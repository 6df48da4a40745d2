/*
 * policy.c - benchmark of the policy workflow's costly steps: the impact
 * preview (two orderings and two full predictions of the live queue) at
 * 1k, 10k and 100k pending jobs, and, on a scratch repository of 200
 * commits, loading HEAD, walking the log and blaming a key that only the
 * first commit set (the worst case: every commit is parsed). Prints
 * milliseconds of CPU time (best of 3); asserts nothing.
 *
 *   build/bench/policy
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "policy/file.h"
#include "policy/impact.h"
#include "policy/repo.h"

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* 1,000 nodes of 8 GPUs, all busy with 1-GPU jobs of 1..4 h, and `pending`
 * jobs of every tier in two queues, queued over the last 10 hours. */
static void live_queue(struct snapshot *s, int pending)
{
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(s);
	s->now = 1800000000;
	policy_set(&s->policy, "queue.exp.share", "2", &e);
	s->qstate[0].usage = 5e5;
	int64_t id = 1;
	for (int n = 0; n < 1000; n++) {
		struct node *nd = snapshot_add_node(s);
		snprintf(nd->name, sizeof(nd->name), "n%d", n);
		nd->ngpus = 8;
		nd->up = true;
		for (int g = 0; g < 8; g++) {
			struct job *j = snapshot_add_job(s);
			job_init(j);
			j->id = id++;
			j->state = JOB_RUNNING;
			j->tier = (enum tier)(g % 3);
			j->req.gpus = 1;
			j->nalloc = 1;
			j->alloc = xcalloc(1, sizeof(*j->alloc));
			j->alloc[0].node = n;
			j->alloc[0].mask = 1ull << g;
			j->start_time = s->now - 60 * (g * 7 + n % 50);
			j->estimate = 3600 * (1 + (n + g) % 4);
			j->checkpointable = g % 2;
			j->last_checkpoint = j->checkpointable ? s->now - 300 : 0;
			snprintf(j->queue, sizeof(j->queue), "%s", g % 2 ? "exp" : "default");
		}
	}
	for (int i = 0; i < pending; i++) {
		struct job *j = snapshot_add_job(s);
		job_init(j);
		j->id = id++;
		j->state = JOB_PENDING;
		j->tier = (enum tier)(i % 3);
		j->req.gpus = 1 + i % 8;
		j->submit_time = j->queued_time = s->now - (i * 7919) % 36000;
		j->estimate = 600 * (1 + i % 24);
		snprintf(j->queue, sizeof(j->queue), "%s", i / 3 % 2 ? "exp" : "default");
	}
	snapshot_sort(s);
}

static void bench_impact(void)
{
	for (int pending = 1000; pending <= 100000; pending *= 10) {
		struct snapshot s;
		live_queue(&s, pending);
		struct policy cand = s.policy;
		struct gq_err e = GQ_ERR_INIT;
		policy_set(&cand, "aging.cap", "0.3", &e);
		double best = 1e18;
		size_t moves = 0;
		for (int r = 0; r < 3; r++) {
			struct impact im;
			double t = cpu_ms();
			impact_compute(&s, &cand, &im);
			t = cpu_ms() - t;
			best = t < best ? t : best;
			moves = im.nmoves;
			impact_release(&im);
		}
		printf("impact preview, %6d pending, 8000 running: %8.1f ms (%zu jobs move)\n",
		       pending, best, moves);
		snapshot_release(&s);
	}
}

static int count_commit(const struct policy_commit *c, void *arg)
{
	(void)c;
	(*(int *)arg)++;
	return 0;
}

static void bench_repo(void)
{
	char dir[] = "/tmp/gq-bench-policy-XXXXXX";
	struct gq_err e = GQ_ERR_INIT;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return;
	}
	char *path = xasprintf("%s/repo", dir);
	struct policy_repo *r = NULL;
	if (repo_init(path, "bench", "bench@localhost", &e) < 0 || !(r = repo_open(path, &e))) {
		printf("repository: %s\n", e.msg);
		goto out;
	}
	/* 199 commits that each change preempt.grace; aging.cap is only ever
	 * set by the first. Needs an author in git configuration. */
	for (int i = 1; i < 200; i++) {
		size_t len = 0;
		char *text = repo_text(r, "HEAD", &len, NULL, &e);
		if (!text)
			break;
		char *grace = strstr(text, "\tgrace = ");
		char *eol = grace ? strchr(grace, '\n') : NULL;
		if (!eol) {
			free(text);
			break;
		}
		char *next =
		    xasprintf("%.*s\tgrace = %ds%s", (int)(grace - text), text, 60 + i, eol);
		char oid[POLICY_OID_HEX];
		char *msg = xasprintf("Grace %d", i);
		int rc = repo_commit(r, next, strlen(next), msg, oid, &e);
		free(msg);
		free(next);
		free(text);
		if (rc < 0) {
			printf("commit: %s (set user.name and user.email to run this part)\n",
			       e.msg);
			goto out;
		}
	}
	double t = cpu_ms();
	struct policy *p = xmalloc(sizeof(*p));
	for (int i = 0; i < 100; i++)
		repo_load(r, "HEAD", p, &e);
	printf("load and validate HEAD:            %8.2f ms\n", (cpu_ms() - t) / 100);
	int n = 0;
	t = cpu_ms();
	repo_walk(r, "HEAD", 0, count_commit, &n, &e);
	printf("log walk of %d commits:           %8.2f ms\n", n, cpu_ms() - t);
	/* blame's work: the key's value at every commit, back to the first */
	t = cpu_ms();
	char v[64];
	for (int i = 0; i < 200; i++) {
		char rev[32];
		snprintf(rev, sizeof(rev), "HEAD~%d", i);
		if (repo_read(r, rev, p, &e) == 0)
			policy_get(p, "aging.cap", v, sizeof(v), &e);
	}
	printf("blame's reads over 200 commits:    %8.1f ms\n", cpu_ms() - t);
	free(p);
out:
	repo_free(r);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		printf("could not remove %s\n", dir);
	free(rm);
	free(path);
}

int main(void)
{
	bench_impact();
	bench_repo();
	return 0;
}
