#!/bin/bash
# t8f: GPUs a preemption frees go to the job they were freed for (issue
# 27). Two GPUs, two checkpointing P2 workloads of department db; a P0 of
# department da, which may preempt nobody (preemptQuota 0), waits; then a
# P0 of db preempts one P2, one GPU for one GPU. The P0 of da, older and
# first by weight, does not start on that GPU: db's P0 does, the other P2
# runs on, and the one record says "for" db's P0. The P2 preempted is the
# one that loses least work (its last checkpoint the newest, core/preempt.c),
# which the two workloads' timing decides: either is right.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[department "da"]
	preemptQuota = 0
[department "db"]
	preemptQuota = unlimited
[queue "qa"]
	department = da
[queue "qb"]
	department = db' --gpus 2

train() {
	sub --gpus 1 --tier P2 --queue qb --checkpointable -- \
		env GQ="$GQ" TRAIN_EVERY=1 TRAIN_STEP_SECONDS=0.05 sh "$W" gqt$$
}
v1=$(train)
v2=$(train)
check "both P2 workloads run" wait_state "$v2" running
check "the first reported a checkpoint" ckpt_wait "$v1"
check "the second reported a checkpoint" ckpt_wait "$v2"
clock +1m
a=$(sub --gpus 1 --tier P0 --queue qa -- $LONG)
clock +1m
check_match "gq why: da's P0 may not preempt" "$("$GQ" why "$a")" "peak preemptions"
b=$(sub --gpus 1 --tier P0 --queue qb -- $LONG)
check "db's P0 starts on the GPU freed for it" wait_state "$b" running
clock +1m
# Both checkpoint all the time (in real time, recorded at the manual
# clock's now): either may have the newest; the record names the one.
victim=$(api GET /v1/preemptions | jq -r '.preemptions[0].victim // empty')
other=$v2
[ "$victim" = "$v2" ] && other=$v1
check_eq "da's P0 waits; one P2 preempted, the other runs on" \
	"$(states "$a" "$b" "$victim" "$other")" "$a:pending $b:running $victim:pending $other:running"
check_eq "one preemption, for db's P0, of one GPU, of a P2" \
	"$(api GET /v1/preemptions | jq -c '[.preemptions[] | [.trigger, .gpus]]') $(
		case $victim in "$v1" | "$v2") echo p2 ;; *) echo "not a P2: '$victim'" ;; esac)" \
	"[[$b,1]] p2"
check_eq "db's P0's claim ended with its start" "$(field "$b" .claim_time)" 0
finish
