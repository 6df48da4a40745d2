#!/bin/bash
# t65: a job is charged only for the time it held GPUs (issue 27, defect
# 6). A job preempted and later cancelled while pending, and a job that
# timed out, was requeued and was cancelled before it ran again, are billed
# for their runs, not from their start to the cancel: gq history, gq show,
# gq ls --all, gq stats --by user and the metrics agree, and a job that ran
# twice is charged both runs.
# shellcheck disable=SC2086 # $LONG is a command line
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[preempt]
	cooldown = 10m' --gpus 4
"$GQ" clock --set '2030-01-01 09:00' >/dev/null

a=$(sub --tier P2 --checkpointable --gpus 2 --name pre -- $LONG)
b=$(sub --tier P1 --gpus 2 --time-limit 1h --name tmo -- $LONG)
check "both run" wait_state "$b" running
"$GQ" checkpoint "$a" >/dev/null
clock +15m
c=$(sub --tier P0 --gpus 2 -- $LONG)
check "a P0 preempts the P2 after 15 min" wait_state "$c" running
check "the P2 is pending again" wait_state "$a" pending
clock +15m
d=$(sub --tier P0 --gpus 2 -- $LONG)
clock +30m
check "at 10:00 the P1 times out" wait_state "$b" timeout
check "the waiting P0 takes its GPUs" wait_state "$d" running
check "the timed-out P1 is requeued" "$GQ" requeue "$b"
clock +30m
check_eq "neither runs again: no GPU is free" "$(states "$a" "$b")" "$a:pending $b:pending"
check "the preempted P2 is cancelled while pending" "$GQ" cancel "$a"
check "so is the requeued P1" "$GQ" cancel "$b"

check_eq "gq history: 15 min on 2 GPUs, then 1 h on 2 GPUs" \
	"$("$GQ" history --format '{id} {state} {runtime} {gpu_hours} {charged}')" \
	"$a cancelled 15m 0.50 0.15
$b cancelled 1h00m 2.00 2.00"
check_eq "gq history --json: runtime in seconds" \
	"$("$GQ" history --json | jq -c '[.[] | [.id, .runtime, .gpu_hours]]')" \
	"[[$a,900,0.5],[$b,3600,2]]"
check_match "gq show: ran 15m" "$("$GQ" show "$a")" "ended .*\(ran 15m\)"
check_match "gq show: ran 1h00m" "$("$GQ" show "$b")" "ended .*\(ran 1h00m\)"
check_eq "gq ls --all: the same times run" \
	"$("$GQ" ls --all --format '{id} {time}' | grep -E "^($a|$b) ")" "$a 15m
$b 1h00m"
check_eq "gq stats --by user: 2.50 GPU-hours, 2.15 charged" \
	"$("$GQ" stats --by user --json | jq -c '.rows[] | [.jobs, .gpu_hours, .charged]')" "[2,2.5,2.15]"
now=$("$GQ" clock --json | jq .now)
check_eq "the metrics (from the events) count the same runs: 0.5 + 2, and 2.5 + 1 of the P0s" \
	"$(api GET "/v1/stats?to=$now" | jq -c '[.depts[] | select(.dept == "default") | .gpu_hours]')" "[6]"

# A job that ran twice is charged both runs: the P0 of 10:00 is requeued
# after 45 min, runs again (its GPUs are free) for 15 min and completes.
clock +15m
check "the second P0 is requeued" "$GQ" requeue "$d"
check "and runs again" wait_state "$d" running
clock +15m
check "then is cancelled" "$GQ" cancel "$d"
check "cancelled" wait_state "$d" cancelled
check_eq "gq history: both runs, 45 min + 15 min on 2 GPUs" \
	"$("$GQ" history --state cancelled --format '{id} {runtime} {gpu_hours}' | grep "^$d ")" \
	"$d 1h00m 2.00"
server_stop
server_start --policy-repo "$P_REPO" --gpus 4
check_eq "a restart keeps the runs" \
	"$("$GQ" history --format '{id} {runtime} {gpu_hours}' | tr '\n' ' ')" \
	"$a 15m 0.50 $b 1h00m 2.00 $d 1h00m 2.00 "
finish
