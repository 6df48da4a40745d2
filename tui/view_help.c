/*
 * view_help.c - the help screen, drawn from the key table (keys.c) so that
 * it always says what the keys really do.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void h_open(struct view *v)
{
	v->priv = NULL;
}

static void h_close(struct view *v)
{
	v->priv = NULL;
}

static void h_refresh(struct view *v, const struct tui_state *st)
{
	(void)v;
	(void)st;
}

static void h_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	struct text t = {.width = w};
	text_line(&t, GA_BOLD, "gq top keys  (Esc or ? to go back)");
	text_line(&t, 0, "%s", "");
	for (size_t i = 0; i < key_binding_count; i++) {
		const struct key_binding *b = &key_bindings[i];
		text_line(&t, 0, "  %-12s %s", b->label, b->help);
	}
	text_line(&t, 0, "%s", "");
	text_line(&t, GC_DIM, "  Mouse: click a row to select it, click it again to open it;");
	text_line(&t, GC_DIM, "  click a tab to switch views; the wheel scrolls.");
	text_line(&t, GC_DIM,
		  "  Tiers: P0 core guarantee, P1 regular, P2 elastic; * marks an override.");
	text_draw(v, &t, g, x, y, w, h);
	text_release(&t);
}

static unsigned h_key(struct view *v, struct tui_state *st, enum action a)
{
	unsigned r = text_nav(v, a);
	if (!(r & R_UNHANDLED))
		return r;
	if (a == ACT_BACK || a == ACT_HELP)
		return R_BACK;
	return R_UNHANDLED;
}

static unsigned h_click(struct view *v, struct tui_state *st, int row)
{
	return R_NONE;
}

const struct view_ops view_help_ops = {
    .name = "Help",
    .sorts = "",
    .open = h_open,
    .refresh = h_refresh,
    .draw = h_draw,
    .key = h_key,
    .click = h_click,
    .close = h_close,
};
