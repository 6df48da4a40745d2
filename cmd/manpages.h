/*
 * manpages.h - the man pages of gq's commands, built into the binary as
 * plain text (generated at build time from man/gq*.1 by man/totext.awk), so
 * that `gq help CMD` and `gq CMD -h` show the text of the man page itself
 * and cannot drift from it.
 */
#ifndef GQ_MANPAGES_H
#define GQ_MANPAGES_H

/* The text of man page `page` ("gq", "gq-ls", ...), or NULL when there is
 * none. Static storage. */
const char *manpage_text(const char *page);

#endif
