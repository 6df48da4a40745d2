/*
 * events.c - `gq events [-f]`: the scheduler's record of every state change
 * (DESIGN §6), oldest first; with -f, keeps printing new ones as they
 * happen (long-polling the server, not spinning).
 */
#include "cmd.h"

#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "wire/cli.h"

/* How long one long-poll waits for new events. */
#define FOLLOW_WAIT_MS 10000

static void print_event(const struct event *ev)
{
	char when[32];
	zone_stamp(cmd_zone(ev->time), ev->time, true, when, sizeof(when));
	char change[40];
	if (ev->from != ev->to)
		snprintf(change, sizeof(change), "%s->%s", job_state_name(ev->from),
			 job_state_name(ev->to));
	else
		snprintf(change, sizeof(change), "-");
	char job[24];
	if (ev->job)
		snprintf(job, sizeof(job), "#%lld", (long long)ev->job);
	else
		snprintf(job, sizeof(job), "-");
	printf("%6lld  %s  %-7s %-12s %-20s %-14s %s%s\n", (long long)ev->seq, when, job, ev->kind,
	       change, ev->actor[0] ? ev->actor : "-", ev->reason, ev->late ? " (seen late)" : "");
}

static int events_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_events;
	static const struct option lo[] = {
	    {"follow", no_argument, NULL, 'f'},
	    {"job", required_argument, NULL, 'J'},
	    {"after", required_argument, NULL, 'a'},
	    {"json", no_argument, NULL, 'j'},
	    {0, 0, 0, 0},
	};
	bool follow = false, json = false;
	int64_t job = 0, after = 0;
	struct gq_err e = GQ_ERR_INIT;
	int o, rc;
	while ((o = cmd_getopt(c, argc, argv, "f", lo)) != -1) {
		switch (o) {
		case 'f':
			follow = true;
			break;
		case 'j':
			json = true;
			break;
		case 'J':
			if ((rc = cmd_job_arg(c, optarg, &job)) != EXIT_OK)
				return rc;
			break;
		case 'a':
			if (parse_int64(optarg, 0, INT64_MAX / 2, &after, &e) < 0)
				return cmd_usage_error(
				    c, "--after: '%s' is not an event sequence number", optarg);
			break;
		default:
			return cmd_opt_exit(o);
		}
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s' (to see one job's events use --job %s)",
				       argv[optind], argv[optind]);
	rc = EXIT_OK;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	if (backend_records(b, "events", &e) < 0) {
		rc = cmd_fail(&e);
		backend_close(b);
		return rc;
	}
	struct event_list all = {0};
	cmd_interrupted = 0;
	if (!json)
		printf("%6s  %-19s  %-7s %-12s %-20s %-14s %s\n", "SEQ", "TIME", "JOB", "KIND",
		       "CHANGE", "ACTOR", "REASON");
	for (;;) {
		struct event_list page = {0};
		if (b->ops->events(b, after, 0, &page, &e) < 0) {
			rc = cmd_fail(&e);
			event_list_release(&page);
			break;
		}
		if (!page.n && follow) {
			if (b->ops->events(b, after, FOLLOW_WAIT_MS, &page, &e) < 0) {
				rc = cmd_fail(&e);
				event_list_release(&page);
				break;
			}
		}
		for (size_t i = 0; i < page.n; i++) {
			const struct event *ev = &page.items[i];
			if (ev->seq > after)
				after = ev->seq;
			if (job && ev->job != job)
				continue;
			if (json && follow) {
				jout_events(ev, 1, true);
			} else if (json) {
				GROW(all.items, all.cap, all.n + 1);
				all.items[all.n++] = *ev;
			} else {
				print_event(ev);
			}
		}
		fflush(stdout);
		bool empty = !page.n;
		event_list_release(&page);
		/* An output that cannot be written ends -f (main says why). */
		if (cmd_interrupted || (empty && !follow) || ferror(stdout))
			break;
	}
	if (json && !follow)
		jout_events(all.items, all.n, false);
	event_list_release(&all);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_events = {
    .name = "events",
    .usage = "[-f] [--job JOB] [--after SEQ] [--json]",
    .summary = "print the scheduler's events, oldest first",
    .flags = CMD_NEEDS_BACKEND,
    .exec = events_exec,
};
