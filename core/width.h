/*
 * width.h - how many terminal columns UTF-8 text takes, whatever the locale.
 *
 * A fixed table of code point ranges in the manner of Markus Kuhn's
 * wcwidth(): East Asian Wide and Fullwidth characters and the emoji of
 * U+1F300..U+1FAFF take two columns, combining marks and other zero-width
 * characters none, everything else one. gq ls and gq top lay out names
 * with it, so their columns do not move with LC_ALL or LC_CTYPE. Compact,
 * not complete: a script whose marks are not in the table counts them as
 * one column each. Not a validator of text (see label_valid() in util.h).
 */
#ifndef GQ_WIDTH_H
#define GQ_WIDTH_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the UTF-8 sequence at s (s[0] != 0) into *cp. Returns its length
 * in bytes (1..4), or -1 when it is not UTF-8 as RFC 3629 has it (a stray
 * continuation byte, a truncated sequence, an overlong form, a surrogate,
 * more than U+10FFFF); *cp is then U+FFFD and the caller skips one byte.
 * Never reads past a NUL. */
int utf8_decode(const char *s, uint32_t *cp);

/* The columns code point cp takes: 0, 1 or 2; -1 for a control character
 * (C0, DEL, C1: U+0080..U+009F), which has no width of its own. */
int uc_width(uint32_t cp);

/* The columns s takes on a terminal, each control character and each byte
 * that is not UTF-8 counting one (gq top draws them as '?'). */
size_t str_width(const char *s);

/* The length in bytes of the longest prefix of s that fits in cols columns
 * without cutting a character: a character is kept whole or not at all, and
 * the zero-width marks after the last kept character are kept with it.
 * *used (may be NULL) gets the columns the prefix takes. */
size_t str_cut(const char *s, size_t cols, size_t *used);

#endif
