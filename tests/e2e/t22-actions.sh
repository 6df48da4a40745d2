#!/bin/bash
# t22-actions: cancel, hold, release, requeue, prio, confirm and checkpoint
# against a real gq serve: what they print, what they change, and the exit
# codes of the wrong state (1), no such job (3) and a bad id (2).
. "$(dirname "$0")/lib.sh"
server_start --gpus 8
"$GQ" clock --set '2030-01-01 09:00' >/dev/null

# A job that runs until stopped; its argv names T_DIR so that lib.sh's
# cleanup finds it, and its sleeps are short so that nothing outlives us long.
long_job=(sh -c 'i=0; while [ $i -lt 900 ]; do sleep 1; i=$((i + 1)); done' "$T_DIR")
# 1: holds 7 of 8 (1 is P0 headroom); not checkpointable, so that the P0
# below cannot preempt it (gq serve enforces the policy)
"$GQ" submit --gpus 7 -- "${long_job[@]}" >/dev/null
check "job 1 runs" wait_state 1 running
"$GQ" submit --gpus 4 -- true >/dev/null                       # 2: pending
"$GQ" submit --gpus 4 --tier P0 -- true >/dev/null             # 3: pending P0

check_eq "hold" "$("$GQ" hold 2)" "held job 2"
check_eq "held" "$("$GQ" show --json 2 | jq -c '[.state, .held]')" '["pending",true]'
out=$("$GQ" hold 2 2>&1); rc=$?
check_eq "hold of a held job: exit 1" "$rc" 1
check_match "says why" "$out" '^gq: .*held'
check_eq "release" "$("$GQ" release 2)" "released job 2"
check_eq "released" "$("$GQ" show --json 2 | jq .held)" false
check_fail 1 "release of a job not held: exit 1" "$GQ" release 2

check_eq "prio sets an override" "$("$GQ" prio --reason 'incident 7' 2 P0)" "job 2: scheduled as P0"
check_eq "the override is recorded" "$("$GQ" show --json 2 | jq -c '[.tier, .override.tier, .override.reason]')" '["P1","P0","incident 7"]'
check_eq "prio --clear" "$("$GQ" prio --reason over --clear 2)" "job 2: override cleared"
check_eq "cleared" "$("$GQ" show --json 2 | jq -c .override)" null
out=$("$GQ" prio --priority 5000 2 2>&1); rc=$?
check_eq "prio --priority on gq serve: exit 5" "$rc" 5
check_match "prio --priority on gq serve: says it is not supported" "$out" '^gq: gq prio --priority is not supported on gq serve: '
check_eq "prio --priority on gq serve: one line" "$(printf '%s\n' "$out" | wc -l)" 1
check_fail 2 "prio --priority with a tier: exit 2" "$GQ" prio --priority 5000 2 P0
check_fail 2 "prio --priority 0: exit 2" "$GQ" prio --priority 0 2

check_fail 1 "confirm of a P1 job: exit 1" "$GQ" confirm 2
check_eq "confirm of a pending P0 job" "$("$GQ" confirm 3)" "confirmed job 3"
check_match "confirmation recorded" "$("$GQ" show --json 3 | jq .confirmed_at)" '^[1-9][0-9]+$'

now=$("$GQ" clock --json | jq .now)
check_eq "checkpoint of a running job" "$("$GQ" checkpoint 1)" "job 1: checkpoint recorded"
check_eq "last_checkpoint is now" "$("$GQ" show --json 1 | jq .last_checkpoint)" "$now"
"$GQ" clock +10m >/dev/null
check_eq "checkpoint from GQ_JOB_ID" "$(GQ_JOB_ID=1 "$GQ" checkpoint)" "job 1: checkpoint recorded"
check_eq "last_checkpoint moved" "$("$GQ" show --json 1 | jq .last_checkpoint)" "$((now + 600))"
check_fail 1 "checkpoint of a pending job: exit 1" "$GQ" checkpoint 2

check_eq "cancel of several jobs" "$("$GQ" cancel 2 3)" "cancelled job 2
cancelled job 3"
check_eq "cancelled" "$(state 2) $(state 3)" "cancelled cancelled"
check_fail 1 "cancel of a cancelled job: exit 1" "$GQ" cancel 2
out=$("$GQ" cancel 999 1 2>&1); rc=$?
check_eq "cancel of no such job and a real one: exit 3, the other still done" "$rc" 3
check_eq "messages" "$out" "gq: no job '999'; see 'gq ls --all'
cancelled job 1"
check "job 1 ends cancelled" wait_state 1 cancelled

"$GQ" submit -- true >/dev/null # 4
check "job 4 completes" wait_state 4 completed
check_eq "requeue of a finished job" "$("$GQ" requeue 4)" "requeued job 4"
check "it runs again and completes" wait_state 4 completed
check_eq "the requeue is an event" "$("$GQ" events --job 4 --json | jq -c '[.[] | select(.from != .to and .to == "pending") | .from]')" '["completed"]'

"$GQ" submit --hold -- true >/dev/null # 5
out=$("$GQ" release --json 5 999 2>/dev/null); rc=$?
check_eq "release --json: exit 3, as without --json" "$rc" 3
check_eq "release --json: each job's outcome in the order named" "$(jq -c . <<<"$out")" \
	'{"action":"release","jobs":[{"id":5,"ok":true},{"id":999,"ok":false,"exit":3,"error":"no job '"'"'999'"'"'; see '"'"'gq ls --all'"'"'"}]}'
check_eq "release --json: job 5 is released" "$("$GQ" show --json 5 | jq .held)" false
check_eq "cancel --json of a finished job: ok false, exit 1" \
	"$("$GQ" cancel --json 4 2>/dev/null | jq -c '.jobs[0] | [.ok, .exit]')" '[false,1]'

for c in cancel hold release requeue confirm checkpoint; do
	check_fail 3 "$c of no such job: exit 3" "$GQ" "$c" 12345
done
check_fail 3 "prio of no such job: exit 3" "$GQ" prio --reason x 12345 P0
finish
