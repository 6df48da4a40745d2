/*
 * stats.c - fuzz target: codec_stats_parse, what gq stats and gq policy
 * impact run on an answer of GET /v1/stats.
 *
 * Invariants (codec.h, stats.h): the metrics that decode hold no
 * non-finite number, and they encode and decode back to the same metrics.
 */
#include "fuzz.h"

#include "backend/codec.h"

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
	struct stats st;
	int64_t now = 0;
	struct gq_err e = GQ_ERR_INIT;
	if (codec_stats_parse((const char *)data, size, &st, &now, &e) < 0) {
		FUZZ_CHECK(e.code != GQ_OK && e.msg[0], "an error without a message");
		return 0;
	}
	check_finite(&st);
	char *text = fuzz_text(codec_stats_encode(&st, NULL, now));
	struct stats back;
	int64_t now2 = 0;
	FUZZ_CHECK(codec_stats_parse(text, strlen(text), &back, &now2, &e) == 0,
		   "stats text does not decode: %s\n%.300s", e.msg, text);
	char *again = fuzz_text(codec_stats_encode(&back, NULL, now2));
	FUZZ_SAME_TEXT(text, again, "stats text");
	free(again);
	free(text);
	stats_release(&back);
	stats_release(&st);
	return 0;
}
