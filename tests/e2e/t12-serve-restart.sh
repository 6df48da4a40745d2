#!/bin/bash
# t12: jobs outlive the server. A running job keeps running across a clean
# stop and a kill -9; the next server adopts it, records an exit that
# happened while it was down, follows one that happens after, and never
# starts anything twice. The state directory is locked against a second
# server.
. "$(dirname "$0")/lib.sh"
. "$T_SRC/api.sh"
server_start --gpus 2

# Each job says it started, waits for its go file, then exits with a code.
job() { # NAME CODE
	echo "{\"name\":\"$1\",\"argv\":[\"sh\",\"-c\",\"echo started; while [ ! -e $T_DIR/go-$1 ]; do sleep 0.05; done; echo done; exit $2\"]}"
}
api POST /v1/jobs "$(job a 7)" >/dev/null
api POST /v1/jobs "$(job b 0)" >/dev/null
api POST /v1/jobs '{"argv":["true"],"name":"c"}' >/dev/null
check "a runs" wait_state 1 running
check "b runs" wait_state 2 running
check_eq "c waits for a GPU" "$(api GET /v1/jobs/3 | jq -r .state)" pending

out=$("$GQ" serve --listen "unix:$T_DIR/sock2" --state-dir "$SERVER_STATE" --manual-clock 2>&1)
check_eq "a second server on the same state directory is refused" "$?:$(echo "$out" | sed 's/^[^ ]* error //')" \
	"1:state directory '$SERVER_STATE' is in use by another gq serve (pid $SERVER_PID); stop it or use another --state-dir"

server_stop
check_eq "the server stopped cleanly" "$(tail -1 "$T_DIR/server.log" | sed 's/^[^ ]* //')" "info  stopped"
pid_a=$(cat "$SERVER_STATE/run/1/pid")
check "job a still runs without a server" kill -0 "$pid_a"
touch "$T_DIR/go-a" # a ends while no server runs
for _ in $(seq 1 100); do [ -e "$SERVER_STATE/run/1.exit" ] && break; sleep 0.05; done
check_match "its supervisor recorded the status and when it ended" "$(cat "$SERVER_STATE/run/1.exit")" '^7 [0-9]{10,}$'

server_start --gpus 2
check_eq "a's exit while down is recorded" "$(api GET /v1/jobs/1 | jq -c '[.state, .exit_status]')" '["failed",7]'
check_eq "b was adopted, still running" "$(api GET /v1/jobs/2 | jq -r .state)" running
check "c starts on a's GPU" wait_state 3 completed
touch "$T_DIR/go-b"
check "b's exit is seen by the new server" wait_state 2 completed
check_eq "a started once" "$(api GET /v1/jobs/1/logs)" "started
done"
check_eq "b started once" "$(api GET /v1/jobs/2/logs)" "started
done"
check_match "the log says what was found again" "$(cat "$T_DIR/server.log")" "job 2: still running, adopted"

# kill -9: nothing is cleaned up, the next server still finds everything.
api POST /v1/jobs "$(job d 3)" >/dev/null
check "d runs" wait_state 4 running
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
check "d survives kill -9 of the server" kill -0 "$(cat "$SERVER_STATE/run/4/pid")"
server_start --gpus 2
check_eq "d adopted after kill -9" "$(api GET /v1/jobs/4 | jq -r .state)" running
touch "$T_DIR/go-d"
check "d's exit recorded" wait_state 4 failed
check_eq "with its status" "$(api GET /v1/jobs/4 | jq .exit_status)" 3
check_eq "d started once" "$(api GET /v1/jobs/4/logs)" "started
done"
check_eq "run files are cleaned up once recorded" "$(ls "$SERVER_STATE/run" | sort | tr '\n' ' ')" ""
check_eq "events of d" "$(api GET '/v1/events?after=0&limit=10000' | jq -r '.events[] | select(.job == 4) | "\(.from)->\(.to) \(.reason)"')" "pending->pending submitted
pending->starting start
starting->running started
running->failed exit 3"
# The journal keeps the schema it was written in: a gq too old for it says
# so and does not start, rather than fail on the first field it does not
# know (or ignore what it cannot read).
server_stop
schema=$(sqlite3 "$SERVER_STATE/gq.db" "SELECT v FROM meta WHERE k = 'schema'")
check_match "the journal names its schema" "$schema" '^[1-9][0-9]*$'
sqlite3 "$SERVER_STATE/gq.db" "UPDATE meta SET v = '$((schema + 1))' WHERE k = 'schema'"
out=$(timeout 10 "$GQ" serve --listen "unix:$T_DIR/sock2" --state-dir "$SERVER_STATE" --gpus 2 2>&1); rc=$?
check_eq "a newer journal: gq serve refuses to start, one line" "$rc $(echo "$out" | sed 's/^[^ ]* error //')" \
	"1 the journal '$SERVER_STATE/gq.db' was written by a newer gq (schema $((schema + 1))); this gq reads up to $schema"
check_eq "and leaves it as it was" "$(sqlite3 "$SERVER_STATE/gq.db" "SELECT v FROM meta WHERE k = 'schema'")" "$((schema + 1))"
sqlite3 "$SERVER_STATE/gq.db" "DELETE FROM meta WHERE k = 'schema'"
server_start --gpus 2
check_eq "a journal of a gq before schemas is read, and marked" \
	"$(api GET /v1/jobs/4 | jq -r .state) $(sqlite3 -cmd '.timeout 5000' "$SERVER_STATE/gq.db" "SELECT v FROM meta WHERE k = 'schema'")" \
	"failed $schema"
finish
