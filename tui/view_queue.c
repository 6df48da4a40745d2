/*
 * view_queue.c - the Queue view: pending jobs in scheduling order with
 * position, weight, time waited, predicted start and the primary wait
 * reason, tiers coloured. The numbers are the model's (the core's); this
 * file only lays them out.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SORT_ORDER, SORT_ID, SORT_USER, SORT_WAITED, SORT_ETA, SORT_GPUS };

static void q_refresh(struct view *v, const struct tui_state *st)
{
	struct rowset *rs = v->priv;
	const struct model *m = st->m;
	rs->n = 0;
	for (size_t i = 0; i < m->nqueue; i++) {
		const struct qrow *q = &m->queue[i];
		const struct job *j = &m->snap.jobs[q->job];
		if (q->folded)
			continue;
		if (v->filter[0]) {
			char text[256];
			snprintf(text, sizeof(text), "%lld %s %s %s %s %s", (long long)j->id,
				 j->user, j->queue, tier_name(job_tier(j)), q->reason, j->name);
			if (!text_match(text, v->filter))
				continue;
		}
		struct row *r = rowset_add(rs, i, j->id);
		int64_t qt = job_waiting_since(j);
		switch (v->sort) {
		case SORT_ID:
			r->key = j->id;
			break;
		case SORT_USER:
			STR_COPY(r->skey, j->user);
			r->key = q->pos;
			break;
		case SORT_WAITED:
			r->key = qt; /* longest wait first */
			break;
		case SORT_ETA:
			r->key = q->eta ? q->eta : INT64_MAX;
			break;
		case SORT_GPUS:
			r->key = -(int64_t)j->req.gpus;
			break;
		default:
			r->key = q->pos;
			break;
		}
	}
	rowset_sort(rs);
	rowset_done(v, rs);
}

#define Q_TITLES "#:-4|ID:-7|USER:10|QUEUE:8|TIER:4|GPU:-3|WEIGHT:-7|WAITED:-7|ETA:-7|REASON:0"
/* From this width on the job's name follows the reason. */
#define Q_WIDE 100
#define Q_REASON_WIDE 20
#define Q_TITLES_WIDE                                                                              \
	"#:-4|ID:-7|USER:10|QUEUE:8|TIER:4|GPU:-3|WEIGHT:-7|WAITED:-7|ETA:-7|REASON:20|NAME:0"

static void q_row(const struct tui_state *st, const struct row *r, struct grid *g, int x, int y,
		  int w)
{
	const struct model *m = st->m;
	const struct qrow *q = &m->queue[r->idx];
	const struct job *j = &m->snap.jobs[q->job];
	int64_t now = m->snap.now;
	char buf[64];
	int c = x;
	snprintf(buf, sizeof(buf), "%d", q->pos);
	grid_put_right(g, c, y, 4, GC_DIM, buf);
	c += 5;
	c = list_job_cells(g, c, y, j, j->req.gpus, q->label[0] ? q->label : NULL);
	if (m->snap.order == ORDER_BACKEND) /* Slurm's priority orders the queue */
		snprintf(buf, sizeof(buf), "%lld", (long long)j->ext_prio);
	else
		snprintf(buf, sizeof(buf), "%.1f", q->weight);
	grid_put_right(g, c, y, 7, 0, buf);
	c += 8;
	int64_t qt = job_waiting_since(j);
	grid_put_right(g, c, y, 7, 0, age_text(now, qt, buf, sizeof(buf)));
	c += 8;
	if (q->never || !q->eta)
		snprintf(buf, sizeof(buf), "-");
	else if (q->eta > now)
		dur_format(q->eta - now, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "now");
	grid_put_right(g, c, y, 7, 0, buf);
	c += 8;
	uint16_t ra = !strcmp(q->reason, "held")	    ? GC_WARN
		      : !strcmp(q->reason, "unsatisfiable") ? GC_BAD
							    : GC_DEFAULT;
	if (w < Q_WIDE) {
		grid_put(g, c, y, x + w - c, ra, q->reason);
	} else {
		grid_put(g, c, y, Q_REASON_WIDE, ra, q->reason);
		c += Q_REASON_WIDE + 1;
		/* A folded array's label whole, which the ID column may cut. */
		char name[ARRAY_LABEL_MAX + sizeof(j->name) + 1];
		snprintf(name, sizeof(name), "%s%s%s", q->label, q->label[0] ? " " : "", j->name);
		grid_put(g, c, y, x + w - c, 0, name);
	}
}

static void q_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	list_draw(v, v->priv, g, x, y, w, h, w < Q_WIDE ? Q_TITLES : Q_TITLES_WIDE, q_row, st,
		  "no job is pending");
}

static unsigned q_key(struct view *v, struct tui_state *st, enum action a)
{
	return list_job_key(v, st, a, v->sel_id);
}

const struct view_ops view_queue_ops = {
    .name = "Queue",
    .sorts = "order|id|user|waited|eta|gpus",
    .open = list_open,
    .refresh = q_refresh,
    .draw = q_draw,
    .key = q_key,
    .click = list_click,
    .close = list_close,
};
