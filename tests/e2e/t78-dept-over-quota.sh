#!/bin/bash
# t78: a department that spent its monthly GPU-hours still runs on idle
# GPUs (issue 27, defect 5; department.NAME.gpuHoursAction preemptible, the
# default): its work is the lowest tier, after every job within its quota,
# preemptible by any of them, and charged; gq why and gq eta say so and
# predict what gq serve does. (gpuHoursAction stop, the hard stop: t3e.)
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[department "research"]
	gpuHours = 2
[queue "lab"]
	department = research'
"$GQ" clock --set '2030-01-01 09:00' >/dev/null # research spends its hours by 10:00
dept_used() { api GET /v1/snapshot | jq -r '.depts[] | select(.name == "research") | .gpu_hours_month'; }

l=$(sub --gpus 2 --queue lab -- $LONG)
check "a job of research runs" wait_state "$l" running
clock +1h
"$GQ" cancel "$l" >/dev/null
check "it is cancelled after 2 GPU-hours" wait_state "$l" cancelled
check_eq "research has spent its 2 GPU-hours" "$(dept_used)" 2

# Deferred 10 min, on a machine with 8 GPUs free: it starts then, not never.
x=$(sub --gpus 2 --tier P1 --queue lab --checkpointable --begin now+10m -- $LONG)
why=$("$GQ" why "$x")
check_match "gq why: over its quota, as preemptible lowest-tier work" "$why" \
	"Runs over its department's monthly quota as preemptible lowest-tier work: department research used 2 of its 2 GPU-hours this month, so it goes after every job within its quota and starts only on GPUs none of them can use; any of them may preempt it \(gq-preempt\(7\)\)\."
check_match "gq why: likely start at its begin, not never" "$why" "Likely start 10:10 at its begin time\."
check_match "gq eta: 10:10, not never" "$("$GQ" eta)" "^ +$x +P2 +10:10 "
clock +10m
check "it starts on idle GPUs" wait_state "$x" running
check_match "gq why of the running job says what it is" "$("$GQ" why "$x")" \
	"is running since .*Runs over its department's monthly quota as preemptible lowest-tier work"
check_match "gq show too" "$("$GQ" show "$x")" "Runs over its department's monthly quota"
"$GQ" checkpoint "$x" >/dev/null

# A P2 within its quota needs all 8 GPUs: it preempts the P1 of research.
d=$(sub --gpus 8 --tier P2 --estimate 1h -- $LONG)
check "a P2 within its quota preempts it" wait_state "$d" running
check_eq "the P1 over quota is pending again" "$(state "$x")" pending
check_eq "the record: for the P2" "$(records)" "$x $d priority"
e=$(sub --gpus 2 --tier P2 -- $LONG)
clock +11m
check_eq "a later P2 within quota goes ahead of it" \
	"$("$GQ" ls --format '{id}' | tail -2 | tr '\n' ' ')" "$e $x "
why=$("$GQ" why "$x")
check_match "pending again: still lowest-tier work, starting when the P2 ends" "$why" \
	"Runs over its department's monthly quota as preemptible lowest-tier work.*Likely start 11:10 when #$d ends\."
check_eq "its weight is P2's" "$("$GQ" why --json "$x" | jq -r .explanation.weight.base)" 5
finish
