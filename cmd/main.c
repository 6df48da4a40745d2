/*
 * main.c - gq's entry point: finds the command in the table and runs it.
 */
#include "cmd.h"

#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

static void list_commands(FILE *out)
{
	fprintf(out, "usage: gq COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; cmd_table[i]; i++)
		if (!(cmd_table[i]->flags & CMD_HIDDEN))
			fprintf(out, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(out, "\n'gq help COMMAND' or 'man gq-COMMAND' tells more.\n");
}

int main(int argc, char **argv)
{
	/* Text for people follows the locale; numbers never do. Policy files,
	 * the wire and the journal are read and written with strtod and
	 * printf, so LC_NUMERIC stays "C" (a decimal comma would make "1.5"
	 * unreadable and 0.5 print as "0,5"). A server this process starts
	 * runs this same line. */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	if (argc < 2) {
		list_commands(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		list_commands(stdout);
		return EXIT_OK;
	}
	const struct cmd_entry *c = cmd_find(strcmp(argv[1], "--version") ? argv[1] : "version");
	if (!c) {
		fprintf(stderr, "gq: '%s' is not a gq command; see 'gq --help'\n", argv[1]);
		return EXIT_USAGE;
	}
	if (c->flags & CMD_NEEDS_BACKEND) {
		/* A client lives for a moment and builds the same large arrays
		 * again for each prediction (gq why runs several): keep what
		 * it frees for reuse, in one arena for its threads, rather
		 * than give it back to the kernel and fault it in again. */
		mallopt(M_ARENA_MAX, 1);
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
		mallopt(M_TRIM_THRESHOLD, 256 << 20);
	}
	return cmd_invoke(c, argc - 1, argv + 1);
}
