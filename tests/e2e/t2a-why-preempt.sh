#!/bin/bash
# t2a: gq why says what preemption can do for a job that waits for GPUs:
# nothing, and which rule keeps each running job from being preempted; or
# that it would preempt, when preempt.mode is observe; nothing when the
# job waits for something else. Then the --json arrays of eta and ls past
# 100 jobs (one compact line, written row by row).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	mode = observe'

# Two jobs fill the 8 GPUs: a P2 that saved a checkpoint, then ran 45 min
# (past the 30 min protection), and a P1 that cannot checkpoint.
old=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "the P2 runs" wait_state "$old" running
"$GQ" checkpoint "$old" >/dev/null
clock +45m
p1=$(sub --gpus 4 --tier P1 -- $LONG)
check "the P1 runs" wait_state "$p1" running
p0=$(sub --gpus 4 --tier P0 -- $LONG)
settle

check_eq "why: nothing to preempt, and why not, rule by rule" "$("$GQ" why "$p0" | sed -n 2p)" \
	"Preemption: nothing to preempt; of 2 running jobs, 1 has no saved checkpoint to resume from, 1 has run longer than the protection of 30m."
w=$("$GQ" why --json "$p0")
check_eq "why --json: the same as data" \
	"$(echo "$w" | jq -c '.explanation.preemption | [.outcome, .mode, .candidates, .eligible, .excluded, .victims]')" \
	'["none","observe",2,0,{"checkpoint":1,"protected":1},[]]'
check_eq "why --json: its text is the sentence" "$(echo "$w" | jq -r .explanation.preemption.text)" \
	"$("$GQ" why "$p0" | sed -n 2p)"

# A P2 that saved a checkpoint 5 min into its run can be preempted; in
# observe mode gq why says so and that nothing is done.
"$GQ" cancel "$old" >/dev/null
check "the P2 is gone" wait_state "$old" cancelled
settle
check "the P0 took its GPUs" wait_state "$p0" running
"$GQ" cancel "$p1" "$p0" >/dev/null
check "the P1 is gone" wait_state "$p1" cancelled
check "the P0 is gone" wait_state "$p0" cancelled
young=$(sub --gpus 4 --tier P2 --checkpointable -- $LONG)
check "a new P2 runs" wait_state "$young" running
clock +5m
"$GQ" checkpoint "$young" >/dev/null
big=$(sub --gpus 8 --tier P1 -- $LONG)
settle
check_eq "why: observe mode names the victim it would take" "$("$GQ" why "$big" | sed -n 2p)" \
	"Preemption: can free GPUs from #$young (P2, 4 GPUs), but preempt.mode is observe: nothing is preempted."
check_eq "why --json: the victim" \
	"$("$GQ" why --json "$big" | jq -c '.explanation.preemption | [.outcome, [.victims[] | .id, .gpus, .tier]]')" \
	"[\"found\",[$young,4,\"P2\"]]"
check_eq "the victim still runs (observe)" "$(state "$young")" running

# A job that waits behind another in order gets no preemption sentence.
next=$(sub --gpus 1 --tier P2 -- $LONG)
settle
check_eq "why of a job waiting for its turn: no preemption line" \
	"$("$GQ" why "$next" | grep -c '^Preemption:')" 0
check_eq "why --json still carries the choice" \
	"$("$GQ" why --json "$next" | jq -r '.explanation.preemption.text')" ""

# eta --json and ls --json: indented up to 100 jobs, one line beyond,
# the same array either way.
check_match "eta --json of two jobs is indented" "$("$GQ" eta --json "$big" "$next" | wc -l)" '^ *[0-9]{3,}$'
for _ in $(seq 1 100); do "$GQ" submit --hold --name h -- true >/dev/null; done
n=$("$GQ" ls --state pending --format '{id}' | wc -l)
check_eq "eta --json of $n jobs: one line" "$("$GQ" eta --json | wc -l)" 1
check_eq "eta --json: every pending job, in order, explained" \
	"$("$GQ" eta --json | jq -c '[length, (map(.explanation != null) | all)]')" "[$n,true]"
check_eq "eta --json: the same objects as one by one" "$("$GQ" eta --json | jq -c '.[-1]')" \
	"$("$GQ" eta --json "$("$GQ" ls --state pending --format '{id}' | tail -1)" | jq -c '.[0]')"
check_eq "ls --json of $((n + 1)) jobs: one line, every job" "$("$GQ" ls --json | wc -l) $("$GQ" ls --json | jq length)" "1 $((n + 1))"
finish
