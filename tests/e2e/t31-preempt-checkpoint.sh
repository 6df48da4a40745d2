#!/bin/bash
# t31: a job that did not declare it can checkpoint is never preempted,
# even when it is the cheapest victim by every other measure (it started
# last, so it would lose the least); a checkpointable one with a saved
# checkpoint is taken instead, and with none left the P0 waits.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0'

ck=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "the checkpointable P2 runs" wait_state "$ck" running
"$GQ" checkpoint "$ck" >/dev/null
clock +10m
plain=$(sub --gpus 4 --tier P2 -- $LONG)
check "the plain P2 runs" wait_state "$plain" running
clock +1m

p0=$(sub --gpus 4 --tier P0 -- $LONG)
check "the P0 starts" wait_state "$p0" running
check_eq "the checkpointable P2 was taken, the plain one runs on" "$(states "$ck" "$plain")" \
	"$ck:pending $plain:running"
p0b=$(sub --gpus 4 --tier P0 -- $LONG)
clock +1m
check_eq "a second P0 finds no victim: the plain P2 is never chosen" "$(states "$plain" "$p0b")" \
	"$plain:running $p0b:pending"
check_eq "one preemption recorded, of the checkpointable job" "$(records)" "$ck $p0 priority"
check_match "gq why: the P0 waits for resources" "$("$GQ" why "$p0b")" "^Pending: resources"
finish
