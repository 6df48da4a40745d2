#!/bin/bash
# t64-old-jobs: finished jobs leave gq serve's memory 25 h after their end
# (the journal keeps them, as Slurm's MinJobAge), and every command still
# finds them: gq show, the job list, history, requeue, a dependency on one, an
# action on an array of them, a restart. gq_jobs_in_memory says how many
# the server holds.
. "$(dirname "$0")/lib.sh"
server_start --gpus 2
jid() { sed -n 's/^submitted job \([0-9]*\).*/\1/p'; }
inmem() { curl -s --unix-socket "$SERVER_SOCK" http://gq/metrics | awk '$1 == "gq_jobs_in_memory" {print $2}'; }
ended() { wait_state "$1" completed failed cancelled timeout; }

a=$("$GQ" submit --gpus 0 --name old-ok -- true | jid)
b=$("$GQ" submit --gpus 0 --name old-fail -- sh -c 'exit 3' | jid)
"$GQ" submit --gpus 0 --array 0-2 --name old-arr -- true >"$T_DIR/arr"
arr=$(sed -n 's/^submitted array job \([0-9]*\).*/\1/p' "$T_DIR/arr")
check "the jobs end" ended "$a"
check "..." ended "$b"
for t in 0 1 2; do ended "${arr}_$t" >/dev/null; done
check_eq "all 5 are in memory" "$(inmem)" 5

"$GQ" clock +2d >/dev/null
for _ in $(seq 1 100); do [ "$(inmem)" = 0 ] && break; sleep 0.05; done
check_eq "2 days on, none is in memory" "$(inmem)" 0
check_eq "gq show finds one in the journal" "$("$GQ" show --json "$a" | jq -r '.state + " " + .name')" \
	"completed old-ok"
check_eq "GET /v1/jobs?all=1 lists all 5" \
	"$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?all=1' | jq -c '[.jobs[].name] | sort')" \
	'["old-arr","old-arr","old-arr","old-fail","old-ok"]'
# Pages: no answer holds more than page= jobs; Gq-Next-Offset says where
# the next one starts, a short page ends the walk.
walk=""
after=0
for _ in 1 2 3 4 5; do
	curl -s -D "$T_DIR/h" --unix-socket "$SERVER_SOCK" "http://gq/v1/jobs?all=1&page=2&after=$after" >"$T_DIR/p"
	walk="$walk$(jq -r '[.jobs[].id | tostring] | join(",")' "$T_DIR/p");"
	next=$(tr -d '\r' <"$T_DIR/h" | sed -n 's/^[Gg]q-[Nn]ext-[Oo]ffset: //p')
	[ -n "$next" ] || break
	after=$next
done
check_eq "GET /v1/jobs in pages of 2: every job once, in id order, the last page short" "$walk" \
	"$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?all=1' | jq -r '[.jobs[].id] | . as $a | [range(0; length; 2) | $a[.:.+2] | map(tostring) | join(",")] | join(";")');"
check_eq "history of the last 3 days lists them" "$("$GQ" history --since now-3d --json | jq length)" 5
check_eq "history of the last day does not" "$("$GQ" history --since now-1d --json | jq length)" 0
check_eq "gq show of one is not in memory for good" "$(inmem)" 1

c=$("$GQ" submit --gpus 0 --after "afterok:$a" --name after-old -- true | jid)
check "a job that waits for one that left memory runs" ended "$c"
check_eq "... once its dependency is met" "$(state "$c")" completed
out=$("$GQ" cancel "$arr" 2>&1)
check_match "an action on an array of old tasks finds them (they ended)" "$out" \
	"array '$arr' has no task this applies to"
check "the failed one is requeued" "$GQ" requeue "$b"
for _ in $(seq 1 100); do [ "$("$GQ" show --json "$b" | jq .restarts)" = 1 ] && [ "$(state "$b")" = failed ] && break; sleep 0.05; done
check_eq "... and runs again" "$("$GQ" show --json "$b" | jq -c '[.state, .restarts, .exit_status]')" '["failed",1,3]'
check_eq "gq logs of one out of memory (spool kept 7 days)" "$("$GQ" logs "$a"; echo "rc $?")" "rc 0"

server_stop
server_start --gpus 2
check_eq "after a restart, the server holds the jobs of the last 25 h" "$(inmem)" 2
check_match "its log says so" "$(cat "$T_DIR/server.log")" "2 jobs in memory \(active, or ended in the last 25 h\)"
check_eq "and ids go on from the journal's" "$("$GQ" submit --hold --gpus 0 -- true | jid)" "$((c + 1))"
check_eq "gq show of an old one after the restart" "$("$GQ" show --json "$a" | jq -r .state)" completed

# A list longer than the server's page (1,000), asked without page=: the
# same jobs as the pages, sent a page at a time as they are encoded
# (chunked), never held whole; active ones only come from memory.
"$GQ" submit --hold --gpus 0 --array 0-599 --name many -- true >/dev/null
"$GQ" submit --hold --gpus 0 --array 0-599 --name many -- true >/dev/null
curl -s -D "$T_DIR/h" --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?all=1' >"$T_DIR/all"
check_match "GET /v1/jobs?all=1 of 1,207 jobs is streamed" "$(tr -d '\r' <"$T_DIR/h")" \
	"Transfer-Encoding: chunked"
check_eq "... every job once, in id order" \
	"$(jq -c '[(.jobs | length), (.jobs | map(.id) | . == unique)]' "$T_DIR/all")" '[1207,true]'
walk=""
after=0
for _ in $(seq 1 10); do
	curl -s -D "$T_DIR/h" --unix-socket "$SERVER_SOCK" "http://gq/v1/jobs?all=1&page=500&after=$after" >"$T_DIR/p"
	walk="$walk$(jq -r '[.jobs[].id | tostring] | join(",")' "$T_DIR/p"),"
	next=$(tr -d '\r' <"$T_DIR/h" | sed -n 's/^[Gg]q-[Nn]ext-[Oo]ffset: //p')
	[ -n "$next" ] || break
	after=$next
done
check_eq "... the same as its pages of 500" "${walk%,}" "$(jq -r '[.jobs[].id | tostring] | join(",")' "$T_DIR/all")"
check_eq "form=lean: the same jobs, with only what differs from a new job's fields" \
	"$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?all=1&form=lean' |
		jq -c '[(.jobs | length), (.jobs | map(.id) | . == unique), (.jobs[0] | has("gid")), (.jobs[0].name)]')" \
	"[1207,true,false,\"old-ok\"]"
check_eq "... and the full form has every field" \
	"$(jq -c '.jobs[0] | [has("gid"), .name]' "$T_DIR/all")" '[true,"old-ok"]'
check_eq "a form gq does not know: 400 saying which" \
	"$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?form=rows' | jq -r .error.message; curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?form=rows')" \
	"unknown form 'rows' in 'form'; use lean (or leave it out for every field)
400"
check_eq "GET /v1/jobs (active): the 1,201 held" \
	"$(curl -s --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs' | jq -c '[.jobs[] | select(.state == "pending")] | length')" 1201
curl -s -D "$T_DIR/h" --unix-socket "$SERVER_SOCK" 'http://gq/v1/jobs?page=1201' >"$T_DIR/p"
check_eq "... a page of exactly all of them says no next page" \
	"$(jq '.jobs | length' "$T_DIR/p") $(tr -d '\r' <"$T_DIR/h" | grep -ci '^gq-next-offset')" "1201 0"
finish
