#!/bin/bash
# t74-stats: gq stats says what window it measured: both ends with their
# dates and its length; a window that would begin before the server existed
# begins at the server's start (utilisation does not count those hours);
# --since / --until set the window (gq history's dates); LOST is GPU-hours
# as in gq preemptions; would-preemptions are a column of the text too.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4
cd "$T_DIR"
t0=$("$GQ" clock --json | jq .now)
# A window's ends carry their dates when it crosses midnight (the manual
# clock starts at the real time).
D='([A-Z][a-z]{2} [0-9]{2} )'

"$GQ" submit --gpus 1 -- sleep 600 >/dev/null
check "job 1 runs" wait_state 1 running
"$GQ" clock +1h >/dev/null
"$GQ" cancel 1 >/dev/null
check "job 1 is cancelled" wait_state 1 cancelled
# A P2 job cancelled while it waited: its row has no start, so no wait
# percentile ("-", not "0s").
"$GQ" submit --gpus 1 --tier P2 --hold -- true >/dev/null
"$GQ" cancel 2 >/dev/null
check "job 2 is cancelled" wait_state 2 cancelled
"$GQ" clock +1h >/dev/null

out=$("$GQ" stats)
check_match "a row with no start has no P50 or P95" "$(echo "$out" | grep '^\* *P2 ')" \
	'^\* +P2 +0 +- +- '
check_match "the window begins at the server's start, 2h long" "$(echo "$out" | head -1)" \
	"^from $D?[0-9:]{5} \(the server's start\) to $D?[0-9:]{5}, 2h00m$"
check_match "utilisation of those 2 h only: 1 GPU-hour of 8" "$(echo "$out" | sed -n 2p)" \
	'^GPUs: 4, utilisation 12\.5%, 1\.0 GPU-hours used$'
check_eq "--json: from is server_start" "$("$GQ" stats --json | jq '.from == .server_start and .server_start == '"$t0")" true
check_match "LOST in GPU-hours, WOULD beside PREEMPTS" "$(echo "$out" | grep '^QUEUE')" \
	' PREEMPTS WOULD +LOST CANCELLED$'
check_match "a row's LOST says its unit" "$(echo "$out" | grep '^\* *P1 ')" \
	' 0 +0 +0\.00 GPU-h +1$'

out=$("$GQ" stats --since now-30m)
check_match "--since now-30m: the last half hour" "$(echo "$out" | head -1)" "^from $D?[0-9:]{5} to $D?[0-9:]{5}, 30m$"
check_match "nothing ran in it" "$(echo "$out" | sed -n 2p)" 'utilisation 0\.0%'
check_eq "--until now-1h: the first hour, 1 GPU of 4" \
	"$("$GQ" stats --until now-1h --json | jq -c '[.from == .server_start, .to - .from, .utilisation]')" '[true,3600,0.25]'
check_eq "--since and --until as unix seconds" \
	"$("$GQ" stats --since $((t0 + 1800)) --until $((t0 + 5400)) --json | jq -c '[.from, .to, .gpu_seconds]')" \
	"[$((t0 + 1800)),$((t0 + 5400)),1800]"

# A day-long window in the past is dated at both ends.
"$GQ" clock +2d >/dev/null
check_match "a window across midnight: both dates" "$("$GQ" stats | head -1)" \
	'^from [A-Z][a-z]{2} [0-9]{2} [0-9:]{5} to [A-Z][a-z]{2} [0-9]{2} [0-9:]{5}, 1d00h$|^from [A-Z][a-z]{2} [0-9]{2} [0-9:]{5} to [0-9:]{5}, 1d00h$'

out=$("$GQ" stats --since 'yesterday' 2>&1); rc=$?
check_eq "--since yesterday: exit 2" "$rc" 2
check_match "says which dates it takes" "$out" "--since 'yesterday': not a date"
out=$("$GQ" stats --since now --until now-1h 2>&1); rc=$?
check_eq "--until before --since: exit 2" "$rc" 2
check_match "says so" "$out" "is not after --since"
check_fail 2 "--by with --since: exit 2" "$GQ" stats --by user --since now-1d
finish
