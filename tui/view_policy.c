/*
 * view_policy.c - the Policy view: the revision in force, the recent
 * commits of the policy repository (read by the app, st->policy_log), the
 * policy events (applied, refused) from the event stream, and every key's
 * value with the ones that differ from the defaults first.
 */
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void p_open(struct view *v)
{
	v->priv = NULL;
}

static void p_close(struct view *v)
{
	v->priv = NULL;
}

static void p_refresh(struct view *v, const struct tui_state *st)
{
	(void)v;
	(void)st;
}

struct keys_ctx {
	struct text *t;
	bool want_default;
	int n;
};

static void add_key(const struct policy_key_info *ki, void *arg)
{
	struct keys_ctx *k = arg;
	if (ki->is_default != k->want_default)
		return;
	if (ki->is_default)
		text_line(k->t, 0, "  %-36s %s", ki->key, ki->value);
	else
		text_line(k->t, GC_WARN, "  %-36s %s  (default %s)", ki->key, ki->value,
			  ki->default_value);
	k->n++;
}

static void build(const struct tui_state *st, struct text *t)
{
	const struct model *m = st->m;
	const struct policy *p = &m->snap.policy;
	char a[32];
	text_line(t, GA_BOLD, "Revision %s", p->revision[0] ? p->revision : "(built-in defaults)");
	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Recent changes");
	if (st->policy_log && st->policy_log[0])
		text_wrap(t, 0, 2, st->policy_log);
	else
		text_line(t, GC_DIM, "  (not read yet)");
	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Applied by the scheduler");
	int n = 0;
	for (size_t i = m->nevents; i-- > 0 && n < 20;) {
		const struct event *ev = &m->events[i];
		if (strncmp(ev->kind, "policy", 6))
			continue;
		text_line(t, 0, "  %s  %-10s %s  (%s)",
			  zone_clock(&m->zone, ev->time, a, sizeof(a)), ev->kind, ev->reason,
			  ev->actor);
		n++;
	}
	if (!n)
		text_line(t, GC_DIM,
			  "  none since gq top started; 'gq policy log' shows the history");
	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Settings that differ from the defaults");
	struct keys_ctx k = {t, false, 0};
	policy_foreach(p, add_key, &k);
	if (!k.n)
		text_line(t, GC_DIM, "  none");
	text_line(t, 0, "%s", "");
	text_line(t, GA_BOLD | GC_ACCENT, "Defaults in force");
	k.want_default = true;
	policy_foreach(p, add_key, &k);
}

static void p_draw(struct view *v, const struct tui_state *st, struct grid *g, int x, int y, int w,
		   int h)
{
	struct text t = {.width = w};
	build(st, &t);
	text_draw(v, &t, g, x, y, w, h);
	text_release(&t);
}

static unsigned p_key(struct view *v, struct tui_state *st, enum action a)
{
	return text_nav(v, a);
}

static unsigned p_click(struct view *v, struct tui_state *st, int row)
{
	return R_NONE;
}

const struct view_ops view_policy_ops = {
    .name = "Policy",
    .sorts = "",
    .open = p_open,
    .refresh = p_refresh,
    .draw = p_draw,
    .key = p_key,
    .click = p_click,
    .close = p_close,
};
