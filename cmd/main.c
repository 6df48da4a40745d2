/*
 * main.c - gq's entry point: finds the command in the table and runs it.
 */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void list_commands(FILE *out)
{
	fprintf(out, "usage: gq COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; cmd_table[i]; i++)
		if (!(cmd_table[i]->flags & CMD_HIDDEN))
			fprintf(out, "  %-10s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
	fprintf(out, "\n'gq help COMMAND' or 'man gq-COMMAND' tells more.\n");
}

/* A standard descriptor the caller closed ("gq ls >&-") would be the
 * next file gq opens, and what it prints would go there (the server's
 * socket, say). Open /dev/null in the wrong direction in its place: every
 * write to it fails with EBADF and is reported as the closed output it
 * is, every read from a closed stdin too. */
static void guard_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int n = open("/dev/null", fd ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) { /* a lower one is closed as well: done in turn */
			dup2(n, fd);
			close(n);
		}
	}
}

/*
 * What a command printed must have reached standard output (a full disk,
 * /dev/full or a closed descriptor lose it): as coreutils' close_stdout,
 * once, after the command. An error turns the exit code into 1 with one
 * line. A pipe whose reader left (EPIPE, when SIGPIPE is ignored as some
 * callers do) is the reader's choice, as "gq ls | head -1" is when
 * SIGPIPE ends gq: quiet, but still not a success.
 */
static int close_stdout(int rc)
{
	bool failed = ferror(stdout) != 0;
	errno = 0;
	if (fflush(stdout) != 0)
		failed = true;
	int err = errno;
	if (!failed)
		return rc;
	/* A write that failed before (a large fputs, a flush of the command's
	 * own) left the error flag but not its errno: an empty write asks the
	 * descriptor again (EBADF, /dev/full's ENOSPC; a full disk says
	 * nothing to it, and the line then gives no reason). */
	if (!err && write(STDOUT_FILENO, "", 0) < 0)
		err = errno;
	if (err == EPIPE)
		return rc == EXIT_OK ? EXIT_FAIL : rc;
	if (err)
		fprintf(stderr, "gq: cannot write to standard output: %s\n", strerror(err));
	else
		fprintf(stderr, "gq: cannot write to standard output\n");
	return rc == EXIT_OK ? EXIT_FAIL : rc;
}

int main(int argc, char **argv)
{
	guard_std_fds();
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
		return close_stdout(EXIT_OK);
	}
	const struct cmd_entry *c = cmd_find(strcmp(argv[1], "--version") ? argv[1] : "version");
	if (!c) {
		const struct cmd_entry *near = cmd_nearest(argv[1]);
		if (near)
			fprintf(stderr, "gq: '%s' is not a gq command; did you mean 'gq %s'?\n",
				argv[1], near->name);
		else
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
	} else if (!strcmp(c->name, "serve")) {
		/* gq serve answers each connection on a thread of its own:
		 * glibc gives them up to 8 arenas a core, each keeping what
		 * its threads freed, and the soak's RSS grew by 14 kB a job
		 * (136 MB in 9 minutes; 2 arenas: 6.6 kB, and falling back). */
		mallopt(M_ARENA_MAX, 2);
	}
	return close_stdout(cmd_invoke(c, argc - 1, argv + 1));
}
