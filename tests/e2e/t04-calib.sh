#!/bin/bash
# t04: ranges calibrated on the server's own predictions (issue #15: a
# range users can trust holds 80 % of starts). gq serve records each job's
# predicted start at its submit, and once 50 jobs predicted to wait have
# started, every range shown is widened by how far their starts came from
# those predictions: here each job runs twice its estimate (and a second:
# the clock moves one to record), so a new job's range reaches twice its
# predicted wait. The record survives kill -9.
. "$(dirname "$0")/lib.sh"

# One machine without headroom, as in t01.
policy_no_headroom
server_start --gpus 1 --policy-repo "$R"

now() { "$GQ" clock --json | jq .now; }
snap() { curl -s --unix-socket "$SERVER_SOCK" "http://gq/v1/snapshot?form=objects"; }
# The start predicted at submit: the server's record, in gq show --json.
pred0() { "$GQ" show --json "$1" | jq ".pred_start0 // 0"; }
# job N: one GPU, an estimate of 10 min, running until go-N exists.
job() {
	"$GQ" submit --json --name w --gpus 1 --estimate 10m -- \
		sh -c "while [ ! -e $T_DIR/go-$1 ]; do sleep 0.05; done" | jq -r .id
}

t0=$(now)
first=$(job 0)
check "the first job runs" wait_state "$first" running
ids=()
for n in $(seq 1 50); do ids+=("$(job "$n")"); done
check_eq "not recorded at once (a stream of submits costs one prediction a second)" \
	"$(pred0 "${ids[0]}")" 0
"$GQ" clock +1s >/dev/null
sleep 0.3
check_eq "the first waiter's start at its submit is recorded: when #$first's estimate ends" \
	"$(($(pred0 "${ids[0]}") - t0))" 600
check_eq "the 50th waiter's: after 50 estimates" "$(($(pred0 "${ids[49]}") - t0))" 30000
eta=$("$GQ" eta --json "${ids[49]}")
check_eq "gq eta says the same start" "$(echo "$eta" | jq ".[0].predicted_start - $t0")" 30000
check_eq "no calibration yet: the range is the simulation's" \
	"$(echo "$eta" | jq -c "[.[0].range.low, .[0].range.high] | map(. - $t0)")" "[30000,30000]"
check_eq "nor in the snapshot" "$(snap | jq -c .calib)" null

# Each job runs 20 min: job k of the 50 starts at 20k min, predicted at 10k.
for n in $(seq 0 49); do
	"$GQ" clock +20m >/dev/null
	touch "$T_DIR/go-$n"
	id=${ids[$n]}
	wait_state "$id" running >/dev/null || { check "waiter $((n + 1)) starts" false; break; }
done
t1=$(now)
check_eq "the 50th waiter started at 20 x 50 min, plus the second" \
	"$(("$("$GQ" show --json "${ids[49]}" | jq .start_time)" - t0))" 60001
check_eq "the snapshot carries the calibration: every start came at twice its predicted wait" \
	"$(snap | jq -c '.calib | [(.lo * 1000 | round), (.hi * 1000 | round), .n]')" "[2000,2000,50]"
x=$(job x)
eta=$("$GQ" eta --json "$x")
check_eq "a new job is predicted when the 50th waiter's estimate ends" \
	"$(echo "$eta" | jq ".[0].predicted_start - $t1")" 600
check_eq "and its range reaches twice that wait" \
	"$(echo "$eta" | jq -c "[.[0].range.low, .[0].range.high] | map(. - $t1)")" "[600,1200]"
# Either end carries a date when the range crosses midnight (the clock is
# the real one at the start, 1000 minutes on).
check_match "gq why shows the range" "$("$GQ" why "$x")" \
	"range ([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+-([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+\)"
check_eq "the served snapshot leaves out the starts predicted at submit" \
	"$(snap | jq '[.jobs[] | select(.pred_start0 != null)] | length')" 0
"$GQ" clock +1s >/dev/null
sleep 0.3

kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --gpus 1 --policy-repo "$R"
check_eq "after kill -9, the starts predicted at submit are still there" \
	"$(($(pred0 "${ids[49]}") - t0)),$(($(pred0 "$x") - t1))" "30000,600"
check_eq "and so is the calibration" "$(snap | jq -c '.calib | [(.lo * 1000 | round), (.hi * 1000 | round), .n]')" "[2000,2000,50]"
touch "$T_DIR/go-x" "$T_DIR/go-50"
finish
