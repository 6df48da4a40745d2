#!/bin/bash
# t82: cancel, hold and release many jobs at once: id ranges, --user,
# --name, --state, --queue; a count and a y/N question on a terminal
# (--yes to skip it; none when stdin is not a terminal); plain ids as ever.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[queue "train"]
	quota = 8
[queue "exp"]
	quota = 8'
me=$(id -un)
a=$(sub --gpus 8 -- $LONG)
check "a holds every GPU" wait_state "$a" running
for i in 1 2 3 4 5; do sub --name sweep --queue exp -- true >/dev/null; done # 2-6
for i in 1 2 3; do sub --name eval --queue train -- true >/dev/null; done   # 7-9

check_eq "hold a range: each job, in id order" "$("$GQ" hold 3-5)" "held job 3
held job 4
held job 5"
check_eq "release by name: only the held ones" "$("$GQ" release --name sweep)" "released job 3
released job 4
released job 5"
check_eq "hold by queue and a range together" "$("$GQ" hold --queue train 1-8)" "held job 7
held job 8"
check_eq "cancel --state pending --name eval --json" \
	"$("$GQ" cancel --state pending --name eval --json | jq -c '[.action, [.jobs[].id]]')" '["cancel",[7,8,9]]'
check_eq "--user: your own jobs by default; another's: none of them" \
	"$("$GQ" hold --user nobody-else --name sweep 2>&1; echo "rc=$?")" "gq hold: no job matches; see 'gq ls --all'
rc=3"
check_eq "hold --json: the action and each job's outcome" \
	"$("$GQ" hold --json --reason "for t82" 2 | jq -c '[.action, [.jobs[] | [.id, .ok]]]')" '["hold",[[2,true]]]'
check_eq "the hold is done" "$(field 2 '[.held, .held_reason] | @tsv')" "true	for t82"
check_eq "release --json of it" "$("$GQ" release --json 2 | jq -c '[.action, [.jobs[].id]]')" '["release",[2]]'
check_eq "released" "$(field 2 .held)" false

# The question on a terminal (script(1) gives the command one).
out=$(echo n | script -qec "$GQ hold --name sweep" /dev/null | tr -d '\r')
check_match "on a terminal: the count and the first ids" "$out" "^hold 5 jobs \(2, 3, 4, 5, 6\)\? \[y/N\] "
check_match "n: nothing done" "$out" "gq hold: not confirmed; nothing done"
check_eq "none held" "$(api GET /v1/jobs | jq '[.jobs[] | select(.held)] | length')" 0
out=$(echo y | script -qec "$GQ hold --name sweep" /dev/null | tr -d '\r')
check_match "y: done" "$out" "held job 6"
check_eq "five held" "$(api GET /v1/jobs | jq '[.jobs[] | select(.held)] | length')" 5
out=$(script -qec "$GQ release --yes 2-3" /dev/null </dev/null | tr -d '\r')
check_eq "--yes: no question even on a terminal" "$out" "released job 2
released job 3"

check_fail 2 "a range backwards" "$GQ" cancel 9-3
check_match "says how to write it" "$("$GQ" cancel 9-3 2>&1)" "range '9-3' ends before it starts; write it as 3-9"
check_fail 2 "not a range" "$GQ" cancel 3-x
check_fail 2 "an unknown state" "$GQ" cancel --state sleeping
check_fail 2 "nothing named" "$GQ" cancel
check_fail 3 "a plain id that does not exist: as ever" "$GQ" cancel 99
check_eq "plain ids: as ever" "$("$GQ" cancel 4 5)" "cancelled job 4
cancelled job 5"
check_eq "--user me --state running" "$("$GQ" cancel --user "$me" --state running --yes)" "cancelled job $a"
check "a stops" wait_state "$a" cancelled
finish
