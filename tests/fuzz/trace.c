/*
 * trace.c - fuzz target: the workload-trace readers of gq sim
 * (replay/trace.h), CSV and SWF. The first byte picks the reader; the
 * rest is the file's text.
 *
 * Invariants (trace.h): a malformed line is -1 with GQ_EINVAL and one line
 * "shown:LINE: what is wrong" (no newline in it), and the jobs before it
 * stay; on success max_units is the widest job's units. Every job's
 * strings end within their fields.
 */
#include "fuzz.h"

#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	bool swf = data[0] & 1;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct trace t;
	struct gq_err e = GQ_ERR_INIT;
	trace_init(&t);
	int rc =
	    swf ? trace_parse_swf(&t, text, len, "f", &e) : trace_parse_csv(&t, text, len, "f", &e);
	FUZZ_CHECK(rc == 0 || rc == -1, "the reader returned %d", rc);
	if (rc < 0) {
		FUZZ_CHECK(e.code == GQ_EINVAL, "code %d", (int)e.code);
		FUZZ_CHECK(!strncmp(e.msg, "f:", 2) && !strchr(e.msg, '\n'), "message '%s'", e.msg);
	}
	int widest = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct trace_job *j = &t.jobs[i];
		FUZZ_CHECK(memchr(j->id, 0, sizeof(j->id)) && memchr(j->user, 0, sizeof(j->user)) &&
			       memchr(j->queue, 0, sizeof(j->queue)) &&
			       memchr(j->name, 0, sizeof(j->name)),
			   "job %zu", i);
		if (j->units > widest)
			widest = j->units;
	}
	FUZZ_CHECK(rc < 0 || !t.n || t.max_units == widest, "max_units %d, widest %d", t.max_units,
		   widest);
	trace_release(&t);
	return 0;
}
