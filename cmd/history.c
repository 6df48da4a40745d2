/*
 * history.c - `gq history`: the accounting history, as sacct gives it:
 * every finished job the server keeps (gq serve --keep-finished), with
 * its wait, runtime, GPU-hours and their price, filtered by end time,
 * user and state; a table, a --format template, --json or --csv. The rows'
 * figures are made here from the jobs; wire/history.h writes JSON and CSV.
 */
#include "cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "wire/history.h"

#define FINISHED                                                                                   \
	((1u << JOB_COMPLETED) | (1u << JOB_FAILED) | (1u << JOB_CANCELLED) | (1u << JOB_TIMEOUT))

/* charge: false where the scheduler's charge is not gq's tier prices
 * (Slurm's is its QOS usage factors, as gq stats says). */
static void make_row(struct history_row *r, const struct job *j, const struct policy *p,
		     bool charge)
{
	memset(r, 0, sizeof(*r));
	r->job = j;
	int64_t gs;
	r->wait = job_waited(j, j->end_time);
	/* Its runs only: not the time pending after a preemption or requeue. */
	job_run_time(j, j->end_time, &r->runtime, &gs);
	r->gpu_hours = (double)gs / 3600.0;
	r->charged = charge ? r->gpu_hours * p->tier[job_tier(j)].price : NAN;
}

/* ---- --format: {field} templates, as gq ls has them ---- */

static const char *const fields[] = {"id",	"name", "user",	     "queue",	"dept", "tier",
				     "state",	"exit", "submit",    "start",	"end",	"wait",
				     "runtime", "gpus", "gpu_hours", "charged", NULL};

static int field_index(const char *name, size_t len)
{
	for (int i = 0; fields[i]; i++)
		if (strlen(fields[i]) == len && !strncmp(fields[i], name, len))
			return i;
	return -1;
}

static int format_check(const struct cmd_entry *c, const char *fmt)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '{')
			continue;
		const char *close = strchr(p, '}');
		if (!close)
			return cmd_usage_error(c, "--format: '{' without '}' in '%s'", fmt);
		if (field_index(p + 1, (size_t)(close - p - 1)) < 0) {
			char known[256] = "";
			for (int i = 0; fields[i]; i++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s%s", i ? ", " : "", fields[i]);
			return cmd_usage_error(c, "--format: unknown field '%.*s'; known: %s",
					       (int)(close - p - 1), p + 1, known);
		}
		p = close;
	}
	return EXIT_OK;
}

static void field_text(const struct history_row *r, int f, int64_t now, char *out, size_t size)
{
	const struct job *j = r->job;
	char d[32];
	switch (f) {
	case 0: /* an array's task as sacct names it: 42_7 */
		if (j->array_id)
			snprintf(out, size, "%lld_%d", (long long)j->array_id, j->array_task);
		else
			snprintf(out, size, "%lld", (long long)j->id);
		break;
	case 1:
		snprintf(out, size, "%s", j->name);
		break;
	case 2:
		snprintf(out, size, "%s", j->user);
		break;
	case 3:
		snprintf(out, size, "%s", j->queue);
		break;
	case 4:
		snprintf(out, size, "%s", j->dept);
		break;
	case 5:
		snprintf(out, size, "%s", tier_name(job_tier(j)));
		break;
	case 6:
		snprintf(out, size, "%s", job_state_name(j->state));
		break;
	case 7:
		if (j->exit_status >= 0)
			snprintf(out, size, "%d", j->exit_status);
		else
			snprintf(out, size, "-");
		break;
	case 8:
	case 9:
	case 10: {
		int64_t t = f == 8 ? j->submit_time : f == 9 ? j->start_time : j->end_time;
		if (t > 0)
			zone_stamp(cmd_zone(now), t, false, out, size);
		else
			snprintf(out, size, "-");
		break;
	}
	case 11:
		snprintf(out, size, "%s", dur_format(r->wait, d, sizeof(d)));
		break;
	case 12:
		snprintf(out, size, "%s",
			 j->start_time > 0 ? dur_format(r->runtime, d, sizeof(d)) : "-");
		break;
	case 13:
		snprintf(out, size, "%d", j->req.gpus);
		break;
	case 14:
		snprintf(out, size, "%.2f", r->gpu_hours);
		break;
	default:
		if (isnan(r->charged))
			snprintf(out, size, "-");
		else
			snprintf(out, size, "%.2f", r->charged);
		break;
	}
}

static void format_print(const char *fmt, const struct history_row *r, int64_t now)
{
	for (const char *p = fmt; *p; p++) {
		if (*p == '\\' && p[1] == 't') {
			putchar('\t');
			p++;
		} else if (*p == '{') {
			const char *close = strchr(p, '}');
			char v[128];
			field_text(r, field_index(p + 1, (size_t)(close - p - 1)), now, v,
				   sizeof(v));
			fputs(v, stdout);
			p = close;
		} else {
			putchar(*p);
		}
	}
	putchar('\n');
}

static void table_print(const struct history_row *rows, size_t n, int64_t now)
{
	printf("%-6s %-16s %-10s %-8s %-4s %-9s %4s %-16s %-16s %7s %7s %4s %9s %8s\n", "ID",
	       "NAME", "USER", "QUEUE", "TIER", "STATE", "EXIT", "START", "END", "WAIT", "RUNTIME",
	       "GPUS", "GPU-HOURS", "CHARGED");
	for (size_t i = 0; i < n; i++) {
		char v[16][128];
		for (int f = 0; f < 16; f++)
			field_text(&rows[i], f, now, v[f], sizeof(v[f]));
		printf(
		    "%-6s %-16.16s %-10.10s %-8.8s %-4s %-9s %4s %-16s %-16s %7s %7s %4s %9s %8s\n",
		    v[0], v[1], v[2], v[3], v[5], v[6], v[7], v[9], v[10], v[11], v[12], v[13],
		    v[14], v[15]);
	}
}

static int history_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_history;
	static const struct option lo[] = {
	    {"since", required_argument, NULL, 'S'},  {"until", required_argument, NULL, 'U'},
	    {"user", required_argument, NULL, 'u'},   {"state", required_argument, NULL, 's'},
	    {"format", required_argument, NULL, 'f'}, {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},	      {0, 0, 0, 0},
	};
	const char *since = NULL, *until = NULL, *fmt = NULL;
	struct history_query q = {0};
	bool json = false, csv = false;
	int o, rc = EXIT_OK;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		switch (o) {
		case 'S':
			since = optarg;
			break;
		case 'U':
			until = optarg;
			break;
		case 'u':
			if (!optarg[0] || strlen(optarg) >= sizeof(((struct job *)0)->user))
				return cmd_usage_error(c, "--user: bad user name '%s'", optarg);
			q.user = optarg;
			break;
		case 's':
			if ((rc = cmd_parse_states(c, optarg, FINISHED,
						   "completed, failed, cancelled or timeout",
						   &q.states)) != EXIT_OK)
				return rc;
			break;
		case 'f':
			fmt = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'c':
			csv = true;
			break;
		default:
			return cmd_opt_exit(o);
		}
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	if ((json && csv) || (fmt && (json || csv)))
		return cmd_usage_error(c,
				       "--format, --json and --csv do not go together; pick one");
	if (fmt && (rc = format_check(c, fmt)) != EXIT_OK)
		return rc;
	/* Absolute dates are checked before anything is asked of a server. */
	int64_t t;
	if (since && strncmp(since, "now", 3) && (rc = cmd_parse_when(c, "--since", since, 0, &t)))
		return rc;
	if (until && strncmp(until, "now", 3) && (rc = cmd_parse_when(c, "--until", until, 0, &t)))
		return rc;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b)
		return rc;
	int64_t now = s.now;
	struct job *jobs = NULL;
	size_t n = 0;
	struct history_row *rows = NULL;
	if ((since && (rc = cmd_parse_when(c, "--since", since, now, &q.since)) != EXIT_OK) ||
	    (until && (rc = cmd_parse_when(c, "--until", until, now, &q.until)) != EXIT_OK))
		goto out;
	if (q.since && q.until && q.until <= q.since) {
		rc = cmd_usage_error(c, "--until '%s' is not after --since '%s'", until, since);
		goto out;
	}
	if ((rc = cmd_fetch_history(b, &q, &jobs, &n)) != EXIT_OK)
		goto out;
	rows = xcalloc(n ? n : 1, sizeof(*rows));
	size_t nrows = 0;
	for (size_t i = 0; i < n; i++) {
		/* A job the queue shows active is not finished: Slurm keeps the
		 * run a preemption ended, PREEMPTED, of a job it requeued. */
		const struct job *cur = snapshot_find(&s, jobs[i].id);
		if (cur && job_state_active(cur->state))
			continue;
		make_row(&rows[nrows++], &jobs[i], &s.policy, !b->ops->scheduler);
	}
	if (json || csv) {
		char *text = json ? wire_history_json(rows, nrows) : wire_history_csv(rows, nrows);
		fputs(text, stdout);
		if (json)
			putchar('\n');
		free(text);
	} else if (fmt) {
		for (size_t i = 0; i < nrows; i++)
			format_print(fmt, &rows[i], now);
	} else {
		table_print(rows, nrows, now);
	}
	rc = EXIT_OK;
out:
	free(rows);
	jobs_free(jobs, n);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_history = {
    .name = "history",
    .usage = "[--since DATE] [--until DATE] [--user USER] [--state STATE] "
	     "[--format FORMAT | --json | --csv]",
    .summary = "list finished jobs with their wait, runtime and GPU-hours, like sacct",
    .flags = CMD_NEEDS_BACKEND,
    .exec = history_exec,
};
