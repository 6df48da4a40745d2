#!/bin/bash
# t3c: a starvation permit may preempt a checkpointable P0, but not one
# expected to end within permit.waitFor (10 min): then it waits for it.
# Two runs that differ only in the P0's estimate.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
POLICY='[headroom]
	share = 0
[preempt]
	protect = 1d
[tier "P0"]
	waitLimit = 30d'

# run ESTIMATE: a checkpointable P0 holding the machine with that estimate,
# a P2 pending for 12 h; prints the P0 and P2 ids.
run() {
	policy_server "$POLICY" || return 1
	p0=$(sub --gpus 8 --tier P0 --checkpointable --estimate "$1" -- $LONG)
	wait_state "$p0" running >/dev/null || return 1
	"$GQ" checkpoint "$p0" >/dev/null
	p2=$(sub --gpus 8 --tier P2 -- $LONG)
	clock +12h
}

run 12h05m
check_eq "12 h later, the P0 ends within 5 min: the permit waits for it" "$(states "$p0" "$p2")" \
	"$p0:running $p2:pending"
check_eq "nothing preempted" "$(records)" ""
server_stop
rm -rf "$T_DIR/state" "$T_DIR/policy"

run 24h
check "the P0 has 12 h to go: the permit preempts it" wait_state "$p2" running
check_eq "recorded as a permit" "$(records)" "$p0 $p2 permit"
finish
