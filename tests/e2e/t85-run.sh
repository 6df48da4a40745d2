#!/bin/bash
# t85: gq run -- COMMAND queues a job, streams its output while it runs (in
# order), exits with its exit status (128+N for a signal), shows a status
# line on a terminal while it waits, and cancels the job on SIGINT,
# SIGTERM or SIGHUP (exit 130); a refused submission exits as gq submit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/enforce.sh"
server_start --gpus 8

check_eq "a job's output, on stdout" "$("$GQ" run -- sh -c 'echo hello; echo there')" "hello
there"
"$GQ" run -- sh -c 'exit 7' >/dev/null 2>&1
check_eq "its exit status" "$?" 7
"$GQ" run -- sh -c 'kill -USR1 $$' >/dev/null 2>&1
check_eq "128+N for a signal, as a shell says it" "$?" 138
check_eq "stderr to stderr, stdout to stdout" \
	"$("$GQ" run -- sh -c 'echo out; echo err >&2' 2>"$T_DIR/err.txt")/$(cat "$T_DIR/err.txt")" "out/err"
check_match "a failure is said on stderr" "$("$GQ" run -- sh -c 'exit 3' 2>&1 >/dev/null)" \
	"^gq run: job [0-9]+ failed, exit status 3$"

# Streamed while it runs: the first line is there before the job goes on.
"$GQ" run --name stream -- sh -c "seq 1 300; while [ ! -e '$T_DIR/go' ]; do sleep 0.05; done; seq 301 600" \
	>"$T_DIR/out.txt" 2>"$T_DIR/run.err" &
pid=$!
for _ in $(seq 1 200); do grep -qx 300 "$T_DIR/out.txt" 2>/dev/null && break; sleep 0.05; done
check_eq "the first 300 lines arrive while the job still runs" "$(wc -l <"$T_DIR/out.txt")" 300
check_eq "it is running" "$("$GQ" ls --all --json | jq -r '.[] | select(.name == "stream") | .state')" running
touch "$T_DIR/go"
wait "$pid"
check_eq "gq run exits 0 with the job" "$?" 0
check_eq "every line, in order" "$(cat "$T_DIR/out.txt")" "$(seq 1 600)"
check_eq "nothing of gq's on stderr off a terminal" "$(cat "$T_DIR/run.err")" ""

# Ctrl-C: a running job is cancelled, gq run exits 130.
"$GQ" run --name sigint -- $LONG >/dev/null 2>"$T_DIR/int.err" &
pid=$!
id=""
for _ in $(seq 1 200); do
	id=$("$GQ" ls --json | jq -r '.[] | select(.name == "sigint" and .state == "running") | .id')
	[ -n "$id" ] && break
	sleep 0.05
done
check "the job runs" test -n "$id"
kill -INT "$pid"
wait "$pid"
check_eq "SIGINT: exit 130" "$?" 130
check "and the job is cancelled" wait_state "$id" cancelled
check_eq "said on stderr" "$(cat "$T_DIR/int.err")" "gq run: interrupted; job $id cancelled"

# Ctrl-C does not drop what the job writes last: what it wrote before the
# interrupt and what it says as it ends (a trap on SIGTERM) still come out.
"$GQ" run --name lastwords -- sh -c "trap 'echo bye; exit 3' TERM; echo hi; while :; do sleep 0.1; done" \
	>"$T_DIR/last.out" 2>"$T_DIR/last.err" &
pid=$!
for _ in $(seq 1 200); do grep -qx hi "$T_DIR/last.out" 2>/dev/null && break; sleep 0.05; done
kill -INT "$pid"
wait "$pid"
check_eq "SIGINT with last words: exit 130" "$?" 130
check_eq "the job's output to its end" "$(cat "$T_DIR/last.out")" "hi
bye"

# SIGTERM while it waits (held): cancelled while pending.
"$GQ" run --hold --name held -- true >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
	id=$("$GQ" ls --json | jq -r '.[] | select(.name == "held") | .id')
	[ -n "$id" ] && break
	sleep 0.05
done
check_eq "the held job waits" "$(state "$id")" pending
kill -TERM "$pid"
wait "$pid"
check_eq "SIGTERM: exit 130" "$?" 130
check "and the pending job is cancelled" wait_state "$id" cancelled

# On a terminal: one status line while it waits, then the output.
script -qfec "$GQ run --hold --name tty -- echo from-the-job" "$T_DIR/tty.txt" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do
	id=$("$GQ" ls --json | jq -r '.[] | select(.name == "tty") | .id')
	[ -n "$id" ] && grep -q "queued as job" "$T_DIR/tty.txt" 2>/dev/null && break
	sleep 0.05
done
check_match "the status line says the job and why it waits" "$(tr '\r' '\n' <"$T_DIR/tty.txt" | grep -a 'queued as job' | head -1)" \
	"gq run: queued as job $id, waiting: held"
"$GQ" release "$id" >/dev/null
wait "$pid"
check_eq "then it exits with the job" "$?" 0
check "and the job's output is there" grep -aq "from-the-job" "$T_DIR/tty.txt"

# The server restarts while the job runs: gq run waits for it, goes on
# streaming and exits with the job's status.
"$GQ" run --name across -- sh -c "echo before; while [ ! -e '$T_DIR/go' ]; do sleep 0.1; done; echo after; exit 9" \
	>"$T_DIR/across.out" 2>"$T_DIR/across.err" &
pid=$!
for _ in $(seq 1 200); do grep -q before "$T_DIR/across.out" 2>/dev/null && break; sleep 0.05; done
server_stop
sleep 1
touch "$T_DIR/go"
server_start --gpus 8
wait "$pid"
check_eq "across a server restart, gq run exits with the job's status" "$?" 9
check_eq "... with all of its output" "$(cat "$T_DIR/across.out")" "$(printf 'before\nafter')"

check_fail 2 "--array is gq submit's: exit 2" "$GQ" run --array 0-3 -- true
check_fail 2 "a bad option: exit 2" "$GQ" run --gpus many -- true
check_fail 2 "a submission the server refuses: exit 2" "$GQ" run --queue nosuch -- true
check_fail 2 "no command: exit 2" "$GQ" run
finish
