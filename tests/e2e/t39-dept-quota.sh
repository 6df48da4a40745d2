#!/bin/bash
# t39: department research may preempt one job of another department a
# month (department.research.preemptQuota 1): its first P0 takes a job of
# prod, its second queues normally although a victim is there; a P0 of prod
# itself, which spends no quota, takes that same job (once research's
# waiting P0 is gone: ahead in the queue, it would get the freed GPUs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[department "research"]
	preemptQuota = 1
[department "prod"]
	preemptQuota = unlimited
[queue "exp"]
	department = research
[queue "train"]
	department = prod'

v1=$(sub --gpus 4 --tier P2 --queue train --checkpointable -- $LONG)
v2=$(sub --gpus 4 --tier P2 --queue train --checkpointable -- $LONG)
check "two P2 of prod hold the machine" wait_state "$v2" running
"$GQ" checkpoint "$v1" >/dev/null
"$GQ" checkpoint "$v2" >/dev/null
clock +1m
x1=$(sub --gpus 4 --tier P0 --queue exp -- $LONG)
check "research's first P0 preempts a job of prod" wait_state "$x1" running
check_eq "research has spent its one peak preemption" \
	"$(api GET /v1/snapshot | jq -c '[.depts[] | select(.name == "research") | .preempts_month]')" '[1]'
x2=$(sub --gpus 4 --tier P0 --queue exp -- $LONG)
clock +1m
check_eq "its second P0 cannot preempt: it waits, prod's job runs" "$(states "$v2" "$x2")" \
	"$v2:running $x2:pending"
"$GQ" cancel "$x2" >/dev/null
y=$(sub --gpus 4 --tier P0 --queue train -- $LONG)
check "prod's own P0 preempts that job" wait_state "$y" running
check_eq "the records: across departments once, then within prod" \
	"$(api GET /v1/preemptions | jq -c '[.preemptions[] | [.victim, .trigger, .trigger_dept, .cross_dept]]')" \
	"[[$v1,$x1,\"research\",true],[$v2,$y,\"prod\",false]]"
finish
