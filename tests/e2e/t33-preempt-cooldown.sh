#!/bin/bash
# t33: after a preemption the victim waits preempt.cooldown (10 min) before
# it may start again, even on free GPUs; gq why says until when.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	cooldown = 10m'

v=$(sub --gpus 8 --tier P2 --checkpointable -- $LONG)
check "the P2 runs" wait_state "$v" running
"$GQ" checkpoint "$v" >/dev/null
x=$(sub --gpus 8 --tier P0 -- $LONG)
check "the P0 preempts it" wait_state "$x" running
check "the victim is pending" wait_state "$v" pending
"$GQ" cancel "$x" >/dev/null
check "the P0 is cancelled: every GPU is free" wait_state "$x" cancelled
clock +9m
check_eq "9 min after, the victim still waits" "$(state "$v")" pending
check_match "its reason is the cooldown" "$("$GQ" why "$v")" "^Pending: cooldown"
clock +1m
check "10 min after, it starts again" wait_state "$v" running
check_eq "restart 1 in its environment's count" "$(field "$v" .restarts)" 1
check_eq "the record: released then restarted 10 min later, resumed from its checkpoint" \
	"$(api GET /v1/preemptions | jq -c '.preemptions[0] | [.restarted - .released, .resumed]')" '[600,true]'
finish
