/*
 * stats.c - fuzz target: wire_stats_parse, what gq stats and gq policy
 * impact run on an answer of GET /v1/stats.
 *
 * Invariants (codec.h, stats.h): the metrics that decode hold no
 * non-finite number, and they encode and decode back to the same metrics.
 */
#include "fuzz.h"

#include "wire/codec.h"

static void check_finite(const struct stats *st)
{
	FUZZ_FINITE(st->gpu_seconds, "stats.gpu_seconds");
	FUZZ_FINITE(st->utilisation, "stats.utilisation");
	for (size_t i = 0; i < st->ngroups; i++)
		FUZZ_FINITE(st->groups[i].work_lost, "stats.groups.work_lost");
	for (size_t i = 0; i < st->ndepts; i++) {
		FUZZ_FINITE(st->depts[i].gpu_hours, "stats.depts.gpu_hours");
		FUZZ_FINITE(st->depts[i].charged, "stats.depts.charged");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_report r;
	struct gq_err e = GQ_ERR_INIT;
	if (wire_stats_parse((const char *)data, size, &r, &e) < 0) {
		FUZZ_CHECK(e.code != GQ_OK && e.msg[0], "an error without a message");
		return 0;
	}
	check_finite(&r.st);
	char *text = wire_stats_text(&r);
	struct stats_report back;
	FUZZ_CHECK(wire_stats_parse(text, strlen(text), &back, &e) == 0,
		   "stats text does not decode: %s\n%.300s", e.msg, text);
	char *again = wire_stats_text(&back);
	FUZZ_SAME_TEXT(text, again, "stats text");
	free(again);
	free(text);
	stats_release(&back.st);
	stats_release(&r.st);
	return 0;
}
