/*
 * top.c - headless screen tests of gq top: a snapshot built here goes
 * through the model (and so the core) into the views, which draw into a
 * grid whose rows are compared with exact text. No terminal, no server.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "tui/tui.h"

#define NOW 1800000000 /* 2027-01-15 08:00:00 UTC */

static char row[512];

static const char *text(const struct grid *g, int y)
{
	return grid_row_text(g, y, row, sizeof(row));
}

static struct job *add_job(struct snapshot *s, int64_t id, const char *user, const char *queue,
			   enum tier t, enum job_state st, int gpus, int64_t queued)
{
	struct job *j = snapshot_add_job(s);
	job_init(j);
	j->id = id;
	snprintf(j->name, sizeof(j->name), "job-%lld", (long long)id);
	STR_COPY(j->user, user);
	STR_COPY(j->queue, queue);
	j->tier = t;
	j->state = st;
	j->req.gpus = gpus;
	j->submit_time = j->queued_time = queued;
	return j;
}

/* Two nodes of 4 GPUs; job 1 runs on node a's four; 2, 3, 4 wait; 5 ended. */
static void build(struct model *m)
{
	struct snapshot s;
	snapshot_init(&s);
	s.now = NOW;
	for (int n = 0; n < 2; n++) {
		struct node *nd = snapshot_add_node(&s);
		snprintf(nd->name, sizeof(nd->name), "node-%c", 'a' + n);
		STR_COPY(nd->gpu_model, "a100");
		nd->gpu_mem_mb = 81920;
		nd->ngpus = 4;
		nd->up = true;
	}
	struct job *j = add_job(&s, 1, "alice", "train", TIER_P1, JOB_RUNNING, 4, NOW - 7200);
	j->start_time = NOW - 3600;
	j->time_limit = 4 * 3600;
	j->last_checkpoint = NOW - 600;
	j->restarts = 1;
	j->nalloc = 1;
	j->alloc = xcalloc(1, sizeof(*j->alloc));
	j->alloc[0].node = 0;
	j->alloc[0].mask = 0xf;
	/* An estimate: a job of unknown length is not backfilled (predict.h). */
	add_job(&s, 3, "carol", "exp", TIER_P2, JOB_PENDING, 2, NOW - 5 * 3600)->estimate = 3600;
	add_job(&s, 2, "bob", "prod", TIER_P0, JOB_PENDING, 8, NOW - 1800);
	j = add_job(&s, 4, "dave", "train", TIER_P1, JOB_PENDING, 1, NOW - 60);
	j->held = true;
	STR_COPY(j->held_by, "dave");
	j = add_job(&s, 5, "erin", "train", TIER_P1, JOB_COMPLETED, 1, NOW - 4000);
	j->start_time = NOW - 3000;
	j->end_time = NOW - 2000;
	j->exit_status = 0;
	struct event ev[2] = {
	    {.seq = 7,
	     .time = NOW - 3600,
	     .job = 1,
	     .kind = "state",
	     .from = JOB_PENDING,
	     .to = JOB_RUNNING,
	     .reason = "started",
	     .actor = "scheduler"},
	    {.seq = 8,
	     .time = NOW - 2000,
	     .job = 5,
	     .kind = "state",
	     .from = JOB_RUNNING,
	     .to = JOB_COMPLETED,
	     .reason = "exit 0",
	     .actor = "scheduler"},
	};
	model_build(m, &s, NULL, ev, 2);
	snapshot_release(&s);
}

static void model_counts_tiers_pools_and_gpus(void)
{
	struct model m;
	build(&m);
	CHECK_INT(m.nqueue, 3);
	CHECK_INT(m.nrunning, 1);
	CHECK_INT(m.nfinished, 1);
	CHECK_INT(m.pending_by_tier[TIER_P0], 1);
	CHECK_INT(m.pending_by_tier[TIER_P1], 1);
	CHECK_INT(m.pending_by_tier[TIER_P2], 1);
	CHECK_INT(m.npools, 1);
	CHECK_STR(m.pools[0].name, "a100");
	CHECK_INT(m.pools[0].busy, 4);
	CHECK_INT(m.pools[0].total, 8);
	CHECK(model_gpu_job(&m, 0, 3) && model_gpu_job(&m, 0, 3)->id == 1);
	CHECK(model_gpu_job(&m, 1, 0) == NULL);
	CHECK(model_gpu_job(&m, 2, 0) == NULL);
	model_release(&m);
}

static void model_queue_is_in_scheduling_order_with_weights(void)
{
	struct model m;
	build(&m);
	CHECK_INT(m.snap.jobs[m.queue[0].job].id, 2);
	CHECK_INT(m.snap.jobs[m.queue[1].job].id, 4);
	CHECK_INT(m.snap.jobs[m.queue[2].job].id, 3);
	CHECK_DBL(m.queue[0].weight, 110.0, 1e-9); /* 100 x (1 + 0.1) after 30 min */
	CHECK_DBL(m.queue[2].weight, 7.5, 1e-9);   /* 5 x (1 + 0.5): capped */
	CHECK_INT(m.queue[2].pos, 3);
	model_release(&m);
}

static void model_history_reconstructs_the_last_hour(void)
{
	struct model m;
	build(&m);
	/* Now: 3 pending, 4 of 8 GPUs busy. An hour ago (first point): job 1
	 * had just started; 3 and 5 were pending, 2 and 4 not yet submitted. */
	CHECK_DBL(m.spark_pending[MODEL_SPARK - 1], 3, 0);
	CHECK_DBL(m.spark_util[MODEL_SPARK - 1], 0.5, 1e-9);
	CHECK_DBL(m.spark_pending[0], 2, 0);
	model_release(&m);
}

static void header_shows_pools_tiers_and_clock(void)
{
	struct model m;
	struct grid g;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 4);
	struct tui_state st = {.m = &m, .log_tail = "", .why = ""};
	CHECK_INT(header_draw(&st, "gq serve at unix:/t/sock", &g, 80, 4), 3);
	CHECK_STR(
	    text(&g, 0),
	    "gq top  gq serve at unix:/t/sock  policy default                        08:00:00");
	CHECK_STR(text(&g, 1), "a100  4/8 #### ....");
	CHECK_STR(text(&g, 2), "pending P0 1 P1 1 P2 1  queue ================^^ "
			       "util ------------------ 50% 1h");
	grid_release(&g);
	model_release(&m);
}

/* 12 nodes of 8 GPUs do not fit as GPU cells in 80 columns: a cell per
 * node, as high as its share of busy GPUs; 200 nodes: one bar. */
static void header_falls_back_to_nodes_then_a_bar(void)
{
	struct snapshot s;
	struct model m;
	struct grid g;
	int sizes[2] = {12, 200};
	const char *want[2] = {"slot  14/96 #+:.........", "slot  14/1600 ...................."};
	for (int k = 0; k < 2; k++) {
		snapshot_init(&s);
		s.now = NOW;
		for (int n = 0; n < sizes[k]; n++) {
			struct node *nd = snapshot_add_node(&s);
			snprintf(nd->name, sizeof(nd->name), "n%d", n);
			nd->ngpus = 8;
			nd->up = true;
		}
		/* node 0 full, node 1 half (4 of 8: '+'), node 2 a quarter. */
		int busy[3] = {8, 4, 2};
		for (int n = 0; n < 3; n++) {
			struct job *j =
			    add_job(&s, n + 1, "u", "q", TIER_P1, JOB_RUNNING, busy[n], NOW);
			j->start_time = NOW;
			j->nalloc = 1;
			j->alloc = xcalloc(1, sizeof(*j->alloc));
			j->alloc[0].node = n;
			j->alloc[0].mask = ((uint64_t)1 << busy[n]) - 1;
		}
		model_build(&m, &s, NULL, NULL, 0);
		snapshot_release(&s);
		grid_init(&g, true);
		grid_resize(&g, 80, 3);
		struct tui_state st = {.m = &m};
		header_draw(&st, "x", &g, 80, 3);
		CHECK_STR(text(&g, 1), want[k]);
		grid_release(&g);
		model_release(&m);
	}
}

static void draw_view(const struct view_ops *ops, struct view *v, struct model *m, struct grid *g)
{
	struct tui_state st = {.m = m, .log_tail = "", .why = ""};
	memset(v, 0, sizeof(*v));
	v->ops = ops;
	ops->open(v);
	ops->refresh(v, &st);
	grid_clear(g);
	ops->draw(v, &st, g, 0, 0, g->w, g->h);
}

static void queue_view_lists_pending_jobs_in_order(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 6);
	draw_view(&view_queue_ops, &v, &m, &g);
	CHECK_STR(text(&g, 0), "   #      ID USER       QUEUE    TIER GPU  WEIGHT  WAITED     ETA "
			       "REASON     1/3");
	/* Job 1 (4h limit, 1h run) frees its GPUs in 3h; the P2 job fits now. */
	CHECK_STR(text(&g, 1),
		  "   1       2 bob        prod     P0     8   110.0     30m   3h00m resources");
	CHECK_STR(text(&g, 2),
		  "   2       4 dave       train    P1     1    30.0      1m       - held");
	CHECK_STR(text(&g, 3),
		  "   3       3 carol      exp      P2     2     7.5   5h00m     now starting");
	CHECK_INT(grid_at(&g, 0, 1)->attr & GA_REVERSE, GA_REVERSE); /* selected */
	CHECK_INT(grid_at(&g, 0, 2)->attr & GA_REVERSE, 0);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void queue_view_filters_and_sorts(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 6);
	struct tui_state st = {.m = &m, .log_tail = "", .why = ""};
	draw_view(&view_queue_ops, &v, &m, &g);
	STR_COPY(v.filter, "TRAIN");
	v.ops->refresh(&v, &st);
	CHECK_INT(v.rows, 1);
	v.filter[0] = 0;
	v.sort = 3; /* waited: longest first */
	v.ops->refresh(&v, &st);
	grid_clear(&g);
	v.ops->draw(&v, &st, &g, 0, 0, 80, 6);
	CHECK_STR(text(&g, 1),
		  "   3       3 carol      exp      P2     2     7.5   5h00m     now starting");
	char name[32];
	CHECK_STR(view_sort_name(&v, name, sizeof(name)), "waited");
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void selection_follows_the_job_across_refreshes(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 6);
	struct tui_state st = {.m = &m, .log_tail = "", .why = ""};
	draw_view(&view_queue_ops, &v, &m, &g);
	CHECK_INT(v.ops->key(&v, &st, ACT_DOWN), R_REDRAW);
	CHECK_INT(v.sel_id, 4);
	CHECK_INT(v.ops->key(&v, &st, ACT_END), R_REDRAW);
	CHECK_INT(v.sel_id, 3);
	CHECK_INT(v.ops->key(&v, &st, ACT_DOWN), R_NONE); /* already last */
	v.sort = 1;					  /* by id: 2, 3, 4 */
	v.ops->refresh(&v, &st);
	CHECK_INT(v.sel, 1);
	CHECK_INT(v.ops->key(&v, &st, ACT_OPEN), R_OPEN_JOB);
	CHECK_INT(st.req_job, 3);
	CHECK_INT(v.ops->key(&v, &st, ACT_CANCEL), R_REQUEST);
	CHECK_INT(st.req_act, ACT_CANCEL);
	CHECK_INT(v.ops->key(&v, &st, ACT_QUIT), R_UNHANDLED);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void running_view_shows_elapsed_limit_checkpoint(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 3);
	draw_view(&view_running_ops, &v, &m, &g);
	CHECK_STR(text(&g, 1),
		  "      1 alice      train    P1     4   1h00m   4h00m ##....     10m   1 job-1");
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void nodes_view_shows_each_gpu_and_its_job(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 10);
	draw_view(&view_nodes_ops, &v, &m, &g);
	CHECK_STR(text(&g, 1),
		  "node-a         0 a100        80G busy        1 alice      P1     1h00m job-1");
	CHECK_STR(text(&g, 5), "node-b         0 a100        80G free");
	CHECK_INT(v.rows, 8);
	struct tui_state st = {.m = &m};
	CHECK_INT(v.ops->key(&v, &st, ACT_OPEN), R_OPEN_JOB);
	CHECK_INT(st.req_job, 1);
	v.sel = 4; /* a free GPU: nothing to open */
	CHECK_INT(v.ops->key(&v, &st, ACT_OPEN), R_NONE);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void events_view_is_newest_first(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 4);
	draw_view(&view_events_ops, &v, &m, &g);
	CHECK_STR(text(&g, 1),
		  "     8 07:26:40       5 state      running->completed  scheduler  exit 0");
	CHECK_STR(text(&g, 2),
		  "     7 07:00:00       1 state      pending->running    scheduler  started");
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void job_view_shows_state_history_and_log(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 20);
	struct tui_state st = {.m = &m, .job = 1, .log_tail = "epoch 1\nepoch 2\n", .why = ""};
	memset(&v, 0, sizeof(v));
	v.ops = &view_job_ops;
	v.ops->open(&v);
	v.ops->draw(&v, &st, &g, 0, 0, 80, 20);
	CHECK_STR(text(&g, 0), "Job 1  job-1  (alice, queue train, P1)");
	CHECK_STR(text(&g, 1), "State running  for 1h00m on 4 GPUs  restarts 1");
	CHECK_STR(text(&g, 5), "  07:00:00  pending -> running  started  (scheduler)");
	CHECK_STR(text(&g, 8), "  restarts 1, last checkpoint 10m ago");
	CHECK_STR(text(&g, 11), "  epoch 1");
	CHECK_STR(text(&g, 12), "  epoch 2");
	CHECK_INT(v.ops->key(&v, &st, ACT_BACK), R_BACK);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void job_view_of_a_pending_job_wraps_its_explanation(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 40, 12);
	struct tui_state st = {.m = &m,
			       .job = 2,
			       .log_tail = "",
			       .why = "Pending: resources. Needs 8 GPUs; 4 free.\nAsk for 4 GPUs."};
	memset(&v, 0, sizeof(v));
	v.ops = &view_job_ops;
	v.ops->open(&v);
	v.ops->draw(&v, &st, &g, 0, 0, 40, 12);
	CHECK_STR(text(&g, 1), "State pending (resources)  position 1 of");
	CHECK_STR(text(&g, 2), "Start in 3h00m");
	CHECK_STR(text(&g, 5), "Why");
	CHECK_STR(text(&g, 6), "  Pending: resources. Needs 8 GPUs; 4");
	CHECK_STR(text(&g, 7), "  free.");
	CHECK_STR(text(&g, 8), "  Ask for 4 GPUs.");
	CHECK_INT(v.rows > 12, 1);
	CHECK_INT(v.ops->key(&v, &st, ACT_END), R_REDRAW); /* scrolls */
	CHECK_INT(v.ops->key(&v, &st, ACT_CANCEL), R_REQUEST);
	CHECK_INT(st.req_job, 2);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void help_lists_every_binding(void)
{
	struct model m;
	struct grid g;
	struct view v;
	build(&m);
	grid_init(&g, true);
	grid_resize(&g, 80, 60);
	draw_view(&view_help_ops, &v, &m, &g);
	int found = 0;
	for (size_t i = 0; i < key_binding_count; i++)
		for (int y = 0; y < g.h; y++)
			if (strstr(text(&g, y), key_bindings[i].help)) {
				found++;
				break;
			}
	CHECK_INT(found, (int64_t)key_binding_count);
	v.ops->close(&v);
	grid_release(&g);
	model_release(&m);
}

static void keys_map_to_their_actions(void)
{
	CHECK_INT(keys_action('j'), ACT_DOWN);
	CHECK_INT(keys_action(K_DOWN), ACT_DOWN);
	CHECK_INT(keys_action(K_PGDN), ACT_PGDN);
	CHECK_INT(keys_action('3'), ACT_VIEW_NODES);
	CHECK_INT(keys_action('q'), ACT_QUIT);
	CHECK_INT(keys_action('Z'), ACT_NONE);
	CHECK_INT(view_find("nodes"), VIEW_NODES);
	CHECK_INT(view_find("help"), VIEW_HELP);
	CHECK_INT(view_find("Nodes"), -1);
	CHECK(view_table[VIEW_EVENTS] == &view_events_ops);
	/* No key is bound twice. */
	for (size_t i = 0; i < key_binding_count; i++)
		for (int k = 0; k < KEYS_PER_ACTION && key_bindings[i].keys[k]; k++)
			CHECK_INT(keys_action(key_bindings[i].keys[k]), key_bindings[i].act);
}

static void tiny_grids_draw_nothing_out_of_bounds(void)
{
	struct model m;
	struct grid g;
	build(&m);
	grid_init(&g, false);
	const struct view_ops *all[] = {&view_queue_ops,  &view_running_ops, &view_nodes_ops,
					&view_events_ops, &view_policy_ops,  &view_job_ops,
					&view_help_ops};
	for (int w = 0; w < 12; w += 3)
		for (int h = 0; h < 4; h++) {
			grid_resize(&g, w, h);
			for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
				struct view v;
				draw_view(all[i], &v, &m, &g);
				v.ops->close(&v);
			}
			struct tui_state st = {.m = &m};
			header_draw(&st, "x", &g, w, h);
		}
	CHECK(true);
	grid_release(&g);
	model_release(&m);
}

void suite_top(void)
{
	RUN(model_counts_tiers_pools_and_gpus);
	RUN(model_queue_is_in_scheduling_order_with_weights);
	RUN(model_history_reconstructs_the_last_hour);
	RUN(header_shows_pools_tiers_and_clock);
	RUN(header_falls_back_to_nodes_then_a_bar);
	RUN(queue_view_lists_pending_jobs_in_order);
	RUN(queue_view_filters_and_sorts);
	RUN(selection_follows_the_job_across_refreshes);
	RUN(running_view_shows_elapsed_limit_checkpoint);
	RUN(nodes_view_shows_each_gpu_and_its_job);
	RUN(events_view_is_newest_first);
	RUN(job_view_shows_state_history_and_log);
	RUN(job_view_of_a_pending_job_wraps_its_explanation);
	RUN(help_lists_every_binding);
	RUN(keys_map_to_their_actions);
	RUN(tiny_grids_draw_nothing_out_of_bounds);
}
