/*
 * term.c - ncurses, in one file (see term.h): set-up and restore, colours,
 * drawing the changed cells of a grid, and translating input. Views and the
 * app never include curses.h.
 */
#include "term.h"

#include <curses.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

static struct {
	bool open, color;
	struct grid last; /* the frame on the screen */
} T;

/* Colours of the semantic palette; -1 is the terminal's default. */
static const short palette[GC_COUNT] = {
    [GC_DEFAULT] = -1,	  [GC_P0] = COLOR_RED,	    [GC_P1] = COLOR_YELLOW,
    [GC_P2] = COLOR_CYAN, [GC_GOOD] = COLOR_GREEN,  [GC_WARN] = COLOR_YELLOW,
    [GC_BAD] = COLOR_RED, [GC_ACCENT] = COLOR_BLUE, [GC_DIM] = -1,
};

int term_open(const struct term_opts *o, bool *ascii, struct gq_err *e)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(e, GQ_EINVAL,
			       "standard input and output are not a terminal; run 'gq top' in one, "
			       "or use 'gq events --json' in scripts");
	const char *cs = nl_langinfo(CODESET);
	*ascii = !(cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8")));
	if (!newterm(NULL, stdout, stdin))
		return err_set(e, GQ_EINVAL,
			       "cannot use terminal '%s'; set TERM to a known terminal type",
			       getenv("TERM") ? getenv("TERM") : "");
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* Esc alone must feel immediate, yet a mouse or arrow sequence split
	 * across reads must still parse: 50 ms, unless ESCDELAY says otherwise. */
	if (!getenv("ESCDELAY"))
		set_escdelay(50);
	curs_set(0);
	T.color = o->color && has_colors();
	if (T.color) {
		start_color();
		use_default_colors();
		for (int i = 1; i < GC_COUNT; i++)
			init_pair((short)i, palette[i], -1);
	}
	if (o->mouse) {
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED,
			  NULL);
		mouseinterval(0);
	}
	grid_init(&T.last, *ascii);
	T.open = true;
	return 0;
}

void term_close(void)
{
	if (!T.open)
		return;
	T.open = false;
	endwin();
	grid_release(&T.last);
}

void term_size(int *w, int *h)
{
	getmaxyx(stdscr, *h, *w);
}

static attr_t curses_attr(uint16_t a, short *pair)
{
	attr_t r = A_NORMAL;
	if (a & GA_BOLD)
		r |= A_BOLD;
	if (a & GA_REVERSE)
		r |= A_REVERSE;
	if (a & GA_UNDERLINE)
		r |= A_UNDERLINE;
	unsigned c = a & GA_COLOR_MASK;
	*pair = 0;
	if (c == GC_DIM)
		r |= A_DIM;
	else if (T.color && c < GC_COUNT)
		*pair = (short)c;
	return r;
}

/* Sends n cells from (x, y). A wide character goes alone to its own
 * column: were ncurses's width for it (the locale's) another than ours, only
 * that character would be off, not the rest of the run. */
static void emit(void *ctx, int x, int y, const struct cell *cells, int n)
{
	cchar_t run[512];
	(void)ctx;
	int i = 0;
	while (i < n) {
		int k = 0, at = i;
		for (; i < n && k < 512; i++) {
			if (cells[i].ch == GRID_TAIL) {
				i++;
				break;
			}
			bool wide = i + 1 < n && cells[i + 1].ch == GRID_TAIL;
			if (wide && k)
				break;
			wchar_t wc[3] = {(wchar_t)cells[i].ch, (wchar_t)cells[i].mark, 0};
			short pair;
			attr_t a = curses_attr(cells[i].attr, &pair);
			setcchar(&run[k++], wc, a, pair, NULL);
			if (wide) {
				i += 2;
				break;
			}
		}
		if (k)
			mvadd_wchnstr(y, x + at, run, k);
	}
}

size_t term_draw(const struct grid *g)
{
	size_t n = grid_diff(T.last.w ? &T.last : NULL, g, emit, NULL);
	if (n) {
		grid_copy(&T.last, g);
		wnoutrefresh(stdscr);
		doupdate();
	}
	return n;
}

void term_invalidate(void)
{
	grid_release(&T.last);
	clearok(curscr, TRUE);
}

int term_fd(void)
{
	return STDIN_FILENO;
}

static int translate(int key)
{
	switch (key) {
	case KEY_UP:
		return K_UP;
	case KEY_DOWN:
		return K_DOWN;
	case KEY_LEFT:
		return K_LEFT;
	case KEY_RIGHT:
		return K_RIGHT;
	case KEY_PPAGE:
		return K_PGUP;
	case KEY_NPAGE:
		return K_PGDN;
	case KEY_HOME:
		return K_HOME;
	case KEY_END:
		return K_END;
	case KEY_BTAB:
		return K_BTAB;
	case KEY_ENTER:
		return K_ENTER;
	case KEY_BACKSPACE:
		return K_BACKSPACE;
	case KEY_RESIZE:
		return K_RESIZE;
	default:
		return K_NONE;
	}
}

bool term_read(struct key_event *k)
{
	wint_t wc;
	memset(k, 0, sizeof(*k));
	for (;;) {
		int r = get_wch(&wc);
		if (r == ERR)
			return false;
		if (r == KEY_CODE_YES) {
			if (wc == KEY_MOUSE) {
				MEVENT me;
				if (getmouse(&me) != OK)
					continue;
				k->x = me.x;
				k->y = me.y;
				if (me.bstate & BUTTON4_PRESSED)
					k->code = K_WHEEL_UP;
				else if (me.bstate & BUTTON5_PRESSED)
					k->code = K_WHEEL_DOWN;
				else if (me.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
					k->code = K_MOUSE;
				else
					continue;
				return true;
			}
			k->code = translate((int)wc);
			if (k->code == K_NONE)
				continue;
			return true;
		}
		/* Terminals send Enter as CR (we run with nonl) and Backspace as ^H or DEL. */
		if (wc == '\r')
			wc = '\n';
		if (wc == 8)
			wc = K_BACKSPACE;
		k->code = (int)wc;
		return true;
	}
}
