/*
 * window.c - the policy's daily time windows, "HH:MM-HH:MM" (policy.h).
 */
#include "policy.h"

#include <stdio.h>

bool window_contains(const struct window *w, int m)
{
	if (!w->set)
		return false;
	if (w->start_min <= w->end_min)
		return m >= w->start_min && m < w->end_min;
	return m >= w->start_min || m < w->end_min;
}

int window_parse(const char *s, struct window *w, struct gq_err *e)
{
	unsigned h1, m1, h2, m2;
	char extra;
	if (!*s) {
		w->set = false;
		w->start_min = w->end_min = 0;
		return 0;
	}
	if (sscanf(s, "%2u:%2u-%2u:%2u%c", &h1, &m1, &h2, &m2, &extra) != 4 || h1 > 23 || h2 > 24 ||
	    m1 > 59 || m2 > 59 || (h2 == 24 && m2) || (h1 * 60 + m1 == h2 * 60 + m2))
		return err_set(e, GQ_EINVAL, "bad window '%s'; use HH:MM-HH:MM, e.g. '20:00-08:00'",
			       s);
	w->set = true;
	w->start_min = (int)(h1 * 60 + m1);
	w->end_min = (int)(h2 * 60 + m2) % 1440;
	return 0;
}

char *window_format(const struct window *w, char *out, size_t size)
{
	if (!w->set)
		snprintf(out, size, "%s", "");
	else
		snprintf(out, size, "%02d:%02d-%02d:%02d", w->start_min / 60, w->start_min % 60,
			 w->end_min / 60, w->end_min % 60);
	return out;
}
