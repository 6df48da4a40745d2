/*
 * resv.c - reservations in the prediction (resv.h).
 */
#include "resv.h"

#include <string.h>

const struct reservation *resv_find(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->nresv; i++)
		if (!strcmp(s->resv[i].name, name))
			return &s->resv[i];
	return NULL;
}

int64_t resv_earliest(const struct snapshot *s, const struct job *j, int64_t t,
		      const struct reservation **by)
{
	const struct reservation *who = NULL;
	if (by)
		*by = NULL;
	if (j->reservation[0]) {
		/* Its own: not before it begins. Another reservation's nodes
		 * are not its own's (Slurm refuses overlapping ones). */
		const struct reservation *r = resv_find(s, j->reservation);
		if (r && t < r->start_time) {
			t = r->start_time;
			who = r;
		}
		if (by)
			*by = who;
		return t;
	}
	/* No limit: it runs for ever, into any reservation ahead. */
	int64_t limit = j->time_limit > 0 ? j->time_limit : INT64_MAX / 4;
	/* One reservation's end may run the job into the next one's start:
	 * until none moves it (each moves it past its end, at most once). */
	for (size_t round = 0; round <= s->nresv; round++) {
		bool moved = false;
		for (size_t i = 0; i < s->nresv; i++) {
			const struct reservation *r = &s->resv[i];
			if (!r->all_nodes || t >= r->end_time ||
			    (t < INT64_MAX / 4 && t + limit <= r->start_time))
				continue;
			t = r->end_time;
			who = r;
			moved = true;
		}
		if (!moved)
			break;
	}
	if (by)
		*by = who;
	return t;
}
