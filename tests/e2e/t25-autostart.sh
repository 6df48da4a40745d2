#!/bin/bash
# t25-autostart: from a clean environment (no GQ_SERVER, no config, no
# server), the first commands that need a scheduler start the user's own
# gq serve in the background, tmux-style — one, even when two commands
# start together — and the next ones reuse it; completion never starts
# one. The test stops the server it caused.
. "$(dirname "$0")/lib.sh"
sock="$XDG_RUNTIME_DIR/gq/sock"
log="$XDG_STATE_HOME/gq/serve.log"
server_pids() { pgrep -f "serve --listen unix:$sock"; }

check_eq "no server to begin with" "$(server_pids)" ""
check_eq "completion offers no job ids and starts nothing" "$("$GQ" __complete jobs)" ""
check_eq "still no server" "$(server_pids)" ""

"$GQ" ls >"$T_DIR/a" 2>&1 & a=$!
"$GQ" submit --hold -- true >"$T_DIR/b" 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
check_eq "two commands at once both succeed" "$ra $rb" "0 0"
check_eq "the submit queued its job" "$(cat "$T_DIR/b")" "submitted job 1"
check_eq "one server for both" "$(server_pids | wc -l)" 1
pid=$(server_pids)
check "it listens on the default socket" test -S "$sock"
check "it logs to XDG_STATE_HOME/gq/serve.log" test -s "$log"
check "it is detached: in a session of its own" test "$(ps -o sid= -p "$pid" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')"
check "and not our child" test "$(ps -o ppid= -p "$pid" | tr -d ' ')" != $$
check_eq "the socket directory is private" "$(stat -c %a "$XDG_RUNTIME_DIR/gq")" 700
check_eq "the next command uses it" "$("$GQ" show --json 1 | jq -c '[.id, .held]')" '[1,true]'
check_eq "and starts no second one" "$(server_pids)" "$pid"

# A configured server that is not there is an error, not a new server.
out=$(GQ_SERVER="unix:$T_DIR/elsewhere" "$GQ" ls 2>&1); rc=$?
check_eq "a configured server that does not answer: exit 5" "$rc" 5
check_match "names it and says what to do" "$out" "^gq: cannot reach gq serve at 'unix:$T_DIR/elsewhere': .*; start it with 'gq serve' or set GQ_SERVER$"
check_eq "and starts nothing there" "$(pgrep -f "serve --listen unix:$T_DIR/elsewhere")" ""

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
check "the server is stopped at the end" sh -c "! kill -0 $pid 2>/dev/null"
finish
