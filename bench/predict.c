/*
 * predict.c - benchmark of one full start-time prediction (predict_all)
 * and of one plan (sched_plan) and of the wait reasons of every pending job
 * (reason_all), on 2,000 nodes of 8 GPUs, with 1k, 10k and 100k pending
 * jobs and 10% as many running, then the same on the queue of bench/cli.sh
 * (one node of 8 GPUs, all held by one running P0 job, 10k pending jobs of
 * 1 to 7 GPUs: every end starts a walk that looks past dozens of blocked
 * jobs), where it also times a first run (predict_all and reason_all
 * once on a fresh snapshot, as gq ls runs them) and gq why's hints of its
 * last job (hint_job, the median of 9 runs). Prints milliseconds of
 * CPU time (best of 3 runs, one core) and the growth factor per 10x next
 * to what n log n would give; asserts nothing.
 *
 *   build/bench/predict [MAX_PENDING]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hint.h"
#include "core/predict.h"
#include "core/reason.h"
#include "core/sched.h"

#define NODES 2000
#define GPUS 8

/* CPU time of this process: the figure is about one core's work, and the
 * machine may be shared with other processes. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

/* Pending jobs of every tier and three queues asking for 1..8 GPUs (every
 * tenth on one node), estimates of 10 min to 4 h, half with a time limit
 * twice that; running jobs of 1 or 2 GPUs spread over the nodes. */
static void build(struct snapshot *s, int pending)
{
	static const char *const queues[] = {"prod", "train", "exp"};
	struct gq_err e = GQ_ERR_INIT;
	snapshot_init(s);
	s->now = 1800000000;
	policy_set(&s->policy, "queue.prod.share", "3", &e);
	policy_set(&s->policy, "queue.train.share", "2", &e);
	policy_set(&s->policy, "queue.exp.quota", "4000", &e);
	policy_set(&s->policy, "queue.exp.borrow", "2000", &e);
	s->qstate[1].usage = 1e6;
	s->qstate[2].usage = 3e6;
	s->qstate[3].usage = 2e6;
	for (int i = 0; i < NODES; i++) {
		struct node *n = snapshot_add_node(s);
		snprintf(n->name, sizeof(n->name), "n%04d", i);
		snprintf(n->gpu_model, sizeof(n->gpu_model), "%s", i % 4 == 3 ? "h100" : "a100");
		n->gpu_mem_mb = 81920;
		n->ngpus = GPUS;
	}
	int64_t id = 1;
	int running = pending / 10, node = 0;
	uint64_t used = 0;
	for (int r = 0; r < running; r++) {
		struct job *j = snapshot_add_job(s);
		int g = 1 + (int)rnd(2);
		if (__builtin_popcountll(used) + g > GPUS) {
			node = (node + 1) % NODES;
			used = 0;
		}
		j->id = id++;
		snprintf(j->queue, sizeof(j->queue), "%s", queues[rnd(3)]);
		snprintf(j->dept, sizeof(j->dept), "default");
		j->tier = (enum tier)rnd(3);
		j->state = JOB_RUNNING;
		j->req.gpus = g;
		j->start_time = s->now - 60 * (int64_t)rnd(120);
		j->estimate = 600 + 60 * (int64_t)rnd(240);
		j->nalloc = 1;
		j->alloc = xcalloc(1, sizeof(*j->alloc));
		j->alloc[0].node = node;
		uint64_t m = ((uint64_t)1 << g) - 1;
		j->alloc[0].mask = m << __builtin_popcountll(used);
		used |= j->alloc[0].mask;
	}
	for (int p = 0; p < pending; p++) {
		struct job *j = snapshot_add_job(s);
		j->id = id++;
		snprintf(j->queue, sizeof(j->queue), "%s", queues[rnd(3)]);
		snprintf(j->dept, sizeof(j->dept), "default");
		j->tier = (enum tier)rnd(3);
		j->state = JOB_PENDING;
		j->req.gpus = 1 << rnd(4);
		j->req.same_node = p % 10 == 0;
		if (p % 20 == 1)
			snprintf(j->req.gpu_type, sizeof(j->req.gpu_type), "h100");
		j->submit_time = j->queued_time = s->now - 60 * (int64_t)rnd(600);
		j->estimate = 600 + 60 * (int64_t)rnd(230);
		if (p % 2)
			j->time_limit = 2 * j->estimate;
	}
	snapshot_sort(s);
}

/* The queue of bench/cli.sh as gq serve holds it: its default machine (one
 * node of 8 slots), one P0 job holding all 8 (estimate 2h, limit 4h), then
 * pending jobs i = 1..n of tier i%3 (P0, P1, P2), 1 + i%7 GPUs, estimate
 * 600 + 300 × (i%7) s, all submitted at now by one user to one queue. */
static void build_cli(struct snapshot *s, int pending)
{
	snapshot_init(s);
	s->now = 1800000000;
	struct node *n = snapshot_add_node(s);
	snprintf(n->name, sizeof(n->name), "local");
	snprintf(n->gpu_model, sizeof(n->gpu_model), "slot");
	n->ngpus = GPUS;
	n->up = true;
	struct job *j = snapshot_add_job(s);
	j->id = 1;
	snprintf(j->name, sizeof(j->name), "sleep");
	snprintf(j->user, sizeof(j->user), "bench");
	snprintf(j->queue, sizeof(j->queue), "default");
	snprintf(j->dept, sizeof(j->dept), "default");
	j->tier = TIER_P0;
	j->state = JOB_RUNNING;
	j->req.gpus = GPUS;
	j->submit_time = j->queued_time = j->start_time = s->now;
	j->estimate = 2 * 3600;
	j->time_limit = 4 * 3600;
	j->nalloc = 1;
	j->alloc = xcalloc(1, sizeof(*j->alloc));
	j->alloc[0].node = 0;
	j->alloc[0].mask = ((uint64_t)1 << GPUS) - 1;
	for (int i = 1; i <= pending; i++) {
		j = snapshot_add_job(s);
		j->id = i + 1;
		snprintf(j->name, sizeof(j->name), "b%d", i % 50);
		snprintf(j->user, sizeof(j->user), "bench");
		snprintf(j->queue, sizeof(j->queue), "default");
		snprintf(j->dept, sizeof(j->dept), "default");
		j->tier = (enum tier)(i % 3 == 0 ? TIER_P0 : i % 3 == 1 ? TIER_P1 : TIER_P2);
		j->state = JOB_PENDING;
		j->req.gpus = 1 + i % 7;
		j->submit_time = j->queued_time = s->now;
		j->estimate = 600 + (i % 7) * 300;
	}
	snapshot_sort(s);
}

enum what { PREDICT, PLAN, REASONS };

static double best_of(int runs, const struct snapshot *s, enum what what)
{
	double best = 1e30;
	for (int r = 0; r < runs; r++) {
		struct prediction_set ps;
		prediction_set_init(&ps);
		if (what == REASONS)
			predict_all(s, &ps);
		double t0 = now_ms();
		if (what == REASONS) {
			struct why_set ws;
			why_set_init(&ws);
			reason_all(s, &ps, &ws);
			why_set_release(&ws);
		} else if (what == PLAN) {
			struct plan p;
			plan_init(&p);
			sched_plan(s, &p);
			plan_release(&p);
		} else {
			predict_all(s, &ps);
		}
		double t = now_ms() - t0;
		prediction_set_release(&ps);
		if (t < best)
			best = t;
	}
	return best;
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* gq why's hints (hint_job) of the last pending job of s, as bench/cli.sh
 * asks: the median of 9 runs, with how many predictions they ran. */
static void hints_of_last(const struct snapshot *s)
{
	struct prediction_set ps;
	struct why_set ws;
	prediction_set_init(&ps);
	why_set_init(&ws);
	predict_all(s, &ps);
	reason_all(s, &ps, &ws);
	const struct why *w = ws.n ? &ws.items[ws.n - 1] : NULL;
	for (size_t i = 0; i < ws.n; i++)
		if (ws.items[i].position > w->position)
			w = &ws.items[i];
	double ms[9];
	struct hint_set hs = {0};
	for (int r = 0; w && r < 9; r++) {
		double t0 = now_ms();
		hint_job(s, &ps, w, &hs);
		ms[r] = now_ms() - t0;
	}
	if (w) {
		qsort(ms, 9, sizeof(ms[0]), cmp_ms);
		printf("%9s hints of the last (#%lld): %.1f ms (median of 9), %d predictions, "
		       "%d hints\n",
		       "", (long long)w->job, ms[4], hs.evaluated, hs.n);
	}
	why_set_release(&ws);
	prediction_set_release(&ps);
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 100000;
	printf("one full prediction (predict_all), one plan (sched_plan) and the wait reasons of\n"
	       "every pending job (reason_all, after a prediction), %d nodes x %d GPUs,\n"
	       "running = 10%% of pending; best of 3 runs, CPU time of one core\n",
	       NODES, GPUS);
	printf("%9s %9s %11s %8s %11s %9s %10s\n", "pending", "running", "predict ms", "growth",
	       "n log n", "plan ms", "reasons ms");
	double prev = 0;
	for (int n = 1000; n <= max; n *= 10) {
		struct snapshot s;
		build(&s, n);
		double t = best_of(3, &s, PREDICT);
		double tp = best_of(3, &s, PLAN);
		double tr = best_of(3, &s, REASONS);
		char growth[32] = "-", nlogn[32] = "-";
		if (prev > 0) {
			snprintf(growth, sizeof(growth), "x%.1f", t / prev);
			snprintf(nlogn, sizeof(nlogn), "x%.1f",
				 10.0 * log((double)n) / log(n / 10.0));
		}
		printf("%9d %9d %11.1f %8s %11s %9.1f %10.1f\n", n, n / 10, t, growth, nlogn, tp,
		       tr);
		fflush(stdout);
		prev = t;
		snapshot_release(&s);
	}
	printf("\nthe queue of bench/cli.sh: one node x %d GPUs held by one running P0 job;\n"
	       "first: predict_all + reason_all once, first thing after building the snapshot\n"
	       "(as gq ls runs them: most pages touched for the first time)\n",
	       GPUS);
	printf("%9s %9s %11s %8s %11s %9s %10s %9s\n", "pending", "running", "predict ms", "", "",
	       "plan ms", "reasons ms", "first ms");
	for (int n = 1000; n <= max && n <= 10000; n *= 10) {
		struct snapshot s;
		build_cli(&s, n);
		double t0 = now_ms();
		struct prediction_set ps;
		struct why_set ws;
		prediction_set_init(&ps);
		why_set_init(&ws);
		predict_all(&s, &ps);
		reason_all(&s, &ps, &ws);
		double tf = now_ms() - t0;
		why_set_release(&ws);
		prediction_set_release(&ps);
		double t = best_of(3, &s, PREDICT);
		double tp = best_of(3, &s, PLAN);
		double tr = best_of(3, &s, REASONS);
		printf("%9d %9d %11.1f %8s %11s %9.1f %10.1f %9.1f\n", n, 1, t, "", "", tp, tr, tf);
		fflush(stdout);
		hints_of_last(&s);
		snapshot_release(&s);
	}
	return 0;
}
