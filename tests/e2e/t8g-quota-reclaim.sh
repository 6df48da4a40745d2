#!/bin/bash
# t8g: a queue quota is a guarantee (issue 27). Queue train (quota 4,
# borrow 2) holds 6 of the 8 GPUs, 2 of them borrowed beyond its quota by
# two P1 jobs; a P1 of queue exp, which uses none of its quota of 4, asks
# for 4. Those two are no lower tier, yet they are taken back: in observe
# mode gq why says what would be reclaimed from whom; in enforce mode they
# are preempted ("reclaim"), train's 4 GPUs within its quota are not, and
# exp's job starts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
conf() { # MODE
	printf '%s\n' '[headroom]
	share = 0
[tier "P1"]
	waitLimit = 30d
[preempt]
	mode = '"$1"'
[queue "train"]
	quota = 4
	borrow = 2
[queue "exp"]
	quota = 4'
}
policy_server "$(conf observe)"

t1=$(sub --gpus 2 --tier P1 --queue train --checkpointable -- $LONG)
t2=$(sub --gpus 2 --tier P1 --queue train --checkpointable -- $LONG)
b1=$(sub --gpus 1 --tier P1 --queue train --checkpointable -- $LONG)
b2=$(sub --gpus 1 --tier P1 --queue train --checkpointable -- $LONG)
check "train's four jobs run" wait_state "$b2" running
check_eq "the last two borrow beyond train's quota" \
	"$(for j in "$t1" "$t2" "$b1" "$b2"; do field "$j" .borrowed; done | tr '\n' ' ')" \
	"false false true true "
for j in "$t1" "$t2" "$b1" "$b2"; do "$GQ" checkpoint "$j" >/dev/null; done
clock +1m
x=$(sub --gpus 4 --tier P1 --queue exp -- $LONG)
settle
check_eq "gq why: exp is under its quota, train's borrowed GPUs come back" \
	"$("$GQ" why "$x" | grep '^Preemption:')" \
	"Preemption: queue exp is under its quota (0 of 4 GPUs used); can reclaim 2 GPUs borrowed by train from #$b1 (P1, 1 GPU) and #$b2 (P1, 1 GPU), but preempt.mode is observe: nothing is preempted."
check_eq "gq why --json: the same as data" \
	"$("$GQ" why --json "$x" | jq -c '.explanation.preemption | [.outcome, .reclaim, [.victims[] | [.id, .reclaimed]], .excluded]')" \
	"[\"found\",{\"queue_used\":0,\"queue_quota\":4},[[$b1,true],[$b2,true]],{\"tier\":2}]"
check_eq "observe: recorded, not done" "$(events_of "$b1" | grep -c '^would-preempt .* (reclaim)$')" 1

printf '%s\n' "$(conf enforce)" >"$P_REPO/policy.conf"
git -C "$P_REPO" -c user.name=t -c user.email=t@example.org commit -qam "enforce"
check "the enforce policy is applied" env GQ_POLICY_REPO="$P_REPO" "$GQ" policy apply
check "exp's job starts on the reclaimed GPUs" wait_state "$x" running
check_eq "train's jobs within its quota run on; the borrowed ones wait" \
	"$(states "$t1" "$t2" "$b1" "$b2")" "$t1:running $t2:running $b1:pending $b2:pending"
check_eq "the records: reclaimed for exp's job" "$(records)" \
	"$b1 $x reclaim
$b2 $x reclaim"
check_eq "and their events" "$(events_of "$b1" | grep '^preempt')" \
	"preempt running->stopping reclaim: for job $x"
finish
