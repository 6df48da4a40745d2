/*
 * snapshot.c - fuzz target: codec_snapshot_parse, what every client runs on
 * GET /v1/snapshot, in both forms (the lean objects and the rows form).
 *
 * Invariants (codec.h): a snapshot that decodes holds no non-finite
 * number; its objects text and its rows text both decode back to the same
 * snapshot, which writes the same objects text again.
 */
#include "fuzz.h"

#include "wire/codec.h"

static void check_finite(const struct snapshot *s)
{
	for (size_t i = 0; i < s->njobs; i++)
		FUZZ_FINITE(s->jobs[i].hist_ratio, "job.hist_ratio");
	for (size_t i = 0; i < GQ_MAX_QUEUES; i++)
		FUZZ_FINITE(s->qstate[i].usage, "queue.usage");
	for (size_t i = 0; i < GQ_MAX_DEPTS; i++)
		FUZZ_FINITE(s->dstate[i].gpu_hours_month, "dept.gpu_hours_month");
}

/* The snapshot's objects text must decode to a snapshot with the same
 * objects text; text is that of s. */
static void check_back(const char *text, size_t len, const char *want, const char *what)
{
	struct snapshot t;
	snapshot_init(&t);
	struct gq_err e = GQ_ERR_INIT;
	FUZZ_CHECK(codec_snapshot_parse(text, len, &t, &e) == 0, "%s does not decode: %s\n%.300s",
		   what, e.msg, text);
	check_finite(&t);
	size_t n;
	char *again = codec_snapshot_text(&t, CODEC_OBJECTS, &n, NULL);
	FUZZ_SAME_TEXT(want, again, what);
	free(again);
	snapshot_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot s;
	snapshot_init(&s);
	struct gq_err e = GQ_ERR_INIT;
	if (codec_snapshot_parse((const char *)data, size, &s, &e) < 0) {
		FUZZ_CHECK(e.code != GQ_OK && e.msg[0], "an error without a message");
		return 0;
	}
	check_finite(&s);
	size_t n;
	char *objects = codec_snapshot_text(&s, CODEC_OBJECTS, &n, NULL);
	check_back(objects, n, objects, "objects text");
	char *rows = codec_snapshot_text(&s, CODEC_ROWS, &n, NULL);
	check_back(rows, n, objects, "rows text");
	free(rows);
	free(objects);
	snapshot_release(&s);
	return 0;
}
