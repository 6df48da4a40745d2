#!/bin/bash
# t8h: a starvation permit is not held back by preempt.protect (issue 27,
# defect 4). Three GPUs: a 2-GPU and a 1-GPU checkpointing P0 that run
# for 12 h, far past the 30-minute protection; a 1-GPU P2 waits 12 h for
# its permit, then preempts the smallest sufficient victim, the 1-GPU P0,
# and starts on its GPU; the 2-GPU P0 runs on. Before 12 h nothing is
# preempted: without a permit a P2 never takes a P0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[downgrade]
	remindAfter = 30d' --gpus 3

train() { # GPUS
	sub --gpus "$1" --tier P0 --checkpointable -- \
		env GQ="$GQ" TRAIN_EVERY=1 TRAIN_STEP_SECONDS=0.05 sh "$W" gqt$$
}
big=$(train 2)
small=$(train 1)
check "both P0 workloads run" wait_state "$small" running
check "the 2-GPU one reported a checkpoint" ckpt_wait "$big"
check "the 1-GPU one reported a checkpoint" ckpt_wait "$small"
p2=$(sub --gpus 1 --tier P2 -- $LONG)
clock +11h59m
check_eq "11h59m on: the P2 waits, no P0 preempted" "$(states "$big" "$small" "$p2")" \
	"$big:running $small:running $p2:pending"
clock +2m
check "12 h on: the P2 starts" wait_state "$p2" starting running
check_eq "one preemption, by its permit: the 1-GPU P0, past its protection" \
	"$(api GET /v1/preemptions | jq -c '[.preemptions[] | [.victim, .trigger, .gpus, .reason, .ran > 1800]]')" \
	"[[$small,$p2,1,\"permit\",true]]"
check_eq "the 2-GPU P0 runs on" "$(state "$big")" running
finish
