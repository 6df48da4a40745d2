#!/bin/bash
# t63-sim: gq sim replays tiny traces whose waits are computed by hand
# (first come first served, backfill, tiers) from CSV and from SWF (plain
# and gzip), prints them (golden), as JSON, under two policies side by side,
# and refuses a malformed line with its file and line number. No server.
. "$(dirname "$0")/lib.sh"

# 4 units. A (3) runs until 100; B (4) waits for it (90 s); C (1, 50 s)
# fits and ends by 100: backfilled at once; D (1, limit 200) would outlast
# B's reservation and starts after B, at 150 (120 s).
cat >"$T_DIR/bf.csv" <<'CSV'
job_id,submit_s,start_s,end_s,gpus,user,queue,status,req_s
1,0,0,100,3,ann,,COMPLETED,100
2,10,100,150,4,bob,,COMPLETED,50
3,20,20,70,1,cid,,COMPLETED,50
4,30,150,170,1,dan,,FAILED,200
CSV
"$GQ" sim --trace "$T_DIR/bf.csv" --nodes 1 --gpus-per-node 4 --json >"$T_DIR/bf.json"
check_eq "backfill: waits P50 / P95 / max" \
	"$(jq -c '.runs[0].groups[-1] | [.jobs, .p50_wait, .p95_wait, .max_wait, .overtakes]' "$T_DIR/bf.json")" \
	"[4,0,120,120,1]"
check_eq "backfill: gq's prediction at submit is exact (runtimes are limits)" \
	"$(jq -c '.runs[0].accuracy.history.replay.all | [.jobs, .median_abs_error, .in_range]' "$T_DIR/bf.json")" \
	"[4,0,1]"
check_eq "backfill: zero is off by the waits" \
	"$(jq -c '.runs[0].accuracy.zero.replay.waited | [.jobs, .median_abs_error, .mean_abs_error]' "$T_DIR/bf.json")" \
	"[2,90,105]"
check_eq "backfill: the machine as given" "$(jq -c .machine "$T_DIR/bf.json")" \
	'{"nodes":1,"units_per_node":4,"units":4}'
(cd "$T_DIR" && "$GQ" sim --trace bf.csv --nodes 1 --gpus-per-node 4 >bf.txt)
check_golden "backfill: the report" "$T_DIR/bf.txt" t63-sim-backfill.txt

# Tiers: B (P2) waits while C (P0), submitted later, takes the node first.
cat >"$T_DIR/tiers.csv" <<'CSV'
job_id,submit_s,start_s,end_s,gpus,user,queue,status,req_s,tier
1,0,0,100,4,ann,,COMPLETED,100,P1
2,10,10,60,4,bob,,COMPLETED,50,P2
3,20,20,70,4,cid,,COMPLETED,50,P0
CSV
"$GQ" sim --trace "$T_DIR/tiers.csv" --nodes 1 --gpus-per-node 4 --json >"$T_DIR/tiers.json"
check_eq "tiers: P0 80 s, P2 140 s, the P2 overtaken once" \
	"$(jq -c '[.runs[0].groups[] | [.name, .max_wait, .overtakes]]' "$T_DIR/tiers.json")" \
	'[["P0",80,0],["P1",0,0],["P2",140,1],["queue default",140,1],["all",140,1]]'

# SWF, plain and gzip: the same first-come-first-served waits; the machine
# from MaxProcs (8 units: one node of 8).
cat >"$T_DIR/fcfs.swf" <<'SWF'
; MaxProcs: 8
1 0 0 100 8 -1 -1 8 100 -1 1 1 1 1 -1 -1 -1 -1
2 10 0 50 8 -1 -1 8 50 -1 1 2 1 1 -1 -1 -1 -1
3 20 0 10 4 -1 -1 4 10 -1 1 3 1 1 -1 -1 -1 -1
SWF
gzip -c "$T_DIR/fcfs.swf" >"$T_DIR/fcfs.swf.gz"
for f in fcfs.swf fcfs.swf.gz; do
	check_eq "$f: waits 0, 90, 130 on 1 x 8" \
		"$("$GQ" sim --trace "$T_DIR/$f" --json | jq -c '[.machine.nodes, .machine.units, .runs[0].groups[-1].p50_wait, .runs[0].groups[-1].max_wait, .runs[0].histogram["<10m"]]')" \
		"[1,8,90,130,2]"
done

# Two policies side by side: under the second, P1's wait limit is a minute.
# D earns its starvation permit at 90 and takes the free unit ahead of B,
# until 110: B starts then (100 s, over the limit), D waited 60 s.
printf '[headroom]\n\tshare = 0\n' >"$T_DIR/a.conf"
printf '[headroom]\n\tshare = 0\n[tier "P1"]\n\twaitLimit = 1m\n' >"$T_DIR/b.conf"
"$GQ" sim --trace "$T_DIR/bf.csv" --nodes 1 --gpus-per-node 4 --policy "$T_DIR/a.conf" \
	--against "$T_DIR/b.conf" --json >"$T_DIR/ab.json"
check_eq "--against: two runs, their policies" "$(jq -c '[.runs[].policy | sub(".*/"; "")]' "$T_DIR/ab.json")" \
	'["a.conf","b.conf"]'
check_eq "--against: a permit under the second; over the limit, max wait" \
	"$(jq -c '[.runs[].groups[-1] | [.over_limit, .max_wait]]' "$T_DIR/ab.json")" "[[0,120],[1,100]]"
"$GQ" sim --trace "$T_DIR/bf.csv" --nodes 1 --gpus-per-node 4 --policy "$T_DIR/a.conf" \
	--against "$T_DIR/b.conf" --no-accuracy >"$T_DIR/ab.txt"
check_match "--against: a table of differences" "$(cat "$T_DIR/ab.txt")" "^differences, .*b.conf minus .*a.conf$"

# Bad input: one line with the file and line, exit 2; unreadable: exit 1.
printf 'job_id,submit_s,start_s,end_s,gpus,user,queue,status\n1,0,0,1,1,a,,x\n2,5,4,9,1,a,,x\n' >"$T_DIR/bad.csv"
check_fail 2 "a malformed CSV line: exit 2" "$GQ" sim --trace "$T_DIR/bad.csv"
check_eq "a malformed CSV line: its line number" "$("$GQ" sim --trace "$T_DIR/bad.csv" 2>&1)" \
	"gq: $T_DIR/bad.csv:3: times out of order: need submit_s <= start_s <= end_s, and end_s only with start_s"
printf '1 0 0 100 8 -1 -1 8 100 -1 1 1 1 1 -1 -1 -1\n' >"$T_DIR/bad.swf"
check_eq "a malformed SWF line: its line number" "$("$GQ" sim --trace "$T_DIR/bad.swf" 2>&1)" \
	"gq: $T_DIR/bad.swf:1: 17 fields, SWF has 18"
check_fail 1 "a trace that cannot be read: exit 1" "$GQ" sim --trace "$T_DIR/none.csv"
check_fail 2 "no --trace: exit 2" "$GQ" sim
check_fail 2 "--nodes without --gpus-per-node: exit 2" "$GQ" sim --trace "$T_DIR/bf.csv" --nodes 2
finish
