#!/bin/bash
# t8e: gq update says what happened when it changes nothing (issue 27,
# defect 7): a tier an admin's override keeps from taking effect, or
# values the job already has, are refused in one line that says why and
# what to do (exit 1, as releasing a job that is not held is), and no
# event is recorded; an update that changes something still says
# "updated job N", and that an override keeps the tier it asked for.
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0'
a=$(sub --gpus 8 -- $LONG)
check "a holds every GPU" wait_state "$a" running
b=$(sub --tier P0 --gpus 1 -- true)
check "an admin demotes the pending P0" "$GQ" prio --reason 'not urgent' "$b" P2

out=$("$GQ" update "$b" --tier P0 2>&1)
rc=$?
check_eq "--tier P0 under a P2 override: exit 1" "$rc" 1
check_eq "it says the override keeps it, and what to do" "$out" \
	"gq: job '$b' unchanged: it is P0 already, and an admin's override (admin:$(id -un): 'not urgent') schedules it as P2; ask an admin to clear it (gq prio --clear)"
out=$("$GQ" update "$b" --gpus 1 2>&1)
rc=$?
check_eq "a value it already has: exit 1" "$rc" 1
check_eq "in one line" "$out" "gq: job '$b' unchanged: what was given is what it has; nothing to update"
check_eq "no update event for either" "$(events_of "$b" | grep -c '^update')" 0
check_eq "the API: 409, code conflict" \
	"$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SERVER_SOCK" -X POST \
		-H 'Content-Type: application/json' --data-binary '{"tier": "P0"}' \
		"http://gq/v1/jobs/$b/update") $(api POST "/v1/jobs/$b/update" '{"tier": "P0"}' | jq -r .error.code)" \
	"409 conflict"

check_eq "a change still says so, and that the override keeps the tier" \
	"$("$GQ" update "$b" --gpus 2 --tier P0)" "updated job $b
note: it is P0 now, but an admin's override (admin:$(id -un): 'not urgent') schedules it as P2 until an admin clears it"
check_eq "and is one event" "$(events_of "$b" | grep '^update')" "update pending->pending gpus 1->2"
finish
