#!/bin/bash
# t36: a P2 pending longer than its tier's wait limit (12 h) gets a
# starvation permit and starts on free GPUs ahead of a P1 that waits for
# the whole machine; one minute earlier it still waited its turn. gq eta
# foresaw it at submission: the prediction and the server agree.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P1"]
	waitLimit = 30d'

a=$(sub --gpus 4 --tier P1 --estimate 100h -- $LONG)
check "a P1 holds 4 GPUs for a long time" wait_state "$a" running
b=$(sub --gpus 8 --tier P1 --estimate 1h -- $LONG)
c=$(sub --gpus 4 --tier P2 --estimate 200h -- $LONG)
t0=$("$GQ" clock --json | jq .now)
eta=$("$GQ" eta --json "$c")
check_eq "gq eta foresees the permit: a start at 12 h, gated by it" \
	"$(echo "$eta" | jq -c "[.[0].predicted_start - $t0, .[0].explanation.gate, .[0].explanation.permit_start]")" \
	'[43200,"permit",true]'
check_match "gq why words it" "$("$GQ" why "$c")" \
	'Likely start .* when its starvation permit lets it take free GPUs ahead of its turn\.'
check_match "gq eta's table says so too" "$("$GQ" eta "$c" | tail -1)" \
	"^ +$c +P2 +.* in 12h00m +by its starvation permit\$"
clock +11h59m
check_eq "11h59m later the P2 still waits behind the P1 (it would delay it)" "$(states "$b" "$c")" \
	"$b:pending $c:pending"
clock +1m
check "at 12 h the P2 starts with its permit" wait_state "$c" running
check_eq "its start says permit" "$(events_of "$c" | grep 'pending->starting')" \
	"state pending->starting permit"
check_eq "it started when gq eta said" "$(($(field "$c" .start_time) - t0))" 43200
check_eq "the P1 still waits" "$(state "$b")" pending
finish
