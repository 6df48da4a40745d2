#!/bin/bash
# t3d: rollout stage trial (preempt.mode trial, preempt.trialQueues exp)
# preempts only in the named queues, even when a job elsewhere would be the
# better victim; and a victim that ignores SIGTERM keeps its GPUs for its
# whole grace period (preempt.grace, 5 min), then is killed and requeued.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	mode = trial
	trialQueues = exp
	grace = 5m
[queue "exp"]
	department = default
[queue "train"]
	department = default'

stubborn=$(sub --gpus 4 --tier P2 --queue exp --checkpointable -- sh -c "trap '' TERM; sleep 7$$")
check "a P2 of exp runs" wait_state "$stubborn" running
"$GQ" checkpoint "$stubborn" >/dev/null
clock +10m
other=$(sub --gpus 4 --tier P2 --queue train --checkpointable -- $LONG)
check "a P2 of train runs, 10 min younger" wait_state "$other" running
"$GQ" checkpoint "$other" >/dev/null
clock +1m
t0=$("$GQ" clock --json | jq .now)
p0=$(sub --gpus 4 --tier P0 -- $LONG)
check "only exp is in trial: its job is signalled" wait_state "$stubborn" stopping
check_eq "the younger job of train runs on" "$(state "$other")" running
clock +4m59s
check_eq "it ignores SIGTERM: 4m59s later it still holds its GPUs" "$(states "$stubborn" "$p0")" \
	"$stubborn:stopping $p0:pending"
clock +1s
check "at the end of the grace period it is killed and requeued" wait_state "$stubborn" pending
check "the P0 starts" wait_state "$p0" running
check_eq "its events" "$(events_of "$stubborn" | tail -2)" "preempt running->stopping priority: for job $p0
state stopping->pending signal 9"
check_eq "the record: released at the end of the grace, nothing saved" \
	"$(api GET /v1/preemptions | jq -c ".preemptions[] | [.victim, .signalled - $t0, .released - $t0, .saved]")" \
	"[$stubborn,0,300,0]"
finish
