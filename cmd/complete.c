/*
 * complete.c - `gq __complete WHAT`: the words the shell completions
 * (completions/) and `gq shell` offer, one per line: commands, a command's
 * flags (from its man page's OPTIONS, so they cannot drift), tiers, states,
 * queues and live job ids (from the server, never starting one). Hidden:
 * it is an interface for the completion scripts, not for people.
 */
#include "cmd.h"

#include <ctype.h>
#include <string.h>

#include "backend/backend.h"
#include "complete.h"
#include "manpages.h"

/* Every "--flag" (and "-f") that starts an option line of the OPTIONS
 * section: lines indented by 7 that start with '-'. */
void complete_flags(const char *cmd, void (*fn)(const char *word, void *arg), void *arg)
{
	char page[80];
	snprintf(page, sizeof(page), "gq-%s", cmd);
	const char *text = strlen(cmd) < 64 ? manpage_text(page) : NULL;
	const char *p = text ? strstr(text, "\nOPTIONS\n") : NULL;
	if (!p)
		return;
	p += strlen("\nOPTIONS\n");
	while (*p && !isupper((unsigned char)*p)) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 8 && !strncmp(p, "       -", 8)) {
			/* "-f, --follow" or "--gpus N": words starting with '-' */
			const char *q = p + 7, *end = p + len;
			while (q < end) {
				while (q < end && (*q == ' ' || *q == ','))
					q++;
				const char *w = q;
				while (q < end && *q != ' ' && *q != ',' && *q != '=')
					q++;
				if (w < q && *w == '-') {
					char word[64];
					snprintf(word, sizeof(word), "%.*s", (int)(q - w), w);
					fn(word, arg);
				}
				while (q < end && *q != ',')
					q++; /* skip the value name */
			}
		}
		p += len + (nl ? 1 : 0);
	}
}

/* The subcommands of cmd: the word after "gq CMD " on the SYNOPSIS lines of
 * its man page ("gq policy show [REV]" gives "show"), once for a subcommand
 * of several lines (export slurm, export kueue). */
void complete_subcommands(const char *cmd, void (*fn)(const char *word, void *arg), void *arg)
{
	char page[80], lead[96], prev[64] = "";
	snprintf(page, sizeof(page), "gq-%s", cmd);
	snprintf(lead, sizeof(lead), "gq %s ", cmd);
	const char *text = strlen(cmd) < 64 ? manpage_text(page) : NULL;
	const char *p = text ? strstr(text, "\nSYNOPSIS\n") : NULL;
	const char *end = p ? strstr(p + 1, "\nDESCRIPTION\n") : NULL;
	for (; p && end && (p = strstr(p, lead)) && p < end; p += strlen(lead)) {
		const char *w = p + strlen(lead);
		size_t n = 0;
		while (islower((unsigned char)w[n]))
			n++;
		if (n && (w[n] == ' ' || w[n] == '\n')) {
			char word[64];
			snprintf(word, sizeof(word), "%.*s", (int)n, w);
			if (strcmp(word, prev))
				fn(word, arg);
			snprintf(prev, sizeof(prev), "%s", word);
		}
	}
}

static struct backend *quiet_backend(void)
{
	struct gq_err e = GQ_ERR_INIT;
	return backend_open(false, &e);
}

void complete_jobs(void (*fn)(const char *word, void *arg), void *arg)
{
	struct backend *b = quiet_backend();
	if (!b)
		return;
	struct gq_err e = GQ_ERR_INIT;
	struct snapshot s;
	snapshot_init(&s);
	if (b->ops->snapshot(b, &s, &e) == 0) {
		/* Newest first: the job one just submitted is the likely one. */
		for (size_t i = s.njobs; i-- > 0;) {
			if (!job_state_active(s.jobs[i].state))
				continue;
			char w[32];
			snprintf(w, sizeof(w), "%lld", (long long)s.jobs[i].id);
			fn(w, arg);
		}
	}
	snapshot_release(&s);
	backend_close(b);
}

void complete_queues(void (*fn)(const char *word, void *arg), void *arg)
{
	struct backend *b = quiet_backend();
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	if (b && b->ops->snapshot(b, &s, &e) < 0)
		snapshot_init(&s);
	for (int i = 0; i < s.policy.nqueues; i++)
		fn(s.policy.queues[i].name, arg);
	snapshot_release(&s);
	backend_close(b);
}

struct key_ctx {
	void (*fn)(const char *word, void *arg);
	void *arg;
};

static void put_key(const struct policy_key_info *ki, void *arg)
{
	struct key_ctx *c = arg;
	c->fn(ki->key, c->arg);
}

/* Every concrete policy key: of the policy in force (its queues and
 * departments) when a server answers, else of the defaults. */
void complete_policy_keys(void (*fn)(const char *word, void *arg), void *arg)
{
	struct backend *b = quiet_backend();
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	if (b && b->ops->snapshot(b, &s, &e) < 0)
		snapshot_init(&s);
	struct key_ctx c = {fn, arg};
	policy_foreach(&s.policy, put_key, &c);
	snapshot_release(&s);
	backend_close(b);
}

static void put(const char *w, void *arg)
{
	(void)arg;
	puts(w);
}

static int complete_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd___complete;
	if (argc < 2)
		return cmd_usage_error(c, "say what to complete: commands, flags CMD, subcommands "
					  "CMD, policy-keys, jobs, queues, tiers or states");
	const char *what = argv[1];
	if (!strcmp(what, "commands")) {
		for (size_t i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN))
				puts(cmd_table[i]->name);
	} else if (!strcmp(what, "flags") && argc == 3) {
		complete_flags(argv[2], put, NULL);
	} else if (!strcmp(what, "subcommands") && argc == 3) {
		complete_subcommands(argv[2], put, NULL);
	} else if (!strcmp(what, "policy-keys")) {
		complete_policy_keys(put, NULL);
	} else if (!strcmp(what, "jobs")) {
		complete_jobs(put, NULL);
	} else if (!strcmp(what, "queues")) {
		complete_queues(put, NULL);
	} else if (!strcmp(what, "tiers")) {
		for (int t = 0; t < TIER_COUNT; t++)
			puts(tier_name((enum tier)t));
	} else if (!strcmp(what, "states")) {
		for (int s = 0; s < JOB_STATE_COUNT; s++)
			puts(job_state_name((enum job_state)s));
	} else {
		return cmd_usage_error(c,
				       "cannot complete '%s'; use commands, flags CMD, subcommands "
				       "CMD, policy-keys, jobs, queues, tiers or states",
				       what);
	}
	return EXIT_OK;
}

const struct cmd_entry cmd___complete = {
    .name = "__complete",
    .usage = "commands | flags COMMAND | subcommands COMMAND | policy-keys | jobs | queues | tiers "
	     "| states",
    .summary = "print completion words for the shell completions",
    .flags = CMD_HIDDEN,
    .exec = complete_exec,
};
