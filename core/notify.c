/*
 * notify.c - the words of --notify and the transitions that fire them
 * (notify.h). Pure.
 */
#include "notify.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {"start", "end", "fail", "requeue"};

const char *notify_event_name(unsigned ev)
{
	for (unsigned i = 0; i < 4; i++)
		if (ev == 1u << i)
			return names[i];
	return NULL;
}

int notify_parse(const char *s, unsigned *mask, struct gq_err *e)
{
	unsigned m = 0;
	const char *p = s;
	if (!strcmp(s, "none")) {
		*mask = 0;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned bit = 0;
		if (len == 3 && !strncmp(p, "all", 3))
			bit = NOTIFY_ALL;
		for (unsigned i = 0; i < 4 && !bit; i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len))
				bit = 1u << i;
		if (!bit)
			return err_set(e, GQ_EINVAL,
				       "notify '%s': unknown event '%.*s'; give a list of start, "
				       "end, fail, requeue (or all, none)",
				       s, (int)(len < 32 ? len : 32), p);
		m |= bit;
		if (!p[len])
			break;
		p += len + 1;
	}
	*mask = m;
	return 0;
}

void notify_format(unsigned mask, char *out, size_t size)
{
	size_t n = 0;
	if (size)
		out[0] = 0;
	for (unsigned i = 0; i < 4; i++)
		if (mask & (1u << i)) {
			int w = snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
					 names[i]);
			n += (size_t)w;
		}
}

unsigned notify_event_of(unsigned mask, enum job_state from, enum job_state to)
{
	if (from == to)
		return 0;
	if (to == JOB_RUNNING && from == JOB_STARTING)
		return mask & NOTIFY_START;
	if (to == JOB_PENDING && (from == JOB_RUNNING || from == JOB_STOPPING))
		return mask & NOTIFY_REQUEUE;
	/* Only the ends below; job_state_active is job.c's, which calls here. */
	if (to != JOB_COMPLETED && to != JOB_FAILED && to != JOB_CANCELLED && to != JOB_TIMEOUT)
		return 0;
	if ((to == JOB_FAILED || to == JOB_TIMEOUT) && (mask & NOTIFY_FAIL))
		return NOTIFY_FAIL;
	return mask & NOTIFY_END;
}
