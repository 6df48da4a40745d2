/*
 * sim.c - benchmark of gq sim's replay (replay/replay.h): the two real
 * traces of ../shared/traces (KTH SP2, 28k jobs on 100 units; HPC2N, 203k
 * jobs on 240 units) with the accuracy measurement on, as `gq sim` runs
 * them by default, then a synthetic trace of SYNTH jobs (1,000,000 by
 * default) on 240 units at about 70% load, with and without it. Prints the
 * CPU time of parsing and of the replay (one core), events and plans per
 * second, and the accuracy figure for jobs that waited; asserts nothing.
 *
 *   build/bench/sim [TRACES_DIR] [SYNTH]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/replay.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b, 0);
	char chunk[1 << 16];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	*len = b.len;
	return buf_detach(&b);
}

static void run(const char *name, const struct trace *t, int units, bool accuracy, double parse_ms)
{
	struct replay_opts o;
	replay_opts_init(&o);
	o.policy.headroom = 0;
	o.accuracy = accuracy;
	struct gq_err e = GQ_ERR_INIT;
	if (replay_machine(units, &o.nodes, &o.gpus_per_node, &e) < 0) {
		printf("%s: %s\n", name, e.msg);
		return;
	}
	struct replay_result r;
	memset(&r, 0, sizeof(r));
	double t0 = now_ms();
	replay_run(t, &o, &r, &e);
	double ms = now_ms() - t0;
	printf("%-14s %8zu jobs  %-8s parse %7.0f ms  replay %8.0f ms  %7.0f events/s", name,
	       r.njobs, accuracy ? "accuracy" : "replay", parse_ms, ms,
	       (double)r.events / (ms / 1e3));
	if (accuracy) {
		const struct replay_acc *h = &r.acc[PRED_HISTORY][REF_REPLAY][CLASS_WAITED],
					*l = &r.acc[PRED_LIMIT][REF_REPLAY][CLASS_WAITED],
					*z = &r.acc[PRED_ZERO][REF_REPLAY][CLASS_WAITED];
		printf(
		    "  waited: median error history %llds limit %llds zero %llds, in range %.0f%%",
		    (long long)h->median, (long long)l->median, (long long)z->median,
		    100 * h->in_range);
	}
	printf("\n");
	replay_result_release(&r);
}

static void real(const char *dir, const char *file, int units)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	size_t len;
	char *text = slurp(path, &len);
	if (!text) {
		printf("%s: not found, skipped\n", path);
		return;
	}
	struct trace t;
	trace_init(&t);
	struct gq_err e = GQ_ERR_INIT;
	double t0 = now_ms();
	if (trace_parse_csv(&t, text, len, path, &e) < 0) {
		printf("%s\n", e.msg);
		free(text);
		return;
	}
	double parse = now_ms() - t0;
	free(text);
	run(file, &t, units, true, parse);
	trace_release(&t);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double unif(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* Widths 1..64 (powers of two most often), runtimes log-uniform from a
 * minute to a day, limits 1 to 4 times the runtime, 50 users; arrivals
 * Poisson at about 70% of 240 units. */
static void synth(struct trace *t, size_t n)
{
	trace_init(t);
	double mean_work = 0;
	for (int i = 0; i < 1000; i++) {
		double rt = exp(log(60) + unif() * (log(86400) - log(60)));
		mean_work += rt * (double)(1 << (int)(unif() * 7)) / 1000;
	}
	double gap = mean_work / (0.7 * 240), at = 0;
	for (size_t i = 0; i < n; i++) {
		GROW(t->jobs, t->cap, t->n + 1);
		struct trace_job *j = &t->jobs[t->n++];
		memset(j, 0, sizeof(*j));
		snprintf(j->id, sizeof(j->id), "%zu", i + 1);
		snprintf(j->user, sizeof(j->user), "u%d", (int)(unif() * 50));
		at += -log(unif()) * gap;
		j->submit = (int64_t)at;
		int64_t rt = (int64_t)exp(log(60) + unif() * (log(86400) - log(60)));
		j->start = j->submit;
		j->end = j->submit + rt;
		j->units = 1 << (int)(unif() * 7);
		j->limit = (int64_t)((double)rt * (1 + 3 * unif())) + 1;
		j->tier = -1;
		j->completed = true;
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "../shared/traces";
	size_t n = argc > 2 ? (size_t)atol(argv[2]) : 1000000;
	real(dir, "kth_sp2.csv", 100);
	real(dir, "hpc2n_2002.csv", 240);
	struct trace t;
	synth(&t, n);
	run("synthetic", &t, 240, false, 0);
	run("synthetic", &t, 240, true, 0);
	trace_release(&t);
	return 0;
}
