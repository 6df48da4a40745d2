/*
 * stats.c - `gq stats`: the server's metrics (DESIGN §6) — jobs by state,
 * GPUs busy, wait percentiles per queue and tier. The numbers are the
 * server's; this file only lays them out.
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "wire/cli.h"
#include "wire/history.h"

/* The window's first line: both ends with their dates when it spans more
 * than a day ("from Nov 30 19:45 to Dec 01 19:45, 24h"), its length, and
 * whether it begins at the server's start rather than where it was asked. */
static void window_render(const struct stats_report *r)
{
	const struct stats *st = &r->st;
	char t1[32], t2[32], len[16];
	/* to is exclusive: the last second counted is to - 1. */
	int64_t last = st->to - 1 > st->from ? st->to - 1 : st->from;
	cmd_time(st->from, r->now, t1, sizeof(t1));
	/* The end relative to the start: its date whenever the day changed. */
	cmd_time(last, st->from, t2, sizeof(t2));
	dur_format(st->to - st->from, len, sizeof(len));
	printf("from %s%s to %s, %s\n", t1,
	       r->started && st->from == r->started ? " (the server's start)" : "", t2, len);
}

static void stats_render(const struct stats_report *r)
{
	const struct stats *st = &r->st;
	char d1[16], d2[16], d3[16];
	window_render(r);
	printf("GPUs: %d, utilisation %.1f%%, %.1f GPU-hours used\n", st->gpus,
	       st->utilisation * 100, st->gpu_seconds / 3600);
	printf("jobs:");
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		printf(" %d %s%s", r->counts[s], job_state_name((enum job_state)s),
		       s + 1 < JOB_STATE_COUNT ? "," : "");
	printf("\n");
	if (st->ngroups) {
		printf("\n%-12s %-4s %6s %7s %7s %8s %5s %9s %8s %5s %12s %9s\n", "QUEUE", "TIER",
		       "STARTS", "P50", "P95", "LONGEST", "OVER", "OVERTAKEN", "PREEMPTS", "WOULD",
		       "LOST", "CANCELLED");
		unsigned nr = r->not_recorded;
		for (size_t i = 0; i < st->ngroups; i++) {
			const struct stats_group *g = &st->groups[i];
			char lost[24], over[16], overt[16], would[16];
			/* GPU-hours, as gq preemptions writes them. */
			snprintf(lost, sizeof(lost), "%.2f GPU-h", g->work_lost / 3600);
			snprintf(over, sizeof(over), "%d", g->over_limit);
			snprintf(overt, sizeof(overt), "%d", g->overtaken);
			snprintf(would, sizeof(would), "%d", g->would_preempt);
			printf("%-12s %-4s %6d %7s %7s %8s %5s %9s %8d %5s %12s %9d\n", g->queue,
			       tier_name(g->tier), g->starts,
			       /* no start, no wait to take a percentile of */
			       g->starts ? dur_format(g->p50_wait, d1, sizeof(d1)) : "-",
			       g->starts ? dur_format(g->p95_wait, d2, sizeof(d2)) : "-",
			       dur_format(g->longest_wait, d3, sizeof(d3)),
			       nr & STATS_NR_OVER_LIMIT ? "-" : over,
			       nr & STATS_NR_OVERTAKEN ? "-" : overt, g->preemptions,
			       nr & STATS_NR_WOULD_PREEMPT ? "-" : would,
			       nr & STATS_NR_WORK_LOST ? "-" : lost, g->cancelled);
		}
		if (nr & STATS_NR_OVERTAKEN)
			printf("OVER, OVERTAKEN, WOULD and LOST are not recorded on %s: its "
			       "accounting keeps times, not gq's events\n",
			       r->scheduler ? r->scheduler : "this scheduler");
		else if (nr) /* gq serve --slurm: from its events */
			printf("OVER, WOULD and LOST are not recorded on %s: gq's wait limits, "
			       "observe mode and checkpoints are not its\n",
			       r->scheduler ? r->scheduler : "this scheduler");
	}
	if (st->ndepts) {
		bool charged = !(r->not_recorded & STATS_NR_CHARGED);
		printf("\n%-12s %10s %10s\n", "DEPARTMENT", "GPU-HOURS", "CHARGED");
		for (size_t i = 0; i < st->ndepts; i++) {
			char c[24] = "-";
			if (charged)
				snprintf(c, sizeof(c), "%.2f", st->depts[i].charged);
			printf("%-12s %10.2f %10s\n", st->depts[i].dept, st->depts[i].gpu_hours, c);
		}
		if (!charged)
			printf("CHARGED is not computed on %s: its charges are its QOS' usage "
			       "factors, not gq's tier prices\n",
			       r->scheduler ? r->scheduler : "this scheduler");
	}
}

static int cmp_usage(const void *pa, const void *pb)
{
	return strcmp(((const struct usage_row *)pa)->name, ((const struct usage_row *)pb)->name);
}

/* gq stats --by user|dept: every finished job the server keeps, the
 * GPU-hours of its runs (job_run_time) and their price (the tier's price
 * factor). */
static int usage_by(bool dept, bool json)
{
	int rc;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b)
		return rc;
	struct history_query q = {0};
	struct job *jobs = NULL;
	size_t n = 0, nrows = 0, cap = 0;
	struct usage_row *rows = NULL;
	if ((rc = cmd_fetch_history(b, &q, &jobs, &n)) != EXIT_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		const char *key = dept ? j->dept : j->user;
		size_t k = 0;
		while (k < nrows && strcmp(rows[k].name, key))
			k++;
		if (k == nrows) {
			GROW(rows, cap, nrows + 1);
			memset(&rows[nrows], 0, sizeof(rows[0]));
			STR_COPY(rows[nrows].name, key);
			nrows++;
		}
		int64_t run, gs;
		job_run_time(j, j->end_time, &run, &gs);
		double gh = (double)gs / 3600.0;
		rows[k].jobs++;
		rows[k].gpu_hours += gh;
		rows[k].charged += gh * s.policy.tier[job_tier(j)].price;
	}
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_usage);
	if (json) {
		char *text = wire_usage_json(dept ? "dept" : "user", rows, nrows);
		printf("%s\n", text);
		free(text);
	} else {
		printf("%-16s %6s %10s %10s\n", dept ? "DEPARTMENT" : "USER", "JOBS", "GPU-HOURS",
		       "CHARGED");
		for (size_t i = 0; i < nrows; i++)
			printf("%-16s %6d %10.2f %10.2f\n", rows[i].name, rows[i].jobs,
			       rows[i].gpu_hours, rows[i].charged);
	}
	rc = EXIT_OK;
out:
	free(rows);
	jobs_free(jobs, n);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

static int stats_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_stats;
	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"by", required_argument, NULL, 'b'},
	    {"since", required_argument, NULL, 'S'},
	    {"until", required_argument, NULL, 'U'},
	    {0, 0, 0, 0},
	};
	bool json = false;
	const char *by = NULL, *since = NULL, *until = NULL;
	int o, rc;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == 'j')
			json = true;
		else if (o == 'b')
			by = optarg;
		else if (o == 'S')
			since = optarg;
		else if (o == 'U')
			until = optarg;
		else
			return cmd_opt_exit(o);
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	if (by && strcmp(by, "user") && strcmp(by, "dept"))
		return cmd_usage_error(c, "--by '%s': use user or dept", by);
	if (by && (since || until))
		return cmd_usage_error(c, "--by sums every finished job; it takes no --since or "
					  "--until");
	if (by)
		return usage_by(!strcmp(by, "dept"), json);
	/* Absolute dates are checked before anything is asked of a server. */
	int64_t from = 0, to = 0;
	bool relative =
	    (since && !strncmp(since, "now", 3)) || (until && !strncmp(until, "now", 3));
	if (since && strncmp(since, "now", 3) &&
	    (rc = cmd_parse_when(c, "--since", since, 0, &from)) != EXIT_OK)
		return rc;
	if (until && strncmp(until, "now", 3) &&
	    (rc = cmd_parse_when(c, "--until", until, 0, &to)) != EXIT_OK)
		return rc;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	struct gq_err e = GQ_ERR_INIT;
	struct stats_report r;
	/* A scheduler with its own records (Slurm's accounting) computes them
	 * itself; otherwise the stats need gq serve's records. */
	int fetched = b->ops->stats ? 0
		      : backend_records(b, "stats", &e) < 0
			  ? -1
			  : err_set(&e, GQ_EUNAVAIL, "this backend computes no metrics");
	if (fetched == 0 && relative) {
		/* now-7d is the server's now, which a first answer gives. */
		if ((fetched = b->ops->stats(b, 0, 0, &r, &e)) == 0) {
			int64_t now = r.now;
			stats_report_release(&r);
			if ((since && (rc = cmd_parse_when(c, "--since", since, now, &from))) ||
			    (until && (rc = cmd_parse_when(c, "--until", until, now, &to)))) {
				backend_close(b);
				return rc;
			}
		}
	}
	if (fetched == 0 && since && until && to <= from) {
		backend_close(b);
		return cmd_usage_error(c, "--until '%s' is not after --since '%s'", until, since);
	}
	/* The API's window: to 0 is now, from 0 a day before to. */
	if (fetched == 0 && since && !from)
		from = 1;
	if (fetched == 0)
		fetched = b->ops->stats(b, from, to, &r, &e);
	if (fetched < 0) {
		rc = cmd_fail(&e);
	} else {
		if (json)
			jout_stats(&r);
		else
			stats_render(&r);
		stats_report_release(&r);
		rc = EXIT_OK;
	}
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_stats = {
    .name = "stats",
    .usage = "[--since DATE] [--until DATE] [--by user|dept] [--json]",
    .summary = "print queue metrics: jobs by state, GPUs busy, wait percentiles",
    .flags = CMD_NEEDS_BACKEND,
    .exec = stats_exec,
};
