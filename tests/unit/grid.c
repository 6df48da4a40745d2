/*
 * grid.c - unit tests of gq top's cell grid (tui/grid.c): clipping, UTF-8,
 * bars and sparklines in both modes, and the frame diff that keeps the
 * screen from flickering.
 */
#include "harness.h"

#include <string.h>

#include "tui/grid.h"

static char row[512];

static const char *text(const struct grid *g, int y)
{
	return grid_row_text(g, y, row, sizeof(row));
}

static void put_clips_at_the_right_edge(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 5, 2);
	CHECK_INT(grid_put(&g, 2, 0, -1, 0, "abcdef"), 3);
	CHECK_STR(text(&g, 0), "  abc");
	CHECK_INT(grid_put(&g, -2, 1, -1, 0, "xyzw"), 4);
	CHECK_STR(text(&g, 1), "zw");
	CHECK_INT(grid_put(&g, 0, 5, -1, 0, "out"), 0);
	CHECK_INT(grid_put(&g, 0, -1, -1, 0, "out"), 0);
	grid_release(&g);
}

static void put_respects_max_width(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 10, 1);
	CHECK_INT(grid_put(&g, 1, 0, 3, GA_BOLD, "abcdef"), 3);
	CHECK_STR(text(&g, 0), " abc");
	CHECK_INT(grid_at(&g, 1, 0)->attr, GA_BOLD);
	CHECK_INT(grid_at(&g, 4, 0)->attr, 0);
	grid_release(&g);
}

static void put_right_aligns_and_keeps_left_part(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 10, 2);
	grid_put_right(&g, 0, 0, 6, 0, "42");
	CHECK_STR(text(&g, 0), "    42");
	grid_put_right(&g, 0, 1, 3, 0, "12345");
	CHECK_STR(text(&g, 1), "123");
	grid_release(&g);
}

static void utf8_is_one_cell_per_code_point(void)
{
	struct grid g;
	grid_init(&g, false);
	grid_resize(&g, 6, 1);
	/* U+00E9 (2 bytes) and U+2588 (3 bytes) take one cell each. */
	CHECK_INT(grid_put(&g, 0, 0, -1, 0, "\xc3\xa9t\xe2\x96\x88"), 3);
	CHECK_INT(grid_at(&g, 0, 0)->ch, 0xe9);
	CHECK_INT(grid_at(&g, 1, 0)->ch, 't');
	grid_release(&g);
}

static void wide_characters_take_two_cells(void)
{
	struct grid g;
	grid_init(&g, false);
	grid_resize(&g, 12, 2);
	/* т е с т: one each; 名 字 🚀: two each; the next text starts at 10. */
	CHECK_INT(grid_put(&g, 0, 0, -1, 0, "тест名字🚀"), 10);
	grid_put(&g, 10, 0, -1, 0, "|");
	CHECK_STR(text(&g, 0), "тест名字🚀|");
	CHECK_INT(grid_at(&g, 4, 0)->ch, 0x540d);
	CHECK_INT(grid_at(&g, 5, 0)->ch, GRID_TAIL);
	/* Cut by columns: 名 fits in 5, 字 not in the one left, never half. */
	CHECK_INT(grid_put(&g, 0, 1, 5, 0, "ab名字"), 4);
	CHECK_STR(text(&g, 1), "ab名");
	CHECK_INT(grid_at(&g, 4, 1)->ch, ' ');
	grid_release(&g);
}

static void marks_ride_on_the_character_before(void)
{
	struct grid g;
	grid_init(&g, false);
	grid_resize(&g, 6, 1);
	CHECK_INT(grid_put(&g, 0, 0, -1, 0, "e\xcc\x81t"), 2); /* e + U+0301, t */
	CHECK_INT(grid_at(&g, 0, 0)->mark, 0x301);
	CHECK_INT(grid_at(&g, 1, 0)->ch, 't');
	CHECK_STR(text(&g, 0), "e\xcc\x81t");
	grid_release(&g);
}

static void ascii_mode_keeps_wide_columns(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 8, 1);
	CHECK_INT(grid_put(&g, 0, 0, -1, 0,
			   "a名e\xcc\x81"
			   "b"),
		  5);
	CHECK_STR(text(&g, 0), "a??eb");
	grid_release(&g);
}

static void overwriting_half_a_wide_character_blanks_the_other(void)
{
	struct grid g;
	grid_init(&g, false);
	grid_resize(&g, 6, 1);
	grid_put(&g, 0, 0, -1, 0, "名字");
	grid_put(&g, 1, 0, 1, 0, "x"); /* the right half of 名 */
	CHECK_STR(text(&g, 0), " x字");
	grid_put(&g, 2, 0, 1, 0, "y"); /* the left half of 字 */
	CHECK_STR(text(&g, 0), " xy");
	CHECK_INT(grid_at(&g, 3, 0)->ch, ' ');
	grid_release(&g);
}

static void control_and_invalid_bytes_become_question_marks(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 8, 1);
	grid_put(&g, 0, 0, -1, 0,
		 "a\tb\x1b"
		 "c\xff"
		 "d");
	CHECK_STR(text(&g, 0), "a?b?c?d");
	grid_release(&g);
}

static void bar_ascii_fills_proportionally(void)
{
	struct grid g;
	grid_init(&g, true);
	grid_resize(&g, 10, 3);
	grid_bar(&g, 0, 0, 8, 0.5, 1, 2);
	CHECK_STR(text(&g, 0), "####....");
	CHECK_INT(grid_at(&g, 0, 0)->attr, 1);
	CHECK_INT(grid_at(&g, 7, 0)->attr, 2);
	grid_bar(&g, 0, 1, 4, 2.0, 0, 0); /* clamped */
	CHECK_STR(text(&g, 1), "####");
	grid_bar(&g, 0, 2, 4, -1, 0, 0);
	CHECK_STR(text(&g, 2), "....");
	grid_release(&g);
}

static void bar_unicode_uses_eighths(void)
{
	struct grid g;
	grid_init(&g, false);
	grid_resize(&g, 4, 1);
	grid_bar(&g, 0, 0, 2, 0.5625, 0, 0); /* 9 of 16 eighths */
	CHECK_INT(grid_at(&g, 0, 0)->ch, 0x2588);
	CHECK_INT(grid_at(&g, 1, 0)->ch, 0x258f);
	grid_release(&g);
}

static void spark_scales_and_keeps_the_latest(void)
{
	struct grid g;
	double v[6] = {0, 1, 2, 3, 4, 8};
	grid_init(&g, true);
	grid_resize(&g, 6, 2);
	grid_spark(&g, 0, 0, 6, v, 6, 0, 0);
	CHECK_STR(text(&g, 0), "__.--^");
	grid_spark(&g, 0, 1, 2, v, 6, 8, 0); /* only the last two */
	CHECK_STR(text(&g, 1), "-^");
	grid_release(&g);
}

static void spark_unicode_uses_block_heights(void)
{
	struct grid g;
	double v[2] = {0, 10};
	grid_init(&g, false);
	grid_resize(&g, 2, 1);
	grid_spark(&g, 0, 0, 2, v, 2, 0, 0);
	CHECK_INT(grid_at(&g, 0, 0)->ch, 0x2581);
	CHECK_INT(grid_at(&g, 1, 0)->ch, 0x2588);
	grid_release(&g);
}

struct runs {
	int n;
	int x[16], y[16], len[16];
	char s[16][64];
};

static void collect(void *ctx, int x, int y, const struct cell *cells, int n)
{
	struct runs *r = ctx;
	if (r->n == 16)
		return;
	r->x[r->n] = x;
	r->y[r->n] = y;
	r->len[r->n] = n;
	for (int i = 0; i < n && i < 63; i++)
		r->s[r->n][i] = (char)cells[i].ch;
	r->s[r->n][n < 63 ? n : 63] = 0;
	r->n++;
}

static void diff_of_equal_frames_is_empty(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, true);
	grid_init(&b, true);
	grid_resize(&a, 20, 3);
	grid_resize(&b, 20, 3);
	grid_put(&a, 0, 1, -1, 0, "same text");
	grid_put(&b, 0, 1, -1, 0, "same text");
	CHECK_INT(grid_diff(&a, &b, collect, &r), 0);
	CHECK_INT(r.n, 0);
	grid_release(&a);
	grid_release(&b);
}

static void diff_emits_only_changed_runs(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, true);
	grid_init(&b, true);
	grid_resize(&a, 30, 3);
	grid_resize(&b, 30, 3);
	grid_put(&a, 0, 0, -1, 0, "job 41 pending  waited 5m");
	grid_put(&b, 0, 0, -1, 0, "job 41 running  waited 5m");
	grid_put(&b, 20, 2, -1, 0, "x");
	/* "pending" -> "running": cells 7, 8 and 10 differ; 9 is the same
	 * but inside the run. */
	CHECK_INT(grid_diff(&a, &b, collect, &r), 5);
	CHECK_INT(r.n, 2);
	CHECK_INT(r.y[0], 0);
	CHECK_INT(r.x[0], 7);
	CHECK_STR(r.s[0], "runn");
	CHECK_INT(r.y[1], 2);
	CHECK_INT(r.x[1], 20);
	CHECK_INT(r.len[1], 1);
	grid_release(&a);
	grid_release(&b);
}

static void diff_merges_runs_with_small_gaps(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, true);
	grid_init(&b, true);
	grid_resize(&a, 20, 1);
	grid_resize(&b, 20, 1);
	grid_put(&b, 0, 0, -1, 0, "a  b"); /* two changes 3 cells apart: one run */
	grid_put(&b, 12, 0, -1, 0, "c");   /* 8 cells further: its own run */
	grid_diff(&a, &b, collect, &r);
	CHECK_INT(r.n, 2);
	CHECK_INT(r.len[0], 4);
	CHECK_INT(r.x[1], 12);
	grid_release(&a);
	grid_release(&b);
}

static void diff_sees_attribute_changes(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, true);
	grid_init(&b, true);
	grid_resize(&a, 5, 1);
	grid_resize(&b, 5, 1);
	grid_put(&a, 0, 0, -1, 0, "abc");
	grid_put(&b, 0, 0, -1, GA_REVERSE, "abc");
	CHECK_INT(grid_diff(&a, &b, collect, &r), 3);
	grid_release(&a);
	grid_release(&b);
}

static void diff_after_resize_sends_everything(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, true);
	grid_init(&b, true);
	grid_resize(&a, 4, 2);
	grid_resize(&b, 5, 2);
	CHECK_INT(grid_diff(&a, &b, collect, &r), 10);
	CHECK_INT(r.n, 2);
	r.n = 0;
	CHECK_INT(grid_diff(NULL, &b, collect, &r), 10);
	grid_copy(&a, &b);
	CHECK_INT(grid_diff(&a, &b, collect, &r), 0);
	grid_release(&a);
	grid_release(&b);
}

static void diff_sends_wide_characters_whole(void)
{
	struct grid a, b;
	struct runs r = {0};
	grid_init(&a, false);
	grid_init(&b, false);
	grid_resize(&a, 10, 1);
	grid_resize(&b, 10, 1);
	grid_put(&a, 0, 0, -1, 0, "名");
	grid_put(&b, 0, 0, -1, 0, "名");
	grid_set_attr(&b, 1, 0, 1, GA_REVERSE); /* only the right half differs */
	grid_diff(&a, &b, collect, &r);
	CHECK_INT(r.n, 1);
	CHECK_INT(r.x[0], 0);
	CHECK_INT(r.len[0], 2);
	grid_release(&a);
	grid_release(&b);
}

void suite_grid(void)
{
	RUN(put_clips_at_the_right_edge);
	RUN(put_respects_max_width);
	RUN(put_right_aligns_and_keeps_left_part);
	RUN(utf8_is_one_cell_per_code_point);
	RUN(wide_characters_take_two_cells);
	RUN(marks_ride_on_the_character_before);
	RUN(ascii_mode_keeps_wide_columns);
	RUN(overwriting_half_a_wide_character_blanks_the_other);
	RUN(control_and_invalid_bytes_become_question_marks);
	RUN(bar_ascii_fills_proportionally);
	RUN(bar_unicode_uses_eighths);
	RUN(spark_scales_and_keeps_the_latest);
	RUN(spark_unicode_uses_block_heights);
	RUN(diff_of_equal_frames_is_empty);
	RUN(diff_emits_only_changed_runs);
	RUN(diff_merges_runs_with_small_gaps);
	RUN(diff_sees_attribute_changes);
	RUN(diff_after_resize_sends_everything);
	RUN(diff_sends_wide_characters_whole);
}
