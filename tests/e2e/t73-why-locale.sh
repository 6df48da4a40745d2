#!/bin/bash
# t73: gq why writes "×" and "…" only where the locale's charset is UTF-8
# (issue #16), ASCII under LC_ALL=C as every e2e script runs; "your
# weight" for the reader's own job; "1 GPU", not "1 GPUs".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0'

a=$(sub --gpus 8 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
check "a P1 holds the machine" wait_state "$a" running
for _ in 1 2 3 4; do sub --gpus 8 --tier P0 --estimate 1h -- $LONG >/dev/null; done
j=$(sub --gpus 1 --tier P2 --estimate 1h -- $LONG)
clock +1m
why=$("$GQ" why "$j")
check_match "under LC_ALL=C: x and ..." "$why" "weight 100\.0, \.\.\.\); your weight 5\.0 = 5 x \(1 \+ 0\.0\)"
if printf '%s' "$why" | LC_ALL=C grep -q "$(printf '\303\227\|\342\200\246')"; then bad=1; else bad=0; fi
check_eq "no byte of x or ... in UTF-8 under LC_ALL=C" "$bad" 0
check_match "1 GPU" "$why" "Needs 1 GPU; 0 free\."
if locale -a 2>/dev/null | grep -qi '^C\.utf-\?8$'; then
	utf=$(LC_ALL=C.UTF-8 "$GQ" why "$j")
	check_match "under C.UTF-8: the multiplication sign and the ellipsis" "$utf" \
		"weight 100\.0, …\); your weight 5\.0 = 5 × \(1 \+ 0\.0\)"
else
	check_eq "C.UTF-8: skipped, no such locale" 0 0
fi
finish
