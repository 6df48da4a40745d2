/*
 * grid.c - the cell grid: clipped text, bars, sparklines, and the diff
 * between two frames. No terminal I/O here; see grid.h.
 */
#include "grid.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	for (size_t i = 0; i < n; i++) {
		g->cells[i].ch = ' ';
		g->cells[i].attr = 0;
	}
}

struct cell *grid_at(const struct grid *g, int x, int y)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return NULL;
	return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

/* Decodes one UTF-8 sequence from s; *cp gets the code point or 0xFFFD for
 * a malformed one. Returns the bytes consumed (>= 1). */
static int utf8_decode(const unsigned char *s, uint32_t *cp)
{
	int n;
	uint32_t c = s[0], min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return i;
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*cp = (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) ? 0xfffd : c;
	return n;
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

/* Code points that take zero or two columns (combining marks, East Asian
 * wide and fullwidth forms, emoji): a fixed table rather than wcwidth(), so
 * that the grid is the same whatever the locale. */
static const uint32_t not_one[][2] = {
    {0x0300, 0x036f},	{0x0483, 0x0489}, {0x0591, 0x05bd}, {0x0610, 0x061a},	{0x064b, 0x065f},
    {0x1100, 0x115f},	{0x200b, 0x200f}, {0x2028, 0x202e}, {0x2060, 0x206f},	{0x20d0, 0x20ff},
    {0x2e80, 0x303e},	{0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},	{0xa000, 0xa4cf},
    {0xac00, 0xd7a3},	{0xf900, 0xfaff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f},	{0xfe30, 0xfe4f},
    {0xfeff, 0xfeff},	{0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x1f000, 0x1faff}, {0x20000, 0x3fffd},
    {0xe0000, 0xe0fff},
};

/* One column per cell: anything else is shown as '?'. */
static uint32_t one_column(uint32_t cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0xfffd)
		return '?';
	for (size_t i = 0; cp >= 0x300 && i < sizeof(not_one) / sizeof(not_one[0]); i++)
		if (cp >= not_one[i][0] && cp <= not_one[i][1])
			return '?';
	return cp;
}

int grid_put(struct grid *g, int x, int y, int maxw, uint16_t attr, const char *s)
{
	if (y < 0 || y >= g->h || !s)
		return 0;
	int end = maxw < 0 ? g->w : x + maxw;
	if (end > g->w)
		end = g->w;
	int col = x;
	const unsigned char *p = (const unsigned char *)s;
	while (*p && col < end) {
		uint32_t cp;
		p += utf8_decode(p, &cp);
		if (col >= 0) {
			struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)col];
			c->ch = one_column(cp);
			c->attr = attr;
		}
		col++;
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

/* Columns that s takes (one per code point). */
static int text_width(const char *s)
{
	int n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p & 0xc0) != 0x80)
			n++;
	return n;
}

int grid_put_right(struct grid *g, int x, int y, int w, uint16_t attr, const char *s)
{
	int tw = text_width(s);
	if (tw >= w)
		return grid_put(g, x, y, w, attr, s);
	return grid_put(g, x + w - tw, y, tw, attr, s);
}

void grid_fill(struct grid *g, int x, int y, int w, int h, uint32_t ch, uint16_t attr)
{
	for (int r = y < 0 ? 0 : y; r < y + h && r < g->h; r++)
		for (int c = x < 0 ? 0 : x; c < x + w && c < g->w; c++) {
			struct cell *cl = &g->cells[(size_t)r * (size_t)g->w + (size_t)c];
			cl->ch = ch;
			cl->attr = attr;
		}
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
		struct cell *c = grid_at(g, x + i, y);
		if (c) {
			c->ch = ch;
			c->attr = attr;
		}
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
		struct cell *c = grid_at(g, x + (int)(i - first), y);
		if (!c)
			continue;
		/* Zero stays visible as the lowest mark: a gap would read as "no data". */
		c->ch = g->ascii ? (uint32_t)ascii[level] : blocks[level];
		c->attr = attr;
	}
}

char *grid_row_text(const struct grid *g, int y, char *out, size_t size)
{
	size_t len = 0, keep = 0;
	if (size == 0)
		return out;
	out[0] = 0;
	for (int x = 0; y >= 0 && y < g->h && x < g->w; x++) {
		char u[8];
		int n = utf8_encode(g->cells[(size_t)y * (size_t)g->w + (size_t)x].ch, u);
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
	return a->ch == b->ch && a->attr == b->attr;
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
