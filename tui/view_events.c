/*
 * view_events.c - the Events view: the live event stream, newest first,
 * filterable by any text of an event (job, kind, state, reason, actor).
 * Enter opens the event's job.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SORT_NEWEST, SORT_OLDEST, SORT_JOB };

/* "pending->running" for a transition, "" for other kinds. */
static char *change_text(const struct event *ev, char *out, size_t size)
{
	if (ev->from == ev->to || (unsigned)ev->from >= JOB_STATE_COUNT ||
	    (unsigned)ev->to >= JOB_STATE_COUNT)
		snprintf(out, size, "%s",
			 (unsigned)ev->to < JOB_STATE_COUNT && ev->job ? job_state_name(ev->to)
								       : "");
	else
		snprintf(out, size, "%s->%s", job_state_name(ev->from), job_state_name(ev->to));
	return out;
}

static void e_refresh(struct view *v, const struct tui_state *st)
{
	struct rowset *rs = v->priv;
	const struct model *m = st->m;
	rs->n = 0;
	for (size_t i = 0; i < m->nevents; i++) {
		const struct event *ev = &m->events[i];
		if (v->filter[0]) {
			char text[512], ch[48];
			snprintf(text, sizeof(text), "%lld %s %s %s %s", (long long)ev->job,
				 ev->kind, change_text(ev, ch, sizeof(ch)), ev->reason, ev->actor);
			if (!text_match(text, v->filter))
				continue;
		}
		struct row *r = rowset_add(rs, i, ev->seq);
		switch (v->sort) {
		case SORT_OLDEST:
			r->key = ev->seq;
			break;
		case SORT_JOB:
			r->key = ev->job;
			r->id = -ev->seq; /* newest first within a job; ids stay unique */
			break;
		default:
			r->key = -ev->seq;
			break;
		}
	}
	rowset_sort(rs);
	rowset_done(v, rs);
}

#define E_TITLES "SEQ:-6|TIME:8|JOB:-7|KIND:10|CHANGE:19|ACTOR:10|REASON:0"

static void e_row(const struct tui_state *st, const struct row *r, struct grid *g, int x, int y,
		  int w)
{
	const struct model *m = st->m;
	const struct event *ev = &m->events[r->idx];
	char buf[64];
	int c = x;
	snprintf(buf, sizeof(buf), "%lld", (long long)ev->seq);
	grid_put_right(g, c, y, 6, GC_DIM, buf);
	c += 7;
	grid_put(g, c, y, 8, 0, zone_clock(&m->zone, ev->time, buf, sizeof(buf)));
	c += 9;
	if (ev->job) {
		snprintf(buf, sizeof(buf), "%lld", (long long)ev->job);
		grid_put_right(g, c, y, 7, 0, buf);
	}
	c += 8;
	grid_put(g, c, y, 10, GC_ACCENT, ev->kind);
	c += 11;
	uint16_t a = 0;
	if (ev->to == JOB_FAILED || ev->to == JOB_TIMEOUT)
		a = GC_BAD;
	else if (ev->to == JOB_RUNNING || ev->to == JOB_COMPLETED)
		a = GC_GOOD;
	else if (ev->to == JOB_STOPPING || ev->to == JOB_CANCELLED)
		a = GC_WARN;
	grid_put(g, c, y, 19, a, change_text(ev, buf, sizeof(buf)));
	c += 20;
	grid_put(g, c, y, 10, 0, ev->actor);
	c += 11;
	grid_put(g, c, y, x + w - c, 0, ev->reason);
}

static void e_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	list_draw(v, v->priv, g, x, y, w, h, E_TITLES, e_row, st,
		  st->events_note && st->events_note[0] ? st->events_note : "no event yet");
}

static int64_t selected_job(const struct view *v, const struct tui_state *st)
{
	const struct rowset *rs = v->priv;
	if (v->sel < 0 || v->sel >= rs->n)
		return 0;
	return st->m->events[rs->r[v->sel].idx].job;
}

static unsigned e_key(struct view *v, struct tui_state *st, enum action a)
{
	return list_job_key(v, st, a, selected_job(v, st));
}

const struct view_ops view_events_ops = {
    .name = "Events",
    .sorts = "newest|oldest|job",
    .open = list_open,
    .refresh = e_refresh,
    .draw = e_draw,
    .key = e_key,
    .click = list_click,
    .close = list_close,
};
