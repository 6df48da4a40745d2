#!/bin/bash
# t1c: a server killed with SIGKILL while jobs run comes back and stays up.
# On the real clock (a manual clock stands still while the server is down,
# so only the real one shows it): jobs that end while no server runs keep
# the time they really ended, their usage is charged up to then and stays a
# finite number, and every command works after the restart. A journal that
# already holds a non-finite usage (written by an older server) is repaired
# on load, not served.
. "$(dirname "$0")/lib.sh"

real_start() { # a server on the real clock, on the scratch dir's socket
	SERVER_SOCK="$T_DIR/sock"
	SERVER_STATE="$T_DIR/state"
	"$GQ" serve --listen "unix:$SERVER_SOCK" --state-dir "$SERVER_STATE" --gpus 4 \
		>>"$T_DIR/server.log" 2>&1 &
	SERVER_PID=$!
	T_PIDS="$T_PIDS $SERVER_PID"
	export GQ_SERVER="unix:$SERVER_SOCK"
	for _ in $(seq 1 100); do
		curl -sf --unix-socket "$SERVER_SOCK" http://gq/v1/ping >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}
snap() { curl -s --unix-socket "$SERVER_SOCK" http://gq/v1/snapshot; }

real_start
a=$("$GQ" submit --json --gpus 1 -- sleep 1 | jq -r .id)
b=$("$GQ" submit --json --gpus 2 -- true | jq -r .id)
c=$("$GQ" submit --json --gpus 1 -- sleep 30 | jq -r .id)
wait_state "$a" running
wait_state "$c" running
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
# Job a ends while no server runs; its supervisor records the end.
for _ in $(seq 1 100); do
	[ -e "$SERVER_STATE/run/$a.exit" ] && break
	sleep 0.05
done
sleep 2 # the restart comes well after the end
real_start
check "gq ls answers after the restart" "$GQ" ls
check "gq ls answers again (the server is still up)" "$GQ" ls --all
check "gq why answers" "$GQ" why "$c"
check "the server is alive" kill -0 "$SERVER_PID"
check_eq "job a completed while the server was down" "$(state "$a")" completed
run=$("$GQ" show --json "$a" | jq '.end_time - .start_time')
check_match "job a ran about its 1 s, not until the restart (got ${run}s)" "$run" '^[12]$'
check_eq "every usage in the snapshot is a number" \
	"$(snap | jq -r '[.queues[].usage, .depts[].gpu_hours_month] | map(type) | unique | join(",")')" \
	number
check_eq "the journal's usage is finite" \
	"$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select v from meta where k='usage'\").fetchone()[0])" \
		"$SERVER_STATE/gq.db" | grep -ciE 'nan|inf')" 0
server_stop

# A journal with a non-finite usage: loaded as 0 with a warning, served as
# a number.
python3 - "$SERVER_STATE/gq.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("update meta set v = 'q default nan 0\nd default inf 0\n' where k = 'usage'")
db.commit()
EOF
real_start
check "gq ls answers on a journal with a non-finite usage" "$GQ" ls
check_eq "that usage is served as a finite number" \
	"$(snap | jq -r '[.queues[].usage] | map(type) | unique | join(",")')" number
check_match "the server says what it repaired" "$(cat "$T_DIR/server.log")" \
	"usage of 'default' is nan; counted as 0"
finish
