/*
 * event.h - a state change as the scheduler records it (DESIGN §6).
 *
 * Every transition of a job is an event: sequence number, time, job,
 * from -> to, reason, actor. Non-transition happenings (a reminder, a policy
 * applied, a preemption that observe mode only recorded) are events too,
 * with from == to and a kind naming them.
 */
#ifndef GQ_EVENT_H
#define GQ_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

struct event {
	int64_t seq;   /* strictly increasing, from 1 */
	int64_t time;  /* unix seconds */
	int64_t job;   /* 0 when not about one job */
	char kind[24]; /* "state", "reminder", "downgrade", "override", "preempt",
			* "would-preempt", "checkpoint", "policy", "permit", ... */
	enum job_state from, to;
	char reason[160]; /* a wait-reason token or free text */
	char actor[32];	  /* user name, "scheduler" or "admin:<name>" */
	/* Seen late: it happened while nothing watched (gq serve --slurm
	 * down), recorded at the first poll after. Never on gq serve. */
	bool late;
};

#endif
