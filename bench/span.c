/*
 * span.c - benchmark of allocations of any size: a cluster of 2,000 nodes
 * of 8 GPUs where training jobs take 128 nodes (1,024 GPUs) each. Eight of
 * them run (1,024 nodes), small jobs of 1 to 8 GPUs fill part of the rest,
 * and 1k / 10k jobs wait, one in ten of them another 128-node job. Prints
 * the CPU time of one full prediction (predict_all) and of the wait
 * reasons of every pending job (reason_all), best of 3 runs on one core,
 * the memory of the snapshot and of the prediction set, and then the
 * memory of a snapshot of 100k jobs with the allocation kept by the job
 * (what the snapshot holds now) beside the size an inline array of
 * GQ_MAX_SPAN-sized entries would need; asserts nothing.
 *
 *   build/bench/span
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/predict.h"
#include "core/reason.h"

#define NODES 2000
#define GPUS 8
#define WIDE 128 /* nodes of a training job */

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

static struct job *add(struct snapshot *s, int64_t id, enum job_state st, int gpus)
{
	struct job *j = snapshot_add_job(s);
	j->id = id;
	snprintf(j->user, sizeof(j->user), "u%d", (int)rnd(50));
	snprintf(j->queue, sizeof(j->queue), "default");
	snprintf(j->dept, sizeof(j->dept), "default");
	j->tier = (enum tier)rnd(3);
	j->state = st;
	j->req.gpus = gpus;
	j->submit_time = j->queued_time = s->now - 60 * (int64_t)rnd(600);
	j->estimate = 1800 + 60 * (int64_t)rnd(600);
	return j;
}

/* The cluster with up to `running` small jobs beside the 8 wide ones
 * (as many as fit) and waiting jobs up to `total` jobs in all. */
static void build(struct snapshot *s, int running, int total)
{
	snapshot_init(s);
	s->now = 1800000000;
	struct gq_err e = GQ_ERR_INIT;
	policy_set(&s->policy, "headroom.share", "0", &e);
	for (int i = 0; i < NODES; i++) {
		struct node *n = snapshot_add_node(s);
		snprintf(n->name, sizeof(n->name), "n%04d", i);
		snprintf(n->gpu_model, sizeof(n->gpu_model), "h100");
		n->gpu_mem_mb = 81920;
		n->ngpus = GPUS;
	}
	int64_t id = 1;
	struct job_alloc a[WIDE];
	int node = 0;
	for (int w = 0; w < 8; w++) {
		struct job *j = add(s, id++, JOB_RUNNING, WIDE * GPUS);
		j->start_time = s->now - 60 * (int64_t)rnd(120);
		for (int k = 0; k < WIDE; k++)
			a[k] = (struct job_alloc){node++, (UINT64_C(1) << GPUS) - 1};
		job_set_alloc(j, WIDE, a);
	}
	uint64_t used = 0;
	for (int r = 0; r < running && node < NODES; r++) {
		int g = 1 + (int)rnd(GPUS);
		if (__builtin_popcountll(used) + g > GPUS) {
			if (++node == NODES)
				break;
			used = 0;
		}
		struct job *j = add(s, id++, JOB_RUNNING, g);
		j->start_time = s->now - 60 * (int64_t)rnd(120);
		uint64_t m = (((uint64_t)1 << g) - 1) << __builtin_popcountll(used);
		used |= m;
		job_set_alloc(j, 1, &(struct job_alloc){node, m});
	}
	for (int p = 0; s->njobs < (size_t)total; p++)
		add(s, id++, JOB_PENDING, p % 10 == 0 ? WIDE * GPUS : 1 + (int)rnd(GPUS));
	snapshot_sort(s);
}

/* Bytes the snapshot's jobs take: the array and every allocation. */
static size_t job_bytes(const struct snapshot *s)
{
	size_t b = s->njobs * sizeof(struct job);
	for (size_t i = 0; i < s->njobs; i++)
		b += (size_t)s->jobs[i].nalloc * sizeof(struct job_alloc);
	return b;
}

static double best_of(const struct snapshot *s, bool reasons, size_t *pool)
{
	double best = 1e30;
	for (int r = 0; r < 3; r++) {
		struct prediction_set ps;
		prediction_set_init(&ps);
		double t0 = now_ms();
		predict_all(s, &ps);
		if (reasons) {
			struct why_set ws;
			why_set_init(&ws);
			t0 = now_ms();
			reason_all(s, &ps, &ws);
			why_set_release(&ws);
		}
		double t = now_ms() - t0;
		size_t n = 0;
		for (size_t i = 0; i < ps.n; i++)
			n += (size_t)ps.items[i].nalloc;
		*pool = n * sizeof(struct job_alloc);
		prediction_set_release(&ps);
		if (t < best)
			best = t;
	}
	return best;
}

int main(void)
{
	printf("%d nodes x %d GPUs, 8 running jobs of %d nodes and 2,000 small ones, one in\n"
	       "ten pending jobs another %d-node job; best of 3 runs, CPU time of one core\n",
	       NODES, GPUS, WIDE, WIDE);
	printf("%9s %11s %11s %12s %14s %14s\n", "pending", "predict ms", "reasons ms",
	       "wide placed", "snapshot MB", "allocations MB");
	for (int n = 1000; n <= 10000; n *= 10) {
		struct snapshot s;
		build(&s, 2000, 8 + 2000 + n);
		size_t pool = 0;
		double tp = best_of(&s, false, &pool);
		double tr = best_of(&s, true, &pool);
		struct prediction_set ps;
		prediction_set_init(&ps);
		predict_all(&s, &ps);
		int wide = 0, placed = 0;
		for (size_t i = 0; i < ps.n; i++)
			if (snapshot_find(&s, ps.items[i].job)->req.gpus == WIDE * GPUS) {
				wide++;
				placed += ps.items[i].placed;
			}
		prediction_set_release(&ps);
		char w[32];
		snprintf(w, sizeof(w), "%d of %d", placed, wide);
		size_t np = 0;
		for (size_t i = 0; i < s.njobs; i++)
			np += s.jobs[i].state == JOB_PENDING;
		printf("%9zu %11.1f %11.1f %12s %14.1f %14.2f\n", np, tp, tr, w,
		       (double)job_bytes(&s) / 1e6, (double)pool / 1e6);
		snapshot_release(&s);
	}

	/* 100k jobs, 10% running (as bench/predict.c's queue): the
	 * allocation in the job against inline arrays. */
	struct snapshot s;
	build(&s, 10000, 100000);
	size_t inline16 = s.njobs * (sizeof(struct job) - sizeof(struct job_alloc *) +
				     16 * sizeof(struct job_alloc));
	size_t inline128 = s.njobs * (sizeof(struct job) - sizeof(struct job_alloc *) +
				      WIDE * sizeof(struct job_alloc));
	size_t nrun = 0;
	for (size_t i = 0; i < s.njobs; i++)
		nrun += s.jobs[i].state != JOB_PENDING;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("\n%zu jobs, %zu pending (%d-byte job records): %.1f MB with the allocation kept\n"
	       "by the job;\n"
	       "an inline array would take %.1f MB at 16 entries (the old bound), %.1f MB at %d;\n"
	       "peak RSS of this process %.1f MB\n",
	       s.njobs, s.njobs - nrun, (int)sizeof(struct job), (double)job_bytes(&s) / 1e6,
	       (double)inline16 / 1e6, (double)inline128 / 1e6, WIDE, (double)ru.ru_maxrss / 1e3);
	snapshot_release(&s);
	return 0;
}
