/*
 * list.c - what the row-based views share: moving the selection, keeping it
 * on the same job across refreshes, filtering, column titles and the small
 * formatting helpers. No view-specific columns here.
 */
#include "tui.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void list_clamp(struct view *v)
{
	int page = v->page > 0 ? v->page : 1;
	if (v->sel >= v->rows)
		v->sel = v->rows - 1;
	if (v->sel < 0)
		v->sel = 0;
	if (v->top > v->sel)
		v->top = v->sel;
	if (v->sel >= v->top + page)
		v->top = v->sel - page + 1;
	if (v->top > v->rows - page)
		v->top = v->rows - page;
	if (v->top < 0)
		v->top = 0;
}

unsigned list_nav(struct view *v, enum action a)
{
	int old = v->sel, oldtop = v->top;
	int page = v->page > 1 ? v->page - 1 : 1;
	switch (a) {
	case ACT_UP:
		v->sel--;
		break;
	case ACT_DOWN:
		v->sel++;
		break;
	case ACT_PGUP:
		v->sel -= page;
		v->top -= page;
		break;
	case ACT_PGDN:
		v->sel += page;
		v->top += page;
		break;
	case ACT_HOME:
		v->sel = 0;
		break;
	case ACT_END:
		v->sel = v->rows - 1;
		break;
	default:
		return R_UNHANDLED;
	}
	list_clamp(v);
	const struct rowset *rs = v->priv;
	if (rs && v->sel >= 0 && v->sel < rs->n)
		v->sel_id = rs->r[v->sel].id;
	return (v->sel != old || v->top != oldtop) ? R_REDRAW : R_NONE;
}

bool text_match(const char *hay, const char *needle)
{
	if (!needle[0])
		return true;
	size_t nl = strlen(needle);
	for (const char *h = hay; *h; h++) {
		size_t i = 0;
		while (i < nl && h[i] &&
		       tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

void list_titles(struct grid *g, int x, int y, int w, const char *cols)
{
	grid_fill(g, x, y, w, 1, ' ', GA_BOLD | GC_ACCENT);
	int col = x;
	const char *p = cols;
	while (*p && col < x + w) {
		const char *colon = strchr(p, ':');
		if (!colon)
			break;
		char name[32];
		size_t len =
		    (size_t)(colon - p) < sizeof(name) - 1 ? (size_t)(colon - p) : sizeof(name) - 1;
		memcpy(name, p, len);
		name[len] = 0;
		int cw = atoi(colon + 1);
		int aw = cw < 0 ? -cw : cw;
		if (cw == 0)
			aw = x + w - col;
		if (cw < 0)
			grid_put_right(g, col, y, aw, GA_BOLD | GC_ACCENT, name);
		else
			grid_put(g, col, y, aw, GA_BOLD | GC_ACCENT, name);
		col += aw + 1;
		const char *bar = strchr(colon, '|');
		if (!bar)
			break;
		p = bar + 1;
	}
}

uint16_t tier_attr(enum tier t)
{
	switch (t) {
	case TIER_P0:
		return GC_P0 | GA_BOLD;
	case TIER_P1:
		return GC_P1;
	case TIER_P2:
		return GC_P2;
	}
	return 0;
}

char *age_text(int64_t now, int64_t t, char *out, size_t size)
{
	if (!t) {
		snprintf(out, size, "-");
		return out;
	}
	return dur_format(now - t < 0 ? 0 : now - t, out, size);
}

struct row *rowset_add(struct rowset *rs, size_t idx, int64_t id)
{
	if (rs->n == rs->cap) {
		size_t cap = (size_t)rs->cap;
		GROW(rs->r, cap, (size_t)rs->n + 1);
		rs->cap = (int)cap;
	}
	struct row *r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->idx = idx;
	r->id = id;
	return r;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->skey, y->skey);
	if (c)
		return c;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void rowset_sort(struct rowset *rs)
{
	if (rs->n > 1)
		qsort(rs->r, (size_t)rs->n, sizeof(*rs->r), row_cmp);
}

void rowset_release(struct rowset *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

void list_open(struct view *v)
{
	v->priv = xcalloc(1, sizeof(struct rowset));
}

void list_close(struct view *v)
{
	if (v->priv)
		rowset_release(v->priv);
	free(v->priv);
	v->priv = NULL;
}

void rowset_done(struct view *v, const struct rowset *rs)
{
	if (v->sel_id)
		for (int i = 0; i < rs->n; i++)
			if (rs->r[i].id == v->sel_id) {
				v->sel = i;
				break;
			}
	v->rows = rs->n;
	list_clamp(v);
	v->sel_id = rs->n > 0 ? rs->r[v->sel].id : 0;
}

void list_draw(struct view *v, const struct rowset *rs, struct grid *g, int x, int y, int w, int h,
	       const char *titles,
	       void (*draw_row)(const struct tui_state *st, const struct row *r, struct grid *g,
				int x, int y, int w),
	       const struct tui_state *st, const char *empty)
{
	if (h <= 0)
		return;
	list_titles(g, x, y, w, titles);
	v->page = h - 1 > 0 ? h - 1 : 1;
	list_clamp(v);
	if (rs->n > 0) {
		char pos[32];
		snprintf(pos, sizeof(pos), " %d/%d", v->sel + 1, rs->n);
		grid_put_right(g, x, y, w, GC_DIM, pos);
	}
	if (rs->n == 0 && h > 1) {
		grid_put(g, x + 2, y + 1, w - 2, GC_DIM,
			 v->filter[0] ? "no row matches the filter" : empty);
		return;
	}
	for (int i = 0; i < h - 1 && v->top + i < rs->n; i++) {
		int ri = v->top + i;
		draw_row(st, &rs->r[ri], g, x, y + 1 + i, w);
		if (ri == v->sel)
			for (int c = x; c < x + w; c++) {
				struct cell *cl = grid_at(g, c, y + 1 + i);
				if (cl)
					cl->attr |= GA_REVERSE;
			}
	}
}

unsigned list_click(struct view *v, struct tui_state *st, int row)
{
	const struct rowset *rs = v->priv;
	int ri = v->top + row - 1;
	if (row < 1 || ri >= rs->n)
		return R_NONE;
	if (ri == v->sel)
		return v->ops->key(v, st, ACT_OPEN);
	v->sel = ri;
	v->sel_id = rs->r[ri].id;
	return R_REDRAW;
}

unsigned list_job_key(struct view *v, struct tui_state *st, enum action a, int64_t job)
{
	unsigned r = list_nav(v, a);
	if (!(r & R_UNHANDLED))
		return r;
	switch (a) {
	case ACT_OPEN:
		if (!job)
			return R_NONE;
		st->req_job = job;
		return R_OPEN_JOB;
	case ACT_CANCEL:
	case ACT_HOLD:
	case ACT_RELEASE:
	case ACT_OVERRIDE:
		if (!job)
			return R_NONE;
		st->req_job = job;
		st->req_act = a;
		return R_REQUEST;
	default:
		return R_UNHANDLED;
	}
}

const char *view_sort_name(const struct view *v, char *out, size_t size)
{
	const char *p = v->ops->sorts ? v->ops->sorts : "";
	for (int i = 0; i < v->sort && p; i++) {
		p = strchr(p, '|');
		if (p)
			p++;
	}
	if (!p)
		p = "";
	size_t n = strcspn(p, "|");
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = 0;
	return out;
}

int list_job_cells(struct grid *g, int x, int y, const struct job *j, int gpus, const char *id)
{
	char buf[48];
	/* A task of an array by its name, 42_7, as gq ls names it. */
	if (j->array_id)
		snprintf(buf, sizeof(buf), "%lld_%d", (long long)j->array_id, j->array_task);
	else
		snprintf(buf, sizeof(buf), "%lld", (long long)j->id);
	if (id) /* a folded array's label, left-aligned from the column's start */
		grid_put(g, x, y, 7, 0, id);
	else
		grid_put_right(g, x, y, 7, 0, buf);
	x += 8;
	grid_put(g, x, y, 10, 0, j->user);
	x += 11;
	grid_put(g, x, y, 8, 0, j->queue);
	x += 9;
	enum tier t = job_tier(j);
	snprintf(buf, sizeof(buf), "%s%s", tier_name(t), j->ovr.set ? "*" : "");
	grid_put(g, x, y, 4, tier_attr(t), buf);
	x += 5;
	snprintf(buf, sizeof(buf), "%d", gpus);
	grid_put_right(g, x, y, 3, 0, buf);
	return x + 4;
}

const struct view_ops *const view_table[VIEW_COUNT] = {
#define X(e, name, ops) [VIEW_##e] = &ops,
    VIEW_LIST(X)
#undef X
};

int view_find(const char *name)
{
	static const char *const names[VIEW_COUNT] = {
#define X(e, n, ops) [VIEW_##e] = n,
	    VIEW_LIST(X)
#undef X
	};
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}
