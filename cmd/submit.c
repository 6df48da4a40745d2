/*
 * submit.c - `gq submit`: queue a command or a batch script.
 *
 * Flags come from the command line and, for a script, from its leading
 * "#GQ" lines (like sbatch's "#SBATCH"): the same flags, the command line
 * winning. What the server refuses (an unknown queue, a tier the user may
 * not use, a request no node could ever fit) comes back as its one-line
 * reason. This file does not decide policy.
 */
#include "cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/config.h"
#include "core/array.h"
#include "core/depend.h"
#include "core/jobsig.h"
#include "core/notify.h"
#include "core/outpat.h"
#include "core/sbatch.h"
#include "explain/explain.h"
#include "begin.h"
#include "wire/cli.h"
#include "submit.h"

/* A script's #GQ lines are read from its first part only. */
#define MAX_SCRIPT ((size_t)1 << 20)
#define MAX_GQ_WORDS 64

enum {
	O_GPUS = 0x100,
	O_GPU_TYPE,
	O_GPU_MEM,
	O_SAME_NODE,
	O_CPUS,
	O_MEM,
	O_TIER,
	O_QUEUE,
	O_NAME,
	O_TIME_LIMIT,
	O_ESTIMATE,
	O_CHECKPOINTABLE,
	O_AFTER,
	O_HOLD,
	O_JSON,
	O_ARRAY,
	O_BEGIN,
	O_SIGNAL,
	O_NOTIFY,
	O_RESERVATION,
};

static const struct option longopts[] = {
    {"gpus", required_argument, NULL, O_GPUS},
    {"gpu-type", required_argument, NULL, O_GPU_TYPE},
    {"gpu-mem", required_argument, NULL, O_GPU_MEM},
    {"same-node", no_argument, NULL, O_SAME_NODE},
    {"cpus", required_argument, NULL, O_CPUS},
    {"mem", required_argument, NULL, O_MEM},
    {"tier", required_argument, NULL, O_TIER},
    {"queue", required_argument, NULL, O_QUEUE},
    {"name", required_argument, NULL, O_NAME},
    {"time-limit", required_argument, NULL, O_TIME_LIMIT},
    {"estimate", required_argument, NULL, O_ESTIMATE},
    {"checkpointable", no_argument, NULL, O_CHECKPOINTABLE},
    {"after", required_argument, NULL, O_AFTER},
    {"dependency", required_argument, NULL, O_AFTER},
    {"hold", no_argument, NULL, O_HOLD},
    {"json", no_argument, NULL, O_JSON},
    {"array", required_argument, NULL, O_ARRAY},
    {"output", required_argument, NULL, 'o'},
    {"error", required_argument, NULL, 'e'},
    {"begin", required_argument, NULL, O_BEGIN},
    {"signal", required_argument, NULL, O_SIGNAL},
    {"notify", required_argument, NULL, O_NOTIFY},
    {"reservation", required_argument, NULL, O_RESERVATION},
    {0, 0, 0, 0},
};

struct opts {
	struct job job;
	unsigned given; /* enum submit_given: what the user set */
	bool json;
	bool name_set;
	char array[128]; /* --array's spec, "" none */
	int ntasks;
	char output[OUTPAT_MAX], error[OUTPAT_MAX]; /* -o / -e patterns, "" none */
	char begin[64];		     /* --begin as given, read on the server's clock; "" none */
	const struct cmd_entry *cmd; /* whose messages: NULL for gq submit */
};

/* Applies one option; where names the source for messages ("" for the
 * command line, "script 'x' line 3: " for #GQ lines). */
static int size_bound(const char *arg, int64_t mb, struct gq_err *e)
{
	if (mb > GQ_MAX_REQ_MEM_MB)
		return err_set(e, GQ_EINVAL, "'%s' is more than any machine has (at most 1048576T)",
			       arg);
	return 0;
}

static int apply(struct opts *o, int opt, const char *arg, const char *where)
{
	const struct cmd_entry *c = o->cmd ? o->cmd : &cmd_submit;
	struct gq_err e = GQ_ERR_INIT;
	int64_t v;
	struct job *j = &o->job;
	/* What the user set, as against gq's defaults (a failure below ends
	 * the submission anyway). */
	o->given |= opt == O_GPUS || opt == O_GPU_TYPE || opt == O_SAME_NODE ? SUBMIT_GIVEN_GPUS
		    : opt == O_CPUS					     ? SUBMIT_GIVEN_CPUS
		    : opt == O_MEM					     ? SUBMIT_GIVEN_MEM
		    : opt == O_TIER					     ? SUBMIT_GIVEN_TIER
		    : opt == O_QUEUE					     ? SUBMIT_GIVEN_QUEUE
		    : opt == O_NAME					     ? SUBMIT_GIVEN_NAME
		    : opt == O_TIME_LIMIT ? SUBMIT_GIVEN_TIME_LIMIT
					  : 0u;
	switch (opt) {
	case O_GPUS:
		if (parse_int64(arg, 0, GQ_MAX_REQ_GPUS, &v, &e) < 0)
			return cmd_usage_error(c, "%s--gpus: %s", where, e.msg);
		j->req.gpus = (int)v;
		break;
	case O_GPU_TYPE:
		if (!name_valid(arg) || !STR_COPY(j->req.gpu_type, arg))
			return cmd_usage_error(
			    c, "%s--gpu-type: bad GPU model '%s'; use a model name like 'a100'",
			    where, arg);
		break;
	case O_GPU_MEM:
		if (parse_size_mb(arg, &v, &e) < 0 || size_bound(arg, v, &e) < 0)
			return cmd_usage_error(c, "%s--gpu-mem: %s", where, e.msg);
		j->req.gpu_mem_mb = v;
		break;
	case O_SAME_NODE:
		j->req.same_node = true;
		break;
	case O_CPUS:
		if (parse_int64(arg, 0, GQ_MAX_REQ_CPUS, &v, &e) < 0)
			return cmd_usage_error(c, "%s--cpus: %s", where, e.msg);
		j->req.cpus = (int)v;
		break;
	case O_MEM:
		if (parse_size_mb(arg, &v, &e) < 0 || size_bound(arg, v, &e) < 0)
			return cmd_usage_error(c, "%s--mem: %s", where, e.msg);
		j->req.mem_mb = v;
		break;
	case O_TIER:
		if (tier_parse(arg, &j->tier, &e) < 0)
			return cmd_usage_error(c, "%s--tier: bad tier '%s'; use P0, P1 or P2",
					       where, arg);
		break;
	case O_RESERVATION:
		if (!name_valid(arg) || !STR_COPY(j->reservation, arg))
			return cmd_usage_error(c, "%s--reservation: bad reservation name '%s'",
					       where, arg);
		break;
	case O_QUEUE:
		if (!name_valid(arg) || !STR_COPY(j->queue, arg))
			return cmd_usage_error(
			    c, "%s--queue: bad queue name '%s'; see 'gq ls' for queues", where,
			    arg);
		break;
	case O_NAME:
		if (job_name_check(arg, &e) < 0 || !STR_COPY(j->name, arg))
			return cmd_usage_error(c, "%s--name: %s", where, e.msg);
		o->name_set = true;
		break;
	case O_TIME_LIMIT:
	case O_ESTIMATE:
		if (dur_parse(arg, &v, &e) < 0)
			return cmd_usage_error(c, "%s--%s: %s", where,
					       opt == O_ESTIMATE ? "estimate" : "time-limit",
					       e.msg);
		if (v <= 0)
			return cmd_usage_error(c, "%s--%s: must be more than 0 seconds", where,
					       opt == O_ESTIMATE ? "estimate" : "time-limit");
		*(opt == O_ESTIMATE ? &j->estimate : &j->time_limit) = v;
		break;
	case O_CHECKPOINTABLE:
		j->checkpointable = true;
		break;
	case O_AFTER:
		/* Slurm's kinds (afterok:12,afterany:13) or plain ids (afterok). */
		if (!*arg)
			return cmd_usage_error(c, "%s--after: no job id given", where);
		if (dep_parse(arg, j, &e) < 0)
			return cmd_usage_error(c, "%s--after: %s", where, e.msg);
		break;
	case O_HOLD:
		j->held = true;
		break;
	case O_JSON:
		o->json = true;
		break;
	case 'o':
	case 'e':
		if (outpat_check(arg, &e) < 0)
			return cmd_usage_error(c, "%s--%s: %s", where,
					       opt == 'o' ? "output" : "error", e.msg);
		snprintf(opt == 'o' ? o->output : o->error, OUTPAT_MAX, "%s", arg);
		break;
	case O_ARRAY: {
		struct array_spec *as = xmalloc(sizeof(*as));
		int bad = array_parse(arg, as, &e);
		o->ntasks = as->ntasks;
		free(as);
		if (bad < 0)
			return cmd_usage_error(c, "%s--array: %s", where, e.msg);
		if (!STR_COPY(o->array, arg))
			return cmd_usage_error(c, "%s--array: '%s' is too long", where, arg);
		break;
	}
	case O_BEGIN:
		if (cmd_begin_syntax(c, where, arg) != EXIT_OK)
			return EXIT_USAGE;
		if (!STR_COPY(o->begin, arg))
			return cmd_usage_error(c, "%s--begin: '%s' is too long", where, arg);
		break;
	case O_SIGNAL:
		if (jobsig_parse(arg, &j->sig, &j->sig_before, &e) < 0)
			return cmd_usage_error(c, "%s--signal: %s", where, e.msg);
		break;
	case O_NOTIFY: {
		unsigned m;
		if (notify_parse(arg, &m, &e) < 0)
			return cmd_usage_error(c, "%s--notify: %s", where, e.msg);
		notify_format(m, j->notify, sizeof(j->notify));
		break;
	}
	default:
		BUG("submit option %d", opt);
	}
	return EXIT_OK;
}

/*
 * Applies the #GQ lines at the top of the script: after the shebang,
 * comments and blank lines, up to the first line of code.
 */
static int apply_script(struct opts *o, const char *path, const char *text)
{
	const struct cmd_entry *c = &cmd_submit;
	char *copy = xstrdup(text);
	int rc = EXIT_OK, lineno = 0;
	for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line && rc == EXIT_OK;
	     line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#')
			break;
		if (strncmp(p, "#GQ", 3) != 0 || (p[3] != ' ' && p[3] != '\t' && p[3]))
			continue;
		char where[GQ_PATH_MAX + 64];
		snprintf(where, sizeof(where), "script '%s' line %d: ", path, lineno);
		char *words[MAX_GQ_WORDS + 2];
		char argv0[] = "submit";
		words[0] = argv0;
		char why[64];
		int n = words_split(p + 3, words + 1, MAX_GQ_WORDS, false, why, sizeof(why));
		if (n < 0) {
			rc = cmd_usage_error(c, "%s%s", where, why);
			break;
		}
		words[n + 1] = NULL;
		optind = 0;
		int opt;
		while ((opt = cmd_getopt(c, n + 1, words, "+o:e:", longopts)) != -1) {
			if (opt == CMD_OPT_HELP || opt == CMD_OPT_ERROR) {
				rc = EXIT_USAGE;
				if (opt == CMD_OPT_ERROR)
					fprintf(stderr, "gq submit: (in %.*s)\n",
						(int)strlen(where) - 2, where);
				break;
			}
			if ((rc = apply(o, opt, optarg, where)) != EXIT_OK)
				break;
		}
		if (rc == EXIT_OK && optind < n + 1)
			rc = cmd_usage_error(c,
					     "%sunexpected '%s' (only options belong on #GQ lines)",
					     where, words[optind]);
	}
	free(copy);
	return rc;
}

static int read_script(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return cmd_usage_error(
		    &cmd_submit,
		    "cannot read script '%s': %s (to run a command, put it after '--')", path,
		    strerror(errno));
	struct buf b;
	buf_init(&b, MAX_SCRIPT);
	char chunk[8192];
	size_t n;
	int rc = EXIT_OK;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (buf_add(&b, chunk, n) < 0) {
			rc = cmd_usage_error(
			    &cmd_submit,
			    "script '%s' is over 1 MiB; run it with 'gq submit -- sh %s'", path,
			    path);
			break;
		}
	}
	if (rc == EXIT_OK && ferror(f))
		rc = cmd_usage_error(&cmd_submit, "cannot read script '%s': %s", path,
				     strerror(errno));
	fclose(f);
	if (rc == EXIT_OK && memchr(b.data ? b.data : "", '\0', b.len))
		rc = cmd_usage_error(
		    &cmd_submit,
		    "'%s' is not a text script; to run a program use 'gq submit -- %s'", path,
		    path);
	if (rc == EXIT_OK)
		*out = buf_detach(&b);
	buf_release(&b);
	return rc;
}

/* Slurm's --mail-type list as --notify's: "BEGIN,END" is "start,end".
 * Types gq has no event for are left out; "" when none is left. */
static void mail_to_notify(const char *types, char *out, size_t size)
{
	static const struct {
		const char *slurm, *gq;
	} map[] = {{"BEGIN", "start"},	   {"END", "end"}, {"FAIL", "fail"},
		   {"REQUEUE", "requeue"}, {"ALL", "all"}, {"NONE", "none"}};
	out[0] = '\0';
	char *copy = xstrdup(types);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (!strcasecmp(t, map[i].slurm)) {
				size_t n = strlen(out);
				snprintf(out + n, size - n, "%s%s", n ? "," : "", map[i].gq);
			}
	free(copy);
}

/* Whether the server has a queue of that name (for #SBATCH -p). */
static bool queue_exists(struct backend *b, const char *name)
{
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	bool found = false;
	if (b->ops->snapshot(b, &s, &e) == 0)
		for (int i = 0; i < s.policy.nqueues; i++)
			if (!strcmp(s.policy.queues[i].name, name))
				found = true;
	snapshot_release(&s);
	return found;
}

/*
 * gq serve's reading of a script's #SBATCH lines (core/sbatch.c, as the
 * Slurm backend reads them): applied to o before the #GQ lines and the
 * command line, which win. What has no meaning on gq serve is named in one
 * warning line; a value gq cannot take is an error, as on a #GQ line.
 */
static int sbatch_apply(struct opts *o, struct backend *b, const struct gq_config *cfg,
			const char *path, const struct sbatch *sb)
{
	char where[GQ_PATH_MAX + 64], v[64];
	snprintf(where, sizeof(where), "script '%s' #SBATCH ", path);
	struct buf ign;
	buf_init(&ign, 0);
	int rc = EXIT_OK;
#define SB_APPLY(opt, val)                                                                         \
	do {                                                                                       \
		if (rc == EXIT_OK)                                                                 \
			rc = apply(o, (opt), (val), where);                                        \
	} while (0)
#define SB_IGNORE(...) buf_printf(&ign, " " __VA_ARGS__)
	if (sb->name[0])
		SB_APPLY(O_NAME, sb->name);
	if (sb->partition[0]) {
		if (name_valid(sb->partition) && queue_exists(b, sb->partition))
			SB_APPLY(O_QUEUE, sb->partition);
		else
			SB_IGNORE("--partition=%s (no such queue)", sb->partition);
	}
	/* As under sbatch, a script with #SBATCH lines and none for GPUs
	 * asks for none. */
	int gpus = sb->gpus < 0 ? 0 : sb->gpus;
	if (sb->gpus > 0 && sb->gpus_per_node && sb->nodes_min > 1)
		gpus *= sb->nodes_min;
	snprintf(v, sizeof(v), "%d", gpus);
	SB_APPLY(O_GPUS, v);
	if (sb->gpu_type[0])
		SB_APPLY(O_GPU_TYPE, sb->gpu_type);
	if (sb->time_limit > 0) {
		snprintf(v, sizeof(v), "%llds", (long long)sb->time_limit);
		SB_APPLY(O_TIME_LIMIT, v);
	}
	if (sb->cpus_per_task > 0) {
		snprintf(v, sizeof(v), "%d", sb->cpus_per_task);
		SB_APPLY(O_CPUS, v);
	}
	if (sb->mem_mb > 0) {
		snprintf(v, sizeof(v), "%lldM", (long long)sb->mem_mb);
		SB_APPLY(O_MEM, v);
	}
	if (sb->output[0])
		SB_APPLY('o', sb->output);
	if (sb->error[0])
		SB_APPLY('e', sb->error);
	if (sb->array[0])
		SB_APPLY(O_ARRAY, sb->array);
	if (sb->dependency[0])
		SB_APPLY(O_AFTER, sb->dependency);
	if (sb->begin[0])
		SB_APPLY(O_BEGIN, sb->begin);
	if (sb->hold)
		SB_APPLY(O_HOLD, "");
	if (sb->mail_type[0]) {
		char n[64];
		mail_to_notify(sb->mail_type, n, sizeof(n));
		if (!n[0])
			SB_IGNORE("--mail-type=%s", sb->mail_type);
		else if (!cfg->notify_webhook[0] && !cfg->notify_command[0])
			SB_IGNORE("--mail-type=%s (no notify.webhook or notify.command in your "
				  "config)",
				  sb->mail_type);
		else
			SB_APPLY(O_NOTIFY, n);
	}
	if (sb->mail_user[0])
		SB_IGNORE("--mail-user=%s", sb->mail_user);
	if (sb->qos[0])
		SB_IGNORE("--qos=%s", sb->qos);
	if (sb->account[0])
		SB_IGNORE("--account=%s", sb->account);
	if (sb->reservation[0])
		SB_IGNORE("--reservation=%s", sb->reservation);
	if (sb->chdir[0])
		SB_IGNORE("--chdir=%s", sb->chdir);
	if (sb->constraint[0])
		SB_IGNORE("--constraint=%s", sb->constraint);
	if (sb->exclusive[0])
		SB_IGNORE("--exclusive");
	if (sb->export_env[0])
		SB_IGNORE("--export=%s", sb->export_env);
	if (sb->nodes_min > 1 || sb->nodes_max > 1)
		SB_IGNORE("--nodes=%d%s", sb->nodes_min, sb->nodes_max > 1 ? "-" : "");
	if (sb->ntasks > 1)
		SB_IGNORE("--ntasks=%d", sb->ntasks);
	if (sb->ntasks_per_node > 1)
		SB_IGNORE("--ntasks-per-node=%d", sb->ntasks_per_node);
	for (int i = 0; i < sb->nskipped && i < SBATCH_MAX_SKIPPED; i++) {
		const struct sbatch_skipped *k = &sb->skipped[i];
		SB_IGNORE("%s%s%s%s", k->opt, k->value[0] ? "=" : "", k->value,
			  k->why == SBATCH_BADVAL ? " (unreadable)" : "");
	}
	if (sb->nskipped > SBATCH_MAX_SKIPPED)
		SB_IGNORE("and %d more", sb->nskipped - SBATCH_MAX_SKIPPED);
#undef SB_APPLY
#undef SB_IGNORE
	if (rc == EXIT_OK && ign.len)
		fprintf(stderr, "gq: warning: script '%s': gq serve ignores #SBATCH%s\n", path,
			ign.data);
	buf_release(&ign);
	return rc;
}

/* One warning line for each #SBATCH option a backend that reads them
 * (Slurm) cannot honour: the job is submitted without them, never
 * silently. Returns the tasks of the script's #SBATCH --array. */
static int sbatch_warn(const char *path, const char *script)
{
	struct sbatch *sb = xmalloc(sizeof(*sb));
	sbatch_parse(script, sb);
	int ntasks = 0;
	if (sb->array[0]) {
		struct array_spec *as = xmalloc(sizeof(*as));
		struct gq_err e = GQ_ERR_INIT;
		if (array_parse(sb->array, as, &e) == 0)
			ntasks = as->ntasks;
		free(as);
	}
	for (int i = 0; i < sb->nskipped && i < SBATCH_MAX_SKIPPED; i++) {
		const struct sbatch_skipped *k = &sb->skipped[i];
		const char *eq = k->value[0] ? "=" : "";
		if (k->why == SBATCH_BADVAL)
			fprintf(stderr,
				"gq: warning: script '%s': #SBATCH %s%s%s: cannot read the value; "
				"ignored\n",
				path, k->opt, eq, k->value);
		else
			fprintf(stderr,
				"gq: warning: script '%s': #SBATCH %s%s%s is not honoured by gq; "
				"ignored\n",
				path, k->opt, eq, k->value);
	}
	if (sb->nskipped > SBATCH_MAX_SKIPPED)
		fprintf(stderr, "gq: warning: script '%s': %d more #SBATCH options ignored\n", path,
			sb->nskipped - SBATCH_MAX_SKIPPED);
	free(sb);
	return ntasks;
}

extern char **environ;

/* The environment the job gets: ours, less what JSON cannot carry (a
 * variable that is not UTF-8 is left out with a warning) and less the
 * GQ_ variables of a job we may be running inside. NULL-terminated;
 * the strings are borrowed from environ. */
static char **job_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc(n + 1, sizeof(*env));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = environ[i];
		if (!strncmp(v, "GQ_JOB_ID=", 10) || !strncmp(v, "GQ_GPUS=", 8) ||
		    !strncmp(v, "GQ_RESTART_COUNT=", 17) || !strncmp(v, "GQ_CHECKPOINT_DIR=", 18) ||
		    !strncmp(v, "GQ_GRACE_SECONDS=", 17))
			continue;
		if (!utf8_valid(v)) {
			const char *eq = strchr(v, '=');
			fprintf(stderr,
				"gq: warning: environment variable '%.*s' is not UTF-8; the job "
				"will not see it\n",
				eq ? (int)(eq - v) : 0, v);
			continue;
		}
		env[k++] = environ[i];
	}
	return env;
}

struct given_opt {
	int opt;
	char *arg;
};

/*
 * The submission's options, from the lowest to the highest: the config's
 * defaults, the script's #SBATCH lines (sb, NULL: not read), its #GQ
 * lines, the command line (given); then the defaults that depend on them
 * and the checks of the whole. path is the script's name as given, or
 * the command's first word.
 */
static int opts_build(struct opts *o, const struct cmd_entry *c, const struct gq_config *cfg,
		      const char *path, const char *script, const struct given_opt *given,
		      int ngiven, struct backend *b, const struct sbatch *sb)
{
	memset(o, 0, sizeof(*o));
	job_init(&o->job);
	o->cmd = c;
	if (cfg->tier[0])
		tier_parse(cfg->tier, &o->job.tier, NULL);
	STR_COPY(o->job.queue, cfg->queue);
	int rc;
	if (sb && (rc = sbatch_apply(o, b, cfg, path, sb)) != EXIT_OK)
		return rc;
	if (script && (rc = apply_script(o, path, script)) != EXIT_OK)
		return rc;
	for (int i = 0; i < ngiven; i++)
		if ((rc = apply(o, given[i].opt, given[i].arg, "")) != EXIT_OK)
			return rc;
	if (c != &cmd_submit && (o->array[0] || o->json))
		return cmd_usage_error(
		    c, "--%s is gq submit's; gq %s runs one job and shows its output",
		    o->array[0] ? "array" : "json", c->name);
	if (!o->name_set)
		job_name_default(&o->job, path, script ? "script" : "job");
	if (o->job.estimate && o->job.time_limit && o->job.estimate > o->job.time_limit)
		return cmd_usage_error(
		    c, "--estimate is longer than --time-limit; the job would be killed first");
	struct gq_err be = GQ_ERR_INIT;
	if (job_req_check(&o->job, &be) < 0) /* the server's bounds, before asking it */
		return cmd_usage_error(c, "%s", be.msg);
	return EXIT_OK;
}

int submit_queue(const struct cmd_entry *c, int argc, char **argv, struct submitted *out)
{
	struct opts o;
	memset(out, 0, sizeof(*out));
	struct gq_config cfg;
	struct gq_err e = GQ_ERR_INIT;
	if (config_load(&cfg, &e) < 0)
		return cmd_fail(&e);

	/* The command line first, to find the script; its options are applied
	 * again after the script's so that they win. */
	struct given_opt given[128];
	int ngiven = 0, opt;
	bool dashdash = false;
	while ((opt = cmd_getopt(c, argc, argv, "+o:e:", longopts)) != -1) {
		if (opt == CMD_OPT_HELP || opt == CMD_OPT_ERROR)
			return cmd_opt_exit(opt);
		if (ngiven >= (int)(sizeof(given) / sizeof(given[0])))
			return cmd_usage_error(c, "too many options");
		given[ngiven].opt = opt;
		given[ngiven++].arg = optarg;
	}
	if (optind > 1 && !strcmp(argv[optind - 1], "--"))
		dashdash = true;
	int nargs = argc - optind;
	char **args = argv + optind;
	char *script = NULL;
	char **env = NULL;
	int rc = EXIT_OK;
	if (nargs == 0)
		return cmd_usage_error(
		    c, dashdash ? "no command after '--'"
				: "nothing to run; give '-- COMMAND [ARG...]' or a script");
	if (!dashdash && (rc = read_script(args[0], &script)) != EXIT_OK)
		return rc;
	/* Without a server first: a bad option needs none to be refused. */
	if ((rc = opts_build(&o, c, &cfg, args[0], script, given, ngiven, NULL, NULL)) != EXIT_OK)
		goto out;

	char cwd[GQ_PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr,
			"gq: cannot read the current directory: %s; cd somewhere that exists\n",
			strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	struct submit_req r = {
	    .job = o.job,
	    .given = o.given,
	    .argv = dashdash ? args : NULL,
	    .cwd = cwd,
	    .env = NULL,
	    .script = script,
	    .array = o.array[0] ? o.array : NULL,
	    .output = o.output[0] ? o.output : NULL,
	    .error = o.error[0] ? o.error : NULL,
	    .notify_webhook = cfg.notify_webhook[0] ? cfg.notify_webhook : NULL,
	    .notify_command = cfg.notify_command[0] ? cfg.notify_command : NULL,
	};
	if (!dashdash) /* the script's arguments, $1... */
		r.argv = args + 1;
	for (char **a = r.argv; *a; a++)
		if (!utf8_valid(*a)) {
			rc = cmd_usage_error(
			    c, "argument '%s' is not UTF-8; gq carries only UTF-8 text", *a);
			goto out;
		}
	if (script && !utf8_valid(script)) {
		rc = cmd_usage_error(c, "script '%s' is not UTF-8 text", args[0]);
		goto out;
	}
	if (script && strncmp(script, "#!", 2))
		fprintf(stderr,
			"gq: warning: script '%s' has no #! line; it will run with /bin/sh\n",
			args[0]);
	env = job_env();
	r.env = env;
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		goto out;
	/* gq serve --slurm reads #SBATCH lines: a first answer says whether
	 * the server is one. */
	struct gq_err pe = GQ_ERR_INIT;
	if (script && !b->ops->scheduler && b->ops->ping(b, &pe) < 0) {
		rc = cmd_fail(&pe);
		backend_close(b);
		goto out;
	}
	int script_tasks = 0; /* the tasks of its #SBATCH --array */
	if (script && b->ops->reads_sbatch) {
		script_tasks = sbatch_warn(args[0], script);
	} else if (script) { /* gq serve: its options, under #GQ's and ours */
		struct sbatch *sb = xmalloc(sizeof(*sb));
		sbatch_parse(script, sb);
		if (sb->nlines)
			rc = opts_build(&o, c, &cfg, args[0], script, given, ngiven, b, sb);
		free(sb);
		if (rc != EXIT_OK) {
			backend_close(b);
			goto out;
		}
		r.job = o.job;
		r.given = o.given;
		r.array = o.array[0] ? o.array : NULL;
		r.output = o.output[0] ? o.output : NULL;
		r.error = o.error[0] ? o.error : NULL;
	}
	if (o.begin[0] && (rc = cmd_begin_resolve(c, b, o.begin, &r.job.begin_time)) != EXIT_OK) {
		backend_close(b);
		goto out;
	}
	int64_t id;
	bool has_win = false;
	struct window_stop win;
	e = (struct gq_err)GQ_ERR_INIT;
	if (b->ops->submit(b, &r, &id, &win, &has_win, &e) < 0) {
		rc = cmd_fail(&e);
		backend_close(b);
		goto out;
	}
	/* The scheduler created the job and said something about it (Slurm:
	 * an error number beside the job id): on stderr, the id on stdout. */
	if (e.msg[0])
		fprintf(stderr, "gq %s: warning: job %lld was submitted, but %s\n", c->name,
			(long long)id, e.msg);
	out->b = b;
	out->id = id;
	out->json = o.json;
	out->ntasks = o.array[0] ? o.ntasks : script_tasks;
	out->job = r.job;
	out->has_win = has_win;
	if (has_win) {
		out->win = win;
		if (!o.json) { /* on stderr: id=$(gq submit ...) keeps working */
			struct buf nb;
			buf_init(&nb, 0);
			explain_window_stop(&win, cmd_zone(win.now), &nb);
			fprintf(stderr, "gq %s: note: %s\n", c->name, nb.data);
			buf_release(&nb);
		}
	}
out:
	free(env);
	free(script);
	return rc;
}

static int submit_exec(int argc, char **argv)
{
	struct submitted sb;
	int rc = submit_queue(&cmd_submit, argc, argv, &sb);
	if (rc != EXIT_OK || !sb.b)
		return rc;
	if (sb.json)
		jout_submitted(sb.id, sb.has_win ? &sb.win : NULL);
	else if (sb.ntasks)
		printf("submitted array job %lld (%d task%s)\n", (long long)sb.id, sb.ntasks,
		       sb.ntasks == 1 ? "" : "s");
	else
		printf("submitted job %lld\n", (long long)sb.id);
	backend_close(sb.b);
	return EXIT_OK;
}

int submit_job_option(const struct cmd_entry *c, const char *flag, const char *arg, struct job *job,
		      char *begin, size_t begin_size)
{
	const struct option *lo = longopts;
	while (lo->name && strcmp(lo->name, flag))
		lo++;
	if (!lo->name)
		BUG("no submit option '%s'", flag);
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.job = *job;
	o.cmd = c;
	int rc = apply(&o, lo->val, arg, "");
	if (rc == EXIT_OK) {
		*job = o.job;
		if (o.begin[0])
			snprintf(begin, begin_size, "%s", o.begin);
	}
	return rc;
}

int submit_directives(const char *path, const char *text, struct job *job)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.job = *job;
	int rc = apply_script(&o, path, text);
	if (rc == EXIT_OK)
		*job = o.job;
	return rc;
}

const struct cmd_entry cmd_submit = {
    .name = "submit",
    .usage = "[OPTIONS] -- COMMAND [ARG...] | [OPTIONS] SCRIPT [ARG...]",
    .summary = "queue a command or a batch script",
    .flags = CMD_NEEDS_BACKEND,
    .exec = submit_exec,
};
