#!/bin/bash
# t8d: only eligible time is waiting (issue 27, defect 1). A job deferred
# with --begin, a held job and a job blocked by a dependency do not age,
# earn no starvation permit and bring no P0 reminder; their wait starts
# when they become eligible (the begin reached, the release, the
# dependency's end), and a restart of the server keeps it.
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0' --gpus 2
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
weight() { "$GQ" why --json "$1" | jq -r .explanation.weight.value; }

a=$(sub --tier P2 --gpus 1 --begin now+12h10m -- $LONG)
b=$(sub --tier P0 --hold --gpus 1 -- $LONG)
clock +12h05m
check_eq "the deferred P2 has not aged" "$(weight "$a")" 5
check_eq "nor has the held P0" "$(weight "$b")" 100
c=$(sub --tier P0 --checkpointable --gpus 2 -- $LONG)
check "a checkpointable P0 takes both GPUs" wait_state "$c" running
"$GQ" checkpoint "$c" >/dev/null
clock +5m
check_eq "its begin reached, the P2 waits its turn: no permit, no preemption" \
	"$(states "$a" "$c")" "$a:pending $c:running"
check_eq "no preemption record" "$(records)" ""
check_eq "the held P0 got no reminder" "$(events_of "$b" | grep -c reminder)" 0
check_match "gq ls shows neither aging" "$("$GQ" ls)" \
	"^ +$b +.* P0 +pending +1 +100\.0 .*held
.*^ +$a +.* P2 +pending +1 +5\.0 "
clock +30m
check_eq "30 min after the begin, the P2 has aged one step" "$(weight "$a")" 5.5
check_eq "the held P0 is still P0" "$(field "$b" .tier)" P0

# A dependency: the P0 waits for the running P0 and has no reminder
# however long that runs; its wait starts when that ends.
d=$(sub --tier P0 --gpus 1 --after "afterany:$c" -- $LONG)
clock +3h
check_eq "blocked by a dependency: no reminder" "$(events_of "$d" | grep -c reminder)" 0
check_eq "and no aging" "$(weight "$d")" 100

# Released: its wait starts there, and a restart keeps it.
check "the owner releases the held P0" "$GQ" release "$b"
t1=$("$GQ" clock --json | jq .now)
check_eq "the release is its eligible time" "$(field "$b" .eligible_time)" "$t1"
server_stop
server_start --policy-repo "$P_REPO" --gpus 2
check_eq "a restart keeps it" "$(field "$b" .eligible_time)" "$t1"
clock +1h59m
check_eq "1h59m after its release, no reminder yet" "$(events_of "$b" | grep -c reminder)" 0
clock +1m
check_eq "2 h after its release, the reminder counts from it" "$(events_of "$b" | grep reminder)" \
	"reminder pending->pending P0 job $b has waited 2h00m; confirm with 'gq confirm $b' within 30m or it becomes P1"

check "the running P0 is cancelled" "$GQ" cancel "$c"
t2=$("$GQ" clock --json | jq .now)
settle
check_eq "its dependency met, the blocked P0 is eligible from then" "$(field "$d" .eligible_time)" "$t2"
finish
