/*
 * text.c - scrolling text for the Job, Policy and Help views: lines with
 * one attribute each, word wrapping, drawing from a scroll offset.
 */
#include "tui.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/width.h"

static void add(struct text *t, uint16_t attr, char *s)
{
	if (t->n == t->cap) {
		size_t cap = (size_t)t->cap;
		GROW(t->l, cap, (size_t)t->n + 1);
		t->cap = (int)cap;
	}
	t->l[t->n].s = s;
	t->l[t->n].attr = attr;
	t->n++;
}

void text_line(struct text *t, uint16_t attr, const char *fmt, ...)
{
	struct buf b;
	va_list ap;
	buf_init(&b, 0);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	add(t, attr, buf_detach(&b));
}

void text_wrap(struct text *t, uint16_t attr, int indent, const char *para)
{
	int width = (t->width > 0 ? t->width : 80) - indent;
	if (width < 10)
		width = 10;
	const char *p = para;
	while (*p) {
		size_t linelen = strcspn(p, "\n");
		const char *end = p + linelen;
		/* Wrap one source line at spaces, by display width (core/width.h). */
		const char *s = p;
		do {
			const char *cut = s, *lastsp = NULL;
			int cols = 0;
			while (cut < end) {
				uint32_t cp;
				int n = utf8_decode(cut, &cp), w = n < 0 ? 1 : uc_width(cp);
				if (w < 0)
					w = 1;
				if (cols + w > width)
					break;
				if (*cut == ' ')
					lastsp = cut;
				cut += n < 0 ? 1 : n;
				cols += w;
			}
			if (cut < end && lastsp && lastsp > s)
				cut = lastsp;
			text_line(t, attr, "%*s%.*s", indent, "", (int)(cut - s), s);
			s = cut;
			while (s < end && *s == ' ')
				s++;
		} while (s < end);
		p = *end ? end + 1 : end;
	}
}

void text_release(struct text *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->l[i].s);
	free(t->l);
	memset(t, 0, sizeof(*t));
}

void text_draw(struct view *v, const struct text *t, struct grid *g, int x, int y, int w, int h)
{
	v->rows = t->n;
	v->page = h > 0 ? h : 1;
	if (v->top > t->n - v->page)
		v->top = t->n - v->page;
	if (v->top < 0)
		v->top = 0;
	for (int i = 0; i < h && v->top + i < t->n; i++)
		grid_put(g, x, y + i, w, t->l[v->top + i].attr, t->l[v->top + i].s);
	if (t->n > h && h > 0) {
		char pos[32];
		snprintf(pos, sizeof(pos), "%d-%d/%d", v->top + 1,
			 v->top + h < t->n ? v->top + h : t->n, t->n);
		grid_put_right(g, x, y + h - 1, w, GA_REVERSE, pos);
	}
}

unsigned text_nav(struct view *v, enum action a)
{
	int old = v->top, page = v->page > 1 ? v->page - 1 : 1;
	switch (a) {
	case ACT_UP:
		v->top--;
		break;
	case ACT_DOWN:
		v->top++;
		break;
	case ACT_PGUP:
		v->top -= page;
		break;
	case ACT_PGDN:
		v->top += page;
		break;
	case ACT_HOME:
		v->top = 0;
		break;
	case ACT_END:
		v->top = v->rows;
		break;
	default:
		return R_UNHANDLED;
	}
	if (v->top > v->rows - v->page)
		v->top = v->rows - v->page;
	if (v->top < 0)
		v->top = 0;
	return v->top != old ? R_REDRAW : R_NONE;
}
