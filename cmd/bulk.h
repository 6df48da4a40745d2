/*
 * bulk.h - the shape of gq cancel, hold and release: job ids, id ranges
 * (12-20) and filters (--user, --name, --state, --queue), with a count and
 * a confirmation on a terminal when more than the named jobs are meant.
 */
#ifndef GQ_CMD_BULK_H
#define GQ_CMD_BULK_H

#include "backend/backend.h"
#include "cmd.h"

/*
 * Parses [--json] [--yes] [--user U] [--name N] [--state S,...]
 * [--queue Q] [JOB|FIRST-LAST...]. Plain ids alone are acted on as named,
 * as before (cmd_job_action's output). With a range or a filter, the jobs
 * of the backend's snapshot that match every filter and, when operands are
 * given, one of them are selected: of states (a mask of job states) unless
 * --state says otherwise, of the user running gq unless --user says
 * otherwise ("all" for everyone's). Their count and first ids are asked to
 * be confirmed when stdin is a terminal, unless --yes. Exit: the first
 * failure's code; 3 when nothing matches; 1 when not confirmed. held: 1
 * selects only held jobs, 0 only jobs not held, -1 either. With reason
 * not NULL, --reason TEXT is accepted too and *reason set to TEXT (else
 * left as it is), before act is called.
 */
int cmd_bulk_action(const struct cmd_entry *c, int argc, char **argv,
		    int (*act)(struct backend *b, int64_t id, struct gq_err *e), const char *done,
		    unsigned states, int held, const char **reason);

#endif
