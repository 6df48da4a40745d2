/*
 * begin.h - the deferred start of a job (`--begin`, Slurm's sbatch
 * --begin): the forms a user types, read against a given now and time
 * zone offset so that the answer is the same on every machine, and the
 * server's clock (manual in tests) is the one that counts.
 *
 * It is not the cooldown after a preemption (job.not_before): a begin time
 * is the user's choice, shown as its own wait reason ("begin").
 */
#ifndef GQ_BEGIN_H
#define GQ_BEGIN_H

#include <stdint.h>

#include "util.h"

/*
 * Reads s as a start time, as sbatch --begin does:
 *   now, now+COUNT[UNIT]   UNIT s, m, h, d, w or seconds, minutes, hours,
 *                          days, weeks (singular too), default seconds;
 *                          also a gq duration after the '+' ("now+2h30m")
 *   HH:MM[:SS]             today at that local time, tomorrow when it has
 *                          passed (Slurm's rule)
 *   midnight, noon, fika, teatime   00:00, 12:00, 15:00, 16:00 the same way
 *   today, tomorrow        00:00 of that day
 *   YYYY-MM-DD[THH:MM[:SS]]  a local date and time
 *   unix seconds           "@1790000000"
 * Local times use tz_offset (seconds east of UTC) for the whole day.
 * Returns 0 with *out, or -1 with GQ_EINVAL and a line naming s. A time
 * before now is not refused here: begin_check says so.
 */
int begin_parse(const char *s, int64_t now, int32_t tz_offset, int64_t *out, struct gq_err *e);

/* 0 when t (0: none) is now or later and no later than GQ_CLOCK_MAX; else
 * -1 with GQ_EINVAL: "begin time ... is in the past". */
int begin_check(int64_t t, int64_t now, struct gq_err *e);

#endif
