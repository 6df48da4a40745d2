#!/bin/bash
# t3b: the reclamation report (gq reclaim, GET /v1/reclaim) lists a job that
# ran silent for reclaim.idleAfter (1 h), not one that writes output or
# reports checkpoints; a failed job and a completed one whose processes
# still run (holding their GPUs); and drops them once those are gone. It
# reports only: nothing is killed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[reclaim]
	idleAfter = 1h'

quiet=$(sub --gpus 2 -- $LONG)
chatty=$(sub --gpus 1 -- sh -c "while :; do echo step; sleep 0.1; done; : $LONG")
saver=$(sub --gpus 1 -- $LONG)
failed=$(sub --gpus 2 -- sh -c "sleep 6$$ & exit 3")
done_=$(sub --gpus 1 -- sh -c "sleep 6$$ & exit 0")
check "the failed job fails" wait_state "$failed" failed
check "the other one completes" wait_state "$done_" completed
check "the silent job runs" wait_state "$quiet" running
check "the chatty job runs" wait_state "$chatty" running
clock +59m
"$GQ" checkpoint "$saver" >/dev/null
clock +1m
sleep 0.3 # the chatty job writes between two samples
rep=$(api GET /v1/reclaim)
check_eq "the report: silent job idle, failed and completed with live processes" \
	"$(echo "$rep" | jq -c '[.jobs[] | [.job, .kind, .gpus, .acts]]')" \
	"[[$quiet,\"idle\",2,false],[$failed,\"failed\",2,false],[$done_,\"unreleased\",1,false]]"
check_eq "idle for the hour since its start; 5 GPUs in all; mode observe" \
	"$(echo "$rep" | jq -c '[(.jobs[0].for), .gpus, .mode, .idle_after]')" '[3600,5,"observe",3600]'
out=$("$GQ" reclaim)
check_match "gq reclaim says so" "$out" "^reclaim.mode observe, idle after 1h00m: 5 GPUs held by 3 jobs \\(report only\\)$"
check_match "gq reclaim lists the idle job" "$out" "^$quiet +idle +2 "
check_eq "nothing was killed" "$(state "$quiet")" running
pkill -KILL -f "^sleep 6$$\$"
for _ in $(seq 1 100); do pgrep -f "^sleep 6$$\$" >/dev/null || break; sleep 0.05; done
check_eq "once their processes are gone, only the idle job is left" \
	"$(api GET /v1/reclaim | jq -c '[.jobs[] | .job]')" "[$quiet]"
finish
