/*
 * header.c - the header above every view: which scheduler, the policy
 * revision and the clock; GPUs busy / total per pool with one cell per GPU
 * (coloured by the tier of its job), or one cell per node when the GPUs do
 * not fit, or one bar per pool when the nodes do not either; pending jobs by tier; sparklines of
 * queue length and GPU utilisation over the last hour. Data only from the model.
 */
#include "tui.h"

#include <stdio.h>
#include <string.h>

static bool in_pool(const struct node *nd, const struct pool *p)
{
	return !strcmp(nd->gpu_model[0] ? nd->gpu_model : "slot", p->name);
}

/* How a pool's GPUs are drawn: one cell per GPU (nodes separated by a
 * space), else one cell per node, else one bar for the pool. */
enum pool_mode { POOL_GPUS, POOL_NODES, POOL_BAR };

static enum pool_mode pool_mode(const struct model *m, const struct pool *p, int room, int *width)
{
	int gpus = 0, nodes = 0;
	for (size_t n = 0; n < m->snap.nnodes; n++)
		if (in_pool(&m->snap.nodes[n], p)) {
			gpus += m->snap.nodes[n].ngpus;
			nodes++;
		}
	if (gpus + nodes - 1 <= room) {
		*width = gpus + nodes - 1;
		return POOL_GPUS;
	}
	if (nodes <= room) {
		*width = nodes;
		return POOL_NODES;
	}
	*width = room < 0 ? 0 : room < 20 ? room : 20;
	return POOL_BAR;
}

/* One GPU: a block coloured by the tier of its job, a dot when free, 'x'
 * when its node is down. */
static void gpu_cell(const struct model *m, size_t n, int gi, struct grid *g, int x, int y)
{
	const struct node *nd = &m->snap.nodes[n];
	const struct job *j = model_gpu_job(m, n, gi);
	if (j)
		grid_fill(g, x, y, 1, 1, g->ascii ? '#' : 0x2588,
			  tier_attr(job_tier(j)) & GA_COLOR_MASK);
	else if (!nd->up)
		grid_fill(g, x, y, 1, 1, 'x', GC_BAD);
	else
		grid_fill(g, x, y, 1, 1, g->ascii ? '.' : 0x00b7, GC_DIM);
}

/* One node: a block as high as its share of busy GPUs (ASCII: '.', ':',
 * '+', '#' for none, under half, some more, all). */
static void node_cell(const struct model *m, size_t n, struct grid *g, int x, int y)
{
	static const uint32_t blocks[8] = {0x2581, 0x2582, 0x2583, 0x2584,
					   0x2585, 0x2586, 0x2587, 0x2588};
	const struct node *nd = &m->snap.nodes[n];
	int busy = 0;
	for (int gi = 0; gi < nd->ngpus; gi++)
		busy += model_gpu_job(m, n, gi) != NULL;
	if (!nd->up) {
		grid_fill(g, x, y, 1, 1, 'x', GC_BAD);
		return;
	}
	if (!busy) {
		grid_fill(g, x, y, 1, 1, g->ascii ? '.' : 0x00b7, GC_DIM);
		return;
	}
	uint32_t ch;
	if (g->ascii)
		ch = busy == nd->ngpus ? '#' : busy * 2 < nd->ngpus ? ':' : '+';
	else
		ch = blocks[(busy * 8 + nd->ngpus - 1) / nd->ngpus - 1];
	grid_fill(g, x, y, 1, 1, ch, GC_GOOD);
}

static void pool_draw(const struct model *m, const struct pool *p, enum pool_mode mode, int width,
		      struct grid *g, int x, int y)
{
	if (mode == POOL_BAR) {
		grid_bar(g, x, y, width, p->total ? (double)p->busy / p->total : 0, GC_GOOD,
			 GC_DIM);
		return;
	}
	for (size_t n = 0; n < m->snap.nnodes; n++) {
		if (!in_pool(&m->snap.nodes[n], p))
			continue;
		if (mode == POOL_NODES) {
			node_cell(m, n, g, x++, y);
			continue;
		}
		for (int gi = 0; gi < m->snap.nodes[n].ngpus; gi++)
			gpu_cell(m, n, gi, g, x++, y);
		x++;
	}
}

int header_draw(const struct tui_state *st, const char *backend, struct grid *g, int w, int h)
{
	const struct model *m = st->m;
	char buf[256], clk[32];
	int y = 0;
	if (h <= 0)
		return 0;

	/* Line 1: what we watch. */
	grid_put(g, 0, y, w, GA_BOLD, "gq top");
	snprintf(buf, sizeof(buf), "%s  policy %.12s", backend ? backend : "",
		 m->snap.policy.revision[0] ? m->snap.policy.revision : "default");
	grid_put(g, 8, y, w - 8 - 10, 0, buf);
	if (m->snap.now)
		grid_put_right(g, 0, y, w, GA_BOLD,
			       zone_clock(&m->zone, m->snap.now, clk, sizeof(clk)));
	y++;

	/* Pools: "slot  3/8 ###.....  a100 12/16 ...". */
	int c = 0;
	for (int p = 0; p < m->npools && y < h; p++) {
		const struct pool *pl = &m->pools[p];
		snprintf(buf, sizeof(buf), "%-5s %d/%d", pl->name, pl->busy, pl->total);
		int lw = (int)strlen(buf) + 1, width;
		enum pool_mode mode = pool_mode(m, pl, w - c - lw, &width);
		if (c > 0 && mode != POOL_GPUS) {
			/* Not beside the previous pool: on a line of its own. */
			if (++y >= h)
				break;
			c = 0;
			mode = pool_mode(m, pl, w - lw, &width);
		}
		grid_put(g, c, y, lw, GA_BOLD, buf);
		c += lw;
		pool_draw(m, pl, mode, width, g, c, y);
		c += width + 2;
	}
	if (m->npools == 0)
		grid_put(g, 0, y, w, GC_DIM,
			 m->snap.now ? "no GPUs known" : "waiting for the first snapshot");
	y++;
	if (y >= h)
		return y;

	if (!m->snap.now)
		return y + 1; /* nothing to count yet; keep the layout */
	/* Pending by tier, then the sparklines. */
	c = grid_put(g, 0, y, w, 0, "pending ");
	for (int t = 0; t < TIER_COUNT; t++) {
		snprintf(buf, sizeof(buf), "%s %d ", tier_name((enum tier)t),
			 m->pending_by_tier[t]);
		c += grid_put(g, c, y, w - c, tier_attr((enum tier)t), buf);
	}
	int sw = (w - c - 20) / 2;
	if (sw > MODEL_SPARK)
		sw = MODEL_SPARK;
	if (sw >= 8) {
		c += grid_put(g, c + 1, y, w - c, GC_DIM, "queue ") + 1;
		grid_spark(g, c, y, sw, m->spark_pending, MODEL_SPARK, 0, GC_P1);
		c += sw;
		c += grid_put(g, c + 1, y, w - c, GC_DIM, "util ") + 1;
		grid_spark(g, c, y, sw, m->spark_util, MODEL_SPARK, 1.0, GC_GOOD);
		c += sw;
		snprintf(buf, sizeof(buf), " %d%% 1h",
			 m->gpus_total ? m->gpus_busy * 100 / m->gpus_total : 0);
		grid_put(g, c, y, w - c, GC_DIM, buf);
	}
	return y + 1;
}
