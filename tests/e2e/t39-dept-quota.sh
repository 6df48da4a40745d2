#!/bin/bash
# t39: a department with no peak-preemption quota left
# (department.D.preemptQuota 0) cannot preempt another department's job:
# its P0 queues normally; a P0 of the victim's own department, which spends
# no quota, preempts the same job.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[department "research"]
	preemptQuota = 0
[department "prod"]
	preemptQuota = unlimited
[queue "exp"]
	department = research
[queue "train"]
	department = prod'

v=$(sub --gpus 8 --tier P2 --queue train --checkpointable -- $LONG)
check "a P2 of prod holds the machine" wait_state "$v" running
"$GQ" checkpoint "$v" >/dev/null
x=$(sub --gpus 4 --tier P0 --queue exp -- $LONG)
clock +1m
check_eq "research's P0 cannot preempt prod's P2" "$(states "$v" "$x")" "$v:running $x:pending"
check_eq "nothing recorded" "$(records)" ""
y=$(sub --gpus 4 --tier P0 --queue train -- $LONG)
check "prod's own P0 preempts it" wait_state "$y" running
check_eq "recorded, not across departments" \
	"$(api GET /v1/preemptions | jq -c '.preemptions[] | [.victim, .trigger, .dept, .trigger_dept, .cross_dept]')" \
	"[$v,$y,\"prod\",\"prod\",false]"
check_eq "research spent nothing" \
	"$(api GET /v1/snapshot | jq -c '[.depts[] | select(.name == "research") | .preempts_month]')" '[0]'
finish
