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
check "the P0 starts on the freed GPUs" wait_state "$p0" running
check_eq "the P2 that ran 40 min runs on; the one that ran 5 min is pending again" \
	"$(states "$old" "$new")" "$old:running $new:pending"
check_eq "the victim: restart 1, cooldown of 10 min, queued again now" \
	"$(api GET /v1/jobs/$new | jq -c "[.restarts, .not_before - $t0, .queued_time - $t0]")" '[1,600,0]'
check_eq "its events: signalled for the P0, exited on SIGTERM, requeued" "$(events_of "$new" | tail -2)" \
	"preempt running->stopping priority: for job $p0
state stopping->pending signal 15"
check_eq "the P0 runs on the victim's GPUs (the first P2 holds 0-3)" \
	"$(field "$old" '.alloc[0].gpus|@csv') $(field "$p0" '.alloc[0].gpus|@csv')" "0,1,2,3 4,5,6,7"
rec=$(api GET "/v1/preemptions?job=$new" | jq -c ".preemptions[] | [.victim, .trigger, .reason, .gpus, .ran, .last_checkpoint - $t0, .signalled - $t0, .released - $t0, .restarted, .work_lost, .resumed]")
check_eq "the record: trigger, reason, time run, checkpoint, times, work lost" "$rec" \
	"[$new,$p0,\"priority\",4,300,-300,0,0,0,1200,false]"
check_eq "gq stats: one preemption of a P2, the same work lost" \
	"$(api GET /v1/stats | jq -c '.groups[] | select(.queue == "*" and .tier == "P2") | [.preemptions, .work_lost]')" \
	'[1,1200]'
check_match "gq preemptions shows the record" "$("$GQ" preemptions "$new")" \
	"^1 +$new +$p0 +priority +4 +5m .* 0.33 GPU-h no$"
finish
