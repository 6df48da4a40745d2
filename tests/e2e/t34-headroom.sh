#!/bin/bash
# t34: headroom (headroom.share 0.25 of 8 GPUs = 2) keeps a P2 pending on
# free GPUs, and its reason says so; a P0 lands on them at once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0.25'

a=$(sub --gpus 6 --tier P2 -- $LONG)
check "a P2 takes 6 of 8 GPUs" wait_state "$a" running
b=$(sub --gpus 2 --tier P2 -- $LONG)
clock +1h
check_eq "a P2 asking for the 2 free GPUs waits" "$(state "$b")" pending
check_match "its reason is headroom" "$("$GQ" why "$b")" "^Pending: headroom"
check_eq "its reason token" "$("$GQ" why --json "$b" | jq -r .reason)" headroom
p0=$(sub --gpus 2 --tier P0 -- $LONG)
check "a P0 lands on them at once" wait_state "$p0" running
check_eq "without preempting anyone" "$(records)" ""
finish
