/*
 * cmd.h - the command table and what every command shares: exit codes,
 * error printing, option parsing conventions.
 *
 * A command lives in cmd/<name>.c, exports only its `const struct cmd_entry
 * cmd_<name>` and is listed once in cmd/commands.h. Names match exactly: no
 * prefix guessing.
 */
#ifndef GQ_CMD_H
#define GQ_CMD_H

#include "core/util.h"

/* Exit codes, documented in gq(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,    /* the action failed */
	EXIT_USAGE = 2,   /* bad command line */
	EXIT_NOJOB = 3,   /* no such job */
	EXIT_DENIED = 4,  /* not allowed for this user */
	EXIT_UNAVAIL = 5, /* no server / backend reachable */
};

enum cmd_flags {
	CMD_NEEDS_BACKEND = 1 << 0, /* connects to a scheduler (may auto-start gq serve) */
	CMD_HIDDEN = 1 << 1,        /* internal, not listed by `gq help` */
};

struct cmd_entry {
	const char *name;
	const char *usage;   /* the SYNOPSIS line(s) after "gq NAME ", as in the man page */
	const char *summary; /* one line, lower case, no full stop */
	unsigned flags;
	/* argv[0] is the command name; returns an exit code. */
	int (*exec)(int argc, char **argv);
};

#define CMD(name) extern const struct cmd_entry cmd_##name;
#include "commands.h"
#undef CMD

/* The table, in the order of commands.h; NULL-terminated. */
extern const struct cmd_entry *const cmd_table[];
/* Exact match; NULL when there is no such command. */
const struct cmd_entry *cmd_find(const char *name);

/* Prints "gq: <msg>" (one line) to stderr and returns the exit code that
 * fits e->code. */
int cmd_fail(const struct gq_err *e);
/* Prints "gq NAME: <msg>; see 'gq NAME -h'" and returns EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...) GQ_PRINTF(2, 3);
/* Prints "usage: gq NAME USAGE" and the summary to stdout; returns EXIT_OK. */
int cmd_print_usage(const struct cmd_entry *c);
/* Exit code for an error class. */
int cmd_exit_code(enum gq_errcode code);

#endif
