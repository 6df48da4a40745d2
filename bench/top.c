/*
 * top.c - benchmark of gq top's frame, headless: with 10,000 pending jobs
 * (and a full cluster running), how long the model takes to build (the
 * core's order, reasons and predictions on the snapshot), how long a view
 * takes to refresh its rows (filter and sort), and how long one frame takes
 * to render into the grid and diff against the previous one (what happens
 * on every key press and every update). Prints figures (CPU time of one
 * core); asserts nothing.
 *
 *   build/bench/top [JOBS] [FRAMES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/tui.h"

/* CPU time, not wall time: the machine is shared, and what matters is
 * what gq top costs. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

/* 64 nodes of 8 GPUs, all busy with 1..8-GPU jobs, and `pending` jobs
 * waiting, of every tier, user and queue. */
static void build_snapshot(struct snapshot *s, int pending)
{
	static const char *const users[] = {"alice", "bob",   "carol", "dave",
					    "erin",  "frank", "grace", "heidi"};
	static const char *const queues[] = {"prod", "train", "exp"};
	snapshot_init(s);
	s->now = 1800000000;
	int64_t id = 1;
	for (int n = 0; n < 64; n++) {
		struct node *nd = snapshot_add_node(s);
		snprintf(nd->name, sizeof(nd->name), "gpu%02d", n);
		strcpy(nd->gpu_model, n < 32 ? "a100" : "h100");
		nd->gpu_mem_mb = 81920;
		nd->ngpus = 8;
		nd->up = true;
		int g = 0;
		while (g < 8) {
			int want = 1 << rnd(4);
			if (g + want > 8)
				want = 8 - g;
			struct job *j = snapshot_add_job(s);
			job_init(j);
			j->id = id++;
			snprintf(j->name, sizeof(j->name), "run-%lld", (long long)j->id);
			strcpy(j->user, users[rnd(8)]);
			strcpy(j->queue, queues[rnd(3)]);
			j->tier = (enum tier)rnd(3);
			j->state = JOB_RUNNING;
			j->req.gpus = want;
			j->submit_time = j->queued_time = s->now - 7200 - rnd(7200);
			j->start_time = s->now - rnd(7200);
			j->time_limit = 3600 * (1 + rnd(24));
			j->checkpointable = rnd(2);
			j->nalloc = 1;
			j->alloc = xcalloc(1, sizeof(*j->alloc));
			j->alloc[0].node = n;
			j->alloc[0].mask = (((uint64_t)1 << want) - 1) << g;
			g += want;
		}
	}
	for (int i = 0; i < pending; i++) {
		struct job *j = snapshot_add_job(s);
		job_init(j);
		j->id = id++;
		snprintf(j->name, sizeof(j->name), "exp-%lld", (long long)j->id);
		strcpy(j->user, users[rnd(8)]);
		strcpy(j->queue, queues[rnd(3)]);
		j->tier = (enum tier)rnd(3);
		j->state = JOB_PENDING;
		j->req.gpus = 1 << rnd(4);
		j->submit_time = j->queued_time = s->now - rnd(12 * 3600);
		j->time_limit = 3600 * (1 + rnd(24));
		j->estimate = j->time_limit / 2;
		j->held = rnd(50) == 0;
	}
}

static void null_emit(void *ctx, int x, int y, const struct cell *cells, int n)
{
	(void)x, (void)y, (void)cells;
	*(size_t *)ctx += (size_t)n;
}

static void frames(const struct model *m, int w, int h, int nframes)
{
	struct grid cur, prev;
	struct view v = {.ops = &view_queue_ops};
	struct tui_state st = {.m = m, .log_tail = ""};
	grid_init(&cur, false);
	grid_init(&prev, false);
	grid_resize(&cur, w, h);
	v.ops->open(&v);
	double t0 = now_ms();
	v.ops->refresh(&v, &st);
	double t_refresh = now_ms() - t0;
	size_t cells = 0;
	t0 = now_ms();
	for (int f = 0; f < nframes; f++) {
		grid_clear(&cur);
		int hh =
		    header_draw(&st, "gq serve at unix:/run/user/1000/gq/sock", &cur, w, h - 6);
		v.ops->draw(&v, &st, &cur, 0, hh + 1, w, h - hh - 2);
		/* Alternate moving the selection and paging, as a user would. */
		v.ops->key(&v, &st, f % 10 == 9 ? ACT_PGDN : ACT_DOWN);
		size_t sent = 0;
		cells += grid_diff(f ? &prev : NULL, &cur, null_emit, &sent);
		grid_copy(&prev, &cur);
	}
	double t_frame = (now_ms() - t0) / nframes;
	printf("top: %dx%d frame (header + queue view into the grid, diff): %.3f ms; "
	       "rows refresh (filter + sort of %zu): %.2f ms; %.0f cells changed per frame\n",
	       w, h, t_frame, m->nqueue, t_refresh, (double)cells / nframes);
	v.ops->close(&v);
	grid_release(&cur);
	grid_release(&prev);
}

int main(int argc, char **argv)
{
	int pending = argc > 1 ? atoi(argv[1]) : 10000;
	int nframes = argc > 2 ? atoi(argv[2]) : 500;
	if (pending < 0 || nframes < 1) {
		fprintf(stderr, "usage: top [JOBS] [FRAMES]\n");
		return 2;
	}
	struct snapshot s;
	build_snapshot(&s, pending);
	size_t njobs = s.njobs;
	struct model m;
	double t0 = now_ms();
	model_build(&m, &s, NULL, NULL, 0);
	double t_build = now_ms() - t0;
	printf("top: model of %zu jobs (%zu pending, %zu running, 512 GPUs) built in %.1f ms "
	       "(order, reasons, predictions, pools, history)\n",
	       njobs, m.nqueue, m.nrunning, t_build);
	frames(&m, 80, 24, nframes);
	frames(&m, 200, 60, nframes);
	model_release(&m);
	snapshot_release(&s);
	return 0;
}
