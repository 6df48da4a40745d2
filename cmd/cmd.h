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

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/job.h"
#include "core/util.h"
#include "explain/zone.h"

struct backend;
struct history_query;

/* Exit codes, documented in gq(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	  /* the action failed */
	EXIT_USAGE = 2,	  /* bad command line */
	EXIT_NOJOB = 3,	  /* no such job */
	EXIT_DENIED = 4,  /* not allowed for this user */
	EXIT_UNAVAIL = 5, /* no server / backend reachable */
};

enum cmd_flags {
	CMD_NEEDS_BACKEND = 1 << 0, /* connects to a scheduler (may auto-start gq serve) */
	CMD_HIDDEN = 1 << 1,	    /* internal, not listed by `gq help` */
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
/* The command nearest to a mistyped name (at most 2 edits: a letter added,
 * dropped, changed or two swapped, and fewer than the name's length), for
 * "did you mean" only: never run in its place. NULL when none is near;
 * ties go to the table's first. */
const struct cmd_entry *cmd_nearest(const char *name);

/* Prints "gq: <msg>" (one line) to stderr and returns the exit code that
 * fits e->code. */
int cmd_fail(const struct gq_err *e);
/* Prints "gq NAME: <msg>; see 'gq NAME -h'" and returns EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...) GQ_PRINTF(2, 3);
/* Prints "usage: gq NAME USAGE", the summary and the OPTIONS section of
 * the command's man page to stdout; returns EXIT_OK. */
int cmd_print_usage(const struct cmd_entry *c);
/* Exit code for an error class. */
int cmd_exit_code(enum gq_errcode code);

/* Runs c with argv (argv[0] = its name), resetting option parsing first so
 * that a command can run many times in one process (gq shell). */
int cmd_invoke(const struct cmd_entry *c, int argc, char **argv);

/*
 * Option parsing: getopt_long with gq's error messages. -h and --help are
 * added to every command. A shortopts starting with '+' stops at the first
 * operand (gq submit); otherwise options and operands may mix.
 * Returns the option's value, -1 after the last option (operands start at
 * optind), CMD_OPT_HELP after printing the usage, or CMD_OPT_ERROR after
 * printing a usage error. cmd_opt_exit() turns the last two into exit codes.
 */
enum { CMD_OPT_HELP = 0x1000, CMD_OPT_ERROR = 0x1001 };
int cmd_getopt(const struct cmd_entry *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);
int cmd_opt_exit(int opt);

/* The options of a command whose only option is --json: -1 to go on
 * (operands start at optind), else the exit code to return (-h, errors). */
int cmd_json_opts(const struct cmd_entry *c, int argc, char **argv, bool *json);
/* The same for a command that takes no operand either: an operand is a
 * usage error. */
int cmd_json_only(const struct cmd_entry *c, int argc, char **argv, bool *json);

/* The one JOB operand at optind: EXIT_OK with *id, or EXIT_USAGE after
 * saying that it is missing, extra or not a job id. */
int cmd_one_job(const struct cmd_entry *c, int argc, char **argv, int64_t *id);

/* An array's own id as gq why and gq show say it, one line: "Array #42:
 * tasks 0-9%2 (10): 3 pending, 2 running, 4 done, 1 failed, 0 cancelled;
 * at most 2 run at once (throttle %2)." range is array_format()'s. */
struct array_summary;
void cmd_array_line(int64_t id, const struct array_summary *a, const char *range);

/* Parses a job id ("42" or "#42"); EXIT_OK, or EXIT_USAGE after printing
 * "gq NAME: 'x' is not a job id ...". */
int cmd_job_arg(const struct cmd_entry *c, const char *s, int64_t *id);

/*
 * Opens the configured backend (auto-starting the user's own gq serve when
 * autostart). NULL after printing the error; *rc gets the exit code.
 */
struct backend *cmd_backend(bool autostart, int *rc);

/* cmd_backend (autostarting) and a snapshot from it into s (initialised
 * here). On success the caller owns both: snapshot_release(s) and
 * backend_close(). On failure prints the error, leaves s released, sets
 * *rc and returns NULL. */
struct backend *cmd_snapshot(struct snapshot *s, int *rc);
/* One line on stderr when s is a front's old data (snapshot.stale_since):
 * since when its scheduler is unreachable and how old the data is. */
void cmd_note_stale(struct backend *b, const struct snapshot *s);

/* --state STATE[,STATE...] into a bit per enum job_state: EXIT_OK, or
 * EXIT_USAGE after one line naming the word that is unknown or not among
 * allowed (a mask: every state, or the finished ones, which the line
 * names), with words, the allowed names ("pending, ... or timeout"). */
int cmd_parse_states(const struct cmd_entry *c, const char *arg, unsigned allowed,
		     const char *words, unsigned *out);
/* The backend's finished jobs for q (backend.h's history operation):
 * EXIT_OK with *jobs (the caller frees it with free()), or the exit code
 * after the one-line error, also when the backend keeps no history. */
int cmd_fetch_history(struct backend *b, const struct history_query *q, struct job **jobs,
		      size_t *n);

/*
 * The shape of cancel, hold, release, requeue and confirm: parses options
 * (none but -h) and one or more JOB operands, opens the backend, runs act on
 * each and prints "<done> job N" for each success. Every job is tried; the
 * exit code is that of the first failure.
 */
int cmd_job_action(const struct cmd_entry *c, int argc, char **argv,
		   int (*act)(struct backend *b, int64_t id, struct gq_err *e), const char *done);

/* Set by gq shell's SIGINT handler: following loops (logs -f, events -f)
 * stop when it is set. */
extern volatile int cmd_interrupted;

/* Colour on f: only on a terminal, never with NO_COLOR or TERM=dumb. */
bool cmd_color(FILE *f);
/* seq (one of the SGR_ strings) when on, else "". */
const char *cmd_sgr(bool on, const char *seq);
#define SGR_RESET "\033[0m"
#define SGR_BOLD "\033[1m"
#define SGR_DIM "\033[2m"
#define SGR_RED "\033[31m"
#define SGR_GREEN "\033[32m"
#define SGR_YELLOW "\033[33m"
#define SGR_BLUE "\033[34m"

/* The reader's time zone: this process's (TZ, else the system's), read
 * with localtime_r as a table of offsets a year around now (the
 * snapshot's: the server's clock may be set) and named by TZ or its
 * abbreviation. Every time gq shows is written in it (explain/zone.h).
 * Borrowed until the next call with a now far from this one's. */
const struct zone *cmd_zone(int64_t now);
/* Can the locale's charset print "×" and "…" (nl_langinfo(CODESET) is
 * UTF-8)? Explanations take it as a flag (explain.h). */
bool cmd_utf8(void);
/* The login name of the caller (getpwuid), "" when unknown; static. */
const char *cmd_user(void);
/* The reader's wall-clock time of t: "14:35" when on the same day as now,
 * else "Nov 30 14:35"; "-" for 0 (zone_time in cmd_zone()). Writes at
 * most size bytes; returns out. */
char *cmd_time(int64_t t, int64_t now, char *out, size_t size);
/* A time a user gives: "2030-01-01", "2030-01-01 08:00[:00]" or
 * "2030-01-01T08:00[:00]" (local time), or unix seconds. 0 with *out, or
 * -1 when s is none of these. */
int cmd_parse_time(const char *s, int64_t *out);
/* A --since / --until of gq history and gq stats: "now", "now-7d",
 * "now+1h" (relative to now, the server's clock; never below 0) or
 * cmd_parse_time's. EXIT_OK with *out, else a usage error about flag. */
int cmd_parse_when(const struct cmd_entry *c, const char *flag, const char *s, int64_t now,
		   int64_t *out);

#endif
