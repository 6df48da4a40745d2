/*
 * tui.h - what the views of `gq top` share: the view interface, the state
 * the app hands them for a frame, and the reactions they return.
 *
 * A view is one file (view_queue.c, view_running.c, ...) exporting one
 * `const struct view_ops`. Views draw into a struct grid and turn actions
 * into reactions; they never do I/O, never talk to the backend and never
 * touch the terminal. The app (app.c) acts on their reactions: it opens the
 * Job view, asks for confirmations and runs cancel / hold / release /
 * override through the backend.
 */
#ifndef GQ_TUI_TUI_H
#define GQ_TUI_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "keys.h"
#include "model.h"

/*
 * The views, once: X(ENUM, name for --view, ops). The tabs are drawn, the
 * number keys bound (keys.c, ACT_VIEW_*) and --view parsed in this order;
 * Help comes last and has no tab.
 */
#define VIEW_LIST(X)                                                                               \
	X(QUEUE, "queue", view_queue_ops)                                                          \
	X(RUNNING, "running", view_running_ops)                                                    \
	X(NODES, "nodes", view_nodes_ops)                                                          \
	X(EVENTS, "events", view_events_ops)                                                       \
	X(POLICY, "policy", view_policy_ops)                                                       \
	X(JOB, "job", view_job_ops)                                                                \
	X(HELP, "help", view_help_ops)

enum view_id {
#define X(e, name, ops) VIEW_##e,
	VIEW_LIST(X)
#undef X
	    VIEW_COUNT
};
/* Views with a tab: all but Help. */
#define VIEW_TABS VIEW_HELP

/* Reactions a view returns from key() and click(); may be or-ed. */
enum reaction {
	R_NONE = 0,
	R_REDRAW = 1 << 0,   /* something the view shows changed */
	R_OPEN_JOB = 1 << 1, /* open the Job view on state->req_job */
	R_REQUEST = 1 << 2,  /* run state->req_act (cancel/hold/release/override) on req_job */
	R_BACK = 1 << 3,     /* leave this view for the previous one */
	R_UNHANDLED = 1 << 4 /* not this view's action: the app may use it */
};

/* What the app lends views for one call. */
struct tui_state {
	const struct model *m;	 /* never NULL; may be empty before the first fetch */
	int64_t job;		 /* the Job view's job; 0 none */
	const char *log_tail;	 /* the Job view's log tail ("" none), UTF-8 */
	const char *why;	 /* the Job view's explanation text ("" none) */
	const char *policy_log;	 /* the Policy view's recent commits, lines ("" none) */
	const char *events_note; /* why there are no events (refused), "" none */
	/* Filled by a view returning R_OPEN_JOB or R_REQUEST. */
	int64_t req_job;
	enum action req_act;
};

/* The selection, scroll, filter and sort every view keeps. */
struct view {
	const struct view_ops *ops;
	int sel, top;	 /* selected row and first visible row */
	int rows;	 /* rows the view had at its last refresh */
	int page;	 /* visible rows at the last draw */
	int sort;	 /* index into the view's sort keys */
	char filter[64]; /* case-insensitive substring; "" none */
	int64_t sel_id;	 /* the id under the selection, kept across refreshes */
	void *priv;	 /* the view's own rows */
};

struct view_ops {
	const char *name;  /* tab title: "Queue" */
	const char *sorts; /* the sort keys' names, '|' separated ("" none) */
	void (*open)(struct view *v);
	/* New data: rebuild the view's rows (filter and sort applied). */
	void (*refresh)(struct view *v, const struct tui_state *st);
	/* Draws into the rectangle (x, y, w, h) of g. */
	void (*draw)(struct view *v, const struct tui_state *st, struct grid *g, int x, int y,
		     int w, int h);
	unsigned (*key)(struct view *v, struct tui_state *st, enum action a);
	/* A click on row `row` of the rectangle last drawn (0 = its first line). */
	unsigned (*click)(struct view *v, struct tui_state *st, int row);
	void (*close)(struct view *v);
};

#define X(e, name, ops) extern const struct view_ops ops;
VIEW_LIST(X)
#undef X
/* Every view's ops, by enum view_id. */
extern const struct view_ops *const view_table[VIEW_COUNT];
/* The view named name ("queue", ...); -1 when none. */
int view_find(const char *name);

/* The header above every view (header.c): backend, revision, clock, pools,
 * pending by tier, sparklines. Returns the number of rows it used. */
int header_draw(const struct tui_state *st, const char *backend, struct grid *g, int w, int h);

/*
 * List helpers shared by the row-based views (list.c).
 */
/* List views keep their struct rowset in v->priv.
 * Moves v->sel (and v->sel_id) for a navigation action; returns R_REDRAW if it moved,
 * R_NONE if it was a navigation action that changed nothing, R_UNHANDLED
 * for any other action. */
unsigned list_nav(struct view *v, enum action a);
/* Clamps sel and top to rows / page after a refresh or resize. */
void list_clamp(struct view *v);
/* Case-insensitive substring test used by every filter. */
bool text_match(const char *hay, const char *needle);
/* Draws column titles; cols is "NAME:width|..." (negative width: right
 * aligned; 0: the rest of the line). */
void list_titles(struct grid *g, int x, int y, int w, const char *cols);
/* The rows a list view shows, after filtering: each the index of what it
 * shows (into the model's arrays), its id, and its sort key (text first,
 * then number, then id). Owns its array. */
struct row {
	size_t idx;
	int64_t id;
	int64_t key;
	char skey[32];
};
struct rowset {
	struct row *r;
	int n, cap;
};
/* Appends a row (zeroed keys) and returns it; valid until the next add. */
struct row *rowset_add(struct rowset *rs, size_t idx, int64_t id);
/* Sorts by (skey, key, id); stable for equal rows since ids are unique. */
void rowset_sort(struct rowset *rs);
void rowset_release(struct rowset *rs);
/* view_ops.open and .close for list views: a struct rowset in v->priv. */
void list_open(struct view *v);
void list_close(struct view *v);
/* Ends a refresh: keeps the selection on the row with id v->sel_id. */
void rowset_done(struct view *v, const struct rowset *rs);

/* Draws a list: titles on row y, rows below through draw_row(i = index into
 * rs), the selection highlighted, "(none)" or "no row matches" when empty,
 * and "sel/total" at the right of the titles. Sets v->page. */
void list_draw(struct view *v, const struct rowset *rs, struct grid *g, int x, int y, int w, int h,
	       const char *titles,
	       void (*draw_row)(const struct tui_state *st, const struct row *r, struct grid *g,
				int x, int y, int w),
	       const struct tui_state *st, const char *empty);
/* A view_ops.click for list views: a click on row `row` (0 = titles)
 * selects it; a click on the selection is Enter (the view's ACT_OPEN). */
unsigned list_click(struct view *v, struct tui_state *st, int row);

/* Keys common to views whose rows show jobs: navigation, Enter (open job),
 * c / h / r / p (a request on job). job is the selected row's job, 0 when
 * it shows none (those keys then do nothing). */
unsigned list_job_key(struct view *v, struct tui_state *st, enum action a, int64_t job);
/* The sort key index v->sort into the view's '|' list: its name. */
const char *view_sort_name(const struct view *v, char *out, size_t size);

/*
 * Text views (Job, Policy, Help) build lines each frame and scroll them
 * (text.c). A text owns its lines.
 */
struct tline {
	char *s;
	uint16_t attr;
};
struct text {
	struct tline *l;
	int n, cap;
	int width; /* wrap width for text_wrap */
};
/* Adds one line (cut at the right edge when drawn). */
void text_line(struct text *t, uint16_t attr, const char *fmt, ...) GQ_PRINTF(3, 4);
/* Adds a paragraph wrapped at t->width, every line indented by indent
 * spaces; embedded newlines start new lines. */
void text_wrap(struct text *t, uint16_t attr, int indent, const char *para);
void text_release(struct text *t);
/* Draws lines from v->top into the rectangle; sets v->rows and v->page. */
void text_draw(struct view *v, const struct text *t, struct grid *g, int x, int y, int w, int h);
/* Scrolls a text view for navigation actions (R_UNHANDLED for others). */
unsigned text_nav(struct view *v, enum action a);

/* Draws the columns every job list starts with, "ID:-7|USER:10|QUEUE:8|
 * TIER:4|GPU:-3" (a '*' after the tier marks an override), from column x;
 * returns the column after them. */
int list_job_cells(struct grid *g, int x, int y, const struct job *j, int gpus, const char *id);

/* Colour of a tier. */
uint16_t tier_attr(enum tier t);
/* Short "2h05m"-style age of t relative to now ("-" when t is 0). */
char *age_text(int64_t now, int64_t t, char *out, size_t size);

#endif
