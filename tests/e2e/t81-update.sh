#!/bin/bash
# t81: gq update changes a pending job in place: checked exactly as a
# submission (same messages, same exit codes), an "update" event naming
# what changed, journalled (survives kill -9); a running job is refused;
# the API refuses fields it cannot change.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
policy_server '[headroom]
	share = 0
[tier "P0"]
	allow = nobody'
"$GQ" clock --set "2030-01-01 10:00" >/dev/null
now=$("$GQ" clock --json | jq .now)
a=$(sub --gpus 8 -- $LONG)
check "a holds every GPU" wait_state "$a" running
b=$(sub --gpus 2 --name first -- true)
c=$(sub -- true)

check_eq "update: one line" "$("$GQ" update "$b" --gpus 4 --tier P2 --estimate 1h --time-limit 2h \
	--name second --after "$c" --begin now+1h)" "updated job $b"
check_eq "every field changed" \
	"$("$GQ" show --json "$b" | jq -c '[.req.gpus, .tier, .estimate, .time_limit, .name, .deps, .begin_time, .state]')" \
	"[4,\"P2\",3600,7200,\"second\",[$c],$((now + 3600)),\"pending\"]"
check_eq "the event names each change" \
	"$("$GQ" events --json | jq -r ".[] | select(.job == $b and .kind == \"update\") | [.actor, .reason] | @tsv")" \
	"root	gpus 2->4, estimate 0s->1h00m, time_limit 0s->2h00m, tier P1->P2, name first->second, deps ''->'afterok:$c', begin_time 0->$((now + 3600))"
check_eq "--json: the id" "$("$GQ" update --json "$b" --gpu-type slot)" "{\"id\":$b}"
check_eq "--begin now removes the deferral" "$("$GQ" update "$b" --begin now >/dev/null; field "$b" .begin_time)" 0

# The submission's checks, with their messages and codes.
check_fail 2 "more GPUs than any node set has: exit 2" "$GQ" update "$b" --gpus 99
check_eq "the submission's message" "$("$GQ" update "$b" --gpus 99 2>&1)" \
	"$("$GQ" submit --gpus 99 --gpu-type slot -- true 2>&1)"
check_eq "an unknown queue: the submission's message" "$("$GQ" update "$b" --queue nope 2>&1)" \
	"$("$GQ" submit --queue nope -- true 2>&1)"
check_fail 4 "a tier not open to the user: exit 4" "$GQ" update "$b" --tier P0
check_fail 2 "a dependency that does not exist" "$GQ" update "$b" --after 77
check_match "a job waiting for itself" "$("$GQ" update "$b" --after "$b" 2>&1)" "cannot wait for itself"
# A cycle of waiting jobs, as a self-dependency, is refused: x -> y -> z -> x
# would leave all three pending for ever.
x=$(sub --hold -- true); y=$(sub --after "$x" -- true); z=$(sub --after "$y" -- true)
out=$("$GQ" update "$x" --after "$z" 2>&1); rc=$?
check_eq "a dependency cycle: exit 2, one line naming it" "$rc $out" \
	"2 gq: job '$x' cannot wait for job '$z', which waits for it ($x -> $z -> $y -> $x): none of them could ever start"
check_eq "a dependency cycle through the API: 400" \
	"$(api POST "/v1/jobs/$y/update" "{\"deps\":[$z]}" | jq -c '[.error.code, .error.message]')" \
	"[\"invalid\",\"job '$y' cannot wait for job '$z', which waits for it ($y -> $z -> $y): none of them could ever start\"]"
check_eq "the API's status: 400" "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SERVER_SOCK" \
	-X POST -H 'Content-Type: application/json' --data-binary "{\"deps\":[$z]}" "http://gq/v1/jobs/$y/update")" 400
check_eq "the jobs are as they were" "$(field "$x" .deps | jq -c .),$(field "$y" .deps | jq -c .)" "[],[$x]"
check "a dependency on a job of the chain that closes no cycle is fine" "$GQ" update "$z" --after "$x"
"$GQ" cancel "$z" "$y" "$x" >/dev/null
check_fail 2 "an estimate over the time limit" "$GQ" update "$b" --estimate 3h
check_fail 2 "a begin time in the past" "$GQ" update "$b" --begin 2029-01-01
check_fail 2 "a bad option value" "$GQ" update "$b" --gpus many
check_fail 2 "nothing to change" "$GQ" update "$b"
check_fail 3 "no such job" "$GQ" update 999 --gpus 1
check_eq "refused changes left it as it was" "$("$GQ" show --json "$b" | jq -c '[.req.gpus, .tier, .queue, .deps]')" \
	"[4,\"P2\",\"default\",[$c]]"
check_fail 1 "a running job: exit 1" "$GQ" update "$a" --gpus 1
check_eq "with a line saying why" "$("$GQ" update "$a" --gpus 1 2>&1)" \
	"gq: job '$a' is running; only a pending job can be changed (cancel and resubmit it)"
check_eq "the API: a field that cannot change" \
	"$(api POST "/v1/jobs/$b/update" '{"req":{"cpus":3}}' | jq -r .error.message)" \
	"update.req.cpus: cannot be changed; only req.gpus and req.gpu_type can"
check_eq "the API: an empty update" "$(api POST "/v1/jobs/$b/update" '{}' | jq -r .error.message)" \
	"update: nothing to change; give at least one field"

kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
server_start --policy-repo "$P_REPO" --gpus 8
check_eq "the change survives kill -9 of the server" \
	"$("$GQ" show --json "$b" | jq -c '[.req.gpus, .req.gpu_type, .name]')" '[4,"slot","second"]'
finish
