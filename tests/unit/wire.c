/* wire.c - wire.h's messages: the version handshake, and the reports gq
 * prints with --json as the server's own text (decoded, encoded again,
 * byte for byte). */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "wire/wire.h"

static void test_api_versions_meet_or_say_who_upgrades(void)
{
	struct wire_api one = {1, 1}, two = {2, 2}, both = {1, 2}, peer;
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_api_parse(NULL, NULL, &peer, &e), 0);
	CHECK_INT(peer.oldest, 1);
	CHECK_INT(peer.current, 1);
	CHECK_INT(wire_api_parse("3", NULL, &peer, &e), 0);
	CHECK_INT(peer.oldest, 3);
	CHECK_INT(wire_api_parse("2", "3", &peer, &e), -1);
	CHECK_INT(wire_api_parse("x", NULL, &peer, &e), -1);
	CHECK_INT(wire_api_check(&both, &one, true, "S", &e), 0);
	CHECK_INT(wire_api_check(&one, &both, true, "S", &e), 0);
	CHECK_INT(wire_api_check(&one, &one, false, "S", &e), 0);
	CHECK_INT(wire_api_check(&one, &two, true, "S", &e), -1);
	CHECK_INT(e.code, GQ_EUNAVAIL);
	CHECK_STR(e.msg,
		  "this gq (API version 1) is older than S (API version 2): upgrade this gq");
	CHECK_INT(wire_api_check(&two, &one, true, "S", &e), -1);
	CHECK_STR(e.msg,
		  "S (API version 1) is older than this gq (API version 2): upgrade gq serve");
	CHECK_INT(wire_api_check(&two, &one, false, "gq serve", &e), -1);
	CHECK_STR(e.msg,
		  "the client (API version 1) is older than gq serve (API version 2): upgrade the "
		  "client");
	struct wire_api three = {3, 4};
	CHECK_INT(wire_api_check(&three, &both, true, "S", &e), -1);
	CHECK_STR(e.msg,
		  "S (API versions 1 to 2) is older than this gq (API versions 3 to 4): upgrade gq "
		  "serve");
}

/* "late" (API version 2) is sent only when set, so that gq serve's
 * events read as before; it round-trips. */
static void test_event_late_only_when_set(void)
{
	struct event ev[2];
	memset(ev, 0, sizeof(ev));
	ev[0].seq = 1, ev[0].job = 7, ev[0].time = 100;
	STR_COPY(ev[0].kind, "submit");
	ev[1] = ev[0];
	ev[1].seq = 2, ev[1].late = true;
	STR_COPY(ev[1].kind, "state");
	char *text = wire_events_text(ev, 2, 2);
	CHECK(strstr(text, "\"late\":true") != NULL || strstr(text, "\"late\": true") != NULL);
	CHECK(strstr(text, "false") == NULL);
	struct event_list l = {0};
	CHECK_INT(wire_events_parse(text, strlen(text), &l, NULL), 0);
	CHECK_INT(l.n, 2);
	CHECK(l.n == 2 && !l.items[0].late && l.items[1].late);
	event_list_release(&l);
	free(text);
	struct gq_err e = GQ_ERR_INIT;
	const char *bad = "{\"events\": [{\"seq\": 1, \"time\": 1, \"job\": 1, \"kind\": \"x\", "
			  "\"from\": \"pending\", \"to\": \"pending\", \"reason\": \"\", "
			  "\"actor\": \"\", \"late\": 1}], \"next\": 1}";
	struct event_list l2 = {0};
	CHECK_INT(wire_events_parse(bad, strlen(bad), &l2, &e), -1);
	CHECK(strstr(e.msg, "late") != NULL);
	event_list_release(&l2);
}

static void test_preemptions_text_round_trips(void)
{
	struct preempt_record r[2] = {
	    {.id = 1,
	     .victim = 7,
	     .trigger = 9,
	     .reason = "priority",
	     .queue = "exp",
	     .dept = "ml",
	     .trigger_dept = "vision",
	     .cross_dept = true,
	     .gpus = 4,
	     .ran = 3600,
	     .last_checkpoint = 1000,
	     .signalled = 2000,
	     .saved = 2010,
	     .released = 2020,
	     .work_lost = 1234.5678901234567,
	     .resumed = true},
	    {.id = 2, .victim = 8, .reason = "window", .work_lost = 0.1},
	};
	struct preempt_list l = {.now = 5000, .items = r, .n = 2};
	char *text = wire_preemptions_text(&l);
	struct preempt_list back = {0};
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_preemptions_parse(text, strlen(text), &back, &e), 0);
	if (back.n != 2) {
		free(text);
		return;
	}
	CHECK_INT(back.n, 2);
	CHECK_INT(back.now, 5000);
	CHECK_STR(back.items[0].trigger_dept, "vision");
	CHECK_INT(back.items[0].cross_dept, 1);
	CHECK_INT(back.items[0].resumed, 1);
	CHECK_DBL(back.items[0].work_lost, 1234.5678901234567, 0);
	CHECK_INT(back.items[1].trigger, 0);
	char *again = wire_preemptions_text(&back);
	CHECK_STR(again, text);
	free(again);
	free(text);
	preempt_list_release(&back);
	const char *bad = "{\"now\":1,\"preemptions\":[{\"id\":1,\"colour\":\"red\"}]}";
	CHECK_INT(wire_preemptions_parse(bad, strlen(bad), &back, &e), -1);
	CHECK_STR(e.msg, "preemptions.preemptions[0]: unknown field 'colour'");
}

static void test_reclaim_text_round_trips(void)
{
	struct reclaim_entry x[2] = {
	    {.job = 3, .kind = RECLAIM_IDLE, .gpus = 2, .gpu_list = "0,1", .since = 100},
	    {.job = 5,
	     .kind = RECLAIM_UNRELEASED,
	     .gpus = 1,
	     .gpu_list = "3",
	     .since = 50,
	     .acts = true},
	};
	struct reclaim_report r = {.now = 400,
				   .mode = ROLLOUT_TRIAL,
				   .trial_queues = "exp,dev",
				   .idle_after = 1800,
				   .gpus = 3,
				   .items = x,
				   .n = 2};
	char *text = wire_reclaim_text(&r);
	CHECK_STR(text, "{\"now\":400,\"mode\":\"trial\",\"trial_queues\":\"exp,dev\","
			"\"idle_after\":1800,\"gpus\":3,\"jobs\":[{\"job\":3,\"kind\":\"idle\","
			"\"gpus\":2,\"gpu_list\":\"0,1\",\"since\":100,\"for\":300,\"acts\":false},"
			"{\"job\":5,\"kind\":\"unreleased\",\"gpus\":1,\"gpu_list\":\"3\","
			"\"since\":50,\"for\":350,\"acts\":true}]}");
	struct reclaim_report back = {0};
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_reclaim_parse(text, strlen(text), &back, &e), 0);
	if (back.n != 2) {
		free(text);
		return;
	}
	CHECK_INT(back.mode, ROLLOUT_TRIAL);
	CHECK_INT(back.items[1].kind, RECLAIM_UNRELEASED);
	char *again = wire_reclaim_text(&back);
	CHECK_STR(again, text);
	free(again);
	free(text);
	reclaim_report_release(&back);
	const char *bad = "{\"now\":1,\"mode\":\"observe\",\"trial_queues\":\"\",\"idle_after\":1,"
			  "\"gpus\":0,\"jobs\":[{\"job\":1,\"kind\":\"lost\",\"gpus\":0,"
			  "\"gpu_list\":\"\",\"since\":1,\"for\":0,\"acts\":false}]}";
	CHECK_INT(wire_reclaim_parse(bad, strlen(bad), &back, &e), -1);
	CHECK_STR(e.msg, "reclaim.jobs[0].kind: unknown kind 'lost'");
}

/* gq serve --slurm's GET /v1/jobs/ID/files: strings and nulls both ways;
 * a string Slurm gives that is not UTF-8 is null, never a broken text. */
static void test_job_files_round_trip(void)
{
	const char *v[4] = {"/home/alice", "/home/alice/slurm-7.out", NULL, "caf\xc3\xa9.sh"};
	char *t = wire_job_files_text(v);
	CHECK_STR(t, "{\"cwd\":\"/home/alice\",\"output\":\"/home/alice/slurm-7.out\","
		     "\"error\":null,\"command\":\"caf\xc3\xa9.sh\"}");
	char *out[4];
	struct gq_err e = GQ_ERR_INIT;
	CHECK_INT(wire_job_files_parse(t, strlen(t), out, &e), 0);
	CHECK_STR(out[1], "/home/alice/slurm-7.out");
	CHECK(out[2] == NULL);
	for (int i = 0; i < 4; i++)
		free(out[i]);
	free(t);
	const char *bad[4] = {"\xff", NULL, NULL, NULL};
	t = wire_job_files_text(bad);
	CHECK_STR(t, "{\"cwd\":null,\"output\":null,\"error\":null,\"command\":null}");
	free(t);
	CHECK_INT(wire_job_files_parse("{\"cwd\":3}", 9, out, &e), -1);
	CHECK_STR(e.msg, "files.cwd: expected a string or null");
	CHECK_INT(wire_job_files_parse("{\"x\":null}", 10, out, &e), -1);
}

void suite_wire(void)
{
	RUN(test_api_versions_meet_or_say_who_upgrades);
	RUN(test_event_late_only_when_set);
	RUN(test_preemptions_text_round_trips);
	RUN(test_reclaim_text_round_trips);
	RUN(test_job_files_round_trip);
}
