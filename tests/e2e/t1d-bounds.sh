#!/bin/bash
# t1d: values nothing can satisfy are refused, on both paths with the same
# bounds, and none can leave the server with a state it cannot read back.
# The manual clock refuses an advance past the year 9999 (once, a huge
# advance overflowed to a negative clock that broke every later gq ls);
# time limits, CPUs and memory beyond what any node has are refused at
# submit like an impossible GPU count; --gpus 0 is a CPU-only job that the
# scheduler runs on CPUs and memory like any other request.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start --gpus 4 --cpus 4 --mem 16G
err() { # METHOD PATH [BODY] -> "STATUS CODE MESSAGE"
	api_code "$@" | { read -r st body; echo "$st $(echo "$body" | jq -r '.error.code + " " + .error.message')"; }
}

# The clock.
now=$(api GET /v1/ping | jq -r .now)
check_eq "the API refuses an advance past the year 9999" \
	"$(err POST /v1/clock '{"advance": 9223372036854775807}')" \
	"400 invalid the clock cannot go past the year 9999"
check_eq "and one that lands just past it" \
	"$(err POST /v1/clock "{\"advance\": $((253402300799 - now + 1))}")" \
	"400 invalid the clock cannot go past the year 9999"
check_eq "the clock did not move" "$(api GET /v1/ping | jq -r .now)" "$now"
check_fail 2 "the CLI refuses it too" "$GQ" clock +9223372036854775807s
check "gq ls still answers" "$GQ" ls
check "the largest advance the API takes is taken" \
	api POST /v1/clock "{\"advance\": $((253402300799 - now))}"
"$GQ" submit --hold -- true >/dev/null
check "gq ls answers at the end of the year 9999" "$GQ" ls
check "gq why answers there" "$GQ" why 1
server_stop
server_start --gpus 4 --cpus 4 --mem 16G
check "and after a restart" "$GQ" ls --all
check_eq "the clock is where it was set" "$(api GET /v1/ping | jq -r .now)" 253402300799
server_stop
rm -rf "$SERVER_STATE"
server_start --gpus 4 --cpus 4 --mem 16G

# Numbers out of bounds: the API and the CLI say the same.
check_eq "API: a time limit of 2^62 s" \
	"$(err POST /v1/jobs '{"argv":["x"],"time_limit":4611686018427387904}')" \
	"400 invalid time_limit: 4611686018427387904 s is out of range (0..3153600000, 100 years)"
check_fail 2 "CLI: a time limit over 100 years" "$GQ" submit --time-limit 36501d -- true
check_eq "API: a negative estimate" "$(err POST /v1/jobs '{"argv":["x"],"estimate":-1}')" \
	"400 invalid estimate: -1 s is out of range (0..3153600000, 100 years)"
check_eq "API: an estimate longer than the time limit" \
	"$(err POST /v1/jobs '{"argv":["x"],"estimate":7200,"time_limit":3600}')" \
	"400 invalid estimate is longer than time_limit; the job would be killed first"
check_eq "API: 2,000,000 CPUs" "$(err POST /v1/jobs '{"argv":["x"],"req":{"cpus":2000000}}')" \
	"400 invalid req.cpus: 2000000 is out of range (0..1000000)"
check_eq "API: 300,000 GPUs" "$(err POST /v1/jobs '{"argv":["x"],"req":{"gpus":300000}}')" \
	"400 invalid req.gpus: 300000 is out of range (0..262144)"
out=$("$GQ" submit --gpus 300000 -- true 2>&1); rc=$?
check_eq "CLI: 300,000 GPUs, the same bound" "$rc: $out" \
	"2: gq submit: --gpus: '300000' is out of range (0..262144); see 'gq submit -h'"
check_eq "API: a negative memory" "$(err POST /v1/jobs '{"argv":["x"],"req":{"mem_mb":-1}}')" \
	"400 invalid req.mem_mb: -1 is out of range (0..1099511627776)"
check_eq "API: a queued time the journal could not read back" \
	"$(err POST /v1/jobs '{"argv":["x"],"queued_time":-5}')" \
	"400 invalid submission: unknown field 'queued_time'"

# Requests no node could ever meet.
out=$("$GQ" submit --cpus 10000 -- true 2>&1); rc=$?
check_eq "10,000 CPUs on a 4-CPU machine: refused at submit" "$rc: $out" \
	"2: gq: needs 10000 CPUs on a node, the largest matching node has 4: ask for fewer CPUs"
out=$("$GQ" submit --mem 100T -- true 2>&1); rc=$?
check_eq "100T of memory on a 16G machine: refused at submit" "$rc: $out" \
	"2: gq: needs 100T of memory on a node, the largest matching node has 16G: ask for less memory"
check_eq "the API says the same" "$(err POST /v1/jobs '{"argv":["x"],"req":{"gpus":0,"mem_mb":102400}}')" \
	"400 invalid needs 100G of memory on a node, the largest node has 16G: ask for less memory"
check_eq "nothing was queued" "$(api GET '/v1/jobs?all=1' | jq '.jobs | length')" 0

# CPU-only jobs, scheduled on CPUs and memory.
check_eq "--gpus 0 is a CPU-only job" "$("$GQ" submit --gpus 0 --cpus 2 --name c1 -- sleep 300)" "submitted job 1"
"$GQ" submit --gpus 0 --cpus 2 --name c2 -- sleep 300 >/dev/null
"$GQ" submit --gpus 0 --cpus 1 --name c3 -- sleep 300 >/dev/null
wait_state 1 running
wait_state 2 running
check_eq "the two 2-CPU jobs run, the third CPU job waits for a CPU" \
	"$(state 1) $(state 2) $(state 3)" "running running pending"
check_eq "a CPU-only job is given a node and no GPU" "$("$GQ" show --json 1 | jq -c '[.alloc[].gpus]')" '[[]]'
check_match "gq ls says what job 3 waits for" "$("$GQ" ls | grep ' c3 ')" 'resources \(cpus\)'
check_match "gq why says it in words" "$("$GQ" why 3)" \
	'^Pending: resources\. No node it can use has the CPUs it asks for free\..* Needs no GPUs and 1 CPU\.'
check_match "gq show names the node and no GPUs" "$("$GQ" show 1)" 'gpus +[^ ]+ \(no GPUs\)'
check_match "and the request" "$("$GQ" show 1)" 'request +no GPUs; 2 CPUs'
"$GQ" cancel 1 >/dev/null
wait_state 3 running
check_eq "a CPU freed: the waiting CPU job starts" "$(state 3)" running

"$GQ" submit --gpus 1 --mem 8G --name g4 -- sleep 300 >/dev/null
wait_state 4 running
"$GQ" submit --gpus 1 --mem 10G --name g5 -- sleep 300 >/dev/null
"$GQ" submit --gpus 1 --time-limit 10m --name g6 -- sh -c 'echo "[$CUDA_VISIBLE_DEVICES]"; sleep 300' >/dev/null
wait_state 6 running # backfilled: its limit bounds it (predict.h)
check_eq "8G and 10G of 16G: the second waits for memory, a GPU job without memory runs" \
	"$(state 4) $(state 5) $(state 6)" "running pending running"
check_match "gq ls says what job 5 waits for" "$("$GQ" ls | grep ' g5 ')" 'resources \(mem\)'
check_match "gq why on the memory" "$("$GQ" why 5)" \
	'^Pending: resources\. No node it can use has the memory it asks for free\..* Needs 1 GPU and 10G of memory; 2 free\.'
"$GQ" cancel 4 >/dev/null
wait_state 5 running
check_eq "memory freed: the waiting GPU job starts" "$(state 5)" running
server_stop
server_start --gpus 4 --cpus 4 --mem 16G
check_eq "after a restart the CPU-only jobs are adopted, still on their node" \
	"$(state 2) $(state 3) $("$GQ" show --json 3 | jq -c '[.alloc[] | .gpus]')" "running running [[]]"
"$GQ" submit --gpus 0 --cpus 2 --name c7 -- true >/dev/null
check_eq "and the CPUs they hold are still counted: 3 of 4 taken, 2 more wait" "$(state 7)" pending
finish
