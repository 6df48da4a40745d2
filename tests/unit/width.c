/* width.c - display width by the fixed table of core/width.h (whatever the
 * locale: the tests run under LC_ALL=C) and the job name rule of core/job.h
 * (job_name_check, job_name_default). */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include "core/job.h"
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

static void test_job_names_are_utf8_without_controls(void)
{
	static const char *const good[] = {
	    "train.py",
	    "a b",
	    "тест名字🚀",
	    "训练 job.sh",
	    "a'b\"c",
	    "e\xcc\x81",
	    "é\xc2\xa0x",
	    /* 63 bytes: 21 three-byte characters */
	    "名名名名名名名名名名名名名名名名名名名名名",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct gq_err e = GQ_ERR_INIT;
		if (!CHECK_INT(job_name_check(good[i], &e), 0))
			printf("# '%s': %s\n", good[i], e.msg);
	}
	static const struct {
		const char *name, *msg;
	} bad[] = {
	    {"", "the job name is empty; give 1 to 63 bytes of text"},
	    {"a\nb", "job name 'a\\nb' has a control character; give a name without one"},
	    {"a\tb", "job name 'a\\tb' has a control character; give a name without one"},
	    {"\x1b[2J", "job name '\\x1b[2J' has a control character; give a name without one"},
	    {"a\x7f", "job name 'a\\x7f' has a control character; give a name without one"},
	    {"a\xc2\x85", "job name 'a\\u0085' has a control character; give a name without one"},
	    {"a\xff", "job name 'a\\xff' is not valid UTF-8 (byte 2); give it as UTF-8 text"},
	    {"\xc0\xaf",
	     "job name '\\xc0\\xaf' is not valid UTF-8 (byte 1); give it as UTF-8 text"},
	    {"\xed\xa0\x80", "job name '\\xed\\xa0\\x80' is not valid UTF-8 (byte 1); give it as "
			     "UTF-8 text"},
	    {"\xf4\x90\x80\x80", "job name '\\xf4\\x90\\x80\\x80' is not valid UTF-8 (byte 1); "
				 "give it as UTF-8 text"},
	    /* 64 bytes */
	    {"名名名名名名名名名名名名名名名名名名名名名x",
	     "job name '名名名名名名名名名名名名名名名名名名名名名x' is 64 bytes long; give at "
	     "most 63 (most CJK characters take 3 bytes, most emoji 4)"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gq_err e = GQ_ERR_INIT;
		CHECK_INT(job_name_check(bad[i].name, &e), -1);
		CHECK_INT(e.code, GQ_EINVAL);
		CHECK_STR(e.msg, bad[i].msg);
		CHECK(!strchr(e.msg, '\n'));
	}
}

static void test_default_name_is_the_file_name_as_given(void)
{
	static const struct {
		const char *path, *name;
	} cases[] = {
	    {"./训练 job.sh", "训练 job.sh"},
	    {"/home/u/train.py", "train.py"},
	    {"python3", "python3"},
	    {"dir/", "dir/"},
	    {"./a\nb.sh", "script"},
	    {"./\xff.sh", "script"},
	    /* 66 bytes: cut to 21 whole characters, 63 bytes */
	    {"名名名名名名名名名名名名名名名名名名名名名名",
	     "名名名名名名名名名名名名名名名名名名名名名"},
	    /* 64 bytes of ASCII: cut to 63 */
	    {"0123456789012345678901234567890123456789012345678901234567890123",
	     "012345678901234567890123456789012345678901234567890123456789012"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct job j;
		job_init(&j);
		job_name_default(&j, cases[i].path, "script");
		CHECK_STR(j.name, cases[i].name);
	}
}

void suite_width(void)
{
	RUN(test_code_point_widths);
	RUN(test_decodes_only_rfc3629_utf8);
	RUN(test_string_widths);
	RUN(test_cut_keeps_characters_whole);
	RUN(test_job_names_are_utf8_without_controls);
	RUN(test_default_name_is_the_file_name_as_given);
}
