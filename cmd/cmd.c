/*
 * cmd.c - the command table and the shared reporting of errors.
 */
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct cmd_entry *const cmd_table[] = {
#define CMD(name) &cmd_##name,
#include "commands.h"
#undef CMD
	NULL,
};

const struct cmd_entry *cmd_find(const char *name)
{
	for (size_t i = 0; cmd_table[i]; i++)
		if (!strcmp(cmd_table[i]->name, name))
			return cmd_table[i];
	return NULL;
}

int cmd_exit_code(enum gq_errcode code)
{
	switch (code) {
	case GQ_OK:
		return EXIT_OK;
	case GQ_EINVAL:
		return EXIT_USAGE;
	case GQ_ENOENT:
		return EXIT_NOJOB;
	case GQ_EPERM:
		return EXIT_DENIED;
	case GQ_EUNAVAIL:
		return EXIT_UNAVAIL;
	case GQ_ECONFLICT:
	case GQ_EIO:
	case GQ_ETOOBIG:
	case GQ_EINTERNAL:
		return EXIT_FAIL;
	}
	return EXIT_FAIL;
}

int cmd_fail(const struct gq_err *e)
{
	fprintf(stderr, "gq: %s\n", e->msg[0] ? e->msg : "unknown error");
	return cmd_exit_code(e->code);
}

int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gq %s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "; see 'gq %s -h'\n", c->name);
	va_end(ap);
	return EXIT_USAGE;
}

int cmd_print_usage(const struct cmd_entry *c)
{
	printf("usage: gq %s %s\n\n%s\n", c->name, c->usage, c->summary);
	return EXIT_OK;
}
