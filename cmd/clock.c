/*
 * clock.c - `gq clock`: the server's time, and the manual clock of a server
 * started with --manual-clock (tests, demos): `gq clock +5h` moves it
 * forward, `gq clock --set TIME` to a given time. Moving it is an admin
 * action; the clock never goes back.
 */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "wire/cli.h"

static int clock_exec(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_clock;
	static const struct option lo[] = {
	    {"set", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {0, 0, 0, 0},
	};
	bool json = false;
	const char *set = NULL;
	int o, rc = EXIT_OK;
	/* "+5h" is an operand; "-5h" would read as options: say what it
	 * would mean instead of "unknown option '-5'". */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9')
			return cmd_usage_error(
			    c, "'%s' would move the clock back; it never goes back", argv[i]);
	while ((o = cmd_getopt(c, argc, argv, "", lo)) != -1) {
		if (o == 'j')
			json = true;
		else if (o == 's')
			set = optarg;
		else
			return cmd_opt_exit(o);
	}
	int64_t delta = 0, target = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (argc - optind > 1)
		return cmd_usage_error(c, "'%s' is extra; give one duration like '+5h'",
				       argv[optind + 1]);
	if (optind < argc && set)
		return cmd_usage_error(c, "give either a duration or --set, not both");
	if (optind < argc) {
		const char *d = argv[optind];
		if (*d == '+')
			d++;
		if (dur_parse(d, &delta, &e) < 0)
			return cmd_usage_error(c, "%s", e.msg);
		if (!delta)
			return cmd_usage_error(c, "a duration of 0 moves nothing; give e.g. '+5h'");
	}
	if (set && cmd_parse_time(set, &target) < 0)
		return cmd_usage_error(
		    c, "--set: bad time '%s'; use 'YYYY-MM-DD HH:MM[:SS]' or unix seconds", set);
	struct backend *b = cmd_backend(true, &rc);
	if (!b)
		return rc;
	int64_t now;
	if (set) {
		if (b->ops->clock(b, 0, &now, &e) < 0)
			goto fail;
		if (target < now) {
			char t[32];
			rc = cmd_usage_error(c,
					     "--set: '%s' is before the server's time (%s); the "
					     "clock never goes back",
					     set, cmd_time(now, 0, t, sizeof(t)));
			goto out;
		}
		delta = target - now;
	}
	if (b->ops->clock(b, delta, &now, &e) < 0)
		goto fail;
	if (json) {
		jout_now(now);
	} else {
		char buf[64];
		time_t t = (time_t)now;
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", &tm);
		printf("%s\n", buf);
	}
	goto out;
fail:
	rc = cmd_fail(&e);
out:
	backend_close(b);
	return rc;
}

const struct cmd_entry cmd_clock = {
    .name = "clock",
    .usage = "[--json] [+DURATION | --set TIME]",
    .summary = "print the server's time, or move its manual clock",
    .flags = CMD_NEEDS_BACKEND,
    .exec = clock_exec,
};
