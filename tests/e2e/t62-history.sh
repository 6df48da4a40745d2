#!/bin/bash
# t62-history: gq history lists every finished job the server keeps — not
# only the last 24 hours a snapshot shows — with wait, runtime, GPU-hours
# and their price, filtered by end time, user and state, as a table, a
# --format template, --json and --csv; bad dates, states and fields are one
# line and exit 2. gq stats --by user|dept sums GPU-hours x tier price.
# gq serve --keep-finished forgets what ended longer ago than it says.
. "$(dirname "$0")/lib.sh"
server_start --gpus 8 --keep-finished 2d
t0=$("$GQ" clock --json | jq -r .now)

# Job 1: 4 GPUs, P2 (price 0.3), runs 1 h then is cancelled.
"$GQ" submit --gpus 4 --tier P2 --name long -- sleep 3600 >/dev/null
wait_state 1 running
"$GQ" clock +1h >/dev/null
"$GQ" cancel 1 >/dev/null
wait_state 1 cancelled
# Job 2 fails, job 3 completes, both at once; job 4 is cancelled unstarted.
"$GQ" submit --gpus 2 --name bad -- false >/dev/null
"$GQ" submit --gpus 1 --name 'a,"b"' -- true >/dev/null
wait_state 2 failed
wait_state 3 completed
"$GQ" submit --hold -- true >/dev/null
"$GQ" cancel 4 >/dev/null
# Two days later the snapshot no longer shows them; the history does.
"$GQ" clock +30h >/dev/null
check_eq "gq ls --all shows none of them a day later" "$("$GQ" ls --all --format '{id}')" ""
check_eq "gq history lists all four" "$("$GQ" history --format '{id} {state} {exit}')" \
	"1 cancelled 143
2 failed 1
3 completed 0
4 cancelled -"
check_eq "job 1: waited 0s, ran 1h, 4 GPU-hours at P2's price 0.3" \
	"$("$GQ" history --format '{wait} {runtime} {gpus} {gpu_hours} {charged}' --state cancelled | head -1)" \
	"0s 1h00m 4 4.00 1.20"
check_eq "--state failed,completed" "$("$GQ" history --state failed,completed --format '{id}' | tr '\n' ' ')" "2 3 "
check_eq "--user root: every one" "$("$GQ" history --user "$(id -un)" --format '{id}' | wc -l)" 4
check_eq "--user nobody: none" "$("$GQ" history --user nobody --format '{id}')" ""
check_eq "--since now-31h: the three that ended at t0+1h" \
	"$("$GQ" history --since now-30h --format '{id}' | tr '\n' ' ')" "1 2 3 4 "
check_eq "--until by unix time: none before t0+1h" "$("$GQ" history --until "$((t0 + 3599))" --format '{id}')" ""
check_eq "--since/--until by unix time" \
	"$("$GQ" history --since "$t0" --until "$((t0 + 3601))" --format '{id}' | tr '\n' ' ')" "1 2 3 4 "
check_eq "--json: one object per job, numbers as numbers" \
	"$("$GQ" history --json | jq -c '[.[0] | .id, .state, .exit, .runtime, .gpus, .gpu_hours, .charged, .tier]')" \
	'[1,"cancelled",143,3600,4,4,1.2,"P2"]'
check_eq "--json: an unstarted job has start_time and exit null" "$("$GQ" history --json | jq -c '.[3] | [.start_time, .exit]')" "[null,null]"
"$GQ" history --csv >"$T_DIR/h.csv"
check_eq "--csv: a header and four rows" "$(wc -l <"$T_DIR/h.csv")" 5
check_eq "--csv: the header" "$(head -1 "$T_DIR/h.csv")" \
	"id,name,user,queue,dept,tier,state,exit,submit_time,start_time,end_time,wait,runtime,gpus,gpu_hours,charged"
check_eq "--csv: a name with a comma and quotes is quoted (RFC 4180)" \
	"$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[2]["name"], r[2]["state"], r[0]["gpu_hours"])' "$T_DIR/h.csv")" \
	'a,"b" completed 4.0000'
check_match "the table has a header" "$("$GQ" history | head -1)" '^ID +NAME +USER +QUEUE +TIER +STATE +EXIT +START +END +WAIT +RUNTIME +GPUS +GPU-HOURS +CHARGED$'

check_fail 2 "a bad date: exit 2" "$GQ" history --since yesterday
check_eq "in one line" "$("$GQ" history --since yesterday 2>&1)" \
	"gq history: --since 'yesterday': not a date; use YYYY-MM-DD[ HH:MM[:SS]], unix seconds, or now-DURATION (e.g. now-7d); see 'gq history -h'"
check_fail 2 "a bad duration after now-: exit 2" "$GQ" history --since now-7x
check_fail 2 "a state that is not finished: exit 2" "$GQ" history --state running
check_fail 2 "an unknown state: exit 2" "$GQ" history --state nope
check_fail 2 "an unknown --format field: exit 2" "$GQ" history --format '{nope}'
check_fail 2 "--json with --csv: exit 2" "$GQ" history --json --csv
check_fail 2 "--until before --since: exit 2" "$GQ" history --since 2030-01-02 --until 2030-01-01

me=$(id -un)
check_eq "gq stats --by user: jobs, GPU-hours, charged" \
	"$("$GQ" stats --by user --json | jq -c '.rows[] | [.name, .jobs, .gpu_hours, .charged]')" \
	"[\"$me\",4,4,1.2]"
check_eq "gq stats --by dept" "$("$GQ" stats --by dept | tail -1 | awk '{print $1, $2, $3, $4}')" "default 4 4.00 1.20"
check_fail 2 "gq stats --by nonsense: exit 2" "$GQ" stats --by nonsense

# Retention: 2 days after they ended, jobs 1-3 are forgotten; job 4 is the
# newest and stays so that no id is given twice.
"$GQ" clock +20h >/dev/null # the clock moving makes the scheduler pass
for _ in $(seq 1 100); do
	[ "$("$GQ" history --format '{id}' | tr '\n' ' ')" = "4 " ] && break
	sleep 0.05
done
check_eq "--keep-finished 2d: what ended over 2 days ago is forgotten but the newest" \
	"$("$GQ" history --format '{id}' | tr '\n' ' ')" "4 "
server_stop
server_start --gpus 8 --keep-finished 2d
check_eq "and stays forgotten after a restart" "$("$GQ" history --format '{id}' | tr '\n' ' ')" "4 "
check_eq "ids go on from the newest" "$("$GQ" submit --hold -- true)" "submitted job 5"
check_fail 2 "--keep-finished under a day is refused" "$GQ" serve --keep-finished 1h
finish
