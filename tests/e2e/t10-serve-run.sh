#!/bin/bash
# t10: gq serve runs a job: submit over the API, the job sees its GPUs and
# ids, its exit status and logs are recorded, events tell the story.
. "$(dirname "$0")/lib.sh"
server_start --gpus 4 --gpu-model a100 --gpu-mem 80G

. "$T_SRC/api.sh"

ping=$(api GET /v1/ping)
check_eq "ping answers as the caller, admin of its own server" \
	"$(echo "$ping" | jq -c '[.ok, .user, .role, .manual_clock]')" '[true,"root","admin",true]'

out=$(api POST /v1/jobs '{"argv":["sh","-c","echo gpus=$CUDA_VISIBLE_DEVICES/$GQ_GPUS id=$GQ_JOB_ID r=$GQ_RESTART_COUNT g=$GQ_GRACE_SECONDS; echo oops >&2; pwd; echo $FOO; exit 3"],"cwd":"/tmp","env":["FOO=bar","PATH=/usr/bin:/bin"],"name":"first","req":{"gpus":2}}')
check_eq "submit answers the new job" "$(echo "$out" | jq -c '[.id, .job.name, .job.state, .job.req.gpus]')" '[1,"first","pending",2]'
check "job 1 fails with its exit status" wait_state 1 failed
check_eq "exit status recorded" "$(api GET /v1/jobs/1 | jq -c '[.exit_status, (.start_time > 0), (.end_time > 0)]')" '[3,true,true]'
check_eq "stdout log: GPUs, id, restart count, grace, cwd, env" "$(api GET '/v1/jobs/1/logs?stream=stdout')" \
	"gpus=0,1/0,1 id=1 r=0 g=300
/tmp
bar"
check_eq "stderr log" "$(api GET '/v1/jobs/1/logs?stream=stderr')" "oops"
check_eq "log from an offset" "$(api GET '/v1/jobs/1/logs?offset=5')" "0,1/0,1 id=1 r=0 g=300
/tmp
bar"
hdr=$(curl -s -D - -o /dev/null --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs/1/logs?offset=5' | tr -d '\r')
check_match "log offsets in headers" "$hdr" '^Gq-Next-Offset: 37$'
check_eq "the checkpoint dir exists" "$(ls -d "$SERVER_STATE"/jobs/1/checkpoint)" "$SERVER_STATE/jobs/1/checkpoint"

api POST /v1/jobs '{"argv":["true"]}' >/dev/null
check "job 2 completes" wait_state 2 completed
check_eq "exit 0 recorded" "$(api GET /v1/jobs/2 | jq .exit_status)" 0
check_eq "events of job 1 in order" \
	"$(api GET '/v1/events?after=0' | jq -r '.events[] | select(.job == 1) | "\(.kind) \(.from)->\(.to) \(.reason) \(.actor)"')" \
	"submit pending->pending submitted root
state pending->starting start scheduler
state starting->running started scheduler
state running->failed exit 3 scheduler"
next=$(api GET '/v1/events?after=0' | jq .next)
check_eq "events after the last one: none, next unchanged" "$(api GET "/v1/events?after=$next" | jq -c "[.events, .next == $next]")" '[[],true]'

# Long poll: the answer comes when the event does.
(sleep 0.3; api POST /v1/jobs '{"argv":["true"],"name":"late"}' >/dev/null) &
late=$!
ev=$(api GET "/v1/events?after=$next&wait=5000" | jq -r '.events[0] | "\(.kind) \(.job)"')
wait $late
check_eq "long poll wakes on the next event" "$ev" "submit 3"

snap=$(api GET /v1/snapshot)
check_eq "snapshot: the node as configured" "$(echo "$snap" | jq -c '.nodes[0] | [.ngpus, .gpu_model, .gpu_mem_mb, .up]')" '[4,"a100",81920,true]'
check_eq "snapshot: jobs sorted by id" "$(echo "$snap" | jq -c '[.jobs[].id]')" '[1,2,3]'
check_eq "snapshot: default policy keys" "$(echo "$snap" | jq -r '.policy.keys["tier.P0.base"]')" "100"
rows=$(api GET '/v1/snapshot?form=rows')
check_eq "snapshot rows: the same jobs, a row each, id first" \
	"$(echo "$rows" | jq -c '[.job_columns[0], [.jobs[][0]]]')" '["id",[1,2,3]]'
check_eq "snapshot rows: names by index into job_strings" \
	"$(echo "$rows" | jq -c '(.job_columns | index("name")) as $n | .job_strings as $s | [.jobs[][$n] | $s[.]]')" \
	"$(echo "$snap" | jq -c '[.jobs[].name]')"
check_match "snapshot: an unknown form is a 400 naming the forms" \
	"$(api GET '/v1/snapshot?form=table' | jq -r .error.message)" "^query parameter 'form': unknown form 'table'; use objects or rows$"

# Unsatisfiable requests are refused at submit with core's explanation.
out=$(api POST /v1/jobs '{"argv":["true"],"req":{"gpus":5}}')
check_match "more GPUs than the machine has: 400" "$(echo "$out" | jq -r .error.code)" '^invalid$'
out=$(api POST /v1/jobs '{"argv":["true"],"req":{"gpus":1,"gpu_type":"h100"}}')
check_match "a GPU type the machine lacks: 400" "$(echo "$out" | jq -r .error.code)" '^invalid$'
check_eq "a script runs under sh" "$(api POST /v1/jobs '{"script":"echo from script"}' | jq .id)" 4
check "job 4 completes" wait_state 4 completed
check_eq "script output" "$(api GET /v1/jobs/4/logs)" "from script"
check_eq "its command is kept" "$(api GET /v1/jobs/4/command | jq -c '[.script, .argv]')" '["echo from script",null]'
finish
