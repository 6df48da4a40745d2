#!/bin/bash
# t3f: the reclamation report's idle times survive a restart of gq serve.
# The jobs outlive the server; the next one resumes each job's watch from
# the journal: the last output or checkpoint seen before the stop, and the
# logs' size then, so that output written while no server ran counts as
# progress at the first look.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[reclaim]
	idleAfter = 1h'

# wait_go NAME: a job command that waits for $T_DIR/go-NAME, says so once
# and then runs silent until it is stopped.
wait_go() {
	echo "while [ ! -e '$T_DIR/go-$1' ]; do sleep 0.1; done; echo woke; exec $LONG"
}
# wait_log ID: a short poll until job ID's stdout is not empty.
wait_log() {
	for _ in $(seq 1 200); do
		[ -s "$SERVER_STATE/jobs/$1/stdout" ] && return 0
		sleep 0.05
	done
	return 1
}

silent=$(sub -- $LONG)
early=$(sub -- sh -c "$(wait_go early)")
saver=$(sub -- $LONG)
late=$(sub -- sh -c "$(wait_go late)")
for j in "$silent" "$early" "$saver" "$late"; do check "job $j runs" wait_state "$j" running; done
t0=$(field "$silent" .start_time)
clock +3m
"$GQ" checkpoint "$saver" >/dev/null
clock +2m
touch "$T_DIR/go-early"
check "the early job writes at +5m" wait_log "$early"
check_eq "nothing is idle yet (the report sees the output at +5m)" \
	"$(api GET /v1/reclaim | jq -c '[.jobs[].job]')" "[]"
clock +45m

server_stop
touch "$T_DIR/go-late"
check "the late job writes while no server runs" wait_log "$late"
server_start --policy-repo "$P_REPO" --gpus 8
for j in "$silent" "$early" "$saver" "$late"; do check "job $j is adopted" wait_state "$j" running; done
clock +15m
check_eq "at +65m: idle since their start, their output, their checkpoint; not the late one" \
	"$(api GET /v1/reclaim | jq -c '[.jobs[] | [.job, .kind, .since - '"$t0"', .for]]')" \
	"[[$silent,\"idle\",0,3900],[$early,\"idle\",300,3600],[$saver,\"idle\",180,3720]]"
out=$("$GQ" reclaim)
check_match "gq reclaim lists the early job" "$out" "^$early +idle +1 "
clock +45m
check_eq "the late job's output counted when the new server first looked (+50m): idle at +110m" \
	"$(api GET /v1/reclaim | jq -c '[.jobs[] | select(.job == '"$late"') | [.kind, .since - '"$t0"']]')" \
	'[["idle",3000]]'
finish
