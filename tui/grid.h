/*
 * grid.h - the plain cell grid that every view of `gq top` draws into.
 *
 * A grid is a width x height array of cells (one Unicode code point and an
 * attribute each). Views write text, bars and sparklines into it; term.c
 * compares it with the previous frame (grid_diff) and sends only the cells
 * that changed to the terminal. Nothing here knows about ncurses or any
 * terminal: the grid is what headless tests and the benchmark look at.
 *
 * Every drawing call clips to the grid: coordinates outside it draw
 * nothing, so views never need to check bounds themselves. Every cell is
 * one column. Widths come from core/width.h (a fixed table, not the
 * locale): a wide character (CJK, most emoji) takes its cell and the next,
 * which holds GRID_TAIL; a zero-width mark rides on the cell before it;
 * controls and bytes that are not UTF-8 are drawn as '?'. In ASCII mode
 * (a terminal that is not UTF-8) a wide character is "??" and marks are
 * left out, so that the columns stay where they are.
 */
#ifndef GQ_TUI_GRID_H
#define GQ_TUI_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* Semantic colours; term.c maps them to the terminal's (or to none under
 * NO_COLOR). They occupy the low 4 bits of an attribute. */
enum grid_color {
	GC_DEFAULT,
	GC_P0,	   /* tier P0 */
	GC_P1,	   /* tier P1 */
	GC_P2,	   /* tier P2 */
	GC_GOOD,   /* running, healthy, connected */
	GC_WARN,   /* held, over a limit soon */
	GC_BAD,	   /* failed, disconnected */
	GC_ACCENT, /* titles, key names */
	GC_DIM,	   /* secondary text */
	GC_COUNT
};

#define GA_COLOR_MASK 0x000fu
#define GA_BOLD 0x0010u
#define GA_REVERSE 0x0020u
#define GA_UNDERLINE 0x0040u

/* The ch of the right half of a wide character (the cell before it). */
#define GRID_TAIL 0u

struct cell {
	uint32_t ch;   /* a code point; ' ' when blank; GRID_TAIL */
	uint32_t mark; /* a combining mark drawn over ch, or 0 */
	uint16_t attr;
};

struct grid {
	int w, h;
	struct cell *cells; /* owned; w * h, row-major */
	bool ascii;	    /* draw bars and sparklines with ASCII only */
};

/* An empty 0x0 grid; allocates nothing. */
void grid_init(struct grid *g, bool ascii);
/* Frees the cells; g is then as after grid_init. */
void grid_release(struct grid *g);
/* Sets the size (>= 0 each) and blanks every cell. */
void grid_resize(struct grid *g, int w, int h);
/* Blanks every cell (space, default attribute). */
void grid_clear(struct grid *g);
/* The cell at (x, y), or NULL outside the grid. Borrowed until resize. */
struct cell *grid_at(const struct grid *g, int x, int y);

/* Writes UTF-8 text at (x, y), at most maxw columns (maxw < 0: to the
 * right edge), a wide character whole or not at all. Invalid UTF-8 and
 * control characters become '?'. Returns the number of columns written. */
int grid_put(struct grid *g, int x, int y, int maxw, uint16_t attr, const char *s);
/* printf into a field of maxw columns (text longer than that is cut). */
int grid_printf(struct grid *g, int x, int y, int maxw, uint16_t attr, const char *fmt, ...)
    GQ_PRINTF(6, 7);
/* Writes s right-aligned so that it ends just before column x + w (by
 * display width); text wider than w keeps its left part. Returns columns
 * written. */
int grid_put_right(struct grid *g, int x, int y, int w, uint16_t attr, const char *s);
/* Fills a rectangle with one character and attribute. */
void grid_fill(struct grid *g, int x, int y, int w, int h, uint32_t ch, uint16_t attr);
/* Replaces the attribute of w cells from (x, y), keeping the characters
 * (used to highlight a selected row). */
void grid_set_attr(struct grid *g, int x, int y, int w, uint16_t attr);

/* A horizontal bar of w cells, filled to frac (0..1, clamped): eighth
 * blocks in Unicode mode, '#' and '.' in ASCII mode. The filled part gets
 * attr_on, the rest attr_off. */
void grid_bar(struct grid *g, int x, int y, int w, double frac, uint16_t attr_on,
	      uint16_t attr_off);
/* A sparkline of the n values (the last w of them when n > w), scaled to
 * max (max <= 0: to the largest value): block heights in Unicode mode,
 * " _.-=^" style characters in ASCII mode. Missing columns stay blank. */
void grid_spark(struct grid *g, int x, int y, int w, const double *vals, size_t n, double max,
		uint16_t attr);

/* The text of row y (characters only, UTF-8, trailing blanks removed) into
 * out[size]; for tests and the benchmark. Returns out. */
char *grid_row_text(const struct grid *g, int y, char *out, size_t size);

/*
 * Calls emit for every run of changed cells between the previous frame
 * `old` and `cur`, row by row, left to right; runs separated by fewer than
 * 4 unchanged cells are merged (one cursor move is dearer than a few cells).
 * When the sizes differ every cell of cur is changed. The cells passed are
 * cur's, borrowed for the call. Returns the number of cells emitted.
 */
typedef void (*grid_emit_fn)(void *ctx, int x, int y, const struct cell *cells, int n);
size_t grid_diff(const struct grid *old, const struct grid *cur, grid_emit_fn emit, void *ctx);

/* Makes dst an exact copy of src (size and cells); dst's ascii is kept. */
void grid_copy(struct grid *dst, const struct grid *src);

/* Encodes one code point as UTF-8 into out (at least 5 bytes, NUL
 * terminated); returns the byte length. */
int utf8_encode(uint32_t cp, char *out);

#endif
