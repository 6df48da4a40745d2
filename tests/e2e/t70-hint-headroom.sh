#!/bin/bash
# t70: a hint is a counterfactual, not a rule of thumb (issue #16). With
# 1 of 8 GPUs free and that one held back for P0 (headroom), a P1 job of
# 4 GPUs is not told "ask for 1 GPU: that would fit" (a 1-GPU P1 job
# submitted then waits with reason headroom); the hints it is told carry
# the start they predict, and that start is earlier than its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0.125'

a=$(sub --gpus 7 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
check "a P1 takes 7 of 8 GPUs" wait_state "$a" running
b=$(sub --gpus 4 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
clock +1m
why=$("$GQ" why "$b")
check_match "it waits for resources" "$why" "^Pending: resources"
if printf '%s\n' "$why" | grep -qE -- 'Ask for 1 GPU|--gpus 1'; then bad=1; else bad=0; fi
check_eq "no hint of 1 GPU (the headroom keeps it)" "$bad" 0
c=$(sub --gpus 1 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
clock +1m
check_eq "indeed a 1-GPU P1 job waits" "$(state "$c")" pending
check_match "with reason headroom" "$("$GQ" why "$c")" "^Pending: headroom"
# Every hint in --json: a change and the predicted start it gives, before
# the job's own.
j=$("$GQ" why --json "$b")
start=$(printf '%s' "$j" | jq .predicted_start)
check_eq "each hint in --json starts sooner than the job" \
	"$(printf '%s' "$j" | jq --argjson s "$start" '[.explanation.hints[] | select(.start >= $s or .sooner < 60)] | length')" 0
check_eq "and says so in words" \
	"$(printf '%s' "$j" | jq '[.explanation.sooner[] | select(test("sooner, at|could start at") | not)] | length')" 0
finish
