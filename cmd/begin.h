/*
 * begin.h - `--begin TIME` for the commands that take one (submit, update,
 * run): checked as text at once, then read against the backend's clock
 * (gq serve's, manual in tests) once a backend is open.
 */
#ifndef GQ_CMD_BEGIN_H
#define GQ_CMD_BEGIN_H

#include <stdint.h>

#include "backend/backend.h"
#include "cmd.h"

/* EXIT_OK when arg is a begin time begin_parse reads, else EXIT_USAGE
 * after one line "gq CMD: WHERE--begin: ..." naming it. */
int cmd_begin_syntax(const struct cmd_entry *c, const char *where, const char *arg);

/* arg as an absolute time on b's clock (its manual clock when it has one,
 * else this machine's): EXIT_OK with *out, 0 for "now" or a time that is
 * now; EXIT_USAGE after one line when it is in the past. */
int cmd_begin_resolve(const struct cmd_entry *c, struct backend *b, const char *arg, int64_t *out);

#endif
