#!/bin/bash
# t3e: quotas. Queue exp has a quota of 4 GPUs and may borrow 2 more of idle
# capacity: a job of 6 runs (borrowed), a job asking beyond 6 waits on
# free GPUs with reason quota; a P0 that needs room takes the borrowed job
# first, even though another job would lose less. Department research has
# 2 GPU-hours a month and the hard stop (gpuHoursAction stop): once
# spent, its queue starts nothing more. (The default runs it on as the
# lowest tier: t78.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[department "research"]
	gpuHours = 2
	gpuHoursAction = stop
[queue "exp"]
	department = default
	quota = 4
	borrow = 2
[queue "lab"]
	department = research'

b=$(sub --gpus 6 --tier P2 --queue exp --checkpointable -- $LONG)
check "exp runs 6 GPUs: 4 of quota, 2 borrowed" wait_state "$b" running
check_eq "marked borrowed" "$(field "$b" .borrowed)" true
"$GQ" checkpoint "$b" >/dev/null
more=$(sub --gpus 1 --tier P2 --queue exp -- $LONG)
clock +1m
check_eq "one more GPU for exp waits although 2 are free" "$(state "$more")" pending
check_match "its reason is the quota" "$("$GQ" why "$more")" "^Pending: quota"
"$GQ" cancel "$more" >/dev/null
d=$(sub --gpus 2 --tier P2 --checkpointable -- $LONG)
check "a P2 of queue default takes the last 2 GPUs" wait_state "$d" running
clock +10m
"$GQ" checkpoint "$d" >/dev/null
x=$(sub --gpus 2 --tier P0 -- $LONG)
check "a P0 needing 2 GPUs starts" wait_state "$x" running
check_eq "the borrowed job was taken, not the one that would lose nothing" \
	"$(states "$b" "$d")" "$b:pending $d:running"
"$GQ" cancel "$b" "$d" "$x" >/dev/null

l=$(sub --gpus 2 --queue lab -- $LONG)
check "a job of research runs" wait_state "$l" running
clock +1h
"$GQ" cancel "$l" >/dev/null
check "it is cancelled after 2 GPU-hours" wait_state "$l" cancelled
l2=$(sub --gpus 1 --queue lab -- $LONG)
clock +1m
check_eq "research has spent its 2 GPU-hours: the next job waits" "$(state "$l2")" pending
check_match "its reason is the quota" "$("$GQ" why "$l2")" "^Pending: quota"
finish
