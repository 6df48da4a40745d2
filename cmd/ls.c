/*
 * ls.c - `gq ls`: jobs in scheduling order — running ones, then pending
 * ones in the order they will be considered, then (with --all) finished
 * ones — with weight, time waited or run, ETA and wait reason, all
 * computed locally by core on one snapshot (explain/explain.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "cmd.h"

#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/array.h"
#include "core/order.h"
#include "core/width.h"
#include "explain/explain.h"
#include "wire/cli.h"

struct filter {
	bool all;
	unsigned states; /* bit per enum job_state; 0 = by --all */
	const char *user, *queue;
};

static bool keep(const struct filter *f, const struct job *j)
{
	if (f->states ? !(f->states & (1u << j->state)) : !f->all && !job_state_active(j->state))
		return false;
	if (f->user && strcmp(f->user, j->user))
		return false;
	if (f->queue && strcmp(f->queue, j->queue))
		return false;
	return true;
}

/* An unknown queue or user is an error, as squeue's unknown partition is,
 * not an empty table: a queue the policy (on Slurm, the partitions) does
 * not name; a user with no account here and no job in the snapshot. */
static int check_filter(const struct cmd_entry *c, const struct filter *f, const struct snapshot *s)
{
	if (f->queue && !policy_queue(&s->policy, f->queue)) {
		char names[256] = "";
		size_t len = 0;
		for (int i = 0; i < s->policy.nqueues && len < sizeof(names); i++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
						i ? ", " : "", s->policy.queues[i].name);
		return cmd_usage_error(c, "--queue: no queue '%s' (the queues: %s)", f->queue,
				       names);
	}
	if (f->user && !getpwnam(f->user)) {
		for (size_t i = 0; i < s->njobs; i++)
			if (!strcmp(s->jobs[i].user, f->user))
				return EXIT_OK;
		return cmd_usage_error(c, "--user: no user '%s' here and no job of theirs",
				       f->user);
	}
	return EXIT_OK;
}

static int cmp_end(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	if (x->end_time != y->end_time)
		return x->end_time < y->end_time ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The queue order (order.h), for qsort_r: arg points to the snapshot. */
static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct snapshot *s = *(const struct snapshot **)arg;
	const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
	return order_cmp(s, x, y, s->now);
}

/*
 * Folds the pending tasks of each array into the row of its first
 * (array_fold): ids[row] becomes "42_[3-99%8]" (the caller frees each),
 * the other tasks' rows are dropped. Rows [0, n); the pending ones start
 * at pend and end at fin; returns the new n.
 */
static size_t fold_arrays(const struct job **rows, size_t pend, size_t fin, size_t n, char **ids)
{
	size_t np = fin - pend;
	bool *drop = xmalloc((np ? np : 1) * sizeof(*drop));
	char(*label)[ARRAY_LABEL_MAX] = xmalloc((np ? np : 1) * sizeof(*label));
	array_fold(rows + pend, np, drop, label);
	for (size_t i = 0; i < np; i++) {
		if (drop[i])
			rows[pend + i] = NULL;
		else if (label[i][0])
			ids[pend + i] = xstrdup(label[i]);
	}
	free(drop);
	free(label);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i])
			continue;
		ids[k] = ids[i];
		rows[k++] = rows[i];
	}
	for (size_t i = k; i < n; i++)
		ids[i] = NULL;
	return k;
}

/* The rows in display order; caller frees the array. */
static const struct job **rows_of(const struct explain_set *x, const struct filter *f, size_t *n,
				  char **ids)
{
	const struct snapshot *s = x->s;
	const struct job **rows = xcalloc(s->njobs ? s->njobs : 1, sizeof(*rows));
	size_t k = 0;
	for (size_t i = 0; i < s->njobs; i++)
		if (job_state_holds_gpus(s->jobs[i].state) && keep(f, &s->jobs[i]))
			rows[k++] = &s->jobs[i];
	size_t pend = k;
	for (size_t i = 0; i < x->n; i++)
		if (keep(f, x->items[i].job))
			rows[k++] = x->items[i].job;
	if (s->order == ORDER_BACKEND) /* Slurm's priority order, across tiers */
		qsort_r(rows + pend, k - pend, sizeof(*rows), cmp_order, &s);
	size_t fin = k;
	for (size_t i = 0; i < s->njobs; i++)
		if (!job_state_active(s->jobs[i].state) && keep(f, &s->jobs[i]))
			rows[k++] = &s->jobs[i];
	qsort(rows + fin, k - fin, sizeof(*rows), cmp_end);
	*n = ids ? fold_arrays(rows, pend, fin, k, ids) : k;
	return rows;
}

/* The explanation of a row's job, NULL unless it is pending. */
static const struct explain *row_explain(const struct explain_set *x, const struct job *j)
{
	return j->state == JOB_PENDING ? explain_find(x, j->id) : NULL;
}

enum fld {
	F_ID,
	F_NAME,
	F_USER,
	F_QUEUE,
	F_TIER,
	F_STATE,
	F_GPUS,
	F_WEIGHT,
	F_POSITION,
	F_WAITED,
	F_TIME,
	F_ETA,
	F_REASON,
	F_SUBMIT_TIME,
	F_START_TIME,
	F_PREDICTED_START,
	F_COUNT,
};

static const char *const fld_names[F_COUNT] = {
    "id",	"name",	  "user", "queue", "tier",   "state",	    "gpus",	  "weight",
    "position", "waited", "time", "eta",   "reason", "submit_time", "start_time", "predicted_start",
};

/* The value of field f for job j (ex: row_explain's). */
static void field(const struct explain_set *x, const struct job *j, const struct explain *ex,
		  enum fld f, struct buf *out)
{
	int64_t start = ex ? explain_start(ex) : 0;
	int64_t now = x->s->now;
	char d[32];
	switch (f) {
	case F_ID:
		if (j->ext_array[0]) /* Slurm's pending record of an array's tasks */
			buf_printf(out, "%lld_[%s]", (long long)j->id, j->ext_array);
		else if (j->array_id)
			buf_printf(out, "%lld_%d", (long long)j->array_id, j->array_task);
		else
			buf_addint(out, j->id);
		break;
	case F_NAME:
		buf_addstr(out, j->name);
		break;
	case F_USER:
		buf_addstr(out, j->user);
		break;
	case F_QUEUE:
		buf_addstr(out, j->queue);
		break;
	case F_TIER:
		buf_addstr(out, tier_name(job_tier(j)));
		break;
	case F_STATE:
		buf_addstr(out, job_state_name(j->state));
		break;
	case F_GPUS:
		buf_addint(out, j->req.gpus);
		break;
	case F_WEIGHT: {
		/* Rows in order repeat weights: the last one's text is kept
		 * (printf's %.1f was a fifth of the table's time). */
		static __thread bool have;
		static __thread double last;
		static __thread char text[32];
		if (x->s->order == ORDER_BACKEND) { /* Slurm's priority decides */
			buf_addint(out, j->ext_prio);
			break;
		}
		double w = ex ? ex->why->weight : x->s->policy.tier[job_tier(j)].base;
		if (!have || w != last) {
			snprintf(text, sizeof(text), "%.1f", w);
			last = w;
			have = true;
		}
		buf_addstr(out, text);
		break;
	}
	case F_POSITION:
		if (ex)
			buf_addint(out, ex->why->position);
		else
			buf_addstr(out, "-");
		break;
	case F_WAITED: /* the JSON's "waited": the wait, not the run */
		buf_addstr(out, dur_format(job_waited(j, now), d, sizeof(d)));
		break;
	case F_TIME:
		if (j->state == JOB_PENDING)
			buf_addstr(out,
				   dur_format(job_waiting_since(j) ? now - job_waiting_since(j) : 0,
					      d, sizeof(d)));
		else if (job_state_holds_gpus(j->state) && j->start_time)
			buf_addstr(out, dur_format(now - j->start_time, d, sizeof(d)));
		else if (j->start_time && j->end_time) {
			int64_t ran, gs; /* its runs, not its pending time between */
			job_run_time(j, j->end_time, &ran, &gs);
			buf_addstr(out, dur_format(ran, d, sizeof(d)));
		} else
			buf_addstr(out, "-");
		break;
	case F_ETA:
		if (start)
			buf_addstr(out, start <= now ? "now" : cmd_time(start, now, d, sizeof(d)));
		else
			/* never under this snapshot; a limit gq cannot read: unknown */
			buf_addstr(out, !ex					     ? "-"
					: ex->pred && ex->pred->never == NEVER_LIMIT ? "unknown"
										     : "never");
		break;
	case F_REASON:
		if (ex)
			explain_short(ex, out);
		else if (j->end_reason[0] && !job_state_active(j->state))
			buf_addstr(out, j->end_reason); /* why the scheduler ended it */
		else
			buf_addstr(out, "-");
		if (ex && j->ext_reason[0]) /* the backend's own word beside */
			buf_printf(out, " [Slurm: %s]", j->ext_reason);
		break;
	case F_SUBMIT_TIME:
		buf_addint(out, j->submit_time);
		break;
	case F_START_TIME:
		buf_addint(out, j->start_time);
		break;
	case F_PREDICTED_START:
		buf_addint(out, start);
		break;
	case F_COUNT:
		BUG("ls: field %d", (int)f);
	}
}

/* A --format template, compiled: literal text and fields in turn. */
struct tpl {
	size_t n, cap;
	struct seg {
		enum fld f; /* F_COUNT: literal text */
		char *text;
	} * seg;
};

static void format_release(struct tpl *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->seg[i].text);
	free(t->seg);
	memset(t, 0, sizeof(*t));
}

static void seg_add(struct tpl *t, enum fld f, char *text)
{
	GROW(t->seg, t->cap, t->n + 1);
	t->seg[t->n++] = (struct seg){f, text};
}

/* Compiles a --format template: every {field} known, braces closed, "\t"
 * and "\n" for a tab and a newline. */
static int format_compile(const char *fmt, struct tpl *t)
{
	struct buf lit;
	buf_init(&lit, 0);
	for (const char *p = fmt;; p++) {
		if (*p && *p != '{') {
			if (*p == '\\' && (p[1] == 't' || p[1] == 'n'))
				buf_add(&lit, *++p == 't' ? "\t" : "\n", 1);
			else
				buf_add(&lit, p, 1);
			continue;
		}
		if (lit.len || !*p)
			seg_add(t, F_COUNT, buf_detach(&lit));
		if (!*p)
			break;
		const char *e = strchr(p, '}');
		if (!e) {
			format_release(t);
			return cmd_usage_error(&cmd_ls, "--format: '{' without '}' in '%s'", fmt);
		}
		size_t k = 0;
		while (k < F_COUNT && !((size_t)(e - p - 1) == strlen(fld_names[k]) &&
					!strncmp(p + 1, fld_names[k], (size_t)(e - p - 1))))
			k++;
		if (k == F_COUNT) {
			struct buf known;
			buf_init(&known, 0);
			for (size_t i = 0; i < F_COUNT; i++)
				buf_printf(&known, "%s%s", i ? ", " : "", fld_names[i]);
			format_release(t);
			int rc =
			    cmd_usage_error(&cmd_ls, "--format: unknown field '%.*s'; known: %s",
					    (int)(e - p + 1), p, known.data);
			buf_release(&known);
			return rc;
		}
		seg_add(t, (enum fld)k, NULL);
		p = e;
	}
	return EXIT_OK;
}

static void format_row(const struct explain_set *x, const struct job *j, const struct tpl *t,
		       struct buf *out)
{
	const struct explain *ex = row_explain(x, j);
	for (size_t i = 0; i < t->n; i++)
		if (t->seg[i].f == F_COUNT)
			buf_addstr(out, t->seg[i].text);
		else
			field(x, j, ex, t->seg[i].f, out);
	/* One job a line, as squeue -o; a template that ends its rows itself
	 * ("...\n") gets no second newline. */
	if (!out->len || out->data[out->len - 1] != '\n' || !t->n || t->seg[t->n - 1].f != F_COUNT)
		buf_addstr(out, "\n");
}

static const char *state_color(enum job_state s)
{
	switch (s) {
	case JOB_RUNNING:
	case JOB_STARTING:
		return SGR_GREEN;
	case JOB_PENDING:
		return SGR_YELLOW;
	case JOB_FAILED:
	case JOB_TIMEOUT:
		return SGR_RED;
	default:
		return SGR_DIM;
	}
}

/* Appends s cut to at most max columns (0: no cut) and padded with spaces
 * to width columns, on the left when right-aligned: printf's %-W.Ms and %Ws
 * without printf, which cost gq ls a fifth of its time at 10,000 rows, and
 * by display width (core/width.h), not bytes: a CJK character takes two
 * columns, a combining mark none, and none is cut in half. */
static void cell(struct buf *out, const char *s, size_t width, size_t max, bool right)
{
	static const char spaces[] = "                                ";
	size_t cols, n = str_cut(s, max ? max : SIZE_MAX, &cols);
	size_t pad = cols < width ? width - cols : 0;
	if (pad > sizeof(spaces) - 1)
		pad = sizeof(spaces) - 1;
	if (right)
		buf_add(out, spaces, pad);
	buf_add(out, s, n);
	if (!right)
		buf_add(out, spaces, pad);
}

/* The table's columns: field, heading, width, cut (0: none), alignment. */
static const struct column {
	enum fld f;
	const char *head;
	size_t width, max;
	bool right;
} columns[] = {
    {F_ID, "ID", 6, 0, true},		{F_USER, "USER", 10, 10, false},
    {F_NAME, "NAME", 16, 16, false},	{F_QUEUE, "QUEUE", 8, 8, false},
    {F_TIER, "TIER", 4, 0, false},	{F_STATE, "STATE", 9, 0, false},
    {F_GPUS, "GPUS", 4, 0, true},	{F_WEIGHT, "WEIGHT", 7, 63, true},
    {F_TIME, "TIME", 7, 63, true},	{F_ETA, "ETA", 12, 63, false},
    {F_REASON, "REASON", 0, 63, false},
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* Two spaces after the id, one between the others. */
static void column_gap(size_t k, struct buf *out)
{
	if (k)
		buf_add(out, k == 1 ? "  " : " ", k == 1 ? 2 : 1);
}

/* The text of field f: the job's own string where it has one, else
 * field() formatted into scratch. Valid until the next call. */
static const char *field_text(const struct explain_set *x, const struct job *j,
			      const struct explain *ex, enum fld f, struct buf *scratch)
{
	switch (f) {
	case F_NAME:
		return j->name;
	case F_USER:
		return j->user;
	case F_QUEUE:
		return j->queue;
	case F_TIER:
		if (j->ovr.set) { /* "P0*": overridden, as gq top marks it */
			buf_reset(scratch);
			buf_addstr(scratch, tier_name(job_tier(j)));
			buf_addstr(scratch, "*");
			return scratch->data;
		}
		return tier_name(job_tier(j));
	case F_STATE:
		return job_state_name(j->state);
	default:
		buf_reset(scratch);
		field(x, j, ex, f, scratch);
		return scratch->data ? scratch->data : "";
	}
}

static void table(const struct explain_set *x, const struct job **rows, char *const *ids, size_t n,
		  struct buf *out)
{
	/* About 100 bytes a row: sized once rather than doubled ten times. */
	GROW(out->data, out->cap, out->len + n * 128 + 256);
	bool color = cmd_color(stdout);
	buf_addstr(out, cmd_sgr(color, SGR_BOLD));
	for (size_t k = 0; k < NCOLUMNS; k++) {
		column_gap(k, out);
		cell(out, columns[k].head, columns[k].width, 0, columns[k].right);
	}
	buf_addstr(out, cmd_sgr(color, SGR_RESET));
	buf_add(out, "\n", 1);
	struct buf f;
	buf_init(&f, 0);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = rows[i];
		const struct explain *ex = row_explain(x, j);
		for (size_t k = 0; k < NCOLUMNS; k++) {
			const struct column *c = &columns[k];
			column_gap(k, out);
			bool paint = c->f == F_STATE;
			if (paint)
				buf_addstr(out, cmd_sgr(color, state_color(j->state)));
			const char *text =
			    c->f == F_ID && ids[i] ? ids[i] : field_text(x, j, ex, c->f, &f);
			cell(out, text, c->width, c->max, c->right);
			if (paint)
				buf_addstr(out, cmd_sgr(color, SGR_RESET));
		}
		buf_add(out, "\n", 1);
	}
	buf_release(&f);
}

static int ls_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_ls;
	static const struct option lo[] = {
	    {"all", no_argument, NULL, 'a'},
	    {"state", required_argument, NULL, 's'},
	    {"user", required_argument, NULL, 'u'},
	    {"queue", required_argument, NULL, 'q'},
	    {"json", no_argument, NULL, 'j'},
	    {"format", required_argument, NULL, 'f'},
	    {0, 0, 0, 0},
	};
	struct filter f = {0};
	bool json = false;
	const char *fmt = NULL;
	int o, rc = EXIT_OK;
	while ((o = cmd_getopt(c, argc, argv, "a", lo)) != -1) {
		switch (o) {
		case 'a':
			f.all = true;
			break;
		case 's':
			if ((rc = cmd_parse_states(
				 c, optarg, ~0u,
				 "pending, starting, running, stopping, completed, "
				 "failed, cancelled or timeout",
				 &f.states)) != EXIT_OK)
				return rc;
			break;
		case 'u':
			if (!name_valid(optarg))
				return cmd_usage_error(c, "--user: bad user name '%s'", optarg);
			f.user = optarg;
			break;
		case 'q':
			if (!name_valid(optarg))
				return cmd_usage_error(c, "--queue: bad queue name '%s'", optarg);
			f.queue = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			fmt = optarg;
			break;
		default:
			return cmd_opt_exit(o);
		}
	}
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s' (for one job use 'gq show %s')",
				       argv[optind], argv[optind]);
	if (json && fmt)
		return cmd_usage_error(c, "--json and --format do not go together; pick one");
	if (fmt && !*fmt)
		return cmd_usage_error(c, "--format: empty template; give fields such as "
					  "'{id} {state}'");
	struct tpl tpl = {0};
	if (fmt && (rc = format_compile(fmt, &tpl)) != EXIT_OK)
		return rc;
	struct snapshot s;
	struct backend *b = cmd_snapshot(&s, &rc);
	if (!b) {
		format_release(&tpl);
		return rc;
	}
	if ((rc = check_filter(c, &f, &s)) != EXIT_OK) {
		format_release(&tpl);
		snapshot_release(&s);
		backend_close(b);
		return rc;
	}
	struct explain_set x;
	explain_compute(&s, cmd_zone(s.now), &x);
	size_t n;
	/* The table folds pending arrays; --json and --format list each task. */
	char **ids = json || fmt ? NULL : xcalloc(s.njobs + 1, sizeof(*ids));
	const struct job **rows = rows_of(&x, &f, &n, ids);
	if (json) {
		jout_ls(&x, rows, n);
	} else {
		struct buf out;
		buf_init(&out, 0);
		if (fmt)
			for (size_t i = 0; i < n; i++)
				format_row(&x, rows[i], &tpl, &out);
		else
			table(&x, rows, ids, n, &out);
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		buf_release(&out);
	}
	for (size_t i = 0; ids && i < n; i++)
		free(ids[i]);
	free(ids);
	free(rows);
	format_release(&tpl);
	explain_release(&x);
	snapshot_release(&s);
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_ls = {
    .name = "ls",
    .usage = "[--all] [--state STATE] [--user USER] [--queue QUEUE] [--json | --format FORMAT]",
    .summary = "list jobs in scheduling order, with weight, wait, ETA and reason",
    .flags = CMD_NEEDS_BACKEND,
    .exec = ls_exec,
};
