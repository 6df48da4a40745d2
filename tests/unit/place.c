/* place.c - the free-GPU map, best fit, and each constraint deciding alone. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "core/place.h"
#include "fixture.h"

static struct place_result check_job(struct snapshot *s, int64_t id)
{
	snapshot_sort(s);
	struct place_map m;
	place_map_init(&m, s);
	struct place_result r;
	place_check(&m, s, snapshot_find(s, id), s->now, &r);
	/* The allocation is the map's: keep it past the map. */
	static struct job_alloc keep[GQ_MAX_SPAN];
	memcpy(keep, r.alloc, (size_t)r.nalloc * sizeof(*keep));
	r.alloc = keep;
	place_map_release(&m);
	return r;
}

static void set(struct snapshot *s, const char *k, const char *v)
{
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(policy_set(&s->policy, k, v, &e), 0);
}

static void test_map_counts_held_gpus_and_down_nodes(void)
{
	struct snapshot s;
	fx_init(&s, 3, 8);
	s.nodes[2].up = false;
	fx_running(&s, 1, TIER_P1, 0, 3, MIN(-10), 3600);
	fx_running(&s, 2, TIER_P1, 1, 8, MIN(-10), 3600);
	struct job *done = fx_running(&s, 3, TIER_P1, 0, 2, MIN(-10), 3600);
	done->state = JOB_COMPLETED;
	snapshot_sort(&s);
	struct place_map m;
	place_map_init(&m, &s);
	CHECK_INT(m.total, 16);
	CHECK_INT(m.nfree, 5);
	CHECK_INT(m.free[0], 0xf8);
	CHECK_INT(m.free[1], 0);
	CHECK_INT(m.free[2], 0);
	CHECK_INT(m.reserve, 2); /* floor(0.15 * 16) */
	CHECK_INT(m.queue_used[0], 11);
	place_map_release(&m);
	snapshot_release(&s);
}

static void test_best_fit_picks_tightest_node(void)
{
	struct snapshot s;
	fx_init(&s, 3, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 2, MIN(-10), 3600); /* node0: 6 free */
	fx_running(&s, 2, TIER_P1, 1, 5, MIN(-10), 3600); /* node1: 3 free */
	fx_pending(&s, 3, TIER_P1, 3, MIN(0));
	struct place_result r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 1);
	CHECK_INT(r.alloc[0].node, 1);
	CHECK_INT(r.alloc[0].mask, 0xe0);
	snapshot_release(&s);
}

static void test_spread_takes_fullest_nodes_first(void)
{
	struct snapshot s;
	fx_init(&s, 3, 4);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 3, MIN(-10), 3600); /* node0: 1 free */
	fx_running(&s, 2, TIER_P1, 1, 1, MIN(-10), 3600); /* node1: 3 free */
	fx_pending(&s, 3, TIER_P1, 7, MIN(0));
	/* node2: 4 free */
	struct place_result r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 2);
	CHECK_INT(r.alloc[0].node, 2);
	CHECK_INT(r.alloc[0].mask, 0xf);
	CHECK_INT(r.alloc[1].node, 1);
	CHECK_INT(r.alloc[1].mask, 0xe);
	snapshot_release(&s);
}

static void test_resources_alone(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 6, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P1, 4, MIN(0));
	struct place_result r = check_job(&s, 2);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_RESOURCES));
	CHECK_INT(r.need, 4);
	CHECK_INT(r.free, 2);
	CHECK_INT(r.nalloc, 0);
	snapshot_release(&s);
}

static void test_mismatch_alone_type(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	STR_COPY(s.nodes[1].gpu_model, "h100");
	fx_running(&s, 1, TIER_P1, 1, 6, MIN(-10), 3600); /* h100 node: 2 free */
	fx_running(&s, 2, TIER_P1, 0, 6, MIN(-10), 3600); /* a100 node: 2 free */
	struct job *j = fx_pending(&s, 3, TIER_P1, 3, MIN(0));
	STR_COPY(j->req.gpu_type, "h100");
	struct place_result r = check_job(&s, 3);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_MISMATCH));
	CHECK_INT(r.free, 4);
	CHECK_INT(r.usable, 2);
	snapshot_release(&s);
}

static void test_mismatch_alone_same_node(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 4, MIN(-10), 3600);
	fx_running(&s, 2, TIER_P1, 1, 4, MIN(-10), 3600);
	struct job *j = fx_pending(&s, 3, TIER_P1, 6, MIN(0));
	j->req.same_node = true;
	struct place_result r = check_job(&s, 3);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_MISMATCH));
	CHECK_INT(r.free, 8);
	CHECK_INT(r.usable, 4);
	j = snapshot_find(&s, 3);
	j->req.same_node = false; /* spread over both nodes fits */
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 2);
	snapshot_release(&s);
}

static void test_window_alone(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.default.window", "20:00-08:00");
	s.tz_offset = 3600;					 /* local = UTC + 1h */
	s.now = 1700000000LL - 1700000000LL % 86400 + 21 * 3600; /* 21:00 UTC, 22:00 local */
	fx_pending(&s, 1, TIER_P1, 1, s.now);
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_WINDOW));
	CHECK_INT(r.window_end, s.now + 10 * 3600); /* 08:00 local */
	CHECK_INT(place_window_next_edge(&s, 0, s.now), s.now + 10 * 3600);
	s.now += 10 * 3600;
	r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(place_window_next_edge(&s, 0, s.now), s.now + 12 * 3600);
	snapshot_release(&s);
}

static void test_queue_quota_alone_and_borrowing(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	set(&s, "queue.default.quota", "4");
	set(&s, "queue.default.borrow", "4");
	fx_running(&s, 1, TIER_P1, 0, 6, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P1, 2, MIN(0));
	fx_pending(&s, 3, TIER_P1, 3, MIN(0));
	struct place_result r = check_job(&s, 2);
	CHECK_INT(r.blocks, 0);
	CHECK(r.borrowed);
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_QUOTA));
	CHECK(r.quota_queue);
	CHECK(!r.quota_dept);
	CHECK_INT(r.queue_used, 6);
	CHECK_INT(r.queue_quota, 4);
	CHECK_INT(r.queue_limit, 8);
	snapshot_release(&s);
}

static void test_dept_quota_alone(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "department.default.gpuHours", "100");
	set(&s, "department.default.gpuHoursAction", "stop");
	s.dstate[0].gpu_hours_month = 100;
	fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_QUOTA));
	CHECK(r.quota_dept);
	CHECK_DBL(r.dept_used, 100, 0);
	CHECK_DBL(r.dept_limit, 100, 0);
	s.dstate[0].gpu_hours_month = 99.5;
	r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	snapshot_release(&s);
}

/* By default (gpuHoursAction preemptible) spent GPU-hours block nothing:
 * the work runs on as the lowest tier (order and preemption see to it). */
static void test_dept_quota_spent_blocks_nothing_by_default(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	set(&s, "department.default.gpuHours", "100");
	s.dstate[0].gpu_hours_month = 150;
	fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK(!r.quota_dept);
	CHECK_DBL(r.dept_used, 150, 0);
	CHECK_DBL(r.dept_limit, 100, 0);
	snapshot_release(&s);
}

static void test_headroom_alone_p0_exempt(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8); /* reserve floor(0.15 * 16) = 2 */
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 3600);
	fx_running(&s, 2, TIER_P1, 1, 4, MIN(-10), 3600);
	fx_pending(&s, 3, TIER_P1, 3, MIN(0));
	fx_pending(&s, 4, TIER_P0, 3, MIN(0));
	fx_pending(&s, 5, TIER_P2, 2, MIN(0));
	struct place_result r = check_job(&s, 3);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_HEADROOM));
	CHECK_INT(r.reserve, 2);
	CHECK_INT(r.free, 4);
	r = check_job(&s, 4);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.reserve, 0);
	r = check_job(&s, 5);
	CHECK_INT(r.blocks, 0);
	snapshot_release(&s);
}

/* A request larger than what lies outside the reserve may use the reserve
 * once the GPUs it leaves are free: 8 of 8 with the default 15%. */
static void test_headroom_shrinks_for_whole_machine_requests(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8); /* reserve floor(0.15 * 8) = 1 */
	fx_pending(&s, 1, TIER_P1, 8, MIN(0));
	fx_pending(&s, 2, TIER_P2, 7, MIN(0));
	fx_pending(&s, 3, TIER_P2, 6, MIN(0));
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.reserve, 0);
	r = check_job(&s, 2);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.reserve, 1);
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.reserve, 1);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), 0);
	snapshot_release(&s);

	/* One GPU busy: the 7-GPU job would leave no reserve, so it waits. */
	fx_init(&s, 1, 8);
	fx_running(&s, 1, TIER_P1, 0, 1, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P2, 7, MIN(0));
	fx_pending(&s, 3, TIER_P2, 6, MIN(0));
	r = check_job(&s, 2);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_HEADROOM));
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	snapshot_release(&s);
}

static void test_unsatisfiable_alone_with_text(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	struct job *j = fx_pending(&s, 1, TIER_P1, 12, MIN(0));
	j->req.same_node = true;
	struct gq_err e = GQ_ERR_INIT;
	snapshot_sort(&s);
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), -1);
	CHECK_STR(e.msg, "needs 12 GPUs on one node, the largest matching node has 8: ask for "
			 "fewer GPUs or drop same-node");
	struct place_result r = check_job(&s, 1);
	CHECK(r.blocks & PLACE_BIT(PLACE_UNSATISFIABLE));
	s.jobs[0].req.same_node = false;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), 0);
	STR_COPY(s.jobs[0].req.gpu_type, "h100");
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), -1);
	CHECK_STR(e.msg, "needs 12 GPUs of type 'h100', the cluster has 0 such GPUs: ask for fewer "
			 "or other GPUs");
	/* One GPU is "1 GPU" (issue 16's "1 GPUs"). */
	s.jobs[0].req.gpus = 1;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), -1);
	CHECK_STR(e.msg, "needs 1 GPU of type 'h100', the cluster has 0 such GPUs: ask for fewer "
			 "or other GPUs");
	s.jobs[0].req.gpus = 12;
	s.jobs[0].req.gpu_type[0] = 0;
	/* Headroom never makes a request impossible: 13 of 16 with 4 held back. */
	set(&s, "headroom.share", "0.25");
	s.jobs[0].req.gpus = 13;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), 0);
	snapshot_release(&s);
}

/* queue.*.maxTime: a time limit over it can never start, whatever the job
 * asks for (even nothing); at it, or without a limit, it can. */
static void test_unsatisfiable_over_the_queues_max_time(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "queue.default.maxTime", "2h");
	struct job *j = fx_pending(&s, 1, TIER_P1, 1, MIN(0));
	j->time_limit = 3 * 3600;
	snapshot_sort(&s);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), -1);
	CHECK_STR(e.msg, "its time limit 3h00m is over queue 'default''s maximum 2h00m "
			 "(queue.default.maxTime): ask for at most 2h00m or use another queue");
	struct place_result r = check_job(&s, 1);
	CHECK(r.blocks & PLACE_BIT(PLACE_UNSATISFIABLE));
	s.jobs[0].req.gpus = 0;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), -1);
	s.jobs[0].time_limit = 2 * 3600;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), 0);
	s.jobs[0].req.gpus = 1;
	s.jobs[0].time_limit = 0;
	CHECK_INT(place_satisfiable(&s, &s.jobs[0], &e), 0);
	snapshot_release(&s);
}

/* More than 64 GPU classes: the index steps aside and a pass over the
 * nodes makes the same choices. */
static void test_many_gpu_classes_same_choices(void)
{
	struct snapshot s;
	fx_init(&s, 0, 8);
	set(&s, "headroom.share", "0");
	for (int i = 0; i < 70; i++) {
		struct node *n = snapshot_add_node(&s);
		snprintf(n->name, sizeof(n->name), "n%d", i);
		snprintf(n->gpu_model, sizeof(n->gpu_model), "m%d", i);
		n->ngpus = 4;
	}
	for (int i = 0; i < 70; i++)
		if (i != 40 && i != 41 && i != 42)
			fx_running(&s, 100 + i, TIER_P1, i, 4, MIN(-10), 3600);
	fx_running(&s, 200, TIER_P1, 41, 2, MIN(-10), 3600); /* n41: 2 free */
	fx_running(&s, 201, TIER_P1, 42, 1, MIN(-10), 3600); /* n42: 3 free; n40: 4 */
	fx_pending(&s, 1, TIER_P1, 2, MIN(0));
	fx_pending(&s, 2, TIER_P1, 8, MIN(0));
	struct job *j = fx_pending(&s, 3, TIER_P1, 1, MIN(0));
	STR_COPY(j->req.gpu_type, "m42");
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.alloc[0].node, 41); /* the tightest that fits */
	r = check_job(&s, 2);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 3); /* 4 + 3 + 1, fullest first */
	CHECK_INT(r.alloc[0].node, 40);
	CHECK_INT(r.alloc[1].node, 42);
	CHECK_INT(r.alloc[2].node, 41);
	CHECK_INT(r.alloc[2].mask, 0x4);
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.alloc[0].node, 42);
	CHECK_INT(r.alloc[0].mask, 0x2);
	/* One class: the index answers, the same. */
	for (size_t i = 0; i < s.nnodes; i++)
		STR_COPY(s.nodes[i].gpu_model, "a100");
	r = check_job(&s, 1);
	CHECK_INT(r.alloc[0].node, 41);
	r = check_job(&s, 2);
	CHECK_INT(r.nalloc, 3);
	CHECK_INT(r.alloc[0].node, 40);
	CHECK_INT(r.alloc[1].node, 42);
	CHECK_INT(r.alloc[2].node, 41);
	CHECK_INT(r.alloc[2].mask, 0x4);
	snapshot_release(&s);
}

/* CPUs and memory are counted per node: a CPU-only job gets the tightest
 * node that has them, a GPU job only nodes that have them, and a request
 * no node could ever meet is unsatisfiable with its numbers. */
static void test_cpus_and_memory_per_node(void)
{
	struct snapshot s;
	fx_init(&s, 2, 8);
	set(&s, "headroom.share", "0");
	s.nodes[0].cpus = 8, s.nodes[0].mem_mb = 32768;
	s.nodes[1].cpus = 4, s.nodes[1].mem_mb = 65536;
	struct job *a = fx_running(&s, 1, TIER_P1, 0, 1, MIN(-10), 3600);
	a->req.cpus = 6; /* node0: 2 CPUs left */
	struct job *c = fx_pending(&s, 2, TIER_P1, 0, MIN(0));
	c->req.cpus = 2; /* fits node0 (2 left) and node1 (4): the tighter */
	struct place_result r = check_job(&s, 2);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 1);
	CHECK_INT(r.alloc[0].node, 0);
	CHECK_INT(r.alloc[0].mask, 0);
	c->req.cpus = 3;
	r = check_job(&s, 2);
	CHECK_INT(r.alloc[0].node, 1);
	c->req.cpus = 5; /* 2 and 4 free: short of CPUs, not unsatisfiable */
	r = check_job(&s, 2);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_RESOURCES));
	CHECK(r.cpu_short && !r.mem_short);
	/* a GPU job with memory: only node1 has 40G */
	struct job *g = fx_pending(&s, 3, TIER_P1, 2, MIN(0));
	g->req.mem_mb = 40960;
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.alloc[0].node, 1);
	g->req.cpus = 5; /* node1 has 4 CPUs: the GPUs are free, the CPUs never on one node */
	r = check_job(&s, 3);
	CHECK_INT(r.blocks, PLACE_BIT(PLACE_UNSATISFIABLE) | PLACE_BIT(PLACE_RESOURCES));
	struct gq_err e = GQ_ERR_INIT;
	g->req.mem_mb = 0;
	g->req.cpus = 9;
	CHECK_INT(place_satisfiable(&s, g, &e), -1);
	CHECK_STR(e.msg,
		  "needs 9 CPUs on a node, the largest matching node has 8: ask for fewer CPUs");
	g->req.cpus = 0;
	g->req.mem_mb = 131072;
	CHECK_INT(place_satisfiable(&s, g, &e), -1);
	CHECK_STR(e.msg, "needs 128G of memory on a node, the largest matching node has 64G: ask "
			 "for less memory");
	/* taken and given back */
	snapshot_sort(&s);
	struct place_map m;
	place_map_init(&m, &s);
	CHECK_INT(m.cpus_free[0], 2);
	struct job_res q = {.cpus = 2, .mem_mb = 1024};
	struct job_alloc al = {.node = 0, .mask = 0};
	place_take(&m, 0, &q, 1, &al);
	CHECK_INT(m.cpus_free[0], 0);
	CHECK_INT(m.mem_free[0], 32768 - 1024);
	place_give(&m, 0, &q, 1, &al);
	CHECK_INT(m.cpus_free[0], 2);
	CHECK_INT(m.mem_free[0], 32768);
	place_map_release(&m);
	snapshot_release(&s);
}

/* Nodes that do not say their CPUs or memory never run short of them. */
static void test_unsized_nodes_never_short(void)
{
	struct snapshot s;
	fx_init(&s, 1, 8);
	set(&s, "headroom.share", "0");
	s.nodes[0].cpus = 0, s.nodes[0].mem_mb = 0;
	struct job *c = fx_pending(&s, 1, TIER_P1, 0, MIN(0));
	c->req.cpus = 500;
	c->req.mem_mb = 1 << 30;
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, 1);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(place_satisfiable(&s, c, &e), 0);
	snapshot_release(&s);
}

/* A job spans as many nodes as it needs, up to GQ_MAX_SPAN: 1,024 GPUs on
 * 128 of 2,000 nodes of 8, through the index and through the pass over
 * the nodes (CPUs asked of sized nodes); one GPU past 4,096 nodes of 1
 * is unsatisfiable, with the bound in its text. */
static void test_wide_jobs_span_up_to_the_bound(void)
{
	struct snapshot s;
	fx_init(&s, 2000, 8);
	set(&s, "headroom.share", "0");
	fx_running(&s, 1, TIER_P1, 0, 8, MIN(-10), 3600);
	fx_pending(&s, 2, TIER_P1, 1024, MIN(0));
	for (int pass = 0; pass < 2; pass++) {
		struct place_result r = check_job(&s, 2);
		CHECK_INT(r.blocks, 0);
		if (CHECK_INT(r.nalloc, 128)) {
			CHECK_INT(r.alloc[0].node, 1); /* node 0 is taken */
			CHECK_INT(r.alloc[127].node, 128);
			CHECK_INT(r.alloc[127].mask, 0xff);
		}
		/* the second pass: sized nodes and a CPU request */
		for (size_t i = 0; i < s.nnodes; i++)
			s.nodes[i].cpus = 96;
		snapshot_find(&s, 2)->req.cpus = 4;
	}
	snapshot_release(&s);

	fx_init(&s, GQ_MAX_SPAN + 10, 1);
	set(&s, "headroom.share", "0");
	fx_pending(&s, 1, TIER_P1, GQ_MAX_SPAN, MIN(0));
	fx_pending(&s, 2, TIER_P1, GQ_MAX_SPAN + 1, MIN(0));
	struct place_result r = check_job(&s, 1);
	CHECK_INT(r.blocks, 0);
	CHECK_INT(r.nalloc, GQ_MAX_SPAN);
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(place_satisfiable(&s, snapshot_find(&s, 2), &e), -1);
	CHECK_STR(e.msg, "needs 4097 GPUs, at most 4096 fit on 4096 nodes: ask for fewer GPUs");
	r = check_job(&s, 2);
	CHECK(r.blocks & PLACE_BIT(PLACE_UNSATISFIABLE));
	snapshot_release(&s);
}

void suite_place(void)
{
	RUN(test_wide_jobs_span_up_to_the_bound);
	RUN(test_map_counts_held_gpus_and_down_nodes);
	RUN(test_best_fit_picks_tightest_node);
	RUN(test_spread_takes_fullest_nodes_first);
	RUN(test_resources_alone);
	RUN(test_mismatch_alone_type);
	RUN(test_mismatch_alone_same_node);
	RUN(test_window_alone);
	RUN(test_queue_quota_alone_and_borrowing);
	RUN(test_dept_quota_alone);
	RUN(test_dept_quota_spent_blocks_nothing_by_default);
	RUN(test_headroom_alone_p0_exempt);
	RUN(test_headroom_shrinks_for_whole_machine_requests);
	RUN(test_unsatisfiable_alone_with_text);
	RUN(test_unsatisfiable_over_the_queues_max_time);
	RUN(test_many_gpu_classes_same_choices);
	RUN(test_cpus_and_memory_per_node);
	RUN(test_unsized_nodes_never_short);
}
