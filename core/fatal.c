/*
 * fatal.c - the two ways gq dies: out of memory and BUG(). This is the one
 * file in core/ that writes (to stderr, just before abort()); the purity
 * check in the Makefile leaves it out for that reason alone.
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

void oom(size_t n)
{
	fprintf(stderr, "gq: fatal: out of memory (%zu bytes)\n", n);
	abort();
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gq: BUG at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
