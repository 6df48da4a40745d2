/*
 * cmd.c - the command table and what every command shares: reporting of
 * errors, option parsing, opening the backend, colour and times. Nothing
 * here knows about a particular command.
 */
#include "cmd.h"

#include <ctype.h>
#include <langinfo.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/array.h"
#include "manpages.h"
#include "wire/cli.h"

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

/* Edits between a and b (optimal string alignment: insert, delete,
 * substitute, swap two neighbours); at most 64 bytes each, else -1. */
static int edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 64 || m > 64)
		return -1;
	int d[65][65];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t k = 0; k <= m; k++)
		d[0][k] = (int)k;
	for (size_t i = 1; i <= n; i++)
		for (size_t k = 1; k <= m; k++) {
			int best = d[i - 1][k - 1] + (a[i - 1] != b[k - 1]);
			if (d[i - 1][k] + 1 < best)
				best = d[i - 1][k] + 1;
			if (d[i][k - 1] + 1 < best)
				best = d[i][k - 1] + 1;
			if (i > 1 && k > 1 && a[i - 1] == b[k - 2] && a[i - 2] == b[k - 1] &&
			    d[i - 2][k - 2] + 1 < best)
				best = d[i - 2][k - 2] + 1;
			d[i][k] = best;
		}
	return d[n][m];
}

const struct cmd_entry *cmd_nearest(const char *name)
{
	const struct cmd_entry *best = NULL;
	int bd = 3;
	for (size_t i = 0; cmd_table[i]; i++) {
		if (cmd_table[i]->flags & CMD_HIDDEN)
			continue;
		int d = edit_distance(name, cmd_table[i]->name);
		if (d >= 0 && d < bd && (size_t)d < strlen(name)) {
			bd = d;
			best = cmd_table[i];
		}
	}
	return best;
}

int cmd_exit_code(enum gq_errcode code)
{
	switch (code) {
	case GQ_OK:
		return EXIT_OK;
	case GQ_EINVAL:
	case GQ_ELIMIT: /* as sbatch refuses a job over MaxSubmitJobs: not queued */
		return EXIT_USAGE;
	case GQ_ENOENT:
		return EXIT_NOJOB;
	case GQ_EPERM:
		return EXIT_DENIED;
	case GQ_EUNAVAIL:
		return EXIT_UNAVAIL;
	case GQ_ECONFLICT:
	case GQ_EIO:
	case GQ_ENOSPACE:
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

/* Prints the OPTIONS section of the man page text: from its heading to
 * the next heading (a line starting with a capital letter). */
static void print_options(const char *text)
{
	const char *p = strstr(text, "\nOPTIONS\n");
	if (!p)
		return;
	p += 1;
	const char *end = p + strlen("OPTIONS\n");
	while (*end) {
		if (isupper((unsigned char)*end))
			break;
		const char *nl = strchr(end, '\n');
		end = nl ? nl + 1 : end + strlen(end);
	}
	/* Drop the blank line before the next heading. */
	size_t n = (size_t)(end - p);
	while (n > 1 && p[n - 1] == '\n' && p[n - 2] == '\n')
		n--;
	printf("\n%.*s", (int)n, p);
}

int cmd_print_usage(const struct cmd_entry *c)
{
	printf("usage: gq %s%s%s\n\n%s\n", c->name, c->usage[0] ? " " : "", c->usage, c->summary);
	char page[64];
	snprintf(page, sizeof(page), "gq-%s", c->name);
	const char *text = manpage_text(page);
	if (text)
		print_options(text);
	return EXIT_OK;
}

int cmd_invoke(const struct cmd_entry *c, int argc, char **argv)
{
	optind = 0; /* glibc: full re-initialisation of getopt */
	return c->exec(argc, argv);
}

#define MAX_LONGOPTS 48

int cmd_getopt(const struct cmd_entry *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	struct option lo[MAX_LONGOPTS];
	size_t n = 0;
	for (; longopts && longopts[n].name; n++) {
		if (n + 2 >= MAX_LONGOPTS)
			BUG("command '%s' has too many options", c->name);
		lo[n] = longopts[n];
	}
	lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
	lo[n] = (struct option){0, 0, 0, 0};
	char so[64];
	bool stop = shortopts[0] == '+';
	snprintf(so, sizeof(so), "%s:h%s", stop ? "+" : "", shortopts + stop);
	opterr = 0;
	int prev = optind ? optind : 1;
	int o = getopt_long(argc, argv, so, lo, NULL);
	switch (o) {
	case 'h':
		cmd_print_usage(c);
		return CMD_OPT_HELP;
	case ':': {
		const char *arg = argv[optind - 1];
		if (optopt && arg[0] == '-' && arg[1] != '-')
			cmd_usage_error(c, "option '-%c' needs a value", optopt);
		else
			cmd_usage_error(c, "option '%s' needs a value", arg);
		return CMD_OPT_ERROR;
	}
	case '?': {
		const char *arg =
		    optind - 1 < argc && optind - 1 >= prev ? argv[optind - 1] : argv[prev];
		if (optopt && (!arg || arg[0] != '-' || arg[1] != '-'))
			cmd_usage_error(c, "unknown option '-%c'", optopt);
		else if (optopt)
			cmd_usage_error(c, "option '%s' takes no value", arg);
		else
			cmd_usage_error(c, "unknown option '%s'", arg);
		return CMD_OPT_ERROR;
	}
	default:
		return o;
	}
}

int cmd_opt_exit(int opt)
{
	if (opt == CMD_OPT_HELP)
		return EXIT_OK;
	if (opt == CMD_OPT_ERROR)
		return EXIT_USAGE;
	BUG("unhandled option value %d", opt);
}

int cmd_json_opts(const struct cmd_entry *c, int argc, char **argv, bool *json)
{
	static const struct option lo[] = {{"json", no_argument, NULL, 'j'}, {0, 0, 0, 0}};
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o != 'j')
			return cmd_opt_exit(o);
		*json = true;
	}
	return -1;
}

int cmd_json_only(const struct cmd_entry *c, int argc, char **argv, bool *json)
{
	int rc = cmd_json_opts(c, argc, argv, json);
	if (rc < 0 && optind < argc)
		return cmd_usage_error(c, "unexpected '%s'", argv[optind]);
	return rc;
}

int cmd_one_job(const struct cmd_entry *c, int argc, char **argv, int64_t *id)
{
	if (optind >= argc)
		return cmd_usage_error(c, "no job given; name a job id");
	if (optind + 1 < argc)
		return cmd_usage_error(c, "one job at a time; '%s' is extra", argv[optind + 1]);
	return cmd_job_arg(c, argv[optind], id);
}

/* The job id of task t of array a ("42_7"), from a snapshot. */
static int array_task_id(const char *s, int64_t a, int64_t t, int64_t *id)
{
	struct snapshot snap;
	int rc = EXIT_OK;
	struct backend *b = cmd_snapshot(&snap, &rc);
	if (!b)
		return rc;
	rc = EXIT_NOJOB;
	for (size_t i = 0; i < snap.njobs; i++)
		if (snap.jobs[i].array_id == a && snap.jobs[i].array_task == t) {
			*id = snap.jobs[i].id;
			rc = EXIT_OK;
			break;
		}
	if (rc != EXIT_OK)
		fprintf(stderr, "gq: no array task '%s'; see 'gq ls --all'\n", s);
	snapshot_release(&snap);
	backend_close(b);
	return rc;
}

int cmd_job_arg(const struct cmd_entry *c, const char *s, int64_t *id)
{
	const char *p = s[0] == '#' ? s + 1 : s;
	struct gq_err e = GQ_ERR_INIT;
	int64_t v, t;
	const char *us = strchr(p, '_');
	if (us) { /* an array's task, as Slurm names it: 42_7 */
		char a[24];
		if ((size_t)(us - p) >= sizeof(a) || !isdigit((unsigned char)p[0]) ||
		    !isdigit((unsigned char)us[1]))
			return cmd_usage_error(
			    c, "'%s' is not a job id (like 42, or 42_7 for a task)", s);
		memcpy(a, p, (size_t)(us - p));
		a[us - p] = '\0';
		if (parse_int64(a, 1, INT64_MAX / 2, &v, &e) < 0 ||
		    parse_int64(us + 1, 0, GQ_ARRAY_MAX_SIZE - 1, &t, &e) < 0)
			return cmd_usage_error(
			    c, "'%s' is not a job id (like 42, or 42_7 for a task)", s);
		return array_task_id(s, v, t, id);
	}
	if (!isdigit((unsigned char)p[0]) || parse_int64(p, 1, INT64_MAX / 2, &v, &e) < 0)
		return cmd_usage_error(c, "'%s' is not a job id (a positive number like 42)", s);
	*id = v;
	return EXIT_OK;
}

struct backend *cmd_backend(bool autostart, int *rc)
{
	struct gq_err e = GQ_ERR_INIT;
	struct backend *b = backend_open(autostart, &e);
	if (!b)
		*rc = cmd_fail(&e);
	return b;
}

struct backend *cmd_snapshot(struct snapshot *s, int *rc)
{
	snapshot_init(s);
	struct backend *b = cmd_backend(true, rc);
	if (!b)
		return NULL;
	struct gq_err e = GQ_ERR_INIT;
	if (b->ops->snapshot(b, s, &e) < 0) {
		*rc = cmd_fail(&e);
		snapshot_release(s);
		backend_close(b);
		return NULL;
	}
	cmd_note_stale(b, s);
	return b;
}

void cmd_note_stale(struct backend *b, const struct snapshot *s)
{
	if (!s->stale_since)
		return;
	time_t since = (time_t)s->stale_since;
	struct tm tm;
	char when[32] = "?";
	if (localtime_r(&since, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "gq: upstream unreachable since %s (%s); ", when, b->ops->describe(b));
	if (s->data_time > 0)
		fprintf(stderr, "data is %lld s old\n", (long long)(time(NULL) - s->data_time));
	else
		fprintf(stderr, "data is of an unknown time\n");
}

volatile int cmd_interrupted;

int cmd_parse_states(const struct cmd_entry *c, const char *arg, unsigned allowed,
		     const char *words, unsigned *out)
{
	char tmp[256];
	if (!STR_COPY(tmp, arg))
		return cmd_usage_error(c, "--state: list too long");
	*out = 0;
	for (char *save = NULL, *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum job_state st;
		if (job_state_parse(t, &st) < 0)
			return cmd_usage_error(c, "--state: unknown state '%s'; use %s", t, words);
		if (!(allowed & (1u << st)))
			return cmd_usage_error(c, "--state: '%s' is not a finished state; use %s",
					       t, words);
		*out |= 1u << st;
	}
	if (!*out)
		return cmd_usage_error(c, "--state: no state given");
	return EXIT_OK;
}

int cmd_fetch_history(struct backend *b, const struct history_query *q, struct job **jobs,
		      size_t *n)
{
	struct gq_err e = GQ_ERR_INIT;
	if (!b->ops->history) {
		err_set(&e, GQ_EUNAVAIL, "this backend (%s) keeps no job history", b->ops->name);
		return cmd_fail(&e);
	}
	if (b->ops->history(b, q, jobs, n, &e) < 0)
		return cmd_fail(&e);
	return EXIT_OK;
}

int cmd_job_action(const struct cmd_entry *c, int argc, char **argv,
		   int (*act)(struct backend *b, int64_t id, struct gq_err *e), const char *done)
{
	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {0, 0, 0, 0},
	};
	bool json = false;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o != 'j')
			return cmd_opt_exit(o);
		json = true;
	}
	if (optind >= argc)
		return cmd_usage_error(c, "no job given; name one or more job ids");
	struct jout_action *res = xcalloc((size_t)(argc - optind), sizeof(*res));
	int n = 0, rc = EXIT_OK;
	for (int i = optind; i < argc; i++) {
		if ((rc = cmd_job_arg(c, argv[i], &res[n++].id)) != EXIT_OK) {
			free(res);
			return rc;
		}
	}
	struct backend *b = cmd_backend(true, &rc);
	if (b) {
		for (int i = 0; i < n; i++) {
			struct gq_err e = GQ_ERR_INIT;
			if (act(b, res[i].id, &e) < 0) {
				res[i].exit = cmd_fail(&e);
				snprintf(res[i].error, sizeof(res[i].error), "%s", e.msg);
				if (rc == EXIT_OK)
					rc = res[i].exit;
			} else if (!json) {
				printf("%s job %lld\n", done, (long long)res[i].id);
			}
		}
		if (json)
			jout_actions(c->name, res, (size_t)n);
		backend_close(b);
	}
	free(res);
	return rc;
}

bool cmd_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	if (nc && *nc)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

const char *cmd_sgr(bool on, const char *seq)
{
	return on ? seq : "";
}

static int32_t local_offset(int64_t t, char *name, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!localtime_r(&tt, &tm))
		return 0;
	if (name && tm.tm_zone)
		snprintf(name, size, "%s", tm.tm_zone);
	return (int32_t)tm.tm_gmtoff;
}

/* The days around now are sampled, and each change of offset is narrowed
 * down to its second: a year either way holds every time gq shows but
 * the oldest finished jobs, which keep the offset of the table's ends. */
#define ZONE_REACH (370 * INT64_C(86400))

bool cmd_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

const char *cmd_user(void)
{
	static char name[64];
	static bool done;
	if (!done) {
		struct passwd *pw = getpwuid(getuid());
		if (pw && pw->pw_name)
			snprintf(name, sizeof(name), "%s", pw->pw_name);
		done = true;
	}
	return name;
}

const struct zone *cmd_zone(int64_t now)
{
	static struct zone z;
	static int64_t centre;
	static bool done;
	if (done && now > centre - ZONE_REACH / 2 && now < centre + ZONE_REACH / 2)
		return &z;
	centre = now;
	char abbr[16] = "";
	int64_t t = now - ZONE_REACH;
	int32_t off = local_offset(t, NULL, 0);
	local_offset(now, abbr, sizeof(abbr));
	const char *tz = getenv("TZ");
	if (tz && *tz == ':')
		tz++;
	zone_fixed(&z, off, tz && *tz ? tz : abbr);
	z.from[0] = t;
	for (int64_t d = t + 86400; d <= now + ZONE_REACH; d += 86400) {
		int32_t o = local_offset(d, NULL, 0);
		if (o == off)
			continue;
		int64_t lo = d - 86400, hi = d; /* offset off at lo, o at hi */
		while (hi - lo > 1) {
			int64_t mid = lo + (hi - lo) / 2;
			if (local_offset(mid, NULL, 0) == off)
				lo = mid;
			else
				hi = mid;
		}
		zone_add(&z, hi, o);
		off = o;
	}
	done = true;
	return &z;
}

char *cmd_time(int64_t t, int64_t now, char *out, size_t size)
{
	return zone_time(cmd_zone(now), t, now, out, size);
}

int cmd_parse_time(const char *s, int64_t *out)
{
	struct gq_err e = GQ_ERR_INIT;
	if (parse_int64(s, 1, INT64_MAX / 2, out, &e) == 0)
		return 0;
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	char *end = strptime(s, "%Y-%m-%d", &tm);
	if (!end)
		return -1;
	if (*end == 'T' || *end == ' ') {
		char *e2 = strptime(end + 1, "%H:%M:%S", &tm);
		if (!e2)
			e2 = strptime(end + 1, "%H:%M", &tm);
		end = e2;
	}
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t;
	return 0;
}

int cmd_parse_when(const struct cmd_entry *c, const char *flag, const char *s, int64_t now,
		   int64_t *out)
{
	struct gq_err e = GQ_ERR_INIT;
	if (!strncmp(s, "now", 3) && (!s[3] || s[3] == '-' || s[3] == '+')) {
		int64_t d = 0;
		if (s[3] && dur_parse(s + 4, &d, &e) < 0)
			return cmd_usage_error(c, "%s '%s': %s", flag, s, e.msg);
		*out = s[3] == '-' ? now - d : now + d;
		if (*out < 0)
			*out = 0;
		return EXIT_OK;
	}
	if (cmd_parse_time(s, out) < 0)
		return cmd_usage_error(c,
				       "%s '%s': not a date; use YYYY-MM-DD[ HH:MM[:SS]], unix "
				       "seconds, or now-DURATION (e.g. now-7d)",
				       flag, s);
	return EXIT_OK;
}

void cmd_array_line(int64_t id, const struct array_summary *a, const char *range)
{
	printf("Array #%lld: tasks %s (%d): %d pending, %d running, %d done, %d failed, %d "
	       "cancelled",
	       (long long)id, range, a->ntasks, a->pending, a->running, a->done, a->failed,
	       a->cancelled);
	if (a->throttle)
		printf("; at most %d run at once (throttle %%%d)", a->throttle, a->throttle);
	printf(".\n");
}
