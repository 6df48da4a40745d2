/*
 * zone.h - times for people, in a time zone given as data: the pure time
 * formatter of every time gq shows (gq ls, why, eta, show, events, top).
 *
 * A zone is a table of UTC offsets, each in force from a time on, and a
 * name. Nothing here reads the clock, TZ or the zone database: the reader
 * of a time builds the zone of their own process once (cmd_zone() does it
 * with localtime_r) and passes it down; a zone known only by one offset,
 * such as the server's in a snapshot (snapshot.tz_offset, the zone the
 * scheduling windows are defined in), is zone_fixed(). So `gq ls` and
 * `gq top` show the same times, in the reader's zone, as squeue does.
 */
#ifndef GQ_EXPLAIN_ZONE_H
#define GQ_EXPLAIN_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZONE_MAX_SPANS 32

/* Offsets[i] is in force from from[i] (unix seconds) to from[i + 1];
 * from[0] is where the table starts and offset[0] applies before it too,
 * offset[n - 1] after the last transition. n >= 1. */
struct zone {
	char name[40]; /* "Europe/Berlin", "CET" or "UTC+01:00"; never empty */
	int n;
	int64_t from[ZONE_MAX_SPANS];
	int32_t offset[ZONE_MAX_SPANS]; /* seconds east of UTC */
};

/* One offset at all times, named name, or "UTC" / "UTC+01:00" / "UTC-03:30"
 * from the offset when name is NULL or empty. */
void zone_fixed(struct zone *z, int32_t offset, const char *name);
/* Appends a transition: offset is in force from `from` on. from must be
 * later than the last one; a full table or an equal offset is ignored. */
void zone_add(struct zone *z, int64_t from, int32_t offset);
/* The offset in force at t; 0 for a NULL or zeroed zone, which is UTC. */
int32_t zone_offset(const struct zone *z, int64_t t);
/* The name of a fixed offset: "UTC", "UTC+01:00", "UTC-03:30". Returns out. */
char *zone_offset_name(int32_t offset, char *out, size_t size);

/* Local civil time of t in z. */
struct zone_tm {
	int year, mon, mday; /* mon 1..12 */
	int hour, min, sec;
	int64_t day; /* days since 1970-01-01 in local time, for comparing days */
};
void zone_local(const struct zone *z, int64_t t, struct zone_tm *out);

/*
 * The formatters write at most size bytes and return out; a NULL zone is
 * UTC.
 * zone_time:  "14:35" on the same local day as now, else "Nov 30 14:35";
 *             "-" for 0 (unset). The time of gq ls, why, eta and show.
 * zone_clock: "14:35:07", the clock of gq top's header and event lists.
 * zone_stamp: "2026-11-30 14:35:07" (seconds) or "2026-11-30 14:35".
 * A zeroed zone is UTC too.
 * Month names are English whatever the locale, as in the C locale.
 */
char *zone_time(const struct zone *z, int64_t t, int64_t now, char *out, size_t size);
char *zone_clock(const struct zone *z, int64_t t, char *out, size_t size);
char *zone_stamp(const struct zone *z, int64_t t, bool seconds, char *out, size_t size);

#endif
