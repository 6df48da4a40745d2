/*
 * units.c - fuzz target: the number parsers of core/util.c that read flags,
 * #GQ lines, policy values and query parameters: dur_parse,
 * parse_size_mb, parse_int64 and parse_double, and utf8_valid (what every
 * string must be to go over the wire). The first byte of the input
 * picks the parser (and the range for the numbers); the rest is the text.
 *
 * Invariants (util.h): a duration is 0..100 years, and dur_format of it
 * parses back to it truncated to its two largest units ("2h05m" drops the
 * seconds), formatting the same again; a size is >= 0 MiB and "<N>M"
 * parses back to it; an integer or a number is within its range, finite,
 * and its plain decimal text ("%lld", "%.17g") parses back to it exactly;
 * utf8_valid accepts exactly the strings jansson makes JSON strings of.
 */
#include "fuzz.h"

#include <inttypes.h>
#include <jansson.h>

static const struct {
	int64_t min, max;
} int_ranges[] = {
    {INT64_MIN, INT64_MAX}, {0, INT64_MAX}, {1, INT64_C(1) << 53}, {0, 1024}, {-5, 5},
};

static const struct {
	double min, max;
} dbl_ranges[] = {
    {-1e308, 1e308},
    {0, 1},
    {0, 1e9},
    {-1, 1},
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static void fuzz_dur(const char *s)
{
	int64_t v = -1, w = -1;
	struct gq_err e = GQ_ERR_INIT;
	if (dur_parse(s, &v, &e) < 0)
		return;
	const int64_t max = INT64_C(100) * 365 * 86400;
	FUZZ_CHECK(v >= 0 && v <= max, "'%s' parses to %" PRId64, s, v);
	char f[48], g[48];
	dur_format(v, f, sizeof(f));
	FUZZ_CHECK(dur_parse(f, &w, &e) == 0, "'%s' -> %s does not parse: %s", s, f, e.msg);
	int64_t grain = v < 60 ? 1 : v < 86400 ? 60 : 3600;
	FUZZ_CHECK(w <= v && v - w < grain, "'%s' = %" PRId64 " -> %s -> %" PRId64, s, v, f, w);
	FUZZ_SAME_TEXT(f, dur_format(w, g, sizeof(g)), "formatted durations");
}

static void fuzz_size(const char *s)
{
	int64_t v = -1, w = -1;
	struct gq_err e = GQ_ERR_INIT;
	if (parse_size_mb(s, &v, &e) < 0)
		return;
	FUZZ_CHECK(v >= 0, "'%s' parses to %" PRId64, s, v);
	char f[32];
	snprintf(f, sizeof(f), "%" PRId64 "M", v);
	FUZZ_CHECK(parse_size_mb(f, &w, &e) == 0 && w == v, "'%s' = %" PRId64 " -> %s -> %s", s, v,
		   f, e.msg);
}

static void fuzz_int(const char *s, unsigned pick)
{
	int64_t min = int_ranges[pick % NR(int_ranges)].min,
		max = int_ranges[pick % NR(int_ranges)].max;
	int64_t v = 0, w = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (parse_int64(s, min, max, &v, &e) < 0)
		return;
	FUZZ_CHECK(v >= min && v <= max, "'%s' parses to %" PRId64, s, v);
	char f[32];
	snprintf(f, sizeof(f), "%" PRId64, v);
	FUZZ_CHECK(parse_int64(f, min, max, &w, &e) == 0 && w == v, "'%s' -> %s -> %s", s, f,
		   e.msg);
}

static void fuzz_double(const char *s, unsigned pick)
{
	double min = dbl_ranges[pick % NR(dbl_ranges)].min,
	       max = dbl_ranges[pick % NR(dbl_ranges)].max;
	double v = 0, w = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (parse_double(s, min, max, &v, &e) < 0)
		return;
	FUZZ_FINITE(v, "a parsed number");
	FUZZ_CHECK(v >= min && v <= max, "'%s' parses to %g", s, v);
	char f[40];
	snprintf(f, sizeof(f), "%.17g", v);
	FUZZ_CHECK(parse_double(f, min, max, &w, &e) == 0 && w == v, "'%s' -> %s -> %s", s, f,
		   e.msg);
}

static void fuzz_utf8(const char *s)
{
	json_t *v = json_string(s);
	FUZZ_CHECK(utf8_valid(s) == (v != NULL), "utf8_valid says %d, jansson %d", utf8_valid(s),
		   v != NULL);
	json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *s = fuzz_str(data + 1, size - 1);
	unsigned pick = data[0];
	switch (pick % 5) {
	case 0:
		fuzz_dur(s);
		break;
	case 1:
		fuzz_size(s);
		break;
	case 2:
		fuzz_int(s, pick / 5);
		break;
	case 3:
		fuzz_double(s, pick / 5);
		break;
	case 4:
		fuzz_utf8(s);
		break;
	}
	free(s);
	return 0;
}
