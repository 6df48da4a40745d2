/*
 * help.c - `gq help [COMMAND]`: the list of commands, or a command's man
 * page as text (the same page `man gq-COMMAND` shows, built into gq).
 */
#include "cmd.h"

#include <stdio.h>
#include <string.h>

#include "manpages.h"

static int help_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_help;
	int o;
	while ((o = cmd_getopt(c, argc, argv, "", NULL)) != -1)
		return cmd_opt_exit(o);
	if (argc - optind > 1)
		return cmd_usage_error(c, "one command at a time; '%s' is extra", argv[optind + 1]);
	if (optind == argc) {
		const char *text = manpage_text("gq");
		if (text) {
			fputs(text, stdout);
			return EXIT_OK;
		}
		printf("usage: gq COMMAND [ARGS...]\n\n");
		for (size_t i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN))
				printf("  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
		return EXIT_OK;
	}
	const char *name = argv[optind];
	const struct cmd_entry *t = cmd_find(name);
	char page[80];
	snprintf(page, sizeof(page), "gq-%s", name);
	const char *text = strlen(name) < 64 ? manpage_text(page) : NULL;
	if (!t && !text)
		return cmd_usage_error(c, "'%s' is not a gq command; 'gq help' lists them", name);
	if (!text)
		return cmd_print_usage(t);
	fputs(text, stdout);
	return EXIT_OK;
}

const struct cmd_entry cmd_help = {
    .name = "help",
    .usage = "[COMMAND]",
    .summary = "show the manual of gq or of one command",
    .flags = 0,
    .exec = help_exec,
};
