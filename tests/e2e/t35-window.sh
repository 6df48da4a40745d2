#!/bin/bash
# t35: queue exp is paused 20:00-08:00 (queue.exp.window): at 20:00 its
# running job is checkpoint-preempted (reason window, charged to no
# budget), nothing of exp starts during the window while other queues run,
# and at 08:00 its jobs start again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	cooldown = 1m
[queue "exp"]
	department = default
	window = 20:00-08:00'

"$GQ" clock --set "2030-01-01 19:00" >/dev/null
e1=$(sub --gpus 2 --tier P2 --queue exp --checkpointable -- $LONG)
check "at 19:00 an exp job runs" wait_state "$e1" running
"$GQ" checkpoint "$e1" >/dev/null
clock +59m
check_eq "at 19:59 it still runs" "$(state "$e1")" running
clock +1m
check "at 20:00 it is preempted and pending" wait_state "$e1" pending
check_eq "the record says window, no trigger" "$(records)" "$e1 0 window"
check_eq "no budget was spent" \
	"$(api GET /v1/snapshot | jq -c '[.queues[] | .preempts_hour] | add')" 0
e2=$(sub --gpus 2 --tier P0 --queue exp -- $LONG)
d=$(sub --gpus 2 --tier P2 -- $LONG)
check "a job of another queue runs in the window" wait_state "$d" running
clock +11h59m
check_eq "at 07:59 nothing of exp runs, even a P0" "$(states "$e1" "$e2")" "$e1:pending $e2:pending"
check_match "the reason is the window" "$("$GQ" why "$e2")" "^Pending: window"
clock +1m
check "at 08:00 the preempted job resumes" wait_state "$e1" running
check "and the P0 of exp starts" wait_state "$e2" running
finish
