#!/bin/bash
# t02: the client predicts what the server plans (issue #15, defect 1).
# After three completed 'trainy' runs of 10 min under --time-limit 4h, a
# new 'trainy' is expected to run 10 min in every client, as in the
# server's plan: the runtime history travels in the snapshot. With it
# running (6 of 8 GPUs), bigA (8 GPUs) and smallB (1 GPU, 1 h) queued,
# smallB would outlast bigA's reservation: no client says it starts now,
# and the server does not start it.
. "$(dirname "$0")/lib.sh"

# One machine of 8 GPUs without headroom, as in t01.
policy_no_headroom
server_start --gpus 8 --policy-repo "$R"

now() { "$GQ" clock --json | jq .now; }
# trainy N: a 6-GPU run that lasts until go-N exists.
trainy() {
	"$GQ" submit --json --name trainy --gpus 6 --time-limit 4h -- \
		sh -c "while [ ! -e $T_DIR/go-$1 ]; do sleep 0.05; done" | jq -r .id
}

for n in 1 2 3; do
	id=$(trainy "$n")
	check "trainy run $n starts" wait_state "$id" running
	"$GQ" clock +10m >/dev/null
	touch "$T_DIR/go-$n"
	check "trainy run $n completes after 10 minutes" wait_state "$id" completed
done

t0=$(now)
id=$(trainy 4)
check "the fourth trainy runs" wait_state "$id" running
big=$("$GQ" submit --json --name bigA --gpus 8 -- true | jq -r .id)
small=$("$GQ" submit --json --name smallB --gpus 1 --estimate 1h -- true | jq -r .id)
check_eq "the server's snapshot carries the history: trainy's P50 runtime" \
	"$(curl -s --unix-socket "$SERVER_SOCK" http://gq/v1/snapshot |
		jq ".jobs[] | select(.id == $id) | .hist_runtime")" 600
why=$("$GQ" why --json "$big")
check_eq "bigA waits for trainy, expected to end 10 minutes after its start" \
	"$(echo "$why" | jq -c "[.explanation.waits[0].id, .explanation.waits[0].end - $t0]")" "[$id,600]"
check_eq "bigA starts when trainy ends" "$(echo "$why" | jq ".explanation.predicted_start // .predicted_start | . - $t0")" 600
# bigA has no run of its own name: the user's last two runs (10 min each)
# are its expectation, so smallB is predicted at 600 + 600.
check_eq "smallB would outlast bigA's reservation: not now, but after bigA" \
	"$("$GQ" eta --json "$small" | jq ".[0].predicted_start - $t0")" 1200
check_match "gq why does not say smallB starts now" "$("$GQ" why "$small")" '^Pending: priority\.'
check_fail 1 "gq ls does not show smallB starting now" \
	sh -c "'$GQ' ls | grep -E '^ *$small .*now'"
# A pass of the scheduler, and smallB is still pending.
"$GQ" clock +1s >/dev/null
check_eq "the server does not start smallB" "$(state "$small")" pending

touch "$T_DIR/go-4"
check "trainy ends" wait_state "$id" completed
finish
