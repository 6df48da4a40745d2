/*
 * begin.c - reading `--begin` times (begin.h). Pure: now and the zone
 * offset are arguments; calendar arithmetic is done here on days since
 * the epoch, not with mktime.
 */
#include "begin.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's rule). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int64_t y, int m)
{
	static const int n[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : n[m - 1];
}

/* Exactly len digits at *p into *v; advances *p. */
static bool digits(const char **p, int len, int *v)
{
	int x = 0;
	for (int i = 0; i < len; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		x = x * 10 + ((*p)[i] - '0');
	}
	*p += len;
	*v = x;
	return true;
}

/* "HH:MM[:SS]" (H one or two digits) at *p into seconds of the day. */
static bool clock_of_day(const char **p, int64_t *sec)
{
	int h, m, s = 0;
	const char *q = *p;
	if (!digits(&q, 2, &h)) {
		q = *p;
		if (!digits(&q, 1, &h))
			return false;
	}
	if (*q++ != ':' || !digits(&q, 2, &m))
		return false;
	if (*q == ':') {
		q++;
		if (!digits(&q, 2, &s))
			return false;
	}
	if (h > 23 || m > 59 || s > 59)
		return false;
	*p = q;
	*sec = (int64_t)h * 3600 + m * 60 + s;
	return true;
}

/* Unit words after now+COUNT, in seconds. */
static int64_t unit_seconds(const char *u)
{
	static const struct {
		const char *word;
		int64_t sec;
	} tab[] = {
	    {"", 1},	    {"s", 1},	      {"sec", 1},	 {"second", 1},	  {"seconds", 1},
	    {"m", 60},	    {"min", 60},      {"minute", 60},	 {"minutes", 60}, {"h", 3600},
	    {"hour", 3600}, {"hours", 3600},  {"d", 86400},	 {"day", 86400},  {"days", 86400},
	    {"w", 604800},  {"week", 604800}, {"weeks", 604800},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(u, tab[i].word))
			return tab[i].sec;
	return 0;
}

static int bad(const char *s, struct gq_err *e)
{
	return err_set(e, GQ_EINVAL,
		       "'%s' is not a begin time; use now+2h, 14:00, tomorrow, "
		       "YYYY-MM-DD[THH:MM[:SS]] or @UNIXSECONDS",
		       s);
}

int begin_parse(const char *s, int64_t now, int32_t tz_offset, int64_t *out, struct gq_err *e)
{
	int64_t local = now + tz_offset;
	int64_t day0 = (local >= 0 ? local / 86400 : (local - 86399) / 86400) * 86400 - tz_offset;
	int64_t t, sec;
	const char *p = s;
	if (!strncmp(s, "now", 3) && (!s[3] || s[3] == '+')) {
		t = now;
		if (s[3]) {
			int64_t n = 0;
			const char *q = s + 4;
			int ndig = 0;
			while (*q >= '0' && *q <= '9' && ndig < 12) {
				n = n * 10 + (*q++ - '0');
				ndig++;
			}
			int64_t unit = ndig ? unit_seconds(q) : 0;
			if (unit)
				n *= unit;
			else if (dur_parse(s + 4, &n, NULL) < 0)
				return bad(s, e);
			if (n > GQ_DUR_MAX)
				return bad(s, e);
			t += n;
		}
	} else if (s[0] == '@') {
		if (parse_int64(s + 1, 1, GQ_CLOCK_MAX, &t, NULL) < 0)
			return bad(s, e);
	} else if (!strcmp(s, "today") || !strcmp(s, "tomorrow")) {
		t = day0 + (s[1] == 'o' && s[2] == 'm' ? 86400 : 0);
	} else if (!strcmp(s, "midnight") || !strcmp(s, "noon") || !strcmp(s, "fika") ||
		   !strcmp(s, "teatime") || (clock_of_day(&p, &sec) && !*p)) {
		if (s[0] == 'm')
			sec = 0;
		else if (s[0] == 'n')
			sec = 12 * 3600;
		else if (s[0] == 'f')
			sec = 15 * 3600;
		else if (s[0] == 't')
			sec = 16 * 3600;
		t = day0 + sec;
		if (t < now) /* passed today: tomorrow, as Slurm does */
			t += 86400;
	} else {
		int y, mo, d;
		p = s;
		if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
		    !digits(&p, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
			return bad(s, e);
		sec = 0;
		if (*p == 'T' || *p == ' ') {
			p++;
			if (!clock_of_day(&p, &sec))
				return bad(s, e);
		}
		if (*p)
			return bad(s, e);
		t = days_from_civil(y, mo, d) * 86400 + sec - tz_offset;
	}
	if (t > GQ_CLOCK_MAX)
		return bad(s, e);
	*out = t;
	return 0;
}

int begin_check(int64_t t, int64_t now, struct gq_err *e)
{
	if (t == 0)
		return 0;
	if (t < now)
		return err_set(e, GQ_EINVAL,
			       "begin time %" PRId64 " is in the past (now is %" PRId64
			       "); give a later one or none",
			       t, now);
	if (t > GQ_CLOCK_MAX)
		return err_set(e, GQ_EINVAL, "begin time %" PRId64 " is after the year 9999", t);
	return 0;
}
