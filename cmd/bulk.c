/*
 * bulk.c - acting on many jobs at once (bulk.h): the selection and the
 * confirmation. What each job's action does is the backend's.
 */
#include "bulk.h"

#include <ctype.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire/cli.h"

#define MAX_OPERANDS 256

struct range {
	int64_t lo, hi;
};

/* "42", "#42" or "12-20". */
static int parse_operand(const struct cmd_entry *c, const char *s, struct range *r, bool *is_range)
{
	const char *dash = strchr(s, '-');
	*is_range = false;
	if (!dash || dash == s) {
		/* Its own exit: 3 for a task no array has (42_99). */
		int rc = cmd_job_arg(c, s, &r->lo);
		r->hi = r->lo;
		return rc;
	}
	char first[32];
	if ((size_t)(dash - s) >= sizeof(first))
		return cmd_usage_error(c, "'%s' is not a job id or a range like 12-20", s);
	memcpy(first, s, (size_t)(dash - s));
	first[dash - s] = '\0';
	struct gq_err e = GQ_ERR_INIT;
	if (!isdigit((unsigned char)first[0]) || !isdigit((unsigned char)dash[1]) ||
	    parse_int64(first, 1, INT64_MAX / 2, &r->lo, &e) < 0 ||
	    parse_int64(dash + 1, 1, INT64_MAX / 2, &r->hi, &e) < 0)
		return cmd_usage_error(c, "'%s' is not a job id or a range like 12-20", s);
	if (r->hi < r->lo)
		return cmd_usage_error(c, "range '%s' ends before it starts; write it as %lld-%lld",
				       s, (long long)r->hi, (long long)r->lo);
	*is_range = true;
	return EXIT_OK;
}

/* Asks on the terminal; true for y or yes. */
static bool confirm(const struct cmd_entry *c, const int64_t *ids, size_t n)
{
	fprintf(stderr, "%s %zu job%s (", c->name, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 10; i++)
		fprintf(stderr, "%s%lld", i ? ", " : "", (long long)ids[i]);
	fprintf(stderr, "%s)? [y/N] ", n > 10 ? ", ..." : "");
	fflush(stderr);
	char line[16];
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return !strcmp(line, "y\n") || !strcmp(line, "yes\n") || !strcmp(line, "Y\n");
}

int cmd_bulk_action(const struct cmd_entry *c, int argc, char **argv,
		    int (*act)(struct backend *b, int64_t id, struct gq_err *e), const char *done,
		    unsigned states, int held, const char **reason)
{
	enum { O_JSON = 0x100, O_YES, O_USER, O_NAME, O_STATE, O_QUEUE, O_REASON };
	static const struct option lo[] = {
	    {"json", no_argument, NULL, O_JSON},
	    {"yes", no_argument, NULL, O_YES},
	    {"user", required_argument, NULL, O_USER},
	    {"name", required_argument, NULL, O_NAME},
	    {"state", required_argument, NULL, O_STATE},
	    {"queue", required_argument, NULL, O_QUEUE},
	    {"reason", required_argument, NULL, O_REASON},
	    {0, 0, 0, 0},
	};
	bool json = false, yes = false, filtered = false;
	const char *user = NULL, *name = NULL, *queue = NULL;
	int o, rc;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		switch (o) {
		case O_JSON:
			json = true;
			break;
		case O_YES:
			yes = true;
			break;
		case O_USER:
			user = optarg;
			filtered = true;
			break;
		case O_NAME:
			name = optarg;
			filtered = true;
			break;
		case O_QUEUE:
			queue = optarg;
			filtered = true;
			break;
		case O_REASON: /* only for a command that keeps one (gq hold) */
			if (!reason)
				return cmd_usage_error(c, "unknown option '--reason'");
			*reason = optarg;
			break;
		case O_STATE:
			if ((rc = cmd_parse_states(c, optarg, (1u << JOB_STATE_COUNT) - 1,
						   "pending, starting, running, stopping, "
						   "completed, failed, cancelled or timeout",
						   &states)) != EXIT_OK)
				return rc;
			filtered = true;
			break;
		default:
			return cmd_opt_exit(o);
		}
	}
	int nops = argc - optind;
	if (nops > MAX_OPERANDS)
		return cmd_usage_error(c, "at most %d job ids or ranges; use a filter",
				       MAX_OPERANDS);
	struct range ranges[MAX_OPERANDS];
	bool any_range = false;
	for (int i = 0; i < nops; i++) {
		bool r;
		if ((rc = parse_operand(c, argv[optind + i], &ranges[i], &r)) != EXIT_OK)
			return rc;
		any_range |= r;
	}
	if (!filtered && !nops)
		return cmd_usage_error(c, "no job given; name one or more job ids");
	bool bulk = filtered || any_range;
	struct backend *b = NULL;
	int64_t *ids = NULL;
	size_t n = 0;
	if (!bulk) { /* the jobs as named, each tried, as ever */
		if (!(b = cmd_backend(true, &rc)))
			return rc;
		ids = xcalloc((size_t)nops, sizeof(*ids));
		for (int i = 0; i < nops; i++)
			ids[n++] = ranges[i].lo;
		goto act;
	}

	/* The selection, from one snapshot. */
	char me[64] = "";
	if (!user) {
		struct passwd *pw = getpwuid(getuid());
		snprintf(me, sizeof(me), "%s", pw ? pw->pw_name : "");
		user = me;
	}
	struct snapshot s;
	if (!(b = cmd_snapshot(&s, &rc)))
		return rc;
	ids = xcalloc(s.njobs ? s.njobs : 1, sizeof(*ids));
	for (size_t i = 0; i < s.njobs; i++) {
		const struct job *j = &s.jobs[i];
		if (!(states & (1u << j->state)) ||
		    (strcmp(user, "all") && strcmp(user, j->user)) ||
		    (name && strcmp(name, j->name)) || (queue && strcmp(queue, j->queue)) ||
		    (held >= 0 && j->held != (held == 1)))
			continue;
		bool in = nops == 0;
		for (int k = 0; k < nops && !in; k++)
			in = j->id >= ranges[k].lo && j->id <= ranges[k].hi;
		if (in)
			ids[n++] = j->id;
	}
	snapshot_release(&s);
	if (n == 0) {
		fprintf(stderr, "gq %s: no job matches; see 'gq ls --all'\n", c->name);
		rc = EXIT_NOJOB;
		goto out;
	}
	if (!yes && isatty(STDIN_FILENO) && !confirm(c, ids, n)) {
		fprintf(stderr, "gq %s: not confirmed; nothing done\n", c->name);
		rc = EXIT_FAIL;
		goto out;
	}
act:;
	struct jout_action *res = xcalloc(n, sizeof(*res));
	rc = EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		struct gq_err e = GQ_ERR_INIT;
		res[i].id = ids[i];
		if (act(b, ids[i], &e) < 0) {
			res[i].exit = cmd_fail(&e);
			snprintf(res[i].error, sizeof(res[i].error), "%s", e.msg);
			if (rc == EXIT_OK)
				rc = res[i].exit;
		} else if (!json) {
			printf("%s job %lld\n", done, (long long)ids[i]);
		}
	}
	if (json)
		jout_actions(c->name, res, n);
	free(res);
out:
	free(ids);
	backend_close(b);
	return rc;
}
