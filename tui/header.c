/*
 * header.c - the header above every view: which scheduler, the policy
 * revision and the clock; GPUs busy / total per pool with one cell per GPU
 * (coloured by the tier of its job) or one bar per pool when the GPUs do
 * not fit; pending jobs by tier; sparklines of queue length and GPU
 * utilisation over the last hour. Data only from the model.
 */
#include "tui.h"

#include <stdio.h>
#include <string.h>

/* One cell per GPU of the pool's nodes, nodes separated by a space; false
 * (nothing drawn) when they do not fit in w. */
static bool pool_cells(const struct model *m, const struct pool *p, struct grid *g, int x, int y,
		       int w)
{
	int need = 0;
	for (size_t n = 0; n < m->snap.nnodes; n++) {
		const struct node *nd = &m->snap.nodes[n];
		if (!strcmp(nd->gpu_model[0] ? nd->gpu_model : "slot", p->name))
			need += nd->ngpus + 1;
	}
	if (need - 1 > w)
		return false;
	int c = x;
	for (size_t n = 0; n < m->snap.nnodes; n++) {
		const struct node *nd = &m->snap.nodes[n];
		if (strcmp(nd->gpu_model[0] ? nd->gpu_model : "slot", p->name))
			continue;
		for (int gi = 0; gi < nd->ngpus; gi++) {
			const struct job *j = model_gpu_job(m, n, gi);
			uint32_t ch;
			uint16_t a;
			if (j) {
				ch = g->ascii ? '#' : 0x2588;
				a = tier_attr(job_tier(j)) & GA_COLOR_MASK;
			} else if (!nd->up) {
				ch = 'x';
				a = GC_BAD;
			} else {
				ch = g->ascii ? '.' : 0x00b7;
				a = GC_DIM;
			}
			grid_fill(g, c++, y, 1, 1, ch, a);
		}
		c++;
	}
	return true;
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
			       model_clock(m->snap.now, m->snap.tz_offset, clk, sizeof(clk)));
	y++;

	/* Pools: "slot   3/8  ###.....  a100 12/16 ...". */
	int c = 0;
	for (int p = 0; p < m->npools && y < h; p++) {
		const struct pool *pl = &m->pools[p];
		snprintf(buf, sizeof(buf), "%-5s %d/%d", pl->name, pl->busy, pl->total);
		int lw = (int)strlen(buf) + 1;
		int room = w - c - lw;
		int cells = 0;
		for (size_t n = 0; n < m->snap.nnodes; n++)
			if (!strcmp(m->snap.nodes[n].gpu_model[0] ? m->snap.nodes[n].gpu_model
								  : "slot",
				    pl->name))
				cells += m->snap.nodes[n].ngpus + 1;
		int want = cells - 1 <= room ? cells - 1 : 20;
		if (c > 0 && want > room) {
			y++;
			c = 0;
			if (y >= h)
				break;
			room = w - lw;
		}
		grid_put(g, c, y, lw, GA_BOLD, buf);
		c += lw;
		if (!pool_cells(m, pl, g, c, y, w - c)) {
			int bw = w - c < 20 ? w - c : 20;
			grid_bar(g, c, y, bw, pl->total ? (double)pl->busy / pl->total : 0, GC_GOOD,
				 GC_DIM);
			c += bw + 1;
		} else {
			c += cells;
		}
		c += 1;
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
