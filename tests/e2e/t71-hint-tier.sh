#!/bin/bash
# t71: "Tier P0 would put it ahead" only where it would (issue #16): not
# to a held job, a job behind a dependency, a job of a paused queue, a job
# that can never run, nor to a job behind older P0 jobs that would still
# go first; where it does help, the hint says by how much and when.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[queue "night"]
	window = 00:00-23:59'

no_tier() { # desc, job: its hints offer no tier
	if "$GQ" why "$2" | grep -q 'Tier P'; then bad=1; else bad=0; fi
	check_eq "$1" "$bad" 0
}

a=$(sub --gpus 8 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
check "a P1 holds the machine" wait_state "$a" running
ahead=$(sub --gpus 8 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
clock +1m
held=$(sub --gpus 4 --tier P1 --estimate 1h --hold -- $LONG)
dep=$(sub --gpus 4 --tier P1 --estimate 1h --after "$ahead" -- $LONG)
night=$(sub --gpus 4 --tier P2 --estimate 1h --queue night -- $LONG)
# A job behind a held one never starts until it is released (a cancelled
# dependency would have it cancelled by gq serve: t77).
doomed=$(sub --gpus 8 --tier P1 --estimate 1h --hold -- $LONG)
dead=$(sub --gpus 4 --tier P1 --estimate 1h --after "$doomed" -- $LONG)
clock +1m
no_tier "none for a held job" "$held"
no_tier "none for a job behind a dependency" "$dep"
no_tier "none for a job of a paused queue" "$night"
no_tier "none for a job that can never run" "$dead"
check_match "which is told to cancel" "$("$GQ" why "$dead")" "It can never run: cancel it"

# Where it helps: a P1 job behind another P1 job of the same size.
behind=$(sub --gpus 8 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
clock +1m
check_match "where it helps: by how much and when" "$("$GQ" why "$behind")" \
	"Tier P0, if the work qualifies \(admin: gq prio --reason TEXT $behind P0\): starts about [0-9]h[0-9]{2}m sooner, at $HM"

# Older P0 jobs weigh more than a fresh P0: promoted, a job behind only
# them would still start after them, so no tier is offered.
for j in $behind $ahead $held $dep $night $dead $doomed; do "$GQ" cancel "$j" >/dev/null; done
p0a=$(sub --gpus 8 --tier P0 --estimate 1h --time-limit 2h -- $LONG)
p0b=$(sub --gpus 8 --tier P0 --estimate 1h --time-limit 2h -- $LONG)
clock +40m
late=$(sub --gpus 8 --tier P1 --estimate 1h --time-limit 2h -- $LONG)
clock +1m
check_match "a job behind older P0 jobs only" "$("$GQ" why "$late")" "^Pending: priority.* 2 jobs ahead \(P0 #$p0a weight 110.0, P0 #$p0b weight 110.0\)"
no_tier "is offered no tier" "$late"
finish
