#!/bin/bash
# t32: a queue's preemption budget (preempt.maxPerQueueHour, here 1): once
# one of its jobs was preempted this hour, the next P0 waits although a
# victim is there; an hour after the first preemption the budget is back
# and the P0 takes it. The records, and so the budget, survive a restart of
# gq serve.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	maxPerQueueHour = 1
	protect = 1d
	cooldown = 2h'

a=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
b=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "two P2 run" wait_state "$b" running
"$GQ" checkpoint "$a" >/dev/null
"$GQ" checkpoint "$b" >/dev/null
clock +1m
x=$(sub --gpus 4 --tier P0 -- $LONG)
check "the first P0 preempts and starts" wait_state "$x" running
check_eq "the budget of queue default is spent" \
	"$(api GET /v1/snapshot | jq -c '[.queues[] | select(.name == "default") | .preempts_hour]')" '[1]'
clock +30m
server_stop
server_start --policy-repo "$P_REPO" --gpus 8
check_eq "after a restart of gq serve the record is still there" "$(records)" "$a $x priority"
y=$(sub --gpus 4 --tier P0 -- $LONG)
clock +29m
check_eq "59 min later the second P0 still waits, the other P2 runs" "$(states "$b" "$y")" \
	"$b:running $y:pending"
check_eq "one preemption so far" "$(records)" "$a $x priority"
clock +1m
check "an hour after the first preemption the second P0 starts" wait_state "$y" running
check_eq "both preemptions recorded" "$(records | sort)" "$(printf '%s\n' "$a $x priority" "$b $y priority" | sort)"
finish
