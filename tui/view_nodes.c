/*
 * view_nodes.c - the Nodes view: every GPU of every node, and the job on
 * it. Enter and the job keys act on the job of the selected GPU.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SORT_NODE, SORT_JOB, SORT_USER };

/* Rows are GPUs: a row's idx is node index * GQ_MAX_NODE_GPUS + gpu, its id
 * that plus one (so that the selection stays on the GPU, not the job). */

static void n_refresh(struct view *v, const struct tui_state *st)
{
	struct rowset *rs = v->priv;
	const struct model *m = st->m;
	rs->n = 0;
	for (size_t n = 0; n < m->snap.nnodes; n++) {
		const struct node *nd = &m->snap.nodes[n];
		for (int gi = 0; gi < nd->ngpus; gi++) {
			const struct job *j = model_gpu_job(m, n, gi);
			if (v->filter[0]) {
				char text[256];
				snprintf(text, sizeof(text), "%s %s %s %lld %s %s", nd->name,
					 nd->gpu_model,
					 j	  ? "busy"
					 : nd->up ? "free"
						  : "down",
					 j ? (long long)j->id : 0LL, j ? j->user : "",
					 j ? j->name : "");
				if (!text_match(text, v->filter))
					continue;
			}
			size_t code = n * GQ_MAX_NODE_GPUS + (size_t)gi;
			struct row *r = rowset_add(rs, code, (int64_t)code + 1);
			switch (v->sort) {
			case SORT_JOB:
				r->key = j ? j->id : INT64_MAX;
				break;
			case SORT_USER:
				STR_COPY(r->skey, j ? j->user : "~");
				break;
			default:
				break;
			}
		}
	}
	rowset_sort(rs);
	rowset_done(v, rs);
}

#define N_TITLES "NODE:12|GPU:-3|MODEL:8|MEM:-6|STATE:5|JOB:-7|USER:10|TIER:4|ELAPSED:-7|NAME:0"

static void n_row(const struct tui_state *st, const struct row *r, struct grid *g, int x, int y,
		  int w)
{
	const struct model *m = st->m;
	size_t n = r->idx / GQ_MAX_NODE_GPUS;
	int gi = (int)(r->idx % GQ_MAX_NODE_GPUS);
	const struct node *nd = &m->snap.nodes[n];
	const struct job *j = model_gpu_job(m, n, gi);
	char buf[64];
	int c = x;
	grid_put(g, c, y, 12, 0, nd->name);
	c += 13;
	snprintf(buf, sizeof(buf), "%d", gi);
	grid_put_right(g, c, y, 3, 0, buf);
	c += 4;
	grid_put(g, c, y, 8, 0, nd->gpu_model[0] ? nd->gpu_model : "slot");
	c += 9;
	if (nd->gpu_mem_mb)
		snprintf(buf, sizeof(buf), "%lldG", (long long)(nd->gpu_mem_mb / 1024));
	else
		snprintf(buf, sizeof(buf), "-");
	grid_put_right(g, c, y, 6, 0, buf);
	c += 7;
	if (j)
		grid_put(g, c, y, 5, GC_GOOD, "busy");
	else
		grid_put(g, c, y, 5, nd->up ? GC_DIM : GC_BAD, nd->up ? "free" : "down");
	c += 6;
	if (!j)
		return;
	snprintf(buf, sizeof(buf), "%lld", (long long)j->id);
	grid_put_right(g, c, y, 7, 0, buf);
	c += 8;
	grid_put(g, c, y, 10, 0, j->user);
	c += 11;
	grid_put(g, c, y, 4, tier_attr(job_tier(j)), tier_name(job_tier(j)));
	c += 5;
	grid_put_right(g, c, y, 7, 0, age_text(m->snap.now, j->start_time, buf, sizeof(buf)));
	c += 8;
	grid_put(g, c, y, x + w - c, 0, j->name);
}

static void n_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	struct rowset *rs = v->priv;
	list_draw(v, rs, g, x, y, w, h, N_TITLES, n_row, st, "no node is known");
}

/* The job on the selected GPU, 0 when it is free. */
static int64_t selected_job(const struct view *v, const struct tui_state *st)
{
	const struct rowset *rs = v->priv;
	if (v->sel < 0 || v->sel >= rs->n)
		return 0;
	size_t code = rs->r[v->sel].idx;
	const struct job *j =
	    model_gpu_job(st->m, code / GQ_MAX_NODE_GPUS, (int)(code % GQ_MAX_NODE_GPUS));
	return j ? j->id : 0;
}

static unsigned n_key(struct view *v, struct tui_state *st, enum action a)
{
	return list_job_key(v, st, a, selected_job(v, st));
}

const struct view_ops view_nodes_ops = {
    .name = "Nodes",
    .sorts = "node|job|user",
    .open = list_open,
    .refresh = n_refresh,
    .draw = n_draw,
    .key = n_key,
    .click = list_click,
    .close = list_close,
};
