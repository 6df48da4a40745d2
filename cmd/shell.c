/*
 * shell.c - `gq shell`: an interactive prompt where every gq command runs
 * without the "gq" in front, with readline's editing, a history kept in
 * $XDG_STATE_HOME/gq/history, and completion of commands, flags, tiers,
 * queues and job ids. The one file that touches readline.
 */
#include "cmd.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/config.h"
#include "complete.h"
#include "core/job.h"

#define MAX_WORDS 256
#define HISTORY_MAX 1000

/* Completion candidates of the word being completed. */
struct cands {
	char **v;
	size_t n, cap;
	const char *prefix;
};

static struct cands cands;

static void cands_add(const char *w, void *arg)
{
	struct cands *c = arg;
	if (strncmp(w, c->prefix, strlen(c->prefix)) != 0)
		return;
	GROW(c->v, c->cap, c->n + 1);
	c->v[c->n++] = xstrdup(w);
}

static void cands_clear(void)
{
	for (size_t i = 0; i < cands.n; i++)
		free(cands.v[i]);
	cands.n = 0;
}

static char *next_cand(const char *text, int state)
{
	static size_t i;
	(void)text;
	if (!state)
		i = 0;
	return i < cands.n ? xstrdup(cands.v[i++]) : NULL;
}

/* The word before the one being completed, e.g. "--tier". */
static void prev_word(int start, char *out, size_t size)
{
	int e = start;
	while (e > 0 && rl_line_buffer[e - 1] == ' ')
		e--;
	int s = e;
	while (s > 0 && rl_line_buffer[s - 1] != ' ')
		s--;
	snprintf(out, size, "%.*s", e - s, rl_line_buffer + s);
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;
	cands_clear();
	cands.prefix = text;
	/* The first word: a command. */
	int i = 0;
	while (i < start && rl_line_buffer[i] == ' ')
		i++;
	if (i == start) {
		for (size_t k = 0; cmd_table[k]; k++)
			if (!(cmd_table[k]->flags & CMD_HIDDEN) &&
			    strcmp(cmd_table[k]->name, "shell"))
				cands_add(cmd_table[k]->name, &cands);
		cands_add("exit", &cands);
	} else {
		char cmd[64], prev[64];
		int j = i;
		while (j < start && rl_line_buffer[j] != ' ')
			j++;
		snprintf(cmd, sizeof(cmd), "%.*s", j - i, rl_line_buffer + i);
		prev_word(start, prev, sizeof(prev));
		if (text[0] == '-') {
			complete_flags(cmd, cands_add, &cands);
		} else if (!strcmp(prev, "--tier") ||
			   (!strcmp(cmd, "prio") && prev[0] != '-' && strcmp(prev, cmd))) {
			for (int t = 0; t < TIER_COUNT; t++)
				cands_add(tier_name((enum tier)t), &cands);
		} else if (!strcmp(prev, "--queue")) {
			complete_queues(cands_add, &cands);
		} else if (!strcmp(prev, "--state")) {
			for (int s = 0; s < JOB_STATE_COUNT; s++)
				cands_add(job_state_name((enum job_state)s), &cands);
		} else if (!strcmp(cmd, "help")) {
			for (size_t k = 0; cmd_table[k]; k++)
				if (!(cmd_table[k]->flags & CMD_HIDDEN))
					cands_add(cmd_table[k]->name, &cands);
		} else {
			complete_jobs(cands_add, &cands);
		}
	}
	return rl_completion_matches(text, next_cand);
}

static void on_sigint(int sig)
{
	(void)sig;
	cmd_interrupted = 1;
}

static int run_line(char *line)
{
	char *words[MAX_WORDS + 1];
	char why[64];
	int n = words_split(line, words, MAX_WORDS, false, why, sizeof(why));
	if (n < 0) {
		fprintf(stderr, "gq: %s\n", why);
		return EXIT_USAGE;
	}
	if (n == 0)
		return EXIT_OK;
	words[n] = NULL;
	const char *name = words[0];
	if (!strcmp(name, "gq") && n > 1) {
		memmove(words, words + 1, (size_t)n * sizeof(*words));
		n--;
		name = words[0];
	}
	const struct cmd_entry *c = cmd_find(name);
	if (!c) {
		const struct cmd_entry *near = cmd_nearest(name);
		if (near)
			fprintf(stderr, "gq: '%s' is not a gq command; did you mean '%s'?\n", name,
				near->name);
		else
			fprintf(stderr, "gq: '%s' is not a gq command; type 'help' for the list\n",
				name);
		return EXIT_USAGE;
	}
	if (c == &cmd_shell) {
		fprintf(stderr, "gq: already in gq shell\n");
		return EXIT_USAGE;
	}
	cmd_interrupted = 0;
	int rc = cmd_invoke(c, n, words);
	fflush(stdout);
	return rc;
}

static int shell_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_shell;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", NULL)) != -1)
		return cmd_opt_exit(o);
	if (optind < argc)
		return cmd_usage_error(c, "unexpected '%s'; gq shell takes no arguments",
				       argv[optind]);
	char dir[GQ_PATH_MAX], hist[GQ_PATH_MAX + 16];
	struct gq_err e = GQ_ERR_INIT;
	bool have_hist = state_dir(dir, sizeof(dir), true, &e) == 0;
	if (have_hist) {
		snprintf(hist, sizeof(hist), "%s/history", dir);
		read_history(hist);
	}
	rl_readline_name = "gq";
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t";
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old);
	bool tty = isatty(0);
	if (tty)
		printf("gq shell: type 'help' for the commands, 'exit' or Ctrl-D to leave\n");
	int rc = EXIT_OK;
	char *line;
	while ((line = readline(tty ? "gq> " : "")) != NULL) {
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t len = strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			p[--len] = '\0';
		if (!*p) {
			free(line);
			continue;
		}
		add_history(p);
		if (!strcmp(p, "exit") || !strcmp(p, "quit")) {
			free(line);
			break;
		}
		rc = run_line(p);
		free(line);
	}
	if (tty && !line)
		putchar('\n');
	sigaction(SIGINT, &old, NULL);
	if (have_hist) {
		write_history(hist);
		history_truncate_file(hist, HISTORY_MAX);
	}
	cands_clear();
	free(cands.v);
	cands.v = NULL;
	cands.cap = 0;
	return rc;
}

const struct cmd_entry cmd_shell = {
    .name = "shell",
    .usage = "",
    .summary = "an interactive prompt for gq commands, with history and completion",
    .flags = 0,
    .exec = shell_exec,
};
