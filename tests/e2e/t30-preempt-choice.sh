#!/bin/bash
# t30: a P0 arrives on a full machine and preempts the P2 that started 5 min
# ago, not the one that has run 40 min (preempt.protect, 30 min); the
# victim is signalled, given its grace period, requeued with a cooldown and
# a restart count, and the P0 starts on its GPUs. The record says it all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	grace = 5m
	cooldown = 10m'

old=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "the first P2 runs" wait_state "$old" running
"$GQ" checkpoint "$old" >/dev/null
clock +35m
new=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "the second P2 runs" wait_state "$new" running
"$GQ" checkpoint "$new" >/dev/null
clock +5m
t0=$("$GQ" clock --json | jq .now)

p0=$(sub --gpus 4 --tier P0 -- $LONG)
check "the P2 that ran 5 min is stopping" wait_state "$new" stopping
check_eq "the P2 that ran 40 min runs on; the P0 waits for the GPUs" "$(states "$old" "$p0")" "$old:running $p0:pending"
check_eq "the victim got SIGTERM and a deadline at the end of its grace" \
	"$(field "$new" .stop_deadline)" "$((t0 + 300))"
check "the victim exits on SIGTERM and is pending again" wait_state "$new" pending
check "the P0 starts on the freed GPUs" wait_state "$p0" running
check_eq "the victim: restart 1, cooldown of 10 min" \
	"$(api GET /v1/jobs/$new | jq -c "[.restarts, .not_before - $t0, .queued_time - $t0]")" '[1,600,0]'
check_eq "its events" "$(events_of "$new" | tail -3)" "preempt running->stopping priority: for job $p0
state stopping->pending signal 15"
rec=$(api GET "/v1/preemptions?job=$new" | jq -c ".preemptions[] | [.victim, .trigger, .reason, .gpus, .ran, .last_checkpoint - $t0, .signalled - $t0, .released - $t0, .restarted, .work_lost, .resumed]")
check_eq "the record: trigger, reason, time run, checkpoint, times, work lost" "$rec" \
	"[$new,$p0,\"priority\",4,300,-300,0,0,0,1200,false]"
finish
