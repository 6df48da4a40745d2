#!/bin/bash
# t03: backfill needs a bound (issue #15, defect 4). On 8 GPUs a P1 job (4
# GPUs, estimate 2h) runs and a P0 job of 8 GPUs waits: a P2 job of 1 GPU
# with neither an estimate nor a time limit is not started ahead of it, and
# gq why says why. A queue's defaultTime gives such a job a limit at
# submit, which gq serve enforces, and makes it eligible for backfill.
. "$(dirname "$0")/lib.sh"

policy_no_headroom
server_start --gpus 8 --policy-repo "$R"

"$GQ" submit --tier P1 --gpus 4 --estimate 2h -- sleep 600 >/dev/null
check "the P1 job runs" wait_state 1 running
"$GQ" submit --tier P0 --gpus 8 -- true >/dev/null
"$GQ" submit --tier P2 --gpus 1 -- sleep 600 >/dev/null
check_eq "the P2 job of unknown length is not backfilled" "$(state 3)" pending
check_eq "nor predicted to be: it waits for the P0" "$("$GQ" eta --json 3 | jq -c '.[0].explanation | [.reason, .waits_for]')" \
	'["priority",[2]]'
check_match "gq why says why, and what would let it start" "$("$GQ" why 3)" \
	'^  - --estimate 2h00m \(with neither an estimate nor a time limit it is not started ahead of a job it could delay\): starts about 3h00m sooner, at [0-9:]+$'
check_eq "gq why --json: the hint" "$("$GQ" why --json 3 | jq -c '[.explanation.hints[] | select(.hint == "bound") | .value]')" '[7200]'
# A time limit longer than the gap, and no estimate: its expected run is
# the limit's, so the limit is the change offered (issue #16).
"$GQ" submit --tier P2 --gpus 1 --time-limit 3h -- sleep 600 >/dev/null
check_match "a shorter time limit, in the hints' words" "$("$GQ" why 4)" \
	'^  - --time-limit 2h00m: starts about [0-9]+h[0-9]{2}m sooner, at ([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+$'
check_eq "gq why --json: the hint" "$("$GQ" why --json 4 | jq -c '[.explanation.hints[] | select(.hint == "shorter_time_limit") | .value]')" '[7200]'
"$GQ" cancel 4 >/dev/null

# queue.default.defaultTime = 1h: a job submitted without a limit gets it.
printf '#!/bin/sh\nprintf "[queue \\"default\\"]\\n\\tdefaultTime = 1h\\n" >>"$1"\n' >"$T_DIR/ed2.sh"
chmod +x "$T_DIR/ed2.sh"
check "edit: queue.default.defaultTime = 1h" env EDITOR="$T_DIR/ed2.sh" "$GQ" policy edit -m "Default time 1h"
check "apply it" "$GQ" policy apply
check_eq "gq policy show has it" \
	"$("$GQ" policy show --json | jq -r '.keys[] | select(.key == "queue.default.defaultTime") | .value')" 1h00m
"$GQ" submit --tier P2 --gpus 1 -- sleep 600 >/dev/null
check "the P2 job with the queue's default limit is backfilled" wait_state 5 running
check_eq "it carries the limit" "$("$GQ" show --json 5 | jq .time_limit)" 3600
check_eq "the one submitted before keeps none and waits" "$(state 3)" pending
# The limit is enforced: an hour on, the job is stopped.
"$GQ" clock +61m >/dev/null
check "an hour on, gq serve stops it at its limit" wait_state 5 timeout stopping
"$GQ" cancel 1 3 >/dev/null 2>&1
"$GQ" clock +10m >/dev/null

# queue.default.maxTime = 2h, as Slurm's MaxTime: a longer limit is
# refused at submit; a job already queued with one (the policy changed
# under it) never starts, and gq says what to change.
printf '#!/bin/sh\nprintf "\\tmaxTime = 2h\\n" >>"$1"\n' >"$T_DIR/ed3.sh"
chmod +x "$T_DIR/ed3.sh"
check "edit: queue.default.maxTime = 2h" env EDITOR="$T_DIR/ed3.sh" "$GQ" policy edit -m "Max time 2h"
check "apply it" "$GQ" policy apply
out=$("$GQ" submit --gpus 1 --time-limit 3h -- true 2>&1)
check_eq "a 3h limit is refused: exit 2" "$?" 2
check_eq "and says why" "$out" \
	"gq: its time limit 3h00m is over queue 'default''s maximum 2h00m (queue.default.maxTime): ask for at most 2h00m or use another queue"
J=$("$GQ" submit --hold --gpus 1 --time-limit 2h -- true | sed 's/.* //')
check_eq "2h is accepted" "$("$GQ" show --json "$J" | jq .time_limit)" 7200
"$GQ" update "$J" --time-limit 3h >/dev/null 2>&1
check_eq "gq update to 3h is refused: exit 2" "$?" 2
sed -i 's/maxTime = 2h/maxTime = 1h/' "$T_DIR/ed3.sh"
check "edit: queue.default.maxTime = 1h" env EDITOR="$T_DIR/ed3.sh" "$GQ" policy edit -m "Max time 1h"
check "apply it" "$GQ" policy apply
"$GQ" release "$J" >/dev/null
check_eq "the queued 2h job: ETA never" "$("$GQ" ls --format '{id} {eta}' | grep "^$J ")" "$J never"
check_match "gq why: over the queue's maximum, and what to change" "$("$GQ" why "$J")" \
	"Its time limit 2h00m is over queue default's maximum 1h00m: 'gq update --time-limit 1h00m' or another queue\..* Start: never: its time limit is over its queue's maximum\."
check_eq "it is not started" "$(state "$J")" pending
check "gq update --time-limit 1h, as gq why says" "$GQ" update "$J" --time-limit 1h
check "then it runs" wait_state "$J" running completed
finish
