#!/bin/bash
# t24-events: gq events (text, --json, --job, --after, -f), gq stats,
# gq nodes and gq clock against a real gq serve on its manual clock.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4 --gpu-model a100 --gpu-mem 80G
ME=$(id -un)
check_eq "clock --set" "$("$GQ" clock --set '2030-01-01 09:00')" "2030-01-01 09:00:00 UTC"
check_eq "clock prints the time" "$("$GQ" clock)" "2030-01-01 09:00:00 UTC"
check_eq "clock +90m" "$("$GQ" clock +90m)" "2030-01-01 10:30:00 UTC"
check_eq "clock --json" "$("$GQ" clock --json)" "{\"now\":$(date -u -d '2030-01-01 10:30' +%s)}"
out=$("$GQ" clock --set '2029-01-01 00:00' 2>&1); rc=$?
check_eq "clock --set into the past: exit 2" "$rc" 2
check_match "says the clock never goes back" "$out" "never goes back"
cd "$T_DIR"

"$GQ" submit --name one -- true >/dev/null
check "job 1 completes" wait_state 1 completed
"$GQ" submit --name two --hold -- true >/dev/null
"$GQ" release 2 >/dev/null
check "job 2 completes" wait_state 2 completed
"$GQ" events --job 1 | sed "s/$ME/USER/g" >"$T_DIR/ev1"
check_golden "events of job 1" "$T_DIR/ev1" t24-events-job1.txt
check_eq "events --json of job 2: kinds and changes" \
	"$("$GQ" events --json --job 2 | jq -c '[.[] | [.kind, .from, .to]]')" \
	'[["submit","pending","pending"],["release","pending","pending"],["state","pending","starting"],["state","starting","running"],["state","running","completed"]]'
all=$("$GQ" events --json)
last=$(echo "$all" | jq '.[-1].seq')
check_eq "events --json: seq strictly increasing from 1" "$(echo "$all" | jq -c '[.[].seq] == [range(1; length + 1)]')" true
check_eq "events --after the last: nothing" "$("$GQ" events --json --after "$last")" "[]"
check_eq "events --after: only later ones" "$("$GQ" events --json --after $((last - 2)) | jq -c '[.[].seq]')" "[$((last - 1)),$last]"

# -f: prints the new events as they come, as JSON lines with --json.
"$GQ" events -f --json --after "$last" >"$T_DIR/follow" 2>&1 &
fpid=$!
"$GQ" submit --name three --hold -- true >/dev/null
"$GQ" cancel 3 >/dev/null
for _ in $(seq 1 100); do grep -q '"to":"cancelled"' "$T_DIR/follow" && break; sleep 0.05; done
kill "$fpid"; wait "$fpid" 2>/dev/null
check_eq "events -f --json follows, one object a line" "$(jq -c '[.job, .kind, .to]' "$T_DIR/follow" | tr '\n' ' ')" '[3,"submit","pending"] [3,"state","cancelled"] '

check_eq "stats --json: jobs by state" "$("$GQ" stats --json | jq -c '.jobs | [.pending, .completed, .cancelled]')" '[0,2,1]'
check_match "stats for people" "$("$GQ" stats)" '^jobs: 0 pending, 0 starting, 0 running, 0 stopping, 2 completed, 0 failed, 1 cancelled, 0 timeout$'
host=$("$GQ" nodes --json | jq -r '.[0].name')
"$GQ" nodes | sed "s/^$(printf '%-16s' "$host")/$(printf '%-16s' NODE0)/" >"$T_DIR/nodes"
check_golden "nodes" "$T_DIR/nodes" t24-nodes.txt
check_eq "nodes --json" "$("$GQ" nodes --json | jq -c '.[0] | [.gpu_model, .gpu_mem_mb, .gpus, .busy, .free, .up, .jobs]')" '["a100",81920,4,0,4,true,[]]'
finish
