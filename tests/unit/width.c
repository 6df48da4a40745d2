/* width.c - display width by the fixed table of core/width.h (whatever the
 * locale: the tests run under LC_ALL=C). */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "core/width.h"

static void test_code_point_widths(void)
{
	static const struct {
		uint32_t cp;
		int w;
	} cases[] = {
	    /* one column: a, space, ~, é, т, █, €, halfwidth ｡, U+1F700, U+10FFFF */
	    {'a', 1},
	    {' ', 1},
	    {'~', 1},
	    {0x00e9, 1},
	    {0x0442, 1},
	    {0x2588, 1},
	    {0x20ac, 1},
	    {0xff61, 1},
	    {0x1f700, 1},
	    {0x10ffff, 1},
	    {0xa0, 1},
	    /* combining marks, ZWJ, VS16, the kana voicing mark: none */
	    {0x0301, 0},
	    {0x036f, 0},
	    {0x200d, 0},
	    {0xfe0f, 0},
	    {0x3099, 0},
	    /* CJK, kana, Hangul, fullwidth, emoji, CJK Ext B: two */
	    {0x540d, 2},
	    {0x5b57, 2},
	    {0x3042, 2},
	    {0xac00, 2},
	    {0xff21, 2},
	    {0x1f680, 2},
	    {0x1f600, 2},
	    {0x1f9ea, 2},
	    {0x2615, 2},
	    {0x20000, 2},
	    /* C0, DEL, C1: controls */
	    {0x00, -1},
	    {0x0a, -1},
	    {0x1b, -1},
	    {0x7f, -1},
	    {0x80, -1},
	    {0x85, -1},
	    {0x9b, -1},
	    {0x9f, -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!CHECK_INT(uc_width(cases[i].cp), cases[i].w))
			printf("# U+%04X\n", (unsigned)cases[i].cp);
}

static void test_decodes_only_rfc3629_utf8(void)
{
	uint32_t cp;
	CHECK_INT(utf8_decode("a", &cp), 1);
	CHECK_INT(cp, 'a');
	CHECK_INT(utf8_decode("\xc3\xa9", &cp), 2);
	CHECK_INT(cp, 0xe9);
	CHECK_INT(utf8_decode("\xe5\x90\x8d", &cp), 3);
	CHECK_INT(cp, 0x540d);
	CHECK_INT(utf8_decode("\xf0\x9f\x9a\x80", &cp), 4);
	CHECK_INT(cp, 0x1f680);
	CHECK_INT(utf8_decode("\xf4\x8f\xbf\xbf", &cp), 4); /* U+10FFFF */
	static const char *const bad[] = {
	    "\x80",		/* a stray continuation byte */
	    "\xc0\xaf",		/* overlong '/' */
	    "\xc1\xbf",		/* overlong */
	    "\xe0\x80\xaf",	/* overlong, three bytes */
	    "\xf0\x80\x80\xaf", /* overlong, four bytes */
	    "\xed\xa0\x80",	/* U+D800, a surrogate */
	    "\xed\xbf\xbf",	/* U+DFFF */
	    "\xf4\x90\x80\x80", /* U+110000 */
	    "\xf5\x80\x80\x80", /* past U+10FFFF */
	    "\xff",
	    "\xe5\x90", /* truncated at the NUL */
	    "\xe5\x90"
	    "a", /* a continuation that is not */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!CHECK_INT(utf8_decode(bad[i], &cp), -1))
			printf("# case %zu\n", i);
		CHECK_INT(cp, 0xfffd);
	}
}

static void test_string_widths(void)
{
	CHECK_INT(str_width(""), 0);
	CHECK_INT(str_width("train"), 5);
	CHECK_INT(str_width("тест名字🚀"), 10);
	CHECK_INT(str_width("训练 job.sh"), 11);
	CHECK_INT(str_width("e\xcc\x81t\xc3\xa9"), 3); /* e + U+0301, t, é */
	CHECK_INT(str_width("a\xff"
			    "b"),
		  3);			 /* a byte that is not UTF-8: one */
	CHECK_INT(str_width("a\tb"), 3); /* a control: one, drawn '?' */
}

static void test_cut_keeps_characters_whole(void)
{
	size_t used = 99;
	CHECK_INT(str_cut("abcdef", 4, &used), 4);
	CHECK_INT(used, 4);
	CHECK_INT(str_cut("abc", 10, &used), 3);
	CHECK_INT(used, 3);
	/* 名字: 2 + 2 columns; 3 columns hold the first only. */
	CHECK_INT(str_cut("名字", 3, &used), 3);
	CHECK_INT(used, 2);
	CHECK_INT(str_cut("名字", 1, &used), 0);
	CHECK_INT(used, 0);
	CHECK_INT(str_cut("名字", 4, &used), 6);
	CHECK_INT(used, 4);
	/* The emoji (4 bytes, 2 columns) whole or not at all. */
	CHECK_INT(str_cut("ab🚀", 3, &used), 2);
	CHECK_INT(str_cut("ab🚀", 4, &used), 6);
	/* A mark stays with its character. */
	CHECK_INT(str_cut("e\xcc\x81x", 1, &used), 3);
	CHECK_INT(used, 1);
	CHECK_INT(str_cut("x", 0, NULL), 0);
}

void suite_width(void)
{
	RUN(test_code_point_widths);
	RUN(test_decodes_only_rfc3629_utf8);
	RUN(test_string_widths);
	RUN(test_cut_keeps_characters_whole);
}
