#!/bin/bash
# t23-queue: gq ls, gq why and gq eta on a queue whose every number is
# known: 8 GPUs, two running jobs with estimates, pending jobs of each tier,
# a dependency and a hold, on the manual clock. Golden text for people,
# exact JSON for scripts.
. "$(dirname "$0")/lib.sh"
server_start --gpus 8 --gpu-model a100 --gpu-mem 80G
"$GQ" clock --set '2030-01-01 09:00' >/dev/null
ME=$(id -un)
long_job=(sh -c 'i=0; while [ $i -lt 900 ]; do sleep 1; i=$((i + 1)); done' "$T_DIR")
cd "$T_DIR"

"$GQ" submit --name trainA --gpus 4 --estimate 1h --time-limit 3h -- "${long_job[@]}" >/dev/null  # 1
"$GQ" submit --name trainB --gpus 3 --estimate 2h --time-limit 4h -- "${long_job[@]}" >/dev/null  # 2
check "job 1 runs" wait_state 1 running
check "job 2 runs" wait_state 2 running
"$GQ" submit --name sweep --gpus 4 --estimate 30m -- true >/dev/null       # 3: P1, waits
"$GQ" submit --name explore --tier P2 --gpus 2 -- true >/dev/null          # 4: P2, waits
"$GQ" submit --name evalP0 --tier P0 --gpus 2 --after 1 -- true >/dev/null # 5: after #1
"$GQ" submit --name later --gpus 1 --hold -- true >/dev/null               # 6: held
"$GQ" clock +45m >/dev/null

norm() { sed "s/$ME/USER/g"; }
"$GQ" ls | norm >"$T_DIR/ls"
check_golden "ls: running, then pending in order" "$T_DIR/ls" t23-ls.txt
"$GQ" why 3 | norm >"$T_DIR/why3"
check_golden "why of a P1 job behind running ones" "$T_DIR/why3" t23-why3.txt
"$GQ" why 4 | norm >"$T_DIR/why4"
check_golden "why of a P2 job" "$T_DIR/why4" t23-why4.txt
"$GQ" why 5 | norm >"$T_DIR/why5"
check_golden "why of a job after another" "$T_DIR/why5" t23-why5.txt
"$GQ" why 6 | norm >"$T_DIR/why6"
check_golden "why of a held job" "$T_DIR/why6" t23-why6.txt
check_eq "why of a running job" "$("$GQ" why 1)" "Job 1 is running since 09:00 (45m); expected to end around 10:00."
"$GQ" eta | norm >"$T_DIR/eta"
check_golden "eta of every pending job" "$T_DIR/eta" t23-eta.txt

# The --json contract.
j=$("$GQ" ls --json)
check_eq "ls --json: scheduling order" "$(echo "$j" | jq -c '[.[].id]')" '[1,2,5,3,6,4]'
check_eq "ls --json: the fields every job has" "$(echo "$j" | jq -c '[.[0] | keys[]] | sort')" \
	'["end_time","gpus","id","name","position","predicted_end","predicted_start","queue","range","reason","start_time","state","submit_time","tier","user","waited","weight"]'
t0=$("$GQ" clock --json | jq .now)
check_eq "ls --json: a running job" "$(echo "$j" | jq -c --argjson now "$t0" '.[0] | [.state, .gpus, .weight, .start_time == $now - 2700, .predicted_start, .reason, .position]')" \
	'["running",4,30,true,null,null,null]'
check_eq "ls --json: the P1 job aged one step" "$(echo "$j" | jq -c '.[] | select(.id == 3) | [.state, .tier, .weight, .waited, .reason, .position]')" \
	'["pending","P1",33,2700,"priority",2]'
check_eq "ls --json: predicted starts are unix seconds" "$(echo "$j" | jq -c --argjson now "$t0" '[.[] | select(.state == "pending") | if .predicted_start then .predicted_start - $now else null end]')" \
	"$(echo "$j" | jq -c --argjson now "$t0" '[.[] | select(.state == "pending") | if .predicted_start then .predicted_start - $now else null end]')"
check_eq "ls --json: the held job never starts" "$(echo "$j" | jq -c '.[] | select(.id == 6) | [.reason, .predicted_start, .range]')" '["held",null,null]'
check_eq "ls --json: the dependent job" "$(echo "$j" | jq -r '.[] | select(.id == 5) | .reason')" dependency

w=$("$GQ" why --json 3)
check_eq "why --json carries the ls fields" "$(echo "$w" | jq -c '[.id, .state, .reason]')" '[3,"pending","priority"]'
check_eq "why --json: weight = base x (1 + c)" "$(echo "$w" | jq -c '.explanation.weight | [.value, .base, .c]')" '[33,30,0.1]'
check_eq "why --json: needs and free" "$(echo "$w" | jq -c '.explanation.needs | [.gpus, .free]')" '[4,1]'
check_eq "why --json: the text is the paragraph" "$(echo "$w" | jq -r .explanation.text)" "$(head -1 "$T_DIR/why3" | sed "s/USER/$ME/g")"
check_eq "why --json of a running job has no explanation" "$("$GQ" why --json 1 | jq -c '[.state, .explanation]')" '["running",null]'
check_eq "eta --json is an array of the why objects" "$("$GQ" eta --json 3 4 | jq -c '[.[] | .id]')" '[3,4]'
check_fail 3 "why of no such job: exit 3" "$GQ" why 999
check_fail 1 "eta of a running job: exit 1" "$GQ" eta 1

# Filters and --format.
check_eq "--state pending --format" "$("$GQ" ls --state pending --format '{id}:{tier}:{reason}')" "5:P0:dependency #1
3:P1:priority (1 ahead)
6:P1:held
4:P2:priority (2 ahead)"
check_eq "--queue and --user" "$("$GQ" ls --queue default --user "$ME" --format '{id}' | tr '\n' ' ')" "1 2 5 3 6 4 "
out=$("$GQ" ls --user nobody-here --format '{id}' 2>&1); rc=$?
check_eq "--user of no one: exit 2" "$rc" 2
check_eq "--user of no one: one line, not an empty table" "$out" \
	"gq ls: --user: no user 'nobody-here' here and no job of theirs; see 'gq ls -h'"
check_eq "--user of an account without jobs: an empty list" "$("$GQ" ls --user daemon --format '{id}')" ""
out=$("$GQ" ls --queue nosuch 2>&1); rc=$?
check_eq "--queue of no queue: exit 2" "$rc" 2
check_eq "--queue of no queue: the queues named" "$out" \
	"gq ls: --queue: no queue 'nosuch' (the queues: default); see 'gq ls -h'"
"$GQ" cancel 6 >/dev/null
check_eq "without --all finished jobs are left out" "$("$GQ" ls --format '{id}' | tr '\n' ' ')" "1 2 5 3 4 "
check_eq "--all adds them" "$("$GQ" ls --all --format '{id}:{state}' | tail -1)" "6:cancelled"
check_eq "--state cancelled needs no --all" "$("$GQ" ls --state cancelled --format '{id}')" "6"

# Output that cannot be written is an error of its own, whatever the command:
# one line on stderr and exit 1, not 0 as if it had been printed.
for c in "ls" "ls --json" "show 3" "events" "stats" "help ls"; do
	err=$("$GQ" $c 2>&1 >/dev/full); rc=$?
	check_eq "gq $c >/dev/full: exit 1, one line" "$rc $err" \
		"1 gq: cannot write to standard output: No space left on device"
	err=$("$GQ" $c 2>&1 >&-); rc=$?
	check_eq "gq $c with stdout closed: exit 1, one line" "$rc $err" \
		"1 gq: cannot write to standard output: Bad file descriptor"
done
err=$(timeout 10 "$GQ" events -f 2>&1 >/dev/full); rc=$?
check_eq "gq events -f >/dev/full: ends, exit 1, one line" "$rc $err" \
	"1 gq: cannot write to standard output: No space left on device"
# A pipe whose reader left ("gq ls | head -1") is quiet: SIGPIPE ends gq as
# it ends any filter, and where the caller ignores SIGPIPE the EPIPE says
# nothing either (but is no success).
gone_reader() { # ignore-SIGPIPE?, gq args...: "rc stderr" with stdout a pipe nobody reads
	python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[2:], stdout=w, stderr=subprocess.PIPE, restore_signals=sys.argv[1] == "0")
print(p.returncode, p.stderr.decode().strip())
' "$@"
}
check_eq "gq ls into a pipe nobody reads: SIGPIPE, quiet" "$(gone_reader 0 "$GQ" ls)" "-13 "
check_eq "the same with SIGPIPE ignored: exit 1, quiet" "$(gone_reader 1 "$GQ" ls)" "1 "
"$GQ" cancel 1 2 >/dev/null
finish
