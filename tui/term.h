/*
 * term.h - the terminal, and the only part of gq that talks to ncurses.
 *
 * term_draw() compares the grid with the frame it drew last and sends only
 * the changed cells, so a live screen never flickers and an idle one sends
 * nothing. Input comes back as struct key_event (keys.h): ncurses' key codes
 * and mouse events are translated here and nowhere else.
 */
#ifndef GQ_TUI_TERM_H
#define GQ_TUI_TERM_H

#include <stdbool.h>

#include "core/util.h"
#include "grid.h"
#include "keys.h"

struct term_opts {
	bool color; /* false under NO_COLOR or when asked */
	bool mouse;
};

/* Takes over the terminal (stdin/stdout must be a terminal: GQ_EINVAL
 * otherwise). Sets *ascii when the locale cannot show Unicode bars. */
int term_open(const struct term_opts *o, bool *ascii, struct gq_err *e);
/* Gives the terminal back as it was. Safe to call twice. */
void term_close(void);
/* The screen size in cells. */
void term_size(int *w, int *h);
/* Draws g: only the cells that differ from the last frame. Returns the
 * number of cells sent. */
size_t term_draw(const struct grid *g);
/* Forgets the last frame: the next term_draw sends every cell (after a
 * resize, or ^L). */
void term_invalidate(void);
/* The file descriptor to poll for input. */
int term_fd(void);
/* Reads one pending input without blocking; false when there is none.
 * K_RESIZE reports a new size (term_size has it already). */
bool term_read(struct key_event *k);

#endif
