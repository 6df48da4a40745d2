/*
 * app.h - `gq top`'s main loop: a fetcher thread that follows the event
 * stream by long-poll and builds models, and the UI loop that owns the
 * terminal, the views and the prompts, and runs the actions the views ask
 * for through the backend.
 */
#ifndef GQ_TUI_APP_H
#define GQ_TUI_APP_H

#include <stdbool.h>

#include "backend/backend.h"
#include "explain/zone.h"
#include "tui.h"

struct app_opts {
	bool color;	   /* false under NO_COLOR or --no-color */
	bool mouse;	   /* mouse clicks and wheel */
	int interval;	   /* seconds between snapshots when no event comes */
	enum view_id view; /* the view shown first */
	int64_t job;	   /* open this job's view first (0: none) */
	/* The reader's time zone around a snapshot's now, in which every
	 * time is shown (cmd_zone); called by the fetcher thread only, its
	 * result copied into each model. NULL: UTC. */
	const struct zone *(*zone)(int64_t now);
};

/*
 * Runs the dashboard until the user quits. poll is used only by the
 * fetcher thread, act only by the UI loop (cancel, hold, release,
 * override, logs); both are borrowed and must outlive the call. Returns 0,
 * or -1 with e filled when the terminal cannot be used. The scheduler
 * going away is not an error: it is shown, and the fetcher reconnects.
 */
int app_run(struct backend *poll, struct backend *act, const struct app_opts *o, struct gq_err *e);

#endif
