#!/bin/bash
# t01: the core's prediction and wait reasons through the real binary and a
# real gq serve: DESIGN §5's worked example (8 GPUs, three 8-GPU P0 jobs
# ahead with 40, 25 and 60 min to run: a new 8-GPU P1 starts in 125 min),
# the ETA moving when reality differs, and a never-runnable job.
. "$(dirname "$0")/lib.sh"

# One machine of 8 GPUs: without headroom (15% of 8 would keep a GPU from
# P1, and an 8-GPU P1 job could never start).
policy_no_headroom
check_eq "the policy holds no headroom" \
	"$("$GQ" policy show --json | jq -r '.keys[] | select(.key == "headroom.share") | .value')" "0"
server_start --gpus 8 --policy-repo "$R"

api() { curl -s --unix-socket "$SERVER_SOCK" "http://gq$1"; }
now() { "$GQ" clock --json | jq .now; }

# The first one ignores SIGTERM, so that a cancel frees its GPUs only when
# the grace period (5 min) ends with SIGKILL.
"$GQ" submit --tier P0 --gpus 8 --estimate 40m -- sh -c 'trap "" TERM; sleep 600' >/dev/null
check "the first P0 job runs" wait_state 1 running
"$GQ" submit --tier P0 --gpus 8 --estimate 25m -- sleep 600 >/dev/null
"$GQ" submit --tier P0 --gpus 8 --estimate 60m -- sleep 600 >/dev/null
"$GQ" submit --gpus 8 -- true >/dev/null
t0=$(now)
eta=$("$GQ" eta --json 4)
check_eq "the 8-GPU P1 starts in 125 minutes" "$(echo "$eta" | jq ".[0].predicted_start - $t0")" 7500
check_eq "it waits for the last P0, gated by ends" \
	"$(echo "$eta" | jq -c '.[0].explanation | [.reason, .ahead, .waits_for, .gate]')" '["priority",2,[3],"ends"]'
check_match "gq why words it" "$("$GQ" why 4)" '^Pending: priority; also resources\. 2 jobs ahead \(P0 #2 weight 100\.0, P0 #3 weight 100\.0\);'
check_eq "the P0 jobs ahead start at 40 and 65 minutes" \
	"$("$GQ" eta --json 2 3 | jq -c "[.[].predicted_start - $t0]")" '[2400,3900]'

# Reality differs: the first job ends early (cancelled after 10 minutes, gone
# after its grace period), and the next snapshot moves every ETA.
"$GQ" clock +10m >/dev/null
"$GQ" cancel 1 >/dev/null
"$GQ" clock +5m >/dev/null
check "the second P0 job runs" wait_state 2 running
t1=$(now)
check_eq "the P1 now starts 85 minutes later" "$("$GQ" eta --json 4 | jq ".[0].predicted_start - $t1")" 5100

# A job whose dependency was cancelled could never start: refused at
# submit, saying why (t77 has the rest).
check_match "a dead dependency: refused, saying why" "$("$GQ" submit --gpus 1 --after 1 -- true 2>&1)" \
	"dependency '1' was cancelled: afterok can never be met"

# Jobs outlive their server by design: stop them before leaving.
"$GQ" cancel 2 3 >/dev/null 2>&1 || { "$GQ" cancel 2; "$GQ" cancel 3; } >/dev/null 2>&1
"$GQ" clock +10m >/dev/null
check "the sleeping jobs are gone" wait_state 2 cancelled
check "the sleeping jobs are gone (2)" wait_state 3 cancelled
finish
