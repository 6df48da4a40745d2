/*
 * events.c - fuzz target: what the client decodes of an answer of
 * GET /v1/events (codec_parse, then codec_events_decode of its "events"
 * member, as the native backend does) and of any error answer
 * (codec_error_decode), and of gq serve --slurm's GET /v1/jobs/ID/files
 * (wire_job_files_parse).
 *
 * Invariants (codec.h): every event that decodes encodes and decodes back
 * to the same event; an error answer either decodes to a known code with
 * its message (never "ok", which would make a failed request exit 0) or
 * to "unexpected answer from the server".
 */
#include "fuzz.h"

#include "wire/codec.h"
#include "wire/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v = NULL;
	struct gq_err e = GQ_ERR_INIT;
	if (codec_parse((const char *)data, size, &v, &e) < 0) {
		FUZZ_CHECK(e.code == GQ_EINVAL && e.msg[0], "a parse error without its message");
		return 0;
	}
	struct gq_err ae = GQ_ERR_INIT;
	if (codec_error_decode(v, &ae) < 0)
		FUZZ_CHECK(ae.code == GQ_EINTERNAL, "a body that is no error gives code %d",
			   ae.code);
	/* A known code: one whose name maps back to it (every class, not a range
	 * that goes stale when a class is added after GQ_EINTERNAL). */
	FUZZ_CHECK(ae.code != GQ_OK && err_code_from_name(err_code_name(ae.code)) == ae.code,
		   "error code %d is no error class", ae.code);

	/* gq serve --slurm's GET /v1/jobs/ID/files: what decodes encodes
	 * to a text that decodes to the same. */
	char *files[4];
	if (wire_job_files_parse((const char *)data, size, files, &e) == 0) {
		char *t = wire_job_files_text((const char *const *)files), *again[4];
		FUZZ_CHECK(wire_job_files_parse(t, strlen(t), again, &e) == 0,
			   "files text does not decode: %s\n%s", e.msg, t);
		for (int i = 0; i < 4; i++) {
			FUZZ_CHECK((!files[i] && !again[i]) ||
				       (files[i] && again[i] && !strcmp(files[i], again[i])),
				   "files field %d changed", i);
			free(files[i]);
			free(again[i]);
		}
		free(t);
	}

	struct event *evs = NULL;
	size_t n = 0;
	if (codec_events_decode(json_object_get(v, "events"), &evs, &n, &e) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *text = fuzz_text(codec_event_encode(&evs[i]));
			json_t *w = NULL;
			struct event back;
			FUZZ_CHECK(codec_parse(text, strlen(text), &w, &e) == 0 &&
				       codec_event_decode(w, &back, &e) == 0,
				   "event text does not decode: %s\n%s", e.msg, text);
			char *again = fuzz_text(codec_event_encode(&back));
			FUZZ_SAME_TEXT(text, again, "event text");
			free(again);
			json_decref(w);
			free(text);
		}
		free(evs);
	}
	json_decref(v);
	return 0;
}
