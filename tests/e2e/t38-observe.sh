#!/bin/bash
# t38: rollout stage observe (preempt.mode, downgrade.mode): gq serve
# records what it would do ("would-preempt", "would-downgrade") and acts on
# nothing; trial acts only in the queues it names. What it recorded, it
# records once, across a restart of the server too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	waitLimit = 30d
[preempt]
	mode = observe
[downgrade]
	mode = observe'

v=$(sub --gpus 8 --tier P2 --checkpointable -- $LONG)
check "a P2 holds the machine" wait_state "$v" running
"$GQ" checkpoint "$v" >/dev/null
x=$(sub --gpus 4 --tier P0 -- $LONG)
clock +1m
check_eq "the P2 runs on, the P0 waits" "$(states "$v" "$x")" "$v:running $x:pending"
clock +1m
check_eq "what would have happened is one event, not one per plan" "$(events_of "$v" | grep would-preempt)" \
	"would-preempt running->running would preempt $v for $x (priority)"
check_eq "no preemption record" "$(records)" ""
check_eq "gq stats counts it as observed only" \
	"$(api GET /v1/stats | jq -c '.groups[] | select(.queue == "*" and .tier == "P2") | [.preemptions, .would_preempt]')" \
	'[0,1]'
server_stop
server_start --policy-repo "$P_REPO" --gpus 8
check "the P2 is adopted by the next server" wait_state "$v" running
clock +1m
check_eq "the same blocked situation, restarted, still blocked" "$(states "$v" "$x")" "$v:running $x:pending"
check_eq "a restart records nothing twice: still one event" "$(events_of "$v" | grep -c would-preempt)" 1
check_eq "and gq stats still counts one" \
	"$(api GET /v1/stats | jq -c '.groups[] | select(.queue == "*" and .tier == "P2") | [.preemptions, .would_preempt]')" \
	'[0,1]'
clock +2h
check_eq "at 2 h the reminder is sent (reminders are notes, sent in every mode)" \
	"$(events_of "$x" | grep -c reminder)" 1
check_match "it does not promise a downgrade that observe mode only records" \
	"$(events_of "$x" | grep reminder)" \
	"^reminder pending->pending P0 job $x has waited [0-9hm]+; confirm with 'gq confirm $x' within 30m, or a downgrade to P1 is only recorded \\(downgrade\\.mode observe\\)\$"
clock +30m
check_eq "30 min later, unconfirmed, it is still P0" "$(field "$x" .tier)" P0
check_eq "and its downgrade was only recorded" "$(events_of "$x" | grep -c would-downgrade)" 1
finish
