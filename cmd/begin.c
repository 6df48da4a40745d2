/*
 * begin.c - `--begin` of the commands (begin.h). The forms are core's
 * (core/begin.h); this file only finds the clock and the reader's zone.
 */
#include "begin.h"

#include <stdlib.h>
#include <time.h>

#include "core/begin.h"

int cmd_begin_syntax(const struct cmd_entry *c, const char *where, const char *arg)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t t;
	if (begin_parse(arg, 0, 0, &t, &e) < 0)
		return cmd_usage_error(c, "%s--begin: %s", where, e.msg);
	return EXIT_OK;
}

int cmd_begin_resolve(const struct cmd_entry *c, struct backend *b, const char *arg, int64_t *out)
{
	struct gq_err e = GQ_ERR_INIT;
	int64_t now = 0;
	/* The server's clock first: a manual one (tests) is the one that counts. */
	if (!b->ops->clock || b->ops->clock(b, 0, &now, &e) < 0 || now <= 0)
		now = (int64_t)time(NULL);
	int64_t t;
	if (begin_parse(arg, now, zone_offset(cmd_zone(now), now), &t, &e) < 0)
		return cmd_usage_error(c, "--begin: %s", e.msg);
	if (t < now) {
		char when[64], n[64];
		return cmd_usage_error(c,
				       "--begin '%s' is in the past (%s, now is %s); give a "
				       "later time, or none to start as soon as it can",
				       arg, cmd_time(t, now, when, sizeof(when)),
				       cmd_time(now, now, n, sizeof(n)));
	}
	*out = t == now ? 0 : t;
	return EXIT_OK;
}
