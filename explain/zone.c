/*
 * zone.c - civil time from unix time and a zone table (see zone.h). The
 * date arithmetic is the days-from-civil algorithm of the proleptic
 * Gregorian calendar; no libc time function is called, so the layer stays
 * pure and the formatting is the same in every process.
 */
#include "zone.h"

#include <stdio.h>
#include <string.h>

char *zone_offset_name(int32_t offset, char *out, size_t size)
{
	if (!offset) {
		snprintf(out, size, "UTC");
		return out;
	}
	int32_t a = offset < 0 ? -offset : offset;
	if (a % 60)
		snprintf(out, size, "UTC%c%02d:%02d:%02d", offset < 0 ? '-' : '+', (int)(a / 3600),
			 (int)(a / 60 % 60), (int)(a % 60));
	else
		snprintf(out, size, "UTC%c%02d:%02d", offset < 0 ? '-' : '+', (int)(a / 3600),
			 (int)(a / 60 % 60));
	return out;
}

void zone_fixed(struct zone *z, int32_t offset, const char *name)
{
	memset(z, 0, sizeof(*z));
	if (name && name[0])
		snprintf(z->name, sizeof(z->name), "%s", name);
	else
		zone_offset_name(offset, z->name, sizeof(z->name));
	z->n = 1;
	z->from[0] = INT64_MIN;
	z->offset[0] = offset;
}

void zone_add(struct zone *z, int64_t from, int32_t offset)
{
	if (z->n >= ZONE_MAX_SPANS || from <= z->from[z->n - 1] || offset == z->offset[z->n - 1])
		return;
	z->from[z->n] = from;
	z->offset[z->n] = offset;
	z->n++;
}

int32_t zone_offset(const struct zone *z, int64_t t)
{
	if (!z || z->n <= 0)
		return 0; /* NULL or zeroed: UTC */
	int i = z->n - 1;
	while (i > 0 && t < z->from[i])
		i--;
	return z->offset[i];
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

void zone_local(const struct zone *z, int64_t t, struct zone_tm *out)
{
	int64_t l = t + zone_offset(z, t);
	int64_t days = floor_div(l, 86400);
	int64_t sec = l - days * 86400;
	out->day = days;
	out->hour = (int)(sec / 3600);
	out->min = (int)(sec / 60 % 60);
	out->sec = (int)(sec % 60);
	/* civil_from_days: eras of 400 years from 0000-03-01. */
	int64_t d = days + 719468;
	int64_t era = floor_div(d, 146097);
	int64_t doe = d - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	out->mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	out->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	out->year = (int)(yoe + era * 400 + (out->mon <= 2));
}

static const char month_name[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
				       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

char *zone_time(const struct zone *z, int64_t t, int64_t now, char *out, size_t size)
{
	if (!t) {
		snprintf(out, size, "-");
		return out;
	}
	struct zone_tm a, b;
	zone_local(z, t, &a);
	zone_local(z, now, &b);
	if (a.day == b.day && size >= 6) {
		/* By hand: gq ls writes one a row. */
		out[0] = (char)('0' + a.hour / 10);
		out[1] = (char)('0' + a.hour % 10);
		out[2] = ':';
		out[3] = (char)('0' + a.min / 10);
		out[4] = (char)('0' + a.min % 10);
		out[5] = '\0';
	} else if (a.day == b.day)
		snprintf(out, size, "%02d:%02d", a.hour, a.min);
	else
		snprintf(out, size, "%s %02d %02d:%02d", month_name[a.mon - 1], a.mday, a.hour,
			 a.min);
	return out;
}

char *zone_clock(const struct zone *z, int64_t t, char *out, size_t size)
{
	struct zone_tm a;
	zone_local(z, t, &a);
	snprintf(out, size, "%02d:%02d:%02d", a.hour, a.min, a.sec);
	return out;
}

char *zone_stamp(const struct zone *z, int64_t t, bool seconds, char *out, size_t size)
{
	struct zone_tm a;
	zone_local(z, t, &a);
	if (seconds)
		snprintf(out, size, "%04d-%02d-%02d %02d:%02d:%02d", a.year, a.mon, a.mday, a.hour,
			 a.min, a.sec);
	else
		snprintf(out, size, "%04d-%02d-%02d %02d:%02d", a.year, a.mon, a.mday, a.hour,
			 a.min);
	return out;
}
