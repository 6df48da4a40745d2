/*
 * grid.c - the cell grid: clipped text, bars, sparklines, and the diff
 * between two frames. No terminal I/O here; see grid.h.
 */
#include "grid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/width.h"

void grid_init(struct grid *g, bool ascii)
{
	memset(g, 0, sizeof(*g));
	g->ascii = ascii;
}

void grid_release(struct grid *g)
{
	free(g->cells);
	g->cells = NULL;
	g->w = g->h = 0;
}

void grid_resize(struct grid *g, int w, int h)
{
	if (w < 0 || h < 0)
		BUG("grid_resize(%d, %d)", w, h);
	if (w != g->w || h != g->h) {
		free(g->cells);
		g->cells = xcalloc((size_t)w * (size_t)h + 1, sizeof(*g->cells));
		g->w = w;
		g->h = h;
	}
	grid_clear(g);
}

void grid_clear(struct grid *g)
{
	size_t n = (size_t)g->w * (size_t)g->h;
	for (size_t i = 0; i < n; i++)
		g->cells[i] = (struct cell){.ch = ' '};
}

struct cell *grid_at(const struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

int utf8_encode(uint32_t cp, char *out)
{
	int n;
	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		out[0] = (char)(0xf0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	out[n] = 0;
	return n;
}

/* Before cell x of row y is written: the wide character it is a half of
 * loses its other half too (a blank), so that no half is left alone. */
static void unwide(struct grid *g, int x, int y)
{
	struct cell *row = &g->cells[(size_t)y * (size_t)g->w];
	if (row[x].ch == GRID_TAIL && x > 0) {
		row[x - 1].ch = ' ';
		row[x - 1].mark = 0;
	}
	if (x + 1 < g->w && row[x + 1].ch == GRID_TAIL)
		row[x + 1].ch = ' ';
}

/* Writes one cell, (x, y) inside the grid. */
static void set_cell(struct grid *g, int x, int y, uint32_t ch, uint16_t attr)
{
	unwide(g, x, y);
	struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
	c->ch = ch;
	c->mark = 0;
	c->attr = attr;
}

int grid_put(struct grid *g, int x, int y, int maxw, uint16_t attr, const char *s)
{
	if (y < 0 || y >= g->h || !s)
		return 0;
	int end = maxw < 0 ? g->w : x + maxw;
	if (end > g->w)
		end = g->w;
	int col = x;
	while (*s && col < end) {
		uint32_t cp;
		int n = utf8_decode(s, &cp), w = n < 0 ? 1 : uc_width(cp);
		s += n < 0 ? 1 : n;
		if (n < 0 || w < 0 || cp == 0xfffd)
			cp = '?', w = 1;
		if (w == 0) {
			/* A mark goes with the character before it: one per cell,
			 * none in ASCII mode, where it could not be drawn. */
			struct cell *c = col > x ? grid_at(g, col - 1, y) : NULL;
			if (c && c->ch == GRID_TAIL)
				c = grid_at(g, col - 2, y);
			if (c && !c->mark && !g->ascii)
				c->mark = cp;
			continue;
		}
		if (col + w > end) /* a wide character is drawn whole or not at all */
			break;
		if (w == 2 && g->ascii) {
			for (int i = 0; i < 2; i++, col++)
				if (col >= 0)
					set_cell(g, col, y, '?', attr);
			continue;
		}
		if (col >= 0)
			set_cell(g, col, y, cp, attr);
		if (w == 2 && col + 1 >= 0)
			set_cell(g, col + 1, y, col >= 0 ? GRID_TAIL : ' ', attr);
		col += w;
	}
	return col - x;
}

int grid_printf(struct grid *g, int x, int y, int maxw, uint16_t attr, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return grid_put(g, x, y, maxw, attr, tmp);
}

int grid_put_right(struct grid *g, int x, int y, int w, uint16_t attr, const char *s)
{
	int tw = (int)str_width(s);
	if (tw >= w)
		return grid_put(g, x, y, w, attr, s);
	return grid_put(g, x + w - tw, y, tw, attr, s);
}

void grid_fill(struct grid *g, int x, int y, int w, int h, uint32_t ch, uint16_t attr)
{
	for (int r = y < 0 ? 0 : y; r < y + h && r < g->h; r++)
		for (int c = x < 0 ? 0 : x; c < x + w && c < g->w; c++)
			set_cell(g, c, r, ch, attr);
}

void grid_set_attr(struct grid *g, int x, int y, int w, uint16_t attr)
{
	if (y < 0 || y >= g->h)
		return;
	for (int c = x < 0 ? 0 : x; c < x + w && c < g->w; c++)
		g->cells[(size_t)y * (size_t)g->w + (size_t)c].attr = attr;
}

/* U+2581..U+2588: lower one eighth .. full block. */
static const uint32_t eighths[9] = {' ',    0x258f, 0x258e, 0x258d, 0x258c,
				    0x258b, 0x258a, 0x2589, 0x2588};

void grid_bar(struct grid *g, int x, int y, int w, double frac, uint16_t attr_on, uint16_t attr_off)
{
	if (w <= 0)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	int units = (int)(frac * w * 8 + 0.5);
	for (int i = 0; i < w; i++) {
		int u = units - i * 8;
		uint32_t ch;
		uint16_t attr = attr_on;
		if (u >= 8) {
			ch = g->ascii ? '#' : eighths[8];
		} else if (u > 0) {
			/* Partial blocks read as "some" in ASCII: round to a full one
			 * from half a cell on, so 1 of 16 GPUs still shows. */
			ch = g->ascii ? (u >= 4 ? '#' : '.') : eighths[u];
			if (g->ascii && u < 4)
				attr = attr_off;
		} else {
			ch = g->ascii ? '.' : ' ';
			attr = attr_off;
		}
		if (grid_at(g, x + i, y))
			set_cell(g, x + i, y, ch, attr);
	}
}

void grid_spark(struct grid *g, int x, int y, int w, const double *vals, size_t n, double max,
		uint16_t attr)
{
	static const uint32_t blocks[8] = {0x2581, 0x2582, 0x2583, 0x2584,
					   0x2585, 0x2586, 0x2587, 0x2588};
	static const char ascii[8] = {'_', '_', '.', '-', '-', '=', '^', '^'};
	if (w <= 0)
		return;
	size_t first = n > (size_t)w ? n - (size_t)w : 0;
	if (max <= 0)
		for (size_t i = first; i < n; i++)
			if (vals[i] > max)
				max = vals[i];
	for (size_t i = first; i < n; i++) {
		double v = vals[i] < 0 ? 0 : vals[i];
		int level = max > 0 ? (int)(v / max * 7 + 0.5) : 0;
		if (level > 7)
			level = 7;
		int cx = x + (int)(i - first);
		if (!grid_at(g, cx, y))
			continue;
		/* Zero stays visible as the lowest mark: a gap would read as "no data". */
		set_cell(g, cx, y, g->ascii ? (uint32_t)ascii[level] : blocks[level], attr);
	}
}

char *grid_row_text(const struct grid *g, int y, char *out, size_t size)
{
	size_t len = 0, keep = 0;
	if (size == 0)
		return out;
	out[0] = 0;
	for (int x = 0; y >= 0 && y < g->h && x < g->w; x++) {
		const struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
		char u[16];
		if (c->ch == GRID_TAIL)
			continue;
		int n = utf8_encode(c->ch, u);
		if (c->mark)
			n += utf8_encode(c->mark, u + n);
		if (len + (size_t)n + 1 > size)
			break;
		memcpy(out + len, u, (size_t)n);
		len += (size_t)n;
		if (u[0] != ' ')
			keep = len;
	}
	out[keep] = 0;
	return out;
}

static bool cell_eq(const struct cell *a, const struct cell *b)
{
	return a->ch == b->ch && a->mark == b->mark && a->attr == b->attr;
}

size_t grid_diff(const struct grid *old, const struct grid *cur, grid_emit_fn emit, void *ctx)
{
	bool all = !old || old->w != cur->w || old->h != cur->h;
	size_t total = 0;
	for (int y = 0; y < cur->h; y++) {
		const struct cell *row = &cur->cells[(size_t)y * (size_t)cur->w];
		const struct cell *orow = all ? NULL : &old->cells[(size_t)y * (size_t)old->w];
		int x = 0;
		while (x < cur->w) {
			if (orow && cell_eq(&row[x], &orow[x])) {
				x++;
				continue;
			}
			int start = x, last = x;
			for (x++; x < cur->w; x++) {
				if (!orow || !cell_eq(&row[x], &orow[x]))
					last = x;
				else if (x - last >= 4)
					break;
			}
			/* A wide character goes out whole, both its cells. */
			if (row[start].ch == GRID_TAIL && start > 0)
				start--;
			if (last + 1 < cur->w && row[last + 1].ch == GRID_TAIL)
				last++;
			int n = last - start + 1;
			emit(ctx, start, y, &row[start], n);
			total += (size_t)n;
			x = last + 1;
		}
	}
	return total;
}

void grid_copy(struct grid *dst, const struct grid *src)
{
	if (dst->w != src->w || dst->h != src->h)
		grid_resize(dst, src->w, src->h);
	memcpy(dst->cells, src->cells, (size_t)src->w * (size_t)src->h * sizeof(*src->cells));
}
