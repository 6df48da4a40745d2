/*
 * view_running.c - the Running view: jobs holding GPUs, with elapsed time
 * against the time limit, the last checkpoint and the restart count.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SORT_START, SORT_ID, SORT_USER, SORT_GPUS, SORT_LEFT };

static void r_refresh(struct view *v, const struct tui_state *st)
{
	struct rowset *rs = v->priv;
	const struct model *m = st->m;
	rs->n = 0;
	for (size_t i = 0; i < m->nrunning; i++) {
		const struct job *j = &m->snap.jobs[m->running[i]];
		if (v->filter[0]) {
			char text[256];
			snprintf(text, sizeof(text), "%lld %s %s %s %s %s", (long long)j->id,
				 j->user, j->queue, tier_name(job_tier(j)),
				 job_state_name(j->state), j->name);
			if (!text_match(text, v->filter))
				continue;
		}
		struct row *r = rowset_add(rs, m->running[i], j->id);
		switch (v->sort) {
		case SORT_ID:
			r->key = j->id;
			break;
		case SORT_USER:
			STR_COPY(r->skey, j->user);
			r->key = (int64_t)i;
			break;
		case SORT_GPUS:
			r->key = -(int64_t)job_gpus_held(j);
			break;
		case SORT_LEFT:
			r->key = j->time_limit ? j->start_time + j->time_limit : INT64_MAX;
			break;
		default:
			r->key = (int64_t)i;
			break;
		}
	}
	rowset_sort(rs);
	rowset_done(v, rs);
}

#define R_TITLES                                                                                   \
	"ID:-7|USER:10|QUEUE:8|TIER:4|GPU:-3|ELAPSED:-7|LIMIT:-7|USED:6|CKPT:-7|RST:-3|NAME:0"

static void r_row(const struct tui_state *st, const struct row *r, struct grid *g, int x, int y,
		  int w)
{
	const struct model *m = st->m;
	const struct job *j = &m->snap.jobs[r->idx];
	int64_t now = m->snap.now;
	char buf[96];
	int c = x;
	c = list_job_cells(g, c, y, j, job_gpus_held(j), NULL);
	grid_put_right(g, c, y, 7, 0, age_text(now, j->start_time, buf, sizeof(buf)));
	c += 8;
	if (j->time_limit)
		dur_format(j->time_limit, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "-");
	grid_put_right(g, c, y, 7, 0, buf);
	c += 8;
	if (j->time_limit && j->start_time) {
		double f = (double)(now - j->start_time) / (double)j->time_limit;
		grid_bar(g, c, y, 6, f, f > 0.9 ? GC_WARN : GC_GOOD, GC_DIM);
	}
	c += 7;
	grid_put_right(g, c, y, 7, 0, age_text(now, j->last_checkpoint, buf, sizeof(buf)));
	c += 8;
	snprintf(buf, sizeof(buf), "%d", j->restarts);
	grid_put_right(g, c, y, 3, j->restarts ? GC_WARN : 0, buf);
	c += 4;
	if (j->state != JOB_RUNNING) {
		snprintf(buf, sizeof(buf), "[%s] %s", job_state_name(j->state), j->name);
		grid_put(g, c, y, x + w - c, GC_WARN, buf);
	} else {
		grid_put(g, c, y, x + w - c, 0, j->name);
	}
}

static void r_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	list_draw(v, v->priv, g, x, y, w, h, R_TITLES, r_row, st, "no job is running");
}

static unsigned r_key(struct view *v, struct tui_state *st, enum action a)
{
	return list_job_key(v, st, a, v->sel_id);
}

const struct view_ops view_running_ops = {
    .name = "Running",
    .sorts = "start|id|user|gpus|ends",
    .open = list_open,
    .refresh = r_refresh,
    .draw = r_draw,
    .key = r_key,
    .click = list_click,
    .close = list_close,
};
